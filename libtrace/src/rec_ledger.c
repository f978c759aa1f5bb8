/* The exit ledger, kept in memory by the writer thread: the writer sees every span as it
 * encodes it, so the recording threads pay nothing for this, and nothing is read back from
 * the file. Two views are kept side by side:
 *
 * - the seed's flat table (WALLTIME_SUMMARY=flat): per category, in the order its first span
 *   ended, the seconds of every span (nesting double counts), the sum of counts, HIT and MISS
 *   tallies; fed in runs by wt__agg_run() (a call per span was a fifth of the writer's work);
 * - the reconciled ledger (the default), the arithmetic of walltime-analyze's ledger
 *   (docs/ANALYZE.md): per thread a span's self time is its duration minus its direct
 *   children's (a child_sum per depth: spans arrive children first); a finished top-level
 *   tree's self time is shared among its categories in proportion, over the wall-clock time
 *   it newly covers in the union of all threads' top-level spans (wt_ledger_cover), so each
 *   instant of wall counts once; inclusive time per category is the per-thread union of its
 *   open spans (wt_ledger_nest). Fed per span, in batches, by wt__agg_nest().
 *
 * Both print through wt_ledger_render(), the analyzer's renderer. Memory: per category a row
 * and at most HIT_SAMPLE HIT durations; per thread with spans in progress a child_sum per
 * depth, a pending self time per category and the nest lists; the coverage set at most
 * COVER_MAX intervals; the MISS list at most MAX_MISSES. Idle threads' states are dropped
 * when many threads have been seen, so a host that makes thousands of short threads does not
 * grow this without bound. All of it runs under the aggregates lock (the writer holds it for
 * a whole drain). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_state.h"
#include "walltime/ledger.h"

#define MAX_MISSES 100000     /* the list is for a person to read; the tallies stay exact */
#define HIT_SAMPLE 255        /* HIT durations kept per category: the median of the first ones */
#define COVER_MAX 4096        /* coverage intervals (64 KiB): a middle insertion moves the tail */
#define THREADS_RECLAIM 1024  /* past this many thread states, idle ones are dropped */
#define MISSES_SHOWN 10       /* per category in the exit ledger */

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

typedef struct row {
    uint32_t cat;
    int64_t first_end; /* ns: when the category's first span ended */
    /* flat: integers, a float sum per span was a loop-carried add chain in the writer */
    int64_t ns, count, hits, misses;
    /* reconciled */
    int64_t self_ns, incl_ns;
    int64_t bytes, bytes_ns; /* of the spans that carry bytes: the GB/s note */
    double attr_ns;
    int64_t *hit_ns; /* the first HIT_SAMPLE HIT durations */
    uint32_t n_hit;
} row;

typedef struct miss {
    uint32_t cat, label, detail;
    int64_t dur_ns;
} miss;

typedef struct pend_slot {
    int64_t ns; /* self ns of the pending tree in this row */
    int on;     /* listed in touched */
} pend_slot;

/* One thread's spans in progress (see the file comment). Indices are row indices. */
typedef struct tacc {
    uint64_t tid;
    int64_t *child_sum;
    uint32_t cap_depth;
    pend_slot *pend; /* per row */
    uint32_t *touched;
    uint32_t n_touched, cap_pend;
    int64_t pend_total, env_start, env_end, last_top_end;
    int gone; /* exited: starts no more spans (wt__agg_thread_gone) */
    wt_ledger_nest nest;
} tacc;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t *row_of; /* category id -> row index + 1 */
static uint32_t row_of_cap;
static row *rows;
static size_t n_rows, cap_rows;
static miss *misses;
static size_t n_misses, cap_misses;
static tacc *threads;
static size_t n_threads, cap_threads;
static size_t last_thread; /* index of the last thread used + 1, 0: none */
static wt_ledger_cover cover;
static int64_t clipped_spans; /* reached below a forced fold of the coverage set */
static int64_t end_record_ns, last_end; /* the END record's time (0: none yet); the last span end */
static int64_t unclosed, unclosed_ns;   /* spans in flight at exit (ended then) */
static int64_t dropped_events;          /* in the DROPPED records the writer wrote */

void wt__agg_lock(void) { pthread_mutex_lock(&lock); }

void wt__agg_unlock(void) { pthread_mutex_unlock(&lock); }

static void tacc_release(tacc *t)
{
    free(t->child_sum);
    free(t->pend);
    free(t->touched);
    wt_ledger_nest_release(&t->nest);
}

void wt__agg_reset(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_rows; i++)
        free(rows[i].hit_ns);
    for (size_t i = 0; i < n_threads; i++)
        tacc_release(&threads[i]);
    free(row_of);
    free(rows);
    free(misses);
    free(threads);
    row_of = NULL;
    rows = NULL;
    misses = NULL;
    threads = NULL;
    row_of_cap = 0;
    n_rows = cap_rows = n_misses = cap_misses = n_threads = cap_threads = last_thread = 0;
    wt_ledger_cover_release(&cover);
    clipped_spans = end_record_ns = last_end = unclosed = unclosed_ns = dropped_events = 0;
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
    memset(r, 0, sizeof *r);
    r->cat = cat;
    r->first_end = INT64_MAX;
    row_of[cat] = (uint32_t)n_rows;
    return r;
}

/* ---- the flat view ---- */

/* One more MISS of a row: tallied, and listed while the list is below MAX_MISSES. */
static void add_miss(row *r, uint32_t cat, uint32_t label, uint32_t detail, int64_t dur_ns)
{
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
        misses[n_misses++] = (miss){ cat, label, detail, dur_ns };
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
    r->ns = sat_add(r->ns, dur_ns);
    r->count = sat_add(r->count, count);
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
    r->ns = sat_add(r->ns, ns);
    r->count = sat_add(r->count, count);
    r->hits += hits;
}

void wt__agg_miss(uint32_t cat, uint32_t label, uint32_t detail, int64_t dur_ns)
{
    row *r = row_for(cat);
    if (r)
        add_miss(r, cat, label, detail, dur_ns);
}

void wt__agg_dropped(uint64_t n)
{
    dropped_events = sat_add(dropped_events, n > INT64_MAX ? INT64_MAX : (int64_t)n);
}

int wt__agg_empty(void)
{
    pthread_mutex_lock(&lock);
    const int empty = n_rows == 0;
    pthread_mutex_unlock(&lock);
    return empty;
}

/* ---- the reconciled view ---- */

/* Drops the states of threads with nothing in progress (their spans are all settled): a
 * later span of such a thread starts a fresh state, which is all it needs. */
static void reclaim_idle(void)
{
    size_t k = 0;
    for (size_t i = 0; i < n_threads; i++) {
        tacc *t = &threads[i];
        int idle = t->n_touched == 0;
        for (int d = 0; idle && t->nest.levels && d < WT_LEDGER_NEST_LEVELS; d++)
            idle = t->nest.levels[d].n == 0;
        if (idle)
            tacc_release(t);
        else
            threads[k++] = *t;
    }
    n_threads = k;
    last_thread = 0;
}

static tacc *thread_of(uint64_t tid)
{
    if (last_thread && threads[last_thread - 1].tid == tid)
        return &threads[last_thread - 1];
    for (size_t i = 0; i < n_threads; i++) /* the writer drains a thread's ring at a time */
        if (threads[i].tid == tid) {
            last_thread = i + 1;
            threads[i].gone = 0; /* a gone thread's tid reused by a new one */
            return &threads[i];
        }
    if (n_threads >= THREADS_RECLAIM)
        reclaim_idle();
    if (n_threads == cap_threads) {
        const size_t cap = cap_threads ? 2 * cap_threads : 16;
        tacc *v = realloc(threads, cap * sizeof *v);
        if (!v)
            return NULL;
        threads = v;
        cap_threads = cap;
    }
    tacc *t = &threads[n_threads++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->env_start = INT64_MAX;
    t->env_end = INT64_MIN;
    t->last_top_end = wt__g.process_start_ns;
    last_thread = n_threads;
    return t;
}

/* Below this, no later top-level span of a known live thread starts: every live thread's
 * last top-level end (a thread's top-level spans follow one another). */
static int64_t safe_frontier(void)
{
    int64_t f = INT64_MAX;
    for (size_t i = 0; i < n_threads; i++)
        if (!threads[i].gone && threads[i].last_top_end < f)
            f = threads[i].last_top_end;
    return f;
}

/* cover_add() when the span does not simply go after the set: the general insertion, and the
 * folds when the set is full. Apart, so the common case inlined below saves no registers. */
static __attribute__((noinline)) int64_t cover_add_slow(wt_ledger_cover *c, int64_t s, int64_t e)
{
    int64_t fresh = 0;
    int clipped = 0;
    int rc = wt_ledger_cover_add(c, s, e, COVER_MAX, &fresh, &clipped);
    if (rc == WT_ENOSPC) {
        wt_ledger_cover_fold(c, safe_frontier());
        if (c->n > COVER_MAX / 2)
            wt_ledger_cover_fold(c, wt_ledger_cover_at(c, c->n / 2)->s);
        rc = wt_ledger_cover_add(c, s, e, COVER_MAX, &fresh, &clipped);
    }
    clipped_spans += clipped;
    return rc == 0 ? fresh : 0;
}

/* Adds [s, e) to the coverage; the ns newly covered. When the set is full: fold below the
 * safe frontier, then if needed below its lower half (a later span reaching there is clipped,
 * and counted as a late span). */
static inline int64_t cover_add(wt_ledger_cover *c, int64_t s, int64_t e)
{
    /* the common case, a span after every interval of the set (a thread's next top-level
     * span): appended whole, all of it fresh, as wt_ledger_cover_add() would, without its
     * search, merge loop and call (a third of the exit ledger's cost per span) */
    if (e > s && s >= c->frontier && c->n < c->cap && c->n < COVER_MAX && c->tail == 0 &&
        (c->n == 0 || c->iv[c->n - 1].e < s)) {
        c->iv[c->n++] = (wt_ledger_iv){ s, e };
        if (__builtin_add_overflow(c->total_ns, e - s, &c->total_ns))
            c->total_ns = INT64_MAX;
        return e - s;
    }
    return cover_add_slow(c, s, e);
}

/* A finished tree of t covered [s, e): its categories get their self time, and their share of
 * the wall it newly covers in proportion to it. Then the tree is empty. */
static void settle(tacc *t, int64_t s, int64_t e)
{
    const int64_t fresh = cover_add(&cover, s, e);
    const double f = t->pend_total > 0 ? (double)fresh / (double)t->pend_total : 0.0;
    for (uint32_t i = 0; i < t->n_touched; i++) {
        pend_slot *p = &t->pend[t->touched[i]];
        row *r = &rows[t->touched[i]];
        r->attr_ns += (double)p->ns * f;
        r->self_ns = sat_add(r->self_ns, p->ns);
        *p = (pend_slot){ 0, 0 };
    }
    t->n_touched = 0;
    t->pend_total = 0;
    t->env_start = INT64_MAX;
    t->env_end = INT64_MIN;
}

static int grow_i64(int64_t **v, uint32_t *cap, uint32_t need)
{
    if (need <= *cap)
        return 0;
    uint32_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    int64_t *n = realloc(*v, c * sizeof *n);
    if (!n)
        return -1;
    memset(n + *cap, 0, (c - *cap) * sizeof *n);
    *v = n;
    *cap = c;
    return 0;
}

static int add_pending(tacc *t, uint32_t ri, int64_t self)
{
    if (ri >= t->cap_pend) {
        uint32_t cap = t->cap_pend ? t->cap_pend : 8;
        while (cap <= ri)
            cap *= 2;
        pend_slot *p = realloc(t->pend, cap * sizeof *p);
        if (!p)
            return -1;
        memset(p + t->cap_pend, 0, (cap - t->cap_pend) * sizeof *p);
        t->pend = p;
        uint32_t *tv = realloc(t->touched, cap * sizeof *tv);
        if (!tv)
            return -1; /* pend grew, cap_pend did not: it grows again next time */
        t->touched = tv;
        t->cap_pend = cap;
    }
    if (!t->pend[ri].on) {
        t->pend[ri].on = 1;
        t->touched[t->n_touched++] = ri;
    }
    t->pend[ri].ns = sat_add(t->pend[ri].ns, self);
    t->pend_total = sat_add(t->pend_total, self);
    return 0;
}

static void add_inclusive(void *ctx, uint32_t ri, int64_t ns)
{
    (void)ctx;
    rows[ri].incl_ns = sat_add(rows[ri].incl_ns, ns);
}

static void nest_one(uint64_t tid, const wt__agg_item *it)
{
    row *r = row_for(it->cat);
    tacc *t = r ? thread_of(tid) : NULL;
    if (!t)
        return; /* out of memory: the flat view still counts it */
    const uint32_t ri = (uint32_t)(r - rows);
    const int64_t dur = it->dur > 0 ? it->dur : 0, start = it->end - dur;
    if (it->end > last_end)
        last_end = it->end;
    if (it->unclosed) {
        unclosed++;
        unclosed_ns = sat_add(unclosed_ns, dur);
    }
    if (it->bytes > 0) {
        r->bytes = sat_add(r->bytes, it->bytes);
        r->bytes_ns = sat_add(r->bytes_ns, dur);
    }
    if (it->cached == WT_CACHED_HIT && r->n_hit < HIT_SAMPLE) {
        if (!r->hit_ns)
            r->hit_ns = malloc(HIT_SAMPLE * sizeof *r->hit_ns);
        if (r->hit_ns)
            r->hit_ns[r->n_hit++] = dur;
    }
    const uint32_t d = it->depth < WT_LEDGER_NEST_LEVELS - 2 ? it->depth : WT_LEDGER_NEST_LEVELS - 2;
    if (d == 0 && t->n_touched == 0 && (t->cap_depth < 2 || t->child_sum[1] == 0) &&
        (!t->nest.levels || (t->nest.levels[0].n == 0 && t->nest.levels[1].n == 0))) {
        /* a top-level span without children, the most common one: its tree is itself, so
         * the general path below would come to exactly this (the same arithmetic) */
        const int64_t fresh =
            cover_add(&cover, start < wt__g.process_start_ns ? wt__g.process_start_ns : start,
                      it->end);
        const double f = dur > 0 ? (double)fresh / (double)dur : 0.0;
        r->attr_ns += (double)dur * f;
        r->self_ns = sat_add(r->self_ns, dur);
        r->incl_ns = sat_add(r->incl_ns, dur);
        if (it->end > t->last_top_end)
            t->last_top_end = it->end;
        return;
    }
    if (grow_i64(&t->child_sum, &t->cap_depth, d + 2) < 0)
        return;
    int64_t *cs = t->child_sum;
    int64_t self = dur - cs[d + 1];
    if (self < 0)
        self = 0;
    cs[d + 1] = 0;
    cs[d] = sat_add(cs[d], dur);
    if (add_pending(t, ri, self) < 0)
        return;
    if (start < t->env_start)
        t->env_start = start;
    if (it->end > t->env_end)
        t->env_end = it->end;
    wt_ledger_nest_span(&t->nest, it->depth, ri, dur, add_inclusive, NULL);
    if (d == 0) {
        cs[0] = 0;
        settle(t, start < wt__g.process_start_ns ? wt__g.process_start_ns : start, it->end);
        if (it->end > t->last_top_end)
            t->last_top_end = it->end;
    }
}

void wt__agg_nest(uint64_t tid, const wt__agg_item *items, size_t n)
{
    /* WALLTIME_SUMMARY=0: no exit ledger, so the writer skips this work (wt_print_ledger()
     * then prints the flat table, whose sums are kept anyway) */
    if (!wt__g.summary)
        return;
    for (size_t i = 0; i < n; i++)
        nest_one(tid, &items[i]);
}

/* ---- printing ---- */

static size_t *order; /* rows by first end: the print's scratch (under the lock) */

static int by_first_end(const void *a, const void *b)
{
    const row *x = &rows[*(const size_t *)a], *y = &rows[*(const size_t *)b];
    if (x->first_end != y->first_end)
        return x->first_end < y->first_end ? -1 : 1;
    return x->cat < y->cat ? -1 : x->cat > y->cat;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The median HIT of a row in seconds (of its first HIT_SAMPLE HITs), or NaN without HITs. */
static double median_hit(const row *r)
{
    if (r->n_hit == 0)
        return NAN;
    int64_t v[HIT_SAMPLE];
    memcpy(v, r->hit_ns, r->n_hit * sizeof *v);
    qsort(v, r->n_hit, sizeof *v, cmp_i64);
    const uint32_t n = r->n_hit;
    const double m = n & 1 ? (double)v[n / 2] : 0.5 * ((double)v[n / 2 - 1] + (double)v[n / 2]);
    return m * 1e-9;
}

/* A formatted line in fresh memory, or NULL. */
static char *line_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *line_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

typedef struct costly {
    size_t miss;
    double cost;
} costly;

static int by_cost(const void *a, const void *b)
{
    const costly *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    return (x->miss > y->miss) - (x->miss < y->miss);
}

/* The MISS lines, grouped per category (rows in print order): "N CACHE MISS in CAT, X
 * avoidable in all; the K most costly:" then those K as continuation lines (a leading space,
 * see wt_ledger_extras). Avoidable: a MISS's seconds minus its category's median HIT (all of
 * it without HITs). Lines are appended to *lines (strings owned by the caller). */
static int miss_lines(char ***lines, size_t *n_lines)
{
    costly *c = calloc(n_misses ? n_misses : 1, sizeof *c);
    char **v = calloc(n_rows * (MISSES_SHOWN + 2) + 1, sizeof *v);
    if (!c || !v) {
        free(c);
        free(v);
        return -1;
    }
    size_t nl = 0;
    char a[WT_LEDGER_SECONDS_MAX], b[WT_LEDGER_SECONDS_MAX];
    for (size_t k = 0; k < n_rows; k++) {
        const row *r = &rows[order[k]];
        if (!r->misses)
            continue;
        const double med = median_hit(r);
        size_t nc = 0;
        double all = 0.0;
        for (size_t i = 0; i < n_misses; i++) {
            if (misses[i].cat != r->cat)
                continue;
            const double s = (double)misses[i].dur_ns * 1e-9;
            const double cost = isnan(med) ? s : (s > med ? s - med : 0.0);
            c[nc++] = (costly){ i, cost };
            all += cost;
        }
        qsort(c, nc, sizeof *c, by_cost);
        const size_t shown = nc < MISSES_SHOWN ? nc : MISSES_SHOWN;
        const char *name = wt__string_get(r->cat, NULL);
        v[nl] = line_printf("%lld CACHE MISS in %s, %s avoidable in all%s; the %zu most costly:",
                            (long long)r->misses, name ? name : "",
                            wt_ledger_fmt_seconds(a, sizeof a, all),
                            (size_t)r->misses > nc ? " (of those listed)" : "", shown);
        nl += v[nl] != NULL;
        for (size_t i = 0; i < shown; i++) {
            const miss *m = &misses[c[i].miss];
            const char *label = wt__string_get(m->label, NULL);
            const char *detail = wt__string_get(m->detail, NULL);
            v[nl] = line_printf("  %s (%s) \xe2\x80\x94 %s; avoidable %s", label ? label : "",
                                wt_ledger_fmt_seconds(a, sizeof a, (double)m->dur_ns * 1e-9),
                                detail && *detail ? detail : WT_LEDGER_MISS_DEFAULT,
                                wt_ledger_fmt_seconds(b, sizeof b, c[i].cost));
            nl += v[nl] != NULL;
        }
    }
    free(c);
    *lines = v;
    *n_lines = nl;
    return 0;
}

static void legend(FILE *out, void *ctx)
{
    (void)ctx;
    fputs("--------------------------------------------------------------------------\n"
          "self: time in the category's own spans, not their children, each instant of wall\n"
          "once; inclusive: wall-clock time a span of the category was open, per thread\n",
          out);
}

/* The reconciled table of what was seen so far. Trees still in progress (their top-level
 * span has not ended, or never will: a thread still inside its spans at exit) count as if
 * they ended at their last child, over a copy of the coverage: printing changes nothing. */
static void print_reconciled(const char *title, double wall)
{
    wt_ledger_row *lr = calloc(n_rows ? n_rows : 1, sizeof *lr);
    char(*notes)[32] = calloc(n_rows ? n_rows : 1, sizeof *notes);
    const char **note_of = calloc(n_rows ? n_rows : 1, sizeof *note_of);
    double *attr = calloc(n_rows ? n_rows : 1, sizeof *attr);
    int64_t *incl = calloc(n_rows ? n_rows : 1, sizeof *incl);
    wt_ledger_cover cv;
    wt_ledger_cover_init(&cv);
    char **lines = NULL;
    size_t n_lines = 0;
    if (!lr || !notes || !note_of || !attr || !incl || wt_ledger_cover_copy(&cv, &cover) < 0 ||
        miss_lines(&lines, &n_lines) < 0)
        goto out;
    const int64_t clipped_before = clipped_spans; /* the copy's clips are not the run's */
    for (size_t i = 0; i < n_rows; i++) {
        attr[i] = rows[i].attr_ns;
        incl[i] = rows[i].incl_ns;
    }
    for (size_t k = 0; k < n_threads; k++) {
        const tacc *t = &threads[k];
        if (t->n_touched && t->env_end > t->env_start) {
            const int64_t s = t->env_start < wt__g.process_start_ns ? wt__g.process_start_ns
                                                                     : t->env_start;
            const int64_t fresh = cover_add(&cv, s, t->env_end);
            const double f = t->pend_total > 0 ? (double)fresh / (double)t->pend_total : 0.0;
            for (uint32_t i = 0; i < t->n_touched; i++)
                attr[t->touched[i]] += (double)t->pend[t->touched[i]].ns * f;
        }
        for (int d = 0; t->nest.levels && d < WT_LEDGER_NEST_LEVELS; d++)
            for (uint32_t i = 0; i < t->nest.levels[d].n; i++) {
                const wt_ledger_nest_item *it = &t->nest.levels[d].v[i];
                incl[it->cat] = sat_add(incl[it->cat], it->ns);
            }
    }
    clipped_spans = clipped_before;
    for (size_t k = 0; k < n_rows; k++) {
        const row *r = &rows[order[k]];
        const char *name = wt__string_get(r->cat, NULL);
        lr[k] = (wt_ledger_row){ .name = name ? name : "", .seconds = attr[order[k]] * 1e-9,
                                 .count = r->count, .hits = r->hits, .misses = r->misses,
                                 .inclusive = (double)incl[order[k]] * 1e-9 };
        /* as the analyzer's note: bytes over the durations of the spans that carry them */
        if (r->bytes > 0 && r->bytes_ns > 0)
            snprintf(notes[k], sizeof notes[k], "%.2f GB/s", (double)r->bytes / (double)r->bytes_ns);
        note_of[k] = notes[k];
    }
    wt_ledger_fact facts[4];
    size_t nf = 0;
    if (unclosed) /* the analyzer's lines, word for word */
        facts[nf++] = (wt_ledger_fact){ "in flight at exit", (double)unclosed_ns * 1e-9, 1,
                                        unclosed,
                                        "spans still open at exit, crash or kill, ended then" };
    if (dropped_events)
        facts[nf++] = (wt_ledger_fact){ "dropped events", 0, 0, dropped_events,
                                        "events the recorder dropped (buffers full)" };
    int64_t all = 0;
    for (size_t i = 0; i < n_rows; i++)
        all = sat_add(all, rows[i].misses);
    if (all > (int64_t)n_misses)
        facts[nf++] = (wt_ledger_fact){ "misses not listed", 0, 0, all - (int64_t)n_misses,
                                        "past the list's bound, counted in their rows" };
    if (clipped_spans)
        facts[nf++] = (wt_ledger_fact){ "late spans", 0, 0, clipped_spans,
                                        "reached below folded coverage: counted, not covered" };
    const wt_ledger_table t = { .title = title, .rows = lr, .n_rows = n_rows, .wall = wall };
    const wt_ledger_extras x = { .row_notes = note_of, .facts = facts, .n_facts = nf,
                                 .anomalies = (const char *const *)lines,
                                 .n_anomalies = n_lines, .sections = legend };
    wt_ledger_render(stderr, &t, &x);
out:
    for (size_t i = 0; lines && i < n_lines; i++)
        free(lines[i]);
    free(lines);
    wt_ledger_cover_release(&cv);
    free(incl);
    free(attr);
    free(note_of);
    free(notes);
    free(lr);
}

/* The seed's table: every span's full seconds, every MISS listed. */
static void print_flat(const char *title, double wall)
{
    wt_ledger_row *lr = calloc(n_rows ? n_rows : 1, sizeof *lr);
    wt_ledger_miss *lm = calloc(n_misses ? n_misses : 1, sizeof *lm);
    if (lr && lm) {
        for (size_t k = 0; k < n_rows; k++) {
            const row *r = &rows[order[k]];
            const char *name = wt__string_get(r->cat, NULL);
            lr[k] = (wt_ledger_row){ .name = name ? name : "", .seconds = (double)r->ns * 1e-9,
                                     .count = r->count, .hits = r->hits, .misses = r->misses };
        }
        for (size_t i = 0; i < n_misses; i++)
            lm[i] = (wt_ledger_miss){ .category = wt__string_get(misses[i].cat, NULL),
                                      .label = wt__string_get(misses[i].label, NULL),
                                      .detail = wt__string_get(misses[i].detail, NULL),
                                      .seconds = (double)misses[i].dur_ns * 1e-9 };
        const wt_ledger_table t = { .title = title, .rows = lr, .n_rows = n_rows,
                                    .misses = lm, .n_misses = n_misses, .wall = wall };
        wt_ledger_render_flat(stderr, &t);
    }
    free(lr);
    free(lm);
}

void wt__agg_thread_gone(uint64_t tid)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_threads; i++)
        if (threads[i].tid == tid)
            threads[i].gone = 1;
    pthread_mutex_unlock(&lock);
}

void wt__agg_end(int64_t ns)
{
    pthread_mutex_lock(&lock);
    end_record_ns = ns;
    pthread_mutex_unlock(&lock);
}

void wt__agg_print(const char *title, double wall)
{
    pthread_mutex_lock(&lock);
    if (end_record_ns) /* the analyzer's wall: process start to max(END record, last event) */
        wall = (double)((end_record_ns > last_end ? end_record_ns : last_end) - wt__g.process_start_ns) * 1e-9;
    /* rows keep their indices (threads' pending trees refer to them): print through an order */
    order = calloc(n_rows ? n_rows : 1, sizeof *order);
    if (order) {
        for (size_t i = 0; i < n_rows; i++)
            order[i] = i;
        qsort(order, n_rows, sizeof *order, by_first_end);
        if (wt__g.summary == WT__SUMMARY_FLAT || !wt__g.summary)
            print_flat(title, wall);
        else
            print_reconciled(title, wall);
        fflush(stderr);
    }
    free(order);
    order = NULL;
    pthread_mutex_unlock(&lock);
}
