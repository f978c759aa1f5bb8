/* The trace reader: the only code that knows the byte layout of a .wtrace file besides the
 * encoder (docs/FORMAT.md). Workload: one pass over files of up to gigabytes, millions of
 * records per second, input that may be cut, corrupted or hostile.
 *
 * Two halves: the frame source (reader_src.c: file, zstd, damage and resync) and, here, the
 * records. On a file of several frames the source runs on a helper thread that decompresses up
 * to AHEAD_FRAMES frames ahead while this thread decodes records: on the 2-core machines the
 * analyses run on, zstd's time then mostly hides behind the analysis instead of adding to it.
 * WALLTIME_READER_THREAD=0 turns it off (=1 forces it, even for small files); the events
 * and errors are the same either way.
 *
 * Memory is bounded whatever the file says: the source's fixed input window, AHEAD_FRAMES + 2
 * frame buffers of at most WT__FRAME_MAX each, the string table (at most MAX_STRINGS strings
 * and MAX_STRING_BYTES bytes) and the set of thread ids (at most MAX_THREADS tracked).
 *
 * Damage handling: a frame that cannot be decoded is reported once, with its byte offset, and
 * skipped; the source then scans for the next zstd frame magic and goes on. A record that does
 * not parse ends its frame (records before it were delivered). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "reader_src.h"
#include "walltime/reader.h"

#define MAX_STRINGS (4u << 20)
#define MAX_STRING_BYTES (128u << 20)
#define MAX_THREADS 65536u
#define ARENA_BLOCK (64u << 10)
/* Absolute times must stay below this (about 146 years in ns) so sums never overflow. */
#define TIME_MAX (INT64_MAX / 2)
/* Read-ahead: frames decoded ahead, and the smallest file worth a thread. */
#define AHEAD_FRAMES 2
#define AHEAD_BUFS (AHEAD_FRAMES + 2) /* queued, one being decoded, one being read */
#define AHEAD_MIN_FILE (2u << 20)

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    char data[];
} arena_block;

/* One result of the source, as it crosses from the helper thread: a frame or an error, with
 * the source's counters as they stood after it. */
typedef struct ahead_item {
    int rc; /* as wt__src_next() */
    wt__fbuf fb;
    char err[WT__ERR_CAP];
    int64_t err_off;
    uint64_t frames, frames_damaged, bytes_skipped, errors;
} ahead_item;

typedef struct ahead {
    pthread_t thr;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ahead_item q[AHEAD_FRAMES]; /* produced, in file order */
    unsigned head, len;
    wt__fbuf free_bufs[AHEAD_BUFS];
    unsigned n_free;
    int stop;
} ahead;

struct wt_reader {
    char *path;
    wt__src src; /* owned by the helper thread while `ahead` runs */
    ahead *ahead;
    wt_trace_info info;
    char *info_strings[6]; /* owned copies behind info's strings */

    wt__fbuf cur; /* the frame whose records are being decoded */
    size_t frame_pos;
    int in_frame;
    /* the source's counters as of the last frame taken (copied from the items when threaded) */
    uint64_t src_frames, src_damaged, src_skipped, src_errors;
    uint64_t rec_damaged; /* frames abandoned by a bad record (counted intact by the source) */

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

    wt_reader_stats stats; /* the record-level counts; frame-level ones come from src_* */
    char err[WT__ERR_CAP];
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
    wt__src *src = &r->src;
    size_t n = wt__src_avail(src, 8);
    const uint8_t *in = wt__src_pos(src);
    if (n == 0)
        return fail(r, WT_ENOTTRACE, 0, "empty file, not a walltime trace");
    if (n < 8 || wt__get_le32(in) != WT__SKIPPABLE_MAGIC) {
        if (n >= 4 && wt__get_le32(in) == WT__SKIPPABLE_MAGIC)
            return fail(r, WT_ETRUNC, 0, "truncated in the header frame");
        return fail(r, WT_ENOTTRACE, 0, "not a walltime trace (no header frame)");
    }
    uint32_t size = wt__get_le32(in + 4);
    if (size > WT__HEADER_MAX)
        return fail(r, WT_ECORRUPT, 4, "header of %u bytes exceeds the limit of %u", size,
                    WT__HEADER_MAX);
    /* the window holds WT__SRC_IN_CAP bytes, more than WT__HEADER_MAX + 8 */
    if (wt__src_avail(src, 8 + (size_t)size) < 8 + (size_t)size)
        return fail(r, WT_ETRUNC, 8, "truncated in the header frame (%u bytes declared)", size);
    in = wt__src_pos(src); /* the window may have moved */
    const uint8_t *p = in + 8, *end = p + size;
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
        uint64_t field_off = 8 + (uint64_t)(p - (in + 8));
        if (wt__get_varint(&p, end, &id) || wt__get_varint(&p, end, &len) ||
            len > (uint64_t)(end - p))
            return fail(r, WT_ECORRUPT, field_off, "header field does not parse");
        const uint8_t *val = p, *vend = p + len;
        p = vend;
        int is_int = id == WT__H_PID || id == WT__H_PROCESS_START || id == WT__H_OPEN ||
                     id == WT__H_ANCHOR_MONO || id == WT__H_ANCHOR_REAL || id == WT__H_TSC_HZ ||
                     id == WT__H_PARENT_PID || id == WT__H_ANCHOR_ERR;
        if (is_int) {
            const uint8_t *q = val;
            if (wt__get_varint(&q, vend, &v) || q != vend)
                return fail(r, WT_ECORRUPT, field_off, "header field %llu is not a varint",
                            (unsigned long long)id);
            if (id != WT__H_PID && id != WT__H_TSC_HZ && id != WT__H_PARENT_PID &&
                v > (uint64_t)TIME_MAX)
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
        case WT__H_PARENT_PID: r->info.parent_pid = v; break;
        case WT__H_ANCHOR_ERR: r->info.anchor_err_ns = (int64_t)v; break;
        case WT__H_BOOT_ID: si = 4; break;
        case WT__H_RUN_ID:
            if (len != WT__RUN_ID_LEN)
                return fail(r, WT_ECORRUPT, field_off, "header run id is %llu bytes, not %u",
                            (unsigned long long)len, WT__RUN_ID_LEN);
            for (size_t i = 0; i < WT__RUN_ID_LEN; i++)
                snprintf(r->info.run_id + 2 * i, 3, "%02x", val[i]);
            break;
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
    r->info.boot_id = r->info_strings[4];
    wt__src_consume(src, 8 + (size_t)size);
    return 0;
}

/* ---- frames ------------------------------------------------------------------------- */

static void *ahead_main(void *arg)
{
    wt_reader *r = arg;
    ahead *h = r->ahead;
    for (;;) {
        pthread_mutex_lock(&h->mu);
        while (!h->stop && (h->len == AHEAD_FRAMES || h->n_free == 0))
            pthread_cond_wait(&h->cv, &h->mu);
        if (h->stop) {
            pthread_mutex_unlock(&h->mu);
            return NULL;
        }
        wt__fbuf fb = h->free_bufs[--h->n_free];
        pthread_mutex_unlock(&h->mu);

        const int rc = wt__src_next(&r->src, &fb);

        pthread_mutex_lock(&h->mu);
        ahead_item *it = &h->q[(h->head + h->len) % AHEAD_FRAMES];
        it->rc = rc;
        it->fb = fb;
        if (rc < 0) {
            memcpy(it->err, r->src.err, sizeof it->err);
            it->err_off = r->src.err_off;
        }
        it->frames = r->src.frames;
        it->frames_damaged = r->src.frames_damaged;
        it->bytes_skipped = r->src.bytes_skipped;
        it->errors = r->src.errors;
        h->len++;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
        if (rc == 0)
            return NULL; /* the end: nothing more to read */
    }
}

/* Starts the helper thread. On any failure the reader stays single-threaded. */
static void ahead_start(wt_reader *r)
{
    /* unset: a thread for regular files of AHEAD_MIN_FILE or more; "0": never; "1": always
     * (the tests run every damage case both ways with it) */
    const char *env = getenv("WALLTIME_READER_THREAD");
    const int force = env && env[0] == '1';
    if ((env && env[0] == '0') ||
        (!force && (r->src.file_bytes == UINT64_MAX || r->src.file_bytes < AHEAD_MIN_FILE)))
        return;
    ahead *h = calloc(1, sizeof *h);
    if (!h)
        return;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    h->n_free = AHEAD_BUFS;
    r->ahead = h;
    if (pthread_create(&h->thr, NULL, ahead_main, r) != 0) {
        pthread_mutex_destroy(&h->mu);
        pthread_cond_destroy(&h->cv);
        free(h);
        r->ahead = NULL;
    }
}

static void ahead_stop(wt_reader *r)
{
    ahead *h = r->ahead;
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->stop = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->thr, NULL);
    for (unsigned i = 0; i < h->len; i++)
        free(h->q[(h->head + i) % AHEAD_FRAMES].fb.p);
    for (unsigned i = 0; i < h->n_free; i++)
        free(h->free_bufs[i].p);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h);
    r->ahead = NULL;
}

/* Takes the next frame into r->cur. Returns 1, 0 at the end, or an error (message in r->err). */
static int next_frame(wt_reader *r)
{
    int rc;
    /* the cap counts every error, the records' as well as the source's */
    if (r->stats.errors + r->src_errors >= WT__SRC_MAX_ERRORS)
        return 0;
    if (!r->ahead) {
        rc = wt__src_next(&r->src, &r->cur);
        r->src_frames = r->src.frames;
        r->src_damaged = r->src.frames_damaged;
        r->src_skipped = r->src.bytes_skipped;
        r->src_errors = r->src.errors;
        if (rc < 0) {
            memcpy(r->err, r->src.err, sizeof r->err);
            r->err_off = r->src.err_off;
        }
        return rc;
    }
    ahead *h = r->ahead;
    pthread_mutex_lock(&h->mu);
    while (h->len == 0)
        pthread_cond_wait(&h->cv, &h->mu);
    ahead_item *it = &h->q[h->head];
    h->head = (h->head + 1) % AHEAD_FRAMES;
    h->len--;
    if (r->cur.p || r->cur.cap)
        h->free_bufs[h->n_free++] = r->cur; /* its records are all decoded */
    r->cur = it->fb;
    rc = it->rc;
    if (rc < 0) {
        memcpy(r->err, it->err, sizeof r->err);
        r->err_off = it->err_off;
    }
    r->src_frames = it->frames;
    r->src_damaged = it->frames_damaged;
    r->src_skipped = it->bytes_skipped;
    r->src_errors = it->errors;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return rc;
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
    r->rec_damaged++;
    return fail(r, WT_ECORRUPT, r->cur.off,
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
        return fail(r, WT_ELIMIT, r->cur.off, "more strings than the reader holds (%u, %u bytes)",
                    MAX_STRINGS, MAX_STRING_BYTES);
    }
    if (r->nstr == r->str_cap) {
        uint32_t cap = r->str_cap ? r->str_cap * 2 : 256;
        const char **s = realloc(r->str, cap * sizeof *s);
        if (!s)
            return fail(r, WT_ENOMEM, r->cur.off, "out of memory for strings");
        r->str = s;
        r->str_cap = cap;
    }
    const char *s = intern(r, c->p, (size_t)len);
    if (!s)
        return fail(r, WT_ENOMEM, r->cur.off, "out of memory for strings");
    r->str[r->nstr++] = s;
    r->stats.strings++;
    c->p += len;
    return 0;
}

/* A span's count from its zigzag field: below 1 it reads as 1, the promise of reader.h (old
 * recorders wrote a caller's negative count as it was). */
static inline int64_t span_count(uint64_t zz)
{
    const int64_t n = wt__unzigzag(zz);
    return n >= 1 ? n : 1;
}

/* ---- the span fast path -------------------------------------------------------------- */

/* A span record is at most 2 + 8 * 10 bytes; with this many left in the frame every byte the
 * fast path may read is inside it, so it reads without bounds checks. */
#define SPAN_FAST_MIN (2 + 8 * WT__VARINT_MAX)

/* A varint read without an end check (the caller guarantees 10 readable bytes). Sets *bad for
 * more than 64 bits. */
static inline uint64_t varint_unchecked(const uint8_t **pp, unsigned *bad)
{
    const uint8_t *p = *pp;
    uint64_t v = *p++;
    if (v >= 0x80) {
        v &= 0x7f;
        for (unsigned shift = 7;; shift += 7) {
            const uint64_t b = *p++;
            if (shift == 63 && b > 1) {
                *bad = 1;
                break;
            }
            v |= (b & 0x7f) << shift;
            if (b < 0x80)
                break;
        }
    }
    *pp = p;
    return v;
}

/* Decodes the span record at the frame position when it is whole and valid: returns 1 with
 * *ev filled and the position moved on; returns 0 and changes nothing when the general
 * decoder must look at it (a record near the frame's end, or anything invalid, which the
 * general decoder then reports). Most records of a trace are spans: this is the reader's hot
 * loop, about half the instructions of the general path. */
static inline int span_fast(wt_reader *r, wt_event *ev)
{
    const uint8_t *p = r->cur.p + r->frame_pos;
    const unsigned flags = p[1];
    if (p[0] != WT__R_SPAN || !r->in_thread || (flags & ~WT__SF_KNOWN) ||
        (flags & WT__SF_CACHED_MASK) == 3)
        return 0;
    p += 2;
    unsigned bad = 0;
    const uint64_t d_end = varint_unchecked(&p, &bad), dur = varint_unchecked(&p, &bad);
    const uint64_t depth = varint_unchecked(&p, &bad), cat = varint_unchecked(&p, &bad);
    const uint64_t lab = varint_unchecked(&p, &bad);
    uint64_t count = 2, bytes = 0, det = 0; /* count zigzag(1) */
    if (flags & WT__SF_COUNT)
        count = varint_unchecked(&p, &bad);
    if (flags & WT__SF_BYTES)
        bytes = varint_unchecked(&p, &bad);
    if (flags & WT__SF_DETAIL)
        det = varint_unchecked(&p, &bad);
    int64_t end;
    if (bad || depth > UINT32_MAX || cat > r->nstr || lab > r->nstr || det > r->nstr ||
        add_time(r->prev, d_end, &end) || dur > (uint64_t)end)
        return 0;
    ev->kind = WT_EV_SPAN;
    ev->flags = (flags & WT__SF_UNCLOSED ? WT_EVF_UNCLOSED : 0) |
                (flags & WT__SF_MEASURED ? WT_EVF_MEASURED : 0);
    ev->pid = r->info.pid;
    ev->tid = r->tid;
    ev->ts = end - (int64_t)dur;
    ev->dur = (int64_t)dur;
    ev->depth = (uint32_t)depth;
    ev->cached = (wt_cached)(flags & WT__SF_CACHED_MASK);
    ev->count = span_count(count);
    ev->bytes = wt__unzigzag(bytes);
    ev->value = 0;
    ev->end = WT_END_NONE;
    ev->category = cat ? r->str[cat - 1] : NULL;
    ev->label = lab ? r->str[lab - 1] : NULL;
    ev->name = NULL;
    ev->detail = det ? r->str[det - 1] : NULL;
    r->prev = end;
    r->frame_pos = (size_t)(p - r->cur.p);
    return 1;
}

/* Decodes one record. Returns 1 with an event in *ev, 0 for a record without an event (string,
 * thread), or an error (the frame is then abandoned). */
static int decode_record(wt_reader *r, wt_event *ev)
{
    cursor c = { r->cur.p + r->frame_pos, r->cur.p + r->cur.len };
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
        r->frame_pos = (size_t)(c.p - r->cur.p);
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
        r->frame_pos = (size_t)(c.p - r->cur.p);
        return 1;
    }
    if (type == WT__R_THREAD) {
        if (get_u(&c, &a) || get_u(&c, &b) || b > (uint64_t)TIME_MAX)
            return bad_record(r, "thread record does not parse", rec_at);
        r->tid = a;
        r->prev = (int64_t)b;
        r->in_thread = 1;
        note_tid(r, a);
        r->frame_pos = (size_t)(c.p - r->cur.p);
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
            ev->count = span_count(d);
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
    r->frame_pos = (size_t)(c.p - r->cur.p);
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
    r->info.anchor_err_ns = -1; /* unknown until a 1.1 header says */
    r->path = strdup(path ? path : "");
    if (!r->path)
        return fail(r, WT_ENOMEM, 0, "out of memory");
    int rc = wt__src_open(&r->src, r->path);
    if (rc == 0)
        rc = parse_header(r);
    else if (rc == WT_EOPEN) {
        memcpy(r->err, r->src.err, sizeof r->err);
        r->src_errors = r->src.errors;
    } else {
        rc = fail(r, rc, 0, "out of memory");
    }
    if (rc < 0) {
        r->done = 1;
        return rc;
    }
    ahead_start(r);
    return 0;
}

int wt_reader_next(wt_reader *r, wt_event *ev)
{
    if (!r || r->done)
        return 0;
    for (;;) {
        if (!r->in_frame || r->frame_pos >= r->cur.len) {
            r->in_frame = 0;
            int rc = next_frame(r);
            if (rc == 0) {
                r->done = 1;
                return 0;
            }
            if (rc < 0)
                return rc;
            r->in_frame = 1;
            r->frame_pos = 0;
            r->in_thread = 0;
        }
        if (r->cur.len - r->frame_pos >= SPAN_FAST_MIN && span_fast(r, ev)) {
            r->stats.events++;
            return 1;
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

void wt_reader_get_stats(const wt_reader *r, wt_reader_stats *out)
{
    *out = r->stats;
    out->file_bytes = r->src.file_bytes == UINT64_MAX ? 0 : r->src.file_bytes;
    out->frames = r->src_frames - r->rec_damaged;
    out->frames_damaged = r->src_damaged + r->rec_damaged;
    out->bytes_skipped = r->src_skipped;
    out->errors = r->stats.errors + r->src_errors;
}

void wt_reader_free(wt_reader *r)
{
    if (!r)
        return;
    ahead_stop(r); /* before the source: the helper thread uses it */
    wt__src_release(&r->src);
    for (size_t i = 0; i < sizeof r->info_strings / sizeof r->info_strings[0]; i++)
        free(r->info_strings[i]);
    while (r->arena) {
        arena_block *next = r->arena->next;
        free(r->arena);
        r->arena = next;
    }
    free(r->str);
    free(r->tids);
    free(r->cur.p);
    free(r->path);
    free(r);
}
