/* The write side of the format: encodes records into a caller-owned buffer and wraps a
 * buffer of records into a zstd frame. Used by the recorder's writer thread and, on a crash,
 * by its signal handler: every function here except wt__frame_compress() is async-signal-safe
 * (no allocation, no locks, no errno, no stdio). */
#ifndef WT_ENCODE_H
#define WT_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "format.h"

#include "walltime/walltime.h"

/* A record buffer being filled. Records are appended while they fit; a function that would
 * overflow returns WT_ENOSPC and leaves the buffer unchanged, so the caller can close the
 * frame (wt__frame_*) and start a new one with wt__enc_reset(). */
typedef struct wt__enc {
    uint8_t *buf;
    size_t len, cap;
    uint64_t tid;   /* the thread of the current chunk */
    int64_t prev;   /* the previous record's reference time in this chunk, ns */
    int in_thread;  /* a THREAD record has started a chunk in this frame */
} wt__enc;

/* A span as the recorder hands it over. Times in ns on CLOCK_MONOTONIC. String ids are the
 * recorder's interned ids (1..), 0 for none; every id must have been written with
 * wt__enc_string() in this frame or an earlier one. */
typedef struct wt__span_rec {
    int64_t start, end; /* end >= start */
    uint32_t depth;
    uint32_t category, label, detail;
    wt_cached cached;
    int64_t count;      /* 1 is the default and costs no byte */
    int64_t bytes;      /* 0: none */
    unsigned unclosed : 1, measured : 1;
} wt__span_rec;

/* A varint for the common small values without the general loop: most ids, depths and
 * per-span deltas of a trace take one or two bytes. The bytes are those of wt__put_varint(). */
static inline size_t wt__put_varint_fast(uint8_t *p, uint64_t v)
{
    if (__builtin_expect(v < 0x80, 1)) {
        p[0] = (uint8_t)v;
        return 1;
    }
    if (v < 0x4000) {
        p[0] = (uint8_t)(v | 0x80);
        p[1] = (uint8_t)(v >> 7);
        return 2;
    }
    return wt__put_varint(p, v);
}

/* Starts an empty frame in buf[0..cap). cap must be at least 64. */
void wt__enc_reset(wt__enc *e, uint8_t *buf, size_t cap);

/* Defines string `id` (ids count up from 1 in the order they are defined; len <= WT__STRING_MAX). */
int wt__enc_string(wt__enc *e, uint32_t id, const char *s, size_t len);

/* Starts a chunk of thread `tid`; `ts` is the base time, <= the first record's reference time.
 * Records of another thread need their own chunk; the encoder starts one by itself when the
 * tid of a record call differs from the current chunk's. */
int wt__enc_thread(wt__enc *e, uint64_t tid, int64_t ts);

/* Record functions. `tid` is the recording thread; times are clamped to be monotone within a
 * chunk (reference time: the end of a span or round, the instant of others). */
int wt__enc_span(wt__enc *e, uint64_t tid, const wt__span_rec *s);
int wt__enc_counter(wt__enc *e, uint64_t tid, int64_t ts, uint32_t name, int64_t value);
int wt__enc_mark(wt__enc *e, uint64_t tid, int64_t ts, uint32_t category, uint32_t label,
                 uint32_t detail);
int wt__enc_meta(wt__enc *e, uint64_t tid, int64_t ts, uint32_t key, uint32_t value);
int wt__enc_thread_name(wt__enc *e, uint64_t tid, int64_t ts, uint32_t name);
int wt__enc_round(wt__enc *e, uint64_t tid, int64_t start, int64_t end, uint32_t config,
                  int64_t round);
int wt__enc_dropped(wt__enc *e, uint64_t tid, int64_t ts, uint64_t count);
/* Process-level records (no thread). */
int wt__enc_sync(wt__enc *e, int64_t ts);
/* reason: WT__END_CLEAN or WT__END_SIGNAL (then `signo`). */
int wt__enc_end(wt__enc *e, int64_t ts, unsigned reason, int signo);

/* The header, as the recorder knows it. */
typedef struct wt__header {
    uint64_t pid;
    int64_t process_start_ns, open_ns, anchor_mono_ns, anchor_real_ns;
    const char *clock; /* "tsc" or "monotonic" */
    uint64_t tsc_hz;   /* 0 unless clock is "tsc" */
    const char *host, *cmdline, *recorder;
    /* 1.1 */
    uint64_t parent_pid;                  /* 0: not written */
    uint8_t run_id[WT__RUN_ID_LEN];       /* all zero: not written */
    const char *boot_id;                  /* NULL: not written */
    uint64_t anchor_err_ns;               /* the realtime read lies in [mono, mono + this];
                                             0: not written (a measured gap is at least 1) */
} wt__header;

/* Writes the header frame (a zstd skippable frame) into out[0..cap). Returns its size, or 0
 * when it does not fit in cap (or in WT__HEADER_MAX; strings are cut to fit first). */
size_t wt__header_frame(uint8_t *out, size_t cap, const wt__header *h);

/* The most bytes wt__frame_raw() writes for n bytes of records. */
#define WT__FRAME_RAW_BOUND(n) ((n) + 32 + 3 * ((n) / (128u << 10) + 1))

/* Wraps records src[0..n) into a zstd frame of raw (stored) blocks in out[0..cap): no
 * compression, no allocation, async-signal-safe, for the crash path. Returns the frame's
 * size, or 0 when cap < WT__FRAME_RAW_BOUND(n). */
size_t wt__frame_raw(uint8_t *out, size_t cap, const uint8_t *src, size_t n);

/* Compresses records src[0..n) into one zstd frame with the content size in its header,
 * using `cctx` (its parameters set by the caller, e.g. the level). Returns the frame's size,
 * or 0 on failure. out needs ZSTD_compressBound(n) bytes. */
size_t wt__frame_compress(ZSTD_CCtx *cctx, uint8_t *out, size_t cap, const uint8_t *src, size_t n);

#endif
