/* `walltime-analyze info` shows the run metadata (wt_meta pairs), in text and JSON: a later
 * value of a key replaces the earlier one, untrusted bytes are escaped in text, and a trace of
 * many pairs keeps a bounded number of them and says how many more there were. */
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

#define S(x) ((int64_t)(((x) + 100.0) * 1e9 + 0.5))

static char *run_info(const char *trace, const char *opts, int *status)
{
    char cwd[2048], out[4096], err[4096], args[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(out, sizeof out, "%s/info.out", cwd);
    snprintf(err, sizeof err, "%s/info.err", cwd);
    snprintf(args, sizeof args, "info %s '%s'", opts, trace);
    *status = cli_run(cwd, args, out, err);
    char *got = cli_slurp(out);
    assert_non_null(got);
    return got;
}

static void test_cli_info_shows_meta_pairs_last_value_wins(void **state)
{
    char *path = tb_path_in("meta.wtrace");
    tb *b = tb_create(path, 77, S(0), S(0));
    tb_meta(b, 77, S(0.1), "rank", "3");
    tb_meta(b, 77, S(0.2), "model", "llama \"7b\"\nline2");
    tb_meta(b, 77, S(0.3), "rank", "4");
    tb_span(b, 77, S(1), S(2), 0, "load", "x");
    tb_close(b, TB_END_CLEAN, S(3), 0);
    int st;
    char *text = run_info(path, "", &st);
    assert_int_equal(st, 0);
    /* rank first (its first sight), with the later value; the newline escaped */
    assert_non_null(strstr(text, "\nmetadata\n  rank = 4\n  model = llama \"7b\"\\nline2\n"));
    free(text);
    char *json = run_info(path, "--json", &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(json, "\"meta\": {\n        \"rank\": \"4\",\n"
                                 "        \"model\": \"llama \\\"7b\\\"\\nline2\"\n      },"));
    assert_non_null(strstr(json, "\"meta_dropped\": 0"));
    free(json);
}

static void test_cli_info_without_meta_says_none(void **state)
{
    char *path = tb_path_in("nometa.wtrace");
    tb *b = tb_create(path, 78, S(0), S(0));
    tb_span(b, 78, S(1), S(2), 0, "load", "x");
    tb_close(b, TB_END_CLEAN, S(3), 0);
    int st;
    char *text = run_info(path, "", &st);
    assert_non_null(strstr(text, "\nmetadata        none\n"));
    free(text);
}

/* 300 distinct keys: 256 are kept, 44 counted; a long value is cut at 1024 bytes with "...". */
static void test_cli_info_meta_is_bounded(void **state)
{
    char *path = tb_path_in("manymeta.wtrace");
    tb *b = tb_create(path, 79, S(0), S(0));
    char key[32];
    for (int i = 0; i < 300; i++) {
        snprintf(key, sizeof key, "k%03d", i);
        tb_meta(b, 79, S(0.001 * i), key, "v");
    }
    char *big = malloc(5001);
    assert_non_null(big);
    memset(big, 'x', 5000);
    big[5000] = '\0';
    tb_meta(b, 79, S(0.5), "k000", big);
    free(big);
    tb_close(b, TB_END_CLEAN, S(3), 0);
    int st;
    char *text = run_info(path, "", &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(text, "\n  k255 = v\n  (44 more pairs not kept)\n"));
    assert_null(strstr(text, "k256"));
    char *k0 = strstr(text, "\n  k000 = ");
    assert_non_null(k0);
    k0 += strlen("\n  k000 = ");
    assert_int_equal(strspn(k0, "x"), 1024);
    assert_memory_equal(k0 + 1024, "...\n", 4);
    free(text);
}

/* Spans and counter samples interleaved (two samples after each span of thread 1, one after
 * each of thread 2, a frame boundary among them, an unclosed span, a mark, no end record):
 * every event counted once under its kind and its thread, by hand; the last event is thread
 * 1's last sample. */
static void test_cli_info_counts_spans_and_counter_samples(void **state)
{
    char *path = tb_path_in("counters.wtrace");
    tb *b = tb_create(path, 80, S(0), S(0));
    for (int i = 0; i < 50; i++) {
        tb_span(b, 2, S(1) + 1000 * i, S(1) + 1000 * i + 400, 0, "c", "l");
        tb_counter(b, 2, S(1) + 1000 * i + 450, "rss", i);
    }
    tb_span_desc open = { .tid = 2, .start = S(1) + 60000, .end = S(1) + 70000, .category = "c",
                          .label = "open", .unclosed = 1 };
    tb_span_ex(b, &open);
    tb_mark(b, 2, S(1) + 80000, "phase", "warm", NULL);
    for (int i = 0; i < 300; i++) {
        if (i == 150)
            tb_frame(b);
        tb_span(b, 1, S(2) + 1000 * i, S(2) + 1000 * i + 500, 0, "c", "l");
        tb_counter(b, 1, S(2) + 1000 * i + 600, "rss", i);
        tb_counter(b, 1, S(2) + 1000 * i + 700, "cpu", -i);
    }
    tb_close(b, TB_END_NONE, 0, 0);
    int st;
    char *json = run_info(path, "--json", &st);
    assert_int_equal(st, 0);
    char want[128];
    snprintf(want, sizeof want, "\"last_event_ns\": %lld,", (long long)(S(2) + 299700));
    assert_non_null(strstr(json, want));
    assert_non_null(strstr(json, "\"events\": 1002,"));
    assert_non_null(strstr(json, "\"span\": 351,\n        \"counter\": 650,\n        \"mark\": 1,"));
    assert_non_null(strstr(json, "\"unclosed\": 1,"));
    free(json);
    char *text = run_info(path, "", &st);
    assert_non_null(strstr(text, "\nthreads         2\n"
                                 "  2             102 events, 51 spans\n"
                                 "  1             900 events, 300 spans\n"));
    free(text);
}

static int setup(void **state) { return tb_tmpdir_enter("cli_info"); }
static int teardown(void **state) { return tb_tmpdir_leave(); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_info_shows_meta_pairs_last_value_wins),
        cmocka_unit_test(test_cli_info_without_meta_says_none),
        cmocka_unit_test(test_cli_info_meta_is_bounded),
        cmocka_unit_test(test_cli_info_counts_spans_and_counter_samples),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
