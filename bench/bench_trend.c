/* bench_trend: `walltime-analyze trend` over 1,000 traces of 10,000 spans each, against
 * `zstd -dc` over the same files (the floor: just decompressing them). Target: at most 2x.
 *
 * The traces are written by the real recorder, one child process per trace (wt_open / spans /
 * wt_close): a root span per 100 spans around 99 children in 4 categories, HIT/MISS on one, the
 * metadata `model`. Both commands run as children with all cores (trend's default, zstd reading
 * the files one after another as a shell would); wall and CPU time (wait4) are printed, each
 * the median of 3 runs. On a shared machine compare the ratios of one run. Lines starting "@ "
 * are for bench/run: name, value, unit, target, verdict (the target is on CPU time: wall time
 * depends on how many cores are free).
 *
 * The traces of an earlier run in DIR are kept (writing a thousand takes half a minute) only when
 * DIR/bench_trend.stamp, written once every trace of that run was written, names the same
 * traces, spans and format version; else DIR's t*.wtrace are removed and written again. Both
 * commands read DIR/t*.wtrace, which is checked to be exactly the TRACES files first.
 *
 * usage: bench_trend [TRACES] [SPANS] [DIR]     (default 1000, 10000, /tmp/bench_trend)
 */
#include <glob.h>
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

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void write_trace(const char *path, int spans, int seed)
{
    static const char *cats[] = { "load", "convert", "compute", "io" };
    if (wt_open(path) != 0)
        _exit(1);
    wt_meta("model", seed % 2 ? "m1" : "m2");
    for (int i = 0; i < spans; i += 100) {
        wt_span root = wt_begin("step", "root");
        for (int k = 1; k < 100 && i + k < spans; k++) {
            wt_span s = wt_begin(cats[k % 4], "x");
            wt_end(s, k % 4 == 0 ? (k % 8 ? WT_CACHED_HIT : WT_CACHED_MISS) : WT_CACHED_UNKNOWN, 1,
                   NULL);
        }
        wt_end(root, WT_CACHED_UNKNOWN, 1, NULL);
    }
    wt_close();
}

/* The files both commands read (DIR/t*.wtrace): how many, and removes them when `remove`. */
static size_t trace_files(const char *dir, int remove)
{
    char pat[4200];
    snprintf(pat, sizeof pat, "%s/t*.wtrace", dir);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0)
        return 0;
    const size_t n = g.gl_pathc;
    for (size_t i = 0; remove && i < n; i++)
        unlink(g.gl_pathv[i]);
    globfree(&g);
    return n;
}

/* Whether the file `path` holds exactly `want`. */
static int file_says(const char *path, const char *want)
{
    char got[256] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    const size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = '\0';
    return strcmp(got, want) == 0;
}

/* Runs `sh -c cmd`; wall and CPU seconds of it and its children. */
static void timed(const char *cmd, double *wall, double *cpu)
{
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    wait4(pid, &st, 0, &ru);
    *wall = now() - t0;
    *cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "bench_trend: '%s' exited %d\n", cmd, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* One figure for bench/run: target text or "", met 1, 0 or -1 (no target). */
static void fig(const char *name, double v, const char *unit, const char *target, int met)
{
    printf("@ %s\t%.2f\t%s\t%s\t%s\n", name, v, unit, target,
           met < 0 ? "" : met ? "ok" : "MISS");
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int traces = argc > 1 ? atoi(argv[1]) : 1000, spans = argc > 2 ? atoi(argv[2]) : 10000;
    const char *dir = argc > 3 ? argv[3] : "/tmp/bench_trend";
    mkdir(dir, 0777);
    setenv("WALLTIME_SUMMARY", "0", 1);
    char stamp[4200], want[256];
    snprintf(stamp, sizeof stamp, "%s/bench_trend.stamp", dir);
    snprintf(want, sizeof want, "%d traces of %d spans, format %d.%d\n", traces, spans,
             WT_FORMAT_MAJOR, WT_FORMAT_MINOR);
    if (!file_says(stamp, want)) { /* not this run's traces, or not all written */
        unlink(stamp);
        trace_files(dir, 1);
    }
    double t0 = now();
    for (int i = 0; i < traces; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/t%05d.wtrace", dir, i);
        if (access(path, R_OK) == 0)
            continue; /* kept from an earlier run */
        pid_t pid = fork();
        if (pid == 0) {
            write_trace(path, spans, i);
            _exit(0);
        }
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "bench_trend: writing '%s' failed\n", path);
            unlink(path);
            return 1;
        }
    }
    const size_t found = trace_files(dir, 0);
    if (found != (size_t)traces) {
        fprintf(stderr, "bench_trend: %s/t*.wtrace is %zu files, not the %d written\n", dir, found,
                traces);
        return 1;
    }
    FILE *sf = fopen(stamp, "w");
    if (sf) {
        fputs(want, sf);
        fclose(sf);
    }
    printf("traces: %d x %d spans in %s (%.1f s to write)\n", traces, spans, dir, now() - t0);
    char trend[8192], zstd[8192];
    snprintf(trend, sizeof trend, "'%s' trend --group model '%s'/t*.wtrace >/dev/null", WT_ANALYZE_BIN,
             dir);
    snprintf(zstd, sizeof zstd, "zstd -qdc '%s'/t*.wtrace >/dev/null", dir);
    double w[2][3], c[2][3];
    for (int r = 0; r < 3; r++) {
        timed(zstd, &w[0][r], &c[0][r]);
        timed(trend, &w[1][r], &c[1][r]);
    }
    for (int k = 0; k < 2; k++) {
        qsort(w[k], 3, sizeof(double), dcmp);
        qsort(c[k], 3, sizeof(double), dcmp);
    }
    printf("zstd -dc:  wall %.2f s  cpu %.2f s   (median of 3)\n", w[0][1], c[0][1]);
    printf("trend:     wall %.2f s  cpu %.2f s   (median of 3, %ld cores)\n", w[1][1], c[1][1],
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("ratio:     wall %.2fx  cpu %.2fx   (target: cpu <= 2x)\n", w[1][1] / w[0][1],
           c[1][1] / c[0][1]);
    char name[128];
    snprintf(name, sizeof name, "trend %dx%d: cpu / zstd -dc cpu", traces, spans);
    fig(name, c[1][1] / c[0][1], "x", "<= 2", c[1][1] <= 2 * c[0][1]);
    snprintf(name, sizeof name, "trend %dx%d: wall / zstd -dc wall", traces, spans);
    fig(name, w[1][1] / w[0][1], "x", "", -1);
    snprintf(name, sizeof name, "trend %dx%d: cpu", traces, spans);
    fig(name, c[1][1], "s", "", -1);
    return 0;
}
