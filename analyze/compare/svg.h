/* The --svg chart of compare: one block per stage, each configuration's median as a bar with
 * every round as a dot on it, and for each pair the paired difference (median and interval)
 * against zero with the verdict in words. Self-contained SVG 1.1: no scripts, fonts or
 * external references, so it opens in any browser and can be attached to a review. */
#ifndef WT_SVG_H
#define WT_SVG_H

#include <stdio.h>

#include "compare.h"

/* At most this many stages are drawn (in the text report's order); the chart says so. */
#define WT_SVG_MAX_STAGES 40

typedef struct wt_svg_opts {
    int shared_scale; /* 1: one ms scale for every stage's bars (and one for the differences) */
} wt_svg_opts;

/* Writes the chart of the finished comparison `c` to `out`; opts NULL means defaults.
 * Returns 0, WT_EIO, or WT_ENOMEM (nothing written). */
int wt_svg_write_ex(const wt_compare *c, const wt_svg_opts *opts, FILE *out);
/* The same with the defaults. */
int wt_svg_write(const wt_compare *c, FILE *out);

#endif
