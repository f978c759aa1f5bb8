/* Writes the seed corpus of the libFuzzer harness into a directory: small real traces built
 * with tests/tracebuild.h, compressed and raw, with every record type, nesting, several
 * threads, rounds and counters, and the three ways a trace ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_mutate.h"
#include "tracebuild.h"

#define MS 1000000LL

static void seed(const char *dir, const char *name, int raw, int threads, int rounds, int end)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.wtrace", dir, name);
    tb *b = tb_create(path, 4242, 1000, 5000);
    tb_set_raw(b, raw);
    int64_t t = 10 * MS;
    for (int th = 1; th <= threads; th++)
        tb_thread_name(b, (uint64_t)th, t, th == 1 ? "main" : "worker");
    tb_meta(b, 1, t, "model", "tiny");
    for (int r = 0; r < rounds; r++) {
        const char *config = r % 2 ? "skip" : "keep";
        int64_t r0 = t;
        for (int th = 1; th <= threads; th++) {
            int64_t a = r0 + th * 100000;
            tb_span_desc leaf = { .tid = (uint64_t)th, .start = a + 200000, .end = a + 500000,
                                  .depth = 2, .category = "load", .label = "w0",
                                  .detail = r ? NULL : "/w0.bin",
                                  .cached = r % 2 ? WT_CACHED_HIT : WT_CACHED_MISS, .count = 3,
                                  .bytes = 4096 };
            tb_span_ex(b, &leaf);
            tb_span_desc mid = { .tid = (uint64_t)th, .start = a + 100000, .end = a + 900000,
                                 .depth = 1, .category = "io", .label = "read", .measured = 1 };
            tb_span_ex(b, &mid);
            tb_counter(b, (uint64_t)th, a + 950000, "rss", 1000 + r);
            tb_mark(b, (uint64_t)th, a + 960000, "phase", "warm", NULL);
            tb_span(b, (uint64_t)th, a, a + 1000000, 0, "step", config);
        }
        t = r0 + 2 * MS;
        tb_round(b, 1, r0, t, config, r / 2);
        tb_sync(b, t);
        tb_frame(b);
    }
    tb_dropped(b, 1, t + 1, 3);
    tb_span_desc open = { .tid = 1, .start = t + 10, .end = t + MS, .category = "step",
                          .label = "exit", .unclosed = 1 };
    tb_span_ex(b, &open);
    tb_close(b, end, t + 2 * MS, end == TB_END_SIGNAL ? 11 : 0);
}

/* The same trace with its raw frames' checksums dropped (descriptor E0, which readers accept):
 * a fuzzer's mutations then reach the record parser instead of failing the checksum. */
static void strip_checksums(const char *dir, const char *from, const char *to)
{
    char in[1024], out[1024];
    snprintf(in, sizeof in, "%s/%s.wtrace", dir, from);
    snprintf(out, sizeof out, "%s/%s.wtrace", dir, to);
    size_t n, o = 0;
    unsigned char *d = tb_read_file(in, &n), *w = malloc(n);
    size_t p = 8 + ((size_t)d[4] | (size_t)d[5] << 8 | (size_t)d[6] << 16 | (size_t)d[7] << 24);
    memcpy(w, d, p);
    o = p;
    while (p + 13 <= n && d[p + 4] == 0xE4) {
        memcpy(w + o, d + p, 13);
        w[o + 4] = 0xE0;
        o += 13;
        p += 13;
        for (;;) {
            unsigned h = d[p] | d[p + 1] << 8 | (unsigned)d[p + 2] << 16;
            size_t len = 3 + (((h >> 1) & 3) == 1 ? 1 : h >> 3);
            memcpy(w + o, d + p, len);
            o += len;
            p += len;
            if (h & 1)
                break;
        }
        p += 4; /* the checksum */
    }
    tb_write_file(out, w, o);
    free(d);
    free(w);
}

static uint64_t seed_rng = 42;

static uint64_t seed_rand(void *ctx)
{
    seed_rng = seed_rng * 6364136223846793005ull + 1442695040888963407ull;
    return seed_rng >> 17;
}

/* A trace with its frame structure stirred (empty and skippable frames, records split across
 * frames, merged frames): `ops` structural mutations with a fixed seed. */
static void structured(const char *dir, const char *from, const char *to, int ops)
{
    char in[1024], out[1024];
    snprintf(in, sizeof in, "%s/%s.wtrace", dir, from);
    snprintf(out, sizeof out, "%s/%s.wtrace", dir, to);
    size_t n;
    unsigned char *d = tb_read_file(in, &n);
    const size_t max = n + (256u << 10);
    unsigned char *w = malloc(max);
    memcpy(w, d, n);
    for (int i = 0; i < ops; i++)
        n = wt_fm_mutate(w, n, max, seed_rand, NULL, NULL, NULL);
    tb_write_file(out, w, n);
    free(d);
    free(w);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seeds DIR\n");
        return 2;
    }
    seed(argv[1], "compressed-3threads-clean", 0, 3, 4, TB_END_CLEAN);
    seed(argv[1], "raw-2threads-signal", 1, 2, 4, TB_END_SIGNAL);
    seed(argv[1], "raw-1thread-noend", 1, 1, 2, TB_END_NONE);
    seed(argv[1], "compressed-1thread-1round", 0, 1, 1, TB_END_CLEAN);
    strip_checksums(argv[1], "raw-2threads-signal", "raw-2threads-signal-nochecksum");
    strip_checksums(argv[1], "raw-1thread-noend", "raw-1thread-noend-nochecksum");
    structured(argv[1], "compressed-3threads-clean", "structure-3threads", 6);
    structured(argv[1], "raw-2threads-signal", "structure-2threads", 4);
    return 0;
}
