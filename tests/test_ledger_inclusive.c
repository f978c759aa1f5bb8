/* The inclusive time of nested spans on the ledger's common case (ledger.c span_common()'s
 * inline nesting cases: a leaf summed into its level's last item, a leaf appended past it, a
 * top-level span over its children alone) against sums done by hand and, exactly, against
 * the general path: with --by label every span goes through span_general(), which hands each
 * span to wt_ledger_nest_span(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis_ways.h"
#include "tracebuild.h"

#define NS 1e-9
#define ROUNDS 600

/* Runs `path` into *a (release it): with_labels 1 sends every span down the general path. */
static void analyse(char *path, int with_labels, wt_analysis *a)
{
    wt_ledger_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.by_label = with_labels;
    wt_analysis_opts o;
    memset(&o, 0, sizeof o);
    o.ledger = &lo;
    assert_int_equal(wt_analysis_run(&path, 1, &o, a), 0);
}

/* ROUNDS rounds, 10 us apart, of four trees on thread 3 of pid 3 (times from the round's
 * start, spans in the order they end): enough that past each category's first 256 spans
 * (its reservoir filling, which the general path does) most take the common case.
 * Categories get their indices at first sight: a 0, c 1, b 2, d 3. Per round, by hand:
 *   1. b [0, 1000) over a [10, 110), c [120, 220), a [230, 330): level 1 holds a 100, then c
 *      appended (above a), then a summed by search (not the last): a 200, c 100; the top b is
 *      not among them: a += 200, c += 100, b += 1000.
 *   2. a [2000, 3000) over a [2100, 2200), c [2300, 2400): the top's own category is among
 *      its children, counted whole: a += 1000, c += 100.
 *   3. b [4000, 5000) over c [4100, 4900) over a [4200, 4300), d [4400, 4500) (appended at
 *      depth 2): c's end moves its level into level 1, b's emits a 100, c 800, d 100, b 1000.
 *   4. d [6000, 6100) alone: d += 100.
 * Inclusive per round: a 1,300, b 2,000, c 1,000, d 200 ns. */
static void trees_trace(const char *path)
{
    tb *b = tb_create(path, 3, 1000, 1000);
    for (int r = 0; r < ROUNDS; r++) {
        const int64_t o = 10000 + 10000 * (int64_t)r;
        tb_span(b, 3, o + 10, o + 110, 1, "a", "a1");
        tb_span(b, 3, o + 120, o + 220, 1, "c", "c1");
        tb_span(b, 3, o + 230, o + 330, 1, "a", "a2");
        tb_span(b, 3, o + 0, o + 1000, 0, "b", "b1");
        tb_span(b, 3, o + 2100, o + 2200, 1, "a", "a1");
        tb_span(b, 3, o + 2300, o + 2400, 1, "c", "c2");
        tb_span(b, 3, o + 2000, o + 3000, 0, "a", "a3");
        tb_span(b, 3, o + 4200, o + 4300, 2, "a", "a1");
        tb_span(b, 3, o + 4400, o + 4500, 2, "d", "d1");
        tb_span(b, 3, o + 4100, o + 4900, 1, "c", "c1");
        tb_span(b, 3, o + 4000, o + 5000, 0, "b", "b2");
        tb_span(b, 3, o + 6000, o + 6100, 0, "d", "d2");
    }
    tb_close(b, TB_END_CLEAN, 10000 + 10000 * (int64_t)ROUNDS, 0);
}

static void assert_ns(double s, int64_t ns)
{
    const double want = (double)ns * NS;
    assert_true(s > want - 1e-12 * want && s < want + 1e-12 * want);
}

static void test_inclusive_inline_cases(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_ledger_inclusive_%d.wtrace", (int)getpid());
    trees_trace(path);
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++) {
        analyse(path, way, &w[way]);
        assert_ns(aw_cat_named(&w[way], "a")->inclusive, 1300 * ROUNDS);
        assert_ns(aw_cat_named(&w[way], "b")->inclusive, 2000 * ROUNDS);
        assert_ns(aw_cat_named(&w[way], "c")->inclusive, 1000 * ROUNDS);
        assert_ns(aw_cat_named(&w[way], "d")->inclusive, 200 * ROUNDS);
    }
    aw_check_ways(w);
    aw_release_ways(w);
    unlink(path);
}

/* Random trees (depth up to 4, up to 5 children a span, 6 categories, children in any
 * category order) on two threads in turn: the common case and the general path give the
 * same inclusive time, to the nanosecond, whichever of the inline cases each span takes. */
static int64_t emit_tree(tb *b, uint64_t tid, int64_t s, uint32_t depth, unsigned *seed)
{
    static const char *const cats[6] = { "p", "q", "r", "s", "t", "u" };
    int64_t at = s + 1;
    const int kids = depth < 4 ? (int)(rand_r(seed) % 6) : 0;
    for (int k = 0; k < kids; k++)
        at = emit_tree(b, tid, at, depth + 1, seed) + 1;
    const int64_t e = at + 1 + (int64_t)(rand_r(seed) % 50);
    tb_span(b, tid, s, e, depth, cats[rand_r(seed) % 6], "x");
    return e;
}

static void test_inclusive_random_trees(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_ledger_inclusive_r_%d.wtrace", (int)getpid());
    unsigned seed = 12345;
    tb *b = tb_create(path, 4, 1000, 1000);
    int64_t at[2] = { 2000, 2000 };
    for (int i = 0; i < 3000; i++) {
        const int th = i % 7 < 4 ? 0 : 1;
        at[th] = emit_tree(b, th ? 5 : 4, at[th], 0, &seed) + 10;
    }
    tb_close(b, TB_END_CLEAN, (at[0] > at[1] ? at[0] : at[1]) + 10, 0);
    wt_analysis w[AW_WAYS];
    for (int way = 0; way < AW_WAYS; way++)
        analyse(path, way, &w[way]);
    aw_check_ways(w);
    aw_release_ways(w);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inclusive_inline_cases),
        cmocka_unit_test(test_inclusive_random_trees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
