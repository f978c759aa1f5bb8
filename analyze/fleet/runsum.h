/* One run's seconds per category, self, inclusive and flat, by the ledger's rules (selftime.h
 * for self; for inclusive, the rule of wt_ledger_nest_* in walltime/ledger.h, counted as the
 * spans come for the first 64 categories of a file and by wt_ledger_nest_* itself past them;
 * categories past WT_MAX_CATEGORIES folded into WT_OTHER_CATEGORIES as the ledger folds them)
 * and nothing else: what trend needs of each of thousands of runs, without the ledger's
 * coverage, medians and per-label statistics (which cost it most of its time on small runs).
 *
 * A worker keeps one and resets it per file, so the per-file cost is the file's own work.
 * Memory: categories, threads (folded past WT_MAX_THREADS, as the ledger folds them) x
 * nesting depth x 3 words, 64 words per level of a thread that held a subtree's time, and for
 * batches 4 bytes per string id up to the largest category id seen (ids past 2^20 are found
 * by name instead, so at most 4 MiB). */
#ifndef WT_FLEET_RUNSUM_H
#define WT_FLEET_RUNSUM_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"
#include "walltime/reader.h"

typedef struct wt_runsum wt_runsum;

/* 0 or WT_ENOMEM. */
int wt_runsum_create(wt_runsum **out);
/* A new file: forgets everything (the file's strings are new). */
void wt_runsum_reset(wt_runsum *s);
/* A WT_EV_SPAN of the current file. 0 or WT_ENOMEM. */
int wt_runsum_span(wt_runsum *s, const wt_event *ev);

/* A batch of spans of the current file (the source driver's), the same as each of them given
 * to wt_runsum_span() in turn. It reads only WT_SPANF_LEAN's fields of the records (duration,
 * category, depth), so a lean batch serves (wt_reader_span_fields()). 0 or WT_ENOMEM. */
int wt_runsum_spans(wt_runsum *s, const wt_span_batch *b);

/* The file ended: trees whose top-level span never came count as the ledger counts them. */
void wt_runsum_finish(wt_runsum *s);

/* The categories in the order their first span arrived: name, self, flat and (after
 * wt_runsum_finish) inclusive ns. */
size_t wt_runsum_count(const wt_runsum *s);
const char *wt_runsum_name(const wt_runsum *s, size_t i);
int64_t wt_runsum_self_ns(const wt_runsum *s, size_t i);
int64_t wt_runsum_flat_ns(const wt_runsum *s, size_t i);
int64_t wt_runsum_incl_ns(const wt_runsum *s, size_t i);

/* NULL is a no-op. */
void wt_runsum_free(wt_runsum *s);

#endif
