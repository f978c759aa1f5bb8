/* The recorder's environment (libtrace/src/rec_env.c): the words that turn recording off and
 * on, and the one warning line a value or a WALLTIME_* name it does not know gets at start.
 * Each case runs in a forked child with exactly the variables it names (every other WALLTIME_*
 * is removed first); the expected words and lines are the ones the header documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define RT_DIR_PREFIX "env" /* this file's temporary directories */
#include "test_recorder_util.h"

/* One child's environment: NULL-terminated "NAME=value" strings. */
typedef struct env_case {
    const char *vars[12];
    int reopen; /* close and open again: the warnings must not repeat */
} env_case;

/* Removes every WALLTIME_* and TT_WALLTIME the test process inherited. */
static void clear_walltime_env(void)
{
    unsetenv("TT_WALLTIME");
    for (int again = 1; again;) {
        again = 0;
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "WALLTIME", 8) == 0) {
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
                unsetenv(name);
                again = 1; /* environ changed under us: scan it afresh */
                break;
            }
    }
}

static int child_env(void *arg)
{
    const env_case *c = arg;
    clear_walltime_env();
    setenv("WALLTIME_TRACE", path, 1);
    for (int i = 0; c->vars[i]; i++) {
        char name[64];
        const char *eq = strchr(c->vars[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - c->vars[i]), c->vars[i]);
        setenv(name, eq + 1, 1);
    }
    wt_span h = wt_begin("load", "a");
    wt_end(h, WT_CACHED_HIT, 1, NULL);
    if (c->reopen) {
        wt_close();
        char again[600];
        snprintf(again, sizeof again, "%s.again", path);
        wt_open(again);
        wt_close();
    }
    return 0;
}

/* Runs the case; returns the child's stderr (static buffer). *recorded: whether the trace
 * file exists. */
static const char *run_case(const env_case *c, int *recorded)
{
    char err[600];
    snprintf(err, sizeof err, "%s/stderr", dir);
    const int st = rt_run(child_env, (void *)c, err, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    *recorded = rt_exists(path);
    unlink(path);
    const char *out = rt_slurp(err);
    unlink(err);
    return out;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_rec_env_false_words_turn_recording_off_quietly(void **state)
{
    static const char *const words[] = { "0", "off", "OFF", "false", "False", "no", "NO" };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        for (int tt = 0; tt < 2; tt++) {
            char var[64];
            snprintf(var, sizeof var, "%s=%s", tt ? "TT_WALLTIME" : "WALLTIME", words[i]);
            /* an unknown name beside it: off means quiet, no warning either */
            const env_case c = { .vars = { var, "WALLTIME_NOSUCH=1", NULL } };
            int recorded;
            const char *err = run_case(&c, &recorded);
            assert_false(recorded);
            assert_string_equal(err, "");
        }
}

static void test_rec_env_true_words_record_without_warning(void **state)
{
    static const char *const words[] = { "1", "on", "On", "true", "TRUE", "yes", "Yes" };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        char var[64];
        snprintf(var, sizeof var, "WALLTIME=%s", words[i]);
        const env_case c = { .vars = { var, "WALLTIME_SUMMARY=0", NULL } };
        int recorded;
        const char *err = run_case(&c, &recorded);
        assert_true(recorded);
        assert_string_equal(err, "");
    }
}

static void test_rec_env_summary_false_word_prints_no_ledger(void **state)
{
    const env_case quiet = { .vars = { "WALLTIME_SUMMARY=Off", NULL } };
    int recorded;
    assert_string_equal(run_case(&quiet, &recorded), "");
    assert_true(recorded);
    /* and without it, the ledger does print: the case above is not quiet by accident */
    const env_case loud = { .vars = { NULL } };
    assert_true(lines(run_case(&loud, &recorded)) > 3);
    /* flat, any case: the seed's table (no inclusive column), and no warning */
    const env_case flat = { .vars = { "WALLTIME_SUMMARY=Flat", NULL } };
    const char *err = run_case(&flat, &recorded);
    assert_non_null(strstr(err, "TOTAL (wall)"));
    assert_null(strstr(err, "inclusive"));
    assert_null(strstr(err, "ignoring"));
}

static void test_rec_env_unknown_value_warns_once_and_keeps_recording(void **state)
{
    const env_case c = { .vars = { "WALLTIME=maybe", "WALLTIME_SUMMARY=0", NULL }, .reopen = 1 };
    int recorded;
    const char *err = run_case(&c, &recorded);
    assert_true(recorded);
    assert_int_equal(lines(err), 1);
    assert_non_null(strstr(err, "WALLTIME='maybe'"));
    assert_non_null(strstr(err, "off/false/no/0"));
}

static void test_rec_env_each_bad_value_gets_one_line(void **state)
{
    const env_case c = { .vars = { "WALLTIME_SUMMARY=0", "WALLTIME_RING=3000", "WALLTIME_ZSTD_LEVEL=20",
                           "WALLTIME_CLOCK=fast", "WALLTIME_SIGNALS=nope", "WALLTIME_RING=4096x",
                           "WALLTIME_RANK=-1", NULL } };
    int recorded;
    const char *err = run_case(&c, &recorded);
    assert_true(recorded);
    /* RING set twice: the second value stands (4096x: not a whole number) */
    assert_int_equal(lines(err), 5);
    assert_non_null(strstr(err, "WALLTIME_RANK='-1'"));
    assert_non_null(strstr(err, "WALLTIME_RING='4096x'"));
    assert_non_null(strstr(err, "WALLTIME_ZSTD_LEVEL='20'"));
    assert_non_null(strstr(err, "WALLTIME_CLOCK='fast'"));
    assert_non_null(strstr(err, "WALLTIME_SIGNALS='nope'"));
}

static void test_rec_env_good_tuning_values_pass_silently(void **state)
{
    const env_case c = { .vars = { "WALLTIME_SUMMARY=no", "WALLTIME_RING=1024", "WALLTIME_ZSTD_LEVEL=-7",
                           "WALLTIME_CLOCK=Monotonic", "WALLTIME_SIGNALS=yes",
                           "WALLTIME_READER_THREAD=0", "WALLTIME_RANK=7",
                           "WALLTIME_SOURCE_DIR=/src/walltime", NULL } };
    int recorded;
    assert_string_equal(run_case(&c, &recorded), "");
    assert_true(recorded);
}

static void test_rec_env_unknown_name_warns_once_naming_it(void **state)
{
    const env_case c = { .vars = { "WALLTIME_SUMMARY=0", "WALLTIME_SUMARY=0", NULL }, .reopen = 1 };
    int recorded;
    const char *err = run_case(&c, &recorded);
    assert_true(recorded);
    assert_int_equal(lines(err), 1);
    assert_non_null(strstr(err, "'WALLTIME_SUMARY'"));
    assert_non_null(strstr(err, "WALLTIME_SUMMARY")); /* the known names follow */
}

static void test_rec_env_hostile_value_stays_one_short_line(void **state)
{
    char big[4096];
    memset(big, 'x', sizeof big);
    static const char head[] = "WALLTIME_CLOCK=a\nb\033[2J"; /* a newline, an escape */
    memcpy(big, head, sizeof head - 1);
    big[sizeof big - 1] = '\0';
    const env_case c = { .vars = { "WALLTIME_SUMMARY=0", big, NULL } };
    int recorded;
    const char *err = run_case(&c, &recorded);
    assert_true(recorded);
    assert_int_equal(lines(err), 1);
    assert_true(strlen(err) < 200);
    assert_null(strchr(err, '\033'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rec_env_false_words_turn_recording_off_quietly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_true_words_record_without_warning, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_summary_false_word_prints_no_ledger, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_unknown_value_warns_once_and_keeps_recording, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_each_bad_value_gets_one_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_good_tuning_values_pass_silently, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_unknown_name_warns_once_naming_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_hostile_value_stays_one_short_line, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
