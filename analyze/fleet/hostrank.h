/* The ledger of a run of several hosts: stragglers by host and rank. One row per process (host,
 * rank, pid) sorted by host, then rank (none last), then pid; per category its self seconds,
 * whether it is the category's slowest process (the ledger's straggler) and whether it is the
 * slowest of its host. Text below the ledger's table (the largest stragglers first, at most
 * WT_HOSTRANK_MAX_CATS columns; '*' the slowest of all, '+' of its host; the last row the
 * ledger's straggler, max - median), and in `ledger --json` as "stragglers_by_host"
 * (docs/FLEET.md). The host of a process is read from its file's header. */
#ifndef WT_FLEET_HOSTRANK_H
#define WT_FLEET_HOSTRANK_H

#include <stdio.h>

#include "json.h"
#include "ledger.h"

#define WT_HOSTRANK_MAX_CATS 6

/* Writes the table when the processes of `r` come from more than one host, else nothing.
 * Returns 0, WT_EIO or WT_ENOMEM. */
int wt_hostrank_render(const wt_ledger_result *r, FILE *out);

/* The member "stragglers_by_host" of the open JSON object `j`, when the processes of `r` come
 * from more than one host, else nothing. Returns 0 or WT_ENOMEM. */
int wt_hostrank_json(const wt_ledger_result *r, wt_json *j);

#endif
