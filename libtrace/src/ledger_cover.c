/* The coverage interval set of the reconciled ledger: see walltime/ledger.h. Spans mostly
 * arrive in time order, so an insertion is usually an append or a merge into the last
 * interval: the search starts with a check of the end, and nothing is moved then. */
#include <stdlib.h>
#include <string.h>

#include "walltime/error.h"
#include "walltime/ledger.h"

void wt_ledger_cover_init(wt_ledger_cover *c)
{
    memset(c, 0, sizeof *c);
    c->frontier = INT64_MIN;
}

void wt_ledger_cover_fold(wt_ledger_cover *c, int64_t f)
{
    if (f <= c->frontier)
        return;
    size_t k = 0;
    while (k < c->n && c->iv[k].e <= f) {
        c->folded_ns += c->iv[k].e - c->iv[k].s;
        k++;
    }
    if (k < c->n && c->iv[k].s < f) {
        c->folded_ns += f - c->iv[k].s;
        c->iv[k].s = f;
    }
    if (k) { /* nothing folded whole: nothing to move (a full set's move is a MiB) */
        memmove(c->iv, c->iv + k, (c->n - k) * sizeof *c->iv);
        c->n -= k;
    }
    c->frontier = f;
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
    /* the first interval that ends at or after s; mostly past the end */
    size_t lo = 0, hi = c->n;
    if (hi && c->iv[hi - 1].e < s)
        lo = hi;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (c->iv[mid].e < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t overlap = 0, ns = s, ne = e;
    size_t j = lo;
    while (j < c->n && c->iv[j].s <= e) {
        const int64_t os = c->iv[j].s > s ? c->iv[j].s : s;
        const int64_t oe = c->iv[j].e < e ? c->iv[j].e : e;
        if (oe > os)
            overlap += oe - os;
        if (c->iv[j].s < ns)
            ns = c->iv[j].s;
        if (c->iv[j].e > ne)
            ne = c->iv[j].e;
        j++;
    }
    if (j > lo) {
        /* intervals lo..j-1 merge into one; the common merge into one moves nothing */
        c->iv[lo].s = ns;
        c->iv[lo].e = ne;
        if (j > lo + 1 && j < c->n)
            memmove(c->iv + lo + 1, c->iv + j, (c->n - j) * sizeof *c->iv);
        c->n -= j - lo - 1;
    } else {
        if (c->n >= max)
            return WT_ENOSPC;
        if (c->n == c->cap) {
            const size_t cap = c->cap ? c->cap * 2 : 64;
            wt_ledger_iv *v = realloc(c->iv, cap * sizeof *v);
            if (!v)
                return WT_ENOMEM;
            c->iv = v;
            c->cap = cap;
        }
        if (lo < c->n)
            memmove(c->iv + lo + 1, c->iv + lo, (c->n - lo) * sizeof *c->iv);
        c->iv[lo] = (wt_ledger_iv){ s, e };
        c->n++;
    }
    *fresh = (e - s) - overlap;
    return 0;
}

int64_t wt_ledger_cover_total(const wt_ledger_cover *c)
{
    int64_t t = c->folded_ns;
    for (size_t i = 0; i < c->n; i++)
        if (__builtin_add_overflow(t, c->iv[i].e - c->iv[i].s, &t))
            return INT64_MAX;
    return t;
}

int wt_ledger_cover_copy(wt_ledger_cover *to, const wt_ledger_cover *from)
{
    wt_ledger_cover_release(to);
    *to = *from;
    to->iv = NULL;
    to->cap = 0;
    if (from->n) {
        to->iv = malloc(from->n * sizeof *to->iv);
        if (!to->iv) {
            wt_ledger_cover_init(to);
            return WT_ENOMEM;
        }
        memcpy(to->iv, from->iv, from->n * sizeof *to->iv);
        to->cap = from->n;
    }
    return 0;
}

void wt_ledger_cover_release(wt_ledger_cover *c)
{
    if (!c)
        return;
    free(c->iv);
    wt_ledger_cover_init(c);
}
