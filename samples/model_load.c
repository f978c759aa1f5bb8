/* model_load: a model load shaped like a real one, recorded with libwalltime. Copy from it.
 *
 * What it does, as a from_pretrained() of a transformer would:
 *   1. The checkpoint: fp32 tensors in --data-dir, one file per layer. Written the first time
 *      (a span prepare/write checkpoint); later runs reuse the files.
 *   2. from_pretrained: --threads loader threads take the layers one at a time. Per layer a
 *      weight_load span; inside it, per tensor (one label each, "layers.3.attn.wq"):
 *        convert  HIT: the converted tensor read back from the cache;
 *                 MISS: read as fp32, converted to --dtype in --layout, stored in the cache,
 *                 the detail saying why it missed (cache directory unset, not in the cache,
 *                 cache key changed: dtype bf16 -> int8, ...);
 *        upload   copied to the "device" (a buffer), with its bytes;
 *      and the counters device_bytes and tensors.
 *   3. A warm-up compile (each kernel autotunes a small matmul) and --steps generation steps
 *      (each a pass over every weight on the device), with a "first token" mark.
 * The conversion cache in --cache-dir holds one file per tensor whose first line is its key:
 * the source file (path, size, modification time, offset), the dtype and the layout. A key
 * that differs says which part changed. Without --cache-dir every tensor is converted.
 *
 * With --rounds N the model is built 2N times, keep, skip, keep, skip, ... (skip leaves out
 * the mlp.* tensors, as a fused kernel that packs them itself would), each build a round for
 * `walltime-analyze compare`. The spans, as the ledger shows them:
 *
 *   load/from_pretrained                   main thread, around the loaders
 *     weight_load/layers.N                 loader threads
 *       convert/layers.N.attn.wq           HIT or MISS, with why
 *       upload/layers.N.attn.wq            bytes
 *   warmup/compile kernels, generate/decode (one per step)
 *
 * Try:  model_load                          every tensor misses: the cache directory is unset
 *       model_load --cache-dir /tmp/c       cold: every tensor misses, and is stored
 *       model_load --cache-dir /tmp/c       warm: every tensor hits
 *       model_load --cache-dir /tmp/c --dtype int8   the key changed: every tensor misses
 * then  walltime-analyze ledger walltime-<pid>.wtrace (the trace it names). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "walltime/walltime.h"

typedef struct opts {
    int layers, per_layer, threads, size_kb, steps, kernels, rounds;
    const char *dtype;     /* "bf16" or "int8": what the device holds */
    const char *layout;    /* "tile" (32x32 tiles, transposed) or "row" */
    const char *cache_dir; /* NULL: unset, every tensor is converted */
    const char *data_dir;
} opts;

typedef struct tensor {
    char name[64]; /* "layers.3.attn.wq": the label of its spans */
    int layer, index;
    int mlp;        /* an mlp.* tensor: left out by the skip configuration */
    int loaded;     /* on the device in this build */
    size_t dev_off; /* where it sits on the device */
    float scale;    /* int8: the value of one step */
} tensor;

typedef struct model {
    const opts *o;
    int keep;     /* the configuration: 1 keep, 0 skip */
    size_t n;     /* elements per tensor */
    size_t esize; /* device bytes per element: 2 (bf16) or 1 (int8) */
    tensor *t;    /* layers x per_layer, layer by layer */
    uint8_t *device;
    atomic_int next_layer; /* the loaders' work queue: the next layer to take */
    atomic_int failed;
    pthread_mutex_t mu; /* below: tallies, and counter samples recorded in order */
    int64_t device_bytes, n_tensors, hits, misses;
} model;

/* ---- the checkpoint ------------------------------------------------------------------- */

static const char *const tensor_names[] = { "attn.wq", "attn.wk", "attn.wv", "attn.wo",
                                            "mlp.w1",  "mlp.w2",  "mlp.w3",  "norm" };
#define N_NAMES (int)(sizeof tensor_names / sizeof tensor_names[0])

static void layer_path(const opts *o, int layer, char *out, size_t cap)
{
    snprintf(out, cap, "%s/layer-%03d.f32", o->data_dir, layer);
}

/* Writes `path` (n_tensors x n floats from a fixed generator: the same weights every run)
 * through a temporary file and a rename, so a reader never sees half a file. */
static int write_layer(const char *path, int layer, int n_tensors, size_t n)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    float *buf = malloc(n * sizeof *buf);
    int rc = f && buf ? 0 : -1;
    uint32_t x = 2463534242u + (uint32_t)layer;
    for (int t = 0; t < n_tensors && !rc; t++) {
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5; /* xorshift32 */
            buf[i] = ((float)(x >> 8) / (float)(1u << 24) - 0.5f) * 0.2f;
        }
        if (fwrite(buf, sizeof *buf, n, f) != n)
            rc = -1;
    }
    free(buf);
    if (f && fclose(f))
        rc = -1;
    if (!rc && rename(tmp, path))
        rc = -1;
    if (rc)
        unlink(tmp);
    return rc;
}

/* Writes the layer files that are missing or of another size; the others are kept. */
static int write_checkpoint(const opts *o, size_t n)
{
    const off_t want = (off_t)o->per_layer * (off_t)(n * sizeof(float));
    wt_span s = 0;
    int written = 0, rc = 0;
    for (int l = 0; l < o->layers && !rc; l++) {
        char path[4096];
        struct stat st;
        layer_path(o, l, path, sizeof path);
        if (stat(path, &st) == 0 && st.st_size == want)
            continue;
        if (!s)
            s = wt_begin("prepare", "write checkpoint");
        rc = write_layer(path, l, o->per_layer, n);
        if (rc)
            fprintf(stderr, "model_load: cannot write '%s': %s\n", path, strerror(errno));
        written++;
    }
    wt_end(s, WT_CACHED_UNKNOWN, written, NULL);
    return rc;
}

/* ---- conversion ----------------------------------------------------------------------- */

/* float -> bf16, round to nearest even; NaN stays NaN. */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

static float from_bf16(uint16_t h)
{
    const uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The source element of device element i: "tile" transposes each 32x32 tile (1024
 * consecutive elements), as an accelerator's tiled layout reorders a matrix. */
static size_t source_index(const model *m, size_t i)
{
    if (strcmp(m->o->layout, "tile") != 0)
        return i;
    return (i & ~(size_t)1023) | (i & 31) << 5 | (i >> 5 & 31);
}

/* fp32 src -> the device's dtype and layout in dst (n * esize bytes). */
static void convert(const model *m, tensor *t, const float *src, uint8_t *dst)
{
    if (m->esize == 2) {
        for (size_t i = 0; i < m->n; i++) {
            const uint16_t h = to_bf16(src[source_index(m, i)]);
            memcpy(dst + 2 * i, &h, 2);
        }
        return;
    }
    float amax = 0;
    for (size_t i = 0; i < m->n; i++)
        amax = fmaxf(amax, fabsf(src[i]));
    t->scale = amax > 0 ? amax / 127 : 1;
    for (size_t i = 0; i < m->n; i++)
        dst[i] = (uint8_t)(int8_t)lrintf(src[source_index(m, i)] / t->scale);
}

/* ---- the conversion cache ------------------------------------------------------------- */

/* What a converted tensor depends on. The cache file's first line holds it. */
typedef struct cache_key {
    char dtype[8], layout[8];
    long long n, size, mtime_ns, offset;
    char src[4096];
} cache_key;

static int key_of(const model *m, const tensor *t, cache_key *k)
{
    struct stat st;
    layer_path(m->o, t->layer, k->src, sizeof k->src);
    if (stat(k->src, &st))
        return -1;
    snprintf(k->dtype, sizeof k->dtype, "%s", m->o->dtype);
    snprintf(k->layout, sizeof k->layout, "%s", m->o->layout);
    k->n = (long long)m->n;
    k->size = (long long)st.st_size;
    k->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    k->offset = (long long)t->index * (long long)(m->n * sizeof(float));
    return 0;
}

/* Why `had` is not `want`, in words: "dtype bf16 -> int8", "source file rewritten", ... */
static void key_change(const cache_key *had, const cache_key *want, char *why, size_t cap)
{
    if (strcmp(had->dtype, want->dtype))
        snprintf(why, cap, "cache key changed: dtype %s -> %s", had->dtype, want->dtype);
    else if (strcmp(had->layout, want->layout))
        snprintf(why, cap, "cache key changed: layout %s -> %s", had->layout, want->layout);
    else if (strcmp(had->src, want->src))
        snprintf(why, cap, "cache key changed: source file %.200s -> %.200s", had->src, want->src);
    else if (had->n != want->n || had->offset != want->offset || had->size != want->size)
        snprintf(why, cap, "cache key changed: tensor shape or place in the source file");
    else
        snprintf(why, cap, "cache key changed: source file rewritten since it was converted");
}

static void cache_path(const model *m, const tensor *t, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s.bin", m->o->cache_dir, t->name);
}

/* Reads tensor t from the cache into dst: 1 (HIT), or 0 (MISS) with why it missed. */
static int cache_read(const model *m, tensor *t, const cache_key *want, uint8_t *dst, char *why,
                      size_t cap)
{
    char path[4200], line[4400];
    cache_key had;
    float scale;
    if (!m->o->cache_dir) {
        snprintf(why, cap, "cache directory unset (--cache-dir): converted");
        return 0;
    }
    cache_path(m, t, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, cap, "not in the cache: converted and stored");
        return 0;
    }
    int hit = 0;
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "model_load-cache/1 dtype=%7s layout=%7s n=%lld size=%lld mtime=%lld "
                     "offset=%lld scale=%a src=%4095[^\n]",
               had.dtype, had.layout, &had.n, &had.size, &had.mtime_ns, &had.offset, &scale,
               had.src) != 8) {
        snprintf(why, cap, "cache entry damaged: converted again");
    } else if (strcmp(had.dtype, want->dtype) || strcmp(had.layout, want->layout) ||
               strcmp(had.src, want->src) || had.n != want->n || had.size != want->size ||
               had.mtime_ns != want->mtime_ns || had.offset != want->offset) {
        key_change(&had, want, why, cap);
    } else if (fread(dst, m->esize, m->n, f) != m->n || fgetc(f) != EOF) {
        snprintf(why, cap, "cache entry damaged: converted again");
    } else {
        t->scale = scale;
        hit = 1;
    }
    fclose(f);
    return hit;
}

/* Stores converted tensor t under its key (through a temporary file and a rename, so a
 * reader never sees half an entry). A failure is not fatal: the load goes on uncached. */
static int cache_write(const model *m, const tensor *t, const cache_key *k, const uint8_t *data)
{
    char path[4200], tmp[4300];
    cache_path(m, t, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    int rc = fprintf(f, "model_load-cache/1 dtype=%s layout=%s n=%lld size=%lld mtime=%lld "
                        "offset=%lld scale=%a src=%s\n",
                     k->dtype, k->layout, k->n, k->size, k->mtime_ns, k->offset, t->scale,
                     k->src) < 0;
    rc |= fwrite(data, m->esize, m->n, f) != m->n;
    rc |= fclose(f) != 0;
    if (!rc)
        rc = rename(tmp, path) != 0;
    if (rc)
        unlink(tmp);
    return rc ? -1 : 0;
}

/* ---- loading -------------------------------------------------------------------------- */

/* Reads tensor t's fp32 values from its layer file. */
static int read_source(const cache_key *k, size_t n, float *dst)
{
    FILE *f = fopen(k->src, "rb");
    if (!f)
        return -1;
    const int rc = fseeko(f, (off_t)k->offset, SEEK_SET) || fread(dst, sizeof *dst, n, f) != n;
    fclose(f);
    return rc ? -1 : 0;
}

/* The convert span (HIT or MISS, and why) and the upload span of one tensor. */
static int load_tensor(model *m, tensor *t, float *fp32, uint8_t *converted)
{
    cache_key key;
    char why[512];
    const size_t bytes = m->n * m->esize;
    if (key_of(m, t, &key))
        return -1;
    wt_span s = wt_begin("convert", t->name);
    const int hit = cache_read(m, t, &key, converted, why, sizeof why);
    if (!hit) {
        if (read_source(&key, m->n, fp32)) {
            wt_end(s, WT_CACHED_MISS, 1, "cannot read the source file");
            return -1;
        }
        convert(m, t, fp32, converted);
        if (m->o->cache_dir && cache_write(m, t, &key, converted))
            snprintf(why + strlen(why), sizeof why - strlen(why), " (cache write failed: %s)",
                     strerror(errno));
    }
    wt_end(s, hit ? WT_CACHED_HIT : WT_CACHED_MISS, 1, hit ? NULL : why);

    s = wt_begin("upload", t->name);
    memcpy(m->device + t->dev_off, converted, bytes);
    wt_end_ex(s, &(wt_span_args){ .bytes = (int64_t)bytes });
    t->loaded = 1;

    /* under the lock, so the samples of the two counters rise in the order they are taken */
    pthread_mutex_lock(&m->mu);
    m->device_bytes += (int64_t)bytes;
    m->n_tensors++;
    m->hits += hit;
    m->misses += !hit;
    wt_counter("device_bytes", m->device_bytes);
    wt_counter("tensors", m->n_tensors);
    pthread_mutex_unlock(&m->mu);
    return 0;
}

typedef struct loader_arg {
    model *m;
    int id;
    pthread_t thread;
    int started;
} loader_arg;

/* A loader thread: takes the next layer until none is left, one weight_load span each. */
static void *loader(void *arg)
{
    loader_arg *a = arg;
    model *m = a->m;
    char name[32], label[32];
    snprintf(name, sizeof name, "loader-%d", a->id);
    wt_thread_name(name);
    float *fp32 = malloc(m->n * sizeof *fp32);
    uint8_t *converted = malloc(m->n * m->esize);
    if (!fp32 || !converted)
        atomic_store(&m->failed, 1);
    for (int l; !atomic_load(&m->failed) && (l = atomic_fetch_add(&m->next_layer, 1)) < m->o->layers;) {
        snprintf(label, sizeof label, "layers.%d", l);
        wt_span s = wt_begin("weight_load", label);
        int loaded = 0;
        for (int k = 0; k < m->o->per_layer; k++) {
            tensor *t = &m->t[(size_t)l * (size_t)m->o->per_layer + (size_t)k];
            if (!m->keep && t->mlp)
                continue; /* skip: a fused kernel packs these itself */
            if (load_tensor(m, t, fp32, converted)) {
                fprintf(stderr, "model_load: cannot load %s: %s\n", t->name, strerror(errno));
                atomic_store(&m->failed, 1);
                break;
            }
            loaded++;
        }
        wt_end(s, WT_CACHED_UNKNOWN, loaded, NULL);
    }
    free(fp32);
    free(converted);
    return NULL;
}

/* The whole load: the loaders' work inside one from_pretrained span on this thread. */
static int from_pretrained(model *m)
{
    const opts *o = m->o;
    loader_arg *a = calloc((size_t)o->threads, sizeof *a);
    if (!a)
        return -1;
    wt_span s = wt_begin("load", "from_pretrained");
    for (int i = 0; i < o->threads; i++) {
        a[i] = (loader_arg){ .m = m, .id = i };
        a[i].started = pthread_create(&a[i].thread, NULL, loader, &a[i]) == 0;
    }
    int started = 0;
    for (int i = 0; i < o->threads; i++)
        if (a[i].started) {
            pthread_join(a[i].thread, NULL);
            started++;
        }
    wt_end(s, WT_CACHED_UNKNOWN, 1, NULL);
    free(a);
    if (!started)
        fprintf(stderr, "model_load: cannot start a loader thread\n");
    return started && !atomic_load(&m->failed) ? 0 : -1;
}

static int model_init(model *m, const opts *o, int keep)
{
    memset(m, 0, sizeof *m);
    m->o = o;
    m->keep = keep;
    m->n = (size_t)o->size_kb * 1024 / sizeof(float);
    m->esize = strcmp(o->dtype, "bf16") == 0 ? 2 : 1;
    const size_t count = (size_t)o->layers * (size_t)o->per_layer;
    m->t = calloc(count, sizeof *m->t);
    m->device = malloc(count * m->n * m->esize);
    pthread_mutex_init(&m->mu, NULL);
    if (!m->t || !m->device)
        return -1;
    for (size_t i = 0; i < count; i++) {
        tensor *t = &m->t[i];
        t->layer = (int)(i / (size_t)o->per_layer);
        t->index = (int)(i % (size_t)o->per_layer);
        if (t->index < N_NAMES)
            snprintf(t->name, sizeof t->name, "layers.%d.%s", t->layer, tensor_names[t->index]);
        else
            snprintf(t->name, sizeof t->name, "layers.%d.extra.%d", t->layer, t->index - N_NAMES);
        t->mlp = t->index < N_NAMES && strncmp(tensor_names[t->index], "mlp.", 4) == 0;
        t->dev_off = i * m->n * m->esize;
    }
    return 0;
}

static void model_release(model *m)
{
    free(m->t);
    free(m->device);
    pthread_mutex_destroy(&m->mu);
}

/* ---- warm-up and generation ----------------------------------------------------------- */

/* One kernel's "compile": an autotune of a 128x128 matmul over three tile sizes, as a JIT
 * tries its variants. Returns a checksum so that the work is not optimised out. */
static double compile_kernel(int kernel)
{
    enum { N = 128 };
    static float a[N * N], b[N * N], c[N * N];
    for (int i = 0; i < N * N; i++)
        a[i] = (float)((i * 7 + kernel) % 13) - 6, b[i] = (float)((i * 5 + kernel) % 11) - 5;
    double sum = 0;
    static const int tiles[] = { 8, 16, 32 };
    for (size_t v = 0; v < sizeof tiles / sizeof tiles[0]; v++) {
        const int tb = tiles[v];
        memset(c, 0, sizeof c);
        for (int i0 = 0; i0 < N; i0 += tb)
            for (int k0 = 0; k0 < N; k0 += tb)
                for (int j0 = 0; j0 < N; j0 += tb)
                    for (int i = i0; i < i0 + tb; i++)
                        for (int k = k0; k < k0 + tb; k++)
                            for (int j = j0; j < j0 + tb; j++)
                                c[i * N + j] += a[i * N + k] * b[k * N + j];
        sum += c[kernel % (N * N)];
    }
    return sum;
}

/* One token: a pass over every weight on the device (a dot product per tensor with the
 * activations), as a decode step of a small model reads all of its weights. */
static uint32_t decode_step(const model *m, uint32_t token)
{
    float x[1024];
    for (int i = 0; i < 1024; i++)
        x[i] = (float)((token * 31u + (uint32_t)i) % 17) * 0.01f;
    double logit = 0;
    const size_t count = (size_t)m->o->layers * (size_t)m->o->per_layer;
    for (size_t k = 0; k < count; k++) {
        const tensor *t = &m->t[k];
        if (!t->loaded)
            continue;
        const uint8_t *w = m->device + t->dev_off;
        float acc = 0;
        if (m->esize == 2)
            for (size_t i = 0; i < m->n; i++) {
                uint16_t h;
                memcpy(&h, w + 2 * i, 2);
                acc += from_bf16(h) * x[i & 1023];
            }
        else
            for (size_t i = 0; i < m->n; i++)
                acc += (float)(int8_t)w[i] * x[i & 1023];
        logit += (double)(acc * (m->esize == 2 ? 1 : t->scale));
    }
    return (uint32_t)(fabs(logit) * 1e3) % 32000u;
}

/* ---- one build ------------------------------------------------------------------------ */

static int build_and_run(const opts *o, int keep, const char *round_name)
{
    model m;
    int rc = -1;
    const double t0 = (double)clock() / CLOCKS_PER_SEC;
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    if (model_init(&m, o, keep)) {
        fprintf(stderr, "model_load: out of memory for the model\n");
        goto out;
    }
    if (from_pretrained(&m))
        goto out;

    double check = 0;
    wt_span s = wt_begin("warmup", "compile kernels");
    for (int k = 0; k < o->kernels; k++)
        check += compile_kernel(k);
    wt_end(s, WT_CACHED_UNKNOWN, o->kernels, NULL);

    uint32_t token = 1 + (uint32_t)fabs(fmod(check, 1000.0)); /* the compiled "kernels" seed it */
    for (int i = 0; i < o->steps; i++) {
        WT_SCOPE("generate", "decode") { token = decode_step(&m, token); }
        if (i == 0)
            wt_mark("generate", "first token", NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &w1);
    printf("[model_load] %s: %lld tensors (%lld MISS, %lld HIT), %.1f MB on the device, "
           "%.0f ms (%.0f ms CPU), last token %u\n",
           round_name, (long long)m.n_tensors, (long long)m.misses, (long long)m.hits,
           (double)m.device_bytes / 1e6,
           (double)(w1.tv_sec - w0.tv_sec) * 1e3 + (double)(w1.tv_nsec - w0.tv_nsec) / 1e6,
           ((double)clock() / CLOCKS_PER_SEC - t0) * 1e3, token);
    rc = 0;
out:
    model_release(&m);
    return rc;
}

/* ---- options -------------------------------------------------------------------------- */

static void usage(FILE *out)
{
    fputs("usage: model_load [OPTIONS]\n"
          "A model load shaped like a real one, recorded with libwalltime: per-layer weight\n"
          "loads on loader threads, one label per tensor, a conversion cache, a warm-up\n"
          "compile and generation steps. Then: walltime-analyze ledger <the trace it names>\n"
          "\n"
          "  --layers N             layers (8)\n"
          "  --tensors-per-layer N  tensors per layer (6): attn.wq/wk/wv/wo, mlp.w1/w2/w3,\n"
          "                         norm, then extra.K\n"
          "  --size KB              KiB of fp32 per tensor, a multiple of 4 (1024)\n"
          "  --threads N            loader threads (2)\n"
          "  --dtype bf16|int8      what the device holds (bf16)\n"
          "  --layout tile|row      the device layout (tile)\n"
          "  --cache-dir DIR        the conversion cache (unset: every tensor is converted)\n"
          "  --data-dir DIR         the fp32 checkpoint, written once ($TMPDIR/model_load-data)\n"
          "  --kernels N            kernels the warm-up compiles (8)\n"
          "  --steps N              generation steps (8)\n"
          "  --rounds N             build 2N times, keep/skip alternating, for compare (0: once)\n"
          "  -h, --help             this help\n",
          out);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (*s == '\0' || *end || errno || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* Fills *o from argv. Returns 0, 1 after --help, or 2 on a usage error (said on stderr). */
static int parse_options(int argc, char **argv, opts *o)
{
    static const struct option longs[] = {
        { "layers", required_argument, NULL, 'L' },  { "tensors-per-layer", required_argument, NULL, 'T' },
        { "size", required_argument, NULL, 'S' },    { "threads", required_argument, NULL, 'j' },
        { "dtype", required_argument, NULL, 'd' },   { "layout", required_argument, NULL, 'l' },
        { "cache-dir", required_argument, NULL, 'c' }, { "data-dir", required_argument, NULL, 'D' },
        { "kernels", required_argument, NULL, 'k' }, { "steps", required_argument, NULL, 's' },
        { "rounds", required_argument, NULL, 'r' },  { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c, idx = 0, bad = 0;
    opterr = 0; /* the messages below instead of getopt's */
    while (!bad && (c = getopt_long(argc, argv, ":h", longs, &idx)) != -1) {
        switch (c) {
        case 'L': bad = parse_int(optarg, 1, 100000, &o->layers); break;
        case 'T': bad = parse_int(optarg, 1, 1000, &o->per_layer); break;
        case 'S': bad = parse_int(optarg, 4, 1 << 20, &o->size_kb) || o->size_kb % 4; break;
        case 'j': bad = parse_int(optarg, 1, 256, &o->threads); break;
        case 'k': bad = parse_int(optarg, 0, 100000, &o->kernels); break;
        case 's': bad = parse_int(optarg, 0, 1000000, &o->steps); break;
        case 'r': bad = parse_int(optarg, 0, 10000, &o->rounds); break;
        case 'd': o->dtype = optarg; bad = strcmp(optarg, "bf16") && strcmp(optarg, "int8"); break;
        case 'l': o->layout = optarg; bad = strcmp(optarg, "tile") && strcmp(optarg, "row"); break;
        case 'c': o->cache_dir = optarg; bad = !*optarg || strlen(optarg) > 3000; break;
        case 'D': o->data_dir = optarg; bad = !*optarg || strlen(optarg) > 3000; break;
        case 'h': usage(stdout); return 1;
        case ':': fprintf(stderr, "model_load: '%s' needs a value\n", argv[optind - 1]); bad = 1; break;
        default: fprintf(stderr, "model_load: unknown option '%s'\n", argv[optind - 1]); bad = 1; break;
        }
        if (bad && c != ':' && c != '?')
            fprintf(stderr, "model_load: bad value '%s' for --%s\n", optarg, longs[idx].name);
    }
    if (!bad && optind < argc) {
        fprintf(stderr, "model_load: unexpected argument '%s'\n", argv[optind]);
        bad = 1;
    }
    if (bad) {
        usage(stderr);
        return 2;
    }
    return 0;
}

/* Creates dir (one level) unless it exists. */
static int make_dir(const char *dir)
{
    if (mkdir(dir, 0755) == 0 || errno == EEXIST)
        return 0;
    fprintf(stderr, "model_load: cannot create '%s': %s\n", dir, strerror(errno));
    return -1;
}

int main(int argc, char **argv)
{
    opts o = { .layers = 8, .per_layer = 6, .threads = 2, .size_kb = 1024, .steps = 8,
               .kernels = 8, .rounds = 0, .dtype = "bf16", .layout = "tile" };
    char data_dir[4096];
    const int parsed = parse_options(argc, argv, &o);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    if (!o.data_dir) {
        const char *tmp = getenv("TMPDIR");
        snprintf(data_dir, sizeof data_dir, "%.3000s/model_load-data", tmp && *tmp ? tmp : "/tmp");
        o.data_dir = data_dir;
    }
    if (make_dir(o.data_dir) || (o.cache_dir && make_dir(o.cache_dir)))
        return 1;
    /* the cache key names the source file by its absolute path, whatever the working directory */
    char data_abs[PATH_MAX];
    if (realpath(o.data_dir, data_abs) && strlen(data_abs) <= 3000)
        o.data_dir = data_abs;

    /* what makes two runs differ, for `walltime-analyze info` and compare */
    char buf[64];
    wt_thread_name("main");
    snprintf(buf, sizeof buf, "model_load-%dx%d", o.layers, o.per_layer);
    wt_meta("model", buf);
    wt_meta("dtype", o.dtype);
    wt_meta("layout", o.layout);
    wt_meta("cache_dir", o.cache_dir ? o.cache_dir : "(unset)");
    snprintf(buf, sizeof buf, "%d", o.threads);
    wt_meta("loader_threads", buf);
    snprintf(buf, sizeof buf, "%d", o.size_kb);
    wt_meta("tensor_kb", buf);

    int status = write_checkpoint(&o, (size_t)o.size_kb * 1024 / sizeof(float));
    if (o.rounds == 0 && !status)
        status = build_and_run(&o, 1, "load");
    static const char *const configs[2] = { "keep", "skip" };
    for (int r = 0; r < o.rounds && !status; r++)
        for (int k = 0; k < 2 && !status; k++) {
            char name[32];
            snprintf(name, sizeof name, "%s round %d", configs[k], r);
            wt_round_begin(configs[k], r);
            status = build_and_run(&o, k == 0, name);
            wt_round_end();
        }
    const char *trace = wt_trace_path();
    if (trace)
        printf("[model_load] trace: %s\n[model_load] next: walltime-analyze ledger %s\n", trace, trace);
    return status ? 1 : 0;
}
