/* The Perfetto sink's process tracks, one per file, above pf_writer.h (a side layer, as
 * pf_aligned.h): each named after the program of its command line, with its pid and command
 * line. Once every file is read (a rank is metadata anywhere in its file), when a file has the
 * `rank` metadata or the files come from more than one host (header host names), each process
 * track is sent again (same uuid and pid) with the ledger's name, "rank R (pid P)" (one host's
 * process without a rank keeps its program's name), and ranked by rank (processes without one
 * last), then pid: sibling_order_rank and legacy_sort_index, with the root track descriptor
 * (uuid 0) asking for PROCESS_ORDERING_EXPLICIT. With several hosts they are grouped host by
 * host first (host names in byte order), named "rank R (pid P) @ HOST" ("pid P @ HOST" without
 * a rank) and labelled "host HOST". One host without ranks: each process once, as before.
 *
 * Viewers key processes by pid, so a file whose pid an earlier file of another host has
 * already taken gets a track pid of its own, pid + k x 2^22 (above any Linux pid, the
 * smallest k free; the names keep the real pid): ranks of two hosts stay two processes.
 * Memory: per file its host, program and command line. docs/EXPORT.md. */
#ifndef WT_PF_PROCS_H
#define WT_PF_PROCS_H

#include <stddef.h>
#include <stdint.h>

#include "procname.h"
#include "pf_writer.h"

typedef struct pf_procinfo {
    uint64_t uuid;
    uint64_t track_pid; /* the pid on its tracks: its own, unless another host's file has it */
    wt_procname who;    /* pid and rank */
    char *host;      /* the header's host name, "" when none */
    char *cmd;       /* the command line, UTF-8; its arguments are split at spaces */
    char *prog;      /* the program (the first argument's base name, else the file's path) */
} pf_procinfo;

typedef struct pf_procs {
    pf_procinfo *v; /* by file index */
    size_t n;
} pf_procs;

/* File `fi` was opened: its process track (uuid) named after its program; *track_pid the pid
 * its tracks carry (its threads' too). 0 or WT_E*. */
int wt__pf_procs_begin(pf_procs *P, pf_writer *w, int fi, uint64_t uuid, const char *path,
                       const wt_trace_info *info, uint64_t *track_pid);
/* An event of file `fi`: the metadata `rank` names its process. */
void wt__pf_procs_event(pf_procs *P, int fi, const wt_event *ev);
/* Every file is read: with ranks or several hosts, the processes named and ordered (above).
 * 0 or WT_E*. */
int wt__pf_procs_finish(pf_procs *P, pf_writer *w);
void wt__pf_procs_release(pf_procs *P);

#endif
