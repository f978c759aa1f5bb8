/* The reader's span batches (wt_reader_next_spans, and wt_reader_next_records with the counter
 * samples among them) against traces built by hand: a batch holds
 * the plain spans of one thread and one frame in a row, taking the string definitions among
 * them (the first of each id), and stops before anything else (a
 * counter, a mark, a thread switch, a frame boundary, damage, an undefined id, a value the
 * general decoder reads its own way); the array's capacity bounds it; wt_reader_string() names
 * the ids. Reading with batches (and wt_reader_next() whenever a batch is empty) must deliver
 * exactly what wt_reader_next() alone delivers: the same events, values, errors with their
 * offsets, and stats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "encode.h"
#include "format.h"
#include "tracebuild.h"
#include "walltime/reader.h"

#define MAX_ITEMS 4096

/* One thing the reader delivered: an event, a batch's span, or an error (kind -1). */
typedef struct item {
    int kind;
    int batch; /* 0: from wt_reader_next(); else the number of the batch, from 1 */
    uint64_t tid;
    int64_t ts, dur, count, bytes, value;
    uint32_t depth, flags;
    int cached;
    char str[4][48]; /* category, label, name, detail; "" with has[k] 0 for NULL */
    int has[4];
    int64_t err_off;
    char err[512];
} item;

typedef struct readlog {
    item it[MAX_ITEMS];
    int n;
    int sizes[MAX_ITEMS]; /* of each batch */
    int n_batches;
    wt_reader_stats st;
} readlog;

static item *add_item(readlog *l, int kind)
{
    assert_true(l->n < MAX_ITEMS);
    item *it = &l->it[l->n++];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    return it;
}

static void set_str(item *it, int k, const char *s)
{
    it->has[k] = s != NULL;
    snprintf(it->str[k], sizeof it->str[k], "%s", s ? s : "");
}

/* Reads `path` to the end: with batches of `cap` spans when cap > 0 (wt_reader_next() when
 * a batch is empty), with wt_reader_next() alone when cap is 0. `records`: the batches are
 * wt_reader_next_records()'s, counter samples logged as the events they stand for. */
static void read_log(const char *path, size_t cap, int records, readlog *l)
{
    memset(l, 0, sizeof *l);
    wt_reader *r;
    assert_int_equal(wt_reader_open(path, &r), 0);
    wt_span_rec buf[256];
    assert_true(cap <= 256);
    for (;;) {
        uint64_t tid = 0;
        const size_t n = !cap     ? 0
                         : records ? wt_reader_next_records(r, buf, cap, &tid)
                                   : wt_reader_next_spans(r, buf, cap, &tid);
        assert_true(n <= cap);
        if (n > 0) {
            l->sizes[l->n_batches++] = (int)n;
            for (size_t i = 0; i < n; i++) {
                if (buf[i].flags == WT_REC_COUNTER) {
                    item *it = add_item(l, WT_EV_COUNTER);
                    it->batch = l->n_batches;
                    it->tid = tid;
                    it->ts = buf[i].ts;
                    it->value = buf[i].count;
                    it->cached = WT_CACHED_UNKNOWN;
                    assert_int_equal(buf[i].dur | buf[i].bytes | buf[i].category |
                                         buf[i].detail | buf[i].depth | buf[i].cached, 0);
                    set_str(it, 0, NULL);
                    set_str(it, 1, NULL);
                    set_str(it, 2, wt_reader_string(r, buf[i].label));
                    set_str(it, 3, NULL);
                    continue;
                }
                assert_true(records || !(buf[i].flags & WT_REC_COUNTER));
                item *it = add_item(l, WT_EV_SPAN);
                it->batch = l->n_batches;
                it->tid = tid;
                it->ts = buf[i].ts;
                it->dur = buf[i].dur;
                it->count = buf[i].count;
                it->bytes = buf[i].bytes;
                it->depth = buf[i].depth;
                it->flags = buf[i].flags;
                it->cached = buf[i].cached;
                set_str(it, 0, wt_reader_string(r, buf[i].category));
                set_str(it, 1, wt_reader_string(r, buf[i].label));
                set_str(it, 2, NULL);
                set_str(it, 3, wt_reader_string(r, buf[i].detail));
            }
            continue;
        }
        wt_event ev;
        const int rc = wt_reader_next(r, &ev);
        if (rc == 0)
            break;
        if (rc < 0) {
            item *it = add_item(l, -1);
            it->err_off = wt_reader_error_offset(r);
            snprintf(it->err, sizeof it->err, "%s", wt_reader_error(r));
            continue;
        }
        item *it = add_item(l, (int)ev.kind);
        it->tid = ev.tid;
        it->ts = ev.ts;
        it->dur = ev.dur;
        it->count = ev.count;
        it->bytes = ev.bytes;
        it->value = ev.value;
        it->depth = ev.depth;
        it->flags = ev.flags;
        it->cached = (int)ev.cached;
        set_str(it, 0, ev.category);
        set_str(it, 1, ev.label);
        set_str(it, 2, ev.name);
        set_str(it, 3, ev.detail);
    }
    wt_reader_get_stats(r, &l->st);
    wt_reader_free(r);
}

/* Batches and wt_reader_next() together deliver what wt_reader_next() alone does. */
static void assert_same_as_plain(const readlog *b, const readlog *p)
{
    assert_int_equal(b->n, p->n);
    for (int i = 0; i < b->n; i++) {
        const item *x = &b->it[i], *y = &p->it[i];
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->tid, y->tid);
        assert_int_equal(x->ts, y->ts);
        assert_int_equal(x->dur, y->dur);
        assert_int_equal(x->count, y->count);
        assert_int_equal(x->bytes, y->bytes);
        assert_int_equal(x->value, y->value);
        assert_int_equal(x->depth, y->depth);
        assert_int_equal(x->flags, y->flags);
        assert_int_equal(x->cached, y->cached);
        for (int k = 0; k < 4; k++) {
            assert_int_equal(x->has[k], y->has[k]);
            assert_string_equal(x->str[k], y->str[k]);
        }
        assert_int_equal(x->err_off, y->err_off);
        assert_string_equal(x->err, y->err);
    }
    assert_memory_equal(&b->st, &p->st, sizeof b->st);
}

/* Reads `path` the three ways (batches of `cap` spans, of `cap` spans and counter samples)
 * and checks they agree; *b keeps the log of span batches. */
static void read_both(const char *path, size_t cap, readlog *b)
{
    readlog *p = malloc(sizeof *p);
    assert_non_null(p);
    read_log(path, 0, 0, p);
    read_log(path, cap, 1, b);
    assert_same_as_plain(b, p);
    read_log(path, cap, 0, b);
    assert_same_as_plain(b, p);
    free(p);
}

/* The index of the item whose label is `label`, or -1. */
static int find_label(const readlog *l, const char *label)
{
    for (int i = 0; i < l->n; i++)
        if (l->it[i].has[1] && !strcmp(l->it[i].str[1], label))
            return i;
    return -1;
}

static char path_buf[256];

static const char *tmp(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "test_reader_batch_%d_%s.wtrace", (int)getpid(), name);
    return path_buf;
}

/* s0..s4 on thread 1, a counter, s5 s6, a mark, s7, then thread 2: s8 s9, a frame boundary,
 * s10 s11. No batch holds spans of two of those groups; s0..s4 come as one batch. The strings
 * are defined before (metadata): a batch stops before a string's definition too. */
static void test_batch_stops_before_counter_mark_thread_and_frame(void **state)
{
    (void)state;
    const char *path = tmp("stops");
    tb *b = tb_create(path, 7, 0, 0);
    char label[8];
    for (int i = 0; i < 12; i++) { /* the strings first: a batch stops before a definition */
        snprintf(label, sizeof label, "s%d", i);
        tb_meta(b, 1, 10, label, "cat");
    }
    for (int i = 0; i < 12; i++) {
        if (i == 5)
            tb_counter(b, 1, 1000 + 100 * i - 50, "rss", 42);
        if (i == 7)
            tb_mark(b, 1, 1000 + 100 * i - 50, "phase", "warm", NULL);
        if (i == 10)
            tb_frame(b);
        snprintf(label, sizeof label, "s%d", i);
        tb_span(b, i < 8 ? 1 : 2, 1000 + 100 * i, 1000 + 100 * i + 30 + i, 0, "cat", label);
    }
    tb_close(b, TB_END_CLEAN, 5000, 0);

    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 64, l);
    static const int group[12] = { 1, 1, 1, 1, 1, 2, 2, 3, 4, 4, 5, 5 };
    for (int i = 0; i < 12; i++) {
        snprintf(label, sizeof label, "s%d", i);
        const int at = find_label(l, label);
        assert_true(at >= 0);
        const item *it = &l->it[at];
        assert_int_equal(it->ts, 1000 + 100 * i);
        assert_int_equal(it->dur, 30 + i);
        assert_int_equal(it->tid, i < 8 ? 1 : 2);
        assert_string_equal(it->str[0], "cat");
        /* a batch's spans are all of one group */
        for (int j = 0; j < l->n; j++)
            if (it->batch && l->it[j].batch == it->batch) {
                assert_int_equal(l->it[j].kind, WT_EV_SPAN);
                assert_int_equal(group[atoi(l->it[j].str[1] + 1)], group[i]);
            }
    }
    /* the first run, after the meta events: one batch of exactly s0..s4 */
    const int s0 = find_label(l, "s0");
    assert_true(l->it[s0].batch > 0);
    assert_int_equal(l->sizes[l->it[s0].batch - 1], 5);
    assert_int_equal(l->it[s0 + 5].kind, WT_EV_COUNTER);
    assert_int_equal(l->it[s0 + 5].batch, 0);
    assert_int_equal(l->it[s0 + 8].kind, WT_EV_MARK);
    assert_int_equal(l->st.events, 27); /* 12 metas, 12 spans, counter, mark, end */
    free(l);
    unlink(path);
}

/* A run of 10 spans read with capacity 1 and 3: batches of at most that many, in order. */
static void test_batch_capacity_one_and_smaller_than_a_run(void **state)
{
    (void)state;
    const char *path = tmp("cap");
    tb *b = tb_create(path, 7, 0, 0);
    tb_meta(b, 1, 10, "c", "odd");
    tb_meta(b, 1, 11, "even", "v");
    for (int i = 0; i < 10; i++)
        tb_span(b, 1, 100 + 20 * i, 110 + 20 * i, 0, "c", i % 2 ? "odd" : "even");
    tb_close(b, TB_END_CLEAN, 1000, 0);
    const size_t caps[2] = { 1, 3 };
    static const int expect[2][11] = { { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 },
                                       { 3, 3, 3, 1, 0 } };
    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    for (int c = 0; c < 2; c++) {
        read_both(path, caps[c], l);
        assert_int_equal(l->it[0].kind, WT_EV_META);
        assert_int_equal(l->it[1].kind, WT_EV_META);
        for (int k = 0; expect[c][k]; k++) {
            assert_true(k < l->n_batches);
            assert_int_equal(l->sizes[k], expect[c][k]);
        }
        for (int i = 0; i < 10; i++) {
            assert_int_equal(l->it[2 + i].ts, 100 + 20 * i);
            assert_int_equal(l->it[2 + i].dur, 10);
            assert_true(l->it[2 + i].batch > 0);
        }
        assert_int_equal(l->it[12].kind, WT_EV_END);
    }
    free(l);
    unlink(path);
}

/* The index of the span that starts at `ts`, or -1. */
static int find_ts(const readlog *l, int64_t ts)
{
    for (int i = 0; i < l->n; i++)
        if (l->it[i].kind == WT_EV_SPAN && l->it[i].ts == ts)
            return i;
    return -1;
}

/* Three frames of 200 spans, the second damaged in the middle: the batches deliver frames 1
 * and 3, the damage comes from wt_reader_next() with the second frame's offset, between them. */
static void test_batch_damage_reported_with_offset_and_reading_goes_on(void **state)
{
    (void)state;
    const char *path = tmp("damage");
    tb *b = tb_create(path, 7, 0, 0);
    char label[16];
    static const char *const cats[3] = { "f0", "f1", "f2" };
    for (int f = 0; f < 3; f++) {
        for (int i = 0; i < 200; i++) {
            snprintf(label, sizeof label, "l%d", i % 10);
            tb_span(b, 1, 100000 * f + 100 * i, 100000 * f + 100 * i + 50, 1, cats[f], label);
        }
        tb_frame(b);
    }
    tb_close(b, TB_END_CLEAN, 1000000, 0);
    size_t len, at[8];
    unsigned char *d = tb_read_file(path, &len);
    assert_true(tb_frame_starts(d, len, at, 8) >= 3);
    d[at[1] + (at[2] - at[1]) / 2] ^= 0x5A;
    tb_write_file(path, d, len);
    free(d);

    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 128, l);
    int errors = 0, spans = 0, batched = 0, err_at = -1;
    for (int i = 0; i < l->n; i++) {
        if (l->it[i].kind == -1) {
            errors++;
            err_at = i;
            assert_int_equal(l->it[i].err_off, (int64_t)at[1]);
            assert_non_null(strstr(l->it[i].err, "at byte"));
        }
        spans += l->it[i].kind == WT_EV_SPAN;
        batched += l->it[i].batch > 0;
    }
    assert_int_equal(errors, 1);
    assert_int_equal(spans, 400);
    /* not batched: the first span of each intact frame, which wt_reader_next() reads with
     * the frame's THREAD record (string definitions stay in the batches) */
    assert_int_equal(batched, 400 - 2);
    assert_int_equal(find_ts(l, 100000), -1);
    assert_true(find_ts(l, 19900) < err_at && err_at < find_ts(l, 200000));
    assert_string_equal(l->it[find_ts(l, 219900)].str[0], "f2");
    assert_string_equal(l->it[find_ts(l, 219900)].str[1], "l9");
    assert_int_equal(l->it[find_ts(l, 219900)].dur, 50);
    assert_int_equal(l->st.frames_damaged, 1);
    free(l);
    unlink(path);
}

/* Flips two bytes inside the second of at least three frames of `path`: that frame is
 * damaged, with the string definitions it held. */
static void damage_second_frame(const char *path)
{
    size_t len, at[8];
    unsigned char *d = tb_read_file(path, &len);
    assert_true(tb_frame_starts(d, len, at, 8) >= 3);
    d[at[1] + 12] ^= 0xFF;
    d[at[1] + 14] ^= 0xFF;
    tb_write_file(path, d, len);
    free(d);
}

/* Spans whose string definitions were lost with a damaged frame: the batch stops before the
 * first of them, wt_reader_next() reports the unknown id (once) and names it "(unknown string
 * N)"; after that the id has a string and batches take it. */
static void test_batch_undefined_ids_left_to_the_general_path(void **state)
{
    (void)state;
    const char *path = tmp("undefined");
    tb *b = tb_create(path, 1, 0, 0);
    tb_span(b, 1, 100, 200, 0, "cat", "first");
    tb_frame(b);
    tb_span(b, 1, 300, 400, 0, "lost-cat", "lost-label"); /* strings 3 and 4 */
    tb_frame(b);
    tb_span(b, 1, 450, 460, 0, "cat", "before");
    tb_span(b, 1, 470, 480, 0, "cat", "before2");
    for (int i = 0; i < 5; i++)
        tb_span(b, 1, 500 + 10 * i, 505 + 10 * i, 0, "lost-cat", "lost-label");
    tb_close(b, TB_END_CLEAN, 1000, 0);
    damage_second_frame(path);

    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 64, l);
    int errors = 0, unknown = 0;
    for (int i = 0; i < l->n; i++) {
        errors += l->it[i].kind == -1;
        if (l->it[i].kind == WT_EV_SPAN && !strcmp(l->it[i].str[0], "(unknown string 3)")) {
            assert_string_equal(l->it[i].str[1], "(unknown string 4)");
            assert_int_equal(l->it[i].ts, 500 + 10 * unknown);
            unknown++;
        }
    }
    assert_int_equal(unknown, 5);
    assert_int_equal(errors, 2); /* the damaged frame; the unknown ids, once */
    assert_int_equal(l->st.unknown_strings, 1);
    free(l);
    unlink(path);
}

/* Every field of a span through a batch as written (count, bytes, detail, cached, flags,
 * depth), and the spans old recorders wrote out of range (a duration past the clock's start,
 * cached 3) as wt_reader_next() reads them. */
static void test_batch_carries_every_span_field(void **state)
{
    (void)state;
    const char *path = tmp("unusual");
    tb *b = tb_create(path, 1, 0, 0);
    static const char *const strs[8] = { "a", "x", "compile", "elsewhere", "load", "w", "d", "after" };
    for (int i = 0; i < 8; i += 2)
        tb_meta(b, 1, 10, strs[i], strs[i + 1]);
    tb_span(b, 1, 500, 600, 2, "a", "x");
    tb_span_desc longer = { .tid = 1, .start = -5000000000LL, .end = 1000, .category = "compile",
                            .label = "elsewhere", .measured = 1 };
    tb_span_ex(b, &longer);
    tb_span_desc full = { .tid = 1, .start = 1050, .end = 1090, .category = "load",
                          .label = "w", .detail = "d", .cached = WT_CACHED_HIT, .count = 3,
                          .bytes = -7, .unclosed = 1 };
    tb_span_ex(b, &full);
    tb_span_desc cached3 = { .tid = 1, .start = 1100, .end = 1200, .category = "load",
                             .label = "w", .cached = (wt_cached)3 };
    tb_span_ex(b, &cached3);
    tb_span(b, 1, 1300, 1400, 0, "after", "x");
    tb_close(b, TB_END_CLEAN, 2000, 0);

    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 64, l);
    assert_int_equal(l->n, 10); /* 4 metas, 5 spans, the end */
    const item *const it = &l->it[4];
    assert_true(it[0].batch > 0);
    assert_int_equal(it[0].depth, 2);
    /* the long one (today's encoder writes it as starting at 0: batched or not, it reads so) */
    assert_int_equal(it[1].ts, 0);
    assert_int_equal(it[1].dur, 1000);
    assert_int_equal(it[1].flags, WT_EVF_MEASURED);
    assert_true(it[2].batch > 0);
    assert_int_equal(it[2].ts, 1050);
    assert_int_equal(it[2].dur, 40);
    assert_int_equal(it[2].count, 3);
    assert_int_equal(it[2].bytes, -7);
    assert_int_equal(it[2].cached, WT_CACHED_HIT);
    assert_int_equal(it[2].flags, WT_EVF_UNCLOSED);
    assert_string_equal(it[2].str[3], "d");
    assert_int_equal(it[3].cached, WT_CACHED_UNKNOWN);
    assert_true(it[4].batch > 0);
    assert_string_equal(it[4].str[0], "after");
    free(l);
    unlink(path);
}

/* A frame of `n` spans on thread 1 with varied fields: durations of 1 to 5 varint bytes
 * (varied_durs), depths, counts, bytes, details, cached; span i + 1 starts 1 ns after span i
 * ends, the first at 1000. */
static const int64_t varied_durs[5] = { 3, 300, 70000, 9000000, 2000000000 };

static void write_varied(const char *path, int n)
{
    tb *b = tb_create(path, 1, 0, 0);
    int64_t t = 1000;
    for (int i = 0; i < n; i++) {
        tb_span_desc s = { .tid = 1, .start = t, .end = t + varied_durs[i % 5],
                           .depth = (uint32_t)(i % 7), .category = i % 3 ? "io" : "compute",
                           .label = i % 2 ? "a" : "b", .detail = i % 11 ? NULL : "det",
                           .count = i % 4, .bytes = (i % 5) * 1000, .cached = (wt_cached)(i % 3) };
        tb_span_ex(b, &s);
        t += varied_durs[i % 5] + 1;
    }
    tb_close(b, TB_END_CLEAN, t + 10, 0);
}

/* A frame of 3,000 spans of varied sizes (durations of 1 to 5 varint bytes, counts, bytes,
 * details, depths): read both with the unchecked reads and, near the frame's end, the
 * checked ones; every span but those right after a string's definition in batches. */
static void test_batch_long_frame_with_varied_records(void **state)
{
    (void)state;
    const char *path = tmp("long");
    write_varied(path, 3000);
    const int64_t *const durs = varied_durs;
    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 100, l);
    int batched = 0;
    int64_t t = 1000;
    for (int i = 0; i < 3000; i++) {
        const item *it = &l->it[i];
        assert_int_equal(it->ts, t);
        assert_int_equal(it->dur, durs[i % 5]);
        assert_int_equal(it->depth, i % 7);
        assert_int_equal(it->count, i % 4 ? i % 4 : 1);
        assert_int_equal(it->bytes, (i % 5) * 1000);
        batched += it->batch > 0;
        t += durs[i % 5] + 1;
    }
    assert_int_equal(batched, 2999); /* span 0 comes with the frame's THREAD record */
    free(l);
    unlink(path);
}

/* wt_reader_string() on ids it has no string for, and the batch call's own guards. */
static void test_batch_string_by_id_on_bad_ids(void **state)
{
    (void)state;
    const char *path = tmp("ids");
    tb *b = tb_create(path, 1, 0, 0);
    tb_meta(b, 1, 10, "cat", "lab");
    tb_span(b, 1, 100, 200, 0, "cat", "lab");
    tb_span(b, 1, 300, 400, 0, "cat", "lab");
    tb_close(b, TB_END_CLEAN, 1000, 0);
    wt_reader *r;
    assert_int_equal(wt_reader_open(path, &r), 0);
    wt_span_rec buf[4];
    uint64_t tid = 99;
    assert_int_equal(wt_reader_next_spans(r, buf, 4, &tid), 0); /* not in a frame yet */
    assert_int_equal(tid, 99);
    wt_event ev;
    assert_int_equal(wt_reader_next(r, &ev), 1); /* the meta */
    assert_int_equal(wt_reader_next_spans(r, buf, 0, &tid), 0);
    assert_int_equal(wt_reader_next_spans(r, NULL, 4, &tid), 0);
    assert_int_equal(wt_reader_next_spans(NULL, buf, 4, &tid), 0);
    assert_int_equal(wt_reader_next_spans(r, buf, 4, &tid), 2);
    assert_int_equal(tid, 1);
    assert_string_equal(wt_reader_string(r, buf[0].category), "cat");
    assert_string_equal(wt_reader_string(r, buf[1].label), "lab");
    assert_null(wt_reader_string(r, buf[0].detail)); /* id 0 */
    assert_null(wt_reader_string(r, 0));
    assert_null(wt_reader_string(r, 200));        /* within the table, never defined */
    assert_null(wt_reader_string(r, 1u << 30));   /* past the table */
    assert_null(wt_reader_string(r, UINT32_MAX));
    assert_null(wt_reader_string(NULL, 1));
    assert_int_equal(wt_reader_string_epoch(r), 0);
    assert_int_equal(wt_reader_string_epoch(NULL), 0);
    assert_int_equal(wt_reader_next(r, &ev), 1);
    assert_int_equal(ev.kind, WT_EV_END);
    assert_int_equal(wt_reader_next_spans(r, buf, 4, &tid), 0);
    assert_int_equal(wt_reader_next(r, &ev), 0);
    assert_int_equal(wt_reader_next_spans(r, buf, 4, &tid), 0); /* after the end */
    wt_reader_free(r);
    unlink(path);
}

/* Reads r's file to its end with batches of 100 in lean mode: each batched span's duration,
 * depth and category must equal the plain reading's item at its place, and every other field
 * must still hold the 0xA5 bytes the buffer was filled with. Returns the spans batched. */
static int read_lean_against(wt_reader *r, const readlog *plain)
{
    wt_span_rec buf[100], fill;
    memset(&fill, 0xA5, sizeof fill);
    int at = 0, batched = 0;
    for (;;) {
        for (size_t i = 0; i < 100; i++)
            buf[i] = fill;
        uint64_t tid = 0;
        const size_t n = wt_reader_next_spans(r, buf, 100, &tid);
        for (size_t i = 0; i < n; i++, at++) {
            const item *y = &plain->it[at];
            assert_int_equal(y->kind, WT_EV_SPAN);
            assert_int_equal(tid, y->tid);
            assert_int_equal(buf[i].dur, y->dur);
            assert_int_equal(buf[i].depth, y->depth);
            assert_string_equal(wt_reader_string(r, buf[i].category), y->str[0]);
            assert_memory_equal(&buf[i].ts, &fill.ts, sizeof fill.ts);
            assert_memory_equal(&buf[i].count, &fill.count, sizeof fill.count);
            assert_memory_equal(&buf[i].bytes, &fill.bytes, sizeof fill.bytes);
            assert_memory_equal(&buf[i].label, &fill.label, sizeof fill.label);
            assert_memory_equal(&buf[i].detail, &fill.detail, sizeof fill.detail);
            assert_memory_equal(&buf[i].flags, &fill.flags, sizeof fill.flags);
            assert_memory_equal(&buf[i].cached, &fill.cached, sizeof fill.cached);
        }
        batched += (int)n;
        if (n)
            continue;
        wt_event ev;
        const int rc = wt_reader_next(r, &ev);
        if (rc == 0)
            break;
        assert_true(rc > 0);
        assert_int_equal((int)ev.kind, plain->it[at].kind);
        assert_int_equal(ev.dur, plain->it[at].dur);
        at++;
    }
    assert_int_equal(at, plain->n);
    return batched;
}

/* wt_reader_span_fields(): with WT_SPANF_LEAN's fields asked for, a batch stores only those
 * and takes the same spans (2,998 of 3,000 of the varied frame, as with every field); the
 * choice outlives a reopen; asking for one field more fills every field again. */
static void test_batch_lean_fields(void **state)
{
    (void)state;
    const char *path = tmp("lean");
    write_varied(path, 3000);
    readlog *p = malloc(sizeof *p);
    assert_non_null(p);
    read_log(path, 0, 0, p);
    wt_reader *r;
    assert_int_equal(wt_reader_open(path, &r), 0);
    wt_reader_span_fields(r, WT_SPANF_LEAN);
    assert_int_equal(read_lean_against(r, p), 2999);
    wt_reader_stats st;
    wt_reader_get_stats(r, &st);
    assert_memory_equal(&st, &p->st, sizeof st);
    assert_int_equal(wt_reader_reopen(r, path), 0);
    assert_int_equal(read_lean_against(r, p), 2999); /* kept across the reopen */

    assert_int_equal(wt_reader_reopen(r, path), 0);
    wt_reader_span_fields(r, WT_SPANF_LEAN | WT_SPANF_TS);
    wt_span_rec buf[4];
    memset(buf, 0xA5, sizeof buf);
    uint64_t tid;
    size_t n;
    int at = 0;
    wt_event ev;
    while ((n = wt_reader_next_spans(r, buf, 4, &tid)) == 0) {
        assert_int_equal(wt_reader_next(r, &ev), 1);
        at++;
    }
    assert_int_equal(n, 4);
    for (int i = 0; i < 4; i++) { /* every field again */
        const item *y = &p->it[at + i];
        assert_int_equal(buf[i].ts, y->ts);
        assert_int_equal(buf[i].count, y->count);
        assert_int_equal(buf[i].bytes, y->bytes);
        assert_int_equal(buf[i].flags, y->flags);
        assert_int_equal(buf[i].cached, y->cached);
        assert_string_equal(wt_reader_string(r, buf[i].label), y->str[1]);
    }
    wt_reader_span_fields(NULL, WT_SPANF_LEAN); /* does nothing */
    wt_reader_free(r);
    free(p);
    unlink(path);
}

/* Spans whose ids come after an id whose definition was lost still come in batches (ids past
 * the first undefined one are checked slot by slot): strings 1 and 2 defined, string 3 lost
 * with a damaged frame, strings 4 and 5 defined after it; ten spans of 1/2 and 4/5 are one
 * batch, read as wt_reader_next() reads them. */
static void test_batch_ids_past_a_lost_definition(void **state)
{
    (void)state;
    const char *path = tmp("gap");
    tb *b = tb_create(path, 1, 0, 0);
    tb_span(b, 1, 100, 200, 0, "cat", "lab");
    tb_frame(b);
    tb_span(b, 1, 300, 400, 0, "gone", "lab"); /* string 3 */
    tb_frame(b);
    tb_meta(b, 1, 410, "late-cat", "late-lab"); /* strings 4 and 5 */
    for (int i = 0; i < 10; i++)
        tb_span(b, 1, 500 + 10 * i, 505 + 10 * i, 0, i % 2 ? "late-cat" : "cat",
                i % 2 ? "late-lab" : "lab");
    tb_close(b, TB_END_CLEAN, 1000, 0);
    damage_second_frame(path);

    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 64, l);
    const int k = find_label(l, "late-lab");
    assert_true(k > 0);
    assert_int_equal(l->it[k - 1].ts, 500);
    assert_true(l->it[k - 1].batch > 0);
    assert_int_equal(l->sizes[l->it[k - 1].batch - 1], 10);
    assert_string_equal(l->it[k].str[0], "late-cat");
    free(l);
    unlink(path);
}

/* Every span a label of its own (one per request, per tensor shard): each span's STRING
 * record comes right before it, and the batches take the definitions as they go, so every
 * span but the frame's first (read with its THREAD record) is batched, each named right. A
 * definition of an id already known (a repeated frame's) is left to wt_reader_next(): the
 * batch stops before it, and the span after it comes from wt_reader_next(). */
static void test_batch_takes_string_definitions(void **state)
{
    (void)state;
    const char *path = tmp("uniq");
    tb *b = tb_create(path, 1, 0, 0);
    char label[16];
    for (int i = 0; i < 200; i++) {
        if (i == 150)
            tb_redefine(b, "u7");
        snprintf(label, sizeof label, "u%d", i);
        tb_span(b, 1, 100 * i, 100 * i + 50, 0, "weights", label);
    }
    tb_close(b, TB_END_CLEAN, 100000, 0);
    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 64, l);
    int batched = 0, spans = 0;
    for (int i = 0; i < l->n; i++) {
        if (l->it[i].kind != WT_EV_SPAN)
            continue;
        snprintf(label, sizeof label, "u%d", spans);
        assert_string_equal(l->it[i].str[1], label);
        assert_string_equal(l->it[i].str[0], "weights");
        assert_int_equal(l->it[i].ts, 100 * spans);
        assert_int_equal(l->it[i].batch > 0, spans != 0 && spans != 150);
        batched += l->it[i].batch > 0;
        spans++;
    }
    assert_int_equal(spans, 200);
    assert_int_equal(batched, 198);
    assert_int_equal(l->st.strings, 201); /* "weights" and 200 labels, the repeat not counted */
    free(l);
    unlink(path);
}

/* A string whose definition was lost with a damaged frame reads as "(unknown string 3)" until
 * it is defined again; a batch must not take that definition: the spans it holds before it
 * would then be named by the new string (wt_reader_string() is asked after the batch). */
static void test_batch_stops_before_a_lost_string_defined_again(void **state)
{
    (void)state;
    const char *path = tmp("again");
    tb *b = tb_create(path, 1, 0, 0);
    tb_span(b, 1, 100, 200, 0, "cat", "lab");
    tb_frame(b);
    tb_span(b, 1, 300, 400, 0, "cat", "gone"); /* string 3, lost with this frame */
    tb_frame(b);
    for (int i = 0; i < 8; i++) {
        if (i == 4)
            tb_redefine(b, "gone");
        tb_span(b, 1, 500 + 10 * i, 505 + 10 * i, 0, "cat", "gone");
    }
    tb_close(b, TB_END_CLEAN, 1000, 0);
    damage_second_frame(path);

    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 64, l);
    int spans = 0;
    for (int i = 0; i < l->n; i++) {
        if (l->it[i].kind != WT_EV_SPAN || l->it[i].ts < 500)
            continue;
        assert_string_equal(l->it[i].str[1], spans < 4 ? "(unknown string 3)" : "gone");
        spans++;
    }
    assert_int_equal(spans, 8);
    free(l);
    unlink(path);
}

/* ---- varints of every length, and those that do not parse ---------------------------- */

/* v as a varint of exactly `len` bytes (1..10; a shorter value padded with continuation
 * bytes, which the format accepts) at r + n; returns the new n. */
static size_t put_padded(uint8_t *r, size_t n, uint64_t v, int len)
{
    for (int i = 0; i < len - 1; i++, v >>= 7)
        r[n++] = (uint8_t)(0x80 | (v & 0x7f));
    assert_true(v < 0x80); /* the value fits */
    r[n++] = (uint8_t)v;
    return n;
}

/* A trace of one header and raw frames of hand-made records: the header comes from a trace
 * built with no record. */
static void write_frames(const char *path, const uint8_t *const *recs, const size_t *lens,
                         int n_frames)
{
    tb *b = tb_create(path, 3, 0, 0);
    tb_close(b, TB_END_NONE, 0, 0);
    size_t hlen, at[2];
    unsigned char *h = tb_read_file(path, &hlen);
    if (tb_frame_starts(h, hlen, at, 2) > 0)
        hlen = at[0];
    size_t cap = hlen;
    for (int f = 0; f < n_frames; f++)
        cap += WT__FRAME_RAW_BOUND(lens[f]);
    unsigned char *file = malloc(cap);
    assert_non_null(file);
    memcpy(file, h, hlen);
    size_t len = hlen;
    for (int f = 0; f < n_frames; f++) {
        const size_t w = wt__frame_raw(file + len, cap - len, recs[f], lens[f]);
        assert_true(w > 0);
        len += w;
    }
    tb_write_file(path, file, len);
    free(file);
    free(h);
}

/* Strings 1 "c", 2 "l", 3 "d", then thread 5 at base 1000 and a span ending at 1010. */
static size_t frame_start(uint8_t *r, int strings)
{
    size_t n = 0;
    if (strings) {
        static const uint8_t defs[] = { 0x01, 1, 1, 'c', 0x01, 2, 1, 'l', 0x01, 3, 1, 'd' };
        memcpy(r, defs, sizeof defs);
        n = sizeof defs;
    }
    static const uint8_t head[] = { 0x02, 5, 0xE8, 0x07, /* thread 5, base 1000 */
                                    0x03, 0, 10, 5, 0, 1, 2 }; /* end 1010, dur 5 */
    memcpy(r + n, head, sizeof head);
    return n + sizeof head;
}

/* A span with count, bytes and detail whose eight varints are all `len` bytes long: ends
 * 10 + len after the previous, lasts len, depth len % 4, count len + 1, bytes -len. */
static size_t padded_span(uint8_t *r, size_t n, int len)
{
    r[n++] = 0x03;
    r[n++] = 0x1D; /* count, bytes, detail; cached 1 */
    n = put_padded(r, n, 10 + (uint64_t)len, len);
    n = put_padded(r, n, (uint64_t)len, len);
    n = put_padded(r, n, (uint64_t)(len % 4), len);
    n = put_padded(r, n, 1, len);
    n = put_padded(r, n, 2, len);
    n = put_padded(r, n, 2 * ((uint64_t)len + 1), len); /* zigzag of len + 1 */
    n = put_padded(r, n, 2 * (uint64_t)len - 1, len);   /* zigzag of -len */
    return put_padded(r, n, 3, len);
}

/* The values of padded_span(len) after a span ending at `end`; returns its end. */
static int64_t check_padded(const item *it, int64_t end, int len)
{
    end += 10 + len;
    assert_int_equal(it->kind, WT_EV_SPAN);
    assert_int_equal(it->ts, end - len);
    assert_int_equal(it->dur, len);
    assert_int_equal(it->depth, len % 4);
    assert_int_equal(it->count, len + 1);
    assert_int_equal(it->bytes, -len);
    assert_int_equal(it->cached, 1);
    assert_string_equal(it->str[0], "c");
    assert_string_equal(it->str[1], "l");
    assert_string_equal(it->str[3], "d");
    return end;
}

/* Two spans of long values after one ending at `end`: ending 2^60 ns later and lasting 2^35
 * ns, with a count of 2^40 and 123456789012 bytes; then one ending 7 ns later and lasting 2,
 * whose count and bytes are zigzags of 2^64 - 1 (10 bytes each): INT64_MIN, a count read as
 * 1. */
static size_t long_spans(uint8_t *r, size_t n)
{
    r[n++] = 0x03;
    r[n++] = 0x0C;
    n += wt__put_varint(r + n, 1ull << 60);
    n += wt__put_varint(r + n, 1ull << 35);
    r[n++] = 0;
    r[n++] = 1;
    r[n++] = 2;
    n += wt__put_varint(r + n, 2ull << 40);
    n += wt__put_varint(r + n, 2ull * 123456789012ull);
    static const uint8_t last[] = { 0x03, 0x0C, 7, 2, 0, 1, 2 };
    memcpy(r + n, last, sizeof last);
    n += sizeof last;
    n += wt__put_varint(r + n, UINT64_MAX);
    return n + wt__put_varint(r + n, UINT64_MAX);
}

static int64_t check_long(const item *it, int64_t end)
{
    end += (int64_t)1 << 60;
    assert_int_equal(it[0].ts, end - ((int64_t)1 << 35));
    assert_int_equal(it[0].dur, (int64_t)1 << 35);
    assert_int_equal(it[0].count, (int64_t)1 << 40);
    assert_int_equal(it[0].bytes, 123456789012);
    assert_true(it[0].batch > 0);
    assert_int_equal(it[1].ts, end + 7 - 2);
    assert_int_equal(it[1].count, 1);
    assert_int_equal(it[1].bytes, INT64_MIN);
    assert_int_equal(it[1].batch, 0); /* its count could be a varint that does not parse */
    return end + 7;
}

/* 14 spans of 7 bytes: 98 bytes, so that the records before them are read without end
 * checks. */
static size_t plain_spans(uint8_t *r, size_t n)
{
    static const uint8_t plain[] = { 0x03, 0, 1, 1, 0, 1, 2 };
    for (int i = 0; i < 14; i++, n += sizeof plain)
        memcpy(r + n, plain, sizeof plain);
    return n;
}

/* Varints of 1 to 10 bytes in each field of a span and long values (2^60 ns, a count of 2^40,
 * 123456789012 bytes, zigzags of 2^64 - 1), read where a span may be read without end checks
 * (more than 82 bytes of the frame left: frames 0 and 3) and where not (a frame's last 82
 * bytes: frame 1; a frame shorter than that: frame 2). Batches take them and give what
 * wt_reader_next() gives, values checked by hand. */
static void test_batch_varints_of_every_length(void **state)
{
    (void)state;
    static uint8_t r[4][1024];
    size_t n[4];
    for (int f = 0; f < 4; f++)
        n[f] = frame_start(r[f], f == 0);
    for (int len = 1; len <= 10; len++) {
        n[0] = padded_span(r[0], n[0], len);
        n[1] = padded_span(r[1], n[1], len);
    }
    n[0] = plain_spans(r[0], n[0]);
    n[1] = long_spans(r[1], n[1]);
    n[2] = padded_span(r[2], n[2], 3);
    assert_true(n[2] < 82);
    n[3] = plain_spans(r[3], long_spans(r[3], n[3]));
    const uint8_t *const recs[4] = { r[0], r[1], r[2], r[3] };
    const char *path = tmp("varints");
    write_frames(path, recs, n, 4);

    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 256, l);
    assert_int_equal(l->n, (1 + 10 + 14) + (1 + 10 + 2) + (1 + 1) + (1 + 2 + 14));
    int k = 0;
    for (int f = 0; f < 4; f++) {
        int64_t end = 1010;
        assert_int_equal(l->it[k].ts, 1005); /* each frame's first span: wt_reader_next() */
        k++;
        for (int len = 1; len <= 10 && f != 3; len++) {
            if (f == 2 && len != 3)
                continue;
            end = check_padded(&l->it[k], end, len);
            assert_true(l->it[k].batch > 0);
            k++;
        }
        if (f == 1 || f == 3) {
            end = check_long(&l->it[k], end);
            k += 2;
        }
        for (int i = 0; (f == 0 || f == 3) && i < 14; i++, k++) {
            assert_int_equal(l->it[k].ts, end + i);
            assert_int_equal(l->it[k].dur, 1);
            assert_true(l->it[k].batch > 0);
        }
    }
    assert_int_equal(l->st.errors, 0);
    free(l);
    unlink(path);
}

/* Varints that do not parse, where a batch reads them unchecked and checked: more than 64 bits
 * (a tenth byte of 2) in a span's bytes, 11 bytes in a duration, a tenth byte of 2 in a count
 * and in a counter's value. Each ends its frame with the error wt_reader_next() reports, at
 * the record's offset (by hand), and the spans before it come in batches. */
static void test_batch_varints_that_do_not_parse(void **state)
{
    (void)state;
    static const uint8_t bad65[10] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2 };
    static const uint8_t bad11[11] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                       0 };
    static uint8_t r[4][512];
    size_t n[4], bad_at[4];
    for (int f = 0; f < 4; f++) {
        n[f] = frame_start(r[f], f == 0);
        for (int i = 0; i < 3; i++)
            n[f] = padded_span(r[f], n[f], 2);
        bad_at[f] = n[f];
        uint8_t *const p = r[f];
        if (f < 3) {
            p[n[f]++] = 0x03;
            p[n[f]++] = f == 2 ? 0x04 : 0x08; /* a count, or bytes */
            p[n[f]++] = 1;
            if (f == 1) {
                memcpy(p + n[f], bad11, sizeof bad11); /* the duration */
                n[f] += sizeof bad11;
            } else {
                p[n[f]++] = 1;
            }
            p[n[f]++] = 0;
            p[n[f]++] = 1;
            p[n[f]++] = 2;
            if (f != 1) {
                memcpy(p + n[f], bad65, sizeof bad65);
                n[f] += sizeof bad65;
            }
        } else {
            p[n[f]++] = 0x04; /* a counter: delta 1, name 1, the value */
            p[n[f]++] = 1;
            p[n[f]++] = 1;
            memcpy(p + n[f], bad65, sizeof bad65);
            n[f] += sizeof bad65;
        }
        /* frames 0, 1: 100 bytes after the bad record (read unchecked); 2, 3: none */
        for (int i = 0; f < 2 && i < 100; i++)
            p[n[f]++] = 0; /* never read: the frame ends at the bad record */
    }
    const uint8_t *const recs[4] = { r[0], r[1], r[2], r[3] };
    const char *path = tmp("badvarints");
    write_frames(path, recs, n, 4);
    size_t flen, at[8];
    unsigned char *d = tb_read_file(path, &flen);
    assert_int_equal(tb_frame_starts(d, flen, at, 8), 4);
    free(d);

    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 256, l);
    int errors = 0, k = 0;
    for (int f = 0; f < 4; f++) {
        assert_int_equal(l->it[k++].ts, 1005);
        int64_t end = 1010;
        for (int i = 0; i < 3; i++, k++) {
            end = check_padded(&l->it[k], end, 2);
            assert_true(l->it[k].batch > 0);
        }
        assert_int_equal(l->it[k].kind, -1);
        assert_int_equal(l->it[k].err_off, (int64_t)at[f]);
        char want[96];
        snprintf(want, sizeof want, "record at +%zu: %s record does not parse", bad_at[f],
                 f < 3 ? "span" : "event");
        assert_non_null(strstr(l->it[k].err, want));
        errors++;
        k++;
    }
    assert_int_equal(l->n, k);
    assert_int_equal(l->st.errors, errors);
    assert_int_equal(l->st.frames_damaged, 4);
    free(l);
    unlink(path);
}

/* The string table's last id (its size, 256 at first) in batches like any other: a recorder
 * past its 4 Mi strings names every later string by its 4 Mi-th, so that a trace's last spans
 * all carry that id. Strings 1 ("c") to 256 ("l255"), then 40 spans of "l255". */
static void test_batch_takes_the_tables_last_id(void **state)
{
    (void)state;
    const char *path = tmp("lastid");
    tb *b = tb_create(path, 1, 0, 0);
    char label[8];
    for (int i = 1; i <= 255; i++) {
        snprintf(label, sizeof label, "l%d", i);
        tb_span(b, 1, 1000 + 10 * i, 1005 + 10 * i, 0, "c", label);
    }
    for (int i = 0; i < 40; i++)
        tb_span(b, 1, 5000 + 10 * i, 5003 + 10 * i, 0, "c", "l255");
    tb_close(b, TB_END_CLEAN, 9000, 0);
    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 64, l);
    assert_int_equal(l->n, 255 + 40 + 1);
    for (int i = 255; i < 295; i++) {
        assert_int_equal(l->it[i].ts, 5000 + 10 * (i - 255));
        assert_string_equal(l->it[i].str[1], "l255");
        assert_true(l->it[i].batch > 0);
    }
    wt_reader *r;
    assert_int_equal(wt_reader_open(path, &r), 0);
    wt_event ev;
    while (wt_reader_next(r, &ev) == 1)
        ;
    assert_string_equal(wt_reader_string(r, 256), "l255"); /* the id is the table's last */
    assert_null(wt_reader_string(r, 257));
    wt_reader_free(r);
    free(l);
    unlink(path);
}

/* Spans of ids 0 (no category, no label) in a file that defines no string at all: the batch
 * path had no table to look in (NULL) and read its slot 0 through it, a crash the fuzzer
 * found. They go to the general path, as every span whose ids are not all defined. */
static void test_batch_spans_before_any_string(void **state)
{
    (void)state;
    const char *path = tmp("nostrings");
    uint8_t rec[128];
    static const uint8_t head[] = { 0x02, 5, 0xE8, 0x07 }; /* thread 5, base 1000 */
    size_t n = sizeof head;
    memcpy(rec, head, n);
    for (int i = 0; i < 12; i++) {
        static const uint8_t span[] = { 0x03, 0, 10, 5, 0, 0, 0 }; /* end +10, dur 5, ids 0 */
        memcpy(rec + n, span, sizeof span);
        n += sizeof span;
    }
    const uint8_t *recs[1] = { rec };
    const size_t lens[1] = { n };
    write_frames(path, recs, lens, 1);
    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 8, l);
    assert_int_equal(l->n_batches, 0); /* nothing came by batch */
    assert_true(l->n >= 12);
    free(l);
    unlink(path);
}

/* ---- batches of spans and counter samples (wt_reader_next_records) --------------------- */

/* A trace like test_batch_stops_before_counter_mark_thread_and_frame's through
 * wt_reader_next_records(): s0..s4, the counter and s5 s6 are one batch (it stops before the
 * mark), the counter as written; asking for lean span fields changes nothing. */
static void test_records_take_counters_among_spans(void **state)
{
    (void)state;
    const char *path = tmp("records");
    tb *b = tb_create(path, 7, 0, 0);
    char label[8];
    for (int i = 0; i < 8; i++) {
        snprintf(label, sizeof label, "s%d", i);
        tb_meta(b, 1, 10, label, "cat");
    }
    tb_meta(b, 1, 10, "rss", "cat");
    for (int i = 0; i < 8; i++) {
        if (i == 5)
            tb_counter(b, 1, 1450, "rss", -42);
        if (i == 7)
            tb_mark(b, 1, 1650, "phase", "warm", NULL);
        snprintf(label, sizeof label, "s%d", i);
        tb_span(b, 1, 1000 + 100 * i, 1000 + 100 * i + 30 + i, 0, "cat", label);
    }
    tb_close(b, TB_END_CLEAN, 5000, 0);
    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 64, l);
    for (int lean = 0; lean < 2; lean++) {
        memset(l, 0, sizeof *l);
        wt_reader *r;
        assert_int_equal(wt_reader_open(path, &r), 0);
        if (lean)
            wt_reader_span_fields(r, WT_SPANF_LEAN);
        wt_span_rec buf[64];
        uint64_t tid = 0;
        size_t n;
        wt_event ev;
        int events = 0;
        while ((n = wt_reader_next_records(r, buf, 64, &tid)) == 0) {
            assert_int_equal(wt_reader_next(r, &ev), 1);
            events++;
        }
        assert_int_equal(events, 9); /* the metas */
        assert_int_equal(n, 8);
        assert_int_equal(tid, 1);
        for (int i = 0, s = 0; i < 8; i++) {
            if (i == 5) {
                assert_int_equal(buf[i].flags, WT_REC_COUNTER);
                assert_int_equal(buf[i].ts, 1450);
                assert_int_equal(buf[i].count, -42);
                assert_string_equal(wt_reader_string(r, buf[i].label), "rss");
                continue;
            }
            snprintf(label, sizeof label, "s%d", s & 7);
            assert_int_equal(buf[i].flags, 0);
            assert_int_equal(buf[i].ts, 1000 + 100 * s);
            assert_int_equal(buf[i].dur, 30 + s);
            assert_int_equal(buf[i].count, 1);
            assert_string_equal(wt_reader_string(r, buf[i].label), label);
            assert_string_equal(wt_reader_string(r, buf[i].category), "cat");
            s++;
        }
        assert_int_equal(wt_reader_next_records(r, buf, 64, &tid), 0); /* the mark */
        assert_int_equal(wt_reader_next(r, &ev), 1);
        assert_int_equal(ev.kind, WT_EV_MARK);
        assert_int_equal(wt_reader_next_records(r, buf, 64, &tid), 1);
        assert_int_equal(buf[0].ts, 1700);
        assert_int_equal(wt_reader_next_records(NULL, buf, 64, &tid), 0);
        assert_int_equal(wt_reader_next_records(r, NULL, 64, &tid), 0);
        wt_reader_free(r);
    }
    free(l);
    unlink(path);
}

/* A counter sample whose three varints are all `len` bytes long: 10 + len ns after the
 * previous record, name `name`, value -len. */
static size_t padded_counter(uint8_t *r, size_t n, int len, uint64_t name)
{
    r[n++] = 0x04;
    n = put_padded(r, n, 10 + (uint64_t)len, len);
    n = put_padded(r, n, name, len);
    return put_padded(r, n, 2 * (uint64_t)len - 1, len); /* zigzag of -len */
}

/* Counter samples of varints of 1 to 10 bytes, read without end checks (frame 0: more than 82
 * bytes after them) and with them (frame 1: at its end), by hand; then a value of 2^64 - 1
 * (zigzag of INT64_MIN, 10 bytes: the batch leaves it to wt_reader_next(), which reads it),
 * a name never defined (wt_reader_next() names it and reports it) and a time out of range
 * (dropped alone, counted). Batches of spans and samples give what wt_reader_next() gives. */
static void test_records_counter_varints_of_every_length(void **state)
{
    (void)state;
    static uint8_t r[2][1024];
    size_t n[2];
    for (int f = 0; f < 2; f++) {
        n[f] = frame_start(r[f], f == 0);
        for (int len = 1; len <= 10; len++)
            n[f] = padded_counter(r[f], n[f], len, 1 + (uint64_t)len % 3);
    }
    n[0] = plain_spans(r[0], n[0]);
    uint8_t *const p = r[1];
    p[n[1]++] = 0x04; /* 7 ns on, name 2, the value 2^64 - 1 */
    p[n[1]++] = 7;
    p[n[1]++] = 2;
    n[1] += wt__put_varint(p + n[1], UINT64_MAX);
    static const uint8_t undefined[] = { 0x04, 1, 9, 4 };    /* name 9: never defined */
    static const uint8_t too_late[] = { 0x04, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                        0x7f, 1, 2 };        /* 2^63 - 1 ns on */
    memcpy(p + n[1], undefined, sizeof undefined);
    n[1] += sizeof undefined;
    memcpy(p + n[1], too_late, sizeof too_late);
    n[1] += sizeof too_late;
    const uint8_t *const recs[2] = { r[0], r[1] };
    const char *path = tmp("countervarints");
    write_frames(path, recs, n, 2);

    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 256, l);
    read_log(path, 256, 1, l);
    static const char *const names[3] = { "c", "l", "d" };
    int k = 0;
    int64_t end = 1010;
    for (int f = 0; f < 2; f++) {
        end = 1010;
        assert_int_equal(l->it[k++].ts, 1005); /* each frame's first span: wt_reader_next() */
        for (int len = 1; len <= 10; len++, k++) {
            end += 10 + len;
            const item *it = &l->it[k];
            assert_int_equal(it->kind, WT_EV_COUNTER);
            assert_true(it->batch > 0);
            assert_int_equal(it->ts, end);
            assert_int_equal(it->value, -len);
            assert_string_equal(it->str[2], names[len % 3]);
        }
        for (int i = 0; f == 0 && i < 14; i++, k++) {
            assert_int_equal(l->it[k].kind, WT_EV_SPAN);
            assert_int_equal(l->it[k].ts, end + i);
            assert_true(l->it[k].batch > 0);
        }
    }
    assert_int_equal(l->it[k].kind, WT_EV_COUNTER);
    assert_int_equal(l->it[k].batch, 0);
    assert_int_equal(l->it[k].ts, end + 7);
    assert_int_equal(l->it[k].value, INT64_MIN);
    k++;
    assert_int_equal(l->it[k].batch, 0);
    assert_string_equal(l->it[k].str[2], "(unknown string 9)");
    assert_int_equal(l->it[k].value, 2);
    k++;
    assert_int_equal(l->it[k].kind, -1);
    assert_non_null(strstr(l->it[k].err, "string 9 was never defined"));
    k++;
    /* the time out of range: dropped alone, counted (the frame's first problem was said) */
    assert_int_equal(l->n, k);
    assert_int_equal(l->st.records_skipped, 1);
    free(l);
    unlink(path);
}

/* 40 frames of 50 spans: more than the read-ahead queue holds, so that (in the ctest run with
 * WALLTIME_READER_THREAD=1) the helper fills the queue, sleeps until the reader has emptied
 * it, and fills it again, twenty times over; every span arrives, in order. */
static void test_batch_many_frames_through_the_queue(void **state)
{
    (void)state;
    const char *path = tmp("manyframes");
    tb *b = tb_create(path, 1, 0, 0);
    for (int f = 0; f < 40; f++) {
        for (int i = 0; i < 50; i++)
            tb_span(b, 1, 1000 * (50 * f + i), 1000 * (50 * f + i) + 10 + i, 0, "c", "l");
        tb_frame(b);
    }
    tb_close(b, TB_END_CLEAN, 5000000, 0);
    readlog *l = malloc(sizeof *l);
    assert_non_null(l);
    read_both(path, 256, l);
    assert_int_equal(l->n, 2001);
    for (int k = 0; k < 2000; k++) {
        assert_int_equal(l->it[k].ts, 1000 * k);
        assert_int_equal(l->it[k].dur, 10 + k % 50);
    }
    assert_int_equal(l->it[2000].kind, WT_EV_END);
    assert_int_equal(l->st.frames, 41);
    free(l);
    unlink(path);
}

/* Frames of over a MiB each (200,000 spans) among small ones: in the ctest run with
 * WALLTIME_READER_THREAD=1 the queue stops at its byte bound before its frame bound, and a
 * big frame's buffer is freed instead of kept spare (reader.c, AHEAD_SPARE_CAP); every span
 * still arrives once, in order, and the frames are counted. */
static void test_batch_big_frames_through_the_queue(void **state)
{
    (void)state;
    const char *path = tmp("bigframes");
    tb *b = tb_create(path, 1, 0, 0);
    int64_t want = 0;
    int frames = 0;
    for (int f = 0; f < 14; f++) {
        const int n = f % 3 == 1 ? 200000 : 30;
        for (int i = 0; i < n; i++, want++)
            tb_span(b, 1, 1000 * want, 1000 * want + 7 + want % 13, 0, "c", "l");
        tb_frame(b);
        frames++;
    }
    tb_close(b, TB_END_CLEAN, 1000 * want + 100, 0);
    wt_reader *r;
    assert_int_equal(wt_reader_open(path, &r), 0);
    wt_event ev;
    int64_t k = 0;
    int rc;
    while ((rc = wt_reader_next(r, &ev)) > 0) {
        if (ev.kind != WT_EV_SPAN)
            continue;
        assert_int_equal(ev.ts, 1000 * k);
        assert_int_equal(ev.dur, 7 + k % 13);
        k++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(k, want);
    wt_reader_stats st;
    wt_reader_get_stats(r, &st);
    assert_int_equal(st.frames, frames + 1); /* and the end record's */
    assert_int_equal(st.frames_damaged, 0);
    wt_reader_free(r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_stops_before_counter_mark_thread_and_frame),
        cmocka_unit_test(test_batch_capacity_one_and_smaller_than_a_run),
        cmocka_unit_test(test_batch_damage_reported_with_offset_and_reading_goes_on),
        cmocka_unit_test(test_batch_undefined_ids_left_to_the_general_path),
        cmocka_unit_test(test_batch_carries_every_span_field),
        cmocka_unit_test(test_batch_long_frame_with_varied_records),
        cmocka_unit_test(test_batch_string_by_id_on_bad_ids),
        cmocka_unit_test(test_batch_lean_fields),
        cmocka_unit_test(test_batch_ids_past_a_lost_definition),
        cmocka_unit_test(test_batch_takes_string_definitions),
        cmocka_unit_test(test_batch_stops_before_a_lost_string_defined_again),
        cmocka_unit_test(test_batch_varints_of_every_length),
        cmocka_unit_test(test_batch_varints_that_do_not_parse),
        cmocka_unit_test(test_batch_many_frames_through_the_queue),
        cmocka_unit_test(test_batch_big_frames_through_the_queue),
        cmocka_unit_test(test_batch_takes_the_tables_last_id),
        cmocka_unit_test(test_batch_spans_before_any_string),
        cmocka_unit_test(test_records_take_counters_among_spans),
        cmocka_unit_test(test_records_counter_varints_of_every_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
