/* Tests of the Perfetto export's nesting (issue 13): what trace_processor builds from the file
 * must be the tree the recorder saw. Traces are built by hand in the recorder's order (a span
 * when it ends: children before their parent), exported, decoded by protoc with the official
 * schema, and the slices rebuilt the way trace_processor does (export_decode.h: per track,
 * sorted by timestamp with ties in file order). Checked against the values the test generated:
 * every span exactly once, whole, on its thread's track at its recorded depth (wt_record()
 * spans that overlap others on a lane, whole), per-category sums equal to the flat ledger's
 * sums made here. */
#include <math.h>

#include "export.h"
#include "export_decode.h"

typedef struct gspan {
    uint64_t tid;
    int64_t ts, end;
    uint32_t depth;
    int measured;
    const char *cat;
    char label[16];
} gspan;

#define MAXG 14000
static gspan G[MAXG];
static int n_g;
static const char *const cats[] = { "load", "compile", "io" };

static int setup(void **state) { return tb_tmpdir_enter("export-nest"); }
static int teardown(void **state) { return tb_tmpdir_leave(); }

static uint64_t rng_state;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng_state >> 33) % n;
}

static gspan *add(uint64_t tid, int64_t ts, int64_t end, uint32_t depth, int measured)
{
    assert_true(n_g < MAXG);
    gspan *g = &G[n_g];
    *g = (gspan){ .tid = tid, .ts = ts, .end = end, .depth = depth, .measured = measured,
                  .cat = cats[n_g % 3] };
    snprintf(g->label, sizeof g->label, "s%d", n_g);
    n_g++;
    return g;
}

/* A random subtree at `depth` beginning at `t`, in the recorder's order (children first);
 * gaps of 0-2 ns make parents and first children begin together, siblings touch, spans end
 * with their last child and some last no time at all. Returns its end. */
static int64_t gen(uint64_t tid, uint32_t depth, int64_t t)
{
    int64_t cur = t + rnd(3);
    unsigned kids = depth < 6 ? rnd(4) : 0;
    for (unsigned k = 0; k < kids; k++)
        cur = gen(tid, depth + 1, cur) + rnd(3);
    add(tid, t, cur + rnd(2), depth, 0);
    return G[n_g - 1].end;
}

/* Writes G in order (the recorder's) to `path`. */
static void write_trace(const char *path)
{
    tb *b = tb_create(path, 77, 0, 0);
    for (int i = 0; i < n_g; i++)
        tb_span_ex(b, &(tb_span_desc){ .tid = G[i].tid, .start = G[i].ts, .end = G[i].end,
                                       .depth = G[i].depth, .category = G[i].cat,
                                       .label = G[i].label, .measured = G[i].measured });
    tb_close(b, TB_END_CLEAN, 10000000000LL, 0);
}

static int export_it(const char *in, const char *out, wt_export_report *rep)
{
    char *paths[1] = { (char *)in };
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO, .no_analysis = 1 };
    return wt_export_to_path(paths, 1, &o, out, rep);
}

/* Every generated span exactly once and whole; non-measured ones on their thread's track at
 * their depth (all when `all_nested`), the rest on lanes; category sums equal the flat ledger
 * made here. Returns the decoded trace. */
static decoded *check_all(const char *path, int all_nested)
{
    decoded *d = decode(path);
    int64_t want[3] = { 0 };
    int spans = 0;
    for (int i = 0; i < d->ns; i++)
        spans += strcmp(d->s[i].cat, "walltime") != 0;
    assert_int_equal(spans, n_g);
    for (int i = 0; i < n_g; i++) {
        const gspan *g = &G[i];
        int n;
        const slice *s = find_slice(d, g->label, g->ts, &n);
        assert_int_equal(n, 1);
        assert_int_equal(s->dur, g->end - g->ts);
        assert_string_equal(s->cat, g->cat);
        assert_int_equal(tid_of(d, s), (int64_t)g->tid);
        if (!g->measured || all_nested) {
            if (!on_thread_track(d, s) || s->depth != (int)g->depth)
                fail_msg("%s [%lld, %lld] depth %u: on '%s' at depth %d", g->label,
                         (long long)g->ts, (long long)g->end, g->depth, d->t[s->track].name,
                         s->depth);
        }
        want[i % 3] += g->end - g->ts;
    }
    for (int c = 0; c < 3; c++)
        assert_int_equal(cat_sum(d, cats[c]), want[c]);
    return d;
}

static void test_parent_and_child_beginning_together_nest(void **state)
{
    NEED_PROTOC();
    n_g = 0;
    /* by hand, in end order: c3 [100,100] zero-length at its parent's begin, c2 [100,150],
     * c1 [100,200] ending with its parent, r [100,200]; then r2 touching r: [200,300] with its
     * own first child d [200,250] */
    add(1, 100, 100, 3, 0);
    add(1, 100, 150, 2, 0);
    add(1, 100, 200, 1, 0);
    add(1, 100, 200, 0, 0);
    add(1, 200, 250, 1, 0);
    add(1, 200, 300, 0, 0);
    write_trace(tb_path_in("t.wtrace"));
    wt_export_report rep;
    assert_int_equal(export_it(tb_path_in("t.wtrace"), tb_path_in("t.pftrace"), &rep), 0);
    assert_int_equal(rep.sink.lanes_extra, 0);
    free(check_all(tb_path_in("t.pftrace"), 1));
}

static void test_random_trees_nest_at_their_depth(void **state)
{
    NEED_PROTOC();
    for (uint64_t seed = 1; seed <= 4; seed++) {
        rng_state = seed;
        n_g = 0;
        int64_t t[2] = { 1000, 1000 };
        /* two threads, their trees interleaved as the recorder's frames would be */
        while (n_g < 1500)
            for (int k = 0; k < 2; k++)
                t[k] = gen((uint64_t)k + 1, 0, t[k]) + rnd(3);
        write_trace(tb_path_in("r.wtrace"));
        wt_export_report rep;
        assert_int_equal(export_it(tb_path_in("r.wtrace"), tb_path_in("r.pftrace"), &rep), 0);
        assert_int_equal(rep.sink.spans, n_g);
        assert_int_equal(rep.sink.lanes_extra, 0);
        free(check_all(tb_path_in("r.pftrace"), 1));
    }
}

/* A root around more spans than a thread may hold (PF_HOLD_THREAD, 2048): parents at depth 1
 * each with three children, the first beginning with its parent. `tie`: the root begins with
 * its first child too. */
static void build_big_root(int tie)
{
    n_g = 0;
    int64_t t = 1000;
    for (int p = 0; p < 3000; p++) {
        int64_t pb = t;
        for (int c = 0; c < 3; c++, t += 10)
            add(1, t, t + 10, 2, 0);
        add(1, pb, t, 1, 0);
        t += 5;
    }
    add(1, tie ? 1000 : 999, t, 0, 0);
}

static void test_past_the_hold_bound_spans_still_nest(void **state)
{
    NEED_PROTOC();
    build_big_root(0);
    write_trace(tb_path_in("b.wtrace"));
    wt_export_report rep;
    assert_int_equal(export_it(tb_path_in("b.wtrace"), tb_path_in("b.pftrace"), &rep), 0);
    assert_true(rep.sink.early > 0); /* the bound was passed */
    assert_int_equal(rep.sink.lanes_extra, 0);
    free(check_all(tb_path_in("b.pftrace"), 1));
}

static void test_past_the_hold_bound_a_tied_root_goes_to_a_lane_whole(void **state)
{
    NEED_PROTOC();
    build_big_root(1);
    write_trace(tb_path_in("b.wtrace"));
    wt_export_report rep;
    assert_int_equal(export_it(tb_path_in("b.wtrace"), tb_path_in("b.pftrace"), &rep), 0);
    assert_true(rep.sink.early > 0);
    /* the root's BEGIN would be read after its first child's, written early: it goes to a
     * lane, whole, and nothing is cut; its descendants stay nested among themselves */
    assert_int_equal(rep.sink.lanes_extra, 1);
    decoded *d = decode(tb_path_in("b.pftrace"));
    const gspan *root = &G[n_g - 1];
    int n;
    const slice *r = find_slice(d, root->label, root->ts, &n);
    assert_int_equal(n, 1);
    assert_int_equal(r->dur, root->end - root->ts);
    assert_string_equal(d->t[r->track].name, "overlap 1");
    int64_t sum = 0;
    for (int i = 0; i < n_g - 1; i++) {
        const slice *s = find_slice(d, G[i].label, G[i].ts, &n);
        assert_int_equal(n, 1);
        assert_int_equal(s->dur, G[i].end - G[i].ts);
        assert_true(on_thread_track(d, s));
        assert_int_equal(s->depth, (int)G[i].depth - 1); /* their root is on the lane */
        sum += s->dur;
    }
    assert_true(sum > 0);
    free(d);
}

static void test_past_the_hold_bound_a_wt_record_span_yields_to_its_parent(void **state)
{
    NEED_PROTOC();
    /* a root around a parent of 9000 children, the first a wt_record() span measured from
     * before the parent began: written early (past the bound) with its parent still open, it
     * goes to a lane, and the parent and root still nest */
    n_g = 0;
    add(1, 997, 1010, 2, 1); /* the parent begins at 1000 */
    for (int k = 1; k < 9000; k++)
        add(1, 1000 + 10 * k, 1000 + 10 * k + 5, 2, 0);
    add(1, 1000, 1000 + 10 * 9000, 1, 0);
    add(1, 990, 1000 + 10 * 9000 + 1, 0, 0);
    write_trace(tb_path_in("p.wtrace"));
    wt_export_report rep;
    assert_int_equal(export_it(tb_path_in("p.wtrace"), tb_path_in("p.pftrace"), &rep), 0);
    assert_true(rep.sink.early > 0);
    assert_int_equal(rep.sink.lanes_extra, 1);
    decoded *d = check_all(tb_path_in("p.pftrace"), 0);
    int n;
    const slice *x = find_slice(d, G[0].label, G[0].ts, &n);
    assert_string_equal(d->t[x->track].name, "overlap 1");
    free(d);
}

static void test_overlapping_wt_record_spans_keep_their_length(void **state)
{
    NEED_PROTOC();
    rng_state = 42;
    n_g = 0;
    /* a root [100000, 1100000] with 20 ordinary children, and 400 wt_record() spans recorded at
     * depth 1 at random instants, each measured over a random time before its call: they
     * overlap each other, the children, and some begin before the root */
    static gspan rec[420];
    int n = 0;
    for (int k = 0; k < 20; k++)
        rec[n++] = (gspan){ .tid = 5, .ts = 100000 + k * 50000 + 1000,
                            .end = 100000 + k * 50000 + 21000, .depth = 1 };
    for (int k = 0; k < 400; k++) {
        int64_t end = 100000 + (int64_t)rnd(999999);
        int64_t dur = (int64_t)rnd(60000);
        rec[n++] = (gspan){ .tid = 5, .ts = end - dur, .end = end, .depth = 1, .measured = 1 };
    }
    /* the recorder's order: by end (a record at its call, a child when it ends) */
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && rec[b].end < rec[b - 1].end; b--) {
            gspan x = rec[b];
            rec[b] = rec[b - 1];
            rec[b - 1] = x;
        }
    for (int k = 0; k < n; k++)
        add(rec[k].tid, rec[k].ts, rec[k].end, rec[k].depth, rec[k].measured);
    add(5, 100000, 1100000, 0, 0);
    write_trace(tb_path_in("m.wtrace"));
    wt_export_report rep;
    assert_int_equal(export_it(tb_path_in("m.wtrace"), tb_path_in("m.pftrace"), &rep), 0);
    assert_true(rep.sink.lanes_extra > 0);
    assert_int_equal(rep.sink.misplaced, 0);
    free(check_all(tb_path_in("m.pftrace"), 0)); /* every one whole, sums exact */
}

/* The load of issue 13, by hand, in the recorder's order: two keep/skip rounds; in each, two
 * loader threads each run a "load" span around 60 tensors, a weight_load each whose
 * weight_convert begins in the same nanosecond, the loader span beginning with its first
 * tensor, tensors sometimes touching, each after a "load" prologue span; the main thread's
 * from_pretrained around load_shards (both load) around it all. 240 weight_load, 240
 * weight_convert, 12 load spans. */
static const char *const issue_cats[] = { "weight_load", "weight_convert", "load" };

static void build_issue_load(const char *path)
{
    n_g = 0;
    tb *b = tb_create(path, 300, 1000, 1000);
    int64_t t = 10000;
    for (int r = 0; r < 2; r++) {
        const int64_t rs = t, fp0 = t + 10;
        int64_t rend = fp0;
        for (uint64_t th = 2; th <= 3; th++) {
            int64_t u = fp0 + 50;
            gspan *pro = add(th, fp0 + 20, u, 0, 0); /* the loader's prologue */
            pro->cat = "load";
            const int64_t lb = u;
            for (int k = 0; k < 60; k++) {
                int64_t conv = 50 + 7 * k + (int64_t)th, load = conv + 30 + k % 5;
                gspan *c = add(th, u, u + conv, 2, 0);
                c->cat = "weight_convert";
                gspan *w = add(th, u, u + load, 1, 0);
                w->cat = "weight_load";
                u += load + (k % 3); /* k % 3 == 0: touches the next tensor */
            }
            gspan *l = add(th, lb, u, 0, 0);
            l->cat = "load";
            if (u > rend)
                rend = u;
        }
        gspan *shards = add(1, fp0 + 1, rend + 2, 1, 0);
        shards->cat = "load";
        gspan *fp = add(1, fp0, rend + 5, 0, 0);
        fp->cat = "load";
        for (int i = 0; i < n_g; i++)
            if (G[i].ts >= rs && G[i].end <= rend + 5)
                tb_span_ex(b, &(tb_span_desc){ .tid = G[i].tid, .start = G[i].ts, .end = G[i].end,
                                               .depth = G[i].depth, .category = G[i].cat,
                                               .label = G[i].label });
        tb_round(b, 1, rs, rend + 10, r ? "skip" : "keep", 0);
        t = rend + 1000;
    }
    tb_close(b, TB_END_CLEAN, t, 0);
}

static void test_the_issue_load_sums_to_the_flat_ledger(void **state)
{
    NEED_PROTOC();
    build_issue_load(tb_path_in("i.wtrace"));
    char *paths[1] = { tb_path_in("i.wtrace") };
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO }; /* with the ledger */
    wt_export_report rep;
    assert_int_equal(wt_export_to_path(paths, 1, &o, tb_path_in("i.pftrace"), &rep), 0);
    decoded *d = decode(tb_path_in("i.pftrace"));
    int want_n[3] = { 0 }, got_n[3] = { 0 }, max_depth[3] = { 0 };
    int64_t want_ns[3] = { 0 };
    for (int i = 0; i < n_g; i++)
        for (int c = 0; c < 3; c++)
            if (!strcmp(G[i].cat, issue_cats[c])) {
                want_n[c]++;
                want_ns[c] += G[i].end - G[i].ts;
                int n;
                const slice *sl = find_slice(d, G[i].label, G[i].ts, &n);
                assert_int_equal(n, 1); /* exactly once */
                assert_int_equal(sl->dur, G[i].end - G[i].ts);
                assert_true(on_thread_track(d, sl));
                assert_int_equal(sl->depth, (int)G[i].depth);
            }
    assert_int_equal(want_n[0], 240);
    assert_int_equal(want_n[1], 240);
    assert_int_equal(want_n[2], 12);
    for (int i = 0; i < d->ns; i++)
        for (int c = 0; c < 3; c++)
            if (!strcmp(d->s[i].cat, issue_cats[c])) {
                got_n[c]++;
                if (d->s[i].depth > max_depth[c])
                    max_depth[c] = d->s[i].depth;
            }
    for (int c = 0; c < 3; c++) {
        /* slices = spans (not twice), nested (not all at depth 0), and what SQL's sum(dur)
         * gives is the flat ledger: by hand, and as the analyzer's ledger says */
        assert_int_equal(got_n[c], want_n[c]);
        assert_int_equal(cat_sum(d, issue_cats[c]), want_ns[c]);
        char key[96];
        snprintf(key, sizeof key, "ledger.run.%s.flat_s", issue_cats[c]);
        const char *flat = run_arg(d, key);
        assert_non_null(flat);
        assert_int_equal(llround(atof(flat) * 1e9), want_ns[c]);
    }
    assert_int_equal(max_depth[0], 1);
    assert_int_equal(max_depth[1], 2);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parent_and_child_beginning_together_nest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_trees_nest_at_their_depth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_past_the_hold_bound_spans_still_nest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_past_the_hold_bound_a_tied_root_goes_to_a_lane_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_past_the_hold_bound_a_wt_record_span_yields_to_its_parent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overlapping_wt_record_spans_keep_their_length, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_issue_load_sums_to_the_flat_ledger, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
