/* The writer's compression budget (libtrace/src/rec_zbudget.h) on made-up clock readings:
 * the share of wall time compression gets over a long stretch, the burst a full bucket
 * allows, the two ends of the setting, and clocks that go back or jump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rec_zbudget.h"

#define MS 1000000LL

static void test_zbudget_ends_of_the_setting(void **state)
{
    (void)state;
    wt__zbudget b;
    wt__zbudget_init(&b, 100, 0);
    for (int i = 0; i < 100; i++) {
        assert_true(wt__zbudget_take(&b, i)); /* no wall passes, any debt: still compressed */
        wt__zbudget_spend(&b, 1000 * MS);
    }
    wt__zbudget_init(&b, 0, 0);
    assert_false(wt__zbudget_take(&b, 0)); /* a full bucket, but 0 % means none */
    assert_false(wt__zbudget_take(&b, 1000000 * MS));
    /* out-of-range settings are clamped, not taken as they are */
    wt__zbudget_init(&b, 250, 0);
    assert_int_equal(b.pct, 100);
    wt__zbudget_init(&b, -3, 0);
    assert_int_equal(b.pct, 0);
}

/* A writer that compresses whenever it may: frames come every 2 ms of wall, each costs 3 ms
 * of CPU to compress. Over 10 s, a 10 % share is 1 s of compression, plus the bucket's first
 * fill (5 ms) and at most one frame's overdraft: 333 to 336 of the 5,000 frames. */
static void test_zbudget_long_run_share_is_the_setting(void **state)
{
    (void)state;
    wt__zbudget b;
    wt__zbudget_init(&b, 10, 0);
    int64_t spent = 0;
    int compressed = 0, frames = 0;
    for (int64_t now = 0; now < 10000 * MS; now += 2 * MS) {
        frames++;
        if (wt__zbudget_take(&b, now)) {
            wt__zbudget_spend(&b, 3 * MS);
            spent += 3 * MS;
            compressed++;
        }
    }
    assert_int_equal(frames, 5000);
    assert_in_range(compressed, 333, 336);
    assert_true(spent <= 1000 * MS + WT__ZBUDGET_CAP + 3 * MS);
}

/* A full bucket lets a burst through whole: CAP of CPU in 1 ms frames, at one instant; the
 * next frame is stored, and the wall time that pays the debt back at 10 % compresses again. */
static void test_zbudget_burst_then_debt_then_credit(void **state)
{
    (void)state;
    wt__zbudget b;
    wt__zbudget_init(&b, 10, 5 * MS);
    int burst = 0;
    while (wt__zbudget_take(&b, 5 * MS)) {
        wt__zbudget_spend(&b, 1 * MS);
        burst++;
    }
    assert_int_equal(burst, WT__ZBUDGET_CAP / MS);
    assert_int_equal(b.credit, 0);
    /* 10 % of 5 ns is no whole ns: nothing yet, and the 5 ns still count later */
    assert_false(wt__zbudget_take(&b, 5 * MS + 5));
    assert_true(wt__zbudget_take(&b, 5 * MS + 10)); /* 1 ns of credit */
    /* a debt of 4 ms takes 40 ms of wall to pay back */
    wt__zbudget_spend(&b, 4 * MS + 1);
    assert_false(wt__zbudget_take(&b, 5 * MS + 10 + 40 * MS - 10));
    assert_true(wt__zbudget_take(&b, 5 * MS + 10 + 40 * MS + 10));
    /* a long idle stretch fills the bucket to its cap, no further */
    wt__zbudget_take(&b, 100000 * MS);
    assert_int_equal(b.credit, WT__ZBUDGET_CAP);
}

static void test_zbudget_hostile_clocks(void **state)
{
    (void)state;
    wt__zbudget b;
    wt__zbudget_init(&b, 10, 50 * MS);
    wt__zbudget_spend(&b, WT__ZBUDGET_CAP + MS);
    /* the clock going back adds nothing, and does not move the mark back */
    assert_false(wt__zbudget_take(&b, 0));
    assert_false(wt__zbudget_take(&b, 50 * MS + 5 * MS));
    assert_true(wt__zbudget_take(&b, 50 * MS + 10 * MS + 10));
    /* jumps across the whole range: no overflow (UBSan), the bucket at most full */
    wt__zbudget_init(&b, 99, INT64_MIN);
    assert_true(wt__zbudget_take(&b, INT64_MAX));
    assert_int_equal(b.credit, WT__ZBUDGET_CAP);
    /* a debt past any reading stays bounded, and negative CPU readings spend nothing */
    for (int i = 0; i < 4; i++)
        wt__zbudget_spend(&b, INT64_MAX);
    assert_true(b.credit < 0);
    const int64_t debt = b.credit;
    wt__zbudget_spend(&b, -5 * MS);
    assert_int_equal(b.credit, debt);
    assert_false(wt__zbudget_take(&b, INT64_MAX));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zbudget_ends_of_the_setting),
        cmocka_unit_test(test_zbudget_long_run_share_is_the_setting),
        cmocka_unit_test(test_zbudget_burst_then_debt_then_credit),
        cmocka_unit_test(test_zbudget_hostile_clocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
