/* The recorder's exit ledger (rec_ledger.c): the reconciled table the writer computes from
 * its in-memory aggregates must agree with walltime-analyze's ledger of the same trace, must
 * hold values worked out by hand, group its MISS lines, keep a few dozen lines for a
 * 600-tensor load, saturate counts as the analyzer does, and keep the seed's flat table under
 * WALLTIME_SUMMARY=flat. Every scenario runs in a forked child (a fresh recorder) whose
 * stderr is read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthread.h>

#include <cmocka.h>

#include "analysis.h"
#include "walltime/ledger.h"
#include "walltime/walltime.h"

#define RT_DIR_PREFIX "xl" /* this file's temporary directories */
#include "test_recorder_util.h"

/* Busy for `ms` milliseconds of CLOCK_MONOTONIC (sleeping would do, but a real load works). */
static void work_ms(double ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) * 1e-6 < ms);
}

/* The analyzer's reconciled ledger text of `trace` (caller frees). */
static char *analyzer_text(const char *trace)
{
    char *paths[1] = { (char *)trace };
    wt_ledger_opts lo = { .title = "x" };
    const wt_analysis_opts o = { .ledger = &lo };
    wt_analysis a;
    assert_int_equal(wt_analysis_run(paths, 1, &o, &a), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(wt_ledger_calc_render_text(a.lc, f, NULL, 0), 0);
    fclose(f);
    wt_analysis_release(&a);
    return buf;
}

/* The line of `text` that starts with "\n" + name + " ", as a copy without its newline. */
static char *row_line(const char *text, const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *p = strstr(text, key);
    if (!p)
        return NULL;
    p++;
    const size_t n = strcspn(p, "\n");
    return strndup(p, n);
}

/* ---- a load shaped like a real one ------------------------------------------------------ */

#define TENSORS 600

static void *loader(void *arg)
{
    const long id = (long)arg;
    wt_thread_name(id ? "loader1" : "loader0");
    for (int i = (int)id; i < TENSORS; i += 2) {
        char label[64];
        snprintf(label, sizeof label, "layers.%d.w%d", i / 6, i % 6);
        const wt_span w = wt_begin("weight_load", label);
        const wt_span c = wt_begin("convert", label);
        work_ms(0.05 + (i % 7) * 0.01);
        wt_end(c, WT_CACHED_UNKNOWN, 1, NULL);
        const wt_span u = wt_begin("upload", label);
        const wt_span_args a = { .cached = WT_CACHED_UNKNOWN, .count = 1, .bytes = 1 << 20 };
        work_ms(0.02);
        wt_end_ex(u, &a);
        wt_end(w, WT_CACHED_MISS, 1, i % 2 ? "key changed" : NULL);
    }
    return NULL;
}

/* from_pretrained > weight_load > convert/upload on two loader threads, one label per tensor,
 * every weight_load a MISS; then generate > decode on the main thread. */
static int child_model_load(void *arg)
{
    (void)arg;
    setenv("WALLTIME_TRACE", path, 1);
    const wt_span fp = wt_begin("from_pretrained", "model");
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, loader, (void *)i) != 0)
            return 20;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    wt_end(fp, WT_CACHED_UNKNOWN, 1, NULL);
    const wt_span g = wt_begin("generate", "steps");
    for (int k = 0; k < 3; k++) {
        const wt_span s = wt_begin("decode", "step");
        work_ms(5);
        wt_end(s, WT_CACHED_UNKNOWN, 1, NULL);
    }
    wt_end(g, WT_CACHED_UNKNOWN, 1, NULL);
    (void)wt_begin("teardown", "t"); /* still open at exit: ended then, flagged unclosed */
    work_ms(2);
    return 0; /* the ledger prints at exit */
}

static void test_exit_ledger_agrees_with_the_analyzer_on_a_model_load(void **state)
{
    (void)state;
    char err[600];
    snprintf(err, sizeof err, "%s/stderr", dir);
    const int st = rt_run(child_model_load, NULL, err, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char *out = strdup(rt_slurp(err));
    char *an = analyzer_text(path);
    /* every category row is the analyzer's, byte for byte: self, %wall, inclusive, count,
     * HIT/MISS and GB/s notes (both go through wt_ledger_render) */
    static const char *const cats[] = { "convert", "upload", "weight_load", "from_pretrained",
                                        "decode", "generate", "teardown" };
    for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++) {
        char *mine = row_line(out, cats[i]), *theirs = row_line(an, cats[i]);
        assert_non_null(mine);
        assert_non_null(theirs);
        assert_string_equal(mine, theirs);
        free(mine);
        free(theirs);
    }
    char *flight = row_line(out, "in flight at exit"), *flight_an = row_line(an, "in flight at exit");
    assert_non_null(flight);
    assert_string_equal(flight, flight_an);
    free(flight);
    free(flight_an);
    char *tracked = row_line(out, "TOTAL (tracked)"), *tracked_an = row_line(an, "TOTAL (tracked)");
    assert_string_equal(tracked, tracked_an);
    free(tracked);
    free(tracked_an);
    /* the 600 misses are one group and its 10 most costly, not 600 lines */
    assert_non_null(strstr(out, "\n  - 600 CACHE MISS in weight_load, "));
    assert_non_null(strstr(out, " avoidable in all; the 10 most costly:\n"));
    const char *g = strstr(out, "most costly:\n");
    int sub = 0;
    for (const char *p = g; p && (p = strstr(p, "\n    layers.")); p++)
        sub++;
    assert_int_equal(sub, 10);
    int lines = 0;
    for (const char *p = out; *p; p++)
        lines += *p == '\n';
    assert_true(lines <= 40); /* a few dozen lines, not hundreds */
    /* the last line names the trace and the command for the full analysis */
    char want[1400];
    snprintf(want, sizeof want,
             "walltime: trace written to '%s'; the full analysis: walltime-analyze ledger '%s'\n",
             path, path);
    const size_t lo = strlen(out), lw = strlen(want);
    assert_true(lo >= lw);
    assert_string_equal(out + lo - lw, want);
    free(an);
    free(out);
}

/* ---- values worked out by hand ---------------------------------------------------------- */

/* Measured spans (wt_record) have exact durations, and work between them keeps them apart:
 * "outer" is open about 40 ms and holds "inner", a 10 ms measured child ending 30 ms after
 * outer began; "solo" (5 ms) ends 30 ms after outer ended, so they do not overlap; then a HIT
 * of 1 ms and MISSes of 3 and 5 ms in "cache", 10 ms apart. One thread, no overlap: every
 * instant of a tree is new, so self is exact. By hand: inner self = inclusive = 10.0 ms; solo
 * self = inclusive = 5.00 ms; cache self 1 + 3 + 5 = 9.00 ms; outer self = its duration -
 * 10 ms, its inclusive its duration (read back from the trace). Avoidable: a MISS minus the
 * category's median HIT (1 ms): 5 - 1 = 4 ms first, then 3 - 1 = 2 ms, 6.00 ms in all. */
static int child_by_hand(void *arg)
{
    (void)arg;
    setenv("WALLTIME_TRACE", path, 1);
    const wt_span o = wt_begin("outer", "o");
    work_ms(30);
    wt_record("inner", "i", 0.010, WT_CACHED_UNKNOWN, 1, NULL);
    work_ms(10);
    wt_end(o, WT_CACHED_UNKNOWN, 1, NULL);
    work_ms(30);
    wt_record("solo", "s", 0.005, WT_CACHED_UNKNOWN, 1, NULL);
    work_ms(10);
    wt_record("cache", "h", 0.001, WT_CACHED_HIT, 1, NULL);
    work_ms(10);
    wt_record("cache", "m3", 0.003, WT_CACHED_MISS, 1, "dir unset");
    work_ms(10);
    wt_record("cache", "m5", 0.005, WT_CACHED_MISS, 1, NULL);
    return 0;
}

static void test_exit_ledger_holds_hand_computed_values(void **state)
{
    (void)state;
    char err[600];
    snprintf(err, sizeof err, "%s/stderr", dir);
    const int st = rt_run(child_by_hand, NULL, err, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    const char *out = rt_slurp(err);
    /* columns: name 18, self 10, %wall 8, inclusive 11, count 8 */
    char *inner = row_line(out, "inner"), *solo = row_line(out, "solo");
    assert_non_null(inner);
    assert_non_null(solo);
    assert_memory_equal(inner, "inner                10.0 ms", 28);
    assert_memory_equal(inner + 36, "    10.0 ms       1", 19);
    assert_memory_equal(solo, "solo                 5.00 ms", 28);
    assert_memory_equal(solo + 36, "    5.00 ms       1", 19);
    /* the cache row: 3 spans, 1 HIT / 2 MISS; self 1 + 3 + 5 ms = 9.00 ms */
    char *cache = row_line(out, "cache");
    assert_non_null(cache);
    assert_memory_equal(cache, "cache                9.00 ms", 28);
    assert_non_null(strstr(cache, "       3   1 HIT / 2 MISS"));
    assert_non_null(strstr(out, "\n  - 2 CACHE MISS in cache, 6.00 ms avoidable in all; the 2 "
                                "most costly:\n"
                                "    m5 (5.00 ms) \xe2\x80\x94 TT_DIT_CACHE_DIR unset or blocking "
                                "key changed; avoidable 4.00 ms\n"
                                "    m3 (3.00 ms) \xe2\x80\x94 dir unset; avoidable 2.00 ms\n"));
    /* outer: self = inclusive - 10 ms, both from its measured duration in the trace */
    rt_trace *t = rt_read(path);
    const long i = rt_find(t, WT_EV_SPAN, "o", 0);
    assert_true(i >= 0);
    const double dur = (double)t->ev[i].ev.dur * 1e-9;
    char *outer = row_line(out, "outer");
    char self[WT_LEDGER_SECONDS_MAX], incl[WT_LEDGER_SECONDS_MAX], want[128];
    wt_ledger_fmt_seconds(self, sizeof self, dur - 0.010);
    wt_ledger_fmt_seconds(incl, sizeof incl, dur);
    snprintf(want, sizeof want, "%-18s%10s", "outer", self);
    assert_memory_equal(outer, want, 28);
    snprintf(want, sizeof want, "%11s%8s", incl, "1");
    assert_memory_equal(outer + 36, want, 19);
    rt_free(t);
    free(outer);
    free(cache);
    free(inner);
    free(solo);
}

/* ---- counts near INT64_MAX (issue 10 item 8) --------------------------------------------- */

/* Two spans of count INT64_MAX - 1: the sum saturates at INT64_MAX in the exit ledger as in
 * the analyzer (never -1), and the count column widens so the notes still line up. */
static int child_huge_counts(void *arg)
{
    (void)arg;
    setenv("WALLTIME_TRACE", path, 1);
    const wt_span_args a = { .cached = WT_CACHED_HIT, .count = INT64_MAX - 1 };
    wt_record_ex("big", "x", 0.002, &a);
    wt_record_ex("big", "y", 0.002, &a);
    wt_record("small", "z", 0.001, WT_CACHED_MISS, 1, NULL);
    return 0;
}

static void test_exit_ledger_saturates_counts_as_the_analyzer(void **state)
{
    (void)state;
    char err[600];
    snprintf(err, sizeof err, "%s/stderr", dir);
    const int st = rt_run(child_huge_counts, NULL, err, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    const char *out = rt_slurp(err);
    char *big = row_line(out, "big"), *small = row_line(out, "small");
    char *head = row_line(out, "category");
    assert_non_null(big);
    assert_non_null(small);
    assert_non_null(head);
    assert_null(strstr(out, "-1 "));
    /* the count column is 19 digits + 2 wide; every row's notes start where the header's do */
    const char *c = strstr(big, "9223372036854775807   2 HIT / 0 MISS");
    assert_non_null(c);
    const size_t notes_at = (size_t)(strstr(head, "notes") - head);
    assert_int_equal((size_t)(c + 19 + 3 - big), notes_at);
    assert_int_equal((size_t)(strstr(small, "0 HIT / 1 MISS") - small), notes_at);
    /* the analyzer's ledger of the same trace: the same row, the same saturated sum */
    char *an = analyzer_text(path);
    char *big_an = row_line(an, "big");
    assert_string_equal(big, big_an);
    free(big_an);
    free(an);
    free(head);
    free(small);
    free(big);
}

/* ---- WALLTIME_SUMMARY=flat ---------------------------------------------------------------- */

static int child_flat(void *arg)
{
    (void)arg;
    setenv("WALLTIME_TRACE", path, 1);
    setenv("WALLTIME_SUMMARY", "flat", 1);
    const wt_span o = wt_begin("phase", "run");
    wt_record("weight_load", "L", 0.25, WT_CACHED_MISS, 1, "D");
    wt_end(o, WT_CACHED_UNKNOWN, 1, NULL);
    return 0;
}

static void test_exit_ledger_flat_keeps_the_seeds_table(void **state)
{
    (void)state;
    char err[600];
    snprintf(err, sizeof err, "%s/stderr", dir);
    const int st = rt_run(child_flat, NULL, err, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    const char *out = rt_slurp(err);
    /* the seed's header and one-decimal rows, its CACHE MISS line; no inclusive column */
    assert_non_null(strstr(out, "\ncategory             seconds   %wall   count   notes\n"
                                "weight_load              0.2"));
    assert_non_null(strstr(out, "\n  - CACHE MISS: weight_load L (0.2s) \xe2\x80\x94 D\n"));
    assert_null(strstr(out, "inclusive"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_exit_ledger_agrees_with_the_analyzer_on_a_model_load,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_exit_ledger_holds_hand_computed_values, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_exit_ledger_saturates_counts_as_the_analyzer, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_exit_ledger_flat_keeps_the_seeds_table, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
