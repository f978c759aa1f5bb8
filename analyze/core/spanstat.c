/* String interning map, growing array and duration reservoir: see spanstat.h. The map is open
 * addressing with linear probing at a load factor of at most 1/2; keys are copied once, at
 * insertion. */
#include "spanstat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "walltime/error.h"

static uint64_t hash_bytes(const char *s, size_t n)
{
    /* FNV-1a, then a final mix so linear probing sees well-spread low bits */
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static int grow(wt__strmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    wt__strmap_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return WT_ENOMEM;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].key)
            continue;
        size_t j = m->slots[i].hash & (ncap - 1);
        while (ns[j].key)
            j = (j + 1) & (ncap - 1);
        ns[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    return 0;
}

static wt__strmap_slot *find(const wt__strmap *m, const char *key, size_t n, uint64_t h)
{
    if (!m->cap)
        return NULL;
    size_t j = h & (m->cap - 1);
    for (;;) {
        wt__strmap_slot *s = &m->slots[j];
        if (!s->key || (s->hash == h && !memcmp(s->key, key, n) && s->key[n] == '\0'))
            return s;
        j = (j + 1) & (m->cap - 1);
    }
}

int wt__strmap_put(wt__strmap *m, const char *key, size_t n, uint32_t new_val, uint32_t *val,
                   const char **stable)
{
    uint64_t h = hash_bytes(key, n);
    wt__strmap_slot *s = find(m, key, n, h);
    if (s && s->key) {
        *val = s->val;
        if (stable)
            *stable = s->key;
        return 0;
    }
    if ((m->n + 1) * 2 > m->cap) {
        if (grow(m) < 0)
            return WT_ENOMEM;
        s = find(m, key, n, h);
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return WT_ENOMEM;
    memcpy(copy, key, n);
    copy[n] = '\0';
    s->key = copy;
    s->hash = h;
    s->val = new_val;
    m->n++;
    m->bytes += n + 1;
    *val = new_val;
    if (stable)
        *stable = copy;
    return 1;
}

int wt__strmap_get(const wt__strmap *m, const char *key, size_t n, uint32_t *val)
{
    const wt__strmap_slot *s = find(m, key, n, hash_bytes(key, n));
    if (!s || !s->key)
        return 0;
    *val = s->val;
    return 1;
}

void wt__strmap_release(wt__strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    memset(m, 0, sizeof *m);
}

void *wt__grow_array(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t nc = *cap ? *cap : 8;
    while (nc < need)
        nc *= 2;
    void *np = realloc(p, nc * elem);
    if (!np)
        return NULL;
    memset((char *)np + *cap * elem, 0, (nc - *cap) * elem);
    *cap = nc;
    return np;
}

void wt__idtab_forget(wt__idtab *t, size_t elem)
{
    if (t->used)
        memset(t->v, 0, t->used * elem);
    t->used = 0;
}

void *wt__idtab_room(wt__idtab *t, uint32_t id, size_t elem, uint32_t max)
{
    if (id >= max)
        return NULL;
    if (id >= t->cap) {
        size_t cap = t->cap;
        void *nv = wt__grow_array(t->v, &cap, (size_t)id + 1, elem);
        if (!nv)
            return NULL;
        t->v = nv;
        t->cap = cap;
    }
    if (id >= t->used)
        t->used = (size_t)id + 1;
    return (char *)t->v + (size_t)id * elem;
}

static uint64_t xorshift(uint64_t *st)
{
    *st = wt__reservoir_rng_next(*st);
    return *st;
}

/* A uniform double in (0, 1). */
static double unit(uint64_t *st)
{
    return ((double)(xorshift(st) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

int wt__reservoir_add_slow(wt__reservoir *r, double x)
{
    if (r->n == 0 || x < r->min)
        r->min = x;
    if (r->n == 0 || x > r->max)
        r->max = x;
    r->total += x;
    r->n++;
    r->sorted = 0;
    if (r->len < WT_STATS_RESERVOIR) {
        if (r->len == r->cap) {
            /* doubling, not more: growing by four (three moves to fill, not six) left the
             * heap of 16,384 labels 5 % larger for 1 % less time */
            uint32_t nc = r->cap ? r->cap * 2 : 4;
            if (nc > WT_STATS_RESERVOIR)
                nc = WT_STATS_RESERVOIR;
            double *ns = realloc(r->s, nc * sizeof *ns);
            if (!ns)
                return WT_ENOMEM;
            r->s = ns;
            r->cap = nc;
        }
        r->s[r->len++] = x;
        return 0;
    }
    /* algorithm L: the same distribution as replacing with probability len/n each time, but
     * the gaps between replacements are drawn directly, so most adds only count */
    if (r->next == 0) {
        r->w = exp(log(unit(&r->rng)) / WT_STATS_RESERVOIR);
        r->next = r->n + (int64_t)floor(log(unit(&r->rng)) / log1p(-r->w));
    }
    if (r->n < r->next)
        return 0;
    r->s[xorshift(&r->rng) % WT_STATS_RESERVOIR] = x;
    r->w *= exp(log(unit(&r->rng)) / WT_STATS_RESERVOIR);
    r->next = r->n + 1 + (int64_t)floor(log(unit(&r->rng)) / log1p(-r->w));
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs of this many samples are sorted by insertion before the merges. */
#define SORT_RUN 8

/* Merges the sorted runs from[lo..mid) and from[mid..hi) into to[lo..hi), stably: the right
 * run's value is taken only when strictly less (a select, not a branch). */
static void merge_runs(const double *from, double *to, uint32_t lo, uint32_t mid, uint32_t hi)
{
    uint32_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi) {
        const double x = from[i], y = from[j];
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

/* merge_runs() of two runs of h values each, from both ends at once: the front takes the h
 * first of the stable order (the left run's value on a tie), the back the h last (the right
 * run's on a tie), so they meet exactly, and neither reads past its runs (after t < h steps
 * a side has taken t values of 2h). Two independent chains of load, compare and index: a
 * merge step's latency was most of the sort's time. */
static void merge_halves(const double *from, double *to, uint32_t h)
{
    const double *a = from, *b = from + h;                   /* front: next of each run */
    const double *ae = from + h - 1, *be = from + 2 * h - 1; /* back: last of each run */
    double *lo = to, *hi = to + 2 * h - 1;
    /* the last step apart, without moving the pointers: the back's would then point below
     * its run */
    for (uint32_t t = 1; t < h; t++) {
        const double x = *a, y = *b;
        const int right = y < x;
        *lo++ = right ? y : x;
        b += right;
        a += !right;
        const double xe = *ae, ye = *be;
        const int left = ye < xe;
        *hi-- = left ? xe : ye;
        ae -= left;
        be -= !left;
    }
    *lo = *b < *a ? *b : *a;
    *hi = *be < *ae ? *ae : *be;
}

/* Sorts s[0..n), n <= WT_STATS_RESERVOIR, ascending and stably by `<`: insertion sorts of
 * SORT_RUN samples, then bottom-up merges that take the right run's value only when it is
 * strictly less (no branch to mispredict: a select). glibc's qsort of up to 255 doubles
 * through a comparison callback was a tenth of `ledger` over 16,384 labels (some 50,000
 * medians); a radix sort of the bits cost more than it on the 60 samples of a filling
 * reservoir. The samples' order after a median matters (a later add replaces s[random]), and
 * this one is exactly glibc's: both sorts are stable, and for values `<` orders (no NaN) a
 * stable sort leaves a single order, equal values (-0.0 and +0.0 too) in their order before.
 * With a NaN (no duration is one) the comparison sort as before. */
static void sort_samples(double *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (WT_UNLIKELY(isnan(s[i]))) {
            qsort(s, n, sizeof *s, cmp_double);
            return;
        }
    for (uint32_t lo = 0; lo < n; lo += SORT_RUN) {
        const uint32_t hi = n - lo < SORT_RUN ? n : lo + SORT_RUN;
        for (uint32_t i = lo + 1; i < hi; i++) {
            const double x = s[i];
            uint32_t j = i;
            for (; j > lo && x < s[j - 1]; j--)
                s[j] = s[j - 1];
            s[j] = x;
        }
    }
    double tmp[WT_STATS_RESERVOIR];
    double *from = s, *to = tmp;
    for (uint32_t w = SORT_RUN; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            const uint32_t mid = n - lo < w ? n : lo + w;
            const uint32_t hi = n - lo < 2 * w ? n : lo + 2 * w;
            if (mid - lo == hi - mid)
                merge_halves(from + lo, to + lo, mid - lo);
            else
                merge_runs(from, to, lo, mid, hi);
        }
        double *const t = from;
        from = to;
        to = t;
    }
    if (from != s)
        memcpy(s, from, n * sizeof *s);
}

double wt__reservoir_median(wt__reservoir *r)
{
    if (!r->len)
        return NAN;
    if (!r->sorted) {
        sort_samples(r->s, r->len);
        r->med = r->len & 1 ? r->s[r->len / 2] : 0.5 * (r->s[r->len / 2 - 1] + r->s[r->len / 2]);
        r->sorted = 1;
    }
    return r->med;
}

void wt__reservoir_release(wt__reservoir *r)
{
    free(r->s);
    memset(r, 0, sizeof *r);
}
