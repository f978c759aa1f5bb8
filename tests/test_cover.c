/* The coverage interval set (libtrace/src/ledger_cover.c, a gap buffer shared by the ledger
 * and the recorder's exit ledger), checked against a brute-force bitmap of covered
 * nanoseconds: every add's fresh ns and clip, the set's intervals in rank order (sorted,
 * disjoint, not touching, above the frontier: exactly the bitmap's runs there), the folded
 * measure and the total, with folds in between, the `max` bound (WT_ENOSPC changes nothing),
 * copies, and the allocation under a bound. The inserts come in the patterns the ledger sees: anywhere, in time order, and
 * several threads' blocks over the same time in turn (the room moving both ways, the set
 * growing with intervals after the room). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xorshift.h"
#include "walltime/error.h"
#include "walltime/ledger.h"

#define U 12000 /* ns of the universe: the bitmap */

typedef struct model {
    unsigned char on[U]; /* 1: covered */
    int64_t frontier;    /* INT64_MIN at first, as the set's */
} model;

static uint64_t rng = 88172645463325252u;

static uint64_t next_rand(void) { return xorshift64(&rng); }

static int64_t below(int64_t n)
{
    return (int64_t)(next_rand() % (uint64_t)n);
}

/* ns covered in [lo, hi) of the bitmap. */
static int64_t count_on(const model *m, int64_t lo, int64_t hi)
{
    int64_t k = 0;
    for (int64_t i = lo < 0 ? 0 : lo; i < hi && i < U; i++)
        k += m->on[i];
    return k;
}

/* The measure folded out of the set: the total less the intervals still in it. */
static int64_t folded_of(const wt_ledger_cover *c)
{
    int64_t in = 0;
    for (size_t i = 0; i < c->n; i++)
        in += wt_ledger_cover_at(c, i)->e - wt_ledger_cover_at(c, i)->s;
    return wt_ledger_cover_total(c) - in;
}

/* The set against the model: its intervals are the bitmap's runs at and above the frontier,
 * in order; below it, the folded measure; the total is the bitmap's. */
static void check_same(const wt_ledger_cover *c, const model *m)
{
    assert_true(c->n <= c->cap);
    assert_true(c->tail <= c->n);
    assert_int_equal(c->frontier, m->frontier);
    const int64_t from = m->frontier < 0 ? 0 : m->frontier;
    assert_int_equal(folded_of(c), count_on(m, 0, from));
    size_t r = 0;
    int64_t i = from;
    while (i < U) {
        if (!m->on[i]) {
            i++;
            continue;
        }
        int64_t j = i;
        while (j < U && m->on[j])
            j++;
        assert_true(r < c->n);
        const wt_ledger_iv *v = wt_ledger_cover_at(c, r);
        assert_int_equal(v->s, i);
        assert_int_equal(v->e, j);
        r++;
        i = j;
    }
    assert_int_equal(r, c->n);
    assert_int_equal(wt_ledger_cover_total(c), count_on(m, 0, U));
}

/* Adds [s, e) to both with bound max; on WT_ENOSPC checks that nothing changed and that the
 * interval would have needed one past max, folds as the ledger does (below the lower half)
 * and adds again. */
static void add_both(wt_ledger_cover *c, model *m, int64_t s, int64_t e, size_t max)
{
    int64_t fresh = -1;
    int clipped = -1;
    int rc = wt_ledger_cover_add(c, s, e, max, &fresh, &clipped);
    if (rc == WT_ENOSPC) {
        check_same(c, m); /* nothing changed */
        /* it needed a new interval (touching none: an end at s or a start at e merges) in a
         * full set */
        const int64_t ms = s < m->frontier ? m->frontier : s;
        assert_true(c->n >= max);
        assert_true(ms < e);
        assert_int_equal(count_on(m, ms - 1 < m->frontier ? ms : ms - 1, e + 1), 0);
        const int64_t f = wt_ledger_cover_at(c, c->n / 2)->s;
        wt_ledger_cover_fold(c, f);
        if (f > m->frontier)
            m->frontier = f;
        check_same(c, m);
        rc = wt_ledger_cover_add(c, s, e, max, &fresh, &clipped);
    }
    assert_int_equal(rc, 0);
    const int64_t lo = s < m->frontier ? m->frontier : s;
    assert_int_equal(clipped, s < m->frontier);
    int64_t want = 0;
    for (int64_t i = lo; i < e; i++) {
        want += !m->on[i];
        m->on[i] = 1;
    }
    assert_int_equal(fresh, want);
    assert_true(c->n <= max);
    check_same(c, m);
}

static void fold_both(wt_ledger_cover *c, model *m, int64_t f)
{
    wt_ledger_cover_fold(c, f);
    if (f > m->frontier)
        m->frontier = f;
    check_same(c, m);
}

static void model_init(model *m)
{
    memset(m->on, 0, sizeof m->on);
    m->frontier = INT64_MIN;
}

/* A copy is the same set, in one sorted array; the original is untouched. */
static void check_copy(const wt_ledger_cover *c, const model *m)
{
    wt_ledger_cover cp;
    wt_ledger_cover_init(&cp);
    assert_int_equal(wt_ledger_cover_copy(&cp, c), 0);
    assert_int_equal(cp.tail, 0);
    check_same(&cp, m);
    check_same(c, m);
    wt_ledger_cover_release(&cp);
}

/* Small intervals anywhere in the universe, some folds (a few of them below the frontier:
 * no-ops), with a bound of 8 intervals, then 40, then none that is reached. */
static void test_cover_random(void **state)
{
    (void)state;
    static model m;
    const size_t maxes[] = { 8, 40, SIZE_MAX };
    for (size_t round = 0; round < 3 * 6; round++) {
        const size_t max = maxes[round % 3];
        wt_ledger_cover c;
        wt_ledger_cover_init(&c);
        model_init(&m);
        for (int op = 0; op < 1500; op++) {
            const int64_t k = below(100);
            if (k < 3) {
                fold_both(&c, &m, below(U));
            } else if (k < 5) {
                check_copy(&c, &m);
            } else {
                const int64_t s = below(U - 1), len = k < 90 ? 1 + below(12) : below(400);
                add_both(&c, &m, s, s + len > U ? U : s + len, max);
            }
        }
        wt_ledger_cover_release(&c);
        assert_null(c.iv);
        assert_int_equal(c.n, 0);
    }
}

/* T threads' blocks in turn: each thread's spans in time order, 2-9 ns long with 2-30 ns
 * between them, a block of 20-200 of them; the next thread's block covers the same time, so
 * its spans go among the others' intervals, just after each other (what the 8-thread shape
 * does). Folds now and then below the slowest thread's end (the ledger's safe frontier), and
 * sometimes past it (later spans clipped). */
static void test_cover_threads_in_turn(void **state)
{
    (void)state;
    static model m;
    for (int threads = 1; threads <= 8; threads++) {
        for (int bounded = 0; bounded < 2; bounded++) {
            wt_ledger_cover c;
            wt_ledger_cover_init(&c);
            model_init(&m);
            int64_t at[8];
            for (int t = 0; t < threads; t++)
                at[t] = below(50);
            const size_t max = bounded ? 300 : SIZE_MAX;
            for (int turn = 0; turn < 400; turn++) {
                const int t = turn % threads;
                for (int64_t b = 20 + below(180); b > 0; b--) {
                    const int64_t s = at[t] + 2 + below(29), e = s + 2 + below(8);
                    if (e > U)
                        break;
                    add_both(&c, &m, s, e, max);
                    at[t] = e;
                }
                if (below(8) == 0) {
                    int64_t f = INT64_MAX;
                    for (int i = 0; i < threads; i++)
                        f = at[i] < f ? at[i] : f;
                    fold_both(&c, &m, below(4) == 0 ? f + below(60) : f - below(200));
                }
                if (below(16) == 0)
                    check_copy(&c, &m);
            }
            wt_ledger_cover_release(&c);
        }
    }
}

/* Spans in time order under a bound, as a long trace of top-level spans gives the ledger:
 * each full set folds below its middle (add_both), many times over. The set matches the model
 * throughout, and its allocation never passes the bound (a power of two here, past the first
 * allocation of 64); a cleared set keeps its memory and is an empty one. The same with a
 * second thread's spans now and then among the first's (the room moving). */
static void test_cover_time_order_with_bound(void **state)
{
    (void)state;
    static model m;
    const size_t maxes[] = { 16, 64 };
    for (size_t mi = 0; mi < 2; mi++) {
        for (int second = 0; second < 2; second++) {
            const size_t max = maxes[mi];
            wt_ledger_cover c;
            wt_ledger_cover_init(&c);
            model_init(&m);
            int64_t at = 0;
            while (at < U - 40) {
                const int64_t s = at + 1 + below(3), e = s + 1 + below(4);
                add_both(&c, &m, s, e, max);
                at = e;
                if (second && below(5) == 0 && s > 30) {
                    const int64_t os = s - 20 - below(10);
                    add_both(&c, &m, os, os + 1 + below(2), max);
                }
                assert_true(c.cap <= (max > 64 ? max : 64)); /* 64: the first */
            }
            assert_true(m.frontier > U / 2); /* folded, again and again, up to late in time */
            check_copy(&c, &m);
            wt_ledger_cover_clear(&c);
            model_init(&m);
            check_same(&c, &m);
            assert_true(c.cap > 0);
            add_both(&c, &m, 5, 9, max); /* a cleared set is an empty one */
            wt_ledger_cover_release(&c);
        }
    }
}

/* By hand: [10,20) [30,40) [50,60) added last first (each before the room), then [20,30)
 * joins the first two (an end at its start, a start at its end): 10 fresh ns, one interval
 * [10,40); [35,55) covers 10 new ns of it and merges [50,60) too; a fold at 15 counts 5 ns
 * and clips [12,18) to [15,18) with nothing fresh; a bound of 1 then refuses [70,80). */
static void test_cover_by_hand(void **state)
{
    (void)state;
    wt_ledger_cover c;
    wt_ledger_cover_init(&c);
    int64_t fresh;
    int clipped;
    assert_int_equal(wt_ledger_cover_add(&c, 50, 60, 3, &fresh, &clipped), 0);
    assert_int_equal(wt_ledger_cover_add(&c, 30, 40, 3, &fresh, &clipped), 0);
    assert_int_equal(wt_ledger_cover_add(&c, 10, 20, 3, &fresh, &clipped), 0);
    assert_int_equal(fresh, 10);
    assert_int_equal(c.n, 3);
    assert_int_equal(wt_ledger_cover_add(&c, 20, 30, 3, &fresh, &clipped), 0);
    assert_int_equal(fresh, 10);
    assert_int_equal(c.n, 2);
    assert_int_equal(wt_ledger_cover_at(&c, 0)->s, 10);
    assert_int_equal(wt_ledger_cover_at(&c, 0)->e, 40);
    assert_int_equal(wt_ledger_cover_add(&c, 35, 55, 3, &fresh, &clipped), 0);
    assert_int_equal(fresh, 10);
    assert_int_equal(c.n, 1);
    assert_int_equal(wt_ledger_cover_at(&c, 0)->e, 60);
    assert_int_equal(wt_ledger_cover_total(&c), 50);
    wt_ledger_cover_fold(&c, 15);
    assert_int_equal(folded_of(&c), 5);
    assert_int_equal(wt_ledger_cover_add(&c, 12, 18, 3, &fresh, &clipped), 0);
    assert_int_equal(fresh, 0);
    assert_int_equal(clipped, 1);
    assert_int_equal(wt_ledger_cover_total(&c), 50);
    assert_int_equal(wt_ledger_cover_add(&c, 70, 80, 1, &fresh, &clipped), WT_ENOSPC);
    assert_int_equal(c.n, 1);
    assert_int_equal(wt_ledger_cover_add(&c, 60, 80, 1, &fresh, &clipped), 0);
    assert_int_equal(fresh, 20);
    assert_int_equal(wt_ledger_cover_total(&c), 70);
    wt_ledger_cover_release(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cover_by_hand),
        cmocka_unit_test(test_cover_random),
        cmocka_unit_test(test_cover_threads_in_turn),
        cmocka_unit_test(test_cover_time_order_with_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
