/* The reservoir's sort, for one sample type: spanstat.c includes this file once per type,
 * with SORT_T the type and SORT_NAME the sort's name (a C template; no include guard).
 *
 * Sorts s[0..n), n <= WT_STATS_RESERVOIR, ascending and stably by `<`: insertion sorts of
 * SORT_RUN samples, then bottom-up merges that take the right run's value only when it is
 * strictly less (no branch to mispredict: a select). glibc's qsort of up to 255 doubles
 * through a comparison callback was a tenth of `ledger` over 16,384 labels (some 50,000
 * medians); a radix sort of the bits cost more than it on the 60 samples of a filling
 * reservoir. The samples' order after a median matters (a later add replaces s[random]), and
 * this one is exactly glibc's: both sorts are stable, and for values `<` orders (no NaN: the
 * samples are durations) a stable sort leaves a single order, equal values in their order
 * before. */
#define SORT_CAT2(a, b) a##b
#define SORT_CAT(a, b) SORT_CAT2(a, b)
#define SORT_FN(part) SORT_CAT(SORT_NAME, part)

/* Merges the sorted runs from[lo..mid) and from[mid..hi) into to[lo..hi), stably: the right
 * run's value is taken only when strictly less (a select, not a branch). */
static void SORT_FN(_merge_runs)(const SORT_T *from, SORT_T *to, uint32_t lo, uint32_t mid,
                                 uint32_t hi)
{
    uint32_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi) {
        const SORT_T x = from[i], y = from[j];
        const int right = y < x;
        to[k++] = right ? y : x;
        j += (uint32_t)right;
        i += (uint32_t)!right;
    }
    while (i < mid)
        to[k++] = from[i++];
    while (j < hi)
        to[k++] = from[j++];
}

/* The merge of two runs of h values each, from both ends at once: the front takes the h
 * first of the stable order (the left run's value on a tie), the back the h last (the right
 * run's on a tie), so they meet exactly, and neither reads past its runs (after t < h steps
 * a side has taken t values of 2h). Two independent chains of load, compare and index: a
 * merge step's latency was most of the sort's time. */
static void SORT_FN(_merge_halves)(const SORT_T *from, SORT_T *to, uint32_t h)
{
    const SORT_T *a = from, *b = from + h;                   /* front: next of each run */
    const SORT_T *ae = from + h - 1, *be = from + 2 * h - 1; /* back: last of each run */
    SORT_T *lo = to, *hi = to + 2 * h - 1;
    /* the last step apart, without moving the pointers: the back's would then point below
     * its run */
    for (uint32_t t = 1; t < h; t++) {
        const SORT_T x = *a, y = *b;
        const int right = y < x;
        *lo++ = right ? y : x;
        b += right;
        a += !right;
        const SORT_T xe = *ae, ye = *be;
        const int left = ye < xe;
        *hi-- = left ? xe : ye;
        ae -= left;
        be -= !left;
    }
    *lo = *b < *a ? *b : *a;
    *hi = *be < *ae ? *ae : *be;
}

static void SORT_NAME(SORT_T *s, uint32_t n)
{
    for (uint32_t lo = 0; lo < n; lo += SORT_RUN) {
        const uint32_t hi = n - lo < SORT_RUN ? n : lo + SORT_RUN;
        for (uint32_t i = lo + 1; i < hi; i++) {
            const SORT_T x = s[i];
            uint32_t j = i;
            for (; j > lo && x < s[j - 1]; j--)
                s[j] = s[j - 1];
            s[j] = x;
        }
    }
    SORT_T tmp[WT_STATS_RESERVOIR];
    SORT_T *from = s, *to = tmp;
    for (uint32_t w = SORT_RUN; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            const uint32_t mid = n - lo < w ? n : lo + w;
            const uint32_t hi = n - lo < 2 * w ? n : lo + 2 * w;
            if (mid - lo == hi - mid)
                SORT_FN(_merge_halves)(from + lo, to + lo, mid - lo);
            else
                SORT_FN(_merge_runs)(from, to, lo, mid, hi);
        }
        SORT_T *const t = from;
        from = to;
        to = t;
    }
    if (from != s)
        memcpy(s, from, n * sizeof *s);
}

#undef SORT_FN
#undef SORT_CAT
#undef SORT_CAT2
#undef SORT_T
#undef SORT_NAME
