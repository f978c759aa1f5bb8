/* The source driver: streams the events of one or more trace files into an analysis (the one way
 * every analysis reads traces), with the diagnostics and exit statuses the commands share.
 *
 * Exit statuses (documented in `walltime-analyze --help`):
 *   0  the analysis ran on every file, intact
 *   1  failure: a file could not be read at all (missing, not a trace, newer format), or output
 *      could not be written
 *   2  usage error
 *   3  --fail-on matched (anomalies gate), taking precedence over 4
 *   4  the analysis ran, but a file was damaged (truncated, corrupt): results cover what was
 *      readable, with a warning above them
 */
#ifndef WT_SOURCE_H
#define WT_SOURCE_H

#include <stdint.h>
#include <stdio.h>

#include "walltime/reader.h"

#define WT_EXIT_OK 0
#define WT_EXIT_FAIL 1
#define WT_EXIT_USAGE 2
#define WT_EXIT_GATE 3
#define WT_EXIT_DAMAGED 4

#define WT_PROG "walltime-analyze"

/* "walltime-analyze: <message>\n" on stderr. */
void wt_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether wt_cli_error() was called in this process (main says something on a silent exit 1). */
int wt_cli_said(void);

/* A batch of spans of one thread (wt_reader_next_spans(); wt_reader_next_records() for
 * wt_source_run_counters() and wt_source_run_raw_counters()), times on the run's clock as the
 * events' (shifted like them). Ids name strings through wt_reader_string(reader, id), valid
 * until the file's file_end; a cache keyed by id holds while string_epoch does. */
typedef struct wt_span_batch {
    const wt_span_rec *spans;
    size_t n;
    uint64_t pid, tid;
    const wt_reader *reader;
    uint64_t string_epoch;
} wt_span_batch;

/* Callbacks of the source driver; any may be NULL. `ctx` is the caller's. A callback returning
 * non-zero stops the run (wt_source_run() then returns that value). */
typedef struct wt_source_ops {
    /* A file was opened; `file_index` counts the files that opened, from 0. */
    int (*file_begin)(void *ctx, int file_index, const char *path, const wt_trace_info *info);
    int (*event)(void *ctx, int file_index, const wt_event *ev);
    /* Damage in a file, after it was reported on stderr: message as wt_reader_error(). */
    int (*damage)(void *ctx, int file_index, int64_t offset, const char *message);
    /* The file is done; `stats` says how it ended and what was damaged. */
    int (*file_end)(void *ctx, int file_index, const wt_reader_stats *stats);
    /* Optional: runs of plain spans as batches. With it, most spans come here and the rest
     * (those the reader's batches leave to wt_reader_next()) still come to `event`, in file
     * order either way; without it, every span comes to `event`. */
    int (*spans)(void *ctx, int file_index, const wt_span_batch *batch);
    /* Optional, for `also` of wt_analysis_pair (analysis.h): the records of `batch` come next,
     * one by one to `event`. A hint for caches (what the events will look up can be asked
     * for now): nothing may depend on it. */
    void (*upcoming)(void *ctx, int file_index, const wt_span_batch *batch);
} wt_source_ops;

typedef struct wt_source_result {
    int files_ok;      /* opened and read to the end */
    int files_failed;  /* could not be read at all */
    int files_damaged; /* read, with damage */
    int files_no_end;  /* no end record: the writer died or the file is cut */
    int clocks;        /* distinct clocks (host boots) among the files read (clocks.h) */
    int64_t anchor_err_ns; /* clocks > 1: the largest UTC anchor uncertainty, -1 unknown */
    int files_duplicate; /* the same trace as an earlier path (same file, or identical header):
                            warned about and read once */
} wt_source_result;

/* Streams every event of the files `paths[0..n)`, in order, into `ops`. Files of several hosts
 * or boots are put on the first file's clock (clocks.h), said once on stderr: "N files of M
 * clocks (hosts or boots): aligned on UTC ...". Out of memory (in the reader too) is said and
 * stops the run: it returns WT_ENOMEM. Problems are reported
 * on stderr as "walltime-analyze: 'PATH': at byte N: PROBLEM" and the run goes on with the next
 * intact frame or file. A path that is the same trace as an earlier one (the same file by
 * device and inode, or a copy: every header field equal) is said on stderr and skipped, so a
 * trace given twice counts once. A trace with a header and no frame (killed before its first
 * write) is damaged: reported, through `damage` too, with "probably killed early". On a
 * terminal, a progress line for files that take over a second.
 * Returns 0 or the first non-zero callback value; *res says what happened to the files. */
int wt_source_run(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                  wt_source_result *res);
/* The same, reading every file with the reader *reader (NULL at first: one is opened and
 * left there), reopened for each (wt_reader_reopen()): a caller that runs file after file on
 * one thread keeps its buffers and zstd context. Strings of a file's events are valid until
 * its file_end. The caller frees *reader with wt_reader_free() when done. `span_fields`: the
 * WT_SPANF_* fields of wt_span_rec that ops->spans reads (0: all), as wt_reader_span_fields()
 * takes them; the others of a batch's records hold nothing meaningful. */
int wt_source_run_reusing(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                          wt_source_result *res, wt_reader **reader, unsigned span_fields);
/* The same with every file's times as recorded (dump, info: what the file says). */
int wt_source_run_raw(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                      wt_source_result *res);
/* wt_source_run() whose batches (ops->spans) hold the counter samples among the spans as well,
 * on the terms of wt_source_run_raw_counters() below (ledger and anomalies). */
int wt_source_run_counters(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                           wt_source_result *res);
/* wt_source_run_raw() whose batches (ops->spans) hold the counter samples among the spans as
 * well, as records of flags WT_REC_COUNTER (wt_reader_next_records()): those samples do not
 * come to ops->event. */
int wt_source_run_raw_counters(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                               wt_source_result *res);

/* The exit status for a run that produced output: WT_EXIT_FAIL when no file could be read,
 * WT_EXIT_DAMAGED when some file was failed or damaged, else WT_EXIT_OK. */
int wt_source_exit_status(const wt_source_result *res);

#endif
