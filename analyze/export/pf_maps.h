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

/* The pointer cache: 65,536 entries in sets of four, a set one 64-byte line. A load of 16,384
 * labels, one per tensor, found its label's entry taken by another about two times in three
 * with 1,024 or 16,384 direct-mapped entries, and each miss hashes and compares the string; at
 * 65,536 direct-mapped it was still about one in five (a label's slot shared with another:
 * 1 - e^(-1/4)), so the entries came in sets: a set overflows only when five of the labels
 * fall in it (about 0.4 % of sets at 16,384 labels), and a lookup still reads one line. */
#define PF_PTR_CACHE_BITS 16
#define PF_PTR_CACHE (1u << PF_PTR_CACHE_BITS)
#define PF_PTR_WAYS 4u
#define PF_PTR_SET_BITS (PF_PTR_CACHE_BITS - 2)

/* The set of `s`: the pointer times 2^64 / phi, its top bits. By the low bits alone, two of
 * bench_export's five category strings shared a slot and evicted each other, so a fifth of its
 * spans hashed and compared their category; spread this way, pointers that differ in any bits
 * rarely meet. */
static inline size_t wt__pf_ptr_set(const char *s)
{
    return (size_t)(((uint64_t)(uintptr_t)s * 0x9E3779B97F4A7C15ull) >> (64 - PF_PTR_SET_BITS));
}

/* The filter's size: 512 KiB. For the ~560,000 strings the default budget allows, a word holds
 * about eight (some 15 of its bits set), and a string not interned finds both its bits set
 * about one time in eighteen; over unique labels 1 MiB (one in 65) and 256 KiB (one in six)
 * took as long (alternated, 10 M spans): the filter's own line is a miss too, whatever its
 * size. */
#define PF_ABSENT_BITS 16
#define PF_ABSENT_WORDS (1u << PF_ABSENT_BITS)

typedef struct pf_istr {
    char *s; /* the string as written: valid UTF-8 */
    uint64_t h;
} pf_istr;

/* What one interned string costs against the budget beyond its bytes: its entry, its slots
 * (as they were, 4 bytes at most half full) and the allocator's header. The figure decides
 * which strings are interned, so it is part of the output and stays 40 whatever the table's
 * slots become. */
#define PF_ISTR_OVERHEAD (sizeof(pf_istr) + 2 * sizeof(uint32_t) + 16)

typedef struct pf_itab {
    pf_istr *v;      /* v[iid - 1] */
    size_t n, vcap;
    /* NULL: no bound; else the bytes left to intern, shared by the tables that point to it.
     * A new string that does not fit is not added (iid 0): the caller writes it inline. */
    size_t *budget;
    /* iid in the low 32 bits (0 = empty), the hash's top 32 bits above: a probe that meets
     * another string's slot moves on without reading its entry (over unique labels, past the
     * budget, every lookup is of an absent string and met two other slots on the way, each a
     * read of v[] out of cache) */
    uint64_t *slots;
    size_t scap;     /* power of two */
    /* NULL until a string is first refused for the budget; then a blocked Bloom filter of the
     * strings interned (PF_ABSENT_WORDS words, two bits of one word a string, from its hash),
     * which says "surely not interned" for most strings: past the budget, over unique labels,
     * each lookup is of a string the table does not hold, and its probe's first slot was a
     * cache miss in an array of 8 MB (a third of export's CPU there). A string it may hold goes
     * on to the probe, so what is interned and written does not change. */
    uint64_t *absent;
    /* The pointer cache, a pair of words an entry: the pointer, then iid | gen << 32. An entry
     * counts only when its gen is the table's: forgetting the cache is one increment, not a
     * 1 MiB clear (the anomalies forget it once each, by the ten thousand). The sets start at
     * the first 64-byte boundary in the array (the extra 8 words), so each is one line. */
    uint64_t cache[2 * PF_PTR_CACHE + 8];
    uint32_t gen;
} pf_itab;

/* The first word of the set of `s` in t->cache. */
static inline size_t wt__pf_ptr_base(const uint64_t *cache, const char *s)
{
    const size_t skew = ((0 - (uintptr_t)cache) & 63) / sizeof *cache;
    return skew + 2 * PF_PTR_WAYS * wt__pf_ptr_set(s);
}

/* The iid of `s` (1..), added when new; *is_new is set when it was just added (it must then be
 * sent in the packet that uses it). When `s` is new and the budget has no room for it, *iid is
 * 0 and nothing is added: the caller writes the string inline. Returns 0 or WT_ENOMEM. */
int wt__pf_itab_get(pf_itab *t, const char *s, uint32_t *iid, int *is_new);
/* As wt__pf_itab_get for `s` of length n (strlen(s)), known to the caller, without asking the
 * pointer cache (the caller did, or knows `s` to be new to it); a string found is cached. */
int wt__pf_itab_get_n(pf_itab *t, const char *s, size_t n, uint32_t *iid, int *is_new);
/* As wt__pf_itab_get, but always an iid (past the budget too, which it then empties): for the
 * strings whose iid is a key elsewhere (counter tracks, rounds). */
int wt__pf_itab_need(pf_itab *t, const char *s, uint32_t *iid, int *is_new);
/* The iid the pointer cache holds for `s` (a lookup seen since the cache was last forgotten),
 * else 0: the hot path's lookup, with no hashing, no call and nothing added. */
static inline uint32_t wt__pf_itab_cached(const pf_itab *t, const char *s)
{
    const uint64_t *e = t->cache + wt__pf_ptr_base(t->cache, s);
    for (unsigned k = 0; k < 2 * PF_PTR_WAYS; k += 2)
        if (e[k] == (uint64_t)(uintptr_t)s && (uint32_t)(e[k + 1] >> 32) == t->gen)
            return (uint32_t)e[k + 1];
    return 0;
}
/* Asks for the line of the pointer cache that wt__pf_itab_cached(t, s) will read. */
static inline void wt__pf_itab_prefetch(const pf_itab *t, const char *s)
{
    __builtin_prefetch(t->cache + wt__pf_ptr_base(t->cache, s));
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
