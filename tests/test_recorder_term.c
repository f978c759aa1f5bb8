/* Kills in the middle of a stage (SIGTERM from timeout or a scheduler, SIGINT from Ctrl-C,
 * SIGHUP, SIGQUIT): a program that leaves them at their default disposition gets, as for a
 * crash, its open spans written as unclosed (every thread's) and an END record with the
 * signal, and still dies by that signal with the wait status it would have had without
 * walltime. A handler or SIG_IGN the program set, before or after walltime's first call,
 * is left as it is. Each scenario runs in a forked child the parent kills; the parent
 * measures with clock_gettime how long the child's spans were open before the kill. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

#include <cmocka.h>

#define RT_DIR_PREFIX "tm" /* this file's temporary directories */
#include "test_recorder_util.h"

/* Shared with the child (MAP_SHARED): what it reached and when it began to spin. */
typedef struct shared {
    atomic_int ready;        /* its spans are open and it spins */
    atomic_int thread_ready; /* the second thread's span is open */
    /* when each spin began, and when the parent sent the signal (CLOCK_MONOTONIC, one clock
     * for both processes): an open span is at least as long as its spin up to the kill. (The
     * child's own count was not a bound: the thread the handler does not run on spins on
     * while the dump is written, 4 ms past its end once under ThreadSanitizer.) */
    atomic_llong t0_ns, thread_t0_ns, kill_ns;
    atomic_int handled; /* the program's own handler ran */
} shared;

static shared *sh;

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int setup_term(void **state)
{
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(sh != MAP_FAILED);
    memset(sh, 0, sizeof *sh);
    return setup(state);
}

static int teardown_term(void **state)
{
    munmap(sh, sizeof *sh);
    return teardown(state);
}

/* What a child does; the parent kills it once `ready` is set. */
typedef struct scenario {
    int record;  /* 0: the same program without walltime (the wait status to match) */
    int thread;  /* a second thread with a span open */
    int pre;     /* the disposition set before the first call: 0 none, 1 a handler, 2 SIG_IGN */
    int post;    /* a handler installed after wt_open */
    int sig;     /* the signal the parent sends */
} scenario;

static void on_term(int sig)
{
    (void)sig;
    atomic_store(&sh->handled, 1);
}

static void set_disposition(int sig, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = fn;
    sigaction(sig, &sa, NULL);
}

static void *second_thread(void *arg)
{
    (void)arg;
    (void)wt_begin("upload", "weights");
    const int64_t t0 = now_ns();
    atomic_store(&sh->thread_t0_ns, t0);
    atomic_store(&sh->thread_ready, 1);
    while (!atomic_load(&sh->ready)) /* main's spans are open too (and visible to us) */
        ;
    for (;;) /* until killed */
        (void)now_ns();
    return NULL;
}

/* Begins `load`, records some converts, begins `compile`, and spins until killed; a program
 * handler that ran ends the spans and closes the trace cleanly. */
static int child_spins(void *arg)
{
    const scenario *sc = arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    const struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core); /* SIGQUIT: no core file, the same status both ways */
    alarm(30);                        /* never outlives a failed test */
    if (!sc->record)
        setenv("WALLTIME", "0", 1);
    if (sc->pre)
        set_disposition(sc->sig, sc->pre == 1 ? on_term : SIG_IGN);
    if (sc->record && wt_open(path) != 0)
        return 10;
    if (sc->post)
        set_disposition(sc->sig, on_term);
    pthread_t th;
    if (sc->thread) {
        if (pthread_create(&th, NULL, second_thread, NULL) != 0)
            return 11;
        while (!atomic_load(&sh->thread_ready))
            ;
    }
    const wt_span load = wt_begin("load", "model");
    for (int i = 0; i < 100; i++) {
        const wt_span h = wt_begin("convert", "tensor");
        wt_end(h, WT_CACHED_MISS, i + 1, NULL);
    }
    const wt_span compile = wt_begin("compile", "kernel");
    const int64_t t0 = now_ns();
    atomic_store(&sh->t0_ns, t0);
    atomic_store(&sh->ready, 1);
    while (!atomic_load(&sh->handled))
        ;
    const int64_t t1 = now_ns();
    while (sc->pre == 2 && now_ns() - t1 < 300000000) /* the ignored signal comes meanwhile */
        ;
    wt_end(compile, WT_CACHED_UNKNOWN, 0, NULL);
    wt_end(load, WT_CACHED_UNKNOWN, 0, NULL);
    return sc->record && wt_close() != 0 ? 12 : 0;
}

/* Runs sc in a child, sends it sc->sig `after_ms` after its spans are open; the wait status. */
static int run_and_kill(const scenario *sc, int after_ms)
{
    memset(sh, 0, sizeof *sh);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0)
        _exit(child_spins((void *)sc));
    const int64_t give_up = now_ns() + 20000000000LL;
    while (!atomic_load(&sh->ready) && now_ns() < give_up) {
        const struct timespec nap = { 0, 1000000 };
        nanosleep(&nap, NULL);
    }
    const struct timespec d = { after_ms / 1000, (long)(after_ms % 1000) * 1000000L };
    nanosleep(&d, NULL);
    if (sc->pre == 2) /* ignored: the child goes on 300 ms and ends */
        atomic_store(&sh->handled, 1);
    atomic_store(&sh->kill_ns, now_ns());
    kill(pid, sc->sig);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return st;
}

/* The unclosed span `label`, or NULL. */
static const wt_event *unclosed(const rt_trace *t, const char *label)
{
    const long i = rt_find(t, WT_EV_SPAN, label, 0);
    if (i < 0 || !(t->ev[i].ev.flags & WT_EVF_UNCLOSED))
        return NULL;
    return &t->ev[i].ev;
}

/* How long a spin that began at t0 had run when the parent sent the signal: a lower bound of
 * the open spans' length whichever thread the handler runs on (the other spins on while the
 * dump is written, so what it last stored can pass the dump's end). */
static int64_t spun_to_kill(int64_t t0)
{
    assert_true(t0 > 0);
    return atomic_load(&sh->kill_ns) - t0;
}

/* At least `spun` ns long; 1 ms of slack for the recorder's tick-to-ns map, whose error is
 * microseconds, against the child's own CLOCK_MONOTONIC. */
static void assert_open_for(const wt_event *e, int64_t spun)
{
    assert_non_null(e);
    assert_true(spun > 100000000); /* the child spun before the kill */
    if (e->dur + 1000000 < spun)
        fail_msg("%s open %lld ns, but the child spun %lld ns", e->label, (long long)e->dur,
                 (long long)spun);
}

/* The output of walltime-analyze CMD on the trace (static buffer). */
static const char *analyze(const char *cmd)
{
    static char out[65536];
    char line[1200];
    snprintf(line, sizeof line, "'%s' %s '%s' 2>&1", WT_ANALYZE_BIN, cmd, path);
    FILE *p = popen(line, "r");
    assert_non_null(p);
    const size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    return out;
}

static void assert_has(const char *text, const char *what)
{
    if (!strstr(text, what))
        fail_msg("'%s' not in:\n%s", what, text);
}

static void test_term_sigterm_mid_stage_writes_open_spans_and_dies_by_it(void **state)
{
    (void)state;
    const scenario sc = { .record = 1, .sig = SIGTERM };
    const int st = run_and_kill(&sc, 300);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGTERM);
    const int64_t spun = spun_to_kill(atomic_load(&sh->t0_ns));
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(t->stats.end, WT_END_SIGNAL);
    assert_int_equal(t->stats.end_signal, SIGTERM);
    const wt_event *compile = unclosed(t, "kernel"), *load = unclosed(t, "model");
    assert_open_for(compile, spun);
    assert_open_for(load, spun);
    assert_true(load->dur >= compile->dur); /* the parent outlasts its child */
    assert_int_equal(load->depth, 0);
    assert_int_equal(compile->depth, 1);
    assert_string_equal(compile->category, "compile");
    long converts = 0;
    for (size_t i = 0; i < t->n; i++)
        converts += t->ev[i].ev.kind == WT_EV_SPAN && rt_streq(t->ev[i].ev.label, "tensor");
    assert_int_equal(converts, 100);
    rt_free(t);

    /* the analyzer names the open spans and the kill, not a crash */
    const char *an = analyze("anomalies");
    assert_has(an, "LEFT OPEN: compile kernel");
    assert_has(an, "LEFT OPEN: load model");
    assert_has(an, "KILLED: '");
    assert_has(an, "killed by signal 15 (SIGTERM)");
    assert_true(strstr(an, "CRASHED") == NULL && strstr(an, "NO END RECORD") == NULL);
    const char *led = analyze("ledger");
    assert_has(led, "killed by signal 15 (SIGTERM)");
    assert_has(led, "\ncompile ");
    assert_true(strstr(led, "no end record") == NULL);
}

/* The wait status a parent sees is the one the same program has without walltime: each kill
 * signal, SIGQUIT without its core (RLIMIT_CORE 0 in both). */
static void test_term_each_kill_signal_keeps_the_wait_status(void **state)
{
    (void)state;
    static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
    for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++) {
        const scenario plain = { .record = 0, .sig = sigs[k] };
        const int want = run_and_kill(&plain, 150);
        assert_true(WIFSIGNALED(want));
        assert_int_equal(WTERMSIG(want), sigs[k]);
        const scenario rec = { .record = 1, .sig = sigs[k] };
        const int st = run_and_kill(&rec, 150);
        const int64_t spun = spun_to_kill(atomic_load(&sh->t0_ns));
        assert_int_equal(st, want);
        rt_trace *t = rt_read(path);
        assert_int_equal(t->open_rc, 0);
        assert_int_equal(t->stats.end, WT_END_SIGNAL);
        assert_int_equal(t->stats.end_signal, sigs[k]);
        assert_open_for(unclosed(t, "kernel"), spun);
        rt_free(t);
        unlink(path);
    }
}

/* The other threads' open spans are written too, whichever thread the signal lands on. */
static void test_term_open_spans_of_every_thread_are_written(void **state)
{
    (void)state;
    const scenario sc = { .record = 1, .thread = 1, .sig = SIGTERM };
    const int st = run_and_kill(&sc, 300);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGTERM);
    const int64_t spun = spun_to_kill(atomic_load(&sh->t0_ns));
    const int64_t thread_spun =
        spun_to_kill(atomic_load(&sh->thread_t0_ns));
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(t->stats.end_signal, SIGTERM);
    const wt_event *compile = unclosed(t, "kernel"), *up = unclosed(t, "weights");
    assert_open_for(compile, spun);
    assert_open_for(unclosed(t, "model"), spun);
    assert_open_for(up, thread_spun);
    assert_int_not_equal(up->tid, compile->tid);
    assert_int_equal(up->depth, 0);
    assert_int_equal(rt_find(t, WT_EV_SPAN, "weights", 1), -1); /* once */
    rt_free(t);
}

/* A terminal's Ctrl-C comes from the kernel (si_code SI_KERNEL), not from kill(): the handler
 * must send it again all the same, else the process would go on with the default installed.
 * A process may queue such a signal to itself; the child does, then spins 2 s more. */
static int child_kernel_sigint(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    alarm(30);
    if (wt_open(path) != 0)
        return 10;
    (void)wt_begin("compile", "kernel");
    const int64_t t0 = now_ns();
    while (now_ns() - t0 < 200000000)
        ;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGINT;
    si.si_code = SI_KERNEL;
    if (syscall(SYS_rt_sigqueueinfo, getpid(), SIGINT, &si) != 0)
        return 11;
    while (now_ns() - t0 < 2200000000LL)
        ;
    return 12; /* survived */
}

static void test_term_sigint_from_the_terminal_still_kills(void **state)
{
    (void)state;
    const int st = rt_run(child_kernel_sigint, NULL, NULL, NULL);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGINT);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->stats.end, WT_END_SIGNAL);
    assert_int_equal(t->stats.end_signal, SIGINT);
    assert_open_for(unclosed(t, "kernel"), 200000000);
    rt_free(t);
}

/* The program's own choice stays: a handler set before the first call runs (the trace is
 * then closed by the program, cleanly), and so does one set after it; SIG_IGN stays. */
static void check_program_keeps(const scenario *sc)
{
    const int st = run_and_kill(sc, 150);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(atomic_load(&sh->handled), 1);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->stats.end, WT_END_CLEAN);
    assert_true(rt_find(t, WT_EV_SPAN, "kernel", 0) >= 0);
    assert_null(unclosed(t, "kernel")); /* the program ended it */
    rt_free(t);
}

static void test_term_program_handler_before_walltime_stays(void **state)
{
    (void)state;
    const scenario sc = { .record = 1, .pre = 1, .sig = SIGTERM };
    check_program_keeps(&sc);
}

static void test_term_program_handler_after_walltime_wins(void **state)
{
    (void)state;
    const scenario sc = { .record = 1, .post = 1, .sig = SIGINT };
    check_program_keeps(&sc);
}

static void test_term_ignored_signal_stays_ignored(void **state)
{
    (void)state;
    const scenario sc = { .record = 1, .pre = 2, .sig = SIGHUP };
    check_program_keeps(&sc);
}

/* wt_close() puts the default back; WALLTIME_SIGNALS=0 installs nothing. */
static int is_dfl(int sig)
{
    struct sigaction cur;
    return sigaction(sig, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
           cur.sa_handler == SIG_DFL;
}

static int child_close_restores(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    if (is_dfl(SIGTERM) || is_dfl(SIGINT) || is_dfl(SIGHUP) || is_dfl(SIGQUIT))
        return 11; /* not installed */
    if (wt_close() != 0)
        return 12;
    if (!is_dfl(SIGTERM) || !is_dfl(SIGINT) || !is_dfl(SIGHUP) || !is_dfl(SIGQUIT))
        return 13;
    return 0;
}

static int child_signals_off(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    setenv("WALLTIME_SIGNALS", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    if (!is_dfl(SIGTERM) || !is_dfl(SIGINT) || !is_dfl(SIGHUP) || !is_dfl(SIGQUIT))
        return 11;
    return wt_close() == 0 ? 0 : 12;
}

static void test_term_close_puts_the_default_back(void **state)
{
    (void)state;
    int st = rt_run(child_close_restores, NULL, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    unlink(path);
    st = rt_run(child_signals_off, NULL, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* wt_close_signalled(): for a runtime that kills itself by a signal after its shutdown
 * (Python's uncaught KeyboardInterrupt), the end record says the signal; a signal number out
 * of range closes nothing. */
static int child_close_signalled(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    const wt_span s = wt_begin("load", "weights");
    wt_end(s, WT_CACHED_UNKNOWN, 0, NULL);
    if (wt_close_signalled(0) != WT_EINVAL || wt_close_signalled(65) != WT_EINVAL ||
        !wt_enabled())
        return 11;
    if (wt_close_signalled(SIGINT) != 0 || wt_enabled())
        return 12;
    return wt_close_signalled(SIGINT) == WT_ESTATE ? 0 : 13;
}

static void test_term_close_signalled_says_the_signal(void **state)
{
    (void)state;
    const int st = rt_run(child_close_signalled, NULL, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_true(rt_find(t, WT_EV_SPAN, "weights", 0) >= 0);
    assert_int_equal(t->stats.end, WT_END_SIGNAL);
    assert_int_equal(t->stats.end_signal, SIGINT);
    rt_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_term_sigterm_mid_stage_writes_open_spans_and_dies_by_it, setup_term, teardown_term),
        cmocka_unit_test_setup_teardown(test_term_each_kill_signal_keeps_the_wait_status, setup_term, teardown_term),
        cmocka_unit_test_setup_teardown(test_term_open_spans_of_every_thread_are_written, setup_term, teardown_term),
        cmocka_unit_test_setup_teardown(test_term_sigint_from_the_terminal_still_kills, setup_term, teardown_term),
        cmocka_unit_test_setup_teardown(test_term_program_handler_before_walltime_stays, setup_term, teardown_term),
        cmocka_unit_test_setup_teardown(test_term_program_handler_after_walltime_wins, setup_term, teardown_term),
        cmocka_unit_test_setup_teardown(test_term_ignored_signal_stays_ignored, setup_term, teardown_term),
        cmocka_unit_test_setup_teardown(test_term_close_puts_the_default_back, setup_term, teardown_term),
        cmocka_unit_test_setup_teardown(test_term_close_signalled_says_the_signal, setup_term, teardown_term),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
