/* The write side of the format (docs/FORMAT.md): records into a caller's buffer, the header
 * frame, and the two ways a buffer of records becomes a zstd frame. The recorder's writer
 * thread calls this for every flush and its crash handler calls it from a signal handler, so
 * apart from wt__frame_compress() nothing here allocates, locks or touches errno. */
#include "encode.h"

#include <string.h>
#include <xxhash.h> /* Debian libxxhash: XXH64, the checksum of zstd frames */

#include "format.h"

void wt__enc_reset(wt__enc *e, uint8_t *buf, size_t cap)
{
    e->buf = buf;
    e->cap = cap;
    e->len = 0;
    e->tid = 0;
    e->prev = 0;
    e->in_thread = 0;
}

/* A record is assembled in place when the largest record still fits (the common case: no
 * copy, which the writer pays per span), else in a scratch buffer that is copied only when the
 * record fits whole, so a failed call leaves the buffer as it was. The largest record is a
 * span: type, flags and 8 varints; a STRING is bounded by WT__STRING_MAX and built apart. */
#define REC_MAX (2 + 10 * WT__VARINT_MAX)

/* Where to assemble the next record: in place, or in `scratch`. */
static uint8_t *rec_at(wt__enc *e, uint8_t *scratch)
{
    return e->cap - e->len >= REC_MAX ? e->buf + e->len : scratch;
}

static int commit(wt__enc *e, const uint8_t *rec, size_t n)
{
    if (rec == e->buf + e->len) {
        e->len += n;
        return 0;
    }
    if (e->cap - e->len < n)
        return WT_ENOSPC;
    memcpy(e->buf + e->len, rec, n);
    e->len += n;
    return 0;
}

int wt__enc_string(wt__enc *e, uint32_t id, const char *s, size_t len)
{
    if (len > WT__STRING_MAX)
        len = WT__STRING_MAX;
    uint8_t head[1 + 2 * WT__VARINT_MAX];
    size_t n = 0;
    head[n++] = WT__R_STRING;
    n += wt__put_varint(head + n, id);
    n += wt__put_varint(head + n, len);
    if (e->cap - e->len < n + len)
        return WT_ENOSPC;
    memcpy(e->buf + e->len, head, n);
    memcpy(e->buf + e->len + n, s, len);
    e->len += n + len;
    return 0;
}

int wt__enc_thread(wt__enc *e, uint64_t tid, int64_t ts)
{
    uint8_t scratch[REC_MAX], *rec = rec_at(e, scratch);
    size_t n = 0;
    if (ts < 0)
        ts = 0;
    rec[n++] = WT__R_THREAD;
    n += wt__put_varint(rec + n, tid);
    n += wt__put_varint(rec + n, (uint64_t)ts);
    int rc = commit(e, rec, n);
    if (rc == 0) {
        e->tid = tid;
        e->prev = ts;
        e->in_thread = 1;
    }
    return rc;
}

/* Makes sure the current chunk is `tid`'s, starting one at `ts` when it is not. */
static int chunk(wt__enc *e, uint64_t tid, int64_t ts)
{
    if (e->in_thread && e->tid == tid)
        return 0;
    return wt__enc_thread(e, tid, ts);
}

/* The delta of `ts` from the chunk's previous reference time, clamped so that times within a
 * chunk never go backwards (a recalibrated clock can step back by a few ns). */
static uint64_t delta(const wt__enc *e, int64_t ts, int64_t *clamped)
{
    if (ts < e->prev)
        ts = e->prev;
    *clamped = ts;
    return (uint64_t)(ts - e->prev);
}

int wt__enc_span(wt__enc *e, uint64_t tid, const wt__span_rec *s)
{
    const int64_t end = s->end, start = s->start;
    if (__builtin_expect(!e->in_thread || e->tid != tid, 0)) {
        const int rc = wt__enc_thread(e, tid, start < end ? start : end);
        if (rc)
            return rc;
    }
    uint8_t scratch[REC_MAX], *rec = rec_at(e, scratch);
    /* only values the reader accepts: a cache outcome outside 0..2 is unknown */
    unsigned flags = (unsigned)s->cached <= WT_CACHED_MISS ? (unsigned)s->cached : 0u;
    flags |= (s->count != 1) ? WT__SF_COUNT : 0u;
    flags |= (s->bytes != 0) ? WT__SF_BYTES : 0u;
    flags |= s->detail ? WT__SF_DETAIL : 0u;
    flags |= s->unclosed ? WT__SF_UNCLOSED : 0u;
    flags |= s->measured ? WT__SF_MEASURED : 0u;
    /* the delta from the chunk's previous reference time, clamped so that times within a
     * chunk never go backwards; the span keeps its duration when its end is clamped */
    const int64_t clamped = end < e->prev ? e->prev : end;
    const uint64_t d = (uint64_t)(clamped - e->prev);
    uint64_t dur = end > start ? (uint64_t)(end - start) : 0;
    if (dur > (uint64_t)clamped)
        dur = clamped > 0 ? (uint64_t)clamped : 0; /* starts no earlier than time 0 */
    size_t n = 2;
    rec[0] = WT__R_SPAN;
    rec[1] = (uint8_t)flags;
    n += wt__put_varint_fast(rec + n, d);
    n += wt__put_varint_fast(rec + n, dur);
    if (__builtin_expect((s->depth | s->category | s->label) < 0x80, 1)) {
        rec[n] = (uint8_t)s->depth;
        rec[n + 1] = (uint8_t)s->category;
        rec[n + 2] = (uint8_t)s->label;
        n += 3;
    } else {
        n += wt__put_varint(rec + n, s->depth);
        n += wt__put_varint(rec + n, s->category);
        n += wt__put_varint(rec + n, s->label);
    }
    if (__builtin_expect(flags & (WT__SF_COUNT | WT__SF_BYTES | WT__SF_DETAIL), 0)) {
        if (flags & WT__SF_COUNT)
            n += wt__put_varint(rec + n, wt__zigzag(s->count));
        if (flags & WT__SF_BYTES)
            n += wt__put_varint(rec + n, wt__zigzag(s->bytes));
        if (flags & WT__SF_DETAIL)
            n += wt__put_varint(rec + n, s->detail);
    }
    const int rc = commit(e, rec, n);
    if (rc == 0)
        e->prev = clamped;
    return rc;
}

/* The common shape of instant records: type, ts delta, then up to three varints. */
static int instant(wt__enc *e, uint64_t tid, int64_t ts, unsigned type, int nv, uint64_t a,
                   uint64_t b, uint64_t c)
{
    int rc = chunk(e, tid, ts);
    if (rc)
        return rc;
    uint8_t scratch[REC_MAX], *rec = rec_at(e, scratch);
    size_t n = 0;
    int64_t clamped;
    rec[n++] = (uint8_t)type;
    n += wt__put_varint(rec + n, delta(e, ts, &clamped));
    const uint64_t v[3] = { a, b, c };
    for (int i = 0; i < nv; i++)
        n += wt__put_varint(rec + n, v[i]);
    rc = commit(e, rec, n);
    if (rc == 0)
        e->prev = clamped;
    return rc;
}

int wt__enc_counter(wt__enc *e, uint64_t tid, int64_t ts, uint32_t name, int64_t value)
{
    return instant(e, tid, ts, WT__R_COUNTER, 2, name, wt__zigzag(value), 0);
}

int wt__enc_mark(wt__enc *e, uint64_t tid, int64_t ts, uint32_t category, uint32_t label,
                 uint32_t detail)
{
    return instant(e, tid, ts, WT__R_MARK, 3, category, label, detail);
}

int wt__enc_meta(wt__enc *e, uint64_t tid, int64_t ts, uint32_t key, uint32_t value)
{
    return instant(e, tid, ts, WT__R_META, 2, key, value, 0);
}

int wt__enc_thread_name(wt__enc *e, uint64_t tid, int64_t ts, uint32_t name)
{
    return instant(e, tid, ts, WT__R_THREAD_NAME, 1, name, 0, 0);
}

int wt__enc_dropped(wt__enc *e, uint64_t tid, int64_t ts, uint64_t count)
{
    return instant(e, tid, ts, WT__R_DROPPED, 1, count, 0, 0);
}

int wt__enc_round(wt__enc *e, uint64_t tid, int64_t start, int64_t end, uint32_t config,
                  int64_t round)
{
    if (start < 0)
        start = 0; /* starts no earlier than time 0: the reader refuses that */
    uint64_t dur = end > start ? (uint64_t)(end - start) : 0;
    return instant(e, tid, end, WT__R_ROUND, 3, dur, config, wt__zigzag(round));
}

int wt__enc_sync(wt__enc *e, int64_t ts)
{
    uint8_t scratch[REC_MAX], *rec = rec_at(e, scratch);
    size_t n = 0;
    rec[n++] = WT__R_SYNC;
    n += wt__put_varint(rec + n, ts > 0 ? (uint64_t)ts : 0);
    return commit(e, rec, n);
}

int wt__enc_end(wt__enc *e, int64_t ts, unsigned reason, int signo)
{
    uint8_t scratch[REC_MAX], *rec = rec_at(e, scratch);
    size_t n = 0;
    rec[n++] = WT__R_END;
    n += wt__put_varint(rec + n, ts > 0 ? (uint64_t)ts : 0);
    n += wt__put_varint(rec + n, reason);
    n += wt__put_varint(rec + n, signo > 0 ? (uint64_t)signo : 0);
    return commit(e, rec, n);
}

/* ---- header frame ------------------------------------------------------------------- */

typedef struct hbuf {
    uint8_t *p;
    size_t len, cap;
    int overflow;
} hbuf;

static void h_bytes(hbuf *h, const void *src, size_t n)
{
    if (h->overflow || h->cap - h->len < n) {
        h->overflow = 1;
        return;
    }
    memcpy(h->p + h->len, src, n);
    h->len += n;
}

static void h_varint(hbuf *h, uint64_t v)
{
    uint8_t tmp[WT__VARINT_MAX];
    h_bytes(h, tmp, wt__put_varint(tmp, v));
}

static void h_field_u(hbuf *h, unsigned id, uint64_t v)
{
    uint8_t tmp[WT__VARINT_MAX];
    size_t n = wt__put_varint(tmp, v);
    h_varint(h, id);
    h_varint(h, n);
    h_bytes(h, tmp, n);
}

static void h_field_s(hbuf *h, unsigned id, const char *s, size_t max)
{
    if (!s)
        return;
    size_t n = strlen(s);
    if (n > max)
        n = max;
    h_varint(h, id);
    h_varint(h, n);
    h_bytes(h, s, n);
}

size_t wt__header_frame(uint8_t *out, size_t cap, const wt__header *hd)
{
    if (cap < 8)
        return 0;
    size_t limit = cap - 8 < WT__HEADER_MAX ? cap - 8 : WT__HEADER_MAX;
    hbuf h = { out + 8, 0, limit, 0 };
    const uint8_t version[4] = { WT__FORMAT_MAJOR & 0xff, WT__FORMAT_MAJOR >> 8,
                                 WT__FORMAT_MINOR & 0xff, WT__FORMAT_MINOR >> 8 };
    h_bytes(&h, WT__HEADER_MAGIC, WT__HEADER_MAGIC_LEN);
    h_bytes(&h, version, sizeof version);
    h_field_u(&h, WT__H_PID, hd->pid);
    h_field_u(&h, WT__H_PROCESS_START, hd->process_start_ns > 0 ? (uint64_t)hd->process_start_ns : 0);
    h_field_u(&h, WT__H_OPEN, hd->open_ns > 0 ? (uint64_t)hd->open_ns : 0);
    h_field_u(&h, WT__H_ANCHOR_MONO, hd->anchor_mono_ns > 0 ? (uint64_t)hd->anchor_mono_ns : 0);
    h_field_u(&h, WT__H_ANCHOR_REAL, hd->anchor_real_ns > 0 ? (uint64_t)hd->anchor_real_ns : 0);
    h_field_s(&h, WT__H_CLOCK, hd->clock, 32);
    if (hd->tsc_hz)
        h_field_u(&h, WT__H_TSC_HZ, hd->tsc_hz);
    h_field_s(&h, WT__H_HOST, hd->host, 256);
    h_field_s(&h, WT__H_RECORDER, hd->recorder, 64);
    if (hd->parent_pid)
        h_field_u(&h, WT__H_PARENT_PID, hd->parent_pid);
    static const uint8_t no_id[WT__RUN_ID_LEN];
    if (memcmp(hd->run_id, no_id, sizeof no_id) != 0) {
        h_varint(&h, WT__H_RUN_ID);
        h_varint(&h, WT__RUN_ID_LEN);
        h_bytes(&h, hd->run_id, WT__RUN_ID_LEN);
    }
    h_field_s(&h, WT__H_BOOT_ID, hd->boot_id, 64);
    if (hd->anchor_err_ns)
        h_field_u(&h, WT__H_ANCHOR_ERR, hd->anchor_err_ns);
    /* the command line last and cut to what is left, so a huge one never loses the rest */
    if (!h.overflow && hd->cmdline) {
        size_t room = h.cap - h.len;
        room = room > 2 * WT__VARINT_MAX ? room - 2 * WT__VARINT_MAX : 0;
        h_field_s(&h, WT__H_CMDLINE, hd->cmdline, room);
    }
    if (h.overflow)
        return 0;
    wt__put_le32(out, WT__SKIPPABLE_MAGIC);
    wt__put_le32(out + 4, (uint32_t)h.len);
    return 8 + h.len;
}

/* ---- frames ------------------------------------------------------------------------- */

/* A zstd frame of raw blocks (RFC 8878): magic; a frame header descriptor with
 * Single_Segment set and an 8-byte Frame_Content_Size (FCS flag 3), so no window descriptor,
 * and the content checksum flag; then blocks of at most 128 KiB, each a 3-byte little-endian header
 * (Last_Block bit 0, Block_Type raw = 0 in bits 1-2, Block_Size in bits 3-23) and its bytes. */
#define ZSTD_BLOCK_MAX (128u << 10)

size_t wt__frame_raw(uint8_t *out, size_t cap, const uint8_t *src, size_t n)
{
    if (cap < WT__FRAME_RAW_BOUND(n))
        return 0;
    size_t o = 0;
    wt__put_le32(out, WT__ZSTD_MAGIC);
    o += 4;
    out[o++] = 0xE4; /* FCS flag 3 (8 bytes), single segment, checksum, no dictionary */
    for (int i = 0; i < 8; i++)
        out[o++] = (uint8_t)((uint64_t)n >> (8 * i));
    size_t left = n;
    do {
        size_t b = left < ZSTD_BLOCK_MAX ? left : ZSTD_BLOCK_MAX;
        uint32_t last = b == left;
        uint32_t bh = last | (0u << 1) | (uint32_t)b << 3;
        out[o++] = (uint8_t)bh;
        out[o++] = (uint8_t)(bh >> 8);
        out[o++] = (uint8_t)(bh >> 16);
        memcpy(out + o, src, b);
        o += b;
        src += b;
        left -= b;
    } while (left);
    /* the low 32 bits of XXH64 of the content: a flipped bit is caught, as in zstd's frames.
     * libxxhash's one-shot XXH64 is pure arithmetic on the caller's bytes (no allocation, no
     * state), so the crash path may call it from a signal handler. */
    wt__put_le32(out + o, (uint32_t)XXH64(src - n, n, 0));
    return o + 4;
}

size_t wt__frame_compress(ZSTD_CCtx *cctx, uint8_t *out, size_t cap, const uint8_t *src, size_t n)
{
    ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    /* without a checksum a flipped bit can decode into plausible garbage */
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    size_t r = ZSTD_compress2(cctx, out, cap, src, n);
    return ZSTD_isError(r) ? 0 : r;
}
