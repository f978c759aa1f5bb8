/* `trend --json` when its temporary files fail (issue 12: "nothing is lost"): at every point a
 * failure can come, the output is either nothing at all (the failure came before the first
 * byte) or a whole JSON document whose "error" says what failed, and the exit status is 1.
 *
 * Two ways to fail: a file size limit (as a full disk) swept from a few KiB to more than the
 * trend writes, on the real command (its exit status, its stdout parsed by Python's json); and,
 * in this process, the Nth seek or read of an unlinked file (the trend's spill file and its
 * sort's chunks: the only unlinked files here) failing with EIO, through the linker's --wrap
 * (tests/fleet.cmake), N swept over the reads the trend makes. Each document is checked by
 * Python's json module and by hand: its runs have indices 0, 1, ... in order, whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trend.h"
#include "tracebuild.h"
#define FLEET_TMP_PREFIX "fleet_trend_fail"
#include "fleet_cli.h"

#define S(x) ((int64_t)((x) * 1e9 + 0.5))
#define ORIGIN 1772323200000000000LL
#define RUNS 1000

/* ---- the failing reads: --wrap=fseeko --wrap=pread ---- */

int __real_fseeko(FILE *f, off_t off, int whence);
ssize_t __real_pread(int fd, void *buf, size_t n, off_t at);

static long fail_seek_at, fail_pread_at; /* the Nth call on an unlinked file fails; 0 never */
static long seeks, preads;               /* calls on unlinked files so far */

static int unlinked(int fd)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && st.st_nlink == 0;
}

int __wrap_fseeko(FILE *f, off_t off, int whence)
{
    if (unlinked(fileno(f)) && ++seeks == fail_seek_at) {
        errno = EIO;
        return -1;
    }
    return __real_fseeko(f, off, whence);
}

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t at)
{
    if (unlinked(fd) && ++preads == fail_pread_at) {
        errno = EIO;
        return -1;
    }
    return __real_pread(fd, buf, n, at);
}

/* ---- the fleet ---- */

/* RUNS runs of two categories, run i starting i minutes after the first, file names not in
 * start order (7919 is prime); from run 600 on `load` takes twice as long, so the series has a
 * change to read back (a change's record is read again when it is listed). */
static void make_fleet(void)
{
    for (int i = 0; i < RUNS; i++) {
        char run_id[33], name[32];
        snprintf(run_id, sizeof run_id, "%032x", i + 1);
        tb_origin o = { "node-1", "boot-1", run_id, ORIGIN + S(60.0 * i) - S(100), 1000, 0 };
        snprintf(name, sizeof name, "run%04d.wtrace", (int)((i * 7919L) % RUNS));
        tb *b = tb_create(tb_path_in(name), 100 + (uint64_t)i, S(100), S(100));
        tb_set_origin(b, &o);
        const double load = (i >= 600 ? 2.0 : 1.0) + 0.001 * (i % 7);
        tb_span(b, 1, S(100.1), S(100.1 + load), 0, "load", "weights");
        tb_span(b, 1, S(100.1 + load), S(101.1 + load), 0, "step", "forward");
        tb_close(b, TB_END_CLEAN, S(101.2 + load), 0);
    }
}

/* ---- checking a document ---- */

/* What Python's json module makes of the file `path`: "ok N" (N runs, no error), "error N
 * MESSAGE", or "bad" when it does not parse. Malloc'd. */
static char *python_reads(const char *path)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys\n"
             "try:\n d = json.load(open(sys.argv[1]))\n"
             "except ValueError:\n print(\"bad\"); sys.exit(0)\n"
             "n = len(d[\"runs\"])\n"
             "assert [r[\"index\"] for r in d[\"runs\"]] == list(range(n))\n"
             "assert all(set(r[\"categories\"]) == {\"load\", \"step\"} for r in d[\"runs\"])\n"
             "print(\"error %%d %%s\" %% (n, d[\"error\"]) if \"error\" in d else \"ok %%d\" %% n)"
             "' '%s'",
             path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char *line = calloc(1, 4096);
    assert_non_null(line);
    if (!fgets(line, 4096, p))
        line[0] = '\0';
    line[strcspn(line, "\n")] = '\0';
    assert_int_equal(pclose(p), 0); /* an assertion failed: a run missing or cut */
    return line;
}

/* The closing of a document by hand: its last non-blank byte is the root's '}'. */
static void expect_closed(const char *text)
{
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    assert_true(n > 0);
    assert_int_equal(text[n - 1], '}');
}

/* Counts: outputs seen empty, as an error document, whole. */
typedef struct seen {
    int empty, error, whole;
} seen;

/* One output of a failed or whole trend of `runs` runs: empty (failed before any byte), or a
 * document that parses, its error being `said` (the stderr line's words) when it failed and
 * its runs `written` whole runs (-1: any number below `runs`). */
static void check_output(const char *out_path, int failed, const char *said, int runs,
                         int written, seen *sn)
{
    char *text = cli_slurp(out_path);
    assert_non_null(text);
    if (failed && text[0] == '\0') {
        sn->empty++;
        free(text);
        return;
    }
    expect_closed(text);
    char *got = python_reads(out_path);
    if (failed) {
        char want[512];
        if (strncmp(got, "error ", 6) != 0)
            fail_msg("a failed trend's output reads '%s'", got);
        const char *msg = strchr(got + 6, ' ');
        assert_non_null(msg);
        snprintf(want, sizeof want, " %s", said);
        assert_string_equal(msg, want);
        assert_true(atoi(got + 6) < runs);
        if (written >= 0)
            assert_int_equal(atoi(got + 6), written);
        sn->error++;
    } else {
        char want[32];
        snprintf(want, sizeof want, "ok %d", runs);
        assert_string_equal(got, want);
        sn->whole++;
    }
    free(got);
    free(text);
}

/* ---- the file size limit, on the command ---- */

/* `walltime-analyze trend --json -j 2` over the fleet (given `times` times over) with files
 * limited to `limit` bytes; stdout into a pipe copied to out.txt by this process (the limit
 * does not bound a pipe), stderr into err.txt. Returns the exit status. */
static int trend_limited(long limit, int times)
{
    char *argv[8 + 5];
    int n = 0;
    argv[n++] = (char *)WT_ANALYZE_BIN;
    argv[n++] = (char *)"trend";
    argv[n++] = (char *)"--json";
    argv[n++] = (char *)"-j";
    argv[n++] = (char *)"2";
    char *dir = strdup(abs_in(NULL));
    assert_non_null(dir);
    for (int k = 0; k < times && k < 5; k++)
        argv[n++] = dir;
    argv[n] = NULL;
    int p[2];
    assert_int_equal(pipe(p), 0);
    const int err = open(abs_in("err.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(err >= 0);
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const struct rlimit lim = { (rlim_t)limit, (rlim_t)limit };
        close(p[0]);
        if (dup2(p[1], 1) < 0 || dup2(err, 2) < 0 || setenv("TMPDIR", dir, 1) != 0)
            _exit(90);
        signal(SIGXFSZ, SIG_IGN); /* kept across exec: a write past the limit fails (EFBIG) */
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
            _exit(91);
        execv(argv[0], argv);
        _exit(92);
    }
    close(p[1]);
    close(err);
    FILE *out = fopen(abs_in("out.txt"), "w");
    assert_non_null(out);
    char buf[65536];
    for (ssize_t got; (got = read(p[0], buf, sizeof buf)) > 0;)
        assert_int_equal(fwrite(buf, 1, (size_t)got, out), (size_t)got);
    assert_int_equal(fclose(out), 0);
    close(p[0]);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    free(dir);
    return WEXITSTATUS(st);
}

/* The directory given 5 times: 5000 runs, more than the sort holds in memory (4096), so its
 * chunks go to a file too; the summaries take about 200 bytes a run (1 MB), written 64 KiB at
 * a time and the last part when the first is read back (after the output began). */
static void test_trend_json_whole_or_nothing_when_the_disk_fills(void **state)
{
    (void)state;
    make_fleet();
    seen sn = { 0 };
    /* The summaries' file: a record a run of 56 bytes, host, group ("all"), path and two
     * categories of 32 bytes, written 64 KiB at a time while the files are read; what is left
     * at the end is written when the first summary is read back, after the output began: a
     * limit of one byte less fails there. */
    const long spill = 5L * RUNS * (56 + 6 + 3 + (long)strlen(abs_in("run0000.wtrace")) + 64);
    assert_true(spill % 65536 != 0);
    const long limits[] = { 4096, 40000, 70000, 100000, 131072, 200000, 500000, spill - 1,
                            spill + 65536, 8L << 20 };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        const long limit = limits[i];
        const int st = trend_limited(limit, 5);
        char *err = cli_slurp(abs_in("err.txt"));
        assert_non_null(err);
        const char *said = strstr(err, "walltime-analyze: trend: ");
        if (st == 0) {
            assert_null(said);
            check_output(abs_in("out.txt"), 0, NULL, 5 * RUNS, -1, &sn);
        } else {
            if (st != 1 || !said)
                fail_msg("limit %ld: exit %d, stderr: %s", limit, st, err);
            said += strlen("walltime-analyze: trend: ");
            char words[512];
            snprintf(words, sizeof words, "%.*s", (int)strcspn(said, "\n"), said);
            assert_non_null(strstr(words, "temporary file"));
            check_output(abs_in("out.txt"), 1, words, 5 * RUNS, 0, &sn);
        }
        free(err);
    }
    /* the sweep met each kind: before any output, after it began (spill - 1), and none */
    assert_true(sn.empty > 0);
    assert_int_equal(sn.error, 1);
    assert_int_equal(sn.whole, 2);
}

/* ---- failing reads, in this process ---- */

/* wt_trend_run --json over the fleet into out.txt, sorted in chunks of 7 runs (143 chunks: a
 * merge pass, then the last merge as the runs are fed), the Nth seek or pread of an unlinked
 * file failing. Returns the trend's return value. */
static int trend_failing(long seek_at, long pread_at)
{
    char *dir = strdup(abs_in(NULL));
    assert_non_null(dir);
    char *paths[1] = { dir };
    wt_trend_opts o = { .threads = 2, .json = 1, .sort_chunk = 7 };
    wt_cp_opts_default(&o.cp);
    FILE *out = fopen(abs_in("out.txt"), "w");
    assert_non_null(out);
    seeks = preads = 0;
    fail_seek_at = seek_at;
    fail_pread_at = pread_at;
    wt_trend *t = NULL;
    const int rc = wt_trend_run(paths, 1, &o, out, &t);
    fail_seek_at = fail_pread_at = 0;
    wt_trend_free(t);
    assert_int_equal(fclose(out), 0);
    free(dir);
    return rc;
}

static void test_trend_json_whole_or_nothing_when_a_read_back_fails(void **state)
{
    (void)state;
    make_fleet();
    seen sn = { 0 };
    assert_int_equal(trend_failing(0, 0), 0);
    check_output(abs_in("out.txt"), 0, NULL, RUNS, -1, &sn);
    const long all_seeks = seeks, all_preads = preads;
    assert_true(all_seeks >= RUNS); /* a summary read back per run, and the change's */
    assert_true(all_preads > 143);  /* each chunk read at least once */
    /* the first runs, one in the middle, the change's (found at run 602, the third of three
     * runs beyond, its record read at seeks 604 and 605, between those of runs 602 and 603),
     * the last runs */
    const long at[] = { 1, 2, 3, 500, 602, 603, 604, 605, 606, all_seeks - 1, all_seeks };
    assert_int_equal(all_seeks, RUNS + 2);
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        assert_int_equal(trend_failing(at[i], 0), WT_EIO);
        /* runs before the failing seek, whole; run 602 not written when its change failed */
        const long written = at[i] <= 603 ? at[i] - 1 : at[i] <= 605 ? 602 : at[i] - 3;
        check_output(abs_in("out.txt"), 1, "cannot read its temporary file back", RUNS,
                     (int)written, &sn);
    }
    /* the first preads are the merge pass's (before any output), the last the feed's */
    const long pat[] = { 1, all_preads / 2, all_preads - 20, all_preads - 1, all_preads };
    for (size_t i = 0; i < sizeof pat / sizeof pat[0]; i++) {
        assert_int_equal(trend_failing(0, pat[i]), WT_EIO);
        check_output(abs_in("out.txt"), 1,
                     "cannot read its temporary file back: Input/output error", RUNS, -1, &sn);
    }
    assert_true(sn.empty > 0);
    assert_true(sn.error > 0);
}

int main(void)
{
    (void)fleet_cli; /* the shared helper runs commands through a shell, whose files the limit
                        would bound: trend_limited() runs this one */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_trend_json_whole_or_nothing_when_the_disk_fills,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_trend_json_whole_or_nothing_when_a_read_back_fails,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
