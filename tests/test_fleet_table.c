/* The warehouse tables (analyze/fleet/table.c, docs/FLEET.md) from hand-built traces: each row's
 * times, self time, parent, round and the runs row as computed here by hand; many runs
 * appending into one directory; damaged and unreadable inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include <cmocka.h>

#include "table.h"
#include "tracebuild.h"
#include "walltime/error.h"
#define FLEET_TMP_PREFIX "fleet_table"
#include "fleet_cli.h"

#define S(x) ((int64_t)((x) * 1e9 + 0.5))
/* the UTC of the traces below: monotonic + this (2026-03-01T00:00:00Z) */
#define ORIGIN 1772323200000000000LL
#define RUN_A "0123456789abcdef0123456789abcdef"


/* The decompressed contents of a .zst file, NUL-terminated (caller frees). */
static char *read_zst(const char *path)
{
    size_t n = 0;
    unsigned char *in = tb_read_file(path, &n);
    assert_non_null(in);
    ZSTD_DStream *ds = ZSTD_createDStream();
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    ZSTD_inBuffer ib = { in, n, 0 };
    while (ib.pos < ib.size) {
        if (cap - len < ZSTD_DStreamOutSize()) {
            cap *= 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
        ZSTD_outBuffer ob = { out + len, cap - len - 1, 0 };
        size_t r = ZSTD_decompressStream(ds, &ob, &ib);
        assert_false(ZSTD_isError(r));
        len += ob.pos;
    }
    out[len] = '\0';
    ZSTD_freeDStream(ds);
    free(in);
    return out;
}

static char *table(const char *kind, const char *run_id)
{
    char name[128];
    snprintf(name, sizeof name, "tables/%s-%s.jsonl.zst", kind, run_id);
    return read_zst(tb_path_in(name));
}

/* The line of `text` holding `key`; asserts it holds each of the NULL-terminated `want`. */
static void row_has(const char *text, const char *key, ...)
{
    const char *p = strstr(text, key);
    if (!p)
        fail_msg("no row with %s in:\n%s", key, text);
    const char *b = p, *e = strchr(p, '\n');
    while (b > text && b[-1] != '\n')
        b--;
    char *line = strndup(b, (size_t)(e ? e - b : (ptrdiff_t)strlen(b)));
    va_list ap;
    va_start(ap, key);
    for (const char *w; (w = va_arg(ap, const char *));)
        if (!strstr(line, w))
            fail_msg("row %s lacks %s", line, w);
    va_end(ap);
    free(line);
}

static int lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

static int export_tables(const char *files)
{
    char args[1024];
    snprintf(args, sizeof args, "export --format table -o tables %s", files);
    return fleet_cli(args);
}

/* Run A on host "h1": main thread: load 1-9 s holding read 2-4 (holding open 2.5-3, depth 2)
 * and read 5-6; rounds keep 0.5-5.5 (round 0) and skip 5.5-9.5 (round 1); a counter at 6. */
static void make_run_a(const char *path)
{
    static const tb_origin o = { "h1", "boot-1", RUN_A, ORIGIN, 1500, 77 };
    tb *b = tb_create(path, 100, S(0.25), S(0.5));
    tb_set_origin(b, &o);
    tb_thread_name(b, 100, S(0.5), "main");
    tb_meta(b, 100, S(0.5), "model", "m7");
    tb_meta(b, 100, S(0.5), "rank", "3");
    tb_meta(b, 100, S(0.5), "model", "m8"); /* the last value wins */
    tb_span(b, 100, S(2.5), S(3), 2, "io", "open");
    tb_span_desc d = { .tid = 100, .start = S(2), .end = S(4), .depth = 1, .category = "io",
                       .label = "read", .cached = WT_CACHED_MISS, .bytes = 4096,
                       .detail = "cold" };
    tb_span_ex(b, &d);
    /* in the order a recorder writes them: each at its end */
    tb_round(b, 100, S(0.5), S(5.5), "keep", 0);
    tb_span(b, 100, S(5), S(6), 1, "io", "read");
    tb_counter(b, 100, S(6), "rss", 123456);
    tb_span(b, 100, S(1), S(9), 0, "load", "all");
    tb_round(b, 100, S(5.5), S(9.5), "skip", 1);
    tb_close(b, TB_END_CLEAN, S(10), 0);
}

static void test_table_rows_as_computed_by_hand(void **state)
{
    (void)state;
    make_run_a(tb_path_in("a.wtrace"));
    assert_int_equal(export_tables("a.wtrace"), 0);
    char *spans = table("spans", RUN_A);
    assert_int_equal(lines(spans), 4);
    /* ids in arrival order, a parent's reserved by its first child: open 1 reserves 2 for
     * its parent read, which reserves 3 for load; the second read is 4 */
    row_has(spans, "\"label\":\"open\"", "\"span_id\":1,", "\"parent_id\":2,", "\"depth\":2,",
            "\"self_ns\":500000000,", "\"round\":0,\"config\":\"keep\"",
            "\"start_utc_ns\":1772323202500000000,", "\"start_ns\":2500000000,",
            "\"thread\":\"main\"", "\"cached\":\"\"", NULL);
    row_has(spans, "\"detail\":\"cold\"", "\"span_id\":2,", "\"parent_id\":3,",
            "\"dur_ns\":2000000000,", "\"self_ns\":1500000000,", "\"cached\":\"MISS\"",
            "\"bytes\":4096,", "\"end_utc_ns\":1772323204000000000,", NULL);
    row_has(spans, "\"start_ns\":5000000000,", "\"span_id\":4,", "\"parent_id\":3,",
            "\"self_ns\":1000000000,", "\"round\":0,\"config\":\"keep\"", NULL);
    /* load 8 s minus its children read 2 s and read 1 s */
    row_has(spans, "\"label\":\"all\"", "\"span_id\":3,", "\"parent_id\":0,",
            "\"self_ns\":5000000000,", "\"round\":0,", "\"unclosed\":false", NULL);
    char *counters = table("counters", RUN_A);
    assert_int_equal(lines(counters), 1);
    row_has(counters, "\"name\":\"rss\"", "\"value\":123456,", "\"ts_utc_ns\":1772323206000000000,",
            "\"round\":1,\"config\":\"skip\"", NULL);
    char *runs = table("runs", RUN_A);
    assert_int_equal(lines(runs), 1);
    row_has(runs, RUN_A, "\"schema\":\"walltime-table/1\"", "\"host\":\"h1\"",
            "\"boot_id\":\"boot-1\"", "\"pid\":100,", "\"parent_pid\":77,", "\"rank\":3,",
            "\"start_utc\":\"2026-03-01T00:00:00.250000000Z\"",
            "\"start_utc_ns\":1772323200250000000,", "\"end_ns\":10000000000,",
            "\"wall_ns\":9750000000,", "\"anchor_err_ns\":1500,", "\"ended\":\"clean\"",
            "\"damaged\":false", "\"spans\":4,", "\"counters\":1,",
            "\"meta\":{\"model\":\"m8\",\"rank\":\"3\"}", NULL);
    free(spans);
    free(counters);
    free(runs);
}

/* A trace without the 1.1 fields (run id, boot id): the derived id is the same each time. */
static void make_legacy(const char *path, uint64_t pid)
{
    tb *b = tb_create(path, pid, S(1), S(1));
    tb_span(b, pid, S(1), S(2), 0, "work", "x");
    tb_close(b, TB_END_NONE, 0, 0);
}

static void test_table_runs_append_into_one_directory(void **state)
{
    (void)state;
    make_run_a(tb_path_in("a.wtrace"));
    make_legacy(tb_path_in("b.wtrace"), 200);
    make_legacy(tb_path_in("c.wtrace"), 300);
    assert_int_equal(export_tables("a.wtrace b.wtrace"), 0);
    assert_int_equal(tb_count_files("jsonl.zst"), 0); /* in tables/, not here */
    assert_int_equal(export_tables("c.wtrace"), 0);
    assert_int_equal(export_tables("b.wtrace"), 0); /* again: replaced, not added */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s/tables' | wc -l) -eq 9", tb_tmpdir());
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "test $(ls '%s/tables' | grep -c '^runs-') -eq 3", tb_tmpdir());
    assert_int_equal(system(cmd), 0);
}

static void test_table_damaged_and_unreadable_inputs(void **state)
{
    (void)state;
    make_run_a(tb_path_in("a.wtrace"));
    /* a second run cut in its last frame */
    static const tb_origin o = { "h2", "boot-2", "ffffffffffffffffffffffffffffffff", ORIGIN, 10, 0 };
    tb *b = tb_create(tb_path_in("cut.wtrace"), 400, S(1), S(1));
    tb_set_origin(b, &o);
    tb_span(b, 400, S(1), S(2), 0, "work", "first");
    tb_frame(b);
    for (int i = 0; i < 50; i++)
        tb_span(b, 400, S(3 + i), S(3.5 + i), 0, "work", "later");
    tb_close(b, TB_END_CLEAN, S(60), 0);
    size_t n;
    unsigned char *bytes = tb_read_file(tb_path_in("cut.wtrace"), &n);
    tb_write_file(tb_path_in("cut.wtrace"), bytes, n - 20);
    free(bytes);
    tb_write_file(tb_path_in("junk.wtrace"), (const unsigned char *)"not a trace", 11);
    assert_int_equal(export_tables("a.wtrace cut.wtrace junk.wtrace"), 4);
    char *err = cli_slurp(tb_path_in("err.txt"));
    assert_non_null(strstr(err, "junk.wtrace"));
    assert_non_null(strstr(err, "1 input file(s) could not be read"));
    assert_non_null(strstr(err, "1 damaged input file(s)"));
    free(err);
    char *runs = table("runs", "ffffffffffffffffffffffffffffffff");
    row_has(runs, "\"host\":\"h2\"", "\"damaged\":true", "\"spans\":1,", NULL);
    free(runs);
    runs = table("runs", RUN_A);
    row_has(runs, "\"damaged\":false", NULL);
    free(runs);
}

static void test_table_needs_a_directory(void **state)
{
    (void)state;
    make_run_a(tb_path_in("a.wtrace"));
    assert_int_equal(fleet_cli("export --format table a.wtrace"), 2);
    tb_write_file(tb_path_in("afile"), (const unsigned char *)"x", 1);
    assert_int_equal(fleet_cli("export --format table -o afile a.wtrace"), 1);
}

/* A disk that fills (a file size limit of `limit` bytes, SIGXFSZ ignored as after a shell's
 * `ulimit -f`): the export, in a child, fails with WT_EIO and the cause kept for the message
 * (EFBIG: the command says "File too large"), and leaves no table in the directory. */
static void export_past_a_size_limit(rlim_t limit)
{
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const struct rlimit lim = { limit, limit };
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
            _exit(10);
        char *paths[1] = { (char *)tb_path_in("a.wtrace") };
        wt_table_report rep;
        const int rc = wt_table_export(paths, 1, tb_path_in("full"), &rep);
        _exit(rc != WT_EIO ? 11 : rep.io_errno != EFBIG ? 12 : rep.runs != 0 ? 13 : 0);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    DIR *d = opendir(tb_path_in("full"));
    assert_non_null(d);
    int left = 0;
    for (const struct dirent *e; (e = readdir(d));)
        left += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(left, 0);
}

static void test_table_full_disk_says_why_and_leaves_nothing(void **state)
{
    (void)state;
    make_run_a(tb_path_in("a.wtrace"));
    for (rlim_t limit = 1; limit <= 64; limit *= 4) /* the first table, or a later one */
        export_past_a_size_limit(limit);
}

/* Every table in tables `a` (a folder of the test's) is in `b`, decompressed equal; returns how
 * many. */
static int same_tables(const char *a, const char *b)
{
    DIR *d = opendir(tb_path_in(a));
    assert_non_null(d);
    int n = 0;
    for (const struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
        char *ta = read_zst(tb_path_in(pa)), *tbl = read_zst(tb_path_in(pb));
        assert_string_equal(ta, tbl);
        free(ta);
        free(tbl);
        n++;
    }
    closedir(d);
    return n;
}

/* The same tables from a list (a missing file in it: named, exit 4, the rest exported) and from
 * a folder (a file not named *.wtrace in it) as from the command line. */
static void test_table_inputs_from_a_list_and_a_folder(void **state)
{
    (void)state;
    assert_int_equal(mkdir(tb_path_in("runs"), 0777), 0);
    assert_int_equal(mkdir(tb_path_in("runs/x"), 0777), 0);
    make_run_a(tb_path_in("runs/x/a.wtrace"));
    make_legacy(tb_path_in("runs/b.wtrace"), 200);
    tb_write_file(tb_path_in("runs/readme.txt"), (const unsigned char *)"x", 1);
    static const char list[] = "runs/x/a.wtrace\n\nruns/gone.wtrace\nruns/b.wtrace\n";
    tb_write_file(tb_path_in("list.txt"), (const unsigned char *)list, sizeof list - 1);
    assert_int_equal(fleet_cli("export --format table -o t1 runs/x/a.wtrace runs/b.wtrace"), 0);
    assert_int_equal(fleet_cli("export --format table -o t2 --files-from list.txt"), 4);
    char *err = cli_slurp(tb_path_in("err.txt"));
    assert_non_null(strstr(err, "'runs/gone.wtrace'"));
    assert_non_null(strstr(err, "1 input file(s) could not be read"));
    free(err);
    assert_int_equal(fleet_cli("export --format table -o t3 --json runs"), 0);
    char *out = cli_slurp(tb_path_in("out.txt"));
    assert_non_null(strstr(out, "\"runs\": 2,"));
    free(out);
    assert_int_equal(same_tables("t1", "t2"), 6);
    assert_int_equal(same_tables("t1", "t3"), 6);
    assert_int_equal(same_tables("t3", "t1"), 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_table_rows_as_computed_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_runs_append_into_one_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_damaged_and_unreadable_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_needs_a_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_full_disk_says_why_and_leaves_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_table_inputs_from_a_list_and_a_folder, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
