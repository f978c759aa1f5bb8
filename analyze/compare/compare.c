/* compare: the keep/skip analysis. Pass 1 collects each file's rounds; pass 2 sums each span's
 * duration into the (round, stage) cell whose round window holds it, and keeps the last sample
 * of each counter and the metadata inside each round; finish() summarises per configuration,
 * pairs configurations round by round (stats.h) and derives the warnings a careful engineer
 * would check by hand. The work per event is one hash lookup and one binary search over the
 * file's rounds; memory is rounds x stages, capped, never spans. Reports are at the end. */
#include "compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "strhash.h"

/* ---- name tables ------------------------------------------------------------------- */

int wt__cmp_names_init(wt_cmp_names *t, size_t cap)
{
    memset(t, 0, sizeof *t);
    t->cap = cap;
    t->nslot = 16;
    while (t->nslot < 2 * cap)
        t->nslot *= 2;
    t->s = calloc(cap, sizeof *t->s);
    t->slot = calloc(t->nslot, sizeof *t->slot);
    return (t->s && t->slot) ? 0 : WT_ENOMEM;
}

void wt__cmp_names_release(wt_cmp_names *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->slot);
}

long wt__cmp_names_find(wt_cmp_names *t, const char *s, int add)
{
    size_t m = t->nslot - 1, i = wt__str_hash(s, strlen(s)) & m;
    for (; t->slot[i]; i = (i + 1) & m)
        if (!strcmp(t->s[t->slot[i] - 1], s))
            return (long)t->slot[i] - 1;
    if (!add || t->n >= t->cap)
        return -1;
    char *copy = strdup(s);
    if (!copy)
        return -2;
    t->s[t->n] = copy;
    t->slot[i] = (uint32_t)++t->n;
    return (long)t->n - 1;
}

/* ts + dur without signed overflow: a damaged trace may carry any values. */
static int64_t end_of(int64_t ts, int64_t dur)
{
    if (dur <= 0)
        return ts;
    return ts > INT64_MAX - dur ? INT64_MAX : ts + dur;
}

static char *xstrdup(const char *s)
{
    return strdup(s ? s : "");
}

/* ---- creation ------------------------------------------------------------------------ */

wt_compare *wt_compare_create(const wt_compare_opts *opts)
{
    wt_compare *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (opts)
        c->opt = *opts;
    if (!(c->opt.confidence >= 0.5 && c->opt.confidence < 1.0))
        c->opt.confidence = 0.95;
    if (c->opt.discard < 0)
        c->opt.discard = 0;
    if (c->opt.by != WT_CMP_BY_LABEL && c->opt.by != WT_CMP_BY_CATEGORY)
        c->opt.by = WT_CMP_BY_AUTO;
    c->pass = 1;
    c->cur_file = -1;
    c->files = calloc(WT_CMP_MAX_FILES, sizeof *c->files);
    c->rounds = calloc(64, sizeof *c->rounds);
    c->stages = calloc(WT_CMP_MAX_STAGES, sizeof *c->stages);
    c->configs = calloc(WT_CMP_MAX_CONFIGS, sizeof *c->configs);
    if (!c->files || !c->rounds || !c->stages || !c->configs ||
        wt__cmp_names_init(&c->stage_keys, WT_CMP_MAX_STAGES) || wt__cmp_names_init(&c->counter_names, WT_CMP_MAX_COUNTERS) ||
        wt__cmp_names_init(&c->meta_keys, WT_CMP_MAX_META) || wt__cmp_names_init(&c->config_keys, WT_CMP_MAX_CONFIGS) ||
        wt__cmp_census_init(&c->census))
        goto fail;
    /* stage 0: the round itself, the seed's from_pretrained when a program records no span */
    if (wt__cmp_names_find(&c->stage_keys, "\x01round", 1) != 0)
        goto fail;
    c->stages[0].category = xstrdup("round");
    c->stages[0].display = xstrdup(c->opt.runs ? "(run)" : "(round)");
    c->stages[0].is_round = 1;
    c->stages[0].kind = WT_CMP_STAGE_ROUND;
    c->stages[0].has_data = 1;
    if (!c->stages[0].category || !c->stages[0].display)
        goto fail;
    for (int s = 0; s < 2; s++)
        if (!(c->side_meta[s] = calloc(WT_CMP_MAX_META, sizeof(char *))))
            goto fail;
    return c;
fail:
    wt_compare_free(c);
    return NULL;
}

static size_t round_cap(const wt_compare *c)
{
    size_t cap = 64;
    while (cap < c->n_rounds)
        cap *= 2;
    return cap;
}

void wt_compare_free(wt_compare *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_files; i++) {
        free(c->files[i].path);
        free(c->files[i].program);
        free(c->files[i].host);
    }
    free(c->files);
    for (size_t i = 0; i < c->n_rounds; i++) {
        free(c->rounds[i].stage_ns);
        free(c->rounds[i].hits);
        free(c->rounds[i].misses);
        free(c->rounds[i].ctr);
        free(c->rounds[i].ctr_ts);
    }
    free(c->rounds);
    size_t ns = c->stage_keys.n, nc = c->config_keys.n;
    for (size_t i = 0; c->stages && i < ns; i++) {
        free((void *)c->stages[i].category);
        free((void *)c->stages[i].label);
        free(c->stages[i].display);
        free(c->stages[i].seen);
    }
    free(c->stages);
    for (size_t i = 0; c->configs && i < nc; i++) {
        wt_cmp_config *k = &c->configs[i];
        free(k->name);
        free(k->rounds);
        for (size_t m = 0; k->meta && m < WT_CMP_MAX_META; m++)
            free(k->meta[m]);
        free(k->meta);
        free(k->ctr);
    }
    free(c->configs);
    for (int s = 0; s < 2; s++) {
        for (size_t m = 0; c->side_meta[s] && m < WT_CMP_MAX_META; m++)
            free(c->side_meta[s][m]);
        free(c->side_meta[s]);
    }
    if (c->cells)
        for (size_t i = 0; i < nc * ns; i++)
            free(c->cells[i].per_round);
    free(c->cells);
    for (size_t p = 0; p < c->n_pairs; p++) {
        for (size_t s = 0; c->pairs[p].stage && s < ns; s++)
            free(c->pairs[p].stage[s].diff);
        free(c->pairs[p].stage);
    }
    free(c->pairs);
    free(c->stage_order);
    for (size_t i = 0; i < c->n_warnings; i++)
        free(c->warnings[i].message);
    free(c->warnings);
    wt__cmp_names_release(&c->stage_keys);
    wt__cmp_names_release(&c->counter_names);
    wt__cmp_names_release(&c->meta_keys);
    wt__cmp_names_release(&c->config_keys);
    wt__cmp_census_release(&c->census);
    if (c->threads) {
        for (size_t t = 0; t < WT_CMP_MAX_THREADS; t++)
            for (size_t l = 0; l < WT_CMP_MAX_DEPTH; l++) {
                free(c->threads[t].lv[l].e);
                free(c->threads[t].lv[l].k);
            }
        free(c->threads);
    }
    free(c);
}

size_t wt_compare_n_stages(const wt_compare *c) { return c->stage_keys.n; }
size_t wt_compare_n_configs(const wt_compare *c) { return c->config_keys.n; }

/* ---- pass 1: files and rounds -------------------------------------------------------- */

/* The program of a command line: its first word without the directory. */
static char *program_of(const char *cmdline)
{
    if (!cmdline)
        return xstrdup("");
    size_t n = strcspn(cmdline, " ");
    const char *start = cmdline;
    for (size_t i = 0; i < n; i++)
        if (cmdline[i] == '/')
            start = cmdline + i + 1;
    return strndup(start, n - (size_t)(start - cmdline));
}

int wt_compare_file_begin(wt_compare *c, int side, const char *path, const wt_trace_info *info)
{
    if (c->pass != 1 || c->n_files >= WT_CMP_MAX_FILES)
        return WT_ELIMIT;
    wt_cmp_file *f = &c->files[c->n_files];
    memset(f, 0, sizeof *f);
    f->side = side ? 1 : 0;
    f->path = xstrdup(path);
    f->program = program_of(info ? info->cmdline : NULL);
    f->host = xstrdup(info ? info->host : NULL);
    if (!f->path || !f->program || !f->host) {
        free(f->path);
        free(f->program);
        free(f->host);
        return WT_ENOMEM;
    }
    f->pid = info ? info->pid : 0;
    wt_procname_init(&f->who, f->pid);
    f->open_ns = info ? info->open_ns : 0;
    /* a damaged header may hold any anchor: without a usable one, the clocks are taken as one */
    if (!info || __builtin_sub_overflow(info->anchor_real_ns, info->anchor_mono_ns, &f->utc_minus_mono))
        f->utc_minus_mono = 0;
    f->launch = -1;
    f->n_in_launch = 1;
    f->min_ts = INT64_MAX;
    f->max_end = INT64_MIN;
    f->first_round = c->n_rounds;
    c->cur_file = (int)c->n_files++;
    return c->cur_file;
}

const char *wt_compare_side_name(const wt_compare *c, int side)
{
    return c->opt.side[side] ? c->opt.side[side] : side ? "b" : "a";
}

/* The configuration called `name` on `side`, added when new; -1 when full or no memory. */
static int config_of(wt_compare *c, int side, const char *name)
{
    char key[256];
    if (c->opt.runs) {
        const char *sn = wt_compare_side_name(c, side);
        if (name)
            snprintf(key, sizeof key, "%s:%s", sn, name);
        else
            snprintf(key, sizeof key, "%s", sn);
    } else {
        snprintf(key, sizeof key, "%s", name ? name : "(unnamed)");
    }
    long i = wt__cmp_names_find(&c->config_keys, key, 1);
    if (i < 0)
        return -1;
    wt_cmp_config *k = &c->configs[i];
    if (!k->name) {
        /* both or neither: a name without its meta array would be taken as whole later */
        char *nm = xstrdup(key);
        char **meta = calloc(WT_CMP_MAX_META, sizeof *meta);
        if (!nm || !meta) {
            free(nm);
            free(meta);
            return -1;
        }
        k->name = nm;
        k->side = side;
        k->meta = meta;
    }
    return (int)i;
}

static int add_round(wt_compare *c, int side, const char *name, int64_t number, int64_t ts,
                     int64_t dur, int implicit)
{
    if (c->n_rounds >= WT_CMP_MAX_ROUNDS) {
        c->dropped_rounds++;
        return 0;
    }
    int k = config_of(c, side, name);
    if (k < 0) {
        c->dropped_rounds++;
        return 0;
    }
    if (c->n_rounds == round_cap(c)) {
        wt_cmp_round *nr = realloc(c->rounds, 2 * round_cap(c) * sizeof *nr);
        if (!nr)
            return WT_ENOMEM;
        c->rounds = nr;
    }
    wt_cmp_round *r = &c->rounds[c->n_rounds];
    memset(r, 0, sizeof *r);
    r->config = k;
    r->file = c->cur_file;
    r->number = number;
    r->ts = ts;
    r->dur = dur < 0 ? 0 : dur;
    r->implicit = implicit;
    r->n_procs = 1;
    r->ctr = malloc(WT_CMP_MAX_COUNTERS * sizeof *r->ctr);
    r->ctr_ts = malloc(WT_CMP_MAX_COUNTERS * sizeof *r->ctr_ts);
    if (!r->ctr || !r->ctr_ts) {
        free(r->ctr);
        free(r->ctr_ts);
        return WT_ENOMEM;
    }
    for (size_t i = 0; i < WT_CMP_MAX_COUNTERS; i++)
        r->ctr_ts[i] = INT64_MIN;
    c->n_rounds++;
    return 0;
}

static int cmp_round_start(const void *pa, const void *pb)
{
    const wt_cmp_round *a = pa, *b = pb;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

int wt_compare_file_end(wt_compare *c)
{
    if (c->pass != 1 || c->cur_file < 0)
        return WT_ESTATE;
    wt_cmp_file *f = &c->files[c->cur_file];
    f->n_rounds = c->n_rounds - f->first_round;
    if (f->n_rounds == 0 && c->opt.runs && f->max_end != INT64_MIN) {
        /* a run without rounds: the whole trace is its one round */
        int64_t start = f->min_ts < f->open_ns || f->open_ns == 0 ? f->min_ts : f->open_ns;
        int64_t number = 0;
        for (int i = 0; i < c->cur_file; i++)
            number += c->files[i].side == f->side;
        const int64_t dur = (start < 0 && f->max_end > INT64_MAX + start) ? INT64_MAX : f->max_end - start;
        int rc = add_round(c, f->side, NULL, number, start, dur, 1);
        if (rc)
            return rc;
        f->n_rounds = c->n_rounds - f->first_round;
    }
    qsort(c->rounds + f->first_round, f->n_rounds, sizeof *c->rounds, cmp_round_start);
    c->cur_file = -1;
    return 0;
}

int wt_compare_file_resume(wt_compare *c, int index)
{
    if (index < 0 || (size_t)index >= c->n_files)
        return WT_EINVAL;
    int rc = 0;
    if (c->pass == 1)
        rc = wt__cmp_plan(c); /* the stages, from pass 1's census */
    else
        wt__cmp_flush_threads(c); /* the file before: spans still waiting for a parent */
    c->pass = 2;
    c->cur_file = index;
    return rc;
}

/* ---- pass 2: stages, counters, metadata ---------------------------------------------- */

/* The round of the current file whose window holds [ts, end], or NULL. Rounds of a process
 * rarely overlap (one thread runs them), so a few steps back from the binary search suffice. */
wt_cmp_round *wt__cmp_round_at(wt_compare *c, int64_t ts, int64_t end)
{
    const wt_cmp_file *f = &c->files[c->cur_file];
    wt_cmp_round *r = c->rounds + f->first_round;
    size_t lo = 0, hi = f->n_rounds; /* first round starting after ts */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].ts <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, steps = 0; i > 0 && steps < 4; i--, steps++)
        if (end <= end_of(r[i - 1].ts, r[i - 1].dur))
            return &r[i - 1];
    return NULL;
}

static int add_counter(wt_compare *c, const wt_event *ev)
{
    wt_cmp_round *r = wt__cmp_round_at(c, ev->ts, ev->ts);
    if (!r || !ev->name)
        return 0;
    long i = wt__cmp_names_find(&c->counter_names, ev->name, 1);
    if (i == -2)
        return WT_ENOMEM;
    if (i < 0) {
        c->dropped_counters++;
        return 0;
    }
    /* the last sample in the round; threads interleave, so by time, not by arrival */
    if (ev->ts >= r->ctr_ts[i]) {
        r->ctr_ts[i] = ev->ts;
        r->ctr[i] = ev->value;
    }
    return 0;
}

static int add_meta(wt_compare *c, const wt_event *ev)
{
    if (!ev->name)
        return 0;
    long i = wt__cmp_names_find(&c->meta_keys, ev->name, 1);
    if (i == -2)
        return WT_ENOMEM;
    if (i < 0)
        return 0;
    const wt_cmp_round *r = wt__cmp_round_at(c, ev->ts, ev->ts);
    char **slot = r ? &c->configs[r->config].meta[i] : &c->side_meta[c->files[c->cur_file].side][i];
    char *v = xstrdup(ev->detail);
    if (!v)
        return WT_ENOMEM;
    free(*slot);
    *slot = v;
    return 0;
}

int wt_compare_event(wt_compare *c, const wt_event *ev)
{
    if (c->cur_file < 0 || c->finished)
        return WT_ESTATE;
    if (c->pass == 1) {
        wt_cmp_file *f = &c->files[c->cur_file];
        const int64_t end = end_of(ev->ts, ev->dur);
        if (ev->kind != WT_EV_SYNC) {
            if (ev->ts < f->min_ts)
                f->min_ts = ev->ts;
            if (end > f->max_end)
                f->max_end = end;
        }
        wt_procname_event(&f->who, ev);
        if (ev->kind == WT_EV_ROUND) {
            wt__cmp_census_round_tid(c, ev->tid);
            return add_round(c, f->side, ev->name, ev->count, ev->ts, ev->dur, 0);
        }
        return ev->kind == WT_EV_SPAN ? wt__cmp_census_span(c, ev) : 0;
    }
    switch (ev->kind) {
    case WT_EV_SPAN: return wt__cmp_place_span(c, ev);
    case WT_EV_COUNTER: return add_counter(c, ev);
    case WT_EV_META: return add_meta(c, ev);
    default: return 0;
    }
}

/* ---- finish: summaries, pairs, warnings ---------------------------------------------- */

/* The value of stage s in round r, ns; NAN when absent. */
double wt__cmp_round_stage_ns(const wt_cmp_round *r, size_t s)
{
    if (s == 0)
        return (double)r->dur;
    return s < r->n_stage_cap ? r->stage_ns[s] : NAN;
}

static const wt_compare *sort_ctx; /* qsort has no context argument in C11 */

static int cmp_config_rounds(const void *pa, const void *pb)
{
    const wt_cmp_round *a = &sort_ctx->rounds[*(const size_t *)pa];
    const wt_cmp_round *b = &sort_ctx->rounds[*(const size_t *)pb];
    if (a->number != b->number)
        return (a->number > b->number) - (a->number < b->number);
    if (a->file != b->file)
        return (a->file > b->file) - (a->file < b->file);
    return (a->ts > b->ts) - (a->ts < b->ts);
}

/* Orders configurations by side, then by their first round in the files (keep before skip
 * when keep ran first), and renumbers the rounds' references. */
static void order_configs(wt_compare *c)
{
    const size_t nc = c->config_keys.n;
    size_t first[WT_CMP_MAX_CONFIGS], perm[WT_CMP_MAX_CONFIGS], inv[WT_CMP_MAX_CONFIGS];
    for (size_t k = 0; k < nc; k++)
        first[k] = SIZE_MAX;
    for (size_t i = 0; i < c->n_rounds; i++) {
        const size_t k = (size_t)c->rounds[i].config;
        /* earliest by start among the first file that has it */
        if (first[k] == SIZE_MAX || (c->rounds[i].file == c->rounds[first[k]].file &&
                                     c->rounds[i].ts < c->rounds[first[k]].ts))
            first[k] = i;
    }
    for (size_t k = 0; k < nc; k++)
        perm[k] = k;
    for (size_t i = 1; i < nc; i++) /* insertion sort: a handful of configurations */
        for (size_t j = i; j > 0; j--) {
            const size_t x = perm[j - 1], y = perm[j];
            const int sx = c->configs[x].side, sy = c->configs[y].side;
            if (sx < sy || (sx == sy && first[x] <= first[y]))
                break;
            perm[j - 1] = y;
            perm[j] = x;
        }
    wt_cmp_config tmp[WT_CMP_MAX_CONFIGS];
    for (size_t k = 0; k < nc; k++) {
        tmp[k] = c->configs[perm[k]];
        inv[perm[k]] = k;
    }
    memcpy(c->configs, tmp, nc * sizeof *tmp);
    for (size_t i = 0; i < c->n_rounds; i++)
        c->rounds[i].config = (int)inv[c->rounds[i].config];
}

static int collect_rounds(wt_compare *c)
{
    const size_t nc = c->config_keys.n;
    for (size_t k = 0; k < nc; k++) {
        wt_cmp_config *K = &c->configs[k];
        size_t n = 0;
        for (size_t i = 0; i < c->n_rounds; i++)
            n += (size_t)c->rounds[i].config == k && !c->rounds[i].merged;
        K->rounds = malloc((n ? n : 1) * sizeof *K->rounds);
        if (!K->rounds)
            return WT_ENOMEM;
        n = 0;
        for (size_t i = 0; i < c->n_rounds; i++)
            if ((size_t)c->rounds[i].config == k && !c->rounds[i].merged) /* one per launch */
                K->rounds[n++] = i;
        sort_ctx = c;
        qsort(K->rounds, n, sizeof *K->rounds, cmp_config_rounds);
        const size_t drop = (size_t)c->opt.discard < n ? (size_t)c->opt.discard : n;
        for (size_t i = 0; i < drop; i++)
            c->rounds[K->rounds[i]].discarded = 1;
        memmove(K->rounds, K->rounds + drop, (n - drop) * sizeof *K->rounds);
        K->n_rounds = n - drop;
        K->n_discarded = drop;
    }
    return 0;
}

static int summarise(wt_compare *c)
{
    const size_t nc = c->config_keys.n, ns = c->stage_keys.n, nctr = c->counter_names.n;
    c->cells = calloc(nc * ns + 1, sizeof *c->cells);
    double *tmp = malloc((c->n_rounds ? c->n_rounds : 1) * sizeof *tmp);
    int rc = (c->cells && tmp) ? 0 : WT_ENOMEM;
    for (size_t k = 0; k < nc && !rc; k++) {
        wt_cmp_config *K = &c->configs[k];
        for (size_t s = 0; s < ns && !rc; s++) {
            wt_cmp_cell *cell = &c->cells[k * ns + s];
            cell->per_round = malloc((K->n_rounds ? K->n_rounds : 1) * sizeof *cell->per_round);
            if (!cell->per_round) {
                rc = WT_ENOMEM;
                break;
            }
            size_t n = 0;
            for (size_t i = 0; i < K->n_rounds; i++) {
                const wt_cmp_round *r = &c->rounds[K->rounds[i]];
                const double v = wt__cmp_round_stage_ns(r, s) / 1e6;
                if (s < r->n_stage_cap) {
                    cell->hits += r->hits[s];
                    cell->misses += r->misses[s];
                }
                cell->per_round[i] = v;
                if (!isnan(v))
                    tmp[n++] = v;
            }
            rc = wt_stats_summary(tmp, n, &cell->s);
        }
        K->ctr = calloc(nctr ? nctr : 1, sizeof *K->ctr);
        if (!K->ctr && !rc)
            rc = WT_ENOMEM;
        for (size_t t = 0; t < nctr && !rc; t++) {
            size_t n = 0;
            for (size_t i = 0; i < K->n_rounds; i++) {
                const wt_cmp_round *r = &c->rounds[K->rounds[i]];
                if (r->ctr_ts[t] != INT64_MIN)
                    tmp[n++] = (double)r->ctr[t];
            }
            rc = wt_stats_summary(tmp, n, &K->ctr[t]);
        }
    }
    free(tmp);
    return rc;
}

/* The pairs to compare: every two configurations in rounds mode; in runs mode a
 * configuration of side a with the one of side b that has the same round name. */
static int make_pairs(wt_compare *c)
{
    const size_t nc = c->config_keys.n;
    c->pairs = calloc(nc * nc + 1, sizeof *c->pairs);
    if (!c->pairs)
        return WT_ENOMEM;
    for (size_t a = 0; a < nc; a++)
        for (size_t b = a + 1; b < nc; b++) {
            const wt_cmp_config *A = &c->configs[a], *B = &c->configs[b];
            if (c->opt.runs) {
                const char *ra = strchr(A->name, ':'), *rb = strchr(B->name, ':');
                if (A->side != 0 || B->side != 1 || !ra != !rb || (ra && strcmp(ra, rb)))
                    continue;
            }
            c->pairs[c->n_pairs].a = (int)a;
            c->pairs[c->n_pairs++].b = (int)b;
        }
    return 0;
}

static int pair_stages(wt_compare *c, wt_cmp_pair *p)
{
    const size_t ns = c->stage_keys.n;
    const wt_cmp_config *A = &c->configs[p->a], *B = &c->configs[p->b];
    p->n_pairs = A->n_rounds < B->n_rounds ? A->n_rounds : B->n_rounds;
    p->stage = calloc(ns, sizeof *p->stage);
    double *va = malloc((p->n_pairs + 1) * sizeof *va), *vb = malloc((p->n_pairs + 1) * sizeof *vb);
    int rc = (p->stage && va && vb) ? 0 : WT_ENOMEM;
    for (size_t s = 0; s < ns && !rc; s++) {
        wt_cmp_pair_stage *ps = &p->stage[s];
        const wt_cmp_cell *ca = &c->cells[(size_t)p->a * ns + s], *cb = &c->cells[(size_t)p->b * ns + s];
        ps->a_median = ca->s.median;
        ps->b_median = cb->s.median;
        ps->saved = ps->a_median - ps->b_median;
        ps->saved_pct = ps->a_median > 0 ? 100.0 * ps->saved / ps->a_median : NAN;
        size_t n = 0;
        for (size_t i = 0; i < p->n_pairs; i++)
            if (!isnan(ca->per_round[i]) && !isnan(cb->per_round[i])) {
                va[n] = ca->per_round[i];
                vb[n++] = cb->per_round[i];
            }
        if ((rc = wt_stats_paired(va, vb, n, c->opt.confidence, &ps->paired)))
            break;
        ps->diff = malloc((n ? n : 1) * sizeof *ps->diff);
        if (!ps->diff) {
            rc = WT_ENOMEM;
            break;
        }
        for (size_t i = 0; i < n; i++)
            ps->diff[i] = va[i] - vb[i];
        ps->more_pairs = (ps->paired.verdict == WT_VERDICT_TOO_FEW || ps->paired.verdict == WT_VERDICT_NOISE)
                             ? wt_stats_more_pairs(ps->diff, n, c->opt.confidence, WT_CMP_MAX_MORE)
                             : 0;
    }
    free(va);
    free(vb);
    return rc;
}

int wt_compare_finish(wt_compare *c)
{
    if (c->finished)
        return WT_ESTATE;
    int rc = 0;
    if (c->pass == 1)
        rc = wt__cmp_plan(c); /* no pass 2 (nothing read twice): the stages are still planned */
    else
        wt__cmp_flush_threads(c);
    c->finished = 1;
    c->cur_file = -1;
    order_configs(c);
    if (!rc)
        rc = wt__cmp_combine_launches(c);
    if (!rc)
        rc = collect_rounds(c);
    if (!rc)
        rc = summarise(c);
    if (!rc)
        rc = make_pairs(c);
    for (size_t p = 0; p < c->n_pairs && !rc; p++)
        rc = pair_stages(c, &c->pairs[p]);
    if (!rc)
        rc = wt__cmp_tree_order(c);
    if (!rc)
        rc = wt__cmp_find_warnings(c);
    return rc;
}

const wt_cmp_cell *wt_compare_cell(const wt_compare *c, size_t config, size_t stage)
{
    if (!c->cells || config >= c->config_keys.n || stage >= c->stage_keys.n)
        return NULL;
    return &c->cells[config * c->stage_keys.n + stage];
}

const char *wt_compare_process(const wt_compare *c, size_t f, char *buf, size_t n)
{
    return wt_procname_format(&c->files[f].who, buf, n);
}

long wt_compare_find_stage(const wt_compare *c, const char *display)
{
    for (size_t s = 0; s < c->stage_keys.n; s++)
        if (c->stages[s].display && !strcmp(c->stages[s].display, display))
            return (long)s;
    return -1;
}

const wt_cmp_warning *wt_compare_find_warning(const wt_compare *c, const char *kind)
{
    for (size_t i = 0; i < c->n_warnings; i++)
        if (!strcmp(c->warnings[i].kind, kind))
            return &c->warnings[i];
    return NULL;
}
