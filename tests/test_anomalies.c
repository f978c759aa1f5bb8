/* Each anomaly rule on hand-built events: one case that fires (with the hand-computed
 * numbers) and one that does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "anomalies.h"
#include "ledger.h"

#define S(x) ((int64_t)(((x) + 100.0) * 1e9 + 0.5))
#define EPS 1e-9

static wt_event sp(uint64_t tid, double s, double e, const char *cat, const char *label,
                   wt_cached cached)
{
    wt_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = WT_EV_SPAN;
    ev.pid = 9;
    ev.tid = tid;
    ev.ts = S(s);
    ev.dur = S(e) - S(s);
    ev.category = cat;
    ev.label = label;
    ev.cached = cached;
    ev.count = 1;
    return ev;
}

typedef struct run {
    wt_ledger_calc *lc, *base;
    wt_anomalies *an;
} run;

/* One file (pid 9, start 0 s) of events `evs`, ending `end` at `end_s`; optional baseline. */
static void go(run *r, const wt_anomaly_opts *o, const wt_event *evs, size_t n, wt_trace_end end,
               double end_s, const wt_event *base, size_t nbase)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(wt_ledger_calc_create(NULL, &r->lc), 0);
    assert_int_equal(wt_anomalies_create(o, &r->an), 0);
    wt_trace_info info;
    memset(&info, 0, sizeof info);
    info.pid = 9;
    info.process_start_ns = S(0);
    wt_analysis_pair pair = { r->lc, r->an, NULL, NULL, NULL };
    const wt_source_ops *ops = wt_analysis_pair_ops();
    assert_int_equal(ops->file_begin(&pair, 0, "t.wtrace", &info), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ops->event(&pair, 0, &evs[i]), 0);
    wt_reader_stats st;
    memset(&st, 0, sizeof st);
    st.end = end;
    if (end != WT_END_NONE) {
        wt_event e;
        memset(&e, 0, sizeof e);
        e.kind = WT_EV_END;
        e.ts = S(end_s);
        e.end = end;
        e.count = end == WT_END_SIGNAL ? 11 : 0;
        st.end_signal = end == WT_END_SIGNAL ? 11 : 0;
        assert_int_equal(ops->event(&pair, 0, &e), 0);
    }
    assert_int_equal(ops->file_end(&pair, 0, &st), 0);
    assert_int_equal(wt_ledger_calc_finish(r->lc), 0);
    if (base) {
        assert_int_equal(wt_ledger_calc_create(NULL, &r->base), 0);
        assert_int_equal(wt_ledger_calc_file_begin(r->base, "old", &info), 0);
        for (size_t i = 0; i < nbase; i++)
            assert_int_equal(wt_ledger_calc_event(r->base, &base[i]), 0);
        assert_int_equal(wt_ledger_calc_file_end(r->base, &st), 0);
        assert_int_equal(wt_ledger_calc_finish(r->base), 0);
    }
    assert_int_equal(wt_anomalies_finish(r->an, wt_ledger_calc_result(r->lc),
                                         r->base ? wt_ledger_calc_result(r->base) : NULL), 0);
}

static void done(run *r)
{
    wt_anomalies_free(r->an);
    wt_ledger_calc_free(r->lc);
    wt_ledger_calc_free(r->base);
}

static const wt_anomaly *first(const run *r, wt_anomaly_kind k)
{
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(r->an, &n);
    for (size_t i = 0; i < n; i++)
        if (v[i].kind == k)
            return &v[i];
    return NULL;
}

static wt_anomaly_opts defaults(void)
{
    wt_anomaly_opts o;
    wt_anomaly_opts_init(&o);
    o.untracked_pct = 1000; /* off unless a test wants it */
    return o;
}

static void test_anomalies_miss_cost_against_median_hit_of_label(void **state)
{
    /* HITs of L: 1 s and 3 s, median 2; MISS of L 5 s: avoidable 3 s.
     * MISS of M 4 s: no HIT of M; category W's HIT median 2: avoidable 2 s */
    wt_event evs[] = { sp(1, 0, 1, "W", "L", WT_CACHED_HIT), sp(1, 1, 4, "W", "L", WT_CACHED_HIT),
                       sp(1, 4, 9, "W", "L", WT_CACHED_MISS), sp(1, 9, 13, "W", "M", WT_CACHED_MISS) };
    evs[2].detail = "dir unset";
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 4, WT_END_CLEAN, 13, NULL, 0);
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(r.an, &n);
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_MISS), 2);
    assert_int_equal(v[0].kind, WT_AN_MISS);
    assert_string_equal(v[0].label, "L");
    assert_string_equal(v[0].detail, "dir unset");
    assert_float_equal(v[0].cost, 3.0, EPS);
    assert_int_equal(v[0].pid, 9);
    assert_int_equal(v[0].tid, 1);
    assert_int_equal(v[0].ts, S(4));
    assert_non_null(strstr(v[0].text, "CACHE MISS: W L (5.00 s) \xe2\x80\x94 dir unset; avoidable 3.00 s"));
    assert_float_equal(v[1].cost, 2.0, EPS);
    assert_non_null(strstr(v[1].text, WT_LEDGER_MISS_DEFAULT));
    assert_non_null(strstr(v[1].text, "median HIT of the category 2.00 s"));
    done(&r);
}

static void test_anomalies_miss_after_many_hits_costs_against_all_of_them(void **state)
{
    /* 1000 HITs of L of 1 s, then a MISS of 50 s, then 200 HITs of 3 s. While a label only
     * hits, its HIT durations are sampled once (as all of its durations); its first MISS
     * must carry those 1000 over. The HIT median is 1 s (1000 of 1200; a sample of 255 has
     * about 43 of the 3 s ones, never half), so the MISS's avoidable cost is 49 s; with the
     * first 1000 lost it would be 47 s. */
    const size_t n = 1201;
    wt_event *evs = calloc(n, sizeof *evs);
    assert_non_null(evs);
    double t = 0;
    for (size_t i = 0; i < n; i++) {
        const double d = i < 1000 ? 1 : i == 1000 ? 50 : 3;
        evs[i] = sp(1, t, t + d, "W", "L", i == 1000 ? WT_CACHED_MISS : WT_CACHED_HIT);
        t += d;
    }
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, n, WT_END_CLEAN, t, NULL, 0);
    const wt_anomaly *m = first(&r, WT_AN_MISS);
    assert_non_null(m);
    assert_float_equal(m->seconds, 50.0, EPS);
    assert_float_equal(m->cost, 49.0, EPS);
    assert_non_null(strstr(m->text, "(median HIT of the label 1.00 s)"));
    done(&r);
    free(evs);
}

static void test_anomalies_no_miss_no_anomaly(void **state)
{
    const wt_event evs[] = { sp(1, 0, 1, "W", "L", WT_CACHED_HIT), sp(1, 1, 2, "W", "L", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 2, WT_END_CLEAN, 2, NULL, 0);
    size_t n;
    wt_anomalies_list(r.an, &n);
    assert_int_equal(n, 0);
    done(&r);
}

static void test_anomalies_untracked_over_threshold(void **state)
{
    /* wall 10, tracked 8: 20% untracked; fires at 10%, not at 25% */
    const wt_event evs[] = { sp(1, 1, 9, "A", "a", 0) };
    wt_anomaly_opts o = defaults();
    o.untracked_pct = 10;
    run r;
    go(&r, &o, evs, 1, WT_END_CLEAN, 10, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_UNTRACKED);
    assert_non_null(a);
    assert_float_equal(a->seconds, 2.0, EPS);
    assert_non_null(strstr(a->text, "2.00 s of 10.0 s wall (20.0%)"));
    done(&r);
    o.untracked_pct = 25;
    go(&r, &o, evs, 1, WT_END_CLEAN, 10, NULL, 0);
    assert_null(first(&r, WT_AN_UNTRACKED));
    done(&r);
}

static wt_event round_ev(double s, double e, int64_t n)
{
    wt_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = WT_EV_ROUND;
    ev.pid = 9;
    ev.tid = 1;
    ev.ts = S(s);
    ev.dur = S(e) - S(s);
    ev.name = n % 2 ? "keep" : "skip";
    ev.count = n;
    return ev;
}

/* One file of a run of several: its process, command line, rank ("rank" metadata, or NULL),
 * start and end (seconds), events. */
typedef struct file_desc {
    uint64_t pid;
    const char *cmdline, *rank;
    double start, end;
    wt_event *evs;
    size_t n;
} file_desc;

static void go_files(run *r, const wt_anomaly_opts *o, const file_desc *f, size_t nf)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(wt_ledger_calc_create(NULL, &r->lc), 0);
    assert_int_equal(wt_anomalies_create(o, &r->an), 0);
    wt_analysis_pair pair = { r->lc, r->an, NULL, NULL, NULL };
    const wt_source_ops *ops = wt_analysis_pair_ops();
    for (size_t i = 0; i < nf; i++) {
        wt_trace_info info;
        memset(&info, 0, sizeof info);
        info.pid = f[i].pid;
        info.process_start_ns = S(f[i].start);
        info.cmdline = f[i].cmdline;
        assert_int_equal(ops->file_begin(&pair, (int)i, "t.wtrace", &info), 0);
        if (f[i].rank) {
            wt_event m;
            memset(&m, 0, sizeof m);
            m.kind = WT_EV_META;
            m.pid = f[i].pid;
            m.ts = S(f[i].start);
            m.name = "rank";
            m.detail = f[i].rank;
            assert_int_equal(ops->event(&pair, (int)i, &m), 0);
        }
        for (size_t j = 0; j < f[i].n; j++) {
            f[i].evs[j].pid = f[i].pid;
            assert_int_equal(ops->event(&pair, (int)i, &f[i].evs[j]), 0);
        }
        wt_event e;
        memset(&e, 0, sizeof e);
        e.kind = WT_EV_END;
        e.pid = f[i].pid;
        e.ts = S(f[i].end);
        e.end = WT_END_CLEAN;
        assert_int_equal(ops->event(&pair, (int)i, &e), 0);
        wt_reader_stats st = { .end = WT_END_CLEAN };
        assert_int_equal(ops->file_end(&pair, (int)i, &st), 0);
    }
    assert_int_equal(wt_ledger_calc_finish(r->lc), 0);
    assert_int_equal(wt_anomalies_finish(r->an, wt_ledger_calc_result(r->lc), NULL), 0);
}

/* Several MISSes of one label in one round are different tensors sharing a name, not a cache
 * that never warms: no REPEATED MISS without rounds or runs. */
static void test_anomalies_shared_label_in_one_round_is_not_a_repeat(void **state)
{
    const wt_event evs[] = { sp(1, 0, 1, "W", "tensor", WT_CACHED_MISS),
                             sp(1, 1, 2, "W", "tensor", WT_CACHED_MISS),
                             sp(1, 2, 3, "W", "tensor", WT_CACHED_MISS) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 3, WT_END_CLEAN, 3, NULL, 0);
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_MISS), 3);
    assert_null(first(&r, WT_AN_REPEAT_MISS));
    done(&r);
    /* the same with the three in round 1 of 1 */
    wt_event in_round[4] = { evs[0], evs[1], evs[2], round_ev(0, 3, 1) };
    go(&r, &o, in_round, 4, WT_END_CLEAN, 3, NULL, 0);
    assert_null(first(&r, WT_AN_REPEAT_MISS));
    done(&r);
}

/* Round 1 (0-3 s): L misses (0-1), K misses twice (1-2, 2-3). Round 2 (3-6 s): L misses again
 * (3-4.5), K hits. Round 3 (6-9 s): L misses (6-8). Rounds arrive after their spans. L missed 2
 * times where a warm cache was expected, 1.5 + 2 = 3.5 s; K's two misses are both in its first
 * round. */
static void test_anomalies_repeated_miss_in_later_rounds(void **state)
{
    const wt_event evs[] = {
        sp(1, 0, 1, "W", "L", WT_CACHED_MISS), sp(1, 1, 2, "W", "K", WT_CACHED_MISS),
        sp(1, 2, 3, "W", "K", WT_CACHED_MISS), round_ev(0, 3, 1),
        sp(1, 3, 4.5, "W", "L", WT_CACHED_MISS), sp(1, 4.5, 5, "W", "K", WT_CACHED_HIT),
        round_ev(3, 6, 2), sp(1, 6, 8, "W", "L", WT_CACHED_MISS), round_ev(6, 9, 3),
    };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, sizeof evs / sizeof evs[0], WT_END_CLEAN, 9, NULL, 0);
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_REPEAT_MISS), 1);
    const wt_anomaly *a = first(&r, WT_AN_REPEAT_MISS);
    assert_non_null(a);
    assert_string_equal(a->label, "L");
    assert_float_equal(a->cost, 3.5, EPS);
    assert_int_equal(a->ts, S(3)); /* the first repeat */
    assert_non_null(strstr(a->text, "REPEATED MISS: W L missed 2 times in later rounds than its "
                                    "first load (3.50 s)"));
    done(&r);
    /* --repeat-miss 3: L's 2 repeats are not enough */
    o.repeat_miss = 3;
    go(&r, &o, evs, sizeof evs / sizeof evs[0], WT_END_CLEAN, 9, NULL, 0);
    assert_null(first(&r, WT_AN_REPEAT_MISS));
    done(&r);
}

/* Two runs of one program one after the other (the second starts after the first ended): a
 * MISS of the second run of a label the first loaded is a repeat; not so for two processes of
 * one run (they overlap: ranks), nor for another program. */
static void test_anomalies_repeated_miss_in_a_later_run(void **state)
{
    wt_event a1[] = { sp(1, 1, 2, "W", "L", WT_CACHED_MISS) };
    wt_event a2[] = { sp(1, 21, 23, "W", "L", WT_CACHED_MISS) };
    file_desc later[2] = { { 9, "/opt/bin/load --cold", NULL, 0, 10, a1, 1 },
                           { 10, "./load --warm", NULL, 20, 30, a2, 1 } };
    wt_anomaly_opts o = defaults();
    run r;
    go_files(&r, &o, later, 2);
    const wt_anomaly *a = first(&r, WT_AN_REPEAT_MISS);
    assert_non_null(a);
    assert_int_equal(a->pid, 10);
    assert_float_equal(a->cost, 2.0, EPS);
    assert_non_null(strstr(a->text, "REPEATED MISS in pid 10: W L missed again in a later run"));
    done(&r);
    /* given in the other order: the same (runs are ordered by time, not by argument) */
    file_desc swapped[2] = { later[1], later[0] };
    go_files(&r, &o, swapped, 2);
    assert_non_null(first(&r, WT_AN_REPEAT_MISS));
    assert_int_equal(first(&r, WT_AN_REPEAT_MISS)->pid, 10);
    done(&r);
    /* the second process starts at 5 s, before the first ended: one run, no repeat */
    wt_event b2[] = { sp(1, 6, 8, "W", "L", WT_CACHED_MISS) };
    file_desc ranks[2] = { { 9, "load", "0", 0, 10, a1, 1 }, { 10, "load", "1", 5, 12, b2, 1 } };
    go_files(&r, &o, ranks, 2);
    assert_null(first(&r, WT_AN_REPEAT_MISS));
    done(&r);
    /* another program later */
    file_desc other[2] = { { 9, "load", NULL, 0, 10, a1, 1 }, { 10, "convert", NULL, 20, 30, a2, 1 } };
    go_files(&r, &o, other, 2);
    assert_null(first(&r, WT_AN_REPEAT_MISS));
    done(&r);
}

/* In a run of several processes each line about a process names it, by rank when the trace
 * has the "rank" metadata; run-level lines (untracked) name none; one process: no names. */
static void test_anomalies_lines_name_their_process(void **state)
{
    wt_event e0[] = { sp(1, 1, 2, "W", "a", WT_CACHED_MISS) };
    wt_event e1[] = { sp(2, 1, 3, "W", "b", WT_CACHED_MISS) };
    file_desc f[2] = { { 9, "load", NULL, 0, 10, e0, 1 }, { 10, "load", "1", 0, 10, e1, 1 } };
    wt_anomaly_opts o = defaults();
    o.untracked_pct = 10;
    run r;
    go_files(&r, &o, f, 2);
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(r.an, &n);
    assert_int_equal(n, 3);
    assert_true(strncmp(v[0].text, "CACHE MISS in pid 9: W a (1.00 s)", 33) == 0);
    assert_string_equal(v[0].process, "pid 9");
    assert_true(strncmp(v[1].text, "CACHE MISS in rank 1 (pid 10): W b (2.00 s)", 43) == 0);
    assert_int_equal(v[2].kind, WT_AN_UNTRACKED);
    assert_true(strncmp(v[2].text, "UNTRACKED: ", 11) == 0);
    assert_null(v[2].process);
    done(&r);
    go_files(&r, &o, f, 1);
    v = wt_anomalies_list(r.an, &n);
    assert_true(strncmp(v[0].text, "CACHE MISS: W a", 15) == 0);
    assert_null(v[0].process);
    done(&r);
}

static void test_anomalies_hit_slower_than_median_miss(void **state)
{
    /* MISS 2 s; HIT 5 s is slower (by 3 s); HIT 1 s is not */
    const wt_event evs[] = { sp(1, 0, 2, "W", "L", WT_CACHED_MISS), sp(1, 2, 7, "W", "L", WT_CACHED_HIT) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 2, WT_END_CLEAN, 7, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_SLOW_HIT);
    assert_non_null(a);
    assert_float_equal(a->cost, 3.0, EPS);
    assert_int_equal(a->ts, S(2));
    done(&r);
    const wt_event fast[] = { sp(1, 0, 2, "W", "L", WT_CACHED_MISS), sp(1, 2, 3, "W", "L", WT_CACHED_HIT) };
    go(&r, &o, fast, 2, WT_END_CLEAN, 3, NULL, 0);
    assert_null(first(&r, WT_AN_SLOW_HIT));
    done(&r);
}

static void test_anomalies_span_far_slower_than_siblings(void **state)
{
    /* 1, 1, 1, 10 s: median 1, 10 > 5 x 1 fires; with 1, 1, 1, 4 nothing */
    const wt_event evs[] = { sp(1, 0, 1, "D", "s", 0), sp(1, 1, 2, "D", "s", 0),
                             sp(1, 2, 3, "D", "s", 0), sp(1, 3, 13, "D", "s", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 4, WT_END_CLEAN, 13, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_OUTLIER);
    assert_non_null(a);
    assert_int_equal(a->ts, S(3));
    assert_non_null(strstr(a->text, "D s took 10.0 s, 10.0x the median 1.00 s of its 4 siblings"));
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_OUTLIER), 1);
    done(&r);
    const wt_event mild[] = { sp(1, 0, 1, "D", "s", 0), sp(1, 1, 2, "D", "s", 0),
                              sp(1, 2, 3, "D", "s", 0), sp(1, 3, 7, "D", "s", 0) };
    go(&r, &o, mild, 4, WT_END_CLEAN, 7, NULL, 0);
    assert_null(first(&r, WT_AN_OUTLIER));
    done(&r);
}

/* The siblings' median is that of every span of the label, whatever their cache states: 200
 * HITs of 1-200 ms and 200 MISSes of 201-400 ms (interleaved), and one span of 5 s that
 * says neither: 401 durations, whose middle one is 201 ms. Each class holds under 255, so
 * the median is exact (a single sample of 255 of the 401 would rarely give 201 ms). */
static void test_anomalies_siblings_median_spans_every_cache_state(void **state)
{
    (void)state;
    enum { PAIRS = 200 };
    static wt_event evs[2 * PAIRS + 1];
    double t = 0.0;
    size_t n = 0;
    for (int i = 1; i <= PAIRS; i++) {
        const double hit = i * 1e-3, miss = (PAIRS + i) * 1e-3;
        evs[n++] = sp(1, t, t + hit, "W", "x", WT_CACHED_HIT);
        t += hit;
        evs[n++] = sp(1, t, t + miss, "W", "x", WT_CACHED_MISS);
        t += miss;
    }
    evs[n++] = sp(1, t, t + 5.0, "W", "x", WT_CACHED_UNKNOWN);
    t += 5.0;
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, n, WT_END_CLEAN, t, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_OUTLIER);
    assert_non_null(a);
    assert_non_null(
        strstr(a->text, "W x took 5.00 s, 24.9x the median 201 ms of its 401 siblings"));
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_OUTLIER), 1);
    done(&r);
}

static void test_anomalies_span_left_open(void **state)
{
    wt_event evs[] = { sp(3, 0, 2, "A", "a", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 1, WT_END_CLEAN, 2, NULL, 0);
    assert_null(first(&r, WT_AN_UNCLOSED));
    done(&r);
    evs[0].flags = WT_EVF_UNCLOSED;
    go(&r, &o, evs, 1, WT_END_CLEAN, 2, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_UNCLOSED);
    assert_non_null(a);
    assert_int_equal(a->tid, 3);
    done(&r);
}

static void test_anomalies_no_end_record_and_crash(void **state)
{
    const wt_event evs[] = { sp(1, 0, 2, "A", "a", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 1, WT_END_CLEAN, 2, NULL, 0);
    assert_null(first(&r, WT_AN_NO_END));
    done(&r);
    go(&r, &o, evs, 1, WT_END_NONE, 0, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_NO_END);
    assert_non_null(a);
    assert_non_null(strstr(a->text, "NO END RECORD: 't.wtrace'"));
    done(&r);
    go(&r, &o, evs, 1, WT_END_SIGNAL, 2, NULL, 0);
    a = first(&r, WT_AN_NO_END);
    assert_non_null(a);
    assert_non_null(strstr(a->text, "ended by signal 11 (SIGSEGV)"));
    done(&r);
}

static void test_anomalies_events_dropped(void **state)
{
    wt_event evs[] = { sp(1, 0, 2, "A", "a", 0), sp(1, 2, 3, "A", "a", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 2, WT_END_CLEAN, 3, NULL, 0);
    assert_null(first(&r, WT_AN_DROPPED));
    done(&r);
    memset(&evs[1], 0, sizeof evs[1]);
    evs[1].kind = WT_EV_DROPPED;
    evs[1].tid = 4;
    evs[1].ts = S(2);
    evs[1].count = 5;
    go(&r, &o, evs, 2, WT_END_CLEAN, 3, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_DROPPED);
    assert_non_null(a);
    assert_int_equal(a->tid, 4);
    assert_non_null(strstr(a->text, "dropped 5 events"));
    done(&r);
}

static void test_anomalies_budget_seconds_and_percent(void **state)
{
    /* wall 10: A 4 s (40%), B 1 s (10%) */
    const wt_event evs[] = { sp(1, 0, 4, "A", "a", 0), sp(1, 4, 5, "B", "b", 0) };
    const wt_budget budgets[] = { { "A", 3.0, 0, 0 }, { "B", 20.0, 1, 0 }, { "A", 30.0, 1, 0 },
                                  { "B", 1.0, 0, 0 } };
    wt_anomaly_opts o = defaults();
    o.budgets = budgets;
    o.n_budgets = 4;
    run r;
    go(&r, &o, evs, 2, WT_END_CLEAN, 10, NULL, 0);
    /* A over 3 s (by 1) and over 30% (by 1 s); B within 20% and within 1 s */
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_BUDGET), 2);
    const wt_anomaly *a = first(&r, WT_AN_BUDGET);
    assert_string_equal(a->category, "A");
    assert_float_equal(a->cost, 1.0, EPS);
    done(&r);
}

/* A parent category that wraps its child: P 0-10 s nests C 2-9 s; wall 10. P's self time is
 * 10 - 7 = 3 s, its inclusive time 10 s. A budget is on inclusive time unless it says self:
 * P=5 fires by 5 s; --budget-self P=5 does not; --budget-self P=2 fires by 1 s; C=50% (of
 * 10 s) fires by 2 s on its inclusive (= self) 7 s. */
static void test_anomalies_budget_inclusive_by_default_self_when_asked(void **state)
{
    wt_event evs[] = { sp(1, 2, 9, "C", "c", 0), sp(1, 0, 10, "P", "p", 0) };
    evs[0].depth = 1;
    const wt_budget budgets[] = { { "P", 5.0, 0, 0 }, { "P", 5.0, 0, 1 }, { "P", 2.0, 0, 1 },
                                  { "C", 50.0, 1, 0 } };
    wt_anomaly_opts o = defaults();
    o.budgets = budgets;
    o.n_budgets = 4;
    run r;
    go(&r, &o, evs, 2, WT_END_CLEAN, 10, NULL, 0);
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_BUDGET), 3);
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(r.an, &n);
    const char *want[] = {
        "BUDGET: P took 10.0 s inclusive, over its budget of 5.00 s (by 5.00 s)",
        "BUDGET: P took 3.00 s self, over its budget of 2.00 s (by 1.00 s)",
        "BUDGET: C took 7.00 s inclusive = 70.0% of wall, over its budget of 50% (by 2.00 s)",
    };
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].kind == WT_AN_BUDGET) {
            assert_true(k < 3);
            assert_string_equal(v[i].text, want[k]);
            k++;
        }
    assert_int_equal(k, 3);
    done(&r);
}

static void test_anomalies_baseline_growth(void **state)
{
    /* A: 2 s in the baseline, 3 s now (+50%, +1 s) fires; B: 2 s -> 2.2 s (+10%) does not */
    const wt_event old[] = { sp(1, 0, 2, "A", "a", 0), sp(1, 2, 4, "B", "b", 0) };
    const wt_event now[] = { sp(1, 0, 3, "A", "a", 0), sp(1, 3, 5.2, "B", "b", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, now, 2, WT_END_CLEAN, 6, old, 2);
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_BASELINE), 1);
    const wt_anomaly *a = first(&r, WT_AN_BASELINE);
    assert_string_equal(a->category, "A");
    assert_float_equal(a->cost, 1.0, EPS);
    assert_non_null(strstr(a->text, "+1.00 s, +50%"));
    done(&r);
}

static void test_anomalies_damaged_file(void **state)
{
    wt_anomaly_opts o = defaults();
    wt_anomalies *an;
    assert_int_equal(wt_anomalies_create(&o, &an), 0);
    wt_trace_info info;
    memset(&info, 0, sizeof info);
    assert_int_equal(wt_anomalies_file_begin(an, "d.wtrace", &info), 0);
    wt_anomalies_damage(an, 10, "'d.wtrace': at byte 10: trace is corrupted");
    wt_reader_stats st = { .end = WT_END_CLEAN, .errors = 1 };
    assert_int_equal(wt_anomalies_file_end(an, &st), 0);
    assert_int_equal(wt_anomalies_finish(an, NULL, NULL), 0);
    assert_int_equal(wt_anomalies_count(an, WT_AN_DAMAGED), 1); /* once per file */
    wt_anomalies_free(an);
}

/* BUG-4: dropped counts at INT64_MAX sum to INT64_MAX, not to a wrapped negative count. */
static void test_anomalies_dropped_counts_saturate(void **state)
{
    wt_event evs[3] = { sp(1, 0, 2, "A", "a", 0) };
    for (int i = 1; i < 3; i++) {
        memset(&evs[i], 0, sizeof evs[i]);
        evs[i].kind = WT_EV_DROPPED;
        evs[i].tid = 3;
        evs[i].ts = S(2);
        evs[i].count = INT64_MAX;
    }
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 3, WT_END_CLEAN, 3, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_DROPPED);
    assert_non_null(a);
    assert_non_null(strstr(a->text, "dropped 9223372036854775807 events"));
    assert_int_equal(wt_ledger_calc_result(r.lc)->dropped, INT64_MAX);
    done(&r);
}

/* BUG-5: past 16384 (category, label) keys and 4096 categories (docs/ANALYZE.md) new ones
 * fold, in the anomalies as in the ledger that runs alongside: a MISS of a new pair counts
 * under "(other labels)" of its category (its group, its median), one of a new category under
 * "(other categories)", and each listed MISS names its own label; a known pair keeps its
 * name. */
#define KEYS 16384
static char labels[KEYS][8];

static void test_anomalies_keys_past_the_bounds_fold_as_in_the_ledger(void **state)
{
    /* 4 categories c0..c3 x 4032 labels, 1 ms spans: the keys up to the reserve for small
     * categories (16,384 - 256, spanstat.h). Then MISSes of (c1, "fresh"), past the bound for
     * a category of 4032 keys, (c2, l7) known and (z, "fresh"): z is a category of its own (5
     * of 4096) with no key yet, so the reserve gives it one. 3 more MISSes of (c1, "other"),
     * one 1.1 s, make c1 the costliest group */
    enum { PER = (WT_MAX_LABEL_KEYS - WT_LABEL_KEY_RESERVE) / 4, N0 = 4 * PER };
    static const char *const cats[4] = { "c0", "c1", "c2", "c3" };
    static wt_event evs[KEYS + 6];
    for (int i = 0; i < 4096; i++)
        snprintf(labels[i], sizeof labels[i], "l%d", i);
    for (int i = 0; i < N0; i++) {
        evs[i] = sp(1, 0, 0, cats[i / PER], labels[i % PER], 0);
        evs[i].ts = S(0) + (int64_t)i * 1000000;
        evs[i].dur = 1000000;
    }
    double t = 20.0;
    const char *tail[6][2] = { { "c1", "fresh" }, { "c2", labels[7] }, { "z", "fresh" },
                               { "c1", "other" }, { "c1", "other" }, { "c1", "other" } };
    for (int i = 0; i < 6; i++, t += 1.0)
        evs[N0 + i] = sp(1, t, t + 1.0 + 0.1 * (i == 3), tail[i][0], tail[i][1], WT_CACHED_MISS);
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, N0 + 6, WT_END_CLEAN, 30, NULL, 0);
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(r.an, &n);
    /* the six misses first, in file order */
    assert_true(n >= 6);
    const char *want[6][2] = { { "c1", "fresh" }, { "c2", "l7" }, { "z", "fresh" },
                               { "c1", "other" }, { "c1", "other" }, { "c1", "other" } };
    for (int i = 0; i < 6; i++) {
        assert_int_equal(v[i].kind, WT_AN_MISS);
        assert_string_equal(v[i].category, want[i][0]);
        assert_string_equal(v[i].label, want[i][1]);
    }
    assert_non_null(strstr(v[0].text, "CACHE MISS: c1 fresh (1.00 s)"));
    /* no HIT of a folded label: the cost is up to the span's (no median of another label) */
    assert_non_null(strstr(v[0].text, "avoidable up to 1.00 s (no HIT to compare)"));
    /* one file without rounds: 3 MISSes of "other" are no repeat */
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_REPEAT_MISS), 0);
    /* grouped by category: c1's four misses ("fresh" and 3 x "other") are one group */
    size_t ng;
    const wt_anomaly_group *g = wt_anomalies_groups(r.an, &ng);
    assert_true(ng >= 1);
    assert_int_equal(g[0].kind, WT_AN_MISS);
    assert_string_equal(g[0].category, "c1");
    assert_int_equal(g[0].count, 4);
    /* the ledger folded the same 4 spans (not z's: the reserve) */
    const wt_ledger_result *l = wt_ledger_calc_result(r.lc);
    assert_int_equal(l->folded_labels, 4);
    assert_int_equal(l->folded_categories, 0);
    done(&r);

    /* 4096 categories k0.. (label l0, 1 ms), then a MISS of a new category: "(other
     * categories)", label l1 (4097 keys, under their bound) */
    for (int i = 0; i < 4096; i++) {
        evs[i] = sp(1, 0, 0, labels[i], labels[0], 0); /* the names l0.. serve as categories */
        evs[i].ts = S(0) + (int64_t)i * 1000000;
        evs[i].dur = 1000000;
    }
    evs[4096] = sp(1, 10, 11, "new", labels[1], WT_CACHED_MISS);
    go(&r, &o, evs, 4097, WT_END_CLEAN, 30, NULL, 0);
    const wt_anomaly *m = first(&r, WT_AN_MISS);
    assert_non_null(m);
    assert_string_equal(m->category, "(other categories)");
    assert_string_equal(m->label, "l1");
    assert_int_equal(wt_ledger_calc_result(r.lc)->folded_categories, 1);
    assert_int_equal(wt_ledger_calc_result(r.lc)->folded_labels, 0);
    done(&r);
}

/* 12 MISSes of category W, labels l0..l11 lasting 1..12 s (no HIT: each costs all of it, 78 s
 * in all), and one of X (0.5 s): W's group heads the list with its 10 most costly, l11 first;
 * X's lone miss is its own line. */
static void test_anomalies_grouped_by_rule_and_category(void **state)
{
    static char names[12][8];
    wt_event evs[13];
    double t = 0;
    for (int i = 0; i < 12; i++) {
        snprintf(names[i], sizeof names[i], "l%d", i);
        evs[i] = sp(1, t, t + i + 1, "W", names[i], WT_CACHED_MISS);
        t += i + 1;
    }
    evs[12] = sp(1, t, t + 0.5, "X", "x", WT_CACHED_MISS);
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 13, WT_END_CLEAN, t + 1, NULL, 0);
    size_t ng;
    const wt_anomaly_group *g = wt_anomalies_groups(r.an, &ng);
    assert_int_equal(ng, 2);
    assert_string_equal(g[0].category, "W");
    assert_int_equal(g[0].count, 12);
    assert_float_equal(g[0].cost, 78.0, 1e-6);
    assert_int_equal(g[0].n_items, 12);
    assert_string_equal(g[0].items[0]->label, "l11");
    assert_string_equal(g[0].items[11]->label, "l0");
    assert_string_equal(g[1].category, "X");
    int lb = 1;
    assert_float_equal(wt_anomalies_avoidable(r.an, &lb), 78.5, 1e-6);
    assert_int_equal(lb, 0);
    char **lines;
    size_t n;
    assert_int_equal(wt_anomalies_lines(r.an, 10, &lines, &n), 0);
    assert_int_equal(n, 12); /* heading, 10 members, X's line */
    assert_string_equal(lines[0], "12 CACHE MISS in W, 78.0 s avoidable in all; the 10 most costly:");
    assert_true(strncmp(lines[1], "  CACHE MISS: W l11 (12.0 s)", 28) == 0);
    assert_true(strncmp(lines[10], "  CACHE MISS: W l2 (3.00 s)", 27) == 0);
    assert_true(strncmp(lines[11], "CACHE MISS: X x (500 ms)", 24) == 0);
    wt_anomaly_lines_free(lines, n);
    /* every member */
    assert_int_equal(wt_anomalies_lines(r.an, 0, &lines, &n), 0);
    assert_int_equal(n, 14);
    assert_string_equal(lines[0], "12 CACHE MISS in W, 78.0 s avoidable in all; the 12 most costly:");
    wt_anomaly_lines_free(lines, n);
    done(&r);
}

/* A HIT 5 ms slower than the median MISS costs less than the default min cost, max(1% of the
 * 3 s wall, 10 ms) = 30 ms: counted below it and said, not listed; with min cost 0 it fires.
 * With a 100 s wall the default is 1 s: a HIT 0.5 s slower is below it too; with a 0.5 s
 * wall it is the floor, 10 ms. */
static void test_anomalies_min_cost_holds_back_cheap_findings(void **state)
{
    const wt_event evs[] = { sp(1, 0, 1, "W", "L", WT_CACHED_MISS),
                             sp(1, 1, 2.005, "W", "L", WT_CACHED_HIT) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 2, WT_END_CLEAN, 3, NULL, 0);
    assert_float_equal(wt_anomalies_min_cost(r.an), 0.030, 1e-12);
    assert_null(first(&r, WT_AN_SLOW_HIT));
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_SLOW_HIT), 0);
    assert_int_equal(wt_anomalies_below_min_cost(r.an, WT_AN_SLOW_HIT), 1);
    char **lines;
    size_t n;
    assert_int_equal(wt_anomalies_lines(r.an, 10, &lines, &n), 0);
    assert_string_equal(lines[n - 1], "1 SLOW HIT cost less than 30.0 ms each (the min cost): not shown");
    wt_anomaly_lines_free(lines, n);
    done(&r);
    o.min_cost_s = 0;
    go(&r, &o, evs, 2, WT_END_CLEAN, 3, NULL, 0);
    assert_non_null(first(&r, WT_AN_SLOW_HIT));
    assert_int_equal(wt_anomalies_below_min_cost(r.an, WT_AN_SLOW_HIT), 0);
    done(&r);
    o.min_cost_s = -1;
    const wt_event slow[] = { sp(1, 0, 1, "W", "L", WT_CACHED_MISS),
                              sp(1, 1, 2.5, "W", "L", WT_CACHED_HIT) };
    go(&r, &o, slow, 2, WT_END_CLEAN, 100, NULL, 0);
    assert_float_equal(wt_anomalies_min_cost(r.an), 1.0, 1e-12);
    assert_int_equal(wt_anomalies_below_min_cost(r.an, WT_AN_SLOW_HIT), 1);
    done(&r);
    const wt_event brief[] = { sp(1, 0, 0.1, "W", "L", WT_CACHED_MISS),
                               sp(1, 0.1, 0.2, "W", "L", WT_CACHED_HIT) };
    go(&r, &o, brief, 2, WT_END_CLEAN, 0.5, NULL, 0);
    assert_float_equal(wt_anomalies_min_cost(r.an), 0.010, 1e-12);
    done(&r);
}

/* Each gate exactly at its threshold: 3 MISSes (6 s each, the label's HIT 1 s: 5 s avoidable
 * each, 15 s in all) in a 30 s wall with 10 s untracked (33.3...%). */
static void test_anomalies_gates_fire_past_their_threshold(void **state)
{
    const wt_event evs[] = { sp(1, 0, 1, "W", "L", WT_CACHED_HIT), sp(1, 1, 7, "W", "L", WT_CACHED_MISS),
                             sp(1, 7, 13, "W", "L", WT_CACHED_MISS), sp(1, 13, 19, "W", "L", WT_CACHED_MISS),
                             sp(1, 19, 20, "A", "a", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 5, WT_END_CLEAN, 30, NULL, 0);
    const struct {
        wt_gate g;
        int fires;
    } cases[] = {
        { { WT_GATE_COUNT, WT_AN_MISS, 2 }, 1 },     { { WT_GATE_COUNT, WT_AN_MISS, 3 }, 0 },
        { { WT_GATE_COUNT, -1, 2 }, 1 },             { { WT_GATE_COUNT, -1, 3 }, 0 },
        { { WT_GATE_COUNT, WT_AN_BUDGET, 0 }, 0 },   { { WT_GATE_AVOIDABLE, -1, 15.0 }, 0 },
        { { WT_GATE_AVOIDABLE, -1, 14.999999 }, 1 }, { { WT_GATE_UNTRACKED_S, -1, 10.0 }, 0 },
        { { WT_GATE_UNTRACKED_S, -1, 9.999999 }, 1 },
        { { WT_GATE_UNTRACKED_PCT, -1, 100.0 / 3 }, 0 },
        { { WT_GATE_UNTRACKED_PCT, -1, 33.33333 }, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v;
        if (wt_anomalies_gate(r.an, &cases[i].g, &v) != cases[i].fires)
            fail_msg("gate %zu: measure %g, limit %g, want %d", i, v, cases[i].g.limit,
                     cases[i].fires);
    }
    double v;
    wt_anomalies_gate(r.an, &cases[0].g, &v);
    assert_float_equal(v, 3, 0);
    wt_anomalies_gate(r.an, &cases[5].g, &v);
    assert_float_equal(v, 15.0, 1e-9);
    done(&r);
}

/* A load shaped like a real one, judged as a person would: 2 processes (ranks 0 and 1, rank 1
 * started 0.5 s later, overlapping) load 300 tensors each, one label per tensor (t0..t599), on
 * 2 loader threads, from_pretrained > weight_load > convert + upload, in 2 rounds.
 * Round 1 is cold: weight_load of tensor i MISSes in 50 + i % 7 ms (its upload 3 ms). Round 2
 * is warm: weight_load HITs in 6 ms (upload 4 ms), but t17, t217 and t417 miss again as in
 * round 1. By hand:
 *   misses: 600 + 3; each costs its time minus the label's median HIT, 6 ms (the three
 *   repeats have no HIT of their label: the category's, also 6 ms):
 *   sum(50 + i % 7) = 30000 + 85 * 21 + 10 = 31795 ms, minus 600 * 6; plus 53 + 50 + 54 - 18
 *   = 28334 ms, "28.3 s"; the most costly 56 - 6 = 50 ms (i % 7 == 6), first in time t6.
 *   repeats: t17, t217, t417 once each, 157 ms.
 * Nothing else: no label has 3 spans (outliers), no HIT is slower than a MISS. */
#define LOAD_MS 1000000LL
static size_t load_events(wt_event *v, int first, int64_t t0, int64_t *end)
{
    size_t n = 0;
    int64_t t = t0;
    for (int round = 1; round <= 2; round++) {
        int64_t th[2] = { t + LOAD_MS, t + LOAD_MS }, rs = t;
        for (int i = first; i < first + 300; i++) {
            static char names[600][8];
            snprintf(names[i], sizeof names[i], "t%d", i);
            int w = i % 2, miss = round == 1 || i % 200 == 17;
            int64_t s = th[w], d = miss ? (50 + i % 7) * LOAD_MS : 6 * LOAD_MS;
            int64_t up = miss ? 3 * LOAD_MS : 4 * LOAD_MS;
            wt_event e;
            memset(&e, 0, sizeof e);
            e.kind = WT_EV_SPAN;
            e.tid = 10 + (uint64_t)w;
            e.count = 1;
            e.label = names[i];
            if (miss) {
                e.ts = s + LOAD_MS, e.dur = d - up - 2 * LOAD_MS, e.depth = 2;
                e.category = "convert";
                v[n++] = e;
            }
            e.ts = s + d - up - LOAD_MS, e.dur = up, e.depth = 2, e.category = "upload";
            v[n++] = e;
            e.ts = s, e.dur = d, e.depth = 1, e.category = "weight_load";
            e.cached = miss ? WT_CACHED_MISS : WT_CACHED_HIT;
            e.detail = miss ? "cache dir unset" : NULL;
            v[n++] = e;
            th[w] = s + d + LOAD_MS;
        }
        t = (th[0] > th[1] ? th[0] : th[1]) + LOAD_MS;
        v[n++] = (wt_event){ .kind = WT_EV_SPAN, .tid = 1, .ts = rs, .dur = t - rs, .count = 1,
                             .category = "from_pretrained", .label = "model" };
        v[n++] = (wt_event){ .kind = WT_EV_ROUND, .tid = 1, .ts = rs, .dur = t - rs,
                             .name = round % 2 ? "keep" : "skip", .count = round };
    }
    *end = t;
    return n;
}

static void test_anomalies_a_cold_then_warm_600_tensor_load(void **state)
{
    static wt_event e0[2 * 300 * 3 + 8], e1[2 * 300 * 3 + 8];
    int64_t end0, end1;
    size_t n0 = load_events(e0, 0, S(0.01), &end0), n1 = load_events(e1, 300, S(0.5), &end1);
    double w0 = (double)(end0 - S(0)) * 1e-9 + 0.1, w1 = (double)(end1 - S(0)) * 1e-9 + 0.1;
    file_desc f[2] = { { 100, "load", "0", 0, w0, e0, n0 }, { 200, "load", "1", 0.49, w1, e1, n1 } };
    wt_anomaly_opts o = defaults();
    run r;
    go_files(&r, &o, f, 2);
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_MISS), 603);
    int lb;
    assert_float_equal(wt_anomalies_avoidable(r.an, &lb), 28.334, 1e-9);
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_REPEAT_MISS), 3);
    size_t n_all;
    wt_anomalies_list(r.an, &n_all);
    assert_int_equal(n_all, 603 + 3);
    char **lines;
    size_t n;
    assert_int_equal(wt_anomalies_lines(r.an, WT_ANOMALY_TOP, &lines, &n), 0);
    /* 606 lines become 15 */
    assert_int_equal(n, 1 + 10 + 1 + 3);
    assert_string_equal(lines[0], "603 CACHE MISS in weight_load, 28.3 s avoidable in all; the 10 most costly:");
    assert_true(strncmp(lines[1], "  CACHE MISS in rank 0 (pid 100): weight_load t6 (56.0 ms) \xe2\x80\x94 "
                                  "cache dir unset; avoidable 50.0 ms (median HIT of the label 6.00 ms)", 117) == 0);
    for (size_t i = 1; i <= 10; i++)
        assert_non_null(strstr(lines[i], "avoidable 50.0 ms"));
    assert_string_equal(lines[11], "3 REPEATED MISS in weight_load, 157 ms lost in all; the 3 most costly:");
    /* most costly first: t417 (54 ms, of rank 1), t17 (53 ms), t217 (50 ms) */
    assert_non_null(strstr(lines[12], "REPEATED MISS in rank 1 (pid 200): weight_load t417 missed "
                                      "again in a later round than its first load (54.0 ms)"));
    assert_non_null(strstr(lines[13], "REPEATED MISS in rank 0 (pid 100): weight_load t17 missed "
                                      "again in a later round than its first load (53.0 ms)"));
    assert_non_null(strstr(lines[14], "weight_load t217"));
    wt_anomaly_lines_free(lines, n);
    done(&r);
}

/* 10,050 MISSes in A fill the list (10,000 of them listed); 30 in B come past it; the run is
 * half untracked. Each rule has a list of its own and the run's UNTRACKED line is always
 * listed: with one list for all, the UNTRACKED finding was counted but never shown (its group
 * read "1 UNTRACKED; the first 0:"). The MISSes past the list are kept by their keys (each of
 * these labels has one), so B, all of whose MISSes came past it, still shows its most costly,
 * and every total is exact (no HIT: a MISS costs all it took). */
static void test_anomalies_a_flood_of_misses_hides_no_other_finding(void **state)
{
    enum { NA = WT_ANOMALY_MAX_LIST + 50, NB = 30 };
    static char names[NA + NB][8];
    static wt_event evs[NA + NB];
    double t = 0;
    for (int i = 0; i < NA + NB; i++) {
        snprintf(names[i], sizeof names[i], "t%d", i);
        const double d = i < NA ? 0.010 : 0.020;
        evs[i] = sp(1, t, t + d, i < NA ? "A" : "B", names[i], WT_CACHED_MISS);
        t += d;
    }
    wt_anomaly_opts o = defaults();
    o.untracked_pct = 10;
    run r;
    go(&r, &o, evs, NA + NB, WT_END_CLEAN, 2 * t, NULL, 0); /* tracked t of 2t: 50% */
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_MISS), NA + NB);
    /* listed: the first 10,000 and the 10 most costly of each category past them */
    assert_int_equal(wt_anomalies_omitted(r.an), 50 + NB - 20);
    int lower;
    assert_float_equal(wt_anomalies_avoidable(r.an, &lower), NA * 0.010 + NB * 0.020, 1e-6);
    assert_false(lower);
    const wt_anomaly *u = first(&r, WT_AN_UNTRACKED);
    assert_non_null(u);
    assert_float_equal(u->seconds, t, 1e-6);
    char **lines;
    size_t n;
    assert_int_equal(wt_anomalies_lines(r.an, 10, &lines, &n), 0);
    assert_int_equal(n, 1 + 10 + 1 + 10 + 1 + 1);
    /* A's 100.5 s (rounded up: 10,050 x 0.010 in binary is over it) */
    assert_string_equal(lines[0], "10050 CACHE MISS in A, 101 s avoidable in all; the 10 most costly:");
    assert_true(strncmp(lines[1], "  CACHE MISS: A t0 (10.0 ms)", 28) == 0);
    assert_string_equal(lines[11], "30 CACHE MISS in B, 600 ms avoidable in all; the 10 most costly:");
    assert_true(strncmp(lines[12], "  CACHE MISS: B t10050 (20.0 ms)", 32) == 0);
    assert_true(strncmp(lines[21], "  CACHE MISS: B t10059 (20.0 ms)", 32) == 0);
    assert_true(strncmp(lines[22], "UNTRACKED: ", 11) == 0);
    assert_string_equal(lines[23], "60 more found but not listed (past the 10000 a rule lists)");
    wt_anomaly_lines_free(lines, n);
    done(&r);
}

/* A category's most costly MISSes are those of the whole run, not of the list's first 10,000:
 * A fills the list with 10,000 MISSes of 10 ms, then misses "a.big" for 50 ms. B comes after:
 * labels b0..b11, bi missing 3 times for 10i + 1, 2 and 3 ms, with a label bh of 20 HITs of
 * 0.5 ms (the category's median HIT, which the bi, without HITs of their own, are held
 * against). By hand: B's 10 most costly are b11's, b10's, b9's and b8's 83 ms MISS (113 .. 83
 * ms, less 0.5 avoidable), and B's avoidable is sum(10i + j) - 36 x 0.5 = 2052 - 18 ms, exact.
 * C: c0 with 20 HITs of 0.5 ms, then 15 MISSes of 1 .. 15 ms in rising order (each later one
 * takes a kept one's place); a key keeps its 4 slowest, so C can list only c0's 15 .. 12 ms,
 * and as c0 had more, its heading says they are the most costly of the listed ones. */
static void test_anomalies_most_costly_misses_of_the_whole_run(void **state)
{
    enum { NA = WT_ANOMALY_MAX_LIST, NL = 12, NH = 20, NC = 15 };
    static char names[NA][8], bnames[NL][4];
    static wt_event evs[NA + 1 + NH + NL * 3 + NH + NC];
    size_t m = 0;
    double t = 0;
    for (int i = 0; i < NA; i++, t += 0.010) {
        snprintf(names[i], sizeof names[i], "a%d", i);
        evs[m++] = sp(1, t, t + 0.010, "A", names[i], WT_CACHED_MISS);
    }
    evs[m++] = sp(1, t, t + 0.050, "A", "a.big", WT_CACHED_MISS);
    t += 0.050;
    for (int i = 0; i < NH; i++, t += 0.0005)
        evs[m++] = sp(1, t, t + 0.0005, "B", "bh", WT_CACHED_HIT);
    for (int j = 1; j <= 3; j++)
        for (int i = 0; i < NL; i++) {
            snprintf(bnames[i], sizeof bnames[i], "b%d", i);
            const double d = 0.001 * (10 * i + j);
            evs[m++] = sp(1, t, t + d, "B", bnames[i], WT_CACHED_MISS);
            t += d;
        }
    for (int i = 0; i < NH; i++, t += 0.0005)
        evs[m++] = sp(1, t, t + 0.0005, "C", "c0", WT_CACHED_HIT);
    for (int j = 1; j <= NC; j++, t += 0.001 * j)
        evs[m++] = sp(1, t, t + 0.001 * j, "C", "c0", WT_CACHED_MISS);
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, m, WT_END_CLEAN, t, NULL, 0);
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_MISS), NA + 1 + NL * 3 + NC);
    int lower;
    assert_float_equal(wt_anomalies_avoidable(r.an, &lower),
                       NA * 0.010 + 0.050 + 2.034 + (0.120 - NC * 0.0005), 1e-6);
    assert_true(lower); /* C's MISSes c0 did not keep */
    size_t ng;
    const wt_anomaly_group *g = wt_anomalies_groups(r.an, &ng);
    assert_int_equal(ng, 3);
    assert_string_equal(g[0].category, "A");
    assert_int_equal(g[0].count, NA + 1);
    assert_float_equal(g[0].cost, NA * 0.010 + 0.050, 1e-6);
    assert_string_equal(g[0].items[0]->label, "a.big");
    assert_float_equal(g[0].items[0]->cost, 0.050, 1e-9);
    assert_string_equal(g[1].category, "B");
    assert_int_equal(g[1].count, NL * 3);
    assert_float_equal(g[1].cost, 2.034, 1e-6);
    assert_false(g[1].cost_lower_bound);
    assert_true(g[1].ranked);
    assert_int_equal(g[1].n_items, 10);
    static const int want[10] = { 113, 112, 111, 103, 102, 101, 93, 92, 91, 83 };
    for (size_t i = 0; i < 10; i++) {
        assert_int_equal(g[1].items[i]->dur, S(0.001 * want[i]) - S(0));
        assert_float_equal(g[1].items[i]->cost, 0.001 * want[i] - 0.0005, 1e-9);
    }
    assert_string_equal(g[1].items[0]->label, "b11");
    assert_string_equal(g[1].items[9]->label, "b8");
    assert_string_equal(g[2].category, "C");
    assert_int_equal(g[2].count, NC);
    assert_false(g[2].ranked);
    assert_true(g[2].cost_lower_bound);
    assert_int_equal(g[2].n_items, 4);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(g[2].items[i]->dur, S(0.001 * (15 - (int)i)) - S(0));
    char **lines;
    size_t n;
    assert_int_equal(wt_anomalies_lines(r.an, 10, &lines, &n), 0);
    assert_string_equal(lines[0], "10001 CACHE MISS in A, 100 s avoidable in all; the 10 most costly:");
    assert_true(strncmp(lines[1], "  CACHE MISS: A a.big (50.0 ms)", 31) == 0);
    assert_string_equal(lines[11], "36 CACHE MISS in B, 2.03 s avoidable in all; the 10 most costly:");
    assert_true(strncmp(lines[12], "  CACHE MISS: B b11 (113 ms)", 28) == 0);
    assert_non_null(strstr(lines[12], "avoidable 112 ms (median HIT of the category 0.500 ms)"));
    assert_true(strncmp(lines[22], "15 CACHE MISS in C, at least ", 29) == 0);
    assert_non_null(strstr(lines[22], "; the 4 most costly of the 4 listed:"));
    assert_true(strncmp(lines[23], "  CACHE MISS: C c0 (15.0 ms)", 28) == 0);
    assert_non_null(strstr(lines[23], "avoidable 14.5 ms (median HIT of the label 0.500 ms)"));
    wt_anomaly_lines_free(lines, n);
    done(&r);
}

/* Past the key bound the labels fold into one key per category, which stands for every label
 * past it: a model of unique tensor labels has all its late MISSes there, so that key keeps
 * 10, not 4. 16,484 labels of one 1 ms MISS each, then 12 labels big0..big11 missing for 10 ..
 * 21 ms (folded, past the list): the category's 10 most costly are big11 .. big2, each named
 * by its own label, and the heading vouches for them. */
static void test_anomalies_folded_labels_keep_their_ten_most_costly(void **state)
{
    enum { NK = WT_MAX_LABEL_KEYS + 100, NB = 12 };
    static char names[NK + NB][12];
    static wt_event evs[NK + NB];
    double t = 0;
    for (int i = 0; i < NK + NB; i++) {
        const double d = i < NK ? 0.001 : 0.001 * (10 + i - NK);
        snprintf(names[i], sizeof names[i], i < NK ? "t%d" : "big%d", i < NK ? i : i - NK);
        evs[i] = sp(1, t, t + d, "W", names[i], WT_CACHED_MISS);
        t += d;
    }
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, NK + NB, WT_END_CLEAN, t, NULL, 0);
    size_t ng;
    const wt_anomaly_group *g = wt_anomalies_groups(r.an, &ng);
    assert_int_equal(ng, 1);
    assert_int_equal(g[0].count, NK + NB);
    assert_true(g[0].ranked);
    for (size_t i = 0; i < 10; i++) {
        char want[12];
        snprintf(want, sizeof want, "big%d", NB - 1 - (int)i);
        assert_string_equal(g[0].items[i]->label, want);
        assert_float_equal(g[0].items[i]->seconds, 0.001 * (10 + NB - 1 - (int)i), 1e-9);
    }
    char **lines;
    size_t n;
    assert_int_equal(wt_anomalies_lines(r.an, 10, &lines, &n), 0);
    assert_non_null(strstr(lines[0], " avoidable in all; the 10 most costly:"));
    assert_true(strncmp(lines[1], "  CACHE MISS: W big11 (21.0 ms)", 31) == 0);
    wt_anomaly_lines_free(lines, n);
    done(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anomalies_miss_cost_against_median_hit_of_label),
        cmocka_unit_test(test_anomalies_miss_after_many_hits_costs_against_all_of_them),
        cmocka_unit_test(test_anomalies_no_miss_no_anomaly),
        cmocka_unit_test(test_anomalies_untracked_over_threshold),
        cmocka_unit_test(test_anomalies_shared_label_in_one_round_is_not_a_repeat),
        cmocka_unit_test(test_anomalies_repeated_miss_in_later_rounds),
        cmocka_unit_test(test_anomalies_repeated_miss_in_a_later_run),
        cmocka_unit_test(test_anomalies_lines_name_their_process),
        cmocka_unit_test(test_anomalies_hit_slower_than_median_miss),
        cmocka_unit_test(test_anomalies_span_far_slower_than_siblings),
        cmocka_unit_test(test_anomalies_siblings_median_spans_every_cache_state),
        cmocka_unit_test(test_anomalies_span_left_open),
        cmocka_unit_test(test_anomalies_no_end_record_and_crash),
        cmocka_unit_test(test_anomalies_events_dropped),
        cmocka_unit_test(test_anomalies_budget_seconds_and_percent),
        cmocka_unit_test(test_anomalies_budget_inclusive_by_default_self_when_asked),
        cmocka_unit_test(test_anomalies_baseline_growth),
        cmocka_unit_test(test_anomalies_damaged_file),
        cmocka_unit_test(test_anomalies_dropped_counts_saturate),
        cmocka_unit_test(test_anomalies_keys_past_the_bounds_fold_as_in_the_ledger),
        cmocka_unit_test(test_anomalies_grouped_by_rule_and_category),
        cmocka_unit_test(test_anomalies_min_cost_holds_back_cheap_findings),
        cmocka_unit_test(test_anomalies_gates_fire_past_their_threshold),
        cmocka_unit_test(test_anomalies_a_cold_then_warm_600_tensor_load),
        cmocka_unit_test(test_anomalies_a_flood_of_misses_hides_no_other_finding),
        cmocka_unit_test(test_anomalies_most_costly_misses_of_the_whole_run),
        cmocka_unit_test(test_anomalies_folded_labels_keep_their_ten_most_costly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
