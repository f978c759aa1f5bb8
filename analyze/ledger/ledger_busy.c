/* A thread's busy time: the measure of the union of its top-level spans (docs/ANALYZE.md,
 * "Threads and the seconds saved by overlap"). The spans of one thread nest, so its top-level
 * spans follow one another and the union is their sum, which the common case adds in O(1)
 * (wt__busy_add() in ledger_int.h). But a span measured elsewhere (wt_record(), timed by the
 * caller) may enclose earlier top-level spans of its thread, as the seed's record() around a
 * stage whose parts were spans does, and one longer than the process starts at the process's
 * start: summing made such a thread busy 146 % of the wall, and "saved (parallel)" seconds
 * came out of one thread. The union needs past intervals: the ring of the latest
 * LC_BUSY_RING keeps it exact for a span that reaches back over up to that many, and for one
 * that encloses all that came before (the folded ones whole); one starting among the folded
 * ones gets their measure in proportion to the part of their extent it covers. The union is
 * of one file's spans, which arrive in the order they ended; it starts again at each file
 * (ledger.c), as files of one process (closed and opened again) may be given in any order. */
#include "ledger_int.h"

#include <string.h>

/* The measure of the folded intervals inside [s, e), exact when it holds all or none of their
 * extent, else in proportion. */
static int64_t old_overlap(const lc_busy *b, int64_t s, int64_t e)
{
    if (b->old_ns == 0 || e <= b->old_s || s >= b->old_e)
        return 0;
    if (s <= b->old_s && e >= b->old_e)
        return b->old_ns;
    const int64_t a = s > b->old_s ? s : b->old_s, z = e < b->old_e ? e : b->old_e;
    const double part = (double)b->old_ns * ((double)(z - a) / (double)(b->old_e - b->old_s));
    return part < (double)(z - a) ? (int64_t)part : z - a;
}

/* Folds [s, e) of measure ns (its own, not already folded) into the old intervals. */
static void fold(lc_busy *b, int64_t s, int64_t e, int64_t ns)
{
    if (ns <= 0)
        return;
    if (b->old_ns == 0) {
        b->old_s = s;
        b->old_e = e;
    } else {
        b->old_s = s < b->old_s ? s : b->old_s;
        b->old_e = e > b->old_e ? e : b->old_e;
    }
    b->old_ns = wt__sat_add_i64(b->old_ns, ns);
}

int64_t wt__busy_add_slow(lc_busy *b, int64_t s, int64_t e)
{
    wt_ledger_iv kept[LC_BUSY_RING + 1]; /* the ring's intervals apart from [s, e), in order */
    size_t n = 0;
    int64_t covered = old_overlap(b, s, e), lo = s, hi = e, ring_ns = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        const wt_ledger_iv x = b->iv[(b->head + i) % LC_BUSY_RING];
        ring_ns += x.e - x.s;
        if (x.e > s && x.s < e) { /* overlaps it: merges with it */
            covered += (x.e < e ? x.e : e) - (x.s > s ? x.s : s);
            lo = x.s < lo ? x.s : lo;
            hi = x.e > hi ? x.e : hi;
        } else {
            kept[n++] = x;
        }
    }
    int64_t fresh = (e - s) - covered;
    fresh = fresh < 0 ? 0 : fresh;
    if (b->old_ns && lo < b->old_e) {
        /* it reaches into the folded ones: the ring folds with it (the rare case) */
        int64_t last = hi;
        for (size_t i = 0; i < n; i++)
            last = kept[i].e > last ? kept[i].e : last;
        fold(b, lo, last, wt__sat_add_i64(ring_ns, fresh));
        b->head = b->n = 0;
        b->ring_ns = 0;
        return fresh;
    }
    /* the merged interval [lo, hi) is solid (each part overlaps [s, e)) and meets none of the
     * kept ones: into its place among them, the oldest folding out past the ring's size */
    size_t at = 0;
    while (at < n && kept[at].s < lo)
        at++;
    for (size_t i = n; i > at; i--)
        kept[i] = kept[i - 1];
    kept[at] = (wt_ledger_iv){ lo, hi };
    n++;
    size_t first = 0;
    if (n > LC_BUSY_RING) {
        fold(b, kept[0].s, kept[0].e, kept[0].e - kept[0].s);
        first = 1;
    }
    b->head = 0;
    b->n = (uint32_t)(n - first);
    b->ring_ns = 0;
    for (size_t i = first; i < n; i++) {
        b->iv[i - first] = kept[i];
        b->ring_ns = wt__sat_add_i64(b->ring_ns, kept[i].e - kept[i].s);
    }
    return fresh;
}

void wt__busy_add_run(lc_busy *b, const wt_ledger_iv *iv, size_t k, int64_t sum)
{
    const int64_t last_e =
        b->n ? b->iv[(b->head + b->n - 1) % LC_BUSY_RING].e : (b->old_ns ? b->old_e : INT64_MIN);
    if (k < LC_BUSY_RING || iv[0].s < last_e) {
        for (size_t i = 0; i < k; i++)
            (void)wt__busy_add(b, iv[i].s, iv[i].e);
        return;
    }
    /* the ring and all but the run's last LC_BUSY_RING fold, in one step each (they lie in
     * order after the folded ones); those last become the ring */
    if (b->n)
        fold(b, b->iv[b->head].s, b->iv[(b->head + b->n - 1) % LC_BUSY_RING].e, b->ring_ns);
    const size_t keep_from = k - LC_BUSY_RING;
    int64_t tail = 0;
    for (size_t i = keep_from; i < k; i++)
        tail += iv[i].e - iv[i].s; /* disjoint, in order, below 2^62: no overflow */
    memcpy(b->iv, iv + keep_from, sizeof b->iv);
    if (keep_from > 0)
        fold(b, iv[0].s, iv[keep_from - 1].e, sum - tail);
    b->head = 0;
    b->n = LC_BUSY_RING;
    b->ring_ns = tail;
}
