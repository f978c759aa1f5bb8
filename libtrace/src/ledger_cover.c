/* The coverage interval set of the reconciled ledger: see walltime/ledger.h.
 *
 * A gap buffer: the intervals of rank below n - tail sit at the front of iv[], the last
 * `tail` at the back (ending at iv[cap - 1]), and the free room between them is where the
 * last insertion went. Spans mostly arrive in time order, so an insertion is usually an
 * append (tail 0) or a merge into the last interval. When threads' top-level spans come in
 * turn (a thread's flushed block after another's over the same time), each goes among the
 * intervals of the others, just after the one before it: the room follows them and moves
 * past the few intervals between two inserts, where a plain array moved its whole tail
 * (8 threads: ~60 bytes a span, 63 MB per million spans). The measure of the union is kept
 * as it grows (total_ns), so folding reads none of what it drops (wt_ledger_cover_fold()). */
#include <stdlib.h>
#include <string.h>

#include "walltime/error.h"
#include "walltime/ledger.h"

void wt_ledger_cover_init(wt_ledger_cover *c)
{
    memset(c, 0, sizeof *c);
    c->frontier = INT64_MIN;
}

static void add_total(wt_ledger_cover *c, int64_t fresh)
{
    if (__builtin_add_overflow(c->total_ns, fresh, &c->total_ns))
        c->total_ns = INT64_MAX;
}

/* Moves the room to just before the interval of rank g (g <= n): the intervals between it
 * and g change sides. */
static void move_room(wt_ledger_cover *c, size_t g)
{
    const size_t at = c->n - c->tail, room = c->cap - c->n;
    if (room && g < at)
        memmove(c->iv + g + room, c->iv + g, (at - g) * sizeof *c->iv);
    else if (room && g > at)
        memmove(c->iv + at, c->iv + at + room, (g - at) * sizeof *c->iv);
    c->tail = c->n - g;
}

/* The rank of the first of the n intervals at v that ends above f: they are sorted and
 * disjoint, so their ends increase. */
static size_t first_above(const wt_ledger_iv *v, size_t n, int64_t f)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (v[mid].e <= f)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The folded intervals' measure is already in total_ns (every add put in what it newly
 * covered), so a fold only finds where f falls and drops what is below: a binary search,
 * reading none of the dropped intervals. (Leaving the rest of the front in place instead of
 * moving it down saves nothing at the bound: the folds come when the set is full, so the next
 * insertion would move it anyway; measured in session 10, perf/ANALYZER.md.) */
void wt_ledger_cover_fold(wt_ledger_cover *c, int64_t f)
{
    if (f <= c->frontier)
        return;
    const size_t front = c->n - c->tail;
    size_t k = first_above(c->iv, front, f);
    if (k == front)
        k += first_above(c->iv + c->cap - c->tail, c->tail, f);
    if (k < c->n) {
        wt_ledger_iv *v = wt_ledger_cover_at(c, k);
        if (v->s < f)
            v->s = f; /* its part below f is folded: the total keeps it */
    }
    if (k >= front) { /* the front folded whole: what is left is the tail, moving nothing */
        c->n -= k;
        c->tail = c->n;
    } else if (k) { /* the rest of the front moves down (a full set's move is a MiB) */
        memmove(c->iv, c->iv + k, (front - k) * sizeof *c->iv);
        c->n -= k;
    }
    c->frontier = f;
}

/* Room for one more interval: the capacity doubled, the tail moved to the new end. */
static int grow(wt_ledger_cover *c)
{
    const size_t cap = c->cap ? c->cap * 2 : 64;
    wt_ledger_iv *v = realloc(c->iv, cap * sizeof *v);
    if (!v)
        return WT_ENOMEM;
    if (c->tail)
        memmove(v + cap - c->tail, v + c->cap - c->tail, c->tail * sizeof *v);
    c->iv = v;
    c->cap = cap;
    return 0;
}

int wt_ledger_cover_add(wt_ledger_cover *c, int64_t s, int64_t e, size_t max, int64_t *fresh,
                        int *clipped)
{
    *fresh = 0;
    *clipped = 0;
    if (s < c->frontier) {
        *clipped = 1;
        s = c->frontier;
    }
    if (e <= s)
        return 0;
    const size_t at = c->n - c->tail;
    /* between the intervals on either side of the room, touching neither: no search, no
     * move (an append in time order, or a thread's next span among the others') */
    if ((at == 0 || c->iv[at - 1].e < s) && (c->tail == 0 || c->iv[c->cap - c->tail].s > e)) {
        if (c->n >= max)
            return WT_ENOSPC;
        if (c->n == c->cap && grow(c) < 0)
            return WT_ENOMEM;
        c->iv[at] = (wt_ledger_iv){ s, e };
        c->n++;
        *fresh = e - s;
        add_total(c, *fresh);
        return 0;
    }
    /* the first interval that ends at or after s */
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (wt_ledger_cover_at(c, mid)->e < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t overlap = 0, ns = s, ne = e;
    size_t j = lo;
    const wt_ledger_iv *v;
    while (j < c->n && (v = wt_ledger_cover_at(c, j))->s <= e) {
        const int64_t os = v->s > s ? v->s : s;
        const int64_t oe = v->e < e ? v->e : e;
        if (oe > os)
            overlap += oe - os;
        if (v->s < ns)
            ns = v->s;
        if (v->e > ne)
            ne = v->e;
        j++;
    }
    if (j > lo) {
        /* intervals lo..j-1 merge into one at rank lo, at the front's end: with the room
         * between lo and j, those before it are at their place and those after it are
         * dropped from the tail, so nothing moves */
        if (c->n - c->tail < lo || c->n - c->tail > j)
            move_room(c, c->n - c->tail < lo ? lo : j);
        c->iv[lo] = (wt_ledger_iv){ ns, ne };
        c->n -= j - lo - 1;
        c->tail = c->n - lo - 1;
    } else {
        if (c->n >= max)
            return WT_ENOSPC;
        if (c->n == c->cap && grow(c) < 0)
            return WT_ENOMEM;
        move_room(c, lo);
        c->iv[lo] = (wt_ledger_iv){ s, e };
        c->n++;
    }
    *fresh = (e - s) - overlap;
    add_total(c, *fresh);
    return 0;
}

int64_t wt_ledger_cover_total(const wt_ledger_cover *c)
{
    return c->total_ns;
}

int wt_ledger_cover_copy(wt_ledger_cover *to, const wt_ledger_cover *from)
{
    wt_ledger_cover_release(to);
    *to = *from;
    to->iv = NULL;
    to->cap = 0;
    to->tail = 0; /* the copy is one sorted array */
    if (from->n) {
        to->iv = malloc(from->n * sizeof *to->iv);
        if (!to->iv) {
            wt_ledger_cover_init(to);
            return WT_ENOMEM;
        }
        const size_t front = from->n - from->tail;
        memcpy(to->iv, from->iv, front * sizeof *to->iv);
        memcpy(to->iv + front, from->iv + from->cap - from->tail, from->tail * sizeof *to->iv);
        to->cap = from->n;
    }
    return 0;
}

void wt_ledger_cover_clear(wt_ledger_cover *c)
{
    c->n = 0;
    c->tail = 0;
    c->total_ns = 0;
    c->frontier = INT64_MIN;
}

void wt_ledger_cover_release(wt_ledger_cover *c)
{
    if (!c)
        return;
    free(c->iv);
    wt_ledger_cover_init(c);
}
