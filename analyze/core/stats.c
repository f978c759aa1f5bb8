/* Small-sample statistics for compare: summaries, the sign-test interval for the median paired
 * difference, Kendall's tau for drift, and the verdict. Inputs are per-round values (tens, at
 * most thousands), so sorting copies and O(n^2) trend tests are cheap; nothing is random, so
 * the same trace always gives the same report. See stats.h for the method. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "walltime/error.h"

static int cmp_double(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

void wt_stats_sort(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_double);
}

double wt_stats_median_sorted(const double *sorted, size_t n)
{
    if (n == 0)
        return NAN;
    if (n % 2)
        return sorted[n / 2];
    /* halves first: the mean of two huge values must not overflow */
    return sorted[n / 2 - 1] / 2 + sorted[n / 2] / 2;
}

int wt_stats_summary(const double *v, size_t n, wt_summary *out)
{
    out->n = 0;
    out->median = out->min = out->max = NAN;
    if (n == 0)
        return 0;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return WT_ENOMEM;
    memcpy(s, v, n * sizeof *s);
    wt_stats_sort(s, n);
    out->n = n;
    out->median = wt_stats_median_sorted(s, n);
    out->min = s[0];
    out->max = s[n - 1];
    free(s);
    return 0;
}

double wt_stats_binom_half_cdf(unsigned n, unsigned k)
{
    if (k >= n)
        return 1.0;
    /* in logs: C(n, i) / 2^n underflows a double from n ~ 1075 on */
    const double ln2n = n * log(2.0), lgn1 = lgamma(n + 1.0);
    double p = 0;
    for (unsigned i = 0; i <= k; i++)
        p += exp(lgn1 - lgamma(i + 1.0) - lgamma((double)(n - i) + 1.0) - ln2n);
    return p > 1.0 ? 1.0 : p;
}

static double clean_confidence(double c)
{
    return (c >= 0.5 && c < 1.0) ? c : 0.95;
}

unsigned wt_stats_min_pairs(double confidence)
{
    const double alpha = 1.0 - clean_confidence(confidence);
    unsigned n = 1;
    /* 2 * 0.5^n <= alpha; with a tiny tolerance so 0.9 (alpha 0.1 in binary) behaves */
    while (2.0 * ldexp(1.0, -(int)n) > alpha * (1 + 1e-9) && n < 64)
        n++;
    return n;
}

const char *wt_verdict_name(wt_verdict v)
{
    switch (v) {
    case WT_VERDICT_TOO_FEW: return "too_few";
    case WT_VERDICT_NOISE: return "noise";
    case WT_VERDICT_FASTER: return "faster";
    case WT_VERDICT_SLOWER: return "slower";
    case WT_VERDICT_NONE: break;
    }
    return "none";
}

/* The largest k (1-based) with 2 * P(X <= k-1) <= 1 - confidence, X ~ Binomial(n, 1/2), and
 * P(X <= k-1) in *tail; 0 when none. The cdf grows term by term. */
static unsigned sign_k(unsigned n, double confidence, double *tail)
{
    const double alpha = (1.0 - confidence) * (1 + 1e-9);
    unsigned k = 0;
    double cdf = 0;
    const double ln2n = n * log(2.0), lgn1 = lgamma(n + 1.0);
    *tail = 0;
    for (unsigned j = 1; j <= (n + 1) / 2; j++) {
        const unsigned i = j - 1;
        cdf += exp(lgn1 - lgamma(i + 1.0) - lgamma((double)(n - i) + 1.0) - ln2n);
        if (2.0 * cdf > alpha)
            break;
        k = j;
        *tail = cdf;
    }
    return k;
}

long wt_stats_more_pairs(const double *d, size_t n, double confidence, unsigned max_more)
{
    confidence = clean_confidence(confidence);
    size_t pos = 0, neg = 0;
    for (size_t i = 0; i < n; i++) {
        pos += d[i] > 0;
        neg += d[i] < 0;
    }
    if (pos == neg || n > 100000)
        return -1; /* no direction to agree with */
    /* the interval [d(k), d(N+1-k)] excludes 0 when fewer than k differences are on the
     * other side (or zero); k grows with N, so the least N is found by bisection */
    const size_t against = n - (pos > neg ? pos : neg);
    double tail;
    if (sign_k((unsigned)n, confidence, &tail) > against)
        return 0;
    unsigned lo = 1, hi = max_more;
    if (sign_k((unsigned)n + hi, confidence, &tail) <= against)
        return -1;
    while (lo < hi) {
        const unsigned mid = lo + (hi - lo) / 2;
        if (sign_k((unsigned)n + mid, confidence, &tail) > against)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (long)lo;
}

int wt_stats_paired(const double *a, const double *b, size_t n, double confidence,
                    wt_paired *out)
{
    confidence = clean_confidence(confidence);
    memset(out, 0, sizeof *out);
    out->median = out->lo = out->hi = NAN;
    out->min_pairs = wt_stats_min_pairs(confidence);
    out->verdict = WT_VERDICT_NONE;
    if (n == 0)
        return 0;
    double *d = malloc(n * sizeof *d);
    if (!d)
        return WT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        d[i] = a[i] - b[i];
    wt_stats_sort(d, n);
    out->n = n;
    out->median = wt_stats_median_sorted(d, n);
    out->verdict = WT_VERDICT_TOO_FEW;

    double tail = 0;
    const unsigned k = sign_k(n > 100000 ? 100000u : (unsigned)n, confidence, &tail);
    if (k >= 1) {
        out->lo = d[k - 1];
        out->hi = d[n - k];
        out->confidence = 1.0 - 2.0 * tail;
        if (out->lo > 0)
            out->verdict = WT_VERDICT_FASTER;
        else if (out->hi < 0)
            out->verdict = WT_VERDICT_SLOWER;
        else
            out->verdict = WT_VERDICT_NOISE;
    }
    free(d);
    return 0;
}

double wt_stats_kendall_tau(const double *v, size_t n)
{
    if (n < 2)
        return 0;
    long long s = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            s += (v[j] > v[i]) - (v[j] < v[i]);
    return (double)s / ((double)n * (double)(n - 1) / 2.0);
}
