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
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
