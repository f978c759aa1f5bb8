/* The files of a parent and its forked children (forkorder.c): the analyses read a child's
 * file before its parent's, whatever the order given, so that the child's work takes the wall
 * it covered, as a worker thread's does; unrelated files keep their order. Hand-built traces,
 * values by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis.h"
#include "analysis_ways.h"
#include "forkorder.h"
#include "tracebuild.h"

#define MS 1000000LL

static char paths[4][64];

/* File k: process pid, forked from ppid (0: none) on host "h", started at `start` ms, its
 * main thread's spans [s, e) ms of one category each, ending at `end` ms. */
static void write_file(int k, uint64_t pid, uint64_t ppid, const char *host, int64_t start,
                       const int64_t (*se)[2], int n, const char *cat, int64_t end)
{
    snprintf(paths[k], sizeof paths[k], "test_forks_%d_%d.wtrace", (int)getpid(), k);
    tb *b = tb_create(paths[k], pid, start * MS, start * MS);
    const tb_origin o = { host, "boot-1", NULL, 0, 0, ppid };
    tb_set_origin(b, &o);
    for (int i = 0; i < n; i++)
        tb_span(b, pid, se[i][0] * MS, se[i][1] * MS, 0, cat, "x");
    tb_close(b, TB_END_CLEAN, end * MS, 0);
}

/* Parent 100 (from 0): load 10-110 around the fork and the wait. Children 101 and 102 (from
 * 12 and 13): convert 20-60 and 30-90, so together 20-90 of the parent's load. Given parent
 * first, convert must get 70 ms of the wall and load 30, what children first gives. A fourth
 * file, pid 101 on another host forked from 100 there, is not the parent's child. */
static void test_forks_children_take_their_wall_first(void **state)
{
    (void)state;
    const int64_t load[1][2] = { { 10, 110 } }, c1[1][2] = { { 20, 60 } },
                  c2[1][2] = { { 30, 90 } }, other[1][2] = { { 5, 8 } };
    write_file(0, 100, 1, "h", 0, load, 1, "load", 120);
    write_file(1, 101, 100, "h", 12, c1, 1, "convert", 61);
    write_file(2, 102, 100, "h", 13, c2, 1, "convert", 91);
    write_file(3, 101, 100, "elsewhere", 0, other, 1, "remote", 9);
    char *given[4] = { paths[0], paths[3], paths[1], paths[2] };
    char **ordered = wt_fork_order(given, 4);
    assert_non_null(ordered);
    /* children (depth 1) first in the order given, then the others in the order given */
    assert_string_equal(ordered[0], paths[1]);
    assert_string_equal(ordered[1], paths[2]);
    assert_string_equal(ordered[2], paths[0]);
    assert_string_equal(ordered[3], paths[3]);
    free(ordered);

    wt_analysis a;
    assert_int_equal(wt_analysis_run(given, 4, NULL, &a), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(a.lc);
    assert_float_equal(aw_cat_named(&a, "convert")->seconds, 0.070, 1e-9);
    assert_float_equal(aw_cat_named(&a, "load")->seconds, 0.030, 1e-9);
    assert_float_equal(aw_cat_named(&a, "remote")->seconds, 0.003, 1e-9);
    /* the union of the processes' spans: 5-8 and 10-110 */
    assert_float_equal(r->covered, 0.103, 1e-9);
    wt_analysis_release(&a);
    for (int k = 0; k < 4; k++)
        unlink(paths[k]);
}

/* A grandchild before its parent, which is before the root; pid reuse that would make a cycle
 * (each the other's parent) cannot loop: both keep a depth and every path comes out once. */
static void test_forks_grandchildren_first_and_cycles_end(void **state)
{
    (void)state;
    const int64_t sp[1][2] = { { 1, 2 } };
    write_file(0, 10, 0, "h", 0, sp, 1, "a", 3);  /* root */
    write_file(1, 11, 10, "h", 0, sp, 1, "b", 3); /* child of 10 */
    write_file(2, 12, 11, "h", 0, sp, 1, "c", 3); /* grandchild */
    char *given[3] = { paths[0], paths[1], paths[2] };
    char **ordered = wt_fork_order(given, 3);
    assert_non_null(ordered);
    assert_string_equal(ordered[0], paths[2]);
    assert_string_equal(ordered[1], paths[1]);
    assert_string_equal(ordered[2], paths[0]);
    free(ordered);
    write_file(0, 20, 21, "h", 0, sp, 1, "a", 3);
    write_file(1, 21, 20, "h", 0, sp, 1, "b", 3);
    char *pair[2] = { paths[0], paths[1] };
    char **out = wt_fork_order(pair, 2);
    assert_non_null(out);
    assert_true((out[0] == paths[0] && out[1] == paths[1]) ||
                (out[0] == paths[1] && out[1] == paths[0]));
    free(out);
    for (int k = 0; k < 3; k++)
        unlink(paths[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forks_children_take_their_wall_first),
        cmocka_unit_test(test_forks_grandchildren_first_and_cycles_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
