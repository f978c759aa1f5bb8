/* The format's building blocks against outside references: varint bytes worked out by hand,
 * XXH64's published value for empty input in a raw frame's checksum field, and libzstd itself
 * decoding (and verifying the checksum of) the raw frames the crash path writes. That the
 * checksums stay bit-identical across XXH64 implementations is also held by test_cli_sample,
 * which compares freshly made raw frames with committed ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include "encode.h"
#include "format.h"

static void expect_varint(uint64_t v, const unsigned char *bytes, size_t n)
{
    uint8_t buf[WT__VARINT_MAX];
    assert_int_equal(wt__put_varint(buf, v), n);
    assert_memory_equal(buf, bytes, n);
    const uint8_t *p = buf;
    uint64_t back;
    assert_int_equal(wt__get_varint(&p, buf + n, &back), 0);
    assert_true(back == v);
    assert_ptr_equal(p, buf + n);
    /* one byte short never reads past the end */
    p = buf;
    assert_int_equal(wt__get_varint(&p, buf + n - 1, &back), -1);
}

static void test_format_varints_match_hand_encoding(void **state)
{
    expect_varint(0, (const unsigned char[]){ 0x00 }, 1);
    expect_varint(127, (const unsigned char[]){ 0x7F }, 1);
    expect_varint(128, (const unsigned char[]){ 0x80, 0x01 }, 2);
    expect_varint(300, (const unsigned char[]){ 0xAC, 0x02 }, 2);
    expect_varint(UINT64_MAX,
                  (const unsigned char[]){ 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 }, 10);
    /* 65 bits do not fit */
    const uint8_t over[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02 };
    const uint8_t *p = over;
    uint64_t v;
    assert_int_equal(wt__get_varint(&p, over + sizeof over, &v), -1);
}

static void test_format_zigzag_maps_small_magnitudes_to_small_codes(void **state)
{
    assert_true(wt__zigzag(0) == 0);
    assert_true(wt__zigzag(-1) == 1);
    assert_true(wt__zigzag(1) == 2);
    assert_true(wt__zigzag(-2) == 3);
    assert_true(wt__zigzag(INT64_MIN) == UINT64_MAX);
    assert_true(wt__unzigzag(UINT64_MAX) == INT64_MIN);
    assert_true(wt__unzigzag(wt__zigzag(INT64_MAX)) == INT64_MAX);
}

/* XXH64 of no bytes with seed 0 is 0xEF46DB3751D8E999 (the xxHash specification's value):
 * an empty raw frame ends with its low 32 bits, little-endian. */
static void test_format_empty_raw_frame_checksum_is_the_published_xxh64(void **state)
{
    uint8_t frame[WT__FRAME_RAW_BOUND(0)];
    const size_t fn = wt__frame_raw(frame, sizeof frame, (const uint8_t *)"", 0);
    assert_true(fn >= 4);
    const uint8_t want[4] = { 0x99, 0xE9, 0xD8, 0x51 };
    assert_memory_equal(frame + fn - 4, want, 4);
}

/* libzstd decodes our raw frames of every block layout and checks their checksums. */
static void test_format_raw_frames_decode_with_libzstd(void **state)
{
    const size_t sizes[] = { 0, 1, 31, 32, 33, (128u << 10) - 1, 128u << 10, (128u << 10) + 1, 300000 };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        uint8_t *src = malloc(n + 1), *frame = malloc(WT__FRAME_RAW_BOUND(n)), *back = malloc(n + 1);
        assert_non_null(src);
        for (size_t i = 0; i < n; i++)
            src[i] = (uint8_t)(i * 131 + (i >> 7));
        size_t fn = wt__frame_raw(frame, WT__FRAME_RAW_BOUND(n), src, n);
        assert_true(fn > n);
        assert_true(ZSTD_getFrameContentSize(frame, fn) == n);
        size_t got = ZSTD_decompress(back, n + 1, frame, fn);
        assert_false(ZSTD_isError(got));
        assert_int_equal(got, n);
        assert_memory_equal(back, src, n);
        /* a flipped content byte fails the checksum */
        if (n > 0) {
            frame[fn - 5] ^= 1;
            assert_true(ZSTD_isError(ZSTD_decompress(back, n + 1, frame, fn)));
        }
        /* too little room writes nothing */
        assert_int_equal(wt__frame_raw(frame, WT__FRAME_RAW_BOUND(n) - 1, src, n), 0);
        free(src);
        free(frame);
        free(back);
    }
}

static void test_format_encoder_refuses_what_does_not_fit_and_changes_nothing(void **state)
{
    uint8_t buf[64];
    wt__enc e;
    wt__enc_reset(&e, buf, sizeof buf);
    char big[100];
    memset(big, 'x', sizeof big);
    assert_int_equal(wt__enc_string(&e, 1, big, sizeof big), WT_ENOSPC);
    assert_int_equal(e.len, 0);
    wt__span_rec s = { .start = 1, .end = 2, .category = 1, .label = 1, .count = 1 };
    int n = 0;
    while (wt__enc_span(&e, 1, &s) == 0)
        n++;
    size_t len = e.len;
    assert_true(n > 3);
    assert_int_equal(wt__enc_span(&e, 1, &s), WT_ENOSPC);
    assert_int_equal(e.len, len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_varints_match_hand_encoding),
        cmocka_unit_test(test_format_zigzag_maps_small_magnitudes_to_small_codes),
        cmocka_unit_test(test_format_empty_raw_frame_checksum_is_the_published_xxh64),
        cmocka_unit_test(test_format_raw_frames_decode_with_libzstd),
        cmocka_unit_test(test_format_encoder_refuses_what_does_not_fit_and_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
