/* bench_layout: what a columnar record layout would save the writer's zstd (issue 11, process
 * CPU). An offline experiment, not a format: it reads a .wtrace through the public reader API
 * (only the reader knows the file's bytes), re-encodes its events in memory in
 *   row        today's records (docs/FORMAT.md: a type byte, then varints per record; THREAD
 *              records open a chunk, STRING records define an id before its first use), cut
 *              into frames as the writer cuts them (at WT__FRAME_TARGET bytes and after SYNC);
 *   col-end    the same frames, each laid out by column: one varint stream per field (a tag
 *              byte per record - the type, or 0x80 | the span flags -, the time, dur, depth,
 *              category, label, the rest of each record's fields, the STRING definitions);
 *              a span's time is its end minus the chunk's previous time, as in a row;
 *   col-start  the same, a span's time the zigzag of its start minus the previous span's start;
 *   col-gap    the same, a span's time the zigzag of its start minus the previous end,
 * then compresses every frame with libzstd (levels 1, -1 and 3, content size and checksum as
 * the writer sets them) and prints, per layout, raw and compressed bytes per span and the CPU
 * per span (CLOCK_PROCESS_CPUTIME_ID, median of BENCH_LAYOUT_REPS repetitions, default 5) of
 * the encode loop (the writer pays it), compression, decompression and the decode of a frame
 * back into records (the reader pays it: for columns, the re-assembly of rows). Each layout is
 * decoded once and compared with the trace's events before anything is timed.
 *
 * usage: bench_layout TRACE...   env: BENCH_LAYOUT_REPS, BENCH_LAYOUT_ONLY, BENCH_LAYOUT_LEVEL
 *        bench_layout --record PATH [SPANS]   records SPANS (default 1,000,000) spans with
 *        1,000 literal labels in random order (bench_record's random1000 lit) into PATH
 * The workload is a few million events in memory; it is not run by bench/run. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "format.h"
#include "walltime/reader.h"
#include "walltime/walltime.h"

#define REPS_MAX 31

/* One event as the encoders see it: the reader's event with strings turned into ids. `t` is
 * the reference time (a span's or round's end, any other event's instant). */
typedef struct rec {
    uint64_t tid, dur;
    int64_t t, count, bytes;
    uint32_t a, b, c, depth; /* string ids (span, mark: category, label, detail), END reason */
    uint8_t type, flags;     /* WT__R_*, WT__SF_* for spans */
} rec;

typedef struct trace {
    rec *r;
    size_t n, spans;
    char **str;       /* by id (1..), owned */
    uint32_t *def;    /* def[i]: the number of strings defined before record i (n + 1 entries) */
    uint32_t n_str;
} trace;

/* ---- loading ---------------------------------------------------------------------------- */

/* Reader string pointers to ids: the reader keeps one copy per id, so a pointer is an id.
 * The trace keeps its own copy, since the reader's go with it. */
typedef struct smap {
    const char **key;
    uint32_t *id;
    size_t cap;
} smap;

static uint32_t str_id(smap *m, trace *t, const char *s)
{
    if (!s)
        return 0;
    size_t i = ((uintptr_t)s * 0x9E3779B97F4A7C15ull >> 20) & (m->cap - 1);
    while (m->key[i] && m->key[i] != s)
        i = (i + 1) & (m->cap - 1);
    if (!m->key[i]) {
        if (4 * (t->n_str + 1) > 3 * m->cap)
            return UINT32_MAX; /* full: the caller gives up on this trace */
        if (!(t->str[t->n_str + 1] = strdup(s)))
            return UINT32_MAX;
        m->key[i] = s;
        m->id[i] = ++t->n_str;
    }
    return m->id[i];
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Reads every event of `path`. Returns 0, or -1 with a message on stderr. */
static int load(const char *path, trace *t)
{
    int rc = -1;
    size_t cap = 0, dcap = 0;
    smap m = { 0 };
    wt_reader *rd = NULL;
    memset(t, 0, sizeof *t);
    m.cap = 1u << 22; /* 3 M strings: the traces here define a few thousand */
    m.key = calloc(m.cap, sizeof *m.key);
    m.id = calloc(m.cap, sizeof *m.id);
    t->str = calloc(m.cap, sizeof *t->str);
    if (!m.key || !m.id || !t->str || grow((void **)&t->def, &dcap, 1, sizeof *t->def))
        goto out;
    if (wt_reader_open(path, &rd) != 0) {
        fprintf(stderr, "bench_layout: %s\n", rd ? wt_reader_error(rd) : "out of memory");
        goto out;
    }
    wt_event ev;
    int k;
    while ((k = wt_reader_next(rd, &ev)) != 0) {
        if (k < 0) {
            fprintf(stderr, "bench_layout: %s (read on)\n", wt_reader_error(rd));
            continue;
        }
        if (grow((void **)&t->r, &cap, t->n + 1, sizeof *t->r) ||
            grow((void **)&t->def, &dcap, t->n + 2, sizeof *t->def))
            goto out;
        rec *r = &t->r[t->n];
        memset(r, 0, sizeof *r);
        t->def[t->n] = t->n_str;
        r->tid = ev.tid;
        r->t = ev.ts;
        r->count = 1; /* what the encoders' readers assume where a record has no count */
        const char *s[3] = { NULL, NULL, NULL };
        switch (ev.kind) {
        case WT_EV_SPAN:
            r->type = WT__R_SPAN;
            r->t = ev.ts + ev.dur;
            r->dur = (uint64_t)ev.dur;
            r->depth = ev.depth;
            r->bytes = ev.bytes;
            r->count = ev.count;
            r->flags = (uint8_t)((unsigned)ev.cached | (ev.count != 1 ? WT__SF_COUNT : 0u) |
                                 (ev.bytes ? WT__SF_BYTES : 0u) | (ev.detail ? WT__SF_DETAIL : 0u) |
                                 (ev.flags & WT_EVF_UNCLOSED ? WT__SF_UNCLOSED : 0u) |
                                 (ev.flags & WT_EVF_MEASURED ? WT__SF_MEASURED : 0u));
            s[0] = ev.category, s[1] = ev.label, s[2] = ev.detail;
            t->spans++;
            break;
        case WT_EV_COUNTER: r->type = WT__R_COUNTER, r->count = ev.value, s[0] = ev.name; break;
        case WT_EV_MARK:
            r->type = WT__R_MARK, s[0] = ev.category, s[1] = ev.label, s[2] = ev.detail;
            break;
        case WT_EV_META: r->type = WT__R_META, s[0] = ev.name, s[1] = ev.detail; break;
        case WT_EV_THREAD_NAME: r->type = WT__R_THREAD_NAME, s[0] = ev.name; break;
        case WT_EV_ROUND:
            r->type = WT__R_ROUND, r->t = ev.ts + ev.dur, r->dur = (uint64_t)ev.dur, s[0] = ev.name;
            r->count = ev.count;
            break;
        case WT_EV_SYNC: r->type = WT__R_SYNC, r->tid = 0, r->count = 0; break;
        case WT_EV_END:
            r->type = WT__R_END, r->tid = 0, r->a = ev.end;
            r->b = ev.end == WT_END_SIGNAL ? (uint32_t)ev.count : 0, r->count = 0;
            break;
        case WT_EV_DROPPED: r->type = WT__R_DROPPED, r->count = ev.count; break;
        }
        uint32_t *id[3] = { &r->a, &r->b, &r->c };
        for (int i = 0; i < 3; i++)
            if (s[i] && (*id[i] = str_id(&m, t, s[i])) == UINT32_MAX)
                goto out;
        t->n++;
    }
    t->def[t->n] = t->n_str;
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "bench_layout: cannot load '%s'\n", path);
    wt_reader_free(rd);
    free(m.key);
    free(m.id);
    return rc;
}

/* ---- encoding ----------------------------------------------------------------------------- */

enum { L_ROW, L_COL_END, L_COL_START, L_COL_GAP, N_LAYOUTS };
static const char *const layout_name[N_LAYOUTS] = { "row", "col-end", "col-start", "col-gap" };

/* A layout's raw frames, back to back: frame i is [off[i], off[i + 1]) and holds the records
 * [first[i], first[i + 1]). */
typedef struct frames {
    uint8_t *buf;
    size_t len, cap;
    size_t *off, *first, n;
} frames;

/* Where in a frame a record's fields go: the row layout puts every stream at one place. */
enum { S_TAG, S_TIME, S_DUR, S_DEPTH, S_CAT, S_LABEL, S_EXTRA, S_STR, N_STREAMS };
typedef struct sink {
    uint8_t *p[N_STREAMS];
} sink;

/* The row layout writes every field at stream 0; `row` is a constant where these are inlined. */
#define ST(s) (row ? 0 : (s))

/* The row layout's frames, where the columnar layouts cut theirs. */
static const frames *cut_points;

static inline void put(sink *k, int s, uint64_t v) { k->p[s] += wt__put_varint(k->p[s], v); }

static inline void put_str(sink *k, int row, const trace *t, uint32_t id)
{
    const size_t len = strlen(t->str[id]);
    *k->p[ST(S_STR)]++ = WT__R_STRING;
    put(k, ST(S_STR), id);
    put(k, ST(S_STR), len);
    memcpy(k->p[ST(S_STR)], t->str[id], len);
    k->p[ST(S_STR)] += len;
}

/* Encodes one record into `k`; `prev` and `prev_start` are the chunk's previous reference time
 * and previous span start. */
static inline __attribute__((always_inline)) void put_rec(sink *k, int layout, const rec *r,
                                                          int64_t *prev, int64_t *prev_start)
{
    const int row = layout == L_ROW;
    if (r->type == WT__R_SPAN) {
        const int64_t start = r->t - (int64_t)r->dur;
        *k->p[ST(S_TAG)]++ = row ? WT__R_SPAN : 0x80 | r->flags;
        if (row)
            *k->p[ST(S_TAG)]++ = r->flags;
        if (layout == L_COL_START)
            put(k, ST(S_TIME), wt__zigzag(start - *prev_start));
        else if (layout == L_COL_GAP)
            put(k, ST(S_TIME), wt__zigzag(start - *prev));
        else
            put(k, ST(S_TIME), (uint64_t)(r->t - *prev));
        put(k, ST(S_DUR), r->dur);
        put(k, ST(S_DEPTH), r->depth);
        put(k, ST(S_CAT), r->a);
        put(k, ST(S_LABEL), r->b);
        if (r->flags & WT__SF_COUNT)
            put(k, ST(S_EXTRA), wt__zigzag(r->count));
        if (r->flags & WT__SF_BYTES)
            put(k, ST(S_EXTRA), wt__zigzag(r->bytes));
        if (r->flags & WT__SF_DETAIL)
            put(k, ST(S_EXTRA), r->c);
        *prev = r->t;
        *prev_start = start;
        return;
    }
    *k->p[ST(S_TAG)]++ = r->type;
    if (r->type == WT__R_SYNC || r->type == WT__R_END) {
        put(k, ST(S_EXTRA), (uint64_t)r->t);
        if (r->type == WT__R_END) {
            put(k, ST(S_EXTRA), r->a);
            put(k, ST(S_EXTRA), r->b);
        }
        return;
    }
    put(k, ST(S_TIME), (uint64_t)(r->t - *prev));
    *prev = r->t;
    switch (r->type) {
    case WT__R_COUNTER: put(k, ST(S_EXTRA), r->a), put(k, ST(S_EXTRA), wt__zigzag(r->count)); break;
    case WT__R_MARK: put(k, ST(S_CAT), r->a), put(k, ST(S_LABEL), r->b), put(k, ST(S_EXTRA), r->c); break;
    case WT__R_META: put(k, ST(S_EXTRA), r->a), put(k, ST(S_EXTRA), r->b); break;
    case WT__R_THREAD_NAME: put(k, ST(S_EXTRA), r->a); break;
    case WT__R_ROUND:
        put(k, ST(S_DUR), r->dur), put(k, ST(S_EXTRA), r->a), put(k, ST(S_EXTRA), wt__zigzag(r->count));
        break;
    default: put(k, ST(S_EXTRA), (uint64_t)r->count); break; /* DROPPED */
    }
}

/* The most a record with its THREAD record may take, strings apart. */
/* The most a record takes with a THREAD record before it, strings apart: type, flags and 9
 * varints, and the THREAD record's type and 2 varints. */
#define REC_ROOM (4 + 11 * WT__VARINT_MAX)

/* Column streams of the frame being built; the row layout writes into the output directly. */
static uint8_t *col[N_STREAMS];

/* Closes a frame and readies `k` for the next: the row layout's bytes are in place; columns
 * are copied behind a header of their lengths. */
static void frame_end(frames *f, int layout, sink *k, size_t first)
{
    if (layout != L_ROW) {
        uint8_t *o = f->buf + f->len;
        for (int s = 0; s < N_STREAMS; s++)
            o += wt__put_varint(o, (size_t)(k->p[s] - col[s]));
        for (int s = 0; s < N_STREAMS; s++) {
            const size_t n = (size_t)(k->p[s] - col[s]);
            memcpy(o, col[s], n);
            o += n;
            k->p[s] = col[s];
        }
        f->len = (size_t)(o - f->buf);
    } else {
        f->len = (size_t)(k->p[0] - f->buf);
    }
    f->first[f->n] = first;
    f->off[++f->n] = f->len;
}

/* Encodes the whole trace in `layout` (a constant where inlined). The row layout cuts frames
 * as the writer does (before a record that might not fit, after a SYNC) and keeps where; the
 * columnar layouts cut at the same records, so a frame holds the same events in every layout. */
static inline __attribute__((always_inline)) void encode_l(const trace *t, const int layout,
                                                           frames *f, const frames *cuts)
{
    const int row = layout == L_ROW;
    sink k;
    f->len = f->n = 0;
    f->off[0] = 0;
    for (int s = 0; s < N_STREAMS; s++)
        k.p[s] = row ? f->buf : col[s];
    int in_thread = 0;
    uint64_t tid = 0;
    int64_t prev = 0, prev_start = 0;
    size_t frame_first = 0, next_cut = 1;
    for (size_t i = 0; i < t->n; i++) {
        const rec *r = &t->r[i];
        int cut;
        if (cuts) {
            cut = next_cut < cuts->n && cuts->first[next_cut] == i;
        } else {
            size_t need = REC_ROOM;
            for (uint32_t d = t->def[i] + 1; d <= t->def[i + 1]; d++)
                need += 1 + 2 * WT__VARINT_MAX + strlen(t->str[d]);
            cut = (size_t)(k.p[0] - (f->buf + f->off[f->n])) + need > WT__FRAME_TARGET ||
                  (i > 0 && t->r[i - 1].type == WT__R_SYNC);
        }
        if (cut && i > frame_first) {
            frame_end(f, layout, &k, frame_first);
            if (row)
                k.p[0] = f->buf + f->len;
            frame_first = i;
            next_cut++;
            in_thread = 0;
        }
        for (uint32_t d = t->def[i] + 1; d <= t->def[i + 1]; d++)
            put_str(&k, row, t, d);
        if (r->type != WT__R_SYNC && r->type != WT__R_END && (!in_thread || r->tid != tid)) {
            prev = prev_start = r->t - (int64_t)r->dur;
            *k.p[ST(S_TAG)]++ = WT__R_THREAD;
            put(&k, ST(S_EXTRA), r->tid);
            put(&k, ST(S_EXTRA), (uint64_t)prev);
            in_thread = 1;
            tid = r->tid;
        }
        put_rec(&k, layout, r, &prev, &prev_start);
    }
    if (frame_first < t->n)
        frame_end(f, layout, &k, frame_first);
    f->first[f->n] = t->n;
}

static __attribute__((noinline)) void encode(const trace *t, int layout, frames *f)
{
    const frames *cuts = layout == L_ROW ? NULL : cut_points;
    switch (layout) {
    case L_ROW: encode_l(t, L_ROW, f, cuts); break;
    case L_COL_END: encode_l(t, L_COL_END, f, cuts); break;
    case L_COL_START: encode_l(t, L_COL_START, f, cuts); break;
    default: encode_l(t, L_COL_GAP, f, cuts); break;
    }
}

/* ---- decoding ------------------------------------------------------------------------------ */

typedef struct src {
    const uint8_t *p[N_STREAMS], *end[N_STREAMS];
} src;

static inline uint64_t get(src *c, int s)
{
    uint64_t v = 0;
    if (wt__get_varint(&c->p[s], c->end[s], &v))
        c->p[s] = c->end[s]; /* cannot happen on our own bytes; stop reading the stream */
    return v;
}

/* Decodes one raw frame of `layout` into out[]; returns the records decoded. STRING records
 * are walked, not interned: both layouts skip the same work. */
static inline __attribute__((always_inline)) size_t decode_l(const int layout, const uint8_t *b,
                                                              size_t n, rec *out)
{
    src c;
    size_t m = 0;
    const int row = layout == L_ROW;
    if (row) {
        for (int s = 0; s < N_STREAMS; s++)
            c.p[s] = b, c.end[s] = b + n;
    } else {
        const uint8_t *q = b, *e = b + n;
        uint64_t len[N_STREAMS];
        for (int s = 0; s < N_STREAMS; s++)
            if (wt__get_varint(&q, e, &len[s]) || len[s] > (size_t)(e - q))
                return 0;
        for (int s = 0; s < N_STREAMS; s++) {
            c.p[s] = q;
            c.end[s] = q + len[s];
            q += len[s];
        }
        while (c.p[S_STR] < c.end[S_STR]) {
            c.p[S_STR]++;
            get(&c, S_STR);
            c.p[S_STR] += get(&c, S_STR);
        }
    }
    uint64_t tid = 0;
    int64_t prev = 0, prev_start = 0;
    while (c.p[ST(S_TAG)] < c.end[ST(S_TAG)]) {
        const unsigned tag = *c.p[ST(S_TAG)]++;
        if (tag == WT__R_STRING) {
            get(&c, ST(S_STR));
            c.p[ST(S_STR)] += get(&c, ST(S_STR));
            continue;
        }
        if (tag == WT__R_THREAD) {
            tid = get(&c, ST(S_EXTRA));
            prev = prev_start = (int64_t)get(&c, ST(S_EXTRA));
            continue;
        }
        rec *r = &out[m++];
        memset(r, 0, sizeof *r);
        r->tid = tid;
        r->count = 1;
        if (tag == WT__R_SPAN || tag & 0x80) {
            r->type = WT__R_SPAN;
            r->flags = row ? *c.p[ST(S_TAG)]++ : tag & 0x7f;
            const uint64_t d = get(&c, ST(S_TIME));
            r->dur = get(&c, ST(S_DUR));
            if (layout == L_COL_START)
                r->t = prev_start + wt__unzigzag(d) + (int64_t)r->dur;
            else if (layout == L_COL_GAP)
                r->t = prev + wt__unzigzag(d) + (int64_t)r->dur;
            else
                r->t = prev + (int64_t)d;
            r->depth = (uint32_t)get(&c, ST(S_DEPTH));
            r->a = (uint32_t)get(&c, ST(S_CAT));
            r->b = (uint32_t)get(&c, ST(S_LABEL));
            if (r->flags & WT__SF_COUNT)
                r->count = wt__unzigzag(get(&c, ST(S_EXTRA)));
            if (r->flags & WT__SF_BYTES)
                r->bytes = wt__unzigzag(get(&c, ST(S_EXTRA)));
            if (r->flags & WT__SF_DETAIL)
                r->c = (uint32_t)get(&c, ST(S_EXTRA));
            prev = r->t;
            prev_start = r->t - (int64_t)r->dur;
            continue;
        }
        r->type = (uint8_t)tag;
        if (tag == WT__R_SYNC || tag == WT__R_END) {
            r->tid = 0;
            r->count = 0;
            r->t = (int64_t)get(&c, ST(S_EXTRA));
            if (tag == WT__R_END) {
                r->a = (uint32_t)get(&c, ST(S_EXTRA));
                r->b = (uint32_t)get(&c, ST(S_EXTRA));
            }
            continue;
        }
        r->t = prev + (int64_t)get(&c, ST(S_TIME));
        prev = r->t;
        switch (tag) {
        case WT__R_COUNTER: r->a = (uint32_t)get(&c, ST(S_EXTRA)), r->count = wt__unzigzag(get(&c, ST(S_EXTRA))); break;
        case WT__R_MARK:
            r->a = (uint32_t)get(&c, ST(S_CAT)), r->b = (uint32_t)get(&c, ST(S_LABEL));
            r->c = (uint32_t)get(&c, ST(S_EXTRA));
            break;
        case WT__R_META: r->a = (uint32_t)get(&c, ST(S_EXTRA)), r->b = (uint32_t)get(&c, ST(S_EXTRA)); break;
        case WT__R_THREAD_NAME: r->a = (uint32_t)get(&c, ST(S_EXTRA)); break;
        case WT__R_ROUND:
            r->dur = get(&c, ST(S_DUR)), r->a = (uint32_t)get(&c, ST(S_EXTRA));
            r->count = wt__unzigzag(get(&c, ST(S_EXTRA)));
            break;
        default: r->count = (int64_t)get(&c, ST(S_EXTRA)); break;
        }
    }
    return m;
}

static __attribute__((noinline)) size_t decode(int layout, const uint8_t *b, size_t n, rec *out)
{
    switch (layout) {
    case L_ROW: return decode_l(L_ROW, b, n, out);
    case L_COL_END: return decode_l(L_COL_END, b, n, out);
    case L_COL_START: return decode_l(L_COL_START, b, n, out);
    default: return decode_l(L_COL_GAP, b, n, out);
    }
}

static int same(const rec *x, const rec *y)
{
    return x->type == y->type && x->flags == y->flags && x->tid == y->tid && x->t == y->t &&
           x->dur == y->dur && x->depth == y->depth && x->a == y->a && x->b == y->b &&
           x->c == y->c && x->count == y->count &&
           x->bytes == y->bytes;
}

/* ---- measuring ------------------------------------------------------------------------------ */

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int reps = 5;
/* BENCH_LAYOUT_ONLY (a layout's name) and BENCH_LAYOUT_LEVEL measure one layout or level
 * alone, for a profiler's per-function counts */
static int only_layout = -1, only_level;
static const int levels[] = { 1, -1, 3 };
#define N_LEVELS (int)(sizeof levels / sizeof levels[0])

/* Compresses every frame of `f` at `level` into z (offsets zoff); returns the bytes. */
static size_t compress_all(ZSTD_CCtx *cc, int level, const frames *f, uint8_t *z, size_t *zoff)
{
    zoff[0] = 0;
    for (size_t i = 0; i < f->n; i++) {
        ZSTD_CCtx_reset(cc, ZSTD_reset_session_only);
        ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
        ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1);
        ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
        const size_t n = f->off[i + 1] - f->off[i];
        const size_t r = ZSTD_compress2(cc, z + zoff[i], ZSTD_compressBound(n), f->buf + f->off[i], n);
        zoff[i + 1] = zoff[i] + (ZSTD_isError(r) ? 0 : r);
    }
    return zoff[f->n];
}

static void decompress_all(ZSTD_DCtx *dc, const frames *f, const uint8_t *z, const size_t *zoff,
                           uint8_t *out)
{
    for (size_t i = 0; i < f->n; i++)
        ZSTD_decompressDCtx(dc, out + f->off[i], f->off[i + 1] - f->off[i], z + zoff[i],
                            zoff[i + 1] - zoff[i]);
}

static size_t decode_all(int layout, const frames *f, rec *out)
{
    size_t m = 0;
    for (size_t i = 0; i < f->n; i++)
        m += decode(layout, f->buf + f->off[i], f->off[i + 1] - f->off[i], out + m);
    return m;
}

/* Measures one trace and prints its table. Returns 0, or -1 when it cannot. */
static int bench_trace(const char *path)
{
    int rc = -1;
    trace t;
    frames f[N_LAYOUTS] = { { 0 } };
    uint8_t *z = NULL, *back = NULL;
    size_t *zoff = NULL;
    rec *out = NULL;
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (load(path, &t))
        goto out;
    if (t.spans == 0) {
        printf("%s: no spans\n", path);
        rc = 0;
        goto out;
    }
    const double per = (double)t.spans;
    /* generous bounds: a record takes at most REC_ROOM plus its strings in any layout, and the
     * frames at most one per record */
    size_t strb = 0;
    for (uint32_t i = 1; i <= t.n_str; i++)
        strb += strlen(t.str[i]) + 2 + 2 * WT__VARINT_MAX;
    const size_t cap = t.n * REC_ROOM + strb + 4096;
    for (int l = 0; l < N_LAYOUTS; l++) {
        f[l].cap = cap;
        f[l].buf = malloc(cap);
        f[l].off = malloc((t.n + 2) * sizeof *f[l].off);
        f[l].first = malloc((t.n + 2) * sizeof *f[l].first);
        if (!f[l].buf || !f[l].off || !f[l].first)
            goto out;
    }
    z = malloc(ZSTD_compressBound(cap) + (t.n + 2) * 64);
    back = malloc(cap);
    zoff = malloc((t.n + 2) * sizeof *zoff);
    out = malloc((t.n + 1) * sizeof *out);
    if (!z || !back || !zoff || !out || !cc || !dc)
        goto out;

    char cmd[4200];
    long long zstd_dc = -1;
    snprintf(cmd, sizeof cmd, "zstd -dc '%s' 2>/dev/null | wc -c", path);
    FILE *pz = popen(cmd, "r");
    if (pz) {
        if (fscanf(pz, "%lld", &zstd_dc) != 1)
            zstd_dc = -1;
        pclose(pz);
    }
    printf("%s: %zu events, %zu spans, %u strings; `zstd -dc | wc -c` %.3f B/span\n", path, t.n,
           t.spans, t.n_str, (double)zstd_dc / per);
    printf("  %-9s %6s %6s %7s | %s | %8s\n", "layout", "frames", "raw B", "enc ns",
           "level: B/span  comp ns  decomp ns ...", "decode ns");
    cut_points = &f[L_ROW];
    encode(&t, L_ROW, &f[L_ROW]); /* the frames every layout cuts at */
    for (int l = 0; l < N_LAYOUTS; l++) {
        double v[REPS_MAX];
        if (only_layout >= 0 && l != only_layout)
            continue;
        encode(&t, l, &f[l]);
        const size_t m = decode_all(l, &f[l], out);
        size_t bad = m == t.n ? t.n : 0;
        for (size_t i = 0; m == t.n && i < t.n; i++)
            if (!same(&out[i], &t.r[i])) {
                bad = i;
                break;
            }
        if (bad != t.n) {
            fprintf(stderr, "bench_layout: %s decodes wrong at event %zu (%zu of %zu)\n",
                    layout_name[l], bad, m, t.n);
            goto out;
        }
        for (int k = 0; k < reps; k++) {
            const double c0 = cpu_ns();
            encode(&t, l, &f[l]);
            v[k] = (cpu_ns() - c0) / per;
        }
        printf("  %-9s %6zu %6.3f %7.2f |", layout_name[l], f[l].n, (double)f[l].len / per,
               median(v, reps));
        for (int q = 0; q < N_LEVELS; q++) {
            size_t zb = 0;
            if (only_level && levels[q] != only_level)
                continue;
            for (int k = 0; k < reps; k++) {
                const double c0 = cpu_ns();
                zb = compress_all(cc, levels[q], &f[l], z, zoff);
                v[k] = (cpu_ns() - c0) / per;
            }
            const double comp = median(v, reps);
            for (int k = 0; k < reps; k++) {
                const double c0 = cpu_ns();
                decompress_all(dc, &f[l], z, zoff, back);
                v[k] = (cpu_ns() - c0) / per;
            }
            if (memcmp(back, f[l].buf, f[l].len) != 0) {
                fprintf(stderr, "bench_layout: %s level %d does not round-trip\n",
                        layout_name[l], levels[q]);
                goto out;
            }
            printf(" %2d: %6.3f %6.2f %6.2f |", levels[q], (double)zb / per, comp, median(v, reps));
        }
        for (int k = 0; k < reps; k++) {
            const double c0 = cpu_ns();
            decode_all(l, &f[l], out);
            v[k] = (cpu_ns() - c0) / per;
        }
        printf(" %6.2f\n", median(v, reps));
    }
    rc = 0;
out:
    for (int l = 0; l < N_LAYOUTS; l++) {
        free(f[l].buf);
        free(f[l].off);
        free(f[l].first);
    }
    free(z);
    free(back);
    free(zoff);
    free(out);
    free(t.r);
    free(t.def);
    for (uint32_t i = 1; t.str && i <= t.n_str; i++)
        free(t.str[i]);
    free(t.str);
    ZSTD_freeCCtx(cc);
    ZSTD_freeDCtx(dc);
    return rc;
}

/* ---- a random-1000-literal trace, as bench_record's `random1000 lit` ------------------------ */

#define D1(p) p "0", p "1", p "2", p "3", p "4", p "5", p "6", p "7", p "8", p "9"
#define D2(p) D1(p "0"), D1(p "1"), D1(p "2"), D1(p "3"), D1(p "4"), D1(p "5"), D1(p "6"), \
              D1(p "7"), D1(p "8"), D1(p "9")
#define D3(p) D2(p "0"), D2(p "1"), D2(p "2"), D2(p "3"), D2(p "4"), D2(p "5"), D2(p "6"), \
              D2(p "7"), D2(p "8"), D2(p "9")
static const char *const lit[1000] = { D3("layer.") };

static int record_random(const char *path, long long n)
{
    setenv("WALLTIME_SUMMARY", "0", 1);
    /* every frame compressed, as a real load's file is (its writer keeps well within its
     * share of a core): at this loop's rate the default budget stores most frames, and the
     * analyzer's floor, `zstd -dc`, would be a copy (WALLTIME_COMPRESS_CPU, rec_zbudget.h) */
    setenv("WALLTIME_COMPRESS_CPU", "100", 0);
    if (wt_open(path) != 0) {
        fprintf(stderr, "bench_layout: cannot record into '%s'\n", path);
        return -1;
    }
    uint64_t x = 88172645463325252ull;
    for (long long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const wt_span h = wt_begin("weight_load", lit[x % 1000]);
        wt_end(h, WT_CACHED_HIT, 0, NULL);
    }
    return wt_close() == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--record") == 0)
        return record_random(argv[2], argc > 3 ? atoll(argv[3]) : 1000000) ? 1 : 0;
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: bench_layout TRACE... | bench_layout --record PATH [SPANS]\n");
        return 2;
    }
    const char *e = getenv("BENCH_LAYOUT_REPS");
    if (e && atoi(e) > 0)
        reps = atoi(e) < REPS_MAX ? atoi(e) : REPS_MAX;
    const char *only = getenv("BENCH_LAYOUT_ONLY");
    for (int l = 0; only && l < N_LAYOUTS; l++)
        if (strcmp(only, layout_name[l]) == 0)
            only_layout = l;
    if (only && only_layout < 0) {
        fprintf(stderr, "bench_layout: BENCH_LAYOUT_ONLY: no layout '%s' (row, col-end, "
                        "col-start, col-gap)\n", only);
        return 2;
    }
    if ((e = getenv("BENCH_LAYOUT_LEVEL")) != NULL)
        only_level = atoi(e);
    int status = 1;
    for (int s = 0; s < N_STREAMS; s++)
        if (!(col[s] = malloc(2 * WT__FRAME_TARGET))) /* a stream never outgrows a row frame */
            goto out;
    printf("bench_layout: CPU ns per span (process CPU, median of %d), level 1, -1, 3; "
           "frames of at most %u raw bytes\n", reps, WT__FRAME_TARGET);
    status = 0;
    for (int i = 1; i < argc; i++)
        if (bench_trace(argv[i]))
            status = 1;
out:
    for (int s = 0; s < N_STREAMS; s++)
        free(col[s]);
    return status;
}
