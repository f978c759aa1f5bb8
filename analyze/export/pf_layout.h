/* The Perfetto sink's track layout for spans, above the span packets (pf_span.h): one track per
 * thread on which the spans nest as they did in the program, so that trace_processor builds the
 * same tree (depth, parent_id, self time) that the recorder saw.
 *
 * trace_processor sorts all events of a file by timestamp, equal timestamps in file order,
 * before it builds slices; the recorder writes a span when it ends (children before their
 * parent). Writing spans as they arrive nests correctly except when a parent and its first
 * child begin in the same nanosecond: then the child's BEGIN, written first, would be read
 * first. So each thread holds the spans of its open tree (complete spans whose root has not
 * ended) and writes the tree in begin order when its root (depth 0) arrives, every parent's
 * BEGIN before its children's, every END in place.
 *
 * The held spans are bounded (PF_HOLD_THREAD per thread, PF_HOLD_TOTAL over all threads). Past
 * the bound the thread's held spans are written early, in begin order, and the thread keeps a
 * few words per depth (pf_early) about what was written while their ancestors were still open:
 * an ancestor that arrives later and would not nest over them (it begins in the same
 * nanosecond as one of them, or does not cover them) goes to an overlap lane instead, so
 * nothing written is ever cut.
 *
 * Spans that do not nest — a wt_record() span (measured by the caller) that overlaps spans not
 * containing it, or damaged input — go to "overlap N" child tracks of the thread, flat, up to
 * WT_EXPORT_MAX_LANES per thread; past that, a span goes on the lane that ends first and is
 * counted as misplaced. Threads past WT_EXPORT_MAX_THREADS share one "other threads" track per
 * process, all on lanes (counted).
 */
#ifndef WT_PF_LAYOUT_H
#define WT_PF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "pf_span.h"

#define PF_HOLD_THREAD 8192u     /* spans held per thread before they are written early */
#define PF_HOLD_TOTAL (1u << 17) /* spans held over all threads (88 bytes each: 11 MiB) */

/* The process of a file, as the layout needs it. */
typedef struct pf_proc {
    uint64_t pid, uuid;
} pf_proc;

typedef struct pf_lane {
    uint64_t uuid;
    int64_t last_end;
} pf_lane;

/* A small group of lanes (keep/skip rounds of one configuration; the aligned view's tracks of
 * one depth): the first free at a slice's start, made on demand, at most PF_GROUP_LANES. */
#define PF_GROUP_LANES 4
typedef struct pf_lane_group {
    unsigned n;
    pf_lane l[PF_GROUP_LANES];
} pf_lane_group;

/* The lane of `g` free at `start`, made when needed as a child of `parent` named `name` (with
 * " (overlap k)" past the first) at sibling rank `rank` + k; past PF_GROUP_LANES the last one,
 * and *misplaced is incremented. The caller sets the lane's last_end. Returns 0 or WT_E*. */
int wt__pf_group_pick(pf_writer *w, pf_lane_group *g, int64_t start, uint64_t parent,
                      const char *name, int rank, pf_lane **out, int64_t *misplaced);

/* What was written early while the ancestors were open, per depth j (pf_layout.c). */
typedef struct pf_early pf_early;

typedef struct pf_thread {
    uint64_t uuid;       /* the thread's track */
    uint64_t marks_uuid; /* 0 until the first mark */
    uint64_t tid;
    uint64_t seq;        /* spans arrived */
    int64_t tree_end;    /* the end of the last tree written whole */
    pf_span *hold;       /* the open tree's complete spans, in arrival order */
    uint32_t n_hold, cap_hold;
    uint32_t n_lanes, cap_lanes;
    pf_lane *lanes;
    pf_early *early;     /* NULL until spans are written early */
    int fi;
    int folded;          /* the "other threads" bucket of its process: all spans on lanes */
} pf_thread;

typedef struct pf_layout_stats {
    int64_t spans;         /* spans written */
    int64_t lane_spans;    /* of which on overlap lanes */
    int64_t misplaced;     /* of which overlapping on their lane (past WT_EXPORT_MAX_LANES) */
    int64_t early;         /* spans written before their root arrived (the hold bound) */
    int64_t depth_clamped; /* spans deeper than WT_EXPORT_MAX_DEPTH */
    int64_t spans_folded;  /* of threads past WT_EXPORT_MAX_THREADS */
} pf_layout_stats;

typedef struct pf_layout {
    pf_writer *w;
    pf_thread *th;
    size_t n_th, cap_th;
    pf_kmap map;         /* (file, tid) -> th index + 1 */
    size_t last;         /* the last thread looked up, + 1 (spans come in runs per thread) */
    pf_thread **fold;    /* per file: its "other threads" bucket, NULL until needed */
    size_t n_fold;
    size_t held;         /* spans held over all threads */
    size_t hold_cap;     /* room for them, over all threads' buffers */
    uint32_t *stack;     /* scratch for writing a tree: a stack of indices, */
    pf_span *order;      /* and the tree in begin order (swapped with the thread's buffer) */
    size_t cap_stack, cap_order;
    pf_layout_stats st;
} pf_layout;

void wt__pf_layout_init(pf_layout *L, pf_writer *w);
void wt__pf_layout_release(pf_layout *L);
/* The thread `tid` of file `fi` (its track made on first use), or its process's "other
 * threads" bucket past WT_EXPORT_MAX_THREADS. Returns 0 or WT_E*. */
int wt__pf_layout_thread(pf_layout *L, int fi, const pf_proc *pr, uint64_t tid, pf_thread **out);
/* Span event `ev` of file `fi`: held or written. Returns 0 or WT_E*. */
int wt__pf_layout_span(pf_layout *L, int fi, const pf_proc *pr, const wt_event *ev);
/* The thread got a name: its track descriptor again, named. */
int wt__pf_layout_name(pf_layout *L, int fi, const pf_proc *pr, uint64_t tid, const char *name);
/* The track of the thread's marks (made on first use: a child "marks"). */
int wt__pf_layout_marks(pf_layout *L, int fi, const pf_proc *pr, uint64_t tid, uint64_t *uuid);
/* File `fi` is over (its reader's strings are about to go): writes every span still held. */
int wt__pf_layout_file_end(pf_layout *L, int fi);

#endif
