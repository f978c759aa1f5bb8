/* The ledger computation: one streaming pass over the events of one or more trace files, in
 * memory bounded by distinct strings, threads, nesting depth and the coverage interval set.
 * The rules are in ledger.h and docs/ANALYZE.md; finish and rendering live in ledger_text.c.
 *
 * Workload: up to tens of millions of spans per file, so the per-span path avoids hashing
 * where it can: the reader hands out one stable pointer per distinct string for the life of a
 * file, so a small pointer-keyed cache maps (category, label) pointers to their accumulators
 * and is reset at each file. */
#include "ledger_int.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS 1e-9

/* ---- categories and labels ---- */

/* The key `name` (NULL: "") is kept under in `map`: itself, or `other` with *folded set when
 * the map is `full` and does not know it yet (the bounds of spanstat.h). */
static const char *kept_key(const wt__strmap *map, int full, const char *name, const char *other,
                            int *folded)
{
    const char *key = name ? name : "";
    uint32_t idx;
    if (WT_UNLIKELY(full) && !wt__strmap_get(map, key, strlen(key), &idx)) {
        *folded = 1;
        return other;
    }
    return key;
}

/* cat_index() without its one-entry cache. */
static int cat_lookup(wt_ledger_calc *lc, const char *name, uint32_t *out, int *folded)
{
    const char *key = kept_key(&lc->cat_map, lc->cat_map.n >= WT_MAX_CATEGORIES, name,
                               WT_OTHER_CATEGORIES, folded);
    uint32_t idx;
    const char *stable;
    int rc = wt__strmap_put(&lc->cat_map, key, strlen(key), (uint32_t)lc->n_cats, &idx, &stable);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        lc_cat *nc = wt__grow_array(lc->cats, &lc->cap_cats, lc->n_cats + 1, sizeof *nc);
        if (!nc)
            return WT_ENOMEM;
        lc->cats = nc;
        memset(&lc->cats[lc->n_cats], 0, sizeof lc->cats[0]);
        lc->cats[lc->n_cats].name = stable;
        lc->cats[lc->n_cats].first_end = INT64_MAX;
        lc->n_cats++;
    }
    *out = idx;
    return 0;
}

/* The index of category `name`, made on first sight; past WT_MAX_CATEGORIES categories a new
 * one is WT_OTHER_CATEGORIES (spanstat.h) and *folded is set. */
static int cat_index(wt_ledger_calc *lc, const char *name, uint32_t *out, int *folded)
{
    if (lc->last_cat_ok && name == lc->last_cat_name) {
        /* the same string as the last look-up's: the same answer (a category kept stays so,
         * and one folded past the bound never gets a key of its own) */
        *out = lc->last_ci;
        *folded |= lc->last_cat_folded;
        return 0;
    }
    int was_folded = 0;
    const int rc = cat_lookup(lc, name, out, &was_folded);
    if (rc == 0) {
        lc->last_cat_name = name;
        lc->last_ci = *out;
        lc->last_cat_folded = was_folded;
        lc->last_cat_ok = 1;
        *folded |= was_folded;
    }
    return rc;
}

/* Every label with a key of its own into lc->kept_labels, once the keys reach the reserve's
 * start (spanstat.h), where folding can begin: from then on label_index() adds each new key. */
static void keep_label_set(wt_ledger_calc *lc)
{
    for (size_t i = 0; i < lc->n_cats; i++)
        for (size_t j = 0; j < lc->cats[i].n_labs; j++) {
            const char *l = lc->cats[i].labs[j].name;
            if (wt__textset_add(&lc->kept_labels, l, strlen(l)) < 0)
                return; /* the set says "maybe" to all: the look-ups decide, as before */
        }
}

/* The index of label `name` in category c, made on first sight; past the key bound
 * (wt__label_keys_full(), spanstat.h) a new one is WT_OTHER_LABELS of c and *folded is set. */
static int label_index(wt_ledger_calc *lc, lc_cat *c, const char *name, uint32_t *out,
                       int *folded)
{
    const size_t len = name ? strlen(name) : 0;
    if (wt__label_keys_full(lc->n_label_keys, c->n_labs) && c->other_li1 &&
        !wt__textset_maybe(&lc->kept_labels, name ? name : "", len)) {
        /* in no category's map, so not in c's: it folds, into the key c has for that */
        *folded = 1;
        *out = c->other_li1 - 1;
        return 0;
    }
    int to_other = 0;
    const char *key = kept_key(&c->label_map,
                               wt__label_keys_full(lc->n_label_keys, c->n_labs) ||
                                   lc->label_key_bytes + len > WT_MAX_LABEL_KEY_BYTES,
                               name, WT_OTHER_LABELS, &to_other);
    *folded |= to_other;
    uint32_t idx;
    const char *stable;
    int rc = wt__strmap_put(&c->label_map, key, strlen(key), (uint32_t)c->n_labs, &idx, &stable);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        lc_label *nl = wt__grow_array(c->labs, &c->cap_labs, c->n_labs + 1, sizeof *nl);
        if (!nl)
            return WT_ENOMEM;
        c->labs = nl;
        memset(&c->labs[c->n_labs], 0, sizeof c->labs[0]);
        c->labs[c->n_labs].name = stable;
        c->n_labs++;
        lc->n_label_keys++;
        lc->label_key_bytes += strlen(key);
        if (lc->kept_labels.bits || lc->kept_labels.broken)
            (void)wt__textset_add(&lc->kept_labels, key, strlen(key));
        else if (lc->n_label_keys >= WT_MAX_LABEL_KEYS - WT_LABEL_KEY_RESERVE)
            keep_label_set(lc);
    }
    if (to_other)
        c->other_li1 = idx + 1;
    *out = idx;
    return 0;
}

/* Fills the cache slot *pc of a span's (category, label) pointers from the string maps: the
 * slow path of the per-span key look-up, taken once per distinct pair and file. A pair folded
 * past the bounds is marked in `valid` (LC_SLOT_*), so that its spans take the general path,
 * which counts them. */
static int span_keys(wt_ledger_calc *lc, const wt_event *ev, wt__pair_slot *pc)
{
    uint32_t ci, li;
    int cat_folded = 0, lab_folded = 0;
    int rc = cat_index(lc, ev->category, &ci, &cat_folded);
    if (rc < 0)
        return rc;
    rc = label_index(lc, &lc->cats[ci], ev->label, &li, &lab_folded);
    if (rc < 0)
        return rc;
    const int valid = LC_SLOT_KEPT | (cat_folded ? LC_SLOT_CAT_FOLDED : 0) |
                      (lab_folded ? LC_SLOT_LABEL_FOLDED : 0);
    *pc = (wt__pair_slot){ (uintptr_t)ev->category, (uintptr_t)ev->label, ci, li, valid, 0 };
    return 0;
}

/* ---- threads ---- */

/* The thread (pid, tid), made on first sight; NULL when out of memory. Spans of a thread come
 * in runs, so the last one is checked first, then a (pid, tid) cache, then the map. */
static lc_thread *thread_lookup(wt_ledger_calc *lc, uint64_t pid, uint64_t tid)
{
    wt__pair_slot *tc = wt__pair_cache_slot(lc->tcache, LC_TCACHE_BITS, pid, tid);
    if (tc->valid && tc->a == pid && tc->b == tid) {
        lc->last_t = &lc->threads[tc->x];
        lc->threads[tc->x].file = lc->cur_file;
        return &lc->threads[tc->x];
    }
    char key[48];
    int n = snprintf(key, sizeof key, "%llu/%llu", (unsigned long long)pid, (unsigned long long)tid);
    uint32_t idx;
    uint64_t kept_tid = tid;
    if (WT_UNLIKELY(lc->n_threads >= WT_MAX_THREADS) &&
        !wt__strmap_get(&lc->thread_map, key, (size_t)n, &idx)) {
        /* past the bound: the process's "(other threads)" thread (spanstat.h) */
        kept_tid = WT_OTHER_TID;
        n = snprintf(key, sizeof key, "%llu/%llu", (unsigned long long)pid,
                     (unsigned long long)kept_tid);
    }
    int rc = wt__strmap_put(&lc->thread_map, key, (size_t)n, (uint32_t)lc->n_threads, &idx, NULL);
    if (rc < 0)
        return NULL;
    if (rc == 1) {
        lc_thread *nt =
            wt__grow_array(lc->threads, &lc->cap_threads, lc->n_threads + 1, sizeof *nt);
        if (!nt)
            return NULL;
        lc->threads = nt;
        lc_thread *t = &lc->threads[lc->n_threads++];
        memset(t, 0, sizeof *t);
        t->pid = pid;
        t->tid = kept_tid;
        t->file = lc->cur_file;
        t->last_top_end = lc->cur ? lc->cur->start : 0;
        t->env_start = INT64_MAX;
        t->env_end = INT64_MIN;
        if (kept_tid == WT_OTHER_TID)
            t->name = WT_OTHER_THREADS;
        t->first_ts = INT64_MAX;
    }
    *tc = (wt__pair_slot){ pid, tid, idx, 0, 1, 0 };
    lc->last_t = &lc->threads[idx];
    lc->threads[idx].file = lc->cur_file;
    return &lc->threads[idx];
}

static inline lc_thread *thread_of(wt_ledger_calc *lc, uint64_t pid, uint64_t tid)
{
    lc_thread *t = lc->last_t;
    if (t && t->pid == pid && t->tid == tid)
        return t;
    return thread_lookup(lc, pid, tid);
}

/* ---- the coverage interval set (wt_ledger_cover, shared with the recorder) ---- */

/* Past the bound: fold below the safe frontier of the current file (the last SYNC watermark
 * and every thread's last top-level end: no later span of a known thread can start before it),
 * and if that is not enough, below the lower half (later spans reaching there are clipped and
 * counted late). */
static void cov_compact(wt_ledger_calc *lc)
{
    int64_t f = lc->cur ? lc->cur->sync_wm : INT64_MIN;
    for (size_t i = 0; i < lc->n_threads; i++)
        if (lc->threads[i].file == lc->cur_file && lc->threads[i].last_top_end < f)
            f = lc->threads[i].last_top_end;
    if (lc->n_files_seen > 1)
        f = INT64_MIN; /* another process may still reach back: fold only when forced */
    wt_ledger_cover_fold(&lc->cover, f);
    if (lc->cover.n > WT_LEDGER_MAX_INTERVALS / 2) {
        wt_ledger_cover_fold(&lc->cover, wt_ledger_cover_at(&lc->cover, lc->cover.n / 2)->s);
        lc->forced_folds++;
    }
}

/* Adds [s, e) to the union; returns how many ns of it were not covered before. */
static __attribute__((noinline)) int64_t cov_insert_general(wt_ledger_calc *lc, int64_t s,
                                                            int64_t e, int *clipped)
{
    int64_t fresh = 0;
    int rc = wt_ledger_cover_add(&lc->cover, s, e, WT_LEDGER_MAX_INTERVALS, &fresh, clipped);
    if (rc == WT_ENOSPC) {
        cov_compact(lc);
        rc = wt_ledger_cover_add(&lc->cover, s, e, WT_LEDGER_MAX_INTERVALS, &fresh, clipped);
    }
    if (rc < 0)
        lc->nomem = 1; /* WT_ENOSPC again cannot happen: compacting halves the set */
    return fresh;
}

/* cov_insert_general(), with the common case inline: a span past the end of the set, as
 * spans come in time order (every span of a program whose spans are all top-level), is
 * appended as wt_ledger_cover_add() would, without its call and search (some 60
 * instructions a span on the repeated and random shapes). Overlap, clipping, growth and the
 * bound are the general path's. */
static inline int64_t cov_insert(wt_ledger_calc *lc, int64_t s, int64_t e, int *clipped)
{
    wt_ledger_cover *c = &lc->cover;
    if (c->n && c->tail == 0 && c->iv[c->n - 1].e < s && s < e && s >= c->frontier &&
        c->n < c->cap && c->n < WT_LEDGER_MAX_INTERVALS) {
        c->iv[c->n++] = (wt_ledger_iv){ s, e };
        c->total_ns = wt__sat_add_i64(c->total_ns, e - s);
        *clipped = 0;
        return e - s;
    }
    return cov_insert_general(lc, s, e, clipped);
}

static int proc_cat_add(wt_ledger_calc *lc, lc_proc *p, uint32_t c, int64_t self)
{
    if (c >= p->cap_cat) {
        int64_t *np = wt__grow_array(p->cat_self, &p->cap_cat, (size_t)c + 1, sizeof *np);
        if (!np)
            return WT_ENOMEM;
        p->cat_self = np;
    }
    p->cat_self[c] = wt__sat_add_i64(p->cat_self[c], self);
    return 0;
}

/* Moves a thread's pending tree into the totals: each touched category's self time into its
 * row and the current process's, `busy` into the thread's busy time (done here, once per
 * tree, rather than per span), and with a fresh share f (< 0: none) of the newly covered wall
 * into the rows' attributed time. Then the tree is empty. */
static void settle_tree(wt_ledger_calc *lc, lc_thread *t, lc_proc *p, double f, int64_t busy)
{
    for (size_t i = 0; i < t->n_touched; i++) {
        uint32_t c = t->touched[i];
        const int64_t ns = t->pend[c].ns;
        if (f >= 0)
            lc->cats[c].attr_ns += (double)ns * f;
        lc->cats[c].self_ns = wt__sat_add_i64(lc->cats[c].self_ns, ns);
        if (proc_cat_add(lc, p, c, ns) < 0)
            lc->nomem = 1;
        t->pend[c].ns = 0;
        t->pend[c].on = 0;
    }
    t->busy_ns = wt__sat_add_i64(t->busy_ns, busy);
    if (t->env_start < t->first_ts)
        t->first_ts = t->env_start;
    t->n_touched = 0;
    t->pend_total = 0;
    t->env_start = INT64_MAX;
    t->env_end = INT64_MIN;
}

/* A thread's pending tree [s, e) is complete (its top-level span arrived, or the file ended):
 * give its categories their share of the newly covered wall, in proportion to their self
 * time, and the thread the part of [s, e) it was not busy in yet. A tree whose top-level
 * span never came (`topless`) gives them no more than their self time: the rest of its
 * envelope was the lost span's own, of a category the file does not tell, and is no
 * known category's (a child 132 ms long booked 1 s of self time when its parent, open at
 * a kill -9, had 1 s; found in a review); it stays in untracked, counted in lost_ns. */
static void flush_tree(wt_ledger_calc *lc, lc_thread *t, lc_proc *p, int64_t s, int64_t e,
                       int topless)
{
    int clipped = 0;
    int64_t fresh = cov_insert(lc, s, e, &clipped);
    if (clipped)
        lc->late_spans++;
    double f = t->pend_total > 0 ? (double)fresh / (double)t->pend_total : 0.0;
    if (topless && fresh > t->pend_total) {
        f = t->pend_total > 0 ? 1.0 : 0.0;
        lc->lost_trees++;
        lc->lost_ns = wt__sat_add_i64(lc->lost_ns, fresh - t->pend_total);
    }
    settle_tree(lc, t, p, f, wt__busy_add(&t->busy, s, e));
}

static int add_pending(wt_ledger_calc *lc, lc_thread *t, uint32_t c, int64_t self)
{
    if (c >= t->cap_pend) {
        lc_pend *np = wt__grow_array(t->pend, &t->cap_pend, (size_t)c + 1, sizeof *np);
        if (!np)
            return WT_ENOMEM;
        t->pend = np;
        uint32_t *nt = wt__grow_array(t->touched, &t->cap_touched, t->cap_pend, sizeof *nt);
        if (!nt)
            return WT_ENOMEM;
        t->touched = nt;
    }
    if (!t->pend[c].on) {
        t->pend[c].on = 1;
        t->touched[t->n_touched++] = c;
    }
    t->pend[c].ns = wt__sat_add_i64(t->pend[c].ns, self);
    t->pend_total = wt__sat_add_i64(t->pend_total, self);
    return 0;
}

/* A MISS: counted, and listed (bounded) for the seed's ANOMALIES lines. */
static int add_miss(wt_ledger_calc *lc, const lc_cat *c, uint32_t li, const wt_event *ev,
                    double sec)
{
    lc->n_misses_total++;
    if (lc->n_misses >= WT_LEDGER_MAX_MISSES)
        return 0;
    wt_ledger_miss *nm = wt__grow_array(lc->misses, &lc->cap_misses, lc->n_misses + 1, sizeof *nm);
    if (!nm)
        return WT_ENOMEM;
    lc->misses = nm;
    const char *detail = NULL;
    if (ev->detail && *ev->detail) {
        uint32_t dummy;
        int rc = wt__strmap_put(&lc->detail_map, ev->detail, strlen(ev->detail), 0, &dummy,
                                &detail);
        if (rc < 0)
            return rc;
    }
    lc->misses[lc->n_misses++] = (wt_ledger_miss){ c->name, c->labs[li].name, detail, sec };
    return 0;
}

/* wt_ledger_nest's sink: a finished tree's inclusive ns of category `cat`. */
static void add_inclusive(void *ctx, uint32_t cat, int64_t ns)
{
    wt_ledger_calc *lc = ctx;
    lc->cats[cat].incl_ns = wt__sat_add_i64(lc->cats[cat].incl_ns, ns);
}

/* A top-level span of category ci and duration dur >= 0 whose finished children are the
 * items of level 1 (`kids`) and nothing else at level 0: what wt_ledger_nest_span() does for
 * it (put the span's own category at its whole duration into kids, merge kids into the empty
 * level 0, emit that) without moving the items: each category of the tree's once to
 * add_inclusive(), ci at dur. The emission's order does not matter here: each call adds to
 * its own category's sum. The levels are left as that call leaves them: both empty. */
static inline void nest_tree(wt_ledger_calc *lc, wt_ledger_nest_level *kids, uint32_t ci,
                             int64_t dur)
{
    for (uint32_t i = 0; i < kids->n; i++)
        if (kids->v[i].cat != ci)
            add_inclusive(lc, kids->v[i].cat, kids->v[i].ns);
    add_inclusive(lc, ci, dur);
    kids->n = 0;
}

static int grow_depth(lc_thread *t, uint32_t d)
{
    int64_t *ncs = wt__grow_array(t->child_sum, &t->cap_depth, (size_t)d + 2, sizeof *ncs);
    if (!ncs)
        return WT_ENOMEM;
    t->child_sum = ncs;
    return 0;
}

/* An event of the current file that reaches `ref` (a span's end, an instant's time) and began
 * at `first`: late when before the SYNC watermark, and the file's first and last times. */
static inline __attribute__((always_inline)) void note_times(wt_ledger_calc *lc, lc_proc *p,
                                                             int64_t ref, int64_t first)
{
    if (WT_UNLIKELY(ref < p->sync_wm)) {
        p->late++;
        lc->late++;
    }
    if (ref > p->last_ts)
        p->last_ts = ref;
    if (first < p->first_ts)
        p->first_ts = first;
}

/* One span: everything wt_ledger_calc_event() does for it (wt__ledger_calc_span() takes this
 * path for all but the common case). pc is the span's (category, label) cache slot, looked up
 * once by the caller (a second look-up would undo the first's move in the set). */
static __attribute__((noinline)) int span_general(wt_ledger_calc *lc, const wt_event *ev,
                                                  wt__pair_slot *pc)
{
    lc_proc *p = lc->cur;
    if (WT_UNLIKELY(!p))
        return WT_ESTATE;
    const int64_t dur = ev->dur > 0 ? ev->dur : 0;
    const int64_t ts = ev->ts, end = ts + dur;
    note_times(lc, p, end, ts);

    const uint64_t ca = (uintptr_t)ev->category, la = (uintptr_t)ev->label;
    int rc;
    if (WT_UNLIKELY(!(pc->valid && pc->a == ca && pc->b == la)) && (rc = span_keys(lc, ev, pc)) < 0)
        return rc;
    const uint32_t ci = pc->x, li = pc->y;
    if (WT_UNLIKELY(pc->valid != LC_SLOT_KEPT)) {
        lc->folded_cat_spans += (pc->valid & LC_SLOT_CAT_FOLDED) != 0;
        lc->folded_label_spans += (pc->valid & LC_SLOT_LABEL_FOLDED) != 0;
    }
    lc_thread *t = thread_of(lc, ev->pid, ev->tid);
    if (WT_UNLIKELY(!t))
        return WT_ENOMEM;
    lc->folded_thread_spans += t->tid == WT_OTHER_TID && ev->tid != WT_OTHER_TID;
    lc_cat *c = &lc->cats[ci];
    const double sec = (double)dur * NS;

    if (ev->ts + dur < c->first_end)
        c->first_end = ev->ts + dur;
    c->count = wt__sat_add_i64(c->count, ev->count);
    if (ev->bytes > 0) {
        c->bytes = wt__sat_add_i64(c->bytes, ev->bytes);
        c->bytes_ns = wt__sat_add_i64(c->bytes_ns, dur);
    }
    if (ev->cached == WT_CACHED_HIT) {
        c->hits++;
    } else if (ev->cached == WT_CACHED_MISS) {
        c->misses++;
        if ((rc = add_miss(lc, c, li, ev, sec)) < 0)
            return rc;
    }
    /* its total is the seed's flat seconds of the category */
    if (WT_UNLIKELY(wt__reservoir_add_ns(&c->st, dur) < 0))
        return WT_ENOMEM;
    if (lc->opts.by_label && wt__reservoir_add_ns(&c->labs[li].st, dur) < 0)
        return WT_ENOMEM;
    if (WT_UNLIKELY(ev->flags & WT_EVF_UNCLOSED)) {
        lc->unclosed++;
        lc->unclosed_ns = wt__sat_add_i64(lc->unclosed_ns, dur);
        p->unclosed++;
    }

    /* self time: the direct children at depth+1 have already arrived */
    const uint32_t d = wt__self_depth(ev->depth);
    if (WT_UNLIKELY(d + 2 > t->cap_depth) && grow_depth(t, d) < 0)
        return WT_ENOMEM;
    const int64_t self = wt__self_time(t->child_sum, d, dur);
    t->spans++;
    if ((rc = add_pending(lc, t, ci, self)) < 0)
        return rc;
    if ((rc = wt_ledger_nest_span(&t->nest, ev->depth, ci, dur, add_inclusive, lc)) < 0)
        return rc;
    if (ts < t->env_start)
        t->env_start = ts;
    if (end > t->env_end)
        t->env_end = end;
    if (d == 1 && (rc = wt__ledger_wait_remember(lc, t, ts, end, 1)) < 0)
        return rc;
    if (d == 0) {
        if ((rc = wt__ledger_wait_top(lc, t, ts, end)) < 0)
            return rc;
        flush_tree(lc, t, p, ts < p->start ? p->start : ts, end, 0);
        if (end > t->last_top_end)
            t->last_top_end = end;
    }
    return 0;
}

/* A top-level span ended the tree of thread t: cover it. */
static __attribute__((noinline)) int top_level(wt_ledger_calc *lc, lc_thread *t, lc_proc *p,
                                               int64_t ts, int64_t end)
{
    /* a main thread's top with nothing remembered waited on nothing: skip the call (a
     * program whose every span is top-level makes one per span) */
    if ((lc->n_tops > 0 || t->tid != t->pid) && wt__ledger_wait_top(lc, t, ts, end) < 0)
        return WT_ENOMEM;
    flush_tree(lc, t, p, ts < p->start ? p->start : ts, end, 0);
    if (end > t->last_top_end)
        t->last_top_end = end;
    return 0;
}

/* A top-level span with nothing pending on its thread: a tree of this one span (every span
 * of a program whose spans are all top-level). What wt_ledger_nest_span() (a leaf at depth 0
 * with no level open), top_level(), flush_tree() and settle_tree() do for such a tree, with
 * the same arithmetic in the same order, in one call instead of five. */
static __attribute__((noinline)) int lone_top(wt_ledger_calc *lc, lc_thread *t, lc_proc *p,
                                              uint32_t ci, int64_t ts, int64_t end, int64_t dur,
                                              int64_t self)
{
    lc_cat *c = &lc->cats[ci];
    c->incl_ns = wt__sat_add_i64(c->incl_ns, dur);
    if ((lc->n_tops > 0 || t->tid != t->pid) && wt__ledger_wait_top(lc, t, ts, end) < 0)
        return WT_ENOMEM;
    int clipped = 0;
    const int64_t from = ts < p->start ? p->start : ts;
    const int64_t fresh = cov_insert(lc, from, end, &clipped);
    if (clipped)
        lc->late_spans++;
    c->attr_ns += (double)self * (self > 0 ? (double)fresh / (double)self : 0.0);
    c->self_ns = wt__sat_add_i64(c->self_ns, self);
    if (proc_cat_add(lc, p, ci, self) < 0)
        lc->nomem = 1;
    t->busy_ns = wt__sat_add_i64(t->busy_ns, wt__busy_add(&t->busy, from, end));
    if (ts < t->first_ts)
        t->first_ts = ts;
    if (end > t->last_top_end)
        t->last_top_end = end;
    return 0;
}

/* The per-span path of the whole analysis (tens of millions of calls). The common case is
 * decided before anything changes: the current file, the key and the thread in their caches,
 * no sample to replace, nothing to grow, no MISS to list, not late, not left open, no --by
 * label. It
 * does the same arithmetic as span_general() in fewer instructions and without calls, except
 * the tail call that covers a finished top-level tree; any other span goes to span_general(). */
/* The fields of a span that the common case reads: a wt_event's (event path) or a
 * wt_span_rec's (batch path), so that both take one body. */
typedef struct lc_fields {
    int64_t ts, dur, count, bytes;
    uint32_t depth, flags;
    wt_cached cached;
} lc_fields;

/* The common case of one span of category ci on thread t (lc->last_t, the span's own),
 * decided before anything changes: 1 when it does not hold (nothing changed; the caller takes
 * span_general()), else what the span's work returns (0 or WT_ENOMEM). */
static inline int span_common(wt_ledger_calc *lc, lc_thread *t, uint32_t ci, const lc_fields *f)
{
    lc_proc *p = lc->cur;
    const int64_t dur = f->dur > 0 ? f->dur : 0;
    const int64_t ts = f->ts, end = ts + dur;
    lc_cat *c = &lc->cats[ci];
    const uint32_t d = wt__self_depth(f->depth);
    const int miss = f->cached == WT_CACHED_MISS;
    if (WT_UNLIKELY((miss && lc->n_misses < WT_LEDGER_MAX_MISSES) ||
                    (f->flags & WT_EVF_UNCLOSED) || end < p->sync_wm ||
                    c->st.n + 1 >= c->st.next || d + 2 > t->cap_depth || ci >= t->cap_pend))
        return 1;

    if (end > p->last_ts)
        p->last_ts = end;
    if (ts < p->first_ts)
        p->first_ts = ts;
    if (end < c->first_end)
        c->first_end = end;
    c->count = wt__sat_add_i64(c->count, f->count);
    const int64_t bytes = f->bytes > 0 ? f->bytes : 0;
    c->bytes = wt__sat_add_i64(c->bytes, bytes);
    c->bytes_ns = wt__sat_add_i64(c->bytes_ns, bytes ? dur : 0);
    c->hits += f->cached == WT_CACHED_HIT;
    c->misses += miss; /* past the listed ones: only counted */
    lc->n_misses_total += miss;
    /* wt__reservoir_add_ns() when no sample is replaced */
    const double sec = (double)dur * NS;
    if (sec < c->st.min)
        c->st.min = sec;
    if (sec > c->st.max)
        c->st.max = sec;
    c->st.total += sec;
    c->st.n++;

    const int64_t self = wt__self_time(t->child_sum, d, dur);
    t->spans++;
    wt_ledger_nest_level *lv = t->nest.levels;
    if (f->depth == 0 && t->n_touched == 0 && lv && lv[0].n == 0 && lv[1].n == 0)
        return lone_top(lc, t, p, ci, ts, end, dur, self);
    lc_pend *pe = &t->pend[ci];
    if (!pe->on) {
        pe->on = 1;
        t->touched[t->n_touched++] = ci;
    }
    pe->ns = wt__sat_add_i64(pe->ns, self);
    t->pend_total = wt__sat_add_i64(t->pend_total, self);
    /* wt_ledger_nest_span()'s commonest cases inline, with its arithmetic (nested: 9 spans in
     * 10, some 60 instructions each, and the other two in a phase some 100 each): a leaf below
     * the top level (no level open under it) whose category is the last its level holds, the
     * loads of one phase: a sum into that item; such a leaf of a category above all its level
     * holds (a phase's first load), with room: an append, where add_one()'s search ends; and
     * a top-level span over its children alone (level 0 empty), nest_tree()'s case. */
    const uint32_t nd =
        f->depth < WT_LEDGER_NEST_LEVELS - 2 ? f->depth : WT_LEDGER_NEST_LEVELS - 2;
    wt_ledger_nest_level *here = lv ? &lv[nd] : NULL;
    if (nd > 0 && here && lv[nd + 1].n == 0 && here->n && here->v[here->n - 1].cat == ci)
        here->v[here->n - 1].ns = wt__sat_add_i64(here->v[here->n - 1].ns, dur);
    else if (nd > 0 && here && lv[nd + 1].n == 0 && here->n < here->cap &&
             (here->n == 0 || here->v[here->n - 1].cat < ci))
        here->v[here->n++] = (wt_ledger_nest_item){ ci, dur };
    else if (nd == 0 && here && here->n == 0 && lv[1].n > 0)
        nest_tree(lc, &lv[1], ci, dur);
    else if (WT_UNLIKELY(wt_ledger_nest_span(&t->nest, f->depth, ci, dur, add_inclusive, lc) < 0))
        return WT_ENOMEM;
    if (ts < t->env_start)
        t->env_start = ts;
    if (end > t->env_end)
        t->env_end = end;
    if (d == 0)
        return top_level(lc, t, p, ts, end);
    if (d == 1)
        return wt__ledger_wait_remember(lc, t, ts, end, 1);
    return 0;
}

int wt__ledger_calc_span(wt_ledger_calc *lc, const wt_event *ev, wt__pair_slot **slot)
{
    const uint64_t ca = (uintptr_t)ev->category, la = (uintptr_t)ev->label;
    wt__pair_slot *pc = wt__pair_cache_slot(lc->pcache, WT_PAIR_CACHE_BITS, ca, la);
    *slot = pc;
    if (WT_UNLIKELY(!(pc->valid && pc->a == ca && pc->b == la)) && lc->cur) {
        /* a pair new to the cache: its keys first, so that a span whose new label folds past
         * the bound (every span, in a trace that gives each its own label) can take the
         * common case below, with only its fold to count */
        const int rc = span_keys(lc, ev, pc);
        if (rc < 0)
            return rc;
    }
    lc_thread *t = lc->last_t;
    if (WT_UNLIKELY(!lc->cur || (pc->valid & ~LC_SLOT_LABEL_FOLDED) != LC_SLOT_KEPT || !t ||
                    lc->opts.by_label || t->pid != ev->pid || t->tid != ev->tid))
        return span_general(lc, ev, pc);
    const lc_fields f = { ev->ts, ev->dur, ev->count, ev->bytes, ev->depth, ev->flags,
                          ev->cached };
    const int rc = span_common(lc, t, pc->x, &f);
    if (rc == 1)
        return span_general(lc, ev, pc); /* which counts the fold itself */
    lc->folded_label_spans += (pc->valid & LC_SLOT_LABEL_FOLDED) != 0;
    return rc;
}

/* What lone_run() and leaf_run() keep in locals for a run's spans of one category c: the
 * span_common() part that every span of the run shares. A struct of locals, inlined whole. */
typedef struct run_acc {
    int64_t min_ts, max_end, min_end;
    int64_t count, bytes, bytes_ns, sum; /* sum: of the durations */
    int64_t hits, misses;
    double mn, mx, total;
} run_acc;

static inline void acc_init(run_acc *a, const lc_cat *c)
{
    *a = (run_acc){ INT64_MAX, INT64_MIN, INT64_MAX, c->count, c->bytes, c->bytes_ns, 0, 0, 0,
                    c->st.min, c->st.max, c->st.total };
}

/* span_common()'s sums for one span of the run (dur >= 0), without the extremes. */
static inline void acc_sums(run_acc *a, const wt_span_rec *r, int64_t dur, int miss)
{
    a->count = wt__sat_add_i64(a->count, r->count);
    if (r->bytes > 0) {
        a->bytes = wt__sat_add_i64(a->bytes, r->bytes);
        a->bytes_ns = wt__sat_add_i64(a->bytes_ns, dur);
    }
    a->hits += r->cached == WT_CACHED_HIT;
    a->misses += miss;
    const double sec = (double)dur * NS;
    if (sec < a->mn)
        a->mn = sec;
    if (sec > a->mx)
        a->mx = sec;
    a->total += sec;
    a->sum = wt__sat_add_i64(a->sum, dur);
}

/* span_common()'s sums and extremes for one span of the run (dur >= 0). */
static inline void acc_span(run_acc *a, const wt_span_rec *r, int64_t ts, int64_t end,
                            int64_t dur, int miss)
{
    if (end > a->max_end)
        a->max_end = end;
    if (end < a->min_end)
        a->min_end = end;
    if (ts < a->min_ts)
        a->min_ts = ts;
    acc_sums(a, r, dur, miss);
}

/* The run's k spans into the process, the category and the thread's span count. */
static inline void acc_flush(const run_acc *a, wt_ledger_calc *lc, lc_proc *p, lc_cat *c,
                             lc_thread *t, size_t k)
{
    if (a->max_end > p->last_ts)
        p->last_ts = a->max_end;
    if (a->min_ts < p->first_ts)
        p->first_ts = a->min_ts;
    if (a->min_end < c->first_end)
        c->first_end = a->min_end;
    c->count = a->count;
    c->bytes = a->bytes;
    c->bytes_ns = a->bytes_ns;
    c->hits += a->hits;
    c->misses += a->misses;
    lc->n_misses_total += a->misses;
    c->st.min = a->mn;
    c->st.max = a->mx;
    c->st.total = a->total;
    c->st.n += (int64_t)k;
    t->spans += (int64_t)k;
}

/* A run of lone top-level spans of one category on thread t, the first of s[0..n) (s[k] of
 * category ci[k]): every span of a program whose spans are all top-level. What span_common()
 * and lone_top() do for each, with the sums and extremes in locals, stored once at the end.
 * The values are the same: the floating point sums take the spans in order; a min or max of
 * a run is the min or max of its parts; and a saturating sum of values >= 0 onto a base >= 0
 * is the sum clamped at INT64_MAX however it is split, so the three sums of a lone top's
 * duration (inclusive, self, the process's) share one, added to each base at the end; the
 * thread's busy time takes the intervals' (clipped to the start, as the cover's). Takes spans from the first while each is such a span with nothing to
 * decide outside the loop: the category of the first, depth 0, no MISS to list, not left
 * open, not late, no sample replaced, nothing waiting (no remembered span, a main thread),
 * its interval appended past the set's end without clipping or growth (what cov_insert()
 * appends: above the set's last end, which is above its frontier); returns how many (0: the
 * first is not, for span_common()). The thread's state is span_common()'s lone-top test:
 * nothing pending, no nesting level open, and no child time at depth 1 (so self = dur). */
static size_t lone_run(wt_ledger_calc *lc, lc_thread *t, const wt_span_rec *s,
                       const uint32_t *ci, size_t n)
{
    const uint32_t c0 = ci[0];
    lc_proc *const p = lc->cur;
    const wt_ledger_nest_level *const lv = t->nest.levels;
    wt_ledger_cover *const cv = &lc->cover;
    lc_cat *const c = &lc->cats[c0];
    if (!(t->n_touched == 0 && lv && lv[0].n == 0 && lv[1].n == 0 && lc->n_tops == 0 &&
          t->tid == t->pid && t->cap_depth >= 2 && t->child_sum[1] == 0 && c0 < t->cap_pend &&
          c0 < p->cap_cat && cv->n > 0 && cv->tail == 0 &&
          cv->iv[cv->n - 1].e >= cv->frontier && c->st.n + 1 < c->st.next &&
          c->incl_ns >= 0 && c->self_ns >= 0 &&
          p->cat_self[c0] >= 0 && t->busy_ns >= 0))
        return 0;
    /* no sample replaced while n + 1 < next; no growth while below the capacity */
    const size_t cap = cv->cap < WT_LEDGER_MAX_INTERVALS ? cv->cap : WT_LEDGER_MAX_INTERVALS;
    if ((uint64_t)(c->st.next - 1 - c->st.n) < n)
        n = (size_t)(c->st.next - 1 - c->st.n);
    if (cap - cv->n < n)
        n = cap - cv->n;
    const int64_t sync_wm = p->sync_wm, pstart = p->start;
    const int list_miss = lc->n_misses < WT_LEDGER_MAX_MISSES;
    wt_ledger_iv *const iv = cv->iv + cv->n;
    int64_t last_e = cv->iv[cv->n - 1].e;
    int64_t covered = 0; /* disjoint, each after the last: their sum is under last_e - iv[0].s */
    double attr = c->attr_ns;
    run_acc a;
    acc_init(&a, c);
    size_t k = 0;
    for (; k < n; k++) {
        const wt_span_rec *const r = &s[k];
        const int64_t dur = r->dur > 0 ? r->dur : 0;
        const int64_t ts = r->ts, end = ts + dur;
        const int miss = r->cached == WT_CACHED_MISS;
        const int64_t from = ts < pstart ? pstart : ts; /* lone_top()'s clip to the start */
        if (ci[k] != c0 || r->depth != 0 || (miss && list_miss) ||
            (r->flags & WT_EVF_UNCLOSED) || end < sync_wm || !(last_e < from && from < end))
            break;
        acc_sums(&a, r, dur, miss); /* self = dur */
        iv[k] = (wt_ledger_iv){ from, end };
        last_e = end;
        const int64_t fresh = end - from;
        covered += fresh;
        /* self * (fresh / self) is self when fresh is self: x / x is exactly 1 */
        attr += fresh == dur ? (double)dur : (double)dur * ((double)fresh / (double)dur);
    }
    if (k == 0)
        return 0;
    /* the extremes without a test a span: from the second on each starts after the last one's
     * end (last_e < from, and from > the start clip is ts), so starts and ends rise */
    a.min_ts = s[0].ts;
    a.min_end = iv[0].e;
    a.max_end = last_e;
    cv->n += k;
    cv->total_ns = wt__sat_add_i64(cv->total_ns, covered);
    acc_flush(&a, lc, p, c, t, k);
    c->attr_ns = attr;
    c->incl_ns = wt__sat_add_i64(c->incl_ns, a.sum);
    c->self_ns = wt__sat_add_i64(c->self_ns, a.sum);
    p->cat_self[c0] = wt__sat_add_i64(p->cat_self[c0], a.sum);
    wt__busy_add_run(&t->busy, iv, k, covered); /* [from, end): clipped to the start */
    t->busy_ns = wt__sat_add_i64(t->busy_ns, covered);
    if (a.min_ts < t->first_ts)
        t->first_ts = a.min_ts;
    if (a.max_end > t->last_top_end)
        t->last_top_end = a.max_end;
    t->child_sum[0] = 0; /* wt__self_time() at depth 0 */
    return k;
}

/* A run of leaves below the top level, of one category and one depth d on thread t, the first
 * of s[0..n) (s[k] of category ci[k]): the loads of one phase (nested: 9 spans in 10). What
 * span_common() does for each when no level is open under it and its nesting level's last
 * item is of the category (wt_ledger_nest_span()'s commonest case, inline there too), or,
 * for the run's first, when the level has room and the category is above its last item's
 * (span_common()'s append: a phase's first load; the run appends the item at 0 and marks
 * the category pending in the tree if it was not), with
 * the sums and extremes in locals as in lone_run(): the four sums of a leaf's duration (the
 * child time at d, the pending self time of its category and of the tree, the level's item)
 * share one, as no child time at d + 1 makes self = dur. A main thread's children (d 1) are
 * remembered while the array has room, as the array's lazy tail (ledger_int.h tops_lazy).
 * Returns how many it took (0: the first is not such a span, for span_common()). */
static size_t leaf_run(wt_ledger_calc *lc, lc_thread *t, const wt_span_rec *s,
                       const uint32_t *ci, size_t n)
{
    const uint32_t c0 = ci[0], d = s[0].depth;
    lc_proc *const p = lc->cur;
    wt_ledger_nest_level *const lv = t->nest.levels;
    lc_cat *const c = &lc->cats[c0];
    if (!(d >= 1 && d < WT_LEDGER_NEST_LEVELS - 2 && d < WT_SELF_MAX_DEPTH && lv &&
          lv[d + 1].n == 0 && d + 2 <= t->cap_depth && c0 < t->cap_pend &&
          t->child_sum[d + 1] == 0 && t->child_sum[d] >= 0 && t->pend[c0].ns >= 0 &&
          t->pend_total >= 0 && c->st.n + 1 < c->st.next))
        return 0;
    wt_ledger_nest_level *const here = &lv[d];
    /* the level's item the run's durations go to: its last, of c0 (span_common()'s sum), or
     * one of c0 appended after it (its append: room, and c0 above the last item's category) */
    const int append = !(here->n > 0 && here->v[here->n - 1].cat == c0);
    if (append ? !(here->n < here->cap && (here->n == 0 || here->v[here->n - 1].cat < c0))
               : here->v[here->n - 1].ns < 0)
        return 0;
    if ((uint64_t)(c->st.next - 1 - c->st.n) < n)
        n = (size_t)(c->st.next - 1 - c->st.n);
    const int remember = d == 1 && t->tid == t->pid; /* wt__ledger_wait_remember()'s test */
    if (remember) {
        const size_t room = (lc->cap_tops < WT_LEDGER_MAX_TOPS ? lc->cap_tops
                                                                : WT_LEDGER_MAX_TOPS) - lc->n_tops;
        if (room < n)
            n = room;
    }
    const int64_t sync_wm = p->sync_wm;
    const int list_miss = lc->n_misses < WT_LEDGER_MAX_MISSES;
    run_acc a;
    acc_init(&a, c);
    size_t k = 0;
    for (; k < n; k++) {
        const wt_span_rec *const r = &s[k];
        const int64_t dur = r->dur > 0 ? r->dur : 0;
        const int64_t ts = r->ts, end = ts + dur;
        const int miss = r->cached == WT_CACHED_MISS;
        if (ci[k] != c0 || r->depth != d || (miss && list_miss) ||
            (r->flags & WT_EVF_UNCLOSED) || end < sync_wm)
            break;
        acc_span(&a, r, ts, end, dur, miss);
    }
    if (k == 0)
        return 0;
    if (remember) {
        /* the k taken, in a loop of their own (in the one above, the array's state left too
         * few registers for its sums), and only their start and end: a main thread's tree
         * mostly drops them unread when its top-level span comes (wt__ledger_wait_top()'s
         * quick case), and whatever else reads the array first completes them */
        const uint32_t ti = (uint32_t)(t - lc->threads);
        if (lc->tops_lazy && lc->tops_lazy_of != ti)
            wt__ledger_wait_fill(lc);
        /* what the per-span update leaves: set at the first span, kept by the others */
        lc->tops_kids_of = lc->n_tops == 0 || lc->tops_kids_of == ti ? ti : UINT32_MAX;
        lc_top *const tops = lc->tops + lc->n_tops;
        for (size_t j = 0; j < k; j++) {
            const int64_t ts = s[j].ts;
            tops[j].s = ts;
            tops[j].e = ts + (s[j].dur > 0 ? s[j].dur : 0);
        }
        lc->n_tops += k;
        lc->tops_lazy += k;
        lc->tops_lazy_of = ti;
        t->kids += k;
    }
    acc_flush(&a, lc, p, c, t, k);
    t->child_sum[d] = wt__sat_add_i64(t->child_sum[d], a.sum);
    lc_pend *const pe = &t->pend[c0];
    if (!pe->on) { /* the tree's first span of c0, as span_common() marks it */
        pe->on = 1;
        t->touched[t->n_touched++] = c0;
    }
    pe->ns = wt__sat_add_i64(pe->ns, a.sum);
    t->pend_total = wt__sat_add_i64(t->pend_total, a.sum);
    if (append)
        here->v[here->n++] = (wt_ledger_nest_item){ c0, 0 };
    wt_ledger_nest_item *const it = &here->v[here->n - 1];
    it->ns = wt__sat_add_i64(it->ns, a.sum);
    if (a.min_ts < t->env_start)
        t->env_start = a.min_ts;
    if (a.max_end > t->env_end)
        t->env_end = a.max_end;
    return k;
}

int wt__ledger_calc_run(wt_ledger_calc *lc, const wt_span_rec *s, const uint32_t *ci, size_t n,
                        size_t *taken)
{
    lc_thread *const t = lc->last_t;
    size_t k = 0;
    int rc = 1;
    if (WT_UNLIKELY(!lc->cur || !t || lc->opts.by_label))
        goto out;
    rc = 0;
    while (k < n) {
        const size_t m = s[k].depth == 0 ? lone_run(lc, t, s + k, ci + k, n - k)
                                         : leaf_run(lc, t, s + k, ci + k, n - k);
        k += m;
        if (m || k == n)
            continue;
        const wt_span_rec *const r = &s[k];
        const lc_fields f = { r->ts, r->dur, r->count, r->bytes, r->depth, r->flags,
                              (wt_cached)r->cached };
        if ((rc = span_common(lc, t, ci[k], &f)) != 0)
            break;
        k++;
    }
out:
    *taken = k;
    return rc;
}

int wt__ledger_calc_thread(wt_ledger_calc *lc, uint64_t pid, uint64_t tid)
{
    if (!lc->cur)
        return WT_ESTATE;
    const lc_thread *t = thread_of(lc, pid, tid);
    if (!t)
        return WT_ENOMEM;
    return t->pid == pid && t->tid == tid ? 0 : 1;
}

int wt__ledger_calc_instant(wt_ledger_calc *lc, int64_t ts)
{
    lc_proc *p = lc->cur;
    if (!p)
        return WT_ESTATE;
    lc->events++;
    note_times(lc, p, ts, ts);
    return 0;
}

int wt__ledger_calc_instants(wt_ledger_calc *lc, const int64_t *ts, size_t n, int64_t lo,
                             int64_t hi)
{
    lc_proc *p = lc->cur;
    if (!p)
        return WT_ESTATE;
    if (n == 0)
        return 0;
    lc->events += n;
    /* note_times() of each, or, when none is behind the watermark (the least is not), of the
     * latest and the earliest alone: the same clocks, no late one */
    if (WT_UNLIKELY(lo < p->sync_wm))
        for (size_t k = 0; k < n; k++)
            note_times(lc, p, ts[k], ts[k]);
    else
        note_times(lc, p, hi, lo);
    return 0;
}

int wt_ledger_calc_event(wt_ledger_calc *lc, const wt_event *ev)
{
    if (ev->kind == WT_EV_SPAN) {
        wt__pair_slot *slot;
        return wt__ledger_calc_span(lc, ev, &slot);
    }
    lc_proc *p = lc->cur;
    if (!p)
        return WT_ESTATE;
    lc->events++;
    int64_t ref = ev->ts;
    if (ev->kind == WT_EV_ROUND)
        ref = ev->ts + (ev->dur > 0 ? ev->dur : 0);
    if (ev->kind != WT_EV_SYNC && ev->kind != WT_EV_END)
        note_times(lc, p, ref, ev->ts);
    switch (ev->kind) {
    case WT_EV_META:
        wt_procname_event(&p->who, ev);
        return 0;
    case WT_EV_SYNC:
        if (ev->ts - WT_SYNC_SLACK_NS > p->sync_wm)
            p->sync_wm = ev->ts - WT_SYNC_SLACK_NS;
        return 0;
    case WT_EV_END:
        p->end = ev->end;
        p->end_ts = ev->ts;
        if (ev->end == WT_END_SIGNAL)
            p->signo = (int)ev->count;
        return 0;
    case WT_EV_DROPPED:
        p->dropped = wt__sat_add_i64(p->dropped, ev->count > 0 ? ev->count : 0);
        lc->dropped = wt__sat_add_i64(lc->dropped, ev->count > 0 ? ev->count : 0);
        return 0;
    case WT_EV_THREAD_NAME: {
        lc_thread *t = thread_of(lc, ev->pid, ev->tid);
        if (!t)
            return WT_ENOMEM;
        /* not the name of the folded threads, nor past the bytes bound (spanstat.h) */
        if (ev->name && t->tid != WT_OTHER_TID &&
            lc->detail_map.bytes + strlen(ev->name) <= WT_MAX_NAME_BYTES) {
            uint32_t dummy;
            int rc = wt__strmap_put(&lc->detail_map, ev->name, strlen(ev->name), 0, &dummy, &t->name);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    default:
        return 0;
    }
}

int wt_ledger_calc_create(const wt_ledger_opts *opts, wt_ledger_calc **out)
{
    wt_ledger_calc *lc = calloc(1, sizeof *lc);
    *out = NULL;
    if (!lc)
        return WT_ENOMEM;
    if (opts)
        lc->opts = *opts;
    if (lc->opts.top <= 0)
        lc->opts.top = 10;
    lc->last_t = NULL;
    wt_ledger_cover_init(&lc->cover);
    wt_ledger_cover_init(&lc->wait_others);
    wt_ledger_cover_init(&lc->wait_kids);
    lc->cur_file = -1;
    *out = lc;
    return 0;
}

int wt_ledger_calc_file_begin(wt_ledger_calc *lc, const char *path, const wt_trace_info *info)
{
    lc_proc *np = wt__grow_array(lc->procs, &lc->cap_procs, lc->n_procs + 1, sizeof *np);
    if (!np)
        return WT_ENOMEM;
    lc->procs = np;
    lc_proc *p = &lc->procs[lc->n_procs];
    memset(p, 0, sizeof *p);
    uint32_t dummy;
    const char *pp = path ? path : "";
    if (wt__strmap_put(&lc->detail_map, pp, strlen(pp), 0, &dummy, &p->path) < 0)
        return WT_ENOMEM;
    p->pid = info ? info->pid : 0;
    wt_procname_init(&p->who, p->pid);
    p->start = info ? info->process_start_ns : 0;
    if (p->start <= 0 && info)
        p->start = info->open_ns;
    p->have_start = p->start > 0;
    p->last_ts = INT64_MIN;
    p->first_ts = INT64_MAX;
    p->sync_wm = INT64_MIN;
    lc->cur_file = (int)lc->n_procs;
    lc->n_procs++;
    lc->n_files_seen++;
    lc->cur = p;
    lc->last_t = NULL;
    memset(lc->pcache, 0, sizeof lc->pcache);
    lc->last_cat_ok = 0; /* keyed by pointer, as the pcache */
    return 0;
}

void wt_ledger_calc_damage(wt_ledger_calc *lc, int64_t offset, const char *message)
{
    if (lc->cur)
        lc->cur->damaged = 1;
}

int wt_ledger_calc_file_end(wt_ledger_calc *lc, const wt_reader_stats *st)
{
    lc_proc *p = lc->cur;
    if (!p)
        return WT_ESTATE;
    if (st) {
        if (st->frames_damaged || st->errors)
            p->damaged = 1;
        if (p->end == WT_END_NONE && st->end != WT_END_NONE) {
            p->end = st->end;
            p->signo = st->end_signal;
        }
    }
    /* trees whose top-level span never came (a cut file): count their envelope */
    for (size_t i = 0; i < lc->n_threads; i++) {
        lc_thread *t = &lc->threads[i];
        if (t->file != lc->cur_file)
            continue;
        if (t->n_touched && t->env_end > t->env_start)
            flush_tree(lc, t, p,
                       t->env_start < p->start && p->have_start ? p->start : t->env_start,
                       t->env_end, 1);
        else {
            /* nothing to cover: the self times still count; the envelope stays as it was */
            const int64_t es = t->env_start, ee = t->env_end;
            settle_tree(lc, t, p, -1.0, t->pend_total);
            t->env_start = es;
            t->env_end = ee;
        }
        wt_ledger_nest_flush(&t->nest, add_inclusive, lc);
        /* the union is of one file's spans, which come in the order they ended: files of one
         * process (a close and an open again) may be given in any order, and their spans do
         * not overlap */
        memset(&t->busy, 0, sizeof t->busy);
        if (t->child_sum) /* NULL for a thread seen without spans (only its name) */
            memset(t->child_sum, 0, t->cap_depth * sizeof *t->child_sum);
    }
    if (!p->have_start)
        p->start = p->first_ts != INT64_MAX ? p->first_ts : 0;
    if (p->end != WT_END_NONE && p->end_ts > 0) {
        p->stop = p->end_ts > p->last_ts ? p->end_ts : p->last_ts;
    } else {
        p->no_end = 1;
        p->stop = p->last_ts;
    }
    if (p->last_ts == INT64_MIN)
        p->stop = p->end_ts > 0 ? p->end_ts : p->start;
    if (p->stop < p->start)
        p->stop = p->start;
    lc->cur = NULL;
    lc->last_t = NULL;
    return lc->nomem ? WT_ENOMEM : 0;
}

const wt_ledger_result *wt_ledger_calc_result(const wt_ledger_calc *lc) { return &lc->res; }

const wt_ledger_miss *wt_ledger_calc_misses(const wt_ledger_calc *lc, size_t *n)
{
    *n = lc->n_misses;
    return lc->misses;
}

void wt_ledger_calc_free(wt_ledger_calc *lc)
{
    if (!lc)
        return;
    for (size_t i = 0; i < lc->n_cats; i++) {
        lc_cat *c = &lc->cats[i];
        wt__reservoir_release(&c->st);
        for (size_t k = 0; k < c->n_labs; k++)
            wt__reservoir_release(&c->labs[k].st);
        free(c->labs);
        wt__strmap_release(&c->label_map);
        free(c->out_labels);
    }
    free(lc->cats);
    for (size_t i = 0; i < lc->n_threads; i++) {
        free(lc->threads[i].child_sum);
        wt_ledger_nest_release(&lc->threads[i].nest);
        free(lc->threads[i].pend);
        free(lc->threads[i].touched);
    }
    free(lc->threads);
    for (size_t i = 0; i < lc->n_procs; i++) {
        free(lc->procs[i].cat_self);
        free(lc->procs[i].cat_seconds);
    }
    free(lc->procs);
    wt_ledger_cover_release(&lc->cover);
    wt_ledger_cover_release(&lc->wait_others);
    wt_ledger_cover_release(&lc->wait_kids);
    free(lc->tops);
    free(lc->tops_tmp);
    free(lc->misses);
    free(lc->out_cats);
    free(lc->cat_order);
    free(lc->out_threads);
    free(lc->out_procs);
    wt__strmap_release(&lc->cat_map);
    wt__textset_release(&lc->kept_labels);
    wt__strmap_release(&lc->thread_map);
    wt__strmap_release(&lc->detail_map);
    free(lc);
}
