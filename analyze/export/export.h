/* Timeline export: the events of one or more trace files as a Perfetto protobuf trace
 * (export_perfetto.c) or a Chrome Trace Event Format JSON file (export_chrome.c), for
 * ui.perfetto.dev, chrome://tracing and speedscope.
 *
 * The driver (wt_export_stream in export_driver.c, wt_export_to_path in export_output.c; the
 * command is commands/cmd_export.c) streams every event of the files once into a sink of the
 * chosen format and, alongside, into the analyzer's ledger and anomalies. Spans are written as
 * they arrive (Perfetto: as their thread's tree completes, bounded); what is known only at the
 * end of the run (the ledger's totals, the run metadata and the anomalies) is written last, so
 * memory does not grow with the number of events. docs/EXPORT.md describes what a user sees.
 */
#ifndef WT_EXPORT_H
#define WT_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "anomalies.h"
#include "analysis.h"
#include "source.h"
#include "walltime/reader.h"

typedef enum wt_export_format {
    WT_EXPORT_PERFETTO = 0, /* protobuf Trace, TrackEvent packets */
    WT_EXPORT_CHROME = 1    /* Trace Event Format JSON */
} wt_export_format;

/* Perfetto: spans deeper than this on one thread are counted and treated as this deep. */
#define WT_EXPORT_MAX_DEPTH 64
/* Perfetto: spans that cannot nest on their thread's track (a wt_record() span that overlaps
 * spans not containing it, damaged input) go to "overlap N" tracks of the thread, at most this
 * many per thread; past them a span goes on the lane that ends first and is counted as
 * misplaced. */
#define WT_EXPORT_MAX_LANES 256
/* Perfetto: threads with a track of their own; the spans of later threads share one "other
 * threads" track per process, on lanes, and are counted (a thread costs ~150 bytes). */
#define WT_EXPORT_MAX_THREADS (1 << 18)
/* Perfetto --aligned-rounds: keep/skip rounds shown again aligned at t=0 (a second pass over the
 * files), at most this many; later rounds are counted, not aligned. */
#define WT_EXPORT_MAX_ALIGNED 256
/* Perfetto: track groups of the aligned view, one per (round, thread, depth), each of up to
 * 4 tracks; spans past them are counted, not aligned. */
#define WT_EXPORT_MAX_ALIGNED_TRACKS 4096
/* Run metadata (META events) kept per file for the run's annotations; the rest are counted. */
#define WT_EXPORT_MAX_META 256

/* One annotation of a process-level "walltime: run" slice: a string, integer or real value. */
typedef enum wt_export_arg_type { WT_ARG_STR, WT_ARG_INT, WT_ARG_REAL } wt_export_arg_type;
typedef struct wt_export_arg {
    const char *key;
    wt_export_arg_type type;
    const char *s;
    int64_t i;
    double d;
} wt_export_arg;

/* What the driver knows about one file at the end of the run. */
typedef struct wt_export_proc {
    int file_index;
    uint64_t pid;
    int64_t begin_ns, end_ns; /* the run slice: process start (or open) to END / last event */
    const wt_export_arg *args;
    size_t n_args;
} wt_export_proc;

/* What a sink counted, for the report. */
typedef struct wt_export_sink_stats {
    int64_t spans;         /* spans written as slices */
    int64_t instants;      /* marks, dropped notices and anomalies */
    int64_t counters;      /* counter samples */
    int64_t rounds;
    int64_t depth_clamped; /* spans deeper than WT_EXPORT_MAX_DEPTH (Perfetto) */
    int64_t lanes_extra;   /* spans put on an overlap track (Perfetto) */
    int64_t misplaced;     /* spans that overlap on their track past WT_EXPORT_MAX_LANES */
    int64_t early;         /* spans written before their root ended: its tree was larger than
                              the nesting buffer, or the file was cut (Perfetto) */
    int64_t spans_folded;  /* spans of threads past WT_EXPORT_MAX_THREADS (Perfetto) */
    int64_t aligned_rounds;  /* rounds shown aligned at t=0 (Perfetto) */
    int64_t aligned_spans;   /* spans shown again inside them */
    int64_t aligned_dropped; /* rounds past WT_EXPORT_MAX_ALIGNED, spans past the track cap */
    uint64_t bytes;        /* bytes written */
} wt_export_sink_stats;

/* One output format. The driver calls file_begin, then event for each event of that file, then
 * file_end (may be NULL; the file's event strings are still valid), for every file in turn; then, when the sink has pass2_begin and it returns 1, reads the files
 * a second time: pass2_file, then pass2_event for each event of that file; then anomaly for
 * each anomaly (in time order), proc_end for each file, and finish, which completes the
 * document. Every call returns 0 or a negative WT_E* (WT_ENOMEM; WT_EIO when writing failed).
 * free accepts NULL self. The pass2 callbacks may be NULL (no second pass). */
typedef struct wt_export_sink {
    void *self;
    int (*file_begin)(void *self, int file_index, const char *path, const wt_trace_info *info);
    int (*event)(void *self, int file_index, const wt_event *ev);
    int (*file_end)(void *self, int file_index);
    int (*anomaly)(void *self, int file_index, const wt_anomaly *a);
    int (*proc_end)(void *self, const wt_export_proc *p);
    int (*finish)(void *self);
    void (*get_stats)(const void *self, wt_export_sink_stats *out);
    void (*free)(void *self);
    int (*pass2_begin)(void *self);
    int (*pass2_file)(void *self, int file_index);
    int (*pass2_event)(void *self, int file_index, const wt_event *ev);
    /* May be NULL: the records of `batch` come next as events (wt_source_ops.upcoming), a
     * hint for the sink's caches. */
    void (*upcoming)(void *self, int file_index, const wt_span_batch *batch);
} wt_export_sink;

typedef struct wt_export_opts {
    wt_export_format format;
    int no_analysis;    /* skip the ledger and anomalies (no totals, no anomaly instants) */
    int aligned_rounds; /* Perfetto: show the keep/skip rounds again aligned at t=0 */
    int reference;      /* tests: pack every Perfetto packet with protobuf-c (no fast path) */
    size_t intern_bytes; /* tests: the Perfetto interning bound (0: PF_INTERN_BYTES, 32 MiB) */
    /* the anomaly options of the command line (thresholds, budgets, --fail-on), as `ledger`
     * and `anomalies` take them; NULL: the defaults */
    const wt_anomaly_config *anomaly;
    /* the --baseline trace's ledger (the baseline rule), or NULL */
    const wt_ledger_result *baseline;
    /* NULL, or called once the ledger is complete, before the anomalies and the end of the
     * document are written (the command's check of its options against the trace, e.g. that
     * every budget names a category). Nonzero stops the export: WT_EINVAL with rep->check_failed
     * set; wt_export_to_path deletes its temporary file, so nothing replaces the output; a
     * stream (stdout, a FIFO, a device) is left unfinished. */
    int (*check)(void *ctx, const wt_ledger_result *r);
    void *check_ctx;
} wt_export_opts;

/* Makes a sink writing to `out` (not closed by the sink), with the options of `o` that concern
 * it (NULL: none). Returns 0 or WT_ENOMEM. */
int wt__export_perfetto_create(FILE *out, const wt_export_opts *o, wt_export_sink *sink);
int wt__export_chrome_create(FILE *out, wt_export_sink *sink);

/* What an export did: the files' fate, what the sink wrote, what was lost. */
typedef struct wt_export_report {
    wt_source_result src;
    wt_export_sink_stats sink;
    int64_t anomalies;
    uint64_t frames_damaged, bytes_skipped; /* summed over the files */
    int64_t meta_dropped;                   /* META events past WT_EXPORT_MAX_META */
    int gate;         /* WT_EXIT_GATE when opts.anomaly's --fail-on matched, else 0 */
    int pass2_failed; /* files that could not be read a second time (aligned rounds) */
    int written;                            /* wt_export_to_path: the output was written */
    int same_as_input; /* wt_export_to_path refused: the output is input [same_as_input - 1] */
    int check_failed;  /* opts.check said no: the export stopped (WT_EINVAL) */
} wt_export_report;

/* Exports `paths[0..n)` to the open stream `out`. Damage in a file is reported on stderr and
 * the export goes on with what is readable; the document is always completed. Returns 0 or a
 * negative WT_E* (WT_EIO: writing failed; WT_ENOMEM); *rep says what happened. */
int wt_export_stream(char *const *paths, int n, const wt_export_opts *o, FILE *out,
                     wt_export_report *rep);

/* Exports to `out_path` through a temporary file in the same directory, renamed over it at the
 * end, so a failed export leaves no half file. "-" writes to stdout; a device or FIFO is written
 * in place; a symbolic link is followed, so the file it points to gets the export and the link
 * stays. An output that is one of the inputs (same device and inode) is refused: WT_EEXIST with
 * rep->same_as_input set, nothing read or written. Returns 0, WT_EEXIST, WT_EOPEN (the output
 * cannot be created; errno says why), WT_EIO or WT_ENOMEM; nothing is left behind on
 * failure. When no input could be read at all, returns 0 without touching `out_path`
 * (rep->written 0), so an existing timeline is not replaced by an empty one. */
int wt_export_to_path(char *const *paths, int n, const wt_export_opts *o, const char *out_path,
                      wt_export_report *rep);

#endif
