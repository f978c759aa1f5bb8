/* String interning for the recorder: every string the API is given becomes a small id
 * (1, 2, ...) by its content, so a record stores 4 bytes instead of a pointer whose memory
 * the caller may reuse.
 *
 * Two levels. A per-thread direct-mapped cache keyed by the caller's pointer answers the hot
 * path in a few instructions; a hit is trusted without looking at the bytes only when the
 * pointer lies in a read-only segment of a loaded object (string literals), otherwise the
 * bytes are compared with the interned copy, because a stack or heap buffer can hold another
 * string at the same address next time. A miss goes to the global table: a hash index under
 * a mutex, and an append-only array of entries in fixed chunks that never move, published by
 * a release store of the count. The writer and the crash handler read entries 1..count
 * without any lock. Workload: a model load interns a few hundred distinct strings and looks
 * them up millions of times. */
#ifndef WT_REC_INTERN_H
#define WT_REC_INTERN_H

#include <stdint.h>
#include <string.h>

#define WT__ICACHE_BITS 9

typedef struct wt__icache_ent {
    const char *ptr;
    uint32_t id;
    uint32_t ro; /* ptr is in read-only memory: the bytes at ptr cannot change */
} wt__icache_ent;

typedef struct wt__icache {
    wt__icache_ent e[1u << WT__ICACHE_BITS];
} wt__icache;

/* Looks `s` up in the global table, adding it when new, and fills the cache slot. Returns
 * its id, or 0 when memory runs out (the string is then recorded as none). */
uint32_t wt__intern_slow(wt__icache *c, const char *s);

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

static inline uint32_t wt__intern(wt__icache *c, const char *s)
{
    if (!s)
        return 0;
    const uint64_t h = ((uint64_t)(uintptr_t)s * 0x9E3779B97F4A7C15ull) >> (64 - WT__ICACHE_BITS);
    const wt__icache_ent *e = &c->e[h];
    if (__builtin_expect(e->ptr == s, 1)) {
        if (e->ro)
            return e->id;
        const char *have = wt__string_get(e->id, NULL);
        if (have && strcmp(have, s) == 0)
            return e->id;
    }
    return wt__intern_slow(c, s);
}

#endif
