/* Labels past the analyses' key bound (spanstat.h) when spans come with labels of their own:
 * the filter of kept labels (textset.h) against a brute-force model, and the ledger and the
 * anomalies, which ask it before their exact look-ups, against a model of the bound that
 * follows its rule span by span (first come first served, fold keys counted, a label known
 * keeps its key whatever its id or file).
 *
 * The traces are real files (tracebuild.h) read by wt_analysis_run(): the reader's batches,
 * string ids and pointers, two files with the same labels under other ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis.h"
#include "spanstat.h"
#include "textset.h"
#include "tracebuild.h"

/* ---- the filter ---- */

/* String i of a fixed sequence: i % 41 bytes (0 to 40, so every tail length of the
 * word-at-a-time hash), any byte values, from the xorshift state *x. */
static size_t seq_string(uint64_t *x, int i, char *s)
{
    const size_t n = (size_t)i % 41;
    for (size_t k = 0; k < n; k++) {
        *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
        s[k] = (char)(*x & 0xff);
    }
    return n;
}

/* Every string added is "maybe", whatever its length and bytes; an empty set is "maybe" to
 * all (it was never made). */
static void test_textset_never_says_absent_for_what_it_holds(void **state)
{
    (void)state;
    wt__textset t = { NULL, 0 };
    assert_int_equal(wt__textset_maybe(&t, "x", 1), 1);
    char s[41];
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 16384; i++) {
        const size_t n = seq_string(&x, i, s);
        assert_int_equal(wt__textset_add(&t, s, n), 0);
        assert_int_equal(wt__textset_maybe(&t, s, n), 1);
    }
    x = 88172645463325252ULL; /* the same strings again, all still there */
    for (int i = 0; i < 16384; i++) {
        const size_t n = seq_string(&x, i, s);
        assert_int_equal(wt__textset_maybe(&t, s, n), 1);
    }
    wt__textset_release(&t);
    assert_null(t.bits);
}

/* 16,384 labels "tensor.N.weight" held; 200,000 others of the same shape (they differ from
 * the held ones in a few middle bytes) are "maybe" for about one in a thousand (two bits of
 * 2^20 per string: (1 - e^(-2 * 16384 / 2^20))^2 = 0.00095); a held string but its last byte
 * is another string; and the same for strings shorter than a word. */
static void test_textset_says_absent_for_most_others(void **state)
{
    (void)state;
    wt__textset t = { NULL, 0 };
    char s[64];
    for (int i = 0; i < 16384; i++) {
        const int n = snprintf(s, sizeof s, "tensor.%d.weight", i);
        assert_int_equal(wt__textset_add(&t, s, (size_t)n), 0);
    }
    int maybe = 0;
    for (int i = 16384; i < 16384 + 200000; i++) {
        const int n = snprintf(s, sizeof s, "tensor.%d.weight", i);
        maybe += wt__textset_maybe(&t, s, (size_t)n);
    }
    assert_true(maybe < 200000 / 300); /* 0.33 %: three times the expected rate */
    int cut = 0;
    for (int i = 0; i < 16384; i++) {
        const int n = snprintf(s, sizeof s, "tensor.%d.weight", i);
        cut += wt__textset_maybe(&t, s, (size_t)n - 1);
    }
    assert_true(cut < 16384 / 100);
    wt__textset_release(&t);

    /* the same with strings shorter than a word (read byte by byte): "0" to "16383" held */
    for (int i = 0; i < 16384; i++) {
        const int n = snprintf(s, sizeof s, "%d", i);
        assert_int_equal(wt__textset_add(&t, s, (size_t)n), 0);
    }
    maybe = 0;
    for (int i = 16384; i < 16384 + 200000; i++) {
        const int n = snprintf(s, sizeof s, "%d", i);
        maybe += wt__textset_maybe(&t, s, (size_t)n);
    }
    assert_true(maybe < 200000 / 300);
    wt__textset_release(&t);
}

/* ---- the analyses against a model of the bound ---- */

#define NSPAN (WT_MAX_LABEL_KEYS + 8000)
#define MAXKEY (WT_MAX_LABEL_KEYS + 16)

/* The model: the (category, label) keys in the order they were made, each span's count,
 * found through a chained table of its own (djb2 of the category and the label). */
#define MODEL_BUCKETS 65536
typedef struct model {
    char cat[MAXKEY][8];
    char lab[MAXKEY][24];
    int64_t n_of[MAXKEY];
    int next[MAXKEY];           /* chain: the next key of the bucket, -1 */
    int head[MODEL_BUCKETS];    /* first key + 1 of each bucket, 0 none */
    int n_keys;
    int cat_keys[256]; /* by the category's letter */
    int64_t folded;
    size_t bytes;
} model;

static unsigned model_bucket(const char *c, const char *l)
{
    unsigned h = 5381;
    for (; *c; c++)
        h = h * 33 + (unsigned char)*c;
    h = h * 33 + 1;
    for (; *l; l++)
        h = h * 33 + (unsigned char)*l;
    return h % MODEL_BUCKETS;
}

static int model_find(const model *m, const char *c, const char *l)
{
    for (int k = m->head[model_bucket(c, l)] - 1; k >= 0; k = m->next[k])
        if (!strcmp(m->cat[k], c) && !strcmp(m->lab[k], l))
            return k;
    return -1;
}

/* The key of a span of (c, l): its own, made while the bound allows, else c's fold key (a
 * label written "(other labels)" finds that key as its own, not folded). */
static int model_span(model *m, const char *c, const char *l)
{
    int k = model_find(m, c, l);
    /* the keys of c so far: the last WT_LABEL_KEY_RESERVE are for small categories (the
     * test's categories are one letter each) */
    assert_int_equal(strlen(c), 1);
    const int in_cat = m->cat_keys[(unsigned char)c[0]];
    const int full = m->n_keys >= WT_MAX_LABEL_KEYS ||
                     (m->n_keys >= WT_MAX_LABEL_KEYS - WT_LABEL_KEY_RESERVE &&
                      in_cat >= WT_SMALL_CATEGORY_KEYS);
    if (k < 0 && (full || m->bytes + strlen(l) > WT_MAX_LABEL_KEY_BYTES)) {
        m->folded++;
        l = WT_OTHER_LABELS;
        k = model_find(m, c, l);
    }
    if (k < 0) {
        assert_true(m->n_keys < MAXKEY);
        k = m->n_keys++;
        snprintf(m->cat[k], sizeof m->cat[k], "%s", c);
        snprintf(m->lab[k], sizeof m->lab[k], "%s", l);
        m->bytes += strlen(l);
        m->cat_keys[(unsigned char)c[0]]++;
        const unsigned b = model_bucket(c, l);
        m->next[k] = m->head[b] - 1;
        m->head[b] = k + 1;
    }
    m->n_of[k]++;
    return k;
}

typedef struct fold_span {
    const char *cat;
    char lab[24];
    int miss;
} fold_span;

/* The spans of file f (0 or 1): file 0 makes 16,380 keys in three categories (labels
 * "u.N"), then goes past the bound with new labels (a new one each span), the kept ones
 * again, a label written "(other labels)", and a fourth category; file 1 has the kept labels
 * and new ones again, under other ids and pointers. Some spans are MISSes. */
static int make_spans(int f, fold_span *s)
{
    static const char *const cats[4] = { "a", "b", "c", "d" };
    int n = 0;
    if (f == 0)
        for (int i = 0; i < WT_MAX_LABEL_KEYS - 4; i++, n++) {
            s[n].cat = cats[i % 3];
            snprintf(s[n].lab, sizeof s[n].lab, "u.%d", i);
            s[n].miss = 0;
        }
    for (int i = 0; n < (f == 0 ? NSPAN : 8000); i++, n++) {
        /* runs of 8 spans of a category, so that a kept label often follows a folded one of
         * its category */
        s[n].cat = cats[(i / 8) % 7 == 6 ? 3 : (i / 8) % 3];
        s[n].miss = i % 13 == 1;
        if (i % 5 == 1) /* a kept label, of this category or of another one */
            snprintf(s[n].lab, sizeof s[n].lab, "u.%d", (i * 7) % (WT_MAX_LABEL_KEYS - 4));
        else if (i == 4005 || i == 6007) /* once the fold keys are made; MISSes */
            snprintf(s[n].lab, sizeof s[n].lab, "%s", WT_OTHER_LABELS);
        else if (i % 11 == 2) /* a new label seen before in this run */
            snprintf(s[n].lab, sizeof s[n].lab, "n.%d.%d", f, i / 2);
        else
            snprintf(s[n].lab, sizeof s[n].lab, "n.%d.%d", f, i);
    }
    return n;
}

static fold_span spans[2][NSPAN];
static int n_spans[2];
static model want;

static void write_trace(const char *path, int f)
{
    tb *b = tb_create(path, 100 + (uint64_t)f, 0, 0);
    for (int i = 0; i < n_spans[f]; i++) {
        const int64_t t = 1000000 + 1000 * (int64_t)i;
        const tb_span_desc d = { .tid = 100 + (uint64_t)f, .start = t, .end = t + 500,
                                 .category = spans[f][i].cat, .label = spans[f][i].lab,
                                 .cached = spans[f][i].miss ? WT_CACHED_MISS : WT_CACHED_HIT };
        tb_span_ex(b, &d);
        if (i % 5000 == 4999)
            tb_frame(b);
    }
    tb_close(b, TB_END_CLEAN, 1000000 + 1000 * (int64_t)n_spans[f] + 1000, 0);
}

/* Both files through wt_analysis_run(): every key's span count in the ledger's --by label
 * rows, its folded count, as the model says, and the label each listed MISS names in the
 * anomalies: the span's own. */
static void test_labels_past_the_bound_fold_as_the_model_says(void **state)
{
    (void)state;
    assert_int_equal(tb_tmpdir_enter("label_fold"), 0);
    char *paths[2] = { tb_path_in("f0.wtrace"), tb_path_in("f1.wtrace") };
    memset(&want, 0, sizeof want);
    int want_miss[2 * NSPAN / 13 + 8], n_miss = 0;
    static const char *miss_label[2 * NSPAN / 13 + 8];
    for (int f = 0; f < 2; f++) {
        n_spans[f] = make_spans(f, spans[f]);
        for (int i = 0; i < n_spans[f]; i++) {
            const int k = model_span(&want, spans[f][i].cat, spans[f][i].lab);
            if (spans[f][i].miss) {
                miss_label[n_miss] = spans[f][i].lab;
                want_miss[n_miss++] = k;
            }
        }
        write_trace(paths[f], f);
    }
    assert_true(want.folded > 8000); /* the test goes well past the bound */

    wt_ledger_opts lo = { .by_label = 1, .top = 1000000 };
    wt_analysis_opts o = { .ledger = &lo };
    wt_analysis a;
    assert_int_equal(wt_analysis_run(paths, 2, &o, &a), 0);
    const wt_ledger_result *r = wt_ledger_calc_result(a.lc);
    assert_int_equal(r->folded_labels, want.folded);
    assert_int_equal(r->folded_categories, 0);
    size_t rows = 0; /* each row a key of the model's, with its count: all of them */
    for (size_t i = 0; i < r->n_cats; i++)
        for (size_t j = 0; j < r->cats[i].n_labels; j++, rows++) {
            const wt_ledger_label *lab = &r->cats[i].labels[j];
            assert_non_null(lab->name);
            const int k = model_find(&want, r->cats[i].name, lab->name);
            assert_true(k >= 0);
            assert_int_equal(lab->st.n, want.n_of[k]);
        }
    assert_int_equal(rows, (size_t)want.n_keys);
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(a.an, &n);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].kind != WT_AN_MISS)
            continue;
        assert_true(seen < n_miss);
        assert_string_equal(v[i].category, want.cat[want_miss[seen]]);
        /* a folded MISS names its own label, not its key's */
        assert_string_equal(v[i].label, miss_label[seen]);
        seen++;
    }
    assert_int_equal(seen, n_miss);
    wt_analysis_release(&a);

    /* without --by label, the folded spans take the ledger's common case (its per-label
     * statistics are what keeps them out of it): the same folds counted */
    lo.by_label = 0;
    assert_int_equal(wt_analysis_run(paths, 2, &o, &a), 0);
    r = wt_ledger_calc_result(a.lc);
    assert_int_equal(r->folded_labels, want.folded);
    for (size_t i = 0; i < r->n_cats; i++) {
        int64_t n_cat = 0;
        for (int k = 0; k < want.n_keys; k++)
            n_cat += strcmp(want.cat[k], r->cats[i].name) ? 0 : want.n_of[k];
        assert_int_equal(r->cats[i].spans, n_cat);
    }
    wt_analysis_release(&a);
    assert_int_equal(tb_tmpdir_leave(), 0);
}

/* ---- what the anomalies find among folded labels ---- */

#define MS 1000000LL

static void span_at(tb *b, int64_t start, int64_t dur, const char *label, wt_cached c)
{
    const tb_span_desc d = { .tid = 1, .start = start, .end = start + dur, .category = "w",
                             .label = label, .cached = c };
    tb_span_ex(b, &d);
}

/* File f of one program: the bound's 16,384 labels "k.N" first (file 0 only), then rounds of
 * folded labels, 1 ms each, "g.N" HITs around them. Round 1: f.a MISS, f.b HIT; round 2: f.b
 * MISS (a repeat of a HIT: not seen among folded labels), f.c MISS (its first load); round 3:
 * f.a MISS (a repeat of round 1's MISS), g.slow a 400 ms span, g.slowhit a 300 ms HIT. File 1,
 * a later run: f.c MISS (a repeat of file 0's), f.d MISS (its first load). */
static void write_fold_run(const char *path, int f)
{
    const int64_t t0 = f == 0 ? 0 : 100000 * MS;
    tb *b = tb_create(path, 10 + (uint64_t)f, t0, t0);
    tb_set_cmdline(b, "load.py --model moe");
    char lab[32];
    int64_t t = t0 + MS;
    if (f == 0)
        for (int i = 0; i < WT_MAX_LABEL_KEYS; i++, t += 2 * MS) {
            snprintf(lab, sizeof lab, "k.%d", i);
            span_at(b, t, MS, lab, WT_CACHED_HIT);
        }
    static const char *const miss[2][3][2] = { { { "f.a", NULL }, { "f.b", "f.c" }, { "f.a", NULL } },
                                               { { "f.c", "f.d" }, { NULL, NULL }, { NULL, NULL } } };
    int g = 0;
    for (int r = 0; r < 3; r++) {
        const int64_t rs = t;
        for (int i = 0; i < 100; i++, t += 2 * MS) {
            snprintf(lab, sizeof lab, "g.%d", g++);
            span_at(b, t, MS, lab, WT_CACHED_HIT);
        }
        for (int m = 0; m < 2; m++, t += 2 * MS)
            if (miss[f][r][m])
                span_at(b, t, MS, miss[f][r][m], WT_CACHED_MISS);
        if (f == 0 && r == 0) {
            span_at(b, t, MS, "f.b", WT_CACHED_HIT);
            t += 2 * MS;
        }
        if (f == 0 && r == 2) {
            span_at(b, t, 400 * MS, "g.slow", WT_CACHED_UNKNOWN);
            t += 401 * MS;
            span_at(b, t, 300 * MS, "g.slowhit", WT_CACHED_HIT);
            t += 301 * MS;
        }
        tb_round(b, 1, rs, t, "keep", r);
        t += MS;
    }
    tb_close(b, TB_END_CLEAN, t + MS, 0);
}

static int found(const wt_anomaly *v, size_t n, wt_anomaly_kind k, const char *label)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += v[i].kind == k && !strcmp(v[i].label, label);
    return c;
}

/* A fold key holds the spans of many labels: its findings name each span's own label, a
 * repeat is one label's MISS after an earlier MISS of the same label (never another label's
 * load), a MISS's median is said to be the folded labels', and no span is held against other
 * labels' spans as its siblings. */
static void test_findings_among_folded_labels_name_their_own_label(void **state)
{
    (void)state;
    assert_int_equal(tb_tmpdir_enter("label_fold_rules"), 0);
    char *paths[2] = { tb_path_in("r0.wtrace"), tb_path_in("r1.wtrace") };
    for (int f = 0; f < 2; f++)
        write_fold_run(paths[f], f);
    wt_ledger_opts lo = { 0 };
    wt_anomaly_opts ao;
    wt_anomaly_opts_init(&ao);
    ao.min_cost_s = 0.05; /* 100 s of wall: its 1 % would hide both slow spans */
    wt_analysis_opts o = { .ledger = &lo, .anomalies = &ao };
    wt_analysis a;
    assert_int_equal(wt_analysis_run(paths, 2, &o, &a), 0);
    assert_true(wt_ledger_calc_result(a.lc)->folded_labels >= 300);
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(a.an, &n);
    /* f.a again in round 3 of file 0, f.c again in the later run; f.b (its earlier load a
     * HIT) and the first MISSes of f.c and f.d are not found */
    assert_int_equal(wt_anomalies_count(a.an, WT_AN_REPEAT_MISS), 2);
    assert_int_equal(found(v, n, WT_AN_REPEAT_MISS, "f.a"), 1);
    assert_int_equal(found(v, n, WT_AN_REPEAT_MISS, "f.c"), 1);
    for (size_t i = 0; i < n; i++) {
        if (v[i].kind == WT_AN_REPEAT_MISS && !strcmp(v[i].label, "f.a"))
            assert_non_null(strstr(v[i].text, "w f.a missed again in a later round"));
        if (v[i].kind == WT_AN_REPEAT_MISS && !strcmp(v[i].label, "f.c"))
            assert_non_null(strstr(v[i].text, "w f.c missed again in a later run"));
        if (v[i].kind == WT_AN_MISS)
            assert_non_null(strstr(v[i].text, "(median HIT of the folded labels 1.00 ms)"));
    }
    /* the five MISSes, each by its label */
    assert_int_equal(found(v, n, WT_AN_MISS, "f.a"), 2);
    assert_int_equal(found(v, n, WT_AN_MISS, "f.b"), 1);
    assert_int_equal(found(v, n, WT_AN_MISS, "f.c"), 2);
    assert_int_equal(found(v, n, WT_AN_MISS, "f.d"), 1);
    /* g.slow and g.slowhit are slow against other labels only: a label of its own with one
     * span has no siblings either, so neither rule fires on folded labels */
    assert_int_equal(wt_anomalies_count(a.an, WT_AN_OUTLIER), 0);
    assert_int_equal(wt_anomalies_count(a.an, WT_AN_SLOW_HIT), 0);
    for (size_t i = 0; i < n; i++)
        assert_string_not_equal(v[i].label ? v[i].label : "", WT_OTHER_LABELS);
    wt_analysis_release(&a);
    assert_int_equal(tb_tmpdir_leave(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_textset_never_says_absent_for_what_it_holds),
        cmocka_unit_test(test_textset_says_absent_for_most_others),
        cmocka_unit_test(test_labels_past_the_bound_fold_as_the_model_says),
        cmocka_unit_test(test_findings_among_folded_labels_name_their_own_label),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
