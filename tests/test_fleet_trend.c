/* `walltime-analyze trend` over generated, seeded fleets of 1000 runs on 8 hosts (run i on host
 * node-(i mod 8), starting i minutes after the first): a regression planted in one category on
 * one host from run 600 on is found at that host's first run from 600 and nowhere else; noise
 * alone (with single spikes) gives no finding; a damaged file among the thousand is named and
 * left out, exit 4, the rest reported. File names are not in start order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tracebuild.h"
#define FLEET_TMP_PREFIX "fleet_trend"
#include "fleet_cli.h"

#define S(x) ((int64_t)((x) * 1e9 + 0.5))
#define ORIGIN 1772323200000000000LL
#define RUNS 1000
#define HOSTS 8

static uint64_t rng = 12345;
static double uniform(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* About normal, mean 0, sd 1 (four uniforms). */
static double noise(void) { return (uniform() + uniform() + uniform() + uniform() - 2.0) * 1.732; }

/* Run i's file number: a permutation (7919 is prime), so the names are not in start order. */
static int file_of(int i) { return (int)((i * 7919L) % RUNS); }

/* Run i: load ~2 s and step ~1 s, 3 % noise; every 50th run a single 1.5x spike in load;
 * `plant`: load 1.3x on host node-3 from run 600 on. */
static void make_fleet(int plant)
{
    rng = 12345;
    static char hosts[HOSTS][16], boots[HOSTS][16];
    for (int i = 0; i < RUNS; i++) {
        int h = i % HOSTS;
        snprintf(hosts[h], sizeof hosts[h], "node-%d", h);
        snprintf(boots[h], sizeof boots[h], "boot-%d", h);
        char run_id[33], name[32];
        snprintf(run_id, sizeof run_id, "%032x", i + 1);
        tb_origin o = { hosts[h], boots[h], run_id, ORIGIN + S(60.0 * i) - S(100), 1000, 0 };
        snprintf(name, sizeof name, "run%04d.wtrace", file_of(i));
        tb *b = tb_create(tb_path_in(name), 100 + (uint64_t)i, S(100), S(100));
        tb_set_origin(b, &o);
        tb_meta(b, 1, S(100), "model", "m1");
        double load = 2.0 * (1 + 0.03 * noise());
        if (i % 50 == 7)
            load *= 1.5;
        if (plant && h == 3 && i >= 600)
            load *= 1.3;
        double step = 1.0 * (1 + 0.03 * noise());
        tb_span(b, 1, S(100.1), S(100.1 + load), 0, "load", "weights");
        tb_span(b, 1, S(100.1 + load), S(100.1 + load + step), 0, "step", "forward");
        tb_close(b, TB_END_CLEAN, S(100.2 + load + step), 0);
    }
}

/* "trend ARGS" over every run, in file name order (not start order). */
static int trend(const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "trend %s run*.wtrace", args);
    return fleet_cli(cmd);
}

static int count(const char *text, const char *s)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, s)); p++)
        n++;
    return n;
}

static void test_trend_finds_the_planted_regression_only(void **state)
{
    (void)state;
    make_fleet(1);
    assert_int_equal(trend("--group host --json --fail-on regression --svg chart.svg"), 3);
    char *out = cli_slurp(abs_in("out.txt"));
    assert_non_null(out);
    const char *ch = strstr(out, "\"changes\": [");
    assert_non_null(ch);
    /* one change: node-3's first run from 600 is 603 (600 = 75 x 8 is on node-0) */
    assert_int_equal(count(ch, "\"category\""), 1);
    assert_non_null(strstr(ch, "\"group\": \"host=node-3\""));
    assert_non_null(strstr(ch, "\"category\": \"load\""));
    assert_non_null(strstr(ch, "\"run_index\": 603,"));
    assert_non_null(strstr(ch, "\"run_id\": \"0000000000000000000000000000025c\"")); /* 604 */
    assert_non_null(strstr(ch, "\"direction\": \"slower\""));
    /* about 0.6 s more: the level 2.0 s x 0.3 */
    const char *d = strstr(ch, "\"change_s\": ");
    assert_non_null(d);
    double change = strtod(d + 12, NULL);
    assert_true(change > 0.5 && change < 0.7);
    assert_non_null(strstr(out, "\"runs_in_series\": 1000"));
    free(out);
    /* one chart: the 50 runs of node-3 before the change, its 3, and the 47 left after them
     * (node-3 has 125 runs, 75 before 603) */
    char *svg = cli_slurp(abs_in("chart.svg"));
    assert_non_null(svg);
    assert_int_equal(count(svg, "<circle"), 50 + 3 + 47);
    assert_non_null(strstr(svg, "host=node-3 \xC2\xB7 load: "));
    assert_non_null(strstr(svg, "at run 603, node-3 0000000000000000000000000000025c</text>"));
    free(svg);
}

static void test_trend_noise_and_a_damaged_file(void **state)
{
    (void)state;
    make_fleet(0);
    /* one run loses its tail (its end record and part of its last frame) */
    size_t n;
    unsigned char *bytes = tb_read_file(tb_path_in("run0500.wtrace"), &n);
    tb_write_file(tb_path_in("run0500.wtrace"), bytes, n - 12);
    free(bytes);
    assert_int_equal(trend("--group host,model --fail-on regression -j 3"), 4);
    char *out = cli_slurp(abs_in("out.txt")), *err = cli_slurp(abs_in("err.txt"));
    assert_non_null(strstr(out, "trend: 999 runs in 8 group(s), 2 categories; 0 change(s)"));
    assert_non_null(strstr(out, "host=node-4,model=m1"));
    assert_non_null(strstr(err, "run0500.wtrace"));
    assert_non_null(strstr(err, "1 damaged and 0 unreadable file(s) left out"));
    free(out);
    free(err);
}

/* analyze_a (test_cli_sample.c): by hand, weights 2.0 + 0.5 + 2.0 + 0.2 = 4.7 s inclusive, self
 * and flat; generate 4.0 s inclusive and flat, 2.0 s self (decode 1.0 + 1.0 inside); decode
 * 2.0 s. */
static void test_trend_seconds_are_the_ledgers(void **state)
{
    (void)state;
    assert_int_equal(fleet_cli("trend --json " WT_TEST_DATA_DIR "/analyze_a.wtrace"), 0);
    char *out = cli_slurp(abs_in("out.txt"));
    assert_non_null(strstr(out, "\"weights\": {\n          \"inclusive_s\": 4.700000000,\n"
                                "          \"self_s\": 4.700000000,\n"
                                "          \"flat_s\": 4.700000000"));
    assert_non_null(strstr(out, "\"generate\": {\n          \"inclusive_s\": 4.000000000,\n"
                                "          \"self_s\": 2.000000000,\n"
                                "          \"flat_s\": 4.000000000"));
    assert_non_null(strstr(out, "\"decode\": {\n          \"inclusive_s\": 2.000000000,"));
    free(out);
}

/* `"CAT": {"inclusive_s": I, "self_s": S, "flat_s": F}` in trend's JSON: asserts the three. */
static void expect_cat(const char *out, const char *cat, double incl, double self, double flat)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\": {", cat);
    const char *p = strstr(out, key);
    if (!p)
        fail_msg("no category %s", cat);
    const double got[3] = { strtod(strstr(p, "\"inclusive_s\": ") + 15, NULL),
                            strtod(strstr(p, "\"self_s\": ") + 10, NULL),
                            strtod(strstr(p, "\"flat_s\": ") + 10, NULL) };
    if (fabs(got[0] - incl) > 1e-8 || fabs(got[1] - self) > 1e-8 || fabs(got[2] - flat) > 1e-8)
        fail_msg("%s: inclusive %.9f self %.9f flat %.9f, want %.9f %.9f %.9f", cat, got[0],
                 got[1], got[2], incl, self, flat);
}

/* Inclusive time where categories nest in themselves and in each other, in a file of 72
 * categories (trend counts the first 64 one way, the rest through the ledger's nest), against
 * sums made by hand. Spans are written as they end (children first). */
static void test_trend_inclusive_nesting_by_hand(void **state)
{
    (void)state;
    tb *b = tb_create(tb_path_in("nest.wtrace"), 9, S(0), S(0));
    /* thread 1: a [0,10] { a [1,4] { b [2,3] }, b [5,9] { a [6,8] } }
     * a: inclusive 10 (the root covers the rest), self 3 + 2 + 2, flat 10 + 3 + 2;
     * b: inclusive 1 + 4 (apart), self 1 + (4 - 2), flat 5 */
    tb_span(b, 1, S(2), S(3), 2, "b", "y");
    tb_span(b, 1, S(1), S(4), 1, "a", "x");
    tb_span(b, 1, S(6), S(8), 2, "a", "w");
    tb_span(b, 1, S(5), S(9), 1, "b", "z");
    tb_span(b, 1, S(0), S(10), 0, "a", "r");
    /* thread 2: c69 [20,30] { c00 .. c68: 0.1 s leaves from 20 s; c69 [27,28];
     *   c66 [28,29] { c66 [28.2,28.5] }; a [29.2,29.8] { c67 [29.3,29.4] }; c67 [29.85,29.9] }
     * categories b, a, c00 .. c68, c69 by first span: c62 on are past the first 64 */
    char name[8];
    for (int k = 0; k <= 68; k++) {
        snprintf(name, sizeof name, "c%02d", k);
        tb_span(b, 2, S(20 + 0.1 * k), S(20.1 + 0.1 * k), 1, name, "leaf");
    }
    tb_span(b, 2, S(27), S(28), 1, "c69", "again");
    tb_span(b, 2, S(28.2), S(28.5), 2, "c66", "inner");
    tb_span(b, 2, S(28), S(29), 1, "c66", "outer");
    tb_span(b, 2, S(29.3), S(29.4), 2, "c67", "under a");
    tb_span(b, 2, S(29.2), S(29.8), 1, "a", "small");
    tb_span(b, 2, S(29.85), S(29.9), 1, "c67", "after a");
    tb_span(b, 2, S(20), S(30), 0, "c69", "root");
    tb_close(b, TB_END_CLEAN, S(30), 0);
    assert_int_equal(fleet_cli("trend --json nest.wtrace"), 0);
    char *out = cli_slurp(abs_in("out.txt"));
    assert_non_null(out);
    /* a: thread 1's 10 | 7 | 15, and thread 2's 0.6 s (c67 inside: self 0.5) */
    expect_cat(out, "a", 10.6, 7.5, 15.6);
    expect_cat(out, "b", 5, 3, 5);
    expect_cat(out, "c00", 0.1, 0.1, 0.1);
    expect_cat(out, "c63", 0.1, 0.1, 0.1);
    expect_cat(out, "c65", 0.1, 0.1, 0.1);
    /* c66: its leaf 0.1 and [28,29] once (the inner one inside it); self 0.1 + 0.7 + 0.3 */
    expect_cat(out, "c66", 1.1, 1.1, 1.4);
    /* c67: its leaf, the one under a and the one after a (not inside the one under a) */
    expect_cat(out, "c67", 0.25, 0.25, 0.25);
    /* c69: the root covers its child [27,28]; root self: 10 - 6.9 - 1 - 1 - 0.6 - 0.05 */
    expect_cat(out, "c69", 10, 0.45 + 1, 11);
    free(out);
    /* and the ledger of that file says the same inclusive seconds */
    assert_int_equal(fleet_cli("ledger --json nest.wtrace"), 0);
    out = cli_slurp(abs_in("out.txt"));
    assert_non_null(out);
    static const struct { const char *cat; double incl; } want[] = {
        { "a", 10.6 }, { "b", 5 }, { "c66", 1.1 }, { "c67", 0.25 }, { "c69", 10 } };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char key[64];
        snprintf(key, sizeof key, "\"name\": \"%s\",", want[i].cat);
        const char *p = strstr(out, key);
        assert_non_null(p);
        p = strstr(p, "\"inclusive_s\": ");
        assert_non_null(p);
        assert_float_equal(strtod(p + 15, NULL), want[i].incl, 1e-8);
    }
    free(out);
}

/* A hostile file: 20,000 threads (past WT_MAX_THREADS, 16384), each one span 200 deep, then
 * one nested pair on thread 1. Trend keeps at most 16385 threads and its seconds are the
 * ledger's (both fold the threads past the bound into their process's "(other threads)"):
 * inclusive 20,000 x 1 ms + the pair's outer 1 s (the inner one inside it), self the same
 * (outer 0.5 s + inner 0.5 s), flat 0.5 s more. */
static void test_trend_many_threads_fold_as_the_ledger(void **state)
{
    (void)state;
    tb *b = tb_create(tb_path_in("threads.wtrace"), 9, S(0), S(0));
    for (uint64_t th = 1; th <= 20000; th++)
        tb_span(b, 1000 + th, S(1), S(1.001), 200, "deep", "x");
    tb_span(b, 1, S(2.2), S(2.7), 1, "deep", "inner");
    tb_span(b, 1, S(2), S(3), 0, "deep", "outer");
    tb_close(b, TB_END_CLEAN, S(3), 0);
    assert_int_equal(fleet_cli("trend --json threads.wtrace"), 0);
    char *out = cli_slurp(abs_in("out.txt"));
    assert_non_null(out);
    expect_cat(out, "deep", 20 + 1, 20 + 1, 20 + 1.5);
    free(out);
    assert_int_equal(fleet_cli("ledger --json threads.wtrace"), 0);
    out = cli_slurp(abs_in("out.txt"));
    assert_non_null(out);
    const char *p = strstr(out, "\"name\": \"deep\",");
    assert_non_null(p);
    assert_float_equal(strtod(strstr(p, "\"self_s\": ") + 10, NULL), 21, 1e-8);
    assert_float_equal(strtod(strstr(p, "\"inclusive_s\": ") + 15, NULL), 21, 1e-8);
    assert_float_equal(strtod(strstr(p, "\"flat_s\": ") + 10, NULL), 21.5, 1e-8);
    free(out);
}

/* Three launches of 2 ranks: 6 files carrying `rank`. Without --group rank the command says
 * that 6 runs share series across ranks (exit status unchanged); grouped by rank it does not.
 * Writing to a full device still says that the output could not be written. */
static void test_trend_notes_ranks_sharing_a_series(void **state)
{
    (void)state;
    for (int i = 0; i < 6; i++) {
        char name[32], rank[8];
        snprintf(name, sizeof name, "run%04d.wtrace", i);
        snprintf(rank, sizeof rank, "%d", i % 2);
        tb *b = tb_create(tb_path_in(name), 100 + (uint64_t)i, S(100 + i), S(100 + i));
        tb_meta(b, 1, S(100 + i), "rank", rank);
        tb_span(b, 1, S(100.1 + i), S(101 + i), 0, "load", "weights");
        tb_close(b, TB_END_CLEAN, S(101.1 + i), 0);
    }
    assert_int_equal(trend(""), 0);
    char *err = cli_slurp(abs_in("err.txt"));
    assert_non_null(strstr(err, "trend: note: 6 run(s) are one rank of a launch"));
    free(err);
    assert_int_equal(trend("--group host,rank"), 0);
    err = cli_slurp(abs_in("err.txt"));
    assert_null(strstr(err, "rank of a launch"));
    free(err);
    char *out = cli_slurp(abs_in("out.txt"));
    assert_non_null(strstr(out, "trend: 6 runs in 2 group(s)"));
    free(out);
    /* an output that cannot be written is said, beside the note */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", abs_in(NULL));
    assert_int_equal(cli_run(dir, "trend run*.wtrace", "/dev/full", abs_in("err.txt")), 1);
    err = cli_slurp(abs_in("err.txt"));
    assert_non_null(strstr(err, "trend: note: 6 run(s)"));
    assert_non_null(strstr(err, "trend: cannot write the output"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_trend_finds_the_planted_regression_only, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_trend_noise_and_a_damaged_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trend_seconds_are_the_ledgers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trend_inclusive_nesting_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trend_many_threads_fold_as_the_ledger, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trend_notes_ranks_sharing_a_series, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
