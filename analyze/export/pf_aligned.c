/* The Perfetto sink's rounds aligned at t=0 (pf_aligned.h has the design). */
#include <stdlib.h>
#include <string.h>

#include "pf_aligned.h"

#define THREAD_RANK_KEY 0xFFu /* (round << 8 | this, tid): a thread's rank in the round + 1 */

void wt__pf_aligned_init(pf_aligned *al, pf_writer *w)
{
    memset(al, 0, sizeof *al);
    al->w = w;
}

int wt__pf_aligned_note(pf_aligned *al, int fi, const wt_event *ev, uint32_t cfg)
{
    if (al->n == WT_EXPORT_MAX_ALIGNED) {
        al->dropped++;
        return 0;
    }
    if (al->n == al->cap) {
        size_t nc = al->cap ? al->cap * 2 : 16;
        pf_al_round *nr = realloc(al->r, nc * sizeof *nr);
        if (!nr)
            return WT_ENOMEM;
        al->r = nr;
        al->cap = nc;
    }
    al->r[al->n++] = (pf_al_round){ .fi = fi, .cfg = cfg, .number = ev->count, .ts = ev->ts,
                                 .dur = ev->dur > 0 ? ev->dur : 0, .tid = ev->tid };
    return 0;
}

static int by_file_start(const void *a, const void *b)
{
    const pf_al_round *x = a, *y = b;
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

/* The round's slice on its aligned track: at the origin, its real start as an annotation. */
static int round_slice(pf_aligned *al, const pf_al_round *r)
{
    pf_writer *w = al->w;
    const char *cfg = wt__pf_itab_str(&w->names, r->cfg);
    Perfetto__Protos__DebugAnnotation start, *anns[2];
    pf_tev t;
    int rc;
    wt__pfw_tev_init(w, &t, al->origin, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN,
                     r->uuid);
    if ((rc = wt__pfw_tev_name(w, &t, cfg, "round")) < 0)
        return rc;
    wt__pfw_ann_int(w, &t, AN_ROUND, r->number);
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
    if ((rc = wt__pfw_emit(w, &t.pkt)) < 0)
        return rc;
    return wt__pfw_end_slice(w, al->origin + r->dur, r->uuid);
}

int wt__pf_aligned_begin(pf_aligned *al, const uint64_t *pids, size_t n_files)
{
    pf_writer *w = al->w;
    shown *order = NULL;
    int rc;
    if (!al->n)
        return 0;
    /* the reader of pass 1 is gone: its string pointers may come back as other strings */
    wt__pf_itab_forget_pointers(&w->names);
    wt__pf_itab_forget_pointers(&w->cats);
    qsort(al->r, al->n, sizeof *al->r, by_file_start);
    al->n_files = n_files;
    if (!(al->file_first = calloc(n_files + 1, sizeof *al->file_first)) ||
        !(order = malloc(al->n * sizeof *order)))
        goto oom;
    al->origin = al->r[0].ts;
    for (size_t i = 0, f = 0; f <= n_files; f++) {
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

    const uint64_t root = wt__pfw_uuid(w);
    if ((rc = wt__pfw_track(w, root, 0, "walltime: rounds at t=0", -1, 1)) < 0)
        goto out;
    for (size_t k = 0; k < al->n; k++) {
        pf_al_round *r = &al->r[order[k].index];
        char name[160];
        const char *cfg = wt__pf_itab_str(&w->names, r->cfg);
        if (n_files > 1)
            snprintf(name, sizeof name, "%.100s #%lld (pid %llu)", cfg, (long long)r->number,
                     (unsigned long long)pids[r->fi]);
        else
            snprintf(name, sizeof name, "%.100s #%lld", cfg, (long long)r->number);
        r->uuid = wt__pfw_uuid(w);
        if ((rc = wt__pfw_track(w, r->uuid, root, name, (int)k, 1)) < 0 ||
            (rc = round_slice(al, r)) < 0)
            goto out;
        al->rounds++;
    }
    rc = 1;
    goto out;
oom:
    rc = WT_ENOMEM;
out:
    free(order);
    return rc;
}

int wt__pf_aligned_file(pf_aligned *al, int fi)
{
    /* a new reader: the pointer cache of the previous one no longer means anything */
    (void)fi;
    wt__pf_itab_forget_pointers(&al->w->names);
    wt__pf_itab_forget_pointers(&al->w->cats);
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
static int get_group(pf_aligned *al, size_t ri, uint64_t tid, unsigned d, pf_al_group **out)
{
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
        pf_al_group *ng = realloc(al->groups, nc * sizeof *ng);
        if (!ng)
            return WT_ENOMEM;
        al->groups = ng;
        al->groups_cap = nc;
    }
    pf_al_round *r = &al->r[ri];
    uint32_t rank = wt__pf_kmap_get(&al->group_map, key | THREAD_RANK_KEY, tid);
    if (!rank) {
        rank = tid == r->tid ? 1 : ++r->n_threads + 1;
        if ((rc = wt__pf_kmap_put(&al->group_map, key | THREAD_RANK_KEY, tid, rank)) < 0)
            return rc;
    }
    pf_al_group *g = &al->groups[al->n_groups];
    memset(g, 0, sizeof *g);
    g->thread_rank = rank - 1;
    if ((rc = wt__pf_kmap_put(&al->group_map, key | d, tid, (uint32_t)++al->n_groups)) < 0)
        return rc;
    *out = g;
    return 0;
}

int wt__pf_aligned_event(pf_aligned *al, int fi, const wt_event *ev)
{
    if (ev->kind != WT_EV_SPAN || fi < 0 || (size_t)fi >= al->n_files)
        return 0;
    pf_span s;
    wt__pf_span_of(&s, ev);
    long ri = round_at(al, fi, s.ts, s.end);
    if (ri < 0)
        return 0;
    const pf_al_round *r = &al->r[ri];
    unsigned d = ev->depth < WT_EXPORT_MAX_DEPTH ? ev->depth : WT_EXPORT_MAX_DEPTH - 1;
    pf_al_group *g;
    int rc = get_group(al, (size_t)ri, ev->tid, d, &g);
    if (rc < 0)
        return rc;
    if (!g) {
        al->dropped++;
        return 0;
    }
    const int64_t ts = al->origin + (s.ts - r->ts); /* >= origin: the span is inside r */
    char name[96];
    if (g->thread_rank)
        snprintf(name, sizeof name, "thread %llu depth %u", (unsigned long long)ev->tid, d);
    else
        snprintf(name, sizeof name, "depth %u", d);
    const int rank = (int)(g->thread_rank * (WT_EXPORT_MAX_DEPTH * PF_GROUP_LANES) +
                           d * PF_GROUP_LANES);
    pf_lane *l;
    if ((rc = wt__pf_group_pick(al->w, &g->g, ts, r->uuid, name, rank, &l, &al->misplaced)) < 0)
        return rc;
    l->last_end = ts + (s.end - s.ts);
    if ((rc = wt__pf_span_whole(al->w, &s, ts, l->uuid)) < 0)
        return rc;
    al->spans++;
    return 0;
}

void wt__pf_aligned_release(pf_aligned *al)
{
    free(al->r);
    free(al->file_first);
    free(al->groups);
    free(al->group_map.s);
}
