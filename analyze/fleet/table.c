/* The warehouse tables: see table.h. Per file: a silent first pass for the rounds, then the
 * source driver's pass writing spans and counter samples as they come, and the runs row at the
 * file's end. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie, asprintf */
#endif
#include "table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "procname.h"
#include "selftime.h"
#include "spanstat.h"
#include "zfile.h"

/* One keep/skip round of the current file. */
typedef struct tbl_round {
    int64_t start, end, round;
    char *config;
} tbl_round;

/* Per thread: the nesting state for self time and parent ids (both as the ledger's rule). */
typedef struct tbl_thread {
    uint64_t tid;
    const char *name;   /* the reader's string, or NULL */
    int64_t *child_sum; /* [depth]: durations of finished children of the open span above */
    int64_t *pend_id;   /* [depth]: id reserved for the still open span at this depth */
    size_t cap;
} tbl_thread;

typedef struct tbl_meta {
    const char *key, *value; /* the reader's strings (valid until the file ends) */
} tbl_meta;

typedef struct tbl_ctx {
    const char *dir;
    wt_table_report *rep;
    /* the current file */
    const char *path;
    const wt_trace_info *info;
    char run_id[33];
    FILE *spans, *counters;
    char *tmp_spans, *tmp_counters;
    tbl_round *rounds;
    size_t n_rounds, cap_rounds;
    tbl_thread *threads;
    size_t n_threads, cap_threads;
    tbl_meta meta[WT_TABLE_MAX_META];
    size_t n_meta;
    wt_procname proc;
    int64_t next_id, n_spans, n_counters, last_ts, end_ts;
    int64_t delta;  /* UTC ns = monotonic ns + delta */
    int damaged, has_end;
    wt_trace_end end;
    int end_signal;
} tbl_ctx;

int wt_table_run_id(const wt_trace_info *info, char out[33])
{
    if (info->run_id[0]) {
        memcpy(out, info->run_id, 33);
        return 0;
    }
    /* two FNV-1a 64 hashes (different offsets) over what identifies a 1.0 run */
    uint64_t h[2] = { 1469598103934665603ULL, 0x84222325cbf29ce4ULL };
    int64_t nums[4] = { (int64_t)info->pid, info->process_start_ns, info->open_ns,
                        info->anchor_real_ns };
    const char *host = info->host ? info->host : "";
    for (int k = 0; k < 2; k++) {
        for (const char *s = host; *s; s++)
            h[k] = (h[k] ^ (unsigned char)*s) * 1099511628211ULL;
        for (int i = 0; i < 4; i++)
            for (int b = 0; b < 8; b++)
                h[k] = (h[k] ^ ((uint64_t)nums[i] >> (8 * b) & 0xFF)) * 1099511628211ULL;
    }
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h[0], (unsigned long long)h[1]);
    return 1;
}

/* ---- pass 1: the rounds ---- */

static int round_cmp(const void *a, const void *b)
{
    const tbl_round *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void rounds_clear(tbl_ctx *c)
{
    for (size_t i = 0; i < c->n_rounds; i++)
        free(c->rounds[i].config);
    c->n_rounds = 0;
}

/* Reads the file's rounds, sorted by start; damage is left for pass 2 to report. */
static int read_rounds(tbl_ctx *c, const char *path)
{
    wt_reader *r = NULL;
    int rc = wt_reader_open(path, &r);
    if (rc < 0) {
        wt_reader_free(r);
        return 0; /* pass 2 says why */
    }
    wt_event ev;
    rc = 0;
    int nrc;
    while (rc == 0 && (nrc = wt_reader_next(r, &ev)) != 0) {
        if (nrc < 0 || ev.kind != WT_EV_ROUND)
            continue;
        if (c->n_rounds >= WT_TABLE_MAX_ROUNDS) {
            c->rep->rounds_dropped++;
            continue;
        }
        tbl_round *nr = wt__grow_array(c->rounds, &c->cap_rounds, c->n_rounds + 1, sizeof *nr);
        char *cfg = strdup(ev.name ? ev.name : "");
        if (!nr || !cfg) {
            free(cfg);
            rc = WT_ENOMEM;
            break;
        }
        c->rounds = nr;
        int64_t dur = ev.dur > 0 ? ev.dur : 0;
        c->rounds[c->n_rounds++] = (tbl_round){ ev.ts, ev.ts + dur, ev.count, cfg };
    }
    wt_reader_free(r);
    if (c->n_rounds > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(c->rounds, c->n_rounds, sizeof *c->rounds, round_cmp);
    return rc;
}

/* The round whose window holds `ts` (the last one starting at or before it), or NULL. */
static const tbl_round *round_at(const tbl_ctx *c, int64_t ts)
{
    size_t lo = 0, hi = c->n_rounds;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->rounds[mid].start <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || ts >= c->rounds[lo - 1].end)
        return NULL;
    return &c->rounds[lo - 1];
}

static void json_round(wt_json *j, const tbl_round *r)
{
    wt_json_int(j, "round", r ? r->round : -1);
    wt_json_string(j, "config", r ? r->config : "");
}

/* ---- pass 2: rows ---- */

static tbl_thread *thread_of(tbl_ctx *c, uint64_t tid)
{
    for (size_t i = c->n_threads; i-- > 0;)
        if (c->threads[i].tid == tid)
            return &c->threads[i];
    tbl_thread *nt = wt__grow_array(c->threads, &c->cap_threads, c->n_threads + 1, sizeof *nt);
    if (!nt)
        return NULL;
    c->threads = nt;
    tbl_thread *t = &c->threads[c->n_threads++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    return t;
}

static int thread_depth(tbl_thread *t, size_t need)
{
    if (need <= t->cap)
        return 0;
    size_t cap = t->cap ? t->cap : 8;
    while (cap < need)
        cap *= 2;
    int64_t *cs = realloc(t->child_sum, cap * sizeof *cs);
    if (!cs)
        return WT_ENOMEM;
    t->child_sum = cs;
    int64_t *pi = realloc(t->pend_id, cap * sizeof *pi);
    if (!pi)
        return WT_ENOMEM;
    t->pend_id = pi;
    memset(cs + t->cap, 0, (cap - t->cap) * sizeof *cs);
    memset(pi + t->cap, 0, (cap - t->cap) * sizeof *pi);
    t->cap = cap;
    return 0;
}

static void json_times(wt_json *j, const tbl_ctx *c, const char *utc, const char *mono, int64_t ns)
{
    wt_json_int(j, utc, ns + c->delta);
    wt_json_int(j, mono, ns);
}

static const char *cached_name(wt_cached k)
{
    return k == WT_CACHED_HIT ? "HIT" : k == WT_CACHED_MISS ? "MISS" : "";
}

static int write_span(tbl_ctx *c, const wt_event *ev)
{
    tbl_thread *t = thread_of(c, ev->tid);
    if (!t)
        return WT_ENOMEM;
    const uint32_t d = wt__self_depth(ev->depth);
    if (thread_depth(t, (size_t)d + 2) < 0)
        return WT_ENOMEM;
    const int64_t dur = ev->dur > 0 ? ev->dur : 0;
    const int64_t self = wt__self_time(t->child_sum, d, dur);
    /* ids: a child reserves its parent's id before the parent arrives */
    int64_t id = t->pend_id[d] ? t->pend_id[d] : ++c->next_id;
    t->pend_id[d] = 0;
    t->pend_id[d + 1] = 0; /* a reservation no span at d+1 took (damage): not ours */
    int64_t parent = 0;
    if (d > 0)
        parent = t->pend_id[d - 1] ? t->pend_id[d - 1] : (t->pend_id[d - 1] = ++c->next_id);
    if (ev->ts + dur > c->last_ts)
        c->last_ts = ev->ts + dur;

    wt_json j;
    wt_json_init(&j, c->spans, 0);
    wt_json_object_begin(&j, NULL);
    wt_json_string(&j, "run_id", c->run_id);
    wt_json_uint(&j, "pid", ev->pid);
    wt_json_uint(&j, "tid", ev->tid);
    wt_json_string(&j, "thread", t->name ? t->name : "");
    wt_json_string(&j, "category", ev->category ? ev->category : "");
    wt_json_string(&j, "label", ev->label ? ev->label : "");
    json_times(&j, c, "start_utc_ns", "start_ns", ev->ts);
    json_times(&j, c, "end_utc_ns", "end_ns", ev->ts + dur);
    wt_json_int(&j, "dur_ns", dur);
    wt_json_int(&j, "self_ns", self);
    wt_json_int(&j, "depth", ev->depth);
    wt_json_int(&j, "span_id", id);
    wt_json_int(&j, "parent_id", parent);
    wt_json_string(&j, "cached", cached_name(ev->cached));
    wt_json_int(&j, "count", ev->count);
    wt_json_int(&j, "bytes", ev->bytes);
    wt_json_string(&j, "detail", ev->detail ? ev->detail : "");
    json_round(&j, round_at(c, ev->ts));
    wt_json_bool(&j, "unclosed", (ev->flags & WT_EVF_UNCLOSED) != 0);
    wt_json_bool(&j, "measured", (ev->flags & WT_EVF_MEASURED) != 0);
    wt_json_object_end(&j);
    wt_json_finish(&j);
    c->n_spans++;
    return 0;
}

static void write_counter(tbl_ctx *c, const wt_event *ev)
{
    wt_json j;
    wt_json_init(&j, c->counters, 0);
    wt_json_object_begin(&j, NULL);
    wt_json_string(&j, "run_id", c->run_id);
    wt_json_uint(&j, "pid", ev->pid);
    wt_json_uint(&j, "tid", ev->tid);
    wt_json_string(&j, "name", ev->name ? ev->name : "");
    json_times(&j, c, "ts_utc_ns", "ts_ns", ev->ts);
    wt_json_int(&j, "value", ev->value);
    json_round(&j, round_at(c, ev->ts));
    wt_json_object_end(&j);
    wt_json_finish(&j);
    c->n_counters++;
}

/* A META pair: the last value of a key wins, in the key's first place. */
static void keep_meta(tbl_ctx *c, const wt_event *ev)
{
    if (!ev->name)
        return;
    for (size_t i = 0; i < c->n_meta; i++)
        if (!strcmp(c->meta[i].key, ev->name)) {
            c->meta[i].value = ev->detail;
            return;
        }
    if (c->n_meta >= WT_TABLE_MAX_META) {
        c->rep->meta_dropped++;
        return;
    }
    c->meta[c->n_meta++] = (tbl_meta){ ev->name, ev->detail };
}

static int on_event(void *ctx, int fi, const wt_event *ev)
{
    (void)fi;
    tbl_ctx *c = ctx;
    switch (ev->kind) {
    case WT_EV_SPAN:
        return write_span(c, ev);
    case WT_EV_COUNTER:
        write_counter(c, ev);
        break;
    case WT_EV_META:
        keep_meta(c, ev);
        wt_procname_event(&c->proc, ev);
        break;
    case WT_EV_THREAD_NAME: {
        tbl_thread *t = thread_of(c, ev->tid);
        if (!t)
            return WT_ENOMEM;
        t->name = ev->name;
        break;
    }
    case WT_EV_END:
        c->has_end = 1;
        c->end_ts = ev->ts;
        break;
    default:
        break;
    }
    if (ev->kind != WT_EV_SPAN && ev->kind != WT_EV_SYNC && ev->ts > c->last_ts)
        c->last_ts = ev->ts;
    return 0;
}

static int on_damage(void *ctx, int fi, int64_t off, const char *msg)
{
    (void)fi, (void)off, (void)msg;
    ((tbl_ctx *)ctx)->damaged = 1;
    return 0;
}

/* DIR/PREFIX-RUNID.jsonl.zst, or with tmp its hidden temporary twin. */
static char *table_path(const tbl_ctx *c, const char *prefix, int tmp)
{
    char *s = NULL;
    if (asprintf(&s, "%s/%s%s-%s.jsonl.zst%s", c->dir, tmp ? "." : "", prefix, c->run_id,
                 tmp ? ".tmp" : "") < 0)
        return NULL;
    return s;
}

static int on_begin(void *ctx, int fi, const char *path, const wt_trace_info *info)
{
    (void)fi;
    tbl_ctx *c = ctx;
    c->path = path;
    c->info = info;
    c->rep->legacy_ids += wt_table_run_id(info, c->run_id);
    c->delta = info->anchor_real_ns - info->anchor_mono_ns;
    c->last_ts = info->open_ns;
    wt_procname_init(&c->proc, info->pid);
    c->tmp_spans = table_path(c, "spans", 1);
    c->tmp_counters = table_path(c, "counters", 1);
    if (!c->tmp_spans || !c->tmp_counters)
        return WT_ENOMEM;
    c->spans = wt_zfile_open(c->tmp_spans, 0);
    c->counters = c->spans ? wt_zfile_open(c->tmp_counters, 0) : NULL;
    return c->counters ? 0 : WT_EOPEN;
}

/* "2026-01-01T00:00:01.250000000Z" */
static void utc_string(int64_t ns, char *buf, size_t n)
{
    int64_t sec = ns / 1000000000, frac = ns % 1000000000;
    if (frac < 0) {
        frac += 1000000000;
        sec--;
    }
    time_t t = (time_t)sec;
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(buf, n, "%s", "");
        return;
    }
    size_t k = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + k, n - k, ".%09lldZ", (long long)frac);
}

static const char *end_name(wt_trace_end e)
{
    return e == WT_END_CLEAN ? "clean" : e == WT_END_SIGNAL ? "signal" : "none";
}

static int write_run(tbl_ctx *c, FILE *out, const wt_reader_stats *st)
{
    const wt_trace_info *in = c->info;
    const int64_t start = in->process_start_ns ? in->process_start_ns : in->open_ns;
    const int64_t end = c->has_end ? c->end_ts : c->last_ts;
    char when[64], fmt[16];
    utc_string(start + c->delta, when, sizeof when);
    snprintf(fmt, sizeof fmt, "%u.%u", in->format_major, in->format_minor);
    wt_json j;
    wt_json_init(&j, out, 0);
    wt_json_object_begin(&j, NULL);
    wt_json_string(&j, "schema", WT_TABLE_SCHEMA);
    wt_json_string(&j, "run_id", c->run_id);
    wt_json_string(&j, "host", in->host ? in->host : "");
    wt_json_string(&j, "boot_id", in->boot_id ? in->boot_id : "");
    wt_json_uint(&j, "pid", in->pid);
    wt_json_uint(&j, "parent_pid", in->parent_pid);
    wt_json_int(&j, "rank", c->proc.has_rank ? c->proc.rank : -1);
    wt_json_string(&j, "command", in->cmdline ? in->cmdline : "");
    wt_json_string(&j, "recorder", in->recorder ? in->recorder : "");
    wt_json_string(&j, "format", fmt);
    wt_json_string(&j, "clock", in->clock ? in->clock : "");
    wt_json_string(&j, "start_utc", when);
    json_times(&j, c, "start_utc_ns", "start_ns", start);
    json_times(&j, c, "end_utc_ns", "end_ns", end);
    wt_json_int(&j, "wall_ns", end > start ? end - start : 0);
    wt_json_int(&j, "anchor_err_ns", in->anchor_err_ns);
    wt_json_string(&j, "ended", end_name(st->end));
    wt_json_int(&j, "end_signal", st->end == WT_END_SIGNAL ? st->end_signal : 0);
    wt_json_bool(&j, "damaged", c->damaged);
    wt_json_int(&j, "spans", c->n_spans);
    wt_json_int(&j, "counters", c->n_counters);
    wt_json_string(&j, "file", c->path);
    wt_json_object_begin(&j, "meta");
    for (size_t i = 0; i < c->n_meta; i++)
        wt_json_string(&j, c->meta[i].key, c->meta[i].value ? c->meta[i].value : "");
    wt_json_object_end(&j);
    wt_json_object_end(&j);
    wt_json_finish(&j);
    return 0;
}

/* After a call that returned rc with errno set on failure: the first failure's cause, for the
 * command's message (a full disk, a file size limit). */
static void io_cause(tbl_ctx *c, int rc)
{
    if (rc == WT_EIO && !c->rep->io_errno)
        c->rep->io_errno = errno;
}

/* Closes the current file's temporaries; on success renames them into place (runs last). */
static int close_file(tbl_ctx *c, const wt_reader_stats *st)
{
    int rc = wt_zfile_close(c->spans);
    io_cause(c, rc);
    int rc2 = wt_zfile_close(c->counters);
    io_cause(c, rc2);
    c->spans = c->counters = NULL;
    if (rc == 0)
        rc = rc2;
    char *run_tmp = NULL, *names[3] = { NULL, NULL, NULL };
    if (rc == 0 && st) {
        run_tmp = table_path(c, "runs", 1);
        names[0] = table_path(c, "spans", 0);
        names[1] = table_path(c, "counters", 0);
        names[2] = table_path(c, "runs", 0);
        FILE *f = run_tmp ? wt_zfile_open(run_tmp, 0) : NULL;
        if (!f || !names[0] || !names[1] || !names[2])
            rc = f || !run_tmp ? WT_ENOMEM : WT_EOPEN;
        if (f) {
            write_run(c, f, st);
            int crc = wt_zfile_close(f);
            io_cause(c, crc);
            if (rc == 0)
                rc = crc;
        }
        if (rc == 0 && (rename(c->tmp_spans, names[0]) != 0 ||
                        rename(c->tmp_counters, names[1]) != 0 || rename(run_tmp, names[2]) != 0)) {
            rc = WT_EIO;
            io_cause(c, rc);
        }
    }
    if (rc != 0 || !st) {
        if (c->tmp_spans)
            unlink(c->tmp_spans);
        if (c->tmp_counters)
            unlink(c->tmp_counters);
        if (run_tmp)
            unlink(run_tmp);
    }
    free(run_tmp);
    for (int i = 0; i < 3; i++)
        free(names[i]);
    free(c->tmp_spans);
    free(c->tmp_counters);
    c->tmp_spans = c->tmp_counters = NULL;
    return rc;
}

static int on_end(void *ctx, int fi, const wt_reader_stats *st)
{
    (void)fi;
    tbl_ctx *c = ctx;
    int rc = close_file(c, st);
    if (rc == 0) {
        c->rep->runs++;
        c->rep->spans += c->n_spans;
        c->rep->counters += c->n_counters;
    }
    return rc;
}

/* Forgets the current file's state (its strings die with its reader). */
static void file_reset(tbl_ctx *c)
{
    rounds_clear(c);
    for (size_t i = 0; i < c->n_threads; i++) {
        free(c->threads[i].child_sum);
        free(c->threads[i].pend_id);
    }
    c->n_threads = 0;
    c->n_meta = 0;
    c->next_id = c->n_spans = c->n_counters = 0;
    c->damaged = c->has_end = 0;
    c->end_ts = 0;
}

static int make_dir(const char *dir)
{
    struct stat sb;
    if (mkdir(dir, 0777) == 0 || (errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode)))
        return access(dir, W_OK) == 0 ? 0 : WT_EOPEN;
    if (errno == EEXIST)
        errno = ENOTDIR;
    return WT_EOPEN;
}

int wt_table_export_inputs(wt_inputs *in, const char *dir, wt_table_report *rep)
{
    static const wt_source_ops ops = { on_begin, on_event, on_damage, on_end, NULL, NULL };
    memset(rep, 0, sizeof *rep);
    int rc = make_dir(dir);
    if (rc < 0)
        return rc;
    tbl_ctx *c = calloc(1, sizeof *c);
    char *path = malloc(WT_INPUTS_PATH_MAX); /* the file being read, taken from `in` */
    if (!c || !path) {
        free(c);
        free(path);
        return WT_ENOMEM;
    }
    c->dir = dir;
    c->rep = rep;
    int got;
    while (rc == 0 && (got = wt_inputs_next(in, path)) != 0) {
        if (got < 0) {
            rc = got;
            break;
        }
        wt_source_result one = { 0 };
        rc = read_rounds(c, path);
        if (rc == 0)
            rc = wt_source_run(&path, 1, &ops, c, &one);
        if (rc != 0 && (c->spans || c->tmp_spans))
            close_file(c, NULL); /* stopped inside the file: leave nothing behind */
        file_reset(c);
        rep->src.files_ok += one.files_ok;
        rep->src.files_failed += one.files_failed;
        rep->src.files_damaged += one.files_damaged;
        rep->src.files_no_end += one.files_no_end;
    }
    rep->src.files_failed += wt_inputs_failed(in); /* lines and directories passed over */
    free(path);
    free(c->rounds);
    free(c->threads);
    free(c);
    return rc;
}

int wt_table_export(char *const *paths, int n, const char *dir, wt_table_report *rep)
{
    wt_inputs *in = NULL;
    int rc = wt_inputs_create("export", &in);
    if (rc == 0 && n > 0)
        rc = wt_inputs_add_paths(in, paths, (size_t)n);
    if (rc == 0)
        rc = wt_table_export_inputs(in, dir, rep);
    wt_inputs_free(in);
    return rc;
}
