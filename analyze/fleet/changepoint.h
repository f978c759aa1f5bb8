/* Change points in one series of per-run seconds (a category of a group of runs, in start
 * order), found online in constant memory. The rule (docs/FLEET.md, *Trends*):
 *
 *   For run i, the reference is the window of the up to W runs before it since the last change
 *   (at least M of them): its median m and MAD (median absolute deviation from m). The noise
 *   scale is s = max(1.4826 MAD, F x m, 1 us). Run i is a change when it and the P - 1 runs
 *   after it are all beyond K s from m on the same side; the change is reported at run i with
 *   how much: the median of those P runs minus m. Then the window restarts at run i, so a new
 *   level is learned, not reported again.
 *
 * Defaults W 50, M 10, K 5, F 0.01, P 3: a single outlier (a slow disk once) is not a change; a
 * step that lasts is found at its first run. Memory: W + P values and their references. */
#ifndef WT_FLEET_CHANGEPOINT_H
#define WT_FLEET_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#define WT_CP_MAX_WINDOW 1024
#define WT_CP_MAX_PERSIST 16

typedef struct wt_cp_opts {
    int window;      /* W */
    int min_runs;    /* M */
    double k;        /* K */
    double floor;    /* F */
    int persist;     /* P */
} wt_cp_opts;

/* The defaults above. */
void wt_cp_opts_default(wt_cp_opts *o);
/* 0 when the options are in range (1 <= M <= W <= WT_CP_MAX_WINDOW, 1 <= P <= WT_CP_MAX_PERSIST,
 * K > 0, F >= 0), else -1. */
int wt_cp_opts_check(const wt_cp_opts *o);

/* A change found: at the run whose reference the caller gave with wt_cp_push(). */
typedef struct wt_cp_change {
    int64_t ref;        /* the caller's reference of run i */
    double before;      /* m: the window's median */
    double after;       /* the median of the P runs from i */
    double scale;       /* s */
    int window_runs;    /* runs in the window */
} wt_cp_change;

typedef struct wt_cp {
    wt_cp_opts o;
    double *hist;    /* ring: the runs since the last change, the last W + P - 1 */
    int64_t *refs;   /* ring: their references */
    size_t cap, n;   /* ring size (W + P), values in it */
    size_t head;     /* index of the oldest */
    size_t since;    /* the last `since` values are the segment since the last change */
    int64_t runs;    /* values pushed */
} wt_cp;

/* 0 or WT_ENOMEM. Options are copied (checked by the caller). */
int wt_cp_init(wt_cp *c, const wt_cp_opts *o);
void wt_cp_release(wt_cp *c);

/* The next run's value and the caller's reference to it. Returns 1 and *out when the run P - 1
 * before this one is a change, else 0; WT_ENOMEM never (no allocation). */
int wt_cp_push(wt_cp *c, double value, int64_t ref, wt_cp_change *out);

/* The median of the values since the last change (the level now, of the last up to W + P
 * runs), or 0. */
double wt_cp_level(const wt_cp *c);

/* The last up to `max` values pushed (across changes), oldest first, into out; returns how
 * many (at most W + P). Right after a change, the last P of them are the change's runs. */
size_t wt_cp_recent(const wt_cp *c, double *out, size_t max);

#endif
