/* Tables for the warehouse: the runs, spans and counter samples of trace files as
 * newline-delimited JSON, zstd-compressed, in a versioned schema ("walltime-table/1",
 * docs/FLEET.md) that DuckDB, ClickHouse, Spark and BigQuery read as they are.
 *
 * Each file is one run (a process's trace, named by the header's run id) and gets three files
 * of its own in the output directory: runs-RUNID.jsonl.zst (one row), spans-RUNID.jsonl.zst and
 * counters-RUNID.jsonl.zst, so the tables of any number of runs, exported at any time and on
 * any host, append into one directory and a glob reads them all. Every column has one JSON
 * type in every row and every file (absent strings are "", absent numbers a documented
 * sentinel, never null), so an engine infers one schema for thousands of files.
 *
 * Each file is read twice: once for its keep/skip rounds (written when a round ends, after
 * its spans), then for the rows, each span and sample tagged with the round holding it.
 * Memory is bounded by threads x nesting depth, rounds (WT_TABLE_MAX_ROUNDS) and metadata
 * pairs (WT_TABLE_MAX_META) of one file, never by the number of events. */
#ifndef WT_FLEET_TABLE_H
#define WT_FLEET_TABLE_H

#include <stdint.h>

#include "inputs.h"
#include "source.h"

#define WT_TABLE_SCHEMA "walltime-table/1"
/* Rounds of one file that spans are tagged with; later rounds are counted, their spans untagged. */
#define WT_TABLE_MAX_ROUNDS 20000
/* Metadata pairs of one file in its runs row; later distinct keys are counted and left out. */
#define WT_TABLE_MAX_META 256

/* What an export wrote and what it could not. */
typedef struct wt_table_report {
    wt_source_result src;   /* files read, damaged, failed (exit status: wt_source_exit_status) */
    int64_t runs, spans, counters;
    int64_t rounds_dropped; /* rounds past WT_TABLE_MAX_ROUNDS in some file */
    int64_t meta_dropped;   /* metadata keys past WT_TABLE_MAX_META in some file */
    int legacy_ids;         /* files of format 1.0 (no run id): an id was derived (FLEET.md) */
    int io_errno;           /* a WT_EIO's cause (EFBIG, ENOSPC, ...), 0 none or unknown */
} wt_table_report;

/* Writes the tables of `paths[0..n)` into the directory `dir` (made when missing; existing
 * tables of other runs are left alone, a run exported again is replaced). Every output file is
 * written under a temporary name and renamed when complete, the runs row last, so a reader
 * never sees half a run. A file that cannot be read is reported on stderr and skipped; a
 * damaged one gives what is readable, its runs row saying `damaged`. Returns 0 (then *rep says
 * what happened to each file) or a negative WT_E*: WT_EOPEN when `dir` cannot be made or
 * written (errno says why), WT_EIO when writing failed, WT_ENOMEM. */
int wt_table_export(char *const *paths, int n, const char *dir, wt_table_report *rep);
/* wt_table_export() of the inputs `in` (inputs.h: lists, directories, paths), taken one file at
 * a time; inputs the lists or directories could not give are named on stderr and counted in
 * rep->src.files_failed. `in` is spent. (wt_table_export: its paths as such inputs.) */
int wt_table_export_inputs(wt_inputs *in, const char *dir, wt_table_report *rep);

/* The run id of a trace: its header's, or for a 1.0 file without one, 32 hex digits derived
 * from host, pid, process start and open times and the realtime anchor (stable across
 * exports of the same file). `out` gets 33 bytes. Returns 1 when derived, 0 when the header's. */
int wt_table_run_id(const wt_trace_info *info, char out[33]);

#endif
