/* Labels by content whatever memory holds them (issue 11): 1,000 labels formatted into one
 * reused stack buffer in a random order, of every length from 0 to 40 bytes (the content
 * table's short, 8-16-byte and long paths), and 1,000 string literals in a random order
 * (more than the pointer cache's sets hold without collisions), all read back with exactly
 * the label each span was given, computed again here with snprintf. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "xorshift.h"
#define RT_DIR_PREFIX "lb" /* this file's temporary directories */
#include "test_recorder_util.h"

#define N_SPANS 5000
#define N_LABELS 1000

static uint64_t next_rand(uint64_t *x) { return xorshift64(x); }

/* Label k: "layer.K.wq" for most, a run of 'a's of length k % 41 for every 7th, so that
 * lengths 0..40 all occur and short labels are prefixes of longer ones. */
static void label_of(char *buf, size_t cap, unsigned k)
{
    if (k % 7 == 0) {
        const unsigned n = k % 41;
        memset(buf, 'a', n);
        buf[n] = '\0';
    } else {
        snprintf(buf, cap, "layer.%u.wq", k);
    }
}

static int formatted(void *arg)
{
    const char *p = arg;
    if (wt_open(p) != 0)
        return 1;
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N_SPANS; i++) {
        char buf[64]; /* one stack buffer, rewritten for every span */
        label_of(buf, sizeof buf, (unsigned)(next_rand(&x) % N_LABELS));
        const wt_span h = wt_begin("weight_load", buf);
        wt_end(h, WT_CACHED_HIT, 0, NULL);
    }
    return wt_close() != 0;
}

static void test_recorder_labels_formatted_into_one_buffer_keep_their_content(void **state)
{
    (void)state;
    const int st = rt_run(formatted, path, NULL, NULL);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    uint64_t x = 88172645463325252ull;
    size_t spans = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->ev[i].ev.kind != WT_EV_SPAN)
            continue;
        char want[64];
        label_of(want, sizeof want, (unsigned)(next_rand(&x) % N_LABELS));
        assert_string_equal(t->ev[i].ev.category, "weight_load");
        /* an empty label is recorded as no label */
        if (want[0])
            assert_string_equal(t->ev[i].ev.label ? t->ev[i].ev.label : "(none)", want);
        spans++;
    }
    assert_int_equal(spans, N_SPANS);
    rt_free(t);
}

#define D1(p) p "0", p "1", p "2", p "3", p "4", p "5", p "6", p "7", p "8", p "9"
#define D2(p) D1(p "0"), D1(p "1"), D1(p "2"), D1(p "3"), D1(p "4"), D1(p "5"), D1(p "6"), \
              D1(p "7"), D1(p "8"), D1(p "9")
#define D3(p) D2(p "0"), D2(p "1"), D2(p "2"), D2(p "3"), D2(p "4"), D2(p "5"), D2(p "6"), \
              D2(p "7"), D2(p "8"), D2(p "9")
static const char *const lit[N_LABELS] = { D3("tensor.") };

static int literals(void *arg)
{
    const char *p = arg;
    if (wt_open(p) != 0)
        return 1;
    uint64_t x = 2463534242ull;
    for (int i = 0; i < N_SPANS; i++) {
        const wt_span h = wt_begin("weight_load", lit[next_rand(&x) % N_LABELS]);
        wt_end(h, WT_CACHED_MISS, 0, NULL);
    }
    return wt_close() != 0;
}

static void test_recorder_a_thousand_literals_in_random_order_keep_their_content(void **state)
{
    (void)state;
    const int st = rt_run(literals, path, NULL, NULL);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    uint64_t x = 2463534242ull;
    size_t spans = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->ev[i].ev.kind != WT_EV_SPAN)
            continue;
        char want[32];
        snprintf(want, sizeof want, "tensor.%03u", (unsigned)(next_rand(&x) % N_LABELS));
        assert_non_null(t->ev[i].ev.label);
        assert_string_equal(t->ev[i].ev.label, want);
        spans++;
    }
    assert_int_equal(spans, N_SPANS);
    rt_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_recorder_labels_formatted_into_one_buffer_keep_their_content, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_a_thousand_literals_in_random_order_keep_their_content, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
