/* compare: hand-built events with times chosen by the test, fed through both passes, and the
 * tables, pairs, verdicts and warnings checked against values computed by hand; the JSON
 * document against a golden file; one real trace through walltime-analyze; and the page-cache
 * probe. */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "compare.h"
#include "gr00t.h"
#include "svg.h"
#include "tracebuild.h"
#include "walltime/walltime.h"

#define MS 1000000LL

typedef struct evs {
    wt_event ev[4096];
    size_t n;
} evs;

static wt_event *push(evs *e, wt_event_kind kind, double ts_ms)
{
    assert_true(e->n < 4096);
    wt_event *ev = &e->ev[e->n++];
    memset(ev, 0, sizeof *ev);
    ev->kind = kind;
    ev->pid = 100;
    ev->tid = 100;
    ev->ts = llround(ts_ms * MS);
    return ev;
}

static void span(evs *e, double ts_ms, double dur_ms, uint32_t depth, const char *cat, const char *label)
{
    wt_event *ev = push(e, WT_EV_SPAN, ts_ms);
    ev->dur = llround(dur_ms * MS);
    ev->depth = depth;
    ev->category = cat;
    ev->label = label;
    ev->count = 1;
}

/* A span of thread `tid` with a cached state. */
static void tspan(evs *e, uint64_t tid, double ts_ms, double dur_ms, uint32_t depth, const char *cat,
                  const char *label, wt_cached cached)
{
    span(e, ts_ms, dur_ms, depth, cat, label);
    e->ev[e->n - 1].tid = tid;
    e->ev[e->n - 1].cached = cached;
}

static void counter(evs *e, double ts_ms, const char *name, int64_t v)
{
    wt_event *ev = push(e, WT_EV_COUNTER, ts_ms);
    ev->name = name;
    ev->value = v;
}

static void meta(evs *e, double ts_ms, const char *key, const char *value)
{
    wt_event *ev = push(e, WT_EV_META, ts_ms);
    ev->name = key;
    ev->detail = value;
}

static void round_ev(evs *e, double ts_ms, double dur_ms, const char *cfg, int64_t number)
{
    wt_event *ev = push(e, WT_EV_ROUND, ts_ms);
    ev->dur = llround(dur_ms * MS);
    ev->name = cfg;
    ev->count = number;
}

/* One build as the sample records it: the round, from_pretrained inside it (0.5 ms in from
 * each end), weights_load then head_build nested, counters at the end. */
static double build(evs *e, double t0, const char *cfg, int64_t r, double round_ms, double wl,
                    double hb, int64_t dev, int64_t nt)
{
    meta(e, t0 + 0.1, "config", cfg);
    span(e, t0 + 1, wl, 1, "load", "weights_load");
    span(e, t0 + 1 + wl, hb, 1, "load", "head_build");
    span(e, t0 + 0.5, round_ms - 1, 0, "load", "from_pretrained");
    counter(e, t0 + round_ms - 0.2, "device_bytes", dev);
    counter(e, t0 + round_ms - 0.1, "n_tensors", nt);
    round_ev(e, t0, round_ms, cfg, r);
    return t0 + round_ms + 5;
}

static void feed_file(wt_compare *c, int side, const char *path, const char *cmdline, const evs *e,
                      int pass, int index)
{
    if (pass == 1) {
        wt_trace_info info = { .pid = 100, .cmdline = cmdline, .host = "testhost" };
        assert_int_equal(wt_compare_file_begin(c, side, path, &info), index);
    } else {
        assert_int_equal(wt_compare_file_resume(c, index), 0);
    }
    for (size_t i = 0; i < e->n; i++)
        assert_int_equal(wt_compare_event(c, &e->ev[i]), 0);
    if (pass == 1)
        assert_int_equal(wt_compare_file_end(c), 0);
}

static wt_compare *run_rounds(const evs *e, const wt_compare_opts *o)
{
    wt_compare *c = wt_compare_create(o);
    assert_non_null(c);
    feed_file(c, 0, "run.wtrace", "./bench_load --rounds 3", e, 1, 0);
    feed_file(c, 0, "run.wtrace", NULL, e, 2, 0);
    assert_int_equal(wt_compare_finish(c), 0);
    return c;
}

/* keep 100/104/102 ms, skip 60/63/61 ms, alternating. */
static void basic_events(evs *e)
{
    double t = 10;
    const double keep[3][3] = { { 100, 70, 20 }, { 104, 72, 21 }, { 102, 71, 20 } };
    const double skip[3][3] = { { 60, 30, 20 }, { 63, 33, 20 }, { 61, 31, 21 } };
    meta(e, 1, "tensors", "10");
    for (int r = 0; r < 3; r++) {
        t = build(e, t, "keep", r, keep[r][0], keep[r][1], keep[r][2], 1000000, 10);
        t = build(e, t, "skip", r, skip[r][0], skip[r][1], skip[r][2], 600000, 6);
    }
    span(e, t + 10, 5, 0, "other", "after"); /* outside every round */
}

static const wt_cmp_cell *cell(const wt_compare *c, size_t config, const char *stage)
{
    long s = wt_compare_find_stage(c, stage);
    assert_true(s >= 0);
    return wt_compare_cell(c, config, (size_t)s);
}

static void test_compare_medians_mins_and_savings_by_hand(void **state)
{
    evs *e = calloc(1, sizeof *e);
    basic_events(e);
    wt_compare *c = run_rounds(e, NULL);
    assert_int_equal(wt_compare_n_configs(c), 2);
    assert_string_equal(c->configs[0].name, "keep");
    assert_string_equal(c->configs[1].name, "skip");
    /* round: keep {100, 104, 102} median 102 min 100 max 104; skip {60, 63, 61} median 61 */
    const wt_cmp_cell *k = cell(c, 0, "(round)"), *s = cell(c, 1, "(round)");
    assert_int_equal(k->s.n, 3);
    assert_true(k->s.median == 102.0 && k->s.min == 100.0 && k->s.max == 104.0);
    assert_true(s->s.median == 61.0 && s->s.min == 60.0 && s->s.max == 63.0);
    assert_true(k->per_round[0] == 100.0 && k->per_round[1] == 104.0 && k->per_round[2] == 102.0);
    /* from_pretrained = round - 1 ms */
    assert_true(cell(c, 0, "load/from_pretrained")->s.median == 101.0);
    assert_true(cell(c, 1, "load/weights_load")->s.median == 31.0);
    /* the tree: round > from_pretrained > weights_load, head_build (same thread, depth 0 > 1) */
    const wt_cmp_stage *wls = &c->stages[wt_compare_find_stage(c, "load/weights_load")];
    assert_int_equal(wls->depth, 2);
    assert_int_equal(wls->parent, wt_compare_find_stage(c, "load/from_pretrained"));
    assert_int_equal(c->stages[wt_compare_find_stage(c, "load/from_pretrained")].parent, 0);
    /* pair keep - skip: saved 102 - 61 = 41 ms = 40.196% of 102; paired d = 40, 41, 41 */
    assert_int_equal(c->n_pairs, 1);
    const wt_cmp_pair_stage *ps = &c->pairs[0].stage[0];
    assert_true(ps->saved == 41.0);
    assert_true(fabs(ps->saved_pct - 4100.0 / 102) < 1e-9);
    assert_int_equal(ps->paired.n, 3);
    assert_true(ps->diff[0] == 40.0 && ps->diff[1] == 41.0 && ps->diff[2] == 41.0);
    assert_true(ps->paired.median == 41.0);
    assert_int_equal(ps->paired.verdict, WT_VERDICT_TOO_FEW);
    /* weights_load d = 40, 39, 40; head_build d = 0, 1, -1 */
    const wt_cmp_pair_stage *wl = &c->pairs[0].stage[wt_compare_find_stage(c, "load/weights_load")];
    assert_true(wl->paired.median == 40.0 && wl->saved == 40.0);
    const wt_cmp_pair_stage *hb = &c->pairs[0].stage[wt_compare_find_stage(c, "load/head_build")];
    assert_true(hb->paired.median == 0.0 && hb->saved == 0.0);
    /* counters: last sample in each round; the seed's delta 400000 bytes, 4 tensors */
    assert_true(c->configs[0].ctr[0].median == 1000000.0 && c->configs[1].ctr[0].median == 600000.0);
    assert_true(c->configs[0].ctr[1].median - c->configs[1].ctr[1].median == 4.0);
    assert_int_equal(c->spans_outside, 1);
    assert_int_equal(c->spans_in_rounds, 18);
    /* the too-few warning fires; nothing else does */
    assert_non_null(wt_compare_find_warning(c, "too_few_rounds"));
    assert_int_equal(c->n_warnings, 1);
    wt_compare_free(c);
    free(e);
}

/* A load shaped like a real one, small: rounds of 50 ms on thread 100 (keep, skip, keep,
 * skip); in each, from_pretrained (1 .. 41 ms) around weights_load (2 .. 32 ms) on thread 100,
 * and a loader thread 200 with weight_load/t<i> (2 ms each, from 2 + 3i ms) around
 * upload/t<i> (1 ms) for 10 tensors in keep, the even 5 in skip; the first keep round misses
 * the cache, later rounds hit. The spans are written as the recorder writes them: a child
 * before its parent. */
static void loader_events(evs *e)
{
    static const char *const names[10] = { "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9" };
    double t0 = 10;
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++, t0 += 60) {
            for (int i = 0; i < 10; i++) {
                if (k == 1 && i % 2)
                    continue;
                tspan(e, 200, t0 + 2.5 + 3 * i, 1, 1, "upload", names[i], WT_CACHED_UNKNOWN);
                tspan(e, 200, t0 + 2 + 3 * i, 2, 0, "weight_load", names[i],
                      r == 0 && k == 0 ? WT_CACHED_MISS : WT_CACHED_HIT);
            }
            span(e, t0 + 2, 30, 1, "load", "weights_load");
            span(e, t0 + 1, 40, 0, "load", "from_pretrained");
            round_ev(e, t0, 50, k ? "skip" : "keep", r);
        }
}

static long stage_id(const wt_compare *c, const char *display)
{
    const long s = wt_compare_find_stage(c, display);
    assert_true(s >= 0);
    return s;
}

/* The text report of c (caller frees). */
static char *text_of(const wt_compare *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_int_equal(wt_compare_write_text(c, m), 0);
    fclose(m);
    return text;
}

static void test_compare_worker_spans_hang_off_the_round_and_tensors_roll_up(void **state)
{
    evs *e = calloc(1, sizeof *e);
    loader_events(e);
    wt_compare *c = run_rounds(e, NULL); /* --by auto */
    /* 10 labels in weight_load and upload: more than 8, so one row each */
    const long fp = stage_id(c, "load/from_pretrained"), wl = stage_id(c, "load/weights_load");
    const long tl = stage_id(c, "weight_load/*"), up = stage_id(c, "upload/*");
    assert_int_equal(wt_compare_find_stage(c, "weight_load/t3"), -1);
    assert_int_equal(c->stages[tl].n_labels, 10);
    /* the tree: the loader's spans sit under the round, not under the main thread's stages */
    assert_int_equal(c->stages[fp].parent, 0);
    assert_int_equal(c->stages[wl].parent, fp);
    assert_int_equal(c->stages[tl].parent, 0);
    assert_int_equal(c->stages[up].parent, tl);
    assert_int_equal(c->stages[up].depth, 2);
    /* order: round, from_pretrained (starts at 1 ms), weights_load, weight_load rollup, upload rollup */
    assert_int_equal(c->n_order, 5);
    const long want[5] = { 0, fp, wl, tl, up };
    for (int i = 0; i < 5; i++)
        assert_int_equal(c->stage_order[i], want[i]);
    /* keep: 10 tensors x 2 ms = 20 ms, uploads 10 ms; skip: 5 x 2 = 10 ms, 5 ms */
    assert_true(wt_compare_cell(c, 0, tl)->s.median == 20.0 && wt_compare_cell(c, 1, tl)->s.median == 10.0);
    assert_true(wt_compare_cell(c, 0, up)->s.median == 10.0 && wt_compare_cell(c, 1, up)->s.median == 5.0);
    assert_true(wt_compare_cell(c, 0, fp)->s.median == 40.0 && wt_compare_cell(c, 0, wl)->s.median == 30.0);
    /* HIT/MISS: keep 10 MISS (round 0) + 10 HIT (round 1); skip 5 + 5 HIT */
    assert_int_equal(wt_compare_cell(c, 0, tl)->misses, 10);
    assert_int_equal(wt_compare_cell(c, 0, tl)->hits, 10);
    assert_int_equal(wt_compare_cell(c, 1, tl)->misses, 0);
    assert_int_equal(wt_compare_cell(c, 1, tl)->hits, 10);
    assert_int_equal(wt_compare_cell(c, 0, up)->hits + wt_compare_cell(c, 0, up)->misses, 0);
    /* 2 pairs all agreeing: 4 more would let 95% decide (6 pairs) */
    assert_int_equal(c->pairs[0].stage[tl].more_pairs, 4);
    char *text = text_of(c);
    assert_non_null(strstr(text, "\n  weight_load/* (10 labels) keep"));
    assert_non_null(strstr(text, "\n    upload/* (10 labels)"));
    assert_non_null(strstr(text, "10/10"));
    assert_non_null(strstr(text, "too few rounds: 4 more pairs would let 95% decide"));
    free(text);
    wt_compare_free(c);

    /* by label: a row per tensor, each upload under its own weight_load */
    wt_compare_opts o = { .by = WT_CMP_BY_LABEL };
    c = run_rounds(e, &o);
    const long t3 = stage_id(c, "weight_load/t3"), u3 = stage_id(c, "upload/t3");
    assert_int_equal(c->stages[t3].parent, 0);
    assert_int_equal(c->stages[u3].parent, t3);
    assert_int_equal(wt_compare_cell(c, 0, u3)->s.n, 2);
    assert_int_equal(wt_compare_cell(c, 1, u3)->s.n, 0); /* odd tensors: keep only */
    assert_int_equal(wt_compare_cell(c, 0, t3)->misses, 1);
    wt_compare_free(c);
    free(e);
}

/* The compact JSON of c (caller frees): walltime-compare/1, or the seed's layout when gr00t. */
static char *json_of(const wt_compare *c, int gr00t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_int_equal(gr00t ? wt_gr00t_write_json(c, m, 0) : wt_compare_write_json(c, m, 0), 0);
    fclose(m);
    return text;
}

/* Two layers per round on one thread, weight_load/layers.0 (1 .. 11 ms) and layers.1 (12 .. 32
 * ms), each around 9 convert spans of labels of its own (1 ms each in layers.0, 2 ms each in
 * layers.1): convert has 18 labels, so --by auto rolls it up; keep and skip alike, 2 rounds. */
static void layer_events(evs *e)
{
    static const char *const names[2][9] = {
        { "l0.t0", "l0.t1", "l0.t2", "l0.t3", "l0.t4", "l0.t5", "l0.t6", "l0.t7", "l0.t8" },
        { "l1.t0", "l1.t1", "l1.t2", "l1.t3", "l1.t4", "l1.t5", "l1.t6", "l1.t7", "l1.t8" },
    };
    static const char *const layer[2] = { "layers.0", "layers.1" };
    double t0 = 10;
    for (int r = 0; r < 4; r++, t0 += 60) {
        for (int l = 0; l < 2; l++) {
            const double start = l ? 12 : 1, each = l ? 2 : 1;
            for (int i = 0; i < 9; i++)
                tspan(e, 100, t0 + start + 0.5 + each * i, each, 1, "convert", names[l][i],
                      l ? WT_CACHED_HIT : WT_CACHED_MISS);
            span(e, t0 + start, l ? 20 : 10, 0, "weight_load", layer[l]);
        }
        round_ev(e, t0, 50, r % 2 ? "skip" : "keep", r / 2);
    }
}

/* The row of a rolled-up category under the row `parent`, or -1. */
static long rollup_under(const wt_compare *c, const char *display, long parent)
{
    for (size_t s = 0; s < c->stage_keys.n; s++)
        if (c->stages[s].display && !strcmp(c->stages[s].display, display) && c->stages[s].parent == parent)
            return (long)s;
    return -1;
}

static void test_compare_rolled_up_rows_sit_under_each_enclosing_row(void **state)
{
    evs *e = calloc(1, sizeof *e);
    layer_events(e);
    wt_compare *c = run_rounds(e, NULL); /* --by auto */
    const long l0 = stage_id(c, "weight_load/layers.0"), l1 = stage_id(c, "weight_load/layers.1");
    assert_int_equal(c->stages[l0].parent, 0);
    assert_int_equal(c->stages[l1].parent, 0);
    /* a convert row under each layer, not one beside them */
    const long c0 = rollup_under(c, "convert/*", l0), c1 = rollup_under(c, "convert/*", l1);
    assert_true(c0 > 0 && c1 > 0 && c0 != c1);
    assert_int_equal(rollup_under(c, "convert/*", 0), -1);
    assert_int_equal(c->stages[c0].depth, 2);
    assert_int_equal(c->stages[c1].depth, 2);
    /* each with its own labels and time: 9 x 1 ms, 9 x 2 ms; HIT/MISS per layer: 9 per round */
    assert_int_equal(c->stages[c0].n_labels, 9);
    assert_int_equal(c->stages[c1].n_labels, 9);
    assert_true(wt_compare_cell(c, 0, c0)->s.median == 9.0 && wt_compare_cell(c, 1, c0)->s.median == 9.0);
    assert_true(wt_compare_cell(c, 0, c1)->s.median == 18.0 && wt_compare_cell(c, 1, c1)->s.median == 18.0);
    assert_int_equal(wt_compare_cell(c, 0, c0)->misses, 18);
    assert_int_equal(wt_compare_cell(c, 0, c0)->hits, 0);
    assert_int_equal(wt_compare_cell(c, 0, c1)->hits, 18);
    assert_true(wt_compare_cell(c, 0, l0)->s.median == 10.0 && wt_compare_cell(c, 0, l1)->s.median == 20.0);
    /* depth first: round, layers.0, its convert, layers.1, its convert */
    assert_int_equal(c->n_order, 5);
    const long want[5] = { 0, l0, c0, l1, c1 };
    for (int i = 0; i < 5; i++)
        assert_int_equal(c->stage_order[i], want[i]);
    char *text = text_of(c);
    assert_non_null(strstr(text, "\n  weight_load/layers.0   keep"));
    assert_non_null(strstr(text, "\n    convert/* (9 labels) keep"));
    free(text);
    /* the seed's layout names each row once: under its layer */
    text = json_of(c, 1);
    assert_non_null(strstr(text, "\"layers.0/convert/keep\""));
    assert_non_null(strstr(text, "\"layers.1/convert/keep\""));
    free(text);
    wt_compare_free(c);
    free(e);
}

static void test_compare_by_category_counts_nested_spans_of_a_category_once(void **state)
{
    evs *e = calloc(1, sizeof *e);
    loader_events(e);
    wt_compare_opts o = { .by = WT_CMP_BY_CATEGORY };
    wt_compare *c = run_rounds(e, &o);
    const long load = stage_id(c, "load"), tl = stage_id(c, "weight_load"), up = stage_id(c, "upload");
    /* weights_load (30 ms) lies inside from_pretrained (40 ms): load is 40, not 70 */
    assert_true(wt_compare_cell(c, 0, load)->s.median == 40.0);
    assert_int_equal(c->stages[load].n_labels, 2);
    assert_true(wt_compare_cell(c, 0, tl)->s.median == 20.0);
    assert_int_equal(c->stages[up].parent, tl);
    assert_int_equal(c->stages[load].parent, 0);
    wt_compare_free(c);
    free(e);
}

static void test_compare_recursion_deep_nesting_and_many_threads_still_count(void **state)
{
    evs *e = calloc(1, sizeof *e);
    /* keep round 0 .. 100 ms: a 4 ms span inside a 10 ms span of the same stage (recursion)
     * counts 10; 40 levels deep (past the levels followed) and 4200 threads (past the threads
     * followed) still count, each 0.01 ms, without a tree */
    span(e, 2, 4, 1, "parse", "node");
    span(e, 1, 10, 0, "parse", "node");
    for (int i = 0; i < 40; i++)
        span(e, 20 + i * 0.1, 0.01, 40 - (uint32_t)i, "deep", "x");
    for (int i = 0; i < 4200; i++)
        if (e->n < 4090)
            tspan(e, 1000 + (uint64_t)i, 50, 0.01, 0, "many", "y", WT_CACHED_HIT);
    round_ev(e, 0, 100, "keep", 0);
    wt_compare *c = run_rounds(e, NULL);
    assert_true(wt_compare_cell(c, 0, stage_id(c, "parse/node"))->s.median == 10.0);
    const size_t n_many = e->n - 1 - 2 - 40;
    const wt_cmp_cell *many = wt_compare_cell(c, 0, stage_id(c, "many/y"));
    assert_true(fabs(many->s.median - 0.01 * (double)n_many) < 1e-6);
    assert_int_equal(many->hits, n_many);
    /* levels 32..40 are past WT_CMP_MAX_DEPTH: 9 spans flat; threads past 4096 too */
    assert_true(c->spans_flat >= 9 + (n_many > WT_CMP_MAX_THREADS ? n_many - WT_CMP_MAX_THREADS : 0));
    assert_true(fabs(wt_compare_cell(c, 0, stage_id(c, "deep/x"))->s.median - 0.4) < 1e-6);
    wt_compare_free(c);
    free(e);
}

/* 2000 labels of 4000 bytes (8 MB) inside from_pretrained pass the census's 4 MB: the whole
 * category is one row, which every span still counts in. */
static void test_compare_census_bytes_bound_folds_and_keeps_every_span(void **state)
{
    evs *e = calloc(1, sizeof *e);
    char *names = malloc(2000 * 4001);
    for (int i = 0; i < 2000; i++) {
        char *n = names + (size_t)i * 4001;
        memset(n, 'a' + i % 26, 4000);
        snprintf(n, 12, "%05d", i);
        n[5] = 'x'; /* snprintf's NUL replaced: the name runs on to 4000 bytes */
        n[4000] = 0;
        span(e, 1 + 0.01 * i, 0.005, 1, "big", n);
    }
    span(e, 0.5, 90, 0, "load", "from_pretrained");
    round_ev(e, 0, 100, "keep", 0);
    wt_compare_opts o = { .by = WT_CMP_BY_LABEL };
    wt_compare *c = run_rounds(e, &o);
    assert_true(c->census.key_bytes <= WT_CMP_CENSUS_BYTES);
    assert_true(c->census.keys_overflow > 0);
    const long big = stage_id(c, "big/*");
    assert_true(fabs(wt_compare_cell(c, 0, big)->s.median - 2000 * 0.005) < 1e-6);
    const wt_cmp_warning *w = wt_compare_find_warning(c, "limit");
    assert_non_null(w);
    assert_non_null(strstr(w->message, "'big' ("));
    wt_compare_free(c);
    free(names);
    free(e);
}

/* 600 tensor labels: past the stage limit by label; the top-level stage keeps its row.
 * tensor_cat NULL: a category per tensor ("c000" ...), label "x". */
static void tensor_events(evs *e, const char *tensor_cat)
{
    static char names[600][16];
    double t0 = 10;
    for (int i = 0; i < 600; i++)
        snprintf(names[i], sizeof names[i], tensor_cat ? "layer.%03d" : "c%03d", i);
    for (int k = 0; k < 2; k++, t0 += 100) {
        for (int i = 0; i < 600; i++)
            span(e, t0 + 2 + 0.1 * i, 0.05, 1, tensor_cat ? tensor_cat : names[i], tensor_cat ? names[i] : "x");
        span(e, t0 + 1, 90, 0, "load", "from_pretrained");
        round_ev(e, t0, 95, k ? "skip" : "keep", 0);
    }
}

static void test_compare_limit_keeps_top_level_stages_and_says_what_it_folded(void **state)
{
    evs *e = calloc(1, sizeof *e);
    tensor_events(e, "weights");
    wt_compare_opts o = { .by = WT_CMP_BY_LABEL };
    wt_compare *c = run_rounds(e, &o);
    const long fp = stage_id(c, "load/from_pretrained"), w = stage_id(c, "weights/*");
    assert_int_equal(c->stages[w].n_labels, 600);
    assert_int_equal(c->stages[w].parent, fp);
    assert_true(fabs(wt_compare_cell(c, 0, w)->s.median - 30.0) < 1e-6); /* 600 x 0.05 ms */
    assert_true(wt_compare_cell(c, 0, fp)->s.median == 90.0);
    const wt_cmp_warning *lw = wt_compare_find_warning(c, "limit");
    assert_non_null(lw);
    assert_non_null(strstr(lw->message, "'weights' (600 labels)"));
    assert_int_equal(c->dropped_stages, 0);
    wt_compare_free(c);
    /* the tensors in from_pretrained's own category: auto rolls them up, but the top-level
     * from_pretrained (depth 0 on the rounds' thread) keeps its own row */
    memset(e, 0, sizeof *e);
    tensor_events(e, "load");
    c = run_rounds(e, NULL);
    const long fp2 = stage_id(c, "load/from_pretrained"), l2 = stage_id(c, "load/*");
    assert_int_equal(c->stages[l2].parent, fp2);
    assert_int_equal(c->stages[l2].n_labels, 600);
    assert_true(wt_compare_cell(c, 1, fp2)->s.median == 90.0);
    assert_null(wt_compare_find_warning(c, "limit")); /* folded by --by auto, not a limit */
    wt_compare_free(c);
    /* 600 categories of one label: rows for the round, from_pretrained (first, though its
     * span ends last), 509 categories and "(other stages)" with the last 91, 0.05 ms each */
    memset(e, 0, sizeof *e);
    tensor_events(e, NULL);
    c = run_rounds(e, NULL);
    assert_int_equal(wt_compare_n_stages(c), WT_CMP_MAX_STAGES);
    assert_true(wt_compare_cell(c, 0, stage_id(c, "load/from_pretrained"))->s.median == 90.0);
    assert_true(fabs(wt_compare_cell(c, 0, stage_id(c, "(other stages)"))->s.median - 91 * 0.05) < 1e-6);
    assert_true(wt_compare_find_stage(c, "c508/x") >= 0 && wt_compare_find_stage(c, "c509/x") < 0);
    const wt_cmp_warning *ow = wt_compare_find_warning(c, "limit");
    assert_non_null(ow);
    assert_non_null(strstr(ow->message, "(other stages)"));
    wt_compare_free(c);
    free(e);
}

/* Eight alternating rounds: keep = base + d_keep, skip = base; base jitters. */
static wt_compare *eight_rounds(const double *keep_extra, const double *skip_ms, const char *first_cfg)
{
    evs *e = calloc(1, sizeof *e);
    double t = 0;
    for (int r = 0; r < 8; r++) {
        const double kms = skip_ms[r] + keep_extra[r];
        if (!strcmp(first_cfg, "keep")) {
            t = build(e, t, "keep", r, kms, kms / 2, 5, 100, 1);
            t = build(e, t, "skip", r, skip_ms[r], skip_ms[r] / 2, 5, 60, 1);
        } else {
            t = build(e, t, "skip", r, skip_ms[r], skip_ms[r] / 2, 5, 60, 1);
            t = build(e, t, "keep", r, kms, kms / 2, 5, 100, 1);
        }
    }
    wt_compare *c = run_rounds(e, NULL);
    free(e);
    return c;
}

static const double jitter[8] = { 60, 62, 59, 61, 63, 60, 62, 61 };

static void test_compare_clear_effect_gives_faster_with_interval(void **state)
{
    const double extra[8] = { 40, 41, 39, 42, 40, 41, 40, 39 };
    wt_compare *c = eight_rounds(extra, jitter, "keep");
    const wt_cmp_pair_stage *ps = &c->pairs[0].stage[0];
    /* d sorted 39 39 40 40 40 41 41 42: median 40, n 8 at 95%: [d(1), d(8)] = [39, 42] */
    assert_int_equal(ps->paired.n, 8);
    assert_true(fabs(ps->paired.median - 40) < 1e-9);
    assert_true(fabs(ps->paired.lo - 39) < 1e-9 && fabs(ps->paired.hi - 42) < 1e-9);
    assert_int_equal(ps->paired.verdict, WT_VERDICT_FASTER);
    assert_null(wt_compare_find_warning(c, "too_few_rounds"));
    assert_null(wt_compare_find_warning(c, "drift"));
    assert_null(wt_compare_find_warning(c, "first_round_outlier"));
    wt_compare_free(c);
}

static void test_compare_pure_noise_is_within_noise(void **state)
{
    const double extra[8] = { 1, -2, 0.5, -1, 2, -0.5, 1.5, -1.5 };
    wt_compare *c = eight_rounds(extra, jitter, "keep");
    const wt_cmp_pair_stage *ps = &c->pairs[0].stage[0];
    /* d sorted -2 -1.5 -1 -0.5 0.5 1 1.5 2: median 0, interval [-2, 2] */
    assert_true(fabs(ps->paired.median) < 1e-9);
    assert_true(fabs(ps->paired.lo + 2) < 1e-9 && fabs(ps->paired.hi - 2) < 1e-9);
    assert_int_equal(ps->paired.verdict, WT_VERDICT_NOISE);
    wt_compare_free(c);
}

/* Within noise with a direction: the text says how many more pairs would decide, as the JSON's
 * more_pairs does. Seven differences of +40 and one of -40: at n = 8 the 95% interval is
 * [d(1), d(8)] (k = 1) and holds 0; at n = 9, k = 2 > 1 negative: 1 more pair. */
static void test_compare_within_noise_says_how_many_more_pairs_in_the_text(void **state)
{
    const double extra[8] = { 40, 40, 40, -40, 40, 40, 40, 40 };
    wt_compare *c = eight_rounds(extra, jitter, "keep");
    const wt_cmp_pair_stage *ps = &c->pairs[0].stage[0];
    assert_int_equal(ps->paired.verdict, WT_VERDICT_NOISE);
    assert_int_equal(ps->more_pairs, 1);
    char *text = text_of(c);
    assert_non_null(strstr(text, "within noise: 1 more pair would let 95% decide\n"));
    free(text);
    wt_compare_free(c);
}

static void test_compare_warns_first_round_outlier(void **state)
{
    double extra[8] = { 40, 41, 39, 42, 40, 41, 40, 39 };
    double skip[8];
    memcpy(skip, jitter, sizeof skip);
    skip[0] = 150; /* a cold first skip round: 150 against a median of 61 for the others */
    wt_compare *c = eight_rounds(extra, skip, "skip");
    const wt_cmp_warning *w = wt_compare_find_warning(c, "first_round_outlier");
    assert_non_null(w);
    assert_non_null(strstr(w->message, "'skip'"));
    assert_non_null(strstr(w->message, "a cold cache?"));
    wt_compare_free(c);
    /* a first round faster than all the others is an outlier too, with no guess of a cold
     * cache (a user review saw "(0.56x): a cold cache?") */
    skip[0] = 20;
    c = eight_rounds(extra, skip, "skip");
    w = wt_compare_find_warning(c, "first_round_outlier");
    assert_non_null(w);
    assert_null(strstr(w->message, "cold"));
    assert_non_null(strstr(w->message, "faster than all of them: --discard 1 leaves it out"));
    wt_compare_free(c);
    skip[0] = 150;
    /* discarding it silences the warning and leaves 7 rounds */
    evs *e = calloc(1, sizeof *e);
    double t = 0;
    for (int r = 0; r < 8; r++) {
        t = build(e, t, "skip", r, skip[r], 10, 5, 60, 1);
        t = build(e, t, "keep", r, skip[r] + extra[r], 10, 5, 100, 1);
    }
    wt_compare_opts o = { .discard = 1 };
    c = run_rounds(e, &o);
    assert_null(wt_compare_find_warning(c, "first_round_outlier"));
    assert_int_equal(c->configs[0].n_rounds, 7);
    free(e);
    wt_compare_free(c);
}

static void test_compare_warns_drift_in_paired_differences(void **state)
{
    const double extra[8] = { 10, 15, 20, 25, 30, 35, 40, 45 }; /* tau +1, range 35 ms */
    wt_compare *c = eight_rounds(extra, jitter, "keep");
    assert_non_null(wt_compare_find_warning(c, "drift"));
    wt_compare_free(c);
}

static void test_compare_warns_rounds_not_alternating(void **state)
{
    evs *e = calloc(1, sizeof *e);
    double t = 0;
    t = build(e, t, "keep", 0, 100, 50, 5, 1, 1);
    t = build(e, t, "keep", 1, 100, 50, 5, 1, 1);
    t = build(e, t, "skip", 0, 60, 30, 5, 1, 1);
    t = build(e, t, "skip", 1, 60, 30, 5, 1, 1);
    wt_compare *c = run_rounds(e, NULL);
    const wt_cmp_warning *w = wt_compare_find_warning(c, "not_alternating");
    assert_non_null(w);
    assert_non_null(strstr(w->message, "2 times"));
    wt_compare_free(c);
    memset(e, 0, sizeof *e);
    basic_events(e);
    c = run_rounds(e, NULL);
    assert_null(wt_compare_find_warning(c, "not_alternating"));
    wt_compare_free(c);
    free(e);
}

static void test_compare_warns_unequal_round_counts_and_pairs_the_first(void **state)
{
    evs *e = calloc(1, sizeof *e);
    double t = 0;
    t = build(e, t, "keep", 0, 100, 50, 5, 1, 1);
    t = build(e, t, "skip", 0, 60, 30, 5, 1, 1);
    t = build(e, t, "keep", 1, 110, 50, 5, 1, 1);
    t = build(e, t, "skip", 1, 70, 30, 5, 1, 1);
    t = build(e, t, "keep", 2, 120, 50, 5, 1, 1);
    wt_compare *c = run_rounds(e, NULL);
    assert_non_null(wt_compare_find_warning(c, "unequal_rounds"));
    assert_int_equal(c->pairs[0].n_pairs, 2);
    assert_true(c->pairs[0].stage[0].paired.median == 40.0); /* d = 40, 40 */
    /* keep's median still uses all three rounds: 110 */
    assert_true(cell(c, 0, "(round)")->s.median == 110.0);
    wt_compare_free(c);
    free(e);
}

static void test_compare_warns_stage_missing_in_one_config(void **state)
{
    evs *e = calloc(1, sizeof *e);
    basic_events(e);
    /* a DiT upload only keep does, inside keep's round 0 (10 .. 110 ms) */
    span(e, 50, 3, 2, "weights", "dit_upload");
    wt_compare *c = run_rounds(e, NULL);
    const wt_cmp_warning *w = wt_compare_find_warning(c, "missing_stage");
    assert_non_null(w);
    assert_non_null(strstr(w->message, "'weights/dit_upload' only in 'keep'"));
    /* it is also missing from keep's rounds 1 and 2 */
    assert_non_null(wt_compare_find_warning(c, "partial_stage"));
    const wt_cmp_pair_stage *ps = &c->pairs[0].stage[wt_compare_find_stage(c, "weights/dit_upload")];
    assert_int_equal(ps->paired.verdict, WT_VERDICT_NONE);
    assert_true(isnan(ps->b_median));
    wt_compare_free(c);
    free(e);
}

static void test_compare_warns_metadata_beyond_configuration(void **state)
{
    evs *e = calloc(1, sizeof *e);
    basic_events(e);
    meta(e, 20, "dtype", "bf16"); /* inside keep round 0 */
    meta(e, 130, "dtype", "int8"); /* inside skip round 0 (115 .. 175) */
    wt_compare *c = run_rounds(e, NULL);
    const wt_cmp_warning *w = wt_compare_find_warning(c, "meta_differs");
    assert_non_null(w);
    assert_non_null(strstr(w->message, "'dtype' is 'bf16' in 'keep', 'int8' in 'skip'"));
    assert_null(strstr(w->message, "'config'"));
    wt_compare_free(c);
    free(e);
}

static void test_compare_warns_pagecache_state_differs(void **state)
{
    evs *e = calloc(1, sizeof *e);
    basic_events(e);
    /* keep round 0 (10 .. 110) saw 0% resident, skip round 0 (115 .. 175) 100% */
    counter(e, 11, "weights.file_bytes", 1000);
    counter(e, 11, "weights.resident_bytes", 0);
    counter(e, 116, "weights.file_bytes", 1000);
    counter(e, 116, "weights.resident_bytes", 1000);
    wt_compare *c = run_rounds(e, NULL);
    const wt_cmp_warning *w = wt_compare_find_warning(c, "pagecache_differs");
    assert_non_null(w);
    assert_non_null(strstr(w->message, "'keep' saw 0% resident, 'skip' 100%"));
    wt_compare_free(c);
    /* the same state on both sides: quiet */
    memset(e, 0, sizeof *e);
    basic_events(e);
    counter(e, 11, "weights.file_bytes", 1000);
    counter(e, 11, "weights.resident_bytes", 950);
    counter(e, 116, "weights.file_bytes", 1000);
    counter(e, 116, "weights.resident_bytes", 1000);
    c = run_rounds(e, NULL);
    assert_null(wt_compare_find_warning(c, "pagecache_differs"));
    wt_compare_free(c);
    free(e);
}

static void test_compare_no_rounds_and_one_config_say_what_is_missing(void **state)
{
    evs *e = calloc(1, sizeof *e);
    span(e, 1, 5, 0, "load", "x");
    wt_compare *c = run_rounds(e, NULL);
    assert_int_equal(wt_compare_n_configs(c), 0);
    assert_non_null(wt_compare_find_warning(c, "no_rounds"));
    char *text = text_of(c);
    assert_non_null(strstr(text, "no rounds"));
    free(text);
    wt_compare_free(c);

    memset(e, 0, sizeof *e);
    double t = 0;
    for (int r = 0; r < 3; r++)
        t = build(e, t, "keep", r, 100 + r, 50, 5, 1, 1);
    c = run_rounds(e, NULL);
    assert_non_null(wt_compare_find_warning(c, "one_config"));
    assert_int_equal(c->n_pairs, 0);
    assert_true(cell(c, 0, "(round)")->s.median == 101.0); /* still summarised */
    assert_null(wt_compare_find_warning(c, "no_rounds"));
    wt_compare_free(c);
    free(e);
}

static void test_compare_names_processes_by_rank(void **state)
{
    evs *e = calloc(1, sizeof *e);
    basic_events(e);
    meta(e, 2, "rank", "3");
    double t = 600; /* two skip rounds back to back after basic_events' last (ends 525 ms) */
    t = build(e, t, "skip", 3, 60, 30, 20, 600000, 6);
    build(e, t, "skip", 4, 60, 30, 20, 600000, 6);
    wt_compare *c = run_rounds(e, NULL);
    char *text = text_of(c);
    assert_non_null(strstr(text, "\n  rank 3 (pid 100): 'run.wtrace', 8 rounds\n"));
    const wt_cmp_warning *w = wt_compare_find_warning(c, "not_alternating");
    assert_non_null(w);
    assert_non_null(strstr(w->message, "did not alternate in rank 3 (pid 100):"));
    free(text);
    text = json_of(c, 0);
    assert_non_null(strstr(text, "\"pid\":100,\"name\":\"rank 3 (pid 100)\",\"rank\":3,"));
    free(text);
    wt_compare_free(c);
    free(e);
}

/* Runs mode: three runs per side, no rounds; each run is one implicit round. */
static void test_compare_runs_mode_pairs_runs_and_flags_other_programs(void **state)
{
    wt_compare_opts o = { .runs = 1, .side = { "base", "new" } };
    wt_compare *c = wt_compare_create(&o);
    evs *e = calloc(6, sizeof *e);
    const double base_ms[3] = { 100, 102, 101 }, new_ms[3] = { 80, 79, 83 };
    for (int i = 0; i < 6; i++) {
        const double ms = i < 3 ? base_ms[i] : new_ms[i - 3];
        span(&e[i], 0, ms, 0, "load", "from_pretrained");
        span(&e[i], 1, ms / 2, 1, "load", "weights_load");
    }
    char path[32];
    for (int pass = 1; pass <= 2; pass++)
        for (int i = 0; i < 6; i++) {
            snprintf(path, sizeof path, "%s%d.wtrace", i < 3 ? "base" : "new", i % 3);
            feed_file(c, i >= 3, path, i == 5 ? "./other_prog" : "./bench_load", &e[i], pass, i);
        }
    assert_int_equal(wt_compare_finish(c), 0);
    assert_int_equal(wt_compare_n_configs(c), 2);
    assert_string_equal(c->configs[0].name, "base");
    assert_string_equal(c->configs[1].name, "new");
    /* the implicit round spans the trace: 0 .. ms */
    assert_true(cell(c, 0, "(run)")->s.median == 101.0);
    assert_true(cell(c, 1, "(run)")->s.median == 80.0);
    /* d = 20, 23, 18: median 20 */
    assert_true(c->pairs[0].stage[0].paired.median == 20.0);
    assert_true(cell(c, 1, "load/weights_load")->s.median == 40.0);
    assert_non_null(wt_compare_find_warning(c, "different_programs"));
    wt_compare_free(c);
    free(e);
}

/* Odd input never crashes: random kinds, times (some hostile), names and depths. */
static void test_compare_random_events_do_not_crash(void **state)
{
    static const char *const names[] = { "keep", "skip", NULL, "", "x", "a:b" };
    evs *e = calloc(1, sizeof *e);
    uint64_t x = 42;
    for (int i = 0; i < 1000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        wt_event *ev = push(e, (wt_event_kind)(1 + (x >> 60) % 9), (double)((x >> 20) % 1000));
        ev->dur = (x >> 33) % 7 == 0 ? INT64_MAX : (int64_t)((x >> 30) % 200) * MS - 10 * MS;
        if ((x >> 40) % 13 == 0)
            ev->ts = (x >> 41) % 2 ? INT64_MAX - 5 : INT64_MIN + 5;
        ev->name = names[(x >> 8) % 6];
        ev->category = names[(x >> 12) % 6];
        ev->label = names[(x >> 16) % 6];
        ev->detail = names[(x >> 24) % 6];
        ev->depth = (uint32_t)((x >> 28) % 5);
        ev->count = (int64_t)((x >> 36) % 4);
        ev->value = (int64_t)(x >> 1);
    }
    for (int runs = 0; runs < 2; runs++) {
        wt_compare_opts o = { .runs = runs };
        wt_compare *c = wt_compare_create(&o);
        for (int pass = 1; pass <= 2; pass++) {
            feed_file(c, 0, "r.wtrace", "p", e, pass, 0);
            if (runs)
                feed_file(c, 1, "s.wtrace", "q", e, pass, 1);
        }
        assert_int_equal(wt_compare_finish(c), 0);
        FILE *devnull = fopen("/dev/null", "w");
        assert_int_equal(wt_compare_write_text(c, devnull), 0);
        assert_int_equal(wt_compare_write_json(c, devnull, 0), 0);
        assert_int_equal(wt_svg_write(c, devnull), 0);
        fclose(devnull);
        wt_compare_free(c);
    }
    free(e);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    *len = fread(s, 1, (size_t)n, f);
    s[*len] = 0;
    fclose(f);
    return s;
}

/* The comparison of basic_events with default options. */
static wt_compare *basic_compare(void)
{
    evs *e = calloc(1, sizeof *e);
    basic_events(e);
    wt_compare *c = run_rounds(e, NULL);
    free(e);
    return c;
}

static void test_compare_json_schema_golden(void **state)
{
    wt_compare *c = basic_compare();
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    assert_int_equal(wt_compare_write_json(c, m, 1), 0);
    fclose(m);
    const char *golden = WT_SOURCE_DIR "/tests/golden/compare_basic.json";
    if (getenv("WT_UPDATE_GOLDEN")) {
        FILE *g = fopen(golden, "wb");
        fwrite(out, 1, len, g);
        fclose(g);
    }
    size_t glen = 0;
    char *want = slurp(golden, &glen);
    assert_non_null(want);
    assert_string_equal(out, want);
    free(want);
    free(out);
    /* the text and the SVG are written without error and say the essentials */
    m = open_memstream(&out, &len);
    assert_int_equal(wt_compare_write_text(c, m), 0);
    fclose(m);
    assert_non_null(strstr(out, "keep vs skip"));
    assert_non_null(strstr(out, "too few rounds"));
    free(out);
    m = open_memstream(&out, &len);
    assert_int_equal(wt_svg_write(c, m), 0);
    fclose(m);
    assert_non_null(strstr(out, "<svg"));
    assert_non_null(strstr(out, "</svg>"));
    assert_non_null(strstr(out, "keep round 1: 104.0 ms"));
    free(out);
    wt_compare_free(c);
}

/* The seed's bench_load layout for basic_events, worked out by hand from bench_load.py:
 * keep rounds 100/104/102 ms (from_pretrained 1 ms less, weights_load 70/72/71, head_build
 * 20/21/20), skip 60/63/61 (59/62/60, 30/33/31, 20/20/21); value = statistics.median, min over
 * the rounds, per_round rounded to 0.1 ms; meta.configs one record per round in seconds;
 * device_mb from each configuration's first round (recs[0]): keep 1000000 bytes = 1 MB and
 * 10 tensors, skip 0.6 MB and 6; delta = keep - skip: 0.4 MB, 4 tensors, and the medians:
 * round 102 - 61 = 41, from_pretrained 101 - 60 = 41, weights_load 71 - 31 = 40, head_build 0. */
static const char gr00t_expected[] =
    "{\"schema\":\"gr00t-tt-perf/1\",\"bench\":\"bench_load\",\"version\":null,\"dry_run\":false,"
    "\"args\":{\"rounds\":3},"
    "\"method\":{\"builds\":\"rounds recorded with wt_round_begin/wt_round_end, read from walltime traces; "
    "medians over the rounds\",\"clock\":\"host wall clock (CLOCK_MONOTONIC)\"},"
    "\"stages\":{"
    "\"round/keep\":{\"metric\":\"ms\",\"value\":102,\"min\":100,\"per_round\":[100.0,104.0,102.0]},"
    "\"from_pretrained/keep\":{\"metric\":\"ms\",\"value\":101,\"min\":99,\"per_round\":[99.0,103.0,101.0]},"
    "\"weights_load/keep\":{\"metric\":\"ms\",\"value\":71,\"min\":70,\"per_round\":[70.0,72.0,71.0]},"
    "\"head_build/keep\":{\"metric\":\"ms\",\"value\":20,\"min\":20,\"per_round\":[20.0,21.0,20.0]},"
    "\"round/skip\":{\"metric\":\"ms\",\"value\":61,\"min\":60,\"per_round\":[60.0,63.0,61.0]},"
    "\"from_pretrained/skip\":{\"metric\":\"ms\",\"value\":60,\"min\":59,\"per_round\":[59.0,62.0,60.0]},"
    "\"weights_load/skip\":{\"metric\":\"ms\",\"value\":31,\"min\":30,\"per_round\":[30.0,33.0,31.0]},"
    "\"head_build/skip\":{\"metric\":\"ms\",\"value\":20,\"min\":20,\"per_round\":[20.0,20.0,21.0]}},"
    "\"rows\":[],\"device\":{\"host\":\"testhost\"},"
    "\"meta\":{\"tensors\":\"10\","
    "\"configs\":{\"keep\":["
    "{\"round_s\":0.1,\"from_pretrained_s\":0.099,\"weights_load_s\":0.07,\"head_build_s\":0.02,"
    "\"device_bytes\":1000000,\"n_tensors\":10,\"round\":0},"
    "{\"round_s\":0.104,\"from_pretrained_s\":0.103,\"weights_load_s\":0.072,\"head_build_s\":0.021,"
    "\"device_bytes\":1000000,\"n_tensors\":10,\"round\":1},"
    "{\"round_s\":0.102,\"from_pretrained_s\":0.101,\"weights_load_s\":0.071,\"head_build_s\":0.02,"
    "\"device_bytes\":1000000,\"n_tensors\":10,\"round\":2}],"
    "\"skip\":["
    "{\"round_s\":0.06,\"from_pretrained_s\":0.059,\"weights_load_s\":0.03,\"head_build_s\":0.02,"
    "\"device_bytes\":600000,\"n_tensors\":6,\"round\":0},"
    "{\"round_s\":0.063,\"from_pretrained_s\":0.062,\"weights_load_s\":0.033,\"head_build_s\":0.02,"
    "\"device_bytes\":600000,\"n_tensors\":6,\"round\":1},"
    "{\"round_s\":0.061,\"from_pretrained_s\":0.06,\"weights_load_s\":0.031,\"head_build_s\":0.021,"
    "\"device_bytes\":600000,\"n_tensors\":6,\"round\":2}]},"
    "\"device_mb\":{\"keep\":{\"mb\":1,\"n_tensors\":10},\"skip\":{\"mb\":0.6,\"n_tensors\":6}},"
    "\"rounds\":3,"
    "\"delta\":{\"device_mb_saved\":0.4,\"n_tensors_saved\":4,\"round_ms_saved_median\":41,"
    "\"from_pretrained_ms_saved_median\":41,\"weights_load_ms_saved_median\":40,"
    "\"head_build_ms_saved_median\":0}}}\n";

static void test_compare_gr00t_json_matches_the_seed_layout_by_hand(void **state)
{
    wt_compare *c = basic_compare();
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    assert_int_equal(wt_gr00t_write_json(c, m, 0), 0);
    fclose(m);
    assert_string_equal(out, gr00t_expected);
    free(out);
    wt_compare_free(c);
    /* samples/model_load counts "tensors": device_mb takes it when there is no n_tensors */
    evs *e = calloc(1, sizeof *e);
    basic_events(e);
    for (size_t i = 0; i < e->n; i++)
        if (e->ev[i].kind == WT_EV_COUNTER && !strcmp(e->ev[i].name, "n_tensors"))
            e->ev[i].name = "tensors";
    c = run_rounds(e, NULL);
    m = open_memstream(&out, &len);
    assert_int_equal(wt_gr00t_write_json(c, m, 0), 0);
    fclose(m);
    assert_non_null(strstr(out, "\"device_mb\":{\"keep\":{\"mb\":1,\"n_tensors\":10},\"skip\":{\"mb\":0.6,\"n_tensors\":6}}"));
    free(out);
    wt_compare_free(c);
    free(e);
}

/* A real trace file through the reader and walltime-analyze compare. */
static void test_compare_cli_reads_a_built_trace(void **state)
{
    char dir[] = "/tmp/wt_cmp_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], cmd[512];
    snprintf(path, sizeof path, "%s/run.wtrace", dir);
    tb *b = tb_create(path, 4242, 0, 1 * MS);
    int64_t t = 10 * MS;
    for (int r = 0; r < 6; r++)
        for (int k = 0; k < 2; k++) {
            const int64_t d = (k ? 60 : 100) * MS + r * MS / 10;
            tb_span(b, 1, t + 2 * MS, t + 20 * MS, 1, "load", "weights_load");
            tb_span(b, 1, t + MS, t + d - MS, 0, "load", "from_pretrained");
            /* a loader thread: its upload lies in weights_load's time, but not inside it */
            tb_span(b, 2, t + 3 * MS, t + 4 * MS, 0, "upload", "layer.0");
            tb_counter(b, 1, t + d - MS / 2, "device_bytes", k ? 600 : 1000);
            tb_round(b, 1, t, t + d, k ? "skip" : "keep", r);
            t += d + 5 * MS;
        }
    tb_close(b, TB_END_CLEAN, t, 0);
    snprintf(cmd, sizeof cmd, "%s compare --json --svg %s/c.svg %s > %s/out.json", WT_ANALYZE_BIN, dir,
             path, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/out.json", dir);
    size_t len = 0;
    char *out = slurp(path, &len);
    assert_non_null(out);
    assert_non_null(strstr(out, "\"schema\": \"walltime-compare/1\""));
    assert_non_null(strstr(out, "\"verdict\": \"faster\""));
    assert_non_null(strstr(out, "\"name\": \"upload/layer.0\",\n      \"category\": \"upload\",\n      "
                                "\"label\": \"layer.0\",\n      \"whole_round\": false,\n      "
                                "\"kind\": \"label\",\n      \"parent\": \"(round)\""));
    assert_non_null(strstr(out, "\"parent\": \"load/from_pretrained\""));
    free(out);
    /* usage errors, exit 2: --discard that leaves no rounds, a bad --by, --schema without --json */
    static const char *const bad[] = { "--discard 6", "--by tensor", "--schema gr00t-tt-perf/1",
                                       "--schema nope --json", "--svg-scale log" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s compare %s %s/run.wtrace >/dev/null 2>&1", WT_ANALYZE_BIN, bad[i], dir);
        assert_int_equal(WEXITSTATUS(system(cmd)), 2);
    }
    snprintf(cmd, sizeof cmd, "%s compare --discard 5 --json --schema gr00t-tt-perf/1 %s/run.wtrace "
             "| grep -q '\"from_pretrained/skip\"'", WT_ANALYZE_BIN, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s compare --bogus x 2>/dev/null", WT_ANALYZE_BIN);
    assert_int_equal(WEXITSTATUS(system(cmd)), 2);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A load shaped like a real one, as the recorder writes it: 6 rounds of keep (100 ms) and skip
 * (70 ms) on thread 7 (= pid 7), each with load/from_pretrained (1 .. 99 ms or 69 ms) around
 * load/weights_load and load/head_build, which holds a compile span with a 78-character
 * name; two loader threads (8, 9) take tensor i alternately: weight_load/<tensor> (80 us, HIT;
 * in keep's round 0 280 us, MISS) around convert/<tensor> (200 us, keep round 0 only) and
 * upload/<tensor> (60 us). keep loads 600 tensors, skip leaves out every third: 400. */
#define LONG_STAGE "warmup_graph_capture_for_the_decoder_with_paged_attention_and_top_p_sampl"
static void realistic_trace(const char *path)
{
    static const char *const part[12] = { "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                                          "down_proj", "in_norm", "post_norm", "q_norm", "k_norm", "router" };
    const int64_t US = 1000;
    tb *b = tb_create(path, 7, 0, MS);
    int64_t t = 10 * MS;
    for (int r = 0; r < 6; r++)
        for (int k = 0; k < 2; k++) {
            const int64_t len = (k ? 70 : 100) * MS;
            int64_t th[2] = { t + 2 * MS, t + 2 * MS };
            const int cold = r == 0 && k == 0;
            for (int i = 0; i < 600; i++) {
                if (k && i % 3 == 0)
                    continue;
                char name[96];
                snprintf(name, sizeof name, "model.layers.%02d.%s.weight", i / 12, part[i % 12]);
                int64_t *at = &th[i % 2];
                const int64_t conv = cold ? 200 * US : 0, s0 = *at;
                if (cold)
                    tb_span_ex(b, &(tb_span_desc){ .tid = 8 + (uint64_t)(i % 2), .start = s0 + 10 * US,
                                                   .end = s0 + 10 * US + conv, .depth = 1, .category = "convert",
                                                   .label = name });
                tb_span_ex(b, &(tb_span_desc){ .tid = 8 + (uint64_t)(i % 2), .start = s0 + 10 * US + conv,
                                               .end = s0 + 70 * US + conv, .depth = 1, .category = "upload",
                                               .label = name });
                tb_span_ex(b, &(tb_span_desc){ .tid = 8 + (uint64_t)(i % 2), .start = s0, .end = s0 + 80 * US + conv,
                                               .depth = 0, .category = "weight_load", .label = name,
                                               .cached = cold ? WT_CACHED_MISS : WT_CACHED_HIT });
                *at = s0 + 80 * US + conv;
            }
            tb_span(b, 7, t + 2 * MS, t + 90 * MS - (k ? 30 : 0) * MS, 1, "load", "weights_load");
            tb_span(b, 7, t + 91 * MS - (k ? 30 : 0) * MS, t + 92 * MS - (k ? 30 : 0) * MS, 2, "compile", LONG_STAGE);
            tb_span(b, 7, t + 90 * MS - (k ? 30 : 0) * MS, t + len - 2 * MS, 1, "load", "head_build");
            tb_counter(b, 7, t + len - 2 * MS, "device_bytes", k ? 400 * 1000000LL : 600 * 1000000LL);
            tb_counter(b, 7, t + len - 2 * MS, "n_tensors", k ? 400 : 600);
            tb_span(b, 7, t + MS, t + len - MS, 0, "load", "from_pretrained");
            tb_round(b, 7, t, t + len, k ? "skip" : "keep", r);
            tb_frame(b);
            t += len + 5 * MS;
        }
    tb_close(b, TB_END_CLEAN, t, 0);
}

/* Runs walltime-analyze on the file with `args` and returns its stdout (caller frees). */
static char *run_cli(const char *args, const char *path, const char *dir)
{
    char cmd[1024], out[512];
    snprintf(out, sizeof out, "%s/cli.out", dir);
    snprintf(cmd, sizeof cmd, "%s compare %s %s > %s", WT_ANALYZE_BIN, args, path, out);
    assert_int_equal(system(cmd), 0);
    size_t len = 0;
    char *text = slurp(out, &len);
    assert_non_null(text);
    return text;
}

/* Fails unless every row appears in text, in this order. */
static void rows_in_order(const char *text, const char *const *rows, size_t n)
{
    const char *at = text;
    for (size_t i = 0; i < n; i++) {
        const char *hit = strstr(at, rows[i]);
        if (!hit)
            fail_msg("row %zu '%s' not found in order in:\n%s", i, rows[i], text);
        at = hit + 1;
    }
}

static void test_compare_cli_realistic_load_reads_as_stages(void **state)
{
    char dir[] = "/tmp/wt_cmpreal_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], cmd[160];
    snprintf(path, sizeof path, "%s/load.wtrace", dir);
    realistic_trace(path);
    char *text = run_cli("", path, dir);
    /* the rows, in tree order; weight_load: keep rounds 168, 48 x 5 ms (600 x 280 us, then
     * 600 x 80 us), median 48; skip 400 x 80 us = 32; HIT/MISS keep 3000/600, skip 2400/0 */
    const char *rows[] = { "\n(round) ", "\n  load/from_pretrained ", "\n    load/weights_load ",
                           "\n    load/head_build ", "\n      compile/" LONG_STAGE "\n",
                           "\n  weight_load/* (600 labels) keep     6      48.00      48.00      168.0  3000/600",
                           "\n    convert/* (600 labels) ", "\n    upload/* (600 labels) " };
    rows_in_order(text, rows, sizeof rows / sizeof rows[0]);
    assert_non_null(strstr(text, "skip     6      32.00      32.00      32.00    2400/0"));
    /* d = 136, 16 x 5: the interval [16, 136] is above 0 */
    assert_non_null(strstr(text, "  weight_load/* (600 labels)      48.00      32.00      16.00   33.3%  16.00 [16.00, 136.0]"));
    free(text);
    /* by label: 1800 names fold at the limit, named; from_pretrained keeps its row */
    text = run_cli("--by label", path, dir);
    assert_non_null(strstr(text, "\n  load/from_pretrained "));
    assert_non_null(strstr(text, "'weight_load' (600 labels)"));
    assert_non_null(strstr(text, "'upload' (600 labels)"));
    free(text);
    text = run_cli("--json --schema gr00t-tt-perf/1", path, dir);
    assert_non_null(strstr(text, "\"from_pretrained/keep\": {\n      \"metric\": \"ms\",\n      \"value\": 98,"));
    assert_non_null(strstr(text, "\"weight_load/skip\""));
    assert_non_null(strstr(text, "\"device_mb_saved\": 200,"));
    free(text);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A load of more tensors than the census holds (20,000 labels > WT_CMP_MAX_KEYS): each round's
 * from_pretrained ends after its tensors, and the stages after the load come last; they keep
 * their rows, and the tensors' row counts all of their labels, not only the census's. */
static void test_compare_cli_past_the_census_keeps_stages_and_counts_labels(void **state)
{
    (void)state;
    char dir[] = "/tmp/wt_cmpcensus_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], cmd[160];
    snprintf(path, sizeof path, "%s/big.wtrace", dir);
    tb *b = tb_create(path, 7, 0, 0);
    int64_t t = MS;
    for (int r = 0; r < 4; r++) {
        const int skip = r % 2;
        const int64_t r0 = t;
        t += MS;
        for (int i = 0; i < 20000; i++, t += 2000) {
            char name[64];
            snprintf(name, sizeof name, "model.layers.%d.experts.%d.w1", i / 64, i % 64);
            tb_span(b, 7, t, t + 1000, 1, "convert", name);
            if (i % 1000 == 999)
                tb_frame(b);
        }
        tb_span(b, 7, t, t + MS, 1, "load", "head_build"); /* a small category's, at depth 1 */
        t += MS;
        tb_span(b, 7, r0 + MS, t, 0, "load", "from_pretrained");
        tb_span(b, 7, t, t + (skip ? 5 : 9) * MS, 0, "warmup", "compile kernels");
        t += 10 * MS;
        tb_round(b, 7, r0, t, skip ? "skip" : "keep", r / 2);
        tb_frame(b);
        t += MS;
    }
    tb_close(b, TB_END_CLEAN, t, 0);
    char *text = run_cli("", path, dir);
    const char *rows[] = { "\n(round) ", "\n  load/from_pretrained ", "\n    convert/* (20000 labels) ",
                           "\n    load/head_build ", "\n  warmup/compile kernels " };
    rows_in_order(text, rows, sizeof rows / sizeof rows[0]);
    assert_null(strstr(text, "load/*"));
    assert_null(strstr(text, "warmup/*"));
    free(text);
    text = run_cli("--json", path, dir);
    assert_non_null(strstr(text, "\"labels\": 20000"));
    free(text);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_compare_pagecache_probe_resident_and_errors(void **state)
{
    char dir[] = "/tmp/wt_pc_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/w.bin", dir);
    FILE *f = fopen(path, "wb");
    char buf[4096];
    memset(buf, 7, sizeof buf);
    for (int i = 0; i < 64; i++)
        fwrite(buf, 1, sizeof buf, f);
    fclose(f);
    /* just written: in the page cache */
    const int64_t res = wt_pagecache_probe(path, "weights");
    assert_true(res > 0 && res <= 64 * 4096);
    snprintf(path, sizeof path, "%s/missing.bin", dir);
    assert_int_equal(wt_pagecache_probe(path, NULL), WT_EOPEN);
    snprintf(path, sizeof path, "%s/empty.bin", dir);
    fclose(fopen(path, "wb"));
    assert_int_equal(wt_pagecache_probe(path, NULL), 0);
    assert_int_equal(wt_pagecache_probe(dir, NULL), WT_EINVAL);
    assert_int_equal(wt_pagecache_probe("/dev/null", NULL), WT_EINVAL);
    assert_int_equal(wt_pagecache_probe(NULL, NULL), WT_EINVAL);
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(wt_pagecache_probe(path, NULL), WT_EINVAL); /* and does not block */
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    setenv("WALLTIME", "0", 1); /* the probe's counters go nowhere */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_medians_mins_and_savings_by_hand),
        cmocka_unit_test(test_compare_clear_effect_gives_faster_with_interval),
        cmocka_unit_test(test_compare_worker_spans_hang_off_the_round_and_tensors_roll_up),
        cmocka_unit_test(test_compare_rolled_up_rows_sit_under_each_enclosing_row),
        cmocka_unit_test(test_compare_by_category_counts_nested_spans_of_a_category_once),
        cmocka_unit_test(test_compare_limit_keeps_top_level_stages_and_says_what_it_folded),
        cmocka_unit_test(test_compare_recursion_deep_nesting_and_many_threads_still_count),
        cmocka_unit_test(test_compare_census_bytes_bound_folds_and_keeps_every_span),
        cmocka_unit_test(test_compare_pure_noise_is_within_noise),
        cmocka_unit_test(test_compare_within_noise_says_how_many_more_pairs_in_the_text),
        cmocka_unit_test(test_compare_warns_first_round_outlier),
        cmocka_unit_test(test_compare_warns_drift_in_paired_differences),
        cmocka_unit_test(test_compare_warns_rounds_not_alternating),
        cmocka_unit_test(test_compare_warns_unequal_round_counts_and_pairs_the_first),
        cmocka_unit_test(test_compare_warns_stage_missing_in_one_config),
        cmocka_unit_test(test_compare_warns_metadata_beyond_configuration),
        cmocka_unit_test(test_compare_warns_pagecache_state_differs),
        cmocka_unit_test(test_compare_no_rounds_and_one_config_say_what_is_missing),
        cmocka_unit_test(test_compare_names_processes_by_rank),
        cmocka_unit_test(test_compare_runs_mode_pairs_runs_and_flags_other_programs),
        cmocka_unit_test(test_compare_random_events_do_not_crash),
        cmocka_unit_test(test_compare_json_schema_golden),
        cmocka_unit_test(test_compare_gr00t_json_matches_the_seed_layout_by_hand),
        cmocka_unit_test(test_compare_cli_reads_a_built_trace),
        cmocka_unit_test(test_compare_cli_realistic_load_reads_as_stages),
        cmocka_unit_test(test_compare_cli_past_the_census_keeps_stages_and_counts_labels),
        cmocka_unit_test(test_compare_pagecache_probe_resident_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
