/* The recorder's environment (libtrace/src/rec_env.c): the words that turn recording off and
 * on, what a host asking the library (wt_env_recording, wt_env_summary, wt_summary_handover)
 * gets, and the one warning line a value or a WALLTIME_* name it does not know gets at start.
 * Each case runs in a forked child with exactly the variables it names (every other WALLTIME_*
 * is removed first); the expected words and lines are the ones the header documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <zstd.h>

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

/* In a child: exactly the case's variables, and the trace path. */
static void set_case_env(const env_case *c)
{
    clear_walltime_env();
    setenv("WALLTIME_TRACE", path, 1);
    for (int i = 0; c->vars[i]; i++) {
        char name[64];
        const char *eq = strchr(c->vars[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - c->vars[i]), c->vars[i]);
        setenv(name, eq + 1, 1);
    }
}

static int child_env(void *arg)
{
    const env_case *c = arg;
    set_case_env(c);
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

/* The environment as a host asks for it: wt_env_recording()*10 + wt_env_summary() as the exit
 * code, 99 when the asking opened a trace (it must not). With `handover` the child records a
 * span and hands the exit print over instead, exiting 0. */
typedef struct ask_case {
    env_case env;
    int handover;
} ask_case;

static int child_ask(void *arg)
{
    const ask_case *a = arg;
    const env_case *c = &a->env;
    set_case_env(c);
    if (a->handover) {
        wt_span h = wt_begin("load", "a");
        wt_end(h, WT_CACHED_HIT, 1, NULL);
        wt_summary_handover();
        return 0;
    }
    const int code = wt_env_recording() * 10 + (int)wt_env_summary();
    return rt_exists(path) ? 99 : code;
}

static int ask(const char *a, const char *b)
{
    const ask_case c = { .env = { .vars = { a, b, NULL } } };
    char err[600];
    snprintf(err, sizeof err, "%s/stderr", dir);
    const int st = rt_run(child_ask, (void *)&c, err, NULL);
    unlink(err);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void test_rec_env_a_host_asks_without_opening(void **state)
{
    assert_int_equal(ask(NULL, NULL), 10 + WT_SUMMARY_RECONCILED);
    assert_int_equal(ask("WALLTIME_SUMMARY=FLAT", NULL), 10 + WT_SUMMARY_FLAT);
    assert_int_equal(ask("WALLTIME_SUMMARY=no", NULL), 10 + WT_SUMMARY_NONE);
    assert_int_equal(ask("WALLTIME=yes", "WALLTIME_SUMMARY=flat"), 10 + WT_SUMMARY_FLAT);
    assert_int_equal(ask("WALLTIME=Off", NULL), 0 + WT_SUMMARY_NONE);
    assert_int_equal(ask("TT_WALLTIME=false", "WALLTIME_SUMMARY=flat"), 0 + WT_SUMMARY_NONE);
}

static void test_rec_env_handover_silences_the_exit_print(void **state)
{
    for (int flat = 0; flat < 2; flat++) {
        const ask_case c = { .env = { .vars = { flat ? "WALLTIME_SUMMARY=flat" : NULL, NULL } },
                             .handover = 1 };
        char err[600];
        snprintf(err, sizeof err, "%s/stderr", dir);
        const int st = rt_run(child_ask, (void *)&c, err, NULL);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        assert_true(rt_exists(path)); /* still recorded */
        unlink(path);
        assert_string_equal(rt_slurp(err), ""); /* neither a ledger nor the trace line */
        unlink(err);
    }
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
                           "WALLTIME_RANK=-1", "WALLTIME_COMPRESS_CPU=101", NULL } };
    int recorded;
    const char *err = run_case(&c, &recorded);
    assert_true(recorded);
    /* RING set twice: the second value stands (4096x: not a whole number) */
    assert_int_equal(lines(err), 6);
    assert_non_null(strstr(err, "WALLTIME_COMPRESS_CPU='101'"));
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
                           "WALLTIME_SOURCE_DIR=/src/walltime", "WALLTIME_COMPRESS_CPU=0", NULL } };
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

/* In a child: the case's variables, then SPANS spans of one label (all alike: a compressed
 * frame of them is a small fraction of its records). */
#define SPANS 20000
static int child_spans(void *arg)
{
    set_case_env(arg);
    for (int i = 0; i < SPANS; i++) {
        wt_span h = wt_begin("load", "a");
        wt_end(h, WT_CACHED_HIT, 1, NULL);
    }
    return 0;
}

/* The file's size and the sum of its frames' content sizes (zstd's own count, from the
 * frame headers); asserts every span reads back. */
static void sizes_of_case(const env_case *c, size_t *file, unsigned long long *content,
                          uint64_t *stored)
{
    char err[600];
    snprintf(err, sizeof err, "%s/stderr", dir);
    const int st = rt_run(child_spans, (void *)c, err, NULL);
    unlink(err);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    rt_trace *t = rt_read(path);
    assert_non_null(t);
    assert_int_equal(rt_count(t, WT_EV_SPAN), SPANS);
    assert_int_equal(t->errors, 0);
    *stored = t->stats.frames_stored;
    rt_free(t);
    /* the reader's read-ahead thread hands the same count over with its frames */
    setenv("WALLTIME_READER_THREAD", "1", 1);
    t = rt_read(path);
    unsetenv("WALLTIME_READER_THREAD");
    assert_non_null(t);
    assert_int_equal(rt_count(t, WT_EV_SPAN), SPANS);
    assert_int_equal(t->stats.frames_stored, *stored);
    rt_free(t);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static unsigned char buf[4 << 20];
    *file = fread(buf, 1, sizeof buf, f);
    fclose(f);
    unlink(path);
    assert_true(*file > 0 && *file < sizeof buf);
    *content = 0;
    for (size_t at = 0; at < *file;) { /* frame by frame: each header gives its content size */
        const unsigned long long n = ZSTD_getFrameContentSize(buf + at, *file - at);
        const size_t len = ZSTD_findFrameCompressedSize(buf + at, *file - at);
        assert_false(ZSTD_isError(len));
        if (n != ZSTD_CONTENTSIZE_ERROR) { /* a skippable frame has no content size */
            assert_true(n != ZSTD_CONTENTSIZE_UNKNOWN);
            *content += n;
        }
        at += len;
    }
}

/* WALLTIME_COMPRESS_CPU=0 stores every frame (the file is its records and the frames'
 * headers: larger than the content), 100 compresses every one, and the default compresses a
 * run this short whole (the budget starts full): both at a small fraction of the content. */
static void test_rec_env_compress_cpu_stores_or_compresses_frames(void **state)
{
    size_t file;
    unsigned long long content;
    uint64_t stored_frames;
    const env_case stored = { .vars = { "WALLTIME_SUMMARY=0", "WALLTIME_COMPRESS_CPU=0", NULL } };
    sizes_of_case(&stored, &file, &content, &stored_frames);
    assert_true(content >= (unsigned long long)SPANS * 4); /* the records are there */
    assert_true(file > content);
    assert_true(stored_frames >= 1); /* and the reader says so (`info`) */
    const env_case every = { .vars = { "WALLTIME_SUMMARY=0", "WALLTIME_COMPRESS_CPU=100", NULL } };
    sizes_of_case(&every, &file, &content, &stored_frames);
    assert_true(file * 4 < content);
    assert_int_equal(stored_frames, 0);
    const env_case deflt = { .vars = { "WALLTIME_SUMMARY=0", NULL } };
    sizes_of_case(&deflt, &file, &content, &stored_frames);
    assert_true(file * 4 < content);
    assert_int_equal(stored_frames, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rec_env_false_words_turn_recording_off_quietly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_true_words_record_without_warning, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_summary_false_word_prints_no_ledger, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_a_host_asks_without_opening, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_handover_silences_the_exit_print, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_unknown_value_warns_once_and_keeps_recording, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_each_bad_value_gets_one_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_good_tuning_values_pass_silently, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_unknown_name_warns_once_naming_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_hostile_value_stays_one_short_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rec_env_compress_cpu_stores_or_compresses_frames, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
