/* String interning map, growing array and duration reservoir: see spanstat.h. The map is open
 * addressing with linear probing at a load factor of at most 1/2; keys are copied once, at
 * insertion. */
#include "spanstat.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "strhash.h"
#include "walltime/error.h"

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
    uint64_t h = wt__str_hash(key, n);
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
    const wt__strmap_slot *s = find(m, key, n, wt__str_hash(key, n));
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

/* The schedule's generator: xorshift64 from a fixed seed. */
static uint64_t xorshift(uint64_t *st)
{
    uint64_t x = *st ? *st : 0x9E3779B97F4A7C15ULL;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *st = x;
}

/* A uniform double in (0, 1). */
static double unit(uint64_t *st)
{
    return ((double)(xorshift(st) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Algorithm L's schedule (spanstat.h): sched_gap[0] is the gap from the filling add to the
 * first replacement, sched_slot[k] and sched_gap[k] (k >= 1) the k-th replacement's slot and
 * the gap after it; sched_last is the entry whose gap is "never" (INT64_MAX). */
static uint8_t sched_slot[WT_RESERVOIR_STEPS];
static int64_t sched_gap[WT_RESERVOIR_STEPS];
static uint32_t sched_last;
static pthread_once_t sched_once = PTHREAD_ONCE_INIT;
const uint8_t *const wt__reservoir_slot = sched_slot;

/* floor(log(u) / log1p(-w)) for a fresh u: the adds algorithm L lets pass; INT64_MAX past
 * 2^62 (or an infinite ratio, once w is 0). */
static int64_t sched_draw_gap(uint64_t *rng, double w)
{
    const double g = floor(log(unit(rng)) / log1p(-w));
    return g < 0x1p62 ? (int64_t)g : INT64_MAX;
}

static void sched_make(void)
{
    uint64_t rng = 0;
    double w = exp(log(unit(&rng)) / WT_STATS_RESERVOIR);
    uint32_t k = 0;
    sched_gap[0] = sched_draw_gap(&rng, w);
    while (sched_gap[k] != INT64_MAX && k + 1 < WT_RESERVOIR_STEPS) {
        k++;
        sched_slot[k] = (uint8_t)(xorshift(&rng) % WT_STATS_RESERVOIR);
        w *= exp(log(unit(&rng)) / WT_STATS_RESERVOIR);
        sched_gap[k] = sched_draw_gap(&rng, w);
    }
    sched_gap[k] = INT64_MAX; /* the table's end, unreached in practice, is "never" too */
    sched_last = k;
}

uint32_t wt__reservoir_schedule_len(void)
{
    pthread_once(&sched_once, sched_make);
    return sched_last + 1;
}

/* Turns the narrow samples into the doubles they stand for, then stores ns as sample i:
 * 0 or WT_ENOMEM (unchanged). */
static __attribute__((noinline)) int put_wide(wt__reservoir *r, uint32_t i, int64_t ns)
{
    if (!r->wide) {
        double *d = malloc((r->cap ? r->cap : 1) * sizeof *d);
        if (!d)
            return WT_ENOMEM;
        const uint32_t *u = r->s;
        for (uint32_t j = 0; j < r->len; j++)
            d[j] = (double)u[j] * 1e-9;
        free(r->s);
        r->s = d;
        r->wide = 1;
    }
    ((double *)r->s)[i] = (double)ns * 1e-9;
    return 0;
}

/* Stores ns as sample i (< cap), widening the samples when ns does not fit in 32 bits. */
static inline int put(wt__reservoir *r, uint32_t i, int64_t ns)
{
    if (WT_UNLIKELY(r->wide || !wt__reservoir_narrow(ns)))
        return put_wide(r, i, ns);
    ((uint32_t *)r->s)[i] = (uint32_t)ns;
    return 0;
}

int wt__reservoir_add_slow(wt__reservoir *r, int64_t ns)
{
    const double x = (double)ns * 1e-9;
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
            void *grown = realloc(r->s, nc * (r->wide ? sizeof(double) : sizeof(uint32_t)));
            if (!grown)
                return WT_ENOMEM;
            r->s = grown;
            r->cap = nc;
        }
        if (put(r, r->len, ns) < 0)
            return WT_ENOMEM;
        r->len++;
        return 0;
    }
    /* algorithm L: the same distribution as replacing with probability len/n each time, but
     * the gaps between replacements are drawn directly, so most adds only count */
    if (r->next == 0) { /* full: the schedule from its start */
        pthread_once(&sched_once, sched_make);
        r->step = 1;
        r->next = wt__sat_add_i64(r->n, sched_gap[0]);
    }
    if (r->n < r->next)
        return 0;
    const uint32_t k = r->step;
    const int rc = put(r, sched_slot[k], ns);
    r->next = wt__sat_add_i64(r->n + 1, sched_gap[k]);
    if (k < sched_last)
        r->step = k + 1;
    return rc;
}

/* Runs of this many samples are sorted by insertion before the merges. */
#define SORT_RUN 8
#define SORT_T double
#define SORT_NAME sort_seconds
#include "sample_sort.h"
#define SORT_T uint32_t
#define SORT_NAME sort_ns
#include "sample_sort.h"

double wt__reservoir_median(wt__reservoir *r)
{
    if (!r->len)
        return NAN;
    if (!r->sorted) {
        if (r->wide)
            sort_seconds(r->s, r->len);
        else
            sort_ns(r->s, r->len);
        const uint32_t h = r->len / 2;
        r->med = r->len & 1 ? wt__reservoir_at(r, h)
                            : 0.5 * (wt__reservoir_at(r, h - 1) + wt__reservoir_at(r, h));
        r->sorted = 1;
    }
    return r->med;
}

double wt__reservoir_median_union(wt__reservoir *const *rs, size_t n)
{
    enum { MAX_UNION = 8 };
    wt__reservoir *v[MAX_UNION];
    double w[MAX_UNION], total = 0.0;
    uint32_t at[MAX_UNION];
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (rs[i] && rs[i]->len) {
            if (m == MAX_UNION)
                return NAN; /* no caller has more classes */
            v[m] = rs[i];
            /* 1.0 exactly when the reservoir holds its whole stream: the sums below are then
             * integers, exact in a double */
            w[m] = (double)rs[i]->n / (double)rs[i]->len;
            total += (double)rs[i]->n;
            at[m] = 0;
            (void)wt__reservoir_median(rs[i]); /* sorts */
            m++;
        }
    if (m == 0)
        return NAN;
    if (m == 1)
        return wt__reservoir_median(v[0]);
    /* merge the sorted samples, smallest first: lo is the first value at which the weight
     * so far reaches half the total, hi the first past it (both the middle value for an odd
     * count of unit weights, the two middle ones for an even count) */
    const double half = 0.5 * total;
    double cum = 0.0, lo = NAN, last = NAN;
    int have_lo = 0;
    for (;;) {
        size_t best = m;
        double x = 0.0;
        for (size_t i = 0; i < m; i++)
            if (at[i] < v[i]->len) {
                const double y = wt__reservoir_at(v[i], at[i]);
                if (best == m || y < x) {
                    best = i;
                    x = y;
                }
            }
        if (best == m) /* rounding left the weights short of half: the largest value */
            return have_lo ? lo : last;
        last = x;
        at[best]++;
        cum += w[best];
        if (!have_lo && cum >= half) {
            lo = x;
            have_lo = 1;
        }
        if (cum > half)
            return lo == x ? x : 0.5 * (lo + x);
    }
}

void wt__reservoir_release(wt__reservoir *r)
{
    free(r->s);
    memset(r, 0, sizeof *r);
}
