/* The Perfetto sink's span tracks, the top of the span layers (pf_nest.h below it): one track
 * per thread, on which its spans nest (pf_nest.h) and beside which its "overlap N" lanes and
 * "marks" track hang. A thread costs ~150 bytes (its entry and map slot), so hostile input
 * naming millions of threads is bounded: threads past WT_EXPORT_MAX_THREADS share one "other
 * threads" track per process, every span on its lanes (counted).
 */
#ifndef WT_PF_LAYOUT_H
#define WT_PF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "pf_nest.h"

/* The process of a file, as the layout needs it. */
typedef struct pf_proc {
    uint64_t pid, uuid;
} pf_proc;

typedef struct pf_thread {
    uint64_t uuid;       /* the thread's track */
    uint64_t marks_uuid; /* 0 until the first mark */
    uint64_t tid;
    int fi;
    int folded;          /* the "other threads" bucket of its process: all spans on lanes */
    pf_nest nest;        /* its spans' tree */
    pf_lanes lanes;      /* its overlap lanes */
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
    pf_nest_ctx nest;
    int64_t spans, depth_clamped, spans_folded;
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
void wt__pf_layout_stats(const pf_layout *L, pf_layout_stats *out);

#endif
