/* The recorder, end to end: what a program records is what the reader reads back. Every
 * scenario runs in a forked child (a fresh recorder with its own environment); the test
 * process reads the child's trace. Expected values are the ones the scenario put in. */
#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include <cmocka.h>

#define RT_DIR_PREFIX "t" /* this file's temporary directories */
#include "test_recorder_util.h"


/* ---- every record type ---------------------------------------------------------------- */

static int child_every_type(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    if (wt_open(path) != WT_ESTATE)
        return 11;
    if (!wt_enabled() || !wt_trace_path() || strcmp(wt_trace_path(), path) != 0)
        return 12;
    wt_meta("model", "m-1");
    wt_thread_name("main");
    wt_round_begin("keep", 3);
    const wt_span h = wt_begin("weights", "load a");
    const wt_span_args args = { WT_CACHED_MISS, 5, 1024, "key changed" };
    wt_end_ex(h, &args);
    wt_end(h, WT_CACHED_HIT, 1, NULL); /* stale: ignored */
    wt_record("warmup", "compile", 0.5, WT_CACHED_HIT, 2, "jit");
    wt_counter("device_bytes", -7);
    wt_counter("tensors", INT64_MAX);
    wt_mark("generate", "first token", "tok=1");
    wt_round_end();
    wt_round_end(); /* none open: no-op */
    /* a dropped event: deeper than the recorder keeps */
    wt_span deep[256];
    for (int i = 0; i < 256; i++)
        deep[i] = wt_begin("deep", NULL);
    if (deep[255] != 0)
        return 13;
    wt_end(deep[0], WT_CACHED_UNKNOWN, 0, NULL); /* ends the 254 inside it as unclosed */
    (void)wt_begin("outer", NULL); /* still open at close */
    if (wt_flush() != 0)
        return 14;
    if (wt_close() != 0)
        return 15;
    if (wt_enabled() || wt_trace_path() != NULL || wt_close() != WT_ESTATE)
        return 16;
    wt_counter("after close", 1); /* records nothing */
    return 0;
}

static void test_recorder_round_trips_every_record_type(void **state)
{
    (void)state;
    pid_t pid;
    const int st = rt_run(child_every_type, NULL, NULL, &pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(t->info.pid, (uint64_t)pid);
    assert_true(rt_streq(t->clock, "tsc") || rt_streq(t->clock, "monotonic"));
    assert_non_null(strstr(t->cmdline, "test_recorder"));
    assert_non_null(strstr(t->recorder, "libwalltime"));
    assert_true(t->info.process_start_ns > 0 && t->info.process_start_ns <= t->info.open_ns);

    long i = rt_find(t, WT_EV_META, "model", 0);
    assert_true(i >= 0);
    assert_string_equal(t->ev[i].ev.detail, "m-1");
    assert_true(t->ev[i].ev.ts >= t->info.open_ns);
    i = rt_find(t, WT_EV_THREAD_NAME, "main", 0);
    assert_true(i >= 0);
    assert_int_equal(t->ev[i].ev.tid, (uint64_t)pid);

    i = rt_find(t, WT_EV_SPAN, "load a", 0);
    assert_true(i >= 0);
    const wt_event *s = &t->ev[i].ev;
    assert_string_equal(s->category, "weights");
    assert_int_equal(s->cached, WT_CACHED_MISS);
    assert_int_equal(s->count, 5);
    assert_int_equal(s->bytes, 1024);
    assert_string_equal(s->detail, "key changed");
    assert_int_equal(s->depth, 0);
    assert_int_equal(s->flags, 0);
    assert_int_equal(rt_find(t, WT_EV_SPAN, "load a", 1), -1); /* the stale end added nothing */

    i = rt_find(t, WT_EV_SPAN, "compile", 0);
    assert_true(i >= 0);
    s = &t->ev[i].ev;
    assert_int_equal(s->flags, WT_EVF_MEASURED);
    assert_int_equal(s->dur, 500000000);
    assert_int_equal(s->cached, WT_CACHED_HIT);
    assert_int_equal(s->count, 2);
    assert_string_equal(s->detail, "jit");

    i = rt_find(t, WT_EV_COUNTER, "device_bytes", 0);
    assert_true(i >= 0);
    assert_int_equal(t->ev[i].ev.value, -7);
    i = rt_find(t, WT_EV_COUNTER, "tensors", 0);
    assert_true(i >= 0);
    assert_true(t->ev[i].ev.value == INT64_MAX);
    assert_int_equal(rt_find(t, WT_EV_COUNTER, "after close", 0), -1);

    i = rt_find(t, WT_EV_MARK, "first token", 0);
    assert_true(i >= 0);
    assert_string_equal(t->ev[i].ev.category, "generate");
    assert_string_equal(t->ev[i].ev.detail, "tok=1");

    i = rt_find(t, WT_EV_ROUND, "keep", 0);
    assert_true(i >= 0);
    assert_int_equal(t->ev[i].ev.count, 3);
    assert_true(t->ev[i].ev.dur > 0);
    assert_int_equal(rt_count(t, WT_EV_ROUND), 1);

    i = rt_find(t, WT_EV_DROPPED, NULL, 0);
    assert_true(i >= 0);
    assert_int_equal(t->ev[i].ev.count, 1);

    /* 255 "deep" spans: the outermost ended normally, 254 inside it unclosed */
    size_t deep = 0, deep_unclosed = 0;
    for (size_t k = 0; k < t->n; k++) {
        const wt_event *e = &t->ev[k].ev;
        if (e->kind == WT_EV_SPAN && rt_streq(e->category, "deep")) {
            deep++;
            deep_unclosed += (e->flags & WT_EVF_UNCLOSED) != 0;
            assert_null(e->label);
        }
    }
    assert_int_equal(deep, 255);
    assert_int_equal(deep_unclosed, 254);

    /* "outer" was open at close: recorded, unclosed, label NULL */
    long outer = -1;
    for (size_t k = 0; k < t->n; k++)
        if (t->ev[k].ev.kind == WT_EV_SPAN && rt_streq(t->ev[k].ev.category, "outer"))
            outer = (long)k;
    assert_true(outer >= 0);
    assert_int_equal(t->ev[outer].ev.flags, WT_EVF_UNCLOSED);

    assert_true(rt_count(t, WT_EV_SYNC) >= 1);
    assert_int_equal(rt_count(t, WT_EV_END), 1);
    assert_int_equal(t->ev[t->n - 1].ev.kind, WT_EV_END);
    assert_int_equal(t->stats.end, WT_END_CLEAN);
    rt_free(t);
}

/* ---- nesting -------------------------------------------------------------------------- */

/* arg: NULL, or the WALLTIME_CLOCK to use ("monotonic": the hot path's out-of-line clock) */
static int child_nested(void *arg)
{
    setenv("WALLTIME_SUMMARY", "0", 1);
    setenv("WALLTIME_TRACE", path, 1);
    if (arg)
        setenv("WALLTIME_CLOCK", (const char *)arg, 1);
    const wt_span a = wt_begin("phase", "A"); /* starts the recorder by itself */
    const wt_span b = wt_begin("phase", "B");
    const wt_span c = wt_begin("phase", "C");
    wt_end(c, WT_CACHED_UNKNOWN, 0, NULL);
    wt_end(b, WT_CACHED_UNKNOWN, 0, NULL);
    wt_record("measured", "M", 0.0, WT_CACHED_UNKNOWN, 0, NULL);
    wt_end(a, WT_CACHED_UNKNOWN, 0, NULL);
    wt_end(a, WT_CACHED_HIT, 0, NULL); /* already ended: ignored */
    const wt_span p = wt_begin("phase", "P");
    (void)wt_begin("phase", "Q");
    /* stale handles, ignored: b has Q's depth but an old generation, c is deeper than what
     * is open, 0 is never valid */
    wt_end(b, WT_CACHED_HIT, 0, NULL);
    wt_end(c, WT_CACHED_HIT, 0, NULL);
    wt_end(0, WT_CACHED_HIT, 0, NULL);
    wt_end(p, WT_CACHED_UNKNOWN, 0, NULL); /* Q ends with P, unclosed */
    return 0; /* closed by the exit hook */
}

static void check_nested(const char *clock)
{
    const int st = rt_run(child_nested, (void *)(uintptr_t)clock, NULL, NULL);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    const char *order[] = { "C", "B", "M", "A", "Q", "P" };
    const unsigned depth[] = { 2, 1, 1, 0, 1, 0 };
    size_t k = 0;
    const wt_event *sp[6];
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        assert_true(k < 6);
        assert_string_equal(e->label, order[k]);
        assert_int_equal(e->depth, depth[k]);
        sp[k++] = e;
    }
    assert_int_equal(k, 6);
    /* children lie within their parents */
    assert_true(sp[0]->ts >= sp[1]->ts && sp[0]->ts + sp[0]->dur <= sp[1]->ts + sp[1]->dur);
    assert_true(sp[1]->ts >= sp[3]->ts && sp[1]->ts + sp[1]->dur <= sp[3]->ts + sp[3]->dur);
    assert_int_equal(sp[4]->flags, WT_EVF_UNCLOSED);
    assert_int_equal(sp[5]->flags, 0);
    assert_true(sp[4]->ts + sp[4]->dur == sp[5]->ts + sp[5]->dur); /* Q ended at P's end */
    assert_int_equal(t->stats.end, WT_END_CLEAN);
    if (clock)
        assert_true(rt_streq(t->clock, clock));
    rt_free(t);
}

static void test_recorder_nested_spans_have_depth_and_end_order(void **state)
{
    (void)state;
    check_nested(NULL);
}

static void test_recorder_nested_spans_on_the_monotonic_clock(void **state)
{
    (void)state;
    check_nested("monotonic");
}

/* ---- disabled --------------------------------------------------------------------------- */

static int child_disabled(void *arg)
{
    setenv((const char *)arg, "0", 1);
    char tmpl[600];
    snprintf(tmpl, sizeof tmpl, "%s/off-%%p.wtrace", dir);
    setenv("WALLTIME_TRACE", tmpl, 1);
    const wt_span h = wt_begin("a", "b");
    if (h != 0)
        return 1;
    wt_end(h, WT_CACHED_HIT, 0, NULL);
    wt_record("a", "b", 1.0, WT_CACHED_MISS, 1, NULL);
    wt_counter("c", 1);
    if (wt_enabled() || wt_open(NULL) != WT_EDISABLED || wt_trace_path())
        return 2;
    return 0;
}

static size_t files_in(const char *d)
{
    size_t n = 0;
    DIR *dd = opendir(d);
    for (struct dirent *e; dd && (e = readdir(dd));)
        n += e->d_name[0] != '.';
    if (dd)
        closedir(dd);
    return n;
}

static void test_recorder_disabled_writes_no_file(void **state)
{
    (void)state;
    char err[600];
    snprintf(err, sizeof err, "/tmp/wt-rec-err-%d", (int)getpid());
    for (int k = 0; k < 2; k++) {
        const int st = rt_run(child_disabled, k ? "TT_WALLTIME" : "WALLTIME", err, NULL);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
        assert_int_equal(files_in(dir), 0);
        assert_string_equal(rt_slurp(err), ""); /* and prints nothing, not even a ledger */
    }
    unlink(err);
}

/* ---- the exit ledger ------------------------------------------------------------------ */

/* Plain spans (the writer's batched path) and measured ones, with HIT and MISS: the seed's
 * table at exit (WALLTIME_SUMMARY=flat) must tally them. Only wt_record's seconds are exact,
 * so the checks are the counts, the notes and the compile row, worked out by hand from the
 * seed's format strings. The reconciled exit ledger has its tests in test_exit_ledger.c. */
static int child_exit_ledger(void *arg)
{
    (void)arg;
    setenv("WALLTIME_TRACE", path, 1);
    setenv("WALLTIME_SUMMARY", "flat", 1);
    for (int i = 0; i < 3; i++) {
        const wt_span h = wt_begin("load", "a");
        wt_end(h, WT_CACHED_HIT, 1, NULL);
    }
    for (int i = 0; i < 2; i++) {
        const wt_span h = wt_begin("load", "b");
        wt_end(h, WT_CACHED_MISS, 1, NULL);
    }
    wt_record("compile", "k", 0.5, WT_CACHED_UNKNOWN, 4, NULL);
    return 0; /* the ledger prints at exit */
}

static void test_recorder_exit_ledger_tallies_hits_and_misses(void **state)
{
    (void)state;
    char err[600];
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    const int st = rt_run(child_exit_ledger, NULL, err, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    const char *out = rt_slurp(err);
    /* "load" first (its first span ended first), 5 spans of count 1, 3 HIT / 2 MISS */
    const char *load = strstr(out, "\nload ");
    const char *compile = strstr(out, "\ncompile ");
    assert_non_null(load);
    assert_non_null(compile);
    assert_true(load < compile);
    assert_non_null(strstr(load, "       5   3 HIT / 2 MISS\n"));
    /* 0.5 s, count 4, no notes: '%-18s%10.1f' then the %wall column, '%8lld', 3 spaces */
    static const char compile_row[] = "\ncompile                  0.5";
    assert_int_equal(strncmp(compile, compile_row, sizeof compile_row - 1), 0);
    assert_non_null(strstr(compile, "       4   \n"));
    /* one CACHE MISS line per miss, with the seed's default text */
    const char *m1 = strstr(out, "  - CACHE MISS: load b (0.0s) \xe2\x80\x94 TT_DIT_CACHE_DIR unset");
    assert_non_null(m1);
    assert_non_null(strstr(m1 + 1, "  - CACHE MISS: load b (0.0s)"));
    assert_non_null(strstr(out, "walltime: trace written to '"));
}

/* ---- write errors ---------------------------------------------------------------------- */

static int child_write_to(void *arg)
{
    setenv("WALLTIME_TRACE", (const char *)arg, 1);
    for (int i = 0; i < 1000; i++) {
        const wt_span h = wt_begin("a", "b");
        wt_end(h, WT_CACHED_HIT, 0, NULL);
    }
    if (wt_enabled())
        return 3;
    return 7; /* the host goes on and exits as it chose */
}

static size_t count_lines(const char *s, const char *prefix)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, prefix)); p++)
        n++;
    return n;
}

static void test_recorder_unwritable_path_turns_off_with_one_message(void **state)
{
    (void)state;
    char err[600], bad[600], want[800];
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.wtrace", dir);
    int st = rt_run(child_write_to, bad, err, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 7);
    snprintf(want, sizeof want, "walltime: cannot write '%s': No such file or directory; recording is off\n", bad);
    assert_string_equal(rt_slurp(err), want);

    st = rt_run(child_write_to, "/dev/full", err, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 7);
    assert_string_equal(rt_slurp(err),
                        "walltime: cannot write '/dev/full': No space left on device; recording is off\n");
}

static int child_file_too_big(void *arg)
{
    (void)arg;
    setenv("WALLTIME_TRACE", path, 1);
    signal(SIGXFSZ, SIG_IGN);
    const struct rlimit lim = { 20000, 20000 };
    setrlimit(RLIMIT_FSIZE, &lim);
    char label[32];
    for (int i = 0; i < 200000; i++) {
        snprintf(label, sizeof label, "x%d", i); /* new strings: the file grows fast */
        wt_record("a", label, 0.001, WT_CACHED_HIT, 0, NULL);
        if (i % 20000 == 0)
            wt_flush();
    }
    wt_flush();
    if (wt_enabled())
        return 3;
    if (wt_flush() != WT_EIO)
        return 4;
    return 7;
}

static void test_recorder_write_error_midway_turns_off_with_one_message(void **state)
{
    (void)state;
    char err[600], want[800];
    snprintf(err, sizeof err, "%s/stderr", dir);
    const int st = rt_run(child_file_too_big, NULL, err, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 7);
    snprintf(want, sizeof want, "walltime: cannot write '%s': File too large; recording is off\n", path);
    assert_string_equal(rt_slurp(err), want);
    assert_int_equal(count_lines(rt_slurp(err), "walltime:"), 1);
}

/* ---- path template, never overwrite ----------------------------------------------------- */

static int child_template(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    char tmpl[600];
    snprintf(tmpl, sizeof tmpl, "%s/t-%%p-%%h-%%%%-%%t.wtrace", dir);
    setenv("WALLTIME_TRACE", tmpl, 1);
    wt_counter("c", 1);
    return wt_enabled() ? 0 : 1;
}

static void test_recorder_path_template_expands_pid_host_percent_time(void **state)
{
    (void)state;
    pid_t pid;
    const int st = rt_run(child_template, NULL, NULL, &pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    char pattern[1024];
    /* %t: YYYYmmdd-HHMMSS */
    snprintf(pattern, sizeof pattern,
             "%s/t-%d-%s-%%-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9].wtrace",
             dir, (int)pid, host);
    glob_t g;
    assert_int_equal(glob(pattern, 0, NULL, &g), 0);
    assert_int_equal(g.gl_pathc, 1);
    rt_trace *t = rt_read(g.gl_pathv[0]);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->info.pid, (uint64_t)pid);
    assert_string_equal(t->host, host);
    rt_free(t);
    globfree(&g);
}

/* arg: the rank to set, or NULL for a process without one */
static int child_rank_template(void *arg)
{
    setenv("WALLTIME_SUMMARY", "0", 1);
    unsetenv("RANK");
    if (arg)
        setenv("WALLTIME_RANK", (const char *)arg, 1);
    else
        unsetenv("WALLTIME_RANK");
    char tmpl[600];
    snprintf(tmpl, sizeof tmpl, "%s/rank%%r-%%p.wtrace", dir);
    setenv("WALLTIME_TRACE", tmpl, 1);
    wt_counter("c", 1);
    return wt_enabled() ? 0 : 1;
}

static void test_recorder_path_template_expands_rank(void **state)
{
    (void)state;
    const char *ranks[] = { "7", NULL };
    for (int i = 0; i < 2; i++) {
        pid_t pid;
        const int st = rt_run(child_rank_template, (void *)ranks[i], NULL, &pid);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        char want[700];
        snprintf(want, sizeof want, "%s/rank%s-%d.wtrace", dir, ranks[i] ? ranks[i] : "", (int)pid);
        rt_trace *t = rt_read(want);
        assert_int_equal(t->open_rc, 0);
        assert_int_equal(t->info.pid, (uint64_t)pid);
        rt_free(t);
    }
}

/* arg: NULL, or a metadata key to record, which tells the run's file */
static int child_fixed(void *arg)
{
    setenv("WALLTIME_SUMMARY", "0", 1);
    setenv("WALLTIME_TRACE", path, 1);
    wt_counter("c", 1);
    if (arg)
        wt_meta((const char *)arg, "1");
    return 0;
}

/* The path holds the latest run; what was there moves to run.1.wtrace, run.2.wtrace, ...
 * (first free number, the number before the extension so *.wtrace scans find them), and
 * nothing is ever overwritten: a CI step that reads the path after the run reads that run. */
static void test_recorder_moves_an_existing_file_aside(void **state)
{
    (void)state;
    FILE *f = fopen(path, "w");
    fputs("keep me", f);
    fclose(f);
    char older[3][600];
    for (int k = 1; k <= 2; k++)
        snprintf(older[k], sizeof older[k], "%s/run.%d.wtrace", dir, k);
    f = fopen(older[2], "w"); /* a taken number is skipped, never replaced */
    fputs("taken", f);
    fclose(f);
    const char *const meta[2] = { "first", "second" };
    for (int k = 0; k < 2; k++) {
        const int st = rt_run(child_fixed, (void *)meta[k], NULL, NULL);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        rt_trace *t = rt_read(path);
        assert_int_equal(t->open_rc, 0);
        assert_true(rt_find(t, WT_EV_META, meta[k], 0) >= 0);
        rt_free(t);
    }
    assert_string_equal(rt_slurp(older[1]), "keep me");
    assert_string_equal(rt_slurp(older[2]), "taken");
    char third[600];
    snprintf(third, sizeof third, "%s/run.3.wtrace", dir);
    rt_trace *t = rt_read(third); /* the first run, moved aside by the second */
    assert_int_equal(t->open_rc, 0);
    assert_true(rt_find(t, WT_EV_META, "first", 0) >= 0);
    rt_free(t);
    snprintf(third, sizeof third, "%s/run.wtrace.1", dir); /* the old suffix: never made */
    assert_false(rt_exists(third));
}

/* ---- fork ----------------------------------------------------------------------------- */

static int child_forks(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    const wt_span h = wt_begin("parent", "before");
    wt_end(h, WT_CACHED_UNKNOWN, 0, NULL);
    const wt_span open_at_fork = wt_begin("parent", "open across fork");
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        /* the child records nothing into the parent's file: nothing is open until it
         * records (then a file of its own: test_fork.c), or opens one itself */
        wt_end(open_at_fork, WT_CACHED_UNKNOWN, 0, NULL);
        if (wt_enabled() || wt_flush() != WT_ESTATE || wt_close() != WT_ESTATE)
            exit(20);
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
        /* TSan cannot start threads after a multi-threaded fork; GCC 12's ASan allocator is not
         * fork-safe with a second thread (the parent's writer), and the child's own file once
         * hung here under it: the plain build checks the child's own file. _exit: nothing
         * of the child's is left to close, and LeakSanitizer's exit scan is not run in it */
        _exit(0);
#endif
        char own[600];
        snprintf(own, sizeof own, "%s/child.wtrace", dir);
        if (wt_open(own) != 0)
            exit(21);
        const wt_span c = wt_begin("child", "in child");
        wt_end(c, WT_CACHED_UNKNOWN, 0, NULL);
        const wt_span o = wt_begin("child", "own file");
        wt_end(o, WT_CACHED_UNKNOWN, 0, NULL);
        exit(0); /* the exit hook closes the child's own file */
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 30 + (WIFEXITED(status) ? WEXITSTATUS(status) % 20 : 19);
    wt_end(open_at_fork, WT_CACHED_UNKNOWN, 0, NULL);
    const wt_span a = wt_begin("parent", "after");
    wt_end(a, WT_CACHED_UNKNOWN, 0, NULL);
    return wt_close();
}

static void test_recorder_fork_child_never_writes_parents_file(void **state)
{
    (void)state;
    pid_t pid;
    const int st = rt_run(child_forks, NULL, NULL, &pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->info.pid, (uint64_t)pid);
    assert_true(rt_find(t, WT_EV_SPAN, "before", 0) >= 0);
    assert_true(rt_find(t, WT_EV_SPAN, "after", 0) >= 0);
    const long o = rt_find(t, WT_EV_SPAN, "open across fork", 0);
    assert_true(o >= 0);
    assert_int_equal(t->ev[o].ev.flags, 0);
    assert_int_equal(rt_find(t, WT_EV_SPAN, "open across fork", 1), -1);
    assert_int_equal(rt_find(t, WT_EV_SPAN, "in child", 0), -1);
    assert_int_equal(rt_find(t, WT_EV_SPAN, "own file", 0), -1);
    for (size_t i = 0; i < t->n; i++)
        if (t->ev[i].ev.kind == WT_EV_SPAN)
            assert_int_equal(t->ev[i].ev.tid, (uint64_t)pid);
    assert_int_equal(rt_count(t, WT_EV_END), 1);
    rt_free(t);

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    return; /* the child stopped before opening its own file (child_forks) */
#endif
    char own[600];
    snprintf(own, sizeof own, "%s/child.wtrace", dir);
    t = rt_read(own);
    assert_int_equal(t->open_rc, 0);
    assert_true(t->info.pid != (uint64_t)pid);
    assert_true(rt_find(t, WT_EV_SPAN, "own file", 0) >= 0);
    assert_int_equal(rt_find(t, WT_EV_SPAN, "before", 0), -1);
    assert_int_equal(t->stats.end, WT_END_CLEAN);
    rt_free(t);
}

/* ---- a writer stuck on a FIFO ------------------------------------------------------------ */

/* Makes the FIFO `dir`/fifo (its path in fifo[600]) and opens its read end, not blocking:
 * the writer's open then succeeds and nobody reads until fifo_drain(). The FIFO's buffer is
 * cut to 4 KiB, so that the writer soon blocks in write(): repeated spans compress to under
 * a byte each, and the default 64 KiB took so many that on a fast host the writer never
 * blocked and a test that needs it stuck failed now and then (3 runs in 10 on one host). */
static int fifo_make(char *fifo)
{
    snprintf(fifo, 600, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    const int rd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(rd >= 0);
    assert_true(fcntl(rd, F_SETPIPE_SZ, 4096) >= 4096);
    return rd;
}

/* Copies what the FIFO's read end `rd` holds into `out` until the writer closes it, then
 * checks that the recording child `pid` exited with 0. */
static void fifo_drain(int rd, const char *out, pid_t pid)
{
    fcntl(rd, F_SETFL, 0);
    FILE *f = fopen(out, "wb");
    assert_non_null(f);
    char buf[65536];
    ssize_t n;
    while ((n = read(rd, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, f);
    fclose(f);
    close(rd);
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* The trace at `out`, its spans and the sum of its DROPPED counts. */
static rt_trace *read_spans_dropped(const char *out, uint64_t *spans, uint64_t *dropped)
{
    rt_trace *t = rt_read(out);
    assert_int_equal(t->open_rc, 0);
    *spans = *dropped = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->ev[i].ev.kind == WT_EV_SPAN)
            (*spans)++;
        else if (t->ev[i].ev.kind == WT_EV_DROPPED)
            *dropped += (uint64_t)t->ev[i].ev.count;
    }
    return t;
}

/* ---- a stuck writer: drop with a count --------------------------------------------------- */

#define N_STUCK 200000

static void test_recorder_stuck_writer_drops_with_a_count(void **state)
{
    (void)state;
    /* the trace goes into a FIFO nobody reads for a while: the writer blocks in write(),
     * the 1 Ki-entry ring fills, the thread waits 200 ms for progress and then drops */
    char fifo[600], out[600];
    snprintf(out, sizeof out, "%s/drained.wtrace", dir);
    const int rd = fifo_make(fifo);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        setenv("WALLTIME_SUMMARY", "0", 1);
        setenv("WALLTIME_RING", "1024", 1);
        if (wt_open(fifo) != 0)
            _exit(10);
        for (int i = 0; i < N_STUCK; i++) {
            const wt_span h = wt_begin("work", "s");
            wt_end(h, WT_CACHED_UNKNOWN, 0, NULL);
        }
        exit(wt_close() == 0 ? 0 : 11);
    }
    sleep(1); /* the child records while its writer is stuck */
    fifo_drain(rd, out, pid);
    uint64_t spans, dropped;
    rt_trace *t = read_spans_dropped(out, &spans, &dropped);
    assert_true(dropped > 0);
    assert_int_equal(spans + dropped, N_STUCK); /* every span is either there or counted */
    assert_int_equal(t->stats.end, WT_END_CLEAN);
    rt_free(t);
}

/* ---- a stalled writer: one call waits at most the bound ---------------------------------- */

#define N_BOUND 100000
#define BOUND_MS 50

static int64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The recording thread's voluntary context switches so far: a call that waited for ring space
 * slept (one or more), one that was only preempted on a busy machine did not. */
static long own_sleeps(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nvcsw : 0;
}

static void test_recorder_stalled_writer_blocks_a_call_at_most_the_bound(void **state)
{
    (void)state;
    /* a FIFO nobody reads for a second: the writer blocks in write() and the 1 Ki-entry ring
     * fills. fifo_make() cuts its buffer to 4 KiB: with the default 64 KiB, the 100,000 repeated
     * spans (about 0.8 bytes each) nearly fit, and in runs where the writer made fewer frames
     * nothing ever waited (3 runs in 30 under load). Each recording call is timed in the child:
     * none may wait longer than WALLTIME_RING_WAIT_MS (plus scheduling slack), one must have
     * waited about that long (the wait happened), and once it ran out the calls drop without
     * waiting again while the writer stays stuck. Only calls that slept count as waits: on a
     * loaded machine a call preempted for half the bound is not one (it failed so at load
     * 8-13). Every span is in the file or counted, and the exit ledger shows the count the
     * DROPPED records hold. */
    char fifo[600], out[600], err[600], times[600];
    snprintf(out, sizeof out, "%s/drained.wtrace", dir);
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    snprintf(times, sizeof times, "%s/times.txt", dir);
    const int rd = fifo_make(fifo);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 2) < 0)
            _exit(9);
        setenv("WALLTIME_SUMMARY", "1", 1);
        setenv("WALLTIME_RING", "1024", 1);
        setenv("WALLTIME_RING_WAIT_MS", "50", 1);
        if (wt_open(fifo) != 0)
            _exit(10);
        int64_t longest = 0, long_calls = 0;
        for (int i = 0; i < N_BOUND; i++) {
            const long slept = own_sleeps();
            const int64_t t0 = mono_ns();
            const wt_span h = wt_begin("work", "s");
            wt_end(h, WT_CACHED_UNKNOWN, 0, NULL);
            const int64_t d = mono_ns() - t0;
            if (own_sleeps() == slept)
                continue; /* no wait: at most preempted */
            longest = d > longest ? d : longest;
            long_calls += d >= BOUND_MS * 1000000LL / 2;
        }
        FILE *f = fopen(times, "w");
        if (!f)
            _exit(12);
        fprintf(f, "%lld %lld\n", (long long)longest, (long long)long_calls);
        fclose(f);
        exit(wt_close() == 0 ? 0 : 11);
    }
    sleep(1); /* the child records while its writer is stuck */
    fifo_drain(rd, out, pid);
    long long longest = -1, long_calls = -1;
    FILE *f = fopen(times, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lld %lld", &longest, &long_calls), 2);
    fclose(f);
    assert_true(longest >= BOUND_MS * 1000000LL * 9 / 10); /* it did wait for the writer */
    assert_true(longest < (BOUND_MS + 100) * 1000000LL);  /* and no call waited much longer */
    /* one stall, one wait past the bound: the FIFO's buffer may let one more frame through */
    assert_true(long_calls >= 1 && long_calls <= 2);
    uint64_t spans, dropped;
    rt_trace *t = read_spans_dropped(out, &spans, &dropped);
    assert_true(dropped > 0);
    assert_int_equal(spans + dropped, N_BOUND);
    rt_free(t);
    /* the exit ledger's line, with the count the file holds */
    const char *text = rt_slurp(err);
    const char *line = strstr(text, "dropped events");
    assert_non_null(line);
    char count[32];
    snprintf(count, sizeof count, " %llu ", (unsigned long long)dropped);
    const char *eol = strchr(line, '\n');
    const char *at = strstr(line, count);
    assert_true(at && (!eol || at < eol));
}

/* ---- the default ring: a burst it holds without waiting for the writer -------------------- */

/* More than a 16 Ki-entry ring (the default before) plus what a 4 KiB pipe lets the writer
 * commit (under 6,000 spans at the 0.7 bytes a repeated span compresses to); less than the
 * default of 32 Ki entries (docs/RECORDER.md, "Ring size"). */
#define N_BURST 30000

static void test_recorder_default_ring_holds_a_burst_while_the_writer_is_stuck(void **state)
{
    (void)state;
    /* a FIFO with a 4 KiB buffer nobody reads until the burst is over: the writer soon blocks
     * in write() and commits nothing more, so the thread has only its ring (and what the pipe
     * took). With a ring of N_BURST entries or more nothing waits and nothing is dropped;
     * with a smaller one the call that finds it full waits the 50 ms bound and the rest of
     * the burst is dropped. */
    char fifo[600], out[600];
    snprintf(out, sizeof out, "%s/burst.wtrace", dir);
    const int rd = fifo_make(fifo);
    int done[2];
    assert_int_equal(pipe(done), 0);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        close(done[0]);
        setenv("WALLTIME_SUMMARY", "0", 1);
        unsetenv("WALLTIME_RING"); /* the default is what this test is about */
        setenv("WALLTIME_RING_WAIT_MS", "50", 1);
        if (wt_open(fifo) != 0)
            _exit(10);
        for (int i = 0; i < N_BURST; i++) {
            const wt_span h = wt_begin("work", "s");
            wt_end(h, WT_CACHED_UNKNOWN, 0, NULL);
        }
        if (write(done[1], "x", 1) != 1)
            _exit(12);
        exit(wt_close() == 0 ? 0 : 11);
    }
    close(done[1]);
    char c;
    assert_int_equal(read(done[0], &c, 1), 1); /* the burst is over: now drain the FIFO */
    close(done[0]);
    fifo_drain(rd, out, pid);
    uint64_t spans, dropped;
    rt_trace *t = read_spans_dropped(out, &spans, &dropped);
    assert_int_equal(dropped, 0);
    assert_int_equal(spans, N_BURST);
    rt_free(t);
}

/* ---- a slow writer: the thread waits for it and loses nothing ---------------------------- */

#define N_THROTTLE 300000

static int child_throttled(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    setenv("WALLTIME_RING", "1024", 1); /* a full ring every few hundred microseconds */
    if (wt_open(path) != 0)
        return 10;
    for (int i = 0; i < N_THROTTLE; i++) {
        const int64_t t0 = mono_ns();
        const wt_span h = wt_begin("work", "s");
        wt_end(h, WT_CACHED_HIT, i + 1, NULL);
        /* a waiter is woken by the writer's commit, not by its 500 ms bound running out */
        if (mono_ns() - t0 >= 250000000)
            return 12;
    }
    return wt_close() == 0 ? 0 : 11;
}

static void test_recorder_full_ring_waits_for_the_writer_and_loses_nothing(void **state)
{
    (void)state;
    const int st = rt_run(child_throttled, NULL, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(rt_count(t, WT_EV_DROPPED), 0);
    assert_int_equal(rt_count(t, WT_EV_SPAN), N_THROTTLE);
    /* each span once: the counts are 1..N */
    unsigned char *seen = calloc(N_THROTTLE + 1, 1);
    assert_non_null(seen);
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        assert_true(e->count >= 1 && e->count <= N_THROTTLE && !seen[e->count]);
        seen[e->count] = 1;
    }
    free(seen);
    rt_free(t);
}

/* ---- abort ------------------------------------------------------------------------------ */

#define N_ABORT 50000 /* more than one ring: the writer has written part of them */

static int child_aborts(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    for (int i = 0; i < N_ABORT; i++) {
        const wt_span h = wt_begin("work", "step");
        wt_end(h, WT_CACHED_HIT, i + 1, NULL);
    }
    (void)wt_begin("work", "open at crash");
    abort();
}

static void test_recorder_abort_keeps_every_event_and_says_sigabrt(void **state)
{
    (void)state;
    pid_t pid;
    const int st = rt_run(child_aborts, NULL, NULL, &pid);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGABRT);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(rt_steps_once(t, N_ABORT, 0), N_ABORT); /* each exactly once */
    const long o = rt_find(t, WT_EV_SPAN, "open at crash", 0);
    assert_true(o >= 0);
    assert_int_equal(t->ev[o].ev.flags, WT_EVF_UNCLOSED);
    assert_int_equal(t->stats.end, WT_END_SIGNAL);
    assert_int_equal(t->stats.end_signal, SIGABRT);
    rt_free(t);
}

/* ---- kill -9: what is lost ---------------------------------------------------------------- */

/* The bound (docs/RECORDER.md): a kill -9 loses at most what was recorded in the last writer
 * period (250 ms) plus the drain in flight; in the file's first half second the writer looks
 * every 10 ms, so a short run keeps what it recorded. The child records N_KILL spans,
 * tells the parent, and waits to be killed `delay_ms` later. */
#define N_KILL 20000 /* more than a ring: the writer is woken before the period ends */
#define N_SHORT 2000 /* a short run: fewer than wake the writer */

static rt_trace *record_then_kill(int n, int delay_ms)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        setenv("WALLTIME_SUMMARY", "0", 1);
        setenv("WALLTIME_TRACE", path, 1); /* started by the first call: a short run */
        for (int i = 0; i < n; i++) {
            const wt_span h = wt_begin("work", "step");
            wt_end(h, WT_CACHED_HIT, i + 1, NULL);
        }
        if (write(fds[1], "r", 1) != 1)
            _exit(2);
        for (;;)
            pause();
    }
    close(fds[1]);
    char c;
    assert_int_equal(read(fds[0], &c, 1), 1);
    close(fds[0]);
    const struct timespec d = { delay_ms / 1000, (long)(delay_ms % 1000) * 1000000L };
    nanosleep(&d, NULL);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    return rt_read(path);
}

static void test_recorder_kill9_of_a_short_run_keeps_its_events(void **state)
{
    (void)state;
    /* 150 ms: before the first 250 ms period ends (the file held only its header before) */
    rt_trace *t = record_then_kill(N_SHORT, 150);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(rt_steps_once(t, N_SHORT, 0), N_SHORT);
    assert_int_equal(t->stats.end, WT_END_NONE); /* killed: no END record */
    rt_free(t);
}

static void test_recorder_kill9_loses_at_most_the_last_period(void **state)
{
    (void)state;
    /* everything recorded more than one period (250 ms) and a drain before the kill is in
     * the file; 600 ms leaves a shared, slow machine room for the drain */
    rt_trace *t = record_then_kill(N_KILL, 600);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(rt_steps_once(t, N_KILL, 0), N_KILL);
    assert_int_equal(t->stats.end, WT_END_NONE);
    rt_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_recorder_round_trips_every_record_type, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_nested_spans_have_depth_and_end_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_nested_spans_on_the_monotonic_clock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_disabled_writes_no_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_exit_ledger_tallies_hits_and_misses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_unwritable_path_turns_off_with_one_message, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_write_error_midway_turns_off_with_one_message, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_path_template_expands_pid_host_percent_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_path_template_expands_rank, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_moves_an_existing_file_aside, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_fork_child_never_writes_parents_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_stuck_writer_drops_with_a_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_stalled_writer_blocks_a_call_at_most_the_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_default_ring_holds_a_burst_while_the_writer_is_stuck, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_full_ring_waits_for_the_writer_and_loses_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_abort_keeps_every_event_and_says_sigabrt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_kill9_of_a_short_run_keeps_its_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_kill9_loses_at_most_the_last_period, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
