/* String interning for the recorder: every string the API is given becomes a small id
 * (1, 2, ...) by its content, so a record stores 4 bytes instead of a pointer whose memory
 * the caller may reuse.
 *
 * Three levels, the first two per thread and lock-free:
 * 1. A pointer cache, 2-way set-associative (WT__ICACHE_SETS sets), keyed by the caller's
 *    pointer. A hit is trusted without looking at the bytes only when the pointer lies in a
 *    read-only segment of a loaded object (a string literal): a few instructions. Two ways
 *    and 4096 entries so that a thousand literals at whatever addresses the linker gave them
 *    rarely evict each other (direct-mapped 512 slots collided on ~60% of 1,000 labels,
 *    differently from run to run).
 * 2. A content table: the hash of the bytes -> id, open addressing, verified against the
 *    interned bytes (length and memcmp). Strings in writable memory (a label formatted into
 *    a reused stack buffer, a heap copy) and literals that missed level 1 are answered here
 *    in a time that depends on the string's length only, never on its address.
 * 3. The global table, for a string this thread has not seen: a hash index under a mutex,
 *    and an append-only array of entries in fixed chunks that never move, published by a
 *    release store of the count. The writer and the crash handler read entries 1..count
 *    without any lock. Only a string new to the thread takes the mutex.
 * Workload: a model load interns hundreds to thousands of distinct strings (one per tensor,
 * often formatted) and looks them up millions of times, from a few threads. */
#ifndef WT_REC_INTERN_H
#define WT_REC_INTERN_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define WT__ICACHE_SET_BITS 11
#define WT__ICACHE_SETS (1u << WT__ICACHE_SET_BITS)

/* What wt__icache_ro() answers when level 1 cannot vouch for the string: ids are below
 * WT__STRINGS_MAX (format.h), far from this bit. */
#define WT__ICACHE_MISS 0x80000000u

typedef struct wt__icache_ent {
    const char *ptr; /* NULL in an empty way, whose rid is 0: NULL's id */
    uint32_t id;
    uint32_t rid; /* id when ptr is in read-only memory (its bytes cannot change), else
                   * WT__ICACHE_MISS */
} wt__icache_ent;

/* One slot of the content table: 0 id = empty. `head` is the string's first 16 bytes,
 * zero-padded, so a label of up to 16 bytes is verified from the probed slot alone; a longer
 * one compares the rest with its interned copy (immutable). */
typedef struct wt__ctab_ent {
    uint64_t head[2];
    uint32_t hash, id, len, unused;
} wt__ctab_ent;

/* The last string looked up by content, for the same buffer holding the same label again:
 * its pointer and id, and once it was seen twice in a row, the aligned 8-byte words that
 * hold it (bytes before it and after its NUL zeroed), at most WT__MEMO_WORDS of them. */
#define WT__MEMO_WORDS 3
typedef struct wt__memo {
    const char *ptr;
    uint64_t w[WT__MEMO_WORDS];
    uint32_t id;
    uint32_t n; /* words in w; 0: not filled */
} wt__memo;

typedef struct wt__icache {
    wt__icache_ent e[WT__ICACHE_SETS][2]; /* way 0 the most recently filled */
    wt__ctab_ent *tab;                    /* the content table; NULL until the first miss */
    uint32_t tab_cap, tab_n;              /* power of two; entries in use */
    wt__memo memo;
} wt__icache;

/* What level 2 knows of a string by content: its first 16 bytes (zero-padded), its length
 * (cut at WT__STRING_MAX) and the hash of its bytes. */
typedef struct wt__skey {
    uint64_t head[2];
    uint32_t len, hash;
} wt__skey;

/* The key of the NUL-terminated `s`, in one pass of aligned 8-byte loads: an aligned load
 * never crosses a page, so a string ending at the last byte of a mapping never faults (the
 * loads may read bytes past the NUL within the same 8-byte word; they are ignored). */
void wt__str_key(const char *s, wt__skey *k);

/* The hash of the n bytes at s, as wt__str_key() computes it for a string of that content
 * (the hash depends on the bytes only, never on where they are). */
uint32_t wt__str_hash(const char *s, size_t n);

/* Levels 2 and 3 of wt__intern(): the content table, then the global table, adding `s` when
 * new, and fills the pointer cache. Returns its id, or 0 when memory runs out (the string is
 * then recorded as none). */
uint32_t wt__intern_slow(wt__icache *c, const char *s);

/* Formatted labels (rec_state.h, WT__TEXT_*): copies the aligned 8-byte words holding the
 * NUL-terminated `s` into dst (WT__TEXT_WORDS of room), from the word at or below s to the
 * one holding its NUL, by aligned loads that never cross a page, and returns the text word
 * WT__TEXT_MAKE(s & 7, its length); 0 when it is longer than WT__TEXT_CAP (then dst holds
 * garbage) or on a machine without the aligned scan (big-endian). The caller's id lookups
 * are not involved: no table is read. */
uint32_t wt__text_take(uint64_t *dst, const char *s);

/* The id of the `len` bytes at s (no NUL needed; len <= WT__STRING_MAX), for the one writer
 * thread: its content table `c` (levels 2 and 3 of wt__intern, without the pointer cache),
 * the global table for bytes new to it. 0 when memory runs out (recording then turns off). */
uint32_t wt__intern_bytes(wt__icache *c, const char *s, uint32_t len);

/* The same from a signal handler (the crash dump): the global table only, and only when its
 * lock is free at once (the thread holding it may be the one that crashed); else 0. */
uint32_t wt__intern_bytes_try(const char *s, uint32_t len);

/* The id of the placeholder label a crash dump gives a formatted label it cannot intern,
 * adding it the first time (under the table's lock): a thread calls it before its first
 * formatted label, so a dump that finds one in a ring has the id. 0 when memory ran out. */
uint32_t wt__text_placeholder(void);
extern _Atomic uint32_t wt__placeholder_id __attribute__((visibility("hidden")));
/* The placeholder's id if it exists, else 0; lock-free, async-signal-safe. */
static inline uint32_t wt__text_placeholder_get(void)
{
    return atomic_load_explicit(&wt__placeholder_id, memory_order_acquire);
}

/* The interned bytes of `id` (NUL-terminated) and their length; NULL for an unknown id.
 * Lock-free and async-signal-safe. */
const char *wt__string_get(uint32_t id, uint32_t *len);

/* How many strings exist: ids 1..count are valid. Acquire: their entries are visible. */
uint32_t wt__string_count(void);

/* Finds the read-only segments of the loaded objects (for the cache's trust rule). */
void wt__intern_scan_ro(void);

/* Held across fork() so the child never inherits the table's lock taken. */
void wt__intern_lock(void);
void wt__intern_unlock(void);

/* The pointer cache's set of `s`. */
static inline wt__icache_ent *wt__icache_set(wt__icache *c, const char *s)
{
    const uint64_t h = ((uint64_t)(uintptr_t)s * 0x9E3779B97F4A7C15ull) >> (64 - WT__ICACHE_SET_BITS);
    return c->e[h];
}

/* The id of `s` when level 1 answers with trust (a literal seen before; NULL, 0, when its
 * set has an empty way), else WT__ICACHE_MISS: one pointer compare per way, with no test of
 * s for NULL. */
static inline uint32_t wt__icache_ro(wt__icache *c, const char *s)
{
    const wt__icache_ent *set = wt__icache_set(c, s);
    if (__builtin_expect(set[0].ptr == s, 1))
        return set[0].rid;
    return set[1].ptr == s ? set[1].rid : WT__ICACHE_MISS;
}

static inline uint32_t wt__intern(wt__icache *c, const char *s)
{
    if (!s)
        return 0;
    const uint32_t id = wt__icache_ro(c, s);
    return __builtin_expect(id != WT__ICACHE_MISS, 1) ? id : wt__intern_slow(c, s);
}

#endif
