/* Tests of the Perfetto sink's string tables (pf_maps.c): the pointer cache's sets of four
 * (what stays, what goes, against a hand-worked order), the interning table against a model
 * of first appearances (iids, "new", the stored text) across its growth, the interning budget's
 * arithmetic worked by hand, and the UTF-8 check's eight-byte steps against a byte-by-byte
 * walk over every placement of each kind of sequence. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"
#include "pf_maps.h"

/* ---- the pointer cache ---- */

/* Six strings in one block whose pointers fall in one set of the cache. */
static char *same_set(char **at, int n)
{
    char *block = calloc(1, (size_t)1 << 24);
    assert_non_null(block);
    const size_t want = wt__pf_ptr_set(block);
    int k = 0;
    at[k++] = block;
    for (size_t off = 64; off + 64 <= (size_t)1 << 24 && k < n; off += 64)
        if (wt__pf_ptr_set(block + off) == want)
            at[k++] = block + off;
    assert_int_equal(k, n);
    for (int i = 0; i < n; i++)
        snprintf(at[i], 32, "label-%d", i);
    return block;
}

static uint32_t get(pf_itab *t, const char *s, int *is_new)
{
    uint32_t iid;
    assert_int_equal(wt__pf_itab_get(t, s, &iid, is_new), 0);
    return iid;
}

/* Four strings of one set all stay cached; a fifth drops the one put in first; a string
 * looked up again by content goes back in, dropping the next oldest; after a forget, the
 * set's stale ways are taken first. */
static void test_pf_itab_set_keeps_four_and_drops_the_oldest(void **state)
{
    (void)state;
    char *s[6];
    char *block = same_set(s, 6);
    pf_itab *t = calloc(1, sizeof *t);
    assert_non_null(t);
    int is_new;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(get(t, s[i], &is_new), i + 1);
        assert_int_equal(is_new, 1);
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(wt__pf_itab_cached(t, s[i]), i + 1);
    assert_int_equal(get(t, s[4], &is_new), 5); /* in: 4 3 2 1 -> 5 4 3 2 */
    assert_int_equal(wt__pf_itab_cached(t, s[0]), 0);
    for (int i = 1; i < 5; i++)
        assert_int_equal(wt__pf_itab_cached(t, s[i]), i + 1);
    assert_int_equal(get(t, s[0], &is_new), 1); /* by content: 1 5 4 3 */
    assert_int_equal(is_new, 0);
    assert_int_equal(wt__pf_itab_cached(t, s[0]), 1);
    assert_int_equal(wt__pf_itab_cached(t, s[1]), 0);
    for (int i = 2; i < 5; i++)
        assert_int_equal(wt__pf_itab_cached(t, s[i]), i + 1);
    /* a cached string's lookup changes nothing */
    assert_int_equal(get(t, s[2], &is_new), 3);
    assert_int_equal(wt__pf_itab_cached(t, s[1]), 0);
    assert_int_equal(wt__pf_itab_cached(t, s[3]), 4);
    /* forgotten: every way is stale, the next two go in and the others stay out */
    wt__pf_itab_forget_pointers(t);
    assert_int_equal(get(t, s[5], &is_new), 6);
    assert_int_equal(get(t, s[1], &is_new), 2);
    assert_int_equal(wt__pf_itab_cached(t, s[5]), 6);
    assert_int_equal(wt__pf_itab_cached(t, s[1]), 2);
    for (int i = 0; i < 5; i++)
        if (i != 1)
            assert_int_equal(wt__pf_itab_cached(t, s[i]), 0);
    /* two more: four in, none dropped (the stale ways went first) */
    assert_int_equal(get(t, s[0], &is_new), 1);
    assert_int_equal(get(t, s[4], &is_new), 5);
    assert_int_equal(wt__pf_itab_cached(t, s[5]), 6);
    assert_int_equal(wt__pf_itab_cached(t, s[1]), 2);
    assert_int_equal(wt__pf_itab_cached(t, s[0]), 1);
    assert_int_equal(wt__pf_itab_cached(t, s[4]), 5);
    wt__pf_itab_release(t);
    free(t);
    free(block);
}

/* ---- the table ---- */

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* The text of string k: unique to k, ASCII, of 3 to 63 bytes (every end of the hash's word
 * steps). */
static size_t text_of(unsigned k, char *out)
{
    int n = snprintf(out, 80, "t%u.", k);
    size_t len = (size_t)n + (k * 7919u) % 56u;
    for (size_t i = (size_t)n; i < len; i++)
        out[i] = (char)('a' + (k + i) % 26);
    out[len] = '\0';
    return len;
}

/* 60,000 lookups of 20,000 strings in random order, each at a pointer of its own (no cache
 * hit), against the model: the iid is the order of first appearance, "new" the first time,
 * and the stored text the string's. The table grows from 256 slots to 32,768 on the way. */
static void test_pf_itab_lookups_match_first_appearances(void **state)
{
    (void)state;
    enum { K = 20000, L = 60000 };
    pf_itab *t = calloc(1, sizeof *t);
    uint32_t *first = calloc(K, sizeof *first); /* the model: iid by k, 0 = not seen */
    char *texts = malloc((size_t)L * 80);
    assert_true(t && first && texts);
    uint32_t seen = 0;
    for (int i = 0; i < L; i++) {
        const unsigned k = next_rand() % K;
        char *s = texts + (size_t)i * 80;
        const size_t len = text_of(k, s);
        uint32_t iid;
        int is_new;
        if (i % 2)
            assert_int_equal(wt__pf_itab_get(t, s, &iid, &is_new), 0);
        else
            assert_int_equal(wt__pf_itab_get_n(t, s, len, &iid, &is_new), 0);
        if (!first[k]) {
            first[k] = ++seen;
            assert_int_equal(is_new, 1);
        } else {
            assert_int_equal(is_new, 0);
        }
        assert_int_equal(iid, first[k]);
        assert_string_equal(wt__pf_itab_str(t, iid), s);
    }
    assert_int_equal(t->n, seen);
    assert_true(t->scap * 3 >= t->n * 4); /* at most three quarters full */
    wt__pf_itab_release(t);
    free(t);
    free(first);
    free(texts);
}

/* The table grows at three quarters full, by hand: 256 slots hold 192 strings, the 193rd
 * doubles them; 384 in 512, the 385th doubles again. */
static void test_pf_itab_grows_at_three_quarters(void **state)
{
    (void)state;
    pf_itab *t = calloc(1, sizeof *t);
    char *texts = malloc((size_t)400 * 80);
    assert_true(t && texts);
    int is_new;
    for (unsigned k = 0; k < 385; k++) {
        text_of(k, texts + (size_t)k * 80);
        assert_int_equal(get(t, texts + (size_t)k * 80, &is_new), k + 1);
        const size_t want = k + 1 <= 192 ? 256 : k + 1 <= 384 ? 512 : 1024;
        assert_int_equal(t->scap, want);
    }
    wt__pf_itab_release(t);
    free(t);
    free(texts);
}

/* The budget, by hand: a string of L bytes costs L + 1 + 40 (entry 16, slots 8, allocator 16;
 * the figure decides what is interned, so it may not move). With room for two 16-byte strings
 * and one byte less than a third, the third is not added (iid 0, not cached, asked again the
 * same way), a short one still is, and a needed one always is, emptying the budget. */
static void test_pf_itab_budget_worked_by_hand(void **state)
{
    (void)state;
    assert_int_equal(PF_ISTR_OVERHEAD, 40);
    pf_itab *t = calloc(1, sizeof *t);
    assert_non_null(t);
    size_t budget = 3 * (16 + 1 + 40) - 1;
    t->budget = &budget;
    int is_new;
    assert_int_equal(get(t, "aaaaaaaaaaaaaaaa", &is_new), 1);
    assert_int_equal(get(t, "bbbbbbbbbbbbbbbb", &is_new), 2);
    assert_int_equal(budget, 16 + 1 + 40 - 1);
    static const char third[] = "cccccccccccccccc";
    assert_int_equal(get(t, third, &is_new), 0);
    assert_int_equal(is_new, 0);
    assert_int_equal(wt__pf_itab_cached(t, third), 0);
    assert_int_equal(get(t, third, &is_new), 0);
    assert_int_equal(get(t, "ddddddddddddddd", &is_new), 3); /* 15 bytes: 56 <= 56 */
    assert_int_equal(budget, 0);
    uint32_t iid;
    assert_int_equal(wt__pf_itab_need(t, third, &iid, &is_new), 0);
    assert_int_equal(iid, 4);
    assert_int_equal(is_new, 1);
    assert_int_equal(budget, 0);
    assert_int_equal(get(t, "aaaaaaaaaaaaaaaa", &is_new), 1); /* known ones past the budget */
    assert_int_equal(get(t, third, &is_new), 4);
    /* a string repaired to UTF-8 counts its stored bytes: 2 + 3 + 1 */
    budget = 100;
    assert_int_equal(get(t, "x\xFFy", &is_new), 5);
    assert_string_equal(wt__pf_itab_str(t, 5), "x\xEF\xBF\xBDy");
    assert_int_equal(budget, 100 - (5 + 1 + 40));
    wt__pf_itab_release(t);
    free(t);
}

/* Past the budget (the first string refused), lookups of strings not cached go through the
 * filter of those interned: each of 5,000 interned before is found by its content (a copy at
 * another address, so the pointer cache has nothing), strings never interned stay out and add
 * nothing, and one that fits the budget's rest after the refusal is interned and found too. */
static void test_pf_itab_past_the_budget_finds_every_interned_string(void **state)
{
    (void)state;
    enum { N = 5000 };
    pf_itab *t = calloc(1, sizeof *t);
    assert_non_null(t);
    size_t budget = (size_t)N * (10 + 1 + 40) + (4 + 1 + 40);
    t->budget = &budget;
    int is_new;
    char s[32], copy[32];
    for (int i = 0; i < N; i++) {
        snprintf(s, sizeof s, "tensor%04d", i); /* 10 bytes */
        wt__pf_itab_forget_pointers(t); /* one buffer: its pointer is not the string's key */
        assert_int_equal(get(t, s, &is_new), i + 1);
    }
    assert_int_equal(budget, 4 + 1 + 40);
    assert_int_equal(get(t, "a string too long for the rest", &is_new), 0); /* refused */
    assert_int_equal(get(t, "new!", &is_new), N + 1); /* 4 bytes: fits exactly */
    assert_int_equal(budget, 0);
    for (int i = 0; i < N; i++) {
        snprintf(copy, sizeof copy, "tensor%04d", i);
        wt__pf_itab_forget_pointers(t);
        assert_int_equal(get(t, copy, &is_new), i + 1);
        assert_int_equal(is_new, 0);
        snprintf(copy, sizeof copy, "absent%04d", i);
        wt__pf_itab_forget_pointers(t);
        assert_int_equal(get(t, copy, &is_new), 0);
    }
    snprintf(copy, sizeof copy, "new!");
    wt__pf_itab_forget_pointers(t);
    assert_int_equal(get(t, copy, &is_new), N + 1);
    assert_int_equal(t->n, N + 1);
    wt__pf_itab_release(t);
    free(t);
}

/* ---- UTF-8 ---- */

/* The model: a byte at a time, a sequence by the JSON writer's decoder. */
static int utf8_ok_model(const unsigned char *u, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (u[i] < 0x80)
            continue;
        size_t len = wt_json_utf8_len(u + i, n - i);
        if (!len)
            return 0;
        i += len - 1;
    }
    return 1;
}

/* Each kind of sequence (valid of 2, 3, 4 bytes; a stray continuation byte; a cut sequence;
 * an overlong; a surrogate; 0xFF) at every position of ASCII strings of 0 to 40 bytes, and
 * 20,000 strings of random bytes, mostly ASCII: the same answer as the model. */
static void test_pf_utf8_ok_matches_bytewise_model(void **state)
{
    (void)state;
    static const char *const seqs[] = { "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\x80",
                                        "\xC3", "\xE2\x82", "\xC0\xAF", "\xED\xA0\x80", "\xFF" };
    unsigned char b[64];
    int bad = 0, good = 0;
    for (size_t n = 0; n <= 40; n++) {
        memset(b, 'a', sizeof b);
        assert_int_equal(wt__pf_utf8_ok((const char *)b, n), 1);
        for (size_t q = 0; q < sizeof seqs / sizeof seqs[0]; q++) {
            const size_t sl = strlen(seqs[q]);
            for (size_t p = 0; p + sl <= n; p++) {
                memset(b, 'a', sizeof b);
                memcpy(b + p, seqs[q], sl);
                const int want = utf8_ok_model(b, n);
                assert_int_equal(wt__pf_utf8_ok((const char *)b, n), want);
                bad += !want;
                good += want;
            }
        }
    }
    assert_true(bad > 1000 && good > 1000);
    for (int r = 0; r < 20000; r++) {
        const size_t n = next_rand() % 48;
        for (size_t i = 0; i < n; i++) {
            const uint32_t x = next_rand();
            b[i] = (unsigned char)(x % 16 == 0 ? 0x80 | (x >> 8) : 0x20 + (x >> 8) % 90);
        }
        assert_int_equal(wt__pf_utf8_ok((const char *)b, n), utf8_ok_model(b, n));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pf_itab_set_keeps_four_and_drops_the_oldest),
        cmocka_unit_test(test_pf_itab_lookups_match_first_appearances),
        cmocka_unit_test(test_pf_itab_grows_at_three_quarters),
        cmocka_unit_test(test_pf_itab_budget_worked_by_hand),
        cmocka_unit_test(test_pf_itab_past_the_budget_finds_every_interned_string),
        cmocka_unit_test(test_pf_utf8_ok_matches_bytewise_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
