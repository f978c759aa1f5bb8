/* Structure-aware mutations of .wtrace files: see frame_mutate.h. Workload: fuzzing inputs of
 * at most a few hundred KB, one mutation per call; simplicity over speed. */
#include "frame_mutate.h"

#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "encode.h"
#include "format.h"

#define MAX_FRAMES 256
#define SKIPPABLE_MAX 64 /* payload of an inserted skippable frame */

typedef struct frame {
    size_t off, len;
    int data; /* a zstd data frame (else skippable) */
} frame;

typedef struct layout {
    size_t body;          /* where the frames start: after the header */
    frame f[MAX_FRAMES];
    size_t n;
    size_t end;           /* where the followed structure ends (the rest is opaque) */
} layout;

static void parse(const uint8_t *d, size_t size, layout *l)
{
    memset(l, 0, sizeof *l);
    size_t off = 0;
    if (size >= 8 && wt__get_le32(d) == WT__SKIPPABLE_MAGIC && 8 + (size_t)wt__get_le32(d + 4) <= size)
        off = 8 + wt__get_le32(d + 4);
    l->body = off;
    while (off + 4 <= size && l->n < MAX_FRAMES) {
        const uint32_t m = wt__get_le32(d + off);
        size_t len;
        int data = 0;
        if ((m & 0xFFFFFFF0u) == 0x184D2A50u) {
            if (off + 8 > size || 8 + (size_t)wt__get_le32(d + off + 4) > size - off)
                break;
            len = 8 + wt__get_le32(d + off + 4);
        } else if (m == WT__ZSTD_MAGIC) {
            len = ZSTD_findFrameCompressedSize(d + off, size - off);
            if (ZSTD_isError(len))
                break;
            data = 1;
        } else {
            break;
        }
        l->f[l->n++] = (frame){ off, len, data };
        off += len;
    }
    l->end = off;
}

/* A random frame boundary: the start of a frame, or the end of the followed structure. */
static size_t boundary(const layout *l, wt_fm_rand rnd, void *ctx)
{
    size_t k = (size_t)(rnd(ctx) % (l->n + 1));
    return k < l->n ? l->f[k].off : l->end;
}

/* Replaces data[at, at + old) with ins[0..n) when the result fits in max; returns the size. */
static size_t splice(uint8_t *data, size_t size, size_t max, size_t at, size_t old,
                     const uint8_t *ins, size_t n)
{
    if (size - old + n > max)
        return size;
    memmove(data + at + n, data + at + old, size - at - old);
    if (n)
        memcpy(data + at, ins, n);
    return size - old + n;
}

/* A raw frame of content c[0..n) into out (room WT__FRAME_RAW_BOUND(n)); without its
 * checksum (descriptor E0) when `bare`. */
static size_t raw_frame(uint8_t *out, const uint8_t *c, size_t n, int bare)
{
    size_t len = wt__frame_raw(out, WT__FRAME_RAW_BOUND(n), c, n);
    if (bare && len >= 4) {
        out[4] = 0xE0;
        len -= 4;
    }
    return len;
}

/* The decoded content of data frame f, malloc'ed, or NULL (*n 0) when it does not decode. */
static uint8_t *content_of(const uint8_t *d, const frame *f, size_t *n)
{
    *n = 0;
    unsigned long long cs = ZSTD_getFrameContentSize(d + f->off, f->len);
    if (cs > WT__FRAME_MAX)
        return NULL;
    uint8_t *c = malloc((size_t)cs + 1);
    if (!c)
        return NULL;
    size_t got = ZSTD_decompress(c, (size_t)cs + 1, d + f->off, f->len);
    if (ZSTD_isError(got)) {
        free(c);
        return NULL;
    }
    *n = got;
    return c;
}

/* A random data frame, or -1 when there is none. */
static long pick_data(const layout *l, wt_fm_rand rnd, void *ctx)
{
    size_t count = 0;
    for (size_t i = 0; i < l->n; i++)
        count += l->f[i].data;
    if (!count)
        return -1;
    size_t k = (size_t)(rnd(ctx) % count);
    for (size_t i = 0; i < l->n; i++)
        if (l->f[i].data && k-- == 0)
            return (long)i;
    return -1;
}

size_t wt_fm_mutate(uint8_t *data, size_t size, size_t max, wt_fm_rand rnd, wt_fm_bytes bytes,
                    void *ctx, const char **what)
{
    static layout l; /* large: not on the stack of a fuzzer's thread */
    const char *did = "nothing (structure not found)";
    parse(data, size, &l);
    const unsigned op = (unsigned)(rnd(ctx) % 8);
    const long fi = pick_data(&l, rnd, ctx);
    const int bare = rnd(ctx) % 4 == 0;
    uint8_t small[64];
    if (op == 0 || (fi < 0 && op >= 2)) {
        /* an empty data frame: the 13 bytes zstd writes for empty input, or a raw one */
        size_t n;
        if (rnd(ctx) % 2) {
            ZSTD_CCtx *cc = ZSTD_createCCtx();
            ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
            n = cc ? ZSTD_compress2(cc, small, sizeof small, "", 0) : 0;
            ZSTD_freeCCtx(cc);
            if (ZSTD_isError(n))
                n = 0;
        } else {
            n = raw_frame(small, (const uint8_t *)"", 0, bare);
        }
        size = splice(data, size, max, boundary(&l, rnd, ctx), 0, small, n);
        did = "empty frame inserted";
    } else if (op == 1) {
        /* a skippable frame (any of the 16 magics) of 0 to 63 bytes at a boundary */
        const size_t n = (size_t)(rnd(ctx) % SKIPPABLE_MAX);
        uint8_t skip[8 + SKIPPABLE_MAX];
        wt__put_le32(skip, 0x184D2A50u + (uint32_t)(rnd(ctx) % 16));
        wt__put_le32(skip + 4, (uint32_t)n);
        for (size_t i = 0; i < n; i++)
            skip[8 + i] = (uint8_t)rnd(ctx);
        size = splice(data, size, max, boundary(&l, rnd, ctx), 0, skip, 8 + n);
        did = "skippable frame inserted";
    } else if (op == 5) {
        const frame f = l.f[fi];
        size = splice(data, size, max, f.off, f.len, NULL, 0);
        did = "frame removed";
    } else if (op == 6) {
        const frame f = l.f[fi];
        uint8_t *copy = malloc(f.len);
        if (copy) {
            memcpy(copy, data + f.off, f.len);
            size = splice(data, size, max, boundary(&l, rnd, ctx), 0, copy, f.len);
            free(copy);
        }
        did = "frame repeated";
    } else {
        /* the content of one frame (and of the next, to merge) decoded, changed, written back */
        const frame f = l.f[fi];
        size_t n = 0, n2 = 0, replaced = f.len;
        uint8_t *c = content_of(data, &f, &n), *c2 = NULL;
        const frame *next = (size_t)fi + 1 < l.n && l.f[fi + 1].data ? &l.f[fi + 1] : NULL;
        if (op == 4 && next && (c2 = content_of(data, next, &n2)) != NULL && n + n2 <= WT__FRAME_MAX) {
            replaced = next->off + next->len - f.off;
        } else {
            free(c2);
            c2 = NULL;
            n2 = 0;
        }
        const size_t room = n + n2 + 4096;
        uint8_t *work = c ? malloc(room) : NULL;
        uint8_t *out = work ? malloc(2 * WT__FRAME_RAW_BOUND(room)) : NULL;
        if (out) {
            memcpy(work, c, n);
            memcpy(work + n, c2 ? c2 : (const uint8_t *)"", n2);
            size_t total = n + n2, o;
            if (op == 2 || op == 3) {
                /* split at any byte: records cut across two frames, or whole when it falls
                 * between two records */
                const size_t cut = (size_t)(rnd(ctx) % (total + 1));
                o = raw_frame(out, work, cut, bare);
                o += raw_frame(out + o, work + cut, total - cut, bare);
                did = "frame split in two";
            } else {
                if (op == 7 && bytes) {
                    bytes(ctx, work, &total, room);
                    did = "frame content damaged under a good checksum";
                } else {
                    did = "two frames merged";
                }
                o = raw_frame(out, work, total, bare);
            }
            size = splice(data, size, max, f.off, replaced, out, o);
        }
        free(out);
        free(work);
        free(c);
        free(c2);
    }
    if (what)
        *what = did;
    return size;
}
