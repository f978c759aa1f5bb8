/* The analyses' building blocks (analyze/core/spanstat.h): the 2-way pointer-pair cache keeps
 * two pairs that share a set and evicts the least recently used of them. Pairs that share a
 * set are found by search here, so the test does not depend on the hash's constants. The
 * reservoir's median leaves its samples in the order of a stable insertion sort by `<` (the
 * model here), whatever the values: later adds replace samples by position. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spanstat.h"
#include "xorshift.h"

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

/* The model: a stable insertion sort by `<` (what glibc's merge sort, the median's sort before,
 * leaves; values that compare equal keep their order). */
static void model_sort(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        const double x = v[i];
        size_t j = i;
        while (j > 0 && x < v[j - 1]) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* n values into a fresh reservoir (n <= WT_STATS_RESERVOIR: all kept, in order), its median
 * checked against the model's middle and its samples, bit for bit, against the model's sort. */
static void check_sorted_like_model(const double *v, size_t n)
{
    wt__reservoir r;
    memset(&r, 0, sizeof r);
    double m[WT_STATS_RESERVOIR];
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(wt__reservoir_add(&r, v[i]), 0);
        m[i] = v[i];
    }
    model_sort(m, n);
    const double want = n & 1 ? m[n / 2] : 0.5 * (m[n / 2 - 1] + m[n / 2]);
    const double got = wt__reservoir_median(&r);
    assert_memory_equal(&got, &want, sizeof got);
    assert_int_equal(r.len, n);
    assert_memory_equal(r.s, m, n * sizeof *m);
    wt__reservoir_release(&r);
}

/* Durations as the analyses give them (ns * 1e-9: every byte of the bits differs), values of
 * both signs and many magnitudes, many ties (-0.0 and +0.0 among them: equal, so their order
 * shows whether the sort is stable), and the edge counts 1, 2 and full. */
static void test_spanstat_median_sorts_as_the_model(void **state)
{
    (void)state;
    uint64_t x = 0x2545F4914F6CDD1DULL;
    double v[WT_STATS_RESERVOIR];
    for (int round = 0; round < 200; round++) {
        const size_t n = round < 3 ? (size_t[]){ 1, 2, WT_STATS_RESERVOIR }[round]
                                   : 1 + xorshift64(&x) % WT_STATS_RESERVOIR;
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = xorshift64(&x);
            switch (round % 5) {
            case 4: v[i] = (r & 1 ? -1.0 : 1.0) * (double)((r >> 1) % 3); break; /* +-0 */
            case 0: v[i] = (double)(r % 5000000) * 1e-9; break;          /* durations */
            case 1: v[i] = (double)(int64_t)(r % 41) - 20.0; break;      /* ties, signs */
            case 2: v[i] = ldexp((double)(r >> 11), (int)(r % 200) - 150) *
                           (r & 1 ? -1.0 : 1.0); break;                  /* magnitudes */
            default: v[i] = (r & 3) ? 1e300 * (double)(r % 3) : -INFINITY; break;
            }
        }
        check_sorted_like_model(v, n);
    }
}

/* -0.0 and +0.0 compare equal and keep their order; a NaN (no duration is one) is taken
 * without harm (the comparison sort, as before). */
static void test_spanstat_median_keeps_order_of_signed_zeros(void **state)
{
    (void)state;
    const double z[] = { 0.0, -0.0, 1.0, -0.0, -1.0, 0.0, 0.5 };
    check_sorted_like_model(z, sizeof z / sizeof *z);
    wt__reservoir r;
    memset(&r, 0, sizeof r);
    const double v[] = { 3.0, NAN, 1.0 };
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(wt__reservoir_add(&r, v[i]), 0);
    (void)wt__reservoir_median(&r);
    assert_int_equal(r.len, 3);
    wt__reservoir_release(&r);
}

/* A median taken while the reservoir samples, then more adds: the samples the adds replace are
 * the model's sorted array's (the same positions), so every later median matches a model fed
 * the same values and sorted by the model at the same points. */
static void test_spanstat_adds_after_a_median_replace_the_sorted_positions(void **state)
{
    (void)state;
    wt__reservoir r, m;
    memset(&r, 0, sizeof r);
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 5000; i++) {
        const double d = (double)(xorshift64(&x) % 1000000) * 1e-9;
        assert_int_equal(wt__reservoir_add(&r, d), 0);
        if (i % 700 == 699) {
            /* the model: the same reservoir copied, its samples sorted by model_sort() */
            m = r;
            m.s = malloc(r.cap * sizeof *m.s);
            assert_non_null(m.s);
            memcpy(m.s, r.s, r.len * sizeof *m.s);
            model_sort(m.s, m.len);
            (void)wt__reservoir_median(&r);
            assert_memory_equal(r.s, m.s, r.len * sizeof *m.s);
            free(m.s);
        }
    }
    assert_int_equal(r.len, WT_STATS_RESERVOIR);
    wt__reservoir_release(&r);
}

/* Room without growth: an empty reservoir has none, one with spare capacity or full has. */
static void test_spanstat_reservoir_room(void **state)
{
    (void)state;
    wt__reservoir r;
    memset(&r, 0, sizeof r);
    assert_false(wt__reservoir_has_room(&r));
    assert_int_equal(wt__reservoir_add(&r, 1.0), 0);
    assert_true(wt__reservoir_has_room(&r)); /* capacity 4 */
    for (int i = 1; i < WT_STATS_RESERVOIR; i++) {
        if (r.len == r.cap)
            assert_false(wt__reservoir_has_room(&r));
        assert_int_equal(wt__reservoir_add(&r, (double)i), 0);
    }
    assert_int_equal(r.len, WT_STATS_RESERVOIR);
    assert_true(wt__reservoir_has_room(&r));
    assert_int_equal(wt__reservoir_add(&r, 2.0), 0);
    assert_true(wt__reservoir_has_room(&r));
    wt__reservoir_release(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spanstat_pair_cache_keeps_two_pairs_of_one_set),
        cmocka_unit_test(test_spanstat_pair_cache_evicts_the_least_recently_used),
        cmocka_unit_test(test_spanstat_pair_cache_slot_keeps_its_third_value_when_moved),
        cmocka_unit_test(test_spanstat_median_sorts_as_the_model),
        cmocka_unit_test(test_spanstat_median_keeps_order_of_signed_zeros),
        cmocka_unit_test(test_spanstat_adds_after_a_median_replace_the_sorted_positions),
        cmocka_unit_test(test_spanstat_reservoir_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
