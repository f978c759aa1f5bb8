/* bench_analyze: how fast the analyzer streams big traces of several shapes, against the floor
 * of just decompressing them (`zstd -dc`), and how much memory it needs.
 *
 * Trace shapes (N spans each, default 10 million, recorded through the recorder API with a
 * wt_flush() every 100k spans so the writer keeps up and nothing is dropped):
 *   repeated   one span, one label, over and over (about 9 raw bytes per span: the per-span
 *              decode cost is all there is);
 *   nested     a "phase" span nesting 9 "weights" loads over 100 labels, HIT/MISS and bytes;
 *   random     1,000 labels (formatted into a buffer) in a random order;
 *   threads8   8 threads recording the nested shape at once;
 *   counters   every span followed by two samples of 16 counters;
 *   labels16k  16,384 labels, one per tensor ("layers.N.wK", formatted into a buffer), in a
 *              random order, one span in ten a MISS: a mixture-of-experts load's label count,
 *              610 spans a label at 10 M, so every per-label reservoir fills and then samples;
 *   unique     every span its own label ("tensor.N.weight"), one in ten a MISS: past the
 *              analyses' 16,384 keys the labels fold, and the reader keeps every string up to
 *              its bounds (reader.h);
 *   sorted16k  only when named in BENCH_ANALYZE_SHAPES: labels16k's spans (the same labels
 *              and cache states, drawn the same way) stably sorted by label within windows of
 *              2^20 spans, so a label's spans come about 61 in a row and its state stays in
 *              cache: set against labels16k, how much of that shape's cost is locality
 *              (docs/PERFORMANCE.md, "Many labels: CPU").
 * Per shape, each command runs in a child process with stdout to /dev/null; its CPU time
 * (user + system, wait4) is the figure on a shared machine, and its peak RSS (ru_maxrss):
 * `zstd -dc` (the floor), `ledger`, `anomalies`, `info`; and on the repeated, nested,
 * labels16k and unique shapes `dump --json` (events per second of CPU) and `export`
 * (Perfetto, spans per second of CPU). Targets: ledger, anomalies, info <= 2x the floor's CPU; dump --json >= 5 M
 * events/s; export >= 5 M spans/s; peak RSS < 64 MiB for every command.
 * Then, in process, the analysis alone on the nested shape (ledger + anomalies over events
 * decoded beforehand, see ANALYSIS_EVENTS): ns per span, the figure to watch when changing
 * the analysis. Lines starting "@ " are for bench/run.
 *
 * The commands run in rounds (each command once a round, the floor first), all on one CPU
 * (the spawner's, BENCH_CPU to choose): a ratio is the median of the rounds' own ratios, so
 * the floor and what it is compared with ran on one vCPU close in time (this machine's two
 * do not run at one speed, and the speed drifts); seconds are the least of the rounds.
 *
 * usage: bench_analyze [SPANS [DIR]]   (DIR default $TMPDIR or /tmp; traces removed at the
 * end unless BENCH_ANALYZE_KEEP is set; BENCH_ANALYZE_REPS rounds, default 1, at most 16;
 * BENCH_ANALYZE_SHAPES a comma list to run only some; with BENCH_ANALYZE_ONLY=PATH, only the
 * analysis-alone figure of the existing trace PATH) */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
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

/* The in-process analysis-only figure: this many events decoded once into memory, then fed
 * ANALYSIS_LAPS times (each lap shifted in time after the previous one, as one long trace) to
 * the ledger + anomalies pass, timed alone (CPU time): ns per span of analysis, without the
 * reader. */
#define ANALYSIS_EVENTS 100000
#define ANALYSIS_LAPS 50
#define ANALYSIS_REPS 5

extern char **environ;

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

/* One figure for bench/run: target text or "", met 1, 0 or -1 (no target). */
static void fig(const char *name, double v, const char *unit, const char *target, int met)
{
    printf("@ %s\t%.2f\t%s\t%s\t%s\n", name, v, unit, target,
           met < 0 ? "" : met ? "ok" : "MISS");
}

/* ---- the shapes ---- */
enum { S_REPEATED, S_NESTED, S_RANDOM, S_THREADS8, S_COUNTERS, S_LABELS16K, S_UNIQUE,
       S_SORTED16K, N_SHAPES };
static const char *const shape_name[N_SHAPES] = { "repeated", "nested", "random", "threads8",
                                                  "counters", "labels16k", "unique",
                                                  "sorted16k" };
/* the shapes run only when BENCH_ANALYZE_SHAPES names them */
static int shape_opt_in(int sh) { return sh == S_SORTED16K; }

static char labels100[100][16];

/* The nested shape: n spans (multiples of 10) on the calling thread. */
static void nested(long long n)
{
    for (long long spans = 0; spans + 10 <= n;) {
        wt_span p = wt_begin("phase", "load");
        for (int k = 0; k < 9; k++) {
            const int l = (int)((spans + k) % 100);
            wt_span w = wt_begin("weights", labels100[l]);
            wt_span_args a = { (l % 7) ? WT_CACHED_HIT : WT_CACHED_MISS, 1, 1 << 20, NULL };
            wt_end_ex(w, &a);
        }
        wt_end(p, WT_CACHED_UNKNOWN, 0, NULL);
        spans += 10;
        if (spans % 100000 == 0)
            wt_flush();
    }
}

static void *nested_thread(void *arg)
{
    nested(*(const long long *)arg);
    return NULL;
}

/* The shapes' random labels: xorshift64, one step. */
static void xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
}

/* The labels16k and unique shapes' draw: one xorshift step gives a span its label of 16,384
 * (the low 14 bits) and, one in ten, a MISS (bit 14). */
enum { N_LABELS16K = 16384, DRAW_MISS = 1u << 14 };

static uint32_t draw16k(uint64_t *x)
{
    xorshift(x);
    return (uint32_t)(*x % N_LABELS16K) | ((*x >> 20) % 10 == 0 ? DRAW_MISS : 0);
}

/* One "weights" span of the labels16k, unique and sorted16k shapes, the i-th recorded. */
static void weights_span(const char *label, uint32_t draw, long long i)
{
    wt_span h = wt_begin("weights", label);
    wt_end(h, draw & DRAW_MISS ? WT_CACHED_MISS : WT_CACHED_HIT, 1, NULL);
    if ((i + 1) % 100000 == 0)
        wt_flush();
}

static void label16k(char *buf, size_t size, uint32_t draw)
{
    const int l = (int)(draw & (N_LABELS16K - 1));
    snprintf(buf, size, "layers.%d.w%d", l / 8, l % 8);
}

/* The sorted16k shape: labels16k's draws, a window of SORT_WINDOW at a time, recorded in the
 * order of a stable counting sort by label (a label's spans keep their order). */
enum { SORT_WINDOW = 1 << 20 };

static int sorted16k(long long n, uint64_t *x)
{
    uint32_t *draw = malloc(sizeof *draw * SORT_WINDOW), *order = malloc(sizeof *order * SORT_WINDOW);
    uint32_t *start = malloc(sizeof *start * (N_LABELS16K + 1));
    if (!draw || !order || !start) {
        free(draw), free(order), free(start);
        return -1;
    }
    char buf[48];
    for (long long done = 0; done < n;) {
        const uint32_t w = (uint32_t)(n - done < SORT_WINDOW ? n - done : SORT_WINDOW);
        memset(start, 0, sizeof *start * (N_LABELS16K + 1));
        for (uint32_t i = 0; i < w; i++) {
            draw[i] = draw16k(x);
            start[(draw[i] & (N_LABELS16K - 1)) + 1]++;
        }
        for (uint32_t l = 0; l < N_LABELS16K; l++)
            start[l + 1] += start[l];
        for (uint32_t i = 0; i < w; i++)
            order[start[draw[i] & (N_LABELS16K - 1)]++] = draw[i];
        for (uint32_t i = 0; i < w; i++, done++) {
            label16k(buf, sizeof buf, order[i]);
            weights_span(buf, order[i], done);
        }
    }
    free(draw), free(order), free(start);
    return 0;
}

/* Records shape `sh` into path; returns the spans recorded, -1 on failure. */
static long long record(int sh, const char *path, long long n)
{
    for (int i = 0; i < 100; i++)
        snprintf(labels100[i], sizeof labels100[i], "layer%02d", i);
    setenv("WALLTIME_SUMMARY", "0", 1);
    /* every frame compressed, as a real load's file is (its writer keeps well within its
     * share of a core): at this loop's rate the default budget stores most frames, and the
     * analyzer's floor, `zstd -dc`, would be a copy (WALLTIME_COMPRESS_CPU, rec_zbudget.h) */
    setenv("WALLTIME_COMPRESS_CPU", "100", 0);
    unlink(path);
    if (wt_open(path) != 0) {
        fprintf(stderr, "bench_analyze: cannot record into '%s'\n", path);
        return -1;
    }
    n -= n % 80;
    static const char *const cnames[16] = { "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7",
                                            "c8", "c9", "c10", "c11", "c12", "c13", "c14", "c15" };
    uint64_t x = 88172645463325252ull;
    char buf[48];
    switch (sh) {
    case S_REPEATED:
    case S_RANDOM:
    case S_COUNTERS:
        for (long long i = 0; i < n; i++) {
            const char *label = "step";
            if (sh == S_RANDOM) {
                xorshift(&x);
                snprintf(buf, sizeof buf, "layer.%d.wq", (int)(x % 1000));
                label = buf;
            }
            wt_span h = wt_begin("work", label);
            wt_end(h, WT_CACHED_HIT, 0, NULL);
            if (sh == S_COUNTERS) {
                wt_counter(cnames[i & 15], i);
                wt_counter(cnames[(i + 7) & 15], -i);
            }
            if ((i + 1) % 100000 == 0)
                wt_flush();
        }
        break;
    case S_LABELS16K:
    case S_UNIQUE:
        for (long long i = 0; i < n; i++) {
            const uint32_t d = draw16k(&x);
            if (sh == S_LABELS16K)
                label16k(buf, sizeof buf, d);
            else
                snprintf(buf, sizeof buf, "tensor.%lld.weight", i);
            weights_span(buf, d, i);
        }
        break;
    case S_SORTED16K:
        if (sorted16k(n, &x) != 0) {
            wt_close();
            return -1;
        }
        break;
    case S_NESTED:
        nested(n);
        break;
    default: {
        pthread_t t[8];
        long long each = n / 8;
        for (int k = 0; k < 8; k++)
            pthread_create(&t[k], NULL, nested_thread, &each);
        for (int k = 0; k < 8; k++)
            pthread_join(t[k], NULL);
        break;
    }
    }
    wt_close();
    return n;
}

/* Commands run from a small process forked at start (the spawner), not from this one: a child
 * spawned by a process inherits its peak RSS across exec (ru_maxrss is the process's, kept
 * through execve), so the analyzer's peak would read as this process's tens of MiB. */
static int to_spawner = -1, from_spawner = -1;

/* Runs argv with stdout to /dev/null and fills r[0] CPU seconds (user + system), r[1] peak
 * RSS in KiB, r[2] the exit status (-1: did not run or killed). */
static void spawn_wait(char *const argv[], double r[3])
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int st;
    struct rusage ru;
    r[0] = r[1] = 0;
    r[2] = -1;
    if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) == 0 &&
        wait4(pid, &st, 0, &ru) == pid) {
        r[0] = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
        r[1] = (double)ru.ru_maxrss;
        r[2] = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    posix_spawn_file_actions_destroy(&fa);
}

/* The spawner: reads a command (a byte count, then NUL-separated arguments), runs it, writes
 * back the three figures; ends at end of input. */
static void spawner(int in, int out)
{
    size_t len;
    while (read(in, &len, sizeof len) == (ssize_t)sizeof len && len < 65536) {
        char buf[65536], *argv[16];
        size_t got = 0;
        while (got < len) {
            const ssize_t k = read(in, buf + got, len - got);
            if (k <= 0)
                _exit(0);
            got += (size_t)k;
        }
        int argc = 0;
        for (size_t i = 0; i < len && argc < 15; i += strlen(buf + i) + 1)
            argv[argc++] = buf + i;
        argv[argc] = NULL;
        double r[3];
        spawn_wait(argv, r);
        if (write(out, r, sizeof r) != (ssize_t)sizeof r)
            _exit(1);
    }
    _exit(0);
}

static void start_spawner(void)
{
    int a[2], b[2];
    if (pipe(a) || pipe(b))
        return;
    const pid_t pid = fork();
    if (pid == 0) {
        close(a[1]);
        close(b[0]);
        /* every command on one CPU, inherited through exec: the floor and the command it is
         * compared with then ran on one of this machine's unequal vCPUs (bench_record.c) */
        const char *want = getenv("BENCH_CPU");
        const int cpu = want && *want ? atoi(want) : sched_getcpu();
        if (cpu >= 0 && cpu < CPU_SETSIZE) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            if (sched_setaffinity(0, sizeof one, &one) == 0)
                fprintf(stderr, "bench_analyze: commands run on CPU %d\n", cpu);
        }
        spawner(a[0], b[1]);
    }
    close(a[0]);
    close(b[1]);
    if (pid > 0) {
        to_spawner = a[1];
        from_spawner = b[0];
    }
}

/* Runs argv (through the spawner when there is one); *cpu, *rss_kib as spawn_wait(). */
static int run_child(char *const argv[], double *cpu, long *rss_kib)
{
    double r[3];
    char buf[65536];
    size_t len = 0;
    for (int i = 0; argv[i]; i++) {
        const size_t k = strlen(argv[i]) + 1;
        if (len + k > sizeof buf)
            return -1;
        memcpy(buf + len, argv[i], k);
        len += k;
    }
    if (to_spawner >= 0 && write(to_spawner, &len, sizeof len) == (ssize_t)sizeof len &&
        write(to_spawner, buf, len) == (ssize_t)len &&
        read(from_spawner, r, sizeof r) == (ssize_t)sizeof r) {
        /* r filled by the spawner */
    } else {
        spawn_wait(argv, r);
    }
    *cpu = r[0];
    *rss_kib = (long)r[1];
    if (r[2] != 0 && r[2] != 3) {
        fprintf(stderr, "bench_analyze: '%s %s' exited with status %d\n", argv[0], argv[1],
                (int)r[2]);
        return -1;
    }
    return 0;
}

/* One round of a shape's commands (argv[0..n), NULL entries skipped): each run once, its CPU
 * seconds into cpu[k][round], the largest peak RSS kept in *rss_kib. The rounds alternate the
 * commands so that a ratio is taken within a round (the machine's speed drifts between). */
#define MAX_REPS 16
static int measure_round(char *const *const argv[], int n, int round,
                         double cpu[][MAX_REPS], long *rss_kib)
{
    for (int k = 0; k < n; k++) {
        if (!argv[k])
            continue;
        long r;
        if (run_child(argv[k], &cpu[k][round], &r) < 0)
            return -1;
        if (r > *rss_kib)
            *rss_kib = r;
    }
    return 0;
}

static double least(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* The median over the rounds of a / b, round by round. */
static double ratio_median(const double *a, const double *b, int n)
{
    double q[MAX_REPS];
    for (int i = 0; i < n; i++)
        q[i] = b[i] > 0 ? a[i] / b[i] : 0;
    return median_of(q, n);
}

/* Events (every kind but END) and spans of a trace, by the reader. */
static void count_events(const char *path, long long *events, long long *spans)
{
    *events = *spans = 0;
    wt_reader *r = NULL;
    if (wt_reader_open(path, &r) == 0) {
        wt_event ev;
        int rc;
        while ((rc = wt_reader_next(r, &ev)) != 0) {
            if (rc < 0)
                continue;
            *events += ev.kind != WT_EV_END;
            *spans += ev.kind == WT_EV_SPAN;
        }
    }
    wt_reader_free(r);
}

/* One timed pass of the analysis over evs[0..n) repeated ANALYSIS_LAPS times: the seconds of
 * the stream (begin to file end), *finish_s those of the finish (once per run, whatever its
 * length), *spans the spans analysed; < 0 on failure. `empty`: the loop alone (the pair's
 * callbacks with neither analysis), to subtract. */
static double analyse_laps(const wt_trace_info *info, const wt_event *evs, size_t n, int empty,
                           long long *spans, double *finish_s)
{
    const wt_source_ops *ops = wt_analysis_pair_ops();
    wt_analysis_pair pair = { NULL, NULL, NULL, NULL, NULL };
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

static int shape_wanted(int sh)
{
    const char *list = getenv("BENCH_ANALYZE_SHAPES");
    if (!list || !*list)
        return !shape_opt_in(sh);
    const size_t n = strlen(shape_name[sh]);
    for (const char *p = list; (p = strstr(p, shape_name[sh])) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    long long n = argc > 1 ? atoll(argv[1]) : 10000000LL;
    const char *tmp = getenv("TMPDIR");
    const char *dir = argc > 2 ? argv[2] : tmp && *tmp ? tmp : "/tmp";
    const char *only = getenv("BENCH_ANALYZE_ONLY");
    int reps = getenv("BENCH_ANALYZE_REPS") ? atoi(getenv("BENCH_ANALYZE_REPS")) : 1;
    reps = reps < 1 ? 1 : reps > MAX_REPS ? MAX_REPS : reps;
    start_spawner();
    if (only) {
        long long an_spans = 0;
        double fin_ms = 0;
        const double an_ns = analysis_ns_per_span(only, &an_spans, &fin_ms);
        if (an_ns < 0)
            return 1;
        printf("analysis alone: %.1f ns/span, finish %.1f ms (median of %d passes of %lld spans)\n",
               an_ns, fin_ms, ANALYSIS_REPS, an_spans);
        return 0;
    }
    printf("bench_analyze: %lld spans per shape; CPU seconds (user + system) of each command, "
           "least of %d round(s); ratios to zstd, the median of the rounds' ratios\n", n, reps);
    printf("  %-9s %7s %7s | %7s %6s | %7s %6s | %7s %6s | %9s | %9s | %7s\n", "shape",
           "B/span", "zstd s", "ledger", "x", "anomal", "x", "info", "x", "dump ev/s",
           "export/s", "max RSS");
    int failed = 0;
    for (int sh = 0; sh < N_SHAPES; sh++) {
        if (!shape_wanted(sh))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/bench_analyze-%s.wtrace", dir, shape_name[sh]);
        if (record(sh, path, n) < 0)
            return 1;
        struct stat sb;
        if (stat(path, &sb) != 0)
            return 1;
        long long events, spans;
        count_events(path, &events, &spans);
        char *zstd_argv[] = { "zstd", "-dc", "-q", path, NULL };
        char *ledger_argv[] = { WT_ANALYZE_BIN, "ledger", path, NULL };
        char *anom_argv[] = { WT_ANALYZE_BIN, "anomalies", path, NULL };
        char *info_argv[] = { WT_ANALYZE_BIN, "info", path, NULL };
        char *dump_argv[] = { WT_ANALYZE_BIN, "dump", "--json", path, NULL };
        char *export_argv[] = { WT_ANALYZE_BIN, "export", "-o", "/dev/null", path, NULL };
        /* dump and export: the two shapes of few labels, and the two of many (export's
         * string tables and the analyses' per-label state) */
        const int heavy = sh == S_REPEATED || sh == S_NESTED || sh == S_LABELS16K || sh == S_UNIQUE;
        enum { C_ZSTD, C_LEDGER, C_ANOM, C_INFO, C_DUMP, C_EXPORT, N_CMDS };
        char *const *const cmds[N_CMDS] = { zstd_argv, ledger_argv, anom_argv, info_argv,
                                            heavy ? dump_argv : NULL,
                                            heavy ? export_argv : NULL };
        double t[N_CMDS][MAX_REPS] = { { 0 } };
        long rss = 0;
        int bad = 0;
        for (int round = 0; round < reps && !bad; round++)
            bad = measure_round(cmds, N_CMDS, round, t, &rss);
        if (bad) {
            failed = 1;
            continue;
        }
        const double fz = least(t[C_ZSTD], reps), fl = least(t[C_LEDGER], reps),
                     fa = least(t[C_ANOM], reps), fi = least(t[C_INFO], reps),
                     fd = least(t[C_DUMP], reps), fe = least(t[C_EXPORT], reps);
        const double ql = ratio_median(t[C_LEDGER], t[C_ZSTD], reps),
                     qa = ratio_median(t[C_ANOM], t[C_ZSTD], reps),
                     qi = ratio_median(t[C_INFO], t[C_ZSTD], reps);
        const double dump_rate = fd > 0 ? (double)events / fd : 0,
                     export_rate = fe > 0 ? (double)spans / fe : 0;
        /* a shape that does not run dump and export shows "-" there, not a rate of 0 */
        char dump_col[16] = "-", export_col[16] = "-";
        if (heavy) {
            snprintf(dump_col, sizeof dump_col, "%.2fM", dump_rate / 1e6);
            snprintf(export_col, sizeof export_col, "%.2fM", export_rate / 1e6);
        }
        printf("  %-9s %7.2f %7.3f | %7.3f %6.2f | %7.3f %6.2f | %7.3f %6.2f | %10s | %10s | %5.1f MiB\n",
               shape_name[sh], (double)sb.st_size / (double)(spans ? spans : 1), fz, fl, ql,
               fa, qa, fi, qi, dump_col, export_col, rss / 1024.0);
        if (spans != n)
            printf("  (%s: %lld spans read back of %lld recorded)\n", shape_name[sh], spans, n);
        char key[128];
        snprintf(key, sizeof key, "analyze.%s.bytes_per_span", shape_name[sh]);
        fig(key, (double)sb.st_size / (double)(spans ? spans : 1), "B", "", -1);
        snprintf(key, sizeof key, "analyze.%s.zstd_cpu_s", shape_name[sh]);
        fig(key, fz, "s", "", -1);
        snprintf(key, sizeof key, "analyze.%s.ledger_x_zstd", shape_name[sh]);
        fig(key, ql, "x", "<= 2", ql <= 2);
        snprintf(key, sizeof key, "analyze.%s.anomalies_x_zstd", shape_name[sh]);
        fig(key, qa, "x", "<= 2", qa <= 2);
        snprintf(key, sizeof key, "analyze.%s.info_x_zstd", shape_name[sh]);
        fig(key, qi, "x", "<= 2", qi <= 2);
        if (heavy) {
            snprintf(key, sizeof key, "analyze.%s.dump_json_Mevents_per_cpu_s", shape_name[sh]);
            fig(key, dump_rate / 1e6, "M/s", ">= 5", dump_rate >= 5e6);
            snprintf(key, sizeof key, "analyze.%s.export_Mspans_per_cpu_s", shape_name[sh]);
            fig(key, export_rate / 1e6, "M/s", ">= 5", export_rate >= 5e6);
        }
        snprintf(key, sizeof key, "analyze.%s.peak_rss_MiB", shape_name[sh]);
        fig(key, rss / 1024.0, "MiB", "< 64", rss < 64 * 1024);
        if (sh == S_NESTED) {
            long long an_spans = 0;
            double fin_ms = 0;
            const double an_ns = analysis_ns_per_span(path, &an_spans, &fin_ms);
            if (an_ns >= 0) {
                printf("  analysis alone, nested (ledger + anomalies in process, events decoded "
                       "beforehand): %.1f ns/span, then %.1f ms to finish\n", an_ns, fin_ms);
                fig("analyze.nested.analysis_alone_ns_per_span", an_ns, "ns", "", -1);
            }
        }
        if (!getenv("BENCH_ANALYZE_KEEP"))
            unlink(path);
    }
    return failed;
}
