/* The reader's frame source: the file, its input window and zstd. It turns a .wtrace file into
 * a sequence of decompressed data frames (or errors with their byte offsets), and knows
 * nothing of records. The reader (reader.c) either calls it directly or runs it on a helper
 * thread that decompresses ahead; either way one thread at a time owns a wt__src.
 *
 * Memory: a fixed input window (WT__SRC_IN_CAP), zstd's window capped at 8 MiB, and the
 * caller's frame buffers, each at most WT__FRAME_MAX: a frame declaring more is refused
 * before anything is allocated. */
#ifndef WT_READER_SRC_H
#define WT_READER_SRC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <zstd.h>

#define WT__SRC_IN_CAP (256u << 10)
#define WT__SRC_MAX_ERRORS 1000u /* after that many damaged places the rest is skipped */
#define WT__ERR_CAP 512

typedef struct wt__src {
    const char *path; /* owned by the reader */
    FILE *f;
    uint64_t file_bytes; /* UINT64_MAX when not a regular file */
    uint8_t *in;         /* in[0..in_len) are the file's bytes from offset in_off */
    size_t in_len, in_pos;
    uint64_t in_off;
    int eof;
    ZSTD_DCtx *dctx;
    /* what it saw, cumulative */
    uint64_t frames, frames_damaged, bytes_skipped, errors;
    uint64_t frames_stored; /* of `frames`, those no smaller in the file than their content */
    /* the last error */
    char err[WT__ERR_CAP];
    int64_t err_off;
} wt__src;

/* A frame buffer: the records of one data frame once decoded. */
typedef struct wt__fbuf {
    uint8_t *p;
    size_t len, cap;
    uint64_t off; /* the frame's offset in the file */
} wt__fbuf;

/* Opens `path` (kept by pointer). Returns 0, WT_ENOMEM (s->err set when fopen() ran out of
 * memory), or WT_EOPEN with s->err set
 * ("cannot open 'PATH': REASON" / "... Is a directory"). Release with wt__src_release(). */
int wt__src_open(wt__src *s, const char *path);
/* Closes the file of `s` (opened or failed) and opens `path` as wt__src_open() does, keeping
 * its input window and zstd context (the context's parameters too): the next file costs no
 * allocation. Same returns. */
int wt__src_reopen(wt__src *s, const char *path);
void wt__src_release(wt__src *s);

/* Makes at least `want` (<= WT__SRC_IN_CAP) bytes available at the read position when the
 * file has them; returns how many are (fewer only at the end of the file). */
size_t wt__src_avail(wt__src *s, size_t want);
static inline const uint8_t *wt__src_pos(const wt__src *s) { return s->in + s->in_pos; }
static inline uint64_t wt__src_off(const wt__src *s) { return s->in_off + s->in_pos; }
static inline void wt__src_consume(wt__src *s, size_t n) { s->in_pos += n; }

/* Records an error "'PATH': at byte OFF: ..." in s->err and counts it; returns `code`. */
int wt__src_fail(wt__src *s, int code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Decodes the next data frame into *fb (grown as needed, up to WT__FRAME_MAX). Returns 1 with
 * a frame, 0 at the end of the file, or a negative WT_E* code with s->err set; after an error
 * the read position is already past the damage, so calling again goes on. */
int wt__src_next(wt__src *s, wt__fbuf *fb);

#endif
