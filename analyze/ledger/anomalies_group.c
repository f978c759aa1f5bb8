/* What an anomaly analysis makes of its findings at finish: each line with the name of its
 * process, the groups by rule and category with their totals, the grouped lines people read,
 * and the CI gates. A 600-tensor cold load finds 600 CACHE MISS lines: as a group they are one
 * heading with the total avoidable seconds and the ten most costly (anomalies.h). */
#include "anomalies_int.h"
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cost_words[WT_AN_KIND_COUNT] = {
    [WT_AN_MISS] = "avoidable",
    [WT_AN_REPEAT_MISS] = "lost",
    [WT_AN_SLOW_HIT] = "over the median MISS",
    [WT_AN_OUTLIER] = "over the median",
    [WT_AN_BUDGET] = "over budget",
    [WT_AN_BASELINE] = "of growth",
};

const char *wt_anomaly_cost_words(wt_anomaly_kind k)
{
    return (unsigned)k < WT_AN_KIND_COUNT ? cost_words[k] : NULL;
}

long wt__an_group_add(wt_anomalies *a, wt_anomaly_kind k, const char *title,
                      const char *category, int64_t n, double cost)
{
    /* the key: the title (one per kind, but no-end has two), then the category */
    char buf[4200];
    int len = snprintf(buf, sizeof buf, "%s%s%s", title, category ? "\x1f" : "",
                       category ? category : "");
    if (len < 0 || (size_t)len >= sizeof buf)
        len = (int)sizeof buf - 1;
    uint32_t idx;
    int rc = wt__strmap_put(&a->group_map, buf, (size_t)len, (uint32_t)a->n_groups, &idx, NULL);
    if (rc < 0)
        return -1;
    if (rc == 1) {
        an_group *ng = wt__grow_array(a->groups, &a->cap_groups, a->n_groups + 1, sizeof *ng);
        if (!ng)
            return -1;
        a->groups = ng;
        an_group *g = &a->groups[a->n_groups];
        memset(g, 0, sizeof *g);
        g->g.kind = k;
        g->g.title = title;
        g->g.category = category;
        g->first = a->n_groups++;
    }
    a->groups[idx].g.count += n;
    a->groups[idx].g.cost += cost;
    return (long)idx;
}

/* Run-level rules are about no one process. */
static int names_process(wt_anomaly_kind k)
{
    return k != WT_AN_UNTRACKED && k != WT_AN_BUDGET && k != WT_AN_BASELINE;
}

/* Each file's name, "rank N (pid P)" or "pid P"; 1 when the run has several processes. */
static int name_files(wt_anomalies *a)
{
    int several = 0;
    for (size_t i = 0; i < a->n_files; i++) {
        an_file *f = &a->files[i];
        char buf[WT_PROCNAME_MAX];
        if (!(f->name = wt__an_intern(a, wt_procname_format(&f->who, buf, sizeof buf))))
            return -1;
        several |= f->pid != a->files[0].pid;
    }
    return several;
}

static const char *name_of_pid(const wt_anomalies *a, uint64_t pid)
{
    for (size_t i = 0; i < a->n_files; i++)
        if (a->files[i].pid == pid)
            return a->files[i].name;
    return NULL;
}

/* "TITLE[ in PROCESS]: body", replacing the body. */
static int compose_text(wt_anomaly *x, const char *process)
{
    const char *body = x->text;
    size_t n = strlen(x->title) + strlen(body) + (process ? strlen(process) + 4 : 0) + 3;
    char *t = malloc(n);
    if (!t)
        return -1;
    if (process)
        snprintf(t, n, "%s in %s: %s", x->title, process, body);
    else
        snprintf(t, n, "%s: %s", x->title, body);
    free((char *)body);
    x->text = t;
    x->process = process;
    return 0;
}

static int cmp_group(const void *x, const void *y)
{
    const an_group *a = x, *b = y;
    if (a->g.kind != b->g.kind)
        return a->g.kind < b->g.kind ? -1 : 1;
    if (a->g.cost != b->g.cost)
        return a->g.cost > b->g.cost ? -1 : 1;
    return (a->first > b->first) - (a->first < b->first);
}

/* Most costly first; then in time, then as found (the list's order). */
static int cmp_item(const void *x, const void *y)
{
    const wt_anomaly *a = *(const wt_anomaly *const *)x, *b = *(const wt_anomaly *const *)y;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    if (a->cost != b->cost)
        return a->cost > b->cost ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a > b) - (a < b);
}

int wt__an_compose(wt_anomalies *a)
{
    int several = name_files(a);
    if (several < 0)
        return WT_ENOMEM;
    size_t n = 0;
    for (int k = 0; k < WT_AN_KIND_COUNT; k++) {
        for (size_t i = 0; i < a->kinds[k].n; i++) {
            wt_anomaly *x = &a->kinds[k].v[i];
            const char *proc = several && names_process(x->kind) ? name_of_pid(a, x->pid) : NULL;
            if (compose_text(x, proc) < 0)
                return WT_ENOMEM;
        }
        n += a->kinds[k].n;
    }
    /* the groups in their order, and each anomaly's index in it */
    size_t *rank = malloc((a->n_groups ? a->n_groups : 1) * sizeof *rank);
    a->out = calloc(n ? n : 1, sizeof *a->out);
    a->items = malloc((n ? n : 1) * sizeof *a->items);
    a->out_groups = calloc(a->n_groups ? a->n_groups : 1, sizeof *a->out_groups);
    if (!rank || !a->out || !a->items || !a->out_groups) {
        free(rank);
        return WT_ENOMEM;
    }
    if (a->n_groups)
        qsort(a->groups, a->n_groups, sizeof *a->groups, cmp_group);
    for (size_t i = 0; i < a->n_groups; i++)
        rank[a->groups[i].first] = i;
    for (int k = 0; k < WT_AN_KIND_COUNT; k++) {
        for (size_t i = 0; i < a->kinds[k].n; i++) {
            wt_anomaly *x = &a->kinds[k].v[i];
            x->group = rank[x->group];
            a->out[a->n_out] = *x;
            a->items[a->n_out] = &a->out[a->n_out];
            a->n_out++;
        }
    }
    free(rank);
    if (n)
        qsort(a->items, n, sizeof *a->items, cmp_item);
    size_t at = 0;
    for (size_t g = 0; g < a->n_groups; g++) {
        wt_anomaly_group *og = &a->out_groups[g];
        *og = a->groups[g].g;
        og->items = a->items + at;
        while (at < n && a->items[at]->group == g)
            at++;
        og->n_items = (size_t)(a->items + at - og->items);
        og->ranked |= og->count == (int64_t)og->n_items; /* every member listed */
    }
    return 0;
}

const wt_anomaly_group *wt_anomalies_groups(const wt_anomalies *a, size_t *n)
{
    *n = a->out_groups ? a->n_groups : 0;
    return a->out_groups;
}

/* The words of the rules held to the min cost, for the line that counts those below it. */
static const char *const below_titles[WT_AN_KIND_COUNT] = {
    [WT_AN_SLOW_HIT] = "SLOW HIT",
    [WT_AN_OUTLIER] = "SLOW SPAN",
};

typedef struct line_buf {
    char **v;
    size_t n, cap;
    int failed;
} line_buf;

static void push(line_buf *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void push(line_buf *l, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **nv = l->failed ? NULL : wt__grow_array(l->v, &l->cap, l->n + 1, sizeof *nv);
    /* labels are the trace's bytes: a line of text gets U+FFFD for what is not UTF-8 */
    char safe[WT_TEXT_SAFE_MAX * 2];
    char *s = nv ? strdup(wt_text_safe(buf, safe, sizeof safe)) : NULL;
    if (!s) {
        l->failed = 1;
        return;
    }
    l->v = nv;
    l->v[l->n++] = s;
}

/* "600 CACHE MISS in weight_load, 41.2 s avoidable in all; the 10 most costly:" */
static void heading(line_buf *l, const wt_anomaly_group *g, size_t shown)
{
    char cost[96] = "", tail[64], b[WT_LEDGER_SECONDS_MAX];
    const char *words = wt_anomaly_cost_words(g->kind);
    if (words)
        snprintf(cost, sizeof cost, ", %s%s %s in all", g->cost_lower_bound ? "at least " : "",
                 AN_SECS(b, g->cost), words);
    if (shown == 0) /* every member came past its rule's list (a flood of another category) */
        snprintf(tail, sizeof tail, "; none listed (past the %d a rule lists)",
                 WT_ANOMALY_MAX_LIST);
    else if (g->count > (int64_t)g->n_items && !(g->ranked && shown <= WT_ANOMALY_TOP))
        /* the members past the list are not ranked */
        snprintf(tail, sizeof tail,
                 words ? "; the %zu most costly of the %zu listed:" : "; the first %zu of the %zu listed:",
                 shown, g->n_items);
    else
        snprintf(tail, sizeof tail, words ? "; the %zu most costly:" : "; the first %zu:", shown);
    push(l, "%lld %s%s%s%s%s", (long long)g->count, g->title,
         g->category ? " in " : "", g->category ? g->category : "", cost, tail);
}

/* "1611 SLOW HIT, 3 SLOW SPAN cost less than 12.3 ms each (the min cost): not shown" */
static void below_line(line_buf *l, const wt_anomalies *a)
{
    char buf[512] = "", b[WT_LEDGER_SECONDS_MAX];
    size_t at = 0;
    for (int k = 0; k < WT_AN_KIND_COUNT; k++)
        if (a->below[k] && below_titles[k] && at < sizeof buf)
            at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%lld %s", at ? ", " : "",
                                   (long long)a->below[k], below_titles[k]);
    if (at)
        push(l, "%s cost less than %s each (the min cost): not shown", buf,
             AN_SECS(b, a->min_cost));
}

int wt_anomalies_lines(const wt_anomalies *a, size_t top, char ***out, size_t *n)
{
    line_buf l = { NULL, 0, 0, 0 };
    size_t ng;
    const wt_anomaly_group *g = wt_anomalies_groups(a, &ng);
    for (size_t i = 0; i < ng; i++) {
        if (g[i].count == 1 && g[i].n_items == 1) {
            push(&l, "%s", g[i].items[0]->text);
            continue;
        }
        size_t shown = top && top < g[i].n_items ? top : g[i].n_items;
        heading(&l, &g[i], shown);
        for (size_t j = 0; j < shown; j++)
            push(&l, "  %s", g[i].items[j]->text);
    }
    below_line(&l, a);
    if (a->omitted)
        push(&l, "%lld more found but not listed (past the %d a rule lists)",
             (long long)a->omitted, WT_ANOMALY_MAX_LIST);
    if (l.failed) {
        wt_anomaly_lines_free(l.v, l.n);
        *out = NULL;
        *n = 0;
        return WT_ENOMEM;
    }
    *out = l.v;
    *n = l.n;
    return 0;
}

void wt_anomaly_lines_free(char **lines, size_t n)
{
    for (size_t i = 0; lines && i < n; i++)
        free(lines[i]);
    free(lines);
}

/* x > limit by more than half the resolution `res` (1 ns for seconds): a measure equal to its
 * limit as written does not fire on a rounding error (20.000000000000004 % > 20 %). */
static int over(double x, double limit, double res)
{
    return x - limit > res / 2;
}

int wt_anomalies_gate(const wt_anomalies *a, const wt_gate *g, double *value)
{
    double v = 0;
    int fired = 0;
    switch (g->measure) {
    case WT_GATE_COUNT:
        for (int k = 0; k < WT_AN_KIND_COUNT; k++)
            if (g->kind < 0 || g->kind == k)
                v += (double)a->counts[k];
        fired = v > g->limit;
        break;
    case WT_GATE_AVOIDABLE:
        v = a->avoidable;
        fired = over(v, g->limit, 1e-9);
        break;
    case WT_GATE_UNTRACKED_PCT:
        v = a->wall > 0 ? 100.0 * a->untracked / a->wall : 0.0;
        fired = over(v, g->limit, 1e-6);
        break;
    case WT_GATE_UNTRACKED_S:
        v = a->untracked;
        fired = over(v, g->limit, 1e-9);
        break;
    }
    if (value)
        *value = v;
    return fired;
}
