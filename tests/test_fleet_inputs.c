/* The inputs of the fleet commands (analyze/fleet/inputs.h): `trend` and `export --format
 * table` fed by --files-from (newline or NUL lists, stdin) and by directories, against orders
 * and findings worked out here by hand.
 *
 * The fleet: 120 runs of one host, run i starting i minutes after the first, category `load`
 * 2 s (plus i mod 5 ms) and `step` 1 s; from run 80 on, load is 3 s. The rule's defaults find one
 * change: load at run 80. Run i is in file run%03d.wtrace with number f = 37 i mod 120 (37 is
 * prime to 120: names are not in start order), in folder fleet/batch(f mod 3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs.h"
#include "tracebuild.h"
#define FLEET_TMP_PREFIX "fleet_inputs"
#include "fleet_cli.h"

#define S(x) ((int64_t)((x) * 1e9 + 0.5))
#define ORIGIN 1772323200000000000LL
#define RUNS 120
#define PLANT 80

static int file_of(int i) { return (37 * i) % RUNS; }

/* The folder and name of file number f, relative to the test's directory. */
static const char *fleet_name(int f)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "fleet/batch%d/run%03d.wtrace", f % 3, f);
    return buf;
}

static void make_fleet(void)
{
    assert_int_equal(mkdir(tb_path_in("fleet"), 0777), 0);
    for (int b = 0; b < 3; b++) {
        char d[32];
        snprintf(d, sizeof d, "fleet/batch%d", b);
        assert_int_equal(mkdir(tb_path_in(d), 0777), 0);
    }
    for (int i = 0; i < RUNS; i++) {
        char run_id[33];
        snprintf(run_id, sizeof run_id, "%032x", i + 1);
        tb_origin o = { "node-0", "boot-0", run_id, ORIGIN + S(60.0 * i) - S(100), 1000, 0 };
        tb *b = tb_create(tb_path_in(fleet_name(file_of(i))), 100 + (uint64_t)i, S(100), S(100));
        tb_set_origin(b, &o);
        const double load = (i >= PLANT ? 3.0 : 2.0) + 0.001 * (i % 5);
        tb_span(b, 1, S(100.1), S(100.1 + load), 0, "load", "weights");
        tb_span(b, 1, S(100.1 + load), S(101.1 + load), 0, "step", "forward");
        tb_close(b, TB_END_CLEAN, S(101.2 + load), 0);
    }
}

/* The fleet's files in the order a shell glob of them (fleet, any folder, run*.wtrace) gives:
 * folders, then names, each sorted. */
static void write_list(const char *name, char sep, const char *before, const char *after)
{
    FILE *f = fopen(tb_path_in(name), "wb");
    assert_non_null(f);
    if (before)
        fputs(before, f);
    for (int b = 0; b < 3; b++)
        for (int n = b; n < RUNS; n += 3)
            fprintf(f, "%s%c", fleet_name(n), sep);
    if (after)
        fputs(after, f);
    assert_int_equal(fclose(f), 0);
}

static char *slurp_in(const char *name)
{
    char *s = cli_slurp(abs_in(name));
    assert_non_null(s);
    return s;
}

/* Runs `trend ARGS`, expects exit status `want` and returns its stdout (caller frees). */
static char *trend_out(const char *args, int want)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "trend %s", args);
    assert_int_equal(fleet_cli(cmd), want);
    return slurp_in("out.txt");
}

/* The finding planted: load at run 80, in the file of run 80 (fleet/batch2/run080.wtrace:
 * 37 x 80 = 2960 = 24 x 120 + 80), the only change; every run in the series. */
static void expect_the_plant(const char *json, int runs)
{
    const char *ch = strstr(json, "\"changes\": [");
    assert_non_null(ch);
    assert_non_null(strstr(ch, "\"category\": \"load\""));
    assert_null(strstr(ch, "\"category\": \"step\""));
    assert_non_null(strstr(ch, "\"run_index\": 80,"));
    assert_non_null(strstr(ch, "\"file\": \"fleet/batch2/run080.wtrace\""));
    assert_non_null(strstr(ch, "\"run_id\": \"00000000000000000000000000000051\""));
    char want[64];
    snprintf(want, sizeof want, "\"runs_in_series\": %d", runs);
    assert_non_null(strstr(json, want));
}

static void test_inputs_list_gives_the_command_lines_output(void **state)
{
    (void)state;
    make_fleet();
    write_list("list.txt", '\n', NULL, NULL);
    write_list("list0.bin", '\0', NULL, NULL);
    const char *forms[] = { "--json", "", "--svg chart.svg" };
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        char args[256];
        snprintf(args, sizeof args, "%s fleet/*/run*.wtrace", forms[k]);
        char *argv_out = trend_out(args, 0);
        char *argv_svg = k == 2 ? slurp_in("chart.svg") : NULL;
        const char *via[] = { "--files-from list.txt", "--files-from - <list.txt",
                              "--files-from0 list0.bin", "fleet" };
        for (size_t v = 0; v < sizeof via / sizeof via[0]; v++) {
            snprintf(args, sizeof args, "%s %s", forms[k], via[v]);
            char *out = trend_out(args, 0);
            assert_string_equal(out, argv_out);
            free(out);
            if (argv_svg) {
                char *svg = slurp_in("chart.svg");
                assert_string_equal(svg, argv_svg);
                free(svg);
            }
        }
        if (k == 0)
            expect_the_plant(argv_out, RUNS);
        free(argv_out);
        free(argv_svg);
    }
}

/* Ties of start keep the order given: the list's, then the command line's. */
static void test_inputs_ties_keep_the_lists_order_then_argvs(void **state)
{
    (void)state;
    const char *names[] = { "a.wtrace", "b.wtrace", "c.wtrace" };
    for (int i = 0; i < 3; i++) {
        tb *b = tb_create(tb_path_in(names[i]), 100 + (uint64_t)i, S(100), S(100));
        tb_span(b, 1, S(100.1), S(100.2 + i), 0, "load", "weights");
        tb_close(b, TB_END_CLEAN, S(103), 0);
    }
    FILE *f = fopen(tb_path_in("ties.txt"), "w");
    assert_non_null(f);
    fputs("c.wtrace\n\nb.wtrace\n", f);
    assert_int_equal(fclose(f), 0);
    char *out = trend_out("--json --files-from ties.txt a.wtrace", 0);
    const char *c = strstr(out, "\"file\": \"c.wtrace\""), *b = strstr(out, "\"file\": \"b.wtrace\"");
    const char *a = strstr(out, "\"file\": \"a.wtrace\"");
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_true(c < b && b < a);
    free(out);
}

static void test_inputs_a_directory_walk_with_other_files_and_links(void **state)
{
    (void)state;
    make_fleet();
    write_list("list.txt", '\n', NULL, NULL);
    /* what the walk passes over: files not named *.wtrace, a link back to a folder above (a
     * loop if it were followed) */
    tb_write_file(tb_path_in("fleet/notes.txt"), (const unsigned char *)"x", 1);
    tb_write_file(tb_path_in("fleet/batch1/run001.wtrace.bak"), (const unsigned char *)"x", 1);
    assert_int_equal(symlink("..", tb_path_in("fleet/batch0/up")), 0);
    char *listed = trend_out("--json --files-from list.txt", 0);
    char *walked = trend_out("--json fleet/", 0);
    char *err = slurp_in("err.txt");
    assert_string_equal(err, "");
    assert_string_equal(walked, listed);
    expect_the_plant(walked, RUNS);
    free(listed);
    free(walked);
    free(err);
}

static void test_inputs_a_missing_file_and_an_over_long_line(void **state)
{
    (void)state;
    make_fleet();
    char before[5200];
    memset(before, 'x', 5000);
    snprintf(before + 5000, sizeof before - 5000, "\n");
    /* line 1 a missing file, 2 empty, 3 over-long; the fleet from line 4 */
    char lead[5300];
    snprintf(lead, sizeof lead, "fleet/missing.wtrace\n\n%s", before);
    write_list("list.txt", '\n', lead, NULL);
    char *out = trend_out("--json --files-from list.txt", 4);
    char *err = slurp_in("err.txt");
    assert_non_null(strstr(err, "'fleet/missing.wtrace'"));
    assert_non_null(strstr(err, "trend: 'list.txt' line 3: a path longer than PATH_MAX; left out"));
    assert_non_null(strstr(err, "0 damaged and 2 unreadable file(s) left out of the series"));
    expect_the_plant(out, RUNS);
    assert_non_null(strstr(out, "\"files_failed\": 2"));
    free(out);
    free(err);
    /* a NUL byte in a line list: that line is named (a NUL list wants --files-from0) */
    FILE *f = fopen(tb_path_in("nul.txt"), "wb");
    assert_non_null(f);
    fwrite("fleet/a\0b\n", 1, 10, f);
    assert_int_equal(fclose(f), 0);
    out = trend_out("--files-from nul.txt fleet", 4);
    err = slurp_in("err.txt");
    assert_non_null(strstr(err, "'nul.txt' line 1: a NUL byte in the path"));
    assert_non_null(strstr(out, "trend: 120 runs"));
    free(out);
    free(err);
}

static void test_inputs_an_empty_list_and_a_missing_one(void **state)
{
    (void)state;
    tb_write_file(tb_path_in("empty.txt"), (const unsigned char *)"\n\n", 2);
    char *out = trend_out("--files-from empty.txt", 1);
    char *err = slurp_in("err.txt");
    assert_non_null(strstr(err, "trend: no trace file: the lists and directories given named none"));
    free(out);
    free(err);
    assert_int_equal(fleet_cli("export -f table -o tables --files-from empty.txt"), 1);
    err = slurp_in("err.txt");
    assert_non_null(strstr(err, "export: no trace file"));
    free(err);
    assert_int_equal(fleet_cli("trend --files-from nothere.txt"), 1);
    err = slurp_in("err.txt");
    assert_non_null(strstr(err, "trend: cannot open the list 'nothere.txt': No such file"));
    free(err);
    assert_int_equal(fleet_cli("export --files-from empty.txt -o x.json"), 2);
    err = slurp_in("err.txt");
    assert_non_null(strstr(err, "--files-from is for --format table"));
    free(err);
}

static void test_inputs_an_unreadable_folder_is_named(void **state)
{
    (void)state;
    if (geteuid() == 0) {
        /* root reads a folder of mode 0 all the same */
        print_message("skipped: running as root\n");
        skip();
    }
    make_fleet();
    assert_int_equal(chmod(tb_path_in("fleet/batch1"), 0), 0);
    char *out = trend_out("fleet", 4);
    char *err = slurp_in("err.txt");
    chmod(tb_path_in("fleet/batch1"), 0755);
    assert_non_null(strstr(err, "trend: cannot read the directory 'fleet/batch1'"));
    assert_non_null(strstr(out, "trend: 80 runs"));
    free(out);
    free(err);
}

/* ---- the inputs on their own ---- */

/* Every path `in` gives, joined by '|'. */
static char *all_paths(wt_inputs *in)
{
    static char got[8192];
    char path[WT_INPUTS_PATH_MAX];
    size_t len = 0;
    got[0] = '\0';
    int rc;
    while ((rc = wt_inputs_next(in, path)) == 1)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", len ? "|" : "", path);
    assert_int_equal(rc, 0);
    return got;
}

static void test_inputs_order_of_lists_paths_and_a_walk(void **state)
{
    (void)state;
    static const char *const dirs[] = { "d", "d/a", "d/a/y", "d/a.b" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        assert_int_equal(mkdir(tb_path_in(dirs[i]), 0777), 0);
    static const char *const files[] = { "d/b.wtrace", "d/a/z.wtrace", "d/a/y/x.wtrace",
                                         "d/a.wtrace", "d/a.b/c.wtrace", "d/n.txt", "d/.wtrace" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        tb_write_file(tb_path_in(files[i]), (const unsigned char *)"x", 1);
    assert_int_equal(symlink("a", tb_path_in("d/l")), 0);             /* not entered */
    assert_int_equal(symlink("b.wtrace", tb_path_in("d/m.wtrace")), 0); /* taken */
    tb_write_file(tb_path_in("l1"), (const unsigned char *)"p\n\nq\nr", 6);
    tb_write_file(tb_path_in("l0"), (const unsigned char *)"s t\0\0u\n\0", 8);
    assert_int_equal(chdir(tb_tmpdir()), 0);
    wt_inputs *in = NULL;
    assert_int_equal(wt_inputs_create("test", &in), 0);
    assert_int_equal(wt_inputs_add_list(in, "l1", 0), 0);
    static char *const walk[] = { "d/" }, *const last[] = { "e.wtrace", "f.wtrace" };
    assert_int_equal(wt_inputs_add_paths(in, walk, 1), 0);
    assert_int_equal(wt_inputs_add_list(in, "l0", 1), 0);
    assert_int_equal(wt_inputs_add_paths(in, last, 2), 0);
    assert_int_equal(wt_inputs_add_list(in, "none", 0), WT_EOPEN);
    /* by hand: each folder's entries in byte order ("a" < "a.b" < "a.wtrace" < "b.wtrace"),
     * a folder's traces in its place */
    assert_string_equal(all_paths(in), "p|q|r|d/a/y/x.wtrace|d/a/z.wtrace|d/a.b/c.wtrace|"
                                       "d/a.wtrace|d/b.wtrace|d/m.wtrace|s t|u\n|e.wtrace|f.wtrace");
    assert_int_equal(wt_inputs_failed(in), 0);
    wt_inputs_free(in);
    assert_int_equal(chdir(".."), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_inputs_list_gives_the_command_lines_output, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_inputs_ties_keep_the_lists_order_then_argvs, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_inputs_a_directory_walk_with_other_files_and_links,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_inputs_a_missing_file_and_an_over_long_line, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_inputs_an_empty_list_and_a_missing_one, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_inputs_an_unreadable_folder_is_named, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_inputs_order_of_lists_paths_and_a_walk, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
