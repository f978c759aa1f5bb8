/* `saved (parallel)` without counting a parent that waits on its workers: the waiting rule of
 * the ledger's threads section (docs/ANALYZE.md, "Threads and the seconds saved by overlap").
 *
 * The main thread of a process (tid == pid) starts and joins the others: its top-level span P
 * waits on the work of the threads that appeared during it, that is on the top-level spans W
 * of other threads of its process that lie inside it (P.start <= W.start, W.end <= P.end) and
 * whose thread's first span started inside P. A trace has no causality, so these stand for
 * "P started them and joins them": a long span of an older thread that merely encloses other
 * work, or one of two sibling workers, is not waiting; a worker that forks and joins workers
 * of its own is not seen as waiting either (saved is then overstated, as before this rule).
 * The main thread is waiting at the instants of the union of those W at which it is in P's own
 * self time, that is in none of P's direct children (depth-1 spans of its thread): a parent
 * that only joins its workers waits all that time; a parent that decodes while a worker loads
 * keeps its decoding as work.
 *
 * Spans arrive at their end, children before parents, and a worker's span ends before the
 * parent that joins it; so when P arrives, the W inside it and P's own children have arrived
 * (a W written after P, in the same flush, is not seen: saved is then overstated). Memory:
 * the recent top-level spans of the other threads and the main threads' depth-1 spans, in one
 * array sorted by start, at most WT_LEDGER_MAX_TOPS; a main thread's children leave it when
 * their parent arrives; past the bound the oldest half is forgotten (saved is then
 * overstated, never the ledger's rows). */
#include "ledger_int.h"

#include <stdlib.h>
#include <string.h>

/* The first index of lc->tops whose start is >= s. */
static size_t first_from(const wt_ledger_calc *lc, int64_t s)
{
    size_t lo = 0, hi = lc->n_tops;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (lc->tops[mid].s < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int wt__ledger_wait_remember(wt_ledger_calc *lc, const lc_thread *t, int64_t s, int64_t e,
                             int kid)
{
    /* only what a main thread's span can ask for: other threads' tops, its own children */
    if ((t->tid == t->pid) != (kid != 0))
        return 0;
    if (lc->n_tops == WT_LEDGER_MAX_TOPS) {
        /* forget the oldest half: by start, which is what an enclosing parent searches */
        const size_t half = lc->n_tops / 2;
        memmove(lc->tops, lc->tops + half, (lc->n_tops - half) * sizeof *lc->tops);
        lc->n_tops -= half;
    }
    if (lc->n_tops == lc->cap_tops) {
        const size_t cap = lc->cap_tops ? lc->cap_tops * 2 : 64;
        lc_top *v = realloc(lc->tops, cap * sizeof *v);
        if (!v)
            return WT_ENOMEM;
        lc->tops = v;
        lc->cap_tops = cap;
    }
    /* spans arrive at their end: by start they are mostly in order, so mostly an append */
    const size_t at = lc->n_tops && lc->tops[lc->n_tops - 1].s <= s ? lc->n_tops
                                                                     : first_from(lc, s + 1);
    if (at < lc->n_tops)
        memmove(lc->tops + at + 1, lc->tops + at, (lc->n_tops - at) * sizeof *lc->tops);
    lc->tops[at] = (lc_top){ s, e, t->pid, (uint32_t)(t - lc->threads), kid };
    lc->n_tops++;
    return 0;
}

/* The measure of the intersection of two interval sets (sorted, disjoint). */
static int64_t meet(const wt_ledger_cover *a, const wt_ledger_cover *b)
{
    int64_t m = 0;
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        const int64_t s = a->iv[i].s > b->iv[j].s ? a->iv[i].s : b->iv[j].s;
        const int64_t e = a->iv[i].e < b->iv[j].e ? a->iv[i].e : b->iv[j].e;
        if (e > s)
            m = wt__sat_add_i64(m, e - s);
        if (a->iv[i].e < b->iv[j].e)
            i++;
        else
            j++;
    }
    return m;
}

static void empty(wt_ledger_cover *c)
{
    c->n = 0; /* its memory is kept for the next span */
    c->folded_ns = 0;
    c->frontier = INT64_MIN;
}

int wt__ledger_wait_top(wt_ledger_calc *lc, lc_thread *t, int64_t s, int64_t e)
{
    const uint32_t me = (uint32_t)(t - lc->threads);
    if (t->tid != t->pid)
        return wt__ledger_wait_remember(lc, t, s, e, 0);
    wt_ledger_cover *u = &lc->wait_others, *k = &lc->wait_kids;
    empty(u);
    empty(k);
    /* one pass over the spans starting inside [s, e]: the other threads' tops enclosed go to
     * u, this thread's children to k, and those children leave the array */
    size_t i = first_from(lc, s), out = i;
    for (; i < lc->n_tops && lc->tops[i].s <= e; i++) {
        const lc_top w = lc->tops[i];
        int64_t fresh;
        int clipped, rc = 0;
        if (w.thread == me && w.kid) {
            rc = wt_ledger_cover_add(k, w.s, w.e, SIZE_MAX, &fresh, &clipped);
            if (rc < 0)
                return rc;
            continue; /* dropped: its parent has come */
        }
        if (w.thread != me && !w.kid && w.pid == t->pid && w.e <= e &&
            lc->threads[w.thread].first_ts >= s)
            rc = wt_ledger_cover_add(u, w.s, w.e, SIZE_MAX, &fresh, &clipped);
        if (rc < 0)
            return rc;
        lc->tops[out++] = w;
    }
    if (out < i) { /* children left: close the gap (tops is NULL while nothing was kept) */
        if (i < lc->n_tops)
            memmove(lc->tops + out, lc->tops + i, (lc->n_tops - i) * sizeof *lc->tops);
        lc->n_tops -= i - out;
    }
    const int64_t waited = wt_ledger_cover_total(u) - meet(u, k);
    t->waiting_ns = wt__sat_add_i64(t->waiting_ns, waited);
    return 0;
}
