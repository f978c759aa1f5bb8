/* `walltime-analyze trend`: how each category's seconds per run move over hundreds to
 * thousands of runs, and where they changed beyond their noise (changepoint.h).
 *
 * Each file is a run. Runs are grouped by metadata keys of the user's choice (`host` and
 * `command` name the header's fields when no metadata of that name exists) and taken in order
 * of their start on UTC. Per group and category: the per-run inclusive, self and flat seconds
 * (the ledger's, runsum.h); the change-point rule runs on inclusive seconds, as the ledger's
 * budgets do.
 *
 * Reading: worker threads (one per core) each take the next file and read it once: its header
 * (start time, run id, host), its spans into per-category seconds, its --group metadata; what
 * is kept of the run is that summary, in an unlinked temporary file ($TMPDIR, else /tmp), and
 * what orders it (24 bytes), in an external sort (extsort.h). When every file is read, the runs
 * come out of the sort by start and are fed to the series, each summary read back, so the rule
 * sees them in start order. Memory: groups x categories x the rule's window, the sort's
 * buffers, the changes listed; never a word per run, per span or per run's category: a path
 * is taken from the inputs (inputs.h) when a worker is free for it, and what needs it later
 * (the JSON's runs, a change's file) reads it back from the run's spill record. A temporary file that cannot be made, written or read back fails
 * the run (WT_EIO), said on stderr; a --json output is then empty (the failure came before its
 * first byte) or a whole document ending with "error" (docs/FLEET.md). */
#ifndef WT_FLEET_TREND_H
#define WT_FLEET_TREND_H

#include <stdint.h>
#include <stdio.h>

#include "changepoint.h"
#include "inputs.h"
#include "source.h"

#define WT_TREND_SCHEMA "walltime-trend/1"
#define WT_TREND_MAX_KEYS 8          /* --group keys */
#define WT_TREND_MAX_GROUPS 4096     /* groups; runs of later groups are counted, skipped */
#define WT_TREND_MAX_CHANGES 10000   /* changes listed; later ones are counted */

typedef struct wt_trend_opts {
    const char *keys[WT_TREND_MAX_KEYS];
    int n_keys;
    wt_cp_opts cp;
    int threads;   /* 0: one per online core */
    int json;      /* output: 0 text, 1 JSON */
    int sort_chunk; /* runs ordered in memory at once (0: WT_EXTSORT_CHUNK); for the tests,
                       which make the order go through many chunks */
} wt_trend_opts;

/* One change found. Strings are owned by the trend. */
typedef struct wt_trend_change {
    const char *group, *category;
    char run_id[33];
    const char *host;
    const char *file;
    int64_t start_utc_ns;
    int64_t run_index;      /* the run's place in start order among all runs, from 0 */
    int64_t run_in_group;   /* its place in its group's start order, from 1 */
    int64_t group_runs;     /* the runs of its group (known once every run is read) */
    size_t group_index;     /* for group_runs */
    double before_s, after_s, scale_s;
} wt_trend_change;

/* The chart of one change (--svg): the series' values around it, the change's run at `at`. */
#define WT_TREND_MAX_CHARTS 32      /* changes charted (the first ones) */
#define WT_TREND_CHART_AFTER 100    /* runs after a change's P runs that its chart shows */
typedef struct wt_trend_chart {
    size_t change;        /* index in the result's changes */
    double *v;            /* inclusive seconds of consecutive runs of the series */
    size_t n, at;
} wt_trend_chart;

typedef struct wt_trend_result {
    wt_source_result src;    /* files: ok, damaged (skipped), failed (skipped) */
    int64_t runs;            /* runs in the series */
    int64_t groups, categories;
    int64_t groups_dropped;  /* runs of groups past WT_TREND_MAX_GROUPS */
    int64_t runs_ranked;     /* runs carrying the metadata `rank` (one process per rank): ranks
                                share series unless `rank` is a --group key */
    const wt_trend_change *changes;
    size_t n_changes;
    int64_t changes_dropped;
    int64_t regressions;     /* changes upwards (slower) */
    const wt_trend_chart *charts;
    size_t n_charts;
} wt_trend_result;

typedef struct wt_trend wt_trend;

/* Runs the trend of the inputs `in` (inputs.h: lists, directories, paths), taken by the workers
 * one at a time as they go (ties of start keep the order given): reads every file, then writes
 * to `out` the per-run series in start order (JSON: the "runs" array; text: the runs are only
 * counted), then the summary (text table / "series" and "changes"). Damaged and unreadable
 * files, and inputs the lists or directories could not give, are named on stderr (as they are
 * met) and left out of the series (result: src.files_damaged, src.files_failed). Returns 0 and
 * *t (free it; also on failure, when set), or a negative WT_E*: then `out` has nothing, or with
 * --json a whole document, its runs up to the failure and an "error" member. `in` is spent. */
int wt_trend_run_inputs(wt_inputs *in, const wt_trend_opts *o, FILE *out, wt_trend **t);

/* wt_trend_run_inputs() over `paths[0..n)` (a directory among them stands for its traces). */
int wt_trend_run(char *const *paths, int n, const wt_trend_opts *o, FILE *out, wt_trend **t);

const wt_trend_result *wt_trend_result_get(const wt_trend *t);

/* The --svg charts of a finished trend: one small chart per change (the first
 * WT_TREND_MAX_CHARTS): the category's self seconds per run before and after, the change's run
 * marked, the levels before and after as lines. Self-contained SVG 1.1. Returns 0 or WT_EIO. */
int wt_trend_svg_write(const wt_trend_result *r, FILE *out);

/* NULL is a no-op. */
void wt_trend_free(wt_trend *t);

#endif
