/* Small building blocks of the ledger and anomaly analyses: a string map that interns its keys
 * (the only place the analyses copy strings, so memory grows with distinct strings, never with
 * events) and a bounded reservoir of durations for count/min/median/max/total.
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

/* ---- string map: key (copied, interned) -> uint32 value ---- */
typedef struct wt__strmap_slot {
    char *key; /* NULL: empty */
    uint64_t hash;
    uint32_t val;
} wt__strmap_slot;

typedef struct wt__strmap {
    wt__strmap_slot *slots;
    size_t cap, n;
} wt__strmap;

/* Looks `key` (n bytes) up; when absent, inserts it with value `new_val`. On success returns 1
 * when inserted, 0 when found; *val is the value and *stable (may be NULL) the map's own copy of
 * the key, valid until wt__strmap_release(). Returns WT_ENOMEM (nothing changed) on failure. */
int wt__strmap_put(wt__strmap *m, const char *key, size_t n, uint32_t new_val, uint32_t *val,
                   const char **stable);
/* Looks up only: 1 and *val when found, else 0. */
int wt__strmap_get(const wt__strmap *m, const char *key, size_t n, uint32_t *val);
void wt__strmap_release(wt__strmap *m);

/* ---- reservoir of durations (seconds) ---- */
typedef struct wt__reservoir {
    int64_t n;
    double min, max, total;
    double *s;      /* samples, up to WT_STATS_RESERVOIR, grown on demand */
    uint32_t len, cap;
    uint64_t rng;
    int sorted; /* s[] is sorted and med is its median (cleared by an add) */
    double med;
    double w;      /* algorithm L: the current threshold weight */
    int64_t next;  /* algorithm L: the n at which the next sample is replaced */
} wt__reservoir;

/* Adds x. Returns 0 or WT_ENOMEM (then x counts in n/min/max/total but is not sampled). */
int wt__reservoir_add_slow(wt__reservoir *r, double x);
static inline int wt__reservoir_add(wt__reservoir *r, double x)
{
    /* the common case once full: x is counted, no sample is replaced (the samples, and so a
     * cached median, stay as they are) */
    if (r->next && r->n + 1 < r->next) {
        if (x < r->min)
            r->min = x;
        if (x > r->max)
            r->max = x;
        r->total += x;
        r->n++;
        return 0;
    }
    return wt__reservoir_add_slow(r, x);
}
/* The median of the samples (mean of the two middle ones for an even count); NaN when empty.
 * Sorts the samples in place, once until the next add. */
double wt__reservoir_median(wt__reservoir *r);
void wt__reservoir_release(wt__reservoir *r);

#endif
