/* hello_load: the smallest realistic use of libwalltime, a pretend model load.
 *
 * It records run metadata, a "setup" phase, then loads 4 layers of weights from a cache
 * (the first layer's weights miss the cache and are "converted"; the others hit) while a
 * second thread prefetches files, warms up and generates a few tokens. Every stage is a span with
 * a category (the ledger's rows) and a label; weight loads carry HIT/MISS; counters follow
 * the device bytes and tensor count. At exit the library prints the ledger and the trace
 * path to stderr; open the trace with `walltime-analyze ledger walltime-<pid>.wtrace`.
 * The exit table is the seed's flat arithmetic: a "layers" span and the weight loads inside
 * it are both counted, so `untracked` is clamped at 0; the analyzer's ledger counts nested
 * spans once (self time).
 *
 * Runs in about 1.3 s, long enough for the ledger's one-decimal seconds to say something.
 * Try WALLTIME=0 (records nothing) or WALLTIME_TRACE=/tmp/run-%p.wtrace. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "walltime/walltime.h"

/* Stands in for real work: sleeps `ms` milliseconds. */
static void work(int ms)
{
    const struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *const tensors[] = { "wq", "wk", "wv", "wo" };

/* A second thread reads the next layers' files while the main thread loads: the ledger
 * counts each instant of wall once and shows the overlap in its threads section. */
static void *prefetch(void *arg)
{
    (void)arg;
    wt_thread_name("prefetch");
    for (int layer = 1; layer < 4; layer++)
        WT_SCOPE("prefetch", "read layer files") { work(80); }
    return NULL;
}

int main(void)
{
    wt_meta("model", "hello-1b");
    wt_meta("device", "pretend-accelerator");
    wt_thread_name("main");

    WT_SCOPE("setup", "open device") { work(100); }
    work(60); /* work nobody instrumented: it shows up as `untracked` */

    pthread_t reader;
    const int have_reader = pthread_create(&reader, NULL, prefetch, NULL) == 0;
    int64_t device_bytes = 0, n_tensors = 0;
    for (int layer = 0; layer < 4; layer++) {
        char label[32];
        snprintf(label, sizeof label, "layer.%d", layer);
        /* a parent span for the layer; the weight loads below nest in it */
        const wt_span layer_span = wt_begin("layers", label);
        for (int i = 0; i < 4; i++) {
            char name[48];
            snprintf(name, sizeof name, "layer.%d.%s", layer, tensors[i]);
            const int miss = layer == 0; /* the first layer was never cached */
            const wt_span w = wt_begin("weight_load", name);
            work(miss ? 150 : 25);
            wt_end(w, miss ? WT_CACHED_MISS : WT_CACHED_HIT, 1,
                   miss ? "cache key changed: dtype bf16 -> bf8" : NULL);
            device_bytes += 4 << 20;
            n_tensors++;
            wt_counter("device_bytes", device_bytes);
        }
        wt_end(layer_span, WT_CACHED_UNKNOWN, 4, NULL);
        wt_counter("tensors", n_tensors);
    }

    if (have_reader)
        pthread_join(reader, NULL);

    /* a span the caller measured itself, as with the seed's record() */
    const double t0 = now_s();
    work(120);
    wt_record("warmup", "compile kernels", now_s() - t0, WT_CACHED_UNKNOWN, 3, NULL);

    wt_mark("generate", "first token", NULL);
    WT_SCOPE("generate", "decode 8 tokens") { work(100); }
    return 0;
}
