/* wt_cli_error() from several threads at once (trend's workers report damaged files while
 * others read): every message is one whole line of stderr, never spliced with another's. And
 * with stdout fully buffered (as the commands buffer it into a file or pipe) and both streams
 * in one file, a message comes after the output written before it. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "source.h"

#define THREADS 8
#define MESSAGES 2000

static const char payload[] = "'some/dir/trace.wtrace': at byte 123456: a frame's checksum does not match";

static pthread_barrier_t start;

static void *say(void *arg)
{
    const int t = (int)(intptr_t)arg;
    pthread_barrier_wait(&start); /* all at once, or the first may be done before the last */
    for (int m = 0; m < MESSAGES; m++)
        wt_cli_error("thread %d message %d %s", t, m, payload);
    return NULL;
}

static void test_cli_error_lines_stay_whole_across_threads(void **state)
{
    (void)state;
    char path[] = "/tmp/wt_cli_error_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    const int saved = dup(2);
    assert_true(saved >= 0);
    assert_int_equal(dup2(fd, 2), 2);
    pthread_t th[THREADS];
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_create(&th[t], NULL, say, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    fflush(stderr);
    assert_int_equal(dup2(saved, 2), 2);
    close(saved);
    close(fd);
    assert_int_equal(wt_cli_said(), 1);

    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static int seen[THREADS][MESSAGES];
    char line[512];
    int lines = 0;
    while (fgets(line, sizeof line, f)) {
        int t = -1, m = -1, used = 0;
        const int ok = sscanf(line, WT_PROG ": thread %d message %d %n", &t, &m, &used) == 2 &&
                       t >= 0 && t < THREADS && m >= 0 && m < MESSAGES;
        if (!ok)
            fail_msg("a spliced line: %s", line);
        if (strncmp(line + used, payload, sizeof payload - 1) != 0 ||
            strcmp(line + used + sizeof payload - 1, "\n") != 0)
            fail_msg("a spliced line: %s", line);
        seen[t][m]++;
        lines++;
    }
    fclose(f);
    unlink(path);
    assert_int_equal(lines, THREADS * MESSAGES);
    for (int t = 0; t < THREADS; t++)
        for (int m = 0; m < MESSAGES; m++)
            assert_int_equal(seen[t][m], 1);
}

static void test_cli_error_comes_after_the_output_before_it(void **state)
{
    (void)state;
    char path[] = "/tmp/wt_cli_order_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stdout);
    fflush(stderr);
    const int out = dup(1), err = dup(2);
    assert_true(out >= 0 && err >= 0);
    assert_int_equal(dup2(fd, 1), 1);
    assert_int_equal(dup2(fd, 2), 2);
    static char buf[1 << 16];
    setvbuf(stdout, buf, _IOFBF, sizeof buf); /* as wt_args_stdout_buffered() does */
    fputs("{\"kind\":\"header\"}\n", stdout);
    wt_cli_error("at byte 27: damaged");
    fputs("{\"kind\":\"span\"}\n", stdout);
    fflush(stdout);
    setvbuf(stdout, NULL, _IOLBF, 0);
    assert_int_equal(dup2(out, 1), 1);
    assert_int_equal(dup2(err, 2), 2);
    close(out);
    close(err);
    FILE *f = fdopen(fd, "r");
    assert_non_null(f);
    rewind(f);
    char got[256];
    const size_t n = fread(got, 1, sizeof got - 1, f);
    got[n] = '\0';
    fclose(f);
    unlink(path);
    assert_string_equal(got, "{\"kind\":\"header\"}\n" WT_PROG ": at byte 27: damaged\n"
                             "{\"kind\":\"span\"}\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_error_lines_stay_whole_across_threads),
        cmocka_unit_test(test_cli_error_comes_after_the_output_before_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
