/* bench_load: a real keep/skip load benchmark, the C counterpart of the seed's bench_load.py.
 *
 * It writes a weights file (N float32 tensors, one blob as a safetensors file would be), then
 * builds "the model" in rounds, alternating two configurations so both see the same page-cache
 * state (keep, skip, keep, skip, ...):
 *   keep  reads and converts every tensor to bf16 into the "device" buffer;
 *   skip  leaves out the DiT tensors (every --skip-every-th one): they are packed elsewhere,
 *         as int8 into an arena during head_build (cached too), as a megakernel would.
 * Converted tensors go to a cache directory: the first build that needs one converts and
 * writes it (MISS), later builds read it back (HIT). Each round records the page-cache
 * residency of the weights before the build, the stages as spans (load/from_pretrained around
 * load/weights_load and load/head_build, one weights/<tensor> span per tensor, head/arena_pack
 * and one head/<tensor> per DiT tensor in skip), and the counters
 * device_bytes, n_tensors and arena_bytes. Then:
 *
 *     walltime-analyze compare walltime-<pid>.wtrace
 *
 * Options: --rounds N (3), --tensors N (32), --tensor-kb N (256), --skip-every K (3),
 * --dir DIR (default: a new temporary directory, removed at the end). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "walltime/walltime.h"

typedef struct opts {
    int rounds, tensors, tensor_kb, skip_every;
    const char *dir;
} opts;

typedef struct model {
    uint16_t *device; /* bf16 "on the device" */
    int8_t *arena;    /* int8 "megakernel arena" (skip only) */
    int64_t device_bytes, arena_bytes, n_tensors;
    uint64_t checksum;
} model;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int is_dit(const opts *o, int i)
{
    return o->skip_every > 0 && i % o->skip_every == 0;
}

/* Tensor i's name, the span label of its load: its own, as in a real checkpoint, so that a
 * MISS names the tensor that missed. */
static void tensor_name(const opts *o, int i, char *out, size_t cap)
{
    snprintf(out, cap, is_dit(o, i) ? "dit.%d.weight" : "backbone.%d.weight", i);
}

/* float32 -> bf16, round to nearest even; NaN stays NaN. */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

static int write_weights(const char *path, const opts *o)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    const size_t n = (size_t)o->tensor_kb * 1024 / sizeof(float);
    float *buf = malloc(n * sizeof *buf);
    uint32_t x = 12345;
    int rc = buf ? 0 : -1;
    for (int t = 0; t < o->tensors && !rc; t++) {
        for (size_t i = 0; i < n; i++) {
            x = x * 1664525u + 1013904223u; /* a fixed LCG: the same weights every run */
            buf[i] = ((float)(x >> 8) / (float)(1u << 24) - 0.5f) * 0.1f;
        }
        if (fwrite(buf, sizeof *buf, n, f) != n)
            rc = -1;
    }
    free(buf);
    if (fclose(f))
        rc = -1;
    return rc;
}

/* Reads tensor i as float32 from the weights file. */
static int read_tensor(int fd, const opts *o, int i, float *dst, size_t n)
{
    const off_t off = (off_t)i * (off_t)(n * sizeof *dst);
    size_t done = 0;
    while (done < n * sizeof *dst) {
        ssize_t r = pread(fd, (char *)dst + done, n * sizeof *dst - done, off + (off_t)done);
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

/* Loads tensor i as bf16 into dst: from the cache (HIT), or converted and cached (MISS). */
static int load_bf16(int wfd, const char *cache, const opts *o, int i, uint16_t *dst, float *tmp,
                     size_t n)
{
    char path[4096], detail[128], name[48];
    snprintf(path, sizeof path, "%.3500s/t%04d.bf16", cache, i);
    tensor_name(o, i, name, sizeof name);
    wt_span h = wt_begin("weights", name);
    FILE *f = fopen(path, "rb");
    if (f) {
        const size_t got = fread(dst, sizeof *dst, n, f);
        fclose(f);
        if (got == n) {
            wt_end_ex(h, &(wt_span_args){ .cached = WT_CACHED_HIT, .bytes = (int64_t)(n * 2) });
            return 0;
        }
    }
    if (read_tensor(wfd, o, i, tmp, n))
        return -1;
    for (size_t k = 0; k < n; k++)
        dst[k] = to_bf16(tmp[k]);
    f = fopen(path, "wb");
    if (f) {
        fwrite(dst, sizeof *dst, n, f);
        fclose(f);
    }
    snprintf(detail, sizeof detail, "no cached bf16 of tensor %d: converted", i);
    wt_end_ex(h, &(wt_span_args){ .cached = WT_CACHED_MISS, .bytes = (int64_t)(n * 2), .detail = detail });
    return 0;
}

/* Loads DiT tensor i as int8 into dst: from the arena cache (HIT), or quantised and cached. */
static int load_i8(int wfd, const char *cache, const opts *o, int i, int8_t *dst, float *tmp, size_t n)
{
    char path[4096], name[48];
    snprintf(path, sizeof path, "%.3500s/a%04d.i8", cache, i);
    tensor_name(o, i, name, sizeof name);
    wt_span h = wt_begin("head", name);
    FILE *f = fopen(path, "rb");
    if (f) {
        const size_t got = fread(dst, 1, n, f);
        fclose(f);
        if (got == n) {
            wt_end_ex(h, &(wt_span_args){ .cached = WT_CACHED_HIT, .bytes = (int64_t)n });
            return 0;
        }
    }
    if (read_tensor(wfd, o, i, tmp, n)) {
        wt_end(h, WT_CACHED_MISS, 1, "read failed");
        return -1;
    }
    for (size_t k = 0; k < n; k++)
        dst[k] = (int8_t)lrintf(tmp[k] * 2540.0f);
    f = fopen(path, "wb");
    if (f) {
        fwrite(dst, 1, n, f);
        fclose(f);
    }
    wt_end_ex(h, &(wt_span_args){ .cached = WT_CACHED_MISS, .bytes = (int64_t)n,
                                  .detail = "no packed int8 in the arena cache: quantised" });
    return 0;
}

static int build(const char *weights, const char *cache, const opts *o, int keep, model *m)
{
    const size_t n = (size_t)o->tensor_kb * 1024 / sizeof(float);
    memset(m, 0, sizeof *m);
    int rc = -1, wfd = open(weights, O_RDONLY | O_CLOEXEC);
    float *tmp = malloc(n * sizeof *tmp);
    m->device = malloc((size_t)o->tensors * n * sizeof *m->device);
    m->arena = malloc((size_t)o->tensors * n);
    if (wfd < 0 || !tmp || !m->device || !m->arena)
        goto out;
    wt_span fp = wt_begin("load", "from_pretrained");
    wt_span wl = wt_begin("load", "weights_load");
    for (int i = 0; i < o->tensors; i++) {
        if (!keep && is_dit(o, i))
            continue; /* packed into the arena by head_build */
        if (load_bf16(wfd, cache, o, i, m->device + (size_t)m->n_tensors * n, tmp, n))
            goto out_spans;
        m->n_tensors++;
        m->device_bytes += (int64_t)(n * sizeof *m->device);
    }
    wt_end(wl, WT_CACHED_UNKNOWN, m->n_tensors, NULL);
    wt_span hb = wt_begin("load", "head_build");
    /* the head: an int8 view of what is on the device, one absmax scale per tensor */
    for (int64_t t = 0; t < m->n_tensors; t++) {
        const uint16_t *src = m->device + (size_t)t * n;
        float amax = 1e-12f;
        for (size_t k = 0; k < n; k++) {
            uint32_t u = (uint32_t)src[k] << 16;
            float f;
            memcpy(&f, &u, sizeof f);
            amax = fabsf(f) > amax ? fabsf(f) : amax;
        }
        m->checksum = m->checksum * 31 + (uint64_t)(amax * 1e6f);
    }
    if (!keep) {
        /* the arena: DiT tensors as int8, packed once and cached like the bf16 ones */
        wt_span pk = wt_begin("head", "arena_pack");
        for (int i = 0; i < o->tensors; i++) {
            if (!is_dit(o, i))
                continue;
            int8_t *dst = m->arena + m->arena_bytes;
            if (load_i8(wfd, cache, o, i, dst, tmp, n)) {
                wt_end(pk, WT_CACHED_UNKNOWN, 0, "read failed");
                wt_end(hb, WT_CACHED_UNKNOWN, 0, NULL);
                goto out_spans;
            }
            m->arena_bytes += (int64_t)n;
            m->checksum += (uint64_t)(uint8_t)dst[n / 2];
        }
        wt_end(pk, WT_CACHED_UNKNOWN, 0, NULL);
    }
    wt_end(hb, WT_CACHED_UNKNOWN, 0, NULL);
    wt_counter("device_bytes", m->device_bytes);
    wt_counter("n_tensors", m->n_tensors);
    wt_counter("arena_bytes", m->arena_bytes);
    rc = 0;
out_spans:
    wt_end(fp, WT_CACHED_UNKNOWN, 1, NULL);
out:
    free(tmp);
    if (wfd >= 0)
        close(wfd);
    return rc;
}

static void release(model *m)
{
    free(m->device);
    free(m->arena);
    m->device = NULL;
    m->arena = NULL;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == 0 || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static void usage(FILE *out)
{
    fputs("usage: bench_load [--rounds N] [--tensors N] [--tensor-kb N] [--skip-every K] [--dir DIR]\n"
          "Builds a model from a weights file in alternating keep/skip rounds and records them;\n"
          "then run: walltime-analyze compare <the trace it names>\n", out);
}

/* Removes the files this program made in dir (weights and cache), and dir when it made it. */
static void cleanup(const char *dir, const char *cache, const char *weights, int remove_dir)
{
    DIR *d = opendir(cache);
    if (d) {
        char path[4096];
        struct dirent *e;
        while ((e = readdir(d)))
            if ((e->d_name[0] == 't' && strstr(e->d_name, ".bf16")) ||
                (e->d_name[0] == 'a' && strstr(e->d_name, ".i8"))) {
                snprintf(path, sizeof path, "%.3000s/%.256s", cache, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    rmdir(cache);
    unlink(weights);
    if (remove_dir)
        rmdir(dir);
}

int main(int argc, char **argv)
{
    opts o = { .rounds = 3, .tensors = 32, .tensor_kb = 256, .skip_every = 3, .dir = NULL };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--rounds") && v) {
            bad = parse_int(v, 1, 10000, &o.rounds), i++;
        } else if (!strcmp(a, "--tensors") && v) {
            bad = parse_int(v, 1, 100000, &o.tensors), i++;
        } else if (!strcmp(a, "--tensor-kb") && v) {
            bad = parse_int(v, 1, 1 << 20, &o.tensor_kb), i++;
        } else if (!strcmp(a, "--skip-every") && v) {
            bad = parse_int(v, 0, 100000, &o.skip_every), i++;
        } else if (!strcmp(a, "--dir") && v) {
            o.dir = v, i++;
            bad = strlen(v) > 3000; /* room for the file names below */
        } else {
            bad = 1;
        }
        if (bad) {
            fprintf(stderr, "bench_load: bad argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    char tmpl[4096], weights[4096], cache[4096];
    const char *tmpdir = getenv("TMPDIR");
    int made_dir = 0;
    if (!o.dir) {
        snprintf(tmpl, sizeof tmpl, "%s/bench_load_XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
        if (!mkdtemp(tmpl)) {
            fprintf(stderr, "bench_load: cannot create a directory in '%s': %s\n", tmpdir ? tmpdir : "/tmp",
                    strerror(errno));
            return 1;
        }
        o.dir = tmpl;
        made_dir = 1;
    }
    snprintf(weights, sizeof weights, "%.3000s/weights.bin", o.dir);
    snprintf(cache, sizeof cache, "%.3000s/cache", o.dir);
    cleanup(o.dir, cache, weights, 0); /* a given dir starts cold: no cache from an earlier run */
    if (mkdir(cache, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "bench_load: cannot create '%s': %s\n", cache, strerror(errno));
        return 1;
    }
    if (write_weights(weights, &o)) {
        fprintf(stderr, "bench_load: cannot write '%s': %s\n", weights, strerror(errno));
        cleanup(o.dir, cache, weights, made_dir);
        return 1;
    }
    char buf[32];
    wt_meta("bench", "bench_load");
    snprintf(buf, sizeof buf, "%d", o.tensors);
    wt_meta("tensors", buf);
    snprintf(buf, sizeof buf, "%d", o.tensor_kb);
    wt_meta("tensor_kb", buf);
    snprintf(buf, sizeof buf, "%d", o.rounds);
    wt_meta("rounds", buf);
    snprintf(buf, sizeof buf, "%d", o.skip_every);
    wt_meta("skip_every", buf);
    int status = 0;
    static const char *const cfgs[2] = { "keep", "skip" };
    for (int r = 0; r < o.rounds && !status; r++)
        for (int k = 0; k < 2 && !status; k++) {
            model m;
            wt_round_begin(cfgs[k], r);
            wt_meta("config", cfgs[k]);
            const int64_t resident = wt_pagecache_probe(weights, "weights");
            const double t0 = now_ms();
            status = build(weights, cache, &o, k == 0, &m);
            const double ms = now_ms() - t0;
            wt_round_end();
            if (!status)
                printf("[bench_load] %s round %d: from_pretrained %.1f ms, %lld tensors, %.2f MB on "
                       "device, %.2f MB arena, weights %.0f%% in page cache, checksum %016llx\n",
                       cfgs[k], r, ms, (long long)m.n_tensors, m.device_bytes / 1e6, m.arena_bytes / 1e6,
                       resident >= 0 ? 100.0 * (double)resident / ((double)o.tensors * o.tensor_kb * 1024) : -1.0,
                       (unsigned long long)m.checksum);
            else
                fprintf(stderr, "bench_load: %s round %d failed\n", cfgs[k], r);
            release(&m);
        }
    const char *trace = wt_trace_path();
    if (trace)
        printf("[bench_load] trace: %s\n[bench_load] next: walltime-analyze compare %s\n", trace, trace);
    wt_close();
    cleanup(o.dir, cache, weights, made_dir);
    return status ? 1 : 0;
}
