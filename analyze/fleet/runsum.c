/* Per-category self and flat seconds of one run: see runsum.h. */
#include "runsum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftime.h"
#include "spanstat.h"
#include "walltime/error.h"
#include "walltime/ledger.h"

#define CACHE 64 /* category pointers (the reader's, stable within a file) -> index; 2^6 */
#define FAST 64  /* categories of index below this: inclusive time in rs_level (one bit each) */
#define NO_CAT UINT32_MAX /* what the nest is told of a span of a FAST category */
/* String ids with a slot in by_id (4 MiB at most); larger ones, which only a file of a
 * million strings has, are found by name each time */
#define ID_SLOTS (1u << 20)

/* One nesting level of a thread, for the span open at depth d - 1 (the parent of spans at d):
 * per FAST category the inclusive ns of its finished children's subtrees (bit set: present;
 * a category whose bit is clear has 0, so a value is added to without looking at the bit).
 * `v` is allocated when the level first gets a value, so a thread whose spans are deep but few
 * costs a word pair per level, not FAST words; it is kept for the runsum's life. */
typedef struct rs_level {
    uint64_t mask;
    int64_t *v; /* [FAST], or NULL */
} rs_level;

typedef struct rs_thread {
    uint64_t pid, tid;
    int64_t *cs;  /* [depth + 1]: the children's durations so far (selftime.h) */
    rs_level *lv; /* [depth + 1] */
    size_t cap, cap_lv; /* both grown to the deepest span + 2 */
    size_t vtop;        /* levels 1 .. vtop all have their v (found by leaf_top) */
    wt_ledger_nest nest; /* inclusive time of categories past FAST, as the ledger's */
} rs_thread;

typedef struct rs_cat {
    const char *name; /* the strmap's copy */
    int64_t self, flat, incl;
} rs_cat;

struct wt_runsum {
    wt__strmap names;
    rs_cat *cats;
    size_t n_cats, cap_cats;
    rs_thread *threads;
    size_t n_threads, cap_threads;
    wt__strmap thread_map; /* "pid/tid" -> index in threads */
    rs_thread *cur; /* the previous span's thread, or NULL */
    struct {
        const char *p;
        uint32_t idx;
    } cache[CACHE];
    /* batches: string id -> 1 + category index (uint32_t, 0 not known yet), for ids below
     * ID_SLOTS; emptied per file and when string_epoch changes */
    wt__idtab by_id;
    uint32_t other; /* 1 + index of WT_OTHER_CATEGORIES, 0 until needed */
    int nest_on;    /* the file has a category past FAST: every span goes to the nests too */
};

int wt_runsum_create(wt_runsum **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : WT_ENOMEM;
}

/* The nests' totals: categories past FAST only (NO_CAT and the FAST ones are counted here). */
static void add_incl(void *ctx, uint32_t cat, int64_t ns)
{
    wt_runsum *s = ctx;
    if (cat >= FAST && cat < s->n_cats)
        s->cats[cat].incl = wt__sat_add_i64(s->cats[cat].incl, ns);
}

static void drop_incl(void *ctx, uint32_t cat, int64_t ns) { (void)ctx, (void)cat, (void)ns; }

void wt_runsum_finish(wt_runsum *s)
{
    for (size_t i = 0; i < s->n_threads; i++)
        wt_ledger_nest_flush(&s->threads[i].nest, add_incl, s);
}

void wt_runsum_reset(wt_runsum *s)
{
    for (size_t i = 0; i < s->n_threads; i++) { /* empty again, its memory kept */
        rs_thread *t = &s->threads[i];
        wt_ledger_nest_flush(&t->nest, drop_incl, NULL);
        memset(t->cs, 0, t->cap * sizeof *t->cs);
        for (size_t d = 0; d < t->cap_lv; d++) {
            for (uint64_t m = t->lv[d].mask; m; m &= m - 1)
                t->lv[d].v[__builtin_ctzll(m)] = 0;
            t->lv[d].mask = 0;
        }
    }
    wt__strmap_release(&s->names);
    memset(&s->names, 0, sizeof s->names);
    wt__strmap_release(&s->thread_map);
    memset(&s->thread_map, 0, sizeof s->thread_map);
    s->n_cats = 0;
    s->n_threads = 0; /* their arrays stay for the next file's threads */
    s->cur = NULL;
    memset(s->cache, 0, sizeof s->cache);
    s->other = 0;
    s->nest_on = 0;
    wt__idtab_forget(&s->by_id, sizeof(uint32_t));
    s->by_id.epoch = 0;
}

static int new_cat(wt_runsum *s, const char *name, uint32_t *idx)
{
    uint32_t v;
    const char *kept;
    int rc = wt__strmap_put(&s->names, name, strlen(name), (uint32_t)s->n_cats, &v, &kept);
    if (rc < 0)
        return rc;
    if (v == s->n_cats) { /* new */
        rs_cat *nc = wt__grow_array(s->cats, &s->cap_cats, s->n_cats + 1, sizeof *nc);
        if (!nc)
            return WT_ENOMEM;
        s->cats = nc;
        s->cats[s->n_cats++] = (rs_cat){ kept, 0, 0, 0 };
    }
    *idx = v;
    return 0;
}

static int cat_of(wt_runsum *s, const char *name, uint32_t *idx)
{
    if (!name)
        name = "";
    /* Fibonacci hashing: the reader packs strings byte to byte, so low bits collide */
    const size_t h = (size_t)(((uint64_t)(uintptr_t)name * 0x9E3779B97F4A7C15ULL) >> 58);
    if (s->cache[h].p == name) {
        *idx = s->cache[h].idx;
        return 0;
    }
    int rc;
    if (wt__strmap_get(&s->names, name, strlen(name), idx) != 1) {
        if (s->n_cats >= WT_MAX_CATEGORIES) { /* the ledger's fold */
            if (!s->other && (rc = new_cat(s, WT_OTHER_CATEGORIES, idx)) < 0)
                return rc;
            if (!s->other)
                s->other = *idx + 1;
            *idx = s->other - 1;
            return 0; /* not cached: the slot is for names of their own */
        }
        if ((rc = new_cat(s, name, idx)) < 0)
            return rc;
    }
    s->cache[h].p = name;
    s->cache[h].idx = *idx;
    return 0;
}

/* The thread of the previous span again (most spans), else found in the map or added; past
 * WT_MAX_THREADS a new thread's spans go to its process's "(other threads)" thread, as the
 * ledger folds them (spanstat.h), so a hostile file of a million threads costs a map lookup
 * per thread switch and bounded memory. NULL when out of memory. */
static rs_thread *thread_of(wt_runsum *s, uint64_t pid, uint64_t tid)
{
    if (s->cur && s->cur->tid == tid && s->cur->pid == pid)
        return s->cur;
    char key[48];
    int n = snprintf(key, sizeof key, "%llu/%llu", (unsigned long long)pid, (unsigned long long)tid);
    uint32_t idx;
    if (wt__strmap_get(&s->thread_map, key, (size_t)n, &idx) == 1)
        return s->cur = &s->threads[idx];
    uint64_t kept_tid = tid;
    if (s->n_threads >= WT_MAX_THREADS) {
        kept_tid = WT_OTHER_TID;
        n = snprintf(key, sizeof key, "%llu/%llu", (unsigned long long)pid,
                     (unsigned long long)kept_tid);
    }
    const int rc = wt__strmap_put(&s->thread_map, key, (size_t)n, (uint32_t)s->n_threads, &idx, NULL);
    if (rc < 0)
        return NULL;
    if (rc == 1) {
        rs_thread *nt = wt__grow_array(s->threads, &s->cap_threads, s->n_threads + 1, sizeof *nt);
        if (!nt)
            return NULL;
        s->threads = nt;
        rs_thread *t = &s->threads[s->n_threads++];
        t->pid = pid; /* lv and cap kept from an earlier file (emptied) */
        t->tid = kept_tid;
    }
    return s->cur = &s->threads[idx];
}

/* Inclusive time of a FAST category, the ledger's rule (wt_ledger_nest_span, walltime/ledger.h)
 * counted as it goes: every span adds its duration, and a span of category c takes back what
 * its children's subtrees had counted of c (it covers them whole); the level of its parent
 * collects what its subtree counts per category, for the parent to do the same. A tree's
 * total so is the ledger's (each outermost span of c once) whenever its root comes, and a cut
 * file's orphans count as the ledger's flush counts them. */
/* A span at depth d takes its children's level: what their subtrees counted of its own
 * category (`bit`, 0 for a category past FAST, which has none) comes off its duration
 * (returned: what it adds to that category's inclusive time), their other categories go up to
 * its parent's level (none at the top), and the children's level is empty again. Out of line:
 * a leaf, most spans, has no children. */
__attribute__((noinline)) static int64_t take_kids(rs_level *kids, rs_level *here, uint32_t d,
                                                   uint64_t bit, int64_t dur)
{
    int64_t add = dur;
    uint64_t m = kids->mask;
    if (m & bit) {
        const unsigned c = (unsigned)__builtin_ctzll(bit);
        add -= kids->v[c];
        kids->v[c] = 0;
    }
    for (m &= ~bit; m; m &= m - 1) {
        const unsigned x = (unsigned)__builtin_ctzll(m);
        if (d > 0)
            here->v[x] = wt__sat_add_i64(here->v[x], kids->v[x]);
        kids->v[x] = 0;
    }
    if (d > 0)
        here->mask |= kids->mask & ~bit;
    kids->mask = 0;
    return add;
}

/* Gives level `l` its FAST words (zeroed) when it has none: 0 or WT_ENOMEM. */
static inline int level_words(rs_level *l)
{
    return l->v || (l->v = calloc(FAST, sizeof *l->v)) ? 0 : WT_ENOMEM;
}

static inline __attribute__((always_inline)) int incl_fast(wt_runsum *s, rs_level *lv, uint32_t d,
                                                           uint32_t c, int64_t dur)
{
    rs_cat *cat = &s->cats[c];
    rs_level *kids = &lv[d + 1], *here = &lv[d];
    const uint64_t bit = (uint64_t)1 << c;
    if (d > 0 && level_words(here) < 0)
        return WT_ENOMEM;
    const int64_t add = kids->mask ? take_kids(kids, here, d, bit, dur) : dur;
    cat->incl = wt__sat_add_i64(cat->incl, add);
    if (d > 0) {
        /* v[c] is 0 when the bit is clear: this form costs the per-event path less */
        here->v[c] = here->mask & bit ? wt__sat_add_i64(here->v[c], dur) : dur;
        here->mask |= bit;
    }
    return 0;
}

/* One span of category ci on thread t. 0 or WT_ENOMEM. `dur_ok` (a constant): dur_in is known
 * to be >= 0 (a batch's, reader.h), so it needs no clamp. */
static inline __attribute__((always_inline)) int add_span(wt_runsum *s, rs_thread *t, uint32_t ci,
                                                          uint32_t depth, int64_t dur_in,
                                                          const int dur_ok)
{
    int rc;
    const uint32_t d = wt__self_depth(depth);
    if (WT_UNLIKELY((size_t)d + 2 > t->cap)) {
        int64_t *ncs = wt__grow_array(t->cs, &t->cap, (size_t)d + 2, sizeof *ncs);
        if (ncs)
            t->cs = ncs;
        rs_level *nl = ncs ? wt__grow_array(t->lv, &t->cap_lv, (size_t)d + 2, sizeof *nl) : NULL;
        if (!nl)
            return WT_ENOMEM;
        t->lv = nl;
    }
    const int64_t dur = dur_ok || dur_in > 0 ? dur_in : 0;
    rs_cat *c = &s->cats[ci];
    c->self = wt__sat_add_i64(c->self, wt__self_time(t->cs, d, dur));
    c->flat = wt__sat_add_i64(c->flat, dur);
    if (ci < FAST) {
        if ((rc = incl_fast(s, t->lv, d, ci, dur)) < 0)
            return rc;
    } else {
        s->nest_on = 1; /* from here on the nests see every span: no such category came before */
        /* its children's sums of FAST categories go up to its parent's level, as through any
         * span of another category: left at their level, the next span at this depth would
         * take them as its own children's */
        rs_level *kids = &t->lv[d + 1], *here = &t->lv[d];
        if (kids->mask) {
            if (d > 0 && level_words(here) < 0)
                return WT_ENOMEM;
            take_kids(kids, here, d, 0, dur);
        }
    }
    if (s->nest_on)
        return wt_ledger_nest_span(&t->nest, depth, ci < FAST ? NO_CAT : ci, dur, add_incl, s);
    return 0;
}

/* wt__sat_add_i64(a, dur) for dur >= 0: only an overflow upwards can happen. */
static inline int64_t add_dur(int64_t a, int64_t dur)
{
    int64_t r;
    return __builtin_add_overflow(a, dur, &r) ? INT64_MAX : r;
}

/* A leaf (most spans: it has no children) of FAST category ci at depth d, the nests off:
 * add_span()'s work shortened by what a leaf implies. Its children's level has no category bit,
 * so (the nests off: every span so far of a FAST category, each setting its bit at its level
 * > 0) it had no children and their duration sum cs[d + 1] is 0: its self time is its
 * duration, its inclusive time too (nothing to take back, nothing to carry up), and below the
 * top it adds to its parent's sums as add_span() adds. The caller checked that the arrays hold
 * depth d + 1, that d is not clamped (wt__self_depth) and, d > 0, that lv[d] has its v.
 * leaf_sums() is its own sums; leaf_parent() the rest below the top. */
static inline __attribute__((always_inline)) void leaf_sums(rs_cat *c, int64_t dur)
{
    c->self = add_dur(c->self, dur);
    c->flat = add_dur(c->flat, dur);
    c->incl = add_dur(c->incl, dur);
}

/* The rest of a leaf's work below the top (at the top, cs[0] stays 0 and there is no parent's
 * level): its parent's children's sum and its level. */
static inline __attribute__((always_inline)) void leaf_parent(int64_t *cs, rs_level *lv,
                                                              uint32_t d, uint32_t ci,
                                                              int64_t dur)
{
    rs_level *here = &lv[d];
    cs[d] = add_dur(cs[d], dur);
    here->v[ci] = add_dur(here->v[ci], dur);
    here->mask |= (uint64_t)1 << ci;
}

int wt_runsum_span(wt_runsum *s, const wt_event *restrict ev)
{
    uint32_t ci;
    int rc = cat_of(s, ev->category, &ci);
    if (rc < 0)
        return rc;
    rs_thread *t = s->cur; /* the previous span's thread, checked without a call */
    if (!t || t->tid != ev->tid || t->pid != ev->pid)
        t = thread_of(s, ev->pid, ev->tid);
    if (!t)
        return WT_ENOMEM;
    const uint32_t d = ev->depth;
    /* a leaf at the top, or below it at a level known to have its v (leaf_top) */
    if (ci < FAST && !s->nest_on && d < WT_SELF_MAX_DEPTH && d + 1 < t->cap &&
        d + 1 < t->cap_lv && d <= t->vtop && t->lv[d + 1].mask == 0) {
        const int64_t dur = ev->dur > 0 ? ev->dur : 0;
        leaf_sums(&s->cats[ci], dur);
        if (d > 0)
            leaf_parent(t->cs, t->lv, d, ci, dur);
        return 0;
    }
    return add_span(s, t, ci, d, ev->dur, 0);
}

/* The category index of string id `id` of the batch's reader, not in by_id yet: by its name,
 * as cat_of() finds it, then kept in by_id when the id is within ID_SLOTS. */
__attribute__((noinline)) static int cat_of_id_slow(wt_runsum *s, const wt_span_batch *b,
                                                    uint32_t id, uint32_t *idx)
{
    int rc = cat_of(s, wt_reader_string(b->reader, id), idx);
    if (rc < 0 || id >= ID_SLOTS)
        return rc;
    uint32_t *e = wt__idtab_room(&s->by_id, id, sizeof *e, ID_SLOTS);
    if (!e)
        return WT_ENOMEM;
    *e = *idx + 1;
    return 0;
}

/* A batch's span by the general rule: its category found (by name when by_id has no slot for
 * its id), then add_span(). Out of line, so that wt_runsum_spans()'s loop keeps its locals in
 * registers. 0 or WT_ENOMEM. */
__attribute__((noinline)) static int batch_span(wt_runsum *s, rs_thread *t, const wt_span_batch *b,
                                                const wt_span_rec *sp)
{
    uint32_t ci;
    const uint32_t id = sp->category;
    if (id < s->by_id.used && ((const uint32_t *)s->by_id.v)[id]) {
        ci = ((const uint32_t *)s->by_id.v)[id] - 1;
    } else {
        const int rc = cat_of_id_slow(s, b, id, &ci);
        if (rc < 0)
            return rc;
    }
    return add_span(s, t, ci, sp->depth, sp->dur, 1);
}

/* The depths below the top a leaf of thread t takes the short way at in wt_runsum_spans():
 * 1 .. the result, where the thread's arrays hold the depth below (its children's level), the
 * depth is not clamped (wt__self_depth) and its level has its v. 0 while the nests are on:
 * every span then goes to them too. */
static size_t leaf_top(const wt_runsum *s, rs_thread *t)
{
    if (s->nest_on || !t->lv)
        return 0;
    while (t->vtop + 1 < t->cap_lv && t->lv[t->vtop + 1].v)
        t->vtop++; /* levels get their v once and keep it: vtop only grows */
    size_t top = t->cap < t->cap_lv ? t->cap : t->cap_lv;
    top -= 2; /* the arrays hold top + 2 levels (8 at least, wt__grow_array) */
    if (top > WT_SELF_MAX_DEPTH - 1)
        top = WT_SELF_MAX_DEPTH - 1;
    return top < t->vtop ? top : t->vtop;
}

int wt_runsum_spans(wt_runsum *s, const wt_span_batch *b)
{
    if (b->n == 0)
        return 0;
    wt__idtab_epoch(&s->by_id, sizeof(uint32_t), b->string_epoch);
    /* the previous batch's thread, checked here: with a counter after each span, every
     * batch is one span and thread_of()'s call would cost as much as the span */
    rs_thread *t = s->cur;
    if (!t || t->tid != b->tid || t->pid != b->pid)
        t = thread_of(s, b->pid, b->tid);
    if (!t)
        return WT_ENOMEM;
    if (b->n == 1) /* a counter after each span: no loop worth its locals */
        return batch_span(s, t, b, b->spans);
    /* In locals, reloaded after every batch_span() (which may grow them or turn the nests on):
     * the sums' stores might alias them for the compiler, which would reload each per span. */
    const uint32_t *by_id = s->by_id.v;
    size_t used = s->by_id.used, top = leaf_top(s, t); /* one bound: more would spill values */
    rs_cat *cats = s->cats;
    int64_t *cs = t->cs;
    rs_level *lv = t->lv;
    for (const wt_span_rec *sp = b->spans, *end = sp + b->n; sp < end; sp++) {
        const uint32_t id = sp->category, d = sp->depth;
        const uint32_t ci = id < used ? by_id[id] - 1 : UINT32_MAX; /* by_id: 0 unknown yet */
        /* a leaf below the top (1 <= d <= top), then one at the top (its own test: the first
         * costs fewer instructions without a test of d inside; the second reads what it needs
         * from memory, so the loop keeps no register for it) */
        if (ci < FAST && d - 1 < top && lv[d + 1].mask == 0) {
            leaf_sums(&cats[ci], sp->dur); /* >= 0 (a batch's) */
            leaf_parent(cs, lv, d, ci, sp->dur);
            continue;
        }
        if (d == 0 && ci < FAST && lv && !s->nest_on && lv[1].mask == 0) {
            leaf_sums(&cats[ci], sp->dur); /* lv: 8 levels at least (wt__grow_array) */
            continue;
        }
        const int rc = batch_span(s, t, b, sp);
        if (rc < 0)
            return rc;
        by_id = s->by_id.v;
        used = s->by_id.used;
        cats = s->cats;
        cs = t->cs;
        lv = t->lv;
        top = leaf_top(s, t);
    }
    return 0;
}

size_t wt_runsum_count(const wt_runsum *s) { return s->n_cats; }
const char *wt_runsum_name(const wt_runsum *s, size_t i) { return s->cats[i].name; }
int64_t wt_runsum_self_ns(const wt_runsum *s, size_t i) { return s->cats[i].self; }
int64_t wt_runsum_flat_ns(const wt_runsum *s, size_t i) { return s->cats[i].flat; }
int64_t wt_runsum_incl_ns(const wt_runsum *s, size_t i) { return s->cats[i].incl; }

void wt_runsum_free(wt_runsum *s)
{
    if (!s)
        return;
    wt__strmap_release(&s->names);
    wt__strmap_release(&s->thread_map);
    for (size_t i = 0; i < s->cap_threads; i++) {
        free(s->threads[i].cs);
        for (size_t d = 0; d < s->threads[i].cap_lv; d++)
            free(s->threads[i].lv[d].v);
        free(s->threads[i].lv);
        wt_ledger_nest_release(&s->threads[i].nest);
    }
    free(s->threads);
    free(s->cats);
    free(s->by_id.v);
    free(s);
}
