/* The writer's side of formatted labels (issue 11): the two-way cache of copied labels in
 * front of its content table (rec_intern.h, wt__tcache), looked in inline by the encoding
 * loop (rec_emit.c). Labels that share a cache set, labels that share their first 16 bytes
 * but not their length or tail, labels of equal length and other bytes, every length from 1
 * to the cap: each must keep its own id, in the intern call itself and read back through a
 * trace. A label whose words wrap to the ring's start is joined before the lookup. And ids
 * are given in the order labels first appear: the writer's repeat count (its hint to the
 * recording thread) counts a label once, so a load of new labels never makes the recording
 * thread intern one ahead of the writer. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define RT_DIR_PREFIX "wx" /* this file's temporary directories */
#include "test_recorder_util.h"

#include "rec_intern.h"

static int exited_0(int st) { return WIFEXITED(st) && WEXITSTATUS(st) == 0; }

/* ---- the intern call: shared sets, shared heads ------------------------------------------ */

/* The writer's tables, as rec_writer.c keeps them (static: zeroed, the cache 128 KiB). */
static wt__icache tab;
static wt__tcache front;

/* The id of the NUL-terminated s, through a 128-byte copy (the call reads 16 bytes from the
 * label's first, as the ring's entries hold them), with the bytes past its end set to `junk`:
 * what lies there must not matter. */
static uint32_t intern_str(const char *s, char junk)
{
    char buf[128];
    memset(buf, junk, sizeof buf);
    const size_t n = strlen(s);
    memcpy(buf, s, n);
    return wt__intern_bytes(&tab, &front, buf, (uint32_t)n);
}

/* The string table holds exactly s under id. */
static void assert_string_is(uint32_t id, const char *s)
{
    uint32_t len = 0;
    const char *got = wt__string_get(id, &len);
    assert_non_null(got);
    assert_int_equal(len, strlen(s));
    assert_memory_equal(got, s, len);
}

#define N_SAME_HEAD 12

static void test_wtext_labels_sharing_their_first_16_bytes_keep_their_own_ids(void **state)
{
    (void)state;
    /* the same 16 bytes, then nothing or other tails and lengths; and labels of one length
     * that differ in one byte only, before, at and after byte 16 */
    const char *v[N_SAME_HEAD] = {
        "layers.17.attn.q",      "layers.17.attn.q_",     "layers.17.attn.q_proj",
        "layers.17.attn.q_prok", "layers.17.attn.q_proja", "layers.17.attn.k_proj",
        "layers.17.attn.",       "layers.17.attn",        "layers.17.attn.r",
        "l",                     "m",
        "layers.17.attn.q_proj.weight.and.some.more.bytes.to.pass.the.second.line",
    };
    uint32_t id[N_SAME_HEAD];
    for (int i = 0; i < N_SAME_HEAD; i++) {
        id[i] = intern_str(v[i], (char)('a' + i));
        assert_true(id[i] != 0);
        assert_string_is(id[i], v[i]);
        for (int j = 0; j < i; j++)
            assert_true(id[i] != id[j]);
    }
    /* again, in another order and other junk past each: the same ids, from the cache */
    for (int round = 0; round < 3; round++)
        for (int i = N_SAME_HEAD - 1; i >= 0; i--)
            assert_int_equal(intern_str(v[i], (char)(round * 7 + i)), id[i]);
}

/* Labels of one cache set: "s.<k>" for k found by trying, as the cache's own set function
 * places them. */
#define N_SET 6

static void test_wtext_labels_of_one_cache_set_keep_their_own_ids(void **state)
{
    (void)state;
    char v[N_SET][32];
    int n = 0;
    const wt__tcache_ent *want = NULL;
    for (int k = 0; n < N_SET && k < 10000000; k++) {
        char s[32];
        snprintf(s, sizeof s, "set.%d.wq", k);
        char buf[128] = { 0 };
        memcpy(buf, s, strlen(s));
        uint64_t h[2];
        wt__tcache_head(buf, (uint32_t)strlen(s), h);
        const wt__tcache_ent *set = wt__tcache_set(&front, h, (uint32_t)strlen(s));
        if (!want)
            want = set;
        if (set == want)
            memcpy(v[n++], s, sizeof s);
    }
    assert_int_equal(n, N_SET);
    /* six labels, two ways: each round evicts, and every answer must still be its own */
    uint32_t id[N_SET];
    for (int i = 0; i < N_SET; i++) {
        id[i] = intern_str(v[i], 'z');
        assert_string_is(id[i], v[i]);
    }
    for (int round = 0; round < 4; round++)
        for (int i = 0; i < N_SET; i++) {
            const int k = (i * 5 + round) % N_SET;
            assert_int_equal(intern_str(v[k], (char)round), id[k]);
            assert_int_equal(intern_str(v[k], 0), id[k]); /* now in way 0 */
        }
}

/* A label of n bytes: `head` (16 bytes) then 'x' up to n, in a 128-byte buffer of zeros. */
static void prefix_label(char *buf, const char *head, unsigned n)
{
    memset(buf, 0, 128);
    memcpy(buf, head, 16);
    memset(buf + 16, 'x', n - 16);
}

static void test_wtext_labels_that_are_prefixes_of_each_other_keep_their_own_ids(void **state)
{
    (void)state;
    /* one 16-byte head and 'x' to every length from 17 to the cap: each label is the prefix
     * of the next, so past the head only the length tells them apart (a tail compare stops
     * at the looked-up label's own length). The set depends on the length too, and this
     * family never shares one (lengths differ in their low 7 bits, which one multiply
     * spreads over the set bits); the way still compares it. */
    const char *head = "prefix.00042.abc";
    uint32_t id[WT__TEXT_CAP + 1];
    char b[128];
    for (unsigned n = 17; n <= WT__TEXT_CAP; n++) { /* the longer one first, then each below */
        const unsigned len = WT__TEXT_CAP + 17 - n;
        prefix_label(b, head, len);
        id[len] = intern_str(b, 'x'); /* 'x' past it: as the longer labels go on */
        assert_string_is(id[len], b);
        for (unsigned m = len + 1; m <= WT__TEXT_CAP; m++)
            assert_true(id[len] != id[m]);
    }
    for (int round = 0; round < 2; round++)
        for (unsigned len = 17; len <= WT__TEXT_CAP; len++) {
            prefix_label(b, head, len);
            assert_int_equal(intern_str(b, 'x'), id[len]);
        }
}

/* ---- through a trace --------------------------------------------------------------------- */

/* The label of span i in both the children and the checks: lengths 1 to the cap (88), heads
 * shared by many, tails and lengths varying; 997 of them, in a scrambled order. */
#define N_SPANS 40000
#define N_LABELS 997

static void label_of(int i, char *out, size_t cap)
{
    const unsigned k = (unsigned)i * 7919u % N_LABELS;
    const unsigned len = 1 + k % 88;
    char tmp[160];
    /* the same first 16 bytes for every label of 16 bytes or more */
    snprintf(tmp, sizeof tmp,
             "model.layers.xx.%u.self_attn.q_proj.weight.%u.and.bytes.to.fill.the.cap.and.past.it.%u",
             k, k * 31u, k * 17u);
    if (len < 16) /* short ones vary within their bytes */
        snprintf(tmp, sizeof tmp, "%u.%u.layer.wq", k, k * 13u);
    const size_t have = strlen(tmp);
    const size_t n = len < have ? len : have;
    memcpy(out, tmp, n);
    out[n < cap ? n : cap - 1] = '\0';
}

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

/* What a child records: n spans, span i labelled by label(i) formatted into one buffer. */
typedef struct run_spec {
    int n;
    void (*label)(int i, char *out, size_t cap);
} run_spec;

static int child_record(void *arg)
{
    const run_spec *r = arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    /* the smallest ring, so spans whose words take 1 to 4 entries wrap to its start often; no
     * span may be dropped, as each is checked */
    setenv("WALLTIME_RING", "1024", 1);
    setenv("WALLTIME_RING_WAIT_MS", "10000", 1);
    if (wt_open(path) != 0)
        return 10;
    char buf[128];
    for (int i = 0; i < r->n; i++) {
        r->label(i, buf, sizeof buf);
        const wt_span h = wt_begin("load", buf);
        wt_end(h, WT_CACHED_HIT, 0, NULL);
    }
    return wt_close() != 0;
}

static void test_wtext_every_label_reads_back_exactly_through_a_small_ring(void **state)
{
    (void)state;
    const uint32_t base = wt__string_count(); /* the strings the child inherits */
    run_spec spec = { N_SPANS, label_of };
    assert_true(exited_0(rt_run(child_record, &spec, NULL, NULL)));
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    int i = 0;
    for (size_t j = 0; j < t->n; j++) {
        const wt_event *e = &t->ev[j].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        char want[128];
        label_of(i, want, sizeof want);
        assert_non_null(e->label);
        assert_string_equal(e->label, want);
        i++;
    }
    assert_int_equal(i, N_SPANS);
    /* one string per distinct label (truncation makes some equal), the category, the
     * placeholder for labels lost in a crash (made with the first copied label) and those
     * the child inherited (the tests above ran in this process) */
    static char all[N_LABELS][128];
    for (int k = 0; k < N_LABELS; k++)
        label_of(k, all[k], sizeof all[k]);
    qsort(all, N_LABELS, sizeof all[0], cmp_str);
    uint64_t distinct = 1;
    for (int k = 1; k < N_LABELS; k++)
        distinct += strcmp(all[k], all[k - 1]) != 0;
    assert_true(distinct > 900); /* most of them, by the generator's design */
    assert_int_equal(t->stats.strings, base + distinct + 2);
    rt_free(t);
}

/* ---- ids in the order labels first appear ------------------------------------------------ */

#define N_UNIQUE 60000

static void unique_label(int i, char *out, size_t cap) { snprintf(out, cap, "u.%d", i); }

static void test_wtext_new_labels_take_ids_in_the_order_they_appear(void **state)
{
    (void)state;
    const uint32_t base = wt__string_count(); /* the strings the child inherits */
    run_spec spec = { N_UNIQUE, unique_label };
    assert_true(exited_0(rt_run(child_record, &spec, NULL, NULL)));
    wt_reader *r = NULL;
    assert_int_equal(wt_reader_open(path, &r), 0);
    wt_event ev;
    int spans = 0;
    while (wt_reader_next(r, &ev) > 0)
        spans += ev.kind == WT_EV_SPAN;
    assert_int_equal(spans, N_UNIQUE);
    /* the labels' ids in the file are in the order they were recorded: u.0, u.1, ... (among
     * them the category, the crash placeholder and the strings the child inherited). No
     * label is a repeat, so the writer never asks the recording thread to intern one
     * itself, which would give it an id ahead of those still in the ring. */
    wt_reader_stats st;
    wt_reader_get_stats(r, &st);
    assert_int_equal(st.strings, base + N_UNIQUE + 2);
    int next = 0;
    for (uint32_t id = 1; id <= st.strings; id++) {
        const char *s = wt_reader_string(r, id);
        assert_non_null(s);
        if (strncmp(s, "u.", 2) != 0)
            continue;
        char want[32];
        snprintf(want, sizeof want, "u.%d", next++);
        assert_string_equal(s, want);
    }
    assert_int_equal(next, N_UNIQUE);
    wt_reader_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wtext_labels_sharing_their_first_16_bytes_keep_their_own_ids),
        cmocka_unit_test(test_wtext_labels_of_one_cache_set_keep_their_own_ids),
        cmocka_unit_test(test_wtext_labels_that_are_prefixes_of_each_other_keep_their_own_ids),
        cmocka_unit_test_setup_teardown(test_wtext_every_label_reads_back_exactly_through_a_small_ring, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wtext_new_labels_take_ids_in_the_order_they_appear, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
