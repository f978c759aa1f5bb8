/* The trace reader: the only code that knows the byte layout of a .wtrace file besides the
 * encoder (docs/FORMAT.md). Workload: one pass over files of up to gigabytes, millions of
 * records per second, input that may be cut, corrupted or hostile.
 *
 * Memory is bounded whatever the file says: a fixed input buffer (IN_CAP), one decompressed
 * frame (at most WT__FRAME_MAX, refused before allocation when a frame declares more, and
 * zstd's window capped at WINDOW_LOG_MAX), the string table (at most MAX_STRINGS strings and
 * MAX_STRING_BYTES bytes) and the set of thread ids (at most MAX_THREADS tracked).
 *
 * Damage handling: a frame that cannot be decoded is reported once, with its byte offset, and
 * skipped; the reader then scans for the next zstd frame magic and goes on. A record that does
 * not parse ends its frame (records before it were delivered). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zstd.h>

#include "format.h"
#include "walltime/reader.h"

#define IN_CAP (256u << 10)
#define WINDOW_LOG_MAX 23 /* 8 MiB: frames of at most WT__FRAME_MAX never need more */
#define MAX_STRINGS (4u << 20)
#define MAX_STRING_BYTES (128u << 20)
#define MAX_THREADS 65536u
#define MAX_ERRORS 1000u /* after that many damaged places the rest of the file is skipped */
#define ARENA_BLOCK (64u << 10)
/* Absolute times must stay below this (about 146 years in ns) so sums never overflow. */
#define TIME_MAX (INT64_MAX / 2)

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    char data[];
} arena_block;

struct wt_reader {
    char *path;
    FILE *f;
    wt_trace_info info;
    char *info_strings[5]; /* owned copies behind info's strings */
    int header_ok;

    /* input window: in[0..in_len) holds the file bytes from offset in_off */
    uint8_t *in;
    size_t in_len, in_pos;
    uint64_t in_off;
    int eof;

    ZSTD_DCtx *dctx;
    uint8_t *frame; /* the current frame's records */
    size_t frame_len, frame_pos, frame_cap;
    uint64_t frame_off; /* file offset of the current frame */
    int in_frame;

    /* decoding state within a frame */
    uint64_t tid;
    int64_t prev;
    int in_thread;

    /* strings: id i (1..n) is str[i-1] */
    const char **str;
    uint32_t nstr, str_cap;
    arena_block *arena;
    size_t arena_bytes;

    uint64_t *tids; /* open-addressing set, 0 = empty slot (tid 0 counted apart) */
    size_t tid_cap;
    int tid0_seen;

    wt_reader_stats stats;
    char err[512];
    int64_t err_off;
    int done;
};

/* ---- errors ------------------------------------------------------------------------- */

static int fail(wt_reader *r, int code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(wt_reader *r, int code, uint64_t off, const char *fmt, ...)
{
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->err, sizeof r->err, "'%s': at byte %llu: %s", r->path ? r->path : "?",
             (unsigned long long)off, what);
    r->err_off = (int64_t)off;
    r->stats.errors++;
    return code;
}

/* ---- input -------------------------------------------------------------------------- */

/* Makes at least `want` bytes available from in_pos when the file has them. Returns the
 * number available (less than `want` only at the end of the file). */
static size_t avail(wt_reader *r, size_t want)
{
    if (want > IN_CAP)
        want = IN_CAP;
    while (r->in_len - r->in_pos < want && !r->eof) {
        if (r->in_pos > 0) {
            memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
            r->in_off += r->in_pos;
            r->in_len -= r->in_pos;
            r->in_pos = 0;
        }
        size_t got = fread(r->in + r->in_len, 1, IN_CAP - r->in_len, r->f);
        r->in_len += got;
        if (got == 0)
            r->eof = 1;
    }
    return r->in_len - r->in_pos;
}

static uint64_t pos_off(const wt_reader *r) { return r->in_off + r->in_pos; }

/* Moves the read position to absolute offset `off`. */
static void seek_to(wt_reader *r, uint64_t off)
{
    if (off >= r->in_off && off <= r->in_off + r->in_len) {
        r->in_pos = (size_t)(off - r->in_off);
        return;
    }
    r->in_len = r->in_pos = 0;
    r->in_off = off;
    r->eof = 0;
    if (fseeko(r->f, (off_t)off, SEEK_SET) != 0)
        r->eof = 1;
}

/* Scans from `from` for the next frame magic (zstd or skippable); positions there and returns
 * 1, or returns 0 at the end of the file. Counts what it passes over as skipped. */
static int resync(wt_reader *r, uint64_t from)
{
    seek_to(r, from);
    for (;;) {
        size_t n = avail(r, 4);
        if (n < 4) {
            r->stats.bytes_skipped += n;
            r->in_pos += n;
            return 0;
        }
        const uint8_t *p = r->in + r->in_pos;
        for (size_t i = 0; i + 4 <= n; i++) {
            uint32_t m = wt__get_le32(p + i);
            if (m == WT__ZSTD_MAGIC || (m & 0xFFFFFFF0u) == 0x184D2A50u) {
                r->stats.bytes_skipped += i;
                r->in_pos += i;
                return 1;
            }
        }
        r->stats.bytes_skipped += n - 3;
        r->in_pos += n - 3;
    }
}

/* ---- strings and threads ------------------------------------------------------------ */

static const char *intern(wt_reader *r, const uint8_t *s, size_t n)
{
    if (!r->arena || r->arena->cap - r->arena->used < n + 1) {
        size_t cap = n + 1 > ARENA_BLOCK ? n + 1 : ARENA_BLOCK;
        arena_block *b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = r->arena;
        b->used = 0;
        b->cap = cap;
        r->arena = b;
    }
    char *dst = r->arena->data + r->arena->used;
    memcpy(dst, s, n);
    dst[n] = '\0';
    r->arena->used += n + 1;
    r->arena_bytes += n + 1;
    return dst;
}

static void note_tid(wt_reader *r, uint64_t tid)
{
    if (tid == 0) {
        r->stats.threads += !r->tid0_seen;
        r->tid0_seen = 1;
        return;
    }
    if (r->stats.threads >= MAX_THREADS)
        return;
    if ((r->stats.threads + 1) * 2 > r->tid_cap) {
        size_t cap = r->tid_cap ? r->tid_cap * 2 : 64;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t)
            return;
        for (size_t i = 0; i < r->tid_cap; i++) {
            uint64_t v = r->tids[i];
            if (!v)
                continue;
            size_t j = (size_t)(v * 0x9E3779B97F4A7C15ull) & (cap - 1);
            while (t[j])
                j = (j + 1) & (cap - 1);
            t[j] = v;
        }
        free(r->tids);
        r->tids = t;
        r->tid_cap = cap;
    }
    size_t j = (size_t)(tid * 0x9E3779B97F4A7C15ull) & (r->tid_cap - 1);
    while (r->tids[j]) {
        if (r->tids[j] == tid)
            return;
        j = (j + 1) & (r->tid_cap - 1);
    }
    r->tids[j] = tid;
    r->stats.threads++;
}

/* ---- header ------------------------------------------------------------------------- */

static char *dup_n(const uint8_t *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static int parse_header(wt_reader *r)
{
    size_t n = avail(r, 8);
    if (n == 0)
        return fail(r, WT_ENOTTRACE, 0, "empty file, not a walltime trace");
    if (n < 8 || wt__get_le32(r->in) != WT__SKIPPABLE_MAGIC) {
        if (n >= 4 && wt__get_le32(r->in) == WT__SKIPPABLE_MAGIC)
            return fail(r, WT_ETRUNC, 0, "truncated in the header frame");
        return fail(r, WT_ENOTTRACE, 0, "not a walltime trace (no header frame)");
    }
    uint32_t size = wt__get_le32(r->in + 4);
    if (size > WT__HEADER_MAX)
        return fail(r, WT_ECORRUPT, 4, "header of %u bytes exceeds the limit of %u", size,
                    WT__HEADER_MAX);
    if (avail(r, 8 + (size_t)size) < 8 + (size_t)size)
        return fail(r, WT_ETRUNC, 8, "truncated in the header frame (%u bytes declared)", size);
    const uint8_t *p = r->in + 8, *end = p + size;
    if (size < WT__HEADER_MAGIC_LEN + 4 || memcmp(p, WT__HEADER_MAGIC, WT__HEADER_MAGIC_LEN) != 0)
        return fail(r, WT_ENOTTRACE, 8, "not a walltime trace (bad header magic)");
    p += WT__HEADER_MAGIC_LEN;
    r->info.format_major = (unsigned)p[0] | (unsigned)p[1] << 8;
    r->info.format_minor = (unsigned)p[2] | (unsigned)p[3] << 8;
    p += 4;
    if (r->info.format_major > WT__FORMAT_MAJOR)
        return fail(r, WT_EVERSION, 14,
                    "written by format version %u.%u; this reader reads %u.x: a newer walltime is needed",
                    r->info.format_major, r->info.format_minor, WT__FORMAT_MAJOR);
    if (r->info.format_major == 0)
        return fail(r, WT_ECORRUPT, 14, "format version 0.%u is not valid", r->info.format_minor);
    while (p < end) {
        uint64_t id, len, v = 0;
        uint64_t field_off = 8 + (uint64_t)(p - (r->in + 8));
        if (wt__get_varint(&p, end, &id) || wt__get_varint(&p, end, &len) ||
            len > (uint64_t)(end - p))
            return fail(r, WT_ECORRUPT, field_off, "header field does not parse");
        const uint8_t *val = p, *vend = p + len;
        p = vend;
        int is_int = id == WT__H_PID || id == WT__H_PROCESS_START || id == WT__H_OPEN ||
                     id == WT__H_ANCHOR_MONO || id == WT__H_ANCHOR_REAL || id == WT__H_TSC_HZ;
        if (is_int) {
            const uint8_t *q = val;
            if (wt__get_varint(&q, vend, &v) || q != vend)
                return fail(r, WT_ECORRUPT, field_off, "header field %llu is not a varint",
                            (unsigned long long)id);
            if (id != WT__H_PID && id != WT__H_TSC_HZ && v > (uint64_t)TIME_MAX)
                return fail(r, WT_ECORRUPT, field_off, "header time out of range");
        }
        int si = -1;
        switch (id) {
        case WT__H_PID: r->info.pid = v; break;
        case WT__H_PROCESS_START: r->info.process_start_ns = (int64_t)v; break;
        case WT__H_OPEN: r->info.open_ns = (int64_t)v; break;
        case WT__H_ANCHOR_MONO: r->info.anchor_mono_ns = (int64_t)v; break;
        case WT__H_ANCHOR_REAL: r->info.anchor_real_ns = (int64_t)v; break;
        case WT__H_TSC_HZ: r->info.tsc_hz = (double)v; break;
        case WT__H_CLOCK: si = 0; break;
        case WT__H_HOST: si = 1; break;
        case WT__H_CMDLINE: si = 2; break;
        case WT__H_RECORDER: si = 3; break;
        default: break; /* a newer minor version's field: skipped */
        }
        if (si >= 0) {
            free(r->info_strings[si]);
            r->info_strings[si] = dup_n(val, (size_t)len);
            if (!r->info_strings[si])
                return fail(r, WT_ENOMEM, field_off, "out of memory");
        }
    }
    r->info.clock = r->info_strings[0];
    r->info.host = r->info_strings[1];
    r->info.cmdline = r->info_strings[2];
    r->info.recorder = r->info_strings[3];
    r->in_pos += 8 + size;
    r->header_ok = 1;
    return 0;
}

/* ---- frames ------------------------------------------------------------------------- */

/* Skips a skippable frame at the read position. Returns 0, or WT_ETRUNC. */
static int skip_skippable(wt_reader *r)
{
    uint64_t off = pos_off(r);
    if (avail(r, 8) < 8)
        return fail(r, WT_ETRUNC, off, "truncated skippable frame");
    uint64_t size = wt__get_le32(r->in + r->in_pos + 4);
    uint64_t target = off + 8 + size;
    if (target > r->stats.file_bytes) {
        r->stats.bytes_skipped += r->stats.file_bytes - off;
        seek_to(r, r->stats.file_bytes);
        r->eof = 1;
        return fail(r, WT_ETRUNC, off, "truncated skippable frame");
    }
    seek_to(r, target);
    return 0;
}

/* Decodes the zstd frame at the read position into r->frame. Returns 0, or an error after
 * which the caller resyncs. */
static int decode_frame(wt_reader *r)
{
    uint64_t off = pos_off(r);
    /* 18 bytes: the largest zstd frame header (RFC 8878) */
    size_t n = avail(r, 18);
    unsigned long long fcs = ZSTD_getFrameContentSize(r->in + r->in_pos, n);
    if (fcs == ZSTD_CONTENTSIZE_ERROR)
        return n < 18 && r->eof ? fail(r, WT_ETRUNC, off, "truncated in a frame header")
                                : fail(r, WT_ECORRUPT, off, "bad zstd frame header");
    if (fcs == ZSTD_CONTENTSIZE_UNKNOWN)
        return fail(r, WT_ECORRUPT, off, "frame does not declare its size");
    if (fcs > WT__FRAME_MAX)
        return fail(r, WT_ELIMIT, off, "frame of %llu bytes exceeds the limit of %u", fcs,
                    WT__FRAME_MAX);
    size_t want = (size_t)fcs;
    if (want > r->frame_cap) {
        size_t cap = r->frame_cap ? r->frame_cap : 64u << 10;
        while (cap < want)
            cap *= 2;
        uint8_t *f = realloc(r->frame, cap);
        if (!f)
            return fail(r, WT_ENOMEM, off, "out of memory for a frame of %zu bytes", want);
        r->frame = f;
        r->frame_cap = cap;
    }
    ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
    ZSTD_outBuffer out = { r->frame, want, 0 };
    for (;;) {
        size_t have = avail(r, IN_CAP);
        if (have == 0)
            return fail(r, WT_ETRUNC, off, "truncated in a frame (%zu of %zu bytes decoded)",
                        out.pos, want);
        ZSTD_inBuffer in = { r->in + r->in_pos, have, 0 };
        size_t rc = ZSTD_decompressStream(r->dctx, &out, &in);
        r->in_pos += in.pos;
        if (ZSTD_isError(rc))
            return fail(r, WT_ECORRUPT, off, "frame does not decompress: %s",
                        ZSTD_getErrorName(rc));
        if (rc == 0)
            break;
        if (in.pos == 0 && out.pos == out.size)
            return fail(r, WT_ECORRUPT, off, "frame holds more than it declares");
    }
    r->frame_len = out.pos;
    r->frame_pos = 0;
    r->frame_off = off;
    r->in_frame = 1;
    r->in_thread = 0;
    return 0;
}

/* Reaches the next decoded frame. Returns 1 with one, 0 at the end of the file, or an error
 * (the position is already past the damage). */
static int next_frame(wt_reader *r)
{
    for (;;) {
        if (r->stats.errors >= MAX_ERRORS)
            return 0;
        uint64_t off = pos_off(r);
        size_t n = avail(r, 4);
        if (n == 0)
            return 0;
        if (n < 4) {
            r->stats.bytes_skipped += n;
            r->in_pos += n;
            r->stats.frames_damaged++;
            return fail(r, WT_ETRUNC, off, "truncated: %zu stray bytes at the end", n);
        }
        uint32_t m = wt__get_le32(r->in + r->in_pos);
        if ((m & 0xFFFFFFF0u) == 0x184D2A50u) {
            int rc = skip_skippable(r);
            if (rc < 0)
                return rc;
            continue;
        }
        if (m != WT__ZSTD_MAGIC) {
            r->stats.frames_damaged++;
            int rc = fail(r, WT_ECORRUPT, off, "no frame starts here (bytes %08x)", m);
            resync(r, off + 1);
            return rc;
        }
        int rc = decode_frame(r);
        if (rc == 0) {
            r->stats.frames++;
            return 1;
        }
        r->stats.frames_damaged++;
        if (rc == WT_ETRUNC) {
            r->stats.bytes_skipped += r->stats.file_bytes > off ? r->stats.file_bytes - off : 0;
            seek_to(r, r->stats.file_bytes);
            r->eof = 1;
            r->in_len = r->in_pos = 0;
        } else {
            resync(r, off + 1);
        }
        return rc;
    }
}

/* ---- records ------------------------------------------------------------------------ */

typedef struct cursor {
    const uint8_t *p, *end;
} cursor;

static int get_u(cursor *c, uint64_t *v) { return wt__get_varint(&c->p, c->end, v); }

static int get_str(wt_reader *r, cursor *c, const char **out)
{
    uint64_t id;
    if (get_u(c, &id))
        return -1;
    if (id > r->nstr)
        return -2;
    *out = id ? r->str[id - 1] : NULL;
    return 0;
}

/* prev + delta as a checked absolute time. */
static int add_time(int64_t prev, uint64_t delta, int64_t *out)
{
    if (delta > (uint64_t)TIME_MAX || prev > TIME_MAX - (int64_t)delta)
        return -1;
    *out = prev + (int64_t)delta;
    return 0;
}

/* Ends the current frame after a bad record. */
static int bad_record(wt_reader *r, const char *what, size_t rec_at)
{
    r->in_frame = 0;
    r->stats.frames_damaged++;
    r->stats.frames--;
    return fail(r, WT_ECORRUPT, r->frame_off,
                "in the frame starting here, record at +%zu: %s; rest of the frame skipped", rec_at,
                what);
}

static int define_string(wt_reader *r, cursor *c, size_t rec_at)
{
    uint64_t id, len;
    if (get_u(c, &id) || get_u(c, &len) || len > (uint64_t)(c->end - c->p))
        return bad_record(r, "string record does not parse", rec_at);
    if (len > WT__STRING_MAX)
        return bad_record(r, "string longer than the format allows", rec_at);
    if (id != (uint64_t)r->nstr + 1)
        return bad_record(r, "string ids out of sequence", rec_at);
    if (r->nstr >= MAX_STRINGS || r->arena_bytes + len + 1 > MAX_STRING_BYTES) {
        r->in_frame = 0;
        return fail(r, WT_ELIMIT, r->frame_off, "more strings than the reader holds (%u, %u bytes)",
                    MAX_STRINGS, MAX_STRING_BYTES);
    }
    if (r->nstr == r->str_cap) {
        uint32_t cap = r->str_cap ? r->str_cap * 2 : 256;
        const char **s = realloc(r->str, cap * sizeof *s);
        if (!s)
            return fail(r, WT_ENOMEM, r->frame_off, "out of memory for strings");
        r->str = s;
        r->str_cap = cap;
    }
    const char *s = intern(r, c->p, (size_t)len);
    if (!s)
        return fail(r, WT_ENOMEM, r->frame_off, "out of memory for strings");
    r->str[r->nstr++] = s;
    r->stats.strings++;
    c->p += len;
    return 0;
}

/* Decodes one record. Returns 1 with an event in *ev, 0 for a record without an event (string,
 * thread), or an error (the frame is then abandoned). */
static int decode_record(wt_reader *r, wt_event *ev)
{
    cursor c = { r->frame + r->frame_pos, r->frame + r->frame_len };
    size_t rec_at = r->frame_pos;
    uint8_t type = *c.p++;
    uint64_t a, b, d;
    int64_t t;
    int rc = 0;
    /* field by field: a memset of the struct compiles to `rep stos`, which cost a third of
     * the reader's time on 10M spans */
    ev->kind = 0;
    ev->flags = 0;
    ev->pid = r->info.pid;
    ev->tid = r->tid;
    ev->ts = ev->dur = 0;
    ev->depth = 0;
    ev->cached = WT_CACHED_UNKNOWN;
    ev->count = ev->bytes = ev->value = 0;
    ev->end = WT_END_NONE;
    ev->category = ev->label = ev->name = ev->detail = NULL;

    if (type == WT__R_STRING) {
        rc = define_string(r, &c, rec_at);
        if (rc < 0)
            return rc;
        r->frame_pos = (size_t)(c.p - r->frame);
        return 0;
    }
    if (type == WT__R_SYNC || type == WT__R_END) {
        if (get_u(&c, &a) || a > (uint64_t)TIME_MAX)
            return bad_record(r, "sync/end record does not parse", rec_at);
        ev->ts = (int64_t)a;
        ev->tid = 0;
        if (type == WT__R_SYNC) {
            ev->kind = WT_EV_SYNC;
        } else {
            if (get_u(&c, &b) || get_u(&c, &d) || (b != WT__END_CLEAN && b != WT__END_SIGNAL) ||
                d > 128)
                return bad_record(r, "end record does not parse", rec_at);
            ev->kind = WT_EV_END;
            ev->end = b == WT__END_CLEAN ? WT_END_CLEAN : WT_END_SIGNAL;
            ev->count = (int64_t)d;
            r->stats.end = ev->end;
            r->stats.end_signal = (int)d;
        }
        r->frame_pos = (size_t)(c.p - r->frame);
        return 1;
    }
    if (type == WT__R_THREAD) {
        if (get_u(&c, &a) || get_u(&c, &b) || b > (uint64_t)TIME_MAX)
            return bad_record(r, "thread record does not parse", rec_at);
        r->tid = a;
        r->prev = (int64_t)b;
        r->in_thread = 1;
        note_tid(r, a);
        r->frame_pos = (size_t)(c.p - r->frame);
        return 0;
    }
    if (type < WT__R_SPAN || type > WT__R_DROPPED)
        return bad_record(r, "unknown record type", rec_at);
    if (!r->in_thread)
        return bad_record(r, "thread record missing before an event", rec_at);

    if (type == WT__R_SPAN) {
        if (c.p >= c.end)
            return bad_record(r, "span record cut short", rec_at);
        unsigned flags = *c.p++;
        uint64_t depth;
        if (flags & ~WT__SF_KNOWN || (flags & WT__SF_CACHED_MASK) == 3)
            return bad_record(r, "span flags not valid", rec_at);
        if (get_u(&c, &a) || get_u(&c, &b) || get_u(&c, &depth) || depth > UINT32_MAX ||
            add_time(r->prev, a, &t) || b > (uint64_t)t)
            return bad_record(r, "span record does not parse", rec_at);
        ev->kind = WT_EV_SPAN;
        ev->ts = t - (int64_t)b;
        ev->dur = (int64_t)b;
        ev->depth = (uint32_t)depth;
        ev->cached = (wt_cached)(flags & WT__SF_CACHED_MASK);
        ev->flags = (flags & WT__SF_UNCLOSED ? WT_EVF_UNCLOSED : 0) |
                    (flags & WT__SF_MEASURED ? WT_EVF_MEASURED : 0);
        ev->count = 1;
        if ((rc = get_str(r, &c, &ev->category)) || (rc = get_str(r, &c, &ev->label)))
            return bad_record(r, rc == -2 ? "span names an undefined string" : "span record does not parse", rec_at);
        if (flags & WT__SF_COUNT) {
            if (get_u(&c, &d))
                return bad_record(r, "span count does not parse", rec_at);
            ev->count = wt__unzigzag(d);
        }
        if (flags & WT__SF_BYTES) {
            if (get_u(&c, &d))
                return bad_record(r, "span bytes do not parse", rec_at);
            ev->bytes = wt__unzigzag(d);
        }
        if ((flags & WT__SF_DETAIL) && (rc = get_str(r, &c, &ev->detail)))
            return bad_record(r, rc == -2 ? "span names an undefined string" : "span record does not parse", rec_at);
    } else {
        /* every other event starts with a time delta */
        if (get_u(&c, &a) || add_time(r->prev, a, &t))
            return bad_record(r, "event time does not parse", rec_at);
        ev->ts = t;
        switch (type) {
        case WT__R_COUNTER:
            ev->kind = WT_EV_COUNTER;
            if ((rc = get_str(r, &c, &ev->name)) || get_u(&c, &d))
                return bad_record(r, "counter record does not parse", rec_at);
            ev->value = wt__unzigzag(d);
            break;
        case WT__R_MARK:
            ev->kind = WT_EV_MARK;
            if (get_str(r, &c, &ev->category) || get_str(r, &c, &ev->label) ||
                get_str(r, &c, &ev->detail))
                return bad_record(r, "mark record does not parse", rec_at);
            break;
        case WT__R_META:
            ev->kind = WT_EV_META;
            if (get_str(r, &c, &ev->name) || get_str(r, &c, &ev->detail))
                return bad_record(r, "meta record does not parse", rec_at);
            break;
        case WT__R_THREAD_NAME:
            ev->kind = WT_EV_THREAD_NAME;
            if (get_str(r, &c, &ev->name))
                return bad_record(r, "thread name record does not parse", rec_at);
            break;
        case WT__R_ROUND:
            ev->kind = WT_EV_ROUND;
            if (get_u(&c, &b) || b > (uint64_t)t || get_str(r, &c, &ev->name) || get_u(&c, &d))
                return bad_record(r, "round record does not parse", rec_at);
            ev->ts = t - (int64_t)b;
            ev->dur = (int64_t)b;
            ev->count = wt__unzigzag(d);
            break;
        case WT__R_DROPPED:
            ev->kind = WT_EV_DROPPED;
            if (get_u(&c, &d) || d > (uint64_t)INT64_MAX)
                return bad_record(r, "dropped record does not parse", rec_at);
            ev->count = (int64_t)d;
            break;
        default:
            return bad_record(r, "unknown record type", rec_at);
        }
    }
    r->prev = t;
    r->frame_pos = (size_t)(c.p - r->frame);
    return 1;
}

/* ---- public API --------------------------------------------------------------------- */

int wt_reader_open(const char *path, wt_reader **out)
{
    *out = NULL;
    wt_reader *r = calloc(1, sizeof *r);
    if (!r)
        return WT_ENOMEM;
    *out = r;
    r->err_off = -1;
    r->path = strdup(path ? path : "");
    r->in = malloc(IN_CAP);
    r->dctx = ZSTD_createDCtx();
    if (!r->path || !r->in || !r->dctx)
        return fail(r, WT_ENOMEM, 0, "out of memory");
    ZSTD_DCtx_setParameter(r->dctx, ZSTD_d_windowLogMax, WINDOW_LOG_MAX);
    r->f = fopen(path, "rb");
    if (!r->f) {
        snprintf(r->err, sizeof r->err, "cannot open '%s': %s", r->path, strerror(errno));
        r->stats.errors++;
        return WT_EOPEN;
    }
    struct stat st;
    if (fstat(fileno(r->f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(r->err, sizeof r->err, "cannot read '%s': Is a directory", r->path);
            r->stats.errors++;
            return WT_EOPEN;
        }
        r->stats.file_bytes = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
    }
    int rc = parse_header(r);
    if (rc < 0)
        r->done = 1;
    return rc;
}

int wt_reader_next(wt_reader *r, wt_event *ev)
{
    if (!r || r->done)
        return 0;
    for (;;) {
        if (!r->in_frame || r->frame_pos >= r->frame_len) {
            r->in_frame = 0;
            int rc = next_frame(r);
            if (rc == 0) {
                r->done = 1;
                return 0;
            }
            if (rc < 0)
                return rc;
        }
        int rc = decode_record(r, ev);
        if (rc > 0) {
            r->stats.events++;
            return 1;
        }
        if (rc < 0)
            return rc;
    }
}

const wt_trace_info *wt_reader_info(const wt_reader *r) { return &r->info; }

const char *wt_reader_error(const wt_reader *r) { return r ? r->err : ""; }

int64_t wt_reader_error_offset(const wt_reader *r) { return r ? r->err_off : -1; }

void wt_reader_get_stats(const wt_reader *r, wt_reader_stats *out) { *out = r->stats; }

void wt_reader_free(wt_reader *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    for (size_t i = 0; i < sizeof r->info_strings / sizeof r->info_strings[0]; i++)
        free(r->info_strings[i]);
    while (r->arena) {
        arena_block *next = r->arena->next;
        free(r->arena);
        r->arena = next;
    }
    free(r->str);
    free(r->tids);
    free(r->frame);
    free(r->in);
    ZSTD_freeDCtx(r->dctx);
    free(r->path);
    free(r);
}
