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
    uint64_t x = *st ? *st : 0x9E3779B97F4A7C15ULL;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *st = x;
    return x;
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

/* x's bits turned so that unsigned order is numeric order: a positive double's bits already
 * are (the top bit set above every negative), a negative one's are reversed. Not for NaN, and
 * -0.0 would land below +0.0 where `<` calls them equal: the caller keeps both away. */
static inline uint64_t order_key(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u >> 63 ? ~u : u | (1ULL << 63);
}

static inline double key_value(uint64_t k)
{
    const uint64_t u = k >> 63 ? k & ~(1ULL << 63) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Sorts s[0..n), n <= WT_STATS_RESERVOIR, ascending: a least-significant-digit radix sort of
 * the values' bits, a byte a pass, a pass skipped when all share that byte (durations of one
 * label share their sign and most of their exponent). glibc's qsort of 255 doubles through a
 * comparison callback was a tenth of `ledger` over 16,384 labels (some 50,000 medians). The
 * samples' order after a median matters (a later add replaces s[random]), and it is exactly
 * what any correct sort leaves: without NaN and -0.0 two values that compare equal have the
 * same bits. With either (no duration gives them), the comparison sort as before. */
static void sort_samples(double *s, uint32_t n)
{
    uint64_t a[WT_STATS_RESERVOIR], b[WT_STATS_RESERVOIR];
    uint16_t count[8][256];
    memset(count, 0, sizeof count);
    for (uint32_t i = 0; i < n; i++) {
        if (WT_UNLIKELY(isnan(s[i]) || (s[i] == 0 && signbit(s[i])))) {
            qsort(s, n, sizeof *s, cmp_double);
            return;
        }
        a[i] = order_key(s[i]);
        for (unsigned d = 0; d < 8; d++)
            count[d][(a[i] >> (8 * d)) & 0xff]++;
    }
    uint64_t *from = a, *to = b;
    for (unsigned d = 0; d < 8; d++) {
        uint16_t *const c = count[d];
        if (c[(from[0] >> (8 * d)) & 0xff] == n)
            continue; /* one digit for all: the pass would move nothing */
        uint16_t at = 0;
        for (unsigned v = 0; v < 256; v++) {
            const uint16_t t = c[v];
            c[v] = at;
            at = (uint16_t)(at + t);
        }
        for (uint32_t i = 0; i < n; i++)
            to[c[(from[i] >> (8 * d)) & 0xff]++] = from[i];
        uint64_t *const t = from;
        from = to;
        to = t;
    }
    for (uint32_t i = 0; i < n; i++)
        s[i] = key_value(from[i]);
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
