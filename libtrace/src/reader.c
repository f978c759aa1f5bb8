/* The trace reader: the only code that knows the byte layout of a .wtrace file besides the
 * encoder (docs/FORMAT.md). Workload: one pass over files of up to gigabytes, millions of
 * records per second, input that may be cut, corrupted or hostile.
 *
 * Two halves: the frame source (reader_src.c: file, zstd, damage and resync) and, here, the
 * records. With WALLTIME_READER_THREAD=1 the source runs on a helper thread that decompresses
 * up to AHEAD_FRAMES frames ahead while this thread decodes records: zstd's time then hides
 * behind the analysis, for about 30 % less wall time on a big file and 8-15 % more CPU (the
 * frames cross from one core's cache to the other's; 2-core EPYC, docs/PERFORMANCE.md). The
 * default is one thread: the figures the analyzer is held to are CPU time, and several
 * analyses often run side by side. The events and errors are the same either way.
 *
 * Memory is bounded whatever the file says: the source's fixed input window, the frame being
 * decoded and, with the helper, the queue (at most AHEAD_FRAMES frames and about AHEAD_BYTES
 * bytes), one frame being read and spare buffers of at most AHEAD_SPARE_CAP each (frames are
 * at most WT__FRAME_MAX), the string table (at most MAX_STRINGS strings
 * and MAX_STRING_BYTES bytes) and the set of thread ids (at most MAX_THREADS tracked).
 *
 * Damage handling: a frame that cannot be decoded is reported once, with its byte offset, and
 * skipped; the source then scans for the next zstd frame magic and goes on. One bad record costs
 * at most that record: every field of a record is read before any is judged, so a record whose
 * values are invalid (a time out of range, a depth past 32 bits, no THREAD before it) is
 * dropped alone and decoding goes on after it. Only a record whose extent cannot be known (an
 * unknown type or span flag, a varint cut by the frame's end) ends its frame. A string id that
 * was never defined (its STRING record lost with a damaged frame) reads as "(unknown string N)"
 * and does not poison later frames. Within a frame the first bad record is reported, the others
 * are counted (wt_reader_stats.records_skipped). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"
#include "format.h"
#include "reader_src.h"
#include "walltime/reader.h"

#define MAX_STRINGS WT_READER_MAX_STRINGS
/* 128 MiB of string bytes and 32 MiB of slots: what the recorder may write (format.h), all
 * read back; the analyses keep far less (docs/RELIABILITY.md: the 256 MiB peak) */
#define MAX_STRING_BYTES WT_READER_MAX_STRING_BYTES
_Static_assert(WT_READER_MAX_STRINGS == WT__STRINGS_MAX &&
                   WT_READER_MAX_STRING_BYTES == WT__STRING_BYTES_MAX,
               "the reader holds every string the recorder may write");
/* what a string past those limits reads as: its definition is counted, not kept */
#define PAST_LIMIT_STRING "(string past the reader's limit)"
/* a string id not defined (yet): compared by address */
static const char undefined_mark[] = "(undefined)";
#define UNDEFINED undefined_mark
_Static_assert((MAX_STRINGS & (MAX_STRINGS - 1)) == 0, "the string table's size is a power of two");
#define MAX_THREADS 65536u
#define ARENA_BLOCK (64u << 10)
/* Past this many bytes of strings the arena takes blocks of WT__BIG_UNIT (bigmem.h). */
#define ARENA_BIG_AFTER ((size_t)4 << 20)
/* Absolute times must stay below this (about 146 years in ns) so sums never overflow. */
#define TIME_MAX (INT64_MAX / 2)
/* Read-ahead: frames decoded ahead, at most; the reader wakes the helper once the queue is
 * down to AHEAD_LOW, so the helper refills it while the reader still has frames to decode (a
 * wake-up of a sleeping vCPU took long enough on the 2-core VM that waking it only once the
 * queue was empty, with 2 frames, left both threads taking turns: 1.0 CPUs used, 2,000
 * switches a 10 M-span trace, against 267 now). The queue also stops at AHEAD_BYTES, and a
 * buffer over AHEAD_SPARE_CAP is freed rather than kept spare, so big frames do not multiply
 * the memory. */
#define AHEAD_FRAMES 8
#define AHEAD_LOW (AHEAD_FRAMES / 2)
#define AHEAD_BUFS (AHEAD_FRAMES + 2) /* queued, one being decoded, one being read */
#define AHEAD_BYTES (4u << 20)
#define AHEAD_SPARE_CAP (1u << 20)

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    int big; /* from wt__big_alloc(WT__BIG_UNIT), else from malloc() */
    char data[];
} arena_block;

/* One result of the source, as it crosses from the helper thread: a frame or an error, with
 * the source's counters as they stood after it. */
typedef struct ahead_item {
    int rc; /* as wt__src_next() */
    wt__fbuf fb;
    char err[WT__ERR_CAP];
    int64_t err_off;
    uint64_t frames, frames_damaged, bytes_skipped, errors, frames_stored;
} ahead_item;

typedef struct ahead {
    pthread_t thr;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ahead_item q[AHEAD_FRAMES]; /* produced, in file order */
    unsigned head, len;
    size_t queued_bytes; /* of the frames in q */
    wt__fbuf free_bufs[AHEAD_BUFS];
    unsigned n_free;
    int stop;
    /* who sleeps on cv: each side wakes the other only when it sleeps, and the reader wakes
     * the helper only once the queue is down to AHEAD_LOW, so that the helper adds several
     * frames a wake instead of one (each wake a context switch on either side) */
    int helper_waits, reader_waits;
} ahead;

struct wt_reader {
    char *path;
    wt__src src; /* owned by the helper thread while `ahead` runs */
    ahead *ahead;
    wt_trace_info info;
    char *info_strings[6]; /* owned copies behind info's strings */

    wt__fbuf cur; /* the frame whose records are being decoded */
    size_t frame_pos;
    /* frame_pos < fast_end: the next call may decode with the fast paths at once (in a frame,
     * after its THREAD record, SPAN_FAST_MIN bytes left, nothing pending); 0 otherwise. Set by
     * every call that takes the general path, which all changes of those go through. */
    size_t fast_end;
    int in_frame;
    /* the source's counters as of the last frame taken (copied from the items when threaded) */
    uint64_t src_frames, src_damaged, src_skipped, src_errors, src_stored;
    uint64_t rec_damaged; /* frames abandoned by a bad record (counted intact by the source) */

    /* decoding state within a frame */
    uint64_t tid;
    int64_t prev;
    int in_thread;
    int frame_reported;    /* a bad record of this frame was reported */
    uint64_t pending_unknown; /* an unknown string id met, to report on the next call (0 none) */

    /* strings: id i (1..str_cap) is str[i] and id 0 (no string) is str[0], NULL; an id not
     * defined (yet) holds UNDEFINED, and reads as "(unknown string N)" once met. str_cap is 0
     * (str NULL) or a power of two up to MAX_STRINGS. */
    const char **str;
    uint32_t str_cap;
    int str_big; /* str is from wt__big_alloc() (its size (str_cap + 1) pointers), else malloc() */
    /* ids below def_lim (<= str_cap) are all defined: most spans' three ids are judged by this
     * one bound, not by three loads of their slots (def_advance() keeps it) */
    uint32_t def_lim;
    unsigned span_lean; /* wt_reader_span_fields() asked for WT_SPANF_LEAN's fields at most */
    uint64_t ids_defined; /* the highest id defined, past the limit too */
    uint64_t string_epoch; /* wt_reader_string_epoch() */
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

/* A new arena block for a string of n bytes and its NUL: a big one once the arena holds
 * ARENA_BIG_AFTER bytes (a small one if that fails), NULL when there is no memory. */
static arena_block *arena_block_new(const wt_reader *r, size_t n)
{
    if (r->arena_bytes >= ARENA_BIG_AFTER && n + 1 <= WT__BIG_UNIT - sizeof(arena_block)) {
        arena_block *b = wt__big_alloc(WT__BIG_UNIT);
        if (b) {
            b->cap = WT__BIG_UNIT - sizeof *b;
            b->big = 1;
            return b;
        }
    }
    const size_t cap = n + 1 > ARENA_BLOCK ? n + 1 : ARENA_BLOCK;
    arena_block *b = malloc(sizeof *b + cap);
    if (b) {
        b->cap = cap;
        b->big = 0;
    }
    return b;
}

static void arena_block_free(arena_block *b)
{
    if (b && b->big)
        wt__big_free(b, WT__BIG_UNIT);
    else
        free(b);
}

static void str_table_free(wt_reader *r)
{
    if (r->str_big)
        wt__big_free(r->str, ((size_t)r->str_cap + 1) * sizeof *r->str);
    else
        free(r->str);
    r->str = NULL;
    r->str_cap = 0;
    r->str_big = 0;
}

static const char *intern(wt_reader *r, const uint8_t *s, size_t n)
{
    if (!r->arena || r->arena->cap - r->arena->used < n + 1) {
        arena_block *b = arena_block_new(r, n);
        if (!b)
            return NULL;
        b->next = r->arena;
        b->used = 0;
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
        while (!h->stop && (h->len == AHEAD_FRAMES || h->n_free == 0 ||
                            h->queued_bytes >= AHEAD_BYTES)) {
            h->helper_waits = 1;
            pthread_cond_wait(&h->cv, &h->mu);
            h->helper_waits = 0;
        }
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
        it->frames_stored = r->src.frames_stored;
        it->frames_damaged = r->src.frames_damaged;
        it->bytes_skipped = r->src.bytes_skipped;
        it->errors = r->src.errors;
        h->len++;
        h->queued_bytes += rc > 0 ? fb.len : 0;
        if (h->reader_waits)
            pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
        if (rc == 0)
            return NULL; /* the end: nothing more to read */
    }
}

/* Starts the helper thread. On any failure the reader stays single-threaded. */
static void ahead_start(wt_reader *r)
{
    /* "1": a thread, whatever the file (the tests run every damage case both ways with it);
     * unset or anything else: none */
    const char *env = getenv("WALLTIME_READER_THREAD");
    if (!env || env[0] != '1')
        return;
    ahead *h = calloc(1, sizeof *h);
    if (!h)
        return;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    h->n_free = AHEAD_BUFS - 1; /* the reader's r->cur is the last, whatever it holds */
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
        r->src_stored = r->src.frames_stored;
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
    while (h->len == 0) {
        h->reader_waits = 1;
        pthread_cond_wait(&h->cv, &h->mu);
        h->reader_waits = 0;
    }
    ahead_item *it = &h->q[h->head];
    h->head = (h->head + 1) % AHEAD_FRAMES;
    h->len--;
    h->queued_bytes -= it->rc > 0 ? it->fb.len : 0;
    if (r->cur.cap > AHEAD_SPARE_CAP) { /* a big frame's: the source allocates anew */
        free(r->cur.p);
        r->cur = (wt__fbuf){ 0 };
    }
    h->free_bufs[h->n_free++] = r->cur; /* its records are all decoded */
    r->cur = it->fb;
    rc = it->rc;
    if (rc < 0) {
        memcpy(r->err, it->err, sizeof r->err);
        r->err_off = it->err_off;
    }
    r->src_frames = it->frames;
    r->src_stored = it->frames_stored;
    r->src_damaged = it->frames_damaged;
    r->src_skipped = it->bytes_skipped;
    r->src_errors = it->errors;
    if (h->helper_waits && h->len <= AHEAD_LOW)
        pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

/* ---- records ------------------------------------------------------------------------ */

typedef struct cursor {
    const uint8_t *p, *end;
} cursor;

static int get_u(cursor *c, uint64_t *v) { return wt__get_varint(&c->p, c->end, v); }

/* prev + delta as a checked absolute time. */
static int add_time(int64_t prev, uint64_t delta, int64_t *out)
{
    if (delta > (uint64_t)TIME_MAX || prev > TIME_MAX - (int64_t)delta)
        return -1;
    *out = prev + (int64_t)delta;
    return 0;
}

/* Ends the current frame after a record whose extent cannot be known. */
static int bad_record(wt_reader *r, const char *what, size_t rec_at)
{
    r->in_frame = 0;
    r->rec_damaged++;
    return fail(r, WT_ECORRUPT, r->cur.off,
                "in the frame starting here, record at +%zu: %s; rest of the frame skipped", rec_at,
                what);
}

/* Drops the record that ends at c->p alone (its values are invalid): decoding goes on after
 * it. The first of a frame is reported (returns the error); later ones, and any past the
 * error cap, are counted only (returns 0). */
static int skip_record(wt_reader *r, const cursor *c, const char *what, size_t rec_at)
{
    r->frame_pos = (size_t)(c->p - r->cur.p);
    r->stats.records_skipped++;
    if (r->frame_reported || r->stats.errors + r->src_errors >= WT__SRC_MAX_ERRORS)
        return 0;
    r->frame_reported = 1;
    return fail(r, WT_ECORRUPT, r->cur.off,
                "in the frame starting here, record at +%zu: %s; that record skipped", rec_at, what);
}

/* Room in the string table for ids 1..n (n <= MAX_STRINGS), new slots UNDEFINED. */
static int str_slots(wt_reader *r, uint32_t n)
{
    if (n > r->str_cap) {
        uint32_t cap = r->str_cap ? r->str_cap : 256;
        while (cap < n)
            cap *= 2; /* stops at MAX_STRINGS at most: a power of two, and n <= it */
        const size_t had = r->str ? ((size_t)r->str_cap + 1) * sizeof *r->str : 0,
                     want = ((size_t)cap + 1) * sizeof *r->str;
        const char **s;
        if (want < WT__BIG_UNIT) {
            s = realloc(r->str, want);
        } else if (r->str_big) {
            s = wt__big_resize(r->str, had, want); /* the pages move, not the bytes */
        } else {
            s = wt__big_alloc(want);
            if (s && had)
                memcpy(s, r->str, had);
            if (s) {
                free(r->str);
                r->str_big = 1;
            }
        }
        if (!s)
            return WT_ENOMEM;
        s[0] = NULL;
        for (size_t i = (size_t)r->str_cap + 1; i <= cap; i++)
            s[i] = UNDEFINED;
        r->str = s;
        r->str_cap = cap;
    }
    return 0;
}

/* Moves def_lim past the slots defined since (called after a slot was set): each slot is
 * passed once per file, so this costs a comparison per string record. */
static void def_advance(wt_reader *r)
{
    uint32_t i = r->def_lim;
    while (i < r->str_cap && r->str[i] != UNDEFINED)
        i++;
    r->def_lim = i;
}

/* The string of a non-zero id that has no definition: "(unknown string N)", made once per id
 * and kept in its slot (a definition that comes later replaces it), reported on the next call
 * at most once per frame. Past the table's limits: PAST_LIMIT_STRING. */
static const char *unknown_string(wt_reader *r, uint64_t id)
{
    if (!r->frame_reported && !r->pending_unknown)
        r->pending_unknown = id;
    char text[48];
    const int n = snprintf(text, sizeof text, "(unknown string %llu)", (unsigned long long)id);
    if (id > MAX_STRINGS || r->arena_bytes + (size_t)n + 1 > MAX_STRING_BYTES ||
        str_slots(r, (uint32_t)id) < 0)
        return PAST_LIMIT_STRING;
    const char *s = intern(r, (const uint8_t *)text, (size_t)n);
    if (!s)
        return PAST_LIMIT_STRING;
    r->str[id] = s;
    def_advance(r);
    return s;
}

/* The string of an id read from a record: NULL for 0. */
static inline const char *string_of(wt_reader *r, uint64_t id)
{
    if (!id)
        return NULL;
    if (id <= r->str_cap && r->str[id] != UNDEFINED)
        return r->str[id];
    if (id <= r->ids_defined && id > MAX_STRINGS)
        return PAST_LIMIT_STRING;
    return unknown_string(r, id);
}

/* Makes `text` the string of `id`, whose slot exists (str_slots()) and is undefined or an
 * "(unknown string N)": 0, or WT_ENOMEM with nothing changed. */
static int set_string(wt_reader *r, uint32_t id, const uint8_t *text, size_t len)
{
    const char *old = r->str[id];
    const char *s = intern(r, text, len);
    if (!s)
        return WT_ENOMEM;
    r->str[id] = s;
    def_advance(r);
    r->stats.strings += old == UNDEFINED;
    r->string_epoch += old != UNDEFINED; /* "(unknown string N)" replaced: ids' caches go */
    return 0;
}

/* A STRING record. Ids come in sequence; a gap (definitions lost with a damaged frame) leaves
 * its ids unknown, and a definition of an id already known is ignored. */
static int define_string(wt_reader *r, cursor *c, size_t rec_at)
{
    uint64_t id, len;
    if (get_u(c, &id) || get_u(c, &len) || len > (uint64_t)(c->end - c->p))
        return bad_record(r, "string record does not parse", rec_at);
    const uint8_t *text = c->p;
    c->p += len;
    if (id == 0 || id > UINT32_MAX)
        return skip_record(r, c, "string id out of range", rec_at);
    if (len > WT__STRING_MAX)
        return skip_record(r, c, "string longer than the format allows", rec_at);
    if (id > r->ids_defined)
        r->ids_defined = id;
    if (id > MAX_STRINGS || r->arena_bytes + len + 1 > MAX_STRING_BYTES) {
        /* counted, not kept (not damage: the trace is intact; the caller says it from the
         * stats) */
        r->stats.strings++;
        r->stats.strings_past_limit++;
        r->frame_pos = (size_t)(c->p - r->cur.p);
        /* within the slots' limit the slot says so (8 bytes, bounded like the slots) */
        if (id <= MAX_STRINGS && str_slots(r, (uint32_t)id) == 0 && r->str[id] == UNDEFINED)
            r->str[id] = PAST_LIMIT_STRING;
        def_advance(r);
        return 0;
    }
    if (str_slots(r, (uint32_t)id) < 0)
        return fail(r, WT_ENOMEM, r->cur.off, "out of memory for strings");
    const char *old = r->str[id];
    if (old != UNDEFINED && strncmp(old, "(unknown string ", 16) != 0) {
        r->frame_pos = (size_t)(c->p - r->cur.p);
        return 0; /* already known (a repeated frame): the first definition holds */
    }
    if (set_string(r, (uint32_t)id, text, (size_t)len) < 0)
        return fail(r, WT_ENOMEM, r->cur.off, "out of memory for strings");
    r->frame_pos = (size_t)(c->p - r->cur.p);
    return 0;
}

/* A STRING record at p, in a batch of spans (spans_loop()), when it is the common case: whole,
 * valid, within the limits, the first definition of its id. Returns the position after it;
 * NULL, with nothing changed but maybe room made in the string table (its new slots
 * undefined), for any other (or out of memory): wt_reader_next() then reads it, with its
 * checks and messages. A trace whose every span has a label of its own has a STRING record
 * before each span: outside the batches, each span cost a trip through the general path. */
static __attribute__((noinline)) const uint8_t *batch_define(wt_reader *r, const uint8_t *p,
                                                             const uint8_t *end)
{
    cursor c = { p + 1, end };
    uint64_t id, len;
    if (get_u(&c, &id) || get_u(&c, &len) || len > (uint64_t)(c.end - c.p) || id == 0 ||
        id > MAX_STRINGS || len > WT__STRING_MAX ||
        r->arena_bytes + len + 1 > MAX_STRING_BYTES || str_slots(r, (uint32_t)id) < 0 ||
        r->str[id] != UNDEFINED)
        return NULL;
    if (set_string(r, (uint32_t)id, c.p, (size_t)len) < 0)
        return NULL;
    if (id > r->ids_defined)
        r->ids_defined = id;
    return c.p + len;
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

/* What a varint that does not parse (more than 64 bits, or cut by the end) reads as in the fast
 * paths. Every field they accept rejects it by its own bound (a time, a depth, an id) except a
 * count, a byte count and a counter's value, which they compare with it: a record holding it
 * goes to the general decoder, which reports it or, for a valid one, reads it the same. The
 * fast paths then carry no "bad" flag beside their values. */
#define VARINT_BAD UINT64_MAX

/* A varint read without an end check (the caller guarantees 10 readable bytes). VARINT_BAD for
 * more than 64 bits, past the 10th byte. One byte (most ids, depths and deltas) and two (ids
 * past 127, deltas past 127 ns) without the loop. The loop's branches, predicted, let the
 * next field's load start before this one's value is known: a decode of three to eight bytes
 * from one 8-byte load without branches took fewer instructions but made each field's
 * position wait on the last one's bytes (nested: byte counts of 3-4 bytes, ~15 % more CPU). */
static inline __attribute__((always_inline)) uint64_t varint_unchecked(const uint8_t **pp)
{
    const uint8_t *p = *pp;
    if (__builtin_expect(p[0] < 0x80, 1)) {
        *pp = p + 1;
        return p[0];
    }
    if (__builtin_expect(p[1] < 0x80, 1)) {
        *pp = p + 2;
        return (p[0] & 0x7fu) | (uint64_t)p[1] << 7;
    }
    uint64_t v = (p[0] & 0x7fu) | (uint64_t)(p[1] & 0x7fu) << 7;
    p += 2;
    for (unsigned shift = 14;; shift += 7) {
        const uint64_t b = *p++;
        if (shift == 63 && b > 1) {
            v = VARINT_BAD;
            break;
        }
        v |= (b & 0x7f) << shift;
        if (b < 0x80)
            break;
    }
    *pp = p;
    return v;
}

/* A varint, read without an end check when `checked` is 0 (the caller guarantees 10 readable
 * bytes), else with the general decoder's. VARINT_BAD for one that does not parse. */
static inline __attribute__((always_inline)) uint64_t varint_in(const uint8_t **pp,
                                                                const uint8_t *end, int checked)
{
    if (!checked)
        return varint_unchecked(pp);
    uint64_t v;
    return wt__get_varint(pp, end, &v) ? VARINT_BAD : v;
}

/* WT_EVF_* of a span record's flags. */
static inline uint32_t span_ev_flags(unsigned flags)
{
    return (flags & WT__SF_UNCLOSED ? WT_EVF_UNCLOSED : 0) |
           (flags & WT__SF_MEASURED ? WT_EVF_MEASURED : 0);
}

/* Reads the span record at *pp when it is whole and valid into *o (only WT_SPANF_LEAN's fields
 * when `lean`), moves *pp past it and *prev to its end time: returns 1. Returns 0 when the
 * general decoder must look at it (anything invalid or unusual, which that decoder then
 * reports or reads its own way); *o may then hold some of its fields, *pp and *prev are as
 * they were. `checked` 0: SPAN_FAST_MIN bytes are readable, so no varint needs an end check;
 * 1: the record may reach `end`. `def_lim` is r's, passed by the callers from a local. Called
 * in a frame, after its THREAD record. Most records of a trace are spans: this is the reader's
 * hot loop. Each field is judged and stored as it is read, so that only the position, the end
 * time and the flags stay in registers across the record. */
static inline __attribute__((always_inline)) int span_read(const wt_reader *r, uint32_t def_lim,
                                                           int64_t *prev, const uint8_t **pp,
                                                           const uint8_t *end, int checked,
                                                           const int lean, wt_span_rec *o)
{
    const uint8_t *p = *pp;
    if (checked && end - p < 2)
        return 0;
    const unsigned flags = p[1];
    if (p[0] != WT__R_SPAN || (flags & ~WT__SF_KNOWN) || (flags & WT__SF_CACHED_MASK) == 3)
        return 0;
    p += 2;
    /* *prev is a time in [0, TIME_MAX] (only checked times are kept), so one comparison says
     * whether *prev + d_end stays within TIME_MAX; a VARINT_BAD fails it, as it fails the
     * duration's, the depth's and the ids' bounds */
    const uint64_t d_end = varint_in(&p, end, checked);
    if (d_end > (uint64_t)(TIME_MAX - *prev))
        return 0;
    const int64_t e = *prev + (int64_t)d_end;
    const uint64_t dur = varint_in(&p, end, checked);
    if (dur > (uint64_t)e)
        return 0;
    o->dur = (int64_t)dur;
    if (!lean)
        o->ts = e - (int64_t)dur;
    const uint64_t depth = varint_in(&p, end, checked);
    if (depth > UINT32_MAX)
        return 0;
    o->depth = (uint32_t)depth;
    /* ids (the largest of the three) below def_lim are defined; any other is judged slot by
     * slot, up to the table's last id (a trace whose definitions have a gap; a recorder past
     * its 4 Mi strings names every later string by its 4 Mi-th, the table's last, "more
     * distinct strings than a trace holds"), and one without a definition goes to the general
     * path, which names it */
    const uint64_t cat = varint_in(&p, end, checked);
    uint64_t ids = cat;
    o->category = (uint32_t)cat; /* kept only below str_cap, at most MAX_STRINGS */
    const uint64_t lab = varint_in(&p, end, checked);
    ids = ids > lab ? ids : lab;
    if (!lean)
        o->label = (uint32_t)lab;
    uint64_t det = 0;
    if (flags & (WT__SF_COUNT | WT__SF_BYTES | WT__SF_DETAIL)) {
        int64_t count = 1, bytes = 0;
        if (flags & WT__SF_COUNT) {
            const uint64_t zz = varint_in(&p, end, checked);
            if (zz == VARINT_BAD)
                return 0; /* or a valid count the general path reads the same */
            count = span_count(zz);
        }
        if (flags & WT__SF_BYTES) {
            const uint64_t zz = varint_in(&p, end, checked);
            if (zz == VARINT_BAD)
                return 0;
            bytes = wt__unzigzag(zz);
        }
        if (flags & WT__SF_DETAIL) {
            det = varint_in(&p, end, checked);
            ids = ids > det ? ids : det;
        }
        if (!lean) {
            o->count = count;
            o->bytes = bytes;
        }
    } else if (!lean) {
        o->count = 1;
        o->bytes = 0;
    }
    /* no table yet (str_cap 0, str NULL): every id, 0 too, goes to the general path; a span
     * of ids 0 before any string once read str[0] through NULL here (a fuzzer's find) */
    if (__builtin_expect(ids >= def_lim, 0) &&
        (r->str_cap == 0 || ids > r->str_cap || r->str[cat] == UNDEFINED ||
         r->str[lab] == UNDEFINED || r->str[det] == UNDEFINED))
        return 0;
    if (!lean) {
        o->detail = (uint32_t)det;
        o->flags = (uint16_t)span_ev_flags(flags);
        o->cached = (uint8_t)(flags & WT__SF_CACHED_MASK);
    }
    *prev = e;
    *pp = p;
    return 1;
}

/* Decodes the span record at the frame position when it is whole and valid: returns 1 with
 * *ev filled and the position moved on; returns 0 and changes nothing when the general
 * decoder must look at it. Called with SPAN_FAST_MIN bytes left (fast_end's conditions). */
static inline __attribute__((always_inline)) int span_fast(wt_reader *r, wt_event *ev)
{
    const uint8_t *p = r->cur.p + r->frame_pos;
    if (p[0] != WT__R_SPAN)
        return 0; /* first: span_read()'s arguments are then loaded for spans only */
    wt_span_rec v;
    int64_t prev = r->prev;
    if (!span_read(r, r->def_lim, &prev, &p, NULL, 0, 0, &v))
        return 0;
    ev->kind = WT_EV_SPAN;
    ev->flags = v.flags;
    ev->pid = r->info.pid;
    ev->tid = r->tid;
    ev->ts = v.ts;
    ev->dur = v.dur;
    ev->depth = v.depth;
    ev->cached = (wt_cached)v.cached;
    ev->count = v.count;
    ev->bytes = v.bytes;
    ev->value = 0;
    ev->end = WT_END_NONE;
    ev->category = r->str[v.category];
    ev->label = r->str[v.label];
    ev->name = NULL;
    ev->detail = r->str[v.detail];
    r->prev = prev;
    r->frame_pos = (size_t)(p - r->cur.p);
    return 1;
}

/* The counter sample record after its type byte at *pp, its varints read as varint_in() with
 * `checked`: 1 when it is whole and valid (the time in range, the name defined, the value
 * parsed), with *t, *name and *value set and *pp moved past it; 0, with *pp as it was, for
 * anything the general path must judge. wt_reader_next()'s counter_fast() and the record
 * batches' counter_read() both take it, so both judge a sample alike. */
static inline __attribute__((always_inline)) int counter_decode(const wt_reader *r, int64_t prev,
                                                                const uint8_t **pp,
                                                                const uint8_t *end, int checked,
                                                                int64_t *t, uint32_t *name,
                                                                int64_t *value)
{
    const uint8_t *p = *pp;
    const uint64_t delta = varint_in(&p, end, checked), id = varint_in(&p, end, checked);
    const uint64_t zz = varint_in(&p, end, checked);
    /* a VARINT_BAD delta or name fails its own bound; an id without a definition goes to the
     * general path, which names it */
    if (zz == VARINT_BAD || id >= r->str_cap || add_time(prev, delta, t) ||
        r->str[id] == UNDEFINED)
        return 0;
    *name = (uint32_t)id;
    *value = wt__unzigzag(zz);
    *pp = p;
    return 1;
}

/* The same for a counter sample (a time delta, a name id, a zigzag value): the records that
 * follow every span of a program sampling counters, where decode_record() cost the reader
 * twice the span path. Returns 0 and changes nothing for anything the general decoder must
 * see (it needs SPAN_FAST_MIN bytes left in the frame, more than a counter record's 31). */
static inline __attribute__((always_inline)) int counter_fast(wt_reader *r, wt_event *ev)
{
    const uint8_t *p = r->cur.p + r->frame_pos;
    if (p[0] != WT__R_COUNTER)
        return 0;
    p++;
    int64_t t, value;
    uint32_t name;
    if (!counter_decode(r, r->prev, &p, NULL, 0, &t, &name, &value))
        return 0;
    const char *const ns = r->str[name];
    ev->kind = WT_EV_COUNTER;
    ev->flags = 0;
    ev->pid = r->info.pid;
    ev->tid = r->tid;
    ev->ts = t;
    ev->dur = 0;
    ev->depth = 0;
    ev->cached = WT_CACHED_UNKNOWN;
    ev->count = ev->bytes = 0;
    ev->value = value;
    ev->end = WT_END_NONE;
    ev->category = ev->label = ev->detail = NULL;
    ev->name = ns;
    r->prev = t;
    r->frame_pos = (size_t)(p - r->cur.p);
    return 1;
}

/* Decodes one record. Returns 1 with an event in *ev, 0 for a record without an event (string,
 * thread, a record dropped alone), or an error: for a record dropped alone (decoding goes on
 * after it) or one whose extent is unknown (the rest of the frame is abandoned). Every field is
 * read before any is judged, so that a record with invalid values can be skipped whole. */
static int decode_record(wt_reader *r, wt_event *ev)
{
    cursor c = { r->cur.p + r->frame_pos, r->cur.p + r->cur.len };
    size_t rec_at = r->frame_pos;
    uint8_t type = *c.p++;
    uint64_t a, b, d, f[4] = { 0, 0, 0, 0 };
    int64_t t;
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

    if (type == WT__R_STRING)
        return define_string(r, &c, rec_at);
    if (type == WT__R_SYNC || type == WT__R_END) {
        if (get_u(&c, &a) || (type == WT__R_END && (get_u(&c, &b) || get_u(&c, &d))))
            return bad_record(r, "sync/end record does not parse", rec_at);
        if (a > (uint64_t)TIME_MAX)
            return skip_record(r, &c, "sync/end time out of range", rec_at);
        ev->ts = (int64_t)a;
        ev->tid = 0;
        if (type == WT__R_SYNC) {
            ev->kind = WT_EV_SYNC;
        } else {
            if ((b != WT__END_CLEAN && b != WT__END_SIGNAL) || d > 128)
                return skip_record(r, &c, "end record not valid", rec_at);
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
        if (get_u(&c, &a) || get_u(&c, &b))
            return bad_record(r, "thread record does not parse", rec_at);
        if (b > (uint64_t)TIME_MAX) {
            r->in_thread = 0; /* the chunk's records have no base time: dropped with it */
            return skip_record(r, &c, "thread base time out of range", rec_at);
        }
        r->tid = a;
        r->prev = (int64_t)b;
        r->in_thread = 1;
        note_tid(r, a);
        r->frame_pos = (size_t)(c.p - r->cur.p);
        return 0;
    }
    if (type < WT__R_SPAN || type > WT__R_DROPPED)
        return bad_record(r, "unknown record type", rec_at);

    if (type == WT__R_SPAN) {
        if (c.p >= c.end)
            return bad_record(r, "span record cut short", rec_at);
        unsigned flags = *c.p++;
        uint64_t depth, count = 2 /* zigzag(1) */, bytes = 0;
        if (flags & ~WT__SF_KNOWN)
            return bad_record(r, "span flags not valid", rec_at);
        if (get_u(&c, &a) || get_u(&c, &b) || get_u(&c, &depth) || get_u(&c, &f[0]) ||
            get_u(&c, &f[1]) || ((flags & WT__SF_COUNT) && get_u(&c, &count)) ||
            ((flags & WT__SF_BYTES) && get_u(&c, &bytes)) ||
            ((flags & WT__SF_DETAIL) && get_u(&c, &f[2])))
            return bad_record(r, "span record does not parse", rec_at);
        if (!r->in_thread)
            return skip_record(r, &c, "thread record missing before an event", rec_at);
        if (add_time(r->prev, a, &t) || depth > UINT32_MAX)
            return skip_record(r, &c, "span time or depth out of range", rec_at);
        ev->kind = WT_EV_SPAN;
        /* a duration past the end (recorders before 1.1 wrote wt_record() spans longer than
         * the time since boot so) reads as starting at 0 */
        ev->dur = b > (uint64_t)t ? t : (int64_t)b;
        ev->ts = t - ev->dur;
        ev->depth = (uint32_t)depth;
        /* cached 3 (written for an out-of-range wt_cached before 1.1) reads as unknown */
        ev->cached = (flags & WT__SF_CACHED_MASK) == 3 ? WT_CACHED_UNKNOWN
                                                       : (wt_cached)(flags & WT__SF_CACHED_MASK);
        ev->flags = (flags & WT__SF_UNCLOSED ? WT_EVF_UNCLOSED : 0) |
                    (flags & WT__SF_MEASURED ? WT_EVF_MEASURED : 0);
        ev->count = span_count(count);
        ev->bytes = wt__unzigzag(bytes);
        ev->category = string_of(r, f[0]);
        ev->label = string_of(r, f[1]);
        ev->detail = string_of(r, f[2]);
    } else {
        /* every other event: a time delta, then fields by type (ids in f[]) */
        int nf;
        switch (type) {
        case WT__R_COUNTER: nf = 2; break;  /* name, value */
        case WT__R_MARK: nf = 3; break;     /* category, label, detail */
        case WT__R_META: nf = 2; break;     /* key, value */
        case WT__R_ROUND: nf = 3; break;    /* dur, config, round */
        default: nf = 1; break;             /* THREAD_NAME name, DROPPED count */
        }
        if (get_u(&c, &a))
            return bad_record(r, "event record does not parse", rec_at);
        for (int i = 0; i < nf; i++)
            if (get_u(&c, &f[i]))
                return bad_record(r, "event record does not parse", rec_at);
        if (!r->in_thread)
            return skip_record(r, &c, "thread record missing before an event", rec_at);
        if (add_time(r->prev, a, &t))
            return skip_record(r, &c, "event time out of range", rec_at);
        ev->ts = t;
        switch (type) {
        case WT__R_COUNTER:
            ev->kind = WT_EV_COUNTER;
            ev->name = string_of(r, f[0]);
            ev->value = wt__unzigzag(f[1]);
            break;
        case WT__R_MARK:
            ev->kind = WT_EV_MARK;
            ev->category = string_of(r, f[0]);
            ev->label = string_of(r, f[1]);
            ev->detail = string_of(r, f[2]);
            break;
        case WT__R_META:
            ev->kind = WT_EV_META;
            ev->name = string_of(r, f[0]);
            ev->detail = string_of(r, f[1]);
            break;
        case WT__R_THREAD_NAME:
            ev->kind = WT_EV_THREAD_NAME;
            ev->name = string_of(r, f[0]);
            break;
        case WT__R_ROUND:
            if (f[0] > (uint64_t)t)
                return skip_record(r, &c, "round longer than its end time", rec_at);
            ev->kind = WT_EV_ROUND;
            ev->ts = t - (int64_t)f[0];
            ev->dur = (int64_t)f[0];
            ev->name = string_of(r, f[1]);
            ev->count = wt__unzigzag(f[2]);
            break;
        default: /* WT__R_DROPPED */
            if (f[0] > (uint64_t)INT64_MAX)
                return skip_record(r, &c, "dropped count out of range", rec_at);
            ev->kind = WT_EV_DROPPED;
            ev->count = (int64_t)f[0];
            break;
        }
    }
    r->prev = t;
    r->frame_pos = (size_t)(c.p - r->cur.p);
    return 1;
}

/* ---- public API --------------------------------------------------------------------- */

/* Opens `path` into r, fresh (calloc'd) or reset by reset_for_next(): the source, the header,
 * then the read-ahead thread. */
static int open_path(wt_reader *r, const char *path, int reuse)
{
    r->err_off = -1;
    r->info.anchor_err_ns = -1; /* unknown until a 1.1 header says */
    free(r->path);
    r->path = strdup(path ? path : "");
    int rc;
    if (!r->path) {
        rc = fail(r, WT_ENOMEM, 0, "out of memory");
    } else {
        rc = reuse ? wt__src_reopen(&r->src, r->path) : wt__src_open(&r->src, r->path);
        if (rc == 0)
            rc = parse_header(r);
        else if (rc == WT_EOPEN || r->src.err[0]) {
            memcpy(r->err, r->src.err, sizeof r->err);
            r->src_errors = r->src.errors;
        } else {
            rc = fail(r, rc, 0, "out of memory");
        }
    }
    if (rc < 0) {
        r->done = 1;
        return rc;
    }
    ahead_start(r);
    return 0;
}

int wt_reader_open(const char *path, wt_reader **out)
{
    *out = NULL;
    wt_reader *r = calloc(1, sizeof *r);
    if (!r)
        return WT_ENOMEM;
    *out = r;
    return open_path(r, path, 0);
}

/* What a reader keeps from one file to the next: up to these many string slots and thread-id
 * slots (512 KiB and 32 KiB); a file with more gives them back. */
#define KEEP_STR_SLOTS 65536u
#define KEEP_TID_SLOTS 4096u

/* Forgets the file read so far: the state as calloc() left it, except the source's window and
 * zstd context, the frame buffer, one arena block and the string and thread tables' arrays
 * (emptied), which the next file reuses. */
static void reset_for_next(wt_reader *r)
{
    ahead_stop(r); /* the helper thread's buffers go with it */
    for (size_t i = 0; i < sizeof r->info_strings / sizeof r->info_strings[0]; i++)
        free(r->info_strings[i]);
    arena_block *keep_block = r->arena;
    if (keep_block && (keep_block->big || keep_block->cap != ARENA_BLOCK))
        keep_block = NULL; /* one made for a long string: not the size the next file wants */
    for (arena_block *b = r->arena, *next; b; b = next) {
        next = b->next;
        if (b != keep_block)
            arena_block_free(b);
    }
    if (keep_block) {
        keep_block->next = NULL;
        keep_block->used = 0;
    }
    if (r->str_cap > KEEP_STR_SLOTS)
        str_table_free(r);
    if (r->tid_cap > KEEP_TID_SLOTS) {
        free(r->tids);
        r->tids = NULL;
        r->tid_cap = 0;
    }
    for (size_t i = 1; i <= r->str_cap; i++)
        r->str[i] = UNDEFINED;
    if (r->tids)
        memset(r->tids, 0, r->tid_cap * sizeof *r->tids); /* 0: an empty slot */
    const wt__src src = r->src;
    const wt__fbuf cur = { r->cur.p, 0, r->cur.cap, 0 };
    const char **const str = r->str;
    const uint32_t str_cap = r->str_cap;
    const int str_big = r->str_big;
    uint64_t *const tids = r->tids;
    const size_t tid_cap = r->tid_cap;
    char *const path = r->path;
    const unsigned span_lean = r->span_lean;
    memset(r, 0, sizeof *r);
    r->span_lean = span_lean; /* the caller's choice, not the file's */
    r->src = src; /* its file is closed by wt__src_reopen() */
    r->cur = cur;
    r->str = str;
    r->str_cap = str_cap;
    r->str_big = str_big;
    r->arena = keep_block;
    r->tids = tids;
    r->tid_cap = tid_cap;
    r->path = path; /* freed by open_path() once the source no longer points at it */
}

int wt_reader_reopen(wt_reader *r, const char *path)
{
    if (!r)
        return WT_EINVAL;
    reset_for_next(r);
    return open_path(r, path, 1);
}

/* wt_reader_next() past its fast paths: everything else. */
__attribute__((noinline)) static int next_general(wt_reader *r, wt_event *ev)
{
    if (r->done)
        return 0;
    if (r->pending_unknown) {
        /* the event that named it was delivered by the previous call */
        const uint64_t id = r->pending_unknown;
        r->pending_unknown = 0;
        r->frame_reported = 1;
        r->stats.unknown_strings++;
        if (r->stats.errors + r->src_errors < WT__SRC_MAX_ERRORS)
            return fail(r, WT_ECORRUPT, r->cur.off,
                        "in the frame starting here: string %llu was never defined (its definition "
                        "was lost with damage before it); it reads as \"(unknown string %llu)\"",
                        (unsigned long long)id, (unsigned long long)id);
    }
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
            r->frame_reported = 0;
            /* back to the test above: a frame may hold no record at all (zstd writes 13 bytes
             * for empty input), and the decoders below read a record's first byte unchecked */
            continue;
        }
        if (r->in_thread && r->cur.len - r->frame_pos >= SPAN_FAST_MIN &&
            (span_fast(r, ev) || counter_fast(r, ev))) {
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

/* What fast_end is in r's present state. */
static size_t fast_end_of(const wt_reader *r)
{
    return r->in_frame && r->in_thread && !r->done && !r->pending_unknown &&
                   r->cur.len >= SPAN_FAST_MIN
               ? r->cur.len - SPAN_FAST_MIN + 1
               : 0;
}

/* wt_reader_next() past its counter fast path: next_general(), then fast_end for the state
 * it left. */
static __attribute__((noinline)) int next_slow(wt_reader *r, wt_event *ev)
{
    const int rc = next_general(r, ev);
    r->fast_end = fast_end_of(r);
    return rc;
}

/* wt_reader_next() at a span record inside fast_end. Apart from the counter path: the span
 * decoder needs the callee-saved registers, and where it shared a function with the counter
 * path every counter sample paid for saving and restoring them too. */
static __attribute__((noinline)) int next_span(wt_reader *r, wt_event *ev)
{
    if (span_fast(r, ev)) {
        r->stats.events++;
        return 1;
    }
    return next_slow(r, ev);
}

/* Most calls decode one span or counter record and return: they check one position, and
 * the general path's state and frame handling stay out of the way. The counter path, inline
 * here, needs no register saved; spans and everything else are tail calls. */
int wt_reader_next(wt_reader *r, wt_event *ev)
{
    if (!r)
        return 0;
    if (r->frame_pos < r->fast_end) {
        if (counter_fast(r, ev)) {
            r->stats.events++;
            return 1;
        }
        if (r->cur.p[r->frame_pos] == WT__R_SPAN)
            return next_span(r, ev);
    }
    return next_slow(r, ev);
}

/* Spans batch while the reader sits in a thread's records with nothing pending: the state
 * fast_end_of() requires, but up to the frame's very end (the last spans of a frame are read
 * with bounds checks). */
static int batch_ok(const wt_reader *r)
{
    return r->in_frame && r->in_thread && !r->done && !r->pending_unknown &&
           r->frame_pos < r->cur.len;
}

/* Reads the counter sample record at *pp when it is whole and valid (counter_decode()) into
 * *o as wt_reader_next_records() gives it, moves *pp past it and *prev to its time: returns 1. Returns 0, with *pp and *prev as they were, for anything wt_reader_next()
 * must judge. `checked` as span_read()'s. */
static inline __attribute__((always_inline)) int counter_read(const wt_reader *r, int64_t *prev,
                                                              const uint8_t **pp,
                                                              const uint8_t *end, int checked,
                                                              wt_span_rec *o)
{
    const uint8_t *p = *pp + 1;
    int64_t t, value;
    uint32_t name;
    if (!counter_decode(r, *prev, &p, end, checked, &t, &name, &value))
        return 0;
    o->ts = t;
    o->dur = 0;
    o->count = value;
    o->bytes = 0;
    o->category = o->detail = o->depth = 0;
    o->label = name;
    o->flags = WT_REC_COUNTER;
    o->cached = 0;
    *prev = t;
    *pp = p;
    return 1;
}

/* wt_reader_next_spans() once a span record is at the position. `lean` (a constant in each of
 * the copies below): only WT_SPANF_LEAN's fields are stored; every record is read and
 * judged the same either way. `counters` (a constant too): counter samples are taken as well
 * (wt_reader_next_records()). Two loops: the records that start before fast_end are read
 * without end checks, and the loop over them tests no more than its two bounds; the frame's
 * last ones with them. */
static inline __attribute__((always_inline)) size_t spans_loop(wt_reader *r, wt_span_rec *out,
                                                               size_t cap, uint64_t *tid,
                                                               const int lean, const int counters)
{
    /* in locals: the stores to out[] might alias the reader's fields for the compiler */
    uint32_t def_lim = r->def_lim;
    int64_t prev = r->prev;
    const uint8_t *const base = r->cur.p, *const end = base + r->cur.len;
    const uint8_t *p = base + r->frame_pos;
    const uint8_t *const fast_end = base + r->fast_end; /* unchecked reads before it */
    wt_span_rec *o = out, *const o_end = out + cap;
    const uint8_t *q;
    while (o < o_end && p < fast_end) {
        if (span_read(r, def_lim, &prev, &p, end, 0, lean, o)) {
            o++;
        } else if (counters && *p == WT__R_COUNTER && counter_read(r, &prev, &p, end, 0, o)) {
            o++;
        } else if (*p == WT__R_STRING && (q = batch_define(r, p, end)) != NULL) {
            p = q;
            def_lim = r->def_lim; /* the new id is most likely the next one */
        } else {
            goto out;
        }
    }
    while (o < o_end && p < end) {
        if (span_read(r, def_lim, &prev, &p, end, 1, lean, o)) {
            o++;
        } else if (counters && *p == WT__R_COUNTER && counter_read(r, &prev, &p, end, 1, o)) {
            o++;
        } else if (*p == WT__R_STRING && (q = batch_define(r, p, end)) != NULL) {
            p = q;
            def_lim = r->def_lim;
        } else {
            break;
        }
    }
out:;
    const size_t n = (size_t)(o - out);
    r->prev = prev;
    r->frame_pos = (size_t)(p - base);
    r->stats.events += n;
    if (n && tid)
        *tid = r->tid;
    return n;
}

static __attribute__((noinline)) size_t next_spans(wt_reader *r, wt_span_rec *out, size_t cap,
                                                   uint64_t *tid)
{
    return spans_loop(r, out, cap, tid, 0, 0);
}

static __attribute__((noinline)) size_t next_spans_lean(wt_reader *r, wt_span_rec *out,
                                                        size_t cap, uint64_t *tid)
{
    return spans_loop(r, out, cap, tid, 1, 0);
}

static __attribute__((noinline)) size_t next_records(wt_reader *r, wt_span_rec *out, size_t cap,
                                                     uint64_t *tid)
{
    return spans_loop(r, out, cap, tid, 0, 1);
}

size_t wt_reader_next_spans(wt_reader *r, wt_span_rec *out, size_t cap, uint64_t *tid)
{
    /* a caller tries a batch before every other event too (a counter after each span): the
     * call that finds no span there costs a few instructions, not the batch loop's setup */
    if (!r || !out || !batch_ok(r) ||
        (r->cur.p[r->frame_pos] != WT__R_SPAN && r->cur.p[r->frame_pos] != WT__R_STRING))
        return 0;
    return r->span_lean ? next_spans_lean(r, out, cap, tid) : next_spans(r, out, cap, tid);
}

size_t wt_reader_next_records(wt_reader *r, wt_span_rec *out, size_t cap, uint64_t *tid)
{
    /* as wt_reader_next_spans(): a try where no batch starts costs a few instructions */
    if (!r || !out || !batch_ok(r))
        return 0;
    const uint8_t type = r->cur.p[r->frame_pos];
    if (type != WT__R_SPAN && type != WT__R_STRING && type != WT__R_COUNTER)
        return 0;
    return next_records(r, out, cap, tid);
}

void wt_reader_span_fields(wt_reader *r, unsigned fields)
{
    if (r)
        r->span_lean = fields != 0 && (fields & ~(unsigned)WT_SPANF_LEAN) == 0;
}

const char *wt_reader_string(const wt_reader *r, uint32_t id)
{
    if (!r || id == 0 || id > r->str_cap || r->str[id] == UNDEFINED)
        return NULL;
    return r->str[id];
}

uint64_t wt_reader_string_epoch(const wt_reader *r) { return r ? r->string_epoch : 0; }

const wt_trace_info *wt_reader_info(const wt_reader *r) { return &r->info; }

const char *wt_reader_error(const wt_reader *r) { return r ? r->err : ""; }

int64_t wt_reader_error_offset(const wt_reader *r) { return r ? r->err_off : -1; }

void wt_reader_get_stats(const wt_reader *r, wt_reader_stats *out)
{
    *out = r->stats;
    out->file_bytes = r->src.file_bytes == UINT64_MAX ? 0 : r->src.file_bytes;
    out->frames = r->src_frames - r->rec_damaged;
    out->frames_damaged = r->src_damaged + r->rec_damaged;
    out->frames_stored = r->src_stored;
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
        arena_block_free(r->arena);
        r->arena = next;
    }
    str_table_free(r);
    free(r->tids);
    free(r->cur.p);
    free(r->path);
    free(r);
}
