/* The Perfetto sink's lookup tables: string interning (content -> iid, one table per iid
 * space: event names, categories) with a pointer cache in front, since the reader hands out one
 * pointer per distinct string of a file and most lookups hit it; and a map from two 64-bit keys
 * to an index (threads, counter tracks, round configurations). Both open addressing, grown at
 * half full; nothing is ever removed.
 */
#include <stdlib.h>
#include <string.h>

#include "export_perfetto.h"

static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a: strings are short labels */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static int itab_grow(itab *t)
{
    size_t ncap = t->scap ? t->scap * 2 : 256;
    uint32_t *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return WT_ENOMEM;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = t->v[i].h & (ncap - 1);
        while (ns[j])
            j = (j + 1) & (ncap - 1);
        ns[j] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = ns;
    t->scap = ncap;
    return 0;
}

/* The iid of `s`; *is_new is set when it was just added (it must be sent in this packet). */
int wt__pf_itab_get(itab *t, const char *s, uint32_t *iid, int *is_new)
{
    size_t c = ((uintptr_t)s >> 3) & (PTR_CACHE - 1);
    *is_new = 0;
    if (t->cache[c].p == s) {
        *iid = t->cache[c].iid;
        return 0;
    }
    if ((t->n + 1) * 2 > t->scap && itab_grow(t) < 0)
        return WT_ENOMEM;
    uint64_t h = hash_str(s);
    size_t j = h & (t->scap - 1);
    for (; t->slots[j]; j = (j + 1) & (t->scap - 1)) {
        const istr *e = &t->v[t->slots[j] - 1];
        if (e->h == h && !strcmp(e->s, s)) {
            *iid = t->slots[j];
            goto found;
        }
    }
    if (t->n == t->vcap) {
        size_t nc = t->vcap ? t->vcap * 2 : 256;
        istr *nv = realloc(t->v, nc * sizeof *nv);
        if (!nv)
            return WT_ENOMEM;
        t->v = nv;
        t->vcap = nc;
    }
    char *copy = strdup(s);
    if (!copy)
        return WT_ENOMEM;
    t->v[t->n].s = copy;
    t->v[t->n].h = h;
    t->slots[j] = (uint32_t)++t->n;
    *iid = (uint32_t)t->n;
    *is_new = 1;
found:
    t->cache[c].p = s;
    t->cache[c].iid = *iid;
    return 0;
}

void wt__pf_itab_release(itab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].s);
    free(t->v);
    free(t->slots);
}
static size_t kmix(uint64_t a, uint64_t b)
{
    uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    return (size_t)(x ^ (x >> 29));
}

uint32_t wt__pf_kmap_get(const kmap *m, uint64_t a, uint64_t b)
{
    if (!m->cap)
        return 0;
    for (size_t j = kmix(a, b) & (m->cap - 1); m->s[j].v; j = (j + 1) & (m->cap - 1))
        if (m->s[j].a == a && m->s[j].b == b)
            return m->s[j].v;
    return 0;
}

int wt__pf_kmap_put(kmap *m, uint64_t a, uint64_t b, uint32_t v)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        kslot *ns = calloc(nc, sizeof *ns);
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
    m->s[j] = (kslot){ a, b, v };
    m->n++;
    return 0;
}
