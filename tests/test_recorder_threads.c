/* The recorder under threads: 8 threads x 100,000 spans all read back exactly once (with the
 * spans each thread leaves open at its exit, recorded as unclosed by the thread's exit), a
 * handle ended on another thread is ignored, and an abort() while 4 threads record keeps
 * every event of the aborting thread. Runs under ThreadSanitizer in CI (LABELS threads). */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>

#include <cmocka.h>

#define RT_DIR_PREFIX "th" /* this file's temporary directories */
#include "test_recorder_util.h"


#define N_THREADS 8
#define N_SPANS 100000

static const char *const names[N_THREADS] = { "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7" };
static wt_span foreign;

static void *worker(void *arg)
{
    const int k = (int)(intptr_t)arg;
    wt_thread_name(names[k]);
    for (int i = 0; i < N_SPANS; i++) {
        const wt_span h = wt_begin("load", names[k]);
        wt_end(h, WT_CACHED_HIT, i + 1, NULL);
    }
    wt_end(foreign, WT_CACHED_HIT, 0, NULL); /* the main thread's span: ignored here */
    (void)wt_begin("left open", names[k]);    /* ended by this thread's exit */
    return NULL;
}

static int child_threads(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    /* this test is about every span read back once, not about the wait's bound (test_recorder.c
     * tests that): under ThreadSanitizer on a loaded machine one pass over 8 full rings of the
     * default 32 Ki entries took the writer more than the default 500 ms once, and a thread
     * waiting for it dropped its event */
    setenv("WALLTIME_RING_WAIT_MS", "10000", 1);
    if (wt_open(path) != 0)
        return 10;
    foreign = wt_begin("main", "foreign");
    pthread_t t[N_THREADS];
    for (int k = 0; k < N_THREADS; k++)
        pthread_create(&t[k], NULL, worker, (void *)(intptr_t)k);
    for (int k = 0; k < N_THREADS; k++)
        pthread_join(t[k], NULL);
    wt_end(foreign, WT_CACHED_MISS, 0, NULL);
    return wt_close() == 0 ? 0 : 11;
}

static void test_recorder_eight_threads_every_span_read_back_once(void **state)
{
    (void)state;
    const int st = rt_run(child_threads, NULL, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    unsigned char *seen = calloc((size_t)N_THREADS * N_SPANS, 1);
    uint64_t tid_of[N_THREADS] = { 0 };
    size_t total = 0, left_open = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        assert_int_not_equal(e->kind, WT_EV_DROPPED);
        if (e->kind != WT_EV_SPAN)
            continue;
        if (rt_streq(e->category, "left open")) {
            assert_int_equal(e->flags, WT_EVF_UNCLOSED);
            left_open++;
            continue;
        }
        if (rt_streq(e->category, "main")) {
            assert_int_equal(e->cached, WT_CACHED_MISS); /* the foreign ends were ignored */
            continue;
        }
        assert_string_equal(e->category, "load");
        const int k = e->label[1] - '0';
        assert_true(k >= 0 && k < N_THREADS);
        if (!tid_of[k])
            tid_of[k] = e->tid;
        assert_int_equal(e->tid, tid_of[k]); /* one thread's spans, one tid */
        assert_true(e->count >= 1 && e->count <= N_SPANS);
        unsigned char *s = &seen[(size_t)k * N_SPANS + (size_t)(e->count - 1)];
        assert_int_equal(*s, 0);
        *s = 1;
        total++;
    }
    assert_int_equal(total, (size_t)N_THREADS * N_SPANS);
    assert_int_equal(left_open, N_THREADS);
    assert_int_equal(rt_count(t, WT_EV_THREAD_NAME), N_THREADS);
    assert_int_equal(t->stats.end, WT_END_CLEAN);
    free(seen);
    rt_free(t);
}

#define N_ABORT 30000
static atomic_int stop_others;

static void *busy(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_others)) {
        const wt_span h = wt_begin("other", "busy");
        wt_end(h, WT_CACHED_UNKNOWN, 0, NULL);
    }
    return NULL;
}

static int child_aborts_with_threads(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    pthread_t t[3];
    for (int k = 0; k < 3; k++)
        pthread_create(&t[k], NULL, busy, NULL);
    for (int i = 0; i < N_ABORT; i++) {
        const wt_span h = wt_begin("work", "step");
        wt_end(h, WT_CACHED_HIT, i + 1, NULL);
    }
    abort();
}

static void test_recorder_abort_with_four_threads_keeps_aborting_thread(void **state)
{
    (void)state;
    pid_t pid;
    const int st = rt_run(child_aborts_with_threads, NULL, NULL, &pid);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGABRT);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    /* every step once, all on the main thread, whose tid is the pid */
    assert_int_equal(rt_steps_once(t, N_ABORT, (uint64_t)pid), N_ABORT);
    assert_int_equal(t->stats.end, WT_END_SIGNAL);
    assert_int_equal(t->stats.end_signal, SIGABRT);
    rt_free(t);
}

/* ---- open, flush and close from any thread at any time ---------------------------------- */

/* The stress host of issue 10: the main thread closes and reopens the trace (a new file each
 * time) while 6 threads record, a spawner starts short-lived recording threads and a flusher
 * flushes without pause. Before the fix a flush racing a close waited for ever (27 of 30
 * runs); an alarm turns such a hang into a failure here. */
#define N_REC 6
#define N_REOPEN 12
static atomic_int stress_stop;
static atomic_int bad_flush;

static void *stress_recorder(void *arg)
{
    const int k = (int)(intptr_t)arg;
    char label[32];
    for (unsigned i = 0; !atomic_load(&stress_stop); i++) {
        const wt_span h = wt_begin("stress", names[k]);
        if (i % 64 == 0) {
            snprintf(label, sizeof label, "s%d-%u", k, i % 4096); /* new strings too */
            wt_record("stress", label, 1e-6, WT_CACHED_HIT, 2, label);
        }
        wt_end(h, WT_CACHED_MISS, 0, NULL);
        if (i % 1024 == 0)
            wt_counter("i", (int64_t)i);
    }
    return NULL;
}

static void *stress_short(void *arg)
{
    (void)arg;
    wt_thread_name("short");
    const wt_span h = wt_begin("short", "life");
    wt_end(h, WT_CACHED_UNKNOWN, 0, NULL);
    return NULL;
}

static void *stress_spawner(void *arg)
{
    (void)arg;
    while (!atomic_load(&stress_stop)) {
        pthread_t t;
        if (pthread_create(&t, NULL, stress_short, NULL) == 0)
            pthread_join(t, NULL);
    }
    return NULL;
}

static void *stress_flusher(void *arg)
{
    (void)arg;
    while (!atomic_load(&stress_stop)) {
        const int rc = wt_flush();
        if (rc != 0 && rc != WT_ESTATE)
            atomic_store(&bad_flush, 1);
        (void)wt_trace_path();
        (void)wt_enabled();
    }
    return NULL;
}

static int child_stress(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    alarm(60); /* a hang is a failure, not a stuck suite */
    char p[600];
    snprintf(p, sizeof p, "%s/s0.wtrace", dir);
    if (wt_open(p) != 0)
        return 10;
    pthread_t rec[N_REC], spawner, flusher;
    for (int k = 0; k < N_REC; k++)
        pthread_create(&rec[k], NULL, stress_recorder, (void *)(intptr_t)k);
    pthread_create(&spawner, NULL, stress_spawner, NULL);
    pthread_create(&flusher, NULL, stress_flusher, NULL);
    for (int i = 1; i <= N_REOPEN; i++) {
        const struct timespec nap = { 0, 60 * 1000 * 1000 };
        nanosleep(&nap, NULL);
        if (wt_close() != 0)
            return 11;
        snprintf(p, sizeof p, "%s/s%d.wtrace", dir, i);
        if (wt_open(p) != 0)
            return 12;
    }
    atomic_store(&stress_stop, 1);
    for (int k = 0; k < N_REC; k++)
        pthread_join(rec[k], NULL);
    pthread_join(spawner, NULL);
    pthread_join(flusher, NULL);
    if (wt_close() != 0)
        return 13;
    return atomic_load(&bad_flush) ? 14 : 0;
}

static void test_recorder_open_flush_close_from_any_thread(void **state)
{
    (void)state;
    const int st = rt_run(child_stress, NULL, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    size_t spans = 0;
    for (int i = 0; i <= N_REOPEN; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/s%d.wtrace", dir, i);
        rt_trace *t = rt_read(p);
        assert_int_equal(t->open_rc, 0);
        assert_int_equal(t->errors, 0);             /* no damaged frame, no refused record */
        assert_int_equal(t->stats.end, WT_END_CLEAN); /* every file was closed */
        assert_int_equal(t->ev[t->n - 1].ev.kind, WT_EV_END);
        spans += rt_count(t, WT_EV_SPAN);
        rt_free(t);
    }
    assert_true(spans > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_recorder_eight_threads_every_span_read_back_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_abort_with_four_threads_keeps_aborting_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_open_flush_close_from_any_thread, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
