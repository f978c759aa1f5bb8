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
 * array by start (its out-of-order tail sorted when read, see sort_tops()), at most
 * WT_LEDGER_MAX_TOPS, and a scratch array as large; a main thread's children leave it when
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

/* Stable merge of the sorted runs a[0..na) and b[0..nb) into out (ties: a's first). */
static void merge_runs(const lc_top *a, size_t na, const lc_top *b, size_t nb, lc_top *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb)
        out[k++] = b[j].s < a[i].s ? b[j++] : a[i++];
    while (i < na)
        out[k++] = a[i++];
    while (j < nb)
        out[k++] = b[j++];
}

/* Sorts the out-of-order tail tops[n_sorted..n_tops) by start, keeping arrival order among
 * equal starts (a bottom-up merge sort, between tops and tops_tmp), then merges it after the
 * sorted head: the array an insertion at arrival would have built (at the end of the equal
 * starts). Threads whose flushes interleave deliver many spans out of order; inserting each
 * one moved half the array (a third of the ledger's instructions on 8 threads), while the
 * array is read only when a main thread's top-level span arrives, or at the bound. */
static void sort_tops(wt_ledger_calc *lc)
{
    const size_t h = lc->n_sorted, n = lc->n_tops;
    if (h == n)
        return;
    lc_top *src = lc->tops, *dst = lc->tops_tmp;
    for (size_t w = 1; w < n - h; w *= 2) {
        for (size_t i = h; i < n; i += 2 * w) {
            const size_t m = i + w < n ? i + w : n, e = i + 2 * w < n ? i + 2 * w : n;
            merge_runs(src + i, m - i, src + m, e - m, dst + i);
        }
        lc_top *x = src;
        src = dst;
        dst = x;
    }
    if (src != lc->tops) /* the sorted tail back after the head */
        memcpy(lc->tops + h, src + h, (n - h) * sizeof *src);
    if (h > 0 && lc->tops[h].s < lc->tops[h - 1].s) {
        merge_runs(lc->tops, h, lc->tops + h, n - h, lc->tops_tmp);
        lc_top *x = lc->tops;
        lc->tops = lc->tops_tmp;
        lc->tops_tmp = x;
    }
    lc->n_sorted = n;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The value of rank k (0-based, k < n) of v[0..n), v reordered: quickselect, with qsort for
 * what is left after 64 rounds (a hostile order cannot make it quadratic). */
static int64_t rank_of(int64_t *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* k is in [lo, hi) */
    for (int round = 0; hi - lo > 1; round++) {
        if (round == 64) {
            qsort(v + lo, hi - lo, sizeof *v, cmp_i64);
            return v[k];
        }
        /* three-way partition of [lo, hi) around the middle value: < | == | > */
        const int64_t pv = v[lo + (hi - lo) / 2];
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            const int64_t x = v[i];
            if (x < pv) {
                v[i++] = v[lt];
                v[lt++] = x;
            } else if (x > pv) {
                v[i] = v[--gt];
                v[gt] = x;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pv;
    }
    return v[k];
}

/* Forgets the oldest half of a full array: the first n / 2 in the order sort_tops() gives (by
 * start; equal starts in arrival order, which is their order in the array: sorts are stable
 * and a merge puts the earlier head first), which is what an enclosing parent searches. The
 * rest keep their order, so a later sort_tops() gives what it would have after a sort here;
 * their sorted prefix is the new head. Only the start of rank n / 2 is needed, not a sort:
 * threads that flush in turn leave most of the array out of order, and sorting it all at
 * every bound cost 8 % of the ledger's time on bench_analyze's threads8 shape. */
static void forget_half(wt_ledger_calc *lc)
{
    const size_t n = lc->n_tops, half = n / 2;
    int64_t *const starts = (int64_t *)(void *)lc->tops_tmp; /* scratch of n lc_top's */
    for (size_t i = 0; i < n; i++)
        starts[i] = lc->tops[i].s;
    const int64_t pivot = rank_of(starts, n, half);
    size_t less = 0;
    for (size_t i = 0; i < n; i++)
        less += lc->tops[i].s < pivot;
    size_t drop_eq = half - less, out = 0; /* of the starts equal to pivot, the first go */
    for (size_t i = 0; i < n; i++) {
        const int64_t s = lc->tops[i].s;
        if (s < pivot || (s == pivot && drop_eq && drop_eq--))
            continue;
        lc->tops[out++] = lc->tops[i];
    }
    size_t h = out ? 1 : 0;
    while (h < out && lc->tops[h - 1].s <= lc->tops[h].s)
        h++;
    lc->n_tops = out;
    lc->n_sorted = h;
}

void wt__ledger_wait_fill(wt_ledger_calc *lc)
{
    const size_t n = lc->n_tops;
    const uint32_t ti = lc->tops_lazy_of;
    const uint64_t pid = lc->threads[ti].pid;
    size_t sorted = lc->n_sorted;
    for (size_t j = n - lc->tops_lazy; j < n; j++) {
        lc->tops[j].pid = pid;
        lc->tops[j].thread = ti;
        lc->tops[j].kid = 1;
        if (sorted == j && (j == 0 || lc->tops[j - 1].s <= lc->tops[j].s))
            sorted++;
    }
    lc->n_sorted = sorted;
    lc->tops_lazy = 0;
}

int wt__ledger_wait_room(wt_ledger_calc *lc)
{
    if (lc->tops_lazy)
        wt__ledger_wait_fill(lc);
    if (lc->n_tops == WT_LEDGER_MAX_TOPS)
        forget_half(lc);
    if (lc->n_tops == lc->cap_tops) {
        const size_t cap = lc->cap_tops ? lc->cap_tops * 2 : 64;
        lc_top *v = realloc(lc->tops, cap * sizeof *v);
        if (!v)
            return WT_ENOMEM;
        lc->tops = v;
        v = realloc(lc->tops_tmp, cap * sizeof *v);
        if (!v)
            return WT_ENOMEM; /* tops grew alone: cap_tops still bounds both */
        lc->tops_tmp = v;
        lc->cap_tops = cap;
    }
    return 0;
}

/* The measure of the intersection of two interval sets (sorted, disjoint). */
static int64_t meet(const wt_ledger_cover *a, const wt_ledger_cover *b)
{
    int64_t m = 0;
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        const wt_ledger_iv *x = wt_ledger_cover_at(a, i), *y = wt_ledger_cover_at(b, j);
        const int64_t s = x->s > y->s ? x->s : y->s;
        const int64_t e = x->e < y->e ? x->e : y->e;
        if (e > s)
            m = wt__sat_add_i64(m, e - s);
        if (x->e < y->e)
            i++;
        else
            j++;
    }
    return m;
}

/* Takes thread me's children out of tops[from, to), the others kept in order from `from` on
 * (*kept_end: where they end), each child into k when into_k (the parent's children, which
 * meet() takes out of its waiting). 0 or WT_ENOMEM. */
static int take_kids(wt_ledger_calc *lc, uint32_t me, size_t from, size_t to,
                     wt_ledger_cover *k, int into_k, size_t *kept_end)
{
    size_t out = from;
    for (size_t i = from; i < to; i++) {
        const lc_top w = lc->tops[i];
        if (w.thread == me && w.kid) {
            int64_t fresh;
            int clipped, rc = into_k ? wt_ledger_cover_add(k, w.s, w.e, SIZE_MAX, &fresh, &clipped)
                                     : 0;
            if (rc < 0)
                return rc;
            continue; /* dropped: its parent has come */
        }
        lc->tops[out++] = w;
    }
    *kept_end = out;
    return 0;
}

int wt__ledger_wait_top(wt_ledger_calc *lc, lc_thread *t, int64_t s, int64_t e)
{
    const uint32_t me = (uint32_t)(t - lc->threads);
    if (t->tid != t->pid)
        return wt__ledger_wait_remember(lc, t, s, e, 0);
    if (lc->n_tops == 0)
        return 0; /* nothing ran inside it, and it has no child to drop */
    if (lc->tops_kids_of == me) {
        /* only its own children (a main thread's tree, the nested shape): no other thread's
         * work inside, so nothing waited (what follows would add 0), and all of them leave */
        lc->n_tops = 0;
        lc->n_sorted = 0;
        lc->tops_lazy = 0;
        t->kids = 0;
        return 0;
    }
    if (lc->tops_lazy)
        wt__ledger_wait_fill(lc);
    wt_ledger_cover *u = &lc->wait_others, *k = &lc->wait_kids;
    wt_ledger_cover_clear(u); /* their memory is kept for the next span */
    wt_ledger_cover_clear(k);
    sort_tops(lc);
    /* the spans starting inside [s, e]: first the other threads' tops enclosed, into u */
    const size_t first = first_from(lc, s);
    size_t end = first;
    for (; end < lc->n_tops && lc->tops[end].s <= e; end++) {
        const lc_top *w = &lc->tops[end];
        if (w->thread != me && !w->kid && w->pid == t->pid && w->e <= e &&
            lc->threads[w->thread].first_ts >= s) {
            int64_t fresh;
            int clipped, rc = wt_ledger_cover_add(u, w->s, w->e, SIZE_MAX, &fresh, &clipped);
            if (rc < 0)
                return rc;
        }
    }
    /* then this thread's children leave the array, into k only when u has something: most
     * trees have no other thread's work inside, and then nothing of theirs is waiting. Its
     * children are all its depth-1 spans remembered: each came after its previous top-level
     * span (spans arrive at their end, children before their parent), whatever their clock
     * says; after the writer re-anchors the clock a child may start a nanosecond before its
     * parent. Those starting inside it are the rule's, [first, end); the others only when
     * there are any (t->kids, which counts them), so that one such child does not stay for
     * ever. */
    size_t out;
    int rc = take_kids(lc, me, first, end, k, u->n > 0, &out);
    if (rc < 0)
        return rc;
    const size_t gone = end - out;
    if (out < end) { /* children left: close the gap (tops is NULL while nothing was kept) */
        if (end < lc->n_tops)
            memmove(lc->tops + out, lc->tops + end, (lc->n_tops - end) * sizeof *lc->tops);
        lc->n_tops -= end - out;
        lc->n_sorted = lc->n_tops;
    }
    if (t->kids > gone) { /* children starting outside it: the whole array, once */
        if ((rc = take_kids(lc, me, 0, lc->n_tops, k, u->n > 0, &out)) < 0)
            return rc;
        lc->n_tops = out;
        lc->n_sorted = out; /* what was sorted stays so with some taken out */
    }
    t->kids = 0;
    const int64_t waited = wt_ledger_cover_total(u) - meet(u, k);
    t->waiting_ns = wt__sat_add_i64(t->waiting_ns, waited);
    return 0;
}
