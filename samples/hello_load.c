/* hello_load: the smallest realistic use of libwalltime, a pretend model load.
 *
 * It records run metadata, a "setup" phase, then loads 4 layers of weights from a cache
 * (the first layer's weights miss the cache and are "converted"; the others hit), uploads
 * them to a pretend device, warms up and generates a few tokens. Every stage is a span with
 * a category (the ledger's rows) and a label; weight loads carry HIT/MISS; counters follow
 * the device bytes and tensor count. At exit the library prints the ledger and the trace
 * path to stderr; open the trace with `walltime-analyze ledger walltime-<pid>.wtrace`.
 * The exit table is the seed's flat arithmetic: a "layers" span and the weight loads inside
 * it are both counted, so `untracked` is clamped at 0; the analyzer's ledger counts nested
 * spans once (self time).
 *
 * Runs in about 0.1 s. Try WALLTIME=0 (records nothing) or WALLTIME_TRACE=/tmp/run-%p.wtrace. */
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

static const char *const tensors[] = { "wq", "wk", "wv", "wo" };

int main(void)
{
    wt_meta("model", "hello-1b");
    wt_meta("device", "pretend-accelerator");
    wt_thread_name("main");

    WT_SCOPE("setup", "open device") { work(5); }

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
            work(miss ? 6 : 1);
            wt_end(w, miss ? WT_CACHED_MISS : WT_CACHED_HIT, 1,
                   miss ? "cache key changed: dtype bf16 -> bf8" : NULL);
            device_bytes += 4 << 20;
            n_tensors++;
            wt_counter("device_bytes", device_bytes);
        }
        wt_end(layer_span, WT_CACHED_UNKNOWN, 4, NULL);
        wt_counter("tensors", n_tensors);
    }

    /* a span measured by the caller, as the seed's record() */
    wt_record("warmup", "compile kernels", 0.012, WT_CACHED_UNKNOWN, 3, NULL);
    work(12);

    wt_mark("generate", "first token", NULL);
    WT_SCOPE("generate", "decode 8 tokens") { work(8); }
    return 0;
}
