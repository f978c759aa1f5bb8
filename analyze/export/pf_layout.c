/* The Perfetto sink's span tracks: a track per thread, folded past the bound (pf_layout.h). */
#include <stdlib.h>
#include <string.h>

#include "pf_layout.h"

void wt__pf_layout_init(pf_layout *L, pf_writer *w)
{
    memset(L, 0, sizeof *L);
    L->w = w;
    L->nest.w = w;
}

static void thread_release(pf_thread *t)
{
    wt__pf_nest_release(&t->nest);
    wt__pf_lanes_release(&t->lanes);
}

void wt__pf_layout_release(pf_layout *L)
{
    for (size_t i = 0; i < L->n_th; i++)
        thread_release(&L->th[i]);
    for (size_t i = 0; i < L->n_fold; i++) {
        if (L->fold[i])
            thread_release(L->fold[i]);
        free(L->fold[i]);
    }
    free(L->th);
    free(L->fold);
    wt__pf_nest_ctx_release(&L->nest);
    wt__pf_kmap_release(&L->map);
    memset(L, 0, sizeof *L);
}

/* ---- tracks ---- */

static int thread_track(pf_layout *L, const pf_proc *pr, const pf_thread *t, const char *name)
{
    Perfetto__Protos__TrackDescriptor td;
    Perfetto__Protos__ThreadDescriptor thd;
    perfetto__protos__track_descriptor__init(&td);
    perfetto__protos__thread_descriptor__init(&thd);
    td.has_uuid = 1;
    td.uuid = t->uuid;
    td.has_child_ordering = 1;
    td.child_ordering = PERFETTO__PROTOS__TRACK_DESCRIPTOR__CHILD_TRACKS_ORDERING__EXPLICIT;
    thd.has_pid = thd.has_tid = 1;
    thd.pid = (int32_t)pr->pid;
    thd.tid = (int64_t)t->tid;
    thd.thread_name = (char *)wt__pfw_utf8(L->w, 9, name);
    td.thread = &thd;
    return wt__pfw_emit_track(L->w, &td);
}

static int fold_bucket(pf_layout *L, int fi, const pf_proc *pr, pf_thread **out)
{
    if ((size_t)fi >= L->n_fold) {
        pf_thread **nf = realloc(L->fold, (size_t)(fi + 1) * sizeof *nf);
        if (!nf)
            return WT_ENOMEM;
        memset(nf + L->n_fold, 0, ((size_t)fi + 1 - L->n_fold) * sizeof *nf);
        L->fold = nf;
        L->n_fold = (size_t)fi + 1;
    }
    if (!L->fold[fi]) {
        pf_thread *t = calloc(1, sizeof *t);
        if (!t)
            return WT_ENOMEM;
        L->fold[fi] = t;
        t->uuid = wt__pfw_uuid(L->w);
        t->nest.tree_end = INT64_MIN;
        t->fi = fi;
        t->folded = 1;
        char name[96];
        snprintf(name, sizeof name, "other threads (past %d)", WT_EXPORT_MAX_THREADS);
        int rc = wt__pfw_track(L->w, t->uuid, pr->uuid, name, -1, 1);
        if (rc < 0)
            return rc;
    }
    *out = L->fold[fi];
    return 0;
}

int wt__pf_layout_thread(pf_layout *L, int fi, const pf_proc *pr, uint64_t tid, pf_thread **out)
{
    if (L->last && L->th[L->last - 1].fi == fi && L->th[L->last - 1].tid == tid) {
        *out = &L->th[L->last - 1];
        return 0;
    }
    uint32_t v = wt__pf_kmap_get(&L->map, (uint64_t)fi, tid);
    if (v) {
        L->last = v;
        *out = &L->th[v - 1];
        return 0;
    }
    if (L->n_th == WT_EXPORT_MAX_THREADS) {
        /* a thread of its own costs ~150 bytes: hostile input could name millions */
        return fold_bucket(L, fi, pr, out);
    }
    if (L->n_th == L->cap_th) {
        size_t nc = L->cap_th ? L->cap_th * 2 : 16;
        if (nc > WT_EXPORT_MAX_THREADS)
            nc = WT_EXPORT_MAX_THREADS;
        pf_thread *nt = realloc(L->th, nc * sizeof *nt);
        if (!nt)
            return WT_ENOMEM;
        L->th = nt;
        L->cap_th = nc;
    }
    pf_thread *t = &L->th[L->n_th];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->fi = fi;
    t->uuid = wt__pfw_uuid(L->w);
    t->nest.tree_end = INT64_MIN;
    int rc = wt__pf_kmap_put(&L->map, (uint64_t)fi, tid, (uint32_t)(L->n_th + 1));
    if (rc < 0)
        return rc;
    L->last = ++L->n_th;
    char name[48];
    snprintf(name, sizeof name, "thread %llu", (unsigned long long)tid);
    *out = t;
    return thread_track(L, pr, t, name);
}

int wt__pf_layout_name(pf_layout *L, int fi, const pf_proc *pr, uint64_t tid, const char *name)
{
    pf_thread *t;
    int rc = wt__pf_layout_thread(L, fi, pr, tid, &t);
    if (rc < 0 || t->folded)
        return rc;
    return thread_track(L, pr, t, name ? name : "");
}

int wt__pf_layout_marks(pf_layout *L, int fi, const pf_proc *pr, uint64_t tid, uint64_t *uuid)
{
    pf_thread *t;
    int rc = wt__pf_layout_thread(L, fi, pr, tid, &t);
    if (rc < 0)
        return rc;
    if (!t->marks_uuid) {
        uint64_t u = wt__pfw_uuid(L->w);
        if ((rc = wt__pfw_track(L->w, u, t->uuid, "marks", 0, 0)) < 0)
            return rc;
        t->marks_uuid = u;
    }
    *uuid = t->marks_uuid;
    return 0;
}

int wt__pf_layout_span(pf_layout *L, int fi, const pf_proc *pr, const wt_event *ev)
{
    pf_thread *t;
    pf_span s;
    int rc = wt__pf_layout_thread(L, fi, pr, ev->tid, &t);
    if (rc < 0)
        return rc;
    wt__pf_span_of(&s, ev);
    L->spans++;
    if (t->folded) {
        L->spans_folded++;
        return wt__pf_lanes_put(L->w, &t->lanes, t->uuid, &s, &L->nest.lanes);
    }
    if (s.depth >= WT_EXPORT_MAX_DEPTH) {
        L->depth_clamped++;
        s.depth = WT_EXPORT_MAX_DEPTH - 1;
    }
    return wt__pf_nest_span(&L->nest, &t->nest, &t->lanes, t->uuid, &s);
}

int wt__pf_layout_file_end(pf_layout *L, int fi)
{
    int rc = 0;
    for (size_t i = 0; i < L->n_th && rc == 0; i++)
        if (L->th[i].fi == fi)
            rc = wt__pf_nest_flush(&L->nest, &L->th[i].nest, &L->th[i].lanes, L->th[i].uuid);
    L->last = 0;
    return rc;
}

void wt__pf_layout_stats(const pf_layout *L, pf_layout_stats *out)
{
    *out = (pf_layout_stats){ .spans = L->spans,
                              .lane_spans = L->nest.lanes.lane_spans,
                              .misplaced = L->nest.lanes.misplaced,
                              .early = L->nest.early,
                              .depth_clamped = L->depth_clamped,
                              .spans_folded = L->spans_folded };
}
