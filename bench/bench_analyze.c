/* bench_analyze: how fast `walltime-analyze ledger` streams a big trace, against the floor of
 * just decompressing it, and how much memory it needs.
 *
 * Records a trace of N spans (default 10 million) through the recorder API: top-level "phase"
 * spans each nesting 9 "weights" loads over 100 labels, a HIT/MISS mix and bytes, with a
 * wt_flush() every 100k spans so the writer keeps up (and SYNC records are written). Then, in
 * this one run, REPS times each: `zstd -dc -q FILE` to /dev/null (the floor: decompression
 * only), the in-process reader alone (decode without analysis), and `walltime-analyze ledger
 * FILE` to /dev/null. Prints medians: seconds, spans/s, the ratio to the floor, and the peak
 * RSS of each child (wait4's ru_maxrss). Targets: ledger within 2x the floor, < 64 MiB.
 *
 * usage: bench_analyze [SPANS [PATH]]   (PATH default: $TMPDIR/bench_analyze.wtrace; removed
 * at the end unless BENCH_ANALYZE_KEEP is set) */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "walltime/reader.h"
#include "walltime/walltime.h"

#define REPS 3

extern char **environ;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median3(double *v)
{
    qsort(v, REPS, sizeof *v, cmp_double);
    return v[REPS / 2];
}

static long long record(const char *path, long long n)
{
    static char labels[100][16];
    for (int i = 0; i < 100; i++)
        snprintf(labels[i], sizeof labels[i], "layer%02d", i);
    setenv("WALLTIME_SUMMARY", "0", 1);
    unlink(path);
    if (wt_open(path) != 0) {
        fprintf(stderr, "bench_analyze: cannot record into '%s'\n", path);
        return -1;
    }
    long long spans = 0;
    while (spans + 10 <= n) {
        wt_span p = wt_begin("phase", "load");
        for (int k = 0; k < 9; k++) {
            const int l = (int)((spans + k) % 100);
            wt_span w = wt_begin("weights", labels[l]);
            wt_span_args a = { (l % 7) ? WT_CACHED_HIT : WT_CACHED_MISS, 1, 1 << 20, NULL };
            wt_end_ex(w, &a);
        }
        wt_end(p, WT_CACHED_UNKNOWN, 0, NULL);
        spans += 10;
        if (spans % 100000 == 0)
            wt_flush();
    }
    wt_close();
    return spans;
}

/* Runs argv with stdout to /dev/null; *secs the wall time, *rss_kib the child's peak RSS. */
static int run_child(char *const argv[], double *secs, long *rss_kib)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    double t0 = now_s();
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "bench_analyze: cannot run '%s'\n", argv[0]);
        return -1;
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0)
        return -1;
    *secs = now_s() - t0;
    *rss_kib = ru.ru_maxrss;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_analyze: '%s' exited with status %d\n", argv[0],
                WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return -1;
    }
    return 0;
}

static long long read_all(const char *path, double *secs)
{
    double t0 = now_s();
    wt_reader *r = NULL;
    if (wt_reader_open(path, &r) < 0) {
        wt_reader_free(r);
        return -1;
    }
    wt_event ev;
    long long spans = 0;
    int rc;
    while ((rc = wt_reader_next(r, &ev)) != 0)
        if (rc > 0 && ev.kind == WT_EV_SPAN)
            spans++;
    wt_reader_free(r);
    *secs = now_s() - t0;
    return spans;
}

int main(int argc, char **argv)
{
    long long n = argc > 1 ? atoll(argv[1]) : 10000000LL;
    char path[4096];
    const char *tmp = getenv("TMPDIR");
    if (argc > 2)
        snprintf(path, sizeof path, "%s", argv[2]);
    else
        snprintf(path, sizeof path, "%s/bench_analyze.wtrace", tmp && *tmp ? tmp : "/tmp");

    double t0 = now_s();
    long long recorded = record(path, n);
    if (recorded < 0)
        return 1;
    double t_rec = now_s() - t0;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 1;

    double floor_s[REPS], reader_s[REPS], ledger_s[REPS];
    long floor_rss = 0, ledger_rss = 0, rss;
    long long spans = 0;
    char *zstd_argv[] = { "zstd", "-dc", "-q", path, NULL };
    char *ledger_argv[] = { WT_ANALYZE_BIN, "ledger", path, NULL };
    for (int i = 0; i < REPS; i++) {
        if (run_child(zstd_argv, &floor_s[i], &rss) < 0)
            return 1;
        if (rss > floor_rss)
            floor_rss = rss;
        spans = read_all(path, &reader_s[i]);
        if (run_child(ledger_argv, &ledger_s[i], &rss) < 0)
            return 1;
        if (rss > ledger_rss)
            ledger_rss = rss;
    }
    const double f = median3(floor_s), rd = median3(reader_s), l = median3(ledger_s);
    printf("bench_analyze: %lld spans recorded in %.2f s (%lld read back), %.1f MiB on disk, "
           "%.2f bytes/span\n", recorded, t_rec, spans, sb.st_size / 1048576.0,
           spans ? (double)sb.st_size / (double)spans : 0.0);
    printf("  %-34s %8s %14s %8s %10s\n", "median of 3", "seconds", "spans/s", "x floor", "peak RSS");
    printf("  %-34s %8.3f %14.0f %8.2f %7.1f MiB\n", "zstd -dc > /dev/null (floor)", f,
           spans / f, 1.0, floor_rss / 1024.0);
    printf("  %-34s %8.3f %14.0f %8.2f %10s\n", "reader only (in process)", rd, spans / rd, rd / f, "-");
    printf("  %-34s %8.3f %14.0f %8.2f %7.1f MiB\n", "walltime-analyze ledger", l, spans / l,
           l / f, ledger_rss / 1024.0);
    printf("  targets: ledger <= 2x floor (%s), peak RSS < 64 MiB (%s)\n",
           l <= 2.0 * f ? "met" : "NOT met", ledger_rss < 64 * 1024 ? "met" : "NOT met");
    if (!getenv("BENCH_ANALYZE_KEEP"))
        unlink(path);
    return 0;
}
