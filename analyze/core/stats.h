/* Small-sample statistics for keep/skip comparisons: summaries (median, min, max), the exact
 * sign-test confidence interval for the median of paired differences, a trend test (Kendall's
 * tau) and the verdict that turns an interval into plain words.
 *
 * Why the sign test: rounds are few (2 to 20), their noise is not normal (a cold cache makes
 * one round far slower), and the question is "is the typical paired difference above zero".
 * The sign-test interval is exact for any continuous distribution, needs no resampling (so
 * results are deterministic), and its bounds are observed differences, which a reader can
 * check against the per-round table. Its price: at 95% it needs at least 6 pairs; with fewer
 * the honest answer is "too few rounds to tell". */
#ifndef WT_STATS_H
#define WT_STATS_H

#include <stddef.h>

typedef struct wt_summary {
    size_t n;
    double median, min, max; /* NaN when n is 0 */
} wt_summary;

/* Sorts v[0..n) ascending in place. */
void wt_stats_sort(double *v, size_t n);

/* The median of sorted[0..n): the middle value, or the mean of the two middle values; NaN for
 * n 0. */
double wt_stats_median_sorted(const double *sorted, size_t n);

/* Summary of v[0..n) (any order, not changed). Returns 0, or WT_ENOMEM (out is then n 0). */
int wt_stats_summary(const double *v, size_t n, wt_summary *out);

/* P(X <= k) for X ~ Binomial(n, 1/2); 1 for k >= n. */
double wt_stats_binom_half_cdf(unsigned n, unsigned k);

/* The least number of pairs for which a sign-test interval at `confidence` (0 < c < 1) exists:
 * the least n with 2 * 0.5^n <= 1 - confidence (6 for 0.95, 5 for 0.90). */
unsigned wt_stats_min_pairs(double confidence);

typedef enum wt_verdict {
    WT_VERDICT_NONE = 0, /* nothing to compare: no pairs */
    WT_VERDICT_TOO_FEW,  /* too few pairs for an interval at the requested confidence */
    WT_VERDICT_NOISE,    /* the interval contains 0: no difference shown */
    WT_VERDICT_FASTER,   /* the interval is above 0: B took less time than A */
    WT_VERDICT_SLOWER    /* the interval is below 0: B took more time than A */
} wt_verdict;

/* "none", "too_few", "noise", "faster", "slower": the names used in JSON. */
const char *wt_verdict_name(wt_verdict v);

typedef struct wt_paired {
    size_t n;           /* pairs */
    double median;      /* median of d_i = a_i - b_i (positive: B saves time); NaN when n 0 */
    double lo, hi;      /* the interval for the median of d; NaN when too few */
    double confidence;  /* its exact coverage (>= the requested one); 0 when too few */
    unsigned min_pairs; /* pairs needed for the requested confidence */
    wt_verdict verdict;
} wt_paired;

/* Paired comparison of a[i] with b[i], i < n, at the requested two-sided `confidence`
 * (0.5 <= c < 1, else 0.95 is used). The interval is [d(k), d(n+1-k)] of the sorted
 * differences, with the largest k such that 2 * P(X <= k-1) <= 1 - confidence for
 * X ~ Binomial(n, 1/2). Returns 0, or WT_ENOMEM (out then has verdict NONE). */
int wt_stats_paired(const double *a, const double *b, size_t n, double confidence,
                    wt_paired *out);

/* Guidance when paired differences d[0..n) give no verdict at `confidence`: the fewest further
 * pairs that, all on the side of the majority of d, would give an interval that excludes 0.
 * 0 when d already does; -1 when there is no majority side, or more than max_more would be
 * needed. At 95%: 4 differences all positive need 2 more (6 is the least n); 3 positive and
 * 1 negative need 5 more (at n = 9 the interval starts at d(2)). */
long wt_stats_more_pairs(const double *d, size_t n, double confidence, unsigned max_more);

/* Kendall's tau-a of v[0..n) against its index: +1 rising in every pair, -1 falling, near 0
 * no trend. 0 for n < 2. O(n^2): callers bound n. */
double wt_stats_kendall_tau(const double *v, size_t n);

#endif
