/* The analyses' building blocks (analyze/core/spanstat.h): the 2-way pointer-pair cache keeps
 * two pairs that share a set and evicts the least recently used of them. Pairs that share a
 * set are found by search here, so the test does not depend on the hash's constants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "spanstat.h"

#define BITS 6 /* 64 slots: 32 sets */

/* One look-up as the analyses do it: a hit returns its value; a miss fills the slot with v. */
static int lookup(wt__pair_slot *cache, uint64_t a, uint64_t b, uint32_t v, uint32_t *got)
{
    wt__pair_slot *s = wt__pair_cache_slot(cache, BITS, a, b);
    if (s->valid && s->a == a && s->b == b) {
        *got = s->x;
        return 1;
    }
    *s = (wt__pair_slot){ a, b, v, 0, 1, 0 };
    *got = v;
    return 0;
}

/* An empty cache and three keys (7, b[i]) whose look-ups land in one set (the slot returned
 * is the set's first); then (7, b[0]) -> 10 and (7, b[1]) -> 11 looked up, so b[1] is the
 * more recent. */
static void two_in_one_set(wt__pair_slot *cache, uint64_t b[3])
{
    memset(cache, 0, sizeof(wt__pair_slot) << BITS);
    wt__pair_slot *set = wt__pair_cache_slot(cache, BITS, 7, 1000);
    b[0] = 1000;
    int n = 1;
    for (uint64_t k = 1001; n < 3 && k < 1000000; k++)
        if (wt__pair_cache_slot(cache, BITS, 7, k) == set)
            b[n++] = k;
    assert_int_equal(n, 3);
    memset(cache, 0, sizeof(wt__pair_slot) << BITS);
    uint32_t got;
    assert_false(lookup(cache, 7, b[0], 10, &got));
    assert_false(lookup(cache, 7, b[1], 11, &got));
}

static void test_spanstat_pair_cache_keeps_two_pairs_of_one_set(void **state)
{
    (void)state;
    wt__pair_slot cache[1u << BITS];
    uint64_t b[3];
    two_in_one_set(cache, b);
    uint32_t got;
    /* alternating, the two pairs stay (direct-mapped, each would evict the other) */
    for (int i = 0; i < 4; i++) {
        assert_true(lookup(cache, 7, b[0], 99, &got));
        assert_int_equal(got, 10);
        assert_true(lookup(cache, 7, b[1], 99, &got));
        assert_int_equal(got, 11);
    }
}

static void test_spanstat_pair_cache_evicts_the_least_recently_used(void **state)
{
    (void)state;
    wt__pair_slot cache[1u << BITS];
    uint64_t b[3];
    two_in_one_set(cache, b);
    uint32_t got;
    assert_true(lookup(cache, 7, b[0], 99, &got)); /* b[1] is now the least recent */
    assert_false(lookup(cache, 7, b[2], 12, &got)); /* evicts b[1] */
    assert_true(lookup(cache, 7, b[0], 99, &got));
    assert_int_equal(got, 10);
    assert_true(lookup(cache, 7, b[2], 99, &got));
    assert_int_equal(got, 12);
    assert_false(lookup(cache, 7, b[1], 13, &got)); /* gone; refilled, evicting b[0] */
    assert_true(lookup(cache, 7, b[1], 99, &got));
    assert_int_equal(got, 13);
    assert_true(lookup(cache, 7, b[2], 99, &got));
    assert_false(lookup(cache, 7, b[0], 14, &got));
}

static void test_spanstat_pair_cache_slot_keeps_its_third_value_when_moved(void **state)
{
    (void)state;
    /* z is a second user's index (the anomalies' key in the ledger's slot): it moves with
     * its pair inside the set */
    wt__pair_slot cache[1u << BITS];
    uint64_t b[3];
    two_in_one_set(cache, b);
    wt__pair_slot *s = wt__pair_cache_slot(cache, BITS, 7, b[0]); /* b[0] comes first */
    s->z = 42;
    uint32_t got;
    lookup(cache, 7, b[1], 11, &got); /* b[0] moves to the second way */
    s = wt__pair_cache_slot(cache, BITS, 7, b[0]); /* and back */
    assert_true(s->valid && s->b == b[0]);
    assert_int_equal(s->z, 42);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spanstat_pair_cache_keeps_two_pairs_of_one_set),
        cmocka_unit_test(test_spanstat_pair_cache_evicts_the_least_recently_used),
        cmocka_unit_test(test_spanstat_pair_cache_slot_keeps_its_third_value_when_moved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
