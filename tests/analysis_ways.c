/* The two ways through analysis.c, for tests that hold them to each other (analysis_ways.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "analysis_ways.h"

/* A caller's event callback: its presence is what turns the id path off. */
static int noop_event(void *ctx, int fi, const wt_event *ev)
{
    (void)ctx;
    (void)fi;
    (void)ev;
    return 0;
}

void aw_analyse(char *const *paths, int n, int way, wt_analysis *a)
{
    static const wt_source_ops events_too = { .event = noop_event };
    static wt_anomaly_opts ao;
    wt_anomaly_opts_init(&ao);
    ao.min_cost_s = 0; /* every anomaly listed: the outliers depend on the medians */
    wt_analysis_opts o;
    memset(&o, 0, sizeof o);
    o.anomalies = &ao;
    if (way == 1)
        o.also = &events_too;
    assert_int_equal(wt_analysis_run(paths, n, &o, a), 0);
}

const wt_ledger_cat *aw_cat_named(const wt_analysis *a, const char *name)
{
    const wt_ledger_result *r = wt_ledger_calc_result(a->lc);
    for (size_t i = 0; i < r->n_cats; i++)
        if (r->cats[i].name && strcmp(r->cats[i].name, name) == 0)
            return &r->cats[i];
    fail_msg("no category '%s'", name);
    return NULL;
}

void aw_check_same(const wt_analysis *x, const wt_analysis *y)
{
    const wt_ledger_result *rx = wt_ledger_calc_result(x->lc), *ry = wt_ledger_calc_result(y->lc);
    assert_int_equal(rx->n_cats, ry->n_cats);
    assert_true(rx->wall == ry->wall && rx->tracked == ry->tracked && rx->busy == ry->busy &&
                rx->covered == ry->covered && rx->waiting == ry->waiting);
    for (size_t i = 0; i < rx->n_cats; i++) {
        const wt_ledger_cat *a = &rx->cats[i], *b = &ry->cats[i];
        assert_string_equal(a->name, b->name);
        assert_true(a->seconds == b->seconds && a->self_seconds == b->self_seconds &&
                    a->flat_seconds == b->flat_seconds && a->inclusive == b->inclusive);
        assert_true(a->count == b->count && a->spans == b->spans && a->hits == b->hits &&
                    a->misses == b->misses && a->bytes == b->bytes);
        assert_true(a->st.median == b->st.median && a->st.min == b->st.min &&
                    a->st.max == b->st.max && a->st.n == b->st.n);
    }
    assert_int_equal(rx->n_threads, ry->n_threads);
    for (size_t i = 0; i < rx->n_threads; i++)
        assert_true(rx->threads[i].busy == ry->threads[i].busy &&
                    rx->threads[i].waiting == ry->threads[i].waiting &&
                    rx->threads[i].spans == ry->threads[i].spans);
    for (int k = 0; k < WT_AN_KIND_COUNT; k++)
        assert_int_equal(wt_anomalies_below_min_cost(x->an, (wt_anomaly_kind)k),
                         wt_anomalies_below_min_cost(y->an, (wt_anomaly_kind)k));
    size_t nx, ny;
    const wt_anomaly *ax = wt_anomalies_list(x->an, &nx), *ay = wt_anomalies_list(y->an, &ny);
    assert_int_equal(nx, ny);
    for (size_t i = 0; i < nx; i++) {
        assert_int_equal(ax[i].kind, ay[i].kind);
        assert_true(ax[i].ts == ay[i].ts && ax[i].dur == ay[i].dur &&
                    ax[i].seconds == ay[i].seconds && ax[i].cost == ay[i].cost);
        assert_string_equal(ax[i].text, ay[i].text);
    }
}
