/* The recorder's tick-to-ns map (libtrace/src/rec_clock.h) on made-up clocks: a TSC of 2 GHz
 * exactly (ns = tick / 2 + a jitter of the pairs within +-10 ns), started from a rough rate
 * 1e-4 off, then one pair per ms of ticks. Every value is checked against that clock, worked
 * out here, not against the map's own earlier output: increasing over every piece's edge, a
 * tick's ns the same whenever it is converted, within the tolerance of the true clock once
 * the rough start is closed, a jump past WT__CLOCK_JUMP_NS taken at once, and ticks older
 * than the pieces kept still in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "rec_clock.h"

#define TICKS_PER_MS 2000000ull /* 2 GHz */

static int64_t truth(uint64_t tick) { return (int64_t)(tick / 2); }

/* a pair's jitter: -10..10 ns, the same sequence every run */
static int64_t jitter(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return (int64_t)(*x % 21) - 10;
}

static int64_t ns_of(uint64_t tick)
{
    wt__clockmap m;
    wt__clock_map(&m);
    return wt__tick_ns(&m, tick);
}

/* Started at tick 1e9 (0.5 s), the second pair 1 ms later reads 1e-4 fast: 100 ns over the
 * 1 ms. */
static void start_rough(void)
{
    const uint64_t t0 = 1000000000ull, t1 = t0 + TICKS_PER_MS;
    wt__clock_start(t0, truth(t0), t1, truth(t1) + 100);
}

static void test_clock_map_increases_and_keeps_each_ticks_value(void **state)
{
    (void)state;
    start_rough();
    uint64_t x = 88172645463325252ull;
    enum { PAIRS = 12000 }; /* more than the ring holds: WT__CLOCK_PIECES */
    enum { PROBES = 64 };
    uint64_t probe_tick[PROBES];
    int64_t probe_ns[PROBES];
    int n_probes = 0;
    uint64_t t = 1000000000ull + TICKS_PER_MS;
    int64_t worst = 0;
    for (int i = 0; i < PAIRS; i++) {
        const uint64_t prev = t;
        t += TICKS_PER_MS + (uint64_t)(i % 7) * 1000; /* drains not quite evenly spaced */
        /* the ticks of the events this drain converts: before its pair */
        wt__clockmap m;
        wt__clock_map(&m);
        int64_t last = wt__tick_ns(&m, prev);
        for (uint64_t k = prev + 1; k < t; k += 9973) {
            const int64_t v = wt__tick_ns(&m, k);
            assert_true(v >= last);
            last = v;
            if (i > 200) { /* after the rough start's gap is closed */
                const int64_t err = v - truth(k);
                if (llabs(err) > worst)
                    worst = llabs(err);
            }
        }
        if (i % 100 == 7 && n_probes < PROBES) { /* remembered, converted again later */
            probe_tick[n_probes] = prev + 12345;
            probe_ns[n_probes++] = wt__tick_ns(&m, prev + 12345);
        }
        wt__clock_pair(t, truth(t) + jitter(&x));
        /* right at the pair: the new pieces continue the old without a step back */
        assert_true(ns_of(t - 1) <= ns_of(t));
        assert_true(ns_of(t) <= ns_of(t + 1));
        for (int p = 0; p < n_probes && i < 3000; p++) /* within the pieces kept */
            assert_int_equal(ns_of(probe_tick[p]), probe_ns[p]);
    }
    /* the tolerance, the pairs' jitter, and what a 1 ms drift leaves: a few ns of rate */
    assert_true(worst <= WT__CLOCK_TOLERANCE_NS + 10 + 4);
    /* ticks older than every piece kept: still increasing, and right for a 2 GHz clock */
    int64_t last = ns_of(1000000000ull);
    for (uint64_t k = 1000000000ull; k < 1000000000ull + 4000 * TICKS_PER_MS; k += 3 * TICKS_PER_MS + 17) {
        const int64_t v = ns_of(k);
        assert_true(v >= last);
        assert_true(llabs(v - truth(k)) <= 1000); /* the rough start's 100 ns, and some */
        last = v;
    }
}

/* A pair 5 ms off the map (a clock that moved: a VM stopped, say) is taken at once; one
 * within the tolerance leaves the map as it was; the rate is measured again from the jump. */
static void test_clock_map_jumps_far_and_ignores_near(void **state)
{
    (void)state;
    const uint64_t t0 = 1000000000ull, t1 = t0 + TICKS_PER_MS;
    wt__clock_start(t0, truth(t0), t1, truth(t1)); /* exact */
    uint64_t t = t1 + 20 * TICKS_PER_MS;
    const int64_t before = ns_of(t + 777);
    assert_int_equal(wt__clock_pair(t, truth(t) + WT__CLOCK_TOLERANCE_NS), truth(t));
    assert_int_equal(ns_of(t + 777), before);
    t += 20 * TICKS_PER_MS;
    const int64_t off = 5000000;
    assert_int_equal(wt__clock_pair(t, truth(t) + off), truth(t) + off);
    assert_true(llabs(ns_of(t + 2000) - (truth(t + 2000) + off)) <= 1);
    /* then on from there at the clock's rate, the first pair's 8 ns (2e-7 of rate, a few ns
     * over 20 ms) measured away with the rest */
    for (int i = 0; i < 100; i++) {
        t += TICKS_PER_MS;
        wt__clock_pair(t, truth(t) + off);
    }
    assert_true(llabs(ns_of(t + 5555) - (truth(t + 5555) + off)) <= WT__CLOCK_TOLERANCE_NS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_map_increases_and_keeps_each_ticks_value),
        cmocka_unit_test(test_clock_map_jumps_far_and_ignores_near),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
