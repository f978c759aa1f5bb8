/* Tests of `export` to Perfetto: hand-built traces (tracebuild.h) with values chosen here are
 * exported, then decoded by protoc with the official Perfetto schema (export_decode.h), and the
 * decoded slices are checked: every span once, at its depth on its thread's track, with its
 * HIT/MISS, begins and ends balanced, every interned id resolving, per-category slice durations
 * equal to the flat ledger's seconds computed by hand; counters, marks, rounds, anomalies, the
 * run slice; several files, damage, output failures; the aligned rounds view (an option). When
 * protoc or the schema is missing the decoding tests skip and say why. The nesting itself is
 * tested in test_export_nesting.c. */
#include <sys/stat.h>

#include "export.h"
#include "export_decode.h"

#define MS 1000000LL

/* ---- fixtures ---- */

/* Each test in a fresh directory of its own (tracebuild.h's fixtures). */
static int setup(void **state) { return tb_tmpdir_enter("export-pf"); }
static int teardown(void **state) { return tb_tmpdir_leave(); }
static char *path_in(const char *name) { return tb_path_in(name); }

typedef struct want {
    const char *label, *cat, *cached;
    int64_t ts, dur;
    int depth;
    int64_t tid;
} want;

/* Spans of the fixture, by hand: main thread 101 a flame of depth 0..2, thread 102 two
 * top-level spans of which the second, a wt_record() span, overlaps the first. */
static const want fixture_spans[] = {
    { "w1", "load", "HIT", 1100 * MS, 100 * MS, 1, 101 },
    { "k", "compile", "-", 1250 * MS, 50 * MS, 2, 101 },
    { "w2", "compile", "MISS", 1200 * MS, 300 * MS, 1, 101 },
    { "model", "setup", "-", 1050 * MS, 550 * MS, 0, 101 },
    { "decode", "decode", "HIT", 1100 * MS, 300 * MS, 0, 102 },
    { "tok", "decode", "-", 1350 * MS, 100 * MS, 0, 102 },
    { "tail", "decode", "-", 1460 * MS, 40 * MS, 0, 102 },
};
#define N_FIXTURE (sizeof fixture_spans / sizeof fixture_spans[0])

static void build_fixture(const char *path, uint64_t pid, int frames)
{
    tb *b = tb_create(path, pid, 1000 * MS, 1000 * MS + 100000);
    tb_thread_name(b, 101, 1000 * MS + 200000, "main");
    tb_span_ex(b, &(tb_span_desc){ .tid = 101, .start = 1100 * MS, .end = 1200 * MS, .depth = 1,
                                   .category = "load", .label = "w1", .detail = "from cache",
                                   .cached = WT_CACHED_HIT, .count = 3, .bytes = 4096 });
    if (frames)
        tb_frame(b);
    tb_span(b, 101, 1250 * MS, 1300 * MS, 2, "compile", "k");
    tb_span_ex(b, &(tb_span_desc){ .tid = 101, .start = 1200 * MS, .end = 1500 * MS, .depth = 1,
                                   .category = "compile", .label = "w2", .cached = WT_CACHED_MISS });
    if (frames)
        tb_frame(b);
    tb_span(b, 101, 1050 * MS, 1600 * MS, 0, "setup", "model");
    tb_counter(b, 101, 1610 * MS, "device_bytes", 1000);
    tb_mark(b, 101, 1620 * MS, "mark", "phase", "x");
    tb_meta(b, 101, 1630 * MS, "model", "llama");
    tb_round(b, 101, 1700 * MS, 1800 * MS, "keep", 0);
    tb_round(b, 101, 1800 * MS, 1900 * MS, "skip", 1);
    tb_span_ex(b, &(tb_span_desc){ .tid = 102, .start = 1100 * MS, .end = 1400 * MS,
                                   .category = "decode", .label = "decode", .cached = WT_CACHED_HIT });
    tb_span_ex(b, &(tb_span_desc){ .tid = 102, .start = 1350 * MS, .end = 1450 * MS,
                                   .category = "decode", .label = "tok", .measured = 1 });
    tb_span_ex(b, &(tb_span_desc){ .tid = 102, .start = 1460 * MS, .end = 1500 * MS,
                                   .category = "decode", .label = "tail", .unclosed = 1,
                                   .bytes = 1LL << 40, .count = 1000000 });
    tb_close(b, TB_END_CLEAN, 2000 * MS, 0);
}

static int export_opts(const char *in, const char *out, int reference, int aligned,
                       wt_export_report *rep)
{
    char *paths[1] = { (char *)in };
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO, .reference = reference,
                         .aligned_rounds = aligned };
    return wt_export_to_path(paths, 1, &o, out, rep);
}

static int export_one(const char *in, const char *out, int reference, wt_export_report *rep)
{
    return export_opts(in, out, reference, 0, rep);
}




/* ---- tests ---- */

static void test_export_perfetto_every_span_once_as_nested_slice(void **state)
{
    NEED_PROTOC();
    build_fixture(path_in("a.wtrace"), 100, 0);
    wt_export_report rep;
    assert_int_equal(export_one(path_in("a.wtrace"), path_in("a.pftrace"), 0, &rep), 0);
    decoded *d = decode(path_in("a.pftrace"));
    int spans = 0;
    for (int i = 0; i < d->ns; i++)
        spans += strcmp(d->s[i].cat, "walltime") && strcmp(d->s[i].cat, "round");
    assert_int_equal(spans, N_FIXTURE);
    for (size_t i = 0; i < N_FIXTURE; i++) {
        const want *w = &fixture_spans[i];
        int n;
        const slice *s = find_slice(d, w->label, w->ts, &n);
        assert_int_equal(n, 1);
        assert_string_equal(s->cat, w->cat);
        assert_int_equal(s->dur, w->dur);
        assert_int_equal(tid_of(d, s), w->tid);
        assert_string_equal(s->cached, w->cached);
        if (strcmp(w->label, "tok") != 0) { /* nested on its thread's track at its depth */
            assert_true(on_thread_track(d, s));
            assert_int_equal(s->depth, w->depth);
        }
    }
    /* the wt_record() span overlapping a span that does not contain it: on a lane, whole */
    int n;
    const slice *tok = find_slice(d, "tok", 1350 * MS, &n);
    assert_string_equal(d->t[tok->track].name, "overlap 1");
    assert_int_equal(rep.sink.lanes_extra, 1);
    assert_int_equal(rep.sink.spans, N_FIXTURE);
    free(d);
}

static void test_export_perfetto_category_sums_equal_flat_ledger(void **state)
{
    NEED_PROTOC();
    build_fixture(path_in("a.wtrace"), 100, 0);
    wt_export_report rep;
    assert_int_equal(export_one(path_in("a.wtrace"), path_in("a.pftrace"), 0, &rep), 0);
    decoded *d = decode(path_in("a.pftrace"));
    /* the flat ledger by hand: every span's full duration in its category */
    assert_int_equal(cat_sum(d, "load"), 100 * MS);
    assert_int_equal(cat_sum(d, "compile"), 350 * MS);
    assert_int_equal(cat_sum(d, "setup"), 550 * MS);
    assert_int_equal(cat_sum(d, "decode"), 440 * MS);
    /* and the run slice carries the analyzer's flat seconds for them */
    assert_non_null(run_arg(d, "ledger.run.compile.flat_s"));
    assert_true(atof(run_arg(d, "ledger.run.compile.flat_s")) > 0.349999 &&
                atof(run_arg(d, "ledger.run.compile.flat_s")) < 0.350001);
    free(d);
}

static void test_export_perfetto_tracks_counters_marks_rounds_anomalies(void **state)
{
    NEED_PROTOC();
    build_fixture(path_in("a.wtrace"), 100, 0);
    wt_export_report rep;
    assert_int_equal(export_one(path_in("a.wtrace"), path_in("a.pftrace"), 0, &rep), 0);
    decoded *d = decode(path_in("a.pftrace"));
    int procs = 0, main_named = 0, counter = 0, rk = 0, rs = 0;
    for (int i = 0; i < d->nt; i++) {
        procs += d->t[i].is_process && d->t[i].pid == 100;
        main_named += d->t[i].is_thread && d->t[i].tid == 101 && !strcmp(d->t[i].name, "main");
        counter += d->t[i].is_counter && !strcmp(d->t[i].name, "device_bytes");
        rk += !strcmp(d->t[i].name, "round: keep");
        rs += !strcmp(d->t[i].name, "round: skip");
    }
    assert_int_equal(procs, 1);
    assert_int_equal(main_named, 1);
    assert_int_equal(counter, 1);
    assert_int_equal(rk, 1);
    assert_int_equal(rs, 1);
    assert_int_equal(d->counters, 1);
    int n;
    const slice *keep = find_slice(d, "keep", 1700 * MS, &n);
    assert_int_equal(n, 1); /* on "round: keep"; not again at t=0 without --aligned-rounds */
    assert_int_equal(keep->dur, 100 * MS);
    assert_string_equal(keep->cat, "round");
    /* the run slice: process start to the end record, with metadata */
    const slice *run = find_slice(d, "walltime: run", 1000 * MS, &n);
    assert_int_equal(n, 1);
    assert_int_equal(run->dur, 1000 * MS);
    assert_string_equal(run_arg(d, "meta.model"), "llama");
    assert_string_equal(run_arg(d, "end"), "clean");
    /* the mark, and the miss of w2 on the anomalies track at w2's start */
    int mark = 0, miss = 0;
    for (int i = 0; i < d->ni; i++) {
        const instant *in = &d->in[i];
        mark += !strcmp(in->name, "phase") && in->ts == 1620 * MS && !strcmp(in->cat, "mark");
        if (!strcmp(in->name, "miss")) {
            assert_string_equal(d->t[in->track].name, "walltime: anomalies");
            assert_int_equal(in->ts, 1200 * MS);
            assert_non_null(strstr(in->text, "CACHE MISS: compile w2"));
            miss++;
        }
    }
    assert_int_equal(mark, 1);
    assert_int_equal(miss, 1);
    free(d);
}

static void test_export_fast_path_matches_protobuf_c(void **state)
{
    build_fixture(path_in("a.wtrace"), 100, 0);
    wt_export_report rep;
    assert_int_equal(export_one(path_in("a.wtrace"), path_in("fast.pftrace"), 0, &rep), 0);
    assert_int_equal(export_one(path_in("a.wtrace"), path_in("ref.pftrace"), 1, &rep), 0);
    assert_same_bytes(path_in("fast.pftrace"), path_in("ref.pftrace"), 100);
}

/* Past the interning bound (issue 10, item 10: a second copy of 128 MiB of labels) a new name
 * or category is written inline in its event, and those interned before keep their iids: with a
 * bound of a few strings, every span still decodes with its own name and category, the fast
 * path and protobuf-c write the same bytes, and some strings went each way. */
static void test_export_interning_bound_inlines_names_past_it(void **state)
{
    NEED_PROTOC();
    enum { SPANS = 300, CATS = 30 };
    tb *b = tb_create(path_in("a.wtrace"), 100, 1000 * MS, 1000 * MS + 100000);
    char label[32], cat[32];
    for (int i = 0; i < SPANS; i++) {
        /* every tenth span reuses an early label, interned before the bound */
        snprintf(label, sizeof label, "label-%d", i % 10 == 9 ? i % 7 : i);
        snprintf(cat, sizeof cat, "cat-%d", i % CATS);
        tb_span(b, 101, 1100 * MS + i * MS, 1100 * MS + i * MS + MS / 2, 0, cat, label);
    }
    tb_close(b, TB_END_CLEAN, 2000 * MS, 0);
    char *paths[1] = { path_in("a.wtrace") };
    wt_export_report rep;
    for (int ref = 0; ref < 2; ref++) {
        wt_export_opts o = { .format = WT_EXPORT_PERFETTO, .reference = ref, .intern_bytes = 1500 };
        assert_int_equal(wt_export_to_path(paths, 1, &o, path_in(ref ? "ref.pftrace" : "a.pftrace"),
                                           &rep), 0);
    }
    assert_same_bytes(path_in("a.pftrace"), path_in("ref.pftrace"), 0);
    decoded *d = decode(path_in("a.pftrace"));
    assert_int_equal(d->unresolved, 0);
    assert_true(d->inline_names > SPANS / 2);
    assert_true(d->inline_cats > 0);
    for (int i = 0; i < SPANS; i++) {
        snprintf(label, sizeof label, "label-%d", i % 10 == 9 ? i % 7 : i);
        snprintf(cat, sizeof cat, "cat-%d", i % CATS);
        int n;
        const slice *s = find_slice(d, label, 1100 * MS + i * MS, &n);
        assert_int_equal(n, 1);
        assert_string_equal(s->cat, cat);
        assert_int_equal(s->dur, MS / 2);
    }
    free(d);
    /* the default bound interns them all */
    assert_int_equal(export_one(path_in("a.wtrace"), path_in("b.pftrace"), 0, &rep), 0);
    d = decode(path_in("b.pftrace"));
    assert_int_equal(d->unresolved, 0);
    assert_int_equal(d->inline_names, 0);
    assert_int_equal(d->inline_cats, 0);
    free(d);
}

/* Past 2,048 names the Perfetto sink asks for the names' cache lines of each batch before its
 * spans come (export_perfetto.c, pf_upcoming): 2,500 labels, then the same in another order
 * (a permutation), each span decoded once with its own name and category, the fast path and
 * protobuf-c writing the same bytes; under the sanitizers, the batches' look-ups ahead too. */
static void test_export_many_labels_each_span_named(void **state)
{
    NEED_PROTOC();
    enum { LABELS = 2500, SPANS = 2 * LABELS };
    tb *b = tb_create(path_in("a.wtrace"), 100, 1000 * MS, 1000 * MS + 100000);
    char label[32];
    for (int i = 0; i < SPANS; i++) {
        snprintf(label, sizeof label, "layers.%d.w", i < LABELS ? i : (i * 7919) % LABELS);
        tb_span(b, 101, 1100 * MS + i * 10000, 1100 * MS + i * 10000 + 5000, 0, "weights", label);
    }
    tb_close(b, TB_END_CLEAN, 2000 * MS, 0);
    wt_export_report rep;
    assert_int_equal(export_one(path_in("a.wtrace"), path_in("a.pftrace"), 0, &rep), 0);
    assert_int_equal(rep.sink.spans, SPANS);
    assert_int_equal(export_one(path_in("a.wtrace"), path_in("ref.pftrace"), 1, &rep), 0);
    assert_same_bytes(path_in("a.pftrace"), path_in("ref.pftrace"), 0);
    decoded *d = decode(path_in("a.pftrace"));
    assert_int_equal(d->unresolved, 0);
    for (int i = 0; i < SPANS; i++) {
        snprintf(label, sizeof label, "layers.%d.w", i < LABELS ? i : (i * 7919) % LABELS);
        int n;
        const slice *sl = find_slice(d, label, 1100 * MS + i * 10000, &n);
        assert_int_equal(n, 1);
        assert_string_equal(sl->cat, "weights");
        assert_int_equal(sl->dur, 5000);
    }
    free(d);
}

static void test_export_several_files_one_process_track_each(void **state)
{
    NEED_PROTOC();
    build_fixture(path_in("a.wtrace"), 100, 0);
    build_fixture(path_in("b.wtrace"), 200, 0);
    char *paths[2] = { path_in("a.wtrace"), path_in("b.wtrace") };
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO };
    wt_export_report rep;
    assert_int_equal(wt_export_to_path(paths, 2, &o, path_in("ab.pftrace"), &rep), 0);
    decoded *d = decode(path_in("ab.pftrace"));
    int p100 = 0, p200 = 0, t200 = 0;
    for (int i = 0; i < d->nt; i++) {
        p100 += d->t[i].is_process && d->t[i].pid == 100;
        p200 += d->t[i].is_process && d->t[i].pid == 200;
        t200 += d->t[i].is_thread && d->t[i].pid == 200;
    }
    assert_int_equal(p100, 1);
    assert_int_equal(p200, 1);
    assert_int_equal(t200, 2);
    assert_int_equal(cat_sum(d, "compile"), 2 * 350 * MS);
    free(d);
}

/* Ranks of one host (one host name, as RANK=r for each worker on one machine): each process
 * is named as the ledger names it and ordered by rank. Given out of order, with pids in
 * another order than their ranks and rank 10 after 2 (numbers, not text); the rank recorded
 * after a span (metadata may come anywhere); a process without a rank, given first and of the
 * smallest pid, after the ranked ones, named after its program. */
static void test_export_ranks_of_one_host_named_and_ordered_by_rank(void **state)
{
    NEED_PROTOC();
    static const struct {
        const char *file, *rank; /* rank NULL: none */
        uint64_t pid;
        const char *name;
        int order;
    } f[] = {
        { "none.wtrace", NULL, 50, "tracebuild", 3 }, /* the header's "tracebuild test" */
        { "r10.wtrace", "10", 100, "rank 10 (pid 100)", 2 },
        { "r0.wtrace", "0", 300, "rank 0 (pid 300)", 0 },
        { "r2.wtrace", "2", 200, "rank 2 (pid 200)", 1 },
    };
    enum { N = sizeof f / sizeof f[0] };
    char *paths[N];
    for (int i = 0; i < N; i++) {
        tb *b = tb_create(path_in(f[i].file), f[i].pid, 1000 * MS, 1000 * MS);
        tb_span(b, f[i].pid, 1100 * MS, 1200 * MS, 0, "load", "w");
        if (f[i].rank)
            tb_meta(b, f[i].pid, 1300 * MS, "rank", f[i].rank);
        tb_close(b, TB_END_CLEAN, 1400 * MS, 0);
        paths[i] = strdup(path_in(f[i].file));
        assert_non_null(paths[i]);
    }
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO };
    wt_export_report rep;
    assert_int_equal(wt_export_to_path(paths, N, &o, path_in("ranks.pftrace"), &rep), 0);
    decoded *d = decode(path_in("ranks.pftrace"));
    /* the root descriptor asks the UI for the processes' own order */
    assert_int_equal(d->roots, 1);
    assert_string_equal(d->process_ordering, "PROCESS_ORDERING_EXPLICIT");
    for (int i = 0; i < N; i++) {
        int tracks = 0;
        for (int k = 0; k < d->nt; k++) {
            const track *t = &d->t[k];
            if (!t->is_process || t->pid != (int64_t)f[i].pid)
                continue;
            tracks++; /* its descriptors share a uuid: one track */
            assert_string_equal(t->name, f[i].name);
            assert_true(t->has_order);
            assert_int_equal(t->order, f[i].order);
            assert_int_equal(t->sort_index, f[i].order);
            assert_int_equal(t->n_labels, 0); /* one host: no host label */
        }
        assert_int_equal(tracks, 1);
        free(paths[i]);
    }
    free(d);
}

static void test_export_damaged_file_exports_readable_part(void **state)
{
    NEED_PROTOC();
    build_fixture(path_in("d.wtrace"), 100, 1); /* three data frames */
    size_t n;
    unsigned char *bytes = tb_read_file(path_in("d.wtrace"), &n);
    /* cut the file in the middle of its last frame: the writer died (kill -9) */
    tb_write_file(path_in("d.wtrace"), bytes, n - 40);
    free(bytes);
    wt_export_report rep;
    assert_int_equal(export_one(path_in("d.wtrace"), path_in("d.pftrace"), 0, &rep), 0);
    assert_true(rep.frames_damaged + rep.bytes_skipped > 0);
    decoded *d = decode(path_in("d.pftrace")); /* still a valid, balanced trace */
    int count;
    assert_non_null(find_slice(d, "w1", 1100 * MS, &count));
    assert_non_null(find_slice(d, "w2", 1200 * MS, &count));
    assert_null(find_slice(d, "model", 1050 * MS, &count)); /* in the lost frame */
    assert_non_null(find_slice(d, "walltime: run", 1000 * MS, &count));
    assert_non_null(strstr(run_arg(d, "end"), "none"));
    free(d);
}

/* Temporary export files left in the test's directory. */
static int count_tmp_files(void) { return tb_count_files("tmp-"); }

static void test_export_unwritable_output_fails_and_leaves_nothing(void **state)
{
    build_fixture(path_in("a.wtrace"), 100, 0);
    wt_export_report rep;
    assert_int_equal(export_one(path_in("a.wtrace"), path_in("no/such/dir/x.pftrace"), 0, &rep),
                     WT_EOPEN);
    /* a target that cannot be replaced (a directory): the temporary file is removed */
    assert_int_equal(mkdir(path_in("taken"), 0755), 0);
    assert_int_not_equal(export_one(path_in("a.wtrace"), path_in("taken"), 0, &rep), 0);
    assert_int_equal(count_tmp_files(), 0);
}

static void test_export_no_readable_input_keeps_existing_output(void **state)
{
    static const unsigned char before[] = "an earlier timeline";
    tb_write_file(path_in("e.pftrace"), before, sizeof before);
    wt_export_report rep;
    assert_int_equal(export_one(path_in("absent.wtrace"), path_in("e.pftrace"), 0, &rep), 0);
    assert_int_equal(rep.src.files_failed, 1);
    assert_int_equal(rep.written, 0);
    size_t n;
    unsigned char *after = tb_read_file(path_in("e.pftrace"), &n);
    assert_int_equal(n, sizeof before);
    assert_memory_equal(after, before, n);
    free(after);
    assert_int_equal(count_tmp_files(), 0);
}

static void test_export_empty_trace_is_valid(void **state)
{
    NEED_PROTOC();
    tb *b = tb_create(path_in("empty.wtrace"), 7, 5 * MS, 6 * MS);
    tb_close(b, TB_END_CLEAN, 9 * MS, 0);
    wt_export_report rep;
    assert_int_equal(export_one(path_in("empty.wtrace"), path_in("empty.pftrace"), 0, &rep), 0);
    assert_int_equal(rep.written, 1);
    decoded *d = decode(path_in("empty.pftrace"));
    int n;
    const slice *run = find_slice(d, "walltime: run", 5 * MS, &n);
    assert_int_equal(n, 1);
    assert_int_equal(run->dur, 4 * MS);
    free(d);
}

static void test_export_hostile_depth_and_overlaps_are_bounded(void **state)
{
    /* events fed straight to the sink: a depth no real program reaches, and ten spans of one
     * depth that all overlap (wt_record() spans measured longer than the run) */
    FILE *f = fopen(path_in("h.pftrace"), "wb");
    assert_non_null(f);
    wt_export_sink sink;
    assert_int_equal(wt__export_perfetto_create(f, NULL, &sink), 0);
    wt_trace_info info = { .pid = 9, .process_start_ns = 1 * MS, .open_ns = 1 * MS };
    assert_int_equal(sink.file_begin(sink.self, 0, "h.wtrace", &info), 0);
    wt_event ev = { .kind = WT_EV_SPAN, .pid = 9, .tid = 9, .ts = 2 * MS, .dur = MS,
                    .depth = 4000000000u, .count = 1, .category = "c", .label = "deep" };
    assert_int_equal(sink.event(sink.self, 0, &ev), 0);
    for (int i = 0; i < 10; i++) {
        wt_event o = { .kind = WT_EV_SPAN, .flags = WT_EVF_MEASURED, .pid = 9, .tid = 9,
                       .ts = 10 * MS - i * MS, .dur = 20 * MS, .depth = 1, .count = 1,
                       .category = "c", .label = "over" };
        o.dur = 20 * MS + i * 2 * MS; /* ends in order, starts earlier and earlier */
        assert_int_equal(sink.event(sink.self, 0, &o), 0);
    }
    assert_int_equal(sink.file_end(sink.self, 0), 0); /* no root ever came: written as they are */
    wt_export_proc pe = { 0, 9, 1 * MS, 40 * MS, NULL, 0 };
    assert_int_equal(sink.proc_end(sink.self, &pe), 0);
    assert_int_equal(sink.finish(sink.self), 0);
    wt_export_sink_stats st;
    sink.get_stats(sink.self, &st);
    sink.free(sink.self);
    fclose(f);
    assert_int_equal(st.spans, 11);
    assert_int_equal(st.depth_clamped, 1);
    /* no root came, so their parent is unknown: the wt_record() spans go to lanes, each
     * overlapping all the others: ten lanes, nothing misplaced */
    assert_int_equal(st.lanes_extra, 10);
    assert_int_equal(st.misplaced, 0);
    if (why_no_protoc())
        return;
    decoded *d = decode(path_in("h.pftrace"));
    for (int i = 0; i < 10; i++) { /* every one whole */
        int n;
        const slice *s = find_slice(d, "over", 10 * MS - i * MS, &n);
        assert_int_equal(n, 1);
        assert_int_equal(s->dur, 20 * MS + i * 2 * MS);
    }
    free(d);
}

/* ---- rounds aligned at t=0 ---- */

typedef struct want_stage {
    const char *round, *label; /* the round's aligned track name, the span's label */
    int64_t ts, dur;           /* as recorded */
    int depth;
    uint64_t tid;
} want_stage;

typedef struct want_round {
    const char *name, *cfg;
    int64_t number, ts, dur;
} want_round;

/* Rounds alternating keep/skip, each with the seed's stages: from_pretrained around
 * weights_load and head_build; a helper thread's prefetch inside keep #1; an init span before
 * the first round, which belongs to no round. */
static const want_round rounds_w[] = {
    { "keep #0", "keep", 0, 1000 * MS, 300 * MS },
    { "skip #0", "skip", 0, 1400 * MS, 200 * MS },
    { "keep #1", "keep", 1, 1700 * MS, 350 * MS },
    { "skip #1", "skip", 1, 2100 * MS, 200 * MS },
};
static const want_stage stages_w[] = {
    { "keep #0", "weights_load", 1020 * MS, 180 * MS, 1, 101 },
    { "keep #0", "head_build", 1200 * MS, 80 * MS, 1, 101 },
    { "keep #0", "from_pretrained", 1010 * MS, 280 * MS, 0, 101 },
    { "skip #0", "weights_load", 1420 * MS, 80 * MS, 1, 101 },
    { "skip #0", "head_build", 1500 * MS, 80 * MS, 1, 101 },
    { "skip #0", "from_pretrained", 1410 * MS, 180 * MS, 0, 101 },
    { "keep #1", "weights_load", 1720 * MS, 230 * MS, 1, 101 },
    { "keep #1", "head_build", 1950 * MS, 80 * MS, 1, 101 },
    { "keep #1", "prefetch", 1750 * MS, 100 * MS, 0, 102 },
    { "keep #1", "from_pretrained", 1710 * MS, 330 * MS, 0, 101 },
    { "skip #1", "weights_load", 2120 * MS, 80 * MS, 1, 101 },
    { "skip #1", "head_build", 2200 * MS, 80 * MS, 1, 101 },
    { "skip #1", "from_pretrained", 2110 * MS, 180 * MS, 0, 101 },
};
#define N_ROUNDS_W (sizeof rounds_w / sizeof rounds_w[0])
#define N_STAGES_W (sizeof stages_w / sizeof stages_w[0])

/* The fixture, every time moved by `off`. */
static void build_rounds(const char *path, uint64_t pid, int64_t off)
{
    tb *b = tb_create(path, pid, 400 * MS + off, 400 * MS + off);
    tb_span(b, 101, 500 * MS + off, 900 * MS + off, 0, "setup", "init");
    size_t s = 0;
    for (size_t r = 0; r < N_ROUNDS_W; r++) {
        for (; s < N_STAGES_W && !strcmp(stages_w[s].round, rounds_w[r].name); s++) {
            const want_stage *w = &stages_w[s];
            tb_span_ex(b, &(tb_span_desc){ .tid = w->tid, .start = w->ts + off,
                                           .end = w->ts + w->dur + off, .depth = (uint32_t)w->depth,
                                           .category = "load", .label = w->label,
                                           .cached = s == 0 ? WT_CACHED_MISS : WT_CACHED_HIT });
        }
        tb_round(b, 101, rounds_w[r].ts + off, rounds_w[r].ts + rounds_w[r].dur + off,
                 rounds_w[r].cfg, rounds_w[r].number);
    }
    tb_close(b, TB_END_CLEAN, 2500 * MS + off, 0);
}

/* The aligned round track a slice is on (or under), NULL for the real-time view. */
static const track *aligned_round(const decoded *d, const slice *s)
{
    const track *t = &d->t[s->track];
    while (t && t->parent) {
        const track *p = find_track((decoded *)d, t->parent);
        if (p && !strcmp(p->name, "walltime: rounds at t=0"))
            return t;
        t = p;
    }
    return NULL;
}

/* Checks the aligned view of the files exported into `path`: `pids` files of the fixture. */
static void check_aligned(const char *path, const uint64_t *pids, int n_files)
{
    decoded *d = decode(path);
    const int64_t origin = rounds_w[0].ts; /* the earliest round, of the first file */
    int aligned = 0, real = 0;
    for (int i = 0; i < d->ns; i++) {
        if (aligned_round(d, &d->s[i]))
            aligned++;
        else
            real++;
    }
    /* by hand: per file the real view holds 14 spans, 4 rounds and the run slice; the aligned
     * view 4 rounds and the 13 spans inside them (init belongs to no round) */
    assert_int_equal(real, n_files * (14 + 4 + 1));
    assert_int_equal(aligned, n_files * (4 + 13));
    for (int f = 0; f < n_files; f++) {
        for (size_t r = 0; r < N_ROUNDS_W; r++) {
            char name[64];
            if (n_files > 1)
                snprintf(name, sizeof name, "%s (pid %llu)", rounds_w[r].name,
                         (unsigned long long)pids[f]);
            else
                snprintf(name, sizeof name, "%s", rounds_w[r].name);
            int found = 0;
            for (int i = 0; i < d->ns; i++) {
                const slice *s = &d->s[i];
                const track *rt = aligned_round(d, s);
                if (!rt || strcmp(rt->name, name))
                    continue;
                if (!strcmp(s->cat, "round")) { /* the round: at the origin, its own length */
                    assert_string_equal(s->name, rounds_w[r].cfg);
                    assert_int_equal(s->ts, origin);
                    assert_int_equal(s->dur, rounds_w[r].dur);
                    found++;
                    continue;
                }
                for (size_t k = 0; k < N_STAGES_W; k++) {
                    const want_stage *w = &stages_w[k];
                    if (strcmp(w->round, rounds_w[r].name) || strcmp(w->label, s->name))
                        continue;
                    /* moved with its round, its duration untouched */
                    assert_int_equal(s->ts, origin + (w->ts - rounds_w[r].ts));
                    assert_int_equal(s->dur, w->dur);
                    assert_string_equal(s->cat, "load");
                    found++;
                }
            }
            size_t n_want = 1;
            for (size_t k = 0; k < N_STAGES_W; k++)
                n_want += !strcmp(stages_w[k].round, rounds_w[r].name);
            assert_int_equal(found, (int)n_want);
        }
    }
    free(d);
}

static void test_export_rounds_aligned_at_common_origin(void **state)
{
    NEED_PROTOC();
    build_rounds(path_in("r.wtrace"), 100, 0);
    wt_export_report rep;
    assert_int_equal(export_opts(path_in("r.wtrace"), path_in("r.pftrace"), 0, 1, &rep), 0);
    assert_int_equal(rep.sink.aligned_rounds, 4);
    assert_int_equal(rep.sink.aligned_spans, 13);
    assert_int_equal(rep.sink.aligned_dropped, 0);
    assert_int_equal(rep.sink.spans, 14); /* the real view counts each span once */
    const uint64_t one[1] = { 100 };
    check_aligned(path_in("r.pftrace"), one, 1);

    /* two runs, the second recorded 5 s later: all eight rounds start at the same origin */
    build_rounds(path_in("s.wtrace"), 200, 5000 * MS);
    char *paths[2] = { path_in("r.wtrace"), path_in("s.wtrace") };
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO, .aligned_rounds = 1 };
    assert_int_equal(wt_export_to_path(paths, 2, &o, path_in("rs.pftrace"), &rep), 0);
    assert_int_equal(rep.sink.aligned_rounds, 8);
    assert_int_equal(rep.sink.aligned_spans, 26);
    const uint64_t two[2] = { 100, 200 };
    check_aligned(path_in("rs.pftrace"), two, 2);
}

static void test_export_rounds_aligned_only_with_the_option(void **state)
{
    NEED_PROTOC();
    build_rounds(path_in("r.wtrace"), 100, 0);
    wt_export_report rep;
    assert_int_equal(export_one(path_in("r.wtrace"), path_in("r.pftrace"), 0, &rep), 0);
    assert_int_equal(rep.sink.aligned_rounds, 0);
    assert_int_equal(rep.sink.aligned_spans, 0);
    decoded *d = decode(path_in("r.pftrace"));
    for (int i = 0; i < d->nt; i++)
        assert_string_not_equal(d->t[i].name, "walltime: rounds at t=0");
    /* by hand: 14 spans, 4 rounds, the run slice; each stage once, so SQL sums are the
     * ledger's: load = the 13 stages of the rounds (setup is its own category) */
    assert_int_equal(d->ns, 14 + 4 + 1);
    int64_t load = 0;
    for (size_t k = 0; k < N_STAGES_W; k++)
        load += stages_w[k].dur;
    assert_int_equal(cat_sum(d, "load"), load);
    free(d);
}

static void test_export_aligned_fast_path_matches_protobuf_c(void **state)
{
    build_rounds(path_in("r.wtrace"), 100, 0);
    wt_export_report rep;
    assert_int_equal(export_opts(path_in("r.wtrace"), path_in("fast.pftrace"), 0, 1, &rep), 0);
    assert_int_equal(rep.sink.aligned_spans, 13);
    assert_int_equal(export_opts(path_in("r.wtrace"), path_in("ref.pftrace"), 1, 1, &rep), 0);
    assert_same_bytes(path_in("fast.pftrace"), path_in("ref.pftrace"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_export_perfetto_every_span_once_as_nested_slice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_perfetto_category_sums_equal_flat_ledger, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_perfetto_tracks_counters_marks_rounds_anomalies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_fast_path_matches_protobuf_c, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_interning_bound_inlines_names_past_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_many_labels_each_span_named, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_several_files_one_process_track_each, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_ranks_of_one_host_named_and_ordered_by_rank, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_damaged_file_exports_readable_part, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_unwritable_output_fails_and_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_no_readable_input_keeps_existing_output, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_empty_trace_is_valid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_hostile_depth_and_overlaps_are_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_rounds_aligned_at_common_origin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_rounds_aligned_only_with_the_option, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_aligned_fast_path_matches_protobuf_c, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
