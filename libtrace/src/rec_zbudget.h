/* The writer's compression budget: how much of one core zstd may take, as a token bucket.
 *
 * A frame is compressed while the bucket holds credit, else stored (wt__frame_raw(): a zstd
 * frame of raw blocks, which every reader and `zstd -dc` read as any other). Credit accrues
 * at `pct` percent of the wall time that passes (WALLTIME_COMPRESS_CPU, default 5), up to
 * WT__ZBUDGET_CAP, and each compression spends the writer's thread CPU time it took. So over
 * any long stretch zstd takes at most about pct % of a core: a load that records a few
 * hundred thousand spans a second is compressed whole (zstd's ~30 ns a span is under 1 % of
 * a core there), while a loop that records tens of millions a second, where compressing
 * every frame cost as much CPU as the recording itself (docs/perf/RECORDING.md, session 13),
 * has most of its frames stored: larger files, not a slower program. 100 compresses every
 * frame, 0 none. The bucket starts full, so a short run's file is compressed whole.
 *
 * Pure arithmetic on the caller's clock readings (tests/test_rec_zbudget.c drives it with
 * made-up ones); the writer owns the one instance, nothing here is shared. */
#ifndef WT_REC_ZBUDGET_H
#define WT_REC_ZBUDGET_H

#include <stdint.h>

/* The most credit the bucket holds (ns of CPU): a burst of about 0.7 M spans compressed at
 * once on the 2-core EPYC of docs/PERFORMANCE.md, past the whole of any test and sample. */
#define WT__ZBUDGET_CAP 5000000LL

typedef struct wt__zbudget {
    int64_t credit; /* ns of compression CPU time the writer may still spend; < 0: in debt */
    int64_t at;     /* the wall time (ns) credit was last added for */
    int pct;        /* 0..100 */
} wt__zbudget;

static inline void wt__zbudget_init(wt__zbudget *b, int pct, int64_t now)
{
    b->pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
    b->credit = WT__ZBUDGET_CAP;
    b->at = now;
}

/* Whether the frame about to be written at wall time `now` is compressed: 1 while the
 * bucket holds credit. A clock that goes back adds nothing. */
static inline int wt__zbudget_take(wt__zbudget *b, int64_t now)
{
    if (b->pct >= 100)
        return 1;
    if (b->pct <= 0)
        return 0;
    if (now > b->at) {
        /* a gap past 100 caps' worth fills the bucket at any pct: cut there, the product
         * cannot overflow */
        const uint64_t gap = (uint64_t)now - (uint64_t)b->at;
        const int64_t g = gap > (uint64_t)WT__ZBUDGET_CAP * 100 ? WT__ZBUDGET_CAP * 100 : (int64_t)gap;
        const int64_t add = g * b->pct / 100;
        if (add > 0) { /* else the gap stays to count: frequent calls lose no credit */
            b->credit = b->credit > WT__ZBUDGET_CAP - add ? WT__ZBUDGET_CAP : b->credit + add;
            b->at = now;
        }
    }
    return b->credit > 0;
}

/* A compression took cpu_ns of the writer's CPU time (a negative reading counts as none). */
static inline void wt__zbudget_spend(wt__zbudget *b, int64_t cpu_ns)
{
    if (cpu_ns > 0)
        b->credit = b->credit < INT64_MIN / 2 + cpu_ns ? INT64_MIN / 2 : b->credit - cpu_ns;
}

#endif
