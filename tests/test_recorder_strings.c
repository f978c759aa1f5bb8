/* Labels in writable memory are looked up by content without ever reading past what is
 * mapped, and always to the right id (issue 11): the key of a string is read with aligned
 * 8-byte loads (rec_intern.c), so these tests put strings right against an unmapped page,
 * at every alignment and length 0..64, cut ones past WT__STRING_MAX, and two strings whose
 * hashes collide (found here by brute force), and check every id and every label read back
 * against the bytes the test wrote. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "xorshift.h"
#define RT_DIR_PREFIX "st" /* this file's temporary directories */
#include "test_recorder_util.h"

#include "format.h"
#include "rec_intern.h"

#define MAXLEN 64
#define PATTERN "The quick brown fox jumps over the lazy dog; 0123456789 ABCDEFGHIJKLMNOP"

/* The first n bytes of PATTERN, NUL-terminated, ending at the page's last byte. */
static const char *at_page_end(char *page_start, long page, size_t n)
{
    char *s = page_start + page - 1 - n;
    memcpy(s, PATTERN, n);
    s[n] = '\0';
    return s;
}

static int page_end_spans(void *arg)
{
    if (wt_open(arg) != 0)
        return 1;
    long page;
    char *p = rt_guarded_page(&page);
    if (!p)
        return 2;
    /* twice each: the first call adds the string, the second finds it in the content table */
    for (int round = 0; round < 2; round++)
        for (size_t n = 0; n <= MAXLEN; n++) {
            const wt_span h = wt_begin("strings", at_page_end(p, page, n));
            wt_end(h, WT_CACHED_HIT, (int64_t)n + 2, NULL);
        }
    return wt_close() != 0;
}

/* A label at the end of a mapping, of each length 0..64 (so at each alignment), never
 * faults and reads back as the bytes written. */
static void test_strings_ending_at_an_unmapped_page_read_back_exactly(void **state)
{
    (void)state;
    const int st = rt_run(page_end_spans, path, NULL, NULL);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    size_t spans = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        const size_t n = (size_t)e->count - 2;
        assert_true(n <= MAXLEN);
        char want[MAXLEN + 1];
        memcpy(want, PATTERN, n);
        want[n] = '\0';
        if (n == 0)
            assert_true(e->label == NULL || e->label[0] == '\0'); /* "" is no label */
        else
            assert_string_equal(e->label, want);
        spans++;
    }
    assert_int_equal(spans, 2 * (MAXLEN + 1));
    rt_free(t);
}

/* The key's length and head against strnlen and the bytes copied here, for every length
 * 0..200 and around the cut, at every alignment, with bytes from 1 to 255 (a 0x80 or 0x01
 * byte must not look like a NUL to the word scan) and garbage after the NUL. */
static void test_key_length_and_head_match_the_bytes(void **state)
{
    (void)state;
    const size_t cap = WT__STRING_MAX + 64;
    char *buf = malloc(cap + 16);
    assert_non_null(buf);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t n = 0; n <= WT__STRING_MAX + 24; n = n == 200 ? WT__STRING_MAX - 24 : n + 1) {
        for (unsigned align = 0; align < 8; align++) {
            char *s = buf + align;
            for (size_t i = 0; i < cap + 16 - align; i++) {
                s[i] = (char)(1 + xorshift64(&x) % 255);
            }
            if (n % 3 == 0 && n > 1) {
                s[0] = (char)0x80; /* bytes the zero test treats specially */
                s[n - 1] = 0x01;
            }
            s[n] = '\0';
            wt__skey k;
            wt__str_key(s, &k);
            const size_t want = strnlen(s, WT__STRING_MAX);
            assert_int_equal(k.len, want);
            unsigned char head[16] = { 0 };
            memcpy(head, s, want < 16 ? want : 16);
            uint64_t h0 = 0, h1 = 0;
            for (int i = 7; i >= 0; i--) {
                h0 = h0 << 8 | head[i];
                h1 = h1 << 8 | head[8 + i];
            }
            assert_true(k.head[0] == h0 && k.head[1] == h1);
            assert_int_equal(k.hash, wt__str_hash(s, want));
        }
    }
    free(buf);
}

/* A thread's cache, zeroed as a new thread state's is. */
static wt__icache *new_cache(void)
{
    wt__icache *c = calloc(1, sizeof *c);
    assert_non_null(c);
    return c;
}

/* The id of every prefix of PATTERN of length 0..64 placed at each of 8 alignments: the same
 * content gives the same id wherever it is, different contents different ids, and each id's
 * bytes are the content. */
static void test_same_content_same_id_at_every_alignment_and_length(void **state)
{
    (void)state;
    wt__icache *c = new_cache();
    uint32_t ids[MAXLEN + 1];
    char *buf = malloc(MAXLEN + 16);
    assert_non_null(buf);
    for (unsigned align = 0; align < 8; align++) {
        for (size_t n = 0; n <= MAXLEN; n++) {
            /* the buffer is rewritten for every string, as a formatted label's would be */
            memset(buf, 'x', MAXLEN + 16);
            memcpy(buf + align, PATTERN, n);
            buf[align + n] = '\0';
            const uint32_t id = wt__intern_slow(c, buf + align);
            assert_int_not_equal(id, 0);
            if (align == 0)
                ids[n] = id;
            else
                assert_int_equal(id, ids[n]);
            uint32_t len = 0;
            const char *bytes = wt__string_get(id, &len);
            assert_non_null(bytes);
            assert_int_equal(len, n);
            assert_memory_equal(bytes, PATTERN, n);
        }
    }
    for (size_t a = 0; a <= MAXLEN; a++)
        for (size_t b = a + 1; b <= MAXLEN; b++)
            assert_int_not_equal(ids[a], ids[b]);
    free(buf);
    free(c);
}

/* Strings longer than WT__STRING_MAX are cut: two that differ only past the cut get one id,
 * whose bytes are the first WT__STRING_MAX; one that differs at the last kept byte does not. */
static void test_strings_past_the_limit_map_to_their_cut(void **state)
{
    (void)state;
    wt__icache *c = new_cache();
    const size_t n = WT__STRING_MAX + 40;
    char *a = malloc(n + 8), *b = malloc(n + 8);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        a[i] = (char)('a' + i % 26);
    a[n] = '\0';
    memcpy(b + 3, a, n + 1); /* another alignment */
    b[3 + WT__STRING_MAX + 5] = '#';
    const uint32_t ia = wt__intern_slow(c, a), ib = wt__intern_slow(c, b + 3);
    assert_int_not_equal(ia, 0);
    assert_int_equal(ia, ib);
    uint32_t len = 0;
    const char *bytes = wt__string_get(ia, &len);
    assert_int_equal(len, WT__STRING_MAX);
    assert_memory_equal(bytes, a, WT__STRING_MAX);
    b[3 + WT__STRING_MAX - 1] = '#';
    const uint32_t ic = wt__intern_slow(c, b + 3);
    assert_int_not_equal(ic, ia);
    bytes = wt__string_get(ic, &len);
    assert_int_equal(len, WT__STRING_MAX);
    assert_int_equal(bytes[WT__STRING_MAX - 1], '#');
    free(a);
    free(b);
    free(c);
}

typedef struct hashed {
    uint32_t hash, k;
} hashed;

static int cmp_hashed(const void *x, const void *y)
{
    const hashed *a = x, *b = y;
    return (a->hash > b->hash) - (a->hash < b->hash);
}

/* Two different strings "<prefix><k>" with one 32-bit hash, by the birthday bound (600,000
 * candidates make a collision all but certain). 0 when none was found. */
static int find_collision(const char *prefix, char *x, char *y, size_t cap)
{
    enum { N = 600000 };
    hashed *h = malloc(N * sizeof *h);
    assert_non_null(h);
    for (uint32_t k = 0; k < N; k++) {
        snprintf(x, cap, "%s%07" PRIu32, prefix, k);
        h[k].hash = wt__str_hash(x, strlen(x));
        h[k].k = k;
    }
    qsort(h, N, sizeof *h, cmp_hashed);
    int found = 0;
    for (uint32_t i = 1; i < N && !found; i++) {
        if (h[i].hash != h[i - 1].hash)
            continue;
        snprintf(x, cap, "%s%07" PRIu32, prefix, h[i - 1].k);
        snprintf(y, cap, "%s%07" PRIu32, prefix, h[i].k);
        found = 1;
    }
    free(h);
    return found;
}

/* Two strings whose hashes collide still get two ids, each found again by its content, both
 * short (verified from the table's slot alone) and long (a common 16-byte head, verified
 * against the interned copy). */
static void test_a_hash_collision_still_gives_two_ids(void **state)
{
    (void)state;
    static const char *const prefixes[] = { "c", "model.layers.17.self_attn.q" };
    for (size_t p = 0; p < sizeof prefixes / sizeof prefixes[0]; p++) {
        char x[64], y[64];
        assert_true(find_collision(prefixes[p], x, y, sizeof x));
        assert_string_not_equal(x, y);
        wt__skey kx, ky;
        wt__str_key(x, &kx);
        wt__str_key(y, &ky);
        assert_int_equal(kx.hash, ky.hash); /* the scan agrees with the known-length hash */
        assert_int_equal(kx.len, strlen(x));
        wt__icache *c = new_cache();
        char buf[64];
        strcpy(buf, x);
        const uint32_t ix = wt__intern_slow(c, buf);
        strcpy(buf, y);
        const uint32_t iy = wt__intern_slow(c, buf);
        assert_int_not_equal(ix, 0);
        assert_int_not_equal(iy, 0);
        assert_int_not_equal(ix, iy);
        for (int round = 0; round < 3; round++) {
            strcpy(buf, round % 2 ? x : y);
            assert_int_equal(wt__intern_slow(c, buf), round % 2 ? ix : iy);
        }
        assert_string_equal(wt__string_get(ix, NULL), x);
        assert_string_equal(wt__string_get(iy, NULL), y);
        /* a thread that meets them in the other order agrees */
        wt__icache *d = new_cache();
        strcpy(buf, y);
        assert_int_equal(wt__intern_slow(d, buf), iy);
        strcpy(buf, x);
        assert_int_equal(wt__intern_slow(d, buf), ix);
        free(c);
        free(d);
    }
}

/* A thread that meets many strings once keeps a bounded content table (64 Ki slots, 2 MiB:
 * rec_intern.c) that starts again small when full, and every string keeps its id: the
 * global table answers for those no longer in the thread's table. */
static void test_the_content_table_stays_bounded_and_ids_stay(void **state)
{
    (void)state;
    enum { N = 70000, CHECK = 200 };
    wt__icache *c = new_cache();
    uint32_t *ids = malloc(N * sizeof *ids);
    assert_non_null(ids);
    char buf[32];
    uint32_t max_cap = 0;
    for (uint32_t i = 0; i < N; i++) {
        snprintf(buf, sizeof buf, "request.%" PRIu32, i);
        ids[i] = wt__intern_slow(c, buf);
        assert_int_not_equal(ids[i], 0);
        if (c->tab_cap > max_cap)
            max_cap = c->tab_cap;
    }
    assert_true(max_cap <= 65536);
    assert_true(c->tab_n < 32768); /* it started again at least once */
    for (uint32_t i = 0; i < N; i += N / CHECK) {
        snprintf(buf, sizeof buf, "request.%" PRIu32, i);
        assert_int_equal(wt__intern_slow(c, buf), ids[i]);
        assert_string_equal(wt__string_get(ids[i], NULL), buf);
    }
    free(ids);
    free(c);
}

/* One buffer (its end at an unmapped page) rewritten with labels of 0..30 bytes over the
 * 'a' with at most one 'b', each written 1-3 times in a row, at every alignment: the memo of
 * the last label (rec_intern.h) answers the repeats, and every answer is the id of the bytes
 * the buffer holds, checked against wt__string_get(). Long shared prefixes, one-byte
 * differences and a NUL moved by one are all common. */
static void test_a_reused_buffer_always_gets_the_id_of_its_bytes(void **state)
{
    (void)state;
    long page;
    char *p = rt_guarded_page(&page);
    assert_non_null(p);
    uint64_t x = 88172645463325252ull;
    for (unsigned align = 0; align < 8; align++) {
        wt__icache *c = new_cache();
        char *buf = p + page - 40 + align; /* 40 - align bytes to the page's end */
        for (int step = 0; step < 3000; step++) {
            const size_t n = xorshift64(&x) % 31; /* the buffer holds 33 bytes or more */
            /* all 'a', but for one 'b' half the time: long shared prefixes */
            memset(buf, 'a', n);
            if (n && (x >> 40) & 1)
                buf[(x >> 44) % n] = 'b';
            buf[n] = '\0';
            for (unsigned rep = 0; rep < 1 + (x >> 60) % 3; rep++) {
                const uint32_t id = wt__intern_slow(c, buf);
                assert_int_not_equal(id, 0);
                uint32_t len = 0;
                const char *bytes = wt__string_get(id, &len);
                assert_int_equal(len, n);
                assert_memory_equal(bytes, buf, n);
            }
        }
        free(c);
    }
}

/* NULL is id 0 with no test of its own on the fast path (rec_intern.h): an empty way of its
 * set answers 0; when both ways hold strings it misses, and the full lookup still says 0. */
static void test_null_is_id_0_whether_its_set_is_full_or_not(void **state)
{
    (void)state;
    wt__icache *c = new_cache();
    wt__icache_ent *set = wt__icache_set(c, NULL);
    assert_int_equal(wt__icache_ro(c, NULL), 0);
    set[0].ptr = "first";
    set[0].id = set[0].rid = 5;
    assert_int_equal(wt__icache_ro(c, NULL), 0);
    set[1].ptr = "second";
    set[1].id = set[1].rid = 6;
    assert_int_equal(wt__icache_ro(c, NULL), WT__ICACHE_MISS);
    assert_int_equal(wt__intern(c, NULL), 0);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_strings_ending_at_an_unmapped_page_read_back_exactly, setup, teardown),
        cmocka_unit_test(test_key_length_and_head_match_the_bytes),
        cmocka_unit_test(test_same_content_same_id_at_every_alignment_and_length),
        cmocka_unit_test(test_strings_past_the_limit_map_to_their_cut),
        cmocka_unit_test(test_a_hash_collision_still_gives_two_ids),
        cmocka_unit_test(test_the_content_table_stays_bounded_and_ids_stay),
        cmocka_unit_test(test_null_is_id_0_whether_its_set_is_full_or_not),
        cmocka_unit_test(test_a_reused_buffer_always_gets_the_id_of_its_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
