/* Tests of the Perfetto sink's hand encoding (pf_span.c, pf_writer.h) and its string tables'
 * pointer cache (pf_maps.c), below the export: span packets written directly against the same
 * packets packed by protobuf-c (the writer's reference mode, an encoder we did not write),
 * across the cases that take the direct path's rare branches (lengths past one varint byte,
 * strings past the interning bound, new strings, alternating tracks, runs of new labels);
 * varints and one SLICE_END against bytes worked out by hand; the pointer cache forgetting and
 * wrapping its generation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pf_span.h"

/* ---- the pointer cache ---- */

static void test_pf_itab_forgotten_pointers_miss_until_looked_up_again(void **state)
{
    (void)state;
    pf_itab t = { 0 };
    static const char a[] = "load", b[] = "compile";
    uint32_t iid;
    int is_new;
    assert_int_equal(wt__pf_itab_cached(&t, a), 0);
    assert_int_equal(wt__pf_itab_get(&t, a, &iid, &is_new), 0);
    assert_int_equal(iid, 1);
    assert_int_equal(is_new, 1);
    assert_int_equal(wt__pf_itab_get(&t, b, &iid, &is_new), 0);
    assert_int_equal(iid, 2);
    assert_int_equal(wt__pf_itab_cached(&t, a), 1);
    assert_int_equal(wt__pf_itab_cached(&t, b), 2);
    wt__pf_itab_forget_pointers(&t);
    assert_int_equal(wt__pf_itab_cached(&t, a), 0);
    assert_int_equal(wt__pf_itab_cached(&t, b), 0);
    /* by content, the same iid, not new; cached again from then on */
    char copy[] = "load";
    assert_int_equal(wt__pf_itab_get(&t, copy, &iid, &is_new), 0);
    assert_int_equal(iid, 1);
    assert_int_equal(is_new, 0);
    assert_int_equal(wt__pf_itab_cached(&t, copy), 1);
    assert_int_equal(wt__pf_itab_cached(&t, a), 0);
    wt__pf_itab_release(&t);
}

/* After 2^32 forgets the generation comes back to the one of entries made long before: those
 * must not count again. */
static void test_pf_itab_forget_wrapping_round_clears_old_entries(void **state)
{
    (void)state;
    pf_itab t = { 0 };
    static const char a[] = "load";
    uint32_t iid;
    int is_new;
    assert_int_equal(wt__pf_itab_get(&t, a, &iid, &is_new), 0); /* cached at generation 0 */
    t.gen = UINT32_MAX; /* as after 2^32 - 1 forgets */
    assert_int_equal(wt__pf_itab_cached(&t, a), 0);
    wt__pf_itab_forget_pointers(&t); /* back to generation 0 */
    assert_int_equal(t.gen, 0);
    assert_int_equal(wt__pf_itab_cached(&t, a), 0);
    assert_int_equal(wt__pf_itab_get(&t, a, &iid, &is_new), 0);
    assert_int_equal(iid, 1);
    assert_int_equal(is_new, 0);
    assert_int_equal(wt__pf_itab_cached(&t, a), 1);
    wt__pf_itab_release(&t);
}

/* Many strings at nearby addresses (one block, as a reader keeps them) all stay cached. */
static void test_pf_itab_nearby_pointers_all_cached(void **state)
{
    (void)state;
    enum { N = 48 };
    pf_itab t = { 0 };
    char *block = calloc(N, 8192); /* 8 KiB apart: the same low bits */
    assert_non_null(block);
    for (int i = 0; i < N; i++) {
        uint32_t iid;
        int is_new;
        snprintf(block + (size_t)i * 8192, 16, "s%d", i);
        assert_int_equal(wt__pf_itab_get(&t, block + (size_t)i * 8192, &iid, &is_new), 0);
        assert_int_equal(iid, i + 1);
    }
    int cached = 0;
    for (int i = 0; i < N; i++)
        cached += wt__pf_itab_cached(&t, block + (size_t)i * 8192) == (uint32_t)(i + 1);
    assert_true(cached >= N - 2); /* a collision or two may remain, not one slot for all */
    wt__pf_itab_release(&t);
    free(block);
}

/* ---- varints ---- */

static void test_pf_varint_matches_hand_encoding(void **state)
{
    (void)state;
    static const struct {
        uint64_t v;
        size_t n;
        uint8_t b[10];
    } cases[] = {
        { 0, 1, { 0x00 } },
        { 1, 1, { 0x01 } },
        { 127, 1, { 0x7F } },
        { 128, 2, { 0x80, 0x01 } },
        { 300, 2, { 0xAC, 0x02 } },
        { 16383, 2, { 0xFF, 0x7F } },
        { 16384, 3, { 0x80, 0x80, 0x01 } },
        { 1ull << 63, 10, { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 } },
        { UINT64_MAX, 10, { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t b[16];
        memset(b, 0xEE, sizeof b);
        assert_int_equal(wt__pfw_varint(b, cases[i].v), cases[i].n);
        assert_int_equal(wt__pfw_varint_len(cases[i].v), cases[i].n);
        assert_memory_equal(b, cases[i].b, cases[i].n);
        assert_int_equal(b[cases[i].n], 0xEE);
    }
}

/* The length by formula against counting 7-bit groups, at every bit length and its ends. */
static void test_pf_varint_len_counts_seven_bit_groups(void **state)
{
    (void)state;
    for (unsigned bits = 1; bits <= 64; bits++) {
        const uint64_t top = 1ull << (bits - 1);
        const uint64_t vals[3] = { top, top | (top - 1), top | 1 };
        for (int k = 0; k < 3; k++) {
            size_t groups = 1;
            for (uint64_t v = vals[k]; v >= 0x80; v >>= 7)
                groups++;
            assert_int_equal(wt__pfw_varint_len(vals[k]), groups);
            assert_int_equal(groups, (bits + 6) / 7);
        }
    }
    assert_int_equal(wt__pfw_varint_len(0), 1);
}

/* ---- span packets ---- */

typedef struct mem {
    char *buf;
    size_t len;
    FILE *f;
    pf_writer w;
} mem;

static void mem_open(mem *m, int reference)
{
    memset(m, 0, sizeof *m);
    m->f = open_memstream(&m->buf, &m->len);
    assert_non_null(m->f);
    assert_int_equal(wt__pfw_init(&m->w, m->f), 0);
    m->w.reference = reference;
}

static void mem_close(mem *m)
{
    assert_int_equal(wt__pfw_flush(&m->w), 0);
    assert_int_equal(fflush(m->f), 0);
    wt__pfw_release(&m->w);
    fclose(m->f);
}

/* A SLICE_END worked out by hand: Trace.packet (0A) of 13 bytes: timestamp 1000 (40 E8 07),
 * trusted_packet_sequence_id 1 (50 01), track_event (5A) of 4 bytes: type SLICE_END (48 02),
 * track_uuid 1 (58 01); sequence_flags NEEDS_INCREMENTAL_STATE (68 02). */
static void test_pf_span_end_is_the_hand_encoded_packet(void **state)
{
    (void)state;
    static const uint8_t want[] = { 0x0A, 0x0D, 0x40, 0xE8, 0x07, 0x50, 0x01, 0x5A, 0x04,
                                    0x48, 0x02, 0x58, 0x01, 0x68, 0x02 };
    for (int ref = 0; ref < 2; ref++) {
        mem m;
        mem_open(&m, ref);
        assert_int_equal(wt__pf_span_end(&m.w, 1000, 1), 0);
        mem_close(&m);
        assert_int_equal(m.len, sizeof want);
        assert_memory_equal(m.buf, want, sizeof want);
        free(m.buf);
    }
}

/* Writes the spans of the test below through one writer. */
static void write_spans(mem *m, char **strs)
{
    static const uint64_t tracks[] = { 1, 0x5754000000000001ull, 0, UINT64_MAX, 0x5754000000000002ull };
    static const int64_t stamps[] = { 0, -5, 1, 127, 128, INT64_MAX / 2, INT64_MAX - 10, 1767225600000000000LL };
    static const int64_t counts[] = { 1, 0, -1, 300, INT64_MIN, 7 };
    static const size_t dlens[] = { 0, 0, 10, 100, 130, 200, 1000, 4096, 4097, 20000 };
    char *detail = strs[0];
    for (int i = 0; i < 400; i++) {
        pf_span s;
        memset(&s, 0, sizeof s);
        s.ts = stamps[i % 8];
        s.end = s.ts;
        s.count = counts[i % 6];
        s.bytes = i % 3 ? 0 : 4096ll * i;
        s.label = strs[1 + i % 7];                  /* reused pointers: the cache's hits */
        s.cat = strs[8 + i % 3];
        const size_t dl = dlens[i % 10];
        memset(detail, 'd', dl);
        detail[dl] = '\0';
        if (i % 11 == 5 && dl)
            detail[dl / 2] = (char)0xC3; /* a cut UTF-8 sequence: repaired */
        s.detail = i % 2 ? detail : NULL;
        s.cached = (uint8_t)(i % 3);
        s.flags = (uint32_t)(i % 5 == 0 ? WT_EVF_UNCLOSED : 0) | (i % 7 == 0 ? WT_EVF_MEASURED : 0);
        const uint64_t track = tracks[i % 4 == 3 ? i % 5 : i / 16 % 5]; /* runs and alternations */
        if (i == 200) { /* a new reader: the same strings come again at other pointers */
            wt__pf_itab_forget_pointers(&m->w.names);
            wt__pf_itab_forget_pointers(&m->w.cats);
        }
        if (i % 9 == 4)
            assert_int_equal(wt__pf_span_whole(&m->w, &s, s.ts, track), 0);
        else
            assert_int_equal(wt__pf_span_begin(&m->w, &s, s.ts, track), 0);
        if (i % 4 == 1)
            assert_int_equal(wt__pf_span_end(&m->w, s.ts + 10, track), 0);
    }
}

static char **make_strings(void)
{
    char **strs = calloc(11, sizeof *strs);
    assert_non_null(strs);
    strs[0] = malloc(20001);
    for (int i = 1; i < 11; i++) {
        /* labels 1-7: short, one past FAST_STR, one long enough for a 2-byte length, one not
         * UTF-8; categories 8-10 */
        size_t n = i == 2 ? 5000 : i == 3 ? 300 : 16;
        strs[i] = malloc(n + 1);
        memset(strs[i], 'a' + i, n);
        snprintf(strs[i], 8, "s%d-", i);
        strs[i][strlen(strs[i])] = 'x';
        strs[i][n] = '\0';
        if (i == 4)
            strs[i][3] = (char)0xFF;
    }
    return strs;
}

static void run_both(size_t intern_bytes)
{
    char **strs = make_strings();
    mem fast, ref;
    mem_open(&fast, 0);
    mem_open(&ref, 1);
    if (intern_bytes)
        fast.w.intern_left = ref.w.intern_left = intern_bytes;
    assert_int_equal(wt__pfw_start(&fast.w), 0);
    assert_int_equal(wt__pfw_start(&ref.w), 0);
    write_spans(&fast, strs);
    write_spans(&ref, strs);
    mem_close(&fast);
    mem_close(&ref);
    assert_true(fast.len > 100000);
    assert_int_equal(fast.len, ref.len);
    assert_memory_equal(fast.buf, ref.buf, fast.len);
    free(fast.buf);
    free(ref.buf);
    for (int i = 0; i < 11; i++)
        free(strs[i]);
    free(strs);
}

/* Every case of a span packet, the direct way and by protobuf-c: the same bytes. */
static void test_pf_span_packets_match_protobuf_c(void **state)
{
    (void)state;
    run_both(0);
}

/* The same past the interning bound: some names and categories written inline. */
static void test_pf_span_packets_past_interning_bound_match_protobuf_c(void **state)
{
    (void)state;
    run_both(3 * (16 + 1 + PF_ISTR_OVERHEAD));
}

/* Labels one a span, as a load that labels every tensor: runs of new labels (the writer then
 * skips the pointer cache), labels met before coming back among them (found by content, the
 * run ends), past the interning bound (new ones inline), and a label not UTF-8: the same bytes
 * as protobuf-c's, whatever way each label took. */
static void write_new_labels(mem *m, char *texts, int *max_run)
{
    for (int i = 0; i < 3000; i++) {
        /* k: a new label, except every 37th span (one of 20 met before) and spans 1000-1099
         * (10 labels in turn) */
        int k = i;
        if (i % 37 == 36)
            k = (i * 7) % 20;
        else if (i >= 1000 && i < 1100)
            k = 1000 + i % 10;
        char *label = texts + (size_t)i * 48; /* a pointer of its own: found by content */
        snprintf(label, 48, "model.layers.%d.mlp.experts.%d.weight", k / 64, k % 64);
        if (k == 500)
            label[3] = (char)0xE9; /* not UTF-8: repaired */
        pf_span s;
        memset(&s, 0, sizeof s);
        s.ts = 1000 + 10 * (int64_t)i;
        s.end = s.ts + 5;
        s.count = 1;
        s.label = label;
        s.cat = "weights";
        s.cached = (uint8_t)(i % 3);
        assert_int_equal(wt__pf_span_whole(&m->w, &s, s.ts, 7), 0);
        if (m->w.new_names > (uint32_t)*max_run)
            *max_run = (int)m->w.new_names;
    }
}

static void run_new_labels(size_t intern_bytes)
{
    char *texts = malloc((size_t)3000 * 48);
    assert_non_null(texts);
    mem fast, ref;
    mem_open(&fast, 0);
    mem_open(&ref, 1);
    fast.w.intern_left = ref.w.intern_left = intern_bytes;
    assert_int_equal(wt__pfw_start(&fast.w), 0);
    assert_int_equal(wt__pfw_start(&ref.w), 0);
    int run = 0, ref_run = 0;
    write_new_labels(&fast, texts, &run);
    write_new_labels(&ref, texts, &ref_run);
    assert_int_equal(run, PF_NEW_RUN); /* the run was taken */
    assert_int_equal(fast.w.names.n, ref.w.names.n);
    mem_close(&fast);
    mem_close(&ref);
    assert_int_equal(fast.len, ref.len);
    assert_memory_equal(fast.buf, ref.buf, fast.len);
    free(fast.buf);
    free(ref.buf);
    free(texts);
}

static void test_pf_span_packets_of_new_labels_match_protobuf_c(void **state)
{
    (void)state;
    run_new_labels(PF_INTERN_BYTES);
}

/* The same with room for about 1,500 labels: the later new ones inline. */
static void test_pf_span_packets_of_new_labels_past_bound_match_protobuf_c(void **state)
{
    (void)state;
    run_new_labels(1500 * (38 + 1 + PF_ISTR_OVERHEAD));
}

/* wt__pfw_utf8_n: the string itself and its length when valid, else the repaired copy and its
 * length, worked by hand. */
static void test_pf_utf8_n_gives_the_written_length(void **state)
{
    (void)state;
    mem m;
    mem_open(&m, 0);
    size_t len = 99;
    static const char ok[] = "layers.0.w\xC3\xA9";
    assert_ptr_equal(wt__pfw_utf8_n(&m.w, 8, ok, strlen(ok), &len), ok);
    assert_int_equal(len, 12);
    const char *fixed = wt__pfw_utf8_n(&m.w, 8, "ab\xFF" "c", 4, &len);
    assert_string_equal(fixed, "ab\xEF\xBF\xBD" "c");
    assert_int_equal(len, 6);
    assert_string_equal(wt__pfw_utf8_n(&m.w, 9, "", 0, &len), "");
    assert_int_equal(len, 0);
    mem_close(&m);
    free(m.buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pf_itab_forgotten_pointers_miss_until_looked_up_again),
        cmocka_unit_test(test_pf_itab_forget_wrapping_round_clears_old_entries),
        cmocka_unit_test(test_pf_itab_nearby_pointers_all_cached),
        cmocka_unit_test(test_pf_varint_matches_hand_encoding),
        cmocka_unit_test(test_pf_varint_len_counts_seven_bit_groups),
        cmocka_unit_test(test_pf_span_end_is_the_hand_encoded_packet),
        cmocka_unit_test(test_pf_span_packets_match_protobuf_c),
        cmocka_unit_test(test_pf_span_packets_past_interning_bound_match_protobuf_c),
        cmocka_unit_test(test_pf_span_packets_of_new_labels_match_protobuf_c),
        cmocka_unit_test(test_pf_span_packets_of_new_labels_past_bound_match_protobuf_c),
        cmocka_unit_test(test_pf_utf8_n_gives_the_written_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
