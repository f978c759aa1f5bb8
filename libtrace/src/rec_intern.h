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

/* Formatted labels: a label in writable memory is not looked up by the recording thread.
 * wt_begin copies the aligned loads holding it (from the 16-byte boundary at or below its
 * start to the load holding its NUL: page-safe, see wt__text_scan) into the open-span slot;
 * wt_end stores its words, from the 8-byte word holding its first byte, into the ring right
 * after the span entry (and its extension), as WT__TEXT_ENTRIES() raw entries published with
 * it; the writer (or the crash handler) finds
 * the label's bytes at offset WT__TEXT_OFF() of them and interns them before encoding, so the
 * file holds ordinary ids. A label longer than WT__TEXT_CAP bytes is interned by content on
 * the recording thread, as before. The cap: Hugging Face tensor names run to 40-75 bytes
 * ("model.layers.17.self_attn.q_proj.weight" is 39, vision towers' 60-75); 88 is the most
 * whose words fit 4 entries and a 128-byte slot (two cache lines). */
#define WT__TEXT_CAP 88
/* The slot's room for them: 13 words (104 bytes). The aligned scan (below) copies from the
 * 16-byte boundary at or below the label: 15 bytes before it at most + 88 + its NUL = 104;
 * the word scan from the 8-byte boundary: 7 + 88 + 1 = 96. */
#define WT__TEXT_WORDS 13
_Static_assert(WT__TEXT_WORDS * 8 >= 15 + WT__TEXT_CAP + 1, "the slot holds any label up to the cap");
/* The text word (wt__open.label, wt__ent.a): flag:1 | entries:7 | 0:12 | off:4 | len:8.
 * off is the label's offset in the slot's words; its low 3 bits are its offset in the ring's,
 * which start at the 8-byte word holding its first byte (so the ring's words are the slot's
 * from byte off & 8). Ids are below 2^22 (format.h), so WT__TEXT_ENTRIES() of an id is 0. */
#define WT__TEXT_FLAG 0x80000000u
#define WT__TEXT_MAKE(off, len)                                                             \
    (WT__TEXT_FLAG | (uint32_t)((((off) & 7u) + (len) + 23) / 24) << 24 |                   \
     (uint32_t)(off) << 8 | (uint32_t)(len))
#define WT__TEXT_ENTRIES(w) (((w) >> 24) & 0x7fu)
#define WT__TEXT_OFF(w) (((w) >> 8) & 7u)       /* in the ring's words */
#define WT__TEXT_SLOT_OFF(w) (((w) >> 8) & 15u) /* in the slot's */
#define WT__TEXT_LEN(w) ((w) & 0xffu)
#define WT__TEXT_MAX_ENTRIES ((7 + WT__TEXT_CAP + 23) / 24)
_Static_assert(8 + WT__TEXT_MAX_ENTRIES * 24 <= WT__TEXT_WORDS * 8,
               "whole entries are copied out of the slot, from its byte 0 or 8");

/* 1 where the scan and the memo use SSE2, else 0: 8-byte words. x86-64 only, where SSE2 is
 * the baseline: __SSE2__ alone is not one answer for every file on 32-bit x86, where
 * <x86intrin.h> (rec_clock.h) defines it for the rest of a file that includes it first.
 * WT_TEXT_NO_SSE2 forces the words (to test them on x86-64). */
#if defined(__x86_64__) && !defined(WT_TEXT_NO_SSE2)
#define WT__TEXT_SSE2 1
#else
#define WT__TEXT_SSE2 0
#endif

/* The scan of wt__text_take(), inlined into wt_begin's path for formatted labels (which
 * carries the same no_sanitize: the first and last loads' bytes outside the string are read
 * and never used, as rec_intern.c's length scan). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WT__NO_SANITIZE_SCAN __attribute__((no_sanitize("address", "thread", "object-size")))
/* A word read through this type may alias the caller's chars: a plain load, never a call
 * (a memcpy() call would be intercepted by ASan, which checks the whole word). */
typedef uint64_t __attribute__((may_alias, aligned(8))) wt__aligned_word;

/* 0x80 in each byte of w that may be zero: the lowest one set is exactly the first zero byte
 * (a false positive needs a borrow from a zero byte below it). */
static inline uint64_t wt__zero_bytes(uint64_t w)
{
    return (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
}

#if WT__TEXT_SSE2
#include <emmintrin.h>
/* Aligned 16-byte loads (SSE2, the x86-64 baseline): an aligned load never crosses a page.
 * pcmpeqb/pmovmskb give the NUL's position; the vectors are stored into the slot whole,
 * unaligned (the slot's words start 8 bytes into a 16-byte line). Six vectors reach byte 95;
 * a label whose NUL may be in bytes 96..103 (an offset of 8 or more and 81 bytes or more)
 * takes a seventh load of one aligned word: the slot has no room for a seventh vector. */
#define WT__TEXT_VECS 6
static inline __attribute__((always_inline)) WT__NO_SANITIZE_SCAN uint32_t
wt__text_scan(uint64_t *dst, const char *s)
{
    const unsigned off = (unsigned)((uintptr_t)s & 15);
    const __m128i *p = (const __m128i *)(const void *)(s - off);
    __m128i *d = (__m128i *)(void *)dst;
    const __m128i zero = _mm_setzero_si128();
    __m128i v = _mm_load_si128(p);
    _mm_storeu_si128(d, v);
    /* the bytes before s are not the label's */
    unsigned z = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero)) >> off << off;
    unsigned at = 0; /* of the vector holding the NUL, from s - off */
    while (!z) {
        at += 16;
        if (__builtin_expect(at == 16 * WT__TEXT_VECS, 0)) {
            const uint64_t w = ((const wt__aligned_word *)(const void *)p)[2 * WT__TEXT_VECS];
            dst[2 * WT__TEXT_VECS] = w;
            const uint64_t zw = wt__zero_bytes(w);
            if (!zw)
                return 0; /* no NUL within the slot: longer than the cap */
            z = 1u << ((unsigned)__builtin_ctzll(zw) / 8);
            break;
        }
        v = _mm_load_si128(p + at / 16);
        _mm_storeu_si128(d + at / 16, v);
        z = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero));
    }
    const unsigned len = at + (unsigned)__builtin_ctz(z) - off;
    return len <= WT__TEXT_CAP ? WT__TEXT_MAKE(off, len) : 0;
}
#else
/* Aligned 8-byte words, 8 bytes a step: the portable scan. */
static inline __attribute__((always_inline)) WT__NO_SANITIZE_SCAN uint32_t
wt__text_scan(uint64_t *dst, const char *s)
{
    const unsigned off = (unsigned)((uintptr_t)s & 7);
    const wt__aligned_word *p = (const wt__aligned_word *)(const void *)(s - off);
    uint64_t w = p[0];
    dst[0] = w;
    /* the first word's bytes before s count as non-zero; then 0x80 in each byte that may be
     * zero, the lowest one exactly the first zero byte */
    uint64_t z = wt__zero_bytes(w | ((1ull << (8 * off)) - 1));
    unsigned i = 0;
    while (!z) {
        if (++i == 12)
            return 0; /* no NUL within the cap's words: longer than the cap */
        w = p[i];
        dst[i] = w;
        z = wt__zero_bytes(w);
    }
    const unsigned len = 8 * i + (unsigned)__builtin_ctzll(z) / 8 - off;
    return len <= WT__TEXT_CAP ? WT__TEXT_MAKE(off, len) : 0;
}
#endif
#else
#define WT__NO_SANITIZE_SCAN
static inline uint32_t wt__text_scan(uint64_t *dst, const char *s)
{
    (void)dst;
    (void)s;
    return 0; /* no aligned scan: the content path, as for a label over the cap */
}
#endif

/* What wt__icache_ro() answers when level 1 cannot vouch for the string: ids are below
 * WT__STRINGS_MAX (format.h), far from this bit; any answer with it set is a miss. A pointer
 * level 1 holds as writable memory (looked up by content once) answers WT__ICACHE_WRITABLE,
 * one it does not hold WT__ICACHE_MISS: the recording thread copies the label of the first
 * (rec_state.h), and looks the second up by content, which teaches level 1 which it is. */
#define WT__ICACHE_MISS 0x80000000u
#define WT__ICACHE_WRITABLE (WT__ICACHE_MISS | 1u)

typedef struct wt__icache_ent {
    const char *ptr; /* NULL in an empty way, whose rid is 0: NULL's id */
    uint32_t id;
    uint32_t rid; /* id when ptr is in read-only memory (its bytes cannot change), else
                   * WT__ICACHE_WRITABLE */
} wt__icache_ent;

/* One slot of the content table: 0 id = empty. `head` is the string's first 16 bytes,
 * zero-padded, so a label of up to 16 bytes is verified from the probed slot alone; a longer
 * one compares the rest with its interned copy (immutable). */
typedef struct wt__ctab_ent {
    uint64_t head[2];
    uint32_t hash, id, len, unused;
} wt__ctab_ent;

/* The last string looked up by content, for the same buffer holding the same label again:
 * its pointer and id, and once it was seen twice in a row (or at once, wt__memo_learn), the
 * aligned loads that hold it,
 * at most WT__MEMO_N of them (rec_intern.c). With SSE2, 16-byte vectors, each with the mask
 * of its bytes that are the label's (its NUL included): a compare is one pcmpeqb a vector.
 * Else 8-byte words with the bytes before it and after its NUL zeroed. */
#if WT__TEXT_SSE2
#define WT__MEMO_N 7 /* 15 bytes before + the cap's 88 + NUL: a tensor name formatted again is compared, not copied */
typedef struct wt__memo {
    const char *ptr;
    uint32_t id;
    uint32_t n; /* vectors in v; 0: not filled */
    uint16_t need[WT__MEMO_N];
    __m128i v[WT__MEMO_N];
} wt__memo;
#else
#define WT__MEMO_N 12 /* up to the copy's cap (WT__TEXT_CAP) */
typedef struct wt__memo {
    const char *ptr;
    uint64_t w[WT__MEMO_N];
    uint32_t id;
    uint32_t n; /* words in w; 0: not filled */
} wt__memo;
#endif

/* The memo's id when s is its pointer holding the same bytes (m->n loads compared), else 0.
 * Each load is made only when the one before matched on bytes holding no NUL, so it never
 * reads past s's end; its bytes outside the label are read and not used (no_sanitize, as
 * the scan). Inline: the recording thread's compare for a label formatted again. */
#if WT__TEXT_SSE2
static inline __attribute__((always_inline)) WT__NO_SANITIZE_SCAN uint32_t
wt__memo_find(const wt__memo *m, const char *s)
{
    const __m128i *p = (const __m128i *)(const void *)(s - ((uintptr_t)s & 15));
    for (uint32_t i = 0; i < m->n; i++) {
        const unsigned eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_load_si128(p + i), m->v[i]));
        if ((eq & m->need[i]) != m->need[i])
            return 0;
    }
    return m->id;
}
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* s's aligned word i (0, 1, ...), with the bytes before s and after its NUL zeroed; *end set
 * when the word holds the NUL. */
static inline __attribute__((always_inline)) WT__NO_SANITIZE_SCAN uint64_t
wt__memo_word(const char *s, unsigned i, int *end)
{
    const unsigned off = (unsigned)((uintptr_t)s & 7);
    const wt__aligned_word *p = (const wt__aligned_word *)(const void *)(s - off);
    const uint64_t before = i ? 0 : (1ull << (8 * off)) - 1;
    const uint64_t w = p[i] & ~before;
    const uint64_t z = wt__zero_bytes(w | before);
    *end = z != 0;
    return z ? w & (z ^ (z - 1)) : w; /* z ^ (z - 1): the bits up to the NUL's top bit */
}

static inline __attribute__((always_inline)) WT__NO_SANITIZE_SCAN uint32_t
wt__memo_find(const wt__memo *m, const char *s)
{
    int end = 0;
    for (uint32_t i = 0; i < m->n && !end; i++)
        if (wt__memo_word(s, i, &end) != m->w[i])
            return 0;
    return end ? m->id : 0;
}
#else
static inline uint32_t wt__memo_find(const wt__memo *m, const char *s)
{
    (void)m;
    (void)s;
    return 0; /* no memo: it is never filled */
}
#endif

typedef struct wt__icache {
    wt__icache_ent e[WT__ICACHE_SETS][2]; /* way 0 the most recently filled */
    wt__ctab_ent *tab;                    /* the content table; NULL until the first miss */
    uint32_t tab_cap, tab_n;              /* power of two; entries in use */
    wt__memo memo;
} wt__icache;

/* The memo's id (wt__memo) when s is its pointer and holds the same bytes, else 0: a label
 * formatted again and again into one buffer is answered by a compare of its bytes. */
static inline __attribute__((always_inline)) WT__NO_SANITIZE_SCAN uint32_t
wt__memo_id(const wt__icache *c, const char *s)
{
    return c->memo.ptr == s && c->memo.n ? wt__memo_find(&c->memo, s) : 0;
}

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

/* wt__intern_slow() for a label the writer saw repeat (wt__tstate.text_again): its id by
 * content, and the memo filled with it at once (a buffer holding it again is then answered
 * by the memo's compare). 0 when memory runs out. */
uint32_t wt__memo_learn(wt__icache *c, const char *s);

/* Formatted labels (rec_state.h, WT__TEXT_*): copies the aligned loads holding the
 * NUL-terminated `s` into dst (WT__TEXT_WORDS of room), from the 16-byte boundary at or
 * below s (8-byte without SSE2) to the load holding its NUL, by aligned loads that never
 * cross a page, and returns the text word WT__TEXT_MAKE(its offset, its length); 0 when it is
 * longer than WT__TEXT_CAP (then dst holds garbage) or on a machine without the aligned scan
 * (big-endian). The caller's id lookups are not involved: no table is read. */
uint32_t wt__text_take(uint64_t *dst, const char *s);


/* The writer's cache of copied labels, in front of its content table: sets of two ways of
 * one 64-byte line each, a way holding a label's first 16 bytes (zero-padded), its bytes 16
 * to 55 as they are (zero past its end), its length + 1 (0: empty) and its id. The set is one
 * multiply of the first 16 bytes and the length; a label of up to 56 bytes is verified from
 * the way alone, a longer one compares the rest with its interned copy. No hash of the whole
 * label, no probe loop: those are for a miss, which then takes way 0 (the older label moves
 * to way 1). 2,048 sets (256 KiB): 1,000 labels at random nearly all find theirs. The bytes
 * past 16 are in the way because the interned copy was a cache miss of its own: 8 % of the
 * process's CPU for 1,000 tensor names of 39 bytes (perf/RECORDING.md, session 11). */
#define WT__TCACHE_BITS 11
#define WT__TCACHE_TAIL 40 /* the label's bytes 16 .. 16 + WT__TCACHE_TAIL kept in the way */
typedef struct wt__tcache_ent {
    uint64_t head[2];
    unsigned char tail[WT__TCACHE_TAIL];
    uint32_t len1, id;
} wt__tcache_ent;
_Static_assert(sizeof(wt__tcache_ent) == 64, "a way is one cache line");
typedef struct wt__tcache {
    _Alignas(64) wt__tcache_ent e[1u << WT__TCACHE_BITS][2];
} wt__tcache;

/* Bytes 16 .. len of the label at s equal way w's tail (16 < len <= 16 + WT__TCACHE_TAIL):
 * 8-byte words, the last one overlapping the one before it when the tail is not a multiple
 * of 8, so nothing past s + len is read. */
static inline int wt__tcache_tail_eq(const wt__tcache_ent *w, const char *s, uint32_t len)
{
    const uint32_t n = len - 16;
    const char *const a = s + 16;
    const unsigned char *const b = w->tail;
    uint64_t x, y;
    if (n < 8) {
        for (uint32_t i = 0; i < n; i++)
            if ((unsigned char)a[i] != b[i])
                return 0;
        return 1;
    }
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return 0;
    }
    if (i == n)
        return 1;
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return x == y;
}

/* The bytes of string `id` past its first 16 equal the n at s (n > 16, the length of both;
 * their first 16 are equal). */
int wt__string_tail_eq(uint32_t id, const char *s, uint32_t n);

/* The first 16 bytes of the len at s as 8-byte little-endian chunks, zero past len (as the
 * content table's key holds them): two loads, the 16 bytes at s being readable when
 * len >= 1. */
static inline void wt__tcache_head(const char *s, uint32_t len, uint64_t h[2])
{
    uint64_t w[2] = { 0, 0 };
    if (len)
        memcpy(w, s, 16);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w[0] = __builtin_bswap64(w[0]);
    w[1] = __builtin_bswap64(w[1]);
#endif
    h[0] = len >= 8 ? w[0] : w[0] & ((1ull << (8 * len)) - 1);
    h[1] = len <= 8 ? 0 : len >= 16 ? w[1] : w[1] & ((1ull << (8 * (len - 8))) - 1);
}

/* The set of a label of head h and length len: one multiply. */
static inline wt__tcache_ent *wt__tcache_set(const wt__tcache *f, const uint64_t h[2],
                                             uint32_t len)
{
    const uint64_t x = h[0] ^ (h[1] << 7 | h[1] >> 57) ^ len;
    return (wt__tcache_ent *)f->e[(x * 0x9E3779B97F4A7C15ull) >> (64 - WT__TCACHE_BITS)];
}

/* Way w holds the label (len bytes at s, head h). */
static inline int wt__tcache_has(const wt__tcache_ent *w, const char *s, uint32_t len,
                                 const uint64_t h[2])
{
    return w->len1 == len + 1 && w->head[0] == h[0] && w->head[1] == h[1] &&
           (len <= 16 ||
            (len <= 16 + WT__TCACHE_TAIL ? wt__tcache_tail_eq(w, s, len)
                                          : wt__string_tail_eq(w->id, s, len)));
}

/* The front cache's id for the len bytes at s (readable as wt__intern_bytes() wants), or 0:
 * no table is read and nothing is written, so the encoding loop inlines it and calls out
 * only for a label the cache does not hold. */
static inline __attribute__((always_inline)) uint32_t
wt__tcache_find(const wt__tcache *f, const char *s, uint32_t len)
{
    uint64_t h[2];
    wt__tcache_head(s, len, h);
    const wt__tcache_ent *set = wt__tcache_set(f, h, len);
    if (wt__tcache_has(&set[0], s, len, h))
        return set[0].id;
    return wt__tcache_has(&set[1], s, len, h) ? set[1].id : 0;
}

/* The id of the `len` bytes at s (no NUL needed; len <= WT__STRING_MAX), for the one writer
 * thread: its front cache `f`, its content table `c` (levels 2 and 3 of wt__intern, without
 * the pointer cache), the global table for bytes new to it. The 16 bytes at s must be
 * readable when len >= 1 (those past len are not used: a copied label's first ring entry
 * holds them). 0 when memory runs out (recording then turns off). */
uint32_t wt__intern_bytes(wt__icache *c, wt__tcache *f, const char *s, uint32_t len);

/* The same from a signal handler (the crash dump): the global table only, and only when its
 * lock is free at once (the thread holding it may be the one that crashed); else 0. */
uint32_t wt__intern_bytes_try(const char *s, uint32_t len);

#define WT__TEXT_LOST "(walltime: label lost in a crash)"

/* The id of the placeholder label (WT__TEXT_LOST) a crash dump gives a formatted label it cannot intern,
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
 * set has an empty way), else WT__ICACHE_WRITABLE or WT__ICACHE_MISS: one pointer compare
 * per way, with no test of s for NULL. */
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
    return __builtin_expect(!(id & WT__ICACHE_MISS), 1) ? id : wt__intern_slow(c, s);
}

#endif
