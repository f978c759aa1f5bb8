/* The MISSes past the list. The list holds the run's first WT_ANOMALY_MAX_LIST MISSes in trace
 * order, the ones the repeat rule reads; a run past it (a cold load of a 2,000-tensor model on
 * 8 ranks has 16,000) used to rank each category's "most costly" among those first ones
 * alone, and a category whose MISSes all came later (the last ranks' files) listed none.
 *
 * A MISS costs its duration over its key's median HIT, known only at finish; but within one key
 * the slower MISS always costs at least as much. So each key keeps its AN_LATE_KEEP slowest
 * MISSes past the list (a fold key WT_ANOMALY_TOP, late_cap()), and a category's
 * WT_ANOMALY_TOP most costly MISSes of the whole run are among its keys' listed ones and these
 * (ties aside) unless one key would have more than AN_LATE_KEEP of them: at finish that shows
 * (all a key kept are among its category's most costly, and it had more), and the group's
 * heading then says its most costly are of the listed ones. Each kept one is costed exactly; each category's WT_ANOMALY_TOP most costly are
 * listed, the rest counted into the category's group with their exact cost, and the MISSes no
 * key kept with the lower bound their total allows.
 *
 * Why AN_LATE_KEEP is 4, not WT_ANOMALY_TOP: on bench_analyze's labels16k trace (16,384 labels,
 * 1 M MISSes past the list, 61 a key) keeping 10 took `anomalies` from 0.96 to 1.06 s of CPU
 * (every MISS that enters the kept ones leaves the batch path: 28 a key) and peak RSS from 52
 * to 59 MiB (40 bytes a MISS kept, 6.5 MB at the 16,384-key bound; the target is 64 MiB). */
#include "anomalies_int.h"

#include <stdlib.h>
#include <string.h>

/* How many MISSes past the list key k keeps: a fold key, one per category at most and the
 * stand-in of every label past the bound (a model of unique tensor labels has all its MISSes
 * there), WT_ANOMALY_TOP, so that its category's ranking holds whatever it finds. */
static uint8_t late_cap(const an_key *k)
{
    return k->fold ? WT_ANOMALY_TOP : AN_LATE_KEEP;
}

static void late_floor(an_key *k)
{
    uint8_t lo = 0;
    for (uint8_t j = 1; j < k->n_late; j++)
        if (k->late[j].dur < k->late[lo].dur)
            lo = j;
    k->lo_late = lo;
    k->floor_late = k->late[lo].dur;
}

int wt__an_keep_late(wt_anomalies *a, an_key *k, int64_t ts, int64_t dur, uint64_t tid,
                     const char *own, const char *det)
{
    if (!k->late && !(k->late = calloc(late_cap(k), sizeof *k->late)))
        return WT_ENOMEM;
    /* a fold key's MISS names its own label (as a listed one does); any key's its detail */
    const char *label = k->fold && own ? own : "";
    const char *detail = det ? det : "";
    char *strs = NULL;
    if (*label || *detail) {
        const size_t nl = strlen(label), nd = strlen(detail);
        if (!(strs = malloc(nl + nd + 2)))
            return WT_ENOMEM;
        memcpy(strs, label, nl + 1);
        memcpy(strs + nl + 1, detail, nd + 1);
    }
    const an_late e = { ts, dur, tid, (uint32_t)(a->n_files - 1), 0, strs };
    if (k->n_late < late_cap(k)) {
        k->late[k->n_late++] = e;
        if (k->n_late == late_cap(k))
            late_floor(k);
        return 0;
    }
    free(k->late[k->lo_late].strs);
    k->late[k->lo_late] = e;
    late_floor(k);
    return 0;
}

void wt__an_late_release(an_key *k)
{
    for (uint8_t j = 0; j < k->n_late; j++)
        free(k->late[j].strs);
    free(k->late);
    k->late = NULL;
    k->n_late = 0;
}

/* A kept MISS in its category's running top: most costly first, then the earlier start, then
 * key order (a deterministic list). */
typedef struct late_pick {
    double cost;
    int64_t ts;
    uint32_t key;
    uint8_t j;
} late_pick;

static int before(const late_pick *x, const late_pick *y)
{
    if (x->cost != y->cost)
        return x->cost > y->cost;
    if (x->ts != y->ts)
        return x->ts < y->ts;
    return x->key < y->key || (x->key == y->key && x->j < y->j);
}

/* Into top[0..*n) (sorted, WT_ANOMALY_TOP at most) if it belongs there. */
static void pick(late_pick *top, uint8_t *n, late_pick c)
{
    size_t at = *n;
    if (at == WT_ANOMALY_TOP) {
        if (!before(&c, &top[at - 1]))
            return;
        at--;
    } else {
        (*n)++;
    }
    while (at > 0 && before(&c, &top[at - 1])) {
        top[at] = top[at - 1];
        at--;
    }
    top[at] = c;
}

/* Whether category c's picks top[0..n) may miss one of its most costly MISSes: a key that kept
 * fewer than WT_ANOMALY_TOP, all of them picked, and had more than it kept. */
static int picks_short(const wt_anomalies *a, const late_pick *top, uint8_t n)
{
    for (uint8_t i = 0; i < n; i++) {
        const an_key *k = &a->keys[top[i].key];
        uint8_t of_k = 0;
        for (uint8_t j = 0; j < n; j++)
            of_k += top[j].key == top[i].key;
        if (of_k == k->n_late && k->n_late < WT_ANOMALY_TOP &&
            k->misses.n - k->listed_n > k->n_late)
            return 1;
    }
    return 0;
}

/* Each category's most costly kept MISSes, listed past the cap (a bounded number: the count
 * and omitted totals took them when they came, and listing counts them again). */
static int list_picks(wt_anomalies *a, const late_pick *top, const uint8_t *n_top)
{
    for (size_t c = 0; c < a->n_cats; c++)
        for (uint8_t i = 0; i < n_top[c]; i++) {
            const late_pick *p = &top[c * WT_ANOMALY_TOP + i];
            an_key *k = &a->keys[p->key];
            an_late *e = &k->late[p->j];
            e->picked = 1;
            const char *own = e->strs ? e->strs : "";
            const char *det = e->strs ? e->strs + strlen(e->strs) + 1 : "";
            const char *label = k->fold ? wt__an_intern(a, own) : k->label;
            const char *detail = *det ? wt__an_intern(a, det) : NULL;
            if (!label || (*det && !detail))
                return WT_ENOMEM;
            const wt_anomaly where = { .pid = a->files[e->file].pid, .tid = e->tid,
                                       .ts = e->ts, .dur = e->dur };
            a->counts[WT_AN_MISS]--;
            a->omitted--;
            int rc = wt__an_report_miss(a, k, &where, label, detail, 1);
            if (rc < 0)
                return rc;
        }
    return 0;
}

/* Key k's MISSes past the list but not listed: the kept ones with their exact cost, the others
 * with the least their total allows (sum(max(0, s - med)) >= total - n * med). */
static int count_unlisted(wt_anomalies *a, an_key *k)
{
    if (k->misses.n == k->listed_n) /* none past the list */
        return 0;
    const int64_t n = k->misses.n - k->listed_n - k->n_late;
    double med;
    const char *of = wt__an_hit_median(a, k, &med);
    double late_s = 0, cost = 0;
    int64_t unpicked = 0;
    for (uint8_t j = 0; j < k->n_late; j++) {
        const double sec = (double)k->late[j].dur * NS;
        late_s += sec;
        if (k->late[j].picked)
            continue;
        unpicked++;
        cost += wt__an_miss_cost(sec, med, of);
    }
    if (n > 0) {
        const double total = k->misses.total - k->listed_s - late_s;
        const double rest = of ? total - (double)n * med : total;
        cost += rest > 0 ? rest : 0;
    }
    if (n + unpicked <= 0)
        return 0;
    a->avoidable += cost;
    long g = wt__an_group_add(a, WT_AN_MISS, "CACHE MISS", k->category, n + unpicked, cost);
    if (g < 0)
        return WT_ENOMEM;
    if (n > 0) {
        a->avoidable_lb = 1;
        a->groups[g].g.cost_lower_bound = 1;
    }
    return 0;
}

int wt__an_finish_late(wt_anomalies *a)
{
    if (a->late_failed)
        return WT_ENOMEM;
    const size_t nc = a->n_cats ? a->n_cats : 1;
    late_pick *top = calloc(nc * WT_ANOMALY_TOP, sizeof *top);
    uint8_t *n_top = calloc(nc, 1), *cat_short = calloc(nc, 1);
    int rc = top && n_top && cat_short ? 0 : WT_ENOMEM;
    for (size_t i = 0; i < a->n_keys && rc == 0; i++) {
        an_key *k = &a->keys[i];
        if (!k->n_late)
            continue;
        double med;
        const char *of = wt__an_hit_median(a, k, &med);
        for (uint8_t j = 0; j < k->n_late; j++) {
            const double sec = (double)k->late[j].dur * NS;
            const late_pick c = { wt__an_miss_cost(sec, med, of), k->late[j].ts, (uint32_t)i, j };
            pick(&top[(size_t)k->cat * WT_ANOMALY_TOP], &n_top[k->cat], c);
        }
    }
    for (size_t c = 0; c < a->n_cats && rc == 0; c++)
        cat_short[c] = (uint8_t)picks_short(a, &top[c * WT_ANOMALY_TOP], n_top[c]);
    if (rc == 0)
        rc = list_picks(a, top, n_top);
    for (size_t i = 0; i < a->n_keys && rc == 0; i++)
        rc = count_unlisted(a, &a->keys[i]);
    /* a CACHE MISS group's first members are its most costly of the whole run unless its
     * category's picks may be short */
    for (size_t g = 0; g < a->n_groups && rc == 0; g++) {
        an_group *gr = &a->groups[g];
        const char *c = gr->g.category ? gr->g.category : "";
        uint32_t ci;
        if (gr->g.kind == WT_AN_MISS)
            gr->g.ranked = !(wt__strmap_get(&a->cat_map, c, strlen(c), &ci) && cat_short[ci]);
    }
    free(top);
    free(n_top);
    free(cat_short);
    return rc;
}
