/* dlclose() of libwalltime.so while a thread that recorded is alive (issue 10, item 4): when
 * that thread exits, its recorder state is handed over by a thread-exit destructor that lives
 * in the library. Python and plugin hosts load and unload libraries, so the library must
 * stay mapped (it is linked with -z nodelete: dlclose() leaves it loaded) and the thread's
 * exit must not crash. The events recorded through the unloaded handle are still written. */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define RT_DIR_PREFIX "dl" /* this file's temporary directories */
#include "test_recorder_util.h"

typedef int (*open_fn)(const char *);
typedef wt_span (*begin_fn)(const char *, const char *);
typedef void (*end_fn)(wt_span, wt_cached, int64_t, const char *);

static begin_fn lib_begin;
static end_fn lib_end;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int recorded, unloaded;

static void *recorder(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++)
        lib_end(lib_begin("plugin", "work"), WT_CACHED_HIT, 0, NULL);
    (void)lib_begin("plugin", "open at exit"); /* ended by the thread-exit destructor */
    pthread_mutex_lock(&mu);
    recorded = 1;
    pthread_cond_broadcast(&cv);
    while (!unloaded)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return NULL; /* the thread exits after the library was closed */
}

static int child_dlclose(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    void *lib = dlopen(WT_SHARED_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return 10;
    const open_fn lib_open = (open_fn)(uintptr_t)dlsym(lib, "wt_open");
    lib_begin = (begin_fn)(uintptr_t)dlsym(lib, "wt_begin");
    lib_end = (end_fn)(uintptr_t)dlsym(lib, "wt_end");
    if (!lib_open || !lib_begin || !lib_end || lib_open(path) != 0)
        return 11;
    pthread_t t;
    pthread_create(&t, NULL, recorder, NULL);
    pthread_mutex_lock(&mu);
    while (!recorded)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    if (dlclose(lib) != 0)
        return 12;
    pthread_mutex_lock(&mu);
    unloaded = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(t, NULL);
    return 0; /* the library's exit hook closes the trace */
}

static void test_recorder_dlclose_then_recording_thread_exits(void **state)
{
    (void)state;
    const int st = rt_run(child_dlclose, NULL, NULL, NULL);
    assert_true(WIFEXITED(st)); /* before -z nodelete: SIGSEGV in the unmapped destructor */
    assert_int_equal(WEXITSTATUS(st), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    size_t work = 0;
    for (size_t i = 0; i < t->n; i++)
        work += t->ev[i].ev.kind == WT_EV_SPAN && rt_streq(t->ev[i].ev.label, "work");
    assert_int_equal(work, 1000);
    const long o = rt_find(t, WT_EV_SPAN, "open at exit", 0);
    assert_true(o >= 0);
    assert_int_equal(t->ev[o].ev.flags, WT_EVF_UNCLOSED);
    assert_int_equal(t->stats.end, WT_END_CLEAN);
    rt_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_recorder_dlclose_then_recording_thread_exits, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
