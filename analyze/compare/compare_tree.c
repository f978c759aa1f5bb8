/* compare's stage tree, from real parent links.
 *
 * The recorder writes a span when it ends, so on one thread the children of a span arrive
 * before it, at depth + 1. Each thread keeps, per level, the span time waiting for its parent;
 * when the parent arrives (and the children lie inside it in time) its direct children are
 * linked to its stage and their time moves up a level, except time of the parent's own stage,
 * which the parent already covers (so a category row never counts nested spans of its category
 * twice). A depth-0 span has no parent on its thread: its stage hangs off the round, as does a
 * worker thread's span. A rolled-up row's spans wait by label instead, and land when their
 * parent comes in a row of their category under that parent's row (made in pass 2 the first
 * time), so the convert rollup sits under each layer that holds conversions. Any other stage
 * seen under different parents hangs off their nearest common ancestor. Memory: pending time
 * is per thread and level, one entry per stage (per span for rolled-up rows), capped in all
 * (WT_CMP_MAX_PENDING); threads and levels past their caps count flat. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "spanstat.h"

/* ---- pass 2: spans into cells, parent links ---------------------------------------- */

/* The row of a span, and its census key in *key (-1: a name past the census). */
static long stage_for(wt_compare *c, const wt_event *ev, long *key_index)
{
    wt_cmp_census *k = &c->census;
    char buf[256], *key = wt__cmp_key_of(buf, sizeof buf, ev);
    if (!key)
        return -2;
    const long i = wt__cmp_names_find(&k->keys, key, 0);
    if (key != buf)
        free(key);
    *key_index = i;
    if (i >= 0)
        return k->key_stage[i];
    /* a name pass 1 did not count (past its limits) */
    const long g = wt__cmp_names_find(&k->cats, ev->category ? ev->category : "", 0);
    return g >= 0 && k->cat_stage[g] >= 0 ? k->cat_stage[g] : k->other_stage;
}

static void add_ns(wt_compare *c, long round, uint32_t s, double ns)
{
    wt_cmp_round *r = &c->rounds[round];
    if (s < r->n_stage_cap)
        r->stage_ns[s] = isnan(r->stage_ns[s]) ? ns : r->stage_ns[s] + ns;
}

static int pend(wt_compare *c, wt_cmp_level *lv, uint32_t s, int direct, double ns);

/* Stage s was seen inside a span of stage p (0: directly in the round). */
static void observe_parent(wt_compare *c, uint32_t s, uint32_t p)
{
    wt_cmp_stage *st = c->stages;
    const size_t ns = c->stage_keys.n;
    if (s == p || s == 0 || (long)p == st[s].parent)
        return;
    if (st[s].parent < 0) {
        /* would p's chain lead back to s? then s hangs off the round (no cycles) */
        long x = p;
        for (size_t steps = 0; x > 0 && steps <= ns; steps++, x = st[x].parent)
            if ((uint32_t)x == s) {
                st[s].parent = 0;
                return;
            }
        st[s].parent = p;
        return;
    }
    /* seen under two parents: their nearest common ancestor (never s: no cycles) */
    long best = 0;
    for (long a = st[s].parent, sa = 0; a > 0 && (size_t)sa <= ns; a = st[a].parent, sa++) {
        long b = p;
        for (size_t sb = 0; b > 0 && sb <= ns && b != a; sb++)
            b = st[b].parent;
        if (b == a) {
            best = a;
            break;
        }
    }
    st[s].parent = best;
}

/* The row a span of rolled-up row `base` lands in once its enclosing row p (0: the round) is
 * known: base itself under the first row it is seen in, else a row of its own under p, so that
 * every row sits under the row that encloses it. A span inside a span of its own category is
 * covered by it (p). At the stage limit (or out of memory), base: it then hangs off the common
 * ancestor of its parents. */
static uint32_t row_under(wt_compare *c, uint32_t base, uint32_t p)
{
    const wt_cmp_stage *b = &c->stages[base];
    if (p == base || c->stages[p].base == (long)base)
        return p;
    if (b->parent < 0 || b->parent == (long)p)
        return base;
    const long s = wt__cmp_rollup_row(c, base, p);
    return s < 0 ? base : (uint32_t)s;
}

/* A span's (or rolled-up spans') HIT and MISS counts and its start `first`, in row s of round
 * r: the row has data. */
static void count_in(wt_compare *c, wt_cmp_round *r, uint32_t s, int64_t first, uint32_t hits,
                     uint32_t misses)
{
    wt_cmp_stage *st = &c->stages[s];
    if (s < r->n_stage_cap) {
        r->hits[s] += hits;
        r->misses[s] += misses;
    }
    st->has_data = 1;
    if (first - r->ts < st->first_offset)
        st->first_offset = first - r->ts;
}

/* A rolled-up span's counts and start, in row s of its round. */
static void count_keyed(wt_compare *c, long round, const wt_cmp_keyed *e, uint32_t s)
{
    count_in(c, &c->rounds[round], s, e->first, e->hits, e->misses);
}

/* A span of a rolled-up row has its enclosing row p: its counts, start and label go to the row
 * it lands in, and its time to level `into` (carried up to p's span), or straight into the
 * round's cell when NULL. */
static int land(wt_compare *c, long round, const wt_cmp_keyed *e, uint32_t p, wt_cmp_level *into)
{
    const uint32_t s = row_under(c, (uint32_t)c->census.key_stage[e->key], p);
    wt_cmp_stage *st = &c->stages[s];
    count_keyed(c, round, e, s);
    if (!st->seen)
        st->seen = calloc(WT_CMP_MAX_KEYS / 8, 1); /* without it, only the label count is off */
    if (st->seen)
        st->seen[e->key / 8] |= (unsigned char)(1u << (e->key % 8));
    observe_parent(c, s, p);
    if (!into) {
        add_ns(c, round, s, e->ns);
        return 0;
    }
    return s == p ? 0 : pend(c, into, s, 0, e->ns);
}

/* Moves a level's time into the cells of its round; direct spans hang off the round when
 * `to_round` (nothing encloses them on their thread). */
static void flush_level(wt_compare *c, wt_cmp_level *lv, int to_round)
{
    for (size_t i = 0; i < lv->n; i++) {
        add_ns(c, lv->round, lv->e[i].stage, lv->e[i].ns);
        if (to_round && lv->e[i].direct)
            observe_parent(c, lv->e[i].stage, 0);
    }
    for (size_t i = 0; i < lv->nk; i++)
        land(c, lv->round, &lv->k[i], 0, NULL);
    c->n_pending -= lv->n + lv->nk;
    lv->n = lv->nk = 0;
}

/* Adds ns of stage s to a level; straight into the cells when the pending bound is reached. */
static int pend(wt_compare *c, wt_cmp_level *lv, uint32_t s, int direct, double ns)
{
    for (size_t i = 0; i < lv->n; i++)
        if (lv->e[i].stage == s && lv->e[i].direct == direct) {
            lv->e[i].ns += ns;
            return 0;
        }
    if (c->n_pending >= WT_CMP_MAX_PENDING) {
        add_ns(c, lv->round, s, ns);
        c->spans_flat++;
        return 0;
    }
    if (lv->n == lv->cap) {
        const size_t cap = lv->cap ? 2 * lv->cap : 4;
        wt_cmp_pending *e = realloc(lv->e, cap * sizeof *e);
        if (!e)
            return WT_ENOMEM;
        lv->e = e;
        lv->cap = cap;
    }
    lv->e[lv->n++] = (wt_cmp_pending){ .stage = s, .direct = direct, .ns = ns };
    c->n_pending++;
    return 0;
}

/* A span of a rolled-up row (census key `key`) waits for its parent at lv; past the pending
 * bound, it lands in its row straight away, without a tree. */
static int pend_keyed(wt_compare *c, wt_cmp_level *lv, long round, long key, const wt_event *ev, double ns)
{
    const wt_cmp_keyed e = { .key = (uint32_t)key, .hits = ev->cached == WT_CACHED_HIT,
                             .misses = ev->cached == WT_CACHED_MISS, .first = ev->ts, .ns = ns };
    if (c->n_pending >= WT_CMP_MAX_PENDING) {
        const uint32_t s = (uint32_t)c->census.key_stage[key];
        count_keyed(c, round, &e, s);
        add_ns(c, round, s, ns);
        c->spans_flat++;
        return 0;
    }
    wt_cmp_keyed *k = wt__grow_array(lv->k, &lv->kcap, lv->nk + 1, sizeof *k);
    if (!k)
        return WT_ENOMEM;
    lv->k = k;
    lv->k[lv->nk++] = e;
    c->n_pending++;
    return 0;
}

static wt_cmp_thread *thread_of(wt_compare *c, uint64_t tid)
{
    if (!c->threads && !(c->threads = calloc(WT_CMP_MAX_THREADS, sizeof *c->threads)))
        return NULL;
    const size_t m = WT_CMP_MAX_THREADS - 1;
    size_t i = (size_t)(tid * 0x9e3779b97f4a7c15ull >> 40) & m;
    for (size_t probes = 0; probes < WT_CMP_MAX_THREADS; probes++, i = (i + 1) & m) {
        wt_cmp_thread *t = &c->threads[i];
        if (t->used && t->tid == tid)
            return t;
        if (!t->used) {
            t->used = 1;
            t->tid = tid;
            t->top = 0;
            for (size_t l = 0; l < WT_CMP_MAX_DEPTH; l++)
                t->lv[l].round = -1;
            return t;
        }
    }
    return NULL; /* more threads than followed */
}

void wt__cmp_flush_threads(wt_compare *c)
{
    for (size_t t = 0; c->threads && t < WT_CMP_MAX_THREADS; t++) {
        wt_cmp_thread *T = &c->threads[t];
        if (!T->used)
            continue; /* untouched: its pages stay unmapped */
        /* spans whose parent never came (a cut trace): under the round */
        for (int l = 0; l < T->top; l++)
            flush_level(c, &T->lv[l], 1);
        T->used = 0;
        T->top = 0;
    }
}

int wt__cmp_place_span(wt_compare *c, const wt_event *ev)
{
    const int64_t dur = ev->dur < 0 ? 0 : ev->dur;
    const int64_t end = dur > 0 && ev->ts > INT64_MAX - dur ? INT64_MAX : ev->ts + dur;
    wt_cmp_round *r = wt__cmp_round_at(c, ev->ts, end);
    long key = -1;
    const long s = stage_for(c, ev, &key);
    if (s == -2)
        return WT_ENOMEM;
    const long rid = r ? (long)(r - c->rounds) : -1;
    wt_cmp_thread *t = thread_of(c, ev->tid);
    const uint32_t d = ev->depth;
    /* a rolled-up row's span: its row depends on its parent, so it waits by label */
    const int keyed = r && s >= 0 && (size_t)s < r->n_stage_cap && key >= 0 && t &&
                      d < WT_CMP_MAX_DEPTH && c->stages[s].kind == WT_CMP_STAGE_ROLLUP;
    if (r && s >= 0 && (size_t)s < r->n_stage_cap) {
        c->spans_in_rounds++;
        if (!keyed) /* a rolled-up span counts where it lands (land()) */
            count_in(c, r, (uint32_t)s, ev->ts, ev->cached == WT_CACHED_HIT,
                     ev->cached == WT_CACHED_MISS);
    } else if (r) {
        c->dropped_stages++;
    } else {
        c->spans_outside++;
    }
    if (!t || d >= WT_CMP_MAX_DEPTH) {
        if (r && s >= 0) {
            add_ns(c, rid, (uint32_t)s, (double)dur);
            c->spans_flat++;
        }
        return 0;
    }
    /* deeper than a child: spans whose parent never came (dropped events) */
    for (int l = (int)d + 2; l < t->top; l++)
        flush_level(c, &t->lv[l], 1);
    wt_cmp_level *own = &t->lv[d], *child = d + 1 < WT_CMP_MAX_DEPTH ? &t->lv[d + 1] : NULL;
    if ((own->n || own->nk) && own->round != rid)
        flush_level(c, own, 1); /* an earlier round's spans at this level */
    int rc = 0;
    const int own_empty = own->n == 0 && own->nk == 0;
    if (child && (child->n || child->nk)) {
        /* a child must lie inside its parent: depths of a damaged trace may say otherwise */
        if (rid >= 0 && s >= 0 && child->round == rid && child->first >= ev->ts && child->last <= end) {
            own->round = rid;
            for (size_t i = 0; i < child->n && !rc; i++) {
                const wt_cmp_pending *e = &child->e[i];
                if (e->direct)
                    observe_parent(c, e->stage, (uint32_t)s);
                if (e->stage != (uint32_t)s) /* time of its own stage, this span covers */
                    rc = pend(c, own, e->stage, 0, e->ns);
            }
            for (size_t i = 0; i < child->nk && !rc; i++)
                rc = land(c, rid, &child->k[i], (uint32_t)s, own);
            c->n_pending -= child->n + child->nk;
            child->n = child->nk = 0;
        } else {
            flush_level(c, child, 1); /* not its parent: outside every round, or not around it */
        }
    }
    if (rid >= 0 && s >= 0 && !rc) {
        /* time carried up from the children lies inside this span's window */
        if (own_empty || own->first > ev->ts)
            own->first = ev->ts;
        if (own_empty || own->last < end)
            own->last = end;
        own->round = rid;
        rc = keyed ? pend_keyed(c, own, rid, key, ev, (double)dur) : pend(c, own, (uint32_t)s, 1, (double)dur);
    }
    if (d == 0)
        flush_level(c, own, 1);
    t->top = own->n || own->nk ? (int)d + 1 : (int)d;
    return rc;
}

/* ---- tree order (finish) ----------------------------------------------------------- */

static const wt_compare *order_ctx; /* qsort has no context argument in C11 */

static int cmp_siblings(const void *pa, const void *pb)
{
    const size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
    const wt_cmp_stage *a = &order_ctx->stages[ia], *b = &order_ctx->stages[ib];
    if (a->first_offset != b->first_offset)
        return (a->first_offset > b->first_offset) - (a->first_offset < b->first_offset);
    return (ia > ib) - (ia < ib);
}

int wt__cmp_tree_order(wt_compare *c)
{
    const size_t ns = c->stage_keys.n;
    wt_cmp_stage *st = c->stages;
    size_t *kids = malloc((ns + 1) * sizeof *kids), *stack = malloc((ns + 1) * sizeof *stack);
    c->stage_order = malloc((ns + 1) * sizeof *c->stage_order);
    if (!kids || !stack || !c->stage_order) {
        free(kids);
        free(stack);
        return WT_ENOMEM;
    }
    for (size_t s = 1; s < ns; s++) {
        if (st[s].parent < 0 || (size_t)st[s].parent >= ns || !st[st[s].parent].has_data)
            st[s].parent = 0;
        /* a rolled-up category with a row under each enclosing row: each counts its own labels */
        if (st[s].seen && (st[s].split || st[s].base >= 0)) {
            size_t n = 0;
            for (size_t b = 0; b < WT_CMP_MAX_KEYS / 8; b++)
                n += (size_t)__builtin_popcount(st[s].seen[b]);
            st[s].n_labels = n + st[s].n_labels_past; /* past the census: they land here */
        }
    }
    /* depth first from the round; children pushed in reverse start order */
    size_t sp = 0, n = 0;
    stack[sp++] = 0;
    st[0].depth = 0;
    while (sp) {
        const size_t s = stack[--sp];
        c->stage_order[n++] = s;
        size_t nk = 0;
        for (size_t x = 1; x < ns; x++)
            if (st[x].has_data && (size_t)st[x].parent == s)
                kids[nk++] = x;
        order_ctx = c;
        qsort(kids, nk, sizeof *kids, cmp_siblings);
        for (size_t i = nk; i > 0 && sp <= ns; i--) {
            st[kids[i - 1]].depth = st[s].depth + 1;
            stack[sp++] = kids[i - 1];
        }
    }
    c->n_order = n;
    free(kids);
    free(stack);
    return 0;
}
