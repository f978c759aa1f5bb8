/* The run summary (runsum.h) fed by the source driver with span batches and events mixed,
 * against sums made by hand: a category whose string definition was lost with a damaged frame
 * reads "(unknown string N)" until the id is defined again, and the id-indexed category array
 * of the batch path must then forget the id (the reader's string epoch), so that the later
 * spans count under the real name, as the per-event path (keyed by name) counts them. Random
 * trees of many shapes (one runsum over files in turn, as a trend worker keeps it) against a
 * brute-force model of each sum; sums past INT64_MAX stop there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "xorshift.h"
#include "runsum.h"
#include "source.h"
#include "tracebuild.h"
#include "walltime/reader.h"

static int on_event(void *ctx, int fi, const wt_event *ev)
{
    (void)fi;
    return ev->kind == WT_EV_SPAN ? wt_runsum_span(ctx, ev) : 0;
}

static int on_spans(void *ctx, int fi, const wt_span_batch *b)
{
    (void)fi;
    return wt_runsum_spans(ctx, b);
}

/* The runsum of the file `path` read through `ops` (the plain or the batched way), finished. */
static wt_runsum *summed(const char *path, const wt_source_ops *ops, wt_source_result *res)
{
    char *paths[1] = { (char *)path };
    wt_runsum *s;
    assert_int_equal(wt_runsum_create(&s), 0);
    assert_int_equal(wt_source_run(paths, 1, ops, s, res), 0);
    wt_runsum_finish(s);
    return s;
}

/* The flat ns of category `name`, or -1 when there is none. */
static int64_t flat_of(const wt_runsum *s, const char *name)
{
    for (size_t i = 0; i < wt_runsum_count(s); i++)
        if (!strcmp(wt_runsum_name(s, i), name))
            return wt_runsum_flat_ns(s, i);
    return -1;
}

static void test_runsum_lost_then_redefined_category(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_fleet_runsum_%d.wtrace", (int)getpid());
    tb *b = tb_create(path, 5, 0, 0);
    tb_meta(b, 1, 1, "k", "l"); /* ids 1, 2 */
    tb_frame(b);
    tb_span(b, 1, 10, 20, 0, "lost", "l"); /* "lost" is id 3, defined in this frame */
    tb_frame(b);
    /* frame 3: "lost" by id only: 3 spans of 100 ns (the first after the THREAD record,
     * the others batched) */
    for (int i = 0; i < 6; i++)
        tb_span(b, 1, 1000 + 200 * i, 1100 + 200 * i, 0, i < 3 ? "lost" : "k", "l");
    tb_frame(b);
    /* frame 4: "lost" defined again, then 4 spans of 50 ns in it */
    tb_redefine(b, "lost");
    for (int i = 0; i < 8; i++)
        tb_span(b, 1, 5000 + 100 * i, 5050 + 100 * i, 0, i % 2 ? "k" : "lost", "l");
    tb_close(b, TB_END_CLEAN, 9000, 0);
    size_t len, at[8];
    unsigned char *d = tb_read_file(path, &len);
    assert_true(tb_frame_starts(d, len, at, 8) >= 4);
    d[at[1] + 12] ^= 0xFF; /* frame 2 lost: "lost"'s first definition with it */
    d[at[1] + 14] ^= 0xFF;
    tb_write_file(path, d, len);
    free(d);

    const wt_source_ops batched = { .event = on_event, .spans = on_spans };
    const wt_source_ops plain = { .event = on_event };
    const wt_source_ops *const ways[2] = { &plain, &batched };
    for (int w = 0; w < 2; w++) {
        wt_source_result res;
        wt_runsum *s = summed(path, ways[w], &res);
        assert_int_equal(res.files_damaged, 1);
        /* by hand: frame 3's three "lost" spans under the unknown name, 100 ns each; frame
         * 4's four under "lost", 50 ns each; "k": 3 x 100 + 4 x 50 */
        assert_int_equal(flat_of(s, "(unknown string 3)"), 300);
        assert_int_equal(flat_of(s, "lost"), 200);
        assert_int_equal(flat_of(s, "k"), 500);
        wt_runsum_free(s);
    }
    unlink(path);
}

/* ---- random trees against a brute-force model ---- */

#define NCAT 70 /* past the 64 categories counted as the spans come: the nests take over */

/* What a file's spans must sum to per category, worked out span by span from the tree itself:
 * flat, the sum of durations; self, each span's duration less its children's (0 at least);
 * inclusive, the durations of the spans of the category with no ancestor of it in the file. */
typedef struct model {
    int64_t flat[NCAT], self[NCAT], incl[NCAT];
    int anc[NCAT]; /* ancestors of each category above the span being made */
} model;

static uint64_t seed = 88172645463325252ULL;
static uint64_t next_rand(void) { return xorshift64(&seed); }

static char cat_names[NCAT][8];

/* A span at `depth` starting at `start` of a category below `ncat`, with its subtree (at most
 * `maxdepth` deep), written children first as a recorder writes them; the root not written when
 * `drop_root` (a file cut before its tree ended: the children are then tops). `short_parents`:
 * some parents end before their children have filled them (self clamped at 0). Returns its end. */
static int64_t make_tree(tb *b, uint64_t tid, int64_t start, uint32_t depth, int maxdepth,
                         int ncat, int short_parents, int drop_root, model *m)
{
    const int c = (int)(next_rand() % (uint64_t)ncat);
    const int kids = depth < (uint32_t)maxdepth ? (int)(next_rand() % 5) : 0;
    if (!drop_root)
        m->anc[c]++;
    int64_t at = start + 1 + (int64_t)(next_rand() % 7), kids_sum = 0;
    for (int k = 0; k < kids; k++) {
        const int64_t kid_start = at;
        at = make_tree(b, tid, kid_start, depth + 1, maxdepth, ncat, short_parents, 0, m);
        kids_sum += at - kid_start;
        at += (int64_t)(next_rand() % 5);
    }
    if (drop_root)
        return at;
    m->anc[c]--;
    int64_t end = at + 1 + (int64_t)(next_rand() % 100);
    if (short_parents && kids && next_rand() % 3 == 0)
        end = start + kids_sum / 2; /* shorter than its children: self 0 */
    const int64_t dur = end - start;
    tb_span(b, tid, start, end, depth, cat_names[c], "l");
    m->flat[c] += dur;
    m->self[c] += dur > kids_sum ? dur - kids_sum : 0;
    if (m->anc[c] == 0)
        m->incl[c] += dur;
    return end;
}

/* File `f` of the series: trees on two threads, three at a time (batches change thread). Past
 * 64 categories the runsum's nests (the ledger's wt_ledger_nest_*) start in the middle of the
 * file, and a span of such a category must still pass its children's sums of the first 64 up
 * to its parent (until session 7 it left them for its next sibling to take as its own). */
static void make_file(const char *path, int f, model *m)
{
    static const struct {
        int ncat, maxdepth, short_parents, cut;
    } shapes[] = {
        { 4, 1, 0, 0 },   /* bench_trend's shape: a root and its leaves */
        { 3, 6, 0, 1 },   /* categories within categories, the last tree cut (no root) */
        { 5, 12, 1, 0 },  /* deep, some parents shorter than their children */
        { NCAT, 4, 0, 0 }, /* past 64 categories: the nests take over in the middle */
        { 2, 3, 1, 1 },   /* after a cut file: what it left at its levels is not carried over */
    };
    memset(m, 0, sizeof *m);
    tb *b = tb_create(path, 7, 0, 0);
    int64_t t[2] = { 10, 10 };
    const int trees = 60;
    for (int i = 0; i < trees; i++) {
        const int th = i / 3 % 2; /* three trees a thread in turn: a batch holds several */
        const int cut = shapes[f].cut && i >= trees - 2; /* the last two trees */
        t[th] = make_tree(b, (uint64_t)th + 1, t[th], 0, shapes[f].maxdepth, shapes[f].ncat,
                          shapes[f].short_parents, cut, m) + 10;
    }
    tb_close(b, TB_END_CLEAN, (t[0] > t[1] ? t[0] : t[1]) + 10, 0);
}

/* The batch path (a leaf's short way, the general rule, the nests), the per-event path, and one
 * runsum kept over five files of different shapes (reset between them, as trend's workers keep
 * theirs), against the model, category by category. */
static void test_runsum_random_trees_against_a_model(void **state)
{
    (void)state;
    for (int c = 0; c < NCAT; c++)
        snprintf(cat_names[c], sizeof cat_names[c], "c%02d", c);
    char path[64];
    snprintf(path, sizeof path, "test_fleet_runsum_m%d.wtrace", (int)getpid());
    char *paths[1] = { path };
    const wt_source_ops batched = { .event = on_event, .spans = on_spans };
    const wt_source_ops plain = { .event = on_event };
    const wt_source_ops *const ways[2] = { &plain, &batched };
    static model m;
    for (int w = 0; w < 2; w++) {
        wt_runsum *s;
        assert_int_equal(wt_runsum_create(&s), 0);
        for (int round = 0; round < 3; round++)
            for (int f = 0; f < 5; f++) {
                make_file(path, f, &m);
                wt_runsum_reset(s);
                wt_source_result res;
                assert_int_equal(wt_source_run(paths, 1, ways[w], s, &res), 0);
                assert_int_equal(res.files_ok, 1);
                wt_runsum_finish(s);
                int seen = 0;
                for (int c = 0; c < NCAT; c++) {
                    size_t i = 0;
                    while (i < wt_runsum_count(s) && strcmp(wt_runsum_name(s, i), cat_names[c]))
                        i++;
                    if (i == wt_runsum_count(s)) {
                        assert_int_equal(m.flat[c], 0);
                        continue;
                    }
                    seen++;
                    if (wt_runsum_flat_ns(s, i) != m.flat[c] ||
                        wt_runsum_self_ns(s, i) != m.self[c] ||
                        wt_runsum_incl_ns(s, i) != m.incl[c]) {
                        fail_msg("way %d, round %d, file %d, %s: flat %lld self %lld incl %lld, "
                                 "the model's %lld %lld %lld",
                                 w, round, f, cat_names[c], (long long)wt_runsum_flat_ns(s, i),
                                 (long long)wt_runsum_self_ns(s, i),
                                 (long long)wt_runsum_incl_ns(s, i), (long long)m.flat[c],
                                 (long long)m.self[c], (long long)m.incl[c]);
                    }
                }
                assert_int_equal(seen, (int)wt_runsum_count(s));
            }
        wt_runsum_free(s);
    }
    unlink(path);
}

/* Durations near INT64_MAX: a category's sums stop at INT64_MAX, on the leaf's short way as on
 * the general rule. The file's spans are small (the reader takes huge ones off its batch path);
 * these callbacks give the runsum each span with its duration made huge: `big` for a leaf at
 * depth 1, INT64_MAX for a root. */
static const int64_t big = INT64_MAX / 20;

static int on_event_big(void *ctx, int fi, const wt_event *ev)
{
    wt_event e = *ev;
    e.dur = e.depth ? big : INT64_MAX;
    return on_event(ctx, fi, &e);
}

static int on_spans_big(void *ctx, int fi, const wt_span_batch *b)
{
    wt_span_rec recs[256];
    wt_span_batch c = *b;
    assert_true(b->n <= 256);
    memcpy(recs, b->spans, b->n * sizeof *recs);
    for (size_t i = 0; i < b->n; i++)
        recs[i].dur = recs[i].depth ? big : INT64_MAX;
    c.spans = recs;
    return on_spans(ctx, fi, &c);
}

static void test_runsum_sums_saturate(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_fleet_runsum_s%d.wtrace", (int)getpid());
    tb *b = tb_create(path, 7, 0, 0);
    /* two trees of a root "r" (depth 0) over 40 leaves "x", made big and INT64_MAX by the
     * callbacks: x's flat, self and inclusive are 80 big, past INT64_MAX, and so is a root's
     * children's sum: r's self is 0 (INT64_MAX less INT64_MAX); r's flat and inclusive are
     * 2 x INT64_MAX, past it */
    for (int tree = 0; tree < 2; tree++) {
        const int64_t t0 = 1000 * tree;
        for (int k = 0; k < 40; k++)
            tb_span(b, 1, t0 + 10 * k + 1, t0 + 10 * k + 9, 1, "x", "l");
        tb_span(b, 1, t0, t0 + 500, 0, "r", "l");
    }
    tb_close(b, TB_END_CLEAN, 3000, 0);
    const wt_source_ops batched = { .event = on_event_big, .spans = on_spans_big };
    const wt_source_ops plain = { .event = on_event_big };
    const wt_source_ops *const ways[2] = { &plain, &batched };
    for (int w = 0; w < 2; w++) {
        wt_source_result res;
        wt_runsum *s = summed(path, ways[w], &res);
        assert_int_equal(wt_runsum_count(s), 2);
        const size_t x = strcmp(wt_runsum_name(s, 0), "x") ? 1 : 0, r = 1 - x;
        assert_true(wt_runsum_flat_ns(s, x) == INT64_MAX);
        assert_true(wt_runsum_self_ns(s, x) == INT64_MAX);
        assert_true(wt_runsum_incl_ns(s, x) == INT64_MAX);
        assert_true(wt_runsum_flat_ns(s, r) == INT64_MAX);
        assert_true(wt_runsum_incl_ns(s, r) == INT64_MAX);
        assert_int_equal(wt_runsum_self_ns(s, r), 0);
        wt_runsum_free(s);
    }
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runsum_lost_then_redefined_category),
        cmocka_unit_test(test_runsum_random_trees_against_a_model),
        cmocka_unit_test(test_runsum_sums_saturate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
