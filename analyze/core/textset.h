/* A set of strings that answers "surely not in it" in a few dozen instructions: a Bloom filter
 * of two bits per string in a fixed 2^20-bit table (128 KiB), made on the first add.
 *
 * Why: past the analyses' bound on (category, label) keys (spanstat.h) the set of labels with
 * keys of their own no longer grows, and a trace that labels every span uniquely (one label
 * per request, per tensor shard) asks, span after span, whether a label it has never seen is
 * one of them, to learn that it folds. An exact look-up hashes the label byte by byte and
 * probes a map, in each analysis; this filter, holding those labels, says "absent" for all but
 * about one label in a thousand (16,384 labels in 2^20 bits), and only those go on to the
 * exact look-up. It never says "absent" for a string it holds, so results do not change. */
#ifndef WT_TEXTSET_H
#define WT_TEXTSET_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strhash.h"

#define WT_TEXTSET_BITS 20

typedef struct wt__textset {
    uint64_t *bits; /* NULL: nothing added yet, or out of memory (then "maybe" to all) */
    int broken;     /* the table could not be made: later adds do not try again */
} wt__textset;

/* The two bits of hash h: its low and its next WT_TEXTSET_BITS bits. */
#define WT__TEXTSET_MASK ((1u << WT_TEXTSET_BITS) - 1)

/* Adds s[0..n). Returns 0, or -1 when the table could not be made (the set then answers
 * "maybe" to everything: slower, never wrong). */
static inline int wt__textset_add(wt__textset *t, const char *s, size_t n)
{
    if (t->broken)
        return -1;
    if (!t->bits && !(t->bits = calloc((1u << WT_TEXTSET_BITS) / 64, sizeof *t->bits))) {
        t->broken = 1;
        return -1;
    }
    const uint64_t h = wt__str_hash(s, n);
    const uint32_t a = (uint32_t)h & WT__TEXTSET_MASK;
    const uint32_t b = (uint32_t)(h >> WT_TEXTSET_BITS) & WT__TEXTSET_MASK;
    t->bits[a >> 6] |= 1ULL << (a & 63);
    t->bits[b >> 6] |= 1ULL << (b & 63);
    return 0;
}

/* 0 when s[0..n) was surely never added; 1 when it may have been, and always when the table
 * was never made (nothing added, or out of memory): "maybe" is the answer that is never
 * wrong. */
static inline int wt__textset_maybe(const wt__textset *t, const char *s, size_t n)
{
    if (!t->bits)
        return 1;
    const uint64_t h = wt__str_hash(s, n);
    const uint32_t a = (uint32_t)h & WT__TEXTSET_MASK;
    const uint32_t b = (uint32_t)(h >> WT_TEXTSET_BITS) & WT__TEXTSET_MASK;
    return (t->bits[a >> 6] >> (a & 63) & 1) && (t->bits[b >> 6] >> (b & 63) & 1);
}

static inline void wt__textset_release(wt__textset *t)
{
    free(t->bits);
    t->bits = NULL;
    t->broken = 0;
}

#endif
