/* The recorder's clock: what the hot path reads (ticks) and how the writer turns ticks into
 * CLOCK_MONOTONIC nanoseconds.
 *
 * On x86-64 with an invariant TSC (CPUID 0x80000007 EDX bit 8) a tick is one rdtsc count:
 * about 11 ns a read against about 31 ns for clock_gettime on the machines we measured.
 * Elsewhere (or with WALLTIME_CLOCK=monotonic) a tick is a CLOCK_MONOTONIC nanosecond and the
 * conversion is the identity. The TSC rate is calibrated against CLOCK_MONOTONIC off the hot
 * path: roughly at open (1 ms), then refined by the writer thread at every drain over the
 * whole time since open.
 *
 * The conversion is one function of the tick, whenever a tick is converted: a continuous,
 * increasing, piecewise-linear map, so that a span that began before another (a parent
 * before its first child) never starts after it, whichever drain wrote each. At a drain the
 * writer compares the map with a fresh (tick, ns) pair; within WT__CLOCK_TOLERANCE_NS it
 * leaves the map alone, else it bends it from that tick on, at the latest rate, to close the
 * gap over WT__CLOCK_SLEW_NS (past WT__CLOCK_JUMP_NS it jumps instead: a clock that moved
 * that far is better right than smooth). Before, each drain re-anchored the line at its
 * pair, and a span converted by a later drain could start a nanosecond or two before a child
 * an earlier drain had converted: 20 of 1,000,000 phases of bench_analyze's nested shape. */
#ifndef WT_REC_CLOCK_H
#define WT_REC_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define WT__HAVE_TSC 1
#endif

/* 1 when ticks are TSC counts, 0 when they are CLOCK_MONOTONIC ns. Set by wt__clock_init()
 * before recording starts; never changes while recording. */
extern int wt__clock_tsc __attribute__((visibility("hidden")));

static inline int64_t wt__mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The hot path's one clock read. */
static inline uint64_t wt__ticks(void)
{
#ifdef WT__HAVE_TSC
    if (__builtin_expect(wt__clock_tsc, 1))
        return __rdtsc();
#endif
    return (uint64_t)wt__mono_ns();
}

/* The hot path's TSC read, for callers that checked WT__TSC_ON() already. */
#ifdef WT__HAVE_TSC
#define WT__TSC_ON() __builtin_expect(wt__clock_tsc, 1)
static inline uint64_t wt__rdtsc(void) { return __rdtsc(); }
#else
#define WT__TSC_ON() 0
static inline uint64_t wt__rdtsc(void) { return (uint64_t)wt__mono_ns(); }
#endif

/* One piece of the map: ns = ns0 + (tick - tick0) * ns_per_tick, from tick0 to the next
 * piece's tick0. */
typedef struct wt__calib {
    uint64_t tick0;
    int64_t ns0;
    double ns_per_tick;
} wt__calib;

#define WT__CLOCK_PIECES 4096u          /* kept (a power of two); older ticks: see below */
#define WT__CLOCK_TOLERANCE_NS 8        /* a drain leaves the map alone within this */
#define WT__CLOCK_SLEW_NS 10000000LL    /* a gap is closed over this much time */
#define WT__CLOCK_JUMP_NS 1000000LL     /* and jumped past this */

/* The map as a converter takes it (wt__clock_map()): good for any tick. lo, span, ns0 and
 * npt are the piece of the ticks a drain converts most, [lo, lo + span), inline in
 * wt__tick_ns(); the others are found in the pieces.
 * A tick before every piece kept goes back from the first at `rate`, the latest rate. */
typedef struct wt__clockmap {
    uint64_t lo, span;
    int64_t ns0;
    double npt;
    const wt__calib *piece; /* the ring of WT__CLOCK_PIECES */
    uint64_t n;             /* pieces made, the last n (at most WT__CLOCK_PIECES - 2) kept */
    double rate;
} wt__clockmap;

/* Chooses the clock (force_monotonic: ignore the TSC) and calibrates it roughly. */
void wt__clock_init(int force_monotonic);

/* The clock's name for the header: "tsc" or "monotonic"; and its rate in Hz (0 if not TSC). */
const char *wt__clock_name(void);
uint64_t wt__clock_hz(void);

/* Refines the calibration with a fresh (tick, ns) pair, bending the map if it is off. Writer
 * thread only. Returns the map's ns at that tick, which doubles as "now" (within
 * WT__CLOCK_TOLERANCE_NS of CLOCK_MONOTONIC, and of the events converted with the map). */
int64_t wt__clock_refine(void);

/* The two halves of init and refine without the clock reads, for tests on made-up clocks:
 * start from the pairs (t0, n0) and (t1, n1) taken 1 ms or more apart; take the pair (t, n)
 * (what wt__clock_refine() returns). */
void wt__clock_start(uint64_t t0, int64_t n0, uint64_t t1, int64_t n1);
int64_t wt__clock_pair(uint64_t t, int64_t n);

/* The current map into *m, from any thread and from a signal handler: the writer appends
 * pieces to a ring and then publishes their count, so a reader sees whole pieces unless it
 * is preempted for thousands of drains. */
void wt__clock_map(wt__clockmap *m);

/* The ns of tick t by the map m: out of line when t is not in m's fast piece. */
int64_t wt__tick_ns_slow(const wt__clockmap *m, uint64_t t);

static inline int64_t wt__tick_ns(const wt__clockmap *m, uint64_t t)
{
    if (__builtin_expect(t - m->lo < m->span, 1))
        return m->ns0 + (int64_t)((double)(int64_t)(t - m->lo) * m->npt);
    return wt__tick_ns_slow(m, t);
}

#endif
