/* stats.c: summaries, the exact sign-test interval and its verdict, Kendall's tau. Every
 * expected value is computed by hand in the comment beside it (binomial tails as fractions of
 * 2^n). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "stats.h"

static void test_stats_median_odd_even_empty(void **state)
{
    double odd[] = { 1, 2, 3 }, even[] = { 1, 2, 3, 4 };
    assert_true(wt_stats_median_sorted(odd, 3) == 2.0);
    assert_true(wt_stats_median_sorted(even, 4) == 2.5);
    assert_true(isnan(wt_stats_median_sorted(even, 0)));
}

static void test_stats_summary_unsorted_input_unchanged(void **state)
{
    const double v[] = { 5, 1, 9, 3 };
    wt_summary s;
    assert_int_equal(wt_stats_summary(v, 4, &s), 0);
    assert_int_equal(s.n, 4);
    assert_true(s.median == 4.0); /* (3 + 5) / 2 */
    assert_true(s.min == 1.0);
    assert_true(s.max == 9.0);
    assert_true(v[0] == 5 && v[1] == 1); /* not sorted in place */
    assert_int_equal(wt_stats_summary(v, 0, &s), 0);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.median));
}

static void test_stats_binomial_tails_exact(void **state)
{
    assert_true(fabs(wt_stats_binom_half_cdf(6, 0) - 1.0 / 64) < 1e-12);
    assert_true(fabs(wt_stats_binom_half_cdf(10, 1) - 11.0 / 1024) < 1e-12);  /* 1 + 10 */
    assert_true(fabs(wt_stats_binom_half_cdf(10, 2) - 56.0 / 1024) < 1e-12);  /* 1 + 10 + 45 */
    assert_true(wt_stats_binom_half_cdf(4, 4) == 1.0);
    /* large n stays finite: P(X <= 0) for n 2000 is 2^-2000, a hair above 0 */
    assert_true(wt_stats_binom_half_cdf(2000, 0) >= 0 && wt_stats_binom_half_cdf(2000, 1000) < 1);
}

static void test_stats_min_pairs_for_confidence(void **state)
{
    assert_int_equal(wt_stats_min_pairs(0.95), 6); /* 2/64 <= 0.05 < 2/32 */
    assert_int_equal(wt_stats_min_pairs(0.90), 5); /* 2/32 = 0.0625 <= 0.10 */
    assert_int_equal(wt_stats_min_pairs(0.99), 8); /* 2/256 <= 0.01 < 2/128 */
}

static void test_stats_paired_clear_effect_is_faster(void **state)
{
    /* d = 10 11 10 11 11 10 11 11: sorted 10 10 10 11 11 11 11 11, median (11 + 11) / 2 */
    const double a[] = { 110, 112, 109, 111, 113, 110, 112, 111 };
    const double b[] = { 100, 101, 99, 100, 102, 100, 101, 100 };
    wt_paired p;
    assert_int_equal(wt_stats_paired(a, b, 8, 0.95, &p), 0);
    assert_int_equal(p.n, 8);
    assert_true(p.median == 11.0);
    /* n 8: 2 P(X <= 0) = 2/256 <= 0.05, 2 P(X <= 1) = 18/256 > 0.05: k = 1, [d(1), d(8)] */
    assert_true(p.lo == 10.0 && p.hi == 11.0);
    assert_true(fabs(p.confidence - (1 - 2.0 / 256)) < 1e-12);
    assert_int_equal(p.verdict, WT_VERDICT_FASTER);
    assert_string_equal(wt_verdict_name(p.verdict), "faster");
}

static void test_stats_paired_ten_pairs_uses_second_order_statistics(void **state)
{
    /* d = 1..10 (a - b); n 10: 2 P(X <= 1) = 22/1024 <= 0.05 < 2 P(X <= 2) = 112/1024: k = 2 */
    double a[10], b[10];
    for (int i = 0; i < 10; i++) {
        a[i] = 100 + (i + 1);
        b[i] = 100;
    }
    wt_paired p;
    assert_int_equal(wt_stats_paired(a, b, 10, 0.95, &p), 0);
    assert_true(p.lo == 2.0 && p.hi == 9.0);
    assert_true(p.median == 5.5);
    assert_true(fabs(p.confidence - (1 - 22.0 / 1024)) < 1e-12);
}

static void test_stats_paired_pure_noise_is_within_noise(void **state)
{
    /* d = -3 2 -1 4 -2 1 3 -4: sorted -4..4 without 0, median 0, interval [-4, 4] */
    const double a[] = { 97, 102, 99, 104, 98, 101, 103, 96 };
    const double b[] = { 100, 100, 100, 100, 100, 100, 100, 100 };
    wt_paired p;
    assert_int_equal(wt_stats_paired(a, b, 8, 0.95, &p), 0);
    assert_true(p.median == 0.0);
    assert_true(p.lo == -4.0 && p.hi == 4.0);
    assert_int_equal(p.verdict, WT_VERDICT_NOISE);
}

static void test_stats_paired_slower_when_b_takes_longer(void **state)
{
    const double a[] = { 50, 51, 50, 52, 50, 51 }, b[] = { 60, 60, 61, 60, 62, 60 };
    wt_paired p;
    assert_int_equal(wt_stats_paired(a, b, 6, 0.95, &p), 0);
    /* d = -10 -9 -11 -8 -12 -9: sorted -12 -11 -10 -9 -9 -8 */
    assert_true(p.lo == -12.0 && p.hi == -8.0);
    assert_true(p.median == -9.5);
    assert_int_equal(p.verdict, WT_VERDICT_SLOWER);
}

static void test_stats_paired_too_few_rounds_says_so(void **state)
{
    const double a[] = { 110, 111, 112, 113, 114 }, b[] = { 100, 100, 100, 100, 100 };
    wt_paired p;
    assert_int_equal(wt_stats_paired(a, b, 5, 0.95, &p), 0);
    assert_int_equal(p.verdict, WT_VERDICT_TOO_FEW);
    assert_true(p.median == 12.0);
    assert_true(isnan(p.lo) && isnan(p.hi));
    assert_int_equal(p.min_pairs, 6);
    /* the same five pairs at 90%: 2/32 <= 0.10, so [min, max] */
    assert_int_equal(wt_stats_paired(a, b, 5, 0.90, &p), 0);
    assert_int_equal(p.verdict, WT_VERDICT_FASTER);
    assert_true(p.lo == 10.0 && p.hi == 14.0);
    /* the seed's default of two rounds */
    assert_int_equal(wt_stats_paired(a, b, 2, 0.95, &p), 0);
    assert_int_equal(p.verdict, WT_VERDICT_TOO_FEW);
    assert_int_equal(wt_stats_paired(a, b, 0, 0.95, &p), 0);
    assert_int_equal(p.verdict, WT_VERDICT_NONE);
    assert_true(isnan(p.median));
}

/* By hand at 95%: k(n) = the largest k with 2 P(X <= k-1) <= 0.05 is 0 for n <= 5, 1 for
 * n = 6..8 (2 P(X <= 1) at n = 8 is 2 * 9/256 = 0.0703), 2 for n = 9 (2 * 10/512 = 0.039).
 * The interval excludes 0 when fewer than k differences are on the minority side. */
static void test_stats_more_pairs_from_the_sign_test(void **state)
{
    const double four_up[4] = { 3, 1, 2, 5 };
    assert_int_equal(wt_stats_more_pairs(four_up, 4, 0.95, 1000), 2);      /* 6 pairs, k 1 > 0 */
    const double three_up[4] = { 3, -1, 2, 5 };
    assert_int_equal(wt_stats_more_pairs(three_up, 4, 0.95, 1000), 5);     /* 9 pairs, k 2 > 1 */
    const double zero_counts_against[4] = { 3, 0, 2, 5 };
    assert_int_equal(wt_stats_more_pairs(zero_counts_against, 4, 0.95, 1000), 5);
    const double down[2] = { -1, -2 };
    assert_int_equal(wt_stats_more_pairs(down, 2, 0.95, 1000), 4);
    assert_int_equal(wt_stats_more_pairs(down, 2, 0.90, 1000), 3);         /* 5 pairs at 90% */
    const double tie[2] = { 1, -1 };
    assert_int_equal(wt_stats_more_pairs(tie, 2, 0.95, 1000), -1);         /* no direction */
    const double six_up[6] = { 1, 2, 3, 4, 5, 6 };
    assert_int_equal(wt_stats_more_pairs(six_up, 6, 0.95, 1000), 0);       /* decided already */
    assert_int_equal(wt_stats_more_pairs(three_up, 4, 0.95, 4), -1);       /* beyond the bound */
    assert_int_equal(wt_stats_more_pairs(NULL, 0, 0.95, 1000), -1);
}

static void test_stats_kendall_tau_trends(void **state)
{
    const double up[] = { 1, 2, 3, 4 }, down[] = { 4, 3, 2, 1 }, mixed[] = { 1, 3, 2, 4 };
    assert_true(wt_stats_kendall_tau(up, 4) == 1.0);
    assert_true(wt_stats_kendall_tau(down, 4) == -1.0);
    /* 5 concordant, 1 discordant of 6 pairs */
    assert_true(fabs(wt_stats_kendall_tau(mixed, 4) - 4.0 / 6) < 1e-12);
    assert_true(wt_stats_kendall_tau(up, 1) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_median_odd_even_empty),
        cmocka_unit_test(test_stats_summary_unsorted_input_unchanged),
        cmocka_unit_test(test_stats_binomial_tails_exact),
        cmocka_unit_test(test_stats_min_pairs_for_confidence),
        cmocka_unit_test(test_stats_paired_clear_effect_is_faster),
        cmocka_unit_test(test_stats_paired_ten_pairs_uses_second_order_statistics),
        cmocka_unit_test(test_stats_paired_pure_noise_is_within_noise),
        cmocka_unit_test(test_stats_paired_slower_when_b_takes_longer),
        cmocka_unit_test(test_stats_paired_too_few_rounds_says_so),
        cmocka_unit_test(test_stats_kendall_tau_trends),
        cmocka_unit_test(test_stats_more_pairs_from_the_sign_test),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
