/* The external sort (extsort.h) against an order built by hand: records (key, seq) put in seq
 * order with keys from a fixed scramble, many equal (ties ordered by seq, as trend's refs are
 * by their place on the command line). Every record must come out once, in order, however the
 * chunks fall: all in memory, chunks of 1 (passes into new files), exactly FANIN chunks (no
 * pass), FANIN + 1 (one pass), uneven last chunks, and nothing at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "extsort.h"
#include "walltime/error.h"

typedef struct rec {
    uint32_t key, seq;
} rec;

#define KEYS 37

static uint32_t key_of(uint32_t seq) { return (seq * 7919u + 13u) % KEYS; }

static int rec_cmp(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* n records through a sort of `chunk` in memory; each must be the next of the order by hand:
 * key 0's records in seq order, then key 1's, ... (a scan per key, no sort). */
static void sort_and_check(uint32_t n, size_t chunk)
{
    wt__extsort *s = NULL;
    assert_int_equal(wt__extsort_create(sizeof(rec), chunk, rec_cmp, &s), 0);
    for (uint32_t i = 0; i < n; i++) {
        const rec r = { key_of(i), i };
        assert_int_equal(wt__extsort_put(s, &r), 0);
    }
    assert_int_equal(wt__extsort_finish(s), 0);
    for (uint32_t k = 0; k < KEYS; k++)
        for (uint32_t i = 0; i < n; i++) {
            if (key_of(i) != k)
                continue;
            const void *p = NULL;
            assert_int_equal(wt__extsort_next(s, &p), 1);
            const rec *got = p;
            if (got->key != k || got->seq != i)
                fail_msg("n %u chunk %zu: got (%u, %u), want (%u, %u)", n, chunk, got->key,
                         got->seq, k, i);
        }
    const void *p;
    assert_int_equal(wt__extsort_next(s, &p), 0);
    assert_int_equal(wt__extsort_next(s, &p), 0);
    wt__extsort_free(s);
}

static void test_extsort_in_memory(void **state)
{
    (void)state;
    sort_and_check(0, 0);
    sort_and_check(1, 0);
    sort_and_check(1000, 0);
    sort_and_check(WT_EXTSORT_CHUNK, 0); /* exactly full: still no file */
}

static void test_extsort_chunks_and_passes(void **state)
{
    (void)state;
    const size_t F = WT_EXTSORT_FANIN;
    sort_and_check(1, 1);
    sort_and_check(2, 1);
    sort_and_check(1000, 1);                 /* 1000 -> 63 -> 4 chunks, then the merge */
    sort_and_check((uint32_t)(F * 10), 10);  /* FANIN chunks: no pass */
    sort_and_check((uint32_t)(F * 10 + 1), 10); /* one more: a pass, the last chunk of 1 */
    sort_and_check((uint32_t)(F * F * 3), 3);   /* FANIN^2 chunks: one pass to FANIN */
    sort_and_check((uint32_t)(F * F * 3 + 2), 3);
    sort_and_check(WT_EXTSORT_CHUNK + 1, 0); /* the default chunk, one past it */
    sort_and_check(5000, 7);
}

/* Records of a size that is no divisor of the read buffer: a record never straddles two reads. */
typedef struct odd {
    uint32_t key, seq;
    unsigned char pad[45];
} odd;

static int odd_cmp(const void *a, const void *b)
{
    const odd *x = a, *y = b;
    return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->seq > y->seq) - (x->seq < y->seq);
}

static void test_extsort_odd_record_size(void **state)
{
    (void)state;
    wt__extsort *s = NULL;
    assert_int_equal(wt__extsort_create(sizeof(odd), 5, odd_cmp, &s), 0);
    const uint32_t n = 3000;
    for (uint32_t i = 0; i < n; i++) {
        odd r;
        memset(&r, (int)(i & 0xff), sizeof r);
        r.key = n - 1 - i; /* put in reverse */
        r.seq = i;
        assert_int_equal(wt__extsort_put(s, &r), 0);
    }
    assert_int_equal(wt__extsort_finish(s), 0);
    for (uint32_t k = 0; k < n; k++) {
        const void *p;
        assert_int_equal(wt__extsort_next(s, &p), 1);
        const odd *got = p;
        assert_int_equal(got->key, k);
        assert_int_equal(got->seq, n - 1 - k);
        assert_int_equal(got->pad[44], (n - 1 - k) & 0xff); /* the whole record came back */
    }
    const void *p;
    assert_int_equal(wt__extsort_next(s, &p), 0);
    wt__extsort_free(s);
}

static void test_extsort_refuses_bad_sizes(void **state)
{
    (void)state;
    wt__extsort *s = (wt__extsort *)1;
    assert_int_equal(wt__extsort_create(0, 0, rec_cmp, &s), WT_EINVAL);
    assert_null(s);
    assert_int_equal(wt__extsort_create(8192, 0, rec_cmp, &s), WT_EINVAL);
    assert_int_equal(wt__extsort_create(8, 0, NULL, &s), WT_EINVAL);
    wt__extsort_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extsort_in_memory),
        cmocka_unit_test(test_extsort_chunks_and_passes),
        cmocka_unit_test(test_extsort_odd_record_size),
        cmocka_unit_test(test_extsort_refuses_bad_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
