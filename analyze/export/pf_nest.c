/* One thread's spans nested on its track (pf_nest.h has the design). */
#include <stdlib.h>
#include <string.h>

#include "pf_nest.h"

/* Per depth j of a thread whose spans were written early (before their root arrived):
 * - start[j]: the arrival number of the last span at depth <= j: spans at depth > j that
 *   arrived after it are descendants of the span open at depth j (its "window");
 * - emin[j] / emax[j]: the earliest begin and latest end of the tree spans written early in
 *   that window: the span at depth j, when it arrives, must begin strictly before (else its
 *   BEGIN, written later, would be read after theirs) and end no earlier;
 * - prev_end[j]: the latest end of the tree spans written at depth >= j outside the window:
 *   the next span at depth j must not begin before it. */
struct pf_early {
    uint32_t n; /* depths covered */
    uint64_t *start;
    int64_t *emin, *emax, *prev_end;
};

static void early_free(pf_early *e)
{
    if (e) {
        free(e->start); /* one block: start, emin, emax, prev_end */
        free(e);
    }
}

static void hold_free(pf_nest_ctx *c, pf_nest *t)
{
    c->hold_cap -= t->cap_hold;
    free(t->hold);
    t->hold = NULL;
    t->cap_hold = 0;
}

/* Begin order: by start, and in one nanosecond the tree's pre-order (an ancestor before its
 * descendants, an earlier subtree before a later one). The held spans arrived in post-order,
 * so a span's held descendants are the arrivals [lo, seq) and pre-order is (lo, -seq). Depth
 * alone is not enough: an instant ending an earlier subtree may share its nanosecond with a
 * shallower span that begins the next one. */
static int by_begin(const void *a, const void *b)
{
    const pf_span *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->seq < y->seq) - (x->seq > y->seq);
}

/* Sets each held span's `lo` from the depths, in arrival order: a span's descendants are the
 * spans deeper than it that arrived just before it. Uses the scratch stack (room for n).
 * Returns 1 when a wt_record() span is among them. */
static int set_lo(pf_nest_ctx *c, pf_span *v, uint32_t n)
{
    uint32_t *st = c->stack; /* indices into v of the subtrees seen, depths increasing */
    size_t sp = 0;
    uint32_t measured = 0;
    for (uint32_t i = 0; i < n; i++) {
        v[i].lo = v[i].seq;
        measured |= v[i].flags & WT_EVF_MEASURED;
        while (sp && v[st[sp - 1]].depth > v[i].depth)
            v[i].lo = v[st[--sp]].lo;
        st[sp++] = i;
    }
    return measured != 0;
}

/* `top`'s END goes before `s`'s BEGIN: it ended before s began, or at that instant unless s is
 * an instant inside it. */
static int ended(const pf_span *top, const pf_span *s)
{
    if (top->end != s->ts)
        return top->end < s->ts;
    return !(s->end == s->ts && top->depth < s->depth);
}

/* `s` nests under `top` (which began no later: begin order). */
static int nests(const pf_span *top, const pf_span *s)
{
    return top->depth < s->depth && s->end <= top->end;
}

/* The earliest a span at depth d with no held ancestor may begin on the thread's track. */
static int64_t floor_at(const pf_nest *t, uint32_t d)
{
    int64_t f = t->tree_end;
    if (t->early && d < t->early->n && t->early->prev_end[d] > f)
        f = t->early->prev_end[d];
    return f;
}

/* `s` has no held ancestor: it may go on the track if it begins after what is there, and, when
 * written early (`whole` 0), is not a wt_record() span: its parent, still open, is unknown, and
 * a wt_record() span may begin before it (the parent would then have to go to a lane). */
static int base_ok(const pf_nest *t, const pf_span *s, int whole)
{
    return s->ts >= floor_at(t, s->depth) && (whole || !(s->flags & WT_EVF_MEASURED));
}

static int early_make(pf_nest *t, uint32_t n)
{
    pf_early *e = calloc(1, sizeof *e);
    uint64_t *block = calloc(n, 4 * sizeof(uint64_t));
    if (!e || !block) {
        free(e);
        free(block);
        return WT_ENOMEM;
    }
    e->n = n;
    e->start = block;
    e->emin = (int64_t *)(block + n);
    e->emax = e->emin + n;
    e->prev_end = e->emax + n;
    for (uint32_t j = 0; j < n; j++) {
        e->emin[j] = INT64_MAX;
        e->emax[j] = INT64_MIN;
        e->prev_end[j] = INT64_MIN;
    }
    /* the windows now open: everything held arrived since the last root */
    for (uint32_t i = 0; i < t->n_hold; i++)
        for (uint32_t j = t->hold[i].depth; j < n; j++)
            if (t->hold[i].seq > e->start[j])
                e->start[j] = t->hold[i].seq;
    t->early = e;
    return 0;
}

/* Covers depths up to d (a deeper span arrived): no span that deep arrived since the windows
 * were made, so the new depths open where the deepest one did. */
static int early_grow(pf_nest *t, uint32_t d)
{
    pf_early *e = t->early;
    if (d < e->n)
        return 0;
    uint32_t n = d + 1;
    uint64_t *block = malloc((size_t)n * 4 * sizeof(uint64_t));
    if (!block)
        return WT_ENOMEM;
    int64_t *emin = (int64_t *)(block + n), *emax = emin + n, *prev = emax + n;
    for (uint32_t j = 0; j < n; j++) {
        int old = j < e->n;
        block[j] = old ? e->start[j] : e->start[e->n - 1];
        emin[j] = old ? e->emin[j] : INT64_MAX;
        emax[j] = old ? e->emax[j] : INT64_MIN;
        prev[j] = old ? e->prev_end[j] : INT64_MIN;
    }
    free(e->start);
    e->start = block;
    e->emin = emin;
    e->emax = emax;
    e->prev_end = prev;
    e->n = n;
    return 0;
}

/* Tree span `s` was written early: it is in the window of each open depth j < its depth that it
 * arrived in, else behind the next span at depth j. */
static void early_written(pf_early *e, const pf_span *s)
{
    for (uint32_t j = 0; j < e->n && j <= s->depth; j++) {
        if (j < s->depth && s->seq > e->start[j]) {
            if (s->ts < e->emin[j])
                e->emin[j] = s->ts;
            if (s->end > e->emax[j])
                e->emax[j] = s->end;
        } else if (s->end > e->prev_end[j]) {
            e->prev_end[j] = s->end;
        }
    }
}

/* A span arrives at depth k while spans were written early: it must nest over its descendants
 * written early and after its earlier siblings; then the windows at depth >= k close. */
static void early_arrive(pf_early *e, pf_span *s)
{
    const uint32_t k = s->depth;
    if (!(s->ts >= e->prev_end[k] && s->ts < e->emin[k] && s->end >= e->emax[k]))
        s->lane = 1;
    for (uint32_t j = k; j < e->n; j++) {
        /* at depth k, s itself will bound its descendants once written; on a lane it does not,
         * so they bound the next span at depth k */
        if ((j > k || s->lane) && e->emax[j] > e->prev_end[j])
            e->prev_end[j] = e->emax[j];
        e->emin[j] = INT64_MAX;
        e->emax[j] = INT64_MIN;
        e->start[j] = s->seq;
    }
}

static int scratch_room(pf_nest_ctx *c, size_t n)
{
    if (n > c->cap_stack) {
        uint32_t *ns = realloc(c->stack, n * sizeof *ns);
        if (!ns)
            return WT_ENOMEM;
        c->stack = ns;
        c->cap_stack = n;
    }
    if (n > c->cap_order) {
        pf_span *nv = realloc(c->order, n * sizeof *nv);
        if (!nv)
            return WT_ENOMEM;
        c->order = nv;
        c->cap_order = n;
    }
    return 0;
}

/* Puts the held spans in begin order. Arrival is post-order, so the tree's pre-order comes
 * in linear time: a span's place is the number of spans of the subtrees finished before its
 * own (its lo, in arrival numbers from 0) plus its held ancestors. When that order also runs
 * in time (an honest tree, the common case) it is the begin order; when not (wt_record() spans,
 * damaged input), sort. */
static void begin_order(pf_nest_ctx *c, pf_nest *t)
{
    pf_span *v = t->hold;
    const uint32_t n = t->n_hold;
    uint32_t *st = c->stack;
    pf_span *out = c->order;
    const uint64_t base = v[0].seq; /* arrival numbers of held spans run base, base + 1, ... */
    size_t sp = 0;
    for (uint32_t i = n; i-- > 0;) { /* backwards: a span's ancestors come before it */
        while (sp && v[st[sp - 1]].lo > v[i].seq)
            sp--;
        out[v[i].lo - base + sp] = v[i];
        st[sp++] = i;
    }
    int in_time = 1;
    for (uint32_t i = 1; i < n && in_time; i++)
        in_time = out[i - 1].ts <= out[i].ts;
    if (in_time) { /* the ordered copy becomes the thread's, its old buffer the scratch */
        t->hold = out;
        c->order = v;
        uint32_t cap = t->cap_hold;
        t->cap_hold = (uint32_t)c->cap_order;
        c->hold_cap = c->hold_cap - cap + t->cap_hold; /* it counted cap */
        c->cap_order = cap;
    } else {
        qsort(v, n, sizeof *v, by_begin);
    }
}

/* Decides which held spans cannot nest: walking them in begin order with the stack of open
 * ones, a span that overlaps a span not containing it goes to a lane — the wt_record() one of
 * the two when there is one (it may be the span already on the stack). */
static void decide(pf_nest *t, pf_span *v, uint32_t n, uint32_t *st, int whole)
{
    size_t sp = 0;
    for (uint32_t i = 0; i < n; i++) {
        pf_span *s = &v[i];
        if (s->lane)
            continue;
        for (;;) {
            while (sp && ended(&v[st[sp - 1]], s))
                sp--;
            if (!sp) {
                if (!base_ok(t, s, whole))
                    s->lane = 1;
                break;
            }
            pf_span *top = &v[st[sp - 1]];
            if (nests(top, s))
                break;
            if (!(s->flags & WT_EVF_MEASURED) && (top->flags & WT_EVF_MEASURED)) {
                top->lane = 1;
                sp--;
                continue;
            }
            s->lane = 1;
            break;
        }
        if (!s->lane)
            st[sp++] = i;
    }
}

/* Writes the held spans of `t` in begin order: each BEGIN after its parent's, each END when
 * the next span begins after it. `whole`: the root arrived (the tree is complete). */
static int write_held(pf_nest_ctx *c, pf_nest *t, pf_lanes *lanes, uint64_t track, int whole)
{
    const uint32_t n = t->n_hold;
    int rc = 0;
    if (!n)
        return 0;
    if (!whole) {
        c->early += n;
        if (!t->early) {
            uint32_t maxd = 0;
            for (uint32_t i = 0; i < n; i++)
                if (t->hold[i].depth > maxd)
                    maxd = t->hold[i].depth;
            if ((rc = early_make(t, maxd + 1)) < 0)
                return rc;
        }
    }
    if ((rc = scratch_room(c, n)) < 0)
        return rc;
    const int measured = set_lo(c, t->hold, n);
    begin_order(c, t);
    pf_span *v = t->hold;
    /* without wt_record() spans the writing below decides alone: of two ordinary spans that
     * do not nest, the later goes to a lane, as decide() would have it */
    if (measured)
        decide(t, v, n, c->stack, whole);
    uint32_t *st = c->stack;
    size_t sp = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        pf_span *s = &v[i];
        if (s->lane) {
            rc = wt__pf_lanes_put(c->w, lanes, track, s, &c->lanes);
            continue;
        }
        while (sp && rc == 0 && ended(&v[st[sp - 1]], s))
            rc = wt__pf_span_end(c->w, v[st[--sp]].end, track);
        /* what decide() allowed nests here too, unless a span it allowed under a wt_record()
         * span that a later one then pushed out no longer fits: a lane */
        if (rc < 0 || (sp ? !nests(&v[st[sp - 1]], s) : !base_ok(t, s, whole))) {
            rc = rc < 0 ? rc : wt__pf_lanes_put(c->w, lanes, track, s, &c->lanes);
            continue;
        }
        if ((rc = wt__pf_span_begin(c->w, s, s->ts, track)) < 0)
            break;
        st[sp++] = i;
        if (whole) {
            if (s->end > t->tree_end)
                t->tree_end = s->end;
        } else {
            early_written(t->early, s);
        }
    }
    while (sp && rc == 0)
        rc = wt__pf_span_end(c->w, v[st[--sp]].end, track);
    c->held -= n;
    t->n_hold = 0;
    if (whole) {
        early_free(t->early);
        t->early = NULL;
    }
    /* a thread written early will hold again soon (its root is still open): it keeps its
     * buffer while all kept buffers stay within PF_HOLD_TOTAL spans */
    if (whole || rc < 0 || c->hold_cap > PF_HOLD_TOTAL)
        hold_free(c, t);
    return rc;
}

static int hold(pf_nest_ctx *c, pf_nest *t, const pf_span *s)
{
    if (t->n_hold == t->cap_hold) {
        uint32_t nc = t->cap_hold ? t->cap_hold * 2 : 16;
        pf_span *nh = realloc(t->hold, nc * sizeof *nh);
        if (!nh)
            return WT_ENOMEM;
        t->hold = nh;
        c->hold_cap += nc - t->cap_hold;
        t->cap_hold = nc;
    }
    t->hold[t->n_hold++] = *s;
    c->held++;
    return 0;
}

int wt__pf_nest_span(pf_nest_ctx *c, pf_nest *t, pf_lanes *lanes, uint64_t track, pf_span *s)
{
    int rc;
    s->seq = ++t->seq;
    if (t->early) {
        if ((rc = early_grow(t, s->depth)) < 0)
            return rc;
        early_arrive(t->early, s);
    }
    if (s->depth == 0 && !t->n_hold && !t->early) {
        /* a root with nothing held (a flat trace): written at once */
        if (s->ts < t->tree_end)
            return wt__pf_lanes_put(c->w, lanes, track, s, &c->lanes);
        t->tree_end = s->end > t->tree_end ? s->end : t->tree_end;
        return wt__pf_span_whole(c->w, s, s->ts, track);
    }
    if ((rc = hold(c, t, s)) < 0)
        return rc;
    if (s->depth == 0)
        return write_held(c, t, lanes, track, 1);
    if (t->n_hold >= PF_HOLD_THREAD || c->held >= PF_HOLD_TOTAL)
        return write_held(c, t, lanes, track, 0);
    return 0;
}

int wt__pf_nest_flush(pf_nest_ctx *c, pf_nest *t, pf_lanes *lanes, uint64_t track)
{
    /* roots that never arrived (a cut file): what is held is written as it is */
    int rc = write_held(c, t, lanes, track, 0);
    hold_free(c, t);
    early_free(t->early);
    t->early = NULL;
    return rc;
}

void wt__pf_nest_release(pf_nest *t)
{
    free(t->hold);
    early_free(t->early);
    t->hold = NULL;
    t->early = NULL;
}

void wt__pf_nest_ctx_release(pf_nest_ctx *c)
{
    free(c->stack);
    free(c->order);
    memset(c, 0, sizeof *c);
}
