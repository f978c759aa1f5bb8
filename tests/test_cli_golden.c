/* Golden CLI tests: walltime-analyze on the committed sample traces (tests/data/analyze_*.wtrace,
 * see test_cli_sample.c) must print exactly tests/golden/<name>, with the expected exit status.
 * The golden files were checked by hand against the sample's numbers (docs/ANALYZE.md works
 * the example); regenerate them only on purpose with WT_UPDATE_GOLDEN=1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_run.h"
#include "tracebuild.h"

#define GOLDEN_DIR WT_SOURCE_DIR "/tests/golden"

static void golden(const char *name, const char *args, int want_status)
{
    char out[4096], err[4096], cwd[2048], gpath[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(out, sizeof out, "%s/golden_%s.out", cwd, name);
    snprintf(err, sizeof err, "%s/golden_%s.err", cwd, name);
    snprintf(gpath, sizeof gpath, "%s/%s", GOLDEN_DIR, name);
    int st = cli_run(WT_TEST_DATA_DIR, args, out, err);
    char *got = cli_slurp(out);
    assert_non_null(got);
    if (getenv("WT_UPDATE_GOLDEN")) {
        FILE *f = fopen(gpath, "wb");
        assert_non_null(f);
        fputs(got, f);
        fclose(f);
    }
    char *want = cli_slurp(gpath);
    if (!want)
        fail_msg("missing golden file %s", gpath);
    if (strcmp(got, want) != 0)
        fail_msg("'%s' differs from %s (see %s)", args, gpath, out);
    if (st != want_status)
        fail_msg("'%s' exited %d, want %d", args, st, want_status);
    free(got);
    free(want);
}

static void test_cli_golden_ledger_text(void **s) { golden("ledger_a.txt", "ledger analyze_a.wtrace", 0); }
static void test_cli_golden_ledger_default_command(void **s) { golden("ledger_a.txt", "analyze_a.wtrace", 0); }
static void test_cli_golden_ledger_flat(void **s) { golden("ledger_a_flat.txt", "ledger --flat analyze_a.wtrace", 0); }
static void test_cli_golden_ledger_json(void **s) { golden("ledger_a.json", "ledger --json analyze_a.wtrace", 0); }
static void test_cli_golden_ledger_two_files_by_label(void **s)
{
    golden("ledger_ab_by_label.txt", "ledger --by label analyze_a.wtrace analyze_b.wtrace", 0);
}
static void test_cli_golden_ledger_two_files_json(void **s)
{
    golden("ledger_ab.json", "ledger --json --by label --top 1 analyze_a.wtrace analyze_b.wtrace", 0);
}
static void test_cli_golden_anomalies_text(void **s) { golden("anomalies_a.txt", "anomalies analyze_a.wtrace", 0); }
static void test_cli_golden_anomalies_json(void **s)
{
    golden("anomalies_ab.json", "anomalies --json --budget weights=2 --budget decode=50% analyze_a.wtrace analyze_b.wtrace", 0);
}
static void test_cli_golden_anomalies_fail_on_miss_exits_3(void **s)
{
    golden("anomalies_a.txt", "anomalies --fail-on=miss analyze_a.wtrace", 3);
}
static void test_cli_golden_anomalies_budget_gate(void **s)
{
    golden("anomalies_budget.txt", "anomalies --fail-on budget --budget generate=1.5 --budget weights=90% analyze_a.wtrace", 3);
}
static void test_cli_golden_anomalies_baseline(void **s)
{
    golden("anomalies_baseline.txt", "anomalies --baseline analyze_b.wtrace --untracked-pct 50 analyze_a.wtrace", 0);
}
static void test_cli_golden_info_text(void **s) { golden("info_a.txt", "info analyze_a.wtrace", 0); }
static void test_cli_golden_info_json(void **s) { golden("info_a.json", "info --json analyze_a.wtrace", 0); }
static void test_cli_golden_dump_text(void **s) { golden("dump_a.txt", "dump analyze_a.wtrace", 0); }
static void test_cli_golden_dump_json(void **s) { golden("dump_a.jsonl", "dump --json analyze_a.wtrace", 0); }

static void help_ok(const char *args)
{
    char out[4096], err[4096], cwd[2048];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(out, sizeof out, "%s/help.out", cwd);
    snprintf(err, sizeof err, "%s/help.err", cwd);
    assert_int_equal(cli_run(WT_TEST_DATA_DIR, args, out, err), 0);
    char *o = cli_slurp(out), *e = cli_slurp(err);
    assert_non_null(o);
    assert_non_null(strstr(o, "usage: walltime-analyze"));
    assert_non_null(strstr(o, "exit status"));
    assert_string_equal(e, "");
    free(o);
    free(e);
}

/* Past the bound of 16384 (category, label) pairs, spans fold into "(other labels)": one
 * category stops at 16,128 (the rest is kept for small categories), so 16,228 distinct
 * labels of one category fold 100 spans, which both --json outputs say. */
static void test_cli_folded_label_counts_in_json(void **s)
{
    char cwd[2048], path[4096], out[4200], err[4200];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(path, sizeof path, "%s/folded_%d.wtrace", cwd, (int)getpid());
    tb *b = tb_create(path, 1, 0, 0);
    char label[32];
    for (int i = 0; i < 16128 + 100; i++) {
        snprintf(label, sizeof label, "t%d", i);
        tb_span(b, 1, 10 * i, 10 * i + 5, 0, "load", label);
    }
    tb_close(b, TB_END_CLEAN, 1000000, 0);
    snprintf(out, sizeof out, "%s.out", path);
    snprintf(err, sizeof err, "%s.err", path);
    const char *cmds[2] = { "anomalies --json", "ledger --json" };
    for (int k = 0; k < 2; k++) {
        char args[4300];
        snprintf(args, sizeof args, "%s '%s'", cmds[k], path);
        assert_int_equal(cli_run(cwd, args, out, err), 0);
        char *got = cli_slurp(out);
        assert_non_null(got);
        if (!strstr(got, "\"folded_labels\": 100"))
            fail_msg("'%s' does not report 100 folded labels", cmds[k]);
        free(got);
    }
    unlink(path);
    unlink(out);
    unlink(err);
}

/* The CACHE MISS ranking past the list, through a file (the batch path) and both outputs.
 * "load": 10,000 MISSes of 5 ns (the list), then "again" missing 6 times for 100 .. 600 ns: it
 * keeps its 4 slowest, all among its category's 10 most costly, and had more, so the group
 * cannot vouch for its ranking. "late": 12 labels missing once each past the list, all kept:
 * its 10 most costly are those of the run. */
static void test_cli_miss_ranking_past_the_list(void **s)
{
    char cwd[2048], path[4096], out[4200], err[4200], args[4300];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(path, sizeof path, "%s/ranking_%d.wtrace", cwd, (int)getpid());
    tb *b = tb_create(path, 1, 0, 0);
    char label[32];
    int64_t t = 0;
    tb_span_desc d = { .tid = 1, .category = "load", .cached = WT_CACHED_MISS };
    for (int i = 0; i < 10000; i++, t += 10) {
        snprintf(label, sizeof label, "t%d", i);
        d.start = t, d.end = t + 5, d.label = label;
        tb_span_ex(b, &d);
    }
    for (int j = 1; j <= 6; j++, t += 1000) {
        d.start = t, d.end = t + 100 * j, d.label = "again";
        tb_span_ex(b, &d);
    }
    d.category = "late";
    for (int i = 0; i < 12; i++, t += 100) {
        snprintf(label, sizeof label, "l%d", i);
        d.start = t, d.end = t + 50 + i, d.label = label;
        tb_span_ex(b, &d);
    }
    tb_close(b, TB_END_CLEAN, t, 0);
    snprintf(out, sizeof out, "%s.out", path);
    snprintf(err, sizeof err, "%s.err", path);
    snprintf(args, sizeof args, "anomalies --json --min-cost 0 '%s'", path);
    assert_int_equal(cli_run(cwd, args, out, err), 0);
    char *got = cli_slurp(out);
    assert_non_null(got);
    const char *load = strstr(got, "\"category\": \"load\""), *late = strstr(got, "\"category\": \"late\"");
    assert_non_null(load);
    assert_non_null(late);
    const char *rl = strstr(load, "\"ranked\": "), *rt = strstr(late, "\"ranked\": ");
    assert_non_null(strstr(load, "\"count\": 10006,"));
    assert_non_null(strstr(load, "\"listed\": 10004,"));
    assert_true(rl && strncmp(rl, "\"ranked\": false", 15) == 0);
    assert_non_null(strstr(late, "\"count\": 12,"));
    assert_non_null(strstr(late, "\"listed\": 10,"));
    assert_true(rt && strncmp(rt, "\"ranked\": true", 14) == 0);
    free(got);
    snprintf(args, sizeof args, "anomalies --min-cost 0 '%s'", path);
    assert_int_equal(cli_run(cwd, args, out, err), 0);
    got = cli_slurp(out);
    assert_non_null(got);
    if (!strstr(got, "10006 CACHE MISS in load, ") || !strstr(got, "; the 10 most costly of the 10004 listed:") ||
        !strstr(got, "12 CACHE MISS in late, ") || !strstr(got, " avoidable in all; the 10 most costly:\n"))
        fail_msg("headings:\n%s", got);
    free(got);
    unlink(path);
    unlink(out);
    unlink(err);
}

static void test_cli_golden_help_per_command(void **s)
{
    help_ok("--help");
    help_ok("ledger --help");
    help_ok("anomalies --help");
    help_ok("info --help");
    help_ok("dump -h");
}

static void usage_error(const char *args, const char *msg)
{
    char out[4096], err[4096], cwd[2048];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(out, sizeof out, "%s/usage.out", cwd);
    snprintf(err, sizeof err, "%s/usage.err", cwd);
    assert_int_equal(cli_run(WT_TEST_DATA_DIR, args, out, err), 2);
    char *e = cli_slurp(err);
    assert_non_null(e);
    if (!strstr(e, msg))
        fail_msg("'%s': stderr '%s' lacks '%s'", args, e, msg);
    free(e);
}

static void test_cli_golden_usage_errors_exit_2(void **s)
{
    usage_error("ledger", "no trace file given");
    usage_error("ledger --bogus analyze_a.wtrace", "unknown option '--bogus'");
    usage_error("ledger --by thread analyze_a.wtrace", "--by: 'thread'");
    usage_error("ledger --top x analyze_a.wtrace", "--top: 'x' is not an integer");
    usage_error("anomalies --budget weights analyze_a.wtrace", "--budget: 'weights'");
    /* a budget that could never fire is a usage error, not a gate that always passes */
    usage_error("ledger --budget nosuchcat=1 analyze_a.wtrace",
                "--budget: no category 'nosuchcat'; the categories are 'weights', 'decode', "
                "'generate'");
    usage_error("anomalies --fail-on budget --budget-self wieghts=10% analyze_a.wtrace",
                "--budget-self: no category 'wieghts'");
    usage_error("ledger --budget weights=101% analyze_a.wtrace", "at most 100%");
    usage_error("ledger --budget weights=1s analyze_a.wtrace", "--budget: 'weights=1s' is not");
    usage_error("ledger --budget =1 analyze_a.wtrace", "--budget: '=1' is not");
    usage_error("ledger --budget-self weights=-1 analyze_a.wtrace", "--budget-self: 'weights=-1'");
    usage_error("anomalies --fail-on=never analyze_a.wtrace", "--fail-on: 'never'");
    usage_error("anomalies --untracked-pct abc analyze_a.wtrace", "'abc' is not a number");
    usage_error("info --json", "no trace file given");
    usage_error("dump --x analyze_a.wtrace", "unknown option '--x'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_golden_ledger_text),
        cmocka_unit_test(test_cli_golden_ledger_default_command),
        cmocka_unit_test(test_cli_golden_ledger_flat),
        cmocka_unit_test(test_cli_golden_ledger_json),
        cmocka_unit_test(test_cli_golden_ledger_two_files_by_label),
        cmocka_unit_test(test_cli_golden_ledger_two_files_json),
        cmocka_unit_test(test_cli_golden_anomalies_text),
        cmocka_unit_test(test_cli_golden_anomalies_json),
        cmocka_unit_test(test_cli_golden_anomalies_fail_on_miss_exits_3),
        cmocka_unit_test(test_cli_golden_anomalies_budget_gate),
        cmocka_unit_test(test_cli_golden_anomalies_baseline),
        cmocka_unit_test(test_cli_folded_label_counts_in_json),
        cmocka_unit_test(test_cli_miss_ranking_past_the_list),
        cmocka_unit_test(test_cli_golden_info_text),
        cmocka_unit_test(test_cli_golden_info_json),
        cmocka_unit_test(test_cli_golden_dump_text),
        cmocka_unit_test(test_cli_golden_dump_json),
        cmocka_unit_test(test_cli_golden_help_per_command),
        cmocka_unit_test(test_cli_golden_usage_errors_exit_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
