/* The analyzer's ledger: where the wall time of one or more trace files went, reconciled to
 * wall time, computed in one streaming pass (push API) and rendered as text or JSON.
 *
 * Use: wt_ledger_calc_create(), then per file wt_ledger_calc_file_begin(), every event with
 * wt_ledger_calc_event(), damage with wt_ledger_calc_damage(), wt_ledger_calc_file_end();
 * then wt_ledger_calc_finish() once, and read wt_ledger_calc_result() or render. The callbacks
 * of wt_analysis_pair_ops() (analysis.h) do exactly this for wt_source_run().
 *
 * Memory is bounded by the number of distinct categories/labels, threads, open nesting depth
 * and the coverage interval set (WT_LEDGER_MAX_INTERVALS), never by the number of events;
 * categories and (category, label) pairs are themselves bounded (WT_MAX_CATEGORIES,
 * WT_MAX_LABEL_KEYS in spanstat.h: the spans of the rest are folded into WT_OTHER_CATEGORIES
 * and their category's WT_OTHER_LABELS, and counted in the result's folded_*).
 *
 * Counting rules (docs/ANALYZE.md has the full text):
 * - Wall of a process: header process_start_ns to the END event; without END, to the latest
 *   reference time seen (span end, instant) and `no_end` is set. Wall of several files: from
 *   the earliest process start to the latest end (they share the host's CLOCK_MONOTONIC).
 * - Nesting, per thread: a span's self time = its duration minus its direct children's
 *   durations (clamped at 0); rows count self time, so nesting is counted once.
 * - Threads (and processes) at once: each instant of wall is counted once. It goes to the
 *   first top-level span, in trace order (about: the one that ended first), whose interval
 *   covers it; the wall-clock time a top-level span newly covers is shared among the
 *   categories of its tree (itself and its descendants) in proportion to their self time.
 *   So rows sum to `covered` (the measure of the union of every thread's top-level spans),
 *   untracked = wall - covered, and with one thread (or no overlap) rows are the exact self
 *   times. `busy` = the sum of all self times (per-thread busy seconds summed);
 *   parallel_saved = busy - waiting - covered, where `waiting` is the self time of top-level
 *   spans spent while other threads' work ran inside them (a parent joining its workers). Memory per thread: the pending tree's per-category self
 *   time (bounded by the number of categories). A tree whose top-level span never came (a cut
 *   file) is counted over its envelope (first start to last end) at file end.
 * - Flat (the seed): every span's full duration in its category (nesting double-counts).
 */
#ifndef WT_ANALYZE_LEDGER_H
#define WT_ANALYZE_LEDGER_H

#include <stdint.h>
#include <stdio.h>

#include "source.h"
#include "json.h"
#include "spanstat.h"
#include "walltime/ledger.h"
#include "walltime/reader.h"

/* The coverage interval set's bound (per run). Past it, intervals that can no longer change
 * (below the last SYNC watermark and every thread's last top-level end) are folded into a
 * total; if still over, the lower half is folded, and later spans reaching below the fold are
 * clipped there and counted in `late`. */
#define WT_LEDGER_MAX_INTERVALS 65536

typedef struct wt_ledger_opts {
    const char *title; /* the table's title; NULL: the file name(s) */
    int flat;          /* render the seed's table exactly */
    int by_label;      /* add the per-label breakdown */
    int top;           /* labels per category in --by label (rest summed); <= 0: 10 */
    int all_rows;      /* text: every thread's and process's row; else, past
                          WT_LEDGER_TEXT_THREADS threads, the busiest
                          WT_LEDGER_TEXT_THREADS_SHOWN and one row for the rest, and past
                          WT_LEDGER_TEXT_THREADS processes, those that did not end cleanly, the
                          WT_LEDGER_TEXT_THREADS_SHOWN longest, and one row for the rest */
} wt_ledger_opts;

/* One process per rank and a few threads each make hundreds of thread and process rows; the
 * text lists the few that matter (JSON always lists them all). */
#define WT_LEDGER_TEXT_THREADS 16
#define WT_LEDGER_TEXT_THREADS_SHOWN 12

/* Per-span statistics of one label or category: count, min, median, max, total. Medians come
 * from a bounded reservoir (WT_STATS_RESERVOIR samples, spanstat.h: deterministic reservoir
 * sampling): exact up to that many spans, an estimate past it. */
typedef struct wt_ledger_stat {
    int64_t n;
    double min, median, max, total; /* seconds of full span durations */
} wt_ledger_stat;

typedef struct wt_ledger_label {
    const char *name;  /* NULL: "(other)" = the rest summed */
    wt_ledger_stat st;
} wt_ledger_label;

typedef struct wt_ledger_cat {
    const char *name;    /* rows in the order their first span ended */
    double seconds;      /* the row: attributed wall seconds (== flat_seconds in flat mode) */
    double self_seconds; /* self time summed over threads, before scaling */
    double flat_seconds; /* the seed's: every span's full duration */
    double inclusive;    /* wall-clock seconds during which a span of it was open: per thread
                            the union of its spans (nested in itself counts once), summed */
    int64_t count;       /* sum of the spans' counts */
    int64_t spans;
    int64_t hits, misses;
    int64_t bytes;       /* sum of span bytes */
    double gbps;         /* bytes / flat_seconds / 1e9 when bytes > 0, else 0 */
    double straggler;    /* several files: max - median of per-process seconds, else 0 */
    size_t straggler_proc; /* several files: the index in procs of the max, else 0 */
    wt_ledger_stat st;
    const wt_ledger_label *labels; /* top labels then the rest (by_label only) */
    size_t n_labels;
} wt_ledger_cat;

typedef struct wt_ledger_thread {
    uint64_t pid, tid;
    const char *name;   /* thread name or NULL */
    double busy;        /* seconds inside top-level spans (self time summed) */
    double waiting;     /* of those, seconds its top-level spans waited on other threads'
                           work inside them (ledger_wait.c) */
    int64_t spans;
} wt_ledger_thread;

typedef struct wt_ledger_process {
    uint64_t pid;
    const char *name;            /* "rank N (pid P)" or "pid P" (procname.h) */
    int has_rank;
    int64_t rank;                /* the `rank` metadata, when has_rank */
    const char *path;
    double wall;                 /* this process's wall */
    const double *cat_seconds;   /* per category of the run (index as cats), self seconds */
    wt_trace_end end;
    int end_signal;
    int no_end;                  /* wall ended at the last event */
    int damaged;
    int64_t dropped, unclosed, late;
} wt_ledger_process;

typedef struct wt_ledger_result {
    const wt_ledger_cat *cats;
    size_t n_cats;
    double wall;           /* seconds */
    double tracked;        /* sum of rows */
    double untracked;      /* wall - tracked, >= 0 */
    double busy;           /* sum of per-thread busy seconds */
    double covered;        /* union of busy intervals */
    double waiting;        /* sum of per-thread waiting seconds */
    double parallel_saved; /* busy - waiting - covered, >= 0 */
    double scale;          /* covered / busy: 1 without overlap (informational) */
    int64_t spans, events;
    int64_t dropped;       /* events dropped by the recorder */
    int64_t unclosed;      /* spans in flight at exit (WT_EVF_UNCLOSED) */
    double unclosed_s;
    int64_t late;          /* events behind a SYNC watermark (tolerated, counted) */
    /* trees whose top-level span the file never held (kill -9 with it open, a cut file):
     * the wall inside them that none of their spans covers is no category's, so it stays in
     * untracked, and is told apart here (the fact "inside lost spans") */
    int64_t lost_trees;
    double lost_s;
    int64_t misses;
    /* spans past the key bounds (spanstat.h): of a category past WT_MAX_CATEGORIES, counted
     * in the row WT_OTHER_CATEGORIES; of a (category, label) pair past WT_MAX_LABEL_KEYS,
     * counted under the label WT_OTHER_LABELS of its category. 0 on all but hostile traces;
     * shown as the recorder facts "folded categories" / "folded labels" when not 0. */
    int64_t folded_categories, folded_labels;
    /* spans of threads past WT_MAX_THREADS per run, counted in their process's thread
     * WT_OTHER_THREADS: the recorder fact "folded threads" when not 0 */
    int64_t folded_threads;
    /* by file (in the order given), each file's main thread first, then by tid */
    const wt_ledger_thread *threads;
    size_t n_threads;
    const wt_ledger_process *procs;
    size_t n_procs;
    int no_end;            /* some file had no END record */
    int signal_end;        /* some file ended by a signal (the first one's signo) */
    int damaged;           /* some file was damaged */
} wt_ledger_result;

typedef struct wt_ledger_calc wt_ledger_calc;

/* Makes a calc. opts may be NULL (defaults). Returns 0 or WT_ENOMEM (*out NULL). */
int wt_ledger_calc_create(const wt_ledger_opts *opts, wt_ledger_calc **out);

/* A file begins: its header. `path` and strings of `info` are copied. */
int wt_ledger_calc_file_begin(wt_ledger_calc *lc, const char *path, const wt_trace_info *info);
/* One event of the current file. Strings are copied when kept. Returns 0 or WT_ENOMEM. */
int wt_ledger_calc_event(wt_ledger_calc *lc, const wt_event *ev);
/* The same for an event known to be a WT_EV_SPAN, for the direct span path of analysis.c; also
 * points *slot at this span's (category, label) pointer-cache slot: after a return of 0 its
 * x is the span's category index, its valid is 1 when the pair has keys of its own (not
 * folded: wt__ledger_calc_run() may take its spans), and its z is a word the caller may keep
 * its own per-key index in (0 whenever the slot is (re)filled and at each file). The slot is
 * good until the next call on lc. */
int wt__ledger_calc_span(wt_ledger_calc *lc, const wt_event *ev, wt__pair_slot **slot);
/* The batch path of analysis.c: the thread of a batch of spans, (pid, tid), looked up (made on
 * first sight) once for the batch. 0 when wt__ledger_calc_run() may take the batch's spans; 1
 * when they go through wt__ledger_calc_span() (the thread is folded into "(other threads)");
 * WT_ENOMEM; WT_ESTATE outside a file. */
int wt__ledger_calc_thread(wt_ledger_calc *lc, uint64_t pid, uint64_t tid);
/* Spans s[0..n) of that batch in order, s[k] of category index ci[k] (the x of the slot that an
 * earlier span of the same (category, label) got from wt__ledger_calc_span() in this file,
 * with valid 1), while each is the common case: the same work as wt__ledger_calc_span() on the
 * span as an event. *taken is how many were done. Returns 0 when all n were; 1 when s[*taken]
 * is not the common case (nothing changed for it: the caller passes it to
 * wt__ledger_calc_span()); WT_ENOMEM. */
int wt__ledger_calc_run(wt_ledger_calc *lc, const wt_span_rec *s, const uint32_t *ci, size_t n,
                        size_t *taken);
/* The same as wt_ledger_calc_event() for a WT_EV_COUNTER or WT_EV_MARK event at `ts`, which
 * only counts the event and moves the current file's clocks, for the direct path of
 * analysis.c (a counters trace samples twice per span). Returns 0, or WT_ESTATE outside a
 * file. */
int wt__ledger_calc_instant(wt_ledger_calc *lc, int64_t ts);
/* The same for counter samples at times ts[0..n) of the current file, whose least is lo and
 * greatest hi (INT64_MAX and INT64_MIN when n is 0). What it does commutes with the spans of
 * a batch (a count, the late test against a SYNC watermark that only a SYNC event moves, the
 * file's earliest and latest times), so a caller may give a batch's samples before or after
 * its spans. */
int wt__ledger_calc_instants(wt_ledger_calc *lc, const int64_t *ts, size_t n, int64_t lo,
                             int64_t hi);
/* The current file is damaged at `offset` (already reported on stderr). */
void wt_ledger_calc_damage(wt_ledger_calc *lc, int64_t offset, const char *message);
/* The current file ended; `st` as from wt_reader_get_stats(). */
int wt_ledger_calc_file_end(wt_ledger_calc *lc, const wt_reader_stats *st);
/* Ends the run and computes the result. Returns 0 or WT_ENOMEM. */
int wt_ledger_calc_finish(wt_ledger_calc *lc);

/* The result, valid after finish until free. */
const wt_ledger_result *wt_ledger_calc_result(const wt_ledger_calc *lc);

/* Each miss seen (for the seed's ANOMALIES list), in file order; valid until free. Bounded:
 * past WT_LEDGER_MAX_MISSES the rest are counted in result->misses only. */
#define WT_LEDGER_MAX_MISSES 10000
const wt_ledger_miss *wt_ledger_calc_misses(const wt_ledger_calc *lc, size_t *n);

/* Text: the flat seed table (opts.flat), or the reconciled table in the same layout followed
 * by its sections; above the table, a plain line for each file without END record, ended by
 * a signal, or damaged. `anomaly_lines` replace the seed's CACHE MISS list when non-NULL.
 * Returns 0 or WT_EIO. */
int wt_ledger_calc_render_text(const wt_ledger_calc *lc, FILE *out, const char *const *anomaly_lines,
                               size_t n_anomaly_lines);
/* JSON: the "walltime-ledger/1" object (docs/ANALYZE.md) as the value `key` of j. */
void wt_ledger_calc_render_json(const wt_ledger_calc *lc, wt_json *j, const char *key);
/* The same object's members only, into an object the caller opened (and may add to). */
void wt_ledger_calc_render_json_members(const wt_ledger_calc *lc, wt_json *j);

/* NULL is a no-op. */
void wt_ledger_calc_free(wt_ledger_calc *lc);

#endif
