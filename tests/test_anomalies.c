/* Each anomaly rule on hand-built events: one case that fires (with the hand-computed
 * numbers) and one that does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "anomalies.h"
#include "ledger.h"

#define S(x) ((int64_t)(((x) + 100.0) * 1e9 + 0.5))
#define EPS 1e-9

static wt_event sp(uint64_t tid, double s, double e, const char *cat, const char *label,
                   wt_cached cached)
{
    wt_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = WT_EV_SPAN;
    ev.pid = 9;
    ev.tid = tid;
    ev.ts = S(s);
    ev.dur = S(e) - S(s);
    ev.category = cat;
    ev.label = label;
    ev.cached = cached;
    ev.count = 1;
    return ev;
}

typedef struct run {
    wt_ledger_calc *lc, *base;
    wt_anomalies *an;
} run;

/* One file (pid 9, start 0 s) of events `evs`, ending `end` at `end_s`; optional baseline. */
static void go(run *r, const wt_anomaly_opts *o, const wt_event *evs, size_t n, wt_trace_end end,
               double end_s, const wt_event *base, size_t nbase)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(wt_ledger_calc_create(NULL, &r->lc), 0);
    assert_int_equal(wt_anomalies_create(o, &r->an), 0);
    wt_trace_info info;
    memset(&info, 0, sizeof info);
    info.pid = 9;
    info.process_start_ns = S(0);
    wt_analysis_pair pair = { r->lc, r->an, NULL, NULL };
    const wt_source_ops *ops = wt_analysis_pair_ops();
    assert_int_equal(ops->file_begin(&pair, 0, "t.wtrace", &info), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ops->event(&pair, 0, &evs[i]), 0);
    wt_reader_stats st;
    memset(&st, 0, sizeof st);
    st.end = end;
    if (end != WT_END_NONE) {
        wt_event e;
        memset(&e, 0, sizeof e);
        e.kind = WT_EV_END;
        e.ts = S(end_s);
        e.end = end;
        e.count = end == WT_END_SIGNAL ? 11 : 0;
        st.end_signal = end == WT_END_SIGNAL ? 11 : 0;
        assert_int_equal(ops->event(&pair, 0, &e), 0);
    }
    assert_int_equal(ops->file_end(&pair, 0, &st), 0);
    assert_int_equal(wt_ledger_calc_finish(r->lc), 0);
    if (base) {
        assert_int_equal(wt_ledger_calc_create(NULL, &r->base), 0);
        assert_int_equal(wt_ledger_calc_file_begin(r->base, "old", &info), 0);
        for (size_t i = 0; i < nbase; i++)
            assert_int_equal(wt_ledger_calc_event(r->base, &base[i]), 0);
        assert_int_equal(wt_ledger_calc_file_end(r->base, &st), 0);
        assert_int_equal(wt_ledger_calc_finish(r->base), 0);
    }
    assert_int_equal(wt_anomalies_finish(r->an, wt_ledger_calc_result(r->lc),
                                         r->base ? wt_ledger_calc_result(r->base) : NULL), 0);
}

static void done(run *r)
{
    wt_anomalies_free(r->an);
    wt_ledger_calc_free(r->lc);
    wt_ledger_calc_free(r->base);
}

static const wt_anomaly *first(const run *r, wt_anomaly_kind k)
{
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(r->an, &n);
    for (size_t i = 0; i < n; i++)
        if (v[i].kind == k)
            return &v[i];
    return NULL;
}

static wt_anomaly_opts defaults(void)
{
    wt_anomaly_opts o;
    wt_anomaly_opts_init(&o);
    o.untracked_pct = 1000; /* off unless a test wants it */
    return o;
}

static void test_anomalies_miss_cost_against_median_hit_of_label(void **state)
{
    /* HITs of L: 1 s and 3 s, median 2; MISS of L 5 s: avoidable 3 s.
     * MISS of M 4 s: no HIT of M; category W's HIT median 2: avoidable 2 s */
    wt_event evs[] = { sp(1, 0, 1, "W", "L", WT_CACHED_HIT), sp(1, 1, 4, "W", "L", WT_CACHED_HIT),
                       sp(1, 4, 9, "W", "L", WT_CACHED_MISS), sp(1, 9, 13, "W", "M", WT_CACHED_MISS) };
    evs[2].detail = "dir unset";
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 4, WT_END_CLEAN, 13, NULL, 0);
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(r.an, &n);
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_MISS), 2);
    assert_int_equal(v[0].kind, WT_AN_MISS);
    assert_string_equal(v[0].label, "L");
    assert_string_equal(v[0].detail, "dir unset");
    assert_float_equal(v[0].cost, 3.0, EPS);
    assert_int_equal(v[0].pid, 9);
    assert_int_equal(v[0].tid, 1);
    assert_int_equal(v[0].ts, S(4));
    assert_non_null(strstr(v[0].text, "CACHE MISS: W L (5.0s) \xe2\x80\x94 dir unset; avoidable 3.00s"));
    assert_float_equal(v[1].cost, 2.0, EPS);
    assert_non_null(strstr(v[1].text, WT_LEDGER_MISS_DEFAULT));
    assert_non_null(strstr(v[1].text, "median HIT of the category 2.00s"));
    done(&r);
}

static void test_anomalies_no_miss_no_anomaly(void **state)
{
    const wt_event evs[] = { sp(1, 0, 1, "W", "L", WT_CACHED_HIT), sp(1, 1, 2, "W", "L", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 2, WT_END_CLEAN, 2, NULL, 0);
    size_t n;
    wt_anomalies_list(r.an, &n);
    assert_int_equal(n, 0);
    done(&r);
}

static void test_anomalies_untracked_over_threshold(void **state)
{
    /* wall 10, tracked 8: 20% untracked; fires at 10%, not at 25% */
    const wt_event evs[] = { sp(1, 1, 9, "A", "a", 0) };
    wt_anomaly_opts o = defaults();
    o.untracked_pct = 10;
    run r;
    go(&r, &o, evs, 1, WT_END_CLEAN, 10, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_UNTRACKED);
    assert_non_null(a);
    assert_float_equal(a->seconds, 2.0, EPS);
    assert_non_null(strstr(a->text, "2.0s of 10.0s wall (20.0%)"));
    done(&r);
    o.untracked_pct = 25;
    go(&r, &o, evs, 1, WT_END_CLEAN, 10, NULL, 0);
    assert_null(first(&r, WT_AN_UNTRACKED));
    done(&r);
}

static void test_anomalies_repeated_miss_of_a_label(void **state)
{
    const wt_event evs[] = { sp(1, 0, 1, "W", "L", WT_CACHED_MISS), sp(1, 1, 2, "W", "L", WT_CACHED_MISS),
                             sp(1, 2, 3, "W", "L", WT_CACHED_MISS) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 3, WT_END_CLEAN, 3, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_REPEAT_MISS);
    assert_non_null(a);
    assert_non_null(strstr(a->text, "W L missed 3 times (3.0s in misses)"));
    done(&r);
    go(&r, &o, evs, 2, WT_END_CLEAN, 3, NULL, 0);
    assert_null(first(&r, WT_AN_REPEAT_MISS));
    done(&r);
}

static void test_anomalies_hit_slower_than_median_miss(void **state)
{
    /* MISS 2 s; HIT 5 s is slower (by 3 s); HIT 1 s is not */
    const wt_event evs[] = { sp(1, 0, 2, "W", "L", WT_CACHED_MISS), sp(1, 2, 7, "W", "L", WT_CACHED_HIT) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 2, WT_END_CLEAN, 7, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_SLOW_HIT);
    assert_non_null(a);
    assert_float_equal(a->cost, 3.0, EPS);
    assert_int_equal(a->ts, S(2));
    done(&r);
    const wt_event fast[] = { sp(1, 0, 2, "W", "L", WT_CACHED_MISS), sp(1, 2, 3, "W", "L", WT_CACHED_HIT) };
    go(&r, &o, fast, 2, WT_END_CLEAN, 3, NULL, 0);
    assert_null(first(&r, WT_AN_SLOW_HIT));
    done(&r);
}

static void test_anomalies_span_far_slower_than_siblings(void **state)
{
    /* 1, 1, 1, 10 s: median 1, 10 > 5 x 1 fires; with 1, 1, 1, 4 nothing */
    const wt_event evs[] = { sp(1, 0, 1, "D", "s", 0), sp(1, 1, 2, "D", "s", 0),
                             sp(1, 2, 3, "D", "s", 0), sp(1, 3, 13, "D", "s", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 4, WT_END_CLEAN, 13, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_OUTLIER);
    assert_non_null(a);
    assert_int_equal(a->ts, S(3));
    assert_non_null(strstr(a->text, "D s took 10.0s, 10.0x the median 1.0s of its 4 siblings"));
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_OUTLIER), 1);
    done(&r);
    const wt_event mild[] = { sp(1, 0, 1, "D", "s", 0), sp(1, 1, 2, "D", "s", 0),
                              sp(1, 2, 3, "D", "s", 0), sp(1, 3, 7, "D", "s", 0) };
    go(&r, &o, mild, 4, WT_END_CLEAN, 7, NULL, 0);
    assert_null(first(&r, WT_AN_OUTLIER));
    done(&r);
}

static void test_anomalies_span_left_open(void **state)
{
    wt_event evs[] = { sp(3, 0, 2, "A", "a", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 1, WT_END_CLEAN, 2, NULL, 0);
    assert_null(first(&r, WT_AN_UNCLOSED));
    done(&r);
    evs[0].flags = WT_EVF_UNCLOSED;
    go(&r, &o, evs, 1, WT_END_CLEAN, 2, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_UNCLOSED);
    assert_non_null(a);
    assert_int_equal(a->tid, 3);
    done(&r);
}

static void test_anomalies_no_end_record_and_crash(void **state)
{
    const wt_event evs[] = { sp(1, 0, 2, "A", "a", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 1, WT_END_CLEAN, 2, NULL, 0);
    assert_null(first(&r, WT_AN_NO_END));
    done(&r);
    go(&r, &o, evs, 1, WT_END_NONE, 0, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_NO_END);
    assert_non_null(a);
    assert_non_null(strstr(a->text, "NO END RECORD: 't.wtrace'"));
    done(&r);
    go(&r, &o, evs, 1, WT_END_SIGNAL, 2, NULL, 0);
    a = first(&r, WT_AN_NO_END);
    assert_non_null(a);
    assert_non_null(strstr(a->text, "ended by signal 11 (SIGSEGV)"));
    done(&r);
}

static void test_anomalies_events_dropped(void **state)
{
    wt_event evs[] = { sp(1, 0, 2, "A", "a", 0), sp(1, 2, 3, "A", "a", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 2, WT_END_CLEAN, 3, NULL, 0);
    assert_null(first(&r, WT_AN_DROPPED));
    done(&r);
    memset(&evs[1], 0, sizeof evs[1]);
    evs[1].kind = WT_EV_DROPPED;
    evs[1].tid = 4;
    evs[1].ts = S(2);
    evs[1].count = 5;
    go(&r, &o, evs, 2, WT_END_CLEAN, 3, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_DROPPED);
    assert_non_null(a);
    assert_int_equal(a->tid, 4);
    assert_non_null(strstr(a->text, "dropped 5 events"));
    done(&r);
}

static void test_anomalies_budget_seconds_and_percent(void **state)
{
    /* wall 10: A 4 s (40%), B 1 s (10%) */
    const wt_event evs[] = { sp(1, 0, 4, "A", "a", 0), sp(1, 4, 5, "B", "b", 0) };
    const wt_budget budgets[] = { { "A", 3.0, 0, 0 }, { "B", 20.0, 1, 0 }, { "A", 30.0, 1, 0 },
                                  { "B", 1.0, 0, 0 } };
    wt_anomaly_opts o = defaults();
    o.budgets = budgets;
    o.n_budgets = 4;
    run r;
    go(&r, &o, evs, 2, WT_END_CLEAN, 10, NULL, 0);
    /* A over 3 s (by 1) and over 30% (by 1 s); B within 20% and within 1 s */
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_BUDGET), 2);
    const wt_anomaly *a = first(&r, WT_AN_BUDGET);
    assert_string_equal(a->category, "A");
    assert_float_equal(a->cost, 1.0, EPS);
    done(&r);
}

/* A parent category that wraps its child: P 0-10 s nests C 2-9 s; wall 10. P's self time is
 * 10 - 7 = 3 s, its inclusive time 10 s. A budget is on inclusive time unless it says self:
 * P=5 fires by 5 s; --budget-self P=5 does not; --budget-self P=2 fires by 1 s; C=50% (of
 * 10 s) fires by 2 s on its inclusive (= self) 7 s. */
static void test_anomalies_budget_inclusive_by_default_self_when_asked(void **state)
{
    wt_event evs[] = { sp(1, 2, 9, "C", "c", 0), sp(1, 0, 10, "P", "p", 0) };
    evs[0].depth = 1;
    const wt_budget budgets[] = { { "P", 5.0, 0, 0 }, { "P", 5.0, 0, 1 }, { "P", 2.0, 0, 1 },
                                  { "C", 50.0, 1, 0 } };
    wt_anomaly_opts o = defaults();
    o.budgets = budgets;
    o.n_budgets = 4;
    run r;
    go(&r, &o, evs, 2, WT_END_CLEAN, 10, NULL, 0);
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_BUDGET), 3);
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(r.an, &n);
    const char *want[] = {
        "BUDGET: P took 10.0 s inclusive, over its budget of 5.00 s (by 5.00 s)",
        "BUDGET: P took 3.00 s self, over its budget of 2.00 s (by 1.00 s)",
        "BUDGET: C took 7.00 s inclusive = 70.0% of wall, over its budget of 50% (by 2.00 s)",
    };
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].kind == WT_AN_BUDGET) {
            assert_true(k < 3);
            assert_string_equal(v[i].text, want[k]);
            k++;
        }
    assert_int_equal(k, 3);
    done(&r);
}

static void test_anomalies_baseline_growth(void **state)
{
    /* A: 2 s in the baseline, 3 s now (+50%, +1 s) fires; B: 2 s -> 2.2 s (+10%) does not */
    const wt_event old[] = { sp(1, 0, 2, "A", "a", 0), sp(1, 2, 4, "B", "b", 0) };
    const wt_event now[] = { sp(1, 0, 3, "A", "a", 0), sp(1, 3, 5.2, "B", "b", 0) };
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, now, 2, WT_END_CLEAN, 6, old, 2);
    assert_int_equal(wt_anomalies_count(r.an, WT_AN_BASELINE), 1);
    const wt_anomaly *a = first(&r, WT_AN_BASELINE);
    assert_string_equal(a->category, "A");
    assert_float_equal(a->cost, 1.0, EPS);
    assert_non_null(strstr(a->text, "+1.0s, +50%"));
    done(&r);
}

static void test_anomalies_damaged_file(void **state)
{
    wt_anomaly_opts o = defaults();
    wt_anomalies *an;
    assert_int_equal(wt_anomalies_create(&o, &an), 0);
    wt_trace_info info;
    memset(&info, 0, sizeof info);
    assert_int_equal(wt_anomalies_file_begin(an, "d.wtrace", &info), 0);
    wt_anomalies_damage(an, 10, "'d.wtrace': at byte 10: trace is corrupted");
    wt_reader_stats st = { .end = WT_END_CLEAN, .errors = 1 };
    assert_int_equal(wt_anomalies_file_end(an, &st), 0);
    assert_int_equal(wt_anomalies_finish(an, NULL, NULL), 0);
    assert_int_equal(wt_anomalies_count(an, WT_AN_DAMAGED), 1); /* once per file */
    wt_anomalies_free(an);
}

/* BUG-4: dropped counts at INT64_MAX sum to INT64_MAX, not to a wrapped negative count. */
static void test_anomalies_dropped_counts_saturate(void **state)
{
    wt_event evs[3] = { sp(1, 0, 2, "A", "a", 0) };
    for (int i = 1; i < 3; i++) {
        memset(&evs[i], 0, sizeof evs[i]);
        evs[i].kind = WT_EV_DROPPED;
        evs[i].tid = 3;
        evs[i].ts = S(2);
        evs[i].count = INT64_MAX;
    }
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, 3, WT_END_CLEAN, 3, NULL, 0);
    const wt_anomaly *a = first(&r, WT_AN_DROPPED);
    assert_non_null(a);
    assert_non_null(strstr(a->text, "dropped 9223372036854775807 events"));
    assert_int_equal(wt_ledger_calc_result(r.lc)->dropped, INT64_MAX);
    done(&r);
}

/* BUG-5: past 16384 (category, label) keys and 4096 categories (docs/ANALYZE.md) new ones
 * fold, in the anomalies as in the ledger that runs alongside: a MISS of a new pair is
 * reported under "(other labels)" of its category, one of a new category under
 * "(other categories)"; a known pair keeps its name. */
#define KEYS 16384
static char labels[KEYS][8];

static void test_anomalies_keys_past_the_bounds_fold_as_in_the_ledger(void **state)
{
    /* 4 categories c0..c3 x 4096 labels, 1 ms spans: exactly KEYS keys. Then MISSes of
     * (c1, "fresh"), (c2, l7) known and (z, "fresh"): z is a category of its own (5 of 4096),
     * its pair is past the bound. 3 more MISSes of (c1, "other") make (c1, "(other labels)")
     * a repeated miss */
    static const char *const cats[4] = { "c0", "c1", "c2", "c3" };
    static wt_event evs[KEYS + 6];
    for (int i = 0; i < 4096; i++)
        snprintf(labels[i], sizeof labels[i], "l%d", i);
    for (int i = 0; i < KEYS; i++) {
        evs[i] = sp(1, 0, 0, cats[i / 4096], labels[i % 4096], 0);
        evs[i].ts = S(0) + (int64_t)i * 1000000;
        evs[i].dur = 1000000;
    }
    double t = 20.0;
    const char *tail[6][2] = { { "c1", "fresh" }, { "c2", labels[7] }, { "z", "fresh" },
                               { "c1", "other" }, { "c1", "other" }, { "c1", "other" } };
    for (int i = 0; i < 6; i++, t += 1.0)
        evs[KEYS + i] = sp(1, t, t + 1.0, tail[i][0], tail[i][1], WT_CACHED_MISS);
    wt_anomaly_opts o = defaults();
    run r;
    go(&r, &o, evs, KEYS + 6, WT_END_CLEAN, 30, NULL, 0);
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(r.an, &n);
    /* the six misses first, in file order */
    assert_true(n >= 6);
    const char *want[6][2] = { { "c1", "(other labels)" }, { "c2", "l7" },
                               { "z", "(other labels)" },
                               { "c1", "(other labels)" }, { "c1", "(other labels)" },
                               { "c1", "(other labels)" } };
    for (int i = 0; i < 6; i++) {
        assert_int_equal(v[i].kind, WT_AN_MISS);
        assert_string_equal(v[i].category, want[i][0]);
        assert_string_equal(v[i].label, want[i][1]);
    }
    assert_non_null(strstr(v[0].text, "CACHE MISS: c1 (other labels) (1.0s)"));
    /* (c1, "(other labels)") missed 4 times: "fresh" and 3 x "other" */
    const wt_anomaly *rep = first(&r, WT_AN_REPEAT_MISS);
    assert_non_null(rep);
    assert_string_equal(rep->label, "(other labels)");
    assert_non_null(strstr(rep->text, "missed 4 times"));
    /* the ledger folded the same 5 spans (z's too: its pair is past the bound) */
    const wt_ledger_result *l = wt_ledger_calc_result(r.lc);
    assert_int_equal(l->folded_labels, 5);
    assert_int_equal(l->folded_categories, 0);
    done(&r);

    /* 4096 categories k0.. (label l0, 1 ms), then a MISS of a new category: "(other
     * categories)", label l1 (4097 keys, under their bound) */
    for (int i = 0; i < 4096; i++) {
        evs[i] = sp(1, 0, 0, labels[i], labels[0], 0); /* the names l0.. serve as categories */
        evs[i].ts = S(0) + (int64_t)i * 1000000;
        evs[i].dur = 1000000;
    }
    evs[4096] = sp(1, 10, 11, "new", labels[1], WT_CACHED_MISS);
    go(&r, &o, evs, 4097, WT_END_CLEAN, 30, NULL, 0);
    const wt_anomaly *m = first(&r, WT_AN_MISS);
    assert_non_null(m);
    assert_string_equal(m->category, "(other categories)");
    assert_string_equal(m->label, "l1");
    assert_int_equal(wt_ledger_calc_result(r.lc)->folded_categories, 1);
    assert_int_equal(wt_ledger_calc_result(r.lc)->folded_labels, 0);
    done(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anomalies_miss_cost_against_median_hit_of_label),
        cmocka_unit_test(test_anomalies_no_miss_no_anomaly),
        cmocka_unit_test(test_anomalies_untracked_over_threshold),
        cmocka_unit_test(test_anomalies_repeated_miss_of_a_label),
        cmocka_unit_test(test_anomalies_hit_slower_than_median_miss),
        cmocka_unit_test(test_anomalies_span_far_slower_than_siblings),
        cmocka_unit_test(test_anomalies_span_left_open),
        cmocka_unit_test(test_anomalies_no_end_record_and_crash),
        cmocka_unit_test(test_anomalies_events_dropped),
        cmocka_unit_test(test_anomalies_budget_seconds_and_percent),
        cmocka_unit_test(test_anomalies_budget_inclusive_by_default_self_when_asked),
        cmocka_unit_test(test_anomalies_baseline_growth),
        cmocka_unit_test(test_anomalies_damaged_file),
        cmocka_unit_test(test_anomalies_dropped_counts_saturate),
        cmocka_unit_test(test_anomalies_keys_past_the_bounds_fold_as_in_the_ledger),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
