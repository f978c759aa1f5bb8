/* Anomalies: what a person would otherwise dig out of logs, found in one streaming pass over
 * the events of one or more trace files, and returned as a list after finish.
 *
 * Use: wt_anomalies_create(), then per file wt_anomalies_file_begin(), every event with
 * wt_anomalies_event(), wt_anomalies_file_end(); then wt_anomalies_finish() with the run's
 * ledger result (the untracked, budget and baseline rules need its totals), then read
 * wt_anomalies_list(). Feed the same events to a wt_ledger_calc alongside (analysis.h does
 * both).
 *
 * Memory: per (category, label) statistics use a bounded reservoir of WT_STATS_RESERVOIR
 * duration samples per kind (all spans, HITs, MISSes; deterministic reservoir sampling, so
 * medians are exact up to that many spans and an estimate past it), plus the
 * WT_ANOMALY_KEEP_SLOWEST slowest spans and HITs per label (the only candidates of the outlier
 * and slow-HIT rules). Misses are kept one by one up to WT_ANOMALY_MAX_LIST; past it they are
 * counted (wt_anomalies_omitted()) but not listed. Nothing grows with the number of events.
 * Keys are bounded as in the ledger (spanstat.h): at most WT_MAX_CATEGORIES categories and
 * WT_MAX_LABEL_KEYS (category, label) keys; past them, spans of new ones are taken as of
 * category WT_OTHER_CATEGORIES, label WT_OTHER_LABELS (so anomalies about them carry those
 * names; the ledger counts the spans folded). A key is about 0.9 KB plus its samples: worst
 * case, every reservoir full, about 7 KB, some 140 MB for the 20481 keys at most.
 *
 * The rules, each with its option (docs/ANALYZE.md):
 *   miss         every cache MISS: category, label, detail (or the seed's default text), and
 *                its avoidable cost = its seconds minus the median HIT of the same label, else
 *                of the same category, else (no HIT) its seconds
 *   untracked    untracked > untracked_pct % of wall (10)
 *   repeat-miss  a label that MISSed at least repeat_miss times (3): a cache that never warms
 *   slow-hit     a HIT slower than the median MISS of its label
 *   outlier      a span over outlier_factor x (5) the median of its siblings (same category
 *                and label, at least 3 spans)
 *   unclosed     spans left open at exit or crash (WT_EVF_UNCLOSED)
 *   no-end       a trace without its end record; a trace ended by a signal
 *   dropped      events dropped by the recorder
 *   damaged      a damaged file (results cover what was readable)
 *   budget       --budget cat=SECONDS or cat=PERCENT% exceeded by the category's inclusive
 *                seconds (--budget-self: its self seconds, the ledger's row)
 *   baseline     a category that grew by more than baseline_pct % (20) and baseline_min_s
 *                seconds (0.5) against the --baseline trace's ledger
 */
#ifndef WT_ANALYZE_ANOMALIES_H
#define WT_ANALYZE_ANOMALIES_H

#include <stddef.h>
#include <stdint.h>

#include "ledger.h"
#include "walltime/reader.h"

#define WT_ANOMALY_KEEP_SLOWEST 8
#define WT_ANOMALY_MAX_LIST 10000

typedef enum wt_anomaly_kind {
    WT_AN_MISS = 0,
    WT_AN_UNTRACKED,
    WT_AN_REPEAT_MISS,
    WT_AN_SLOW_HIT,
    WT_AN_OUTLIER,
    WT_AN_UNCLOSED,
    WT_AN_NO_END,
    WT_AN_DROPPED,
    WT_AN_DAMAGED,
    WT_AN_BUDGET,
    WT_AN_BASELINE,
    WT_AN_KIND_COUNT
} wt_anomaly_kind;

/* "miss", "untracked", "repeat-miss", ... (the JSON `kind`). */
const char *wt_anomaly_kind_name(wt_anomaly_kind k);

/* One anomaly. Where it is about a span, pid/tid/ts/dur are the span's (ts = start, ns) so an
 * exporter can put an instant event on it; for run-level anomalies (untracked, budget,
 * baseline) pid is the first process's, tid 0 and ts the process start; for file-level ones
 * (no-end, dropped, damaged) the file's pid, the tid when known, and the last event's time.
 * Strings are owned by the list and valid until wt_anomalies_free(). */
typedef struct wt_anomaly {
    wt_anomaly_kind kind;
    uint64_t pid, tid;
    int64_t ts, dur;
    const char *category; /* NULL when not about a category */
    const char *label;
    const char *detail;
    double seconds;       /* the span's or the quantity's seconds */
    double cost;          /* avoidable seconds (miss, slow-hit, outlier, budget, baseline) */
    const char *text;     /* one line, no newline: what a person reads */
} wt_anomaly;

/* A budget is on a category's inclusive seconds (the wall-clock time its spans were open,
 * so a parent category that wraps its children is held to its whole span), or with `self` on
 * its self seconds (the ledger's row). */
typedef struct wt_budget {
    const char *category;
    double limit;   /* seconds, or percent of wall when percent */
    int percent;
    int self;       /* 0: inclusive seconds; 1: self seconds */
} wt_budget;

typedef struct wt_anomaly_opts {
    double untracked_pct;   /* default 10 */
    int64_t repeat_miss;    /* default 3 */
    double outlier_factor;  /* default 5 */
    double baseline_pct;    /* default 20 */
    double baseline_min_s;  /* default 0.5 */
    const wt_budget *budgets;
    size_t n_budgets;
} wt_anomaly_opts;

/* Fills the defaults above. */
void wt_anomaly_opts_init(wt_anomaly_opts *o);

typedef struct wt_anomalies wt_anomalies;

/* Makes an analysis; opts is copied (budgets' strings must outlive it). NULL: defaults.
 * Returns 0 or WT_ENOMEM. */
int wt_anomalies_create(const wt_anomaly_opts *opts, wt_anomalies **out);
int wt_anomalies_file_begin(wt_anomalies *a, const char *path, const wt_trace_info *info);
int wt_anomalies_event(wt_anomalies *a, const wt_event *ev);
/* The same for an event known to be a WT_EV_SPAN, for the direct span path of analysis.c: *key
 * is a word the caller keeps per (category, label) pointer pair of the current file, 0 at
 * first, which this call fills with the pair's key (index + 1) so that later spans of the pair
 * skip the look-up (wt__ledger_calc_span()'s peer word). */
int wt__anomalies_span(wt_anomalies *a, const wt_event *ev, uint32_t *key);
void wt_anomalies_damage(wt_anomalies *a, int64_t offset, const char *message);
int wt_anomalies_file_end(wt_anomalies *a, const wt_reader_stats *st);
/* Applies the end-of-run rules. `ledger` is the run's ledger result (required); `baseline` the
 * baseline trace's, or NULL. Returns 0 or WT_ENOMEM. */
int wt_anomalies_finish(wt_anomalies *a, const wt_ledger_result *ledger,
                        const wt_ledger_result *baseline);

/* The list after finish: misses first in file order, then the other rules in the order of
 * wt_anomaly_kind. Valid until free. */
const wt_anomaly *wt_anomalies_list(const wt_anomalies *a, size_t *n);
/* How many anomalies of kind k were found (listed or not). */
int64_t wt_anomalies_count(const wt_anomalies *a, wt_anomaly_kind k);
/* How many were found but not listed (past WT_ANOMALY_MAX_LIST). */
int64_t wt_anomalies_omitted(const wt_anomalies *a);

void wt_anomalies_free(wt_anomalies *a);

#endif
