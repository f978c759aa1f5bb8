/* The reader against traces built by hand: every record type round-trips with the values the
 * test chose, a trace written byte by byte from docs/FORMAT.md's worked example decodes, and
 * damaged files (cut at every offset, a flipped byte, a newer version, hostile sizes, not a
 * trace at all) are reported with their offset while everything intact is still delivered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "encode.h"

#include "format.h"
#include "tracebuild.h"
#include "walltime/reader.h"

static char tmp_path[256];

static const char *tmp(const char *name)
{
    snprintf(tmp_path, sizeof tmp_path, "test_reader_%d_%s.wtrace", (int)getpid(), name);
    return tmp_path;
}

/* Reads a whole file; returns the number of events, fills the first `max` into evs (strings
 * copied into `pool`), the number of errors in *errors and the first error offset. */
typedef struct readout {
    int open_rc;
    int events, errors;
    int64_t first_error_off;
    char first_error[512];
    wt_event ev[64];
    char pool[64][4][64];
    wt_reader_stats stats;
    wt_trace_info info;
    char cmdline[128];
} readout;

static void keep(readout *o, int i, const wt_event *ev)
{
    o->ev[i] = *ev;
    const char *const src[4] = { ev->category, ev->label, ev->name, ev->detail };
    const char **dst[4] = { &o->ev[i].category, &o->ev[i].label, &o->ev[i].name, &o->ev[i].detail };
    for (int k = 0; k < 4; k++) {
        if (src[k]) {
            snprintf(o->pool[i][k], sizeof o->pool[i][k], "%s", src[k]);
            *dst[k] = o->pool[i][k];
        }
    }
}

/* read_all() on a reader just opened (or reopened) with result open_rc; frees nothing. */
static void read_opened(wt_reader *r, int open_rc, readout *o)
{
    memset(o, 0, sizeof *o);
    o->first_error_off = -1;
    o->open_rc = open_rc;
    if (o->open_rc < 0) {
        snprintf(o->first_error, sizeof o->first_error, "%s", r ? wt_reader_error(r) : "");
        o->first_error_off = r ? wt_reader_error_offset(r) : -1;
        return;
    }
    o->info = *wt_reader_info(r);
    if (o->info.cmdline)
        snprintf(o->cmdline, sizeof o->cmdline, "%s", o->info.cmdline);
    wt_event ev;
    int rc, guard = 0;
    while ((rc = wt_reader_next(r, &ev)) != 0) {
        assert_true(++guard < 10000000); /* never an endless loop */
        if (rc < 0) {
            if (o->errors++ == 0) {
                o->first_error_off = wt_reader_error_offset(r);
                snprintf(o->first_error, sizeof o->first_error, "%s", wt_reader_error(r));
            }
            continue;
        }
        if (o->events < 64)
            keep(o, o->events, &ev);
        o->events++;
    }
    wt_reader_get_stats(r, &o->stats);
}

static void read_all(const char *path, readout *o)
{
    wt_reader *r = NULL;
    const int rc = wt_reader_open(path, &r);
    read_opened(r, rc, o);
    wt_reader_free(r);
}

/* A small trace with every record type; times chosen by hand. */
static void build_all_types(const char *path, int raw)
{
    tb *b = tb_create(path, 4242, 1000, 5000);
    tb_set_raw(b, raw);
    tb_thread_name(b, 7, 6000, "main");
    tb_meta(b, 7, 6100, "model", "gr00t-n16");
    tb_round(b, 7, 6200, 9000, "keep", 1);
    tb_span_desc d = { .tid = 7, .start = 7000, .end = 8000, .depth = 1, .category = "weight_load",
                       .label = "dit.blocks.0", .detail = "cache dir unset",
                       .cached = WT_CACHED_MISS, .count = 12, .bytes = 1 << 20, .measured = 1 };
    tb_span_ex(b, &d);
    tb_counter(b, 7, 8100, "device_bytes", -5);
    tb_mark(b, 7, 8200, "phase", "first token", NULL);
    tb_span(b, 8, 100, 9500, 0, "compile", "warmup");
    tb_dropped(b, 8, 9600, 3);
    tb_frame(b);
    tb_sync(b, 9700);
    tb_close(b, TB_END_SIGNAL, 9800, 6);
}

static void check_all_types(int raw)
{
    const char *path = tmp(raw ? "raw" : "zstd");
    build_all_types(path, raw);
    readout o;
    read_all(path, &o);
    assert_int_equal(o.open_rc, 0);
    assert_int_equal(o.errors, 0);
    assert_int_equal(o.events, 10);
    assert_int_equal(o.info.pid, 4242);
    assert_int_equal(o.info.process_start_ns, 1000);
    assert_int_equal(o.info.open_ns, 5000);
    assert_string_equal(o.cmdline, "tracebuild test");

    const wt_event *e = o.ev;
    assert_int_equal(e[0].kind, WT_EV_THREAD_NAME);
    assert_int_equal(e[0].tid, 7);
    assert_int_equal(e[0].ts, 6000);
    assert_string_equal(e[0].name, "main");

    assert_int_equal(e[1].kind, WT_EV_META);
    assert_string_equal(e[1].name, "model");
    assert_string_equal(e[1].detail, "gr00t-n16");

    assert_int_equal(e[2].kind, WT_EV_ROUND);
    assert_int_equal(e[2].ts, 6200);
    assert_int_equal(e[2].dur, 2800);
    assert_string_equal(e[2].name, "keep");
    assert_int_equal(e[2].count, 1);

    /* the round ended at 9000, after the span's end: the encoder keeps times monotone per
     * chunk, so the span's end moves to 9000 and it keeps its 1000 ns duration */
    assert_int_equal(e[3].kind, WT_EV_SPAN);
    assert_int_equal(e[3].ts, 8000);
    assert_int_equal(e[3].dur, 1000);
    assert_int_equal(e[3].depth, 1);
    assert_string_equal(e[3].category, "weight_load");
    assert_string_equal(e[3].label, "dit.blocks.0");
    assert_string_equal(e[3].detail, "cache dir unset");
    assert_int_equal(e[3].cached, WT_CACHED_MISS);
    assert_int_equal(e[3].count, 12);
    assert_int_equal(e[3].bytes, 1 << 20);
    assert_int_equal(e[3].flags, WT_EVF_MEASURED);

    assert_int_equal(e[4].kind, WT_EV_COUNTER);
    assert_int_equal(e[4].ts, 9000); /* clamped likewise */
    assert_string_equal(e[4].name, "device_bytes");
    assert_int_equal(e[4].value, -5);

    assert_int_equal(e[5].kind, WT_EV_MARK);
    assert_string_equal(e[5].category, "phase");
    assert_string_equal(e[5].label, "first token");
    assert_null(e[5].detail);

    assert_int_equal(e[6].kind, WT_EV_SPAN);
    assert_int_equal(e[6].tid, 8);
    assert_int_equal(e[6].ts, 100);
    assert_int_equal(e[6].dur, 9400);
    assert_int_equal(e[6].depth, 0);
    assert_int_equal(e[6].count, 1);
    assert_int_equal(e[6].cached, WT_CACHED_UNKNOWN);
    assert_null(e[6].detail);

    assert_int_equal(e[7].kind, WT_EV_DROPPED);
    assert_int_equal(e[7].tid, 8);
    assert_int_equal(e[7].count, 3);

    assert_int_equal(e[8].kind, WT_EV_SYNC);
    assert_int_equal(e[8].ts, 9700);
    assert_int_equal(e[9].kind, WT_EV_END);
    assert_int_equal(e[9].end, WT_END_SIGNAL);
    assert_int_equal(e[9].count, 6);
    assert_int_equal(o.stats.end, WT_END_SIGNAL);
    assert_int_equal(o.stats.end_signal, 6);
    assert_int_equal(o.stats.frames, 2);
    assert_int_equal(o.stats.threads, 2);
    assert_int_equal(o.stats.strings, 12); /* main model gr00t-n16 keep weight_load dit.blocks.0 cache.. device_bytes phase "first token" compile warmup */
    unlink(path);
}

static void test_reader_every_record_type_round_trips(void **state) { check_all_types(0); }

static void test_reader_raw_frames_round_trip(void **state) { check_all_types(1); }

/* Counters in a long frame, as a program sampling them after every span writes them: the
 * reader's fast path for counter records decodes them (with the frame's end far away), and
 * each must read back as written: times, names cycling over three strings, values of both
 * signs up to the int64 limits, the other fields empty; and the span between them intact. */
static void test_reader_counter_samples_in_a_long_frame(void **state)
{
    static const char *const names[3] = { "device_bytes", "tensors", "queue" };
    const int64_t values[8] = { 0, -1, 1, 123456789012345, -123456789012345, INT64_MAX,
                                INT64_MIN, 64 };
    const char *path = tmp("counters");
    tb *b = tb_create(path, 77, 1000, 2000);
    for (int i = 0; i < 40; i++)
        tb_counter(b, 5, 3000 + 10 * i, names[i % 3], values[i % 8]);
    tb_span(b, 5, 3500, 3600, 0, "load", "x");
    for (int i = 40; i < 60; i++)
        tb_counter(b, 5, 3600 + 10 * i, names[i % 3], values[i % 8]);
    tb_close(b, TB_END_CLEAN, 5000, 0);
    readout o;
    read_all(path, &o);
    assert_int_equal(o.open_rc, 0);
    assert_int_equal(o.errors, 0);
    assert_int_equal(o.events, 62); /* 60 counters, the span, the end */
    for (int i = 0; i < 61; i++) {
        const wt_event *e = &o.ev[i];
        if (i == 40) {
            assert_int_equal(e->kind, WT_EV_SPAN);
            assert_int_equal(e->ts, 3500);
            assert_int_equal(e->dur, 100);
            assert_string_equal(e->category, "load");
            continue;
        }
        const int k = i < 40 ? i : i - 1;
        assert_int_equal(e->kind, WT_EV_COUNTER);
        assert_int_equal(e->pid, 77);
        assert_int_equal(e->tid, 5);
        assert_int_equal(e->ts, k < 40 ? 3000 + 10 * k : 3600 + 10 * k);
        assert_string_equal(e->name, names[k % 3]);
        assert_true(e->value == values[k % 8]);
        assert_int_equal(e->dur, 0);
        assert_int_equal(e->flags, 0);
        assert_null(e->category);
        assert_null(e->label);
        assert_null(e->detail);
    }
}

/* The worked example of docs/FORMAT.md, written byte by byte without the encoder. */
static const unsigned char worked_example[] = {
    /* header: skippable frame 0x184D2A57, 26 bytes */
    0x57, 0x2A, 0x4D, 0x18, 26, 0, 0, 0,
    'W', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0,
    1, 2, 0xB9, 0x60,                 /* pid 12345 */
    2, 1, 100,                        /* process start 100 ns */
    3, 2, 0xE8, 0x07,                 /* open at 1000 ns */
    6, 3, 't', 's', 'c',              /* clock "tsc" */
    /* data: a zstd frame of one raw block, 8-byte content size 33, no checksum */
    0x28, 0xB5, 0x2F, 0xFD, 0xE0, 33, 0, 0, 0, 0, 0, 0, 0,
    0x09, 0x01, 0x00,                 /* last block, raw, 33 bytes: (33 << 3) | 1 */
    0x01, 1, 4, 'l', 'o', 'a', 'd',   /* string 1 "load" */
    0x01, 2, 2, 'w', '0',             /* string 2 "w0" */
    0x02, 9, 0xD0, 0x0F,              /* thread 9, base 2000 ns */
    0x03, 0x02, 0xF4, 0x03, 0xC8, 0x01, 0, 1, 2, /* span: MISS, end +500, dur 200, depth 0 */
    0x0A, 0xB8, 0x17, 1, 0,           /* end: clean at 3000 ns */
    0x09, 0xB9, 0x17,                 /* sync at 3001 ns */
};

#define HDR_LEN (8 + 26)

static void test_reader_decodes_the_format_worked_example(void **state)
{
    const char *path = tmp("example");
    tb_write_file(path, worked_example, sizeof worked_example);
    readout o;
    read_all(path, &o);
    assert_int_equal(o.open_rc, 0);
    assert_int_equal(o.errors, 0);
    assert_int_equal(o.info.pid, 12345);
    assert_int_equal(o.info.process_start_ns, 100);
    assert_int_equal(o.info.open_ns, 1000);
    assert_string_equal(o.info.clock ? "tsc" : "", "tsc");
    assert_int_equal(o.events, 3);
    assert_int_equal(o.ev[0].kind, WT_EV_SPAN);
    assert_int_equal(o.ev[0].tid, 9);
    assert_int_equal(o.ev[0].ts, 2300);
    assert_int_equal(o.ev[0].dur, 200);
    assert_int_equal(o.ev[0].cached, WT_CACHED_MISS);
    assert_string_equal(o.ev[0].category, "load");
    assert_string_equal(o.ev[0].label, "w0");
    assert_int_equal(o.ev[1].kind, WT_EV_END);
    assert_int_equal(o.ev[1].ts, 3000);
    assert_int_equal(o.ev[1].end, WT_END_CLEAN);
    assert_int_equal(o.ev[2].kind, WT_EV_SYNC);
    unlink(path);
}

/* Three frames of 10 spans each; returns the file offsets where frames 2 and 3 begin. */
static void build_three_frames(const char *path, int raw, size_t *starts)
{
    tb *b = tb_create(path, 1, 0, 0);
    tb_set_raw(b, raw);
    for (int f = 0; f < 3; f++) {
        for (int i = 0; i < 10; i++)
            tb_span(b, 1, f * 1000 + i * 10, f * 1000 + i * 10 + 5, 0, "cat", f == 1 ? "mid" : "edge");
        if (f < 2)
            tb_frame(b);
    }
    tb_close(b, TB_END_CLEAN, 5000, 0);
    /* find the frame starts by their magic (none occurs inside raw records here) */
    size_t len;
    unsigned char *d = tb_read_file(path, &len);
    int k = 0;
    for (size_t i = 8; i + 4 <= len && k < 3; i++)
        if (wt__get_le32(d + i) == WT__ZSTD_MAGIC)
            starts[k++] = i;
    assert_int_equal(k, 3);
    free(d);
}

static void test_reader_truncated_at_every_offset_keeps_whole_frames(void **state)
{
    const char *path = tmp("full"), *cut = "test_reader_cut.wtrace";
    size_t starts[3];
    build_three_frames(path, 0, starts);
    size_t len;
    unsigned char *d = tb_read_file(path, &len);
    for (size_t n = 0; n < len; n++) {
        char cutp[300];
        snprintf(cutp, sizeof cutp, "%d_%s", (int)getpid(), cut);
        tb_write_file(cutp, d, n);
        readout o;
        read_all(cutp, &o);
        if (n < starts[0]) {
            /* the header itself is cut, or no frame yet */
            if (o.open_rc == 0) {
                assert_int_equal(o.events, 0);
            } else {
                assert_true(o.open_rc == WT_ENOTTRACE || o.open_rc == WT_ETRUNC);
                assert_non_null(strstr(o.first_error, cutp));
            }
            continue;
        }
        assert_int_equal(o.open_rc, 0);
        int whole = n >= starts[2] ? 2 : n >= starts[1] ? 1 : 0;
        /* every span of a frame that is complete, nothing of the cut one */
        assert_int_equal(o.events, whole * 10);
        if (n > starts[whole]) {
            assert_int_equal(o.errors, 1);
            assert_int_equal(o.first_error_off, (int64_t)starts[whole]);
            assert_non_null(strstr(o.first_error, "truncated"));
        } else {
            assert_int_equal(o.errors, 0);
        }
        assert_int_equal(o.stats.end, WT_END_NONE);
        unlink(cutp);
    }
    readout o;
    read_all(path, &o);
    assert_int_equal(o.events, 31);
    assert_int_equal(o.stats.end, WT_END_CLEAN);
    free(d);
    unlink(path);
}

static void corrupt_middle(int raw)
{
    const char *path = tmp("corrupt");
    size_t starts[3];
    build_three_frames(path, raw, starts);
    size_t len;
    unsigned char *d = tb_read_file(path, &len);
    /* a byte in the middle of frame 2's payload */
    size_t at = starts[1] + (starts[2] - starts[1]) / 2;
    d[at] ^= 0x5A;
    tb_write_file(path, d, len);
    readout o;
    read_all(path, &o);
    assert_int_equal(o.open_rc, 0);
    assert_true(o.errors >= 1);
    assert_int_equal(o.first_error_off, (int64_t)starts[1]);
    /* frames 1 and 3 are whole: 20 spans and the end record */
    int spans = 0, mid = 0;
    for (int i = 0; i < o.events && i < 64; i++) {
        spans += o.ev[i].kind == WT_EV_SPAN;
        mid += o.ev[i].kind == WT_EV_SPAN && !strcmp(o.ev[i].label, "mid");
    }
    /* both kinds of frame carry a checksum, so nothing of the damaged frame comes through */
    assert_int_equal(spans, 20);
    assert_int_equal(mid, 0);
    assert_int_equal(o.stats.frames_damaged, 1);
    assert_int_equal(o.stats.end, WT_END_CLEAN);
    free(d);
    unlink(path);
}

static void test_reader_corrupted_byte_reported_with_offset(void **state) { corrupt_middle(0); }

static void test_reader_corrupted_raw_frame_reported_with_offset(void **state) { corrupt_middle(1); }

static void test_reader_refuses_newer_major_version(void **state)
{
    const char *path = tmp("newer");
    unsigned char d[sizeof worked_example];
    memcpy(d, worked_example, sizeof d);
    d[14] = 2; /* major version 2 */
    tb_write_file(path, d, sizeof d);
    readout o;
    read_all(path, &o);
    assert_int_equal(o.open_rc, WT_EVERSION);
    assert_non_null(strstr(o.first_error, "format version 2.0"));
    assert_non_null(strstr(o.first_error, "newer walltime"));
    /* a newer minor version is read */
    d[14] = 1;
    d[16] = 7;
    tb_write_file(path, d, sizeof d);
    read_all(path, &o);
    assert_int_equal(o.open_rc, 0);
    assert_int_equal(o.events, 3);
    unlink(path);
}

static void test_reader_rejects_what_is_not_a_trace(void **state)
{
    readout o;
    read_all("no/such/file.wtrace", &o);
    assert_int_equal(o.open_rc, WT_EOPEN);
    assert_non_null(strstr(o.first_error, "No such file"));

    read_all(".", &o);
    assert_int_equal(o.open_rc, WT_EOPEN);
    assert_non_null(strstr(o.first_error, "directory"));

    const char *path = tmp("empty");
    tb_write_file(path, (const unsigned char *)"", 0);
    read_all(path, &o);
    assert_int_equal(o.open_rc, WT_ENOTTRACE);
    assert_non_null(strstr(o.first_error, "empty"));

    tb_write_file(path, (const unsigned char *)"hello, world\n", 13);
    read_all(path, &o);
    assert_int_equal(o.open_rc, WT_ENOTTRACE);
    assert_int_equal(o.first_error_off, 0);
    unlink(path);
}

/* A frame that declares 1 TiB of content must be refused before anything is allocated. */
static void test_reader_hostile_frame_size_is_refused(void **state)
{
    const char *path = tmp("hostile");
    unsigned char d[64];
    size_t hdr = HDR_LEN;
    memcpy(d, worked_example, hdr);
    const unsigned char frame[] = { 0x28, 0xB5, 0x2F, 0xFD, 0xE0, 0, 0, 0, 0, 0, 1, 0, 0, 0x01, 0, 0 };
    memcpy(d + hdr, frame, sizeof frame);
    tb_write_file(path, d, hdr + sizeof frame);
    readout o;
    read_all(path, &o);
    assert_int_equal(o.open_rc, 0);
    assert_int_equal(o.errors, 1);
    assert_int_equal(o.first_error_off, (int64_t)hdr);
    assert_non_null(strstr(o.first_error, "exceeds the limit"));
    assert_int_equal(o.events, 0);
    unlink(path);
}

/* Records that lie: an undefined string id, a string longer than its frame, a varint of 11
 * bytes. Each is reported and what came before it is kept; the span naming undefined strings
 * is delivered with them as "(unknown string N)" (then two zero bytes, an unknown record
 * type, end the frame: a second error). */
static void test_reader_lying_records_are_reported(void **state)
{
    static const unsigned char bodies[3][12] = {
        { 0x02, 1, 0, 0x03, 0, 0, 0, 0, 5, 6, 0, 0 },       /* span naming strings 5, 6 */
        { 0x01, 1, 0x7F, 'x', 0, 0, 0, 0, 0, 0, 0, 0 },     /* string of 127 bytes in 12 */
        { 0x09, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 },
    };
    const char *path = tmp("lying");
    for (int k = 0; k < 3; k++) {
        unsigned char d[128];
        size_t hdr = HDR_LEN, n = 0;
        memcpy(d, worked_example, hdr);
        n = hdr;
        const unsigned char fh[] = { 0x28, 0xB5, 0x2F, 0xFD, 0xE0, 12, 0, 0, 0, 0, 0, 0, 0, 0x61, 0, 0 };
        memcpy(d + n, fh, sizeof fh);
        n += sizeof fh;
        memcpy(d + n, bodies[k], 12);
        n += 12;
        tb_write_file(path, d, n);
        readout o;
        read_all(path, &o);
        assert_int_equal(o.open_rc, 0);
        assert_int_equal(o.errors, k == 0 ? 2 : 1);
        assert_int_equal(o.first_error_off, (int64_t)hdr);
        assert_int_equal(o.events, k == 0 ? 1 : 0);
        if (k == 0) {
            assert_string_equal(o.ev[0].category, "(unknown string 5)");
            assert_string_equal(o.ev[0].label, "(unknown string 6)");
            assert_non_null(strstr(o.first_error, "string 5 was never defined"));
        }
    }
    unlink(path);
}

/* Regressions found by the fuzzer (docs/FUZZING.md), on its reproducers. */
static void read_data(const char *name, readout *o)
{
    char path[512];
    snprintf(path, sizeof path, "%s/fuzz/%s", WT_TEST_DATA_DIR, name);
    read_all(path, o);
}

static void test_reader_span_count_below_one_reads_as_one(void **state)
{
    readout o;
    read_data("bug1-span-count-below-1.wtrace", &o);
    assert_int_equal(o.open_rc, 0);
    int spans = 0;
    for (int i = 0; i < o.events && i < 64; i++)
        if (o.ev[i].kind == WT_EV_SPAN) {
            spans++;
            assert_true(o.ev[i].count >= 1);
        }
    assert_true(spans > 0);
}

static void test_reader_cut_skippable_frame_reported_once(void **state)
{
    readout o;
    read_data("bug6-skippable-magic-at-end.wtrace", &o);
    assert_int_equal(o.open_rc, 0);
    assert_int_equal(o.errors, 1);
    assert_non_null(strstr(o.first_error, "truncated skippable frame"));
    assert_int_equal(o.stats.frames_damaged, 1);
}

static void test_reader_error_cap_counts_bad_records(void **state)
{
    readout o;
    read_data("bug7-record-errors-past-cap.wtrace", &o);
    assert_int_equal(o.open_rc, 0);
    /* FORMAT.md: 1000 damaged places reported, then the rest of the file is skipped */
    assert_true(o.errors >= 1 && o.errors <= 1000);
    assert_true(o.stats.errors <= 1000);
}

/* A header, then frames built from the parts: `spans` of one thread each in frame k when
 * parts[k] > 0, an empty frame (0 bytes of records) when parts[k] == 0 (compressed by libzstd:
 * the 13 bytes `zstd` writes for empty input; or raw with `raw`), a skippable frame of
 * -parts[k] - 1 bytes when parts[k] < 0. Returns the file's length. */
static size_t build_framed(const char *path, const int *parts, int n_parts, int raw)
{
    unsigned char *file = malloc(1 << 20);
    size_t len = HDR_LEN;
    memcpy(file, worked_example, HDR_LEN);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    uint8_t recs[4096];
    int64_t t = 2000;
    for (int k = 0; k < n_parts; k++) {
        if (parts[k] < 0) {
            wt__put_le32(file + len, 0x184D2A50u + (unsigned)k % 16);
            const size_t skip = (size_t)-parts[k] - 1;
            wt__put_le32(file + len + 4, (uint32_t)skip);
            memset(file + len + 8, 0xAB, skip);
            len += 8 + skip;
            continue;
        }
        wt__enc e;
        wt__enc_reset(&e, recs, sizeof recs);
        if (parts[k] > 0 && t == 2000) {
            assert_int_equal(wt__enc_string(&e, 1, "cat", 3), 0);
            assert_int_equal(wt__enc_string(&e, 2, "lab", 3), 0);
        }
        for (int i = 0; i < parts[k]; i++, t += 100) {
            wt__span_rec sp = { .start = t, .end = t + 50, .category = 1, .label = 2, .count = 1 };
            assert_int_equal(wt__enc_span(&e, 9, &sp), 0);
        }
        size_t n = raw ? wt__frame_raw(file + len, 1 << 16, recs, e.len)
                       : wt__frame_compress(cctx, file + len, 1 << 16, recs, e.len);
        assert_true(n > 0);
        len += n;
    }
    tb_write_file(path, file, len);
    ZSTD_freeCCtx(cctx);
    free(file);
    return len;
}

/* Issue 10, item 9: a valid header followed by an empty zstd frame (13 bytes that `zstd -t`
 * accepts) crashed every command (a load through the empty frame's NULL buffer). An empty
 * frame holds no record: it is intact, delivers nothing, and whatever follows is read. */
static void test_reader_empty_frames_are_intact_and_empty(void **state)
{
    const char *path = tmp("emptyframe");
    static const int only[] = { 0 }, first[] = { 0, 3 }, between[] = { 2, 0, 0, 3, 0 };
    const struct { const int *parts; int n, spans, frames; } cases[] = {
        { only, 1, 0, 1 }, { first, 2, 3, 2 }, { between, 5, 5, 5 } };
    for (int raw = 0; raw < 2; raw++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            size_t len = build_framed(path, cases[c].parts, cases[c].n, raw);
            if (!raw && c == 0)
                assert_int_equal(len, HDR_LEN + 13); /* the frame of the report */
            readout o;
            read_all(path, &o);
            assert_int_equal(o.open_rc, 0);
            assert_int_equal(o.errors, 0);
            assert_int_equal(o.events, cases[c].spans);
            assert_int_equal(o.stats.frames, cases[c].frames);
            assert_int_equal(o.stats.frames_damaged, 0);
            for (int i = 0; i < o.events; i++) {
                assert_int_equal(o.ev[i].ts, 2000 + 100 * i);
                assert_string_equal(o.ev[i].label, "lab");
            }
        }
    unlink(path);
}

/* Skippable frames of any size (0 included) between data frames are passed over: zstd
 * ignores them, so does the reader, without calling them damage. */
static void test_reader_skippable_frames_between_frames_are_skipped(void **state)
{
    const char *path = tmp("skippable");
    static const int parts[] = { -1, 2, -2, -300, 2, 0, -8 }; /* skippable 0, 1, 299, 7 B */
    size_t len = build_framed(path, parts, 7, 0);
    readout o;
    read_all(path, &o);
    assert_int_equal(o.open_rc, 0);
    assert_int_equal(o.errors, 0);
    assert_int_equal(o.events, 4);
    assert_int_equal(o.stats.frames, 3); /* two of spans, one empty */
    assert_int_equal(o.stats.bytes_skipped, 0);
    assert_int_equal(o.stats.file_bytes, len);
    unlink(path);
}

/* A frame of records by hand: strings "a" (1) and "b" (2), thread 9 at base 1000, then spans
 * whose values are valid or not; returns the file's length. */
static void write_one_frame(const char *path, const uint8_t *recs, size_t n)
{
    unsigned char file[4096];
    memcpy(file, worked_example, HDR_LEN);
    size_t len = HDR_LEN + wt__frame_raw(file + HDR_LEN, sizeof file - HDR_LEN, recs, n);
    tb_write_file(path, file, len);
}

/* Issue 10's principle: one bad record costs at most that record. Spans whose values the
 * reader refuses (a depth past 32 bits, an end time past 2^62 ns, an event before any THREAD
 * record) are dropped alone; the records after them, a string definition included, are read.
 * Before: the first of them ended the frame and the later definition was lost with it. */
static void test_reader_bad_record_costs_only_that_record(void **state)
{
    uint8_t r[512];
    size_t n = 0;
    const uint8_t head[] = { 0x01, 1, 1, 'a', 0x01, 2, 1, 'b',
                             0x04, 0, 1, 0, /* a counter before any THREAD: dropped */
                             0x02, 9, 0xE8, 0x07 /* thread 9, base 1000 */ };
    memcpy(r + n, head, sizeof head);
    n += sizeof head;
    const uint8_t good1[] = { 0x03, 0, 10, 5, 0, 1, 2 }; /* end 1010, dur 5 */
    memcpy(r + n, good1, sizeof good1);
    n += sizeof good1;
    r[n++] = 0x03; /* depth 2^33: dropped */
    r[n++] = 0;
    r[n++] = 1;
    r[n++] = 1;
    n += wt__put_varint(r + n, 1ull << 33);
    r[n++] = 1;
    r[n++] = 2;
    r[n++] = 0x03; /* end past 2^62 ns: dropped */
    r[n++] = 0;
    n += wt__put_varint(r + n, 1ull << 62);
    r[n++] = 1;
    r[n++] = 0;
    r[n++] = 1;
    r[n++] = 2;
    const uint8_t tail[] = { 0x01, 3, 1, 'c',                 /* string 3 "c" */
                             0x03, 0, 20, 4, 1, 3, 2,        /* end 1030, dur 4, depth 1 */
                             0x09, 0xB8, 0x17 };             /* sync at 3000 */
    memcpy(r + n, tail, sizeof tail);
    n += sizeof tail;
    const char *path = tmp("badrecord");
    write_one_frame(path, r, n);
    readout o;
    read_all(path, &o);
    assert_int_equal(o.open_rc, 0);
    assert_int_equal(o.events, 3);
    assert_int_equal(o.errors, 1); /* the frame's first bad record; the others are counted */
    assert_non_null(strstr(o.first_error, "record at +8"));
    assert_non_null(strstr(o.first_error, "that record skipped"));
    assert_int_equal(o.stats.records_skipped, 3);
    assert_int_equal(o.stats.frames, 1);
    assert_int_equal(o.stats.frames_damaged, 0);
    assert_int_equal(o.ev[0].ts, 1005);
    assert_int_equal(o.ev[0].dur, 5);
    assert_string_equal(o.ev[0].category, "a");
    assert_int_equal(o.ev[1].ts, 1026);
    assert_int_equal(o.ev[1].depth, 1);
    assert_string_equal(o.ev[1].category, "c");
    assert_string_equal(o.ev[1].label, "b");
    assert_int_equal(o.ev[2].kind, WT_EV_SYNC);
    unlink(path);
}

/* Issue 10, item 5's sibling: a frame lost to damage takes its string definitions with it.
 * Later frames that use those ids read them as "(unknown string N)", reported once per frame,
 * and everything else in them (their own new strings included) reads as written. Before:
 * "span names an undefined string" ended every later frame. */
static void test_reader_lost_string_definitions_do_not_poison_later_frames(void **state)
{
    const char *path = tmp("loststrings");
    tb *b = tb_create(path, 1, 0, 0);
    tb_span(b, 1, 100, 200, 0, "cat", "first");
    tb_frame(b);
    tb_span(b, 1, 300, 400, 0, "lost-cat", "lost-label"); /* strings 3 and 4 */
    tb_frame(b);
    for (int i = 0; i < 3; i++) {
        tb_span(b, 1, 500 + 10 * i, 505 + 10 * i, 0, "lost-cat", i == 2 ? "new" : "lost-label");
        tb_frame(b);
    }
    tb_close(b, TB_END_CLEAN, 1000, 0);
    size_t len;
    unsigned char *d = tb_read_file(path, &len);
    /* frame 2: damage its compressed bytes so that it fails to decode */
    size_t at = HDR_LEN, k = 0;
    for (size_t i = 8; i + 4 <= len; i++)
        if (wt__get_le32(d + i) == WT__ZSTD_MAGIC && k++ == 1) {
            at = i;
            break;
        }
    d[at + 12] ^= 0xFF;
    d[at + 14] ^= 0xFF;
    tb_write_file(path, d, len);
    free(d);
    readout o;
    read_all(path, &o);
    assert_int_equal(o.open_rc, 0);
    assert_int_equal(o.events, 5); /* frames 1, 3, 4, 5 and the end */
    assert_string_equal(o.ev[1].category, "(unknown string 3)");
    assert_string_equal(o.ev[1].label, "(unknown string 4)");
    assert_int_equal(o.ev[1].ts, 500);
    assert_string_equal(o.ev[2].category, "(unknown string 3)");
    assert_string_equal(o.ev[3].category, "(unknown string 3)");
    assert_string_equal(o.ev[3].label, "new");
    assert_int_equal(o.ev[4].kind, WT_EV_END);
    assert_int_equal(o.stats.end, WT_END_CLEAN);
    /* the damaged frame, then the unknown ids once (in the first frame that used them) */
    assert_int_equal(o.errors, 2);
    assert_int_equal(o.stats.unknown_strings, 1);
    unlink(path);
}

/* Values that recorders before format 1.1 wrote and the reader refused with the rest of the
 * frame (issue 10, items 5 and 6): a wt_record() span longer than the time since boot reads as
 * starting at 0, a cached value of 3 reads as unknown, and the records after them are read. */
static void test_reader_old_recorders_out_of_range_spans_read_back(void **state)
{
    const char *path = tmp("oldspans");
    tb *b = tb_create(path, 1, 0, 0);
    tb_span_desc longer = { .tid = 1, .start = -5000000000LL, .end = 1000, .category = "compile",
                            .label = "elsewhere", .measured = 1 };
    tb_span_ex(b, &longer);
    tb_span_desc cached3 = { .tid = 1, .start = 1100, .end = 1200, .category = "load",
                             .label = "w", .cached = (wt_cached)3 };
    tb_span_ex(b, &cached3);
    tb_span(b, 1, 1300, 1400, 0, "after", "x");
    tb_close(b, TB_END_CLEAN, 2000, 0);
    readout o;
    read_all(path, &o);
    assert_int_equal(o.errors, 0);
    assert_int_equal(o.events, 4);
    assert_int_equal(o.ev[0].ts, 0);
    assert_int_equal(o.ev[0].dur, 1000);
    assert_int_equal(o.ev[0].flags, WT_EVF_MEASURED);
    assert_int_equal(o.ev[1].cached, WT_CACHED_UNKNOWN);
    assert_int_equal(o.ev[1].ts, 1100);
    assert_string_equal(o.ev[2].category, "after");
    unlink(path);
}

/* Two readouts say the same: header, stats, and every kept event with its strings. */
static void assert_same_readout(const readout *a, const readout *b)
{
    assert_int_equal(a->open_rc, b->open_rc);
    assert_int_equal(a->events, b->events);
    assert_int_equal(a->errors, b->errors);
    assert_int_equal(a->first_error_off, b->first_error_off);
    assert_string_equal(a->first_error, b->first_error);
    assert_memory_equal(&a->stats, &b->stats, sizeof a->stats);
    assert_int_equal(a->info.pid, b->info.pid);
    assert_int_equal(a->info.open_ns, b->info.open_ns);
    assert_string_equal(a->cmdline, b->cmdline);
    for (int i = 0; i < a->events && i < 64; i++) {
        const wt_event *x = &a->ev[i], *y = &b->ev[i];
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->tid, y->tid);
        assert_int_equal(x->ts, y->ts);
        assert_int_equal(x->dur, y->dur);
        assert_int_equal(x->depth, y->depth);
        assert_int_equal(x->cached, y->cached);
        assert_int_equal(x->count, y->count);
        assert_int_equal(x->bytes, y->bytes);
        assert_int_equal(x->value, y->value);
        const char *const sx[4] = { x->category, x->label, x->name, x->detail };
        const char *const sy[4] = { y->category, y->label, y->name, y->detail };
        for (int k = 0; k < 4; k++) {
            assert_int_equal(sx[k] == NULL, sy[k] == NULL);
            if (sx[k])
                assert_string_equal(sx[k], sy[k]);
        }
    }
}

/* One reader reopened file after file (the way `trend` reads a thousand) reads each as a fresh
 * open would, whatever came before: a trace whose string ids mean other strings, a damaged
 * file, a file that is not a trace, a missing one. */
static void test_reader_reopen_reads_each_file_as_a_fresh_open(void **state)
{
    (void)state;
    char a[256], damaged[256], other[256], junk[256], missing[256];
    snprintf(a, sizeof a, "%s", tmp("reopen_a"));
    build_all_types(a, 0);
    /* the same ids, other strings and threads, in two frames */
    snprintf(other, sizeof other, "%s", tmp("reopen_b"));
    tb *b = tb_create(other, 99, 10, 20);
    tb_span(b, 3, 100, 400, 0, "gamma", "delta");
    tb_frame(b);
    tb_span(b, 3, 500, 700, 1, "epsilon", "gamma");
    tb_close(b, TB_END_CLEAN, 800, 0);
    size_t len;
    unsigned char *bytes = tb_read_file(a, &len);
    snprintf(damaged, sizeof damaged, "%s", tmp("reopen_cut"));
    tb_write_file(damaged, bytes, len - 7); /* cut in its last frame */
    free(bytes);
    snprintf(junk, sizeof junk, "%s", tmp("reopen_junk"));
    tb_write_file(junk, (const unsigned char *)"not a trace at all", 18);
    snprintf(missing, sizeof missing, "%s", tmp("reopen_missing"));
    unlink(missing);

    const char *order[] = { a, damaged, other, junk, a, missing, other, damaged, a };
    wt_reader *r = NULL;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        readout fresh, again;
        read_all(order[i], &fresh);
        const int rc = r ? wt_reader_reopen(r, order[i]) : wt_reader_open(order[i], &r);
        read_opened(r, rc, &again);
        assert_same_readout(&fresh, &again);
        if (order[i] == other) { /* the test's own values, not only the fresh reader's */
            assert_int_equal(again.events, 3); /* two spans and the end */
            assert_string_equal(again.ev[0].category, "gamma");
            assert_string_equal(again.ev[0].label, "delta");
            assert_int_equal(again.ev[0].ts, 100);
            assert_string_equal(again.ev[1].category, "epsilon");
            assert_string_equal(again.ev[1].label, "gamma");
            assert_int_equal(again.ev[1].dur, 200);
            assert_int_equal(again.stats.threads, 1);
            assert_int_equal(again.stats.strings, 3);
            assert_int_equal(again.stats.errors, 0);
        }
        if (order[i] == junk || order[i] == missing)
            assert_true(rc < 0 && again.first_error[0]);
    }
    assert_int_equal(wt_reader_reopen(NULL, a), WT_EINVAL);
    wt_reader_free(r);
    unlink(a);
    unlink(damaged);
    unlink(other);
    unlink(junk);
}

/* 400,000 distinct labels of 20-26 bytes (over 8 MiB of strings, past the arena's switch to
 * big blocks at 4 MiB, and a string table of over 2 MiB, past its switch to big memory at
 * 256 Ki ids): every span reads back its own label, by event and by id, in a first file and
 * again after a reopen onto a small file and back (the big blocks and table given back and
 * taken again). */
static void test_reader_many_strings_in_big_memory(void **state)
{
    (void)state;
    enum { N = 400000 };
    char path[256], small[256];
    snprintf(path, sizeof path, "%s", tmp("many_strings"));
    snprintf(small, sizeof small, "%s", tmp("many_small"));
    tb *b = tb_create(path, 5, 0, 0);
    char label[64];
    for (int i = 0; i < N; i++) {
        snprintf(label, sizeof label, "tensor.%d.weight%s", i, i % 3 ? "" : ".bias");
        tb_span(b, 1, 10 * (int64_t)i, 10 * (int64_t)i + 5, 0, "w", label);
    }
    tb_close(b, TB_END_CLEAN, 10 * (int64_t)N + 10, 0);
    b = tb_create(small, 6, 0, 0);
    tb_span(b, 1, 0, 5, 0, "x", "y");
    tb_close(b, TB_END_CLEAN, 10, 0);
    wt_reader *r = NULL;
    const char *order[] = { path, small, path };
    for (size_t f = 0; f < 3; f++) {
        const int rc = r ? wt_reader_reopen(r, order[f]) : wt_reader_open(order[f], &r);
        assert_int_equal(rc, 0);
        wt_event ev;
        int k = 0, got;
        while ((got = wt_reader_next(r, &ev)) > 0) {
            if (ev.kind != WT_EV_SPAN)
                continue;
            if (order[f] == small) {
                assert_string_equal(ev.label, "y");
                k++;
                continue;
            }
            snprintf(label, sizeof label, "tensor.%d.weight%s", k, k % 3 ? "" : ".bias");
            assert_string_equal(ev.label, label);
            assert_string_equal(ev.category, "w");
            k++;
        }
        assert_int_equal(got, 0);
        assert_int_equal(k, order[f] == small ? 1 : N);
        if (order[f] == path) {
            /* ids by the table: "w" is 1, label i is i + 2 */
            for (int i = 0; i < N; i += 9973) {
                snprintf(label, sizeof label, "tensor.%d.weight%s", i, i % 3 ? "" : ".bias");
                assert_string_equal(wt_reader_string(r, (uint32_t)i + 2), label);
            }
            wt_reader_stats st;
            wt_reader_get_stats(r, &st);
            assert_int_equal(st.strings, N + 1);
            assert_int_equal(st.errors, 0);
        }
    }
    wt_reader_free(r);
    unlink(path);
    unlink(small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_every_record_type_round_trips),
        cmocka_unit_test(test_reader_raw_frames_round_trip),
        cmocka_unit_test(test_reader_counter_samples_in_a_long_frame),
        cmocka_unit_test(test_reader_decodes_the_format_worked_example),
        cmocka_unit_test(test_reader_truncated_at_every_offset_keeps_whole_frames),
        cmocka_unit_test(test_reader_corrupted_byte_reported_with_offset),
        cmocka_unit_test(test_reader_corrupted_raw_frame_reported_with_offset),
        cmocka_unit_test(test_reader_refuses_newer_major_version),
        cmocka_unit_test(test_reader_rejects_what_is_not_a_trace),
        cmocka_unit_test(test_reader_hostile_frame_size_is_refused),
        cmocka_unit_test(test_reader_lying_records_are_reported),
        cmocka_unit_test(test_reader_span_count_below_one_reads_as_one),
        cmocka_unit_test(test_reader_cut_skippable_frame_reported_once),
        cmocka_unit_test(test_reader_error_cap_counts_bad_records),
        cmocka_unit_test(test_reader_empty_frames_are_intact_and_empty),
        cmocka_unit_test(test_reader_skippable_frames_between_frames_are_skipped),
        cmocka_unit_test(test_reader_bad_record_costs_only_that_record),
        cmocka_unit_test(test_reader_lost_string_definitions_do_not_poison_later_frames),
        cmocka_unit_test(test_reader_old_recorders_out_of_range_spans_read_back),
        cmocka_unit_test(test_reader_reopen_reads_each_file_as_a_fresh_open),
        cmocka_unit_test(test_reader_many_strings_in_big_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
