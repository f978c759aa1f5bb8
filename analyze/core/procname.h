/* How the analyzer names a process to a person: "rank N (pid P)" when its trace carries the
 * run metadata `rank` (wt_meta("rank", "N"), as distributed launchers number their workers),
 * else "pid P". One place, so that the ledger, the anomalies and compare name a process the
 * same way.
 *
 * Use: wt_procname_init() at a file's header, wt_procname_event() on each of its events (only
 * a WT_EV_META with key "rank" changes anything; the last one wins), wt_procname_format() when
 * printing. No allocation: a rank is kept as a number. */
#ifndef WT_PROCNAME_H
#define WT_PROCNAME_H

#include <stddef.h>
#include <stdint.h>

#include "walltime/reader.h"

/* The metadata key that names a process's rank. */
#define WT_PROCNAME_RANK_KEY "rank"
/* Room for any name wt_procname_format() writes, with its terminating NUL. */
#define WT_PROCNAME_MAX 64

typedef struct wt_procname {
    uint64_t pid;
    int64_t rank;  /* valid when has_rank */
    int has_rank;
} wt_procname;

/* A process `pid` of unknown rank. */
void wt_procname_init(wt_procname *p, uint64_t pid);

/* Takes the rank from a WT_EV_META event with key "rank" whose value is a decimal integer
 * from 0 to INT64_MAX (surrounding spaces allowed); returns 1 when it did. Any other event,
 * or a value that is not such a number (untrusted input: never echoed), returns 0 and
 * changes nothing. */
int wt_procname_event(wt_procname *p, const wt_event *ev);

/* Parses a rank value as wt_procname_event() does: 1 and *out, or 0. `s` may be NULL. */
int wt_procname_parse_rank(const char *s, int64_t *out);

/* Writes "rank N (pid P)" or "pid P" into buf (n bytes; WT_PROCNAME_MAX is always enough,
 * a smaller buffer gets a truncated name) and returns buf. */
const char *wt_procname_format(const wt_procname *p, char *buf, size_t n);

#endif
