/* Ring entries to format records: the one translation from the recorder's raw 24-byte
 * entries (ticks, ids, packed bits) to wt__enc_* calls (ns, ids), shared by the writer thread
 * and the crash handler. Async-signal-safe when the sink's flush is (the crash handler's
 * is); the aggregates hook runs only for the writer's sink. */
#include <string.h>

#include "rec_state.h"

/* Runs an encoder call; on a full frame, has the sink write it out and tries once more in
 * the fresh frame (where every record fits). */
#define TRY(s, call)                                                                       \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        if (rc_ == WT_ENOSPC) {                                                            \
            if ((s)->flush(s) < 0)                                                         \
                return -1;                                                                 \
            rc_ = (call);                                                                  \
        }                                                                                  \
        if (rc_)                                                                           \
            return -1;                                                                     \
    } while (0)

int wt__emit_strings(wt__sink *s, uint32_t upto)
{
    while (s->strings_done < upto) {
        const uint32_t id = s->strings_done + 1;
        uint32_t len = 0;
        const char *str = wt__string_get(id, &len);
        if (!str)
            return -1; /* not published: cannot happen for ids taken from entries */
        TRY(s, wt__enc_string(&s->enc, id, str, len));
        s->strings_done = id;
    }
    return 0;
}

static uint32_t max3(uint32_t a, uint32_t b, uint32_t c)
{
    const uint32_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* One event: entry e, its extension x (or NULL) and `a`, the id of its label, name or key
 * (e->a, or the id its formatted label's bytes were given). */
static int emit_one(wt__sink *s, uint64_t tid, const wt__ent *e, uint32_t a, const wt__ext *x,
                    const wt__clockmap *c)
{
    const uint32_t b = e->b;
    /* a span with its label's words is the span */
    const unsigned kind = WT__B_TEXT(b) ? WT__B_KIND(b) & 7u : WT__B_KIND(b);
    const uint32_t cat = (WT__B_CATID(b) == WT__B_CAT_BIG && x) ? x->cat : WT__B_CATID(b);
    const uint32_t detail = x ? x->detail : 0;
    const uint32_t need = max3(a, cat, detail);
    if (need > s->strings_done && wt__emit_strings(s, need))
        return -1;

    switch (kind) {
    case WT__K_SPAN:
    case WT__K_SPAN_MEASURED:
    case WT__K_SPAN_UNCLOSED: {
        const int64_t end = wt__tick_ns(c, e->t1);
        int64_t start = kind == WT__K_SPAN_MEASURED ? end - (int64_t)e->t0 : wt__tick_ns(c, e->t0);
        if (start > end)
            start = end;
        if (start < 0)
            start = 0; /* a span cannot start before the clock's zero (boot): the reader refuses it */
        const wt__span_rec r = {
            .start = start,
            .end = end,
            .depth = WT__B_DEPTH(b),
            .category = cat,
            .label = a,
            .detail = detail,
            .cached = (wt_cached)WT__B_CACHED(b),
            .count = x && x->count > 0 ? x->count : 1, /* the API: a count below 1 is 1 */
            .bytes = x ? x->bytes : 0,
            .unclosed = kind == WT__K_SPAN_UNCLOSED,
            .measured = kind == WT__K_SPAN_MEASURED,
        };
        TRY(s, wt__enc_span(&s->enc, tid, &r));
        if (s->agg) {
            wt__agg_span(cat, r.label, detail, r.end, r.end - r.start, r.cached, r.count);
            /* as the file has it: the end clamped within the chunk (the encoder's prev) */
            const wt__agg_item it = { cat, r.depth, r.cached, s->enc.prev, r.end - r.start,
                                      r.bytes, r.unclosed };
            if (wt__g.summary)
                wt__agg_nest(tid, &it, 1);
        }
        return 0;
    }
    case WT__K_COUNTER:
        TRY(s, wt__enc_counter(&s->enc, tid, wt__tick_ns(c, e->t0), a, (int64_t)e->t1));
        return 0;
    case WT__K_MARK:
        TRY(s, wt__enc_mark(&s->enc, tid, wt__tick_ns(c, e->t0), cat, a, detail));
        return 0;
    case WT__K_META:
        TRY(s, wt__enc_meta(&s->enc, tid, wt__tick_ns(c, e->t0), a, detail));
        return 0;
    case WT__K_THREAD_NAME:
        TRY(s, wt__enc_thread_name(&s->enc, tid, wt__tick_ns(c, e->t0), a));
        return 0;
    case WT__K_ROUND:
        TRY(s, wt__enc_round(&s->enc, tid, wt__tick_ns(c, e->t0), wt__tick_ns(c, e->t1), a,
                             x ? x->count : 0));
        return 0;
    default:
        return 0; /* cannot happen: entries are made by rec_core.c only */
    }
}

/* A formatted label's id from the sink's label() (the front cache did not hold it, or its
 * entries wrap to the ring's start: they are joined here first). Out of line, as the join's
 * buffer and the call would make every label save registers. */
static __attribute__((noinline)) uint32_t text_slow(wt__sink *s, const wt__tstate *ts,
                                                    uint64_t at, uint32_t w)
{
    char buf[WT__TEXT_MAX_ENTRIES * sizeof(wt__ent)];
    const unsigned k = WT__TEXT_ENTRIES(w);
    const char *words = (const char *)(const void *)wt__ring_at(ts, at);
    if ((at & ts->mask) + k > ts->mask + 1) { /* they wrap to the ring's start: joined here */
        for (unsigned i = 0; i < k; i++)
            memcpy(buf + i * sizeof(wt__ent), wt__ring_at(ts, at + i), sizeof(wt__ent));
        words = buf;
    }
    return s->label(s, words + WT__TEXT_OFF(w), WT__TEXT_LEN(w));
}

/* The id of a formatted label: the bytes of text word w, from the raw entries at `at` (its
 * words as wt_begin copied them, rec_state.h) of the ring (ts's, `ring` and `mask` passed as
 * the encoding loop keeps them in registers). A label the front cache holds is found here,
 * inlined into the loop without a call (the 16 bytes from the label's first are within its
 * first entry, its offset being at most 7, so they are readable as the cache wants); any
 * other goes to text_slow(). */
static inline __attribute__((always_inline)) uint32_t
text_id(wt__sink *s, const wt__tcache *front, const wt__tstate *ts, const wt__ent *ring,
        uint64_t mask, uint64_t at, uint32_t w)
{
    const unsigned k = WT__TEXT_ENTRIES(w), off = WT__TEXT_OFF(w), len = WT__TEXT_LEN(w);
    if (k > WT__TEXT_MAX_ENTRIES || off + len > k * sizeof(wt__ent))
        return 0; /* cannot happen: words made by wt__text_take() */
    uint32_t id = 0;
    if (front && (at & mask) + k <= mask + 1)
        id = wt__tcache_find(front, (const char *)(const void *)&ring[at & mask] + off, len);
    return id ? id : text_slow(s, ts, at, w);
}

/* Counts a formatted label of an encoded span, and whether it was the one before again, for
 * the writer's hint (rec_writer.c). Only once the span is encoded: a loop that stops at a
 * span (a string to define first, a full frame) takes its label again, and counting it twice
 * would be a repeat. */
static inline void text_count(struct wt__text_count *tc, uint32_t id)
{
    tc->n++;
    tc->reps += id == tc->last;
    tc->last = id;
}

/* A plain span: kind SPAN and no extension (the top 7 bits of b are kind:4 cached:2 ext:1). */
#define IS_PLAIN(b) ((((b) >> 25) & 0x79u) == (WT__K_SPAN << 3))
/* The same with its formatted label's words after it (no extension): the plain loop takes it
 * too, its label interned on the way (the common span of a load with formatted labels). */
#define IS_PLAIN_TEXT(b) ((((b) >> 25) & 0x79u) == (WT__K_SPAN_TEXT << 3))

/* The largest record of a plain span: type, flags, end delta and duration (10 bytes each at
 * most), depth (< 256: 2 bytes), category (< 2^17: 3 bytes), label (5 bytes). */
#define PLAIN_MAX (2 + 2 * WT__VARINT_MAX + 2 + 3 + 5)

/* The ledger sums of a run of spans of one category, added in one call when the category
 * changes or the run ends (a call and a row lookup per span were a fifth of the writer's
 * own work). Its count is counted (a span with a formatted label takes more than one entry),
 * and its first end is that of its first span, since a thread's ends do not decrease within
 * one drain (one calibration, ticks of one thread). A MISS is also listed, by wt__agg_miss(). */
typedef struct run_agg {
    uint32_t cat;
    int64_t n, first_end, ns, hits;
} run_agg;

static void agg_flush(const wt__sink *s, const run_agg *g)
{
    if (g->n && s->agg)
        wt__agg_run(g->cat, g->first_end, g->ns, g->n, g->hits);
}

/* The reconciled exit ledger needs each span (depth, times), in order: the plain loop
 * collects them here and hands them over a batch at a time, so it makes no call per span. */
#define NEST_BATCH 64
typedef struct nest_batch {
    wt__agg_item v[NEST_BATCH];
    unsigned n;
} nest_batch;

static void nest_flush(const wt__sink *s, uint64_t tid, nest_batch *nb)
{
    if (nb->n && s->agg)
        wt__agg_nest(tid, nb->v, nb->n);
    nb->n = 0;
}

/* A span's duration given its end: both ends by the map, so that its start is the same
 * function of its tick as every other span's (rec_clock.h). */
static inline int64_t span_dur(const wt__clockmap *m, const wt__ent *e, int64_t end)
{
    return e->t1 > e->t0 ? end - wt__tick_ns(m, e->t0) : 0;
}

/* The common entries, spans with nothing beyond category and label, encoded by one loop
 * straight into the frame buffer: the bytes are those of wt__enc_span() (FORMAT.md), without
 * a record struct, calls or a room check per span. Each batch is as long as the frame has
 * room for PLAIN_MAX-byte records; a string to define, a new chunk or a full frame ends a
 * batch and is dealt with between batches, with *progress stored first (a flush commits the
 * ring up to it). Advances *pos_io to the first entry that is not a plain span (or `to`).
 * Returns 0, or -1 when the sink gave up. */
static int emit_plain_run(wt__sink *s, uint64_t tid, const wt__tstate *ts, uint64_t *pos_io,
                          uint64_t to, const wt__clockmap *c, uint64_t *progress)
{
    wt__enc *const enc = &s->enc;
    const wt__clockmap map = *c; /* in locals: the byte stores below may alias it */
    uint64_t pos = *pos_io;
    run_agg g = { UINT32_MAX, 0, 0, 0, 0 }; /* no category: the first span starts a run */
    nest_batch nb;
    nb.n = 0;
    /* WALLTIME_SUMMARY=0: no exit ledger, no per-span collection either */
    const int nest = s->agg && wt__g.summary;
    int rc = 0;
    while (pos < to) {
        const wt__ent *e = wt__ring_at(ts, pos);
        const uint32_t b0 = e->b;
        uint32_t lab0 = e->a;
        if (IS_PLAIN_TEXT(b0))
            lab0 = text_id(s, s->front, ts, ts->ring, ts->mask, pos + 1, lab0);
        else if (!IS_PLAIN(b0))
            break;
        const uint32_t need = lab0 > WT__B_CATID(b0) ? lab0 : WT__B_CATID(b0);
        if (need > s->strings_done) {
            *progress = pos;
            if (wt__emit_strings(s, need)) {
                rc = -1;
                break;
            }
        }
        if (__builtin_expect(!enc->in_thread || enc->tid != tid, 0)) {
            /* the chunk's base is this span's start, as wt__enc_span() takes it */
            const int64_t end = wt__tick_ns(&map, e->t1);
            const int64_t dur = span_dur(&map, e, end);
            *progress = pos;
            int r = wt__enc_thread(enc, tid, end - dur);
            if (r == WT_ENOSPC) {
                if (s->flush(s) < 0) {
                    rc = -1;
                    break;
                }
                r = wt__enc_thread(enc, tid, end - dur);
            }
            if (r) {
                rc = -1;
                break;
            }
        }
        const size_t room = (enc->cap - enc->len) / PLAIN_MAX;
        if (room == 0) {
            *progress = pos;
            if (s->flush(s) < 0) {
                rc = -1;
                break;
            }
            continue;
        }
        const uint64_t lim = to - pos < room ? to : pos + room;
        const uint32_t sdone = s->strings_done;
        /* locals throughout: the byte stores may alias anything, so fields read through
         * pointers would be loaded again after every store */
        const wt__ent *const ring = ts->ring;
        const uint64_t mask = ts->mask;
        uint8_t *p = enc->buf + enc->len;
        int64_t prev = enc->prev;
        run_agg a = g;
        const wt__tcache *const front = s->front;
        struct wt__text_count tc = s->text;
        while (pos < lim) {
            e = &ring[pos & mask];
            const uint32_t b = e->b, cat = WT__B_CATID(b);
            uint32_t label = e->a;
            uint64_t step = 1;
            if (IS_PLAIN_TEXT(b)) {
                label = text_id(s, front, ts, ring, mask, pos + 1, label);
                step += WT__TEXT_ENTRIES(e->a);
            } else if (!IS_PLAIN(b)) {
                break;
            }
            if ((label > cat ? label : cat) > sdone)
                break;
            if (step > 1)
                text_count(&tc, label);
            const int64_t end = wt__tick_ns(&map, e->t1);
            int64_t dur = span_dur(&map, e, end);
            /* times within a chunk never go backwards; the span keeps its duration */
            const int64_t clamped = end < prev ? prev : end;
            if (__builtin_expect(dur > clamped, 0))
                dur = clamped; /* never before the clock's zero: the reader refuses that */
            const uint32_t cached = WT__B_CACHED(b), depth = WT__B_DEPTH(b);
            size_t n = 2;
            p[0] = WT__R_SPAN;
            p[1] = (uint8_t)cached;
            n += wt__put_varint_fast(p + n, (uint64_t)(clamped - prev));
            n += wt__put_varint_fast(p + n, (uint64_t)dur);
            if (__builtin_expect((depth | cat | label) < 0x80, 1)) {
                p[n] = (uint8_t)depth;
                p[n + 1] = (uint8_t)cat;
                p[n + 2] = (uint8_t)label;
                n += 3;
            } else {
                /* ids of 1,000 labels take two bytes: the inline cases, not the loop */
                n += wt__put_varint_fast(p + n, depth);
                n += wt__put_varint_fast(p + n, cat);
                n += wt__put_varint_fast(p + n, label);
            }
            p += n;
            prev = clamped;
            if (__builtin_expect(cat != a.cat, 0)) {
                agg_flush(s, &a);
                a = (run_agg){ cat, 0, end, 0, 0 };
            }
            a.n++;
            a.ns += dur;
            a.hits += cached == WT_CACHED_HIT;
            if (__builtin_expect(cached == WT_CACHED_MISS, 0) && s->agg)
                wt__agg_miss(cat, label, 0, dur);
            if (nest) {
                nb.v[nb.n++] = (wt__agg_item){ cat, depth, (wt_cached)cached, clamped, dur, 0, 0 };
                if (__builtin_expect(nb.n == NEST_BATCH, 0))
                    nest_flush(s, tid, &nb);
            }
            pos += step;
        }
        g = a;
        s->text = tc;
        enc->len = (size_t)(p - enc->buf);
        enc->prev = prev;
    }
    agg_flush(s, &g);
    nest_flush(s, tid, &nb);
    *pos_io = pos;
    return rc;
}

uint64_t wt__emit_ring(wt__sink *s, const wt__tstate *ts, uint64_t from, uint64_t to,
                       const wt__clockmap *c, uint64_t *progress)
{
    const uint64_t tid = ts->tid;
    uint64_t pos = from;
    while (pos < to) {
        const wt__ent *e = wt__ring_at(ts, pos);
        const uint32_t b = e->b;
        if (__builtin_expect(IS_PLAIN(b) || IS_PLAIN_TEXT(b), 1)) {
            const int rc = emit_plain_run(s, tid, ts, &pos, to, c, progress);
            *progress = pos;
            if (rc)
                break;
            continue;
        }
        wt__ext x;
        const int has_ext = WT__B_EXT(b);
        if (has_ext)
            memcpy(&x, wt__ring_at(ts, pos + 1), sizeof x);
        uint64_t n = 1 + (uint64_t)has_ext;
        uint32_t a = e->a;
        if (WT__B_TEXT(b)) {
            a = text_id(s, s->front, ts, ts->ring, ts->mask, pos + n, a);
            n += WT__TEXT_ENTRIES(e->a);
        }
        if (emit_one(s, tid, e, a, has_ext ? &x : NULL, c))
            break;
        if (WT__B_TEXT(b))
            text_count(&s->text, a);
        pos += n;
        *progress = pos;
    }
    return pos;
}
