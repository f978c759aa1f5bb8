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
 * duration samples per cache state (HITs, MISSes, the others; deterministic reservoir
 * sampling, so medians are exact up to that many spans and an estimate past it; the median
 * of all of a label's spans is that of the three's union, weighted by what each sample
 * stands for: exact while each holds under that many), plus the
 * WT_ANOMALY_KEEP_SLOWEST slowest spans and HITs per label (the only candidates of the outlier
 * and slow-HIT rules). Misses are kept one by one up to WT_ANOMALY_MAX_LIST; past it they are
 * counted (wt_anomalies_omitted()) but not listed; so are the findings of each rule that can
 * fire per span or per label past that many (the run's, a file's, a budget's and a category's
 * are always listed): at most some 6 x 10000 listed findings of about 300 bytes. Nothing grows
 * with the number of events.
 * Keys are bounded as in the ledger (spanstat.h): at most WT_MAX_CATEGORIES categories and
 * WT_MAX_LABEL_KEYS (category, label) keys; past them, spans of new ones are taken as of
 * category WT_OTHER_CATEGORIES, label WT_OTHER_LABELS (the ledger counts the spans folded).
 * A MISS or open span of a fold key still names the span's own label, a repeat there is a
 * MISS after an earlier listed MISS of that label, and slow-hit and outlier skip fold keys
 * (anomalies_fold.c). A key is about 0.9 KB plus its samples: worst
 * case, every reservoir full, about 7 KB, some 140 MB for the 20481 keys at most.
 *
 * The rules, each with its option (docs/ANALYZE.md):
 *   miss         every cache MISS: category, label, detail (or the seed's default text), and
 *                its avoidable cost = its seconds minus the median HIT of the same label, else
 *                of the same category, else (no HIT) its seconds
 *   untracked    untracked > untracked_pct % of wall (10)
 *   repeat-miss  a label that MISSed where a warm cache was expected, repeat_miss times or
 *                more (1): in a later round of its process than its first load (HIT or MISS),
 *                or in a later run of the same program (a file whose process started after
 *                the process of the label's first load ended). Several MISSes of one label in
 *                one round are not repeats (different tensors may share a label).
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
 * slow-hit and outlier fire only when their cost is at least min_cost_s (default max(1% of
 * wall, 10 ms)); those below are counted (wt_anomalies_below_min_cost()).
 *
 * After finish the anomalies are also grouped by rule and category (wt_anomalies_groups()),
 * each group with its count and total cost and its members most costly first; in a run of
 * several processes every line about a process names it: "rank N (pid P)" when the trace has
 * the run metadata "rank", else "pid P".
 */
#ifndef WT_ANALYZE_ANOMALIES_H
#define WT_ANALYZE_ANOMALIES_H

#include <stddef.h>
#include <stdint.h>

#include "ledger.h"
#include "source.h"
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
    const char *text;     /* one line, no newline: what a person reads, "TITLE[ in PROCESS]: ..." */
    const char *title;    /* the rule's word in text: "CACHE MISS", "SLOW HIT", "CRASHED", ... */
    const char *process;  /* "rank N (pid P)" or "pid P" in a run of several processes, else NULL */
    size_t group;         /* the index of its group in wt_anomalies_groups() */
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
    int64_t repeat_miss;    /* default 1: MISSes where a warm cache was expected */
    double outlier_factor;  /* default 5 */
    double baseline_pct;    /* default 20 */
    double baseline_min_s;  /* default 0.5 */
    double min_cost_s;      /* default -1: max(1% of wall, 10 ms) */
    const wt_budget *budgets;
    size_t n_budgets;
} wt_anomaly_opts;

/* Fills the defaults above. */
void wt_anomaly_opts_init(wt_anomaly_opts *o);

/* The default floor of min_cost_s: 10 ms (below 1% of wall it is the floor). */
#define WT_ANOMALY_MIN_COST_FLOOR_S 0.010

typedef struct wt_anomalies wt_anomalies;

/* Makes an analysis; opts is copied (budgets' strings must outlive it). NULL: defaults.
 * Returns 0 or WT_ENOMEM. */
int wt_anomalies_create(const wt_anomaly_opts *opts, wt_anomalies **out);
int wt_anomalies_file_begin(wt_anomalies *a, const char *path, const wt_trace_info *info);
int wt_anomalies_event(wt_anomalies *a, const wt_event *ev);
/* The same for an event known to be a WT_EV_SPAN, for the direct span path of analysis.c: *key
 * is a word the caller keeps per (category, label) of the current file (the z of the ledger's
 * slot from wt__ledger_calc_span(), or analysis.c's id table), 0 at first, which this call
 * fills with the pair's key (index + 1) so that later spans of the pair skip the look-up. */
int wt__anomalies_span(wt_anomalies *a, const wt_event *ev, uint32_t *key);
/* The batch path of analysis.c: spans s[0..n) of batch b in order, s[k] of a (category,
 * label) whose key is keys[k] (what wt__anomalies_span() stored in *key for an earlier span of
 * the pair in this file), while each is the common case: the same work as wt__anomalies_span()
 * on the span as an event. Returns how many were done: s[that] is not the common case or its
 * key is 0 (nothing changed for it: the caller passes it to wt__anomalies_span()). */
size_t wt__anomalies_run(wt_anomalies *a, const wt_span_batch *b, const wt_span_rec *s,
                         const uint32_t *keys, size_t n);
/* The same as wt_anomalies_event() for a WT_EV_COUNTER or WT_EV_MARK event at `ts` (it only
 * moves the file's last time, a maximum: for samples, the latest of them, in any order with
 * spans), for the direct path of analysis.c. */
void wt__anomalies_instant(wt_anomalies *a, int64_t ts);
void wt_anomalies_damage(wt_anomalies *a, int64_t offset, const char *message);
int wt_anomalies_file_end(wt_anomalies *a, const wt_reader_stats *st);
/* Applies the end-of-run rules. `ledger` is the run's ledger result (required); `baseline` the
 * baseline trace's, or NULL. Returns 0 or WT_ENOMEM. */
int wt_anomalies_finish(wt_anomalies *a, const wt_ledger_result *ledger,
                        const wt_ledger_result *baseline);

/* The list after finish: misses first in file order, then the other rules in the order of
 * wt_anomaly_kind. Valid until free. */
const wt_anomaly *wt_anomalies_list(const wt_anomalies *a, size_t *n);
/* How many anomalies of kind k were found (listed or not; not those below min_cost_s). */
int64_t wt_anomalies_count(const wt_anomalies *a, wt_anomaly_kind k);
/* How many were found but not listed (past WT_ANOMALY_MAX_LIST). */
int64_t wt_anomalies_omitted(const wt_anomalies *a);
/* How many of kind k did not fire because their cost was below the run's min cost, and that
 * min cost in seconds (opts.min_cost_s, or its default worked out from the wall). */
int64_t wt_anomalies_below_min_cost(const wt_anomalies *a, wt_anomaly_kind k);
double wt_anomalies_min_cost(const wt_anomalies *a);
/* The avoidable seconds of all MISSes (a lower bound when some were past the list: their cost
 * is estimated from their total, *lower_bound is then 1; lower_bound may be NULL). */
double wt_anomalies_avoidable(const wt_anomalies *a, int *lower_bound);

/* A group: the anomalies of one rule (kind, and title) and one category (NULL for those not
 * about a category). Groups come by kind, then by cost, most costly first; members likewise. */
typedef struct wt_anomaly_group {
    wt_anomaly_kind kind;
    const char *title;    /* the rule's word: "CACHE MISS", ... (no-end: "NO END RECORD" and
                             "CRASHED" are groups of their own) */
    const char *category; /* NULL: not about a category */
    int64_t count;        /* found, listed or not */
    double cost;          /* their costs summed */
    int cost_lower_bound; /* some were past the list: cost is a lower bound */
    int ranked; /* its first WT_ANOMALY_TOP items are its most costly members, listed or not
                   (every member listed, or CACHE MISS: anomalies_late.c); else they are of
                   the listed ones */
    const wt_anomaly *const *items; /* the listed members, most costly first */
    size_t n_items;
} wt_anomaly_group;
/* The groups after finish; valid until free. */
const wt_anomaly_group *wt_anomalies_groups(const wt_anomalies *a, size_t *n);
/* What a group's cost is, in words: "avoidable", "over the median", ..., or NULL for rules
 * without a cost (no-end, dropped, damaged, untracked). */
const char *wt_anomaly_cost_words(wt_anomaly_kind k);

/* The grouped list as lines to print under "ANOMALIES:": a group of one is its line; a larger
 * group is a heading, "600 CACHE MISS in weight_load, 41.2 s avoidable in all; the 10 most
 * costly:" (as the recorder's exit ledger words it), then its `top` most costly members
 * (every member when top is 0), each line starting with two spaces: a continuation line, to
 * print under the heading (wt_ledger_extras). Last, a line counting what fell below the min cost and what was not listed.
 * *lines (an array of n malloc'ed strings, caller frees both with wt_anomaly_lines_free()).
 * Returns 0 or WT_ENOMEM (then *lines is NULL). */
int wt_anomalies_lines(const wt_anomalies *a, size_t top, char ***lines, size_t *n);
void wt_anomaly_lines_free(char **lines, size_t n);
/* How many members of a group the grouped views show by default. */
#define WT_ANOMALY_TOP 10

/* A CI gate (--fail-on): fires when a measure of the finished run is over its limit. */
typedef enum wt_gate_measure {
    WT_GATE_COUNT = 0,     /* anomalies of `kind` (-1: of any kind) > limit */
    WT_GATE_AVOIDABLE,     /* avoidable seconds of the MISSes > limit */
    WT_GATE_UNTRACKED_PCT, /* untracked % of wall > limit */
    WT_GATE_UNTRACKED_S    /* untracked seconds > limit */
} wt_gate_measure;
typedef struct wt_gate {
    wt_gate_measure measure;
    int kind;       /* WT_GATE_COUNT: a wt_anomaly_kind, or -1 for any */
    double limit;
} wt_gate;
/* 1 when gate g fires on the finished a, else 0; *value (may be NULL) gets the measure.
 * Seconds fire when over by more than 0.5 ns, percentages by more than 0.5e-6 %, so that a
 * measure equal to its limit as written does not fire on a rounding error. */
int wt_anomalies_gate(const wt_anomalies *a, const wt_gate *g, double *value);

void wt_anomalies_free(wt_anomalies *a);

#endif
