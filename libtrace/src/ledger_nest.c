/* Inclusive time per category from spans arriving children first: see walltime/ledger.h. Used
 * by the recorder's writer (the exit ledger) and by walltime-analyze, so the two agree. Work
 * per span: a binary search in the level below and a merge of two short sorted lists (a real
 * load nests a handful of categories). */
#include <stdlib.h>
#include <string.h>

#include "walltime/error.h"
#include "walltime/ledger.h"

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int reserve(wt_ledger_nest_level *l, uint32_t need)
{
    if (need <= l->cap)
        return 0;
    uint32_t cap = l->cap ? l->cap : 4;
    while (cap < need)
        cap *= 2;
    wt_ledger_nest_item *v = realloc(l->v, cap * sizeof *v);
    if (!v)
        return WT_ENOMEM;
    l->v = v;
    l->cap = cap;
    return 0;
}

/* Sets cat's ns in l to ns (the span covers its own category's descendants whole). */
static int put(wt_ledger_nest_level *l, uint32_t cat, int64_t ns)
{
    uint32_t lo = 0, hi = l->n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (l->v[mid].cat < cat)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < l->n && l->v[lo].cat == cat) {
        l->v[lo].ns = ns;
        return 0;
    }
    if (reserve(l, l->n + 1) < 0)
        return WT_ENOMEM;
    memmove(l->v + lo + 1, l->v + lo, (l->n - lo) * sizeof *l->v);
    l->v[lo] = (wt_ledger_nest_item){ cat, ns };
    l->n++;
    return 0;
}

/* l[cat] += ns: a sibling's time added to its level (the same category, mostly, so no move). */
static int add_one(wt_ledger_nest_level *l, uint32_t cat, int64_t ns)
{
    uint32_t lo = 0, hi = l->n;
    if (hi && l->v[hi - 1].cat == cat)
        lo = hi - 1;
    else
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo) / 2;
            if (l->v[mid].cat < cat)
                lo = mid + 1;
            else
                hi = mid;
        }
    if (lo < l->n && l->v[lo].cat == cat) {
        l->v[lo].ns = sat_add(l->v[lo].ns, ns);
        return 0;
    }
    if (reserve(l, l->n + 1) < 0)
        return WT_ENOMEM;
    if (lo < l->n)
        memmove(l->v + lo + 1, l->v + lo, (l->n - lo) * sizeof *l->v);
    l->v[lo] = (wt_ledger_nest_item){ cat, ns };
    l->n++;
    return 0;
}

/* a += b (sums per category), both sorted; b is left as it was. Merged from the back, in
 * place; equal categories leave a gap that is closed at the end. */
static int merge(wt_ledger_nest_level *a, const wt_ledger_nest_level *b)
{
    if (b->n == 0)
        return 0;
    if (reserve(a, a->n + b->n) < 0)
        return WT_ENOMEM;
    int64_t i = (int64_t)a->n - 1, j = (int64_t)b->n - 1, k = (int64_t)a->n + b->n - 1;
    while (j >= 0) {
        if (i >= 0 && a->v[i].cat > b->v[j].cat) {
            a->v[k--] = a->v[i--];
        } else if (i >= 0 && a->v[i].cat == b->v[j].cat) {
            a->v[k--] = (wt_ledger_nest_item){ b->v[j].cat, sat_add(a->v[i].ns, b->v[j].ns) };
            i--;
            j--;
        } else {
            a->v[k--] = b->v[j--];
        }
    }
    /* a->v[0..i] are in place; the merged tail starts at k + 1 */
    const uint32_t tail = (uint32_t)((int64_t)a->n + b->n - 1 - k);
    if (k > i)
        memmove(a->v + i + 1, a->v + k + 1, tail * sizeof *a->v);
    a->n = (uint32_t)(i + 1) + tail;
    return 0;
}

static void emit(wt_ledger_nest_level *l, wt_ledger_nest_add_fn add, void *ctx)
{
    for (uint32_t i = 0; i < l->n; i++)
        add(ctx, l->v[i].cat, l->v[i].ns);
    l->n = 0;
}

int wt_ledger_nest_span(wt_ledger_nest *n, uint32_t depth, uint32_t cat, int64_t dur,
                        wt_ledger_nest_add_fn add, void *ctx)
{
    if (!n->levels) {
        n->levels = calloc(WT_LEDGER_NEST_LEVELS, sizeof *n->levels);
        if (!n->levels)
            return WT_ENOMEM;
    }
    const uint32_t d = depth < WT_LEDGER_NEST_LEVELS - 2 ? depth : WT_LEDGER_NEST_LEVELS - 2;
    wt_ledger_nest_level *kids = &n->levels[d + 1], *here = &n->levels[d];
    const int64_t ns = dur > 0 ? dur : 0;
    if (kids->n == 0) {
        /* a leaf, most spans: it only adds itself to the level it ends in */
        if (d == 0 && here->n == 0) {
            add(ctx, cat, ns);
            return 0;
        }
        int rc = add_one(here, cat, ns);
        if (rc == 0 && d == 0)
            emit(here, add, ctx);
        return rc;
    }
    int rc = put(kids, cat, ns);
    if (rc == 0)
        rc = merge(here, kids);
    kids->n = 0;
    if (d == 0)
        emit(here, add, ctx);
    return rc;
}

void wt_ledger_nest_flush(wt_ledger_nest *n, wt_ledger_nest_add_fn add, void *ctx)
{
    if (!n->levels)
        return;
    /* deepest first: each orphan level counts as if its parent had ended; a category may then
     * count in two levels, the price of a cut file (the analyzer says the file is cut) */
    for (int d = WT_LEDGER_NEST_LEVELS - 1; d >= 0; d--)
        emit(&n->levels[d], add, ctx);
}

void wt_ledger_nest_release(wt_ledger_nest *n)
{
    if (!n || !n->levels)
        return;
    for (int d = 0; d < WT_LEDGER_NEST_LEVELS; d++)
        free(n->levels[d].v);
    free(n->levels);
    n->levels = NULL;
}
