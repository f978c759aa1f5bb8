/* The ledger + anomalies pass shared by the subcommands: see analysis.h. */
#include "analysis.h"
#include "forkorder.h"

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

/* String ids with a slot in the pair's id table: 16 bytes each, 4 MiB at most; spans of
 * larger ids (only a file of that many strings has them) take the event path. */
#define PAIR_ID_SLOTS (1u << 18)

/* What a span's label id resolves to in the current file (and string epoch): valid when cat1
 * is its category id + 1 (a label id names one string, but a label may come with several
 * categories: the one seen last is kept). */
typedef struct wt__pair_id {
    uint32_t cat1; /* category id + 1; 0: not known */
    uint32_t ci;   /* the ledger's category index of the pair (a pair with keys of its own) */
    uint32_t akey; /* the anomalies' key word of the pair (wt__anomalies_span()) */
    uint32_t pad;
} wt__pair_id;

struct wt__pair_ids {
    wt__idtab tab; /* of wt__pair_id */
};

void wt_analysis_pair_release(wt_analysis_pair *p)
{
    if (p && p->ids) {
        free(p->ids->tab.v);
        free(p->ids);
        p->ids = NULL;
    }
}

static int pair_begin(void *ctx, int fi, const char *path, const wt_trace_info *info)
{
    wt_analysis_pair *p = ctx;
    if (p->ids) /* a new file: its ids name other strings */
        wt__idtab_forget(&p->ids->tab, sizeof(wt__pair_id));
    int rc = p->lc ? wt_ledger_calc_file_begin(p->lc, path, info) : 0;
    if (rc == 0 && p->an)
        rc = wt_anomalies_file_begin(p->an, path, info);
    if (rc == 0 && p->also && p->also->file_begin)
        rc = p->also->file_begin(p->also_ctx, fi, path, info);
    return rc;
}

/* The direct span path: the ledger resolves the (category, label) key once and its cache slot
 * keeps the anomalies' key next to its own (in *slot, for the caller). */
static __attribute__((noinline)) int pair_span(wt_ledger_calc *lc, wt_anomalies *an,
                                               const wt_event *ev, wt__pair_slot **slot)
{
    int rc = wt__ledger_calc_span(lc, ev, slot);
    return rc != 0 || !an ? rc : wt__anomalies_span(an, ev, &(*slot)->z);
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

/* The caller's event callback, if any, after the analyses took ev. */
static inline int pair_also(wt_analysis_pair *p, int fi, const wt_event *ev)
{
    return p->also && p->also->event ? p->also->event(p->also_ctx, fi, ev) : 0;
}

/* An event to both analyses: a span down pair_span(), a counter sample or a mark (an instant:
 * it only moves the clocks) to the two analyses' instant calls, without the dispatch of their
 * event calls (a counters trace has two samples per span), then to the caller's callback;
 * anything else, or any event of another pair, down pair_general(). */
static int pair_event(void *ctx, int fi, const wt_event *ev)
{
    wt_analysis_pair *p = ctx;
    wt__pair_slot *slot;
    if (p->lc && p->an) {
        int rc;
        if (ev->kind == WT_EV_SPAN) {
            rc = pair_span(p->lc, p->an, ev, &slot);
            return rc != 0 ? rc : pair_also(p, fi, ev);
        }
        if (ev->kind == WT_EV_COUNTER || ev->kind == WT_EV_MARK) {
            if ((rc = wt__ledger_calc_instant(p->lc, ev->ts)) != 0)
                return rc;
            wt__anomalies_instant(p->an, ev->ts);
            return pair_also(p, fi, ev);
        }
    }
    return pair_general(p, fi, ev);
}

/* The strings of a batch's spans, through one-entry caches per field: spans in a row mostly
 * repeat their ids, and the reader's look-up is a call. */
typedef struct batch_strs {
    uint32_t ids[3]; /* id 0 is NULL: the caches start right */
    const char *strs[3];
} batch_strs;

static inline const char *batch_string(const wt_span_batch *b, batch_strs *c, int f, uint32_t id)
{
    if (id != c->ids[f]) {
        c->ids[f] = id;
        c->strs[f] = wt_reader_string(b->reader, id);
    }
    return c->strs[f];
}

/* The event wt_reader_next() would have given for span s of batch b (the same values, the same
 * string pointers) in *ev, whose kind, pid, tid and unused fields are set already. */
static inline __attribute__((always_inline)) void rec_event(const wt_span_batch *b,
                                                            batch_strs *c, const wt_span_rec *s,
                                                            wt_event *ev)
{
    ev->flags = s->flags;
    ev->ts = s->ts;
    ev->dur = s->dur;
    ev->depth = s->depth;
    ev->cached = (wt_cached)s->cached;
    ev->count = s->count;
    ev->bytes = s->bytes;
    ev->category = batch_string(b, c, 0, s->category);
    ev->label = batch_string(b, c, 1, s->label);
    ev->detail = batch_string(b, c, 2, s->detail);
}

/* A span of a batch whose label id the table does not know with its category id: as an event
 * down pair_span()'s path, which teaches the table the pair (only a pair with keys of its own,
 * and while the table has room: else the event path is all there is, with the same results). */
static __attribute__((noinline)) int pair_learn(wt_analysis_pair *p, const wt_span_batch *b,
                                                batch_strs *c, const wt_span_rec *s,
                                                wt_event *ev)
{
    rec_event(b, c, s, ev);
    wt__pair_slot *slot;
    int rc = wt__ledger_calc_span(p->lc, ev, &slot);
    if (rc != 0)
        return rc;
    wt__pair_id *e;
    if (slot->valid == 1 && (e = wt__idtab_room(&p->ids->tab, s->label, sizeof *e,
                                                PAIR_ID_SLOTS)) != NULL) {
        /* the anomalies' key word from the pointer cache's slot of the pair, and back into
         * it: a label that comes with several categories in turn re-learns its entry at each
         * change, and with a fresh word its key was looked up by text every time (export of
         * bench_export's trace: 3 % of CPU in string maps, 18 % slower than the event path) */
        *e = (wt__pair_id){ s->category + 1, slot->x, slot->z, 0 };
        if (!p->an)
            return 0;
        rc = wt__anomalies_span(p->an, ev, &e->akey);
        slot->z = e->akey;
        return rc;
    }
    /* no table slot: the pointer cache's word, as the event path */
    return p->an ? wt__anomalies_span(p->an, ev, &slot->z) : 0;
}

/* Spans a stretch of known label ids takes at most: the keys of its spans wait in arrays of
 * this size on the stack. */
#define PAIR_STRETCH 128

/* Spans s[0..n) of batch b, each of a label id the table knows with its category id: ci[k] and
 * ak[k] are the ledger's category index and the anomalies' key of s[k]. The ledger takes them
 * all, then the anomalies (two analyses of separate state: each sees the spans in their order,
 * as span by span), each in runs of its common case; a span that a common case declines goes
 * as an event down that analysis's own span path. */
static int pair_stretch(wt_analysis_pair *p, const wt_span_batch *b, batch_strs *c,
                        const wt_span_rec *s, size_t n, const uint32_t *ci, const uint32_t *ak,
                        wt_event *ev)
{
    int rc = 0;
    wt__pair_slot *slot;
    for (size_t k = 0; k < n; k++) {
        size_t m;
        if ((rc = wt__ledger_calc_run(p->lc, s + k, ci + k, n - k, &m)) <= 0) {
            if (rc < 0)
                return rc;
            break;
        }
        k += m;
        rec_event(b, c, &s[k], ev);
        if ((rc = wt__ledger_calc_span(p->lc, ev, &slot)) != 0)
            return rc;
    }
    if (!p->an)
        return 0;
    wt__pair_id *const tab = p->ids->tab.v;
    for (size_t k = wt__anomalies_run(p->an, b, s, ak, n); k < n;
         k += 1 + wt__anomalies_run(p->an, b, s + k + 1, ak + k + 1, n - k - 1)) {
        rec_event(b, c, &s[k], ev);
        /* the table's word: it may have been filled since ak[] was */
        if ((rc = wt__anomalies_span(p->an, ev, &tab[s[k].label].akey)) != 0)
            return rc;
    }
    return 0;
}

/* The id path of a batch on thread (b->pid, b->tid), looked up once: stretches of spans whose
 * label ids the table knows with their category ids go to pair_stretch(), any other span to
 * pair_learn(). Inline in both its callers, so that a batch of spans alone takes it without a
 * call, as it did with one caller. */
static inline __attribute__((always_inline)) int pair_ids(wt_analysis_pair *p,
                                                          const wt_span_batch *b,
                                                          batch_strs *c, wt_event *ev)
{
    uint32_t ci[PAIR_STRETCH], ak[PAIR_STRETCH];
    const wt__idtab *const t = &p->ids->tab;
    size_t i = 0;
    int rc = 0;
    while (i < b->n && rc == 0) {
        const wt__pair_id *const v = t->v;
        const size_t used = t->used, lim = b->n - i < PAIR_STRETCH ? b->n - i : PAIR_STRETCH;
        const wt_span_rec *const s = &b->spans[i];
        size_t u = 0;
        for (; u < lim && s[u].label < used; u++) {
            /* the entry read once: a store to ci[] or ak[] may alias it for the compiler */
            const wt__pair_id e = v[s[u].label];
            if (e.cat1 != s[u].category + 1)
                break;
            ci[u] = e.ci;
            ak[u] = e.akey;
        }
        if (u == 0) {
            rc = pair_learn(p, b, c, s, ev);
            i++;
        } else {
            rc = pair_stretch(p, b, c, s, u, ci, ak, ev);
            i += u;
        }
    }
    return rc;
}

/* A counter sample of a batch (flags WT_REC_COUNTER) as the event wt_reader_next() gives for
 * it, in *ev, whose kind, pid, tid and unused fields are set already. */
static void sample_event(const wt_span_batch *b, const wt_span_rec *s, wt_event *ev)
{
    ev->ts = s->ts;
    ev->value = s->count;
    ev->name = wt_reader_string(b->reader, s->label);
}

/* Record k of batch b as its event: a span in *ev, a counter sample in *cev. */
static const wt_event *batch_event(const wt_span_batch *b, batch_strs *c, size_t k,
                                   wt_event *ev, wt_event *cev)
{
    const wt_span_rec *s = &b->spans[k];
    if (s->flags & WT_REC_COUNTER) {
        sample_event(b, s, cev);
        return cev;
    }
    rec_event(b, c, s, ev);
    return ev;
}

/* Records of a batch with counter samples among its spans that pair_sorted() sorts at a time:
 * its spans are copied into an array of this many on the stack. */
#define PAIR_SORT 128

/* A batch with counter samples among its spans, sorted PAIR_SORT records at a time into
 * their spans (copied, in their order, to pair_ids()) and their samples' times (to the two
 * analyses' instant calls: what pair_event() gives a sample, or, without the anomalies, what
 * wt_ledger_calc_event() does for it). Taking the samples apart from the spans gives the
 * same results as in the batch's order: a sample only counts itself and moves the file's
 * clocks (a count, a late test against a watermark that no span moves, a minimum and
 * maximums), which commutes with everything a span does; and the spans stay in one run, where
 * bench_analyze's counters shape (one span between two samples) had runs of one span, which
 * cost more through pair_ids() than as events. Out of line: the batches of spans alone keep
 * a small frame. */
static __attribute__((noinline)) int pair_sorted(wt_analysis_pair *p, const wt_span_batch *b,
                                                 batch_strs *c, wt_event *ev)
{
    const wt_span_rec *const s = b->spans;
    wt_span_rec spans[PAIR_SORT];
    int64_t ts[PAIR_SORT];
    wt_span_batch run = *b;
    run.spans = spans;
    for (size_t i = 0; i < b->n;) {
        const size_t lim = b->n - i < PAIR_SORT ? b->n : i + PAIR_SORT;
        size_t n_spans = 0, n_samples = 0;
        int64_t lo = INT64_MAX, hi = INT64_MIN; /* of the samples' times */
        for (; i < lim; i++) {
            if (s[i].flags & WT_REC_COUNTER) {
                const int64_t t = s[i].ts;
                ts[n_samples++] = t;
                lo = t < lo ? t : lo;
                hi = t > hi ? t : hi;
            } else {
                spans[n_spans++] = s[i];
            }
        }
        int rc;
        run.n = n_spans;
        if (n_spans && (rc = pair_ids(p, &run, c, ev)) != 0)
            return rc;
        if ((rc = wt__ledger_calc_instants(p->lc, ts, n_samples, lo, hi)) != 0)
            return rc;
        if (p->an) /* the anomalies keep the latest time */
            wt__anomalies_instant(p->an, hi);
    }
    return 0;
}

/* The direct path of a batch that may hold counter samples among its spans: a batch of spans
 * alone to pair_ids() as it is, any other to pair_sorted(). */
static inline int pair_records(wt_analysis_pair *p, const wt_span_batch *b, batch_strs *c,
                               wt_event *ev)
{
    const wt_span_rec *const s = b->spans;
    size_t j = 0;
    /* four flags a test: the span shapes' batches hold no sample and pay for this scan */
    while (j + 4 <= b->n &&
           !((s[j].flags | s[j + 1].flags | s[j + 2].flags | s[j + 3].flags) & WT_REC_COUNTER))
        j += 4;
    while (j < b->n && !(s[j].flags & WT_REC_COUNTER))
        j++;
    return j == b->n ? pair_ids(p, b, c, ev) : pair_sorted(p, b, c, ev);
}

/* A batch of spans (and of counter samples, from wt_source_run_counters()). With the ledger,
 * the batch's thread is looked up once and the records go through pair_records(), its spans
 * keyed by the ids of a per-file table (reset at each file and when the string epoch
 * changes); then, one by one as events, to the caller's event callback (export: its state and
 * the analyses' are apart, so each sees its events in order, and the analyses keep the id
 * path, where the event path's pointer caches thrash past 8,192 labels). Otherwise each
 * record goes, as the event wt_reader_next() would have given, down the path pair_event()
 * would take: the analyses see exactly what they saw event by event. */
static int pair_spans(void *ctx, int fi, const wt_span_batch *b)
{
    wt_analysis_pair *p = ctx;
    wt_event ev, cev;
    memset(&ev, 0, sizeof ev);
    ev.kind = WT_EV_SPAN;
    ev.pid = b->pid;
    ev.tid = b->tid;
    ev.end = WT_END_NONE;
    cev = ev;
    cev.kind = WT_EV_COUNTER;
    cev.cached = WT_CACHED_UNKNOWN;
    batch_strs c = { { 0, 0, 0 }, { NULL, NULL, NULL } };
    int rc = 0;
    const int direct = p->lc != NULL;
    if (direct && !p->ids && (p->ids = calloc(1, sizeof *p->ids)) == NULL)
        return WT_ENOMEM;
    if (direct && (rc = wt__ledger_calc_thread(p->lc, b->pid, b->tid)) == 0) {
        wt__idtab_epoch(&p->ids->tab, sizeof(wt__pair_id), b->string_epoch);
        rc = pair_records(p, b, &c, &ev);
        if (rc == 0 && p->also && p->also->upcoming)
            p->also->upcoming(p->also_ctx, fi, b);
        for (size_t i = 0; rc == 0 && p->also && p->also->event && i < b->n; i++)
            rc = p->also->event(p->also_ctx, fi, batch_event(b, &c, i, &ev, &cev));
        return rc;
    }
    if (rc < 0)
        return rc;
    rc = 0; /* 1: the thread folds into "(other threads)": the event path keys it so */
    for (size_t i = 0; i < b->n && rc == 0; i++)
        rc = pair_event(p, fi, batch_event(b, &c, i, &ev, &cev));
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
    wt_analysis_pair_release(p); /* the ids were the file's */
    int rc = p->lc ? wt_ledger_calc_file_end(p->lc, st) : 0;
    if (rc == 0 && p->an)
        rc = wt_anomalies_file_end(p->an, st);
    if (rc == 0 && p->also && p->also->file_end)
        rc = p->also->file_end(p->also_ctx, fi, st);
    return rc;
}

const wt_source_ops *wt_analysis_pair_ops(void)
{
    static const wt_source_ops ops = { pair_begin, pair_event, pair_damage, pair_end, pair_spans,
                                       NULL };
    return &ops;
}

/* ---- the run ---- */

int wt_analysis_baseline(const char *path, wt_ledger_calc **out)
{
    wt_analysis_pair pair = { NULL, NULL, NULL, NULL, NULL };
    wt_source_result res;
    char *paths[1] = { (char *)path };
    int rc = wt_ledger_calc_create(NULL, &pair.lc);
    if (rc == 0)
        rc = wt_source_run_counters(paths, 1, wt_analysis_pair_ops(), &pair, &res);
    wt_analysis_pair_release(&pair);
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
    wt_analysis_pair pair = { a->lc, a->an, o->also, o->also_ctx, NULL };
    char **ordered = wt_fork_order(paths, n); /* forked children first, as threads' spans */
    if (!ordered)
        return WT_ENOMEM;
    rc = wt_source_run_counters(ordered, n, wt_analysis_pair_ops(), &pair, &a->res);
    free(ordered);
    wt_analysis_pair_release(&pair);
    if (rc != 0)
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
