/* Clock selection and TSC calibration (see rec_clock.h). Runs at open and in the writer
 * thread, never on the hot path. */
#include "rec_clock.h"

#ifdef WT__HAVE_TSC
#include <cpuid.h>
#endif

int wt__clock_tsc;

static wt__calib slots[2];
static atomic_int slot_idx;
/* the pair taken at open: the base of every refinement */
static uint64_t base_tick;
static int64_t base_ns;
static uint64_t rough_hz;

/* One (tick, ns) pair: the TSC read on both sides of clock_gettime, keeping the tightest of a
 * few tries so a preemption in between does not skew it. */
static void read_pair(uint64_t *tick, int64_t *ns)
{
    uint64_t best_gap = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        const uint64_t a = wt__ticks();
        const int64_t n = wt__mono_ns();
        const uint64_t b = wt__ticks();
        if (b - a < best_gap) {
            best_gap = b - a;
            *tick = a + (b - a) / 2;
            *ns = n;
        }
    }
}

static void publish(const wt__calib *c)
{
    const int next = !atomic_load_explicit(&slot_idx, memory_order_relaxed);
    slots[next] = *c;
    atomic_store_explicit(&slot_idx, next, memory_order_release);
}

static int tsc_invariant(void)
{
#ifdef WT__HAVE_TSC
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d))
        return 0;
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

void wt__clock_init(int force_monotonic)
{
    wt__clock_tsc = !force_monotonic && tsc_invariant();
    wt__calib c = { 0, 0, 1.0 };
    if (!wt__clock_tsc) {
        rough_hz = 0;
        publish(&c);
        return;
    }
    /* a rough rate over 1 ms, refined later by the writer over a much longer base */
    uint64_t t1;
    int64_t n1;
    read_pair(&base_tick, &base_ns);
    do
        read_pair(&t1, &n1);
    while (n1 - base_ns < 1000000);
    c.ns_per_tick = (double)(n1 - base_ns) / (double)(t1 - base_tick);
    c.tick0 = t1;
    c.ns0 = n1;
    rough_hz = (uint64_t)(1e9 / c.ns_per_tick + 0.5);
    publish(&c);
}

const char *wt__clock_name(void) { return wt__clock_tsc ? "tsc" : "monotonic"; }

uint64_t wt__clock_hz(void) { return wt__clock_tsc ? rough_hz : 0; }

int64_t wt__clock_refine(void)
{
    if (!wt__clock_tsc)
        return wt__mono_ns();
    uint64_t t;
    int64_t n;
    read_pair(&t, &n);
    wt__calib c = *wt__clock_calib();
    if (n - base_ns > 10000000 && t > base_tick)
        c.ns_per_tick = (double)(n - base_ns) / (double)(t - base_tick);
    c.tick0 = t;
    c.ns0 = n;
    publish(&c);
    return n;
}

const wt__calib *wt__clock_calib(void)
{
    return &slots[atomic_load_explicit(&slot_idx, memory_order_acquire)];
}
