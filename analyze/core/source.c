/* The source driver that streams trace files into analyses, and shared diagnostics: see source.h. */
#include "source.h"

#include "clocks.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static atomic_int said; /* wt_cli_error() was called (by any thread: trend's workers) */

int wt_cli_said(void) { return atomic_load_explicit(&said, memory_order_relaxed); }

/* One line under stderr's lock: stderr is unbuffered, so its three parts are three writes,
 * and trend's workers report damaged files while others do (test_cli_error). */
void wt_cli_error(const char *fmt, ...)
{
    va_list ap;
    atomic_store_explicit(&said, 1, memory_order_relaxed);
    /* what stdout holds goes first: its buffer is a MiB when it is not a terminal
     * (wt_args_stdout_buffered()), and both may go to one file or pipe, where a message
     * belongs after the output that came before it */
    fflush(stdout);
    flockfile(stderr);
    fputs(WT_PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    funlockfile(stderr);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A progress line on a terminal, redrawn at most 4 times a second, after the first second. */
typedef struct progress {
    int on;
    double t0, last;
    int shown;
} progress;

/* `events` went up from `before`: a check each time it passes a multiple of 65536. */
static void progress_tick(progress *p, const char *path, uint64_t before, uint64_t events)
{
    if (!p->on || (before >> 16) == (events >> 16))
        return;
    double t = now_s();
    if (t - p->t0 < 1.0 || t - p->last < 0.25)
        return;
    p->last = t;
    p->shown = 1;
    fprintf(stderr, "\r%s: %s: %llu events", WT_PROG, path, (unsigned long long)events);
}

static void progress_clear(progress *p)
{
    if (p->shown)
        fputs("\r\033[K", stderr);
    p->shown = 0;
}

/* Which clock the run used and how far it can be trusted, once per process (compare reads
 * the files several times). */
static void say_aligned(const wt_source_result *res, int files)
{
    static atomic_int aligned_said; /* atomic: trend's workers run sources of their own */
    if (atomic_fetch_add_explicit(&aligned_said, 1, memory_order_relaxed))
        return;
    char err[64];
    if (res->anchor_err_ns >= 0)
        snprintf(err, sizeof err, "read within %.1f us", (double)res->anchor_err_ns / 1e3);
    else
        snprintf(err, sizeof err, "of unknown uncertainty (files older than format 1.1)");
    wt_cli_error("%d files of %d clocks (hosts or boots): aligned on UTC through each trace's "
                 "anchor, %s, plus the hosts' own UTC error (NTP); files of one boot share "
                 "CLOCK_MONOTONIC, exact",
                 files, res->clocks, err);
}

/* What makes two paths the same trace: the same file (device and inode), or the same
 * recording (every header field equal, the 1.1 run id included: a copy of the file). */
typedef struct seen_file {
    dev_t dev;
    ino_t ino;
    int have_ino;
    wt_trace_info info; /* strings point into `text` */
    char *text;
    const char *path;
} seen_file;

static int same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static int same_recording(const wt_trace_info *a, const wt_trace_info *b)
{
    return a->format_major == b->format_major && a->format_minor == b->format_minor &&
           a->pid == b->pid && a->process_start_ns == b->process_start_ns &&
           a->open_ns == b->open_ns && a->anchor_mono_ns == b->anchor_mono_ns &&
           a->anchor_real_ns == b->anchor_real_ns && a->tsc_hz == b->tsc_hz &&
           same_str(a->clock, b->clock) && same_str(a->host, b->host) &&
           same_str(a->cmdline, b->cmdline) && same_str(a->recorder, b->recorder) &&
           a->parent_pid == b->parent_pid && !strcmp(a->run_id, b->run_id) &&
           same_str(a->boot_id, b->boot_id) && a->anchor_err_ns == b->anchor_err_ns;
}

/* Copies the header's strings into one allocation owned by *f. Returns 0 or -1. */
static int keep_info(seen_file *f, const wt_trace_info *info)
{
    const char *src[5] = { info->clock, info->host, info->cmdline, info->recorder, info->boot_id };
    size_t len = 0;
    for (int k = 0; k < 5; k++)
        len += src[k] ? strlen(src[k]) + 1 : 0;
    f->info = *info;
    f->text = malloc(len ? len : 1);
    if (!f->text)
        return -1;
    const char **dst[5] = { &f->info.clock, &f->info.host, &f->info.cmdline, &f->info.recorder,
                            &f->info.boot_id };
    char *p = f->text;
    for (int k = 0; k < 5; k++) {
        if (!src[k])
            continue;
        const size_t n = strlen(src[k]) + 1;
        memcpy(p, src[k], n);
        *dst[k] = p;
        p += n;
    }
    return 0;
}

/* The earlier path that is the same trace as this one, or NULL; says so on stderr. */
static const char *duplicate_of(const seen_file *seen, int n_seen, const seen_file *f)
{
    for (int k = 0; k < n_seen; k++) {
        const int same_file = f->have_ino && seen[k].have_ino && seen[k].dev == f->dev &&
                              seen[k].ino == f->ino;
        if (same_file || same_recording(&seen[k].info, &f->info)) {
            wt_cli_error("'%s' is the same trace as '%s' (%s): counted once", f->path,
                         seen[k].path, same_file ? "the same file" : "an identical header: a copy");
            return seen[k].path;
        }
    }
    return NULL;
}

/* Done with the reader of a file: freed, or kept in *keep for the next file. */
static void put_reader(wt_reader *r, wt_reader **keep)
{
    if (keep)
        *keep = r;
    else
        wt_reader_free(r);
}

/* Spans per batch: 7 KiB of stack, enough that the callback's per-batch work is noise. */
#define SPAN_BATCH 128
/* A batch of this many spans pays for trying (below it, the tries back off) */
#define BATCH_PAYS 4

/* The batches of one file (wt_source_ops.spans). They are tried after a batch or a span
 * event (or a counter sample's, when they take those). Where spans come one at a time (a
 * counter after each), a batch of one costs more than the event, and trying costs too: after
 * an empty or short batch the next tries wait for 1, 3, 7 ... up to 127 span events, until a
 * batch of BATCH_PAYS spans or more. */
typedef struct batcher {
    wt_span_rec spans[SPAN_BATCH];
    wt_span_batch b;
    int64_t shift;     /* the file's clock shift (clocks.h) */
    int shift_ts;      /* the batches carry ts (wt_reader_span_fields()): it is shifted */
    int counters;      /* the batches take counter samples too (wt_reader_next_records()) */
    unsigned backoff;  /* span events to wait after the next empty or short batch */
    unsigned skip;     /* span events still to wait before trying again */
    int on;            /* try at the next event */
} batcher;

/* Delivers batches while they come full enough; then bt->on is 0. Returns 0 or the callback's
 * value. Out of the event loop, so that the loop stays as tight as without batches. */
static __attribute__((noinline)) int run_batches(batcher *bt, wt_reader *r,
                                                 const wt_source_ops *ops, void *ctx, int fi,
                                                 progress *pg, const char *path,
                                                 uint64_t *events)
{
    for (;;) {
        const size_t n = bt->counters ? wt_reader_next_records(r, bt->spans, SPAN_BATCH, &bt->b.tid)
                                      : wt_reader_next_spans(r, bt->spans, SPAN_BATCH, &bt->b.tid);
        if (n < BATCH_PAYS) {
            bt->on = 0;
            bt->backoff = bt->backoff < 64 ? 2 * bt->backoff + 1 : bt->backoff;
            bt->skip = bt->backoff;
        } else {
            bt->backoff = 0;
        }
        if (n == 0)
            return 0;
        progress_tick(pg, path, *events, *events + n);
        *events += n;
        if (bt->shift && bt->shift_ts)
            for (size_t k = 0; k < n; k++)
                bt->spans[k].ts += bt->shift;
        bt->b.n = n;
        bt->b.string_epoch = wt_reader_string_epoch(r);
        const int rc = ops->spans(ctx, fi, &bt->b);
        if (rc != 0 || !bt->on)
            return rc;
    }
}

/* Reads the file of r into `ops` to its end; returns 0, WT_ENOMEM or a callback's non-zero
 * value. Sets *damaged when damage was met. `batching` (ops->spans != NULL) and `counters`
 * (the batches take counter samples) are constants in each of the three copies the compiler
 * makes, so that reading without batches, or with batches of spans only, costs what it did
 * before them (a test of a variable per counter sample cost ledger 1.5 % on the counters
 * shape). */
static inline __attribute__((always_inline)) int read_file(wt_reader *r, const wt_source_ops *ops,
                                                           void *ctx, int fi, const char *path,
                                                           int64_t shift, uint64_t pid,
                                                           unsigned span_fields,
                                                           const int counters, int *damaged,
                                                           const int batching)
{
    progress pg = { isatty(2), now_s(), 0, 0 };
    uint64_t events = 0;
    wt_event ev;
    int rc = 0;
    batcher bt;
    bt.on = batching;
    if (batching) {
        bt.shift = shift;
        bt.counters = counters;
        bt.shift_ts = span_fields == 0 || (span_fields & WT_SPANF_TS) || bt.counters;
        bt.backoff = bt.skip = 0;
        bt.b = (wt_span_batch){ bt.spans, 0, pid, 0, r, 0 };
    }
    while (rc == 0) {
        if (batching && bt.on && (rc = run_batches(&bt, r, ops, ctx, fi, &pg, path, &events)) != 0)
            break;
        int nrc = wt_reader_next(r, &ev);
        if (nrc == 0)
            break;
        if (nrc == WT_ENOMEM) {
            /* not damage: the file may be whole; the run cannot go on (exit 1) */
            progress_clear(&pg);
            wt_cli_error("%s", wt_reader_error(r));
            rc = WT_ENOMEM;
            break;
        }
        if (nrc < 0) {
            progress_clear(&pg);
            *damaged = 1;
            wt_cli_error("%s", wt_reader_error(r));
            if (ops->damage)
                rc = ops->damage(ctx, fi, wt_reader_error_offset(r), wt_reader_error(r));
            continue;
        }
        progress_tick(&pg, path, events, events + 1);
        events++;
        if (batching && !bt.on &&
            (ev.kind == WT_EV_SPAN || (counters && ev.kind == WT_EV_COUNTER))) {
            if (bt.skip)
                bt.skip--;
            else
                bt.on = 1;
        }
        ev.ts += shift;
        if (ops->event)
            rc = ops->event(ctx, fi, &ev);
    }
    progress_clear(&pg);
    return rc;
}

static int source_run(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                      wt_source_result *res, int raw_clocks, wt_reader **keep,
                      unsigned span_fields, int counters)
{
    int rc = 0, index = 0, n_seen = 0;
    wt_clocks clk = { 0 };
    memset(res, 0, sizeof *res);
    seen_file *seen = n > 0 ? calloc((size_t)n, sizeof *seen) : NULL;
    if (n > 0 && !seen) {
        wt_cli_error("out of memory");
        return WT_ENOMEM;
    }
    for (int i = 0; i < n && rc == 0; i++) {
        wt_reader *r = keep ? *keep : NULL;
        int orc = r ? wt_reader_reopen(r, paths[i]) : wt_reader_open(paths[i], &r);
        wt_reader_span_fields(r, span_fields); /* r may be NULL: does nothing */
        if (orc == WT_ENOMEM) {
            wt_cli_error("%s", r && *wt_reader_error(r) ? wt_reader_error(r) : "out of memory");
            put_reader(r, keep);
            rc = WT_ENOMEM;
            break;
        }
        if (orc < 0) {
            if (r)
                wt_cli_error("%s", wt_reader_error(r));
            else
                wt_cli_error("%s: %s", paths[i], wt_strerror(orc));
            put_reader(r, keep);
            res->files_failed++;
            continue;
        }
        seen_file *f = &seen[n_seen];
        struct stat sb;
        f->path = paths[i];
        if (stat(paths[i], &sb) == 0) {
            f->dev = sb.st_dev;
            f->ino = sb.st_ino;
            f->have_ino = 1;
        }
        if (keep_info(f, wt_reader_info(r)) < 0) {
            wt_cli_error("out of memory");
            put_reader(r, keep);
            rc = WT_ENOMEM;
            break;
        }
        if (duplicate_of(seen, n_seen, f)) {
            free(f->text);
            memset(f, 0, sizeof *f);
            put_reader(r, keep);
            res->files_duplicate++;
            continue;
        }
        n_seen++;
        int fi = index++;
        int64_t shift = 0;
        wt_trace_info shifted;
        const wt_trace_info *info = wt_reader_info(r);
        if (!raw_clocks && (rc = wt_clocks_file(&clk, info, &shift)) == 0 && shift) {
            wt_clocks_shift_info(info, shift, &shifted);
            info = &shifted;
        }
        if (rc == 0 && ops->file_begin)
            rc = ops->file_begin(ctx, fi, paths[i], info);
        int damaged = 0;
        if (rc == 0)
            rc = !ops->spans ? read_file(r, ops, ctx, fi, paths[i], shift, info->pid, 0, 0,
                                         &damaged, 0)
                 : counters  ? read_file(r, ops, ctx, fi, paths[i], shift, info->pid, span_fields,
                                         1, &damaged, 1)
                             : read_file(r, ops, ctx, fi, paths[i], shift, info->pid, span_fields,
                                         0, &damaged, 1);
        wt_reader_stats st;
        wt_reader_get_stats(r, &st);
        if (st.strings_past_limit)
            wt_cli_error("'%s': %llu strings past the reader's limit of %u strings and %u MiB "
                         "read as \"(string past the reader's limit)\"", paths[i],
                         (unsigned long long)st.strings_past_limit, WT_READER_MAX_STRINGS,
                         WT_READER_MAX_STRING_BYTES >> 20);
        if (rc == 0 && !damaged && st.frames + st.frames_damaged == 0 && st.end == WT_END_NONE) {
            /* a header and nothing after it: the recorder writes its first frame soon after
             * the first event, so the process died before that (issue 10, item 13) */
            char msg[600];
            snprintf(msg, sizeof msg,
                     "'%s': at byte %llu: only a header, no data: the recording was probably "
                     "killed early, before its first write", paths[i],
                     (unsigned long long)st.file_bytes);
            damaged = 1;
            wt_cli_error("%s", msg);
            if (ops->damage)
                rc = ops->damage(ctx, fi, (int64_t)st.file_bytes, msg);
        }
        if (st.end == WT_END_NONE)
            res->files_no_end++;
        if (damaged)
            res->files_damaged++;
        else
            res->files_ok++;
        if (rc == 0 && ops->file_end)
            rc = ops->file_end(ctx, fi, &st);
        put_reader(r, keep);
    }
    res->clocks = (int)clk.n;
    res->anchor_err_ns = clk.anchor_err_max;
    if (wt_clocks_aligned(&clk))
        say_aligned(res, clk.files);
    wt_clocks_release(&clk);
    for (int k = 0; k < n_seen; k++)
        free(seen[k].text);
    free(seen);
    return rc;
}

int wt_source_run(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                  wt_source_result *res)
{
    return source_run(paths, n, ops, ctx, res, 0, NULL, 0, 0);
}

int wt_source_run_reusing(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                          wt_source_result *res, wt_reader **reader, unsigned span_fields)
{
    return source_run(paths, n, ops, ctx, res, 0, reader, span_fields, 0);
}

int wt_source_run_raw(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                      wt_source_result *res)
{
    return source_run(paths, n, ops, ctx, res, 1, NULL, 0, 0);
}

int wt_source_run_counters(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                           wt_source_result *res)
{
    return source_run(paths, n, ops, ctx, res, 0, NULL, 0, 1);
}

int wt_source_run_raw_counters(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                               wt_source_result *res)
{
    return source_run(paths, n, ops, ctx, res, 1, NULL, 0, 1);
}

int wt_source_exit_status(const wt_source_result *res)
{
    if (res->files_ok + res->files_damaged == 0)
        return WT_EXIT_FAIL;
    if (res->files_failed || res->files_damaged)
        return WT_EXIT_DAMAGED;
    return WT_EXIT_OK;
}
