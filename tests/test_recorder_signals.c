/* The recorder next to the program's own signal handlers (issue 10, items 2 and 3):
 * - a SIGSEGV handler the program installed before walltime that repairs the fault (mprotect,
 *   as JITs and garbage collectors do) leaves the recorder running and the trace unmarked:
 *   no I/O lock left held, no spinning writer, no hang at close;
 * - such a handler that gives up (puts back the default and dies, as Python's faulthandler
 *   does) still gets the crash dump written;
 * - recording calls made from a signal handler, SIGUSR1 every 20 us while the main thread
 *   records, never corrupt the trace nor deadlock: each call is recorded or, when it
 *   interrupted another recording call of its thread, dropped and counted. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

#include <cmocka.h>

#define RT_DIR_PREFIX "sg" /* this file's temporary directories */
#include "test_recorder_util.h"

/* ---- a handler installed before walltime that repairs the fault ------------------------- */

#define N_FAULTS 200
#define N_EACH 500
static char *page;
static long page_size;
static atomic_int repaired;

static void repair(int sig, siginfo_t *info, void *uctx)
{
    (void)sig;
    (void)uctx;
    char *a = info->si_addr;
    if (a >= page && a < page + page_size) {
        mprotect(page, (size_t)page_size, PROT_READ | PROT_WRITE);
        atomic_fetch_add(&repaired, 1);
        return;
    }
    signal(SIGSEGV, SIG_DFL); /* not ours: die */
}

/* Gives up as faulthandler does: the default back, the signal again. */
static void give_up(int sig)
{
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(int sig, void (*fn)(int, siginfo_t *, void *), void (*plain)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    if (fn) {
        sa.sa_sigaction = fn;
        sa.sa_flags = SA_SIGINFO;
    } else {
        sa.sa_handler = plain;
    }
    sigaction(sig, &sa, NULL);
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static void steps(int from, int n)
{
    for (int i = from; i < from + n; i++) {
        const wt_span h = wt_begin("work", "step");
        wt_end(h, WT_CACHED_HIT, i + 1, NULL);
    }
}

/* arg: "before" (the program's handler is there before walltime's first call) or "after" */
static int child_repairs(void *arg)
{
    const int before = strcmp((const char *)arg, "before") == 0;
    setenv("WALLTIME_SUMMARY", "0", 1);
    alarm(20); /* a hang at close is a failure */
    page_size = sysconf(_SC_PAGESIZE);
    page = mmap(NULL, (size_t)page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        return 9;
    if (before)
        install(SIGSEGV, repair, NULL);
    if (wt_open(path) != 0)
        return 10;
    if (!before)
        install(SIGSEGV, repair, NULL);
    for (int f = 0; f < N_FAULTS; f++) {
        steps(f * N_EACH, N_EACH);
        mprotect(page, (size_t)page_size, PROT_NONE);
        ((volatile char *)page)[f] = 1; /* faults; the handler repairs; the store is redone */
    }
    if (atomic_load(&repaired) != N_FAULTS || !wt_enabled())
        return 11;
    if (wt_flush() != 0)
        return 12;
    /* the writer must be idle, not spinning on a lock the crash path left held */
    const double c0 = cpu_seconds();
    const struct timespec nap = { 0, 400 * 1000 * 1000 };
    nanosleep(&nap, NULL);
    if (cpu_seconds() - c0 > 0.2)
        return 13;
    return wt_close() == 0 ? 0 : 14;
}

static void check_repaired(const char *when)
{
    const int st = rt_run(child_repairs, (void *)when, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(rt_steps_once(t, N_FAULTS * N_EACH, 0), N_FAULTS * N_EACH);
    assert_int_equal(t->stats.end, WT_END_CLEAN); /* not "died of signal 11" */
    assert_int_equal(rt_count(t, WT_EV_END), 1);
    rt_free(t);
}

static void test_recorder_fault_repaired_by_earlier_handler_leaves_recording_on(void **state)
{
    (void)state;
    check_repaired("before");
}

static void test_recorder_fault_repaired_by_later_handler_leaves_recording_on(void **state)
{
    (void)state;
    check_repaired("after");
}

static int child_gives_up(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    install(SIGSEGV, NULL, give_up);
    char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (none == MAP_FAILED)
        return 9;
    if (wt_open(path) != 0)
        return 10;
    steps(0, 1000);
    (void)wt_begin("work", "open at crash");
    *(volatile char *)none = 1;
    return 11;
}

static void test_recorder_earlier_handler_that_gives_up_still_gets_the_dump(void **state)
{
    (void)state;
    const int st = rt_run(child_gives_up, NULL, NULL, NULL);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGSEGV);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(rt_steps_once(t, 1000, 0), 1000);
    assert_true(rt_find(t, WT_EV_SPAN, "open at crash", 0) >= 0);
    assert_int_equal(t->stats.end, WT_END_SIGNAL);
    assert_int_equal(t->stats.end_signal, SIGSEGV);
    rt_free(t);
}

/* A program handler installed after walltime's, which passes faults that are not its own to
 * the handler it found (ours), then a close and a reopen: walltime now finds the program's
 * handler as its previous one, which leads back to walltime's. The loop must end in the dump
 * and death by SIGSEGV, not run until the stack overflows without a dump. */
static struct sigaction found;

static void pass_on(int sig, siginfo_t *info, void *uctx)
{
    if (found.sa_flags & SA_SIGINFO)
        found.sa_sigaction(sig, info, uctx);
    else if (found.sa_handler != SIG_DFL && found.sa_handler != SIG_IGN)
        found.sa_handler(sig);
    else
        signal(sig, SIG_DFL);
}

static int child_chain_loop(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    char first[600];
    snprintf(first, sizeof first, "%s/first.wtrace", dir);
    char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (none == MAP_FAILED || wt_open(first) != 0)
        return 10;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = pass_on;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, &found);
    if (wt_close() != 0 || wt_open(path) != 0)
        return 11;
    steps(0, 1000);
    *(volatile char *)none = 1;
    return 12;
}

static void test_recorder_handler_chain_loop_after_reopen_ends_in_the_dump(void **state)
{
    (void)state;
    const int st = rt_run(child_chain_loop, NULL, NULL, NULL);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGSEGV);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(rt_steps_once(t, 1000, 0), 1000);
    assert_int_equal(t->stats.end, WT_END_SIGNAL);
    assert_int_equal(t->stats.end_signal, SIGSEGV);
    rt_free(t);
}

/* ---- recording from a signal handler ------------------------------------------------------ */

/* SIGUSR1 every 20 us on the main thread while it records: each handler run makes a span and
 * a counter, half of them under labels the handler writes into a buffer (new strings: the
 * interning table's lock). Every call the handler made is either in the trace or counted in a
 * DROPPED record (it interrupted a recording call of its thread); the main thread's own spans
 * are all there; no frame is damaged and nothing deadlocks (an alarm fails a hang). */
#define MAIN_SPANS 100000
#define SIG_CALLS 1000
static atomic_long sig_made;
static char sig_label[16];
static volatile sig_atomic_t armed; /* the main thread is at (or past) its first call */

static void on_usr1(int sig)
{
    (void)sig;
    if (!armed)
        return; /* the process's first call is not for handlers (walltime.h) */
    const long k = atomic_fetch_add(&sig_made, 2);
    const char *label = "tick";
    if (k & 2) {
        snprintf(sig_label, sizeof sig_label, "tick%ld", (k >> 2) % 16);
        label = sig_label;
    }
    const wt_span h = wt_begin("signal", label);
    wt_end(h, WT_CACHED_HIT, 0, NULL);
    wt_counter("signal.k", k);
}

/* arg: "open" (wt_open first) or "first use" (the storm is on when the main thread's first
 * call starts the recorder: handler calls then interrupt the first call) */
static int child_records_in_handler(void *arg)
{
    const int open_first = strcmp((const char *)arg, "open") == 0;
    setenv("WALLTIME_SUMMARY", "0", 1);
    setenv("WALLTIME_TRACE", path, 1);
    alarm(200); /* a deadlock fails; a slow sanitizer build on a loaded machine does not */
    if (open_first && wt_open(path) != 0)
        return 10;
    signal(SIGUSR1, on_usr1);
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGUSR1;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    timer_t timer;
    if (timer_create(CLOCK_MONOTONIC, &sev, &timer))
        return 11;
    const struct itimerspec every = { { 0, 20000 }, { 0, 20000 } };
    timer_settime(timer, 0, &every, NULL);
    armed = 1; /* "first use": the storm is on while the next line starts the recorder */
    wt_end(wt_begin("main", "main"), WT_CACHED_MISS, 0, NULL);
    char label[32];
    /* MAIN_SPANS at least, then on until the storm has made 1,000 handler calls: a fast
     * machine records MAIN_SPANS before that many timer periods pass */
    long i = 1;
    for (; i < MAIN_SPANS || atomic_load(&sig_made) < 2 * SIG_CALLS; i++) {
        const char *l = "main";
        if (i % 16 == 0) {
            snprintf(label, sizeof label, "main%ld", i % 1024);
            l = label;
        }
        const wt_span h = wt_begin("main", l);
        wt_end(h, WT_CACHED_MISS, i + 1, NULL);
    }
    armed = 0; /* a signal still on its way (ThreadSanitizer delays them) makes no call */
    timer_delete(timer);
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, NULL);
    if (wt_close() != 0)
        return 12;
    char made[600];
    snprintf(made, sizeof made, "%s/made", dir);
    FILE *f = fopen(made, "w");
    fprintf(f, "%ld %ld\n", atomic_load(&sig_made), i);
    fclose(f);
    return 0;
}

static void check_handler_calls(const char *how)
{
    const int st = rt_run(child_records_in_handler, (void *)how, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char made_path[600];
    snprintf(made_path, sizeof made_path, "%s/made", dir);
    long made = 0, main_made = 0;
    assert_int_equal(sscanf(rt_slurp(made_path), "%ld %ld", &made, &main_made), 2);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(t->stats.frames_damaged, 0);
    assert_int_equal(t->stats.end, WT_END_CLEAN);
    long main_spans = 0, sig_events = 0, dropped = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind == WT_EV_SPAN && rt_streq(e->category, "main")) {
            assert_int_equal(e->cached, WT_CACHED_MISS);
            main_spans++;
        } else if (e->kind == WT_EV_SPAN) {
            assert_string_equal(e->category, "signal");
            assert_int_equal(e->cached, WT_CACHED_HIT);
            assert_int_equal(e->flags, 0);
            sig_events++;
        } else if (e->kind == WT_EV_COUNTER) {
            assert_string_equal(e->name, "signal.k");
            sig_events++;
        } else if (e->kind == WT_EV_DROPPED) {
            dropped += e->count;
        }
    }
    fprintf(stderr, "  %s: %ld events from handler calls: %ld recorded, %ld dropped\n", how, made, sig_events,
            dropped);
    assert_int_equal(main_spans, main_made);
    assert_true(main_made >= MAIN_SPANS);
    assert_true(made >= 2 * SIG_CALLS); /* the storm happened: two events a call */
    assert_int_equal(sig_events + dropped, made);
    rt_free(t);
}

static void test_recorder_calls_from_a_signal_handler_are_recorded_or_counted(void **state)
{
    (void)state;
    check_handler_calls("open");
}

static void test_recorder_handler_calls_during_the_first_call_never_deadlock(void **state)
{
    (void)state;
    check_handler_calls("first use");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_recorder_fault_repaired_by_earlier_handler_leaves_recording_on, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_fault_repaired_by_later_handler_leaves_recording_on, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_earlier_handler_that_gives_up_still_gets_the_dump, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_handler_chain_loop_after_reopen_ends_in_the_dump, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_calls_from_a_signal_handler_are_recorded_or_counted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_handler_calls_during_the_first_call_never_deadlock, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
