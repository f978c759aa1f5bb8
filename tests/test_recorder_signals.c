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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_recorder_fault_repaired_by_earlier_handler_leaves_recording_on, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_fault_repaired_by_later_handler_leaves_recording_on, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_earlier_handler_that_gives_up_still_gets_the_dump, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
