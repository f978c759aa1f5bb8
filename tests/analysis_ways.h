/* The ways through analysis.c, for tests that hold them to each other: way 0 the reader's
 * span batches (the per-file id table, the ledger's and the anomalies' runs), way 1 the event
 * path (every event as a wt_event into the analyses' own event calls, without analysis.c),
 * way 2 way 0 with a caller's event callback (as export has), which must see every event of
 * the files in their order, each batch's records announced first to its `upcoming` callback
 * (checked inside aw_analyse()); and, apart, way 3 (AW_WAY_JOINED)
 * way 0 with a thread's consecutive batches joined into batches of up to 1,000 records
 * (longer than the direct path takes at a time), for files that never redefine a string.
 * Used by test_analysis_ids.c, test_ledger_runs.c, test_analysis_instants.c and
 * test_ledger_inclusive.c (ways 0-2); a cmocka assertion fails the test on any difference.
 * Include after <cmocka.h>. */
#ifndef WT_TEST_ANALYSIS_WAYS_H
#define WT_TEST_ANALYSIS_WAYS_H

#include "analysis.h"

/* Runs the files through wt_analysis_run() the given way into *a (release it), with every
 * anomaly listed (no minimum cost: which are listed then depends on the medians alone). */
void aw_analyse(char *const *paths, int n, int way, wt_analysis *a);

/* How many batches way 2's `upcoming` callback was given in the last aw_analyse() of way 2
 * (each followed by its records as events, which aw_analyse() checks). */
extern uint64_t aw_hinted_batches;

/* The ledger's category `name` (fails the test when there is none). */
const wt_ledger_cat *aw_cat_named(const wt_analysis *a, const char *name);

/* How many ways aw_analyse() knows: a test runs them all into an array of this many. */
#define AW_WAYS 3
/* The joined batches' way: not among AW_WAYS (see above); aw_check_joined() runs it. */
#define AW_WAY_JOINED 3

/* Every way's results are way 0's (aw_check_same()). */
void aw_check_ways(const wt_analysis w[AW_WAYS]);

/* Runs the files the joined way and holds its results to w0's (way 0's) with aw_check_same(). */
void aw_check_joined(char *const *paths, int n, const wt_analysis *w0);

/* Releases every way's results. */
void aw_release_ways(wt_analysis w[AW_WAYS]);

/* The two ways' results are the same, exactly: every row (seconds, counts, stats), every
 * thread, the totals (and the events and late ones), and every anomaly (kind, times,
 * seconds, cost, text, and the counts below the minimum cost). */
void aw_check_same(const wt_analysis *x, const wt_analysis *y);

#endif
