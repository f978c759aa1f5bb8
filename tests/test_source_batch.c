/* The source driver's span batches (wt_source_ops.spans): an analysis with the callback gets
 * every span once, in file order, through batches or `event`, with the same values an
 * analysis without it gets through `event` alone: times put on the first file's clock for a
 * file of another host (clock alignment applies to batches too), damage reported the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "source.h"
#include "tracebuild.h"

#define S(x) ((int64_t)((x) * 1e9 + 0.5))
#define ORIGIN 1772323200000000000LL
#define MAX_SPANS 512

typedef struct seen_span {
    int file;
    uint64_t pid, tid;
    int64_t ts, dur;
    uint32_t depth;
    char cat[32], lab[32];
} seen_span;

typedef struct seen {
    seen_span s[MAX_SPANS];
    int n, batches, events, damages;
} seen;

static seen_span *next_span(seen *c, int fi)
{
    assert_true(c->n < MAX_SPANS);
    seen_span *s = &c->s[c->n++];
    s->file = fi;
    return s;
}

static int on_event(void *ctx, int fi, const wt_event *ev)
{
    seen *c = ctx;
    if (ev->kind != WT_EV_SPAN)
        return 0;
    c->events++;
    seen_span *s = next_span(c, fi);
    s->pid = ev->pid;
    s->tid = ev->tid;
    s->ts = ev->ts;
    s->dur = ev->dur;
    s->depth = ev->depth;
    snprintf(s->cat, sizeof s->cat, "%s", ev->category ? ev->category : "");
    snprintf(s->lab, sizeof s->lab, "%s", ev->label ? ev->label : "");
    return 0;
}

static int on_spans(void *ctx, int fi, const wt_span_batch *b)
{
    seen *c = ctx;
    c->batches++;
    assert_true(b->n > 0);
    for (size_t i = 0; i < b->n; i++) {
        seen_span *s = next_span(c, fi);
        const char *cat = wt_reader_string(b->reader, b->spans[i].category);
        const char *lab = wt_reader_string(b->reader, b->spans[i].label);
        s->pid = b->pid;
        s->tid = b->tid;
        s->ts = b->spans[i].ts;
        s->dur = b->spans[i].dur;
        s->depth = b->spans[i].depth;
        snprintf(s->cat, sizeof s->cat, "%s", cat ? cat : "");
        snprintf(s->lab, sizeof s->lab, "%s", lab ? lab : "");
    }
    return 0;
}

static int on_damage(void *ctx, int fi, int64_t off, const char *msg)
{
    (void)fi, (void)off, (void)msg;
    ((seen *)ctx)->damages++;
    return 0;
}

/* Runs the files without the batch callback into *a and with it into *b (the caller frees
 * both); the files' fates must be the same, in *res. */
static void run_both(char **paths, int n, seen **a, seen **b, wt_source_result *res)
{
    const wt_source_ops plain = { .event = on_event, .damage = on_damage };
    const wt_source_ops batched = { .event = on_event, .damage = on_damage, .spans = on_spans };
    *a = calloc(1, sizeof **a);
    *b = calloc(1, sizeof **b);
    assert_non_null(*a);
    assert_non_null(*b);
    wt_source_result rb;
    assert_int_equal(wt_source_run(paths, n, &plain, *a, res), 0);
    assert_int_equal(wt_source_run(paths, n, &batched, *b, &rb), 0);
    assert_memory_equal(res, &rb, sizeof rb);
}

/* A run of `n` spans on thread `tid` with a counter after every seventh, host `host`. */
static void write_host(const char *name, const char *host, int64_t real_minus_mono, int n)
{
    tb *b = tb_create(tb_path_in(name), 40, S(1), S(1));
    tb_origin o = { .host = host, .real_minus_mono = real_minus_mono };
    tb_set_origin(b, &o);
    tb_meta(b, 1, S(1), "load", "x");
    for (int i = 0; i < n; i++) {
        tb_span(b, 1 + (i >= n / 2), S(2 + i), S(2.5 + i), 0, "load", "x");
        if (i % 7 == 6)
            tb_counter(b, 1, S(2.6 + i), "rss", i);
        if (i == n / 3)
            tb_frame(b);
    }
    tb_close(b, TB_END_CLEAN, S(3 + n), 0);
}

static int setup(void **state)
{
    (void)state;
    return tb_tmpdir_enter("source_batch");
}

static int teardown(void **state)
{
    (void)state;
    return tb_tmpdir_leave();
}

/* Two hosts whose clocks differ by 100 s of UTC: the second file's spans come shifted onto
 * the first's clock, through batches as through events; the same spans, in the same order. */
static void test_source_batches_are_aligned_like_events(void **state)
{
    (void)state;
    write_host("h1.wtrace", "node-1", ORIGIN, 60);
    write_host("h2.wtrace", "node-2", ORIGIN + S(100), 60);
    char *paths[2] = { tb_path_in("h1.wtrace"), tb_path_in("h2.wtrace") };
    char p0[512], p1[512];
    snprintf(p0, sizeof p0, "%s", paths[0]);
    snprintf(p1, sizeof p1, "%s", paths[1]);
    paths[0] = p0;
    paths[1] = p1;
    seen *a, *b;
    wt_source_result ra;
    run_both(paths, 2, &a, &b, &ra);
    assert_int_equal(ra.clocks, 2);
    assert_int_equal(a->n, 120);
    assert_int_equal(b->n, 120);
    assert_int_equal(a->batches, 0);
    assert_true(b->batches > 0);
    /* runs of 7 spans between counters: most in batches (the driver backs off after runs
     * shorter than 4, such as the rest of a run after its first span came as an event) */
    assert_true(b->n - b->events >= 60);
    for (int i = 0; i < 120; i++) {
        const seen_span *x = &a->s[i], *y = &b->s[i];
        assert_int_equal(x->file, y->file);
        assert_int_equal(x->pid, y->pid);
        assert_int_equal(x->tid, y->tid);
        assert_int_equal(x->ts, y->ts);
        assert_int_equal(x->dur, y->dur);
        assert_int_equal(x->depth, y->depth);
        assert_string_equal(x->cat, y->cat);
        assert_string_equal(x->lab, y->lab);
        /* by hand: span k of a file starts at 2 + k s of its clock; the second host's UTC is
         * 100 s ahead, so on the first's clock its spans start 100 s later */
        const int k = i % 60;
        assert_int_equal(y->ts, S(2 + k) + (i >= 60 ? S(100) : 0));
        assert_int_equal(y->dur, S(0.5));
        assert_int_equal(y->tid, 1 + (k >= 30));
    }
    free(a);
    free(b);
}

/* A damaged file: the same damage callbacks and the same spans with batches as without. */
static void test_source_batches_on_a_damaged_file(void **state)
{
    (void)state;
    write_host("d.wtrace", "node-1", ORIGIN, 90);
    size_t len;
    unsigned char *d = tb_read_file(tb_path_in("d.wtrace"), &len);
    d[len / 2] ^= 0x5A;
    tb_write_file(tb_path_in("d.wtrace"), d, len);
    free(d);
    char path[512];
    snprintf(path, sizeof path, "%s", tb_path_in("d.wtrace"));
    char *paths[1] = { path };
    seen *a, *b;
    wt_source_result ra;
    run_both(paths, 1, &a, &b, &ra);
    assert_int_equal(ra.files_damaged, 1);
    assert_true(a->damages >= 1);
    assert_int_equal(a->damages, b->damages);
    assert_int_equal(a->n, b->n);
    assert_true(a->n < 90);
    for (int i = 0; i < a->n; i++) {
        assert_int_equal(a->s[i].ts, b->s[i].ts);
        assert_int_equal(a->s[i].tid, b->s[i].tid);
    }
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_source_batches_are_aligned_like_events, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_source_batches_on_a_damaged_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
