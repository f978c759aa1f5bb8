/* bench_export: spans per second and peak memory of `export` on a 10-million-span trace.
 *
 * The trace is built here with the format encoder (libtrace/src/encode.h), like a recorder
 * would write it: 4 threads, chunks of 1000 spans per thread in turn, each thread a flame of
 * one root span (depth 0) around all its work, groups of a parent (depth 1) with 9 children
 * (depth 2), 40 labels in 5 categories, HIT/MISS on the loads, bytes and details on some, a
 * counter every 1000 spans. The root spans arrive last, after ten million children: the case
 * that makes holding children until their parent arrives unbounded, so the Perfetto export's
 * nesting hold passes its bound and writes early all the time (docs/EXPORT.md).
 *
 * Each export runs in a child process, so its peak RSS (wait4) and CPU time (getrusage) are the
 * export's alone; on a shared machine the CPU time is the figure to compare. Output goes to
 * /dev/null (the disk is not what is measured; the bytes written are printed).
 *
 * usage: bench_export [SPANS] [TRACE_PATH]     (default 10000000, /tmp/bench_export.wtrace)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "encode.h"
#include "export.h"
#include "format.h"

#define BUF (1u << 20)
#define THREADS 4
#define CHUNK 1000
#define N_LABELS 40

typedef struct builder {
    FILE *f;
    uint8_t *buf, *out;
    wt__enc e;
    ZSTD_CCtx *cctx;
} builder;

static void die(const char *what)
{
    fprintf(stderr, "bench_export: %s\n", what);
    exit(1);
}

static void flush_frame(builder *b)
{
    if (!b->e.len)
        return;
    size_t n = wt__frame_compress(b->cctx, b->out, ZSTD_compressBound(BUF), b->buf, b->e.len);
    if (!n || fwrite(b->out, 1, n, b->f) != n)
        die("cannot write a frame");
    wt__enc_reset(&b->e, b->buf, BUF);
}

#define EMIT(b, call)                                                                      \
    do {                                                                                   \
        if ((call) == WT_ENOSPC) {                                                          \
            flush_frame(b);                                                                \
            if ((call) != 0)                                                               \
                die("record does not fit");                                                \
        }                                                                                  \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void build(const char *path, int64_t spans)
{
    builder b = { 0 };
    if (!(b.f = fopen(path, "wb")))
        die("cannot create the trace");
    b.buf = malloc(BUF);
    b.out = malloc(ZSTD_compressBound(BUF));
    b.cctx = ZSTD_createCCtx();
    if (!b.buf || !b.out || !b.cctx)
        die("out of memory");
    ZSTD_CCtx_setParameter(b.cctx, ZSTD_c_compressionLevel, 1);
    const int64_t t0 = 1000000000;
    wt__header h = { .pid = 4242, .process_start_ns = t0, .open_ns = t0, .anchor_mono_ns = t0,
                     .anchor_real_ns = 1767225600000000000LL, .clock = "monotonic",
                     .host = "bench", .cmdline = "bench_export", .recorder = "bench" };
    uint8_t hb[WT__HEADER_MAX + 8];
    size_t hn = wt__header_frame(hb, sizeof hb, &h);
    if (!hn || fwrite(hb, 1, hn, b.f) != hn)
        die("cannot write the header");
    wt__enc_reset(&b.e, b.buf, BUF);

    /* strings: 1..5 categories, 6..45 labels, 46 root, 47 detail, 48 counter */
    static const char *const cats[5] = { "load", "compile", "upload", "decode", "generate" };
    char s[64];
    for (uint32_t i = 0; i < 5; i++)
        EMIT(&b, wt__enc_string(&b.e, i + 1, cats[i], strlen(cats[i])));
    for (uint32_t i = 0; i < N_LABELS; i++) {
        int n = snprintf(s, sizeof s, "layers.%u.weight", i);
        EMIT(&b, wt__enc_string(&b.e, 6 + i, s, (size_t)n));
    }
    EMIT(&b, wt__enc_string(&b.e, 46, "model", 5));
    EMIT(&b, wt__enc_string(&b.e, 47, "from /cache/blob", 16));
    EMIT(&b, wt__enc_string(&b.e, 48, "device_bytes", 12));

    int64_t clock[THREADS], done = 0, per_thread = spans / THREADS;
    int64_t emitted[THREADS] = { 0 };
    for (int t = 0; t < THREADS; t++)
        clock[t] = t0 + 1000;
    int64_t group_start[THREADS] = { 0 };
    while (done < spans - THREADS) {
        for (int t = 0; t < THREADS && done < spans - THREADS; t++) {
            uint64_t tid = 5000 + (uint64_t)t;
            for (int k = 0; k < CHUNK && emitted[t] < per_thread - 1; k++) {
                int64_t i = emitted[t]++;
                wt__span_rec r = { 0 };
                if (i % 10 == 9) { /* the group's parent, after its 9 children */
                    r.start = group_start[t];
                    r.end = clock[t] + 100;
                    r.depth = 1;
                    r.category = 2;
                    r.label = 6 + (uint32_t)(i / 10 % N_LABELS);
                    clock[t] += 200;
                } else {
                    if (i % 10 == 0)
                        group_start[t] = clock[t] + 50;
                    r.start = clock[t] + 100;
                    r.end = r.start + 1000 + (i % 7) * 10;
                    r.depth = 2;
                    r.category = 1 + (uint32_t)(i % 5 == 1 ? 2 : i % 5 == 2 ? 3 : 0);
                    r.label = 6 + (uint32_t)(i % N_LABELS);
                    r.cached = i % 3 == 0 ? WT_CACHED_HIT : i % 3 == 1 ? WT_CACHED_MISS : WT_CACHED_UNKNOWN;
                    r.count = 1 + i % 4;
                    r.bytes = i % 2 ? 4096 * (i % 16) : 0;
                    r.detail = i % 50 == 0 ? 47 : 0;
                    clock[t] = r.end;
                }
                EMIT(&b, wt__enc_span(&b.e, tid, &r));
                done++;
                if (i % 1000 == 0)
                    EMIT(&b, wt__enc_counter(&b.e, tid, clock[t], 48, i));
            }
        }
    }
    int64_t end = 0;
    for (int t = 0; t < THREADS; t++) {
        wt__span_rec r = { .start = t0 + 500, .end = clock[t] + 1000, .depth = 0, .category = 5,
                           .label = 46 };
        EMIT(&b, wt__enc_span(&b.e, 5000 + (uint64_t)t, &r));
        done++;
        if (r.end > end)
            end = r.end;
    }
    EMIT(&b, wt__enc_end(&b.e, end + 1000, WT__END_CLEAN, 0));
    flush_frame(&b);
    if (fclose(b.f) != 0)
        die("cannot close the trace");
    free(b.buf);
    free(b.out);
    ZSTD_freeCCtx(b.cctx);
    printf("trace: %lld spans, %d threads\n", (long long)done, THREADS);
}

/* Runs one export in a child; prints seconds, spans/s and the child's peak RSS. */
static void run(const char *trace, const char *what, wt_export_format fmt, int no_analysis,
                int64_t spans)
{
    fflush(stdout);
    int fds[2];
    if (pipe(fds) != 0)
        die("pipe");
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        close(fds[0]);
        FILE *out = fopen("/dev/null", "wb");
        if (!out)
            _exit(1);
        setvbuf(out, NULL, _IOFBF, 1 << 20);
        wt_export_opts o = { .format = fmt, .no_analysis = no_analysis };
        wt_export_report rep;
        char *paths[1] = { (char *)trace };
        struct rusage r0, r1;
        getrusage(RUSAGE_SELF, &r0);
        double t = now();
        int rc = wt_export_stream(paths, 1, &o, out, &rep);
        t = now() - t;
        fclose(out);
        getrusage(RUSAGE_SELF, &r1);
        double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
                     (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 +
                     (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
                     (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
        double msg[4] = { t, (double)rep.sink.spans, (double)rep.sink.bytes, cpu };
        if (write(fds[1], msg, sizeof msg) != (ssize_t)sizeof msg)
            _exit(1);
        _exit(rc < 0 ? 1 : 0);
    }
    close(fds[1]);
    double msg[4] = { 0 };
    ssize_t got = read(fds[0], msg, sizeof msg);
    close(fds[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0 || got != (ssize_t)sizeof msg || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        die("the export failed");
    printf("%-30s %6.2f s  %5.2f M spans/s  cpu %6.2f s  %5.2f M spans/s of CPU  peak RSS "
           "%5.1f MiB  (%lld spans",
           what, msg[0], msg[1] / msg[0] / 1e6, msg[3], msg[1] / msg[3] / 1e6,
           ru.ru_maxrss / 1024.0, (long long)msg[1]);
    if (msg[2] > 0) /* the Chrome sink does not count its bytes */
        printf(", %.0f MiB out", msg[2] / (1 << 20));
    printf(")\n");
    (void)spans;
}

int main(int argc, char **argv)
{
    int64_t spans = argc > 1 ? atoll(argv[1]) : 10000000;
    const char *path = argc > 2 ? argv[2] : "/tmp/bench_export.wtrace";
    if (spans < 100)
        die("SPANS must be at least 100");
    double t = now();
    build(path, spans);
    printf("built '%s' in %.1f s\n", path, now() - t);
    run(path, "perfetto (ledger + anomalies)", WT_EXPORT_PERFETTO, 0, spans);
    run(path, "perfetto --no-analysis", WT_EXPORT_PERFETTO, 1, spans);
    run(path, "chrome (ledger + anomalies)", WT_EXPORT_CHROME, 0, spans);
    run(path, "chrome --no-analysis", WT_EXPORT_CHROME, 1, spans);
    printf("targets: >= 5 M spans/s of CPU, < 64 MiB\n");
    return 0;
}
