/* The Perfetto sink's lookup tables, the bottom layer of the sink (no other export header
 * below it):
 *
 * - itab: string interning, content -> iid (1..), one table per iid space (event names,
 *   categories). The stored copy of each string is valid UTF-8 (bytes that are not become
 *   U+FFFD, as in the JSON outputs), so whatever is written from the table is a valid proto
 *   string. A pointer cache sits in front: the reader hands out one pointer per distinct string
 *   of a file, so most lookups never hash; the cache must be cleared whenever those pointers may
 *   be reused (a new reader).
 * - kmap: two 64-bit keys -> a non-zero 32-bit value (threads, counter tracks, rounds).
 *
 * Both are open addressing grown at half full; nothing is ever removed.
 */
#ifndef WT_PF_MAPS_H
#define WT_PF_MAPS_H

#include <stddef.h>
#include <stdint.h>

/* 65,536 slots (1 MiB a table, in a calloc'd writer: only the slots used are touched): a load
 * of 16,384 labels, one per tensor, found its label's slot taken by another about two times in
 * three with 1,024 or 16,384 slots, and each miss hashes and compares the string; at 65,536 it
 * is about one in five (callgrind, export of 1 M spans over 16,384 labels: 2,541 M
 * instructions at 1,024 slots, 2,370 M at 16,384, 2,296 M here). */
#define PF_PTR_CACHE_BITS 16
#define PF_PTR_CACHE (1u << PF_PTR_CACHE_BITS)

/* The pointer cache's slot of `s`: the pointer times 2^64 / phi, its top bits. By the low bits
 * alone, two of bench_export's five category strings shared a slot and evicted each other, so
 * a fifth of its spans hashed and compared their category; spread this way, pointers that
 * differ in any bits rarely meet. */
static inline size_t wt__pf_ptr_slot(const char *s)
{
    return (size_t)(((uint64_t)(uintptr_t)s * 0x9E3779B97F4A7C15ull) >> (64 - PF_PTR_CACHE_BITS));
}

typedef struct pf_istr {
    char *s; /* the string as written: valid UTF-8 */
    uint64_t h;
} pf_istr;

/* What one interned string costs against the budget beyond its bytes: its entry, its slots
 * (the table is at most half full) and the allocator's header. */
#define PF_ISTR_OVERHEAD (sizeof(pf_istr) + 2 * sizeof(uint32_t) + 16)

typedef struct pf_itab {
    pf_istr *v;      /* v[iid - 1] */
    size_t n, vcap;
    /* NULL: no bound; else the bytes left to intern, shared by the tables that point to it.
     * A new string that does not fit is not added (iid 0): the caller writes it inline. */
    size_t *budget;
    uint32_t *slots; /* iid, 0 = empty */
    size_t scap;     /* power of two */
    /* an entry counts only when its gen is the table's: forgetting the cache is one increment,
     * not a 16 KiB clear (the anomalies forget it once each, by the ten thousand) */
    struct { const char *p; uint32_t iid, gen; } cache[PF_PTR_CACHE];
    uint32_t gen;
} pf_itab;

/* The iid of `s` (1..), added when new; *is_new is set when it was just added (it must then be
 * sent in the packet that uses it). When `s` is new and the budget has no room for it, *iid is
 * 0 and nothing is added: the caller writes the string inline. Returns 0 or WT_ENOMEM. */
int wt__pf_itab_get(pf_itab *t, const char *s, uint32_t *iid, int *is_new);
/* As wt__pf_itab_get, but always an iid (past the budget too, which it then empties): for the
 * strings whose iid is a key elsewhere (counter tracks, rounds). */
int wt__pf_itab_need(pf_itab *t, const char *s, uint32_t *iid, int *is_new);
/* The iid the pointer cache holds for `s` (a lookup seen since the cache was last forgotten),
 * else 0: the hot path's lookup, with no hashing, no call and nothing added. */
static inline uint32_t wt__pf_itab_cached(const pf_itab *t, const char *s)
{
    const size_t c = wt__pf_ptr_slot(s);
    return t->cache[c].p == s && t->cache[c].gen == t->gen ? t->cache[c].iid : 0;
}
/* The string of `iid`, as written (valid UTF-8). */
static inline const char *wt__pf_itab_str(const pf_itab *t, uint32_t iid) { return t->v[iid - 1].s; }
/* Forgets the pointer cache (the strings it points to may be gone). */
void wt__pf_itab_forget_pointers(pf_itab *t);
void wt__pf_itab_release(pf_itab *t);

typedef struct pf_kslot {
    uint64_t a, b;
    uint32_t v; /* 0 = empty */
} pf_kslot;

typedef struct pf_kmap {
    pf_kslot *s;
    size_t cap, n;
} pf_kmap;

/* The value stored for (a, b), 0 when absent. */
uint32_t wt__pf_kmap_get(const pf_kmap *m, uint64_t a, uint64_t b);
/* Stores v (non-zero) for (a, b), which is not present yet. Returns 0 or WT_ENOMEM. */
int wt__pf_kmap_put(pf_kmap *m, uint64_t a, uint64_t b, uint32_t v);
void wt__pf_kmap_release(pf_kmap *m);

/* A copy of s[0..n) with every byte that does not start a valid UTF-8 sequence replaced by
 * U+FFFD, NUL-terminated, in *buf (grown as needed, *cap its size). Returns the copy, or NULL
 * (WT_ENOMEM) when it cannot grow. */
char *wt__pf_utf8_fix(const char *s, size_t n, char **buf, size_t *cap);
/* 1 when s[0..n) is valid UTF-8 (the common case: one pass, no copy). */
int wt__pf_utf8_ok(const char *s, size_t n);

#endif
