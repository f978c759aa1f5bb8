/* The Perfetto sink's rounds aligned at t=0 (`export --aligned-rounds`), above the lanes
 * (pf_lanes.h, whose lane groups it uses): besides each keep/skip round on its configuration's
 * track at its real time, every round again on a track of its own under the top-level track
 * "walltime: rounds at t=0", moved so that all rounds start at one common origin (the earliest
 * round's start), with its spans moved by the same amount. Stacked one under the other, the
 * rounds of both configurations compare by eye.
 *
 * This shows every span inside a round twice, so SQL over the file counts them twice: it is an
 * option, never the default.
 *
 * A round's spans arrive before the round (a round is written when it ends) and a round can
 * hold millions of spans, so nothing is held back: pass 1 only notes the rounds (at most
 * WT_EXPORT_MAX_ALIGNED, a few words each); the driver then reads the files a second time and
 * each span inside a noted round is written at once, moved, on a track per (round, thread,
 * depth): spans of one depth of one thread never overlap, so they arrive in start order.
 * Memory: the noted rounds and a few words per aligned track, at most
 * WT_EXPORT_MAX_ALIGNED_TRACKS groups of them.
 */
#ifndef WT_PF_ALIGNED_H
#define WT_PF_ALIGNED_H

#include "pf_lanes.h"

typedef struct pf_al_round {
    int fi;
    uint32_t cfg;       /* the configuration's event-name iid */
    int64_t number, ts, dur;
    uint64_t tid;       /* the thread that recorded the round */
    uint64_t uuid;      /* its track under "walltime: rounds at t=0" */
    unsigned n_threads; /* threads seen in it so far (their tracks' order) */
} pf_al_round;

typedef struct pf_al_group {
    pf_lane_group g;
    unsigned thread_rank; /* 0: the round's own thread */
} pf_al_group;

typedef struct pf_aligned {
    pf_writer *w;
    pf_al_round *r; /* sorted by (file, start) once pass 1 is over */
    size_t n, cap;
    size_t *file_first; /* [n_files + 1]: rounds of file f are r[file_first[f] ..) */
    size_t n_files;
    int64_t origin;     /* the common start: the earliest round's */
    pf_kmap group_map;  /* (round << 8 | depth, tid) -> groups index + 1 */
    pf_al_group *groups;
    size_t n_groups, groups_cap;
    int64_t rounds, spans, dropped, misplaced; /* for the report */
} pf_aligned;

void wt__pf_aligned_init(pf_aligned *al, pf_writer *w);
void wt__pf_aligned_release(pf_aligned *al);
/* Pass 1: notes round `ev` of file `fi` (configuration iid `cfg`). Returns 0 or WT_ENOMEM. */
int wt__pf_aligned_note(pf_aligned *al, int fi, const wt_event *ev, uint32_t cfg);
/* After pass 1: writes the aligned tracks and round slices (`pids[f]` names file f's process
 * when there are several). Returns 1 when the spans are wanted (a second pass), 0 when there
 * are no rounds, or WT_E*. */
int wt__pf_aligned_begin(pf_aligned *al, const uint64_t *pids, size_t n_files);
/* Pass 2: a new file (a new reader); then its events: a span inside a noted round is written
 * on the aligned view, everything else ignored. Return 0 or WT_E*. */
int wt__pf_aligned_file(pf_aligned *al, int fi);
int wt__pf_aligned_event(pf_aligned *al, int fi, const wt_event *ev);

#endif
