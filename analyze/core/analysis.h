/* One streaming pass of the reconciled ledger and the anomaly rules over a set of trace files:
 * the sequence that `ledger`, `anomalies` (and `export`, for its totals and anomaly events)
 * share. A --baseline trace is read first, into a ledger of its own; then the files go through
 * wt_source_run() once into a ledger calc and an anomaly analysis side by side (and, when given,
 * into the caller's own callbacks on the same pass); then both are finished.
 *
 * Memory is the two analyses' (ledger.h, anomalies.h): bounded by distinct strings, threads,
 * nesting depth and open spans, never by the number of events. */
#ifndef WT_ANALYZE_ANALYSIS_H
#define WT_ANALYZE_ANALYSIS_H

#include "anomalies.h"
#include "source.h"
#include "ledger.h"

/* Drives a ledger calc and an anomaly analysis (either may be NULL) from one wt_source_run():
 * pass wt_analysis_pair_ops() with ctx = a wt_analysis_pair. `also` (may be NULL, as may any of
 * its callbacks) gets every callback too, with ctx `also_ctx`, after the two analyses: a
 * command that streams the files for its own output (export) analyses them on the same pass.
 * A batch of spans reaches it as its records' events, each batch first to its `upcoming`
 * (source.h), after the analyses took it.
 * The first non-zero return of any of them stops the run. `ids` is the pair's own (NULL at
 * first): a table keyed by the current file's string ids (analysis.c) through which batches of
 * spans reach the analyses, made on the first batch and freed at each file's end; a run that
 * stopped inside a file leaves it, for wt_analysis_pair_release(). */
typedef struct wt__pair_ids wt__pair_ids;
typedef struct wt_analysis_pair {
    wt_ledger_calc *lc;
    wt_anomalies *an;
    const wt_source_ops *also;
    void *also_ctx;
    wt__pair_ids *ids;
} wt_analysis_pair;
const wt_source_ops *wt_analysis_pair_ops(void);
/* Frees what the pair's run left in it (ids); the analyses are the caller's. NULL is a no-op. */
void wt_analysis_pair_release(wt_analysis_pair *p);

typedef struct wt_analysis_opts {
    const wt_ledger_opts *ledger;     /* NULL: defaults */
    const wt_anomaly_opts *anomalies; /* NULL: defaults (strings must outlive the analysis) */
    const char *baseline;             /* a --baseline trace, or NULL */
    const wt_source_ops *also;        /* more callbacks on the same pass, or NULL */
    void *also_ctx;
} wt_analysis_opts;

/* The anomaly side of a run as a command sets it: the rules' options with room for the
 * budgets, the --baseline trace and the CI gates. Parsed from a command line by
 * commands/args.c; taken by `ledger`, `anomalies` and export (export.h). opts.budgets points
 * into budgets[], so the struct is not to be copied. */
#define WT_MAX_BUDGETS 64
#define WT_MAX_GATES 16
typedef struct wt_anomaly_config {
    wt_anomaly_opts opts;
    wt_budget budgets[WT_MAX_BUDGETS]; /* their categories malloc'ed, freed by release */
    const char *baseline;              /* a --baseline trace, or NULL */
    wt_gate gates[WT_MAX_GATES];       /* --fail-on: any that fires fails the run */
    char gate_text[WT_MAX_GATES][48];  /* each gate as written, for messages */
    size_t n_gates;
} wt_anomaly_config;

/* Defaults (wt_anomaly_opts_init()), no budget, baseline or gate. */
void wt_anomaly_config_init(wt_anomaly_config *c);
/* Frees the budgets' categories; c is then as after init. NULL is a no-op. */
void wt_anomaly_config_release(wt_anomaly_config *c);
/* The index of the first of c's gates that fires on the finished `an`, with its measure in
 * *value; -1 when none does. */
int wt_anomaly_config_gate(const wt_anomaly_config *c, const wt_anomalies *an, double *value);
/* The exit status of c's gates on the finished an: WT_EXIT_GATE after saying on stderr which
 * gate matched and its measure ("--fail-on: 'miss>0' matched: 600 found"), else 0. */
int wt_anomaly_config_status(const wt_anomaly_config *c, const wt_anomalies *an);

/* The results of wt_analysis_run(), owned by the caller: wt_analysis_release(). */
typedef struct wt_analysis {
    wt_ledger_calc *lc;     /* the run's ledger, finished */
    wt_anomalies *an;       /* its anomalies, finished against lc (and base) */
    wt_ledger_calc *base;   /* the baseline's ledger, or NULL */
    wt_source_result res;   /* what happened to the files (wt_source_exit_status()) */
} wt_analysis;

/* Runs the analysis of `paths[0..n)` into *a (zeroed first). Returns 0 when at least one file
 * could be read and both analyses are finished. Else, with what was made still in *a (release
 * it either way):
 *   WT_EOPEN   the baseline, or every file, could not be read (already said on stderr: per
 *              file by wt_source_run(), "baseline 'PATH' could not be read" here)
 *   WT_ENOMEM  out of memory (not reported: the caller says it in its own words)
 *   other      the first non-zero return of an `also` callback (wt_source_run()) */
int wt_analysis_run(char *const *paths, int n, const wt_analysis_opts *o, wt_analysis *a);

/* The finished ledger of the --baseline trace `path` alone: 0 and *out (free it), or WT_EOPEN
 * after saying "baseline 'PATH' could not be read" on stderr (*out untouched). */
int wt_analysis_baseline(const char *path, wt_ledger_calc **out);

/* Frees what wt_analysis_run() made; a zeroed or released *a is a no-op. */
void wt_analysis_release(wt_analysis *a);

#endif
