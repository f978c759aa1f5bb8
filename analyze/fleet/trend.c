/* Trends over many runs: see trend.h. */
#include "trend.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extsort.h"
#include "inputs.h"
#include "json.h"
#include "runsum.h"
#include "spanstat.h"
#include "table.h"

/* ---- one run, computed by a worker in one open of its file ---- */

typedef struct run_cat {
    const char *name; /* the trend's copy (names) */
    double self_s, incl_s, flat_s;
} run_cat;

/* A run's summary as its pass makes it and as the series read it: its path, header fields, its
 * group and its seconds per category. Category names are the trend's interned copies (names), so a
 * thousand runs of one category hold its name once; host and group are the pass's own strings,
 * then the spill record's (a fleet may give every run a host of its own: a container's name);
 * the path is the worker's buffer, then the spill record's. Between the two it waits in the
 * spill file (a spill_head, its host, group and path, then its run_cats), not in memory. */
typedef struct run_sum {
    const char *path;
    int ok;                /* the header was read: start, run id and host are known */
    int skipped;           /* damaged or unreadable: named on stderr, not in the series */
    int64_t start_utc_ns;
    char run_id[33];
    const char *host, *group;
    run_cat *cats;
    size_t n_cats;
} run_sum;

/* What orders a run and finds its summary (24 bytes): the record the external sort
 * (extsort.h) orders by start, in memory up to a chunk of them, else in its temporary files. */
typedef struct run_ref {
    int64_t start_utc_ns;
    int64_t spill_at;      /* its spill record's offset; -1 none (skipped) */
    int32_t order;         /* its place in the order given (its path's): ties of start keep it */
    unsigned char ok;      /* the header was read */
    unsigned char skipped; /* damaged or unreadable: named on stderr, not in the series */
} run_ref;

/* A spill record's head; its host, group and path (their bytes, no NUL) and its n_cats
 * run_cats follow. The run_cats' pointers are the trend's interned strings: the file is this process's
 * own, unlinked, read back by it. */
typedef struct spill_head {
    char run_id[33];
    uint32_t host_len, group_len, path_len;
    uint64_t n_cats;
} spill_head;

/* A worker's pass over one file: the header (file_begin), the spans into the runsum, the
 * --group metadata. Its strings are its own until interned at the end of the pass. */
typedef struct run_ctx {
    const wt_trend_opts *o;
    run_sum *r;
    wt_runsum *rs;
    char *values[WT_TREND_MAX_KEYS]; /* the --group metadata values, or NULL */
    char *host, *command;
    int ranked;                      /* the run carries the metadata `rank` */
} run_ctx;

static void run_ctx_clear(run_ctx *m)
{
    for (int i = 0; i < WT_TREND_MAX_KEYS; i++)
        free(m->values[i]);
    free(m->host);
    free(m->command);
    memset(m->values, 0, sizeof m->values);
    m->host = m->command = NULL;
    m->ranked = 0;
}

static int run_begin(void *ctx, int fi, const char *path, const wt_trace_info *in)
{
    (void)fi, (void)path;
    run_ctx *m = ctx;
    const int64_t start = in->process_start_ns ? in->process_start_ns : in->open_ns;
    m->r->start_utc_ns = start + in->anchor_real_ns - in->anchor_mono_ns;
    wt_table_run_id(in, m->r->run_id);
    m->host = strdup(in->host ? in->host : "");
    m->command = strdup(in->cmdline ? in->cmdline : "");
    m->r->ok = 1;
    return m->host && m->command ? 0 : WT_ENOMEM;
}

/* Not inlined: run_event then needs no frame and hands each span on with a jump (a metadata
 * event is rare; a span is every event). */
__attribute__((noinline)) static int keep_value(run_ctx *m, const wt_event *ev)
{
    if (!strcmp(ev->name, "rank"))
        m->ranked = 1;
    for (int k = 0; k < m->o->n_keys; k++)
        if (!strcmp(ev->name, m->o->keys[k])) {
            char *v = strdup(ev->detail ? ev->detail : "");
            if (!v)
                return WT_ENOMEM;
            free(m->values[k]);
            m->values[k] = v;
        }
    return 0;
}

static int run_event(void *ctx, int fi, const wt_event *ev)
{
    (void)fi;
    run_ctx *m = ctx;
    if (ev->kind == WT_EV_SPAN)
        return wt_runsum_span(m->rs, ev);
    return ev->kind == WT_EV_META && ev->name ? keep_value(m, ev) : 0;
}

static int run_spans(void *ctx, int fi, const wt_span_batch *b)
{
    (void)fi;
    return wt_runsum_spans(((run_ctx *)ctx)->rs, b);
}

/* "k1=v1,k2=v2": a missing key reads "?"; `host` and `command` fall back to the header. */
static char *group_name(const wt_trend_opts *o, const run_ctx *m)
{
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = '\0';
    if (o->n_keys == 0) {
        snprintf(s, cap, "all");
        return s;
    }
    for (int k = 0; k < o->n_keys; k++) {
        const char *key = o->keys[k], *v = m->values[k];
        if (!v && !strcmp(key, "host"))
            v = m->host;
        else if (!v && !strcmp(key, "command"))
            v = m->command;
        size_t need = len + strlen(key) + (v ? strlen(v) : 1) + 3;
        if (need > cap) {
            char *ns = realloc(s, cap = need * 2);
            if (!ns) {
                free(s);
                return NULL;
            }
            s = ns;
        }
        len += (size_t)snprintf(s + len, cap - len, "%s%s=%s", k ? "," : "", key, v ? v : "?");
    }
    return s;
}

/* ---- the series: groups x categories ---- */

/* A run fed to a series, as a change found later names it. */
typedef struct recent_run {
    int64_t k;        /* its place in start order */
    int64_t in_group; /* its place in its group's start order, from 1 */
    run_ref ref;
} recent_run;

typedef struct series {
    wt_cp cp;
    recent_run *recent; /* ring of P: its last runs (a change is found at one of them) */
    size_t chart;  /* 1 + index of the chart still taking values, or 0 */
    int64_t runs, changes;
    double sum_self, sum_incl, sum_flat;
} series;

typedef struct group {
    char *name;
    series **by_cat; /* [category index], NULL until seen */
    size_t cap;
    int64_t runs;
} group;

struct wt_trend {
    const wt_trend_opts *o;
    wt_json j;
    FILE *out;
    wt_inputs *in;     /* the paths, taken by the workers (under mu) as they go */
    wt__extsort *sort; /* the runs' refs, put as they are read, taken in start order */
    FILE *spill;       /* the runs' summaries from their pass to the series (wt__tmpfd) */
    int64_t spill_len;
    run_sum cur;       /* the summary being fed (consume), its cats grown to cap_cur */
    size_t cap_cur;
    char *cur_strs;    /* its host and group, each NUL-ended, grown to cap_strs */
    size_t cap_strs;
    wt__strmap names;  /* the categories of the runs read (under mu), the changes' hosts */
    wt__strmap group_map, cat_map;
    group *groups;
    size_t n_groups, cap_groups;
    const char **cat_names;
    size_t n_cats, cap_cats;
    wt_trend_change *changes;
    size_t cap_changes;
    wt_trend_chart charts[WT_TREND_MAX_CHARTS];
    size_t n_charts;
    wt_trend_result res;
    char failed[256]; /* the first failure said on stderr (fail_say), "" none */
    /* the workers: each takes the next file */
    pthread_mutex_t mu;
    int next, err; /* next: the order the next path taken gets */
};

/* A failure said on stderr ("trend: " and the words), its words kept when it is the first: a
 * --json output that has begun ends with them (write_json_failed). Under mu while the workers
 * read. */
__attribute__((format(printf, 2, 3))) static void fail_say(wt_trend *t, const char *fmt, ...)
{
    char msg[sizeof t->failed];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    wt_cli_error("trend: %s", msg);
    if (!t->failed[0])
        memcpy(t->failed, msg, sizeof msg);
}

static group *group_of(wt_trend *t, const char *name)
{
    uint32_t idx;
    const char *kept;
    if (wt__strmap_get(&t->group_map, name, strlen(name), &idx) == 1)
        return &t->groups[idx];
    if (t->n_groups >= WT_TREND_MAX_GROUPS)
        return NULL;
    group *ng = wt__grow_array(t->groups, &t->cap_groups, t->n_groups + 1, sizeof *ng);
    if (!ng)
        return NULL;
    t->groups = ng;
    if (wt__strmap_put(&t->group_map, name, strlen(name), (uint32_t)t->n_groups, &idx, &kept) < 0)
        return NULL;
    group *g = &t->groups[t->n_groups++];
    memset(g, 0, sizeof *g);
    g->name = (char *)kept;
    return g;
}

static series *series_of(wt_trend *t, group *g, const char *cat, size_t *ci)
{
    uint32_t idx;
    const char *kept;
    if (wt__strmap_get(&t->cat_map, cat, strlen(cat), &idx) != 1) {
        const char **nc = wt__grow_array(t->cat_names, &t->cap_cats, t->n_cats + 1, sizeof *nc);
        if (!nc)
            return NULL;
        t->cat_names = nc;
        if (wt__strmap_put(&t->cat_map, cat, strlen(cat), (uint32_t)t->n_cats, &idx, &kept) < 0)
            return NULL;
        t->cat_names[t->n_cats++] = kept;
    }
    *ci = idx;
    series **nb = wt__grow_array(g->by_cat, &g->cap, (size_t)idx + 1, sizeof *nb);
    if (!nb)
        return NULL;
    g->by_cat = nb;
    if (!g->by_cat[idx]) {
        series *s = calloc(1, sizeof *s);
        if (!s || !(s->recent = calloc((size_t)t->o->cp.persist, sizeof *s->recent)) ||
            wt_cp_init(&s->cp, &t->o->cp) < 0) {
            if (s)
                free(s->recent);
            free(s);
            return NULL;
        }
        g->by_cat[idx] = s;
    }
    return g->by_cat[idx];
}

/* ---- the spill file: run summaries between their pass and the series ---- */

/* The spill file: a temporary file of this process alone (wt__tmpfd). NULL with errno. */
static FILE *spill_open(void)
{
    const int fd = wt__tmpfd();
    FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    return f;
}

/* Under mu: r's summary appended to the spill file; its offset in ref->spill_at. */
static int spill_put(wt_trend *t, const run_sum *r, run_ref *ref)
{
    spill_head h;
    memset(&h, 0, sizeof h);
    memcpy(h.run_id, r->run_id, sizeof h.run_id);
    const size_t host_len = strlen(r->host), group_len = strlen(r->group);
    const size_t path_len = strlen(r->path); /* < WT_INPUTS_PATH_MAX */
    if (host_len > UINT32_MAX || group_len > UINT32_MAX)
        return WT_ENOMEM;
    h.host_len = (uint32_t)host_len;
    h.group_len = (uint32_t)group_len;
    h.path_len = (uint32_t)path_len;
    h.n_cats = r->n_cats;
    if (fwrite(&h, sizeof h, 1, t->spill) != 1 ||
        fwrite(r->host, 1, host_len, t->spill) != host_len ||
        fwrite(r->group, 1, group_len, t->spill) != group_len ||
        fwrite(r->path, 1, path_len, t->spill) != path_len ||
        (r->n_cats && fwrite(r->cats, sizeof *r->cats, r->n_cats, t->spill) != r->n_cats)) {
        fail_say(t, "cannot write its temporary file: %s", strerror(errno));
        return WT_EIO;
    }
    ref->spill_at = t->spill_len;
    t->spill_len +=
        (int64_t)(sizeof h + host_len + group_len + path_len + r->n_cats * sizeof *r->cats);
    return 0;
}

/* A read of the spill file that failed, said: WT_EIO. */
static int spill_read_failed(wt_trend *t)
{
    fail_say(t, "cannot read its temporary file back");
    return WT_EIO;
}

/* The head of ref's spill record into *h (the file is written to the end before any read); the
 * file is then at its host. */
static int spill_head_get(wt_trend *t, const run_ref *ref, spill_head *h)
{
    if (ref->spill_at < 0 || fseeko(t->spill, ref->spill_at, SEEK_SET) != 0 ||
        fread(h, sizeof *h, 1, t->spill) != 1)
        return spill_read_failed(t);
    return 0;
}

/* The next `len` bytes of the spill file into s, NUL-ended. 0 or WT_EIO (said). */
static int spill_str(wt_trend *t, char *s, size_t len)
{
    if (len && fread(s, 1, len, t->spill) != len)
        return spill_read_failed(t);
    s[len] = '\0';
    return 0;
}

/* ref's whole summary into t->cur (its strings and cats in buffers kept for every run). */
static int spill_get(wt_trend *t, const run_ref *ref)
{
    spill_head h;
    int rc = spill_head_get(t, ref, &h);
    if (rc)
        return rc;
    run_sum *r = &t->cur;
    const size_t strs = (size_t)h.host_len + h.group_len + h.path_len + 3;
    if (strs > t->cap_strs) {
        char *b = realloc(t->cur_strs, strs);
        if (!b)
            return WT_ENOMEM;
        t->cur_strs = b;
        t->cap_strs = strs;
    }
    char *host = t->cur_strs, *grp = host + h.host_len + 1, *path = grp + h.group_len + 1;
    if ((rc = spill_str(t, host, h.host_len)) != 0 || (rc = spill_str(t, grp, h.group_len)) != 0 ||
        (rc = spill_str(t, path, h.path_len)) != 0)
        return rc;
    if (h.n_cats > t->cap_cur) {
        run_cat *c = realloc(r->cats, h.n_cats * sizeof *c);
        if (!c)
            return WT_ENOMEM;
        r->cats = c;
        t->cap_cur = h.n_cats;
    }
    if (h.n_cats && fread(r->cats, sizeof *r->cats, h.n_cats, t->spill) != h.n_cats)
        return spill_read_failed(t);
    r->path = path; /* what the series read of it; ok and skipped stay the pass's */
    r->start_utc_ns = ref->start_utc_ns;
    memcpy(r->run_id, h.run_id, sizeof r->run_id);
    r->host = host;
    r->group = grp;
    r->n_cats = h.n_cats;
    return 0;
}

/* The trend's copy of `s` (under mu while the workers read): stable until the trend is freed.
 * NULL: no memory. */
static const char *intern(wt_trend *t, const char *s)
{
    uint32_t v;
    const char *kept = NULL;
    return wt__strmap_put(&t->names, s, strlen(s), 0, &v, &kept) < 0 ? NULL : kept;
}

/* The run a change of s names: one of its last P, the start order of the runs between them
 * being in the sort's files alone. */
static const recent_run *recent_of(const wt_trend *t, const series *s, int64_t k)
{
    for (int i = 0; i < t->o->cp.persist; i++)
        if (s->recent[i].k == k)
            return &s->recent[i];
    return NULL;
}

/* What a change says of its run: the head of ref's spill record into *h, and its host and path,
 * interned (a change keeps them: WT_TREND_MAX_CHANGES at most), into *host and *file. 0,
 * WT_ENOMEM or WT_EIO. */
static int spill_change_get(wt_trend *t, const run_ref *ref, spill_head *h, const char **host,
                            const char **file)
{
    int rc = spill_head_get(t, ref, h);
    char *s = rc ? NULL : malloc((size_t)h->host_len + h->path_len + 2);
    char *path = s ? s + h->host_len + 1 : NULL;
    if (rc == 0 && !s)
        rc = WT_ENOMEM;
    if (rc == 0)
        rc = spill_str(t, s, h->host_len);
    if (rc == 0 && fseeko(t->spill, h->group_len, SEEK_CUR) != 0)
        rc = spill_read_failed(t);
    if (rc == 0)
        rc = spill_str(t, path, h->path_len);
    if (rc == 0 && (!(*host = intern(t, s)) || !(*file = intern(t, path))))
        rc = WT_ENOMEM;
    free(s);
    return rc;
}

static int add_change(wt_trend *t, const group *g, const series *s, size_t ci,
                      const wt_cp_change *c)
{
    if (c->after > c->before)
        t->res.regressions++;
    if (t->res.n_changes >= WT_TREND_MAX_CHANGES) {
        t->res.changes_dropped++;
        return 0;
    }
    wt_trend_change *nc = wt__grow_array(t->changes, &t->cap_changes, t->res.n_changes + 1,
                                         sizeof *nc);
    if (!nc)
        return WT_ENOMEM;
    t->changes = nc;
    const recent_run *r = recent_of(t, s, c->ref);
    const run_ref *h = r ? &r->ref : NULL;
    spill_head hd;
    const char *host = NULL, *file = NULL;
    const int rc = h ? spill_change_get(t, h, &hd, &host, &file) : WT_EIO;
    if (rc)
        return rc;
    wt_trend_change *x = &t->changes[t->res.n_changes++];
    memset(x, 0, sizeof *x);
    x->group = g->name;
    x->category = t->cat_names[ci];
    memcpy(x->run_id, hd.run_id, 33);
    x->host = host;
    x->file = file;
    x->start_utc_ns = h->start_utc_ns;
    x->run_index = c->ref;
    x->run_in_group = r->in_group;
    x->group_index = (size_t)(g - t->groups);
    x->before_s = c->before;
    x->after_s = c->after;
    x->scale_s = c->scale;
    return 0;
}

/* A change was just listed (or not, past WT_TREND_MAX_CHANGES): its chart starts with the
 * series' recent values, the change's runs last. */
static int open_chart(wt_trend *t, series *s)
{
    s->chart = 0;
    if (t->n_charts >= WT_TREND_MAX_CHARTS || t->res.changes_dropped)
        return 0;
    const size_t P = (size_t)t->o->cp.persist, before = (size_t)t->o->cp.window + P;
    wt_trend_chart *ch = &t->charts[t->n_charts];
    if (!(ch->v = malloc((before + WT_TREND_CHART_AFTER) * sizeof *ch->v)))
        return WT_ENOMEM;
    ch->change = t->res.n_changes - 1;
    ch->n = wt_cp_recent(&s->cp, ch->v, before);
    ch->at = ch->n - P;
    s->chart = ++t->n_charts;
    return 0;
}

static void write_json_run(wt_json *j, int k, const run_sum *h, const char *gname)
{
    wt_json_object_begin(j, NULL);
    wt_json_int(j, "index", k);
    wt_json_string(j, "run_id", h->run_id);
    wt_json_string(j, "host", h->host);
    wt_json_string(j, "file", h->path);
    wt_json_int(j, "start_utc_ns", h->start_utc_ns);
    wt_json_string(j, "group", gname);
    wt_json_object_begin(j, "categories");
    for (size_t i = 0; i < h->n_cats; i++) {
        const run_cat *c = &h->cats[i];
        wt_json_object_begin(j, c->name);
        wt_json_fixed(j, "inclusive_s", c->incl_s, 9);
        wt_json_fixed(j, "self_s", c->self_s, 9);
        wt_json_fixed(j, "flat_s", c->flat_s, 9);
        wt_json_object_end(j);
    }
    wt_json_object_end(j);
    wt_json_object_end(j);
}

/* The consumer: run `k` (start order) into its group's series, then into the JSON's runs. What
 * can fail (memory, a change's record read back) comes before its JSON: the "runs" array holds
 * whole runs only, however the trend ends. */
static int consume(wt_trend *t, int k, const run_ref *ref)
{
    if (ref->skipped)
        return 0;
    const int got = spill_get(t, ref);
    if (got)
        return got;
    const run_sum *h = &t->cur;
    group *g = group_of(t, h->group);
    if (!g) {
        if (t->n_groups < WT_TREND_MAX_GROUPS)
            return WT_ENOMEM;
        t->res.groups_dropped++;
        return 0;
    }
    g->runs++;
    t->res.runs++;
    for (size_t i = 0; i < h->n_cats; i++) {
        const run_cat *rc = &h->cats[i];
        size_t ci;
        series *s = series_of(t, g, rc->name, &ci);
        if (!s)
            return WT_ENOMEM;
        s->recent[s->runs++ % t->o->cp.persist] = (recent_run){ k, g->runs, *ref };
        s->sum_self += rc->self_s;
        s->sum_flat += rc->flat_s;
        s->sum_incl += rc->incl_s;
        wt_cp_change c;
        if (wt_cp_push(&s->cp, rc->incl_s, k, &c)) {
            s->changes++;
            const int arc = add_change(t, g, s, ci, &c);
            if (arc < 0)
                return arc;
            if (open_chart(t, s) < 0)
                return WT_ENOMEM;
        } else if (s->chart) {
            wt_trend_chart *ch = &t->charts[s->chart - 1];
            ch->v[ch->n++] = rc->incl_s;
            if (ch->n >= ch->at + (size_t)t->o->cp.persist + WT_TREND_CHART_AFTER)
                s->chart = 0;
        }
    }
    if (t->o->json)
        write_json_run(&t->j, k, h, g->name);
    return 0;
}

/* ---- workers: each takes the next file, reads it once, keeps its summary ---- */

/* The run's summary from the finished pass (its categories' seconds, its host and group),
 * into the spill file; ref says where. */
static int keep_run(wt_trend *t, run_ctx *m, run_ref *ref)
{
    run_sum *r = m->r;
    const size_t n = wt_runsum_count(m->rs);
    char *gname = group_name(t->o, m);
    r->cats = calloc(n ? n : 1, sizeof *r->cats);
    int rc = gname && r->cats ? 0 : WT_ENOMEM;
    pthread_mutex_lock(&t->mu);
    r->host = m->host;
    r->group = gname;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        run_cat *c = &r->cats[i];
        if (!(c->name = intern(t, wt_runsum_name(m->rs, i)))) {
            rc = WT_ENOMEM;
            break;
        }
        c->self_s = (double)wt_runsum_self_ns(m->rs, i) * 1e-9;
        c->flat_s = (double)wt_runsum_flat_ns(m->rs, i) * 1e-9;
        c->incl_s = (double)wt_runsum_incl_ns(m->rs, i) * 1e-9;
        r->n_cats++;
    }
    if (rc == 0)
        rc = spill_put(t, r, ref);
    t->res.runs_ranked += m->ranked;
    pthread_mutex_unlock(&t->mu);
    free(gname);
    return rc;
}

/* One file, one open: header, spans and metadata in the same pass, through the worker's
 * reader (*rd, reopened for each of its files). */
static int read_run(wt_trend *t, const char *path, run_ref *ref, wt_runsum *rs, wt_reader **rd)
{
    static const wt_source_ops ops = { run_begin, run_event, NULL, NULL, run_spans, NULL };
    run_sum sum;
    memset(&sum, 0, sizeof sum);
    run_sum *r = &sum;
    r->path = path;
    run_ctx m = { .o = t->o, .r = r, .rs = rs };
    char *paths[1] = { (char *)r->path };
    wt_runsum_reset(rs);
    wt_source_result src = { 0 };
    /* the run summary reads a span's category, depth and duration only (wt_runsum_spans) */
    int rc = wt_source_run_reusing(paths, 1, &ops, &m, &src, rd, WT_SPANF_LEAN);
    pthread_mutex_lock(&t->mu); /* the files' fates, summed as they are read */
    t->res.src.files_ok += src.files_ok;
    t->res.src.files_damaged += src.files_damaged;
    t->res.src.files_failed += src.files_failed;
    t->res.src.files_no_end += src.files_no_end;
    pthread_mutex_unlock(&t->mu);
    if (rc == 0 && (src.files_ok == 0 || !r->ok))
        r->skipped = 1; /* damaged (a damaged run's numbers would be a false change) or unread */
    if (rc == 0 && !r->skipped) {
        wt_runsum_finish(rs);
        rc = keep_run(t, &m, ref);
    }
    ref->ok = (unsigned char)r->ok;
    ref->skipped = (unsigned char)r->skipped;
    ref->start_utc_ns = r->start_utc_ns;
    free(r->cats);
    run_ctx_clear(&m);
    return rc;
}

/* Under mu: the next path into buf (1), or 0 when there is none, or WT_ENOMEM. The order of a
 * run is an int32: a list can be endless (`yes`), the spill file not. */
static int next_path(wt_trend *t, char *buf)
{
    if (t->next == INT32_MAX) {
        if (!t->err)
            fail_say(t, "more than %d inputs", INT32_MAX - 1);
        return WT_ELIMIT;
    }
    return wt_inputs_next(t->in, buf);
}

static void *worker(void *arg)
{
    wt_trend *t = arg;
    wt_runsum *rs = NULL;
    wt_reader *rd = NULL; /* one per worker: its buffers and zstd context serve every file */
    char path[WT_INPUTS_PATH_MAX]; /* the file being read: the spill record keeps it after */
    int rc = wt_runsum_create(&rs);
    pthread_mutex_lock(&t->mu);
    while (rc == 0 && !t->err && (rc = next_path(t, path)) == 1) {
        run_ref r = { .order = t->next++, .spill_at = -1 };
        pthread_mutex_unlock(&t->mu);
        rc = read_run(t, path, &r, rs, &rd);
        pthread_mutex_lock(&t->mu);
        if (rc == 0 && (rc = wt__extsort_put(t->sort, &r)) == WT_EIO)
            fail_say(t, "cannot write its temporary file: %s", strerror(errno));
    }
    if (rc < 0 && !t->err)
        t->err = rc; /* out of memory: the others stop at their next file */
    pthread_mutex_unlock(&t->mu);
    wt_runsum_free(rs);
    wt_reader_free(rd);
    return NULL;
}

static int start_cmp(const void *a, const void *b)
{
    const run_ref *x = a, *y = b;
    if (x->ok != y->ok)
        return y->ok - x->ok; /* the unreadable last */
    if (x->start_utc_ns != y->start_utc_ns)
        return x->start_utc_ns < y->start_utc_ns ? -1 : 1;
    return x->order - y->order;
}

/* The --json output up to its "runs" array, opened. */
static void write_json_head(wt_trend *t)
{
    const wt_trend_opts *o = t->o;
    wt_json *j = &t->j;
    wt_json_init(j, t->out, 1);
    wt_json_object_begin(j, NULL);
    wt_json_string(j, "schema", WT_TREND_SCHEMA);
    wt_json_array_begin(j, "group_by");
    for (int k = 0; k < o->n_keys; k++)
        wt_json_string(j, NULL, o->keys[k]);
    wt_json_array_end(j);
    wt_json_object_begin(j, "rule");
    wt_json_int(j, "window", o->cp.window);
    wt_json_int(j, "min_runs", o->cp.min_runs);
    wt_json_double(j, "k", o->cp.k);
    wt_json_double(j, "floor", o->cp.floor);
    wt_json_int(j, "persist", o->cp.persist);
    wt_json_object_end(j);
    wt_json_array_begin(j, "runs");
}

/* A failure while the runs were being written: the "runs" array (whole runs only: consume)
 * closed, then "error" with what failed, as said on stderr, and the document closed. No
 * "series" or "changes": a reader that wants them finds the error instead of a document cut
 * off mid-value, which no JSON parser reads. */
static void write_json_failed(wt_trend *t, int rc)
{
    wt_json *j = &t->j;
    wt_json_array_end(j); /* runs */
    wt_json_string(j, "error", t->failed[0] ? t->failed : wt_strerror(rc));
    wt_json_object_end(j);
    wt_json_finish(j);
}

/* The series fed with every run in start order, from the sort. The --json output begins here,
 * once every file is read and the sort is ready, so that what fails before (a worker's
 * temporary file, memory, the sort's chunks) leaves nothing on `out`; what fails after (a
 * summary or the sort's order read back) ends the output as a whole document saying so
 * (write_json_failed). */
static int feed_all(wt_trend *t)
{
    int rc = wt__extsort_finish(t->sort);
    if (rc == WT_EIO) /* its merge passes read the file as well as write it */
        fail_say(t, "its temporary file failed while sorting: %s",
                 errno ? strerror(errno) : "shorter than what was written");
    if (rc)
        return rc;
    if (t->o->json)
        write_json_head(t);
    for (int k = 0; rc == 0; k++) {
        const void *r;
        const int got = wt__extsort_next(t->sort, &r);
        if (got <= 0) {
            if (got == WT_EIO)
                fail_say(t, "cannot read its temporary file back%s%s", errno ? ": " : "",
                         errno ? strerror(errno) : "");
            rc = got;
            break;
        }
        rc = consume(t, k, r);
    }
    if (rc < 0 && t->o->json)
        write_json_failed(t, rc);
    return rc;
}

/* Reads every file (in parallel), then orders the runs by start and feeds the series. */
static int run_all(wt_trend *t, wt_inputs *in)
{
    t->in = in;
    const size_t chunk = t->o->sort_chunk > 0 ? (size_t)t->o->sort_chunk : 0;
    const int made = wt__extsort_create(sizeof(run_ref), chunk, start_cmp, &t->sort);
    if (made)
        return made;
    int nthreads = t->o->threads;
    if (nthreads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = c > 0 ? (int)c : 1;
    }
    if (nthreads > 256)
        nthreads = 256;
    pthread_t tids[256];
    int started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&tids[started], NULL, worker, t) != 0)
            break;
    if (started == 0)
        worker(t); /* no thread to be had: read them here */
    for (int i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    t->res.src.files_failed += wt_inputs_failed(in); /* lines and directories passed over */
    return t->err ? t->err : feed_all(t);
}

/* ---- output ---- */

/* Names in natural order: runs of digits compare as numbers, so rank=2 comes before rank=10
 * (a launch's ranks were listed in the order their runs started: 0, 1, 3, 2). */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            size_t na = 0, nb = 0;
            while (isdigit((unsigned char)a[na]))
                na++;
            while (isdigit((unsigned char)b[nb]))
                nb++;
            if (na != nb)
                return na < nb ? -1 : 1;
            int c = memcmp(a, b, na);
            if (c)
                return c;
            a += na;
            b += nb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

typedef struct {
    const char *name;
    size_t idx;
} named_idx;

static int by_group_name(const void *x, const void *y)
{
    const named_idx *a = x, *b = y;
    int c = natural_cmp(a->name, b->name);
    return c ? c : a->idx < b->idx ? -1 : a->idx > b->idx; /* "rank=02", "rank=2": as seen */
}

/* The groups' indices in natural order of their names, for the series' lists (NULL when out of
 * memory: then in the order seen). */
static size_t *group_order(const wt_trend *t)
{
    const size_t n = t->n_groups ? t->n_groups : 1;
    named_idx *v = malloc(n * sizeof *v);
    size_t *ord = malloc(n * sizeof *ord);
    if (!v || !ord) {
        free(v);
        free(ord);
        return NULL;
    }
    for (size_t g = 0; g < t->n_groups; g++)
        v[g] = (named_idx){ t->groups[g].name, g };
    qsort(v, t->n_groups, sizeof *v, by_group_name);
    for (size_t g = 0; g < t->n_groups; g++)
        ord[g] = v[g].idx;
    free(v);
    return ord;
}

/* Series with too few runs for the change rule: M before a run and P from it. */
static size_t series_too_short(const wt_trend *t)
{
    const int64_t need = (int64_t)t->o->cp.min_runs + t->o->cp.persist;
    size_t n = 0;
    for (size_t g = 0; g < t->n_groups; g++)
        for (size_t c = 0; c < t->groups[g].cap && c < t->n_cats; c++)
            if (t->groups[g].by_cat[c] && t->groups[g].by_cat[c]->runs < need)
                n++;
    return n;
}

static void write_json_tail(wt_trend *t)
{
    wt_json *j = &t->j;
    wt_json_array_end(j); /* runs */
    wt_json_array_begin(j, "series");
    size_t *ord = group_order(t);
    for (size_t k = 0; k < t->n_groups; k++) {
        const size_t g = ord ? ord[k] : k;
        for (size_t c = 0; c < t->groups[g].cap && c < t->n_cats; c++) {
            const series *s = t->groups[g].by_cat[c];
            if (!s)
                continue;
            wt_json_object_begin(j, NULL);
            wt_json_string(j, "group", t->groups[g].name);
            wt_json_string(j, "category", t->cat_names[c]);
            wt_json_int(j, "runs", s->runs);
            wt_json_fixed(j, "mean_inclusive_s", s->sum_incl / (double)s->runs, 9);
            wt_json_fixed(j, "mean_self_s", s->sum_self / (double)s->runs, 9);
            wt_json_fixed(j, "mean_flat_s", s->sum_flat / (double)s->runs, 9);
            wt_json_fixed(j, "level_inclusive_s", wt_cp_level(&s->cp), 9);
            wt_json_int(j, "changes", s->changes);
            wt_json_object_end(j);
        }
    }
    free(ord);
    wt_json_array_end(j);
    wt_json_array_begin(j, "changes");
    for (size_t i = 0; i < t->res.n_changes; i++) {
        const wt_trend_change *c = &t->changes[i];
        wt_json_object_begin(j, NULL);
        wt_json_string(j, "group", c->group);
        wt_json_string(j, "category", c->category);
        wt_json_int(j, "run_index", c->run_index);
        wt_json_int(j, "run_in_group", c->run_in_group);
        wt_json_int(j, "group_runs", c->group_runs);
        wt_json_string(j, "run_id", c->run_id);
        wt_json_string(j, "host", c->host);
        wt_json_string(j, "file", c->file);
        wt_json_int(j, "start_utc_ns", c->start_utc_ns);
        wt_json_fixed(j, "before_s", c->before_s, 9);
        wt_json_fixed(j, "after_s", c->after_s, 9);
        wt_json_fixed(j, "change_s", c->after_s - c->before_s, 9);
        wt_json_fixed(j, "noise_s", c->scale_s, 9);
        wt_json_string(j, "direction", c->after_s > c->before_s ? "slower" : "faster");
        wt_json_object_end(j);
    }
    wt_json_array_end(j);
    wt_json_int(j, "runs_in_series", t->res.runs);
    wt_json_int(j, "series_too_short", (int64_t)series_too_short(t));
    wt_json_int(j, "files_damaged", t->res.src.files_damaged);
    wt_json_int(j, "files_failed", t->res.src.files_failed);
    wt_json_int(j, "changes_dropped", t->res.changes_dropped);
    wt_json_int(j, "groups_dropped", t->res.groups_dropped);
    wt_json_object_end(j);
    wt_json_finish(j);
}

static void write_text(wt_trend *t)
{
    FILE *o = t->out;
    fprintf(o, "trend: %lld runs in %zu group(s), %zu categories; %zu change(s)",
            (long long)t->res.runs, t->n_groups, t->n_cats, t->res.n_changes);
    const size_t short_ = series_too_short(t);
    size_t n_series = 0;
    for (size_t g = 0; g < t->n_groups; g++)
        for (size_t c = 0; c < t->groups[g].cap && c < t->n_cats; c++)
            n_series += t->groups[g].by_cat[c] != NULL;
    /* "0 change(s)" from 12 runs said nothing of why: a series is judged from M + P runs */
    if (short_)
        fprintf(o, "; %zu of %zu series too short to judge (fewer than %d runs: --min-runs %d "
                   "before a change, --persist %d from it)",
                short_, n_series, t->o->cp.min_runs + t->o->cp.persist, t->o->cp.min_runs,
                t->o->cp.persist);
    fprintf(o, "\n\n");
    /* LEVEL: the median inclusive seconds since the series' last change (JSON level_...) */
    fprintf(o, "%-32s %-20s %6s %12s %12s %12s %8s\n", "GROUP", "CATEGORY", "RUNS", "MEAN INCL s",
            "MEAN SELF s", "LEVEL INCL s", "CHANGES");
    size_t *ord = group_order(t);
    for (size_t k = 0; k < t->n_groups; k++) {
        const size_t g = ord ? ord[k] : k;
        for (size_t c = 0; c < t->groups[g].cap && c < t->n_cats; c++) {
            const series *s = t->groups[g].by_cat[c];
            if (s)
                fprintf(o, "%-32s %-20s %6lld %12.6f %12.6f %12.6f %8lld\n", t->groups[g].name,
                        t->cat_names[c], (long long)s->runs, s->sum_incl / (double)s->runs,
                        s->sum_self / (double)s->runs, wt_cp_level(&s->cp), (long long)s->changes);
        }
    }
    free(ord);
    if (t->res.n_changes)
        fprintf(o, "\nCHANGES (inclusive seconds per run against the median of the runs before)\n");
    for (size_t i = 0; i < t->res.n_changes; i++) {
        const wt_trend_change *c = &t->changes[i];
        double d = c->after_s - c->before_s;
        fprintf(o, "  %s  %s: %s, run %lld of %lld in the group (%s, host %s): %.6f -> %.6f s "
                   "(%+.6f s, %+.1f%%), %s\n",
                c->group, c->category, c->file, (long long)c->run_in_group,
                (long long)c->group_runs, c->run_id, c->host,
                c->before_s, c->after_s, d, c->before_s > 0 ? 100 * d / c->before_s : 0.0,
                d > 0 ? "slower" : "faster");
    }
    if (t->res.changes_dropped)
        fprintf(o, "  ... and %lld more\n", (long long)t->res.changes_dropped);
}

int wt_trend_run(char *const *paths, int n, const wt_trend_opts *o, FILE *out, wt_trend **tp)
{
    wt_inputs *in = NULL;
    *tp = NULL;
    int rc = wt_inputs_create("trend", &in);
    if (rc == 0 && n > 0)
        rc = wt_inputs_add_paths(in, paths, (size_t)n);
    if (rc == 0)
        rc = wt_trend_run_inputs(in, o, out, tp);
    wt_inputs_free(in);
    return rc;
}

int wt_trend_run_inputs(wt_inputs *in, const wt_trend_opts *o, FILE *out, wt_trend **tp)
{
    *tp = NULL;
    wt_trend *t = calloc(1, sizeof *t);
    if (!t)
        return WT_ENOMEM;
    t->o = o;
    t->out = out;
    pthread_mutex_init(&t->mu, NULL);
    *tp = t;
    int rc;
    if (!(t->spill = spill_open())) {
        fail_say(t, "cannot make a temporary file in $TMPDIR or /tmp: %s", strerror(errno));
        return WT_EIO;
    }
    setvbuf(t->spill, NULL, _IOFBF, 1u << 16); /* 64 KiB: a thousand runs' records a write */
    if ((rc = run_all(t, in)) < 0)
        return rc;
    t->res.groups = (int64_t)t->n_groups;
    for (size_t i = 0; i < t->res.n_changes; i++) /* the groups are complete now */
        t->changes[i].group_runs = t->groups[t->changes[i].group_index].runs;
    t->res.categories = (int64_t)t->n_cats;
    t->res.changes = t->changes;
    t->res.charts = t->charts;
    t->res.n_charts = t->n_charts;
    if (o->json)
        write_json_tail(t);
    else
        write_text(t);
    return 0;
}

const wt_trend_result *wt_trend_result_get(const wt_trend *t) { return &t->res; }

void wt_trend_free(wt_trend *t)
{
    if (!t)
        return;
    for (size_t g = 0; g < t->n_groups; g++) {
        for (size_t c = 0; c < t->groups[g].cap; c++)
            if (t->groups[g].by_cat[c]) {
                wt_cp_release(&t->groups[g].by_cat[c]->cp);
                free(t->groups[g].by_cat[c]->recent);
                free(t->groups[g].by_cat[c]);
            }
        free(t->groups[g].by_cat);
    }
    free(t->groups);
    free(t->cat_names);
    wt__strmap_release(&t->group_map);
    wt__strmap_release(&t->cat_map);
    wt__strmap_release(&t->names);
    if (t->spill)
        fclose(t->spill);
    free(t->cur.cats);
    free(t->cur_strs);
    wt__extsort_free(t->sort);
    free(t->changes);
    for (size_t i = 0; i < t->n_charts; i++)
        free(t->charts[i].v);
    pthread_mutex_destroy(&t->mu);
    free(t);
}
