/* Files of several hosts on one timeline. Each trace's times are nanoseconds of its host's
 * CLOCK_MONOTONIC, which counts from that host's boot: two hosts (or two boots of one host)
 * share no clock. The source driver puts every file on the timeline of the first file read:
 *   - a file of the first file's clock (same boot id; for files older than format 1.1, which
 *     have no boot id, the same host name) keeps its monotonic times, exact;
 *   - a file of another clock is shifted through the UTC anchors: t' = t + (real - mono of the
 *     file) - (real - mono of the first file of the run); all files of one such clock get the
 *     shift of its first file, so they stay exact among themselves.
 * How far the UTC alignment can be trusted: each anchor's own read uncertainty (format 1.1,
 * anchor_err_ns), plus whatever the hosts' CLOCK_REALTIME disagree (NTP, typically well under a
 * millisecond on a synchronised cluster), which no trace can know.
 *
 * Memory: one entry per distinct clock, at most the number of files. */
#ifndef WT_CLOCKS_H
#define WT_CLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "walltime/reader.h"

typedef struct wt_clock_group {
    char *key;      /* "boot:ID" or "host:NAME" */
    int64_t shift;  /* ns added to this clock's times */
} wt_clock_group;

typedef struct wt_clocks {
    wt_clock_group *groups;
    size_t n, cap;
    int64_t ref_delta;      /* real - mono of the first file */
    int64_t anchor_err_max; /* the largest anchor uncertainty of a shifted or reference file;
                               -1 when some file of an aligned run does not say */
    int files;
} wt_clocks;

/* A zeroed wt_clocks is ready; wt_clocks_release() frees it. */
void wt_clocks_release(wt_clocks *c);

/* A file opens: returns 0 and *shift, the ns to add to its times, or WT_ENOMEM. */
int wt_clocks_file(wt_clocks *c, const wt_trace_info *info, int64_t *shift);

/* 1 when some file was aligned on UTC (more than one clock), else 0. */
int wt_clocks_aligned(const wt_clocks *c);

/* The header of a file with its monotonic times shifted by `shift` (strings shared). */
void wt_clocks_shift_info(const wt_trace_info *in, int64_t shift, wt_trace_info *out);

#endif
