/* The committed sample traces of the analyzer's golden tests (tests/data/analyze_a.wtrace and
 * analyze_b.wtrace), built with tracebuild from hand-chosen times. As a test it rebuilds them
 * and checks the committed bytes are what this generator makes (raw frames, so the bytes do
 * not depend on the zstd version); `test_cli_sample DIR` writes them into DIR on purpose.
 *
 * analyze_a (pid 4242, process start 1.0 s, end 9.0 s; times below in seconds):
 *   main   4242  weights/layer0 1.2-3.2 MISS "cache dir unset" 4e9 bytes
 *                weights/layer1 3.3-3.8 HIT 1e9 bytes
 *                decode/step 4.5-5.5 and 6.0-7.0 (depth 1) inside generate/run 4.0-8.0
 *   loader 4243  weights/layer2 2.0-4.0 MISS (no detail) 2e9 bytes
 *                weights/layer1 5.0-5.2 HIT
 * analyze_b (pid 4343, process start 1.5 s, end 6.0 s, no thread name):
 *   4343         weights/layer0 2.0-2.5 HIT, weights/layer0 3.0-5.0 MISS "key changed"
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tracebuild.h"

#define S(x) ((int64_t)((x) * 1e9 + 0.5))

static void span(tb *b, uint64_t tid, double s, double e, uint32_t depth, const char *cat,
                 const char *label, wt_cached cached, int64_t bytes, const char *detail)
{
    tb_span_desc d = { 0 };
    d.tid = tid;
    d.start = S(s);
    d.end = S(e);
    d.depth = depth;
    d.category = cat;
    d.label = label;
    d.cached = cached;
    d.bytes = bytes;
    d.detail = detail;
    tb_span_ex(b, &d);
}

static void make_samples(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/analyze_a.wtrace", dir);
    tb *b = tb_create(path, 4242, S(1.0), S(1.1));
    tb_set_raw(b, 1);
    tb_thread_name(b, 4242, S(1.1), "main");
    tb_meta(b, 4242, S(1.1), "model", "tiny");
    tb_thread_name(b, 4243, S(1.15), "loader");
    span(b, 4242, 1.2, 3.2, 0, "weights", "layer0", WT_CACHED_MISS, 4000000000LL, "cache dir unset");
    span(b, 4242, 3.3, 3.8, 0, "weights", "layer1", WT_CACHED_HIT, 1000000000LL, NULL);
    tb_counter(b, 4242, S(3.8), "device_bytes", 5000000000LL);
    span(b, 4243, 2.0, 4.0, 0, "weights", "layer2", WT_CACHED_MISS, 2000000000LL, NULL);
    tb_sync(b, S(4.1));
    tb_frame(b);
    span(b, 4243, 5.0, 5.2, 0, "weights", "layer1", WT_CACHED_HIT, 0, NULL);
    span(b, 4242, 4.5, 5.5, 1, "decode", "step", WT_CACHED_UNKNOWN, 0, NULL);
    tb_mark(b, 4242, S(5.6), "generate", "first token", NULL);
    span(b, 4242, 6.0, 7.0, 1, "decode", "step", WT_CACHED_UNKNOWN, 0, NULL);
    span(b, 4242, 4.0, 8.0, 0, "generate", "run", WT_CACHED_UNKNOWN, 0, NULL);
    tb_close(b, TB_END_CLEAN, S(9.0), 0);

    snprintf(path, sizeof path, "%s/analyze_b.wtrace", dir);
    b = tb_create(path, 4343, S(1.5), S(1.5));
    tb_set_raw(b, 1);
    span(b, 4343, 2.0, 2.5, 0, "weights", "layer0", WT_CACHED_HIT, 0, NULL);
    span(b, 4343, 3.0, 5.0, 0, "weights", "layer0", WT_CACHED_MISS, 0, "key changed");
    tb_close(b, TB_END_CLEAN, S(6.0), 0);
}

static void same_file(const char *a, const char *b)
{
    size_t la, lb;
    unsigned char *x = tb_read_file(a, &la), *y = tb_read_file(b, &lb);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(la, lb);
    assert_memory_equal(x, y, la);
    free(x);
    free(y);
}

static void test_cli_sample_committed_matches_generator(void **state)
{
    make_samples(".");
    same_file("analyze_a.wtrace", WT_TEST_DATA_DIR "/analyze_a.wtrace");
    same_file("analyze_b.wtrace", WT_TEST_DATA_DIR "/analyze_b.wtrace");
}

int main(int argc, char **argv)
{
    if (argc == 2) {
        make_samples(argv[1]);
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_sample_committed_matches_generator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
