/* Small building blocks of the ledger and anomaly analyses: a string map that interns its keys
 * (the only place the analyses copy strings, so memory grows with distinct strings, never with
 * events), a pointer-pair cache in front of it for the per-span path, a growing array, and a
 * bounded reservoir of durations for count/min/median/max/total.
 *
 * The reservoir keeps at most WT_STATS_RESERVOIR samples. Past that it keeps a uniform random
 * sample (reservoir sampling, Li's algorithm L, which draws random numbers only when a sample
 * is replaced, with a fixed-seed xorshift generator so results are reproducible): the median is exact up to WT_STATS_RESERVOIR values and an estimate beyond;
 * n, min, max and total are always exact. */
#ifndef WT_SPANSTAT_H
#define WT_SPANSTAT_H

#include <stddef.h>
#include <stdint.h>

#define WT_STATS_RESERVOIR 255

/* A branch the per-span paths rarely take (growth, errors, first sight of a key). */
#define WT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* a + b, clamped to [INT64_MIN, INT64_MAX] instead of overflowing (undefined behaviour). The
 * analyses' int64 sums (span counts, bytes, nanoseconds, dropped counts) take values from the
 * file: sane traces stay far from the limits and get the exact sum, a hostile one (two counts
 * at INT64_MAX, durations near the 2^62 ns limit) gets the clamped one. */
static inline int64_t wt__sat_add_i64(int64_t a, int64_t b)
{
    int64_t r;
    if (WT_UNLIKELY(__builtin_add_overflow(a, b, &r)))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* ---- bounds on distinct keys (ledger and anomalies alike) ----
 * Each distinct (category, label) pair costs the analyses about 2 KB (reservoirs, slowest
 * spans, label tables), so a hostile trace of millions of pairs would need gigabytes. Per run,
 * at most WT_MAX_CATEGORIES categories and WT_MAX_LABEL_KEYS (category, label) pairs get keys
 * of their own, first come first served (with a reserve for small categories, below); past them, a span of a new category counts in
 * WT_OTHER_CATEGORIES, and a span of a new label in WT_OTHER_LABELS of its category (one more
 * key per category at most). The ledger counts such spans (wt_ledger_result.folded_*). Both
 * analyses see the same events in the same order, so they fold the same spans. */
#define WT_MAX_CATEGORIES 4096
#define WT_MAX_LABEL_KEYS 16384
#define WT_OTHER_CATEGORIES "(other categories)"
#define WT_OTHER_LABELS "(other labels)"
/* Of those keys the last WT_LABEL_KEY_RESERVE are for small categories: past
 * WT_MAX_LABEL_KEYS - WT_LABEL_KEY_RESERVE keys, a new label gets a key only in a category of
 * fewer than WT_SMALL_CATEGORY_KEYS keys. A load with one label per tensor fills the keys with
 * its tensors (46,848 of a model of 256 experts in 61 layers), and the stages recorded after
 * it (`generate decode`, `warmup compile`) then kept no names of their own. */
#define WT_LABEL_KEY_RESERVE 256
#define WT_SMALL_CATEGORY_KEYS 32
/* Whether a new label of a category with cat_keys keys folds, with n_keys keys in the run (the
 * bytes' bound aside): the one rule of the ledger and the anomalies. */
static inline int wt__label_keys_full(size_t n_keys, size_t cat_keys)
{
    return n_keys >= WT_MAX_LABEL_KEYS ||
           (n_keys >= WT_MAX_LABEL_KEYS - WT_LABEL_KEY_RESERVE && cat_keys >= WT_SMALL_CATEGORY_KEYS);
}
/* The labels of those pairs may hold at most this many bytes in all (16384 labels of the
 * format's 4096 bytes would be 64 MiB per copy): past it a new pair folds likewise. */
#define WT_MAX_LABEL_KEY_BYTES (8u << 20)
/* Threads (pid, tid) with state of their own, per run, and the bytes of their names: past
 * them a new thread's events count in one WT_OTHER_THREADS thread of its process (tid
 * WT_OTHER_TID) and a new name is not kept. A million threads of one span each once took
 * half a gigabyte (issue 10, item 10). */
#define WT_MAX_THREADS 16384
#define WT_MAX_NAME_BYTES (8u << 20)
#define WT_OTHER_THREADS "(other threads)"
#define WT_OTHER_TID UINT64_MAX

/* ---- string map: key (copied, interned) -> uint32 value ---- */
typedef struct wt__strmap_slot {
    char *key; /* NULL: empty */
    uint64_t hash;
    uint32_t val;
} wt__strmap_slot;

typedef struct wt__strmap {
    wt__strmap_slot *slots;
    size_t cap, n;
    size_t bytes; /* of the keys, their NULs included: for the callers' byte bounds */
} wt__strmap;

/* Looks `key` (n bytes) up; when absent, inserts it with value `new_val`. On success returns 1
 * when inserted, 0 when found; *val is the value and *stable (may be NULL) the map's own copy of
 * the key, valid until wt__strmap_release(). Returns WT_ENOMEM (nothing changed) on failure. */
int wt__strmap_put(wt__strmap *m, const char *key, size_t n, uint32_t new_val, uint32_t *val,
                   const char **stable);
/* Looks up only: 1 and *val when found, else 0. */
int wt__strmap_get(const wt__strmap *m, const char *key, size_t n, uint32_t *val);
void wt__strmap_release(wt__strmap *m);

/* ---- pointer-pair cache ----
 * The reader hands out one stable pointer per distinct string for the life of a file, so a
 * cache keyed by the (category, label) pointers finds a span's accumulators without hashing
 * its strings. Such a cache must be cleared (memset 0) at each file: a later file's strings
 * may reuse the addresses of an earlier one's. The same cache keyed by (pid, tid) finds a
 * thread. It is 2-way set associative with least-recently-used replacement: direct-mapped,
 * 4096 slots missed about 7% of the spans of 1,000 labels (two labels whose pointers hash to
 * one slot evict each other on every alternation; each miss builds a key and hashes it in
 * both analyses, some 130 instructions); with two ways a set must hold three live pairs to
 * miss. 8192 slots (256 KiB) in 4096 sets. */
#define WT_PAIR_CACHE_BITS 13
#define WT_PAIR_CACHE (1u << WT_PAIR_CACHE_BITS)

typedef struct wt__pair_slot {
    uint64_t a, b; /* the key: two pointers (as uintptr_t) or two integers */
    uint32_t x, y; /* the caller's values (indices) */
    int valid;
    uint32_t z;    /* a third value: 0 when the slot is (re)filled, for a second user's index */
} wt__pair_slot;

/* The slot for (a, b) in a cache of 1 << bits slots (2 <= bits <= 16), always the first of
 * its set of two: a hit when slot->valid and its a, b match; else the caller fills it (the
 * slot then holds the set's least recently used pair, which the fill evicts). A hit in the
 * second way swaps the two, so the first way is always the most recently used; a slot moves
 * whole (its z with it), and a pointer to it is good until the next call on the cache. Call
 * it once per look-up: a second call after a miss would swap the set back. */
static inline wt__pair_slot *wt__pair_cache_slot(wt__pair_slot *cache, unsigned bits,
                                                 uint64_t a, uint64_t b)
{
    /* arena strings sit a few bytes apart: multiply so every input bit reaches the top bits */
    uint64_t h = (a * 0x9E3779B97F4A7C15ULL) ^ b;
    h *= 0xC2B2AE3D27D4EB4FULL;
    wt__pair_slot *set = &cache[(h >> (64 - bits)) & ~(uint64_t)1];
    if (WT_UNLIKELY(!(set[0].a == a && set[0].b == b && set[0].valid))) {
        /* the second way is a hit, or the least recently used: either way it goes first */
        const wt__pair_slot t = set[1];
        set[1] = set[0];
        set[0] = t;
    }
    return set;
}

/* ---- growing array ---- */

/* Room for `need` elements of `elem` bytes in p, whose capacity is *cap (doubled, from 8); the
 * new part is zeroed. Returns the array (maybe moved) with *cap updated, or NULL when out of
 * memory (p and *cap unchanged). */
void *wt__grow_array(void *p, size_t *cap, size_t need, size_t elem);

/* ---- a table indexed by the reader's string ids ----
 * For analyses that take span batches (source.h): string id -> what the analysis made of it
 * in the current file, entries of `elem` bytes, zero until set, grown on demand below a
 * bound. Emptied at each file and when the reader's string epoch changes (an id then names
 * another string). Its memory goes with free(t->v). */
typedef struct wt__idtab {
    void *v;
    size_t cap, used; /* entries [0, used) may be set; the rest are zero */
    uint64_t epoch;
} wt__idtab;

/* Every entry zero again, the memory kept. */
void wt__idtab_forget(wt__idtab *t, size_t elem);

/* The entry of `id`, the table grown for it; NULL at or past `max` or out of memory. */
void *wt__idtab_room(wt__idtab *t, uint32_t id, size_t elem, uint32_t max);

/* Forgets every entry when `epoch` (wt_span_batch.string_epoch) is not the table's. */
static inline void wt__idtab_epoch(wt__idtab *t, size_t elem, uint64_t epoch)
{
    if (__builtin_expect(epoch != t->epoch, 0)) {
        wt__idtab_forget(t, elem);
        t->epoch = epoch;
    }
}

/* ---- reservoir of durations (nanoseconds in, seconds out) ----
 * Samples are stored as uint32 nanoseconds while every one taken fits (0 to 4.29 s): half the
 * memory of doubles, and over 16,384 labels the samples were most of the analyses' heap. The
 * first sample that does not fit (a longer or negative duration) widens the reservoir: its
 * samples become the doubles (ns * 1e-9) they stand for, as every one is from then on. A
 * sample reads as (double)ns * 1e-9 either way, and ns -> ns * 1e-9 is strictly increasing
 * below 2^32, so the order, the median and every output are those of double samples. */
typedef struct wt__reservoir {
    /* first, side by side in 32 bytes: all that the common add and a batch's room check
     * (wt__reservoir_has_room()) read, and where the next sample goes */
    int64_t n;
    int64_t next; /* algorithm L: the n at which the next sample is replaced */
    void *s;      /* samples, up to WT_STATS_RESERVOIR, grown on demand: uint32_t ns, or
                   * double seconds once wide */
    uint32_t len, cap;
    double min, max, total;
    uint32_t step;  /* algorithm L: the schedule's entry of the next replacement (below) */
    uint8_t sorted; /* s[] is sorted and med is its median (cleared by an add) */
    uint8_t wide;   /* s[] holds doubles; a zeroed reservoir with wide set stores doubles from
                     * its first sample (the tests' reference for the narrow storage) */
    double med;
} wt__reservoir;

/* ---- algorithm L's schedule, one for every reservoir ----
 * Algorithm L's draws (the threshold weight, the gaps between replacements, the slot each
 * replaces) depend on its generator alone, never on the samples, and every reservoir starts
 * the generator from one fixed seed: so the k-th replacement of any reservoir replaces the
 * same slot and is followed by the same gap. spanstat.c computes that sequence once per
 * process, with the very arithmetic a reservoir of its own would do (the same samples, bit for
 * bit), and a replacement reads it: where each did four libm calls and two divisions on its
 * critical path (some 70 ns, a fifth of `ledger` over 1,000 labels in random order).
 * Entry 0 holds the gap from the add that fills the reservoir to its first replacement; entry
 * k >= 1 the slot replaced k-th and the gap to the next. Its last entry's gap is "never":
 * gaps grow as the weight shrinks, and after 10,543 replacements the next gap passes 2^62
 * adds (past int64's range soon after). */
#define WT_RESERVOIR_STEPS 16384
extern const uint8_t *const wt__reservoir_slot; /* [WT_RESERVOIR_STEPS] */
/* The schedule's entries up to its "never" (made on the first call, as by the first reservoir
 * that fills): for the tests. */
uint32_t wt__reservoir_schedule_len(void);

/* Adds ns. Returns 0 or WT_ENOMEM (then ns counts in n/min/max/total but is not sampled). */
int wt__reservoir_add_slow(wt__reservoir *r, int64_t ns);
static inline int wt__reservoir_add_ns(wt__reservoir *r, int64_t ns)
{
    /* the common case once full: ns is counted, no sample is replaced (the samples, and so a
     * cached median, stay as they are) */
    if (r->n + 1 < r->next) { /* next is 0 until the reservoir is full */
        const double x = (double)ns * 1e-9;
        if (x < r->min)
            r->min = x;
        if (x > r->max)
            r->max = x;
        r->total += x;
        r->n++;
        return 0;
    }
    return wt__reservoir_add_slow(r, ns);
}
/* Adds ns when only n and the median will be read: the same samples as wt__reservoir_add_ns()
 * (so the same median), but min, max and total are only those of the sampled values; the
 * common add has no floating point. */
static inline int wt__reservoir_sample_ns(wt__reservoir *r, int64_t ns)
{
    if (r->n + 1 < r->next) {
        r->n++;
        return 0;
    }
    return wt__reservoir_add_slow(r, ns);
}
/* Whether ns is a sample a narrow reservoir keeps as it is (0 to 4.29 s). */
static inline int wt__reservoir_narrow(int64_t ns) { return (uint64_t)ns <= UINT32_MAX; }
/* Whether r takes a duration that wt__reservoir_narrow() accepts without allocating (its
 * samples' array does not grow, and such a sample never widens it): then the add cannot fail.
 * A longer one may widen it, which allocates. */
static inline int wt__reservoir_has_room(const wt__reservoir *r)
{
    return r->len < r->cap || r->len >= WT_STATS_RESERVOIR;
}
/* Where the next add writes a sample, for a prefetch: the end of the samples while they fill
 * (with room), the sample algorithm L replaces when the next add replaces one, else NULL. */
static inline const void *wt__reservoir_next_slot(const wt__reservoir *r)
{
    const size_t size = r->wide ? sizeof(double) : sizeof(uint32_t);
    if (r->len < r->cap)
        return (const char *)r->s + r->len * size;
    if (r->next != 0 && r->n + 1 >= r->next) /* then the schedule is made (spanstat.c) */
        return (const char *)r->s + wt__reservoir_slot[r->step] * size;
    return NULL;
}
/* The sample at i (< len) in seconds. */
static inline double wt__reservoir_at(const wt__reservoir *r, uint32_t i)
{
    return r->wide ? ((const double *)r->s)[i] : (double)((const uint32_t *)r->s)[i] * 1e-9;
}
/* The median of the samples in seconds (mean of the two middle ones for an even count); NaN
 * when empty. Sorts the samples in place, once until the next add. */
double wt__reservoir_median(wt__reservoir *r);
/* The median in seconds of the union of the streams fed to rs[0..n) (NULL entries and empty
 * reservoirs skipped), each sample of a reservoir standing for r->n / r->len durations of its
 * stream: a stratified estimate, with the classic definition (the middle value, or the mean of
 * the two middle ones) as its unit-weight case. So it is exact, and equal to the median of one
 * reservoir fed every duration, when each reservoir holds its whole stream (r->len == r->n);
 * with one reservoir it is wt__reservoir_median(). The analyses keep a reservoir per class of
 * span (HIT, MISS, neither) and this stands for a reservoir of all of them, without its
 * memory or its samples' cost. NaN when there is no sample. Sorts the reservoirs in place. */
double wt__reservoir_median_union(wt__reservoir *const *rs, size_t n);
void wt__reservoir_release(wt__reservoir *r);

#endif
