/* Levels 2 and 3 of rec_intern.h: the per-thread content table (lock-free, the thread's own)
 * and the global string table, an append-only array of entries in chunks that never move
 * (read lock-free by the writer and the crash handler) and an open-addressing hash index by
 * content, guarded by a mutex that only strings new to a thread take. */
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

static inline uint64_t mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    return h ^ h >> 29;
}

/* Eight bytes per step, the last step reading the string's last 8 bytes (overlapping the
 * previous step): labels are short, and this runs on every lookup of a string in writable
 * memory. Quality is ample for tables verified by content. */
static uint32_t hash_str(const char *s, size_t n)
{
    uint64_t h = 0x243F6A8885A308D3ull ^ (uint64_t)n;
    if (n >= 8) {
        const char *last = s + n - 8;
        for (; s < last; s += 8)
            h = mix(h, load8(s));
        h = mix(h, load8(last));
    } else {
        uint64_t w = 0;
        for (size_t i = 0; i < n; i++)
            w |= (uint64_t)(uint8_t)s[i] << (8 * i);
        h = mix(h, w);
    }
    h *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

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
                             hash_str(OVERFLOW_TEXT, sizeof OVERFLOW_TEXT - 1), UINT32_MAX);
    return overflow_id;
}

/* The content table's id for (s, n, h), verified against the interned bytes; 0 if absent. */
static uint32_t ctab_find(const wt__icache *c, const char *s, size_t n, uint32_t h)
{
    if (!c->tab)
        return 0;
    const uint32_t m = c->tab_cap - 1;
    for (uint32_t j = h & m; c->tab[j].id; j = (j + 1) & m) {
        const wt__ctab_ent *e = &c->tab[j];
        if (e->hash == h && e->len == n && same_bytes(e->s, s, n))
            return e->id;
    }
    return 0;
}

/* The content table's memory comes in pages (rec_alloc.h), as the table's: a signal handler's
 * call may add a string while the code it interrupted is inside malloc(). */
static wt__ctab_ent *ctab_alloc(uint32_t cap) { return wt__pages(cap * sizeof(wt__ctab_ent)); }

static void ctab_free(wt__ctab_ent *t, uint32_t cap) { wt__pages_free(t, cap * sizeof *t); }

/* Adds (h, id, the interned copy) to the content table, doubling it at half full; past
 * CTAB_MAX slots the string is simply not added (level 3 still answers). Returns -1 when
 * memory ran out (as any allocation of the recorder, that turns recording off), else 0. */
#define CTAB_MAX (1u << 20)
static int ctab_add(wt__icache *c, uint32_t h, uint32_t id, const str_ent *copy)
{
    if ((c->tab_n + 1) * 2 > c->tab_cap) {
        const uint32_t cap = c->tab_cap ? c->tab_cap * 2 : 1024;
        if (cap > CTAB_MAX)
            return 0;
        wt__ctab_ent *t = ctab_alloc(cap);
        if (!t)
            return -1;
        for (uint32_t i = 0; i < c->tab_cap; i++) {
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
    }
    uint32_t j = h & (c->tab_cap - 1);
    while (c->tab[j].id)
        j = (j + 1) & (c->tab_cap - 1);
    c->tab[j].s = copy->s;
    c->tab[j].len = copy->len;
    c->tab[j].hash = h;
    c->tab[j].id = id;
    c->tab_n++;
    return 0;
}

uint32_t wt__intern_slow(wt__icache *c, const char *s)
{
    const int saved = errno; /* kept: this may run in a signal handler */
    size_t n = strlen(s);
    if (n > WT__STRING_MAX)
        n = WT__STRING_MAX; /* cut before hashing, so a long string always maps to one id */
    const uint32_t h = hash_str(s, n);
    uint32_t id = c ? ctab_find(c, s, n, h) : 0;
    if (!id) {
        pthread_mutex_lock(&lock);
        id = lookup_add(s, n, h);
        pthread_mutex_unlock(&lock);
        /* out of memory: recording turns off with the one message. The overflow marker
         * (whose bytes are not this string's) stays out of the content table. */
        if (!id || (c && ent_of(id)->len == n && ctab_add(c, h, id, ent_of(id)) < 0))
            wt__fail(atomic_load(&wt__g.path), ENOMEM);
    }
    if (id && c) {
        /* a pointer already in its set is writable memory (a read-only one would have hit):
         * nothing to learn; otherwise it goes in way 0, the older entry to way 1 */
        wt__icache_ent *set = wt__icache_set(c, s);
        if (set[0].ptr != s && set[1].ptr != s) {
            set[1] = set[0];
            set[0].ptr = s;
            set[0].id = id;
            set[0].ro = (uint32_t)is_ro(s);
        }
    }
    errno = saved;
    return id;
}

void wt__intern_lock(void) { pthread_mutex_lock(&lock); }

void wt__intern_unlock(void) { pthread_mutex_unlock(&lock); }
