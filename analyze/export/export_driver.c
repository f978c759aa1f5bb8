/* The export driver (wt_export_stream, export.h): streams the events of every file once into
 * the sink of the chosen format and alongside into the analyzer's ledger and anomalies, whose
 * results only exist at the end of the run; then, for a sink that asks (--aligned-rounds), the
 * files a second time; then the anomalies and each file's run slice with its annotations.
 *
 * It keeps per file only what the run slice needs at the end: the header's times, the END
 * record, at most WT_EXPORT_MAX_META metadata pairs, and the damage counts.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "export.h"
#include "forkorder.h"
#include "ledger.h"
#include "source.h"

typedef struct kv {
    char *key, *value;
} kv;

typedef struct xfile {
    char *path;
    uint64_t pid;
    int64_t begin, last, end_ts;
    wt_trace_end end;
    int signo;
    kv *meta;
    size_t n_meta;
    wt_reader_stats st;
    int64_t damage;
    char *host, *recorder, *clock;
} xfile;

typedef struct xrun {
    wt_export_sink sink;
    wt_ledger_calc *lc;
    wt_anomalies *an;
    xfile *files;
    size_t n_files;
    int64_t meta_dropped;
    int rc; /* the first error of ours (sink, memory), not a callback's stop value */
} xrun;

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static int on_file_begin(void *ctx, int fi, const char *path, const wt_trace_info *info)
{
    xrun *x = ctx;
    int rc = 0;
    xfile *nf = realloc(x->files, (size_t)(fi + 1) * sizeof *nf);
    if (!nf)
        return x->rc = WT_ENOMEM;
    x->files = nf;
    x->n_files = (size_t)fi + 1;
    xfile *f = &nf[fi];
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    f->host = dup_or_null(info->host);
    f->recorder = dup_or_null(info->recorder);
    f->clock = dup_or_null(info->clock);
    if (!f->path)
        return x->rc = WT_ENOMEM;
    f->pid = info->pid;
    /* the run slice and the ledger's wall both start at the process start */
    f->begin = info->process_start_ns ? info->process_start_ns : info->open_ns;
    f->last = f->begin;
    if ((rc = x->sink.file_begin(x->sink.self, fi, path, info)) < 0)
        return x->rc = rc;
    return 0;
}

static int keep_meta(xrun *x, xfile *f, const wt_event *ev)
{
    if (f->n_meta == WT_EXPORT_MAX_META) {
        x->meta_dropped++;
        return 0;
    }
    if (!f->meta && !(f->meta = calloc(WT_EXPORT_MAX_META, sizeof *f->meta)))
        return WT_ENOMEM;
    kv *m = &f->meta[f->n_meta];
    m->key = strdup(ev->name ? ev->name : "");
    m->value = strdup(ev->detail ? ev->detail : "");
    if (!m->key || !m->value) {
        free(m->key);
        free(m->value);
        return WT_ENOMEM;
    }
    f->n_meta++;
    return 0;
}

static int on_event(void *ctx, int fi, const wt_event *ev)
{
    xrun *x = ctx;
    xfile *f = &x->files[fi];
    int rc;
    int64_t ref = ev->ts + (ev->dur > 0 ? ev->dur : 0);
    if (ref > f->last)
        f->last = ref;
    if (ev->kind == WT_EV_END) {
        f->end = ev->end;
        f->end_ts = ev->ts;
        f->signo = (int)ev->count;
    } else if (ev->kind == WT_EV_META && (rc = keep_meta(x, f, ev)) < 0) {
        return x->rc = rc;
    }
    if ((rc = x->sink.event(x->sink.self, fi, ev)) < 0)
        return x->rc = rc;
    return 0;
}

static void on_upcoming(void *ctx, int fi, const wt_span_batch *b)
{
    const xrun *x = ctx;
    if (x->sink.upcoming)
        x->sink.upcoming(x->sink.self, fi, b);
}

static int on_damage(void *ctx, int fi, int64_t offset, const char *message)
{
    xrun *x = ctx;
    x->files[fi].damage++;
    return 0;
}

static int on_file_end(void *ctx, int fi, const wt_reader_stats *st)
{
    xrun *x = ctx;
    int rc;
    x->files[fi].st = *st;
    if (x->sink.file_end && (rc = x->sink.file_end(x->sink.self, fi)) < 0)
        return x->rc = rc;
    return 0;
}

static int by_ts(const void *a, const void *b)
{
    const wt_anomaly *x = *(const wt_anomaly *const *)a, *y = *(const wt_anomaly *const *)b;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

static int file_of_pid(const xrun *x, uint64_t pid)
{
    for (size_t i = 0; i < x->n_files; i++)
        if (x->files[i].path && x->files[i].pid == pid)
            return (int)i;
    return 0;
}

/* The anomalies as instants, in time order (the list is bounded by the analyzer). */
static int write_anomalies(xrun *x, wt_export_report *rep)
{
    size_t n = 0;
    const wt_anomaly *list = wt_anomalies_list(x->an, &n);
    if (!n || !x->n_files)
        return 0;
    const wt_anomaly **v = malloc(n * sizeof *v);
    if (!v)
        return WT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        v[i] = &list[i];
    qsort(v, n, sizeof *v, by_ts);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = x->sink.anomaly(x->sink.self, file_of_pid(x, v[i]->pid), v[i]);
    rep->anomalies = (int64_t)n;
    free(v);
    return rc;
}

/* Annotations of the run slice: names are built into `names` (freed by the caller). */
typedef struct argv_b {
    wt_export_arg *a;
    char **names;
    size_t n, cap;
    int oom;
} argv_b;

static wt_export_arg *arg_add(argv_b *b, const char *fmt, const char *sub)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 32;
        wt_export_arg *na = realloc(b->a, nc * sizeof *na);
        char **nn = na ? realloc(b->names, nc * sizeof *nn) : NULL;
        if (na)
            b->a = na;
        if (!na || !nn) {
            b->oom = 1;
            return NULL;
        }
        b->names = nn;
        b->cap = nc;
    }
    char *name = NULL;
    size_t len = strlen(fmt) + (sub ? strlen(sub) : 0) + 1;
    if (!(name = malloc(len))) {
        b->oom = 1;
        return NULL;
    }
    snprintf(name, len, fmt, sub ? sub : "");
    b->names[b->n] = name;
    wt_export_arg *a = &b->a[b->n++];
    memset(a, 0, sizeof *a);
    a->key = name;
    return a;
}

static void arg_str(argv_b *b, const char *fmt, const char *sub, const char *v)
{
    wt_export_arg *a = arg_add(b, fmt, sub);
    if (a) {
        a->type = WT_ARG_STR;
        a->s = v;
    }
}

static void arg_int(argv_b *b, const char *fmt, const char *sub, int64_t v)
{
    wt_export_arg *a = arg_add(b, fmt, sub);
    if (a) {
        a->type = WT_ARG_INT;
        a->i = v;
    }
}

static void arg_real(argv_b *b, const char *fmt, const char *sub, double v)
{
    wt_export_arg *a = arg_add(b, fmt, sub);
    if (a) {
        a->type = WT_ARG_REAL;
        a->d = v;
    }
}

static const char *end_text(const xfile *f, char *buf, size_t cap)
{
    if (f->end == WT_END_CLEAN)
        return "clean";
    if (f->end == WT_END_SIGNAL) {
        snprintf(buf, cap, "signal %d", f->signo);
        return buf;
    }
    return "none: the writer died or the file is cut; the run ends at the last event";
}

static int write_proc(xrun *x, size_t fi)
{
    const xfile *f = &x->files[fi];
    argv_b b = { 0 };
    char endbuf[32];
    arg_str(&b, "path", NULL, f->path);
    arg_int(&b, "pid", NULL, (int64_t)f->pid);
    arg_str(&b, "host", NULL, f->host);
    arg_str(&b, "recorder", NULL, f->recorder);
    arg_str(&b, "clock", NULL, f->clock);
    arg_str(&b, "end", NULL, end_text(f, endbuf, sizeof endbuf));
    if (f->damage || f->st.frames_damaged) {
        arg_int(&b, "damaged_frames", NULL, (int64_t)f->st.frames_damaged);
        arg_int(&b, "bytes_skipped", NULL, (int64_t)f->st.bytes_skipped);
    }
    for (size_t i = 0; i < f->n_meta; i++)
        arg_str(&b, "meta.%s", f->meta[i].key, f->meta[i].value);
    const wt_ledger_result *r = x->lc ? wt_ledger_calc_result(x->lc) : NULL;
    if (r) {
        /* this process's ledger, then the run's totals (on the first file's slice) */
        const wt_ledger_process *pr = fi < r->n_procs ? &r->procs[fi] : NULL;
        if (pr) {
            arg_real(&b, "ledger.process.wall_s", NULL, pr->wall);
            for (size_t c = 0; c < r->n_cats && pr->cat_seconds; c++)
                arg_real(&b, "ledger.process.%s.self_s", r->cats[c].name, pr->cat_seconds[c]);
        }
        if (fi == 0) {
            arg_real(&b, "ledger.run.wall_s", NULL, r->wall);
            arg_real(&b, "ledger.run.tracked_s", NULL, r->tracked);
            arg_real(&b, "ledger.run.untracked_s", NULL, r->untracked);
            arg_real(&b, "ledger.run.scale", NULL, r->scale);
            arg_int(&b, "ledger.run.spans", NULL, r->spans);
            for (size_t c = 0; c < r->n_cats; c++) {
                arg_real(&b, "ledger.run.%s.seconds", r->cats[c].name, r->cats[c].seconds);
                arg_real(&b, "ledger.run.%s.flat_s", r->cats[c].name, r->cats[c].flat_seconds);
                arg_int(&b, "ledger.run.%s.hits", r->cats[c].name, r->cats[c].hits);
                arg_int(&b, "ledger.run.%s.misses", r->cats[c].name, r->cats[c].misses);
            }
        }
    }
    int rc = WT_ENOMEM;
    if (!b.oom) {
        int64_t end = f->end != WT_END_NONE ? f->end_ts : f->last;
        wt_export_proc pe = { (int)fi, f->pid, f->begin, end < f->begin ? f->begin : end, b.a, b.n };
        rc = x->sink.proc_end(x->sink.self, &pe);
    }
    for (size_t i = 0; i < b.n; i++)
        free(b.names[i]);
    free(b.names);
    free(b.a);
    return rc;
}

static void xrun_release(xrun *x)
{
    for (size_t i = 0; i < x->n_files; i++) {
        xfile *f = &x->files[i];
        for (size_t j = 0; j < f->n_meta; j++) {
            free(f->meta[j].key);
            free(f->meta[j].value);
        }
        free(f->meta);
        free(f->path);
        free(f->host);
        free(f->recorder);
        free(f->clock);
    }
    free(x->files);
    wt_ledger_calc_free(x->lc);
    wt_anomalies_free(x->an);
    if (x->sink.free)
        x->sink.free(x->sink.self);
}

/* The second pass, for a sink that asked for it (Perfetto: rounds aligned at t=0): every file
 * again, straight from the reader. Damage was reported in pass 1, so it is skipped quietly. */
static int rescan(xrun *x, wt_export_report *rep)
{
    for (size_t i = 0; i < x->n_files; i++) {
        wt_reader *r = NULL;
        if (!x->files[i].path)
            continue;
        if (wt_reader_open(x->files[i].path, &r) < 0) {
            wt_cli_error("'%s': could not be read a second time: its rounds have no spans on "
                         "the aligned tracks", x->files[i].path);
            wt_reader_free(r);
            rep->pass2_failed++;
            continue;
        }
        int rc = x->sink.pass2_file(x->sink.self, (int)i), got;
        int64_t errors = 0;
        wt_event ev;
        while (rc == 0 && (got = wt_reader_next(r, &ev)) != 0) {
            if (got < 0) {
                if (++errors > 1000000) /* a reader that cannot get past damage */
                    break;
                continue;
            }
            rc = x->sink.pass2_event(x->sink.self, (int)i, &ev);
        }
        wt_reader_free(r);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int wt_export_stream(char *const *paths, int n, const wt_export_opts *o, FILE *out,
                     wt_export_report *rep)
{
    static const wt_source_ops ops = { on_file_begin, on_event, on_damage, on_file_end, NULL,
                                       on_upcoming };
    xrun x = { 0 };
    int rc;
    memset(rep, 0, sizeof *rep);
    rc = o->format == WT_EXPORT_CHROME ? wt__export_chrome_create(out, &x.sink)
                                       : wt__export_perfetto_create(out, o, &x.sink);
    if (rc < 0)
        goto out;
    if (!o->no_analysis) {
        if ((rc = wt_ledger_calc_create(NULL, &x.lc)) < 0 ||
            (rc = wt_anomalies_create(o->anomaly ? &o->anomaly->opts : NULL, &x.an)) < 0)
            goto out;
    }
    /* with the analyses, they see every event first (one key lookup per span, analysis.h)
     * and the export's callbacks come after them on the same pass */
    wt_analysis_pair pair = { x.lc, x.an, &ops, &x, NULL };
    char **ordered = wt_fork_order(paths, n); /* as the ledger reads them: children first */
    if (!ordered) {
        rc = WT_ENOMEM;
        goto out;
    }
    const int src_rc = x.lc ? wt_source_run(ordered, n, wt_analysis_pair_ops(), &pair, &rep->src)
                            : wt_source_run(ordered, n, &ops, &x, &rep->src);
    free(ordered);
    if (src_rc < 0 && x.rc == 0)
        x.rc = src_rc;
    if ((rc = x.rc) < 0)
        goto out;
    if (x.sink.pass2_begin && (rc = x.sink.pass2_begin(x.sink.self)) != 0) {
        if (rc < 0 || (rc = rescan(&x, rep)) < 0)
            goto out;
    }
    if (x.lc) {
        if ((rc = wt_ledger_calc_finish(x.lc)) < 0)
            goto out;
        if (o->check && o->check(o->check_ctx, wt_ledger_calc_result(x.lc)) != 0) {
            rep->check_failed = 1;
            rc = WT_EINVAL;
            goto out;
        }
        if ((rc = wt_anomalies_finish(x.an, wt_ledger_calc_result(x.lc), o->baseline)) < 0 ||
            (rc = write_anomalies(&x, rep)) < 0)
            goto out;
        if (o->anomaly)
            rep->gate = wt_anomaly_config_status(o->anomaly, x.an);
    }
    for (size_t i = 0; i < x.n_files; i++) {
        if (!x.files[i].path)
            continue;
        rep->frames_damaged += x.files[i].st.frames_damaged;
        rep->bytes_skipped += x.files[i].st.bytes_skipped;
        if ((rc = write_proc(&x, i)) < 0)
            goto out;
    }
    rc = x.sink.finish(x.sink.self);
out:
    rep->meta_dropped = x.meta_dropped;
    if (x.sink.get_stats)
        x.sink.get_stats(x.sink.self, &rep->sink);
    xrun_release(&x);
    return rc;
}
