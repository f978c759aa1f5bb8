/* The Chrome JSON sink of `export`: the Trace Event Format ({"traceEvents": [...]}) that
 * chrome://tracing, ui.perfetto.dev and speedscope open, written event by event through the one
 * JSON writer (json.h), so any label gives valid JSON.
 *
 * Spans are complete events ("X": ts + dur), which viewers nest by time on their thread, so the
 * order in which they arrive (children before parents) does not matter and nothing is held.
 * Times are microseconds with three decimals, formatted from the integer nanoseconds
 * (wt_json_ns_as_us), so every nanosecond is kept whatever the uptime.
 * Rounds, anomalies and the run slice go on pseudo-threads of their process, named with "M"
 * events; their tids start at PSEUDO_TID, above any Linux tid (pid_max <= 2^22).
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "json.h"
#include "procname.h"

#define PSEUDO_TID 1000000000ll
#define MAX_PSEUDO 64 /* round configurations per file; more share the last one */

typedef struct pseudo {
    int file_index;
    char *name;
    int64_t tid;
} pseudo;

typedef struct ch {
    wt_json j;
    FILE *out;
    uint64_t *pids;   /* per file */
    wt_procname *who; /* per file: its rank, if it records one */
    size_t n_files;
    pseudo *ps;
    size_t n_ps;
    int64_t next_tid;
    wt_export_sink_stats st;
} ch;

static void ts_us(ch *c, const char *key, int64_t ns) { wt_json_ns_as_us(&c->j, key, ns); }

static void head(ch *c, const char *ph, const char *name, const char *cat, int fi, int64_t tid)
{
    wt_json_object_begin(&c->j, NULL);
    wt_json_string(&c->j, "ph", ph);
    if (name)
        wt_json_string(&c->j, "name", name);
    if (cat)
        wt_json_string(&c->j, "cat", cat);
    wt_json_uint(&c->j, "pid", c->pids[fi]);
    if (tid >= 0)
        wt_json_int(&c->j, "tid", tid);
}

static void meta_name(ch *c, const char *what, int fi, int64_t tid, const char *name)
{
    head(c, "M", what, NULL, fi, tid);
    wt_json_object_begin(&c->j, "args");
    wt_json_string(&c->j, "name", name);
    wt_json_object_end(&c->j);
    wt_json_object_end(&c->j);
}

/* The pseudo-thread `name` of file `fi`, named on first use. */
static int pseudo_tid(ch *c, int fi, const char *name, int64_t *tid)
{
    size_t found = c->n_ps, in_file = 0;
    for (size_t i = 0; i < c->n_ps; i++) {
        if (c->ps[i].file_index != fi)
            continue;
        in_file++;
        if (!strcmp(c->ps[i].name, name)) {
            *tid = c->ps[i].tid;
            return 0;
        }
        found = i;
    }
    if (in_file >= MAX_PSEUDO) {
        *tid = c->ps[found].tid;
        return 0;
    }
    pseudo *np = realloc(c->ps, (c->n_ps + 1) * sizeof *np);
    if (!np)
        return WT_ENOMEM;
    c->ps = np;
    np[c->n_ps].file_index = fi;
    np[c->n_ps].tid = *tid = c->next_tid++;
    if (!(np[c->n_ps].name = strdup(name)))
        return WT_ENOMEM;
    c->n_ps++;
    meta_name(c, "thread_name", fi, *tid, name);
    return 0;
}

static int ch_file_begin(void *self, int fi, const char *path, const wt_trace_info *info)
{
    ch *c = self;
    if ((size_t)fi >= c->n_files) {
        uint64_t *np = realloc(c->pids, (size_t)(fi + 1) * sizeof *np);
        if (!np)
            return WT_ENOMEM;
        c->pids = np;
        wt_procname *nw = realloc(c->who, (size_t)(fi + 1) * sizeof *nw);
        if (!nw)
            return WT_ENOMEM;
        c->who = nw;
        c->n_files = (size_t)fi + 1;
    }
    c->pids[fi] = info->pid;
    wt_procname_init(&c->who[fi], info->pid);
    /* the process is named after the program of its command line */
    const char *cmd = info->cmdline && *info->cmdline ? info->cmdline : path;
    size_t len = strcspn(cmd, " ");
    const char *base = cmd;
    for (size_t i = 0; i < len; i++)
        if (cmd[i] == '/')
            base = cmd + i + 1;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(cmd + len - base), base);
    meta_name(c, "process_name", fi, -1, name);
    head(c, "M", "process_labels", NULL, fi, -1);
    wt_json_object_begin(&c->j, "args");
    wt_json_string(&c->j, "labels", info->cmdline ? info->cmdline : "");
    wt_json_object_end(&c->j);
    wt_json_object_end(&c->j);
    return ferror(c->out) ? WT_EIO : 0;
}

static int ch_event(void *self, int fi, const wt_event *ev)
{
    ch *c = self;
    wt_json *j = &c->j;
    int64_t tid;
    if (ev->kind == WT_EV_META)
        wt_procname_event(&c->who[fi], ev);
    switch (ev->kind) {
    case WT_EV_SPAN:
        head(c, "X", ev->label ? ev->label : "(none)", ev->category ? ev->category : "(none)", fi,
             (int64_t)ev->tid);
        ts_us(c, "ts", ev->ts);
        ts_us(c, "dur", ev->dur > 0 ? ev->dur : 0);
        wt_json_object_begin(j, "args");
        if (ev->cached == WT_CACHED_HIT)
            wt_json_string(j, "cached", "HIT");
        else if (ev->cached == WT_CACHED_MISS)
            wt_json_string(j, "cached", "MISS");
        wt_json_int(j, "count", ev->count);
        if (ev->bytes)
            wt_json_int(j, "bytes", ev->bytes);
        if (ev->detail && *ev->detail)
            wt_json_string(j, "detail", ev->detail);
        wt_json_uint(j, "depth", ev->depth);
        if (ev->flags & WT_EVF_UNCLOSED)
            wt_json_bool(j, "unclosed", 1);
        if (ev->flags & WT_EVF_MEASURED)
            wt_json_bool(j, "measured", 1);
        wt_json_object_end(j);
        wt_json_object_end(j);
        c->st.spans++;
        break;
    case WT_EV_MARK:
    case WT_EV_DROPPED:
        if (ev->kind == WT_EV_MARK)
            head(c, "i", ev->label ? ev->label : "(none)", ev->category ? ev->category : "(none)",
                 fi, (int64_t)ev->tid);
        else
            head(c, "i", "walltime: dropped events", "walltime", fi, (int64_t)ev->tid);
        wt_json_string(j, "s", "t");
        ts_us(c, "ts", ev->ts);
        wt_json_object_begin(j, "args");
        if (ev->kind == WT_EV_DROPPED)
            wt_json_int(j, "dropped", ev->count);
        else if (ev->detail && *ev->detail)
            wt_json_string(j, "detail", ev->detail);
        wt_json_object_end(j);
        wt_json_object_end(j);
        c->st.instants++;
        break;
    case WT_EV_COUNTER:
        head(c, "C", ev->name ? ev->name : "(none)", NULL, fi, -1);
        ts_us(c, "ts", ev->ts);
        wt_json_object_begin(j, "args");
        wt_json_int(j, "value", ev->value);
        wt_json_object_end(j);
        wt_json_object_end(j);
        c->st.counters++;
        break;
    case WT_EV_ROUND: {
        char name[128];
        snprintf(name, sizeof name, "round: %.100s", ev->name ? ev->name : "(none)");
        int rc = pseudo_tid(c, fi, name, &tid);
        if (rc < 0)
            return rc;
        head(c, "X", ev->name ? ev->name : "(none)", "round", fi, tid);
        ts_us(c, "ts", ev->ts);
        ts_us(c, "dur", ev->dur > 0 ? ev->dur : 0);
        wt_json_object_begin(j, "args");
        wt_json_int(j, "round", ev->count);
        wt_json_object_end(j);
        wt_json_object_end(j);
        c->st.rounds++;
        break;
    }
    case WT_EV_THREAD_NAME:
        meta_name(c, "thread_name", fi, (int64_t)ev->tid, ev->name ? ev->name : "");
        break;
    default:
        break;
    }
    return ferror(c->out) ? WT_EIO : 0;
}

static int ch_anomaly(void *self, int fi, const wt_anomaly *a)
{
    ch *c = self;
    wt_json *j = &c->j;
    int64_t tid;
    int rc = pseudo_tid(c, fi, "walltime: anomalies", &tid);
    if (rc < 0)
        return rc;
    head(c, "i", wt_anomaly_kind_name(a->kind), "walltime: anomaly", fi, tid);
    wt_json_string(j, "s", "t");
    ts_us(c, "ts", a->ts);
    wt_json_object_begin(j, "args");
    wt_json_string(j, "text", a->text);
    if (a->category)
        wt_json_string(j, "category", a->category);
    if (a->label)
        wt_json_string(j, "label", a->label);
    if (a->detail && *a->detail)
        wt_json_string(j, "detail", a->detail);
    wt_json_double(j, "seconds", a->seconds);
    if (a->cost > 0)
        wt_json_double(j, "cost", a->cost);
    wt_json_object_end(j);
    wt_json_object_end(j);
    c->st.instants++;
    return ferror(c->out) ? WT_EIO : 0;
}

static int ch_proc_end(void *self, const wt_export_proc *pe)
{
    ch *c = self;
    wt_json *j = &c->j;
    int64_t tid;
    int rc = pseudo_tid(c, pe->file_index, "walltime: run", &tid);
    if (rc < 0)
        return rc;
    head(c, "X", "walltime: run", "walltime", pe->file_index, tid);
    ts_us(c, "ts", pe->begin_ns);
    ts_us(c, "dur", pe->end_ns - pe->begin_ns);
    wt_json_object_begin(j, "args");
    for (size_t i = 0; i < pe->n_args; i++) {
        const wt_export_arg *a = &pe->args[i];
        if (a->type == WT_ARG_STR)
            wt_json_string(j, a->key, a->s ? a->s : "");
        else if (a->type == WT_ARG_INT)
            wt_json_int(j, a->key, a->i);
        else
            wt_json_double(j, a->key, a->d);
    }
    wt_json_object_end(j);
    wt_json_object_end(j);
    return ferror(c->out) ? WT_EIO : 0;
}

static int ch_finish(void *self)
{
    ch *c = self;
    /* a process that recorded its rank: named as the ledger names it, and sorted by rank (a
     * later process_name replaces the first; the rank is known only once its file is read) */
    for (size_t fi = 0; fi < c->n_files; fi++) {
        if (!c->who[fi].has_rank)
            continue;
        char who[WT_PROCNAME_MAX];
        meta_name(c, "process_name", (int)fi, -1, wt_procname_format(&c->who[fi], who, sizeof who));
        head(c, "M", "process_sort_index", NULL, (int)fi, -1);
        wt_json_object_begin(&c->j, "args");
        wt_json_int(&c->j, "sort_index", c->who[fi].rank < INT32_MAX ? c->who[fi].rank : INT32_MAX);
        wt_json_object_end(&c->j);
        wt_json_object_end(&c->j);
    }
    wt_json_array_end(&c->j);
    wt_json_object_end(&c->j);
    wt_json_finish(&c->j);
    return fflush(c->out) != 0 || ferror(c->out) ? WT_EIO : 0;
}

static void ch_get_stats(const void *self, wt_export_sink_stats *out) { *out = ((const ch *)self)->st; }

static void ch_free(void *self)
{
    ch *c = self;
    if (!c)
        return;
    for (size_t i = 0; i < c->n_ps; i++)
        free(c->ps[i].name);
    free(c->ps);
    free(c->pids);
    free(c->who);
    free(c);
}

int wt__export_chrome_create(FILE *out, wt_export_sink *sink)
{
    ch *c = calloc(1, sizeof *c);
    if (!c)
        return WT_ENOMEM;
    c->out = out;
    c->next_tid = PSEUDO_TID;
    wt_json_init(&c->j, out, 0);
    wt_json_object_begin(&c->j, NULL);
    wt_json_string(&c->j, "displayTimeUnit", "ns");
    wt_json_array_begin(&c->j, "traceEvents");
    *sink = (wt_export_sink){ .self = c, .file_begin = ch_file_begin, .event = ch_event,
                              .anomaly = ch_anomaly, .proc_end = ch_proc_end,
                              .finish = ch_finish, .get_stats = ch_get_stats, .free = ch_free };
    return 0;
}
