/* `walltime-analyze export`: the export driver and the command.
 *
 * The driver streams the events of every file once, into the sink of the chosen format (see
 * export.h) and alongside into the analyzer's ledger and anomalies, whose results only exist at
 * the end of the run. It keeps per file only what the run slice needs at the end: the header's
 * times, the END record, at most WT_EXPORT_MAX_META metadata pairs, and the damage counts.
 * Output goes to a temporary file next to the target, renamed over it once complete, so a
 * failed export never leaves a half file under the name the user asked for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "analysis.h"
#include "source.h"
#include "commands.h"
#include "export.h"
#include "json.h"
#include "ledger.h"

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

static int on_damage(void *ctx, int fi, int64_t offset, const char *message)
{
    xrun *x = ctx;
    x->files[fi].damage++;
    return 0;
}

static int on_file_end(void *ctx, int fi, const wt_reader_stats *st)
{
    xrun *x = ctx;
    x->files[fi].st = *st;
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
    static const wt_source_ops ops = { on_file_begin, on_event, on_damage, on_file_end };
    xrun x = { 0 };
    int rc;
    memset(rep, 0, sizeof *rep);
    rc = o->format == WT_EXPORT_CHROME ? wt__export_chrome_create(out, &x.sink)
                                       : wt__export_perfetto_create(out, &x.sink);
    if (rc < 0)
        goto out;
    if (o->format != WT_EXPORT_CHROME && o->reference)
        wt__export_perfetto_reference(&x.sink, 1);
    if (!o->no_analysis) {
        if ((rc = wt_ledger_calc_create(NULL, &x.lc)) < 0 ||
            (rc = wt_anomalies_create(o->anomaly ? &o->anomaly->opts : NULL, &x.an)) < 0)
            goto out;
    }
    /* with the analyses, they see every event first (one key lookup per span, analysis.h)
     * and the export's callbacks come after them on the same pass */
    wt_analysis_pair pair = { x.lc, x.an, &ops, &x };
    const int src_rc = x.lc ? wt_source_run(paths, n, wt_analysis_pair_ops(), &pair, &rep->src)
                            : wt_source_run(paths, n, &ops, &x, &rep->src);
    if (src_rc < 0 && x.rc == 0)
        x.rc = src_rc;
    if ((rc = x.rc) < 0)
        goto out;
    if (x.sink.pass2_begin && (rc = x.sink.pass2_begin(x.sink.self)) != 0) {
        if (rc < 0 || (rc = rescan(&x, rep)) < 0)
            goto out;
    }
    if (x.lc) {
        if ((rc = wt_ledger_calc_finish(x.lc)) < 0 ||
            (rc = wt_anomalies_finish(x.an, wt_ledger_calc_result(x.lc), o->baseline)) < 0 ||
            (rc = write_anomalies(&x, rep)) < 0)
            goto out;
        if (o->anomaly)
            rep->gate = wt_anomaly_args_gate(o->anomaly, x.an);
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

int wt_export_to_path(char *const *paths, int n, const wt_export_opts *o, const char *out_path,
                      wt_export_report *rep)
{
    if (!strcmp(out_path, "-")) {
        int src = wt_export_stream(paths, n, o, stdout, rep);
        rep->written = src == 0;
        return src;
    }
    struct stat st;
    if (stat(out_path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device or a pipe (/dev/null, a FIFO): renaming a file over it would replace the
         * device itself, so it is written in place */
        FILE *f = fopen(out_path, "wb");
        if (!f) {
            memset(rep, 0, sizeof *rep);
            return WT_EOPEN;
        }
        int src = wt_export_stream(paths, n, o, f, rep);
        if (fclose(f) != 0 && src == 0)
            src = WT_EIO;
        rep->written = src == 0;
        return src;
    }
    /* the temporary name sits in the target's directory so rename() cannot cross devices */
    size_t len = strlen(out_path);
    char *tmp = malloc(len + 16);
    if (!tmp)
        return WT_ENOMEM;
    memcpy(tmp, out_path, len);
    memcpy(tmp + len, ".tmp-XXXXXX", 12);
    int rc, fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        memset(rep, 0, sizeof *rep);
        errno = e;
        return WT_EOPEN;
    }
    /* mkstemp makes the file 0600; an export is an ordinary file for the user's umask */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        rc = WT_ENOMEM;
        goto fail;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    rc = wt_export_stream(paths, n, o, f, rep);
    if (fclose(f) != 0 && rc == 0)
        rc = WT_EIO;
    if (rc < 0)
        goto fail;
    if (rep->src.files_ok + rep->src.files_damaged == 0) {
        unlink(tmp); /* nothing readable: keep whatever out_path was */
        free(tmp);
        return 0;
    }
    if (rename(tmp, out_path) != 0) {
        rc = WT_EOPEN;
        goto fail;
    }
    free(tmp);
    rep->written = 1;
    return 0;
fail : {
    int e = errno;
    unlink(tmp);
    free(tmp);
    errno = e;
    return rc;
}
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " WT_PROG " export [OPTIONS] [-o OUT] FILE.wtrace...\n"
            "\n"
            "Writes the timeline of the trace files (several files: one process each, on one\n"
            "timeline) for ui.perfetto.dev, chrome://tracing or speedscope. Perfetto also\n"
            "shows the keep/skip rounds again aligned at t=0 (the files are read twice).\n"
            "\n"
            "  -f, --format FMT         perfetto (protobuf, the default) or chrome (Trace Event JSON)\n"
            "  -o, --output OUT         the output file ('-': stdout); default: the first input\n"
            "                           with .pftrace (perfetto) or .json (chrome) for .wtrace\n"
            "      --no-analysis        skip the ledger and anomalies (no totals, no anomaly events)\n"
            "      --json               a report of what was written, as JSON on stdout\n"
            "  -h, --help               this text\n"
            "\n"
            "The anomalies in the timeline follow the same options as in `ledger` and `anomalies`:\n"
            "%s"
            "\n"
            "A damaged file exports what is readable (exit 4); the output is written to a\n"
            "temporary file and renamed, so a failed export leaves nothing behind (exit 1).\n",
            wt_anomaly_args_help);
}

/* --json: what was written, for scripts ("walltime-export/1"). */
static void print_report(const char *output, const wt_export_opts *o, const wt_export_report *r)
{
    wt_json j;
    wt_json_init(&j, stdout, 1);
    wt_json_object_begin(&j, NULL);
    wt_json_string(&j, "schema", "walltime-export/1");
    wt_json_string(&j, "output", output);
    wt_json_bool(&j, "written", r->written);
    wt_json_string(&j, "format", o->format == WT_EXPORT_CHROME ? "chrome" : "perfetto");
    wt_json_int(&j, "files_ok", r->src.files_ok);
    wt_json_int(&j, "files_damaged", r->src.files_damaged);
    wt_json_int(&j, "files_failed", r->src.files_failed);
    wt_json_uint(&j, "frames_damaged", r->frames_damaged);
    wt_json_uint(&j, "bytes_skipped", r->bytes_skipped);
    wt_json_int(&j, "spans", r->sink.spans);
    wt_json_int(&j, "instants", r->sink.instants);
    wt_json_int(&j, "counters", r->sink.counters);
    wt_json_int(&j, "rounds", r->sink.rounds);
    wt_json_int(&j, "anomalies", r->anomalies);
    wt_json_int(&j, "overlap_tracks_used", r->sink.lanes_extra);
    wt_json_int(&j, "misplaced", r->sink.misplaced);
    wt_json_int(&j, "aligned_rounds", r->sink.aligned_rounds);
    wt_json_int(&j, "aligned_spans", r->sink.aligned_spans);
    wt_json_int(&j, "aligned_dropped", r->sink.aligned_dropped);
    wt_json_int(&j, "depth_clamped", r->sink.depth_clamped);
    wt_json_int(&j, "meta_dropped", r->meta_dropped);
    wt_json_uint(&j, "bytes", r->sink.bytes);
    wt_json_object_end(&j);
    wt_json_finish(&j);
}

static char *default_output(const char *in, wt_export_format fmt)
{
    const char *ext = fmt == WT_EXPORT_CHROME ? ".json" : ".pftrace";
    size_t len = strlen(in);
    if (len > 7 && !strcmp(in + len - 7, ".wtrace"))
        len -= 7;
    char *s = malloc(len + strlen(ext) + 1);
    if (s) {
        memcpy(s, in, len);
        strcpy(s + len, ext);
    }
    return s;
}

/* "-o VALUE", "-oVALUE", "--output VALUE" or "--output=VALUE": the value, else NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *shrt, const char *lng,
                             int *err)
{
    const char *v = wt_args_match(argc, argv, i, lng, 1, err);
    if (v || *err)
        return v;
    if (!strncmp(argv[*i], shrt, 2) && argv[*i][2])
        return argv[*i] + 2;
    return wt_args_match(argc, argv, i, shrt, 1, err);
}

int cmd_export(int argc, char **argv)
{
    wt_anomaly_config aa;
    wt_anomaly_config_init(&aa);
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO, .anomaly = &aa };
    wt_ledger_calc *base = NULL;
    const char *output = NULL, *v;
    char *owned = NULL;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int json = 0, nfiles = 0, status = WT_EXIT_USAGE, only_files = 0;
    if (!files) {
        wt_cli_error("export: %s", wt_strerror(WT_ENOMEM));
        status = WT_EXIT_FAIL;
        goto out;
    }
    for (int i = 1; i < argc; i++) {
        int err = 0, r;
        const char *a = argv[i];
        if (only_files || a[0] != '-' || !a[1]) {
            files[nfiles++] = argv[i];
        } else if (!strcmp(a, "--")) {
            only_files = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            status = WT_EXIT_OK;
            goto out;
        } else if ((v = opt_value(argc, argv, &i, "-f", "--format", &err))) {
            if (!strcmp(v, "perfetto") || !strcmp(v, "proto")) {
                o.format = WT_EXPORT_PERFETTO;
            } else if (!strcmp(v, "chrome") || !strcmp(v, "json")) {
                o.format = WT_EXPORT_CHROME;
            } else {
                wt_cli_error("export: unknown format '%s' (perfetto or chrome)", v);
                goto out;
            }
        } else if (!err && (v = opt_value(argc, argv, &i, "-o", "--output", &err))) {
            output = v;
        } else if (!err && wt_args_match(argc, argv, &i, "--no-analysis", 0, &err)) {
            o.no_analysis = 1;
        } else if (!err && wt_args_match(argc, argv, &i, "--json", 0, &err)) {
            json = 1;
        } else if (err || (r = wt_anomaly_args_parse(&aa, argc, argv, &i)) < 0) {
            goto out;
        } else if (r == 0) {
            wt_cli_error("export: unknown option '%s'", a);
            usage(stderr);
            goto out;
        }
    }
    if (nfiles == 0) {
        wt_cli_error("export: no trace file given");
        usage(stderr);
        goto out;
    }
    status = WT_EXIT_FAIL;
    if (!output && !(output = owned = default_output(files[0], o.format))) {
        wt_cli_error("export: %s", wt_strerror(WT_ENOMEM));
        goto out;
    }
    if (aa.baseline) {
        if (o.no_analysis) {
            wt_cli_error("export: --baseline needs the analysis (drop --no-analysis)");
            status = WT_EXIT_USAGE;
            goto out;
        }
        if (wt_analysis_baseline(aa.baseline, &base) != 0)
            goto out;
        o.baseline = wt_ledger_calc_result(base);
    }
    wt_export_report rep;
    int rc = wt_export_to_path(files, nfiles, &o, output, &rep);
    if (rc == WT_EOPEN || rc == WT_EIO) {
        wt_cli_error("cannot write '%s': %s", output, strerror(errno));
    } else if (rc < 0) {
        wt_cli_error("export: '%s': %s", output, wt_strerror(rc));
    } else if (rep.src.files_ok + rep.src.files_damaged == 0) {
        wt_cli_error("'%s' not written: no input could be read", output);
    } else {
        if (rep.frames_damaged || rep.bytes_skipped)
            wt_cli_error("'%s': damaged input: %llu frames (%llu bytes) could not be read; the "
                         "timeline covers the rest",
                         output, (unsigned long long)rep.frames_damaged,
                         (unsigned long long)rep.bytes_skipped);
        if (rep.src.files_failed)
            wt_cli_error("'%s': %d input file(s) could not be read and are not in the timeline",
                         output, rep.src.files_failed);
        if (rep.sink.misplaced || rep.sink.depth_clamped)
            wt_cli_error("'%s': %lld spans overlap on their track, %lld deeper than %d were put "
                         "on the deepest track",
                         output, (long long)rep.sink.misplaced, (long long)rep.sink.depth_clamped,
                         WT_EXPORT_MAX_DEPTH);
        if (rep.sink.aligned_dropped)
            wt_cli_error("'%s': %lld rounds or spans past the first %d rounds (%d track groups) "
                         "are not on the tracks aligned at t=0",
                         output, (long long)rep.sink.aligned_dropped, WT_EXPORT_MAX_ALIGNED,
                         WT_EXPORT_MAX_ALIGNED_TRACKS);
        if (rep.meta_dropped)
            wt_cli_error("'%s': %lld metadata pairs past the first %d per file were left out",
                         output, (long long)rep.meta_dropped, WT_EXPORT_MAX_META);
        status = rep.gate ? rep.gate : wt_source_exit_status(&rep.src);
    }
    if (json && rc == 0 && strcmp(output, "-") != 0)
        print_report(output, &o, &rep);
out:
    wt_ledger_calc_free(base);
    wt_anomaly_config_release(&aa);
    free(owned);
    free(files);
    return status;
}
