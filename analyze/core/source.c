/* The source driver that streams trace files into analyses, and shared diagnostics: see source.h. */
#include "source.h"

#include "clocks.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void wt_cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs(WT_PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
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

static void progress_tick(progress *p, const char *path, uint64_t events)
{
    if (!p->on || (events & 0xFFFF))
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
    static int said;
    if (said++)
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

static int source_run(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                      wt_source_result *res, int raw_clocks)
{
    int rc = 0, index = 0;
    wt_clocks clk = { 0 };
    memset(res, 0, sizeof *res);
    for (int i = 0; i < n && rc == 0; i++) {
        wt_reader *r = NULL;
        int orc = wt_reader_open(paths[i], &r);
        if (orc < 0) {
            if (r)
                wt_cli_error("%s", wt_reader_error(r));
            else
                wt_cli_error("%s: %s", paths[i], wt_strerror(orc));
            wt_reader_free(r);
            res->files_failed++;
            continue;
        }
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
        progress pg = { isatty(2), now_s(), 0, 0 };
        uint64_t events = 0;
        wt_event ev;
        int damaged = 0;
        while (rc == 0) {
            int nrc = wt_reader_next(r, &ev);
            if (nrc == 0)
                break;
            if (nrc < 0) {
                progress_clear(&pg);
                damaged = 1;
                wt_cli_error("%s", wt_reader_error(r));
                if (ops->damage)
                    rc = ops->damage(ctx, fi, wt_reader_error_offset(r), wt_reader_error(r));
                continue;
            }
            events++;
            progress_tick(&pg, paths[i], events);
            ev.ts += shift;
            if (ops->event)
                rc = ops->event(ctx, fi, &ev);
        }
        progress_clear(&pg);
        wt_reader_stats st;
        wt_reader_get_stats(r, &st);
        if (st.end == WT_END_NONE)
            res->files_no_end++;
        if (damaged)
            res->files_damaged++;
        else
            res->files_ok++;
        if (rc == 0 && ops->file_end)
            rc = ops->file_end(ctx, fi, &st);
        wt_reader_free(r);
    }
    res->clocks = (int)clk.n;
    res->anchor_err_ns = clk.anchor_err_max;
    if (wt_clocks_aligned(&clk))
        say_aligned(res, clk.files);
    wt_clocks_release(&clk);
    return rc;
}

int wt_source_run(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                  wt_source_result *res)
{
    return source_run(paths, n, ops, ctx, res, 0);
}

int wt_source_run_raw(char *const *paths, int n, const wt_source_ops *ops, void *ctx,
                      wt_source_result *res)
{
    return source_run(paths, n, ops, ctx, res, 1);
}

int wt_source_exit_status(const wt_source_result *res)
{
    if (res->files_ok + res->files_damaged == 0)
        return WT_EXIT_FAIL;
    if (res->files_failed || res->files_damaged)
        return WT_EXIT_DAMAGED;
    return WT_EXIT_OK;
}
