/* Clock selection and TSC calibration (see rec_clock.h). Runs at open and in the writer
 * thread, never on the hot path. */
#include "rec_clock.h"

#ifdef WT__HAVE_TSC
#include <cpuid.h>
#endif

int wt__clock_tsc;

/* The map's pieces, a ring: piece[k & (WT__CLOCK_PIECES - 1)] for k < n_pieces, by tick0.
 * Written by the writer thread only (and wt__clock_init before it starts). */
static wt__calib piece[WT__CLOCK_PIECES];
static _Atomic uint64_t n_pieces;
static _Atomic double cur_rate; /* the latest rate, ns per tick */
static _Atomic uint64_t last_pair_tick; /* the tick of the latest pair */
/* the pair taken at open: the base of every refinement */
static uint64_t base_tick;
static int64_t base_ns;
static uint64_t rough_hz;

#define RING_MASK (WT__CLOCK_PIECES - 1u)
#define KEPT (WT__CLOCK_PIECES - 2u) /* two slots of slack for the writer's next pieces */

static inline const wt__calib *at(uint64_t k) { return &piece[k & RING_MASK]; }

static inline int64_t on_piece(const wt__calib *p, uint64_t t)
{
    return p->ns0 + (int64_t)((double)(int64_t)(t - p->tick0) * p->ns_per_tick);
}

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
    if (!wt__clock_tsc) {
        rough_hz = 0;
        piece[0] = (wt__calib){ 0, 0, 1.0 };
        atomic_store(&cur_rate, 1.0);
        atomic_store_explicit(&n_pieces, 1, memory_order_release); /* the identity */
        return;
    }
    /* a rough rate over 1 ms, refined later by the writer over a much longer base */
    uint64_t t0, t1;
    int64_t n0, n1;
    read_pair(&t0, &n0);
    do
        read_pair(&t1, &n1);
    while (n1 - n0 < 1000000);
    wt__clock_start(t0, n0, t1, n1);
}

void wt__clock_start(uint64_t t0, int64_t n0, uint64_t t1, int64_t n1)
{
    base_tick = t0;
    base_ns = n0;
    const double rate = (double)(n1 - n0) / (double)(t1 - t0);
    piece[0] = (wt__calib){ t1, n1, rate };
    atomic_store(&last_pair_tick, t1);
    atomic_store(&cur_rate, rate);
    rough_hz = (uint64_t)(1e9 / rate + 0.5);
    atomic_store_explicit(&n_pieces, 1, memory_order_release); /* piece 0, written above */
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
    return wt__clock_pair(t, n);
}

int64_t wt__clock_pair(uint64_t t, int64_t n)
{
    uint64_t k = atomic_load_explicit(&n_pieces, memory_order_relaxed);
    const uint64_t before = atomic_load_explicit(&last_pair_tick, memory_order_relaxed);
    if (t <= before) /* a tick that went back (cannot, with an invariant TSC) */
        return on_piece(at(k - 1), before);
    atomic_store_explicit(&last_pair_tick, t, memory_order_relaxed);
    /* the piece t is on: the last, or the one before when the last begins later (the end of
     * the previous bend, which no converted tick has reached: none was read after t) */
    uint64_t on = k - 1;
    if (k >= 2 && at(k - 1)->tick0 > t)
        on = k - 2;
    const int64_t v = on_piece(at(on), t);
    const int64_t gap = n - v;
    double rate = atomic_load_explicit(&cur_rate, memory_order_relaxed);
    const int jump = gap < -WT__CLOCK_JUMP_NS || gap > WT__CLOCK_JUMP_NS;
    if (jump) { /* the rate so far stays; it is measured again from here */
        base_tick = t;
        base_ns = n;
    } else if (n - base_ns > 10000000 && t > base_tick) {
        rate = (double)(n - base_ns) / (double)(t - base_tick);
    }
    atomic_store_explicit(&cur_rate, rate, memory_order_relaxed);
    if (gap >= -WT__CLOCK_TOLERANCE_NS && gap <= WT__CLOCK_TOLERANCE_NS)
        return v;
    /* a new piece from t: the pending end of a bend, if any, is dropped (k = on + 1) */
    k = on + 1;
    if (jump) {
        piece[k & RING_MASK] = (wt__calib){ t, n, rate };
        atomic_store_explicit(&n_pieces, k + 1, memory_order_release);
        return n;
    }
    /* bend: from (t, v) at a rate that closes the gap over WT__CLOCK_SLEW_NS, then on at
     * the rate from where the first piece's line is then */
    const wt__calib bend = { t, v, rate * (1.0 + (double)gap / (double)WT__CLOCK_SLEW_NS) };
    const uint64_t t2 = t + (uint64_t)((double)WT__CLOCK_SLEW_NS / rate);
    piece[k & RING_MASK] = bend;
    piece[(k + 1) & RING_MASK] = (wt__calib){ t2, on_piece(&bend, t2), rate };
    atomic_store_explicit(&n_pieces, k + 2, memory_order_release);
    return v;
}

void wt__clock_map(wt__clockmap *m)
{
    const uint64_t n = atomic_load_explicit(&n_pieces, memory_order_acquire);
    m->piece = piece;
    m->n = n;
    m->rate = atomic_load_explicit(&cur_rate, memory_order_relaxed);
    /* the fast piece: the last that begins before the latest pair's tick (where the ticks of
     * the events recorded since the drain before end), else the first kept */
    const uint64_t pair = atomic_load_explicit(&last_pair_tick, memory_order_relaxed);
    uint64_t f = n - 1;
    while (f > 0 && n - f < KEPT && at(f)->tick0 >= pair)
        f--;
    const wt__calib *p = at(f);
    m->lo = p->tick0;
    m->span = f + 1 < n ? at(f + 1)->tick0 - p->tick0 : UINT64_MAX - p->tick0;
    m->ns0 = p->ns0;
    m->npt = p->ns_per_tick;
}

int64_t wt__tick_ns_slow(const wt__clockmap *m, uint64_t t)
{
    const uint64_t n = m->n, first = n > KEPT ? n - KEPT : 0;
    const wt__calib *const ring = m->piece;
    const wt__calib *p0 = &ring[first & RING_MASK];
    if (t < p0->tick0) /* before every piece kept: back from the first at the latest rate */
        return p0->ns0 - (int64_t)((double)(p0->tick0 - t) * m->rate);
    /* the last piece with tick0 <= t: a few from the end, else a binary search */
    uint64_t lo = first, hi = n; /* tick0(lo) <= t; the answer is in [lo, hi) */
    for (int i = 0; i < 4 && hi - lo > 1; i++) {
        if (ring[(hi - 1) & RING_MASK].tick0 <= t) {
            lo = hi - 1;
            break;
        }
        hi--;
    }
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (ring[mid & RING_MASK].tick0 <= t)
            lo = mid;
        else
            hi = mid;
    }
    return on_piece(&ring[lo & RING_MASK], t);
}
