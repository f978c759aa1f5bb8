/* The ledger calc's internals, shared by ledger.c (the streaming computation and finish) and
 * ledger_text.c (text and JSON). Nothing else includes this file. */
#ifndef WT_LEDGER_INT_H
#define WT_LEDGER_INT_H

#include <stdint.h>

#include "ledger.h"
#include "procname.h"
#include "selftime.h"
#include "spanstat.h"
#include "textset.h"

/* The (pid, tid) -> thread cache: 64 slots. */
#define LC_TCACHE_BITS 6
/* `valid` of a (category, label) cache slot: a key of its own (the per-span fast path), or
 * folded past WT_MAX_CATEGORIES / WT_MAX_LABEL_KEYS (spanstat.h): the general path counts it. */
#define LC_SLOT_KEPT 1
#define LC_SLOT_CAT_FOLDED 2
#define LC_SLOT_LABEL_FOLDED 4

typedef struct lc_label {
    const char *name;
    wt__reservoir st;
} lc_label;

typedef struct lc_cat {
    const char *name;
    int64_t first_end; /* ns: when its first span ended; rows are in this order, the seed's */
    int64_t self_ns;
    int64_t incl_ns; /* inclusive: per thread the union of its spans, summed over threads */
    double attr_ns; /* covered wall attributed to this category */
    int64_t count, hits, misses, bytes; /* its spans: st.n */
    int64_t bytes_ns; /* duration of the spans that carry bytes */
    wt__reservoir st; /* every span's seconds: st.total is the seed's flat seconds */
    wt__strmap label_map;
    lc_label *labs;
    size_t n_labs, cap_labs;
    uint32_t other_li1; /* the index + 1 of its WT_OTHER_LABELS label; 0 until it has one */
    wt_ledger_label *out_labels;
} lc_cat;

typedef struct lc_pend {
    int64_t ns;
    int on; /* listed in touched */
} lc_pend;

/* The union of a thread's top-level spans, whose measure is its busy time (ledger_busy.c):
 * its latest LC_BUSY_RING intervals, disjoint and in order in a ring, and the measure and
 * extent of the older ones folded out of it, all before the ring's. All zero: empty. */
#define LC_BUSY_RING 16
typedef struct lc_busy {
    wt_ledger_iv iv[LC_BUSY_RING]; /* iv[(head + i) % LC_BUSY_RING], i < n, the newest last */
    uint32_t head, n;
    int64_t ring_ns;              /* the measure of the ring's intervals */
    int64_t old_ns, old_s, old_e; /* old_ns > 0: the folded intervals' measure, [old_s, old_e) */
} lc_busy;

typedef struct lc_thread {
    uint64_t pid, tid;
    const char *name;
    int file;
    int64_t busy_ns; /* the measure of `busy` */
    lc_busy busy;
    int64_t spans;
    int64_t *child_sum;
    size_t cap_depth;
    wt_ledger_nest nest; /* inclusive time (walltime/ledger.h) */
    int64_t last_top_end;
    int64_t waiting_ns; /* self time of its top-level spans spent waiting on other threads */
    int64_t first_ts;   /* the earliest start of its settled spans (INT64_MAX: none) */
    /* the tree of the thread's current top-level span: per category self ns, and its
     * envelope, for a file cut before the top-level span came */
    lc_pend *pend;
    size_t cap_pend;
    uint32_t *touched;
    size_t n_touched, cap_touched;
    int64_t pend_total;
    int64_t env_start, env_end;
    size_t kids; /* of its depth-1 spans remembered for the waiting rule, at most this many */
} lc_thread;

/* ledger_busy.c: adds the top-level interval [s, e) to b; returns the part of it that is new
 * (that busy time grows by). One that reaches back over the ring's intervals: */
int64_t wt__busy_add_slow(lc_busy *b, int64_t s, int64_t e);
/* ledger_busy.c: the k intervals iv[0..k) of a run of lone top-level spans, disjoint, in
 * order and after all of b's, of measure `sum`, into b. */
void wt__busy_add_run(lc_busy *b, const wt_ledger_iv *iv, size_t k, int64_t sum);

/* wt__busy_add_slow()'s common case inline: an interval at or after all of b's. */
static inline int64_t wt__busy_add(lc_busy *b, int64_t s, int64_t e)
{
    if (e <= s)
        return 0;
    const int64_t last_e =
        b->n ? b->iv[(b->head + b->n - 1) % LC_BUSY_RING].e : (b->old_ns ? b->old_e : INT64_MIN);
    if (WT_UNLIKELY(s < last_e))
        return wt__busy_add_slow(b, s, e);
    if (b->n == LC_BUSY_RING) { /* the oldest folds out */
        const wt_ledger_iv o = b->iv[b->head];
        if (b->old_ns == 0)
            b->old_s = o.s;
        b->old_ns = wt__sat_add_i64(b->old_ns, o.e - o.s);
        b->ring_ns -= o.e - o.s;
        b->old_e = o.e;
        b->head = (b->head + 1) % LC_BUSY_RING;
        b->n--;
    }
    b->iv[(b->head + b->n) % LC_BUSY_RING] = (wt_ledger_iv){ s, e };
    b->n++;
    b->ring_ns = wt__sat_add_i64(b->ring_ns, e - s);
    return e - s;
}

/* A recent top-level span, for the waiting rule (ledger_wait.c). */
typedef struct lc_top {
    int64_t s, e;
    uint64_t pid;
    uint32_t thread; /* index in threads */
    int kid;         /* a depth-1 span (a direct child of its thread's top-level span) */
} lc_top;

typedef struct lc_proc {
    uint64_t pid;
    const char *path;
    int64_t start, stop, end_ts, last_ts, first_ts, sync_wm;
    int have_start;
    wt_trace_end end;
    int signo, no_end, damaged;
    int64_t dropped, unclosed, late;
    wt_procname who; /* pid, and rank from the `rank` metadata */
    char name[WT_PROCNAME_MAX];
    int64_t *cat_self;
    size_t cap_cat;
    double *cat_seconds; /* result */
} lc_proc;

struct wt_ledger_calc {
    wt_ledger_opts opts;
    wt__strmap cat_map, thread_map, detail_map;
    lc_cat *cats;
    size_t n_cats, cap_cats;
    lc_thread *threads;
    size_t n_threads, cap_threads;
    lc_thread *last_t; /* the thread of the last event, or NULL (set again when threads grows) */
    lc_proc *procs, *cur;
    size_t n_procs, cap_procs;
    int cur_file, n_files_seen;
    wt__pair_slot pcache[WT_PAIR_CACHE]; /* (category, label) -> (cat, label index) */
    wt__pair_slot tcache[1u << LC_TCACHE_BITS]; /* (pid, tid) -> thread index */

    wt_ledger_cover cover; /* the union of every thread's top-level spans */
    lc_top *tops;          /* recent top-level spans: tops[0..n_sorted) by start, then the
                              ones that came out of order, sorted when asked (ledger_wait.c) */
    size_t n_tops, cap_tops, n_sorted;
    uint32_t tops_kids_of; /* the thread whose children every remembered span is, when they
                              all are one main thread's (UINT32_MAX: not so) */
    size_t tops_lazy;      /* its last tops_lazy spans are thread tops_lazy_of's children with
                              only s and e written (leaf_run()): wt__ledger_wait_fill() */
    uint32_t tops_lazy_of;
    lc_top *tops_tmp;      /* scratch of the same capacity, for sorting the tail */
    wt_ledger_cover wait_others, wait_kids; /* scratch of ledger_wait.c */
    int64_t forced_folds, late_spans;
    int64_t lost_trees, lost_ns; /* wt_ledger_result's lost_trees and lost_s */

    wt_ledger_miss *misses;
    size_t n_misses, cap_misses;
    int64_t n_misses_total;

    size_t n_label_keys; /* (category, label) pairs with a label of their own (bounded) */
    int64_t folded_cat_spans, folded_label_spans; /* spans counted in a fold key */
    size_t label_key_bytes;      /* of the labels with keys of their own (bounded) */
    /* once n_label_keys reached WT_MAX_LABEL_KEYS: every label of the categories' label maps,
     * so that a label in none of them folds without a look-up in each (textset.h) */
    wt__textset kept_labels;
    /* the category of the last span's key look-up, by its pointer (valid in the current file,
     * as the pointer cache): a run of new labels of one category resolves it once */
    const char *last_cat_name;
    uint32_t last_ci;
    int last_cat_folded, last_cat_ok;
    int64_t folded_thread_spans; /* spans counted in an "(other threads)" thread */

    int64_t events; /* other than spans (those are the categories' st.n, summed at finish) */
    int64_t dropped, unclosed, unclosed_ns, late;
    int nomem, finished;

    wt_ledger_result res;
    wt_ledger_cat *out_cats;
    size_t *cat_order; /* out_cats[k] is cats[cat_order[k]] */
    wt_ledger_thread *out_threads;
    wt_ledger_process *out_procs;
    char title[512];
};

/* Recent top-level spans kept for the waiting rule (ledger_wait.c). */
#define WT_LEDGER_MAX_TOPS 65536

/* ledger_wait.c: a top-level span [s, e) of thread t arrived: adds to t->waiting_ns the time
 * t spent in its self time while other threads' work inside it ran, and remembers it. A
 * depth-1 span is remembered with kid 1 (its parent's self time excludes it). 0 or WT_ENOMEM. */
int wt__ledger_wait_top(wt_ledger_calc *lc, lc_thread *t, int64_t s, int64_t e);
/* ledger_wait.c: room for one more remembered span (a lazy tail completed, the oldest half
 * forgotten at the bound, the arrays grown): 0 or WT_ENOMEM. */
int wt__ledger_wait_room(wt_ledger_calc *lc);
/* ledger_wait.c: completes the lazy tail of tops (its pid, thread and kid, and the sorted
 * prefix over it), as wt__ledger_wait_remember() would have left it. */
void wt__ledger_wait_fill(wt_ledger_calc *lc);
/* Remembers [s, e) of thread t for the rule (only what a main thread's span can ask for: other
 * threads' tops, its own children). Inline: the nested shape remembers 9 spans in 10. */
static inline int wt__ledger_wait_remember(wt_ledger_calc *lc, lc_thread *t, int64_t s,
                                           int64_t e, int kid)
{
    if ((t->tid == t->pid) != (kid != 0))
        return 0;
    /* wt__ledger_wait_room() completes a lazy tail first */
    if (WT_UNLIKELY(lc->n_tops == WT_LEDGER_MAX_TOPS || lc->n_tops == lc->cap_tops ||
                    lc->tops_lazy) &&
        wt__ledger_wait_room(lc) < 0)
        return WT_ENOMEM;
    /* spans arrive at their end: by start they are mostly in order, so mostly an append to
     * the sorted head; the others wait in the tail for ledger_wait.c's sort_tops() */
    if (lc->n_sorted == lc->n_tops && (lc->n_tops == 0 || lc->tops[lc->n_tops - 1].s <= s))
        lc->n_sorted++;
    const uint32_t ti = (uint32_t)(t - lc->threads);
    lc->tops_kids_of = kid && (lc->n_tops == 0 || lc->tops_kids_of == ti) ? ti : UINT32_MAX;
    lc->tops[lc->n_tops++] = (lc_top){ s, e, t->pid, ti, kid };
    t->kids += kid != 0;
    return 0;
}

#endif
