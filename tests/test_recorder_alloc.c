/* Allocation failure in the recorder (issue 10, "Smaller"): a run of threads, new strings,
 * a flush and a close is made with its Nth allocation failing, for every N up to one past
 * the number the run makes (counted by a first, clean run). Each time the host goes on and
 * exits as it chose, stderr holds at most one line from walltime (exactly one, saying
 * memory ran out, when the failing allocation was reached), and whatever was written reads
 * back without damage. The hook is rec_alloc.h's, linked from the static library. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rec_alloc.h"

#define RT_DIR_PREFIX "al" /* this file's temporary directories */
#include "test_recorder_util.h"

#define N_THREADS 3

static void *worker(void *arg)
{
    const int k = (int)(intptr_t)arg;
    char label[32];
    wt_thread_name(k ? "worker" : "first");
    for (int i = 0; i < 300; i++) {
        snprintf(label, sizeof label, "w%d-%d", k, i); /* new strings: the table grows */
        const wt_span h = wt_begin("alloc", label);
        wt_end(h, WT_CACHED_HIT, i + 1, NULL);
        wt_counter("i", i);
    }
    return NULL;
}

/* The run under test; arg: the allocation that fails (0: none). Writes how many allocations
 * the recorder made into DIR/made. */
static int child_run(void *arg)
{
    const long fail = (long)(intptr_t)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    wt__alloc_fail_at(fail);
    (void)wt_open(path);
    pthread_t t[N_THREADS];
    for (int k = 0; k < N_THREADS; k++)
        pthread_create(&t[k], NULL, worker, (void *)(intptr_t)k);
    for (int k = 0; k < N_THREADS; k++)
        pthread_join(t[k], NULL);
    (void)wt_flush();
    (void)wt_close();
    char made[600];
    snprintf(made, sizeof made, "%s/made", dir);
    FILE *f = fopen(made, "w");
    fprintf(f, "%ld\n", wt__alloc_count());
    fclose(f);
    return 7; /* the host exits as it chose */
}

static size_t lines_from_walltime(const char *s)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, "walltime:")); p++)
        n++;
    return n;
}

static void test_recorder_nth_allocation_failing_turns_recording_off_cleanly(void **state)
{
    (void)state;
    char err[600], made[600];
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(made, sizeof made, "%s/made", dir);
    int st = rt_run(child_run, (void *)(intptr_t)0, err, NULL);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);
    assert_string_equal(rt_slurp(err), "");
    const long total = atol(rt_slurp(made));
    fprintf(stderr, "  the run makes %ld allocations\n", total);
    assert_true(total > 10);
    for (long n = 1; n <= total + 1; n++) {
        unlink(path);
        st = rt_run(child_run, (void *)(intptr_t)n, err, NULL);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 7)
            fail_msg("allocation %ld failing: the host did not exit as it chose (%#x)", n, st);
        const int reached = atol(rt_slurp(made)) >= n;
        const char *out = rt_slurp(err); /* rt_slurp's buffer: read after `made` */
        if (lines_from_walltime(out) != (size_t)reached ||
            (reached && !strstr(out, "Cannot allocate memory; recording is off\n")))
            fail_msg("allocation %ld failing: stderr '%s'", n, out);
        if (rt_exists(path)) {
            rt_trace *t = rt_read(path);
            assert_int_equal(t->open_rc, 0);
            assert_int_equal(t->errors, 0);
            rt_free(t);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_recorder_nth_allocation_failing_turns_recording_off_cleanly, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
