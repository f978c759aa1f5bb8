/* The reader's frame source: see reader_src.h. Workload: files of up to gigabytes read once,
 * front to back, in 256 KiB reads; damage handled by skipping to the next frame magic. */
#include "reader_src.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format.h"
#include "walltime/error.h"

#define WINDOW_LOG_MAX 23 /* 8 MiB: frames of at most WT__FRAME_MAX never need more */

int wt__src_fail(wt__src *s, int code, uint64_t off, const char *fmt, ...)
{
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(s->err, sizeof s->err, "'%s': at byte %llu: %s", s->path, (unsigned long long)off, what);
    s->err_off = (int64_t)off;
    s->errors++;
    return code;
}

int wt__src_open(wt__src *s, const char *path)
{
    memset(s, 0, sizeof *s);
    return wt__src_reopen(s, path);
}

int wt__src_reopen(wt__src *s, const char *path)
{
    /* the window and the zstd context outlive the file: allocating them per file (a 256 KiB
     * window, a context of some 100 KiB set up anew) was a fixed cost per file paid a
     * thousand times over by `trend` */
    uint8_t *const in = s->in;
    ZSTD_DCtx *const dctx = s->dctx;
    if (s->f)
        fclose(s->f);
    memset(s, 0, sizeof *s);
    s->in = in;
    s->dctx = dctx;
    s->path = path;
    s->err_off = -1;
    if (!s->in)
        s->in = malloc(WT__SRC_IN_CAP);
    if (!s->dctx) {
        s->dctx = ZSTD_createDCtx();
        if (s->dctx)
            ZSTD_DCtx_setParameter(s->dctx, ZSTD_d_windowLogMax, WINDOW_LOG_MAX);
    }
    if (!s->in || !s->dctx)
        return WT_ENOMEM;
    s->f = fopen(path, "rb");
    if (!s->f) {
        const int e = errno; /* before snprintf() may change it */
        snprintf(s->err, sizeof s->err, "cannot open '%s': %s", path, strerror(e));
        s->errors++;
        return e == ENOMEM ? WT_ENOMEM : WT_EOPEN; /* out of memory is not the file's fault */
    }
    struct stat st;
    s->file_bytes = UINT64_MAX;
    if (fstat(fileno(s->f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(s->err, sizeof s->err, "cannot read '%s': Is a directory", path);
            s->errors++;
            return WT_EOPEN;
        }
        if (S_ISREG(st.st_mode))
            s->file_bytes = (uint64_t)st.st_size;
    }
    return 0;
}

void wt__src_release(wt__src *s)
{
    if (s->f)
        fclose(s->f);
    free(s->in);
    ZSTD_freeDCtx(s->dctx);
    memset(s, 0, sizeof *s);
}

size_t wt__src_avail(wt__src *s, size_t want)
{
    if (want > WT__SRC_IN_CAP)
        want = WT__SRC_IN_CAP;
    while (s->in_len - s->in_pos < want && !s->eof) {
        if (s->in_pos > 0) {
            memmove(s->in, s->in + s->in_pos, s->in_len - s->in_pos);
            s->in_off += s->in_pos;
            s->in_len -= s->in_pos;
            s->in_pos = 0;
        }
        size_t got = fread(s->in + s->in_len, 1, WT__SRC_IN_CAP - s->in_len, s->f);
        s->in_len += got;
        if (got == 0)
            s->eof = 1;
    }
    return s->in_len - s->in_pos;
}

/* Moves the read position to absolute offset `off`. */
static void seek_to(wt__src *s, uint64_t off)
{
    if (off >= s->in_off && off <= s->in_off + s->in_len) {
        s->in_pos = (size_t)(off - s->in_off);
        return;
    }
    s->in_len = s->in_pos = 0;
    s->in_off = off;
    s->eof = 0;
    if (fseeko(s->f, (off_t)off, SEEK_SET) != 0)
        s->eof = 1;
}

/* Gives up on the rest of the file (a frame cut by its end). */
static void to_end(wt__src *s, uint64_t from)
{
    s->bytes_skipped += s->file_bytes != UINT64_MAX && s->file_bytes > from ? s->file_bytes - from : 0;
    s->in_len = s->in_pos = 0;
    s->eof = 1;
}

/* Scans from `from` for the next frame magic (zstd or skippable) and stops there; at the end
 * of the file it stops at the end. Counts what it passes over as skipped. */
static void resync(wt__src *s, uint64_t from)
{
    seek_to(s, from);
    for (;;) {
        size_t n = wt__src_avail(s, 4);
        if (n < 4) {
            s->bytes_skipped += n;
            s->in_pos += n;
            return;
        }
        const uint8_t *p = s->in + s->in_pos;
        for (size_t i = 0; i + 4 <= n; i++) {
            uint32_t m = wt__get_le32(p + i);
            if (m == WT__ZSTD_MAGIC || (m & 0xFFFFFFF0u) == 0x184D2A50u) {
                s->bytes_skipped += i;
                s->in_pos += i;
                return;
            }
        }
        s->bytes_skipped += n - 3;
        s->in_pos += n - 3;
    }
}

/* Skips a skippable frame at the read position. Returns 0, or WT_ETRUNC. */
static int skip_skippable(wt__src *s)
{
    uint64_t off = wt__src_off(s);
    const size_t n = wt__src_avail(s, 8);
    const uint64_t target = n < 8 ? UINT64_MAX : off + 8 + wt__get_le32(s->in + s->in_pos + 4);
    if (n < 8 || target > s->file_bytes) {
        /* cut by the end of the file: nothing after it, so reading ends here (failing
         * without moving reported the same offset again and again) */
        to_end(s, off);
        s->frames_damaged++;
        return wt__src_fail(s, WT_ETRUNC, off, "truncated skippable frame");
    }
    seek_to(s, target);
    return 0;
}

/* Decodes the zstd frame at the read position into fb. Returns 0, or an error after which
 * the caller resyncs. */
static int decode_frame(wt__src *s, wt__fbuf *fb)
{
    uint64_t off = wt__src_off(s);
    /* 18 bytes: the largest zstd frame header (RFC 8878) */
    size_t n = wt__src_avail(s, 18);
    unsigned long long fcs = ZSTD_getFrameContentSize(s->in + s->in_pos, n);
    if (fcs == ZSTD_CONTENTSIZE_ERROR)
        return n < 18 && s->eof ? wt__src_fail(s, WT_ETRUNC, off, "truncated in a frame header")
                                : wt__src_fail(s, WT_ECORRUPT, off, "bad zstd frame header");
    if (fcs == ZSTD_CONTENTSIZE_UNKNOWN)
        return wt__src_fail(s, WT_ECORRUPT, off, "frame does not declare its size");
    if (fcs > WT__FRAME_MAX)
        return wt__src_fail(s, WT_ELIMIT, off, "frame of %llu bytes exceeds the limit of %u", fcs,
                            WT__FRAME_MAX);
    size_t want = (size_t)fcs;
    if (want > fb->cap) {
        size_t cap = fb->cap ? fb->cap : 64u << 10;
        while (cap < want)
            cap *= 2;
        uint8_t *p = realloc(fb->p, cap);
        if (!p)
            return wt__src_fail(s, WT_ENOMEM, off, "out of memory for a frame of %zu bytes", want);
        fb->p = p;
        fb->cap = cap;
    }
    ZSTD_DCtx_reset(s->dctx, ZSTD_reset_session_only);
    ZSTD_outBuffer out = { fb->p, want, 0 };
    for (;;) {
        /* whatever the window holds, refilled only once empty: zstd keeps a block cut by the
         * window's end and takes the rest after the refill. Asking for a full window here
         * moved the window's unread part (most of its 256 KiB) before every frame: 48
         * instructions a span of memmove on a nested trace of 10 M spans, 8 % of `ledger` */
        size_t have = wt__src_avail(s, 1);
        if (have == 0)
            return wt__src_fail(s, WT_ETRUNC, off, "truncated in a frame (%zu of %zu bytes decoded)",
                                out.pos, want);
        ZSTD_inBuffer in = { s->in + s->in_pos, have, 0 };
        size_t rc = ZSTD_decompressStream(s->dctx, &out, &in);
        s->in_pos += in.pos;
        if (ZSTD_isError(rc))
            return wt__src_fail(s, WT_ECORRUPT, off, "frame does not decompress: %s",
                                ZSTD_getErrorName(rc));
        if (rc == 0)
            break;
        if (in.pos == 0 && out.pos == out.size)
            return wt__src_fail(s, WT_ECORRUPT, off, "frame holds more than it declares");
    }
    fb->len = out.pos;
    fb->off = off;
    return 0;
}

/* The least content of a frame counted in frames_stored: below it a frame is a few records
 * (a SYNC, a header), which zstd itself may store for want of anything to gain. */
#define STORED_MIN 4096

int wt__src_next(wt__src *s, wt__fbuf *fb)
{
    for (;;) {
        if (s->errors >= WT__SRC_MAX_ERRORS)
            return 0;
        uint64_t off = wt__src_off(s);
        size_t n = wt__src_avail(s, 4);
        if (n == 0)
            return 0;
        if (n < 4) {
            s->bytes_skipped += n;
            s->in_pos += n;
            s->frames_damaged++;
            return wt__src_fail(s, WT_ETRUNC, off, "truncated: %zu stray bytes at the end", n);
        }
        uint32_t m = wt__get_le32(s->in + s->in_pos);
        if ((m & 0xFFFFFFF0u) == 0x184D2A50u) {
            int rc = skip_skippable(s);
            if (rc < 0)
                return rc;
            continue;
        }
        if (m != WT__ZSTD_MAGIC) {
            s->frames_damaged++;
            int rc = wt__src_fail(s, WT_ECORRUPT, off, "no frame starts here (bytes %08x)", m);
            resync(s, off + 1);
            return rc;
        }
        int rc = decode_frame(s, fb);
        if (rc == 0) {
            s->frames++;
            /* stored, not compressed: the writer's budget ran out (rec_zbudget.h). Frames of a
             * few records, which zstd itself stores (nothing to gain), are not counted: they do
             * not make a file large, and would make every short trace look stored */
            s->frames_stored += fb->len >= STORED_MIN && wt__src_off(s) - off >= fb->len;
            return 1;
        }
        s->frames_damaged++;
        if (rc == WT_ETRUNC)
            to_end(s, off);
        else
            resync(s, off + 1);
        return rc;
    }
}
