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

static int emit_one(wt__sink *s, uint64_t tid, const wt__ent *e, const wt__ext *x,
                    const wt__calib *c)
{
    const uint32_t b = e->b;
    const unsigned kind = WT__B_KIND(b);
    const uint32_t cat = (WT__B_CATID(b) == WT__B_CAT_BIG && x) ? x->cat : WT__B_CATID(b);
    const uint32_t detail = x ? x->detail : 0;
    const uint32_t need = max3(e->a, cat, detail);
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
        const wt__span_rec r = {
            .start = start,
            .end = end,
            .depth = WT__B_DEPTH(b),
            .category = cat,
            .label = e->a,
            .detail = detail,
            .cached = (wt_cached)WT__B_CACHED(b),
            .count = x && x->count > 0 ? x->count : 1, /* the API: a count below 1 is 1 */
            .bytes = x ? x->bytes : 0,
            .unclosed = kind == WT__K_SPAN_UNCLOSED,
            .measured = kind == WT__K_SPAN_MEASURED,
        };
        TRY(s, wt__enc_span(&s->enc, tid, &r));
        if (s->agg)
            wt__agg_span(cat, r.label, detail, r.end, r.end - r.start, r.cached, r.count);
        return 0;
    }
    case WT__K_COUNTER:
        TRY(s, wt__enc_counter(&s->enc, tid, wt__tick_ns(c, e->t0), e->a, (int64_t)e->t1));
        return 0;
    case WT__K_MARK:
        TRY(s, wt__enc_mark(&s->enc, tid, wt__tick_ns(c, e->t0), cat, e->a, detail));
        return 0;
    case WT__K_META:
        TRY(s, wt__enc_meta(&s->enc, tid, wt__tick_ns(c, e->t0), e->a, detail));
        return 0;
    case WT__K_THREAD_NAME:
        TRY(s, wt__enc_thread_name(&s->enc, tid, wt__tick_ns(c, e->t0), e->a));
        return 0;
    case WT__K_ROUND:
        TRY(s, wt__enc_round(&s->enc, tid, wt__tick_ns(c, e->t0), wt__tick_ns(c, e->t1), e->a,
                             x ? x->count : 0));
        return 0;
    default:
        return 0; /* cannot happen: entries are made by rec_core.c only */
    }
}

/* The common entry, a span with nothing beyond category and label, without the general
 * path's switch and second conversion: the duration is converted on its own (ticks to ns),
 * so the two time conversions are independent. Returns 0, or -1 when the sink gave up. */
static int emit_plain_span(wt__sink *s, uint64_t tid, const wt__ent *e, const wt__calib *c)
{
    const uint32_t b = e->b;
    const uint32_t cat = WT__B_CATID(b);
    const uint32_t need = e->a > cat ? e->a : cat;
    if (__builtin_expect(need > s->strings_done, 0) && wt__emit_strings(s, need))
        return -1;
    const int64_t end = wt__tick_ns(c, e->t1);
    const int64_t ticks = (int64_t)(e->t1 - e->t0);
    const int64_t dur = ticks > 0 ? (int64_t)((double)ticks * c->ns_per_tick) : 0;
    const wt__span_rec r = {
        .start = end - dur,
        .end = end,
        .depth = WT__B_DEPTH(b),
        .category = cat,
        .label = e->a,
        .cached = (wt_cached)WT__B_CACHED(b),
        .count = 1,
    };
    TRY(s, wt__enc_span(&s->enc, tid, &r));
    if (s->agg)
        wt__agg_span(cat, r.label, 0, end, dur, r.cached, 1);
    return 0;
}

uint64_t wt__emit_ring(wt__sink *s, const wt__tstate *ts, uint64_t from, uint64_t to,
                       const wt__calib *c, uint64_t *progress)
{
    const uint64_t tid = ts->tid;
    uint64_t pos = from;
    while (pos < to) {
        const wt__ent *e = wt__ring_at(ts, pos);
        const uint32_t b = e->b;
        if (__builtin_expect(((b >> 25) & 0x79u) == (WT__K_SPAN << 3), 1)) {
            /* kind SPAN and no extension (the top 7 bits are kind:4 cached:2 ext:1) */
            if (emit_plain_span(s, tid, e, c))
                break;
            *progress = ++pos;
            continue;
        }
        wt__ext x;
        const int has_ext = WT__B_EXT(b);
        if (has_ext)
            memcpy(&x, wt__ring_at(ts, pos + 1), sizeof x);
        if (emit_one(s, tid, e, has_ext ? &x : NULL, c))
            break;
        pos += 1 + (uint64_t)has_ext;
        *progress = pos;
    }
    return pos;
}
