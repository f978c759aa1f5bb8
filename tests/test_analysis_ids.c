/* The ledger and anomalies on the reader's span batches, keyed by string ids (analysis.c's
 * per-file id table): hand-built traces whose ids change meaning (a string lost with a damaged
 * frame then defined again: the string epoch; two files whose ids name different strings),
 * checked against sums done by hand and against the event path (every span as a wt_event). */
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
#define EPS 1e-15

/* Runs the files the given way (analysis_ways.h: 0 the batch (id) path, 1 the event path)
 * into *a (release it); `want_damaged` of them must be damaged. */
static void analyse(char *const *paths, int n, int way, wt_analysis *a, int want_damaged)
{
    aw_analyse(paths, n, way, a);
    assert_int_equal(a->res.files_damaged, want_damaged);
}

/* Category `name` has `spans` spans summing `ns` ns (flat), `hits` HITs and `misses` MISSes. */
static void check_cat(const wt_analysis *a, const char *name, int64_t spans, int64_t ns,
                      int64_t hits, int64_t misses)
{
    const wt_ledger_cat *c = aw_cat_named(a, name);
    assert_int_equal(c->spans, spans);
    assert_true(c->flat_seconds > (double)ns * NS - EPS && c->flat_seconds < (double)ns * NS + EPS);
    assert_int_equal(c->hits, hits);
    assert_int_equal(c->misses, misses);
}

static void span(tb *b, int64_t s, int64_t e, const char *cat, const char *label, wt_cached c)
{
    tb_span_desc d;
    memset(&d, 0, sizeof d);
    d.tid = 1;
    d.start = s;
    d.end = e;
    d.category = cat;
    d.label = label;
    d.cached = c;
    tb_span_ex(b, &d);
}

/* A category lost with a damaged frame in the middle, read by id as "(unknown string 3)",
 * then defined again (the string epoch changes): the spans before go to the unknown name,
 * those after to "lost", though both have the same (category id, label id). */
static void test_ids_epoch_and_damage(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_analysis_ids_%d.wtrace", (int)getpid());
    tb *b = tb_create(path, 5, 0, 0);
    tb_meta(b, 1, 1, "k", "l"); /* ids 1, 2 */
    tb_frame(b);
    span(b, 10, 20, "lost", "l", WT_CACHED_UNKNOWN); /* "lost" is id 3, defined here */
    tb_frame(b);
    /* frame 3: 3000 "k" of 100 ns, then 3000 "lost" (by id only) of 100 ns, all HIT: the
     * label's id is last seen with the category id 3 (past the 255 spans of a category's
     * reservoir, the analyses' common cases take most spans) */
    for (int i = 0; i < 6000; i++)
        span(b, 1000 + 200 * i, 1100 + 200 * i, i < 3000 ? "k" : "lost", "l", WT_CACHED_HIT);
    tb_frame(b);
    /* frame 4: "lost" defined again, then 3000 "lost" of 50 ns (HIT) with the same ids as
     * frame 3's last spans, then four "k" of 50 ns (MISS) */
    tb_redefine(b, "lost");
    for (int i = 0; i < 3004; i++)
        span(b, 2000000 + 100 * i, 2000050 + 100 * i, i < 3000 ? "lost" : "k", "l",
             i < 3000 ? WT_CACHED_HIT : WT_CACHED_MISS);
    tb_close(b, TB_END_CLEAN, 3000000, 0);
    size_t len, at[8];
    unsigned char *d = tb_read_file(path, &len);
    assert_true(tb_frame_starts(d, len, at, 8) >= 4);
    d[at[1] + 12] ^= 0xFF; /* frame 2 lost: "lost"'s first definition with it */
    d[at[1] + 14] ^= 0xFF;
    tb_write_file(path, d, len);
    free(d);

    char *paths[1] = { path };
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        analyse(paths, 1, way, &w[way], 1);
        /* by hand: frame 2's span is gone; frame 3's "lost" under the unknown name */
        check_cat(&w[way], "(unknown string 3)", 3000, 3000 * 100, 3000, 0);
        check_cat(&w[way], "lost", 3000, 3000 * 50, 3000, 0);
        check_cat(&w[way], "k", 3004, 3000 * 100 + 4 * 50, 3000, 4);
    }
    aw_check_ways(w);
    aw_release_ways(w);
    unlink(path);
}

/* One file of pid `pid` that defines strings c1 (id 1), "l" (2), c2 (3) first, then has spans
 * (category, label "l"): `n1` of `ns1` ns in category c3, then `n2` of `ns2` in c4. */
static void two_cats(const char *path, uint64_t pid, const char *c1, const char *c2,
                     const char *c3, int n1, int64_t ns1, const char *c4, int n2, int64_t ns2)
{
    tb *b = tb_create(path, pid, 0, 0);
    tb_meta(b, 1, 1, c1, "l");
    tb_meta(b, 1, 2, c2, c2);
    tb_frame(b);
    int64_t t = 100;
    for (int i = 0; i < n1; i++, t += 1000)
        span(b, t, t + ns1, c3, "l", WT_CACHED_HIT);
    for (int i = 0; i < n2; i++, t += 1000)
        span(b, t, t + ns2, c4, "l", WT_CACHED_HIT);
    tb_close(b, TB_END_CLEAN, t, 0);
}

/* Two files whose ids name different strings ("a" and "b" swap ids 1 and 3): the table starts
 * again at each file. The first file's last spans are "b" (id 3), the second's first "a" (id
 * 3 there), with the same label id. */
static void test_ids_reset_per_file(void **state)
{
    (void)state;
    char pa[64], pb[64];
    snprintf(pa, sizeof pa, "test_analysis_ids_a_%d.wtrace", (int)getpid());
    snprintf(pb, sizeof pb, "test_analysis_ids_b_%d.wtrace", (int)getpid());
    two_cats(pa, 5, "a", "b", "a", 3000, 100, "b", 3000, 200);
    two_cats(pb, 6, "b", "a", "a", 3000, 50, "b", 3000, 300);
    char *paths[2] = { pa, pb };
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        analyse(paths, 2, way, &w[way], 0);
        check_cat(&w[way], "a", 3000 + 3000, 3000 * 100 + 3000 * 50, 6000, 0);
        check_cat(&w[way], "b", 3000 + 3000, 3000 * 200 + 3000 * 300, 6000, 0);
    }
    aw_check_ways(w);
    aw_check_joined(paths, 2, &w[0]);
    aw_release_ways(w);
    unlink(pa);
    unlink(pb);
}

/* Many labels in random order, a quarter MISSes (past the 10,000 listed ones, most are only
 * counted): with 40 labels, 1,500 spans a label, each key's reservoirs fill, then sample, mostly
 * in the anomalies' batch runs (their common case takes the spans that add a sample without
 * growing a reservoir); with 1,100 labels (past the keys where the runs prefetch) they fill.
 * The event path is the model: every listed MISS's cost is its duration over its label's
 * median HIT (a label without HITs: its category's), every outlier's over its label's median
 * span, so a sample lost or added twice shows. The counts by hand. */
static void many_labels(int labels, int n_spans)
{
    char path[64];
    snprintf(path, sizeof path, "test_analysis_ids_many_%d.wtrace", (int)getpid());
    tb *b = tb_create(path, 7, 0, 0);
    tb_frame(b);
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    int64_t t = 100, ns = 0, hits = 0, misses = 0;
    char label[16];
    for (int i = 0; i < n_spans; i++) {
        const uint64_t r = xorshift64(&x);
        /* every 500th a MISS of a label that never hits: held against the category's HITs */
        const int cold = i % 500 == 0;
        snprintf(label, sizeof label, cold ? "cold" : "w%d", (int)(r % labels));
        const int64_t dur = (int64_t)(100 + (r >> 20) % 900) * ((r >> 40) % 100 == 0 ? 20 : 1);
        const wt_cached c = cold || (r >> 50) % 4 == 0 ? WT_CACHED_MISS : WT_CACHED_HIT;
        span(b, t, t + dur, "weights", label, c);
        ns += dur;
        hits += c == WT_CACHED_HIT;
        misses += c == WT_CACHED_MISS;
        t += dur + 10;
        if (i % 5000 == 4999)
            tb_frame(b);
    }
    tb_close(b, TB_END_CLEAN, t, 0);
    assert_true(misses > 12000); /* past the listed ones */

    char *paths[1] = { path };
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        analyse(paths, 1, way, &w[way], 0);
        check_cat(&w[way], "weights", n_spans, ns, hits, misses);
    }
    /* the spans came in batches (of at most 256 records), each announced to `also` first */
    assert_true(aw_hinted_batches >= (uint64_t)n_spans / 256);
    aw_check_ways(w);
    aw_check_joined(paths, 1, &w[0]);
    aw_release_ways(w);
    unlink(path);
}

static void test_ids_many_labels_sampled_in_batches(void **state)
{
    (void)state;
    many_labels(40, 60000);
    many_labels(1100, 60000);
}

/* One label under two categories in turn: the id table re-learns the label's entry at each
 * change of category, and the anomalies' key of the pair must follow it (from the ledger's
 * pointer cache), never the other category's. A's HITs last 100 ns and its MISSes 1,000; B's
 * 500 and 2,000: every listed MISS costs its duration over its own category's median HIT,
 * 900 or 1,500 ns, on every way. */
static void test_ids_label_in_two_categories(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_analysis_ids_two_%d.wtrace", (int)getpid());
    tb *b = tb_create(path, 7, 0, 0);
    tb_frame(b);
    int64_t t = 100;
    for (int i = 0; i < 2000; i++) {
        const int in_b = i % 2, miss = (i / 2) % 10 == 0;
        const int64_t dur = in_b ? (miss ? 2000 : 500) : (miss ? 1000 : 100);
        span(b, t, t + dur, in_b ? "B" : "A", "t", miss ? WT_CACHED_MISS : WT_CACHED_HIT);
        t += dur + 10;
        if (i % 300 == 299)
            tb_frame(b);
    }
    tb_close(b, TB_END_CLEAN, t, 0);
    char *paths[1] = { path };
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        analyse(paths, 1, way, &w[way], 0);
        check_cat(&w[way], "A", 1000, 900 * 100 + 100 * 1000, 900, 100);
        check_cat(&w[way], "B", 1000, 900 * 500 + 100 * 2000, 900, 100);
        size_t n;
        const wt_anomaly *v = wt_anomalies_list(w[way].an, &n);
        size_t misses = 0;
        for (size_t i = 0; i < n; i++) {
            if (v[i].kind != WT_AN_MISS)
                continue;
            misses++;
            const double want = strcmp(v[i].category, "A") == 0 ? 900e-9 : 1500e-9;
            assert_true(v[i].cost > want - 1e-15 && v[i].cost < want + 1e-15);
        }
        assert_int_equal(misses, 200);
    }
    aw_check_ways(w);
    aw_check_joined(paths, 1, &w[0]);
    aw_release_ways(w);
    unlink(path);
}

/* Threads past the ledger's bound (WT_MAX_THREADS) fold into "(other threads)": a batch of
 * such a thread takes the event path (wt__ledger_calc_thread() says 1). 16,500 threads of 12
 * spans each, 100 ns, one after another: every way counts them all, the last 116 threads' spans
 * in the fold, and none fails (the batch path used to stop the run with 1: "out of memory"). */
static void test_threads_past_the_bound(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_analysis_ids_threads_%d.wtrace", (int)getpid());
    tb *b = tb_create(path, 3, 1000000000, 1000000000);
    int64_t t = 1000000000;
    for (uint64_t th = 1; th <= WT_MAX_THREADS + 116; th++) {
        for (int k = 0; k < 12; k++, t += 110)
            tb_span(b, th, t, t + 100, 0, "c", "l");
        if (th % 100 == 0)
            tb_frame(b);
    }
    tb_close(b, TB_END_CLEAN, t, 0);
    char *paths[1] = { path };
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        aw_analyse(paths, 1, way, &w[way]);
        const wt_ledger_result *r = wt_ledger_calc_result(w[way].lc);
        assert_int_equal(r->spans, 12 * (WT_MAX_THREADS + 116));
        assert_int_equal(r->n_threads, WT_MAX_THREADS + 1);
        int64_t folded = -1;
        for (size_t i = 0; i < r->n_threads; i++)
            if (r->threads[i].tid == WT_OTHER_TID)
                folded = r->threads[i].spans;
        assert_int_equal(folded, 12 * 116);
    }
    aw_check_ways(w);
    aw_check_joined(paths, 1, &w[0]);
    aw_release_ways(w);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_epoch_and_damage),
        cmocka_unit_test(test_ids_reset_per_file),
        cmocka_unit_test(test_ids_many_labels_sampled_in_batches),
        cmocka_unit_test(test_ids_label_in_two_categories),
        cmocka_unit_test(test_threads_past_the_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
