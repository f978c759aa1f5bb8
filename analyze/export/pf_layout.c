/* The Perfetto sink's track layout for spans (pf_layout.h has the design). */
#include <stdlib.h>
#include <string.h>

#include "pf_layout.h"

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

void wt__pf_layout_init(pf_layout *L, pf_writer *w)
{
    memset(L, 0, sizeof *L);
    L->w = w;
}

static void early_free(pf_early *e)
{
    if (e) {
        free(e->start); /* one block: start, emin, emax, prev_end */
        free(e);
    }
}

static void thread_release(pf_thread *t)
{
    free(t->hold);
    free(t->lanes);
    early_free(t->early);
}

void wt__pf_layout_release(pf_layout *L)
{
    for (size_t i = 0; i < L->n_th; i++)
        thread_release(&L->th[i]);
    for (size_t i = 0; i < L->n_fold; i++) {
        if (L->fold[i])
            thread_release(L->fold[i]);
        free(L->fold[i]);
    }
    free(L->th);
    free(L->fold);
    free(L->stack);
    free(L->order);
    wt__pf_kmap_release(&L->map);
    memset(L, 0, sizeof *L);
}

/* ---- tracks ---- */

static int thread_track(pf_layout *L, const pf_proc *pr, const pf_thread *t, const char *name)
{
    Perfetto__Protos__TrackDescriptor td;
    Perfetto__Protos__ThreadDescriptor thd;
    perfetto__protos__track_descriptor__init(&td);
    perfetto__protos__thread_descriptor__init(&thd);
    td.has_uuid = 1;
    td.uuid = t->uuid;
    td.has_child_ordering = 1;
    td.child_ordering = PERFETTO__PROTOS__TRACK_DESCRIPTOR__CHILD_TRACKS_ORDERING__EXPLICIT;
    thd.has_pid = thd.has_tid = 1;
    thd.pid = (int32_t)pr->pid;
    thd.tid = (int64_t)t->tid;
    thd.thread_name = (char *)wt__pfw_utf8(L->w, 9, name);
    td.thread = &thd;
    return wt__pfw_emit_track(L->w, &td);
}

static int fold_bucket(pf_layout *L, int fi, const pf_proc *pr, pf_thread **out)
{
    if ((size_t)fi >= L->n_fold) {
        pf_thread **nf = realloc(L->fold, (size_t)(fi + 1) * sizeof *nf);
        if (!nf)
            return WT_ENOMEM;
        memset(nf + L->n_fold, 0, ((size_t)fi + 1 - L->n_fold) * sizeof *nf);
        L->fold = nf;
        L->n_fold = (size_t)fi + 1;
    }
    if (!L->fold[fi]) {
        pf_thread *t = calloc(1, sizeof *t);
        if (!t)
            return WT_ENOMEM;
        L->fold[fi] = t;
        t->uuid = wt__pfw_uuid(L->w);
        t->tree_end = INT64_MIN;
        t->fi = fi;
        t->folded = 1;
        char name[96];
        snprintf(name, sizeof name, "other threads (past %d)", WT_EXPORT_MAX_THREADS);
        int rc = wt__pfw_track(L->w, t->uuid, pr->uuid, name, -1, 1);
        if (rc < 0)
            return rc;
    }
    *out = L->fold[fi];
    return 0;
}

int wt__pf_layout_thread(pf_layout *L, int fi, const pf_proc *pr, uint64_t tid, pf_thread **out)
{
    if (L->last && L->th[L->last - 1].fi == fi && L->th[L->last - 1].tid == tid) {
        *out = &L->th[L->last - 1];
        return 0;
    }
    uint32_t v = wt__pf_kmap_get(&L->map, (uint64_t)fi, tid);
    if (v) {
        L->last = v;
        *out = &L->th[v - 1];
        return 0;
    }
    if (L->n_th == WT_EXPORT_MAX_THREADS) {
        /* a thread of its own costs ~150 bytes: hostile input could name millions */
        return fold_bucket(L, fi, pr, out);
    }
    if (L->n_th == L->cap_th) {
        size_t nc = L->cap_th ? L->cap_th * 2 : 16;
        if (nc > WT_EXPORT_MAX_THREADS)
            nc = WT_EXPORT_MAX_THREADS;
        pf_thread *nt = realloc(L->th, nc * sizeof *nt);
        if (!nt)
            return WT_ENOMEM;
        L->th = nt;
        L->cap_th = nc;
    }
    pf_thread *t = &L->th[L->n_th];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->fi = fi;
    t->uuid = wt__pfw_uuid(L->w);
    t->tree_end = INT64_MIN;
    int rc = wt__pf_kmap_put(&L->map, (uint64_t)fi, tid, (uint32_t)(L->n_th + 1));
    if (rc < 0)
        return rc;
    L->last = ++L->n_th;
    char name[48];
    snprintf(name, sizeof name, "thread %llu", (unsigned long long)tid);
    *out = t;
    return thread_track(L, pr, t, name);
}

int wt__pf_layout_name(pf_layout *L, int fi, const pf_proc *pr, uint64_t tid, const char *name)
{
    pf_thread *t;
    int rc = wt__pf_layout_thread(L, fi, pr, tid, &t);
    if (rc < 0 || t->folded)
        return rc;
    return thread_track(L, pr, t, name ? name : "");
}

int wt__pf_layout_marks(pf_layout *L, int fi, const pf_proc *pr, uint64_t tid, uint64_t *uuid)
{
    pf_thread *t;
    int rc = wt__pf_layout_thread(L, fi, pr, tid, &t);
    if (rc < 0)
        return rc;
    if (!t->marks_uuid) {
        uint64_t u = wt__pfw_uuid(L->w);
        if ((rc = wt__pfw_track(L->w, u, t->uuid, "marks", 0, 0)) < 0)
            return rc;
        t->marks_uuid = u;
    }
    *uuid = t->marks_uuid;
    return 0;
}

/* ---- lanes ---- */

/* Writes `s` whole on the first overlap lane of `t` free at its start, making one when needed;
 * past WT_EXPORT_MAX_LANES, on the lane that ends first (counted as misplaced). */
static int lane_put(pf_layout *L, pf_thread *t, const pf_span *s)
{
    pf_lane *l = NULL;
    int rc;
    for (uint32_t i = 0; i < t->n_lanes && !l; i++)
        if (t->lanes[i].last_end <= s->ts)
            l = &t->lanes[i];
    if (!l && t->n_lanes == WT_EXPORT_MAX_LANES) {
        l = &t->lanes[0];
        for (uint32_t i = 1; i < t->n_lanes; i++)
            if (t->lanes[i].last_end < l->last_end)
                l = &t->lanes[i];
        L->st.misplaced++;
    } else if (!l) {
        if (t->n_lanes == t->cap_lanes) {
            uint32_t nc = t->cap_lanes ? t->cap_lanes * 2 : 2;
            pf_lane *nl = realloc(t->lanes, nc * sizeof *nl);
            if (!nl)
                return WT_ENOMEM;
            t->lanes = nl;
            t->cap_lanes = nc;
        }
        l = &t->lanes[t->n_lanes];
        l->uuid = wt__pfw_uuid(L->w);
        l->last_end = INT64_MIN;
        char name[32];
        snprintf(name, sizeof name, "overlap %u", t->n_lanes + 1);
        if ((rc = wt__pfw_track(L->w, l->uuid, t->uuid, name, (int)t->n_lanes + 1, 0)) < 0)
            return rc;
        t->n_lanes++;
    }
    if (s->end > l->last_end)
        l->last_end = s->end;
    L->st.lane_spans++;
    return wt__pf_span_whole(L->w, s, s->ts, l->uuid);
}

int wt__pf_group_pick(pf_writer *w, pf_lane_group *g, int64_t start, uint64_t parent,
                      const char *name, int rank, pf_lane **out, int64_t *misplaced)
{
    for (unsigned i = 0; i < g->n; i++) {
        if (g->l[i].last_end <= start) {
            *out = &g->l[i];
            return 0;
        }
    }
    if (g->n == PF_GROUP_LANES) {
        ++*misplaced;
        *out = &g->l[g->n - 1];
        return 0;
    }
    pf_lane *l = &g->l[g->n];
    char full[160];
    l->uuid = wt__pfw_uuid(w);
    l->last_end = INT64_MIN;
    if (g->n == 0)
        snprintf(full, sizeof full, "%s", name);
    else
        snprintf(full, sizeof full, "%.120s (overlap %u)", name, g->n);
    int rc = wt__pfw_track(w, l->uuid, parent, full, rank + (int)g->n, 0);
    if (rc < 0)
        return rc;
    g->n++;
    *out = l;
    return 0;
}

/* ---- writing the open tree ---- */

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
 * spans deeper than it that arrived just before it. Uses the scratch stack (room for n). */
static void set_lo(pf_layout *L, pf_span *v, uint32_t n)
{
    uint32_t *st = L->stack; /* indices into v of the subtrees seen, depths increasing */
    size_t sp = 0;
    for (uint32_t i = 0; i < n; i++) {
        v[i].lo = v[i].seq;
        while (sp && v[st[sp - 1]].depth > v[i].depth)
            v[i].lo = v[st[--sp]].lo;
        st[sp++] = i;
    }
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
static int64_t floor_at(const pf_thread *t, uint32_t d)
{
    int64_t f = t->tree_end;
    if (t->early && d < t->early->n && t->early->prev_end[d] > f)
        f = t->early->prev_end[d];
    return f;
}

static int early_make(pf_thread *t, uint32_t n)
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
static int early_grow(pf_thread *t, uint32_t d)
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

static int scratch_room(pf_layout *L, size_t n)
{
    if (n > L->cap_stack) {
        uint32_t *ns = realloc(L->stack, n * sizeof *ns);
        if (!ns)
            return WT_ENOMEM;
        L->stack = ns;
        L->cap_stack = n;
    }
    if (n > L->cap_order) {
        pf_span *nv = realloc(L->order, n * sizeof *nv);
        if (!nv)
            return WT_ENOMEM;
        L->order = nv;
        L->cap_order = n;
    }
    return 0;
}

/* Puts the held spans in begin order. Arrival is post-order, so the tree's pre-order comes
 * in linear time: a span's place is the number of spans of the subtrees finished before its
 * own (its lo, in arrival numbers from 0) plus its held ancestors. When that order also runs
 * in time (an honest tree, the common case) it is the begin order; when not (wt_record() spans,
 * damaged input), sort. */
static void begin_order(pf_layout *L, pf_thread *t)
{
    pf_span *v = t->hold;
    const uint32_t n = t->n_hold;
    uint32_t *st = L->stack;
    pf_span *out = L->order;
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
        L->order = v;
        uint32_t cap = t->cap_hold;
        t->cap_hold = (uint32_t)L->cap_order;
        L->hold_cap = L->hold_cap - cap + t->cap_hold; /* it counted cap */
        L->cap_order = cap;
    } else {
        qsort(v, n, sizeof *v, by_begin);
    }
}

/* Decides which held spans cannot nest: walking them in begin order with the stack of open
 * ones, a span that overlaps a span not containing it goes to a lane — the wt_record() one of
 * the two when there is one (it may be the span already on the stack). */
static void decide(pf_layout *L, pf_thread *t, pf_span *v, uint32_t n)
{
    uint32_t *st = L->stack;
    size_t sp = 0;
    for (uint32_t i = 0; i < n; i++) {
        pf_span *s = &v[i];
        if (s->lane)
            continue;
        for (;;) {
            while (sp && ended(&v[st[sp - 1]], s))
                sp--;
            if (!sp) {
                if (s->ts < floor_at(t, s->depth))
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
static int write_held(pf_layout *L, pf_thread *t, int whole)
{
    const uint32_t n = t->n_hold;
    int rc = 0;
    if (!n)
        return 0;
    if (!whole) {
        L->st.early += n;
        if (!t->early) {
            uint32_t maxd = 0;
            for (uint32_t i = 0; i < n; i++)
                if (t->hold[i].depth > maxd)
                    maxd = t->hold[i].depth;
            if ((rc = early_make(t, maxd + 1)) < 0)
                return rc;
        }
    }
    if ((rc = scratch_room(L, n)) < 0)
        return rc;
    set_lo(L, t->hold, n);
    begin_order(L, t);
    pf_span *v = t->hold;
    decide(L, t, v, n);
    uint32_t *st = L->stack;
    size_t sp = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        pf_span *s = &v[i];
        if (s->lane) {
            rc = lane_put(L, t, s);
            continue;
        }
        while (sp && rc == 0 && ended(&v[st[sp - 1]], s))
            rc = wt__pf_span_end(L->w, v[st[--sp]].end, t->uuid);
        /* what decide() allowed nests here too, unless a span it allowed under a wt_record()
         * span that a later one then pushed out no longer fits: a lane */
        if (rc < 0 || (sp ? !nests(&v[st[sp - 1]], s) : s->ts < floor_at(t, s->depth))) {
            rc = rc < 0 ? rc : lane_put(L, t, s);
            continue;
        }
        if ((rc = wt__pf_span_begin(L->w, s, s->ts, t->uuid)) < 0)
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
        rc = wt__pf_span_end(L->w, v[st[--sp]].end, t->uuid);
    L->held -= n;
    t->n_hold = 0;
    if (whole) {
        early_free(t->early);
        t->early = NULL;
    }
    /* a thread written early will hold again soon (its root is still open): it keeps its
     * buffer while all kept buffers stay within PF_HOLD_TOTAL spans */
    if (whole || rc < 0 || L->hold_cap > PF_HOLD_TOTAL) {
        L->hold_cap -= t->cap_hold;
        free(t->hold);
        t->hold = NULL;
        t->cap_hold = 0;
    }
    return rc;
}

static int hold(pf_layout *L, pf_thread *t, const pf_span *s)
{
    if (t->n_hold == t->cap_hold) {
        uint32_t nc = t->cap_hold ? t->cap_hold * 2 : 16;
        pf_span *nh = realloc(t->hold, nc * sizeof *nh);
        if (!nh)
            return WT_ENOMEM;
        t->hold = nh;
        L->hold_cap += nc - t->cap_hold;
        t->cap_hold = nc;
    }
    t->hold[t->n_hold++] = *s;
    L->held++;
    return 0;
}

int wt__pf_layout_span(pf_layout *L, int fi, const pf_proc *pr, const wt_event *ev)
{
    pf_thread *t;
    pf_span s;
    int rc = wt__pf_layout_thread(L, fi, pr, ev->tid, &t);
    if (rc < 0)
        return rc;
    wt__pf_span_of(&s, ev);
    L->st.spans++;
    if (t->folded) {
        L->st.spans_folded++;
        return lane_put(L, t, &s);
    }
    if (s.depth >= WT_EXPORT_MAX_DEPTH) {
        L->st.depth_clamped++;
        s.depth = WT_EXPORT_MAX_DEPTH - 1;
    }
    s.seq = ++t->seq;
    if (t->early) {
        if ((rc = early_grow(t, s.depth)) < 0)
            return rc;
        early_arrive(t->early, &s);
    }
    if (s.depth == 0 && !t->n_hold && !t->early) {
        /* a root with nothing held (a flat trace): written at once */
        if (s.ts < t->tree_end)
            return lane_put(L, t, &s);
        t->tree_end = s.end > t->tree_end ? s.end : t->tree_end;
        return wt__pf_span_whole(L->w, &s, s.ts, t->uuid);
    }
    if ((rc = hold(L, t, &s)) < 0)
        return rc;
    if (s.depth == 0)
        return write_held(L, t, 1);
    if (t->n_hold >= PF_HOLD_THREAD || L->held >= PF_HOLD_TOTAL)
        return write_held(L, t, 0);
    return 0;
}

int wt__pf_layout_file_end(pf_layout *L, int fi)
{
    int rc = 0;
    for (size_t i = 0; i < L->n_th && rc == 0; i++) {
        pf_thread *t = &L->th[i];
        if (t->fi != fi)
            continue;
        /* roots that never arrived (a cut file): what is held is written as it is */
        rc = write_held(L, t, 0);
        L->hold_cap -= t->cap_hold;
        free(t->hold);
        t->hold = NULL;
        t->cap_hold = 0;
        early_free(t->early);
        t->early = NULL;
    }
    L->last = 0;
    return rc;
}
