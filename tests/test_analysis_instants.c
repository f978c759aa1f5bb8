/* Counter samples and marks on analysis.c's direct path (pair_event(): the ledger's and the
 * anomalies' instant calls, without their event calls' dispatch): hand-built traces whose
 * instants move the clocks (a file's first and last time, its wall, the NO END anomaly's time)
 * and fall behind a SYNC watermark, checked against values worked out by hand and, exactly,
 * against the event path (a caller's event callback sends every event through the two
 * analyses' event calls). And batches whose counter samples lie among spans of every case,
 * which the direct path sorts into their spans and their samples' times. */
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

#define S 1000000000LL /* one second in ns */

/* The process `pid`'s row of the ledger (fails the test when there is none). */
static const wt_ledger_process *proc_of(const wt_analysis *a, uint64_t pid)
{
    const wt_ledger_result *r = wt_ledger_calc_result(a->lc);
    for (size_t i = 0; i < r->n_procs; i++)
        if (r->procs[i].pid == pid)
            return &r->procs[i];
    fail_msg("no process %llu", (unsigned long long)pid);
    return NULL;
}

/* The time of the anomaly of kind k with title `title` (fails the test when there is none). */
static int64_t anomaly_ts(const wt_analysis *a, wt_anomaly_kind k, const char *title)
{
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(a->an, &n);
    for (size_t i = 0; i < n; i++)
        if (v[i].kind == k && strcmp(v[i].title, title) == 0)
            return v[i].ts;
    fail_msg("no anomaly '%s'", title);
    return 0;
}

/* File A (pid 9, process start 1 s, no end record): 100 top-level spans 1 ms apart from 1 s,
 * 500 us each, each followed by a counter sample 600 us after its start and every second one
 * by a mark at 700 us; a SYNC at 1.3 s (watermark 1.2 s: WT_SYNC_SLACK_NS before it), then a
 * counter at 1.1 s and a mark at 1.15 s (both late), counters at 1.2 s and 1.25 s (not late: the
 * first is at the watermark, not behind it), and last a
 * counter at 2 s: the file's last event, so its wall ends there (1 s of wall) and so does its
 * NO END anomaly. File B (pid 10, no process start nor open time: its first event starts its
 * wall) begins with a counter at 5 s, then a span [5.5 s, 5.6 s), and ends with a mark at 7 s
 * past its end record's 6.9 s: 2 s of wall. Events: the 101 spans; A's 100 + 50 + 1 + 5 others,
 * B's 2 and its end record. */
static void instants_trace(const char *pa, const char *pb)
{
    tb *b = tb_create(pa, 9, S, S);
    for (int i = 0; i < 100; i++) {
        const int64_t s = S + 1000000LL * i;
        tb_span(b, 9, s, s + 500000, 0, "work", "step");
        tb_counter(b, 9, s + 600000, "queue", i);
        if (i % 2 == 0)
            tb_mark(b, 9, s + 700000, "work", "tick", NULL);
    }
    tb_sync(b, S + 300000000);
    tb_counter(b, 9, S + 100000000, "queue", -1);
    tb_mark(b, 9, S + 150000000, "work", "late", NULL);
    tb_counter(b, 9, S + 200000000, "queue", -2);
    tb_counter(b, 9, S + 250000000, "queue", -3);
    tb_counter(b, 9, 2 * S, "queue", -4);
    tb_close(b, TB_END_NONE, 0, 0);

    b = tb_create(pb, 10, 0, 0);
    tb_counter(b, 10, 5 * S, "queue", 1);
    tb_span(b, 10, 5 * S + S / 2, 5 * S + 6 * S / 10, 0, "work", "step");
    tb_mark(b, 10, 7 * S, "work", "after", NULL);
    tb_close(b, TB_END_CLEAN, 6 * S + 9 * S / 10, 0);
}

static void test_instants_move_clocks(void **state)
{
    (void)state;
    char pa[64], pb[64];
    snprintf(pa, sizeof pa, "test_analysis_instants_a_%d.wtrace", (int)getpid());
    snprintf(pb, sizeof pb, "test_analysis_instants_b_%d.wtrace", (int)getpid());
    instants_trace(pa, pb);
    char *paths[2] = { pa, pb };
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        aw_analyse(paths, 2, way, &w[way]);
        const wt_ledger_result *r = wt_ledger_calc_result(w[way].lc);
        assert_int_equal(r->spans, 101);
        assert_int_equal(r->events, 101 + 100 + 50 + 1 + 5 + 2 + 1); /* spans too */
        assert_int_equal(r->late, 2);
        const wt_ledger_process *a = proc_of(&w[way], 9), *b = proc_of(&w[way], 10);
        assert_int_equal(a->late, 2);
        assert_true(a->no_end && !b->no_end);
        assert_true(a->wall == 1.0);
        assert_true(b->wall == 2.0);
        assert_int_equal(anomaly_ts(&w[way], WT_AN_NO_END, "NO END RECORD"), 2 * S);
    }
    aw_check_ways(w);
    aw_check_joined(paths, 2, &w[0]);
    const wt_ledger_result *r0 = wt_ledger_calc_result(w[0].lc);
    for (int way = 1; way < AW_WAYS; way++) {
        const wt_ledger_result *r1 = wt_ledger_calc_result(w[way].lc);
        assert_int_equal(r0->events, r1->events);
        assert_int_equal(r0->late, r1->late);
        for (size_t i = 0; i < r0->n_procs; i++)
            assert_true(r0->procs[i].wall == r1->procs[i].wall &&
                        r0->procs[i].late == r1->procs[i].late);
    }
    aw_release_ways(w);
    unlink(pa);
    unlink(pb);
}

/* bench_analyze's counters shape and its variants: runs of 0 to 6 spans between runs of 0 to 4
 * counter samples, on two threads in turn (the reader's record batches end at each change of
 * thread and frame); then, after a SYNC at 1.3 s (watermark 1.2 s), a span on thread 1 and 200
 * samples on thread 2 from 1.05 s (behind the watermark: late), and a span and 200 samples on
 * thread 1 up to 1.5 s, the file's last event (no end record): most of both runs come in
 * batches whatever the batches' back-off. So the batches' samples must count as events, be
 * late, and move the wall and the NO END anomaly's time, as on the event path. Spans are 1 us,
 * top-level, 10 ns apart. */
static void test_counter_samples_in_batches(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_analysis_instants_c_%d.wtrace", (int)getpid());
    tb *b = tb_create(path, 5, S, S);
    int64_t t = S, spans = 0, samples = 0, in_c1 = 0;
    for (int i = 0; i < 700; i++) {
        const uint64_t tid = 1 + (uint64_t)(i / 50) % 2;
        if (i % 50 == 0)
            tb_frame(b);
        for (int k = 0; k < i % 7; k++, spans++) {
            const int c1 = (i + k) % 2;
            char label[16];
            snprintf(label, sizeof label, "l%d", (i + k) % 3);
            tb_span(b, tid, t, t + 1000, 0, c1 ? "c1" : "c0", label);
            in_c1 += c1;
            t += 1010;
        }
        for (int k = 0; k < (i * 3) % 5; k++, samples++)
            tb_counter(b, tid, t + k, k % 2 ? "queue" : "depth", i * 10 + k);
        t += 10;
    }
    assert_true(t < S + S / 20); /* all before the late samples (a thread's times only grow) */
    tb_sync(b, S + 300000000);
    tb_span(b, 1, S + S / 4, S + S / 4 + 1000, 0, "c0", "l0");
    for (int k = 0; k < 200; k++)
        tb_counter(b, 2, S + S / 20 + k, "queue", -k);
    tb_span(b, 1, S + S / 4 + 2000, S + S / 4 + 3000, 0, "c0", "l0");
    for (int k = 0; k < 200; k++)
        tb_counter(b, 1, S + S / 2 - 1000 * (199 - k), "depth", k);
    tb_close(b, TB_END_NONE, 0, 0);
    spans += 2;
    samples += 400;

    char *paths[1] = { path };
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        aw_analyse(paths, 1, way, &w[way]);
        const wt_ledger_result *r = wt_ledger_calc_result(w[way].lc);
        assert_int_equal(r->spans, spans);
        assert_int_equal(r->events, spans + samples + 1); /* and the SYNC */
        assert_int_equal(r->late, 200);
        assert_int_equal(aw_cat_named(&w[way], "c1")->spans, in_c1);
        assert_int_equal(aw_cat_named(&w[way], "c0")->spans, spans - in_c1);
        const wt_ledger_process *a = proc_of(&w[way], 5);
        assert_true(a->no_end);
        assert_true(a->wall == 0.5);
        assert_int_equal(anomaly_ts(&w[way], WT_AN_NO_END, "NO END RECORD"), S + S / 2);
    }
    aw_check_ways(w);
    aw_check_joined(paths, 1, &w[0]);
    aw_release_ways(w);
    unlink(path);
}

/* What test_samples_among_trees() wrote, counted as it writes. */
typedef struct tree_counts {
    int64_t spans, samples, late, wm; /* late: behind the SYNC watermark wm */
    uint64_t x;                       /* the draws */
    int quiet;                        /* no samples now */
} tree_counts;

/* Span d, then up to three counter samples at its end on its thread (as the draw says). */
static void span_then_samples(tb *b, const tb_span_desc *d, tree_counts *n)
{
    tb_span_ex(b, d);
    const int m = n->quiet ? 0 : (int)(xorshift64(&n->x) % 4);
    for (int k = 0; k < m; k++)
        tb_counter(b, d->tid, d->end, k % 2 ? "queue" : "depth", (int64_t)k);
    n->spans++;
    n->samples += m;
    n->late += (1 + m) * (d->end < n->wm);
}

/* A file (pid 3, no process start nor open time) of 3,000 trees on two threads (a main thread
 * 3 and a worker 4, 40 trees each in turn, a frame each): a lone top-level span, or a phase
 * over 1-9 leaves at depth 1 (some over a child of their own at depth 2), of random
 * categories, labels and HIT / MISS / unknown, with 0-3 counter samples after every span, so
 * that the batches hold spans of every case of the ledger's and the anomalies' runs among
 * samples. It opens with a sample (the wall starts there) and, after a SYNC at the end of the
 * last tree (watermark 100 ms before), 200 trees more on thread 4 from 50 us before the
 * watermark, whose spans and samples before the watermark are late (with no sample after the
 * spans of the 50th to the 149th: joined, a stretch of spans alone), and ends with a sample
 * 10 us after the SYNC (the wall, and the NO END anomaly, end there). Every way holds
 * the counts worked out while writing, and the ways and the joined batches the same results;
 * the samples' times commute with the spans in the direct path's sort of a batch. */
static void test_samples_among_trees(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_analysis_instants_t_%d.wtrace", (int)getpid());
    static const char *const cats[3] = { "load", "io", "step" };
    static const char *const labels[5] = { "l0", "l1", "l2", "l3", "l4" };
    static const wt_cached cached[3] = { WT_CACHED_HIT, WT_CACHED_MISS, WT_CACHED_UNKNOWN };
    tree_counts n = { 0, 1, 0, INT64_MIN, 0x2545F4914F6CDD1Dull, 0 };
    uint64_t *const x = &n.x;
    tb *b = tb_create(path, 3, 0, 0);
    const int64_t first = 5000;
    tb_counter(b, 3, first, "depth", 1);
    int64_t t = 10000, last = 0;
    for (int r = 0; r < 3200; r++) {
        if (r == 3000) {
            tb_sync(b, t + WT_SYNC_SLACK_NS);
            n.wm = t;
            t -= 50000; /* thread 4 ended its last tree before */
        }
        const uint64_t tid = r >= 3000 || (r / 40) % 2 ? 4 : 3;
        n.quiet = r >= 3050 && r < 3150; /* some 300 spans in a row without a sample */
        if (r % 40 == 0)
            tb_frame(b);
        const int kind = (int)(xorshift64(x) % 3), n_leaves = 1 + (int)(xorshift64(x) % 9);
        const int64_t top = t;
        for (int k = 0; kind > 0 && k < n_leaves; k++) {
            const int64_t s0 = t + 10;
            if (kind == 2 && k % 3 == 0) /* a child at depth 2 first */
                span_then_samples(b,
                                  &(tb_span_desc){ .tid = tid, .start = s0 + 5, .end = s0 + 300,
                                                   .depth = 2, .category = cats[xorshift64(x) % 3],
                                                   .label = labels[xorshift64(x) % 5] },
                                  &n);
            const tb_span_desc d = { .tid = tid, .start = s0,
                                     .end = s0 + 400 + (int64_t)(xorshift64(x) % 600), .depth = 1,
                                     .category = cats[xorshift64(x) % 2],
                                     .label = labels[xorshift64(x) % 5],
                                     .cached = cached[xorshift64(x) % 3] };
            span_then_samples(b, &d, &n);
            t = d.end;
        }
        const tb_span_desc d = { .tid = tid, .start = top,
                                 .end = t + 20 + (int64_t)(xorshift64(x) % 100), .depth = 0,
                                 .category = kind ? "phase" : cats[xorshift64(x) % 3],
                                 .label = labels[xorshift64(x) % 5],
                                 .cached = cached[xorshift64(x) % 3] };
        span_then_samples(b, &d, &n);
        t = d.end + 50;
        last = d.end;
    }
    assert_true(n.late > 20 && t > n.wm); /* late spans and samples, and then timely ones */
    const int64_t end_at = n.wm + WT_SYNC_SLACK_NS + 10000; /* past the SYNC itself */
    assert_true(end_at > last);
    tb_counter(b, 4, end_at, "depth", 2);
    n.samples++;
    tb_close(b, TB_END_NONE, 0, 0);

    char *paths[1] = { path };
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        aw_analyse(paths, 1, way, &w[way]);
        const wt_ledger_result *r = wt_ledger_calc_result(w[way].lc);
        assert_int_equal(r->spans, n.spans);
        assert_int_equal(r->events, n.spans + n.samples + 1); /* and the SYNC */
        assert_int_equal(r->late, n.late);
        const wt_ledger_process *a = proc_of(&w[way], 3);
        assert_true(a->no_end);
        assert_true(a->wall == (double)(end_at - first) * 1e-9);
        assert_int_equal(anomaly_ts(&w[way], WT_AN_NO_END, "NO END RECORD"), end_at);
    }
    aw_check_ways(w);
    aw_check_joined(paths, 1, &w[0]);
    aw_release_ways(w);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_instants_move_clocks),
        cmocka_unit_test(test_counter_samples_in_batches),
        cmocka_unit_test(test_samples_among_trees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
