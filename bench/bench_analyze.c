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
 * Then, in process, the analysis alone (ledger + anomalies over events decoded beforehand, see
 * ANALYSIS_EVENTS): ns per span, the figure to watch when changing the analysis.
 *
 * usage: bench_analyze [SPANS [PATH]]   (PATH default: $TMPDIR/bench_analyze.wtrace; removed
 * at the end unless BENCH_ANALYZE_KEEP is set; with BENCH_ANALYZE_ONLY set, only the
 * analysis-alone figure of the existing trace PATH) */
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

#include "analysis.h"
#include "walltime/reader.h"
#include "walltime/walltime.h"

#define REPS 3
/* The in-process analysis-only figure: this many events decoded once into memory, then fed
 * ANALYSIS_LAPS times (each lap shifted in time after the previous one, as one long trace) to
 * the ledger + anomalies pass, timed alone (CPU time): ns per span of analysis, without the
 * reader. */
#define ANALYSIS_EVENTS 100000
#define ANALYSIS_LAPS 50
#define ANALYSIS_REPS 5

extern char **environ;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds of this process: the analysis-alone figure runs on one thread, and on a shared
 * machine its CPU time moves less than its wall time when other work preempts it. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static double median3(double *v) { return median_of(v, REPS); }

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

/* One timed pass of the analysis over evs[0..n) repeated ANALYSIS_LAPS times: the seconds of
 * the stream (begin to file end), *finish_s those of the finish (once per run, whatever its
 * length), *spans the spans analysed; < 0 on failure. `empty`: the loop alone (the pair's
 * callbacks with neither analysis), to subtract. */
static double analyse_laps(const wt_trace_info *info, const wt_event *evs, size_t n, int empty,
                           long long *spans, double *finish_s)
{
    const wt_source_ops *ops = wt_analysis_pair_ops();
    wt_analysis_pair pair = { NULL, NULL, NULL, NULL };
    double secs = -1;
    if (wt_ledger_calc_create(NULL, &pair.lc) < 0 || wt_anomalies_create(NULL, &pair.an) < 0)
        goto out;
    wt_ledger_calc *lc0 = pair.lc;
    wt_anomalies *an0 = pair.an;
    if (empty)
        pair.lc = NULL, pair.an = NULL; /* the same loop and callbacks, analysing nothing */
    const int64_t lap = n ? evs[n - 1].ts + evs[n - 1].dur - evs[0].ts + 1 : 0;
    *spans = 0;
    double t0 = cpu_s();
    if (ops->file_begin(&pair, 0, "bench", info) != 0)
        goto out;
    for (int k = 0; k < ANALYSIS_LAPS; k++) {
        for (size_t i = 0; i < n; i++) {
            wt_event ev = evs[i];
            ev.ts += k * lap;
            if (ops->event(&pair, 0, &ev) != 0)
                goto out;
            *spans += ev.kind == WT_EV_SPAN;
        }
    }
    wt_reader_stats st;
    memset(&st, 0, sizeof st);
    st.end = WT_END_CLEAN;
    if (ops->file_end(&pair, 0, &st) != 0)
        goto out;
    const double t1 = cpu_s();
    pair.lc = lc0, pair.an = an0;
    if (wt_ledger_calc_finish(pair.lc) < 0 ||
        wt_anomalies_finish(pair.an, wt_ledger_calc_result(pair.lc), NULL) < 0)
        goto out;
    *finish_s = cpu_s() - t1;
    secs = t1 - t0;
out:
    wt_anomalies_free(pair.an);
    wt_ledger_calc_free(pair.lc);
    return secs;
}

/* The analysis-only figure: ns per span of the stream, the median of ANALYSIS_REPS timed passes
 * minus that of as many passes of the empty loop (and *finish_ms the median finish); < 0 on
 * failure. The reader stays open while the events are used: their strings are its own. */
static double analysis_ns_per_span(const char *path, long long *spans, double *finish_ms)
{
    wt_reader *r = NULL;
    wt_event *evs = malloc(ANALYSIS_EVENTS * sizeof *evs);
    double v[ANALYSIS_REPS], e[ANALYSIS_REPS], f[ANALYSIS_REPS], res = -1;
    size_t n = 0;
    if (!evs || wt_reader_open(path, &r) < 0)
        goto out;
    int rc;
    while (n < ANALYSIS_EVENTS && (rc = wt_reader_next(r, &evs[n])) != 0)
        if (rc > 0 && evs[n].kind != WT_EV_END)
            n++;
    double ef;
    for (int i = 0; i < ANALYSIS_REPS; i++)
        if ((e[i] = analyse_laps(wt_reader_info(r), evs, n, 1, spans, &ef)) < 0 ||
            (v[i] = analyse_laps(wt_reader_info(r), evs, n, 0, spans, &f[i])) < 0)
            goto out;
    res = *spans ? (median_of(v, ANALYSIS_REPS) - median_of(e, ANALYSIS_REPS)) * 1e9 /
                       (double)*spans
                 : 0.0;
    *finish_ms = median_of(f, ANALYSIS_REPS) * 1e3;
out:
    wt_reader_free(r);
    free(evs);
    return res;
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

    if (getenv("BENCH_ANALYZE_ONLY")) {
        /* the analysis-only figure of an existing trace at PATH, nothing else */
        long long an_spans = 0;
        double fin_ms = 0;
        const double an_ns = analysis_ns_per_span(path, &an_spans, &fin_ms);
        if (an_ns < 0)
            return 1;
        printf("analysis alone: %.1f ns/span, finish %.1f ms (median of %d passes of %lld spans)\n",
               an_ns, fin_ms, ANALYSIS_REPS, an_spans);
        return 0;
    }
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
    long long an_spans = 0;
    double fin_ms = 0;
    const double an_ns = analysis_ns_per_span(path, &an_spans, &fin_ms);
    if (an_ns >= 0)
        printf("  analysis alone (ledger + anomalies in process, events decoded beforehand): "
               "%.1f ns/span, then %.1f ms to finish (median of %d passes of %lld spans)\n",
               an_ns, fin_ms, ANALYSIS_REPS, an_spans);
    if (!getenv("BENCH_ANALYZE_KEEP"))
        unlink(path);
    return 0;
}
