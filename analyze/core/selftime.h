/* The ledger's self-time rule for one span, in one place: the ledger's per-span paths use it,
 * and so do the passes that need a span's self time without the whole ledger (the table
 * export, trend). docs/ANALYZE.md: spans arrive children first (a span is written when it
 * ends), so per thread an array child_sum[depth] is enough: a span at depth d has self = dur -
 * child_sum[d + 1] (clamped at 0); then child_sum[d + 1] = 0 and child_sum[d] += dur (0 again
 * at d = 0: a tree is done). Depths past WT_SELF_MAX_DEPTH - 1 count as that deep (a hostile
 * depth cannot allocate). */
#ifndef WT_SELFTIME_H
#define WT_SELFTIME_H

#include <stdint.h>

#include "spanstat.h"

#define WT_SELF_MAX_DEPTH 256

/* The depth a span of depth `depth` is counted at. */
static inline uint32_t wt__self_depth(uint32_t depth)
{
    return depth < WT_SELF_MAX_DEPTH ? depth : WT_SELF_MAX_DEPTH - 1;
}

/* The self time of a span of duration `dur` (>= 0) at counted depth d; cs has d + 2 entries. */
static inline int64_t wt__self_time(int64_t *cs, uint32_t d, int64_t dur)
{
    int64_t self = dur - cs[d + 1];
    if (self < 0)
        self = 0;
    cs[d + 1] = 0;
    cs[d] = d == 0 ? 0 : wt__sat_add_i64(cs[d], dur);
    return self;
}

#endif
