/* Change points by rolling median and MAD: see changepoint.h. */
#include "changepoint.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "walltime/error.h"

void wt_cp_opts_default(wt_cp_opts *o)
{
    *o = (wt_cp_opts){ .window = 50, .min_runs = 10, .k = 5.0, .floor = 0.01, .persist = 3 };
}

int wt_cp_opts_check(const wt_cp_opts *o)
{
    if (o->min_runs < 1 || o->window < o->min_runs || o->window > WT_CP_MAX_WINDOW ||
        o->persist < 1 || o->persist > WT_CP_MAX_PERSIST || !(o->k > 0) || !(o->floor >= 0) ||
        !isfinite(o->k) || !isfinite(o->floor))
        return -1;
    return 0;
}

int wt_cp_init(wt_cp *c, const wt_cp_opts *o)
{
    memset(c, 0, sizeof *c);
    c->o = *o;
    c->cap = (size_t)o->window + (size_t)o->persist;
    c->hist = malloc(c->cap * sizeof *c->hist);
    c->refs = malloc(c->cap * sizeof *c->refs);
    if (!c->hist || !c->refs) {
        wt_cp_release(c);
        return WT_ENOMEM;
    }
    return 0;
}

void wt_cp_release(wt_cp *c)
{
    free(c->hist);
    free(c->refs);
    memset(c, 0, sizeof *c);
}

/* Reorders v[0..n) so that v[k] is the value a sort would put there, those before it no
 * larger and those after no smaller (Wirth's selection: Hoare's partition around v[k]); k < n. */
static void select_kth(double *v, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1;
    const ptrdiff_t kk = (ptrdiff_t)k;
    while (lo < hi) {
        const double x = v[kk];
        ptrdiff_t i = lo, j = hi;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                const double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        } while (i <= j);
        if (j < kk)
            lo = i;
        if (kk < i)
            hi = j;
    }
}

/* The median of v[0..n) (reordered), n >= 1: called twice per run and category, so a
 * selection rather than a sort. */
static double median(double *v, size_t n)
{
    select_kth(v, n, n / 2);
    const double hi = v[n / 2];
    if (n % 2)
        return hi;
    double lo = v[0]; /* the largest of the lower half */
    for (size_t i = 1; i < n / 2; i++)
        if (v[i] > lo)
            lo = v[i];
    return (lo + hi) / 2;
}

static double at(const wt_cp *c, size_t i) { return c->hist[(c->head + i) % c->cap]; }

double wt_cp_level(const wt_cp *c)
{
    double tmp[WT_CP_MAX_WINDOW + WT_CP_MAX_PERSIST];
    const size_t n = c->since, first = c->n - c->since;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        tmp[i] = at(c, first + i);
    return median(tmp, n);
}

size_t wt_cp_recent(const wt_cp *c, double *out, size_t max)
{
    const size_t n = c->n < max ? c->n : max;
    for (size_t i = 0; i < n; i++)
        out[i] = at(c, c->n - n + i);
    return n;
}

int wt_cp_push(wt_cp *c, double value, int64_t ref, wt_cp_change *out)
{
    const size_t P = (size_t)c->o.persist, W = (size_t)c->o.window;
    if (c->n == c->cap) { /* drop the oldest */
        c->head = (c->head + 1) % c->cap;
        c->n--;
        if (c->since > c->n)
            c->since = c->n;
    }
    size_t slot = (c->head + c->n) % c->cap;
    c->hist[slot] = value;
    c->refs[slot] = ref;
    c->n++;
    c->since++;
    c->runs++;
    /* the candidate is the run P - 1 back; its window the runs of its segment before it */
    if (c->since < P + (size_t)c->o.min_runs)
        return 0;
    const size_t first = c->n - c->since, cand = c->since - P, wn = cand < W ? cand : W;
    double win[WT_CP_MAX_WINDOW], dev[WT_CP_MAX_WINDOW], tail[WT_CP_MAX_PERSIST];
    for (size_t i = 0; i < wn; i++)
        win[i] = at(c, first + cand - wn + i);
    const double m = median(win, wn);
    for (size_t i = 0; i < wn; i++)
        dev[i] = fabs(win[i] - m);
    const double mad = median(dev, wn);
    double s = 1.4826 * mad;
    if (s < c->o.floor * fabs(m))
        s = c->o.floor * fabs(m);
    if (s < 1e-6)
        s = 1e-6;
    int side = 0;
    for (size_t i = 0; i < P; i++) {
        double x = at(c, first + cand + i), d = x - m;
        int sd = d > c->o.k * s ? 1 : d < -c->o.k * s ? -1 : 0;
        if (sd == 0 || (side && sd != side))
            return 0;
        side = sd;
        tail[i] = x;
    }
    *out = (wt_cp_change){ c->refs[(c->head + first + cand) % c->cap], m, median(tail, P), s,
                           (int)wn };
    /* a new segment from the change: the runs before it no longer set the level (they stay in
     * the ring for wt_cp_recent) */
    c->since = P;
    return 1;
}
