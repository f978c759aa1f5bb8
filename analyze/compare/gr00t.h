/* compare --json --schema gr00t-tt-perf/1: the result layout of the seed's bench_load.py, so
 * dashboards that read its files keep working on walltime traces (docs/COMPARE.md). */
#ifndef WT_GR00T_H
#define WT_GR00T_H

#include <stdio.h>

#include "compare.h"

#define WT_GR00T_SCHEMA "gr00t-tt-perf/1"

/* The counters the seed's meta.device_mb and meta.delta read. */
#define WT_GR00T_BYTES "device_bytes"
#define WT_GR00T_TENSORS "n_tensors"
#define WT_GR00T_TENSORS_ALT "tensors" /* when there is no n_tensors (samples/model_load) */

/* The name of stage s in the seed's "<stage>/<config>" keys: the label of a label row when no
 * other shown row has that label (the seed's "from_pretrained"), else "category/label"; the
 * category of a category row; "round" for the round, "other" for "(other stages)". Written
 * into buf; returns buf. */
const char *wt_gr00t_stage_name(const wt_compare *c, size_t s, char *buf, size_t n);

/* Writes the document for the finished comparison `c`, indented when `pretty`. Returns 0 or
 * WT_EIO. */
int wt_gr00t_write_json(const wt_compare *c, FILE *out, int pretty);

#endif
