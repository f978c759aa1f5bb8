/* libwalltime: the seed's wall-time ledger, as one shared implementation.
 *
 * The recorder prints it at exit from in-memory aggregates and walltime-analyze prints it from
 * a trace (`ledger --flat`, and the table part of its default ledger): both go through these
 * functions, so the arithmetic and the layout exist once.
 *
 * Flat arithmetic (the seed's walltime.py render()): every span's seconds go to its category,
 * so nested spans count twice; tracked = the sum of the rows; wall = max(wall, tracked);
 * untracked = wall - tracked (>= 0); percentages of wall (or of 1.0 when wall is 0).
 */
#ifndef WALLTIME_LEDGER_H
#define WALLTIME_LEDGER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "walltime/walltime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One row: a category, in the order its first span was recorded. */
typedef struct wt_ledger_row {
    const char *name;
    double seconds;
    int64_t count; /* the sum of the spans' counts */
    int64_t hits;  /* spans with WT_CACHED_HIT */
    int64_t misses;
} wt_ledger_row;

/* One cache miss, for the ANOMALIES list. */
typedef struct wt_ledger_miss {
    const char *category;
    const char *label;
    const char *detail; /* NULL or "": the seed's default text is printed */
    double seconds;
} wt_ledger_miss;

typedef struct wt_ledger_table {
    const char *title;            /* "end of run" at exit; the file name in the analyzer */
    const wt_ledger_row *rows;
    size_t n_rows;
    const wt_ledger_miss *misses; /* may be NULL when n_misses is 0 */
    size_t n_misses;
    double wall;                  /* seconds of wall time for the scope */
} wt_ledger_table;

/* The reconciled totals of a table under the flat arithmetic above. */
typedef struct wt_ledger_totals {
    double tracked;
    double wall;      /* max(table wall, tracked) */
    double untracked; /* wall - tracked */
    double denom;     /* wall, or 1.0 when wall is 0: the base of every percentage */
} wt_ledger_totals;

/* Computes the totals of `t`. Never fails. */
WT_API void wt_ledger_totals_of(const wt_ledger_table *t, wt_ledger_totals *out);

/* The default text for a miss without a detail, as in the seed. */
#define WT_LEDGER_MISS_DEFAULT "TT_DIT_CACHE_DIR unset or blocking key changed"

/* Writes the seed's table for `t` to `out`, byte for byte as walltime.py render() followed by
 * a newline: 74-column rules, the header line, one line per row, untracked, TOTAL (tracked),
 * TOTAL (wall), and the ANOMALIES list (a CACHE MISS line per miss, naming its category).
 * Returns 0, or WT_EIO when writing failed. */
WT_API int wt_ledger_render_flat(FILE *out, const wt_ledger_table *t);

/* A recorder fact shown as a ledger line after TOTAL (wall), in the table's columns:
 * name, seconds (blank when has_seconds is 0), count, note. Not part of the arithmetic. */
typedef struct wt_ledger_fact {
    const char *name;
    double seconds;
    int has_seconds;
    int64_t count;
    const char *note;
} wt_ledger_fact;

/* What the analyzer's reconciled ledger adds to the seed's layout. Every field may be 0/NULL;
 * wt_ledger_render(out, t, NULL) is wt_ledger_render_flat(out, t). */
typedef struct wt_ledger_extras {
    const char *const *row_notes;  /* NULL or n_rows entries (each may be NULL): appended to
                                      the row's notes column, after HIT/MISS */
    const wt_ledger_fact *facts;
    size_t n_facts;
    const char *const *anomalies;  /* when non-NULL, these lines replace the CACHE MISS list */
    size_t n_anomalies;
    /* Called after the facts, before the ANOMALIES block, to print more sections. */
    void (*sections)(FILE *out, void *ctx);
    void *sections_ctx;
} wt_ledger_extras;

/* The seed's table with `x` added (see wt_ledger_extras). Returns 0, or WT_EIO. */
WT_API int wt_ledger_render(FILE *out, const wt_ledger_table *t, const wt_ledger_extras *x);

#ifdef __cplusplus
}
#endif
#endif
