/* Every value the API accepts reads back (issue 10, items 5-7): each recording call is driven
 * with every boundary value of each argument in turn (NULL, "", strings past the 4096-byte
 * cut, invalid UTF-8; INT64_MIN/MAX; NaN, infinities, negative and longer-than-uptime
 * seconds; cache outcomes outside 0..2; absurd handles), the others held at plain values that
 * identify the event. The trace is then read back whole: no damaged frame, no refused record,
 * and every event carries the value walltime.h says it becomes. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#define RT_DIR_PREFIX "bd" /* this file's temporary directories */
#include "test_recorder_util.h"

#define CUT 4096 /* the longest string the format holds (walltime.h) */

/* ---- the boundary values and what each becomes ----------------------------------------- */

static char long_a[5000 + 1];       /* 5000 x 'a': cut to 4096 */
static char long_utf8[CUT + 8];     /* 4095 x 'b' then a 2-byte character: cut inside it */
static const char invalid_utf8[] = "\xff\xfe\xc3(\xed\xa0\x80 end";

#define N_STR 6
static const char *strs[N_STR];

static void init_strings(void)
{
    memset(long_a, 'a', sizeof long_a - 1);
    memset(long_utf8, 'b', CUT - 1);
    memcpy(long_utf8 + CUT - 1, "\xc3\xa9!", 4);
    const char *s[N_STR] = { NULL, "", "x", long_a, long_utf8, invalid_utf8 };
    memcpy(strs, s, sizeof s);
}

/* What string k reads back as: NULL stays NULL, longer than CUT bytes is cut to CUT bytes. */
static void check_str(const char *got, int k)
{
    if (!strs[k]) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    const size_t n = strlen(strs[k]) < CUT ? strlen(strs[k]) : CUT;
    assert_int_equal(strlen(got), n);
    assert_memory_equal(got, strs[k], n);
}

#define N_SEC 12
static double secs[N_SEC];
static double beyond_boot; /* longer than the time since boot: starts at time 0 */

static void init_secs(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    beyond_boot = (double)now.tv_sec + 1000.0;
    const double s[N_SEC] = { NAN, -INFINITY, INFINITY, -1.0, -0.0, 0.0, 5e-324, 1e-9, 0.5,
                              beyond_boot, 1e300, DBL_MAX };
    memcpy(secs, s, sizeof s);
}

#define N_CACHED 9
static const int cacheds[N_CACHED] = { INT_MIN, -1, 0, 1, 2, 3, 4, 5, INT_MAX };
static wt_cached cached_becomes(int c) { return c == 1 || c == 2 ? (wt_cached)c : WT_CACHED_UNKNOWN; }

#define N_I64 6
static const int64_t i64s[N_I64] = { INT64_MIN, -1, 0, 1, 2, INT64_MAX };
static int64_t count_becomes(int64_t c) { return c < 1 ? 1 : c; }

/* ---- the recording child ---------------------------------------------------------------- */

static const char *ident(const char *what, int k)
{
    static char buf[8][32];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, 32, "%s-%d", what, k);
    return b;
}

static int child_boundaries(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    /* wt_record: one argument at a time */
    for (int k = 0; k < N_STR; k++) {
        wt_record(strs[k], ident("rcat", k), 0.001, WT_CACHED_HIT, 3, NULL);
        wt_record("rlabel", strs[k], 0.001, WT_CACHED_HIT, 100 + k, NULL);
        wt_record("r", ident("rdet", k), 0.001, WT_CACHED_HIT, 3, strs[k]);
    }
    for (int k = 0; k < N_SEC; k++)
        wt_record("r", ident("rsec", k), secs[k], WT_CACHED_MISS, 1, NULL);
    for (int k = 0; k < N_CACHED; k++)
        wt_record("r", ident("rcached", k), 0.001, (wt_cached)cacheds[k], 1, NULL);
    for (int k = 0; k < N_I64; k++) {
        wt_record("r", ident("rcount", k), 0.001, WT_CACHED_HIT, i64s[k], NULL);
        const wt_span_args a = { WT_CACHED_HIT, 1, i64s[k], NULL };
        wt_record_ex("r", ident("rbytes", k), 0.001, &a);
    }
    wt_record_ex("r", "rexnull", 0.25, NULL);

    /* wt_begin / wt_end */
    for (int k = 0; k < N_STR; k++) {
        wt_end(wt_begin(strs[k], ident("bcat", k)), WT_CACHED_HIT, 3, NULL);
        wt_end(wt_begin("blabel", strs[k]), WT_CACHED_HIT, 100 + k, NULL);
        wt_end(wt_begin("b", ident("bdet", k)), WT_CACHED_HIT, 3, strs[k]);
    }
    for (int k = 0; k < N_CACHED; k++)
        wt_end(wt_begin("b", ident("bcached", k)), (wt_cached)cacheds[k], 1, NULL);
    for (int k = 0; k < N_I64; k++) {
        wt_end(wt_begin("b", ident("bcount", k)), WT_CACHED_HIT, i64s[k], NULL);
        const wt_span_args a = { (wt_cached)cacheds[k], i64s[k], i64s[k], strs[k] };
        wt_end_ex(wt_begin("b", ident("bex", k)), &a);
    }
    wt_end_ex(wt_begin("b", "bexnull"), NULL);
    /* handles that name no open span: ignored, and nothing open is disturbed */
    const wt_span open = wt_begin("b", "open");
    static const wt_span junk[] = { 0, 1, 0xffff, UINT64_MAX, UINT64_MAX - 1, (uint64_t)1 << 63 };
    for (size_t k = 0; k < sizeof junk / sizeof junk[0]; k++) {
        wt_end(junk[k], WT_CACHED_MISS, 7, "junk");
        wt_end_ex(junk[k], NULL);
    }
    wt_end(open, WT_CACHED_HIT, 1, NULL);

    /* counters, marks, metadata, thread names, rounds */
    for (int k = 0; k < N_STR; k++) {
        wt_counter(strs[k], k);
        wt_mark(strs[k], ident("mcat", k), NULL);
        wt_mark("mlabel", strs[k], ident("id", k));
        wt_mark("m", ident("mdet", k), strs[k]);
        wt_meta(strs[k], ident("id", k));
        wt_meta(ident("mv", k), strs[k]);
        wt_thread_name(strs[k]);
        wt_round_begin(strs[k], k);
    }
    for (int k = 0; k < N_I64; k++) {
        wt_counter(ident("v", k), i64s[k]);
        wt_round_begin("n", i64s[k]);
    }
    wt_round_end();
    wt_round_end(); /* none open */

    /* the page-cache probe: errors return a code and record nothing */
    if (wt_pagecache_probe(NULL, NULL) >= 0 || wt_pagecache_probe("", "") >= 0 ||
        wt_pagecache_probe("/nonexistent/x", long_a) >= 0)
        return 20;
    if (wt_pagecache_probe(path, long_a) != WT_EINVAL) /* a name that cannot be suffixed */
        return 21;
    if (wt_pagecache_probe(path, NULL) < 0)
        return 22;
    return wt_close() == 0 ? 0 : 23;
}

/* ---- reading it back ------------------------------------------------------------------- */

static const wt_event *find(const rt_trace *t, wt_event_kind kind, const char *what)
{
    const long i = rt_find(t, kind, what, 0);
    assert_true(i >= 0);
    assert_int_equal(rt_find(t, kind, what, 1), -1); /* once */
    return &t->ev[i].ev;
}

/* The span of category `cat` whose count is `count` (the label under test varies). */
static const wt_event *find_by_count(const rt_trace *t, const char *cat, int64_t count)
{
    const wt_event *hit = NULL;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind == WT_EV_SPAN && rt_streq(e->category, cat) && e->count == count) {
            assert_null(hit);
            hit = e;
        }
    }
    assert_non_null(hit);
    return hit;
}

static void check_spans(const rt_trace *t)
{
    for (int k = 0; k < N_STR; k++) {
        check_str(find(t, WT_EV_SPAN, ident("rcat", k))->category, k);
        check_str(find_by_count(t, "rlabel", 100 + k)->label, k);
        check_str(find(t, WT_EV_SPAN, ident("rdet", k))->detail, k);
        check_str(find(t, WT_EV_SPAN, ident("bcat", k))->category, k);
        check_str(find_by_count(t, "blabel", 100 + k)->label, k);
        check_str(find(t, WT_EV_SPAN, ident("bdet", k))->detail, k);
    }
    for (int k = 0; k < N_SEC; k++) {
        const wt_event *e = find(t, WT_EV_SPAN, ident("rsec", k));
        const double s = secs[k];
        assert_int_equal(e->flags, WT_EVF_MEASURED);
        assert_int_equal(e->cached, WT_CACHED_MISS);
        if (!isfinite(s) || s <= 0 || s < 5e-10)
            assert_int_equal(e->dur, 0);
        else if (s < 1.0)
            assert_int_equal(e->dur, (int64_t)(s * 1e9 + 0.5));
        else
            assert_int_equal(e->ts, 0); /* longer than since boot: from the clock's zero */
    }
    for (int k = 0; k < N_CACHED; k++) {
        assert_int_equal(find(t, WT_EV_SPAN, ident("rcached", k))->cached, cached_becomes(cacheds[k]));
        assert_int_equal(find(t, WT_EV_SPAN, ident("bcached", k))->cached, cached_becomes(cacheds[k]));
    }
    for (int k = 0; k < N_I64; k++) {
        assert_true(find(t, WT_EV_SPAN, ident("rcount", k))->count == count_becomes(i64s[k]));
        assert_true(find(t, WT_EV_SPAN, ident("bcount", k))->count == count_becomes(i64s[k]));
        assert_true(find(t, WT_EV_SPAN, ident("rbytes", k))->bytes == i64s[k]);
        const wt_event *e = find(t, WT_EV_SPAN, ident("bex", k));
        assert_int_equal(e->cached, cached_becomes(cacheds[k]));
        assert_true(e->count == count_becomes(i64s[k]));
        assert_true(e->bytes == i64s[k]);
        check_str(e->detail, k);
    }
    const wt_event *e = find(t, WT_EV_SPAN, "rexnull");
    assert_int_equal(e->dur, 250000000);
    assert_int_equal(e->count, 1);
    assert_int_equal(e->bytes, 0);
    assert_int_equal(e->cached, WT_CACHED_UNKNOWN);
    e = find(t, WT_EV_SPAN, "bexnull");
    assert_int_equal(e->count, 1);
    assert_null(e->detail);
    e = find(t, WT_EV_SPAN, "open"); /* the junk handles neither ended nor changed it */
    assert_int_equal(e->flags, 0);
    assert_int_equal(e->cached, WT_CACHED_HIT);
    /* 6 x 6 string spans, 12 seconds, 2 x 9 outcomes, 4 x 6 numbers, 2 NULL args, "open" */
    assert_int_equal(rt_count(t, WT_EV_SPAN),
                     6 * N_STR + N_SEC + 2 * N_CACHED + 4 * N_I64 + 2 + 1);
}

static void check_others(const rt_trace *t)
{
    size_t names = 0, rounds = 0;
    for (int k = 0; k < N_STR; k++) {
        /* counters by value, marks and metadata by their fixed string */
        const wt_event *c = NULL;
        for (size_t i = 0; i < t->n; i++)
            if (t->ev[i].ev.kind == WT_EV_COUNTER && t->ev[i].ev.value == k && !c)
                c = &t->ev[i].ev;
        assert_non_null(c);
        check_str(c->name, k);
        check_str(find(t, WT_EV_MARK, ident("mcat", k))->category, k);
        check_str(find(t, WT_EV_MARK, ident("mdet", k))->detail, k);
        const wt_event *m = NULL, *meta = NULL;
        for (size_t i = 0; i < t->n; i++) {
            const wt_event *e = &t->ev[i].ev;
            if (e->kind == WT_EV_MARK && rt_streq(e->detail, ident("id", k)))
                m = e;
            if (e->kind == WT_EV_META && rt_streq(e->detail, ident("id", k)))
                meta = e;
        }
        assert_non_null(m);
        check_str(m->label, k);
        assert_non_null(meta);
        check_str(meta->name, k);
        check_str(find(t, WT_EV_META, ident("mv", k))->detail, k);
    }
    for (int k = 0; k < N_I64; k++)
        assert_true(find(t, WT_EV_COUNTER, ident("v", k))->value == i64s[k]);
    /* thread names and rounds in the order they were made */
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind == WT_EV_THREAD_NAME)
            check_str(e->name, (int)names++);
        if (e->kind == WT_EV_ROUND) {
            if (rounds < N_STR) {
                check_str(e->name, (int)rounds);
                assert_int_equal(e->count, (int64_t)rounds);
            } else {
                assert_string_equal(e->name, "n");
                assert_true(e->count == i64s[rounds - N_STR]);
            }
            rounds++;
        }
    }
    assert_int_equal(names, N_STR);
    assert_int_equal(rounds, N_STR + N_I64);
    /* the one probe that succeeded, under the default name */
    (void)find(t, WT_EV_COUNTER, "pagecache.resident_bytes");
    (void)find(t, WT_EV_COUNTER, "pagecache.file_bytes");
}

static void test_recorder_every_boundary_value_reads_back(void **state)
{
    (void)state;
    init_strings();
    init_secs();
    const int st = rt_run(child_boundaries, NULL, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0); /* nothing the reader refuses */
    assert_int_equal(t->stats.end, WT_END_CLEAN);
    assert_int_equal(rt_count(t, WT_EV_DROPPED), 0);
    check_spans(t);
    check_others(t);
    rt_free(t);
}

/* ---- wt_open / wt_close at their edges --------------------------------------------------- */

static int child_open_edges(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    char too_long[5000];
    memset(too_long, 'p', sizeof too_long - 1);
    too_long[sizeof too_long - 1] = '\0';
    if (wt_flush() != WT_ESTATE || wt_close() != WT_ESTATE)
        return 10;
    /* a failed open: wt_close() reports it once (WT_EIO, as walltime.h says), then the
     * recorder is closed */
    if (wt_open("") != WT_EOPEN || wt_enabled() || wt_flush() != WT_EIO)
        return 11;
    if (wt_close() != WT_EIO || wt_close() != WT_ESTATE || wt_flush() != WT_ESTATE)
        return 12;
    if (wt_open(too_long) != WT_EOPEN || wt_close() != WT_EIO)
        return 13;
    if (wt_open(path) != 0 || wt_open(NULL) != WT_ESTATE || wt_open(path) != WT_ESTATE)
        return 14;
    wt_counter("after failures", 1);
    if (wt_close() != 0 || wt_close() != WT_ESTATE)
        return 15;
    return 0;
}

static void test_recorder_open_and_close_at_their_edges(void **state)
{
    (void)state;
    char err[600];
    snprintf(err, sizeof err, "%s/stderr", dir);
    const int st = rt_run(child_open_edges, NULL, err, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_true(rt_find(t, WT_EV_COUNTER, "after failures", 0) >= 0);
    rt_free(t);
}

/* ---- more strings than a trace holds ------------------------------------------------------ */

/* The reader holds 4,194,304 strings and 128 MiB of them (format.h). The recorder used to
 * define 16 M, and every frame after the reader's limit was lost, the tail included. Now
 * every new string past the limit is one marker string, and every event reads back. */
#define STRINGS_MAX (4u << 20)
#define OVER 1000u
#define MARKER "(walltime: more distinct strings than a trace holds)"
#define BIG_LEN 4000u
#define N_BIG ((128u << 20) / (BIG_LEN + 1) + 100u) /* past 128 MiB */

static int child_many_strings(void *arg)
{
    const int big = arg != NULL;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    static char name[BIG_LEN + 1];
    const unsigned n = big ? N_BIG : STRINGS_MAX + OVER;
    if (big)
        memset(name, 'z', BIG_LEN);
    for (unsigned i = 0; i < n; i++) {
        snprintf(name, sizeof name, "n%u", i);
        if (big)
            name[strlen(name)] = 'z'; /* BIG_LEN bytes, distinct by their head */
        wt_counter(name, (int64_t)i);
    }
    wt_counter("the tail", -1); /* new too: the marker's */
    return wt_close() == 0 ? 0 : 11;
}

/* Reads the trace as a stream (4 M events copied would take 600 MB). */
static void check_many_strings(int big)
{
    const int st = rt_run(child_many_strings, big ? "big" : NULL, NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    wt_reader *r = NULL;
    assert_int_equal(wt_reader_open(path, &r), 0);
    const unsigned n = big ? N_BIG : STRINGS_MAX + OVER;
    unsigned seen = 0, marked = 0, first_marked = n, tail = 0;
    wt_event ev;
    int rc;
    while ((rc = wt_reader_next(r, &ev)) != 0) {
        assert_true(rc > 0); /* nothing refused, nothing damaged */
        const wt_event *e = &ev;
        if (e->kind != WT_EV_COUNTER)
            continue;
        if (e->value == -1) {
            /* past the count limit it is the marker; a short string still fits the bytes */
            assert_string_equal(e->name, big ? "the tail" : MARKER);
            tail++;
            continue;
        }
        assert_true(e->value == (int64_t)seen); /* every one, in order */
        seen++;
        if (rt_streq(e->name, MARKER)) {
            marked++;
            if (first_marked == n)
                first_marked = (unsigned)e->value;
        } else {
            char want[32];
            snprintf(want, sizeof want, "n%u", (unsigned)e->value);
            assert_memory_equal(e->name, want, strlen(want));
            assert_int_equal(first_marked, n); /* no real name after the marker */
        }
    }
    wt_reader_stats stats;
    wt_reader_get_stats(r, &stats);
    assert_int_equal(stats.end, WT_END_CLEAN);
    wt_reader_free(r);
    assert_int_equal(seen, n);
    assert_int_equal(tail, 1); /* and the event after them all */
    assert_true(marked > 0);
    if (!big)
        assert_int_equal(first_marked, STRINGS_MAX - 1); /* the last id is the marker's */
}

static void test_recorder_more_strings_than_a_trace_holds(void **state)
{
    (void)state;
    check_many_strings(0);
}

static void test_recorder_more_string_bytes_than_a_trace_holds(void **state)
{
    (void)state;
    check_many_strings(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_recorder_every_boundary_value_reads_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_open_and_close_at_their_edges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_more_strings_than_a_trace_holds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorder_more_string_bytes_than_a_trace_holds, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
