/* String interning map, growing array and duration reservoir: see spanstat.h. The map is open
 * addressing with linear probing at a load factor of at most 1/2; keys are copied once, at
 * insertion. */
#include "spanstat.h"

#include <math.h>
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
    if (r->next == 0) {
        r->w = exp(log(unit(&r->rng)) / WT_STATS_RESERVOIR);
        r->next = r->n + (int64_t)floor(log(unit(&r->rng)) / log1p(-r->w));
    }
    if (r->n < r->next)
        return 0;
    const int rc = put(r, (uint32_t)(xorshift(&r->rng) % WT_STATS_RESERVOIR), ns);
    r->w *= exp(log(unit(&r->rng)) / WT_STATS_RESERVOIR);
    r->next = r->n + 1 + (int64_t)floor(log(unit(&r->rng)) / log1p(-r->w));
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
