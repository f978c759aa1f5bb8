/* Runs of several hosts (analyze/core/clocks.c): 8 hosts x 8 ranks written with tracebuild on
 * shifted monotonic clocks (each host booted at another time), different host names and boot
 * ids. The ledger must see one run on UTC: wall and straggler as computed here by hand; files
 * of one boot stay on their monotonic clock even when their UTC anchors disagree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tracebuild.h"
#define FLEET_TMP_PREFIX "fleet_hosts"
#include "fleet_cli.h"

#define S(x) ((int64_t)((x) * 1e9 + 0.5))
#define ORIGIN 1772323200000000000LL /* 2026-03-01T00:00:00Z */
#define HOSTS 8
#define RANKS 8


static int run(const char *args, char **out, char **err)
{
    int st = fleet_cli(args);
    *out = cli_slurp(abs_in("out.txt"));
    *err = cli_slurp(abs_in("err.txt"));
    assert_non_null(*out);
    assert_non_null(*err);
    return st;
}

/* The number after "key": at or after `from` in a JSON text. */
static double json_num(const char *text, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(text, pat);
    if (!p)
        fail_msg("no %s in %s", key, text);
    return strtod(p + strlen(pat), NULL);
}

/* One rank's trace. Host h booted (1000 + 3600 h) s before ORIGIN, so its monotonic clock reads
 * that much at ORIGIN. The rank starts at UTC ORIGIN + 10 s + rank x 10 ms, loads for 2 s (the
 * straggler 5 s) from 0.1 s in, then steps 1 s, and ends 0.1 s later. */
static void make_rank(int h, int k, double load_s)
{
    static char hosts[HOSTS][16], boots[HOSTS][16];
    snprintf(hosts[h], sizeof hosts[h], "node-%d", h);
    snprintf(boots[h], sizeof boots[h], "boot-%d", h);
    const int rank = h * RANKS + k;
    const int64_t boot_ago = S(1000 + 3600.0 * h);
    const int64_t mono0 = boot_ago + S(10 + rank * 0.01); /* the rank's start on its host */
    char run_id[33], name[64], rank_s[16];
    snprintf(run_id, sizeof run_id, "%032x", rank + 1);
    tb_origin o = { hosts[h], boots[h], run_id, ORIGIN - boot_ago, 1000 * (h + 1), 0 };
    snprintf(name, sizeof name, "r%02d.wtrace", rank);
    tb *b = tb_create(tb_path_in(name), 1000 + (uint64_t)rank, mono0, mono0);
    tb_set_origin(b, &o);
    snprintf(rank_s, sizeof rank_s, "%d", rank);
    tb_meta(b, 1, mono0, "rank", rank_s);
    const uint64_t tid = 1000 + (uint64_t)rank;
    int64_t t = mono0 + S(0.1);
    tb_span(b, tid, t, t + S(load_s), 0, "load", "weights");
    t += S(load_s);
    tb_span(b, tid, t, t + S(1), 0, "step", "forward");
    tb_close(b, TB_END_CLEAN, t + S(1.1), 0);
}

static void test_hosts_align_on_utc(void **state)
{
    (void)state;
    for (int h = 0; h < HOSTS; h++)
        for (int k = 0; k < RANKS; k++)
            make_rank(h, k, h == 5 && k == 3 ? 5.0 : 2.0);
    /* host 3's files first: the timeline's reference is not host 0 */
    char args[8192] = "ledger --json";
    for (int i = 0; i < HOSTS * RANKS; i++)
        snprintf(args + strlen(args), sizeof args - strlen(args), " r%02d.wtrace",
                 (i + 3 * RANKS) % (HOSTS * RANKS));
    char *out, *err;
    assert_int_equal(run(args, &out, &err), 0);
    /* earliest start rank 0 at 10.00 s; latest end rank 43: 10.43 + 0.1 + 5 + 1 + 0.1 */
    assert_float_equal(json_num(out, "wall_s"), 16.63 - 10.00, 1e-6);
    /* load: 63 ranks of 2 s and one of 5 s, each on its own timeline slot */
    assert_float_equal(json_num(out, "straggler_s"), 5.0 - 2.0, 1e-6);
    assert_non_null(strstr(out, "\"straggler_process\": \"rank 43 (pid 1043)\""));
    assert_non_null(strstr(err, "64 files of 8 clocks"));
    assert_non_null(strstr(err, "read within 8.0 us")); /* host 7's anchor: 8000 ns */
    free(out);
    free(err);

    /* the text ledger adds the stragglers by host and rank: 64 rows, node-5's rank 43 the
     * slowest of all in load, each other host's slowest rank (all 2 s: every rank ties) '+' */
    assert_int_equal(run("ledger r*.wtrace", &out, &err), 0);
    const char *tab = strstr(out, "STRAGGLERS BY HOST AND RANK");
    assert_non_null(tab);
    assert_non_null(strstr(tab, "node-5                     43       1043"));
    const char *row = strstr(tab, "node-5                     43");
    assert_non_null(row);
    assert_non_null(strstr(row, "*"));
    assert_true(strstr(row, "*") < strchr(row, '\n'));
    assert_non_null(strstr(tab, "node-0                      0       1000"));
    free(out);
    free(err);

    /* the same 64 on one Perfetto timeline */
    snprintf(args, sizeof args, "export -o all.pftrace r*.wtrace");
    assert_int_equal(run(args, &out, &err), 0);
    free(out);
    free(err);
}

/* Two processes of one boot whose UTC anchors disagree by 5 ms (the host's UTC was stepped
 * between them): they stay on CLOCK_MONOTONIC, exact, and nothing is said. */
static void test_one_boot_stays_monotonic(void **state)
{
    (void)state;
    tb_origin o = { "node-x", "boot-x", "0000000000000000000000000000000a", ORIGIN, 500, 0 };
    tb *b = tb_create(tb_path_in("p1.wtrace"), 11, S(100), S(100));
    tb_set_origin(b, &o);
    tb_span(b, 11, S(100), S(101), 0, "work", "a");
    tb_close(b, TB_END_CLEAN, S(101), 0);
    o.run_id = "0000000000000000000000000000000b";
    o.real_minus_mono = ORIGIN + S(0.005);
    b = tb_create(tb_path_in("p2.wtrace"), 12, S(101), S(101));
    tb_set_origin(b, &o);
    tb_span(b, 12, S(101), S(102), 0, "work", "b");
    tb_close(b, TB_END_CLEAN, S(102), 0);
    char *out, *err;
    assert_int_equal(run("ledger --json p1.wtrace p2.wtrace", &out, &err), 0);
    /* back to back on one clock: wall 2 s, covered 2 s (on UTC they would overlap 5 ms) */
    assert_float_equal(json_num(out, "wall_s"), 2.0, 1e-9);
    assert_float_equal(json_num(out, "covered_s"), 2.0, 1e-9);
    assert_null(strstr(err, "clocks"));
    free(out);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hosts_align_on_utc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_boot_stays_monotonic, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
