/* Per-category self and flat seconds of one run: see runsum.h. */
#include "runsum.h"

#include <stdlib.h>
#include <string.h>

#include "selftime.h"
#include "spanstat.h"
#include "walltime/error.h"
#include "walltime/ledger.h"

#define CACHE 64 /* category pointers (the reader's, stable within a file) -> index; 2^6 */

typedef struct rs_thread {
    uint64_t pid, tid;
    int64_t *cs;
    size_t cap;
    wt_ledger_nest nest; /* inclusive time, as the ledger's */
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
    size_t n_threads, cap_threads, last;
    struct {
        const char *p;
        uint32_t idx;
    } cache[CACHE];
    uint32_t other; /* 1 + index of WT_OTHER_CATEGORIES, 0 until needed */
};

int wt_runsum_create(wt_runsum **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : WT_ENOMEM;
}

static void add_incl(void *ctx, uint32_t cat, int64_t ns)
{
    wt_runsum *s = ctx;
    if (cat < s->n_cats)
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
    for (size_t i = 0; i < s->n_threads; i++) /* empty again, its memory kept */
        wt_ledger_nest_flush(&s->threads[i].nest, drop_incl, NULL);
    wt__strmap_release(&s->names);
    memset(&s->names, 0, sizeof s->names);
    s->n_cats = 0;
    for (size_t i = 0; i < s->n_threads; i++)
        memset(s->threads[i].cs, 0, s->threads[i].cap * sizeof *s->threads[i].cs);
    s->n_threads = 0; /* their arrays stay for the next file's threads */
    s->last = 0;
    memset(s->cache, 0, sizeof s->cache);
    s->other = 0;
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

static rs_thread *thread_of(wt_runsum *s, uint64_t pid, uint64_t tid)
{
    if (s->last < s->n_threads && s->threads[s->last].tid == tid && s->threads[s->last].pid == pid)
        return &s->threads[s->last];
    for (size_t i = 0; i < s->n_threads; i++)
        if (s->threads[i].tid == tid && s->threads[i].pid == pid) {
            s->last = i;
            return &s->threads[i];
        }
    rs_thread *nt = wt__grow_array(s->threads, &s->cap_threads, s->n_threads + 1, sizeof *nt);
    if (!nt)
        return NULL;
    s->threads = nt;
    s->last = s->n_threads++;
    rs_thread *t = &s->threads[s->last];
    t->pid = pid; /* cs and cap kept from an earlier file (zeroed) */
    t->tid = tid;
    return t;
}

int wt_runsum_span(wt_runsum *s, const wt_event *ev)
{
    uint32_t ci;
    int rc = cat_of(s, ev->category, &ci);
    if (rc < 0)
        return rc;
    rs_thread *t = thread_of(s, ev->pid, ev->tid);
    if (!t)
        return WT_ENOMEM;
    const uint32_t d = wt__self_depth(ev->depth);
    if ((size_t)d + 2 > t->cap) {
        int64_t *ncs = wt__grow_array(t->cs, &t->cap, (size_t)d + 2, sizeof *ncs);
        if (!ncs)
            return WT_ENOMEM;
        t->cs = ncs;
    }
    const int64_t dur = ev->dur > 0 ? ev->dur : 0;
    rs_cat *c = &s->cats[ci];
    c->self = wt__sat_add_i64(c->self, wt__self_time(t->cs, d, dur));
    c->flat = wt__sat_add_i64(c->flat, dur);
    return wt_ledger_nest_span(&t->nest, ev->depth, ci, dur, add_incl, s);
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
    for (size_t i = 0; i < s->cap_threads; i++) {
        free(s->threads[i].cs);
        wt_ledger_nest_release(&s->threads[i].nest);
    }
    free(s->threads);
    free(s->cats);
    free(s);
}
