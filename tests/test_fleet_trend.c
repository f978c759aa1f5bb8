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
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trend.h"
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
 * `plant`: load 1.3x on host node-3 from run 600 on. Runs start i minutes after the first, or
 * with `tie` > 1, in ties of `tie` runs starting together (runs i - i mod tie .. ). */
static void make_fleet(int plant, int tie)
{
    rng = 12345;
    static char hosts[HOSTS][16], boots[HOSTS][16];
    for (int i = 0; i < RUNS; i++) {
        int h = i % HOSTS;
        snprintf(hosts[h], sizeof hosts[h], "node-%d", h);
        snprintf(boots[h], sizeof boots[h], "boot-%d", h);
        char run_id[33], name[32];
        snprintf(run_id, sizeof run_id, "%032x", i + 1);
        tb_origin o = { hosts[h], boots[h], run_id, ORIGIN + S(60.0 * (i - i % tie)) - S(100), 1000, 0 };
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
    make_fleet(1, 1);
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
    /* node-3's runs are 3, 11, ..., 603, ..., 995: 603 is its 76th of 125 */
    assert_non_null(strstr(ch, "\"run_in_group\": 76,"));
    assert_non_null(strstr(ch, "\"group_runs\": 125,"));
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
    /* run 603 is in file run0157 (603 x 7919 mod 1000) */
    assert_non_null(strstr(svg, "run0157.wtrace, run 76 of 125 in the group, node-3 "
                                "0000000000000000000000000000025c</text>"));
    free(svg);
    /* the text names the run the same way: its file and its place in its group */
    assert_int_equal(trend("--group host"), 0);
    out = cli_slurp(abs_in("out.txt"));
    assert_non_null(out);
    assert_int_equal(count(out, " in the group ("), 1);
    assert_non_null(strstr(out, "host=node-3  load: "));
    assert_non_null(strstr(out, "run0157.wtrace, run 76 of 125 in the group "
                                "(0000000000000000000000000000025c, host node-3): "));
    free(out);
}

/* The file loses its tail (its end record and part of its last frame): damaged. */
static void lose_tail(const char *name)
{
    size_t n;
    unsigned char *bytes = tb_read_file(tb_path_in(name), &n);
    tb_write_file(tb_path_in(name), bytes, n - 12);
    free(bytes);
}

static void test_trend_noise_and_a_damaged_file(void **state)
{
    (void)state;
    make_fleet(0, 1);
    lose_tail("run0500.wtrace");
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

/* n runs, one file each (run0000.wtrace ...), run i started at 100 + i s with the metadata
 * rank ranks[i] and one 0.9 s `load` span. */
static void write_rank_runs(const int *ranks, int n)
{
    for (int i = 0; i < n; i++) {
        char name[32], rank[8];
        snprintf(name, sizeof name, "run%04d.wtrace", i);
        snprintf(rank, sizeof rank, "%d", ranks[i]);
        tb *b = tb_create(tb_path_in(name), 100 + (uint64_t)i, S(100 + i), S(100 + i));
        tb_meta(b, 1, S(100 + i), "rank", rank);
        tb_span(b, 1, S(100.1 + i), S(101 + i), 0, "load", "weights");
        tb_close(b, TB_END_CLEAN, S(101.1 + i), 0);
    }
}

/* Three launches of 2 ranks: 6 files carrying `rank`. Without --group rank the command says
 * that 6 runs share series across ranks (exit status unchanged); grouped by rank it does not.
 * Writing to a full device still says that the output could not be written. */
static void test_trend_notes_ranks_sharing_a_series(void **state)
{
    (void)state;
    const int ranks[] = { 0, 1, 0, 1, 0, 1 };
    write_rank_runs(ranks, 6);
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

/* One launch whose ranks started in the order 0, 1, 3, 2, 10, 9: the series are listed by rank
 * as numbers (0 1 2 3 9 10), not in start order nor as strings (10 before 2); with 6 runs,
 * one per series, the header says why nothing could be a change. */
static void test_trend_groups_in_natural_order_and_short_series_said(void **state)
{
    (void)state;
    const int ranks[] = { 0, 1, 3, 2, 10, 9 };
    write_rank_runs(ranks, 6);
    assert_int_equal(trend("--group rank"), 0);
    char *out = cli_slurp(abs_in("out.txt"));
    const char *want[] = { "rank=0 ", "rank=1 ", "rank=2 ", "rank=3 ", "rank=9 ", "rank=10 " };
    const char *at = out;
    for (size_t k = 0; k < 6; k++) {
        const char *f = strstr(at, want[k]);
        if (!f)
            fail_msg("'%s' not after the rows before it in:\n%s", want[k], out);
        at = f + 1;
    }
    assert_non_null(strstr(out, "0 change(s); 6 of 6 series too short to judge (fewer than 13 "
                                "runs: --min-runs 10 before a change, --persist 3 from it)"));
    free(out);
    assert_int_equal(trend("--group rank --json"), 0);
    out = cli_slurp(abs_in("out.txt"));
    assert_non_null(strstr(out, "\"series_too_short\": 6"));
    /* the series in the same order (the runs list, before them, stays in start order) */
    const char *series = strstr(out, "\"series\"");
    assert_non_null(series);
    const char *r2 = strstr(series, "\"group\": \"rank=2\""),
               *r10 = strstr(series, "\"group\": \"rank=10\""),
               *r9 = strstr(series, "\"group\": \"rank=9\"");
    assert_non_null(r2);
    assert_non_null(r10);
    assert_true(r2 < r9 && r9 < r10);
    free(out);
    /* enough runs (one series of 6, judged from 2): nothing said */
    assert_int_equal(trend("--min-runs 1 --persist 1"), 0);
    out = cli_slurp(abs_in("out.txt"));
    assert_null(strstr(out, "too short"));
    free(out);
}

/* trend over the fleet's files (by name: run0000 .. run0999) through the library, the runs
 * ordered `chunk` at a time in memory (extsort.h); its output (JSON) in a new string. */
static char *trend_chunked(int chunk)
{
    static char names[RUNS][4096];
    char *paths[RUNS], name[32];
    for (int f = 0; f < RUNS; f++) {
        snprintf(name, sizeof name, "run%04d.wtrace", f);
        snprintf(names[f], sizeof names[f], "%s", abs_in(name));
        paths[f] = names[f];
    }
    wt_trend_opts o = { .n_keys = 1, .threads = 2, .json = 1, .sort_chunk = chunk };
    o.keys[0] = "host";
    wt_cp_opts_default(&o.cp);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    wt_trend *t = NULL;
    assert_int_equal(wt_trend_run(paths, RUNS, &o, out, &t), 0);
    const wt_trend_result *r = wt_trend_result_get(t);
    assert_int_equal(r->src.files_damaged, 1);
    assert_int_equal(r->runs, RUNS - 1);
    wt_trend_free(t);
    assert_int_equal(fclose(out), 0);
    return text;
}

/* The "runs" of trend's JSON, checked against the fleet: in start order, ties of start in the
 * order the files were given (their names), each run once but the damaged one (which keeps its
 * place: the index after it skips one), indices ascending. */
static void expect_runs_in_order(const char *out, int damaged_file)
{
    static unsigned char seen[RUNS];
    memset(seen, 0, sizeof seen);
    long long last_start = 0, last_index = -1;
    int last_file = -1, n = 0;
    const char *p = strstr(out, "\"runs\": [");
    const char *end = strstr(out, "\"series\": [");
    assert_non_null(p);
    assert_non_null(end);
    while ((p = strstr(p, "\"index\": ")) && p < end) {
        const long long index = strtoll(p + 9, NULL, 10);
        const char *f = strstr(p, ".wtrace\",");
        const char *st = strstr(p, "\"start_utc_ns\": ");
        assert_non_null(f);
        assert_non_null(st);
        const int file = atoi(f - 4); /* "runNNNN.wtrace" */
        const long long start = strtoll(st + 16, NULL, 10);
        assert_true(file >= 0 && file < RUNS && file != damaged_file);
        assert_int_equal(seen[file]++, 0);
        assert_true(index > last_index);
        assert_true(start > last_start || (start == last_start && file > last_file));
        last_index = index;
        last_start = start;
        last_file = file;
        n++;
        p = st;
    }
    assert_int_equal(n, RUNS - 1);
    assert_int_equal(last_index, RUNS - 1);
}

/* Ties of two runs (run 2m and 2m + 1 start together; the one whose file name is first goes
 * first), a damaged file, the planted regression: the same output whether the runs are ordered
 * in memory or through 1000, 500, 143, 63 or 59 sorted chunks (merged 16 at a time: for
 * chunks of 1, two passes into new files, 1000 -> 63 -> 4 chunks, then the last merge). Node-3's first run from 600 is 603, tied with 602: 603's file
 * (run0157: 603 x 7919 mod 1000) is before 602's (run0238), so it is run 602 of the order. */
static void test_trend_order_through_sorted_chunks(void **state)
{
    (void)state;
    make_fleet(1, 2);
    /* run 501 (file run0419: 501 x 7919 mod 1000) loses its tail; tied with run 500 (run0500),
     * it is first of the two: the index 500 has no run */
    lose_tail("run0419.wtrace");
    char *mem = trend_chunked(0);
    expect_runs_in_order(mem, 419);
    const char *ch = strstr(mem, "\"changes\": [");
    assert_non_null(ch);
    assert_int_equal(count(ch, "\"category\""), 1);
    assert_non_null(strstr(ch, "\"group\": \"host=node-3\""));
    assert_non_null(strstr(ch, "\"run_index\": 602,"));
    assert_non_null(strstr(ch, "\"run_id\": \"0000000000000000000000000000025c\"")); /* 604 */
    assert_non_null(strstr(ch, "/run0157.wtrace\""));
    assert_null(strstr(mem, "\"index\": 500,"));
    assert_non_null(strstr(mem, "\"index\": 501,"));
    const int chunks[] = { 1, 2, 7, 16, 17 };
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        char *got = trend_chunked(chunks[i]);
        expect_runs_in_order(got, 419);
        if (strcmp(got, mem) != 0)
            fail_msg("chunks of %d: the output differs from the one in memory", chunks[i]);
        free(got);
    }
    free(mem);
}

/* A temporary file that cannot grow (a file size limit, as a full disk): trend fails with
 * WT_EIO and says so; it never reports a series. One run is read, 999 files do not exist: the
 * summaries take one record, the order of 1000 runs (24 bytes each, in chunks of 1) does not
 * fit in 4 KiB. */
static void test_trend_temporary_file_that_cannot_grow(void **state)
{
    (void)state;
    static char names[RUNS][32];
    char *paths[RUNS];
    paths[0] = WT_TEST_DATA_DIR "/analyze_a.wtrace";
    for (int f = 1; f < RUNS; f++) {
        snprintf(names[f], sizeof names[f], "missing%04d.wtrace", f);
        paths[f] = names[f];
    }
    int pipe_fd[2];
    assert_int_equal(pipe(pipe_fd), 0);
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* the child: its stderr (the missing files, the failure) into a pipe, which the file
         * size limit does not bound */
        close(pipe_fd[0]);
        if (dup2(pipe_fd[1], 2) < 0 || setenv("TMPDIR", abs_in(NULL), 1) != 0)
            _exit(90);
        const struct rlimit lim = { 4096, 4096 };
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
            _exit(91);
        wt_trend_opts o = { .threads = 1, .sort_chunk = 1 };
        wt_cp_opts_default(&o.cp);
        FILE *out = fopen("/dev/null", "w");
        wt_trend *t = NULL;
        const int rc = out ? wt_trend_run(paths, RUNS, &o, out, &t) : 0;
        wt_trend_free(t);
        _exit(rc == WT_EIO ? 0 : 92);
    }
    close(pipe_fd[1]);
    size_t len = 0, cap = 1 << 18;
    char *err = malloc(cap);
    assert_non_null(err);
    for (ssize_t got; (got = read(pipe_fd[0], err + len, cap - 1 - len)) > 0;)
        len += (size_t)got;
    err[len] = '\0';
    close(pipe_fd[0]);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    if (!strstr(err, "trend: cannot write its temporary file: File too large"))
        fail_msg("stderr: %s", err + (strlen(err) > 300 ? strlen(err) - 300 : 0));
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
        cmocka_unit_test_setup_teardown(test_trend_groups_in_natural_order_and_short_series_said,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_trend_order_through_sorted_chunks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trend_temporary_file_that_cannot_grow, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
