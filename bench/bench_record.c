/* bench_record: what recording costs, against the floor of any recorder.
 *
 * The floor is two reads of the fastest clock (rdtsc on x86-64, else clock_gettime) plus a
 * 24-byte store into a thread-local buffer: what a span stored once at its end needs at
 * least. Every figure is the median of REPS repetitions in this one run, as ns per span on
 * the recording thread's CPU clock (CLOCK_THREAD_CPUTIME_ID: a noisy neighbour on the shared
 * machine does not blur it), with its ratio to the floor measured in the same run:
 *   - a span (wt_begin + wt_end, literal category and label), 1 and 2 recording threads;
 *   - the same with labels in a writable buffer (validated by content on every call);
 *   - all CPU of the process per span (CLOCK_PROCESS_CPUTIME_ID), the writer thread's
 *     encoding, zstd compression and write() included (a wt_flush() ends each repetition);
 *   - wt_record();
 * and the bytes per span on disk for a repetitive weight-load pattern and for random labels
 * (each in a file of its own, read back to check that no span was dropped).
 * Environment: WALLTIME_ZSTD_LEVEL and WALLTIME_RING are honoured (that is how the defaults
 * were chosen: docs/RECORDER.md). With --levels it also decompresses the two disk traces and
 * recompresses their records in 1 MiB frames at several zstd levels, printing the writer's
 * compression CPU and the bytes per span for each: the same input for every level, so the
 * choice does not depend on this machine's noise. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

#include <zstd.h>

#include "walltime/reader.h"
#include "walltime/walltime.h"

#define REPS 11
#define N_SPANS 200000
#define N_DISK 1000000
#define N_RANDOM 200000

static double cpu_ns(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
    const double c0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
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
    return (cpu_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / N_SPANS;
}

/* ---- spans ---- */
static const char *const tensor_lit[8] = { "layer.wq", "layer.wk", "layer.wv", "layer.wo",
                                           "layer.w1", "layer.w2", "layer.w3", "layer.norm" };
static char tensor_buf[8][32]; /* the same labels, in writable memory */

static double spans_once(int literal)
{
    const double c0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    for (uint32_t i = 0; i < N_SPANS; i++) {
        const char *label = literal ? tensor_lit[i & 7] : tensor_buf[i & 7];
        const wt_span h = wt_begin("weight_load", label);
        wt_end(h, WT_CACHED_HIT, 0, NULL);
    }
    return (cpu_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / N_SPANS;
}

static double record_once(void)
{
    const double c0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    for (uint32_t i = 0; i < N_SPANS; i++)
        wt_record("weight_load", tensor_lit[i & 7], 0.001, WT_CACHED_HIT, 1, NULL);
    return (cpu_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / N_SPANS;
}

static double process_once(void)
{
    wt_flush();
    const double c0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
    spans_once(1);
    wt_flush(); /* the writer's share for these spans: encode, compress, write */
    return (cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / N_SPANS;
}

static pthread_barrier_t barrier;
static double thread_result[2];

static void *two_worker(void *arg)
{
    const int k = (int)(intptr_t)arg;
    pthread_barrier_wait(&barrier);
    thread_result[k] = spans_once(1);
    return NULL;
}

static double two_threads_once(void)
{
    pthread_t t[2];
    pthread_barrier_init(&barrier, NULL, 2);
    for (int k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, two_worker, (void *)(intptr_t)k);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    pthread_barrier_destroy(&barrier);
    return (thread_result[0] + thread_result[1]) / 2;
}

/* ---- bytes on disk ---- */
static const char *const layer_lit[16] = {
    "layer.0", "layer.1", "layer.2", "layer.3", "layer.4", "layer.5", "layer.6", "layer.7",
    "layer.8", "layer.9", "layer.10", "layer.11", "layer.12", "layer.13", "layer.14", "layer.15"
};

/* Reads a trace back: spans and dropped events. */
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

/* The records of a trace: every zstd frame decompressed (the header frame is skippable). */
static uint8_t *raw_records(const char *path, size_t *n_out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    ZSTD_DCtx *d = ZSTD_createDCtx();
    size_t cap = 1 << 20, n = 0;
    uint8_t *out = malloc(cap), in[1 << 16];
    size_t got;
    while ((got = fread(in, 1, sizeof in, f)) > 0) {
        ZSTD_inBuffer ib = { in, got, 0 };
        while (ib.pos < ib.size) {
            if (cap - n < (1 << 17)) {
                cap *= 2;
                out = realloc(out, cap);
            }
            ZSTD_outBuffer ob = { out + n, cap - n, 0 };
            if (ZSTD_isError(ZSTD_decompressStream(d, &ob, &ib)))
                goto done;
            n += ob.pos;
        }
    }
done:
    ZSTD_freeDCtx(d);
    fclose(f);
    *n_out = n;
    return out;
}

static void level_sweep(const char *name, const char *path, uint64_t spans)
{
    size_t n = 0;
    uint8_t *raw = raw_records(path, &n);
    if (!raw || !n || !spans)
        return;
    ZSTD_CCtx *c = ZSTD_createCCtx();
    const size_t frame = 1 << 20, cap = ZSTD_compressBound(frame);
    uint8_t *out = malloc(cap);
    printf("zstd levels, %s: %.2f raw bytes per span\n", name, (double)n / (double)spans);
    static const int levels[] = { -7, -5, -3, -1, 1, 2, 3, 5 };
    for (size_t k = 0; k < sizeof levels / sizeof levels[0]; k++) {
        double best = 1e30;
        size_t total = 0;
        for (int rep = 0; rep < 3; rep++) {
            total = 0;
            const double c0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
            for (size_t off = 0; off < n; off += frame) {
                const size_t len = n - off < frame ? n - off : frame;
                ZSTD_CCtx_reset(c, ZSTD_reset_session_only);
                ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, levels[k]);
                ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
                total += ZSTD_compress2(c, out, cap, raw + off, len);
            }
            const double t = cpu_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
            if (t < best)
                best = t;
        }
        printf("  level %2d  %6.1f ns per span  %6.2f bytes per span\n", levels[k],
               best / (double)spans, (double)total / (double)spans);
    }
    free(out);
    free(raw);
    ZSTD_freeCCtx(c);
}

static double disk_bytes(const char *path, int random, uint64_t *spans, uint64_t *dropped,
                         uint64_t *n_out)
{
    unlink(path);
    if (wt_open(path) != 0)
        return -1;
    uint64_t n = 0;
    if (!random) {
        /* a model load: layers of 8 tensors, each a nested weight-load span, all HIT */
        while (n < N_DISK) {
            for (int l = 0; l < 16 && n < N_DISK; l++) {
                const wt_span ls = wt_begin("layers", layer_lit[l]);
                for (int t = 0; t < 8; t++) {
                    const wt_span h = wt_begin("weight_load", tensor_lit[t]);
                    wt_end(h, WT_CACHED_HIT, 0, NULL);
                }
                wt_end(ls, WT_CACHED_UNKNOWN, 8, NULL);
                n += 9;
            }
        }
    } else {
        char (*labels)[24] = malloc((size_t)N_RANDOM * sizeof *labels);
        uint64_t x = 88172645463325252ull;
        for (int i = 0; i < N_RANDOM; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            snprintf(labels[i], sizeof labels[i], "t.%016" PRIx64, x);
        }
        for (int i = 0; i < N_RANDOM; i++) {
            const wt_span h = wt_begin("weight_load", labels[i]);
            wt_end(h, WT_CACHED_HIT, 0, NULL);
        }
        n = N_RANDOM;
        free(labels);
    }
    wt_close();
    struct stat st;
    if (stat(path, &st))
        return -1;
    read_back(path, spans, dropped);
    *n_out = n;
    return (double)st.st_size / (double)n;
}

int main(int argc, char **argv)
{
    const int sweep = argc > 1 && strcmp(argv[1], "--levels") == 0;
    setenv("WALLTIME_SUMMARY", "0", 1);
    char path[256];
    snprintf(path, sizeof path, "/tmp/bench_record-%d.wtrace", (int)getpid());
    unlink(path);
    if (wt_open(path) != 0) {
        fprintf(stderr, "bench_record: cannot record\n");
        return 1;
    }
    for (int i = 0; i < 8; i++)
        snprintf(tensor_buf[i], sizeof tensor_buf[i], "%s", tensor_lit[i]);
    spans_once(1); /* warm: threads, strings, caches */
    spans_once(0);

    double fl[REPS], s1[REPS], s1b[REPS], s2[REPS], pc[REPS], rc[REPS];
    for (int r = 0; r < REPS; r++) {
        fl[r] = floor_once();
        s1[r] = spans_once(1);
        s1b[r] = spans_once(0);
        s2[r] = two_threads_once();
        pc[r] = process_once();
        rc[r] = record_once();
        wt_flush();
    }
    wt_close();
    uint64_t spans_file, dropped_file;
    read_back(path, &spans_file, &dropped_file);
    unlink(path);
    /* per-repetition ratios, before median() sorts the arrays */
    double ra[REPS], rab[REPS], rb[REPS], rba[REPS], rp[REPS], rw[REPS];
    for (int r = 0; r < REPS; r++) {
        ra[r] = s1[r] / fl[r];
        rab[r] = s1b[r] / fl[r];
        rb[r] = s2[r] / fl[r];
        rba[r] = s2[r] / s1[r];
        rp[r] = pc[r] / fl[r];
        rw[r] = rc[r] / fl[r];
    }
    const double f = median(fl, REPS), a = median(s1, REPS), ab = median(s1b, REPS),
                 b = median(s2, REPS), p = median(pc, REPS), w = median(rc, REPS);
    const double q_a = median(ra, REPS), q_ab = median(rab, REPS), q_b = median(rb, REPS),
                 q_ba = median(rba, REPS), q_p = median(rp, REPS), q_w = median(rw, REPS);

    char dpath[256];
    uint64_t sp_rep, dr_rep, n_rep, sp_rnd, dr_rnd, n_rnd;
    snprintf(dpath, sizeof dpath, "/tmp/bench_record-%d-rep.wtrace", (int)getpid());
    const double bytes_rep = disk_bytes(dpath, 0, &sp_rep, &dr_rep, &n_rep);
    if (sweep)
        level_sweep("repetitive", dpath, sp_rep);
    unlink(dpath);
    snprintf(dpath, sizeof dpath, "/tmp/bench_record-%d-rnd.wtrace", (int)getpid());
    const double bytes_rnd = disk_bytes(dpath, 1, &sp_rnd, &dr_rnd, &n_rnd);
    if (sweep)
        level_sweep("random labels", dpath, sp_rnd);
    unlink(dpath);

    const char *lvl = getenv("WALLTIME_ZSTD_LEVEL"), *ring = getenv("WALLTIME_RING");
    printf("bench_record: medians of %d repetitions x %d spans (ratios: medians of per-repetition ratios); zstd level %s, ring %s entries\n",
           REPS, N_SPANS, lvl ? lvl : "default (1)", ring ? ring : "default (16384)");
    printf("floor: 2 x %s + 24-byte TLS store      %7.1f ns\n", FLOOR_NAME, f);
    printf("span (begin+end), 1 thread, thread CPU  %7.1f ns  %5.2fx floor  (target <= 1.5x)\n", a, q_a);
    printf("span (begin+end), 2 threads, thread CPU %7.1f ns  %5.2fx floor  %5.2fx 1 thread (target <= 1.2x)\n",
           b, q_b, q_ba);
    printf("span, labels in writable memory         %7.1f ns  %5.2fx floor\n", ab, q_ab);
    printf("all CPU per span incl. writer + zstd    %7.1f ns  %5.2fx floor  (target <= 3x)\n", p, q_p);
    printf("wt_record                               %7.1f ns  %5.2fx floor\n", w, q_w);
    printf("bytes per span on disk, repetitive      %7.2f B   (target <= 3)  %" PRIu64 " of %" PRIu64 " spans read back, %" PRIu64 " dropped\n",
           bytes_rep, sp_rep, n_rep, dr_rep);
    printf("bytes per span on disk, random labels   %7.2f B   %" PRIu64 " of %" PRIu64 " spans read back, %" PRIu64 " dropped\n",
           bytes_rnd, sp_rnd, n_rnd, dr_rnd);
    printf("timing run: %" PRIu64 " spans in the file, %" PRIu64 " dropped\n", spans_file, dropped_file);
    return 0;
}
