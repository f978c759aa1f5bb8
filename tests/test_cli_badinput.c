/* Bad input through the CLI: every case gets a one-line error naming the file (and the byte
 * offset where there is one), the documented exit status, and never a crash; a damaged trace
 * still gets the ledger of what was readable, with a warning above it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_run.h"
#include "tracebuild.h"

#define S(x) ((int64_t)(((x) + 100.0) * 1e9 + 0.5))

static char cwd[2048];

typedef struct outcome {
    int status;
    char *out, *err;
} outcome;

static outcome run(const char *args)
{
    char o[4096], e[4096];
    snprintf(o, sizeof o, "%s/bad.out", cwd);
    snprintf(e, sizeof e, "%s/bad.err", cwd);
    outcome r;
    r.status = cli_run(cwd, args, o, e);
    r.out = cli_slurp(o);
    r.err = cli_slurp(e);
    assert_non_null(r.out);
    assert_non_null(r.err);
    return r;
}

static void release(outcome *r)
{
    free(r->out);
    free(r->err);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The error is one line on stderr, says `want`, and the status is `status`. */
static void expect(const char *args, int status, const char *want)
{
    outcome r = run(args);
    if (r.status != status)
        fail_msg("'%s' exited %d, want %d; stderr: %s", args, r.status, status, r.err);
    if (!strstr(r.err, want))
        fail_msg("'%s': stderr '%s' lacks '%s'", args, r.err, want);
    assert_true(strncmp(r.err, "walltime-analyze: ", 18) == 0);
    release(&r);
}

static void make_good(const char *path)
{
    tb *b = tb_create(path, 5, S(0), S(0));
    tb_span(b, 5, S(1), S(2), 0, "A", "a");
    tb_sync(b, S(2));
    tb_frame(b);
    tb_span(b, 5, S(2), S(4), 0, "B", "b");
    tb_frame(b);
    tb_span(b, 5, S(4), S(5), 0, "C", "c");
    tb_close(b, TB_END_CLEAN, S(6), 0);
}

static int setup(void **state)
{
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    make_good("bad_good.wtrace");
    return 0;
}

static void test_cli_badinput_missing_file(void **state)
{
    for (const char *const *c = (const char *const[]){ "ledger", "anomalies", "info", "dump", NULL }; *c; c++) {
        char args[256];
        snprintf(args, sizeof args, "%s no_such_file.wtrace", *c);
        expect(args, 1, "'no_such_file.wtrace'");
    }
    outcome r = run("ledger no_such_file.wtrace");
    assert_int_equal(count_lines(r.err), 1);
    assert_string_equal(r.out, "");
    release(&r);
}

static void test_cli_badinput_directory(void **state)
{
    mkdir("bad_dir.wtrace", 0755);
    expect("ledger bad_dir.wtrace", 1, "bad_dir.wtrace");
}

static void test_cli_badinput_empty_file(void **state)
{
    tb_write_file("bad_empty.wtrace", (const unsigned char *)"", 0);
    expect("ledger bad_empty.wtrace", 1, "'bad_empty.wtrace': at byte 0");
}

static void test_cli_badinput_not_a_trace(void **state)
{
    const char text[] = "this is a log file, not a trace\n";
    tb_write_file("bad_text.wtrace", (const unsigned char *)text, sizeof text - 1);
    expect("info bad_text.wtrace", 1, "not a walltime trace");
}

static void test_cli_badinput_newer_format(void **state)
{
    size_t len;
    unsigned char *d = tb_read_file("bad_good.wtrace", &len);
    assert_non_null(d);
    /* skippable frame magic (4) + size (4) + "WTRACE" (6), then the major version u16 LE */
    assert_memory_equal(d + 8, "WTRACE", 6);
    d[14] = 2;
    d[15] = 0;
    tb_write_file("bad_newer.wtrace", d, len);
    free(d);
    expect("ledger bad_newer.wtrace", 1, "newer");
}

static void test_cli_badinput_truncated_still_gives_a_ledger(void **state)
{
    size_t len;
    unsigned char *d = tb_read_file("bad_good.wtrace", &len);
    assert_non_null(d);
    tb_write_file("bad_trunc.wtrace", d, len - 10);
    free(d);
    expect("ledger bad_trunc.wtrace", 4, "'bad_trunc.wtrace': at byte ");
    outcome r = run("ledger bad_trunc.wtrace");
    assert_int_equal(count_lines(r.err), 1);
    /* the warning above the table, then the table with what was readable (A and B) */
    assert_true(strncmp(r.out, "warning: 'bad_trunc.wtrace' is damaged", 38) == 0);
    assert_non_null(strstr(r.out, "\nA    "));
    assert_non_null(strstr(r.out, "\nB    "));
    assert_non_null(strstr(r.out, "has no end record"));
    release(&r);
    expect("anomalies bad_trunc.wtrace", 4, "bad_trunc.wtrace");
    expect("anomalies --fail-on=anomaly bad_trunc.wtrace", 3, "bad_trunc.wtrace");
    /* the heading NO END RECORD is the no-end gate; nothing was left open, so no left-open */
    expect("anomalies --fail-on=no-end-record bad_trunc.wtrace", 3, "'no-end-record' matched: 1 found");
    expect("anomalies --fail-on=left-open,slow-span bad_trunc.wtrace", 4, "bad_trunc.wtrace");
    expect("info bad_trunc.wtrace", 4, "bad_trunc.wtrace");
    expect("dump bad_trunc.wtrace", 4, "bad_trunc.wtrace");
}

static void test_cli_badinput_corrupted_middle_frame(void **state)
{
    size_t len;
    unsigned char *d = tb_read_file("bad_good.wtrace", &len);
    assert_non_null(d);
    /* flip bytes in the middle of the file: inside a data frame */
    for (size_t i = len / 2; i < len / 2 + 4; i++)
        d[i] ^= 0xA5;
    tb_write_file("bad_corrupt.wtrace", d, len);
    free(d);
    expect("ledger bad_corrupt.wtrace", 4, "'bad_corrupt.wtrace': at byte ");
    outcome r = run("ledger --json bad_corrupt.wtrace");
    assert_int_equal(r.status, 4);
    assert_non_null(strstr(r.out, "\"damaged\": true"));
    release(&r);
}

static void test_cli_badinput_one_bad_file_among_good_ones(void **state)
{
    outcome r = run("ledger bad_good.wtrace no_such_file.wtrace");
    assert_int_equal(r.status, 4);
    assert_non_null(strstr(r.out, "WALL-TIME LEDGER"));
    assert_non_null(strstr(r.err, "'no_such_file.wtrace'"));
    release(&r);
}

static void test_cli_badinput_bad_baseline(void **state)
{
    expect("anomalies --baseline no_such_file.wtrace bad_good.wtrace", 1, "no_such_file.wtrace");
}

/* By hand: wall 0-30 s; W L HIT 1 s, then 3 MISSes of 6 s (5 s avoidable each: 15 s in all),
 * A 1 s: 16 s tracked... of which 20 s are spans, so untracked is 10 s = 33.33...% of wall.
 * Anomalies: the 3 misses and untracked (over the default 10%): 4. */
static void make_gates(const char *path)
{
    tb *b = tb_create(path, 5, S(0), S(0));
    tb_span_ex(b, &(tb_span_desc){ .tid = 5, .start = S(0), .end = S(1), .category = "W",
                                   .label = "L", .cached = WT_CACHED_HIT });
    for (int i = 0; i < 3; i++)
        tb_span_ex(b, &(tb_span_desc){ .tid = 5, .start = S(1 + 6 * i), .end = S(7 + 6 * i),
                                       .category = "W", .label = "L", .cached = WT_CACHED_MISS });
    tb_span(b, 5, S(19), S(20), 0, "A", "a");
    tb_close(b, TB_END_CLEAN, S(30), 0);
}

/* Each --fail-on gate fires just past its threshold and not at it, in `anomalies` and
 * `ledger` alike; a fired gate says which on stderr. */
static void test_cli_fail_on_gates_at_their_thresholds(void **state)
{
    make_gates("gates.wtrace");
    static const struct {
        const char *gate;
        int status;
    } cases[] = {
        { "miss", 3 },                 { "miss>2", 3 },
        { "miss>3", 0 },               { "anomaly>3", 3 },
        { "anomaly>4", 0 },            { "avoidable>14.999", 3 },
        { "avoidable>15", 0 },         { "avoidable>15s", 0 },
        { "avoidable>14999ms", 3 },    { "avoidable>15000ms", 0 },
        { "untracked>33.3333%", 3 },   { "untracked>33.3334%", 0 },
        { "untracked>9.99s", 3 },      { "untracked>10s", 0 },
        { "repeat-miss", 0 },          { "budget", 0 },
        { "miss>5,untracked>30%", 3 }, { "miss>5,avoidable>20", 0 },
        { "miss>5,avoidable>10", 3 },  { "untracked>50%,budget,miss>3", 0 },
        /* the headings' words, as the output shows them: CACHE MISS is miss */
        { "cache-miss>2", 3 },         { "CACHE_MISS>3", 0 },
        { "Cache Miss>2", 3 },         { "repeated-miss", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int c = 0; c < 2; c++) {
            char args[256];
            snprintf(args, sizeof args, "%s '--fail-on=%s' gates.wtrace",
                     c ? "ledger" : "anomalies", cases[i].gate);
            outcome r = run(args);
            if (r.status != cases[i].status)
                fail_msg("'%s' exited %d, want %d; stderr: %s", args, r.status,
                         cases[i].status, r.err);
            if (cases[i].status == 3 && !strstr(r.err, "' matched: "))
                fail_msg("'%s': stderr '%s' does not say which gate matched", args, r.err);
            release(&r);
        }
    }
    outcome r = run("anomalies --fail-on='miss>2' gates.wtrace");
    assert_string_equal(r.err, "walltime-analyze: --fail-on: 'miss>2' matched: 3 found\n");
    release(&r);
    /* budget: A's 1 s over 0.5 s, not over 1 s; the gate options repeat */
    expect("anomalies --budget A=0.5 --fail-on budget gates.wtrace", 3, "'budget' matched");
    r = run("anomalies --budget A=1 --fail-on budget --fail-on 'miss>3' gates.wtrace");
    assert_int_equal(r.status, 0);
    release(&r);
}

/* A malformed gate is a usage error (exit 2) that names it, not a gate that never fires. */
static void test_cli_fail_on_malformed_is_a_usage_error(void **state)
{
    static const char *const bad[] = {
        "miss>", "miss>x", "miss>-1", "miss>1.5", "miss<3", "avoidable", "avoidable>5q",
        "avoidable>-1", "untracked>120%", "untracked>%", "untracked>x%", "bogus", "", "miss,",
        ",miss", "miss,,budget",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[256], want[128];
        snprintf(args, sizeof args, "anomalies '--fail-on=%s' bad_good.wtrace", bad[i]);
        snprintf(want, sizeof want, "anomalies: --fail-on: '");
        expect(args, 2, want);
        outcome r = run(args);
        assert_int_equal(count_lines(r.err), 1);
        assert_non_null(strstr(r.err, "see 'walltime-analyze anomalies --help'"));
        assert_string_equal(r.out, "");
        release(&r);
    }
    expect("anomalies --min-cost 5q bad_good.wtrace", 2, "anomalies: --min-cost: '5q' is not a duration");
    /* a bare number of untracked seconds read as 20 s where 20 % was meant: refused */
    expect("anomalies '--fail-on=untracked>20' bad_good.wtrace", 2,
           "'untracked>20' needs a unit: untracked>20% (of wall) or untracked>20s");
    expect("anomalies '--fail-on=miss,untracked>.5' bad_good.wtrace", 2, "'untracked>.5' needs a unit");
    /* a mistyped kind gets the nearest one */
    expect("anomalies '--fail-on=slowhit' bad_good.wtrace", 2,
           "'slowhit' is not a gate (did you mean 'slow-hit'?)");
    expect("anomalies '--fail-on=mis>3' bad_good.wtrace", 2,
           "'mis>3' is not a gate (did you mean 'miss'?)");
    expect("anomalies '--fail-on=slowspan' bad_good.wtrace", 2,
           "'slowspan' is not a gate (did you mean 'slow-span'?)");
    /* every kind is named, not "..." */
    expect("anomalies '--fail-on=bogus' bad_good.wtrace", 2,
           "(KIND: anomaly, miss, untracked, repeat-miss, slow-hit, outlier, unclosed, no-end, "
           "dropped, damaged, budget, baseline; or the heading's words");
}

/* A first word that is no command: a file-like word runs the ledger, which says the file does
 * not exist; a typo gets the nearest command; anything else says it is neither. */
static void test_cli_first_word_file_or_typo(void **state)
{
    expect("run.wtraec", 1, "cannot open 'run.wtraec': No such file or directory");
    expect("dir/run", 1, "cannot open 'dir/run'");
    static const char *const typos[][2] = { { "legder", "ledger" }, { "anomalis", "anomalies" },
                                            { "exprot", "export" },  { "ifo", "info" },
                                            { "dmup", "dump" },      { "compaer", "compare" } };
    for (size_t i = 0; i < sizeof typos / sizeof typos[0]; i++) {
        char args[64], want[128];
        snprintf(args, sizeof args, "%s bad_good.wtrace", typos[i][0]);
        snprintf(want, sizeof want, "'%s' is not a command; did you mean '%s'?", typos[i][0],
                 typos[i][1]);
        expect(args, 2, want);
    }
    expect("frobnicate bad_good.wtrace", 2, "'frobnicate' is not a command, nor a file");
    /* a word without a dot or slash is a file when it exists */
    unlink("bad_plain");
    expect("bad_plain", 2, "'bad_plain' is not a command, nor a file");
    tb_write_file("bad_plain", (const unsigned char *)"x", 1);
    outcome r = run("bad_plain");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "'bad_plain'"));
    assert_null(strstr(r.err, "not a command"));
    release(&r);
}

/* Usage errors name their command and where to read more, in one line. */
static void test_cli_usage_errors_follow_one_pattern(void **state)
{
    static const char *const cases[][2] = {
        { "ledger --top", "walltime-analyze: ledger: option '--top' needs a value; see 'walltime-analyze ledger --help'" },
        { "ledger --top x bad_good.wtrace", "walltime-analyze: ledger: --top: 'x' is not an integer; see 'walltime-analyze ledger --help'" },
        { "anomalies --untracked-pct x bad_good.wtrace", "walltime-analyze: anomalies: --untracked-pct: 'x' is not a number; see 'walltime-analyze anomalies --help'" },
        { "info --bogus bad_good.wtrace", "walltime-analyze: info: unknown option '--bogus'; see 'walltime-analyze info --help'" },
        { "dump", "walltime-analyze: dump: no trace file given; see 'walltime-analyze dump --help'" },
        { "--bogus bad_good.wtrace", "walltime-analyze: ledger: unknown option '--bogus'; see 'walltime-analyze ledger --help'" },
        { "anomalies --json=1 bad_good.wtrace", "walltime-analyze: anomalies: option '--json' takes no value; see 'walltime-analyze anomalies --help'" },
        { "anomalies -x bad_good.wtrace", "walltime-analyze: anomalies: unknown option '-x'; see 'walltime-analyze anomalies --help'" },
        { "anomalies bad_good.wtrace --min-cost", "walltime-analyze: anomalies: option '--min-cost' needs a value; see 'walltime-analyze anomalies --help'" },
        /* compare on the same getopt_long loop and wording */
        { "compare --bogus bad_good.wtrace", "walltime-analyze: compare: unknown option '--bogus'; see 'walltime-analyze compare --help'" },
        { "compare bad_good.wtrace --discard", "walltime-analyze: compare: option '--discard' needs a value; see 'walltime-analyze compare --help'" },
        { "compare --discard x bad_good.wtrace", "walltime-analyze: compare: --discard: 'x' is not an integer; see 'walltime-analyze compare --help'" },
        { "compare --by=tensor bad_good.wtrace", "walltime-analyze: compare: --by: 'tensor' is not one of auto, label, category; see 'walltime-analyze compare --help'" },
        { "compare --json=1 bad_good.wtrace", "walltime-analyze: compare: option '--json' takes no value; see 'walltime-analyze compare --help'" },
        { "compare", "walltime-analyze: compare: no trace file given; see 'walltime-analyze compare --help'" },
        { "compare -- bad_good.wtrace bad_good.wtrace --x", "walltime-analyze: compare: 3 files: give two runs as BASE NEW or --a/--b, or --rounds for the processes of one run; see 'walltime-analyze compare --help'" },
        { "compare --a bad_good.wtrace", "walltime-analyze: compare: --a and --b each need at least one file; see 'walltime-analyze compare --help'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        outcome r = run(cases[i][0]);
        assert_int_equal(r.status, 2);
        char want[512];
        snprintf(want, sizeof want, "%s\n", cases[i][1]);
        if (strcmp(r.err, want) != 0)
            fail_msg("'%s': stderr '%s', want '%s'", cases[i][0], r.err, want);
        release(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_badinput_missing_file),
        cmocka_unit_test(test_cli_badinput_directory),
        cmocka_unit_test(test_cli_badinput_empty_file),
        cmocka_unit_test(test_cli_badinput_not_a_trace),
        cmocka_unit_test(test_cli_badinput_newer_format),
        cmocka_unit_test(test_cli_badinput_truncated_still_gives_a_ledger),
        cmocka_unit_test(test_cli_badinput_corrupted_middle_frame),
        cmocka_unit_test(test_cli_badinput_one_bad_file_among_good_ones),
        cmocka_unit_test(test_cli_badinput_bad_baseline),
        cmocka_unit_test(test_cli_fail_on_gates_at_their_thresholds),
        cmocka_unit_test(test_cli_fail_on_malformed_is_a_usage_error),
        cmocka_unit_test(test_cli_first_word_file_or_typo),
        cmocka_unit_test(test_cli_usage_errors_follow_one_pattern),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
