/* The two ways through analysis.c, for tests that hold them to each other (analysis_ways.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis_ways.h"

/* Way 2's event callback: a digest of every event it is given, in order (kind, times, the
 * span's numbers and its strings' bytes, a counter sample's value and name), and how many. */
typedef struct digest {
    uint64_t h, n;
} digest;

/* Way 2's `upcoming` hints (wt_source_ops.upcoming): the records of each hinted batch, a span
 * by its label's pointer and a counter sample as NULL, must be the events that come next, in
 * their order. */
#define HINT_MAX 8192
typedef struct hinted {
    digest d;
    const char *next[HINT_MAX];
    size_t head, tail;      /* next[head..tail): hinted, their events not come yet */
    uint64_t batches, spans; /* hinted */
    uint64_t wrong;          /* events that were not the hinted record next in line */
} hinted;

uint64_t aw_hinted_batches;

static void hint_batch(void *ctx, int fi, const wt_span_batch *b)
{
    hinted *h = ctx;
    if (h->head != h->tail) /* the last batch's records came before this one */
        h->wrong++;
    h->head = h->tail = 0;
    h->batches++;
    for (size_t i = 0; i < b->n && h->tail < HINT_MAX; i++) {
        const wt_span_rec *r = &b->spans[i];
        const int span = !(r->flags & WT_REC_COUNTER);
        h->next[h->tail++] = span ? wt_reader_string(b->reader, r->label) : NULL;
        h->spans += (uint64_t)span;
    }
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = mix(h, (unsigned char)*s);
    return mix(h, s ? 1 : 0);
}

static int digest_event(void *ctx, int fi, const wt_event *ev)
{
    digest *d = ctx;
    uint64_t h = mix(d->h, (uint64_t)fi);
    h = mix(h, (uint64_t)ev->kind);
    h = mix(h, ev->pid);
    h = mix(h, ev->tid);
    h = mix(h, (uint64_t)ev->ts);
    if (ev->kind == WT_EV_SPAN) {
        h = mix(h, (uint64_t)ev->dur);
        h = mix(h, (uint64_t)ev->count);
        h = mix(h, (uint64_t)ev->bytes);
        h = mix(h, (uint64_t)ev->cached | (uint64_t)ev->depth << 8 | (uint64_t)ev->flags << 40);
        h = mix_str(mix_str(mix_str(h, ev->category), ev->label), ev->detail);
    } else if (ev->kind == WT_EV_COUNTER) { /* from the batches too (wt_source_run_counters) */
        h = mix_str(mix(h, (uint64_t)ev->value), ev->name);
    }
    d->h = h;
    d->n++;
    return 0;
}

static int hinted_event(void *ctx, int fi, const wt_event *ev)
{
    hinted *h = ctx;
    if (h->head != h->tail) {
        const char *want = h->next[h->head++];
        if (want ? ev->kind != WT_EV_SPAN || ev->label != want : ev->kind != WT_EV_COUNTER)
            h->wrong++;
    }
    return digest_event(&h->d, fi, ev);
}

/* The digest of the files read by wt_source_run() with that callback alone. */
static digest source_digest(char *const *paths, int n)
{
    static const wt_source_ops ops = { .event = digest_event };
    digest d = { 0, 0 };
    wt_source_result res;
    assert_int_equal(wt_source_run(paths, n, &ops, &d, &res), 0);
    return d;
}

/* Way 1: the analyses' own event calls, every event as a wt_event (the reference the
 * batches and pair_event()'s direct span path are held to), without analysis.c. */
typedef struct plain {
    wt_ledger_calc *lc;
    wt_anomalies *an;
} plain;

static int plain_begin(void *ctx, int fi, const char *path, const wt_trace_info *info)
{
    plain *p = ctx;
    (void)fi;
    int rc = wt_ledger_calc_file_begin(p->lc, path, info);
    return rc ? rc : wt_anomalies_file_begin(p->an, path, info);
}

static int plain_event(void *ctx, int fi, const wt_event *ev)
{
    plain *p = ctx;
    (void)fi;
    int rc = wt_ledger_calc_event(p->lc, ev);
    return rc ? rc : wt_anomalies_event(p->an, ev);
}

static int plain_damage(void *ctx, int fi, int64_t off, const char *msg)
{
    plain *p = ctx;
    (void)fi;
    wt_ledger_calc_damage(p->lc, off, msg);
    wt_anomalies_damage(p->an, off, msg);
    return 0;
}

static int plain_end(void *ctx, int fi, const wt_reader_stats *st)
{
    plain *p = ctx;
    (void)fi;
    int rc = wt_ledger_calc_file_end(p->lc, st);
    return rc ? rc : wt_anomalies_file_end(p->an, st);
}

/* Way 3 (AW_WAY_JOINED): the pair's callbacks, but consecutive batches of one thread with no
 * other callback between them joined into one batch of up to JOIN_MAX records: longer than
 * the source's batches, so that analysis.c's direct path meets batches longer than it takes
 * (or sorts) at a time. A joined batch's string ids are read after the reader moved on, so
 * its files must not redefine strings (checked: the string epoch stays the batch's). */
#define JOIN_MAX 1000

typedef struct joiner {
    wt_analysis_pair pair;
    wt_span_rec recs[JOIN_MAX];
    wt_span_batch b; /* its spans are recs[0..n) */
} joiner;

static int join_flush(joiner *j, int fi)
{
    if (j->b.n == 0)
        return 0;
    assert_true(wt_reader_string_epoch(j->b.reader) == j->b.string_epoch);
    const int rc = wt_analysis_pair_ops()->spans(&j->pair, fi, &j->b);
    j->b.n = 0;
    return rc;
}

static int join_begin(void *ctx, int fi, const char *path, const wt_trace_info *info)
{
    joiner *j = ctx;
    const int rc = join_flush(j, fi);
    return rc ? rc : wt_analysis_pair_ops()->file_begin(&j->pair, fi, path, info);
}

static int join_event(void *ctx, int fi, const wt_event *ev)
{
    joiner *j = ctx;
    const int rc = join_flush(j, fi);
    return rc ? rc : wt_analysis_pair_ops()->event(&j->pair, fi, ev);
}

static int join_damage(void *ctx, int fi, int64_t off, const char *msg)
{
    joiner *j = ctx;
    const int rc = join_flush(j, fi);
    return rc ? rc : wt_analysis_pair_ops()->damage(&j->pair, fi, off, msg);
}

static int join_end(void *ctx, int fi, const wt_reader_stats *st)
{
    joiner *j = ctx;
    const int rc = join_flush(j, fi);
    return rc ? rc : wt_analysis_pair_ops()->file_end(&j->pair, fi, st);
}

static int join_spans(void *ctx, int fi, const wt_span_batch *b)
{
    joiner *j = ctx;
    int rc;
    if (j->b.n && (b->pid != j->b.pid || b->tid != j->b.tid || b->reader != j->b.reader ||
                   b->string_epoch != j->b.string_epoch) &&
        (rc = join_flush(j, fi)) != 0)
        return rc;
    for (size_t i = 0; i < b->n; i++) {
        if (j->b.n == JOIN_MAX && (rc = join_flush(j, fi)) != 0)
            return rc;
        if (j->b.n == 0)
            j->b = (wt_span_batch){ j->recs, 0, b->pid, b->tid, b->reader, b->string_epoch };
        j->recs[j->b.n++] = b->spans[i];
    }
    return 0;
}

static void joined_analyse(char *const *paths, int n, const wt_anomaly_opts *ao, wt_analysis *a)
{
    static const wt_source_ops ops = { join_begin, join_event, join_damage, join_end,
                                       join_spans, NULL };
    memset(a, 0, sizeof *a);
    assert_int_equal(wt_ledger_calc_create(NULL, &a->lc), 0);
    assert_int_equal(wt_anomalies_create(ao, &a->an), 0);
    joiner *j = calloc(1, sizeof *j);
    assert_non_null(j);
    j->pair = (wt_analysis_pair){ a->lc, a->an, NULL, NULL, NULL };
    assert_int_equal(wt_source_run_counters(paths, n, &ops, j, &a->res), 0);
    assert_int_equal(j->b.n, 0); /* the last file's end flushed it */
    wt_analysis_pair_release(&j->pair);
    free(j);
    assert_int_equal(wt_ledger_calc_finish(a->lc), 0);
    assert_int_equal(wt_anomalies_finish(a->an, wt_ledger_calc_result(a->lc), NULL), 0);
}

void aw_analyse(char *const *paths, int n, int way, wt_analysis *a)
{
    static const wt_source_ops also = { .event = hinted_event, .upcoming = hint_batch };
    static wt_anomaly_opts ao;
    wt_anomaly_opts_init(&ao);
    ao.min_cost_s = 0; /* every anomaly listed: the outliers depend on the medians */
    if (way == 1) {
        static const wt_source_ops ops = { plain_begin, plain_event, plain_damage, plain_end,
                                           NULL, NULL };
        memset(a, 0, sizeof *a);
        assert_int_equal(wt_ledger_calc_create(NULL, &a->lc), 0);
        assert_int_equal(wt_anomalies_create(&ao, &a->an), 0);
        plain p = { a->lc, a->an };
        assert_int_equal(wt_source_run(paths, n, &ops, &p, &a->res), 0);
        assert_int_equal(wt_ledger_calc_finish(a->lc), 0);
        assert_int_equal(wt_anomalies_finish(a->an, wt_ledger_calc_result(a->lc), NULL), 0);
        return;
    }
    if (way == 3) {
        joined_analyse(paths, n, &ao, a);
        return;
    }
    wt_analysis_opts o;
    memset(&o, 0, sizeof o);
    o.anomalies = &ao;
    hinted *seen = calloc(1, sizeof *seen);
    assert_non_null(seen);
    if (way == 2) {
        o.also = &also;
        o.also_ctx = seen;
    }
    assert_int_equal(wt_analysis_run(paths, n, &o, a), 0);
    if (way == 2) { /* the callback saw every event of the files, in their order */
        const digest want = source_digest(paths, n);
        assert_int_equal(seen->d.n, want.n);
        assert_true(seen->d.h == want.h);
        /* and every hinted batch's records were the events that came next */
        assert_int_equal(seen->wrong, 0);
        assert_int_equal(seen->head, seen->tail);
        assert_true(seen->spans <= want.n);
        aw_hinted_batches = seen->batches;
    }
    free(seen);
}

const wt_ledger_cat *aw_cat_named(const wt_analysis *a, const char *name)
{
    const wt_ledger_result *r = wt_ledger_calc_result(a->lc);
    for (size_t i = 0; i < r->n_cats; i++)
        if (r->cats[i].name && strcmp(r->cats[i].name, name) == 0)
            return &r->cats[i];
    fail_msg("no category '%s'", name);
    return NULL;
}

void aw_check_same(const wt_analysis *x, const wt_analysis *y)
{
    const wt_ledger_result *rx = wt_ledger_calc_result(x->lc), *ry = wt_ledger_calc_result(y->lc);
    assert_int_equal(rx->n_cats, ry->n_cats);
    assert_true(rx->wall == ry->wall && rx->tracked == ry->tracked && rx->busy == ry->busy &&
                rx->covered == ry->covered && rx->waiting == ry->waiting);
    assert_true(rx->events == ry->events && rx->late == ry->late);
    for (size_t i = 0; i < rx->n_cats; i++) {
        const wt_ledger_cat *a = &rx->cats[i], *b = &ry->cats[i];
        assert_string_equal(a->name, b->name);
        assert_true(a->seconds == b->seconds && a->self_seconds == b->self_seconds &&
                    a->flat_seconds == b->flat_seconds && a->inclusive == b->inclusive);
        assert_true(a->count == b->count && a->spans == b->spans && a->hits == b->hits &&
                    a->misses == b->misses && a->bytes == b->bytes);
        assert_true(a->st.median == b->st.median && a->st.min == b->st.min &&
                    a->st.max == b->st.max && a->st.n == b->st.n);
    }
    assert_int_equal(rx->n_threads, ry->n_threads);
    for (size_t i = 0; i < rx->n_threads; i++)
        assert_true(rx->threads[i].busy == ry->threads[i].busy &&
                    rx->threads[i].waiting == ry->threads[i].waiting &&
                    rx->threads[i].spans == ry->threads[i].spans);
    for (int k = 0; k < WT_AN_KIND_COUNT; k++)
        assert_int_equal(wt_anomalies_below_min_cost(x->an, (wt_anomaly_kind)k),
                         wt_anomalies_below_min_cost(y->an, (wt_anomaly_kind)k));
    /* the MISSes past the list, kept by the batch runs or by the event path alike */
    assert_int_equal(wt_anomalies_omitted(x->an), wt_anomalies_omitted(y->an));
    int lx, ly;
    assert_true(wt_anomalies_avoidable(x->an, &lx) == wt_anomalies_avoidable(y->an, &ly) &&
                lx == ly);
    size_t nx, ny;
    const wt_anomaly *ax = wt_anomalies_list(x->an, &nx), *ay = wt_anomalies_list(y->an, &ny);
    assert_int_equal(nx, ny);
    for (size_t i = 0; i < nx; i++) {
        assert_int_equal(ax[i].kind, ay[i].kind);
        assert_true(ax[i].ts == ay[i].ts && ax[i].dur == ay[i].dur &&
                    ax[i].seconds == ay[i].seconds && ax[i].cost == ay[i].cost);
        assert_string_equal(ax[i].text, ay[i].text);
    }
}

void aw_check_ways(const wt_analysis w[AW_WAYS])
{
    for (int way = 1; way < AW_WAYS; way++)
        aw_check_same(&w[0], &w[way]);
}

void aw_check_joined(char *const *paths, int n, const wt_analysis *w0)
{
    wt_analysis j;
    aw_analyse(paths, n, AW_WAY_JOINED, &j);
    aw_check_same(w0, &j);
    wt_analysis_release(&j);
}

void aw_release_ways(wt_analysis w[AW_WAYS])
{
    for (int way = 0; way < AW_WAYS; way++)
        wt_analysis_release(&w[way]);
}
