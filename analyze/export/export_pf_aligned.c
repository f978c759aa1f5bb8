/* The Perfetto sink's rounds aligned at t=0: besides each keep/skip round on its
 * configuration's track at its real time, every round again on a track of its own under the
 * top-level track "walltime: rounds at t=0", moved so that all rounds start at one common
 * origin (the earliest round's start), with its spans (the stages) moved by the same amount.
 * Stacked one under the other, the rounds of both configurations compare by eye.
 *
 * A round's spans arrive before the round (a round is written when it ends) and a round can
 * hold millions of spans, so nothing is held back: pass 1 only notes the rounds (at most
 * WT_EXPORT_MAX_ALIGNED, a few words each); the driver then reads the files a second time and
 * each span inside a noted round is written at once, moved, on a track per (round, thread,
 * depth) of its own — the same argument as for the real-time tracks (export_perfetto.h): spans
 * of one depth of one thread arrive in start order. Memory: the noted rounds and a few bytes
 * per aligned track, at most WT_EXPORT_MAX_ALIGNED_TRACKS of them.
 */
#include <stdlib.h>
#include <string.h>

#include "export_perfetto.h"

#define THREAD_RANK_KEY 0xFFu /* (round << 8 | this, tid): a thread's rank in the round + 1 */

int wt__pf_aligned_note(pf *p, int fi, const wt_event *ev, uint32_t cfg)
{
    pf_aligned *al = &p->al;
    if (al->n == WT_EXPORT_MAX_ALIGNED) {
        p->st.aligned_dropped++;
        return 0;
    }
    if (al->n == al->cap) {
        size_t nc = al->cap ? al->cap * 2 : 16;
        al_round *nr = realloc(al->r, nc * sizeof *nr);
        if (!nr)
            return WT_ENOMEM;
        al->r = nr;
        al->cap = nc;
    }
    al->r[al->n++] = (al_round){ .fi = fi, .cfg = cfg, .number = ev->count, .ts = ev->ts,
                                 .dur = ev->dur > 0 ? ev->dur : 0, .tid = ev->tid };
    return 0;
}

static int by_file_start(const void *a, const void *b)
{
    const al_round *x = a, *y = b;
    if (x->fi != y->fi)
        return x->fi < y->fi ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

/* The display order: by configuration (first seen first), then file, then round number. */
typedef struct shown {
    uint32_t cfg;
    int fi;
    int64_t number, ts;
    size_t index;
} shown;

static int by_display(const void *a, const void *b)
{
    const shown *x = a, *y = b;
    if (x->cfg != y->cfg)
        return x->cfg < y->cfg ? -1 : 1;
    if (x->fi != y->fi)
        return x->fi < y->fi ? -1 : 1;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

/* A named track whose children are shown in sibling_order_rank order. */
static int ordered_track(pf *p, uint64_t uuid, uint64_t parent, const char *name, int rank)
{
    Perfetto__Protos__TrackDescriptor td;
    perfetto__protos__track_descriptor__init(&td);
    td.has_uuid = 1;
    td.uuid = uuid;
    if (parent) {
        td.has_parent_uuid = 1;
        td.parent_uuid = parent;
    }
    td.static_or_dynamic_name_case = PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
    td.name = (char *)name;
    td.has_child_ordering = 1;
    td.child_ordering = PERFETTO__PROTOS__TRACK_DESCRIPTOR__CHILD_TRACKS_ORDERING__EXPLICIT;
    if (rank >= 0) {
        td.has_sibling_order_rank = 1;
        td.sibling_order_rank = rank;
    }
    return wt__pf_emit_track(p, &td);
}

/* The round's slice on its aligned track: at the origin, its real start as an annotation. */
static int round_slice(pf *p, const al_round *r)
{
    const char *cfg = p->names.v[r->cfg - 1].s;
    Perfetto__Protos__DebugAnnotation start, *anns[2];
    tev t;
    int rc;
    wt__pf_tev_init(p, &t, p->al.origin, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN,
                    r->uuid);
    if ((rc = wt__pf_tev_name(p, &t, cfg, "round")) < 0)
        return rc;
    wt__pf_ann_int(p, &t, AN_ROUND, r->number);
    /* one per round: not worth interning its name */
    perfetto__protos__debug_annotation__init(&start);
    start.name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME;
    start.name = "start_ns";
    start.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
    start.int_value = r->ts;
    anns[0] = t.te.debug_annotations[0];
    anns[1] = &start;
    t.te.n_debug_annotations = 2;
    t.te.debug_annotations = anns;
    if ((rc = wt__pf_emit(p, &t.pkt)) < 0)
        return rc;
    return wt__pf_end_slice(p, p->al.origin + r->dur, r->uuid);
}

int wt__pf_aligned_begin(void *self)
{
    pf *p = self;
    pf_aligned *al = &p->al;
    shown *order = NULL;
    int rc;
    if (!al->n)
        return 0;
    /* the reader of pass 1 is gone: its string pointers may come back as other strings */
    memset(p->names.cache, 0, sizeof p->names.cache);
    memset(p->cats.cache, 0, sizeof p->cats.cache);
    qsort(al->r, al->n, sizeof *al->r, by_file_start);
    if (!(al->file_first = calloc(p->n_files + 1, sizeof *al->file_first)) ||
        !(order = malloc(al->n * sizeof *order)))
        goto oom;
    al->origin = al->r[0].ts;
    for (size_t i = 0, f = 0; f <= p->n_files; f++) {
        while (i < al->n && (size_t)al->r[i].fi < f)
            i++;
        al->file_first[f] = i;
    }
    for (size_t i = 0; i < al->n; i++) {
        order[i] = (shown){ al->r[i].cfg, al->r[i].fi, al->r[i].number, al->r[i].ts, i };
        if (al->r[i].ts < al->origin)
            al->origin = al->r[i].ts;
    }
    qsort(order, al->n, sizeof *order, by_display);

    const uint64_t root = wt__pf_new_uuid(p);
    if ((rc = ordered_track(p, root, 0, "walltime: rounds at t=0", -1)) < 0)
        goto out;
    for (size_t k = 0; k < al->n; k++) {
        al_round *r = &al->r[order[k].index];
        char name[160];
        const char *cfg = p->names.v[r->cfg - 1].s;
        if (p->n_files > 1)
            snprintf(name, sizeof name, "%.100s #%lld (pid %llu)", cfg, (long long)r->number,
                     (unsigned long long)p->files[r->fi].pid);
        else
            snprintf(name, sizeof name, "%.100s #%lld", cfg, (long long)r->number);
        r->uuid = wt__pf_new_uuid(p);
        if ((rc = ordered_track(p, r->uuid, root, name, (int)k)) < 0 ||
            (rc = round_slice(p, r)) < 0)
            goto out;
        p->st.aligned_rounds++;
    }
    rc = 1;
    goto out;
oom:
    rc = WT_ENOMEM;
out:
    free(order);
    return rc;
}

int wt__pf_aligned_file(void *self, int fi)
{
    pf *p = self;
    /* a new reader: the pointer cache of the previous one no longer means anything */
    memset(p->names.cache, 0, sizeof p->names.cache);
    memset(p->cats.cache, 0, sizeof p->cats.cache);
    return 0;
}

/* ts + dur without signed overflow: a damaged trace may carry any values. */
static int64_t end_of(int64_t ts, int64_t dur)
{
    if (dur <= 0)
        return ts;
    return ts > INT64_MAX - dur ? INT64_MAX : ts + dur;
}

/* The noted round of file `fi` that holds [ts, end], or -1. Rounds of a process rarely overlap
 * (one thread runs them), so a few steps back from the binary search suffice. */
static long round_at(const pf_aligned *al, int fi, int64_t ts, int64_t end)
{
    size_t lo = al->file_first[fi], hi = al->file_first[fi + 1], first = lo;
    while (lo < hi) { /* the first round starting after ts */
        size_t mid = lo + (hi - lo) / 2;
        if (al->r[mid].ts <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, steps = 0; i > first && steps < 4; i--, steps++)
        if (end <= end_of(al->r[i - 1].ts, al->r[i - 1].dur))
            return (long)(i - 1);
    return -1;
}

/* The group of (round ri, tid, depth d), made on first use; NULL past the track cap. */
static int get_group(pf *p, size_t ri, uint64_t tid, unsigned d, al_group **out)
{
    pf_aligned *al = &p->al;
    const uint64_t key = (uint64_t)ri << 8;
    uint32_t v = wt__pf_kmap_get(&al->group_map, key | d, tid);
    int rc;
    *out = NULL;
    if (v) {
        *out = &al->groups[v - 1];
        return 0;
    }
    if (al->n_groups == WT_EXPORT_MAX_ALIGNED_TRACKS)
        return 0;
    if (al->n_groups == al->groups_cap) {
        size_t nc = al->groups_cap ? al->groups_cap * 2 : 64;
        al_group *ng = realloc(al->groups, nc * sizeof *ng);
        if (!ng)
            return WT_ENOMEM;
        al->groups = ng;
        al->groups_cap = nc;
    }
    al_round *r = &al->r[ri];
    uint32_t rank = wt__pf_kmap_get(&al->group_map, key | THREAD_RANK_KEY, tid);
    if (!rank) {
        rank = tid == r->tid ? 1 : ++r->n_threads + 1;
        if ((rc = wt__pf_kmap_put(&al->group_map, key | THREAD_RANK_KEY, tid, rank)) < 0)
            return rc;
    }
    al_group *g = &al->groups[al->n_groups];
    memset(g, 0, sizeof *g);
    g->thread_rank = rank - 1;
    if ((rc = wt__pf_kmap_put(&al->group_map, key | d, tid, (uint32_t)++al->n_groups)) < 0)
        return rc;
    *out = g;
    return 0;
}

int wt__pf_aligned_event(void *self, int fi, const wt_event *ev)
{
    pf *p = self;
    pf_aligned *al = &p->al;
    if (ev->kind != WT_EV_SPAN || fi < 0 || (size_t)fi >= p->n_files)
        return 0;
    const int64_t dur = ev->dur > 0 ? ev->dur : 0;
    long ri = round_at(al, fi, ev->ts, end_of(ev->ts, dur));
    if (ri < 0)
        return 0;
    const al_round *r = &al->r[ri];
    unsigned d = ev->depth < WT_EXPORT_MAX_DEPTH ? ev->depth : WT_EXPORT_MAX_DEPTH - 1;
    al_group *g;
    int rc = get_group(p, (size_t)ri, ev->tid, d, &g);
    if (rc < 0)
        return rc;
    if (!g) {
        p->st.aligned_dropped++;
        return 0;
    }
    const int64_t ts = al->origin + (ev->ts - r->ts); /* >= origin: the span is inside r */
    lane *l = NULL;
    for (unsigned i = 0; i < g->g.n && !l; i++)
        if (g->g.l[i].last_end <= ts)
            l = &g->g.l[i];
    if (!l && g->g.n == WT_EXPORT_MAX_LANES) {
        l = &g->g.l[g->g.n - 1]; /* counted as misplaced by the real-time pass already */
    } else if (!l) {
        char name[96];
        int n = g->thread_rank ? snprintf(name, sizeof name, "thread %llu depth %u",
                                          (unsigned long long)ev->tid, d)
                               : snprintf(name, sizeof name, "depth %u", d);
        if (g->g.n)
            snprintf(name + n, sizeof name - (size_t)n, " (overlap %u)", g->g.n);
        l = &g->g.l[g->g.n];
        l->uuid = wt__pf_new_uuid(p);
        const int rank = (int)(g->thread_rank * (WT_EXPORT_MAX_DEPTH * WT_EXPORT_MAX_LANES) +
                               d * WT_EXPORT_MAX_LANES + g->g.n);
        if ((rc = wt__pf_child_track(p, l->uuid, r->uuid, name, rank)) < 0)
            return rc;
        g->g.n++;
    }
    l->last_end = ts + dur;
    if ((rc = wt__pf_span_packets(p, ev, ts, l->uuid)) < 0)
        return rc;
    p->st.aligned_spans++;
    return 0;
}

void wt__pf_aligned_release(pf_aligned *al)
{
    free(al->r);
    free(al->file_first);
    free(al->groups);
    free(al->group_map.s);
}
