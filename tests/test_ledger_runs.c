/* The ledger's and the anomalies' runs over a batch (ledger.c lone_run() and leaf_run(),
 * anomalies.c hit_run(), and the waiting rule's quick case in ledger_wait.c): hand-built traces
 * of a main thread (tid == pid, the only thread those runs take), checked against sums done by
 * hand and, field by field, against the event path (every span as a wt_event, span by span,
 * which none of the runs touch); and the waiting rule's bound on remembered spans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis_ways.h"
#include "tracebuild.h"
#include "xorshift.h"

#define NS 1e-9

static const wt_ledger_thread *thread_of(const wt_analysis *a, uint64_t tid)
{
    const wt_ledger_result *r = wt_ledger_calc_result(a->lc);
    for (size_t i = 0; i < r->n_threads; i++)
        if (r->threads[i].tid == tid)
            return &r->threads[i];
    fail_msg("no thread %llu", (unsigned long long)tid);
    return NULL;
}

/* Seconds equal to `ns` nanoseconds within rounding. */
static void assert_secs(double s, int64_t ns)
{
    const double want = (double)ns * NS;
    assert_true(s > want - 1e-12 * (want + 1e-9) && s < want + 1e-12 * (want + 1e-9));
}

static void span(tb *b, uint64_t tid, int64_t s, int64_t e, uint32_t depth, const char *cat,
                 const char *label, wt_cached c, int64_t count, int64_t bytes)
{
    tb_span_desc d;
    memset(&d, 0, sizeof d);
    d.tid = tid;
    d.start = s;
    d.end = e;
    d.depth = depth;
    d.category = cat;
    d.label = label;
    d.cached = c;
    d.count = count;
    d.bytes = bytes;
    tb_span_ex(b, &d);
}

/* The lone top-level spans of file A's main thread: 3000 of one label, mostly HIT. */
#define A_SPANS 3000
static int64_t a_dur(int i) { return 100 + (i * 7919) % 1000; }
static wt_cached a_cached(int i) { return i % 500 == 7 ? WT_CACHED_UNKNOWN : WT_CACHED_HIT; }
static int64_t a_count(int i) { return i % 10 == 0 ? 2 : 1; }
static int64_t a_bytes(int i) { return i % 4 == 0 ? 4096 : 0; }

/* Two files of lone top-level spans on main threads: file A (pid 7,
 * from 1,000 ns) has 3000 spans 2 us apart, a MISS of 5 us and one of another label, the
 * only span of its label (held against the category's median HIT); file B (pid 8, from 20 ms,
 * no end record) starts with 3000 spans of a category of their own that ended before its
 * process started (no wall: their intervals are empty) and one of 8,276 ns that began before
 * it (only its last 101 ns are wall), then 3000 as A's. That span comes in a batch run, which
 * clips its interval to the process start: its share of the wall is self x (fresh / self),
 * 101.00000000000001 ns in doubles. */
static void test_runs_lone_tops(void **state)
{
    (void)state;
    char pa[64], pb[64];
    snprintf(pa, sizeof pa, "test_ledger_runs_a_%d.wtrace", (int)getpid());
    snprintf(pb, sizeof pb, "test_ledger_runs_b_%d.wtrace", (int)getpid());
    int64_t flat = 0, count = 0, bytes = 0, hits = 0;
    tb *b = tb_create(pa, 7, 1000, 1000);
    for (int i = 0; i < A_SPANS; i++) {
        const int64_t s = 10000 + 2000 * (int64_t)i;
        span(b, 7, s, s + a_dur(i), 0, "work", "step", a_cached(i), a_count(i), a_bytes(i));
        flat += a_dur(i);
        count += a_count(i);
        bytes += a_bytes(i);
        hits += a_cached(i) == WT_CACHED_HIT;
    }
    span(b, 7, 6100000, 6105000, 0, "work", "step", WT_CACHED_MISS, 1, 0);
    span(b, 7, 6110000, 6112000, 0, "work", "cold", WT_CACHED_MISS, 1, 0);
    tb_close(b, TB_END_CLEAN, 6200000, 0);
    const int64_t flat_a = flat + 5000 + 2000;

    b = tb_create(pb, 8, 20000000, 20000000);
    for (int i = 0; i < A_SPANS; i++)
        span(b, 8, 12000000 + 2000 * i, 12001000 + 2000 * i, 0, "early", "e", WT_CACHED_HIT, 1,
             0);
    span(b, 8, 19991825, 20000101, 0, "early", "e", WT_CACHED_HIT, 1, 0);
    for (int i = 0; i < A_SPANS; i++) {
        const int64_t s = 20001000 + 2000 * (int64_t)i;
        span(b, 8, s, s + a_dur(i), 0, "work", "step", a_cached(i), a_count(i), a_bytes(i));
    }
    tb_close(b, TB_END_NONE, 0, 0);
    const int64_t b_last = 20001000 + 2000 * (A_SPANS - 1) + a_dur(A_SPANS - 1);

    char *paths[2] = { pa, pb };
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        aw_analyse(paths, 2, way, &w[way]);
        const wt_ledger_cat *c = aw_cat_named(&w[way], "work");
        /* by hand: every span of both files; B's two first spans 1,000 and 8,100 ns */
        assert_int_equal(c->spans, 2 * A_SPANS + 2);
        assert_int_equal(c->count, 2 * count + 2);
        assert_int_equal(c->bytes, 2 * bytes);
        assert_int_equal(c->hits, 2 * hits);
        assert_int_equal(c->misses, 2);
        assert_secs(c->flat_seconds, flat_a + flat);
        assert_secs(c->self_seconds, flat_a + flat);
        assert_secs(c->inclusive, flat_a + flat);
        assert_secs(c->seconds, flat_a + flat);
        const wt_ledger_cat *e = aw_cat_named(&w[way], "early");
        const int64_t b_early = A_SPANS * 1000 + 8276;
        assert_int_equal(e->spans, A_SPANS + 1);
        assert_int_equal(e->hits, A_SPANS + 1);
        assert_secs(e->flat_seconds, b_early);
        assert_secs(e->self_seconds, b_early);
        /* the wall it covered: of B's early spans only the last one's 101 ns */
        assert_secs(e->seconds, 101);
        /* per process: A's "work", B's "early" and "work" */
        const wt_ledger_result *r = wt_ledger_calc_result(w[way].lc);
        assert_int_equal(r->n_procs, 2);
        assert_secs(r->procs[0].cat_seconds[c - r->cats], flat_a);
        assert_secs(r->procs[1].cat_seconds[e - r->cats], b_early);
        assert_secs(r->procs[1].cat_seconds[c - r->cats], flat);
        assert_secs(thread_of(&w[way], 7)->busy, flat_a);
        /* busy is within the wall: of B's early spans only the last one's 101 ns */
        assert_secs(thread_of(&w[way], 8)->busy, 101 + flat);
        assert_int_equal(wt_anomalies_count(w[way].an, WT_AN_MISS), 2);
        /* B's wall and its NO END RECORD end at its last span */
        size_t na;
        const wt_anomaly *an = wt_anomalies_list(w[way].an, &na);
        size_t no_end = 0;
        for (size_t i = 0; i < na; i++)
            if (an[i].kind == WT_AN_NO_END) {
                assert_int_equal(an[i].ts, b_last);
                no_end++;
            }
        assert_int_equal(no_end, 1);
    }
    aw_check_ways(w);
    aw_check_joined(paths, 2, &w[0]);
    aw_release_ways(w);
    unlink(pa);
    unlink(pb);
}

/* A phase's child m: its start after the phase's, its duration. */
#define PHASES 400
#define KIDS 9
static int64_t kid_at(int m) { return 100 + 1000 * (int64_t)m; }
static int64_t kid_dur(int j, int m) { return 200 + (j + m) % 13; }

/* A main thread (pid = tid = 9) of 400 phases of 9,500 ns, each with 9 loads at depth 1 (one
 * category, nine labels) before it, as a recorder writes them; inside phase 300 a worker
 * (tid 10), whose only span it is, runs [1150, 2450) ns after the phase's start, written
 * after the phase's second load. By hand: the loads' durations are 200 + (j + m) % 13; the
 * main thread waited on the worker for the part of it outside the phase's children 1 ([1100,
 * 1302)) and 2 ([2100, 2303)): 1300 - 152 - 203 = 945 ns. The phases before the worker take
 * the waiting rule's quick case (their only remembered spans are their own children, sorted
 * and inside them), phase 300 must not (the worker's span is among them, sorted too). */
static void test_runs_leaves_and_waiting(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_ledger_runs_n_%d.wtrace", (int)getpid());
    tb *b = tb_create(path, 9, 1000, 1000);
    static const char *const labels[KIDS] = { "l0", "l1", "l2", "l3", "l4",
                                              "l5", "l6", "l7", "l8" };
    int64_t kids = 0;
    for (int j = 0; j < PHASES; j++) {
        const int64_t p = 100000 + 10000 * (int64_t)j;
        for (int m = 0; m < KIDS; m++) {
            span(b, 9, p + kid_at(m), p + kid_at(m) + kid_dur(j, m), 1, "weights", labels[m],
                 WT_CACHED_HIT, 1, 1024);
            kids += kid_dur(j, m);
            if (j == 300 && m == 1) /* the array stays sorted by start */
                span(b, 10, p + 1150, p + 2450, 0, "worker", "w", WT_CACHED_UNKNOWN, 1, 0);
        }
        span(b, 9, p, p + 9500, 0, "phase", "load", WT_CACHED_UNKNOWN, 1, 0);
    }
    tb_close(b, TB_END_CLEAN, 100000 + 10000 * PHASES, 0);
    assert_int_equal(kid_dur(300, 1), 202);
    assert_int_equal(kid_dur(300, 2), 203);

    char *paths[1] = { path };
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        aw_analyse(paths, 1, way, &w[way]);
        const wt_ledger_cat *k = aw_cat_named(&w[way], "weights"), *p = aw_cat_named(&w[way], "phase");
        assert_int_equal(k->spans, PHASES * KIDS);
        assert_int_equal(k->hits, PHASES * KIDS);
        assert_int_equal(k->bytes, PHASES * KIDS * 1024);
        assert_secs(k->flat_seconds, kids);
        assert_secs(k->self_seconds, kids);
        assert_secs(k->inclusive, kids);
        assert_int_equal(p->spans, PHASES);
        assert_secs(p->flat_seconds, PHASES * 9500);
        assert_secs(p->self_seconds, PHASES * 9500 - kids);
        assert_secs(p->inclusive, PHASES * 9500);
        assert_secs(thread_of(&w[way], 9)->busy, PHASES * 9500);
        assert_secs(thread_of(&w[way], 9)->waiting, 945);
        assert_secs(thread_of(&w[way], 10)->busy, 1300);
    }
    aw_check_ways(w);
    aw_check_joined(paths, 1, &w[0]);
    aw_release_ways(w);
    unlink(path);
}

/* A worker (tid 61) writes 70,000 top-level spans of 3 ns, span i at 10,000 + 10 i, then its
 * main thread (pid = tid = 50) one span P = [p_start, p_end). At the 65,537th remembered
 * span the oldest 32,768 by start are forgotten (ledger_wait.c forget_half()), equal starts
 * in arrival order. `ties`: a second worker (tid 63) writes [337,670, 337,675) just before the
 * first's span 32,767 of the same start, and a third (tid 64) [337,770, 337,781) after its
 * span 40,000. Else a fourth (tid 62), after the first's span 49,999, writes 100 spans of 11
 * ns at 400,000 + 20 j: remembered after spans of later starts, so out of order. */
static void forget_trace(const char *path, int ties, int64_t p_start, int64_t p_end)
{
    tb *b = tb_create(path, 50, 1000, 1000);
    for (int i = 0; i < 70000; i++) {
        const int64_t s = 10000 + 10 * (int64_t)i;
        if (ties && i == 32767)
            span(b, 63, s, s + 5, 0, "w", "w", WT_CACHED_UNKNOWN, 1, 0);
        span(b, 61, s, s + 3, 0, "w", "w", WT_CACHED_UNKNOWN, 1, 0);
        if (ties && i == 40000)
            span(b, 64, 337770, 337781, 0, "w", "w", WT_CACHED_UNKNOWN, 1, 0);
        for (int j = 0; !ties && i == 49999 && j < 100; j++)
            span(b, 62, 400000 + 20 * j, 400011 + 20 * j, 0, "w", "w", WT_CACHED_UNKNOWN, 1, 0);
    }
    span(b, 50, p_start, p_end, 0, "main", "m", WT_CACHED_UNKNOWN, 1, 0);
    tb_close(b, TB_END_CLEAN, 800000, 0);
}

/* P = [337,670, 710,010): the first worker began before it, so P waits only on the others. By rank
 * the forgotten are the first worker's spans 0 to 32,766 and, of the two at 337,670, the one
 * that came first: the second worker's. So P waited on the third's 11 ns alone; keeping both
 * at the tie, or the later one's partner, makes it 16. */
static void test_wait_forgets_oldest_half(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_ledger_runs_w_%d.wtrace", (int)getpid());
    forget_trace(path, 1, 337670, 710010);
    char *paths[1] = { path };
    wt_analysis w;
    aw_analyse(paths, 1, 0, &w);
    assert_secs(thread_of(&w, 50)->waiting, 11);
    assert_secs(thread_of(&w, 63)->busy, 5);
    wt_analysis_release(&w);
    unlink(path);
}

/* P = [400,000, 450,000): it waited on the fourth worker's 100 spans, all remembered still:
 * 1,100 ns. They sit in the array after spans that start past P's end, so the scan of the
 * spans inside P needs the array sorted again. */
static void test_wait_forgets_out_of_order(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_ledger_runs_o_%d.wtrace", (int)getpid());
    forget_trace(path, 0, 400000, 450000);
    char *paths[1] = { path };
    wt_analysis w;
    aw_analyse(paths, 1, 0, &w);
    assert_secs(thread_of(&w, 50)->waiting, 1100);
    assert_secs(thread_of(&w, 62)->busy, 1100);
    wt_analysis_release(&w);
    unlink(path);
}

/* A main thread (pid = tid = 9) of 300 phases of 10,000 ns, each with 6 children at depth 1
 * (one category) that end in order but start in no order (each up to 2,600 ns long, ends
 * about 1,000 ns apart: siblings overlap), and in every third phase a worker of its own (tid
 * 10 + the phase), its first and only span inside the phase, written after the third child:
 * the array of remembered spans gets out of order within a run of leaves, and where the
 * batch path's runs keep it (leaf_run()) must give what the event path's
 * wt__ledger_wait_remember() does: the same waiting, the same everything. */
static void test_runs_children_out_of_order(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_ledger_runs_o_%d.wtrace", (int)getpid());
    tb *b = tb_create(path, 9, 1000, 1000);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int64_t kids = 0, workers = 0;
    for (int j = 0; j < 300; j++) {
        const int64_t p = 100000 + 20000 * (int64_t)j;
        for (int m = 0; m < 6; m++) {
            const int64_t e = p + 1000 * (m + 2) + (int64_t)(xorshift64(&x) % 300);
            int64_t st = e - 100 - (int64_t)(xorshift64(&x) % 2500);
            st = st < p + 10 ? p + 10 : st;
            span(b, 9, st, e, 1, "weights", "w", WT_CACHED_HIT, 1, 0);
            kids++;
            if (j % 3 == 0 && m == 2) {
                const int64_t ws = p + 500 + (int64_t)(xorshift64(&x) % 3000);
                span(b, 10 + (uint64_t)j, ws, ws + 2000, 0, "worker", "w", WT_CACHED_UNKNOWN,
                     1, 0);
                workers++;
            }
        }
        span(b, 9, p, p + 10000, 0, "phase", "load", WT_CACHED_UNKNOWN, 1, 0);
    }
    tb_close(b, TB_END_CLEAN, 100000 + 20000 * 300, 0);

    char *paths[1] = { path };
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        aw_analyse(paths, 1, way, &w[way]);
        assert_int_equal(aw_cat_named(&w[way], "weights")->spans, kids);
        assert_int_equal(aw_cat_named(&w[way], "worker")->spans, workers);
        assert_int_equal(aw_cat_named(&w[way], "phase")->spans, 300);
        assert_true(thread_of(&w[way], 9)->waiting > 0); /* some worker outside the children */
    }
    aw_check_ways(w);
    aw_check_joined(paths, 1, &w[0]);
    aw_release_ways(w);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_lone_tops),
        cmocka_unit_test(test_runs_leaves_and_waiting),
        cmocka_unit_test(test_runs_children_out_of_order),
        cmocka_unit_test(test_wait_forgets_oldest_half),
        cmocka_unit_test(test_wait_forgets_out_of_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
