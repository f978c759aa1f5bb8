/* zstd-compressed stdio streams for the table export: see zfile.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie, asprintf */
#endif
#include "zfile.h"

#include <errno.h>
#include <stdlib.h>
#include <zstd.h>

#include "walltime/error.h"

typedef struct zfile {
    FILE *file;      /* the compressed file */
    ZSTD_CStream *cs;
    void *out;       /* compressed bytes not yet written */
    size_t out_cap;
    int failed;      /* a write or compression failed: the stream only swallows bytes now */
    int err;         /* errno of the first failed write (EFBIG, ENOSPC...), 0 none or unknown */
} zfile;

/* Runs the compressor over `in` with `mode`, writing whatever it produces; 0 or -1. */
static int pump(zfile *z, ZSTD_inBuffer *in, ZSTD_EndDirective mode)
{
    for (;;) {
        ZSTD_outBuffer ob = { z->out, z->out_cap, 0 };
        size_t left = ZSTD_compressStream2(z->cs, &ob, in, mode);
        if (ZSTD_isError(left))
            return -1;
        if (ob.pos && fwrite(z->out, 1, ob.pos, z->file) != ob.pos) {
            z->err = errno;
            return -1;
        }
        /* continue: the input must be consumed fully; end/flush: until nothing is left */
        if (mode == ZSTD_e_continue ? in->pos == in->size : left == 0)
            return 0;
    }
}

static ssize_t zwrite(void *cookie, const char *buf, size_t n)
{
    zfile *z = cookie;
    ZSTD_inBuffer in = { buf, n, 0 };
    if (!z->failed && pump(z, &in, ZSTD_e_continue) < 0)
        z->failed = 1;
    /* report success even after a failure: stdio would retry forever; close says it */
    return (ssize_t)n;
}

static int zclose(void *cookie)
{
    zfile *z = cookie;
    ZSTD_inBuffer in = { NULL, 0, 0 };
    if (!z->failed && pump(z, &in, ZSTD_e_end) < 0)
        z->failed = 1;
    if (fclose(z->file) != 0) {
        if (!z->err)
            z->err = errno;
        z->failed = 1;
    }
    const int rc = z->failed ? -1 : 0, err = z->err;
    ZSTD_freeCStream(z->cs);
    free(z->out);
    free(z);
    if (rc)
        errno = err ? err : EIO; /* what wt_zfile_close()'s caller reports */
    return rc;
}

FILE *wt_zfile_open(const char *path, int level)
{
    zfile *z = calloc(1, sizeof *z);
    if (!z)
        return NULL;
    z->out_cap = ZSTD_CStreamOutSize();
    z->out = malloc(z->out_cap);
    z->cs = ZSTD_createCStream();
    if (!z->out || !z->cs ||
        ZSTD_isError(ZSTD_CCtx_setParameter(z->cs, ZSTD_c_compressionLevel, level)))
        goto fail;
    if (!(z->file = fopen(path, "wb")))
        goto fail;
    static const cookie_io_functions_t io = { NULL, zwrite, NULL, zclose };
    FILE *f = fopencookie(z, "w", io);
    if (f) {
        /* the JSON writer does many small writes: batch them before the compressor */
        setvbuf(f, NULL, _IOFBF, 1 << 16);
        return f;
    }
    fclose(z->file);
fail:
    ZSTD_freeCStream(z->cs);
    free(z->out);
    free(z);
    if (!errno)
        errno = ENOMEM;
    return NULL;
}

int wt_zfile_close(FILE *f)
{
    if (!f)
        return 0;
    const int bad = ferror(f);
    if (fclose(f) != 0)
        return WT_EIO; /* errno: zclose()'s */
    if (bad)
        errno = EIO; /* the stream's own error: no cause kept */
    return bad ? WT_EIO : 0;
}
