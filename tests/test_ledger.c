/* The ledger arithmetic on hand-built event lists, with answers computed by hand (in the
 * comments): the seed's flat table byte for byte, nesting counted once, overlapping threads,
 * several processes, unclosed spans, a truncated trace, late events and hostile depths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "ledger.h"
#include "procname.h"
#include "tracebuild.h"

/* Times in seconds after a base of 100 s: a process start of 0 means "not known" to the
 * ledger (no real CLOCK_MONOTONIC reads 0), so the tests keep clear of it. */
#define S(x) ((int64_t)(((x) + 100.0) * 1e9 + 0.5))
#define EPS 1e-9

static wt_event span(uint64_t pid, uint64_t tid, double s, double e, uint32_t depth,
                     const char *cat, const char *label, wt_cached cached)
{
    wt_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = WT_EV_SPAN;
    ev.pid = pid;
    ev.tid = tid;
    ev.ts = S(s);
    ev.dur = S(e) - S(s);
    ev.depth = depth;
    ev.category = cat;
    ev.label = label;
    ev.cached = cached;
    ev.count = 1;
    return ev;
}

static wt_event end_ev(uint64_t pid, double t)
{
    wt_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = WT_EV_END;
    ev.pid = pid;
    ev.ts = S(t);
    ev.end = WT_END_CLEAN;
    return ev;
}

/* One file of process `pid` started at `start` seconds. */
static void feed(wt_ledger_calc *lc, const char *path, uint64_t pid, double start,
                 const wt_event *evs, size_t n)
{
    wt_trace_info info;
    memset(&info, 0, sizeof info);
    info.pid = pid;
    info.process_start_ns = S(start);
    info.open_ns = S(start);
    assert_int_equal(wt_ledger_calc_file_begin(lc, path, &info), 0);
    wt_reader_stats st;
    memset(&st, 0, sizeof st);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(wt_ledger_calc_event(lc, &evs[i]), 0);
        if (evs[i].kind == WT_EV_END)
            st.end = evs[i].end;
    }
    assert_int_equal(wt_ledger_calc_file_end(lc, &st), 0);
}

static const wt_ledger_cat *cat(const wt_ledger_result *r, const char *name)
{
    for (size_t i = 0; i < r->n_cats; i++)
        if (!strcmp(r->cats[i].name, name))
            return &r->cats[i];
    fail_msg("no category %s", name);
    return NULL;
}

/* Out of line: inlined, GCC 12 -O2 takes strstr() on its result for a pointer to its local
 * `buf` (-Wdangling-pointer, a false positive). */
static __attribute__((noinline)) char *render(const wt_ledger_calc *lc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(wt_ledger_calc_render_text(lc, f, NULL, 0), 0);
    fclose(f);
    return buf;
}

/* A phase 0-10 s nesting a weight load 2-5 s that missed; the process ran 0-12 s. */
static const wt_event nested[] = {
    { .kind = WT_EV_SPAN, .pid = 1, .tid = 1, .ts = 102000000000, .dur = 3000000000, .depth = 1,
      .category = "weight_load", .label = "L", .detail = "D", .cached = WT_CACHED_MISS, .count = 1 },
    { .kind = WT_EV_SPAN, .pid = 1, .tid = 1, .ts = 100000000000, .dur = 10000000000, .depth = 0,
      .category = "phase", .label = "run", .count = 1 },
    { .kind = WT_EV_END, .pid = 1, .ts = 112000000000, .end = WT_END_CLEAN },
};

static void test_ledger_lone_top_spans_share_wall_as_trees_do(void **state)
{
    /* Top-level spans with nothing under them, which the per-span path settles in one step
     * once their category's reservoir is full (255 spans), mixed with overlap across threads
     * and one real tree. First 300 spans of X on the main thread (9), 1/64 s every 1/32 s
     * (exact in binary): 300/64 = 4.6875 s, all fresh. Then, worker thread 10 for Y:
     *   X [10,11) fresh 1; X [12,14) fresh 2; Y [13,16) fresh [14,16) = 2; Y [17,18) fresh 1;
     *   X [15,17) fresh [16,17) = 1; X [19,20) fresh 1; tree X [20.5,23) with child Z [21,22):
     *   fresh 2.5, X self 1.5 and Z self 1 share it as 1.5 and 1; X [24,25) fresh 1.
     * X: seconds 4.6875+1+2+1+1+1.5+1 = 12.1875, self 4.6875+8.5 = 13.1875, inclusive
     * 4.6875+9.5 = 14.1875; Y: seconds 3, self 4; Z: 1. covered 4.6875+11.5 = 16.1875,
     * wall 26, untracked 9.8125. */
    wt_event evs[310];
    size_t n = 0;
    for (int i = 0; i < 300; i++)
        evs[n++] = span(9, 9, i / 32.0, i / 32.0 + 1 / 64.0, 0, "X", "a", WT_CACHED_HIT);
    const wt_event rest[] = {
        span(9, 9, 10, 11, 0, "X", "a", WT_CACHED_HIT),
        span(9, 9, 12, 14, 0, "X", "a", WT_CACHED_HIT),
        span(9, 10, 13, 16, 0, "Y", "b", WT_CACHED_HIT),
        span(9, 10, 17, 18, 0, "Y", "b", WT_CACHED_HIT),
        span(9, 9, 15, 17, 0, "X", "a", WT_CACHED_HIT),
        span(9, 9, 19, 20, 0, "X", "a", WT_CACHED_HIT),
        span(9, 9, 21, 22, 1, "Z", "c", WT_CACHED_HIT),
        span(9, 9, 20.5, 23, 0, "X", "a", WT_CACHED_HIT),
        span(9, 9, 24, 25, 0, "X", "a", WT_CACHED_HIT),
        end_ev(9, 26),
    };
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        evs[n++] = rest[i];
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a.wtrace", 9, 0.0, evs, n);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_int_equal(r->n_cats, 3);
    assert_string_equal(r->cats[0].name, "X");
    assert_string_equal(r->cats[1].name, "Y");
    assert_string_equal(r->cats[2].name, "Z");
    assert_float_equal(cat(r, "X")->seconds, 12.1875, EPS);
    assert_float_equal(cat(r, "X")->self_seconds, 13.1875, EPS);
    assert_float_equal(cat(r, "X")->inclusive, 14.1875, EPS);
    assert_int_equal(cat(r, "X")->spans, 306);
    assert_float_equal(cat(r, "Y")->seconds, 3.0, EPS);
    assert_float_equal(cat(r, "Y")->self_seconds, 4.0, EPS);
    assert_float_equal(cat(r, "Y")->inclusive, 4.0, EPS);
    assert_float_equal(cat(r, "Z")->seconds, 1.0, EPS);
    assert_float_equal(r->covered, 16.1875, EPS);
    assert_float_equal(r->wall, 26.0, EPS);
    assert_float_equal(r->untracked, 9.8125, EPS);
    assert_int_equal(r->n_threads, 2);
    wt_ledger_calc_free(lc);
}

static void test_ledger_inclusive_of_many_loads_in_phases(void **state)
{
    /* 40 phases P [4k, 4k+3), each nesting 9 loads W [4k + j/4, 4k + j/4 + 1/8) (exact in
     * binary): 360 loads, so most are summed by the per-span path once W's reservoir is
     * full. W inclusive = self = 360/8 = 45 s; P inclusive 40 * 3 = 120 s, self 120 - 45 =
     * 75 s; covered 120 s of a wall of 160 s. */
    wt_event evs[401];
    size_t n = 0;
    for (int k = 0; k < 40; k++) {
        for (int j = 0; j < 9; j++)
            evs[n++] = span(9, 9, 4 * k + j / 4.0, 4 * k + j / 4.0 + 1 / 8.0, 1, "W", "w",
                            WT_CACHED_HIT);
        evs[n++] = span(9, 9, 4 * k, 4 * k + 3, 0, "P", "p", WT_CACHED_UNKNOWN);
    }
    evs[n++] = end_ev(9, 160);
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a.wtrace", 9, 0.0, evs, n);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(cat(r, "W")->inclusive, 45.0, EPS);
    assert_float_equal(cat(r, "W")->self_seconds, 45.0, EPS);
    assert_float_equal(cat(r, "P")->inclusive, 120.0, EPS);
    assert_float_equal(cat(r, "P")->self_seconds, 75.0, EPS);
    assert_float_equal(r->covered, 120.0, EPS);
    assert_float_equal(r->wall, 160.0, EPS);
    wt_ledger_calc_free(lc);
}

static void test_ledger_flat_is_the_seeds_table_with_double_count_and_clamp(void **state)
{
    wt_ledger_opts o = { .flat = 1, .title = "t" };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(&o, &lc), 0);
    feed(lc, "a.wtrace", 1, 0.0, nested, 3);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    /* seed: tracked = 3 + 10 = 13 > wall 12, so wall = 13 and untracked = 0;
     * 3/13 = 23.08%, 10/13 = 76.92%; notes "0 HIT / 1 MISS" and "" (3 spaces before) */
    const char *want =
        "\n"
        "==========================================================================\n"
        "WALL-TIME LEDGER \xc2\xb7 t\n"
        "--------------------------------------------------------------------------\n"
        "category             seconds   %wall   count   notes\n"
        "weight_load              3.0   23.1%       1   0 HIT / 1 MISS\n"
        "phase                   10.0   76.9%       1   \n"
        "untracked                0.0    0.0%\n"
        "--------------------------------------------------------------------------\n"
        "TOTAL (tracked)         13.0  100.0%\n"
        "TOTAL (wall)            13.0  100.0%\n"
        "\n"
        "ANOMALIES:\n"
        "  - CACHE MISS: weight_load L (3.0s) \xe2\x80\x94 D\n"
        "==========================================================================\n";
    char *got = render(lc);
    assert_string_equal(got, want);
    free(got);
    wt_ledger_calc_free(lc);
}

static void test_ledger_flat_without_misses_says_none_and_untracked(void **state)
{
    wt_ledger_opts o = { .flat = 1, .title = "x" };
    wt_ledger_calc *lc;
    const wt_event evs[] = { span(1, 1, 1.0, 3.5, 0, "gen", "g", WT_CACHED_HIT), end_ev(1, 10.0) };
    assert_int_equal(wt_ledger_calc_create(&o, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 2);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    /* wall 10, gen 2.5 = 25%, untracked 7.5 = 75% */
    const char *want =
        "\n"
        "==========================================================================\n"
        "WALL-TIME LEDGER \xc2\xb7 x\n"
        "--------------------------------------------------------------------------\n"
        "category             seconds   %wall   count   notes\n"
        "gen                      2.5   25.0%       1   1 HIT / 0 MISS\n"
        "untracked                7.5   75.0%\n"
        "--------------------------------------------------------------------------\n"
        "TOTAL (tracked)          2.5   25.0%\n"
        "TOTAL (wall)            10.0  100.0%\n"
        "\n"
        "ANOMALIES: none\n"
        "==========================================================================\n";
    char *got = render(lc);
    assert_string_equal(got, want);
    free(got);
    wt_ledger_calc_free(lc);
}

/* The file delivers thread 2's chunk (prefetch, ended at 3 s) before thread 1's (setup, ended
 * at 1 s): rows follow the time each category's first span ended, as the seed's record() calls
 * came, not the order of the file. */
static void test_ledger_rows_in_the_order_first_spans_ended(void **state)
{
    const wt_event evs[] = {
        span(7, 2, 2.0, 3.0, 0, "prefetch", "read", WT_CACHED_UNKNOWN),
        span(7, 1, 0.0, 1.0, 0, "setup", "open", WT_CACHED_UNKNOWN),
        span(7, 1, 1.0, 4.0, 0, "weight_load", "w", WT_CACHED_HIT),
        end_ev(7, 5.0),
    };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "order.wtrace", 7, 0.0, evs, 4);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_int_equal(r->n_cats, 3);
    assert_string_equal(r->cats[0].name, "setup");
    assert_string_equal(r->cats[1].name, "prefetch");
    assert_string_equal(r->cats[2].name, "weight_load");
    assert_true(fabs(r->cats[0].flat_seconds - 1.0) < EPS);
    assert_true(fabs(r->cats[2].flat_seconds - 3.0) < EPS);
    wt_ledger_calc_free(lc);
}

static void test_ledger_nested_spans_counted_once(void **state)
{
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a.wtrace", 1, 0.0, nested, 3);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    /* phase self = 10 - 3 = 7; weight_load 3; tracked 10 of wall 12 */
    assert_float_equal(cat(r, "phase")->seconds, 7.0, EPS);
    assert_float_equal(cat(r, "weight_load")->seconds, 3.0, EPS);
    assert_float_equal(cat(r, "phase")->flat_seconds, 10.0, EPS);
    assert_float_equal(r->wall, 12.0, EPS);
    assert_float_equal(r->tracked, 10.0, EPS);
    assert_float_equal(r->untracked, 2.0, EPS);
    assert_int_equal(r->n_cats, 2);
    assert_string_equal(r->cats[0].name, "weight_load"); /* first recorded first */
    wt_ledger_calc_free(lc);
}

static void test_ledger_deep_nesting_self_times(void **state)
{
    /* a 0-10 > b 1-9 > c 2-4 and c 5-6: c 3, b 8-3 = 5, a 10-8 = 2 */
    const wt_event evs[] = {
        span(1, 1, 2, 4, 2, "c", "", 0), span(1, 1, 5, 6, 2, "c", "", 0),
        span(1, 1, 1, 9, 1, "b", "", 0), span(1, 1, 0, 10, 0, "a", "", 0), end_ev(1, 10),
    };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 5);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(cat(r, "a")->seconds, 2.0, EPS);
    assert_float_equal(cat(r, "b")->seconds, 5.0, EPS);
    assert_float_equal(cat(r, "c")->seconds, 3.0, EPS);
    assert_float_equal(r->untracked, 0.0, EPS);
    wt_ledger_calc_free(lc);
}

static void test_ledger_two_threads_overlapping_reconcile(void **state)
{
    /* thread 1: A 0-4 arrives first and keeps 4 s; thread 2: B 2-6 gets only 4-6 = 2 s.
     * covered 6, busy 8, saved 2, wall 10, untracked 4 */
    const wt_event evs[] = { span(1, 1, 0, 4, 0, "A", "", 0), span(1, 2, 2, 6, 0, "B", "", 0),
                             end_ev(1, 10) };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 3);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(cat(r, "A")->seconds, 4.0, EPS);
    assert_float_equal(cat(r, "B")->seconds, 2.0, EPS);
    assert_float_equal(r->covered, 6.0, EPS);
    assert_float_equal(r->busy, 8.0, EPS);
    assert_float_equal(r->parallel_saved, 2.0, EPS);
    assert_float_equal(r->tracked + r->untracked, r->wall, EPS);
    assert_float_equal(r->untracked, 4.0, EPS);
    assert_int_equal(r->n_threads, 2);
    assert_float_equal(r->threads[1].busy, 4.0, EPS);
    wt_ledger_calc_free(lc);
}

/* Threads arrive in the order of their first delivered span, which is the order the
 * recorder's writer happened to drain them; the result lists them by file (as given), each
 * file's main thread first, then by tid, each row with its own figures. Two processes: pid 7
 * (file a) whose threads arrive 12, 9, 7, and pid 3 (file b) whose arrive 5, 3. */
static void test_ledger_threads_listed_by_file_main_first_then_tid(void **state)
{
    (void)state;
    const wt_event a[] = { span(7, 12, 0, 1, 0, "A", "", 0), span(7, 9, 0, 2, 0, "A", "", 0),
                           span(7, 7, 0, 3, 0, "A", "", 0), end_ev(7, 4) };
    const wt_event b[] = { span(3, 5, 0, 0.5, 0, "A", "", 0), span(3, 3, 0, 1.5, 0, "A", "", 0),
                           end_ev(3, 4) };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a", 7, 0.0, a, 4);
    feed(lc, "b", 3, 0.0, b, 3);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    const uint64_t pid[] = { 7, 7, 7, 3, 3 }, tid[] = { 7, 9, 12, 3, 5 };
    const double busy[] = { 3.0, 2.0, 1.0, 1.5, 0.5 };
    assert_int_equal(r->n_threads, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(r->threads[i].pid, pid[i]);
        assert_int_equal(r->threads[i].tid, tid[i]);
        assert_float_equal(r->threads[i].busy, busy[i], EPS);
        assert_int_equal(r->threads[i].spans, 1);
    }
    wt_ledger_calc_free(lc);
}

static void test_ledger_overlap_shared_within_a_tree_by_self_time(void **state)
{
    /* thread 1: X 0-4. thread 2: P 2-6 nesting C 4-5. P's tree is new on 4-6 = 2 s of its
     * 4 s, so f = 0.5: P self 3 -> 1.5, C self 1 -> 0.5. rows 4 + 1.5 + 0.5 = 6 = covered */
    const wt_event evs[] = { span(1, 1, 0, 4, 0, "X", "", 0), span(1, 2, 4, 5, 1, "C", "", 0),
                             span(1, 2, 2, 6, 0, "P", "", 0), end_ev(1, 6) };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 4);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(cat(r, "X")->seconds, 4.0, EPS);
    assert_float_equal(cat(r, "P")->seconds, 1.5, EPS);
    assert_float_equal(cat(r, "C")->seconds, 0.5, EPS);
    assert_float_equal(r->untracked, 0.0, EPS);
    wt_ledger_calc_free(lc);
}

static void test_ledger_several_processes_union_and_straggler(void **state)
{
    /* p1 runs 0-10 with A 1-3; p2 runs 5-12 with A 6-9 and B 9-10.
     * wall 0-12 = 12; A 2 + 3 = 5; B 1; straggler A: max 3 - median(2, 3) 2.5 = 0.5 */
    const wt_event p1[] = { span(1, 1, 1, 3, 0, "A", "", 0), end_ev(1, 10) };
    const wt_event p2[] = { span(2, 2, 6, 9, 0, "A", "", 0), span(2, 2, 9, 10, 0, "B", "", 0),
                            end_ev(2, 12) };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "p1", 1, 0.0, p1, 2);
    feed(lc, "p2", 2, 5.0, p2, 3);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(r->wall, 12.0, EPS);
    assert_float_equal(cat(r, "A")->seconds, 5.0, EPS);
    assert_float_equal(cat(r, "B")->seconds, 1.0, EPS);
    assert_float_equal(cat(r, "A")->straggler, 0.5, EPS);
    assert_float_equal(cat(r, "B")->straggler, 0.5, EPS); /* max 1 - median(0, 1) */
    assert_int_equal(r->n_procs, 2);
    assert_float_equal(r->procs[1].wall, 7.0, EPS);
    assert_float_equal(r->procs[1].cat_seconds[0], 3.0, EPS);
    wt_ledger_calc_free(lc);
}

static wt_event meta_ev(uint64_t pid, double t, const char *key, const char *value)
{
    wt_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = WT_EV_META;
    ev.pid = pid;
    ev.ts = S(t);
    ev.name = key;
    ev.detail = value;
    return ev;
}

static void test_procname_rank_when_recorded_else_pid(void **state)
{
    wt_procname p;
    char buf[WT_PROCNAME_MAX];
    wt_procname_init(&p, 4242);
    assert_string_equal(wt_procname_format(&p, buf, sizeof buf), "pid 4242");
    wt_event ev = meta_ev(4242, 0, "host", "3");
    assert_int_equal(wt_procname_event(&p, &ev), 0); /* another key */
    ev = meta_ev(4242, 0, "rank", "-1");
    assert_int_equal(wt_procname_event(&p, &ev), 0); /* not a rank: ignored, never echoed */
    ev = meta_ev(4242, 0, "rank", "99999999999999999999");
    assert_int_equal(wt_procname_event(&p, &ev), 0); /* past INT64_MAX */
    ev = meta_ev(4242, 0, "rank", NULL);
    assert_int_equal(wt_procname_event(&p, &ev), 0);
    assert_string_equal(wt_procname_format(&p, buf, sizeof buf), "pid 4242");
    ev = meta_ev(4242, 0, "rank", " 12 ");
    assert_int_equal(wt_procname_event(&p, &ev), 1);
    assert_string_equal(wt_procname_format(&p, buf, sizeof buf), "rank 12 (pid 4242)");
    /* the widest: both numbers at their limits still fit */
    p.rank = INT64_MAX;
    p.pid = UINT64_MAX;
    assert_string_equal(wt_procname_format(&p, buf, sizeof buf),
                        "rank 9223372036854775807 (pid 18446744073709551615)");
    char small[8];
    assert_string_equal(wt_procname_format(&p, small, sizeof small), "rank 92");
}

/* Two processes, the second with rank metadata: the process section and the straggler name
 * them ("pid 1", "rank 3 (pid 2)"); A's straggler is p2 (3 s against a median of 2.5 s). */
static void test_ledger_processes_named_by_rank(void **state)
{
    const wt_event p1[] = { span(1, 1, 1, 3, 0, "A", "", 0), end_ev(1, 10) };
    const wt_event p2[] = { meta_ev(2, 5, "rank", "3"), span(2, 2, 6, 9, 0, "A", "", 0),
                            end_ev(2, 12) };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "p1", 1, 0.0, p1, 2);
    feed(lc, "p2", 2, 5.0, p2, 3);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_string_equal(r->procs[0].name, "pid 1");
    assert_false(r->procs[0].has_rank);
    assert_string_equal(r->procs[1].name, "rank 3 (pid 2)");
    assert_true(r->procs[1].has_rank);
    assert_int_equal(r->procs[1].rank, 3);
    assert_int_equal(cat(r, "A")->straggler_proc, 1);
    char *got = render(lc);
    assert_non_null(strstr(got, "\nrank 3 (pid 2)        7.00 s"));
    assert_non_null(strstr(got, "\npid 1                 10.0 s"));
    assert_non_null(strstr(got, "rank 3 (pid 2)\n"));
    free(got);
    wt_ledger_calc_free(lc);
}

/* The shape of a real load: from_pretrained > weight_load > (weight_load > convert) + upload
 * on the main thread, weight_load > convert on a loader thread; spans in the order threads end
 * them (children first). Inclusive, by hand: from_pretrained 10; weight_load main [1,4] = 3
 * (the inner weight_load is inside it: once) + loader 4 = 7; convert main 1 + loader 3 = 4;
 * upload 0.5. Self summed over threads: from_pretrained 10 - 3 = 7; weight_load main outer
 * 3 - 1.5 - 0.5 = 1, inner 1.5 - 1 = 0.5, loader 4 - 3 = 1: 2.5; convert 4; upload 0.5. */
static void test_ledger_inclusive_is_the_per_thread_union_of_open_spans(void **state)
{
    const wt_event evs[] = {
        span(1, 1, 1.5, 2.5, 3, "convert", "t0", 0),
        span(1, 1, 1.5, 3.0, 2, "weight_load", "inner", 0),
        span(1, 1, 3.0, 3.5, 2, "upload", "t0", 0),
        span(1, 1, 1.0, 4.0, 1, "weight_load", "outer", 0),
        span(1, 2, 2.0, 5.0, 1, "convert", "t1", 0),
        span(1, 2, 2.0, 6.0, 0, "weight_load", "t1", 0),
        span(1, 1, 0.0, 10.0, 0, "from_pretrained", "m", 0),
        end_ev(1, 12.0),
    };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "load.wtrace", 1, 0.0, evs, sizeof evs / sizeof evs[0]);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(cat(r, "from_pretrained")->inclusive, 10.0, EPS);
    assert_float_equal(cat(r, "weight_load")->inclusive, 7.0, EPS);
    assert_float_equal(cat(r, "convert")->inclusive, 4.0, EPS);
    assert_float_equal(cat(r, "upload")->inclusive, 0.5, EPS);
    assert_float_equal(cat(r, "from_pretrained")->self_seconds, 7.0, EPS);
    assert_float_equal(cat(r, "weight_load")->self_seconds, 2.5, EPS);
    assert_float_equal(cat(r, "convert")->self_seconds, 4.0, EPS);
    /* the text names both columns, in the readable precision */
    char *text = render(lc);
    assert_non_null(strstr(text, "category                self   %wall  inclusive   count   notes\n"));
    assert_non_null(strstr(text, "\nweight_load "));
    assert_non_null(strstr(text, "     7.00 s       3\n"));
    free(text);
    wt_ledger_calc_free(lc);
}

/* A cut file: the loader's weight_load never ended, so its children count as if it had:
 * convert [1,2] and [3,3.5] = 1.5 inclusive. */
static void test_ledger_inclusive_of_a_cut_file_counts_the_orphans(void **state)
{
    const wt_event evs[] = {
        span(1, 2, 1.0, 2.0, 1, "convert", "a", 0),
        span(1, 2, 3.0, 3.5, 1, "convert", "b", 0),
    };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "cut.wtrace", 1, 0.0, evs, 2);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    assert_float_equal(cat(wt_ledger_calc_result(lc), "convert")->inclusive, 1.5, EPS);
    wt_ledger_calc_free(lc);
}

/* The one precision rule, value by value (walltime/ledger.h). */
static void test_ledger_fmt_seconds_three_significant_digits_or_ms(void **state)
{
    static const struct { double v; const char *want; } cases[] = {
        { 0.0, "0 ms" },        { 0.0000123, "0.012 ms" }, { 0.000999, "0.999 ms" },
        { 0.0009996, "1.00 ms" }, { 0.00123, "1.23 ms" },  { 0.05, "50.0 ms" },
        { 0.0999, "99.9 ms" },  { 0.09996, "100 ms" },     { 0.96, "960 ms" },
        { 0.9996, "1.00 s" },   { 2.6, "2.60 s" },         { 9.996, "10.0 s" },
        { 41.2, "41.2 s" },     { 99.96, "100 s" },        { 123.4, "123 s" },
        { 1234.5, "1234 s" },   { -0.05, "-50.0 ms" },     { NAN, "-" },
        { 9223372036.854775807, "9223372037 s" },
    };
    char buf[WT_LEDGER_SECONDS_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(wt_ledger_fmt_seconds(buf, sizeof buf, cases[i].v), cases[i].want);
    char small[4];
    assert_string_equal(wt_ledger_fmt_seconds(small, sizeof small, 41.2), "41.");
}

/* The rule written with printf, as it was before its digits were made by hand: the model the
 * fast path must equal byte for byte. */
static void fmt_seconds_printf(char *buf, size_t n, double seconds)
{
    if (!isfinite(seconds)) {
        snprintf(buf, n, "-");
        return;
    }
    /* below each limit (in its unit), that many decimals; the last row has no limit */
    static const struct { int ms; double below; int prec; } rows[] = {
        { 1, 0.9995, 3 }, { 1, 9.995, 2 }, { 1, 99.95, 1 }, { 1, 999.5, 0 },
        { 0, 9.995, 2 },  { 0, 99.95, 1 }, { 0, INFINITY, 0 },
    };
    const double v = fabs(seconds);
    if (v == 0.0) {
        snprintf(buf, n, "0 ms");
        return;
    }
    size_t i = 0;
    while ((rows[i].ms ? v * 1e3 : v) >= rows[i].below)
        i++;
    snprintf(buf, n, "%s%.*f %s", seconds < 0 ? "-" : "", rows[i].prec,
             rows[i].ms ? v * 1e3 : v, rows[i].ms ? "ms" : "s");
}

static void fmt_same(double v)
{
    char got[WT_LEDGER_SECONDS_MAX], want[WT_LEDGER_SECONDS_MAX];
    fmt_seconds_printf(want, sizeof want, v);
    wt_ledger_fmt_seconds(got, sizeof got, v);
    if (strcmp(got, want) != 0)
        fail_msg("%.17g: \"%s\", printf \"%s\"", v, got, want);
}

/* wt_ledger_fmt_seconds() makes its digits without printf: the same text as printf's for
 * every duration of 0 to 2 ms in ns and every 99,991st ns to 12 s (what spans give it), values
 * whose digits end in an exact or near half at every precision (printf rounds the exact binary
 * value half to even: 0.125 is "0.12"), their neighbours, the thresholds' neighbours, 300,000
 * values spread over 24 decades, both signs, and texts cut by short buffers. */
static void test_ledger_fmt_seconds_is_printf_for_every_value(void **state)
{
    (void)state;
    for (int64_t ns = 0; ns <= 2000000; ns++)
        fmt_same((double)ns * 1e-9);
    for (int64_t ns = 2000000; ns <= 12000000000; ns += 99991)
        fmt_same((double)ns * 1e-9);
    static const double unit[] = { 1e-3, 1 };
    for (int u = 0; u < 2; u++)
        for (int p = 0; p <= 3; p++)
            for (int k = 0; k < 20000; k++) {
                const double half = ((double)k + 0.5) / pow(10, p) * unit[u];
                fmt_same(half);
                fmt_same(nextafter(half, 0));
                fmt_same(nextafter(half, 1e300));
                fmt_same(-half);
            }
    static const double exact[] = { 0.125, 0.375, 2.5, 3.5, 0.0625, 100.5, 101.5, 123.5,
                                    124.5, 1000.5, 4503599627370495.5, 1e15, 1e16, 1e300 };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        fmt_same(exact[i]);
        fmt_same(exact[i] / 1e3);
    }
    static const double edge[] = { 0.0009995, 0.009995, 0.09995, 0.9995, 9.995, 99.95 };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        double x = edge[i];
        for (int k = 0; k < 64; k++)
            x = nextafter(x, 0);
        for (int k = 0; k < 128; k++, x = nextafter(x, 1))
            fmt_same(x);
    }
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 300000; i++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        const double v = pow(10, -12 + 24 * (double)(rng >> 11) / 9007199254740992.0);
        fmt_same(i % 2 ? -v : v);
    }
    char small[WT_LEDGER_SECONDS_MAX], model[WT_LEDGER_SECONDS_MAX];
    for (size_t n = 1; n < 12; n++) {
        static const double some[] = { 0.0000123, 0.00123, 0.05, 0.96, 2.6, 41.2, 1234.5, -0.05 };
        for (size_t i = 0; i < sizeof some / sizeof some[0]; i++) {
            fmt_seconds_printf(model, n, some[i]);
            assert_string_equal(wt_ledger_fmt_seconds(small, n, some[i]), model);
        }
    }
}

/* Fork-join: main's from_pretrained 0.5-10 s starts with its own "index" child 0.5-1 s, then
 * waits on two loader threads it started (their first spans begin inside it): loader 2 loads
 * 1-6 and 6-9, loader 3 1-5 and 5.5-9.5; a pool thread 4 that existed before (prefetch
 * 0.2-0.4) also loads 2-3 inside it; then main generates 10-12. Process 0-12 s. By hand:
 * busy: main 9.0 (from_pretrained's self: 9.5 - 0.5) + 0.5 + 2 = 11.5, loaders 8 + 8, pool
 * 0.2 + 1 = 1.2: 28.7. Waiting: main's self time while the loaders it started ran inside it:
 * their union [1, 9.5] = 8.5, minus its own child [0.5, 1] (no overlap) = 8.5; the pool's span
 * is not counted (its thread is older than the parent). Covered: [0.2, 0.4] + [0.5, 12] =
 * 11.7. Saved = 28.7 - 8.5 - 11.7 = 8.5 (the old rule, busy - covered, said 17.0: the parent's
 * waiting counted as work). */
static void test_ledger_saved_parallel_does_not_count_a_parent_waiting(void **state)
{
    const wt_event evs[] = {
        span(1, 4, 0.2, 0.4, 0, "prefetch", "p", 0),
        span(1, 1, 0.5, 1.0, 1, "index", "i", 0),
        span(1, 4, 2.0, 3.0, 0, "weight_load", "t4", 0),
        span(1, 3, 1.0, 5.0, 0, "weight_load", "a", 0),
        span(1, 2, 1.0, 6.0, 0, "weight_load", "b", 0),
        span(1, 2, 6.0, 9.0, 0, "weight_load", "c", 0),
        span(1, 3, 5.5, 9.5, 0, "weight_load", "d", 0),
        span(1, 1, 0.5, 10.0, 0, "from_pretrained", "m", 0),
        span(1, 1, 10.0, 12.0, 0, "generate", "g", 0),
        end_ev(1, 12.0),
    };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "forkjoin.wtrace", 1, 0.0, evs, sizeof evs / sizeof evs[0]);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(r->busy, 28.7, EPS);
    assert_float_equal(r->waiting, 8.5, EPS);
    assert_float_equal(r->covered, 11.7, EPS);
    assert_float_equal(r->parallel_saved, 8.5, EPS);
    for (size_t i = 0; i < r->n_threads; i++)
        assert_float_equal(r->threads[i].waiting, r->threads[i].tid == 1 ? 8.5 : 0.0, EPS);
    char *text = render(lc);
    assert_non_null(strstr(text, "\nwaiting               8.50 s"));
    assert_non_null(strstr(text, "\nsaved (parallel)      8.50 s"));
    free(text);
    wt_ledger_calc_free(lc);
}

/* A parent that works while its worker runs keeps that work: main's generate 0-10 decodes
 * 2-8 itself (a child) while a worker it started loads 1-9. Main's self time is 0-2 and
 * 8-10; the worker covers 1-2 and 8-9 of it: waiting 2.0. Busy 10 + 8 = 18, covered 10:
 * saved 18 - 2 - 10 = 6 (the worker's 8 s less the 2 s main waited). */
static void test_ledger_waiting_is_only_the_parents_self_time(void **state)
{
    const wt_event evs[] = {
        span(1, 1, 2.0, 8.0, 1, "decode", "d", 0),
        span(1, 2, 1.0, 9.0, 0, "load", "w", 0),
        span(1, 1, 0.0, 10.0, 0, "generate", "g", 0),
        end_ev(1, 10.0),
    };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "work.wtrace", 1, 0.0, evs, sizeof evs / sizeof evs[0]);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(r->waiting, 2.0, EPS);
    assert_float_equal(r->parallel_saved, 6.0, EPS);
    wt_ledger_calc_free(lc);
}

/* Workers whose spans reach the trace out of order (thread 2's whole batch, then thread 3's,
 * whose starts fall between them): main's load 1-2010 s started both, so it waits on the
 * union of their spans. Thread 2 loads [2i, 2i+1] and thread 3 [2i+1, 2i+1.5], i = 1..1000:
 * 1000 x 1 + 1000 x 0.5 = 1500 s, less main's own child [2, 3] (depth 1, its self time
 * excludes it), which thread 2's first span covers: waiting 1499 s. */
static void test_ledger_waiting_on_workers_that_arrive_out_of_order(void **state)
{
    enum { N = 1000 };
    wt_event *evs = calloc(2 * N + 3, sizeof *evs);
    assert_non_null(evs);
    size_t n = 0;
    evs[n++] = span(1, 1, 2.0, 3.0, 1, "index", "i", 0);
    for (int i = 1; i <= N; i++)
        evs[n++] = span(1, 2, 2.0 * i, 2.0 * i + 1.0, 0, "weight_load", "a", 0);
    for (int i = 1; i <= N; i++)
        evs[n++] = span(1, 3, 2.0 * i + 1.0, 2.0 * i + 1.5, 0, "weight_load", "b", 0);
    evs[n++] = span(1, 1, 1.0, 2010.0, 0, "load", "m", 0);
    evs[n++] = end_ev(1, 2010.0);
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "order.wtrace", 1, 0.0, evs, n);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(r->waiting, 1499.0, 1e-6);
    wt_ledger_calc_free(lc);
    free(evs);
}

/* A child that starts before its parent (after the writer re-anchors its clock, a child may
 * start a nanosecond before the span it is in; here half a second, to be clear of rounding)
 * is still the parent's child for the waiting rule: main's generate 1-10 decodes 0.5-8 at
 * depth 1 while a worker it started loads 2-9; main's self time meets the worker in 8-9:
 * waiting 1.0 (7.0 if the child were left out). It must not stay remembered either: the
 * second generate 20-30 decodes 22-28 while a worker loads 21-29, waiting 2.0; total 3.0. */
static void test_ledger_waiting_with_a_child_starting_before_its_parent(void **state)
{
    const wt_event evs[] = {
        span(1, 1, 0.5, 8.0, 1, "decode", "d", 0),
        span(1, 2, 2.0, 9.0, 0, "load", "w", 0),
        span(1, 1, 1.0, 10.0, 0, "generate", "g", 0),
        span(1, 1, 22.0, 28.0, 1, "decode", "d", 0),
        span(1, 3, 21.0, 29.0, 0, "load", "w", 0),
        span(1, 1, 20.0, 30.0, 0, "generate", "g", 0),
        end_ev(1, 30.0),
    };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "early.wtrace", 1, 0.0, evs, sizeof evs / sizeof evs[0]);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(r->waiting, 3.0, EPS);
    wt_ledger_calc_free(lc);
}

static void test_ledger_unclosed_span_and_no_end_record(void **state)
{
    /* no END: wall ends at the last event (the unclosed span's end, 7 s) */
    wt_event evs[] = { span(1, 1, 1, 2, 0, "A", "", 0), span(1, 1, 3, 7, 0, "B", "", 0) };
    evs[1].flags = WT_EVF_UNCLOSED;
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 2);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_true(r->no_end);
    assert_float_equal(r->wall, 7.0, EPS);
    assert_int_equal(r->unclosed, 1);
    assert_float_equal(r->unclosed_s, 4.0, EPS);
    assert_float_equal(r->untracked, 2.0, EPS);
    char *text = render(lc);
    assert_non_null(strstr(text, "note: 'a' has no end record"));
    /* the recorder-fact line: name 18, seconds 10, blank %wall 8 and inclusive 11, count 8 */
    assert_non_null(strstr(text, "\nin flight at exit     4.00 s" "                          1   spans"));
    free(text);
    wt_ledger_calc_free(lc);
}

static int src_begin(void *c, int fi, const char *p, const wt_trace_info *i)
{
    return wt_ledger_calc_file_begin(c, p, i);
}
static int src_event(void *c, int fi, const wt_event *e) { return wt_ledger_calc_event(c, e); }
static int src_damage(void *c, int fi, int64_t o, const char *m)
{
    wt_ledger_calc_damage(c, o, m);
    return 0;
}
static int src_end(void *c, int fi, const wt_reader_stats *s) { return wt_ledger_calc_file_end(c, s); }

static void test_ledger_truncated_trace_counts_what_was_readable(void **state)
{
    /* frame 1: A 1-2; frame 2: child C 3-4 (depth 1) and its parent P 2.5-5, then END 6.
     * Cut inside frame 2: the ledger has A only, wall ends at A's end, damaged, no end. */
    tb *b = tb_create("ledger_trunc.wtrace", 7, S(0.0), S(0.0));
    tb_set_raw(b, 1);
    tb_span(b, 7, S(1), S(2), 0, "A", "a");
    tb_frame(b);
    tb_span(b, 7, S(3), S(4), 1, "C", "c");
    tb_span(b, 7, S(2.5), S(5), 0, "P", "p");
    tb_close(b, TB_END_CLEAN, S(6), 0);
    size_t len;
    unsigned char *data = tb_read_file("ledger_trunc.wtrace", &len);
    assert_non_null(data);
    tb_write_file("ledger_trunc.wtrace", data, len - 12);
    free(data);

    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    const wt_source_ops ops = { src_begin, src_event, src_damage, src_end, NULL, NULL };
    wt_source_result res;
    char *paths[] = { "ledger_trunc.wtrace" };
    assert_int_equal(wt_source_run(paths, 1, &ops, lc, &res), 0);
    assert_int_equal(res.files_damaged, 1);
    assert_int_equal(wt_source_exit_status(&res), 4);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_true(r->damaged);
    assert_true(r->no_end);
    assert_float_equal(cat(r, "A")->seconds, 1.0, EPS);
    assert_float_equal(r->tracked + r->untracked, r->wall, EPS);
    char *text = render(lc);
    assert_non_null(strstr(text, "warning: 'ledger_trunc.wtrace' is damaged"));
    free(text);
    wt_ledger_calc_free(lc);
}

static void test_ledger_orphan_children_of_a_cut_file_stay_within_wall(void **state)
{
    /* children at depth 1 whose parent never came: their envelope 1-4 is covered */
    const wt_event evs[] = { span(1, 1, 1, 2, 1, "C", "", 0), span(1, 1, 3, 4, 1, "C", "", 0) };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 2);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    /* wall 0-4; the envelope 1-4 is covered (the thread was busy in the lost parent), but C
     * has its own 2 s only: the gap 2-3 was the parent's, of no category known, so untracked
     * holds it (0-1 and 2-3), told apart as one lost tree of 1 s */
    assert_float_equal(r->wall, 4.0, EPS);
    assert_float_equal(cat(r, "C")->seconds, 2.0, EPS);
    assert_float_equal(r->tracked, 2.0, EPS);
    assert_float_equal(r->untracked, 2.0, EPS);
    assert_float_equal(r->covered, 3.0, EPS);
    assert_int_equal(r->lost_trees, 1);
    assert_float_equal(r->lost_s, 1.0, EPS);
    char *text = render(lc);
    assert_non_null(strstr(text, "inside lost spans"));
    free(text);
    wt_ledger_calc_free(lc);
}

static void test_ledger_children_of_a_parent_open_at_kill_keep_their_own_time(void **state)
{
    /* a review's kill -9: "load" open from 0.1 s, its convert children 4 x 33 ms spread
     * over 1.01 s, then killed (no end record, no load span). convert was booked 1.01 s of
     * self time against 132 ms inclusive; it has 132 ms, the rest of 0.1-1.11 is lost */
    const wt_event evs[] = { span(1, 1, 0.100, 0.133, 1, "convert", "a", 0),
                             span(1, 1, 0.400, 0.433, 1, "convert", "b", 0),
                             span(1, 1, 0.700, 0.733, 1, "convert", "c", 0),
                             span(1, 1, 1.077, 1.110, 1, "convert", "d", 0),
                             span(1, 2, 0.200, 0.300, 0, "io", "x", 0) };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 5);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_true(r->no_end);
    assert_float_equal(cat(r, "convert")->seconds, 0.132, EPS);
    assert_float_equal(cat(r, "convert")->inclusive, 0.132, EPS);
    /* io on another thread, 0.2-0.3, inside the envelope: its own 0.1 s, covered first */
    assert_float_equal(cat(r, "io")->seconds, 0.1, EPS);
    assert_float_equal(r->tracked + r->untracked, r->wall, EPS);
    /* the envelope 0.1-1.11 = 1.01 s; io covered 0.1 of it before the tree was flushed */
    assert_int_equal(r->lost_trees, 1);
    assert_float_equal(r->lost_s, 1.01 - 0.1 - 0.132, EPS);
    wt_ledger_calc_free(lc);
}

static void test_ledger_late_events_are_counted_not_fatal(void **state)
{
    /* SYNC at 1 s: watermark 0.9 s; a span ending at 0.5 s after it is late */
    wt_event sync;
    memset(&sync, 0, sizeof sync);
    sync.kind = WT_EV_SYNC;
    sync.pid = 1;
    sync.ts = S(1.0);
    const wt_event evs[] = { sync, span(1, 2, 0.1, 0.5, 0, "A", "", 0), end_ev(1, 2) };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 3);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_int_equal(r->late, 1);
    assert_float_equal(cat(r, "A")->seconds, 0.4, EPS);
    wt_ledger_calc_free(lc);
}

static void test_ledger_hostile_depth_and_negative_duration_do_not_crash(void **state)
{
    wt_event evs[] = { span(1, 1, 1, 2, 0, "A", "", 0), span(1, 1, 1, 2, 0, "B", "", 0) };
    evs[0].depth = 0xFFFFFFFFu;
    evs[1].dur = -5;
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 2);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(r->tracked + r->untracked, r->wall, EPS);
    wt_ledger_calc_free(lc);
}

static void test_ledger_bandwidth_and_by_label_top_n(void **state)
{
    /* W: a 0-1 with 2e9 bytes, a 1-2, b 2-4 with 1e9 bytes, c 4-7. bytes 3e9 over the 3 s of
     * the spans that carry bytes: 1 GB/s. Labels by total: c 3, b 2, a 2 (a before b? equal
     * totals sort by name: a, b); top 2 = c, a; rest = b */
    wt_event evs[] = { span(1, 1, 0, 1, 0, "W", "a", 0), span(1, 1, 1, 2, 0, "W", "a", 0),
                       span(1, 1, 2, 4, 0, "W", "b", 0), span(1, 1, 4, 7, 0, "W", "c", 0),
                       end_ev(1, 7) };
    evs[0].bytes = 2000000000;
    evs[2].bytes = 1000000000;
    wt_ledger_opts o = { .by_label = 1, .top = 2 };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(&o, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 5);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_cat *c = cat(wt_ledger_calc_result(lc), "W");
    assert_float_equal(c->gbps, 1.0, EPS);
    assert_int_equal(c->n_labels, 3);
    assert_string_equal(c->labels[0].name, "c");
    assert_string_equal(c->labels[1].name, "a");
    assert_int_equal(c->labels[1].st.n, 2);
    assert_float_equal(c->labels[1].st.median, 1.0, EPS);
    assert_null(c->labels[2].name);
    assert_int_equal(c->labels[2].st.n, 1);
    assert_float_equal(c->labels[2].st.total, 2.0, EPS);
    wt_ledger_calc_free(lc);
}

static void test_ledger_many_spans_keep_interval_set_bounded(void **state)
{
    /* 200k disjoint top-level spans of 1 ms every 2 ms with a SYNC every 1000: exact 200 s
     * tracked of 400 s; folding below the watermark keeps memory bounded and changes nothing */
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    wt_trace_info info;
    memset(&info, 0, sizeof info);
    info.pid = 1;
    info.process_start_ns = S(0);
    assert_int_equal(wt_ledger_calc_file_begin(lc, "big", &info), 0);
    for (int64_t i = 0; i < 200000; i++) {
        wt_event e = span(1, 1, 0, 0, 0, "A", "x", 0);
        e.ts = S(0) + i * 2000000;
        e.dur = 1000000;
        assert_int_equal(wt_ledger_calc_event(lc, &e), 0);
        if (i % 1000 == 999) {
            wt_event s;
            memset(&s, 0, sizeof s);
            s.kind = WT_EV_SYNC;
            s.ts = e.ts + e.dur + WT_SYNC_SLACK_NS;
            assert_int_equal(wt_ledger_calc_event(lc, &s), 0);
        }
    }
    wt_event e = end_ev(1, 400.0);
    assert_int_equal(wt_ledger_calc_event(lc, &e), 0);
    wt_reader_stats st = { .end = WT_END_CLEAN };
    assert_int_equal(wt_ledger_calc_file_end(lc, &st), 0);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_float_equal(r->tracked, 200.0, 1e-6);
    assert_float_equal(r->wall, 400.0, 1e-6);
    assert_int_equal(r->late, 0);
    wt_ledger_calc_free(lc);
}

/* BUG-2: a thread seen only by its name (no span, so no nesting array) at the end of a file.
 * Under UBSan the old memset of its NULL array aborted; here it is listed with nothing. */
static void test_ledger_thread_with_a_name_and_no_spans(void **state)
{
    wt_event evs[] = { span(1, 1, 1, 3, 0, "A", "a", 0), span(1, 1, 1, 3, 0, "A", "a", 0),
                       end_ev(1, 4) };
    memset(&evs[1], 0, sizeof evs[1]);
    evs[1].kind = WT_EV_THREAD_NAME;
    evs[1].pid = 1;
    evs[1].tid = 2;
    evs[1].ts = S(2);
    evs[1].name = "idle";
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 3);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    /* wall 0-4, A 1-3: 2 s tracked, 2 untracked; thread 2 "idle" with nothing */
    assert_int_equal(r->n_threads, 2);
    assert_int_equal(r->threads[1].tid, 2);
    assert_string_equal(r->threads[1].name, "idle");
    assert_int_equal(r->threads[1].spans, 0);
    assert_float_equal(r->threads[1].busy, 0.0, EPS);
    assert_float_equal(r->tracked, 2.0, EPS);
    assert_float_equal(r->untracked, 2.0, EPS);
    wt_ledger_calc_free(lc);
}

/* BUG-3: sums of hostile values clamp at INT64_MAX instead of wrapping (undefined behaviour,
 * and without sanitizers a negative count, busy time or dropped count). */
static void test_ledger_sums_of_hostile_values_saturate(void **state)
{
    /* D = 2^62 - 2 ns: three children of D at depth 1 sum to 3D > INT64_MAX; their self times
     * (D each, no grandchildren) too; the parent's self is D - (clamped sum) < 0, so 0. Two
     * spans of N with count and bytes INT64_MAX, two DROPPED notices of INT64_MAX. */
    const int64_t D = ((int64_t)1 << 62) - 2;
    wt_event evs[8];
    for (int i = 0; i < 3; i++) {
        evs[i] = span(1, 1, 0, 0, 1, "child", "c", 0);
        evs[i].ts = 1;
        evs[i].dur = D;
    }
    evs[3] = span(1, 1, 0, 0, 0, "parent", "p", 0);
    evs[3].ts = 1;
    evs[3].dur = D;
    for (int i = 4; i < 6; i++) {
        evs[i] = span(1, 2, 0, 0, 0, "N", "n", 0);
        evs[i].ts = 1;
        evs[i].dur = 1;
        evs[i].count = INT64_MAX;
        evs[i].bytes = INT64_MAX;
    }
    for (int i = 6; i < 8; i++) {
        memset(&evs[i], 0, sizeof evs[i]);
        evs[i].kind = WT_EV_DROPPED;
        evs[i].pid = 1;
        evs[i].tid = 1;
        evs[i].ts = 2;
        evs[i].count = INT64_MAX;
    }
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    wt_trace_info info;
    memset(&info, 0, sizeof info);
    info.pid = 1;
    info.process_start_ns = 1;
    assert_int_equal(wt_ledger_calc_file_begin(lc, "x", &info), 0);
    for (int i = 0; i < 8; i++)
        assert_int_equal(wt_ledger_calc_event(lc, &evs[i]), 0);
    wt_reader_stats st;
    memset(&st, 0, sizeof st);
    assert_int_equal(wt_ledger_calc_file_end(lc, &st), 0);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    const double max_s = 9223372036854775807.0 * 1e-9;
    const wt_ledger_cat *c = cat(r, "child"), *p = cat(r, "parent"), *n = cat(r, "N");
    assert_int_equal(c->count, 3);
    assert_float_equal(c->self_seconds, max_s, 1e-3);
    assert_float_equal(p->self_seconds, 0.0, EPS);
    assert_int_equal(n->count, INT64_MAX);
    assert_int_equal(n->bytes, INT64_MAX);
    assert_int_equal(r->dropped, INT64_MAX);
    assert_int_equal(r->procs[0].dropped, INT64_MAX);
    /* busy: per thread the union of its top-level spans, [1, 1 + D) and N's [1, 2) twice */
    assert_float_equal(r->busy, (double)(D + 1) * 1e-9, 1e-3);
    assert_float_equal(r->threads[0].busy, (double)D * 1e-9, 1e-3);
    /* covered: [1, 1 + D) of both threads, wall from 1 to the last end 1 + D */
    assert_float_equal(r->covered, (double)D * 1e-9, 1e-3);
    assert_float_equal(r->wall, (double)D * 1e-9, 1e-3);
    assert_true(r->tracked >= 0 && r->untracked >= 0);
    assert_float_equal(r->tracked + r->untracked, r->wall, 1e-3);
    wt_ledger_calc_free(lc);
}

/* BUG-5: at most 16384 (category, label) keys per run (docs/ANALYZE.md); a new pair past them
 * is counted under "(other labels)" of its category, known pairs keep their own. Strings are
 * stable per distinct text, as the reader hands them out. */
#define KEYS 16384
static char key_labels[KEYS][8];

static char *render_json(const wt_ledger_calc *lc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    wt_json j;
    wt_json_init(&j, f, 0);
    wt_json_object_begin(&j, NULL);
    wt_ledger_calc_render_json(lc, &j, "ledger");
    wt_json_object_end(&j);
    wt_json_finish(&j);
    fclose(f);
    return buf;
}

static void test_ledger_labels_past_the_key_bound_fold_into_other_labels(void **state)
{
    /* a: OWN labels of 1 ms each (the keys up to the reserve for small categories,
     * spanstat.h), then 4 spans: (a, new1) 1 s and (a, new2) 1 s are new pairs of a big
     * category past the bound: folded; (b, l0) 3 s is of a new category, which the reserve
     * gives a key; (a, l5) 1 ms is known: its own */
    enum { OWN = WT_MAX_LABEL_KEYS - WT_LABEL_KEY_RESERVE };
    static wt_event evs[KEYS + 5];
    int64_t t = S(0);
    for (int i = 0; i < OWN; i++, t += 1000000) {
        snprintf(key_labels[i], sizeof key_labels[i], "l%d", i);
        evs[i] = span(1, 1, 0, 0, 0, "a", key_labels[i], 0);
        evs[i].ts = t;
        evs[i].dur = 1000000;
    }
    const struct { const char *c, *l; int64_t dur; } tail[] = {
        { "a", "new1", 1000000000 }, { "b", "l0", 3000000000 }, { "a", key_labels[5], 1000000 },
        { "a", "new2", 1000000000 } };
    for (int i = 0; i < 4; i++, t += tail[i - 1].dur) {
        evs[OWN + i] = span(1, 1, 0, 0, 0, tail[i].c, tail[i].l, 0);
        evs[OWN + i].ts = t;
        evs[OWN + i].dur = tail[i].dur;
    }
    evs[OWN + 4] = end_ev(1, 30.0);
    wt_ledger_opts o = { .by_label = 1, .top = 1 };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(&o, &lc), 0);
    feed(lc, "k", 1, 0.0, evs, OWN + 5);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_int_equal(r->folded_labels, 2);
    assert_int_equal(r->folded_categories, 0);
    assert_int_equal(r->spans, OWN + 4);
    assert_int_equal(r->n_cats, 2);
    /* a: OWN + 3 spans, 16.128 + 2 + 0.001 s; its top label by total is the fold (2 s, n 2),
     * then the rest (the OWN own labels, l5 with 2 spans) */
    const wt_ledger_cat *a = cat(r, "a"), *b = cat(r, "b");
    assert_int_equal(a->spans, OWN + 3);
    assert_float_equal(a->flat_seconds, OWN * 0.001 + 2.0 + 0.001, 1e-6);
    assert_int_equal(a->n_labels, 2);
    assert_string_equal(a->labels[0].name, "(other labels)");
    assert_int_equal(a->labels[0].st.n, 2);
    assert_float_equal(a->labels[0].st.total, 2.0, 1e-9);
    assert_null(a->labels[1].name);
    assert_int_equal(a->labels[1].st.n, OWN + 1);
    /* b: a category of its own (under its bound), its only label its own */
    assert_int_equal(b->spans, 1);
    assert_int_equal(b->n_labels, 1);
    assert_string_equal(b->labels[0].name, "l0");
    assert_float_equal(b->labels[0].st.total, 3.0, 1e-9);
    /* the recorder-fact line: %-18s, blank seconds (10), %wall (8) and inclusive (11)
     * columns, count in 8 */
    char *text = render(lc);
    assert_non_null(strstr(text, "\nfolded labels                                         2   spans past 16384 "
                                 "category/label pairs, in (other labels)\n"));
    assert_null(strstr(text, "folded categories"));
    free(text);
    char *json = render_json(lc);
    assert_non_null(strstr(json, "\"folded_labels\":2"));
    assert_null(strstr(json, "folded_categories"));
    free(json);
    wt_ledger_calc_free(lc);
}

/* ... and at most 4096 categories: a new one past them is "(other categories)". */
#define CATS 4096
static char cat_names[CATS + 2][8];

static void test_ledger_categories_past_the_bound_fold_into_other_categories(void **state)
{
    /* CATS + 2 categories k0.. of one 1 s span each, label "x"; then k0 again. The last two new
     * ones fold: one row "(other categories)" with their 2 spans, 2 s */
    static wt_event evs[CATS + 4];
    for (int i = 0; i < CATS + 2; i++) {
        snprintf(cat_names[i], sizeof cat_names[i], "k%d", i);
        evs[i] = span(1, 1, i, i + 1, 0, cat_names[i], "x", 0);
    }
    evs[CATS + 2] = span(1, 1, CATS + 2, CATS + 3, 0, cat_names[0], "x", 0);
    evs[CATS + 3] = end_ev(1, CATS + 3);
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "k", 1, 0.0, evs, CATS + 4);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_int_equal(r->folded_categories, 2);
    assert_int_equal(r->folded_labels, 0);
    assert_int_equal(r->n_cats, CATS + 1);
    const wt_ledger_cat *o = &r->cats[CATS];
    assert_string_equal(o->name, "(other categories)");
    assert_int_equal(o->spans, 2);
    assert_float_equal(o->seconds, 2.0, 1e-6);
    assert_int_equal(cat(r, "k0")->spans, 2);
    assert_float_equal(r->tracked, CATS + 3.0, 1e-6);
    char *text = render(lc);
    assert_non_null(strstr(text, "\nfolded categories                                     2   spans past 4096 "
                                 "categories, counted in (other categories)\n"));
    free(text);
    wt_ledger_calc_free(lc);
}

/* A thread's busy time is the union of its top-level spans, within the process: a span
 * measured by the caller around earlier spans of its thread (the seed's record() around a
 * stage whose parts were spans), one measured longer than the process, and one enclosing more
 * spans than the union keeps apart (LC_BUSY_RING, 16). Summing made one thread busy 146 % of
 * the wall and "saved (parallel)" seconds out of one thread. All by hand, one thread, tid 1. */
static void test_ledger_busy_is_the_union_of_a_threads_spans(void **state)
{
    (void)state;
    /* 1: convert 0-0.5 and upload 0.5-1.0, then load 0-1.03 around them; wall 0-1.4 */
    wt_event a[4] = { span(1, 1, 0.0, 0.5, 0, "convert", "x", WT_CACHED_UNKNOWN),
                      span(1, 1, 0.5, 1.0, 0, "upload", "x", WT_CACHED_UNKNOWN),
                      span(1, 1, 0.0, 1.03, 0, "load", "total", WT_CACHED_UNKNOWN),
                      end_ev(1, 1.4) };
    a[2].flags = WT_EVF_MEASURED;
    /* 2: gaps inside the enclosing one: 0-0.1, 0.2-0.3, then 0-0.4 around both: 0.4 */
    wt_event b[4] = { span(1, 1, 0.0, 0.1, 0, "a", "x", WT_CACHED_UNKNOWN),
                      span(1, 1, 0.2, 0.3, 0, "b", "x", WT_CACHED_UNKNOWN),
                      span(1, 1, 0.0, 0.4, 0, "c", "x", WT_CACHED_UNKNOWN), end_ev(1, 1.0) };
    /* 3: compile measured as 10 s in a process of 0.5 s that ended at 0.5 (it began before
     * the process: only 0-0.5 is the process's), then work 0.4-0.45 inside it */
    wt_event c[3] = { span(1, 1, -9.5, 0.5, 0, "warmup", "compile", WT_CACHED_UNKNOWN),
                      span(1, 1, 0.4, 0.45, 0, "load", "x", WT_CACHED_UNKNOWN), end_ev(1, 0.5) };
    /* 4: 40 spans of 0.01 s, 0.02 s apart from 0 (0.40 s busy), then one 0-0.9 around them
     * all and past: 0.9; then 1.0-1.1 after a gap: 1.0 in all */
    wt_event d[43];
    for (int i = 0; i < 40; i++)
        d[i] = span(1, 1, 0.02 * i, 0.02 * i + 0.01, 0, "step", "x", WT_CACHED_UNKNOWN);
    d[40] = span(1, 1, 0.0, 0.9, 0, "total", "x", WT_CACHED_UNKNOWN);
    d[41] = span(1, 1, 1.0, 1.1, 0, "tail", "x", WT_CACHED_UNKNOWN);
    d[42] = end_ev(1, 1.2);
    const struct {
        const wt_event *ev;
        size_t n;
        double busy;
    } cases[] = { { a, 4, 1.03 }, { b, 4, 0.4 }, { c, 3, 0.5 }, { d, 43, 1.0 } };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        wt_ledger_calc *lc;
        assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
        feed(lc, "a.wtrace", 1, 0.0, cases[k].ev, cases[k].n);
        assert_int_equal(wt_ledger_calc_finish(lc), 0);
        const wt_ledger_result *r = wt_ledger_calc_result(lc);
        assert_int_equal(r->n_threads, 1);
        assert_float_equal(r->threads[0].busy, cases[k].busy, 1e-6);
        assert_float_equal(r->busy, cases[k].busy, 1e-6);
        /* one thread: what it covered is what it was busy, nothing saved */
        assert_float_equal(r->covered, cases[k].busy, 1e-6);
        assert_float_equal(r->parallel_saved, 0.0, 1e-9);
        char *text = render(lc);
        assert_null(strstr(text, "saved (parallel)"));
        free(text);
        wt_ledger_calc_free(lc);
    }
    /* two files of one process (closed and opened again), the later recording given first:
     * 40 spans of 0.01 s in each, their sum, whatever the order of the files */
    wt_event late[41], early[41];
    for (int i = 0; i < 40; i++) {
        late[i] = span(1, 1, 2.0 + 0.02 * i, 2.0 + 0.02 * i + 0.01, 0, "late", "x",
                       WT_CACHED_UNKNOWN);
        early[i] = span(1, 1, 0.02 * i, 0.02 * i + 0.01, 0, "early", "x", WT_CACHED_UNKNOWN);
    }
    late[40] = end_ev(1, 3.0);
    early[40] = end_ev(1, 1.0);
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(NULL, &lc), 0);
    feed(lc, "late.wtrace", 1, 0.0, late, 41);
    feed(lc, "early.wtrace", 1, 0.0, early, 41);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(lc);
    assert_int_equal(r->n_threads, 1);
    assert_float_equal(r->threads[0].busy, 0.8, 1e-6);
    wt_ledger_calc_free(lc);
}

/* 20 threads, thread t (1..20) busy t ms in one top-level span: past 16 threads the text lists
 * the 12 busiest (20..9 ms) and one row "(8 more)" for threads 1..8: 36 ms, 8 spans. */
static void test_ledger_text_lists_the_busiest_threads_and_sums_the_rest(void **state)
{
    (void)state;
    wt_event evs[21];
    memset(evs, 0, sizeof evs);
    for (int t = 1; t <= 20; t++)
        evs[t - 1] = (wt_event){ .kind = WT_EV_SPAN, .pid = 1, .tid = (uint64_t)t,
                                 .ts = 100000000000, .dur = (int64_t)t * 1000000, .depth = 0,
                                 .category = "work", .label = "w", .count = 1 };
    evs[20] = (wt_event){ .kind = WT_EV_END, .pid = 1, .ts = 101000000000, .end = WT_END_CLEAN };
    for (int all = 0; all < 2; all++) {
        wt_ledger_opts o = { .title = "t", .all_rows = all };
        wt_ledger_calc *lc;
        assert_int_equal(wt_ledger_calc_create(&o, &lc), 0);
        feed(lc, "a.wtrace", 1, 0.0, evs, 21); /* the process from 100 s, as the spans */
        assert_int_equal(wt_ledger_calc_finish(lc), 0);
        char *text = render(lc);
        int rows = 0;
        for (int t = 1; t <= 20; t++) {
            char id[32];
            snprintf(id, sizeof id, "\n%-18d", t);
            rows += strstr(text, id) != NULL;
            /* without all: exactly threads 9..20 have a row */
            if (!all)
                assert_true((strstr(text, id) != NULL) == (t >= 9));
        }
        assert_int_equal(rows, all ? 20 : 12);
        const char *more = strstr(text, "\n(8 more)");
        if (all) {
            assert_null(more);
        } else {
            assert_non_null(more);
            char want[128];
            snprintf(want, sizeof want, "\n%-18s%10s%7.1f%%%8d   ", "(8 more)", "36.0 ms", 3.6, 8);
            assert_non_null(strstr(text, want));
        }
        free(text);
        wt_ledger_calc_free(lc);
    }
}

/* 20 processes, process k (1..20) with a wall of k s; process 3 ended by a signal. Past 16
 * processes the text lists process 3 (not clean), the 12 longest (9..20 s) and one row for
 * the other 7 clean ones (1, 2, 4..8 s); --all (all_rows) lists all 20. */
static void test_ledger_text_lists_the_longest_processes_and_every_unclean_one(void **state)
{
    (void)state;
    for (int all = 0; all < 2; all++) {
        wt_ledger_opts o = { .title = "t", .all_rows = all };
        wt_ledger_calc *lc;
        assert_int_equal(wt_ledger_calc_create(&o, &lc), 0);
        for (int k = 1; k <= 20; k++) {
            wt_event evs[2];
            memset(evs, 0, sizeof evs);
            evs[0] = (wt_event){ .kind = WT_EV_SPAN, .pid = (uint64_t)k, .tid = (uint64_t)k,
                                 .ts = S(0.0), .dur = 500000000, .category = "work", .label = "w",
                                 .count = 1 };
            evs[1] = end_ev((uint64_t)k, k);
            if (k == 3)
                evs[1].end = WT_END_SIGNAL;
            char path[32];
            snprintf(path, sizeof path, "p%02d.wtrace", k);
            feed(lc, path, (uint64_t)k, 0.0, evs, 2);
        }
        assert_int_equal(wt_ledger_calc_finish(lc), 0);
        char *text = render(lc);
        for (int k = 1; k <= 20; k++) {
            char row[32];
            snprintf(row, sizeof row, "\npid %d ", k);
            const int listed = strstr(text, row) != NULL;
            assert_int_equal(listed, all || k == 3 || k >= 9);
        }
        const char *more = strstr(text, "\n(7 more)");
        if (all) {
            assert_null(more);
        } else {
            assert_non_null(more);
            assert_non_null(strstr(more, "clean   the shorter clean ones, wall 1.00 s to 8.00 s"));
        }
        free(text);
        wt_ledger_calc_free(lc);
    }
}

/* One label per tensor: the by-label table's label column widens to the longest label shown
 * (a real tensor name, 39 characters), so every row's numbers stay in their columns; a label
 * past the widest column (64) keeps its head and tail around "..."; a UTF-8 label counts its
 * characters, not its bytes. Rows written out by hand. */
static void test_ledger_by_label_column_fits_tensor_names(void **state)
{
    (void)state;
    static const char tensor[] = "model.layers.17.self_attn.q_proj.weight"; /* 39 */
    char huge[101];
    for (int i = 0; i < 100; i++)
        huge[i] = (char)('a' + i % 26);
    huge[100] = 0;
    wt_event evs[] = { span(1, 1, 0, 1, 0, "W", tensor, 0), span(1, 1, 1, 3, 0, "W", huge, 0),
                       span(1, 1, 3, 6, 0, "W", "\xc3\xa9t\xc3\xa9", 0), end_ev(1, 6) };
    wt_ledger_opts o = { .title = "t", .by_label = 1 };
    wt_ledger_calc *lc;
    assert_int_equal(wt_ledger_calc_create(&o, &lc), 0);
    feed(lc, "a", 1, 0.0, evs, 4);
    assert_int_equal(wt_ledger_calc_finish(lc), 0);
    char *text = render(lc);
    /* the widest label, 100 characters, is past the widest column (64): "  ", 61 characters
     * (29 of its head, "...", 29 of its tail) and a space; then the numbers as ever. Rows by
     * total, descending. The UTF-8 label is 3 characters in 5 bytes: 59 spaces after it. */
    char fitted[64];
    snprintf(fitted, sizeof fitted, "%.29s...%s", huge, huge + 100 - 29);
    char want[1024];
    snprintf(want, sizeof want,
             "%-64s%10s%8s%10s%10s%10s\n"
             "W\n"
             "  \xc3\xa9t\xc3\xa9%59s%10s%8d%10s%10s%10s\n"
             "  %-62s%10s%8d%10s%10s%10s\n"
             "  %-62s%10s%8d%10s%10s%10s\n",
             "category / label", "total", "spans", "min", "median", "max",
             "", "3.00 s", 1, "3.00 s", "3.00 s", "3.00 s",
             fitted, "2.00 s", 1, "2.00 s", "2.00 s", "2.00 s",
             tensor, "1.00 s", 1, "1.00 s", "1.00 s", "1.00 s");
    const char *at = strstr(text, "category / label");
    assert_non_null(at);
    assert_memory_equal(at, want, strlen(want));
    free(text);
    wt_ledger_calc_free(lc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ledger_flat_is_the_seeds_table_with_double_count_and_clamp),
        cmocka_unit_test(test_ledger_flat_without_misses_says_none_and_untracked),
        cmocka_unit_test(test_ledger_rows_in_the_order_first_spans_ended),
        cmocka_unit_test(test_ledger_nested_spans_counted_once),
        cmocka_unit_test(test_ledger_deep_nesting_self_times),
        cmocka_unit_test(test_ledger_two_threads_overlapping_reconcile),
        cmocka_unit_test(test_ledger_threads_listed_by_file_main_first_then_tid),
        cmocka_unit_test(test_ledger_overlap_shared_within_a_tree_by_self_time),
        cmocka_unit_test(test_ledger_several_processes_union_and_straggler),
        cmocka_unit_test(test_procname_rank_when_recorded_else_pid),
        cmocka_unit_test(test_ledger_processes_named_by_rank),
        cmocka_unit_test(test_ledger_inclusive_is_the_per_thread_union_of_open_spans),
        cmocka_unit_test(test_ledger_inclusive_of_a_cut_file_counts_the_orphans),
        cmocka_unit_test(test_ledger_fmt_seconds_three_significant_digits_or_ms),
        cmocka_unit_test(test_ledger_fmt_seconds_is_printf_for_every_value),
        cmocka_unit_test(test_ledger_saved_parallel_does_not_count_a_parent_waiting),
        cmocka_unit_test(test_ledger_waiting_is_only_the_parents_self_time),
        cmocka_unit_test(test_ledger_waiting_on_workers_that_arrive_out_of_order),
        cmocka_unit_test(test_ledger_waiting_with_a_child_starting_before_its_parent),
        cmocka_unit_test(test_ledger_unclosed_span_and_no_end_record),
        cmocka_unit_test(test_ledger_truncated_trace_counts_what_was_readable),
        cmocka_unit_test(test_ledger_orphan_children_of_a_cut_file_stay_within_wall),
        cmocka_unit_test(test_ledger_children_of_a_parent_open_at_kill_keep_their_own_time),
        cmocka_unit_test(test_ledger_late_events_are_counted_not_fatal),
        cmocka_unit_test(test_ledger_hostile_depth_and_negative_duration_do_not_crash),
        cmocka_unit_test(test_ledger_bandwidth_and_by_label_top_n),
        cmocka_unit_test(test_ledger_by_label_column_fits_tensor_names),
        cmocka_unit_test(test_ledger_many_spans_keep_interval_set_bounded),
        cmocka_unit_test(test_ledger_thread_with_a_name_and_no_spans),
        cmocka_unit_test(test_ledger_sums_of_hostile_values_saturate),
        cmocka_unit_test(test_ledger_labels_past_the_key_bound_fold_into_other_labels),
        cmocka_unit_test(test_ledger_categories_past_the_bound_fold_into_other_categories),
        cmocka_unit_test(test_ledger_lone_top_spans_share_wall_as_trees_do),
        cmocka_unit_test(test_ledger_inclusive_of_many_loads_in_phases),
        cmocka_unit_test(test_ledger_busy_is_the_union_of_a_threads_spans),
        cmocka_unit_test(test_ledger_text_lists_the_busiest_threads_and_sums_the_rest),
        cmocka_unit_test(test_ledger_text_lists_the_longest_processes_and_every_unclean_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
