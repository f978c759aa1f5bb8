/* The seed's flat ledger, kept in memory by the writer thread: per category (in the order its
 * first span ended, as the seed's record() calls came: the writer sees threads' spans in drain
 * order, so rows are sorted by that time when printed) the seconds, the sum of counts, HIT and MISS tallies, and every MISS for
 * the ANOMALIES list. The writer sees every span as it encodes it, so the hot path pays
 * nothing for this. Printed at exit and by wt_print_ledger() through wt_ledger_render_flat(),
 * the one implementation of the seed's layout. */
#include <stdio.h>
#include <stdlib.h>

#include "rec_state.h"
#include "walltime/ledger.h"

typedef struct row {
    uint32_t cat;
    int64_t first_end; /* ns: when the category's first span ended */
    int64_t ns; /* integer: a float sum per span was a loop-carried add chain in the writer */
    int64_t count, hits, misses;
} row;

typedef struct miss {
    uint32_t cat, label, detail;
    double seconds;
} miss;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t *row_of; /* category id -> row index + 1 */
static uint32_t row_of_cap;
static row *rows;
static size_t n_rows, cap_rows;
static miss *misses;
static size_t n_misses, cap_misses;

#define MAX_MISSES 100000 /* the list is for a person to read; the tallies stay exact */

void wt__agg_lock(void) { pthread_mutex_lock(&lock); }

void wt__agg_unlock(void) { pthread_mutex_unlock(&lock); }

void wt__agg_reset(void)
{
    pthread_mutex_lock(&lock);
    free(row_of);
    free(rows);
    free(misses);
    row_of = NULL;
    rows = NULL;
    misses = NULL;
    row_of_cap = 0;
    n_rows = cap_rows = n_misses = cap_misses = 0;
    pthread_mutex_unlock(&lock);
}

static row *row_for(uint32_t cat)
{
    if (__builtin_expect(cat < row_of_cap && row_of[cat], 1))
        return &rows[row_of[cat] - 1]; /* the common case: a known category */
    if (cat >= row_of_cap) {
        uint32_t cap = row_of_cap ? row_of_cap : 64;
        while (cap <= cat)
            cap *= 2;
        uint32_t *r = realloc(row_of, cap * sizeof *r);
        if (!r)
            return NULL;
        for (uint32_t i = row_of_cap; i < cap; i++)
            r[i] = 0;
        row_of = r;
        row_of_cap = cap;
    }
    if (row_of[cat])
        return &rows[row_of[cat] - 1];
    if (n_rows == cap_rows) {
        const size_t cap = cap_rows ? 2 * cap_rows : 16;
        row *r = realloc(rows, cap * sizeof *r);
        if (!r)
            return NULL;
        rows = r;
        cap_rows = cap;
    }
    row *r = &rows[n_rows++];
    *r = (row){ cat, INT64_MAX, 0, 0, 0, 0 };
    row_of[cat] = (uint32_t)n_rows;
    return r;
}

/* One more MISS of a row: tallied, and listed while the list is below MAX_MISSES. */
static void add_miss(row *r, uint32_t cat, uint32_t label, uint32_t detail, int64_t dur_ns)
{
    const double s = (double)dur_ns * 1e-9;
    r->misses++;
    if (n_misses == cap_misses && cap_misses < MAX_MISSES) {
        const size_t cap = cap_misses ? 2 * cap_misses : 16;
        miss *m = realloc(misses, cap * sizeof *m);
        if (m) {
            misses = m;
            cap_misses = cap;
        }
    }
    if (n_misses < cap_misses)
        misses[n_misses++] = (miss){ cat, label, detail, s };
}

/* Called by the writer with the lock held (it holds it for a whole drain). */
void wt__agg_span(uint32_t cat, uint32_t label, uint32_t detail, int64_t end_ns, int64_t dur_ns,
                  wt_cached cached, int64_t count)
{
    row *r = row_for(cat);
    if (!r)
        return;
    if (end_ns < r->first_end)
        r->first_end = end_ns;
    r->ns += dur_ns;
    r->count += count;
    if (cached == WT_CACHED_HIT)
        r->hits++;
    else if (cached == WT_CACHED_MISS)
        add_miss(r, cat, label, detail, dur_ns);
}

/* A run of spans of one category summed by the caller (the writer adds a run of plain spans
 * in one call rather than one per span); its MISSes come through wt__agg_miss(). Called with
 * the lock held. */
void wt__agg_run(uint32_t cat, int64_t first_end, int64_t ns, int64_t count, int64_t hits)
{
    row *r = row_for(cat);
    if (!r)
        return;
    if (first_end < r->first_end)
        r->first_end = first_end;
    r->ns += ns;
    r->count += count;
    r->hits += hits;
}

void wt__agg_miss(uint32_t cat, uint32_t label, uint32_t detail, int64_t dur_ns)
{
    row *r = row_for(cat);
    if (r)
        add_miss(r, cat, label, detail, dur_ns);
}

int wt__agg_empty(void)
{
    pthread_mutex_lock(&lock);
    const int empty = n_rows == 0;
    pthread_mutex_unlock(&lock);
    return empty;
}

static int by_first_end(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->first_end != y->first_end)
        return x->first_end < y->first_end ? -1 : 1;
    return x->cat < y->cat ? -1 : x->cat > y->cat;
}

void wt__agg_print(const char *title, double wall)
{
    pthread_mutex_lock(&lock);
    /* sorted in place (wt_print_ledger() may run mid-run): the index follows the rows */
    qsort(rows, n_rows, sizeof *rows, by_first_end);
    for (size_t i = 0; i < n_rows; i++)
        row_of[rows[i].cat] = (uint32_t)(i + 1);
    wt_ledger_row *lr = calloc(n_rows ? n_rows : 1, sizeof *lr);
    wt_ledger_miss *lm = calloc(n_misses ? n_misses : 1, sizeof *lm);
    if (lr && lm) {
        for (size_t i = 0; i < n_rows; i++) {
            const char *name = wt__string_get(rows[i].cat, NULL);
            lr[i] = (wt_ledger_row){ .name = name ? name : "", .seconds = (double)rows[i].ns * 1e-9,
                                     .count = rows[i].count, .hits = rows[i].hits,
                                     .misses = rows[i].misses };
        }
        for (size_t i = 0; i < n_misses; i++)
            lm[i] = (wt_ledger_miss){ .category = wt__string_get(misses[i].cat, NULL),
                                      .label = wt__string_get(misses[i].label, NULL),
                                      .detail = wt__string_get(misses[i].detail, NULL),
                                      .seconds = misses[i].seconds };
        const wt_ledger_table t = { .title = title, .rows = lr, .n_rows = n_rows,
                                    .misses = lm, .n_misses = n_misses, .wall = wall };
        wt_ledger_render_flat(stderr, &t);
        fflush(stderr);
    }
    free(lr);
    free(lm);
    pthread_mutex_unlock(&lock);
}
