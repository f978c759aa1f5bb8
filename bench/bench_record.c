/* bench_record: what recording costs on the recording thread, on the whole process and in wall
 * time, for the label patterns of real loads, against the floor of any recorder.
 *
 * The floor is two reads of the fastest clock (rdtsc on x86-64, else clock_gettime) plus a
 * 24-byte store into a thread-local buffer: what a span stored once at its end needs at
 * least. Label patterns (docs/PERFORMANCE.md):
 *   const   one label;
 *   cycle   1,000 distinct labels in turn;
 *   random  1,000 distinct labels in a random order (fixed seed);
 *   unique  a new label for every span;
 * each with labels as string literals (`lit`, 1,000 literals in .rodata) or formatted into a
 * reused stack buffer (`fmt`, "layer.%d.wq", 16 bytes, by a hand formatter: snprintf costs ~60
 * ns and would drown the figure being measured; `long`, a real tensor name,
 * "model.layers.%d.self_attn.q_proj.weight", 38-40 bytes for the 1,000-label patterns). A span's cost is the loop with wt_begin/wt_end minus
 * the same loop handing the label to an empty asm (choosing and formatting the label is the
 * caller's work, not the recorder's), on the recording thread's CPU clock; ratios are medians
 * of per-repetition ratios to the floor measured in the same repetition.
 * Per pattern, it also reports: wall time per span of the recording thread; all CPU of the
 * process per span (writer, zstd and write() included: a wt_flush() ends each repetition);
 * voluntary context switches of the recording thread (it slept waiting for the writer);
 * bytes per span on disk and spans dropped (a file of its own per pattern).
 * Then 2 recording threads against 1, a busy-machine mode (a child process spins on the
 * other core while the recording thread runs; wall against thread CPU), and wt_record() with
 * the caller's own two clock_gettime() reads included.
 * Lines starting "@ " are for bench/run: name, value, unit, target, verdict.
 * `bench_record busy` runs the busy-machine mode alone (the ring-full policy's figures).
 * `bench_record PATTERN lit|lit2|fmt|long|fmtlit|longlit [SPANS]` runs one pattern alone instead (a warm-up, then SPANS
 * spans, default 1,000,000, in one_pattern()): for `perf stat` and for
 * `valgrind --tool=callgrind --toggle-collect=one_pattern`, whose instruction count over SPANS
 * is the recorder's instructions per span plus the loop's own few.
 * Environment: WALLTIME_ZSTD_LEVEL, WALLTIME_COMPRESS_CPU (default 5: many frames of these
 * loops are stored, docs/RECORDER.md), WALLTIME_RING and WALLTIME_RING_WAIT_MS are honoured. */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define FLOOR_CLOCK() __rdtsc()
#define FLOOR_NAME "rdtsc"
#else
static inline uint64_t mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
#define FLOOR_CLOCK() mono()
#define FLOOR_NAME "clock_gettime"
#endif

#include "walltime/reader.h"
#include "walltime/walltime.h"

#define REPS 11
#define N_SPANS 200000
#define N_LABELS 1000
#define N_DISK 1000000
#define N_BUSY 2000000
#define BUSY_REPS 5

static double clock_ns(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static long thread_vcsw(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nvcsw;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[64];
    memcpy(s, v, (size_t)n * sizeof *v);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* ---- one CPU for what is compared ----
 * The floor and the loops it is compared with run on one CPU: on the project's 2-vCPU VM the
 * two vCPUs do not run at one speed (an ALU loop took 0.45 s on one and 0.72 s on the other,
 * and which one is slower changes over minutes with the host's other load), so a repetition
 * whose floor ran on one and its spans on the other was off by up to 60 %. The recording
 * thread pins itself to the CPU it is on for each repetition and lets go after; the writer
 * thread, made by wt_open() while the recording thread is free, runs where the kernel puts it.
 */
static cpu_set_t start_cpus;

static void pin_here(void)
{
    const int c = sched_getcpu();
    if (c < 0)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(c, &one);
    (void)pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}

static void unpin(void)
{
    (void)pthread_setaffinity_np(pthread_self(), sizeof start_cpus, &start_cpus);
}

/* One figure for bench/run: target "<= X" or "" (none); met 1, 0 or -1 (no target). */
static void fig(const char *name, double v, const char *unit, const char *target, int met)
{
    printf("@ %s\t%.2f\t%s\t%s\t%s\n", name, v, unit, target,
           met < 0 ? "" : met ? "ok" : "MISS");
}

/* ---- the floor ---- */
typedef struct floor_ent {
    uint64_t t0, t1;
    uint64_t ids;
} floor_ent;
static __thread floor_ent floor_buf[4096];
static volatile uint64_t sink;

static __attribute__((noinline)) double floor_once(void)
{
    const double c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (uint32_t i = 0; i < N_SPANS; i++) {
        const uint64_t t0 = FLOOR_CLOCK();
        const uint64_t t1 = FLOOR_CLOCK();
        floor_ent *e = &floor_buf[i & 4095];
        e->t0 = t0;
        e->t1 = t1;
        e->ids = i;
        __asm__ volatile("" ::: "memory"); /* keep the stores */
    }
    sink = floor_buf[7].t0;
    return (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / N_SPANS;
}

/* ---- labels ---- */
/* 1,000 distinct literals "layer.000" .. "layer.999", wherever the linker puts them */
#define D1(p) p "0", p "1", p "2", p "3", p "4", p "5", p "6", p "7", p "8", p "9"
#define D2(p) D1(p "0"), D1(p "1"), D1(p "2"), D1(p "3"), D1(p "4"), D1(p "5"), D1(p "6"), \
              D1(p "7"), D1(p "8"), D1(p "9")
#define D3(p) D2(p "0"), D2(p "1"), D2(p "2"), D2(p "3"), D2(p "4"), D2(p "5"), D2(p "6"), \
              D2(p "7"), D2(p "8"), D2(p "9")
static const char *const lit[N_LABELS] = { D3("layer.") };
/* A second layout (`lit2`, one-pattern mode only): 1,000 literals of 3 to 12 bytes, so they
 * are not evenly spaced in .rodata; a pointer cache's cost must not hinge on the spacing. */
#define E1(p) p "0", p "1a", p "2bbbb", p "3cc", p "4dddddddd", p "5e", p "6ffffff", p "7ggg", \
              p "8", p "9hhhhh"
#define E2(p) E1(p "0"), E1(p "1"), E1(p "2"), E1(p "3"), E1(p "4"), E1(p "5"), E1(p "6"), \
              E1(p "7"), E1(p "8"), E1(p "9")
#define E3(p) E2(p "0"), E2(p "1"), E2(p "2"), E2(p "3"), E2(p "4"), E2(p "5"), E2(p "6"), \
              E2(p "7"), E2(p "8"), E2(p "9")
static const char *const lit2[N_LABELS] = { E3("w") };

enum { P_CONST, P_CYCLE, P_RANDOM, P_UNIQUE, N_PAT };
static const char *const pat_name[N_PAT] = { "const", "cycle1000", "random1000", "unique" };
static uint16_t order[N_SPANS]; /* the random pattern's label indices */
static uint64_t unique_next;    /* unique labels never repeat, across repetitions too */

/* pre, the decimal n and post (npost counting its NUL) into buf: what snprintf(buf, ...,
 * "%s%llu%s", pre, n, post) writes, at a tenth of its cost. */
static inline const char *fmt_num(char *buf, const char *pre, size_t npre, uint64_t n,
                                  const char *post, size_t npost)
{
    char d[24];
    int k = 0;
    do {
        d[k++] = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    memcpy(buf, pre, npre);
    char *p = buf + npre;
    while (k)
        *p++ = d[--k];
    memcpy(p, post, npost);
    return buf;
}

/* "layer.<n>.wq" into buf (32 bytes). */
static inline const char *fmt_label(char *buf, uint64_t n) { return fmt_num(buf, "layer.", 6, n, ".wq", 4); }

/* "model.layers.<n>.self_attn.q_proj.weight" into buf (64 bytes). */
static inline const char *fmt_long(char *buf, uint64_t n)
{
    return fmt_num(buf, "model.layers.", 13, n, ".self_attn.q_proj.weight", 25);
}

/* Label styles: literals, short formatted, long formatted (the table's rows); in one-pattern
 * mode only, the second literal layout and two controls, `fmtlit` and `longlit`: the loop of
 * `fmt` or `long` (the label formatted, its buffer handed to an empty asm) recording the
 * literal of the same index. A control minus `lit` is what the caller's formatting costs the
 * subtraction (it overlaps less with a recorded span than with the empty loop); `fmt` minus
 * `fmtlit` is what the formatted label itself costs the recorder. */
enum { S_LIT, S_FMT, S_LONG, S_TABLE, S_LIT2 = S_TABLE, S_FMTLIT, S_LONGLIT, N_STYLE };
static const char *const style_name[N_STYLE] = { "lit", "fmt", "long", "lit2", "fmtlit", "longlit" };

static inline uint64_t label_index(int pat, uint32_t i)
{
    switch (pat) {
    case P_CONST: return 0;
    case P_CYCLE: return i % N_LABELS;
    case P_RANDOM: return order[i];
    default: return unique_next++;
    }
}

typedef struct run_res {
    double cpu, wall, proc; /* ns per span */
    long vcsw;
} run_res;

/* One repetition of n spans of pattern `pat`, labels of style `fmt` (S_*); record = 0 runs the
 * same loop without the
 * recorder (the label goes to an empty asm). A wt_flush() before and after: the process CPU
 * includes the writer's work for these spans. */
static __attribute__((noinline)) run_res loop_once(int pat, int fmt, int record, uint32_t n)
{
    char buf[64];
    run_res r;
    if (record)
        wt_flush();
    const long v0 = thread_vcsw();
    const double p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_ns(CLOCK_MONOTONIC),
                 c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t k = label_index(pat, i % N_SPANS);
        const char *label = fmt == S_LONG || fmt == S_LONGLIT ? fmt_long(buf, k)
                            : fmt == S_FMT || fmt == S_FMTLIT
                                ? fmt_label(buf, pat == P_UNIQUE ? k : k + 1000000)
                            : fmt == S_LIT2 ? lit2[k]
                                            : lit[k];
        if (fmt >= S_FMTLIT) { /* a control: the label formatted, a literal recorded */
            __asm__ volatile("" ::"r"(label) : "memory");
            label = lit[k];
        }
        if (record) {
            const wt_span h = wt_begin("weight_load", label);
            wt_end(h, WT_CACHED_HIT, 0, NULL);
        } else {
            __asm__ volatile("" ::"r"(label) : "memory");
        }
    }
    r.cpu = (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / n;
    r.wall = (clock_ns(CLOCK_MONOTONIC) - w0) / n;
    r.vcsw = thread_vcsw() - v0;
    if (record)
        wt_flush(); /* the writer's share for these spans: encode, compress, write */
    r.proc = (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0) / n;
    return r;
}

/* ---- two threads ---- */
static pthread_barrier_t barrier;
static double thread_result[2];
static int two_pat, two_fmt;

static void *two_worker(void *arg)
{
    const int k = (int)(intptr_t)arg;
    pthread_barrier_wait(&barrier);
    thread_result[k] = loop_once(two_pat, two_fmt, 1, N_SPANS).cpu;
    return NULL;
}

static double two_threads_once(int pat, int fmt)
{
    pthread_t t[2];
    two_pat = pat;
    two_fmt = fmt;
    pthread_barrier_init(&barrier, NULL, 2);
    for (int k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, two_worker, (void *)(intptr_t)k);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    pthread_barrier_destroy(&barrier);
    return (thread_result[0] + thread_result[1]) / 2;
}

/* ---- wt_record with the caller's clock ---- */
static double record_once(void)
{
    const double c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (uint32_t i = 0; i < N_SPANS; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        const double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
        wt_record("weight_load", lit[i & 7], s, WT_CACHED_HIT, 1, NULL);
    }
    return (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / N_SPANS;
}

/* ---- bytes on disk ---- */
static void read_back(const char *path, uint64_t *spans, uint64_t *dropped)
{
    *spans = *dropped = 0;
    wt_reader *r = NULL;
    if (wt_reader_open(path, &r) == 0) {
        wt_event ev;
        int rc;
        while ((rc = wt_reader_next(r, &ev)) != 0) {
            if (rc < 0)
                continue;
            if (ev.kind == WT_EV_SPAN)
                (*spans)++;
            else if (ev.kind == WT_EV_DROPPED)
                *dropped += (uint64_t)ev.count;
        }
    }
    wt_reader_free(r);
}

/* N_DISK spans of the pattern into a file of their own: bytes per span; *lost spans not
 * read back (dropped or missing). */
static double disk_bytes(int pat, int fmt, uint64_t *lost, uint64_t *dropped)
{
    char path[256];
    snprintf(path, sizeof path, "/tmp/bench_record-%d-disk.wtrace", (int)getpid());
    unlink(path);
    if (wt_open(path) != 0)
        return -1;
    for (uint32_t done = 0; done < N_DISK; done += N_SPANS)
        loop_once(pat, fmt, 1, N_SPANS);
    wt_close();
    struct stat st;
    uint64_t spans = 0;
    const int bad = stat(path, &st) != 0;
    if (!bad)
        read_back(path, &spans, dropped);
    unlink(path);
    *lost = N_DISK - spans;
    return bad ? -1 : (double)st.st_size / N_DISK;
}

/* ---- a busy machine ---- */
/* A child spinning on every CPU but `busy_cpu` (the recording thread's, pinned there). */
static pid_t spinner(int busy_cpu)
{
    const pid_t pid = fork();
    if (pid == 0) {
        cpu_set_t others = start_cpus;
        if (busy_cpu >= 0)
            CPU_CLR(busy_cpu, &others);
        if (CPU_COUNT(&others) > 0)
            (void)sched_setaffinity(0, sizeof others, &others);
        for (volatile uint64_t x = 0;; x++)
            ;
    }
    return pid;
}

/* One pattern, n spans, recording: the loop of loop_once() alone, in a function of its own
 * for callgrind's --toggle-collect. */
static __attribute__((noinline)) run_res one_pattern(int pat, int fmt, uint32_t n)
{
    return loop_once(pat, fmt, 1, n);
}

/* `bench_record PATTERN lit|lit2|fmt|long|fmtlit|longlit [SPANS]`: 0, or 2 for an unknown pattern. */
static int one_pattern_main(const char *pname, const char *style, const char *spans)
{
    int pat = 0;
    while (pat < N_PAT && strcmp(pat_name[pat], pname) != 0)
        pat++;
    int fmt = 0;
    while (fmt < N_STYLE && strcmp(style_name[fmt], style) != 0)
        fmt++;
    if (pat == N_PAT || fmt == N_STYLE || (pat == P_UNIQUE && fmt != S_FMT && fmt != S_LONG)) {
        fprintf(stderr, "usage: bench_record [const|cycle1000|random1000|unique lit|lit2|fmt|long|fmtlit|longlit [SPANS]]\n");
        return 2;
    }
    const long n = spans ? atol(spans) : 1000000;
    const uint32_t un = n > 0 && n < 1000000000 ? (uint32_t)n : 1000000;
    loop_once(pat, fmt, 1, N_SPANS); /* warm: the thread, its strings and caches */
    pin_here();
    const double f = floor_once();
    const run_res r = one_pattern(pat, fmt, un);
    const run_res base = loop_once(pat, fmt, 0, un);
    printf("%s %s: %u spans, %.1f ns thread CPU per span (loop alone %.1f), floor %.1f ns, %.2fx, %ld voluntary switches; process CPU %.1f ns, %.2fx; wall %.1f ns\n",
           pname, style, un, r.cpu - base.cpu, base.cpu, f, (r.cpu - base.cpu) / f, r.vcsw,
           r.proc - base.proc, (r.proc - base.proc) / f, r.wall - base.wall);
    return 0;
}

int main(int argc, char **argv)
{
    const int only_busy = argc > 1 && strcmp(argv[1], "busy") == 0;
    if (pthread_getaffinity_np(pthread_self(), sizeof start_cpus, &start_cpus) != 0)
        CPU_ZERO(&start_cpus);
    setenv("WALLTIME_SUMMARY", "0", 1);
    char path[256];
    snprintf(path, sizeof path, "/tmp/bench_record-%d.wtrace", (int)getpid());
    unlink(path);
    if (wt_open(path) != 0) {
        fprintf(stderr, "bench_record: cannot record\n");
        return 1;
    }
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N_SPANS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order[i] = (uint16_t)(x % N_LABELS);
    }
    if (argc >= 3) {
        const int rc = one_pattern_main(argv[1], argv[2], argc > 3 ? argv[3] : NULL);
        wt_close();
        unlink(path);
        return rc;
    }
    const char *lvl = getenv("WALLTIME_ZSTD_LEVEL"), *ring = getenv("WALLTIME_RING");
    printf("bench_record: medians of %d repetitions x %d spans; ratios are medians of per-repetition ratios; zstd level %s, ring %s entries\n",
           REPS, N_SPANS, lvl ? lvl : "default", ring ? ring : "default");
    if (only_busy)
        goto busy;

    /* warm: threads, strings, caches. Not `unique`, whose labels are new by design: its
     * 200,000 strings would sit in the thread's content table while the 1,000-label
     * patterns are measured (their rows then measure 1,000 labels among 201,000; `unique`
     * itself runs last) */
    for (int pat = 0; pat < P_UNIQUE; pat++)
        for (int fmt = 0; fmt < S_TABLE; fmt++)
            loop_once(pat, fmt, 1, N_SPANS);

    double fl[REPS];
    for (int r = 0; r < REPS; r++)
        fl[r] = floor_once();
    const double f = median(fl, REPS);
    printf("floor: 2 x %s + 24-byte TLS store: %.1f ns\n", FLOOR_NAME, f);
    fig("record.floor_ns", f, "ns", "", -1);

    printf("%-18s %8s %7s %8s %8s %8s %7s %8s %8s\n", "pattern", "cpu ns", "x floor",
           "wall ns", "proc ns", "proc/fl", "vcsw", "B/span", "lost");
    double q_const = 0;
    for (int pat = 0; pat < N_PAT; pat++) {
        for (int fmt = 0; fmt < S_TABLE; fmt++) {
            if (pat == P_UNIQUE && fmt == S_LIT)
                continue; /* a new literal per span does not exist */
            double c[REPS], w[REPS], p[REPS], q[REPS], pq[REPS];
            long vc = 0;
            for (int r = 0; r < REPS; r++) {
                pin_here();
                const double fr = floor_once();
                const run_res base = loop_once(pat, fmt, 0, N_SPANS);
                const run_res rr = loop_once(pat, fmt, 1, N_SPANS);
                unpin();
                c[r] = rr.cpu - base.cpu;
                w[r] = rr.wall - base.wall;
                p[r] = rr.proc - base.proc;
                q[r] = c[r] / fr;
                pq[r] = p[r] / fr;
                vc += rr.vcsw;
            }
            uint64_t lost = 0, dropped = 0;
            wt_close();
            const double bytes = disk_bytes(pat, fmt, &lost, &dropped);
            unlink(path);
            wt_open(path);
            char name[64];
            snprintf(name, sizeof name, "%s %s", pat_name[pat], style_name[fmt]);
            const double qm = median(q, REPS);
            if (pat == P_CONST && !fmt)
                q_const = qm;
            printf("%-18s %8.1f %7.2f %8.1f %8.1f %8.2f %7ld %8.2f %8" PRIu64 "\n", name,
                   median(c, REPS), qm, median(w, REPS), median(p, REPS), median(pq, REPS),
                   vc / REPS, bytes, lost);
            char key[96];
            const int targeted = pat != P_UNIQUE;
            snprintf(key, sizeof key, "record.%s.%s.cpu_x_floor", pat_name[pat], style_name[fmt]);
            fig(key, qm, "x", targeted ? "<= 1.5" : "", targeted ? qm <= 1.5 : -1);
            snprintf(key, sizeof key, "record.%s.%s.proc_x_floor", pat_name[pat], style_name[fmt]);
            fig(key, median(pq, REPS), "x", targeted ? "<= 3" : "", targeted ? median(pq, REPS) <= 3 : -1);
            snprintf(key, sizeof key, "record.%s.%s.vcsw_per_rep", pat_name[pat], style_name[fmt]);
            fig(key, (double)vc / REPS, "", "", -1);
            snprintf(key, sizeof key, "record.%s.%s.bytes_per_span", pat_name[pat], style_name[fmt]);
            fig(key, bytes, "B", "", -1);
            snprintf(key, sizeof key, "record.%s.%s.spans_lost_of_1M", pat_name[pat], style_name[fmt]);
            fig(key, (double)lost, "", "", -1);
        }
    }
    (void)q_const;

    /* 2 threads against 1 */
    static const int two[][2] = { { P_CONST, 0 }, { P_RANDOM, 0 }, { P_RANDOM, 1 } };
    for (size_t k = 0; k < sizeof two / sizeof two[0]; k++) {
        double q[REPS];
        for (int r = 0; r < REPS; r++) {
            const double one = loop_once(two[k][0], two[k][1], 1, N_SPANS).cpu;
            q[r] = two_threads_once(two[k][0], two[k][1]) / one;
        }
        char key[96];
        snprintf(key, sizeof key, "record.%s.%s.2threads_x_1", pat_name[two[k][0]],
                 two[k][1] ? "fmt" : "lit");
        const double m = median(q, REPS);
        printf("2 threads / 1 thread, %s %s: %.2fx\n", pat_name[two[k][0]],
               two[k][1] ? "fmt" : "lit", m);
        fig(key, m, "x", "<= 1.1", m <= 1.1);
    }

    /* wt_record with the caller's clock reads */
    {
        double q[REPS], v[REPS];
        for (int r = 0; r < REPS; r++) {
            pin_here();
            const double fr = floor_once();
            v[r] = record_once();
            unpin();
            q[r] = v[r] / fr;
        }
        printf("wt_record + caller's 2 clock_gettime: %.1f ns, %.2fx floor\n", median(v, REPS),
               median(q, REPS));
        fig("record.wt_record_with_clock_x_floor", median(q, REPS), "x", "", -1);
    }

    /* a busy machine: the other core spins */
busy:
    {
        pin_here(); /* the spinner takes the other core; the writer runs where it can */
        const pid_t child = spinner(sched_getcpu());
        static const int busy[][2] = { { P_CONST, 0 }, { P_RANDOM, 0 }, { P_RANDOM, 1 } };
        for (size_t k = 0; k < sizeof busy / sizeof busy[0]; k++) {
            double q[BUSY_REPS], c[BUSY_REPS], p[BUSY_REPS];
            long vc = 0;
            for (int r = 0; r < BUSY_REPS; r++) {
                const run_res rr = loop_once(busy[k][0], busy[k][1], 1, N_BUSY);
                q[r] = rr.wall / rr.cpu;
                c[r] = rr.cpu;
                p[r] = rr.proc;
                vc += rr.vcsw;
            }
            const double m = median(q, BUSY_REPS);
            printf("busy machine, %s %s: wall %.2fx thread CPU (%.1f ns), process CPU %.1f ns, %ld voluntary switches per %d spans\n",
                   pat_name[busy[k][0]], busy[k][1] ? "fmt" : "lit", m, median(c, BUSY_REPS),
                   median(p, BUSY_REPS), vc / BUSY_REPS, N_BUSY);
            char key[96];
            snprintf(key, sizeof key, "record.busy.%s.%s.wall_x_cpu", pat_name[busy[k][0]],
                     busy[k][1] ? "fmt" : "lit");
            fig(key, m, "x", "<= 2", m <= 2);
            snprintf(key, sizeof key, "record.busy.%s.%s.vcsw_per_2M", pat_name[busy[k][0]],
                     busy[k][1] ? "fmt" : "lit");
            fig(key, (double)vc / BUSY_REPS, "", "", -1);
        }
        if (child > 0) {
            kill(child, SIGKILL);
            waitpid(child, NULL, 0);
        }
        unpin();
    }
    wt_close();
    uint64_t spans_file, dropped_file;
    read_back(path, &spans_file, &dropped_file);
    unlink(path);
    printf("timing run: %" PRIu64 " spans in the file, %" PRIu64 " dropped\n", spans_file,
           dropped_file);
    /* drops happen only when a wait for ring space runs out, i.e. in the busy mode */
    fig("record.timing_run.dropped", (double)dropped_file, "", "", -1);
    return 0;
}
