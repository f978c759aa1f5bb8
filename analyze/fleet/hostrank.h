/* The ledger of a run of several hosts: a straggler table by host and rank, below the ledger's
 * text. One row per process (host, rank, pid), one column per category (the largest stragglers
 * first, at most WT_HOSTRANK_MAX_CATS), self seconds; '*' marks a category's slowest process,
 * '+' the slowest of its host; the last row is the ledger's straggler (max - median). */
#ifndef WT_FLEET_HOSTRANK_H
#define WT_FLEET_HOSTRANK_H

#include <stdio.h>

#include "ledger.h"

#define WT_HOSTRANK_MAX_CATS 6

/* Writes the table when the processes of `r` come from more than one host (each process's
 * host read from its file's header), else nothing. Returns 0, WT_EIO or WT_ENOMEM. */
int wt_hostrank_render(const wt_ledger_result *r, FILE *out);

#endif
