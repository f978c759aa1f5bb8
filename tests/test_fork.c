/* Multi-process runs: a forked child records into a file of its own by default, with its
 * parent's pid in the header and none of the parent's spans; the 1.1 header fields (parent
 * pid, run id, boot id, anchor uncertainty); the launcher's rank variables as metadata; and
 * records a C++ static destructor makes at teardown. Each scenario runs in a forked child (a
 * fresh recorder), as in test_recorder.c; expected values are what the scenario put in or
 * what the OS says (/proc). */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define RT_DIR_PREFIX "f"
#include "test_recorder_util.h"
#include "tracebuild.h"

static char tmpl[600];

static int fork_setup(void **state)
{
    setup(state);
    snprintf(tmpl, sizeof tmpl, "%s/run-%%p.wtrace", dir);
    return 0;
}

static void trace_of(char *out, size_t cap, pid_t pid)
{
    snprintf(out, cap, "%s/run-%d.wtrace", dir, (int)pid);
}

/* ---- a forked child's own file ------------------------------------------------------------ */

static pid_t child_pid; /* in the scenario's process: the child it forked */

static int scenario_forks(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    setenv("WALLTIME_TRACE", tmpl, 1);
    const wt_span b = wt_begin("parent", "before");
    wt_end(b, WT_CACHED_UNKNOWN, 0, NULL);
    const wt_span outer = wt_begin("parent", "open across fork");
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        const wt_span c = wt_begin("child", "in child");
        wt_end(c, WT_CACHED_HIT, 0, NULL);
        wt_end(outer, WT_CACHED_UNKNOWN, 0, NULL); /* the parent's span: not the child's */
        wt_counter("child.counter", 5);
        exit(0); /* the exit path closes the child's file */
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 20;
    /* tell the test which pid the child had: a file named by it */
    char note[700];
    snprintf(note, sizeof note, "%s/child-pid", dir);
    FILE *f = fopen(note, "w");
    if (!f)
        return 21;
    fprintf(f, "%d", (int)pid);
    fclose(f);
    wt_end(outer, WT_CACHED_UNKNOWN, 0, NULL);
    return wt_close();
}

static pid_t read_child_pid(void)
{
    char note[700];
    snprintf(note, sizeof note, "%s/child-pid", dir);
    return (pid_t)atoi(rt_slurp(note));
}

static void test_fork_child_records_into_its_own_file_by_default(void **state)
{
    (void)state;
    pid_t pid;
    const int st = rt_run(scenario_forks, NULL, NULL, &pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    child_pid = read_child_pid();
    assert_true(child_pid > 0 && child_pid != pid);

    char p[700];
    trace_of(p, sizeof p, pid);
    rt_trace *t = rt_read(p);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->info.pid, (uint64_t)pid);
    assert_int_equal(t->info.parent_pid, (uint64_t)getpid()); /* the test forked it */
    assert_true(rt_find(t, WT_EV_SPAN, "open across fork", 0) >= 0);
    assert_int_equal(rt_find(t, WT_EV_SPAN, "open across fork", 1), -1);
    assert_int_equal(rt_find(t, WT_EV_SPAN, "in child", 0), -1);
    char parent_run[33];
    memcpy(parent_run, t->info.run_id, sizeof parent_run);
    rt_free(t);

    trace_of(p, sizeof p, child_pid);
    t = rt_read(p);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->info.pid, (uint64_t)child_pid);
    assert_int_equal(t->info.parent_pid, (uint64_t)pid);
    assert_string_not_equal(t->info.run_id, parent_run);
    const long c = rt_find(t, WT_EV_SPAN, "in child", 0);
    assert_true(c >= 0);
    assert_int_equal(t->ev[c].ev.depth, 0); /* the parent's open span is not its parent */
    assert_int_equal(t->ev[c].ev.tid, (uint64_t)child_pid);
    assert_int_equal(rt_count(t, WT_EV_SPAN), 1); /* no "before", no "open across fork" */
    assert_true(rt_find(t, WT_EV_COUNTER, "child.counter", 0) >= 0);
    assert_int_equal(t->stats.end, WT_END_CLEAN);
    rt_free(t);
}

static int scenario_fork_silent_child(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    setenv("WALLTIME_TRACE", tmpl, 1);
    wt_counter("parent.counter", 1);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0)
        exit(0); /* records nothing, as a child that execs at once */
    int status;
    waitpid(pid, &status, 0);
    char p[700];
    trace_of(p, sizeof p, pid);
    return rt_exists(p) ? 30 : wt_close();
}

static void test_fork_child_that_records_nothing_writes_no_file(void **state)
{
    (void)state;
    const int st = rt_run(scenario_fork_silent_child, NULL, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* A template without %p: the parent's file keeps the path while the parent writes it, and the
 * child's own file takes the first free numbered name (run.1.wtrace): a child never moves its
 * parent's file aside, as a new process at a taken path does (test_recorder.c). */
static int scenario_fork_fixed_path(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    setenv("WALLTIME_TRACE", path, 1);
    wt_counter("parent.counter", 1);
    if (wt_flush())
        return 40;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        wt_counter("child.counter", 2);
        exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 41;
    wt_counter("parent.after", 3); /* still into the file at the path */
    return wt_close();
}

static void test_fork_child_of_a_fixed_path_takes_a_numbered_name(void **state)
{
    (void)state;
    const int st = rt_run(scenario_fork_fixed_path, NULL, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_true(rt_find(t, WT_EV_COUNTER, "parent.counter", 0) >= 0);
    assert_true(rt_find(t, WT_EV_COUNTER, "parent.after", 0) >= 0);
    assert_true(rt_find(t, WT_EV_COUNTER, "child.counter", 0) < 0);
    rt_free(t);
    char child[700];
    snprintf(child, sizeof child, "%s/run.1.wtrace", dir);
    t = rt_read(child);
    assert_int_equal(t->open_rc, 0);
    assert_true(rt_find(t, WT_EV_COUNTER, "child.counter", 0) >= 0);
    assert_true(rt_find(t, WT_EV_COUNTER, "parent.counter", 0) < 0);
    rt_free(t);
}

/* A fork soon after the first recording call, while the parent's writer thread may still be
 * starting: under AddressSanitizer that thread's start allocates (outside any lock of ours),
 * and a child that inherited the allocator's lock taken hung for ever at its first recording
 * call or at exit (seen in CI). fork() now waits for the writer to have started. Each child
 * and the scenario carry an alarm, so a hang fails the test instead of timing it out. */
enum { SOON_FORKS = 40 };

static int scenario_fork_soon(void *arg)
{
    (void)arg;
    alarm(60);
    setenv("WALLTIME_SUMMARY", "0", 1);
    char p[700];
    for (int i = 0; i < SOON_FORKS; i++) {
        snprintf(p, sizeof p, "%s/soon-%d-%%p.wtrace", dir, i);
        if (wt_open(p))
            return 70;
        const wt_span s = wt_begin("parent", "first");
        wt_end(s, WT_CACHED_UNKNOWN, 0, NULL);
        fflush(NULL);
        const pid_t pid = fork(); /* the writer thread was created a moment ago */
        if (pid == 0) {
            alarm(20);
            const wt_span c = wt_begin("child", "first");
            wt_end(c, WT_CACHED_UNKNOWN, 0, NULL);
            exit(0);
        }
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return 71; /* killed by its alarm: it hung */
        snprintf(p, sizeof p, "%s/soon-%d-%d.wtrace", dir, i, (int)pid);
        if (!rt_exists(p)) /* the child's own file, from the parent's template */
            return 72;
        if (wt_close())
            return 73;
    }
    return 0;
}

static void test_fork_soon_after_the_writer_starts_never_hangs(void **state)
{
    (void)state;
    const int st = rt_run(scenario_fork_soon, NULL, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- header 1.1 --------------------------------------------------------------------------- */

static int scenario_two_opens(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/a.wtrace", dir);
    snprintf(b, sizeof b, "%s/b.wtrace", dir);
    if (wt_open(a) || wt_close() || wt_open(b) || wt_close())
        return 40;
    return 0;
}

static int is_hex32(const char *s)
{
    if (strlen(s) != 32)
        return 0;
    for (int i = 0; i < 32; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
            return 0;
    return 1;
}

static void test_fork_header_has_run_id_boot_id_and_anchor_uncertainty(void **state)
{
    (void)state;
    pid_t pid;
    const int st = rt_run(scenario_two_opens, NULL, NULL, &pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char boot[64];
    snprintf(boot, sizeof boot, "%s", rt_slurp("/proc/sys/kernel/random/boot_id"));
    boot[strcspn(boot, "\n")] = '\0';

    char a[700], b[700];
    snprintf(a, sizeof a, "%s/a.wtrace", dir);
    snprintf(b, sizeof b, "%s/b.wtrace", dir);
    rt_trace *ta = rt_read(a), *tb2 = rt_read(b);
    assert_int_equal(ta->open_rc, 0);
    assert_int_equal(tb2->open_rc, 0);
    assert_int_equal(ta->info.format_major, 1);
    assert_int_equal(ta->info.format_minor, 1);
    assert_int_equal(ta->info.parent_pid, (uint64_t)getpid());
    assert_true(is_hex32(ta->info.run_id));
    assert_true(is_hex32(tb2->info.run_id));
    assert_string_not_equal(ta->info.run_id, tb2->info.run_id); /* made at each open */
    wt_reader *r = NULL;
    assert_int_equal(wt_reader_open(a, &r), 0); /* rt_read's copy of info keeps no strings */
    assert_non_null(wt_reader_info(r)->boot_id);
    assert_string_equal(wt_reader_info(r)->boot_id, boot);
    wt_reader_free(r);
    /* two clock reads around a third: more than nothing, far less than a second */
    assert_true(ta->info.anchor_err_ns >= 1 && ta->info.anchor_err_ns < 1000000000);

    /* `walltime-analyze info` shows them */
    char cmd[1600], want[4][160];
    snprintf(cmd, sizeof cmd, "'%s' info '%s'", WT_ANALYZE_BIN, a);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    static char out[8192];
    const size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    snprintf(want[0], sizeof want[0], "\nparent pid      %d\n", (int)getpid());
    snprintf(want[1], sizeof want[1], "\nrun id          %s\n", ta->info.run_id);
    snprintf(want[2], sizeof want[2], "\nboot id         %s\n", boot);
    snprintf(want[3], sizeof want[3], "\nanchor read     within %lld ns\n",
             (long long)ta->info.anchor_err_ns);
    for (int i = 0; i < 4; i++)
        assert_non_null(strstr(out, want[i]));
    rt_free(ta);
    rt_free(tb2);
}

static void test_fork_header_of_a_1_0_file_reads_as_unknown(void **state)
{
    (void)state;
    /* the committed sample with its minor version set back to 0: a 1.0 file */
    size_t n;
    unsigned char *bytes = tb_read_file(WT_TEST_DATA_DIR "/analyze_a.wtrace", &n);
    assert_non_null(bytes);
    assert_true(n > 18);
    assert_memory_equal(bytes + 8, "WTRACE", 6);
    bytes[16] = 0; /* le16 minor at payload offset 8 */
    bytes[17] = 0;
    char old[700];
    snprintf(old, sizeof old, "%s/old.wtrace", dir);
    FILE *f = fopen(old, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
    free(bytes);
    wt_reader *r = NULL;
    assert_int_equal(wt_reader_open(old, &r), 0);
    const wt_trace_info *in = wt_reader_info(r);
    assert_int_equal(in->format_minor, 0);
    assert_int_equal(in->pid, 4242);
    assert_int_equal(in->parent_pid, 0);
    assert_string_equal(in->run_id, "");
    assert_null(in->boot_id);
    assert_int_equal(in->anchor_err_ns, -1);
    wt_event ev;
    int events = 0;
    while (wt_reader_next(r, &ev) > 0)
        events++;
    assert_int_equal(events, 14); /* as tests/golden/info_a.txt counts them */
    wt_reader_free(r);
}

/* ---- rank metadata ------------------------------------------------------------------------- */

typedef struct rank_case {
    const char *walltime_rank, *rank, *local_rank, *world_size;
    const char *want_rank, *want_local, *want_world; /* NULL: no such meta */
} rank_case;

static int scenario_rank(void *arg)
{
    const rank_case *c = arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    unsetenv("WALLTIME_RANK");
    unsetenv("RANK");
    unsetenv("LOCAL_RANK");
    unsetenv("WORLD_SIZE");
    if (c->walltime_rank)
        setenv("WALLTIME_RANK", c->walltime_rank, 1);
    if (c->rank)
        setenv("RANK", c->rank, 1);
    if (c->local_rank)
        setenv("LOCAL_RANK", c->local_rank, 1);
    if (c->world_size)
        setenv("WORLD_SIZE", c->world_size, 1);
    if (wt_open(path))
        return 50;
    return wt_close();
}

static const char *meta_of(const rt_trace *t, const char *key)
{
    const long i = rt_find(t, WT_EV_META, key, 0);
    return i < 0 ? NULL : t->ev[i].ev.detail;
}

static void check_rank(const rank_case *c)
{
    unlink(path);
    const int st = rt_run(scenario_rank, (void *)c, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    const char *got[3] = { meta_of(t, "rank"), meta_of(t, "local_rank"), meta_of(t, "world_size") };
    const char *want[3] = { c->want_rank, c->want_local, c->want_world };
    for (int i = 0; i < 3; i++) {
        if (want[i])
            assert_string_equal(got[i], want[i]);
        else
            assert_null(got[i]);
    }
    rt_free(t);
    unlink(path);
}

static void test_fork_rank_variables_become_metadata(void **state)
{
    (void)state;
    /* WALLTIME_RANK wins over RANK */
    check_rank(&(rank_case){ "3", "7", "1", "8", "3", "1", "8" });
    /* the launcher's variables alone */
    check_rank(&(rank_case){ NULL, "5", "0", "16", "5", "0", "16" });
    /* not decimal integers: ignored; a bad WALLTIME_RANK falls back to RANK */
    check_rank(&(rank_case){ "x", "2", "-1", "4 ", "2", NULL, NULL });
    check_rank(&(rank_case){ NULL, "99999999999", " 1", "", NULL, NULL, NULL });
    /* no launcher: no metadata */
    check_rank(&(rank_case){ NULL, NULL, NULL, NULL, NULL, NULL, NULL });
}

/* ---- teardown: a C++ static destructor records after everything else --------------------- */

static void test_fork_cpp_static_destructor_counter_reaches_the_trace(void **state)
{
    (void)state;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        setenv("WALLTIME_SUMMARY", "0", 1);
        setenv("WALLTIME_TRACE", path, 1);
        execl(WT_TEARDOWN_BIN, WT_TEARDOWN_BIN, (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_true(rt_find(t, WT_EV_SPAN, "main work", 0) >= 0);
    const long c = rt_find(t, WT_EV_COUNTER, "jit_cache.hits", 0);
    assert_true(c >= 0);
    assert_int_equal(t->ev[c].ev.value, 41);
    const long s = rt_find(t, WT_EV_SPAN, "runtime teardown", 0);
    assert_true(s >= 0);
    assert_int_equal(t->stats.end, WT_END_CLEAN);
    rt_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fork_child_records_into_its_own_file_by_default, fork_setup, teardown),
        cmocka_unit_test_setup_teardown(test_fork_child_that_records_nothing_writes_no_file, fork_setup, teardown),
        cmocka_unit_test_setup_teardown(test_fork_child_of_a_fixed_path_takes_a_numbered_name, fork_setup, teardown),
        cmocka_unit_test_setup_teardown(test_fork_soon_after_the_writer_starts_never_hangs, fork_setup, teardown),
        cmocka_unit_test_setup_teardown(test_fork_header_has_run_id_boot_id_and_anchor_uncertainty, fork_setup, teardown),
        cmocka_unit_test_setup_teardown(test_fork_header_of_a_1_0_file_reads_as_unknown, fork_setup, teardown),
        cmocka_unit_test_setup_teardown(test_fork_rank_variables_become_metadata, fork_setup, teardown),
        cmocka_unit_test_setup_teardown(test_fork_cpp_static_destructor_counter_reaches_the_trace, fork_setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
