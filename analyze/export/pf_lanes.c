/* Lanes for slices that cannot nest (pf_lanes.h). */
#include <stdlib.h>
#include <string.h>

#include "pf_lanes.h"

int wt__pf_lanes_put(pf_writer *w, pf_lanes *t, uint64_t parent, const pf_span *s,
                     pf_lane_stats *st)
{
    pf_lane *l = NULL;
    int rc;
    for (uint32_t i = 0; i < t->n && !l; i++)
        if (t->l[i].last_end <= s->ts)
            l = &t->l[i];
    if (!l && t->n == WT_EXPORT_MAX_LANES) {
        l = &t->l[0];
        for (uint32_t i = 1; i < t->n; i++)
            if (t->l[i].last_end < l->last_end)
                l = &t->l[i];
        st->misplaced++;
    } else if (!l) {
        if (t->n == t->cap) {
            uint32_t nc = t->cap ? t->cap * 2 : 2;
            pf_lane *nl = realloc(t->l, nc * sizeof *nl);
            if (!nl)
                return WT_ENOMEM;
            t->l = nl;
            t->cap = nc;
        }
        l = &t->l[t->n];
        l->uuid = wt__pfw_uuid(w);
        l->last_end = INT64_MIN;
        char name[32];
        snprintf(name, sizeof name, "overlap %u", t->n + 1);
        if ((rc = wt__pfw_track(w, l->uuid, parent, name, (int)t->n + 1, 0)) < 0)
            return rc;
        t->n++;
    }
    if (s->end > l->last_end)
        l->last_end = s->end;
    st->lane_spans++;
    return wt__pf_span_whole(w, s, s->ts, l->uuid);
}

void wt__pf_lanes_release(pf_lanes *t)
{
    free(t->l);
    memset(t, 0, sizeof *t);
}

int wt__pf_group_pick(pf_writer *w, pf_lane_group *g, int64_t start, uint64_t parent,
                      const char *name, int rank, pf_lane **out, int64_t *misplaced)
{
    for (unsigned i = 0; i < g->n; i++) {
        if (g->l[i].last_end <= start) {
            *out = &g->l[i];
            return 0;
        }
    }
    if (g->n == PF_GROUP_LANES) {
        ++*misplaced;
        *out = &g->l[g->n - 1];
        return 0;
    }
    pf_lane *l = &g->l[g->n];
    char full[160];
    l->uuid = wt__pfw_uuid(w);
    l->last_end = INT64_MIN;
    if (g->n == 0)
        snprintf(full, sizeof full, "%s", name);
    else
        snprintf(full, sizeof full, "%.120s (overlap %u)", name, g->n);
    int rc = wt__pfw_track(w, l->uuid, parent, full, rank + (int)g->n, 0);
    if (rc < 0)
        return rc;
    g->n++;
    *out = l;
    return 0;
}
