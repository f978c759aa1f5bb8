/* compare over the ranks of a distributed run: traces built by hand (one per rank, as a
 * launcher's workers write them), read back through the reader into both passes, and the
 * combined rounds checked against maxima worked out from the test's own numbers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compare.h"
#include "tracebuild.h"
#include "walltime/reader.h"

#define MS 1000000LL

/* One rank's trace: rank `rank` (NULL: no rank metadata), pid `pid`, recording from open_ms;
 * keep and skip alternate, round r of keep lasting keep_ms[r] and of skip skip_ms[r], with
 * load/from_pretrained 0.5 ms in from each end (so 1 ms shorter), a HIT weight_load span
 * inside it and device_bytes `bytes` near the round's end. Rounds start at open + 10 ms and
 * follow each other 5 ms apart. */
static void rank_trace(const char *path, const char *rank, uint64_t pid, int64_t open_ms, const double *keep_ms,
                       const double *skip_ms, int rounds, int64_t bytes)
{
    tb *b = tb_create(path, pid, 0, open_ms * MS);
    if (rank)
        tb_meta(b, pid, open_ms * MS + MS, "rank", rank);
    int64_t t = (open_ms + 10) * MS;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
            const int64_t d = llround((k ? skip_ms : keep_ms)[r] * MS);
            tb_span_ex(b, &(tb_span_desc){ .tid = pid, .start = t + MS, .end = t + 2 * MS, .depth = 1,
                                           .category = "weight_load", .label = "layers.0",
                                           .cached = WT_CACHED_HIT });
            tb_span(b, pid, t + MS / 2, t + d - MS / 2, 0, "load", "from_pretrained");
            tb_counter(b, pid, t + d - MS / 4, "device_bytes", bytes);
            tb_round(b, pid, t, t + d, k ? "skip" : "keep", r);
            t += d + 5 * MS;
        }
    tb_close(b, TB_END_CLEAN, t, 0);
}

/* Both passes over the files, as walltime-analyze compare --rounds reads them. */
static wt_compare *compare_files(char *const *paths, int n)
{
    wt_compare *c = wt_compare_create(NULL);
    assert_non_null(c);
    for (int pass = 1; pass <= 2; pass++)
        for (int i = 0; i < n; i++) {
            wt_reader *r = NULL;
            assert_int_equal(wt_reader_open(paths[i], &r), 0);
            if (pass == 1)
                assert_int_equal(wt_compare_file_begin(c, 0, paths[i], wt_reader_info(r)), i);
            else
                assert_int_equal(wt_compare_file_resume(c, i), 0);
            wt_event ev;
            int got;
            while ((got = wt_reader_next(r, &ev)) == 1)
                assert_int_equal(wt_compare_event(c, &ev), 0);
            assert_int_equal(got, 0);
            if (pass == 1)
                assert_int_equal(wt_compare_file_end(c), 0);
            wt_reader_free(r);
        }
    assert_int_equal(wt_compare_finish(c), 0);
    return c;
}

/* What `walltime-analyze compare ARGS` prints (caller frees), run in the test's directory. */
static char *cli_stdout(const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cd '%s' && %s compare %s", tb_tmpdir(), WT_ANALYZE_BIN, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    for (size_t got; (got = fread(out + n, 1, cap - 1 - n, p)) > 0;)
        n += got;
    out[n] = 0;
    assert_int_equal(pclose(p), 0);
    return out;
}

static int setup(void **state)
{
    return tb_tmpdir_enter("wt_cmplaunch");
}

static int teardown(void **state)
{
    return tb_tmpdir_leave();
}

static const double keep0[3] = { 100, 104, 102 }, skip0[3] = { 60, 63, 61 };
static const double keep1[3] = { 110, 101, 103 }, skip1[3] = { 58, 66, 61 };

static void test_compare_ranks_of_one_launch_are_one_round_each(void **state)
{
    char *paths[2] = { strdup(tb_path_in("r0.wtrace")), strdup(tb_path_in("r1.wtrace")) };
    rank_trace(paths[0], "0", 501, 1, keep0, skip0, 3, 1000);
    rank_trace(paths[1], "1", 502, 1, keep1, skip1, 3, 1200);
    wt_compare *c = compare_files(paths, 2);
    /* 3 alternations, seen by 2 processes: 3 rounds per configuration, 3 pairs, not 6 */
    assert_int_equal(c->n_launches, 1);
    assert_int_equal(c->files[0].launch, c->files[1].launch);
    assert_int_equal(c->configs[0].n_rounds, 3);
    assert_int_equal(c->configs[1].n_rounds, 3);
    assert_int_equal(c->pairs[0].n_pairs, 3);
    const wt_cmp_pair_stage *ps = &c->pairs[0].stage[0];
    assert_int_equal(ps->paired.n, 3);
    assert_int_equal(ps->paired.verdict, WT_VERDICT_TOO_FEW);
    /* each round is its slowest rank's: keep max(100, 110), max(104, 101), max(102, 103) */
    const wt_cmp_cell *k = wt_compare_cell(c, 0, 0), *s = wt_compare_cell(c, 1, 0);
    assert_true(k->per_round[0] == 110.0 && k->per_round[1] == 104.0 && k->per_round[2] == 103.0);
    assert_true(s->per_round[0] == 60.0 && s->per_round[1] == 66.0 && s->per_round[2] == 61.0);
    /* paired d = 110 - 60, 104 - 66, 103 - 61 */
    assert_true(ps->diff[0] == 50.0 && ps->diff[1] == 38.0 && ps->diff[2] == 42.0);
    /* a stage too: from_pretrained = round - 1 ms, of the slowest rank in that stage */
    const long fp = wt_compare_find_stage(c, "load/from_pretrained");
    assert_true(fp > 0);
    assert_true(wt_compare_cell(c, 0, (size_t)fp)->per_round[0] == 109.0);
    assert_true(wt_compare_cell(c, 1, (size_t)fp)->per_round[1] == 65.0);
    /* HIT counts add up over the ranks: 3 rounds x 2 processes; the counter is the largest */
    const long wl = wt_compare_find_stage(c, "weight_load/layers.0");
    assert_true(wl > 0);
    assert_int_equal(wt_compare_cell(c, 0, (size_t)wl)->hits, 6);
    assert_true(c->configs[0].ctr[0].median == 1200.0);
    for (size_t i = 0; i < c->configs[0].n_rounds; i++)
        assert_int_equal(c->rounds[c->configs[0].rounds[i]].n_procs, 2);
    assert_null(wt_compare_find_warning(c, "partial_launch"));
    /* what the user reads: 3 rounds, 3 pairs, and how many processes each round holds */
    char *text = cli_stdout("--rounds r0.wtrace r1.wtrace");
    assert_non_null(strstr(text, "'keep' 3 rounds, 'skip' 3 rounds"));
    assert_non_null(strstr(text, "one launch of 2 processes (ranks 0, 1): each round combined"));
    assert_non_null(strstr(text, "(3 pairs, 95% interval)"));
    free(text);
    wt_compare_free(c);
    free(paths[0]);
    free(paths[1]);
}

/* Two launches one after the other (each 2 ranks), and a process without a rank: the
 * launches' rounds stay distinct, each combined over its own ranks; the unranked file's rounds
 * are its own. */
static void test_compare_ranks_of_different_launches_stay_apart(void **state)
{
    char *paths[5] = { strdup(tb_path_in("a0.wtrace")), strdup(tb_path_in("a1.wtrace")),
                       strdup(tb_path_in("b0.wtrace")), strdup(tb_path_in("b1.wtrace")),
                       strdup(tb_path_in("solo.wtrace")) };
    rank_trace(paths[0], "0", 601, 1, keep0, skip0, 3, 1000);
    rank_trace(paths[1], "1", 602, 1, keep1, skip1, 3, 1000);
    /* the second launch starts 10 s later, after the first has ended */
    rank_trace(paths[2], "0", 701, 10000, keep0, skip0, 3, 1000);
    rank_trace(paths[3], "1", 702, 10000, keep1, skip1, 3, 1000);
    rank_trace(paths[4], NULL, 801, 20000, keep0, skip0, 3, 1000);
    wt_compare *c = compare_files(paths, 5);
    assert_int_equal(c->n_launches, 2);
    assert_int_equal(c->files[0].launch, c->files[1].launch);
    assert_int_equal(c->files[2].launch, c->files[3].launch);
    assert_true(c->files[0].launch != c->files[2].launch);
    assert_true(c->files[4].launch != c->files[0].launch && c->files[4].launch != c->files[2].launch);
    /* 3 rounds from each launch and 3 from the lone process: 9 */
    assert_int_equal(c->configs[0].n_rounds, 9);
    assert_int_equal(c->pairs[0].n_pairs, 9);
    /* round 0 of keep: launch a 110, launch b 110, the lone process 100 (file order) */
    const wt_cmp_cell *k = wt_compare_cell(c, 0, 0);
    assert_true(k->per_round[0] == 110.0 && k->per_round[1] == 110.0 && k->per_round[2] == 100.0);
    size_t procs = 0;
    for (size_t i = 0; i < c->configs[0].n_rounds; i++)
        procs += c->rounds[c->configs[0].rounds[i]].n_procs;
    assert_int_equal(procs, 3 * 2 + 3 * 2 + 3);
    wt_compare_free(c);
    /* the two launches as sides: each launch's line says its side (it read twice alike) */
    char *text = cli_stdout("--a a0.wtrace a1.wtrace --b b0.wtrace b1.wtrace");
    assert_non_null(strstr(text, "  a: one launch of 2 processes (ranks 0, 1)"));
    assert_non_null(strstr(text, "  b: one launch of 2 processes (ranks 0, 1)"));
    free(text);
    for (int i = 0; i < 5; i++)
        free(paths[i]);
}

/* Rank 1 stopped after 2 alternations: the third round is rank 0's alone, and said. */
static void test_compare_launch_round_missing_a_rank_is_warned(void **state)
{
    char *paths[2] = { strdup(tb_path_in("p0.wtrace")), strdup(tb_path_in("p1.wtrace")) };
    rank_trace(paths[0], "0", 901, 1, keep0, skip0, 3, 1000);
    rank_trace(paths[1], "1", 902, 1, keep1, skip1, 2, 1000);
    wt_compare *c = compare_files(paths, 2);
    assert_int_equal(c->configs[0].n_rounds, 3);
    const wt_cmp_cell *k = wt_compare_cell(c, 0, 0);
    assert_true(k->per_round[0] == 110.0 && k->per_round[1] == 104.0 && k->per_round[2] == 102.0);
    assert_int_equal(c->rounds[c->configs[0].rounds[2]].n_procs, 1);
    const wt_cmp_warning *w = wt_compare_find_warning(c, "partial_launch");
    assert_non_null(w);
    assert_non_null(strstr(w->message, "2 combined rounds lack a process"));
    wt_compare_free(c);
    free(paths[0]);
    free(paths[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_compare_ranks_of_one_launch_are_one_round_each, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_ranks_of_different_launches_stay_apart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_launch_round_missing_a_rank_is_warned, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
