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
    double inclusive; /* the reconciled layout only (wt_ledger_render() with extras): the
                         wall-clock seconds during which a span of the category was open */
} wt_ledger_row;

/* Room for any text wt_ledger_fmt_seconds() writes, with its terminating NUL. */
#define WT_LEDGER_SECONDS_MAX 32

/* Seconds as a person reads them, the one precision rule of every human output (the exit
 * ledger, walltime-analyze's ledger and anomaly texts): from one second up, three significant
 * digits and " s" ("1.23 s", "12.3 s", "123 s"; past 999.5 s the whole seconds, "1234 s");
 * below a second, milliseconds, three significant digits ("960 ms", "50.0 ms", "1.23 ms"),
 * and below a millisecond three decimals ("0.012 ms"); 0 is "0 ms". The value is rounded
 * before its unit is chosen, so 0.9996 is "1.00 s", never "1000 ms". A negative value gets a
 * leading '-'; NaN and infinities are "-". Writes at most n bytes (WT_LEDGER_SECONDS_MAX is
 * always enough; a shorter buffer gets a truncated text) and returns buf. The seed's flat
 * table (wt_ledger_render_flat()) keeps its own one-decimal format. */
WT_API const char *wt_ledger_fmt_seconds(char *buf, size_t n, double seconds);

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

/* What the reconciled ledger (the analyzer's default, and the recorder's at exit) adds to the
 * seed's layout. Every field may be 0/NULL. With extras, the table is the reconciled layout:
 * columns self, %wall, inclusive (wt_ledger_row.inclusive), count, notes, seconds written by
 * wt_ledger_fmt_seconds(), and the seconds and count columns widened to fit their widest cell
 * (a count near INT64_MAX never runs into the next column). wt_ledger_render(out, t, NULL) is
 * wt_ledger_render_flat(out, t), the seed's layout byte for byte. */
typedef struct wt_ledger_extras {
    const char *const *row_notes;  /* NULL or n_rows entries (each may be NULL): appended to
                                      the row's notes column, after HIT/MISS */
    const wt_ledger_fact *facts;
    size_t n_facts;
    const char *const *anomalies;  /* when non-NULL, these lines replace the CACHE MISS list:
                                      each is printed as "  - LINE", except a continuation
                                      line (one that begins with a space), printed as
                                      "  LINE" under the item above it */
    size_t n_anomalies;
    /* Called after the facts, before the ANOMALIES block, to print more sections. */
    void (*sections)(FILE *out, void *ctx);
    void *sections_ctx;
} wt_ledger_extras;

/* The seed's table with `x` added (see wt_ledger_extras). Returns 0, or WT_EIO. */
WT_API int wt_ledger_render(FILE *out, const wt_ledger_table *t, const wt_ledger_extras *x);

/* ---- inclusive time: the nesting arithmetic shared by the recorder and the analyzer ----
 * A category's inclusive time is the wall-clock time during which a span of it was open on a
 * thread, summed over threads: per thread the union of its spans' intervals, so a category
 * nested in itself counts once (weight_load > weight_load is one weight_load). Spans arrive at
 * their end, children before their parent (the order a thread ends them in). A span's subtree
 * covers per category the union of its children's, except its own category, which it covers
 * whole: so per nesting level a sorted list of (category, ns) for the finished children of
 * the span open there is enough, and memory is bounded by depth x the categories of one
 * subtree, never by the number of spans. Depths past WT_LEDGER_NEST_LEVELS - 2 count as that
 * depth (a hostile depth cannot allocate). */
#define WT_LEDGER_NEST_LEVELS 257

typedef struct wt_ledger_nest_item {
    uint32_t cat;
    int64_t ns;
} wt_ledger_nest_item;

typedef struct wt_ledger_nest_level {
    wt_ledger_nest_item *v; /* sorted by cat, each cat once */
    uint32_t n, cap;
} wt_ledger_nest_level;

/* One thread's state; the caller owns it. Zero-initialised is initialised. */
typedef struct wt_ledger_nest {
    wt_ledger_nest_level *levels; /* WT_LEDGER_NEST_LEVELS, allocated at the first span */
} wt_ledger_nest;

/* Called with a finished top-level tree's inclusive ns per category (each category once). */
typedef void (*wt_ledger_nest_add_fn)(void *ctx, uint32_t cat, int64_t ns);

/* One span of the thread: depth (0 top level), category index, duration in ns (< 0 is 0).
 * When it is a top-level span, its tree's inclusive time goes to add(ctx, cat, ns). Returns
 * 0, or WT_ENOMEM (then this span's subtree may be undercounted; the state stays valid). */
WT_API int wt_ledger_nest_span(wt_ledger_nest *n, uint32_t depth, uint32_t cat, int64_t dur,
                               wt_ledger_nest_add_fn add, void *ctx);

/* The thread's trace ended with spans whose top-level span never came (a cut file, a thread
 * still inside its spans): what they covered goes to add() as if their parents had ended,
 * and the state is empty again. */
WT_API void wt_ledger_nest_flush(wt_ledger_nest *n, wt_ledger_nest_add_fn add, void *ctx);

/* Frees the state; NULL and a zeroed state are no-ops. */
WT_API void wt_ledger_nest_release(wt_ledger_nest *n);

/* ---- coverage: each instant of wall once ----
 * The union of the top-level spans of every thread, as a sorted set of disjoint intervals, so
 * that the wall-clock time a new span adds ("fresh") can be shared among its tree. Used by the
 * recorder's exit ledger and by walltime-analyze. Intervals below the `frontier` can be folded
 * into the total (wt_ledger_cover_fold()) when no later span can reach them; a later span that
 * still does is clipped there. Memory: at most the `max` intervals the caller allows. */
typedef struct wt_ledger_iv {
    int64_t s, e;
} wt_ledger_iv;

typedef struct wt_ledger_cover {
    wt_ledger_iv *iv; /* a gap buffer: ranks below n - tail at iv[0..n - tail), the last
                         `tail` at iv[cap - tail..cap); with tail 0, iv[0..n) in order, and
                         a caller may append past iv[n - 1] itself while n < cap (the
                         interval disjoint from it, not touching, at or above the frontier),
                         adding its length to total_ns */
    size_t n, cap;
    size_t tail;      /* intervals after the free room (where the last insertion went) */
    int64_t total_ns; /* the measure of the union, folded and not (saturating at INT64_MAX):
                         each add adds what it newly covered */
    int64_t frontier; /* everything below is folded; INT64_MIN at first */
} wt_ledger_cover;

/* The interval of rank i (i < n), in order of time. */
static inline wt_ledger_iv *wt_ledger_cover_at(const wt_ledger_cover *c, size_t i)
{
    return c->iv + (i < c->n - c->tail ? i : i + (c->cap - c->n));
}

/* An empty set. */
WT_API void wt_ledger_cover_init(wt_ledger_cover *c);

/* Adds [s, e) (s below the frontier is clipped to it, and *clipped set) and sets *fresh to the
 * ns of it that were not covered before. Returns 0; WT_ENOSPC when it would need an interval
 * past `max` (nothing changed: fold, then add again); WT_ENOMEM (nothing changed). */
WT_API int wt_ledger_cover_add(wt_ledger_cover *c, int64_t s, int64_t e, size_t max,
                               int64_t *fresh, int *clipped);

/* Folds everything below f out of the set (its measure stays in the total) and moves the
 * frontier there (no-op when f is not above the frontier). */
WT_API void wt_ledger_cover_fold(wt_ledger_cover *c, int64_t f);

/* The measure of the union, ns (saturating): total_ns. */
WT_API int64_t wt_ledger_cover_total(const wt_ledger_cover *c);

/* A copy of `from` into *to (an initialised or released set); 0 or WT_ENOMEM (*to empty). */
WT_API int wt_ledger_cover_copy(wt_ledger_cover *to, const wt_ledger_cover *from);

/* Empties the set, keeping its memory for the next intervals. */
WT_API void wt_ledger_cover_clear(wt_ledger_cover *c);

/* Frees the intervals; the set is empty again. NULL is a no-op. */
WT_API void wt_ledger_cover_release(wt_ledger_cover *c);

#ifdef __cplusplus
}
#endif
#endif
