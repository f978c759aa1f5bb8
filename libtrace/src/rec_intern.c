/* Levels 2 and 3 of rec_intern.h: a string's key (length, first 16 bytes, hash) read in one
 * page-safe pass, the per-thread content table (lock-free, the thread's own) and the global
 * string table, an append-only array of entries in chunks that never move (read lock-free by
 * the writer and the crash handler) and an open-addressing hash index by content, guarded by
 * a mutex that only strings new to a thread take. Workload: a label formatted into a reused
 * buffer is looked up here on every span; a string new to the thread is rare. */
#include "rec_intern.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "format.h"
#include "rec_alloc.h"
#include "rec_state.h"

#define CHUNK_BITS 12
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS (WT__STRINGS_MAX / CHUNK_SIZE) /* as many strings as a file may define */
#define ARENA_BLOCK (64u << 10)

/* What every new string becomes once the table holds as many strings (or bytes) as a trace
 * file may define (format.h): the reader would refuse more, and lose what follows. */
#define OVERFLOW_TEXT "(walltime: more distinct strings than a trace holds)"

typedef struct str_ent {
    const char *s;
    uint32_t len;
    uint32_t hash;
} str_ent;

static str_ent *chunks[MAX_CHUNKS];
static atomic_uint count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t *index_ids; /* 0 = empty slot */
static uint32_t index_cap;
static char *arena;
static size_t arena_left;
static uint64_t table_bytes; /* the sum of len + 1, as the reader counts them */
static uint32_t overflow_id; /* the marker's id once the table is full; 0 before */

#define MAX_RO 256
static struct { uintptr_t lo, hi; } ro[MAX_RO];
static atomic_int n_ro;

static inline uint64_t load8(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* x's bytes in little-endian order: chunks and heads mean the same on any machine. */
static inline uint64_t le64(uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(x);
#else
    return x;
#endif
}

static inline uint32_t le32(uint32_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap32(x);
#else
    return x;
#endif
}

static inline uint64_t mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    return h ^ h >> 29;
}

#define HASH_SEED 0x243F6A8885A308D3ull

static inline uint32_t hash_final(uint64_t h, size_t n)
{
    h = (h ^ (uint64_t)n) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

static inline uint32_t load4(const char *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* Chunk i of the n bytes at s: bytes [8i, 8i + 8) as a little-endian word, zero-padded past
 * n. Reads only the n bytes (overlapping loads, then shifts). */
static inline uint64_t chunk(const char *s, size_t n, size_t i)
{
    const size_t at = 8 * i;
    if (at + 8 <= n)
        return le64(load8(s + at));
    const size_t r = n > at ? n - at : 0; /* 0..7 bytes */
    if (r == 0)
        return 0;
    if (n >= 8) /* the last 8 bytes of the string, shifted down to the r wanted */
        return le64(load8(s + n - 8)) >> (8 * (8 - r));
    if (r >= 4)
        return (uint64_t)le32(load4(s)) | (uint64_t)le32(load4(s + r - 4)) << (8 * (r - 4));
    return (uint64_t)(uint8_t)s[0] | (uint64_t)(uint8_t)s[r / 2] << (8 * (r / 2)) |
           (uint64_t)(uint8_t)s[r - 1] << (8 * (r - 1));
}

/* The hash of a string: its bytes as 8-byte little-endian chunks from its start (at least
 * two, the last zero-padded), mixed in turn, then the length. The first two chunks are the
 * key's head, so a short label's hash is two mixes. Quality is ample for tables verified by
 * content. */
static inline uint32_t hash_key(const char *s, size_t n, uint64_t h0, uint64_t h1)
{
    uint64_t h = mix(mix(HASH_SEED, h0), h1);
    for (size_t i = 2; 8 * i < n; i++)
        h = mix(h, chunk(s, n, i));
    return hash_final(h, n);
}

uint32_t wt__str_hash(const char *s, size_t n)
{
    return hash_key(s, n, chunk(s, n, 0), chunk(s, n, 1));
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__

/* strnlen(s, WT__STRING_MAX) by aligned 8-byte loads: an aligned load never crosses a page,
 * so a string ending at the last byte of a mapping never faults. The loads read bytes before
 * the string and past its NUL within the first and last words, never used: ASan, TSan and
 * UBSan's object-size check would flag them, valgrind's default --partial-loads-ok=yes
 * accepts them. */
__attribute__((no_sanitize("address", "thread", "object-size"))) static size_t len_cut(const char *s)
{
    const unsigned off = (unsigned)((uintptr_t)s & 7);
    const wt__aligned_word *p = (const wt__aligned_word *)(const void *)(s - off);
    /* the first word's bytes before s count as non-zero */
    uint64_t z = wt__zero_bytes(p[0] | ((1ull << (8 * off)) - 1));
    size_t at = 0; /* of the word p[at / 8], from s - off */
    while (!z) {
        at += 8;
        if (at >= WT__STRING_MAX + off)
            return WT__STRING_MAX;
        z = wt__zero_bytes(p[at / 8]);
    }
    const size_t n = at + (unsigned)__builtin_ctzll(z) / 8 - off;
    return n < WT__STRING_MAX ? n : WT__STRING_MAX;
}

#if WT__TEXT_SSE2

/* The bytes of s's aligned 16-byte vector i (0, 1, ...) that are the string's, as a mask
 * (bit j: byte j), and *end set when the vector holds its NUL (the mask then stops at it,
 * the NUL included). Reads only vectors up to the NUL's, as len_cut(). */
static inline WT__NO_SANITIZE_SCAN __m128i
memo_vec(const char *s, unsigned i, unsigned *need, int *end)
{
    const unsigned off = (unsigned)((uintptr_t)s & 15);
    const __m128i v = _mm_load_si128((const __m128i *)(const void *)(s - off) + i);
    const unsigned from = i ? 0xffffu : 0xffffu >> off << off;
    const unsigned z = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) & from;
    *end = z != 0;
    *need = z ? from & (z ^ (z - 1)) : from; /* z ^ (z - 1): the bits up to the NUL's */
    return v;
}

/* Fills the memo's vectors from s (its pointer and id already set); leaves it unfilled for a
 * string longer than they hold. Not sanitized, as the loads it inlines. */
static __attribute__((noinline)) WT__NO_SANITIZE_SCAN void memo_fill(wt__memo *m, const char *s)
{
    int end = 0;
    uint32_t i = 0;
    for (; i < WT__MEMO_N && !end; i++) {
        unsigned need;
        m->v[i] = memo_vec(s, i, &need, &end);
        m->need[i] = (uint16_t)need;
    }
    m->n = end ? i : 0;
}

#else

/* Fills the memo's words from s (its pointer and id already set); leaves it unfilled for a
 * string longer than the words hold. Not sanitized, as the loads it inlines. */
static __attribute__((noinline)) WT__NO_SANITIZE_SCAN void memo_fill(wt__memo *m, const char *s)
{
    int end = 0;
    uint32_t i = 0;
    for (; i < WT__MEMO_N && !end; i++)
        m->w[i] = wt__memo_word(s, i, &end);
    m->n = end ? i : 0;
}

#endif

#else /* not little-endian: no memo */

static size_t len_cut(const char *s) { return strnlen(s, WT__STRING_MAX); }

static __attribute__((noinline)) void memo_fill(wt__memo *m, const char *s)
{
    (void)s;
    m->n = 0;
}

#endif

/* wt__str_key(), inlined into the lookup that runs for every label in writable memory. */
static inline __attribute__((always_inline)) void str_key(const char *s, wt__skey *k)
{
    const size_t n = len_cut(s);
    k->head[0] = chunk(s, n, 0);
    k->head[1] = chunk(s, n, 1);
    k->len = (uint32_t)n;
    k->hash = hash_key(s, n, k->head[0], k->head[1]);
}

void wt__str_key(const char *s, wt__skey *k) { str_key(s, k); }

/* a[0..n) == b[0..n); both have n readable bytes. Labels of 8 to 16 bytes in two overlapping
 * 8-byte compares, without a call. */
static inline int same_bytes(const char *a, const char *b, size_t n)
{
    if (n >= 8 && n <= 16)
        return ((load8(a) ^ load8(b)) | (load8(a + n - 8) ^ load8(b + n - 8))) == 0;
    return memcmp(a, b, n) == 0;
}

const char *wt__string_get(uint32_t id, uint32_t *len)
{
    if (id == 0 || id > atomic_load_explicit(&count, memory_order_acquire))
        return NULL;
    const str_ent *e = &chunks[(id - 1) >> CHUNK_BITS][(id - 1) & (CHUNK_SIZE - 1)];
    if (len)
        *len = e->len;
    return e->s;
}

uint32_t wt__string_count(void) { return atomic_load_explicit(&count, memory_order_acquire); }

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    int n = atomic_load_explicit(&n_ro, memory_order_relaxed);
    for (int i = 0; i < info->dlpi_phnum && n < MAX_RO; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD || (p->p_flags & PF_W))
            continue;
        ro[n].lo = info->dlpi_addr + p->p_vaddr;
        ro[n].hi = ro[n].lo + p->p_memsz;
        n++;
    }
    atomic_store_explicit(&n_ro, n, memory_order_release);
    return 0;
}

void wt__intern_scan_ro(void)
{
    pthread_mutex_lock(&lock);
    atomic_store_explicit(&n_ro, 0, memory_order_relaxed);
    dl_iterate_phdr(phdr_cb, NULL);
    pthread_mutex_unlock(&lock);
}

static int is_ro(const char *s)
{
    const uintptr_t p = (uintptr_t)s;
    const int n = atomic_load_explicit(&n_ro, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (p >= ro[i].lo && p < ro[i].hi)
            return 1;
    return 0;
}

/* Memory comes in pages (rec_alloc.h): a signal handler's call may intern a new string while
 * the code it interrupted is inside malloc(). Strings are at most WT__STRING_MAX bytes, far
 * below a block. */
_Static_assert(WT__STRING_MAX + 1 <= ARENA_BLOCK, "a string fits in an arena block");
_Static_assert(WT__STRINGS_MAX < WT__ICACHE_MISS, "no id looks like a pointer-cache miss");

static char *arena_copy(const char *s, size_t n)
{
    if (arena_left < n + 1) {
        arena = wt__pages(ARENA_BLOCK);
        arena_left = arena ? ARENA_BLOCK : 0;
        if (!arena)
            return NULL;
    }
    char *out = arena;
    memcpy(out, s, n);
    out[n] = '\0';
    arena += n + 1;
    arena_left -= n + 1;
    return out;
}

static const str_ent *ent_of(uint32_t id)
{
    return &chunks[(id - 1) >> CHUNK_BITS][(id - 1) & (CHUNK_SIZE - 1)];
}

/* Doubles the index; called with the lock held. */
static int grow_index(void)
{
    const uint32_t cap = index_cap ? index_cap * 2 : 1024;
    uint32_t *ids = wt__pages(cap * sizeof *ids);
    if (!ids)
        return -1;
    for (uint32_t i = 0; i < index_cap; i++) {
        const uint32_t id = index_ids[i];
        if (!id)
            continue;
        uint32_t j = ent_of(id)->hash & (cap - 1);
        while (ids[j])
            j = (j + 1) & (cap - 1);
        ids[j] = id;
    }
    wt__pages_free(index_ids, index_cap * sizeof *index_ids);
    index_ids = ids;
    index_cap = cap;
    return 0;
}

/* Appends (s, n) as the next id, with index slot j (or none: UINT32_MAX); lock held.
 * Returns the id or 0 when memory runs out. */
static uint32_t append(const char *s, size_t n, uint32_t h, uint32_t j)
{
    const uint32_t id = atomic_load_explicit(&count, memory_order_relaxed) + 1;
    const uint32_t c = (id - 1) >> CHUNK_BITS;
    if (c >= MAX_CHUNKS)
        return 0; /* cannot happen: the limits below keep ids within WT__STRINGS_MAX */
    if (!chunks[c] && !(chunks[c] = wt__pages(CHUNK_SIZE * sizeof(str_ent))))
        return 0;
    char *copy = arena_copy(s, n);
    if (!copy)
        return 0;
    str_ent *e = &chunks[c][(id - 1) & (CHUNK_SIZE - 1)];
    e->s = copy;
    e->len = (uint32_t)n;
    e->hash = h;
    if (j != UINT32_MAX)
        index_ids[j] = id;
    table_bytes += n + 1;
    /* publishes the entry to lock-free readers (writer thread, crash handler) */
    atomic_store_explicit(&count, id, memory_order_release);
    return id;
}

/* Finds or adds (s, n); lock held. Returns the id or 0. */
static uint32_t lookup_add(const char *s, size_t n, uint32_t h)
{
    const uint32_t have = atomic_load_explicit(&count, memory_order_relaxed);
    if (index_cap && (have + 1) * 2 > index_cap) {
        if (grow_index())
            return 0;
    } else if (!index_cap && grow_index()) {
        return 0;
    }
    uint32_t j = h & (index_cap - 1);
    for (; index_ids[j]; j = (j + 1) & (index_cap - 1)) {
        const str_ent *e = ent_of(index_ids[j]);
        if (e->hash == h && e->len == n && same_bytes(e->s, s, n))
            return index_ids[j];
    }
    /* the last id and the marker's bytes stay free for the marker */
    if (have + 1 < WT__STRINGS_MAX &&
        table_bytes + n + 1 + sizeof OVERFLOW_TEXT <= WT__STRING_BYTES_MAX)
        return append(s, n, h, j);
    if (!overflow_id)
        overflow_id = append(OVERFLOW_TEXT, sizeof OVERFLOW_TEXT - 1,
                             wt__str_hash(OVERFLOW_TEXT, sizeof OVERFLOW_TEXT - 1), UINT32_MAX);
    return overflow_id;
}

/* The bytes of string `id` past its first 16 equal s's (n, the length of both, over 16;
 * their first 16 are equal): 8-byte compares, the last one overlapping, no call. */
static inline int same_tail(uint32_t id, const char *s, uint32_t n)
{
    const char *t = ent_of(id)->s;
    for (uint32_t i = 16; i + 8 < n; i += 8)
        if (load8(t + i) != load8(s + i))
            return 0;
    return load8(t + n - 8) == load8(s + n - 8);
}

/* The content table's id for the string s of key k, verified by content: the head and the
 * length in the slot, the bytes past 16 against the interned copy; 0 if absent. */
static inline uint32_t ctab_find(const wt__icache *c, const char *s, const wt__skey *k)
{
    if (!c->tab)
        return 0;
    const uint32_t m = c->tab_cap - 1;
    for (uint32_t j = k->hash & m; c->tab[j].id; j = (j + 1) & m) {
        const wt__ctab_ent *e = &c->tab[j];
        if (e->hash == k->hash && e->len == k->len && e->head[0] == k->head[0] &&
            e->head[1] == k->head[1] && (k->len <= 16 || same_tail(e->id, s, k->len)))
            return e->id;
    }
    return 0;
}

/* The content table's memory comes in pages (rec_alloc.h), as the table's: a signal handler's
 * call may add a string while the code it interrupted is inside malloc(). */
static wt__ctab_ent *ctab_alloc(uint32_t cap) { return wt__pages(cap * sizeof(wt__ctab_ent)); }

static void ctab_free(wt__ctab_ent *t, uint32_t cap) { wt__pages_free(t, cap * sizeof *t); }

/* Adds (key, id) to the content table, doubling it at half full. A table that would grow
 * past CTAB_MAX slots (2 MiB) starts again empty and small instead: it is only a cache of
 * level 3, which holds every string, so a thread that met many strings once (unique labels)
 * keeps a table its hot labels can be found in quickly, and a string met later is still
 * added. Returns -1 when memory ran out (as any allocation of the recorder, that turns
 * recording off), else 0. */
#define CTAB_MIN 1024u
#define CTAB_MAX (1u << 16)
static int ctab_add(wt__icache *c, const wt__skey *k, uint32_t id)
{
    if ((c->tab_n + 1) * 2 > c->tab_cap) {
        const int restart = c->tab_cap * 2 > CTAB_MAX;
        const uint32_t cap = restart || !c->tab_cap ? CTAB_MIN : c->tab_cap * 2;
        wt__ctab_ent *t = ctab_alloc(cap);
        if (!t)
            return -1;
        for (uint32_t i = 0; !restart && i < c->tab_cap; i++) {
            if (!c->tab[i].id)
                continue;
            uint32_t j = c->tab[i].hash & (cap - 1);
            while (t[j].id)
                j = (j + 1) & (cap - 1);
            t[j] = c->tab[i];
        }
        ctab_free(c->tab, c->tab_cap);
        c->tab = t;
        c->tab_cap = cap;
        if (restart)
            c->tab_n = 0;
    }
    uint32_t j = k->hash & (c->tab_cap - 1);
    while (c->tab[j].id)
        j = (j + 1) & (c->tab_cap - 1);
    wt__ctab_ent *e = &c->tab[j];
    e->head[0] = k->head[0];
    e->head[1] = k->head[1];
    e->len = k->len;
    e->hash = k->hash;
    e->id = id;
    c->tab_n++;
    return 0;
}

/* Level 3: the global table (under its lock), adding s when new, and the content table.
 * Out of line: only a string new to the thread comes here. */
static uint32_t intern_key(wt__icache *c, const char *s, const wt__skey *k)
{
    const int saved = errno; /* kept: this may run in a signal handler */
    pthread_mutex_lock(&lock);
    const uint32_t id = lookup_add(s, k->len, k->hash);
    pthread_mutex_unlock(&lock);
    /* out of memory: recording turns off with the one message. The overflow marker (whose
     * bytes are not this string's) stays out of the content table. */
    if (!id || (c && ent_of(id)->len == k->len && ctab_add(c, k, id) < 0))
        wt__fail(atomic_load(&wt__g.path), ENOMEM);
    errno = saved;
    return id;
}

static __attribute__((noinline)) uint32_t intern_global(wt__icache *c, const char *s)
{
    wt__skey k;
    str_key(s, &k);
    return intern_key(c, s, &k);
}

int wt__string_tail_eq(uint32_t id, const char *s, uint32_t n) { return same_tail(id, s, n); }

/* A label in neither way of its set: the content table, then the global table; the label
 * then takes way 0 (the older one moves to way 1). Out of line, so the hit path saves no
 * registers. */
static __attribute__((noinline)) uint32_t tcache_miss(wt__icache *c, wt__tcache *f,
                                                      const char *s, uint32_t len)
{
    wt__skey k;
    k.len = len;
    wt__tcache_head(s, len, k.head);
    k.hash = hash_key(s, len, k.head[0], k.head[1]);
    uint32_t id = ctab_find(c, s, &k);
    if (!id)
        id = intern_key(c, s, &k);
    /* the overflow marker (whose bytes are not these) stays out, as from the content table */
    if (id && ent_of(id)->len == len) {
        wt__tcache_ent *set = wt__tcache_set(f, k.head, len);
        set[1] = set[0];
        set[0].head[0] = k.head[0];
        set[0].head[1] = k.head[1];
        memset(set[0].tail, 0, sizeof set[0].tail);
        if (len > 16)
            memcpy(set[0].tail, s + 16, len - 16 < WT__TCACHE_TAIL ? len - 16 : WT__TCACHE_TAIL);
        set[0].len1 = len + 1;
        set[0].id = id;
    }
    return id;
}

uint32_t wt__intern_bytes(wt__icache *c, wt__tcache *f, const char *s, uint32_t len)
{
    const uint32_t id = wt__tcache_find(f, s, len);
    return id ? id : tcache_miss(c, f, s, len);
}

uint32_t wt__intern_bytes_try(const char *s, uint32_t len)
{
    if (pthread_mutex_trylock(&lock) != 0)
        return 0;
    const uint32_t id = lookup_add(s, len, wt__str_hash(s, len));
    pthread_mutex_unlock(&lock);
    return id;
}

_Atomic uint32_t wt__placeholder_id;

uint32_t wt__text_placeholder(void)
{
    uint32_t id = wt__text_placeholder_get();
    if (__builtin_expect(id != 0, 1))
        return id;
    const int saved = errno;
    pthread_mutex_lock(&lock);
    id = lookup_add(WT__TEXT_LOST, sizeof WT__TEXT_LOST - 1,
                    wt__str_hash(WT__TEXT_LOST, sizeof WT__TEXT_LOST - 1));
    pthread_mutex_unlock(&lock);
    if (id)
        atomic_store_explicit(&wt__placeholder_id, id, memory_order_release);
    else
        wt__fail(atomic_load(&wt__g.path), ENOMEM);
    errno = saved;
    return id;
}

/* Puts s (id) in way 0 of its pointer-cache set, the older entry to way 1; is_ro() decides
 * whether later hits are trusted. Once per pointer new to the set. Returns id. */
static __attribute__((noinline)) uint32_t icache_learn(wt__icache *c, const char *s, uint32_t id)
{
    if (id && c) {
        wt__icache_ent *set = wt__icache_set(c, s);
        set[1] = set[0];
        set[0].ptr = s;
        set[0].id = id;
        set[0].rid = is_ro(s) ? id : WT__ICACHE_WRITABLE;
    }
    return id;
}

/* A string the content table does not hold: the global table, then the pointer cache. */
static __attribute__((noinline)) uint32_t intern_new(wt__icache *c, const char *s)
{
    return icache_learn(c, s, intern_global(c, s));
}

/* Level 2 proper: the key, one verified probe, the pointer check; a string the table does
 * not hold is a tail call. Keeps the memo (rec_intern.h) up to date. */
static __attribute__((noinline)) uint32_t lookup_content(wt__icache *c, const char *s)
{
    wt__skey k;
    str_key(s, &k); /* cut at WT__STRING_MAX first, so a long string always maps to one id */
    const uint32_t id = c ? ctab_find(c, s, &k) : 0;
    if (__builtin_expect(!id, 0))
        return intern_new(c, s);
    /* the memo's words are taken only when a pointer gave one id twice in a row: a buffer
     * whose label changes every time (1,000 labels in turn) pays three stores */
    if (c->memo.ptr == s && c->memo.id == id) {
        if (!c->memo.n)
            memo_fill(&c->memo, s);
    } else {
        c->memo.ptr = s;
        c->memo.id = id;
        c->memo.n = 0;
    }
    /* a pointer already in its set is writable memory (a read-only one would have hit):
     * nothing to learn, nothing written */
    const wt__icache_ent *set = wt__icache_set(c, s);
    if (__builtin_expect(set[0].ptr != s && set[1].ptr != s, 0))
        return icache_learn(c, s, id);
    return id;
}

/* The same buffer holding the same label as last time (a label formatted again into a reused
 * buffer) is answered by comparing its words with the memo's; anything else goes to
 * lookup_content(). */
/* wt__memo_find() out of line with its no_sanitize, for the sanitized code here: inlined into
 * wt__intern_slow(), its loads would be instrumented (ASan would report the bytes of a
 * label's first and last vectors outside the label, which it reads and never uses). */
static __attribute__((noinline)) WT__NO_SANITIZE_SCAN uint32_t memo_check(const wt__memo *m,
                                                                          const char *s)
{
    return wt__memo_find(m, s);
}

uint32_t wt__intern_slow(wt__icache *c, const char *s)
{
    if (c && c->memo.ptr == s && c->memo.n) {
        const uint32_t id = memo_check(&c->memo, s);
        if (id)
            return id;
    }
    return lookup_content(c, s);
}

uint32_t wt__memo_learn(wt__icache *c, const char *s)
{
    const uint32_t id = wt__intern_slow(c, s);
    if (id && c) { /* the id of s's bytes as they are now, which the fill reads */
        c->memo.ptr = s;
        c->memo.id = id;
        memo_fill(&c->memo, s);
    }
    return id;
}

WT__NO_SANITIZE_SCAN uint32_t wt__text_take(uint64_t *dst, const char *s)
{
    return wt__text_scan(dst, s);
}

void wt__intern_lock(void) { pthread_mutex_lock(&lock); }

void wt__intern_unlock(void) { pthread_mutex_unlock(&lock); }
