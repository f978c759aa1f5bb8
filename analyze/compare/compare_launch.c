/* compare's launches: the processes of one distributed run, combined round by round.
 *
 * A distributed load writes one trace per rank, and every rank runs round r of a configuration
 * at the same time as the others: the ranks' rounds are one build, seen from N processes, not
 * N builds. Counting each as a pair would multiply n by the number of ranks and give sign-test
 * intervals and verdicts that 3 alternations cannot support. So the files are grouped into
 * launches, and round r of a configuration of every process of a launch becomes one round.
 *
 * Which files are one launch: the header's run id is made at each open, one per process, so
 * it cannot say; the rank metadata (wt_meta "rank", written by the recorder from RANK) and the
 * time can. Files that record a rank, of one side and one program, whose recording windows
 * overlap on UTC (the header's realtime anchor, so hosts with different monotonic clocks
 * compare too), and whose ranks differ, are one launch. A file without a rank is a launch of
 * its own, so rounds of unrelated processes stay distinct as before.
 *
 * A combined round takes the largest value over its processes: the round's duration (a
 * distributed load waits for its slowest rank), each stage, each counter; HIT/MISS counts
 * add up. Work: a sort of the rounds, and files x launches to group; no allocation per span. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "spanstat.h"

typedef struct span_utc {
    int64_t lo, hi;
} span_utc;

/* The file's recording window on UTC; 0 when it has no events. */
static int window_of(const wt_cmp_file *f, span_utc *w)
{
    if (f->max_end == INT64_MIN)
        return 0;
    const int64_t start = f->open_ns && f->open_ns < f->min_ts ? f->open_ns : f->min_ts;
    /* on UTC, saturated: a damaged trace may carry any values */
    w->lo = wt__sat_add_i64(start, f->utc_minus_mono);
    w->hi = wt__sat_add_i64(f->max_end, f->utc_minus_mono);
    return 1;
}

static const wt_compare *sort_ctx; /* qsort has no context argument in C11 */

static int cmp_file_start(const void *pa, const void *pb)
{
    const size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    span_utc wa = { INT64_MAX, INT64_MAX }, wb = { INT64_MAX, INT64_MAX };
    window_of(&sort_ctx->files[a], &wa);
    window_of(&sort_ctx->files[b], &wb);
    if (wa.lo != wb.lo)
        return (wa.lo > wb.lo) - (wa.lo < wb.lo);
    return (a > b) - (a < b);
}

/* Can file f join launch L (whose files so far are those with launch == L, window w)? */
static int joins(const wt_compare *c, const wt_cmp_file *f, const span_utc *fw, int L, const span_utc *w)
{
    if (fw->lo > w->hi || fw->hi < w->lo)
        return 0; /* not recorded at the same time */
    for (size_t g = 0; g < c->n_files; g++) {
        const wt_cmp_file *o = &c->files[g];
        if (o->launch != L)
            continue;
        if (!o->who.has_rank || o->side != f->side || strcmp(o->program, f->program) ||
            o->who.rank == f->who.rank)
            return 0;
    }
    return 1;
}

/* Sets every file's launch; returns how many launches, or a negative WT_E* code. */
static int group_files(wt_compare *c)
{
    const size_t nf = c->n_files;
    size_t *order = malloc((nf ? nf : 1) * sizeof *order);
    span_utc *lw = malloc((nf ? nf : 1) * sizeof *lw); /* each launch's window so far */
    if (!order || !lw) {
        free(order);
        free(lw);
        return WT_ENOMEM;
    }
    for (size_t f = 0; f < nf; f++) {
        order[f] = f;
        c->files[f].launch = -1;
    }
    sort_ctx = c;
    qsort(order, nf, sizeof *order, cmp_file_start);
    int n = 0;
    for (size_t i = 0; i < nf; i++) {
        wt_cmp_file *f = &c->files[order[i]];
        span_utc fw;
        const int ranked = f->who.has_rank && window_of(f, &fw);
        for (int L = 0; L < n && ranked && f->launch < 0; L++)
            if (joins(c, f, &fw, L, &lw[L])) {
                f->launch = L;
                lw[L].lo = fw.lo < lw[L].lo ? fw.lo : lw[L].lo;
                lw[L].hi = fw.hi > lw[L].hi ? fw.hi : lw[L].hi;
            }
        if (f->launch < 0) {
            f->launch = n;
            lw[n++] = ranked ? fw : (span_utc){ INT64_MAX, INT64_MIN }; /* joined by none */
        }
    }
    free(order);
    free(lw);
    return n;
}

/* Rounds in combining order: launch, configuration, round number (the one implicit round of a
 * run without rounds matches the other processes' whatever its number), file, start. */
static int cmp_rounds(const void *pa, const void *pb)
{
    const wt_cmp_round *a = &sort_ctx->rounds[*(const size_t *)pa];
    const wt_cmp_round *b = &sort_ctx->rounds[*(const size_t *)pb];
    const int la = sort_ctx->files[a->file].launch, lb = sort_ctx->files[b->file].launch;
    const int64_t na = a->implicit ? INT64_MIN : a->number, nb = b->implicit ? INT64_MIN : b->number;
    if (la != lb)
        return (la > lb) - (la < lb);
    if (a->config != b->config)
        return (a->config > b->config) - (a->config < b->config);
    if (na != nb)
        return (na > nb) - (na < nb);
    if (a->file != b->file)
        return (a->file > b->file) - (a->file < b->file);
    return (a->ts > b->ts) - (a->ts < b->ts);
}

static int same_round(const wt_cmp_round *a, const wt_cmp_round *b, const wt_compare *c)
{
    return c->files[a->file].launch == c->files[b->file].launch && a->config == b->config &&
           (a->implicit ? INT64_MIN : a->number) == (b->implicit ? INT64_MIN : b->number);
}

/* Round r of another process of the launch into `into`: the largest of each value. */
static void absorb(wt_cmp_round *into, wt_cmp_round *r)
{
    into->dur = r->dur > into->dur ? r->dur : into->dur;
    const size_t ns = r->n_stage_cap < into->n_stage_cap ? r->n_stage_cap : into->n_stage_cap;
    for (size_t s = 0; s < ns; s++) {
        const double v = r->stage_ns[s];
        if (!isnan(v) && (isnan(into->stage_ns[s]) || v > into->stage_ns[s]))
            into->stage_ns[s] = v;
        into->hits[s] += r->hits[s];
        into->misses[s] += r->misses[s];
    }
    for (size_t t = 0; t < WT_CMP_MAX_COUNTERS; t++)
        if (r->ctr_ts[t] != INT64_MIN && (into->ctr_ts[t] == INT64_MIN || r->ctr[t] > into->ctr[t])) {
            into->ctr[t] = r->ctr[t];
            into->ctr_ts[t] = r->ctr_ts[t];
        }
    into->n_procs += r->n_procs;
    r->merged = 1;
}

int wt__cmp_combine_launches(wt_compare *c)
{
    const int nl = group_files(c);
    if (nl < 0)
        return nl;
    size_t *size = calloc((size_t)nl + 1, sizeof *size);
    size_t *order = malloc((c->n_rounds ? c->n_rounds : 1) * sizeof *order);
    size_t *rep = malloc((c->n_rounds ? c->n_rounds : 1) * sizeof *rep); /* by occurrence */
    int rc = size && order && rep ? 0 : WT_ENOMEM;
    for (size_t f = 0; f < c->n_files && !rc; f++)
        size[c->files[f].launch]++;
    c->n_launches = 0;
    for (int L = 0; L < nl && !rc; L++)
        c->n_launches += size[L] > 1;
    for (size_t f = 0; f < c->n_files && !rc; f++)
        c->files[f].n_in_launch = size[c->files[f].launch];
    for (size_t i = 0; i < c->n_rounds && !rc; i++)
        order[i] = i;
    sort_ctx = c;
    if (!rc && c->n_launches)
        qsort(order, c->n_rounds, sizeof *order, cmp_rounds);
    /* a group of equal (launch, configuration, number): each file's k-th round of it (almost
     * always its only one) is combined with the other files' k-th */
    for (size_t i = 0, g = 0; i < c->n_rounds && !rc && c->n_launches; i = g) {
        size_t n_rep = 0, k = 0;
        for (g = i; g < c->n_rounds && same_round(&c->rounds[order[g]], &c->rounds[order[i]], c); g++) {
            wt_cmp_round *r = &c->rounds[order[g]];
            k = g > i && r->file == c->rounds[order[g - 1]].file ? k + 1 : 0;
            if (k == n_rep)
                rep[n_rep++] = order[g];
            else
                absorb(&c->rounds[rep[k]], r);
        }
        for (size_t j = 0; j < n_rep; j++)
            c->rounds_partial += c->rounds[rep[j]].n_procs < c->files[c->rounds[rep[j]].file].n_in_launch;
    }
    free(size);
    free(order);
    free(rep);
    return rc;
}
