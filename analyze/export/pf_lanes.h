/* The Perfetto sink's lanes, above the span packets (pf_span.h): flat tracks for slices that
 * cannot nest where they belong. A lane takes a slice when the slice begins no earlier than
 * everything already on it ends, so a lane never holds two overlapping slices and Perfetto
 * never has to cut one.
 *
 * - pf_lanes: a thread's "overlap N" tracks, made as needed up to WT_EXPORT_MAX_LANES; past
 *   that a slice goes on the lane that ends first and is counted as misplaced.
 * - pf_lane_group: a few named lanes (the keep/skip rounds of one configuration; the aligned
 *   view's tracks of one depth), up to PF_GROUP_LANES.
 */
#ifndef WT_PF_LANES_H
#define WT_PF_LANES_H

#include <stdint.h>

#include "export.h"
#include "pf_span.h"

typedef struct pf_lane {
    uint64_t uuid;
    int64_t last_end;
} pf_lane;

typedef struct pf_lanes {
    pf_lane *l;
    uint32_t n, cap;
} pf_lanes;

typedef struct pf_lane_stats {
    int64_t lane_spans; /* slices put on a lane */
    int64_t misplaced;  /* of which overlapping another on it (past WT_EXPORT_MAX_LANES) */
} pf_lane_stats;

/* Writes `s` whole on the first lane of `ls` free at its start, making one when needed (a child
 * "overlap N" of track `parent`). Returns 0 or WT_E*. */
int wt__pf_lanes_put(pf_writer *w, pf_lanes *ls, uint64_t parent, const pf_span *s,
                     pf_lane_stats *st);
void wt__pf_lanes_release(pf_lanes *ls);

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

#endif
