/* The recorder's clock: what the hot path reads (ticks) and how the writer turns ticks into
 * CLOCK_MONOTONIC nanoseconds.
 *
 * On x86-64 with an invariant TSC (CPUID 0x80000007 EDX bit 8) a tick is one rdtsc count:
 * about 11 ns a read against about 31 ns for clock_gettime on the machines we measured.
 * Elsewhere (or with WALLTIME_CLOCK=monotonic) a tick is a CLOCK_MONOTONIC nanosecond and the
 * conversion is the identity. The TSC rate is calibrated against CLOCK_MONOTONIC off the hot
 * path: roughly at open (1 ms), then refined by the writer thread at every drain over the
 * whole time since open, anchored at the latest (tick, ns) pair so that the events being
 * converted, which are at most a drain period old, sit right next to the anchor. */
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

/* ns = ns0 + (tick - tick0) * ns_per_tick. */
typedef struct wt__calib {
    uint64_t tick0;
    int64_t ns0;
    double ns_per_tick;
} wt__calib;

/* Chooses the clock (force_monotonic: ignore the TSC) and calibrates it roughly. */
void wt__clock_init(int force_monotonic);

/* The clock's name for the header: "tsc" or "monotonic"; and its rate in Hz (0 if not TSC). */
const char *wt__clock_name(void);
uint64_t wt__clock_hz(void);

/* Refines the calibration with a fresh (tick, ns) pair. Writer thread only. Returns the
 * CLOCK_MONOTONIC ns of that pair, which doubles as "now". */
int64_t wt__clock_refine(void);

/* The current calibration, readable from any thread and from a signal handler: the writer
 * publishes a new copy into one of two slots and flips an index, so a reader never sees a
 * half-written calibration unless it is preempted for a whole drain period. */
const wt__calib *wt__clock_calib(void);

static inline int64_t wt__tick_ns(const wt__calib *c, uint64_t t)
{
    return c->ns0 + (int64_t)((double)(int64_t)(t - c->tick0) * c->ns_per_tick);
}

#endif
