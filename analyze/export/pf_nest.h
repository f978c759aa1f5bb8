/* The Perfetto sink's nesting of one thread's spans on its track, above the lanes
 * (pf_lanes.h), so that trace_processor builds the tree the recorder saw.
 *
 * trace_processor sorts all events of a file by timestamp, equal timestamps in file order,
 * before it builds slices; the recorder writes a span when it ends (children before their
 * parent). Writing spans as they arrive nests correctly except when a parent and its first
 * child begin in the same nanosecond: the child's BEGIN, written first, would be read first.
 * So each thread holds the spans of its open tree (complete spans whose root has not ended)
 * and writes the tree in begin order when its root (depth 0) arrives, every parent's BEGIN
 * before its children's, every END in place.
 *
 * The held spans are bounded (PF_HOLD_THREAD per thread, PF_HOLD_TOTAL over all threads). Past
 * the bound a thread's held spans are written early, in begin order, and the thread keeps a
 * few words per depth (pf_early) about what was written while their ancestors were still open:
 * an ancestor that arrives later and would not nest over them (it begins in the same
 * nanosecond as one of them, or does not cover them) goes to a lane instead, whole.
 *
 * A span that overlaps a span not containing it (a wt_record() span, measured by the caller;
 * damaged input) cannot nest: it goes to a lane, whole. A wt_record() span written early
 * whose parent is still open goes to a lane too: it may begin before that parent, which would
 * then have to go instead.
 */
#ifndef WT_PF_NEST_H
#define WT_PF_NEST_H

#include <stddef.h>
#include <stdint.h>

#include "pf_lanes.h"

#define PF_HOLD_THREAD 2048u     /* spans held per thread before they are written early */
#define PF_HOLD_TOTAL (1u << 17) /* spans held over all threads (88 bytes each: 11 MiB) */

/* What was written early while the ancestors were open, per depth (pf_nest.c). */
typedef struct pf_early pf_early;

/* One thread's tree. Zeroed with tree_end = INT64_MIN to start. */
typedef struct pf_nest {
    pf_span *hold;    /* the open tree's complete spans, in arrival order */
    uint32_t n_hold, cap_hold;
    uint64_t seq;     /* spans arrived */
    int64_t tree_end; /* the end of the last tree written whole */
    pf_early *early;  /* NULL until spans are written early */
} pf_nest;

/* What the threads share: the writer, scratch for writing a tree, the hold's totals, counts. */
typedef struct pf_nest_ctx {
    pf_writer *w;
    uint32_t *stack;  /* a stack of indices, */
    pf_span *order;   /* and a tree in begin order (swapped with the thread's buffer) */
    size_t cap_stack, cap_order;
    size_t held;      /* spans held over all threads */
    size_t hold_cap;  /* room for them in all threads' buffers */
    int64_t early;    /* spans written before their root arrived */
    pf_lane_stats lanes;
} pf_nest_ctx;

/* Span `s` (depth at most WT_EXPORT_MAX_DEPTH - 1) of the thread whose tree is `n`, whose track
 * is `track` and overlap lanes `lanes`: held, or written with what it completes. Returns 0 or
 * WT_E*. */
int wt__pf_nest_span(pf_nest_ctx *c, pf_nest *n, pf_lanes *lanes, uint64_t track, pf_span *s);
/* The thread's file is over (its strings are about to go): writes whatever is held, as it is,
 * and frees the tree's memory. Returns 0 or WT_E*. */
int wt__pf_nest_flush(pf_nest_ctx *c, pf_nest *n, pf_lanes *lanes, uint64_t track);
void wt__pf_nest_release(pf_nest *n);
void wt__pf_nest_ctx_release(pf_nest_ctx *c);

#endif
