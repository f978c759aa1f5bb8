/* The Perfetto sink's lookup tables and UTF-8 repair (pf_maps.h). */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "pf_maps.h"
#include "strhash.h"
#include "walltime/error.h"

/* The table grows at three quarters full: the tags in the slots keep a probe past other
 * strings' slots to the slot array, and at half full it would take twice the memory (over unique
 * labels, 2^20 slots for the ~560,000 strings the budget allows). */
static int itab_grow(pf_itab *t)
{
    size_t ncap = t->scap ? t->scap * 2 : 256;
    uint64_t *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return WT_ENOMEM;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = t->v[i].h & (ncap - 1);
        while (ns[j])
            j = (j + 1) & (ncap - 1);
        ns[j] = (t->v[i].h >> 32 << 32) | (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = ns;
    t->scap = ncap;
    return 0;
}

/* The filter's word of hash h and its two bits there (other bits of h than the slots' index
 * and tag use first: any bits of the hash would be as good). */
static inline size_t absent_word(uint64_t h) { return (size_t)(h >> 40) & (PF_ABSENT_WORDS - 1); }
static inline uint64_t absent_bits(uint64_t h)
{
    return 1ull << ((h >> 20) & 63) | 1ull << ((h >> 26) & 63);
}

static void absent_add(uint64_t *f, uint64_t h) { f[absent_word(h)] |= absent_bits(h); }

/* 0 when no string of hash h was interned since the filter was made (with all then held). */
static inline int absent_maybe(const uint64_t *f, uint64_t h)
{
    const uint64_t b = absent_bits(h);
    return (f[absent_word(h)] & b) == b;
}

/* The filter, at the first string refused: every string interned until now in it. Without
 * memory for it, lookups probe as before. */
static void absent_make(pf_itab *t)
{
    if ((t->absent = calloc(PF_ABSENT_WORDS, sizeof *t->absent)) == NULL)
        return;
    for (size_t i = 0; i < t->n; i++)
        absent_add(t->absent, t->v[i].h);
}

/* Puts (s, iid) in the pointer cache: in the set's first free way (empty or of an older
 * generation), the ways before it moving down one, so a set is in order of insertion and the
 * oldest goes when all four are taken. */
static void cache_put(pf_itab *t, const char *s, uint32_t iid)
{
    uint64_t *e = t->cache + wt__pf_ptr_base(t->cache, s);
    unsigned f = 2 * (PF_PTR_WAYS - 1);
    for (unsigned k = 0; k < 2 * PF_PTR_WAYS; k += 2)
        if (!e[k] || (uint32_t)(e[k + 1] >> 32) != t->gen) {
            f = k;
            break;
        }
    memmove(e + 2, e, f * sizeof *e);
    e[0] = (uint64_t)(uintptr_t)s;
    e[1] = (uint64_t)t->gen << 32 | iid;
}

/* A new string of len bytes does not fit what is left of the budget (before its UTF-8
 * repair, which may grow it: that is counted when it is stored). */
static inline int over_budget(const pf_itab *t, size_t len)
{
    return t->budget && len + 1 + PF_ISTR_OVERHEAD > *t->budget;
}

/* The iid of `s` of length `len`, by its text (the pointer cache is the caller's); *is_new is
 * set when it was just added (it must be sent in this packet). */
static int itab_get(pf_itab *t, const char *s, size_t len, uint32_t *iid, int *is_new, int need)
{
    *is_new = 0;
    if ((t->n + 1) * 4 > t->scap * 3 && itab_grow(t) < 0)
        return WT_ENOMEM;
    const uint64_t h = wt__str_hash(s, len), tag = h >> 32 << 32;
    if (t->absent && !need && !absent_maybe(t->absent, h) && over_budget(t, len)) {
        *iid = 0; /* surely not interned, and no room for it: what the probe below would find */
        return 0;
    }
    size_t j = h & (t->scap - 1);
    for (; t->slots[j]; j = (j + 1) & (t->scap - 1)) {
        if ((t->slots[j] ^ tag) >> 32)
            continue;
        const uint32_t k = (uint32_t)t->slots[j];
        const pf_istr *e = &t->v[k - 1];
        if (e->h == h && !strcmp(e->s, s)) {
            *iid = k;
            goto found;
        }
    }
    if (t->n == t->vcap) {
        size_t nc = t->vcap ? t->vcap * 2 : 256;
        pf_istr *nv = realloc(t->v, nc * sizeof *nv);
        if (!nv)
            return WT_ENOMEM;
        t->v = nv;
        t->vcap = nc;
    }
    if (!need && over_budget(t, len)) {
        *iid = 0; /* not cached: a lookup of a string past the bound hashes again */
        if (!t->absent)
            absent_make(t);
        return 0;
    }
    char *copy = NULL;
    size_t ccap = 0, clen = len;
    if (wt__pf_utf8_ok(s, len)) {
        if ((copy = malloc(len + 1)) != NULL)
            memcpy(copy, s, len + 1);
    } else if (wt__pf_utf8_fix(s, len, &copy, &ccap)) {
        clen = strlen(copy);
    } else {
        copy = NULL;
    }
    if (!copy)
        return WT_ENOMEM;
    if (t->budget) {
        size_t cost = clen + 1 + PF_ISTR_OVERHEAD;
        *t->budget = cost < *t->budget ? *t->budget - cost : 0;
    }
    t->v[t->n].s = copy;
    t->v[t->n].h = h;
    if (t->absent)
        absent_add(t->absent, h);
    t->slots[j] = tag | (uint32_t)++t->n;
    *iid = (uint32_t)t->n;
    *is_new = 1;
found:
    cache_put(t, s, *iid);
    return 0;
}

int wt__pf_itab_get(pf_itab *t, const char *s, uint32_t *iid, int *is_new)
{
    *is_new = 0;
    if ((*iid = wt__pf_itab_cached(t, s)) != 0)
        return 0;
    return itab_get(t, s, strlen(s), iid, is_new, 0);
}

int wt__pf_itab_get_n(pf_itab *t, const char *s, size_t n, uint32_t *iid, int *is_new)
{
    return itab_get(t, s, n, iid, is_new, 0);
}

int wt__pf_itab_need(pf_itab *t, const char *s, uint32_t *iid, int *is_new)
{
    *is_new = 0;
    if ((*iid = wt__pf_itab_cached(t, s)) != 0)
        return 0;
    return itab_get(t, s, strlen(s), iid, is_new, 1);
}

void wt__pf_itab_forget_pointers(pf_itab *t)
{
    /* a zeroed table starts at gen 0 with every entry at gen 0 and no pointer; when the count
     * wraps back to 0, entries of 2^32 forgets ago would count again: clear them instead */
    if (++t->gen == 0)
        memset(t->cache, 0, sizeof t->cache);
}

void wt__pf_itab_release(pf_itab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].s);
    free(t->v);
    free(t->slots);
    free(t->absent);
}

static size_t kmix(uint64_t a, uint64_t b)
{
    uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    return (size_t)(x ^ (x >> 29));
}

uint32_t wt__pf_kmap_get(const pf_kmap *m, uint64_t a, uint64_t b)
{
    if (!m->cap)
        return 0;
    for (size_t j = kmix(a, b) & (m->cap - 1); m->s[j].v; j = (j + 1) & (m->cap - 1))
        if (m->s[j].a == a && m->s[j].b == b)
            return m->s[j].v;
    return 0;
}

int wt__pf_kmap_put(pf_kmap *m, uint64_t a, uint64_t b, uint32_t v)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        pf_kslot *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return WT_ENOMEM;
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->s[i].v)
                continue;
            size_t j = kmix(m->s[i].a, m->s[i].b) & (nc - 1);
            while (ns[j].v)
                j = (j + 1) & (nc - 1);
            ns[j] = m->s[i];
        }
        free(m->s);
        m->s = ns;
        m->cap = nc;
    }
    size_t j = kmix(a, b) & (m->cap - 1);
    while (m->s[j].v)
        j = (j + 1) & (m->cap - 1);
    m->s[j] = (pf_kslot){ a, b, v };
    m->n++;
    return 0;
}

void wt__pf_kmap_release(pf_kmap *m)
{
    free(m->s);
    m->s = NULL;
    m->cap = m->n = 0;
}

int wt__pf_utf8_ok(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    const uint64_t high = 0x8080808080808080ull;
    uint64_t w;
    size_t i = 0;
    /* eight ASCII bytes at a time, the last eight overlapping: labels are ASCII, and past the
     * interning bound every span of a new label checks its own */
    for (; i + 8 <= n; i += 8)
        if (memcpy(&w, u + i, 8), w & high)
            break;
    if (i + 8 > n && n >= 8 && (memcpy(&w, u + n - 8, 8), !(w & high)))
        return 1;
    while (i < n) {
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        size_t len = wt_json_utf8_len(u + i, n - i);
        if (!len)
            return 0;
        i += len;
    }
    return 1;
}

char *wt__pf_utf8_fix(const char *s, size_t n, char **buf, size_t *cap)
{
    const unsigned char *u = (const unsigned char *)s;
    /* at most 3 bytes out per byte in (U+FFFD), plus the NUL */
    if (n > (SIZE_MAX - 1) / 3)
        return NULL;
    size_t need = 3 * n + 1, o = 0;
    if (need > *cap) {
        char *nb = realloc(*buf, need);
        if (!nb)
            return NULL;
        *buf = nb;
        *cap = need;
    }
    char *out = *buf;
    for (size_t i = 0; i < n;) {
        size_t len = u[i] < 0x80 ? 1 : wt_json_utf8_len(u + i, n - i);
        if (len) {
            memcpy(out + o, s + i, len);
            o += len;
            i += len;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    return out;
}
