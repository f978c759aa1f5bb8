/* The ledger + anomalies pass shared by the subcommands: see analysis.h. */
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

void wt_anomaly_config_init(wt_anomaly_config *c)
{
    memset(c, 0, sizeof *c);
    wt_anomaly_opts_init(&c->opts);
    c->opts.budgets = c->budgets;
}

void wt_anomaly_config_release(wt_anomaly_config *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->opts.n_budgets; i++)
        free((char *)c->budgets[i].category);
    wt_anomaly_config_init(c);
}

int wt_anomaly_config_gate(const wt_anomaly_config *c, const wt_anomalies *an, double *value)
{
    for (size_t i = 0; i < c->n_gates; i++)
        if (wt_anomalies_gate(an, &c->gates[i], value))
            return (int)i;
    return -1;
}

int wt_anomaly_config_status(const wt_anomaly_config *c, const wt_anomalies *an)
{
    double v;
    int i = wt_anomaly_config_gate(c, an, &v);
    if (i < 0)
        return 0;
    const wt_gate *g = &c->gates[i];
    if (g->measure == WT_GATE_COUNT)
        wt_cli_error("--fail-on: '%s' matched: %.0f found", c->gate_text[i], v);
    else if (g->measure == WT_GATE_UNTRACKED_PCT)
        wt_cli_error("--fail-on: '%s' matched: %.2f%% untracked", c->gate_text[i], v);
    else
        wt_cli_error("--fail-on: '%s' matched: %.3f s %s", c->gate_text[i], v,
                     g->measure == WT_GATE_AVOIDABLE ? "avoidable" : "untracked");
    return WT_EXIT_GATE;
}

/* ---- both analyses (and the caller's callbacks) from one source run ---- */

static int pair_begin(void *ctx, int fi, const char *path, const wt_trace_info *info)
{
    wt_analysis_pair *p = ctx;
    int rc = p->lc ? wt_ledger_calc_file_begin(p->lc, path, info) : 0;
    if (rc == 0 && p->an)
        rc = wt_anomalies_file_begin(p->an, path, info);
    if (rc == 0 && p->also && p->also->file_begin)
        rc = p->also->file_begin(p->also_ctx, fi, path, info);
    return rc;
}

/* The direct span path: the ledger resolves the (category, label) key once and its cache slot
 * keeps the anomalies' key next to its own. */
static __attribute__((noinline)) int pair_span(wt_ledger_calc *lc, wt_anomalies *an,
                                               const wt_event *ev)
{
    uint32_t *peer;
    int rc = wt__ledger_calc_span(lc, ev, &peer);
    return rc != 0 ? rc : wt__anomalies_span(an, ev, peer);
}

static __attribute__((noinline)) int pair_general(wt_analysis_pair *p, int fi,
                                                  const wt_event *ev)
{
    int rc = p->lc ? wt_ledger_calc_event(p->lc, ev) : 0;
    if (rc == 0 && p->an)
        rc = wt_anomalies_event(p->an, ev);
    if (rc == 0 && p->also && p->also->event)
        rc = p->also->event(p->also_ctx, fi, ev);
    return rc;
}

static int pair_event(void *ctx, int fi, const wt_event *ev)
{
    wt_analysis_pair *p = ctx;
    if (ev->kind == WT_EV_SPAN && p->lc && p->an && !(p->also && p->also->event))
        return pair_span(p->lc, p->an, ev);
    return pair_general(p, fi, ev);
}

/* The string of id `id` through a one-entry cache (*last_id, *last): spans in a row mostly
 * repeat their ids, and the reader's look-up is a call. */
static inline const char *batch_string(const wt_span_batch *b, uint32_t id, uint32_t *last_id,
                                       const char **last)
{
    if (id != *last_id) {
        *last_id = id;
        *last = wt_reader_string(b->reader, id);
    }
    return *last;
}

/* A batch of spans as the events wt_reader_next() would have given (the same values, the same
 * string pointers), each down the path pair_event() would take: the batch saves the reader's
 * per-event work, and the analyses see exactly what they saw event by event. */
static int pair_spans(void *ctx, int fi, const wt_span_batch *b)
{
    wt_analysis_pair *p = ctx;
    const int direct = p->lc && p->an && !(p->also && p->also->event);
    wt_event ev;
    ev.kind = WT_EV_SPAN;
    ev.pid = b->pid;
    ev.tid = b->tid;
    ev.value = 0;
    ev.end = WT_END_NONE;
    ev.name = NULL;
    uint32_t ids[3] = { 0, 0, 0 }; /* id 0 is NULL: the caches start right */
    const char *strs[3] = { NULL, NULL, NULL };
    int rc = 0;
    for (size_t i = 0; i < b->n && rc == 0; i++) {
        const wt_span_rec *s = &b->spans[i];
        ev.flags = s->flags;
        ev.ts = s->ts;
        ev.dur = s->dur;
        ev.depth = s->depth;
        ev.cached = (wt_cached)s->cached;
        ev.count = s->count;
        ev.bytes = s->bytes;
        ev.category = batch_string(b, s->category, &ids[0], &strs[0]);
        ev.label = batch_string(b, s->label, &ids[1], &strs[1]);
        ev.detail = batch_string(b, s->detail, &ids[2], &strs[2]);
        rc = direct ? pair_span(p->lc, p->an, &ev) : pair_general(p, fi, &ev);
    }
    return rc;
}

static int pair_damage(void *ctx, int fi, int64_t off, const char *msg)
{
    wt_analysis_pair *p = ctx;
    if (p->lc)
        wt_ledger_calc_damage(p->lc, off, msg);
    if (p->an)
        wt_anomalies_damage(p->an, off, msg);
    return p->also && p->also->damage ? p->also->damage(p->also_ctx, fi, off, msg) : 0;
}

static int pair_end(void *ctx, int fi, const wt_reader_stats *st)
{
    wt_analysis_pair *p = ctx;
    int rc = p->lc ? wt_ledger_calc_file_end(p->lc, st) : 0;
    if (rc == 0 && p->an)
        rc = wt_anomalies_file_end(p->an, st);
    if (rc == 0 && p->also && p->also->file_end)
        rc = p->also->file_end(p->also_ctx, fi, st);
    return rc;
}

const wt_source_ops *wt_analysis_pair_ops(void)
{
    static const wt_source_ops ops = { pair_begin, pair_event, pair_damage, pair_end, pair_spans };
    return &ops;
}

/* ---- the run ---- */

int wt_analysis_baseline(const char *path, wt_ledger_calc **out)
{
    wt_analysis_pair pair = { NULL, NULL, NULL, NULL };
    wt_source_result res;
    char *paths[1] = { (char *)path };
    int rc = wt_ledger_calc_create(NULL, &pair.lc);
    if (rc == 0)
        rc = wt_source_run(paths, 1, wt_analysis_pair_ops(), &pair, &res);
    if (rc == 0 && res.files_ok + res.files_damaged == 0)
        rc = WT_EOPEN;
    if (rc == 0)
        rc = wt_ledger_calc_finish(pair.lc);
    if (rc != 0) {
        wt_cli_error("baseline '%s' could not be read", path);
        wt_ledger_calc_free(pair.lc);
        return WT_EOPEN;
    }
    *out = pair.lc;
    return 0;
}

int wt_analysis_run(char *const *paths, int n, const wt_analysis_opts *o, wt_analysis *a)
{
    static const wt_analysis_opts defaults = { 0 };
    if (!o)
        o = &defaults;
    memset(a, 0, sizeof *a);
    int rc;
    if (o->baseline && (rc = wt_analysis_baseline(o->baseline, &a->base)) < 0)
        return rc;
    if ((rc = wt_ledger_calc_create(o->ledger, &a->lc)) < 0 ||
        (rc = wt_anomalies_create(o->anomalies, &a->an)) < 0)
        return rc;
    wt_analysis_pair pair = { a->lc, a->an, o->also, o->also_ctx };
    if ((rc = wt_source_run(paths, n, wt_analysis_pair_ops(), &pair, &a->res)) != 0)
        return rc;
    if (a->res.files_ok + a->res.files_damaged == 0)
        return WT_EOPEN;
    if ((rc = wt_ledger_calc_finish(a->lc)) < 0)
        return rc;
    return wt_anomalies_finish(a->an, wt_ledger_calc_result(a->lc),
                               a->base ? wt_ledger_calc_result(a->base) : NULL);
}

void wt_analysis_release(wt_analysis *a)
{
    wt_anomalies_free(a->an);
    wt_ledger_calc_free(a->lc);
    wt_ledger_calc_free(a->base);
    memset(a, 0, sizeof *a);
}
