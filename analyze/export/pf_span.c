/* The Perfetto sink's span packets (pf_span.h): encoded directly, or by protobuf-c in the
 * writer's reference mode and for strings longer than FAST_STR. Fields go in field-number
 * order, proto2 repeated fields unpacked, as protobuf-c writes them. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "pf_span.h"

#define FAST_STR 4096u

void wt__pf_span_of(pf_span *s, const wt_event *ev)
{
    int64_t dur = ev->dur > 0 ? ev->dur : 0;
    s->ts = ev->ts;
    s->end = ev->ts > INT64_MAX - dur ? INT64_MAX : ev->ts + dur;
    s->count = ev->count;
    s->bytes = ev->bytes;
    s->label = ev->label ? ev->label : "(none)";
    s->cat = ev->category ? ev->category : "(none)";
    s->detail = ev->detail;
    s->seq = s->lo = 0;
    s->depth = ev->depth;
    s->flags = ev->flags;
    s->cached = (uint8_t)ev->cached;
    s->lane = 0;
}

static size_t put_len_field(uint8_t *b, uint8_t tag, const char *s, size_t len)
{
    size_t n = 0;
    b[n++] = tag;
    n += wt__pfw_varint(b + n, len);
    memcpy(b + n, s, len);
    return n + len;
}

/* DebugAnnotation (TrackEvent field 4) with name_iid (1) and one value field. */
static size_t put_ann_str(uint8_t *b, unsigned name, const char *s, size_t len)
{
    size_t n = 0;
    b[n++] = 0x22;
    n += wt__pfw_varint(b + n, 2 + 1 + wt__pfw_varint_len(len) + len);
    b[n++] = 0x08;
    b[n++] = (uint8_t)name;
    return n + put_len_field(b + n, 0x32, s, len); /* string_value = 6 */
}

static size_t put_ann_int(uint8_t *b, unsigned name, int64_t v)
{
    size_t n = 0;
    b[n++] = 0x22;
    b[n++] = (uint8_t)(2 + 1 + wt__pfw_varint_len((uint64_t)v));
    b[n++] = 0x08;
    b[n++] = (uint8_t)name;
    b[n++] = 0x20; /* int_value = 4 */
    return n + wt__pfw_varint(b + n, (uint64_t)v);
}

static size_t put_ann_bool(uint8_t *b, unsigned name)
{
    b[0] = 0x22;
    b[1] = 4;
    b[2] = 0x08;
    b[3] = (uint8_t)name;
    b[4] = 0x10; /* bool_value = 2 */
    b[5] = 1;
    return 6;
}

/* EventCategory / EventName entry of InternedData: iid (1), name (2). */
static size_t put_interned(uint8_t *b, uint8_t tag, uint32_t iid, const char *s, size_t len)
{
    size_t n = 0;
    b[n++] = tag;
    n += wt__pfw_varint(b + n, 1 + wt__pfw_varint_len(iid) + 1 + wt__pfw_varint_len(len) + len);
    b[n++] = 0x08;
    n += wt__pfw_varint(b + n, iid);
    return n + put_len_field(b + n, 0x12, s, len);
}

int wt__pf_span_end(pf_writer *w, int64_t ts, uint64_t track)
{
    if (w->reference)
        return wt__pfw_end_slice(w, ts, track);
    /* straight into the output buffer: at most 32 bytes, so the packet's length is one byte,
     * filled in at the end */
    if (wt__pfw_reserve(w, 48) < 0)
        return WT_EIO;
    uint8_t *b = w->ob + w->olen;
    size_t n = 2;
    b[0] = 0x0A; /* Trace.packet = 1 */
    b[n++] = 0x40; /* timestamp = 8 */
    n += wt__pfw_varint(b + n, (uint64_t)(ts < 0 ? 0 : ts));
    b[n++] = 0x50; /* trusted_packet_sequence_id = 10 */
    b[n++] = PF_SEQ_ID;
    b[n++] = 0x5A; /* track_event = 11 */
    uint8_t *te_len = &b[n++];
    b[n++] = 0x48; /* type = 9 */
    b[n++] = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
    b[n++] = 0x58; /* track_uuid = 11 */
    const size_t tl = wt__pfw_track_varint(w, b + n, track);
    n += tl;
    *te_len = (uint8_t)(2 + 1 + tl);
    b[n++] = 0x68; /* sequence_flags = 13 */
    b[n++] = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    assert(n - 2 < 0x80); /* the length is one varint byte */
    b[1] = (uint8_t)(n - 2);
    w->olen += n;
    return wt__pfw_done(w);
}

/* The BEGIN packed by protobuf-c: the reference, and the way for very long strings. */
static int begin_reference(pf_writer *w, const pf_span *s, int64_t ts, uint64_t track)
{
    pf_tev t;
    int rc;
    wt__pfw_tev_init(w, &t, ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, track);
    if ((rc = wt__pfw_tev_name(w, &t, s->label, s->cat)) < 0)
        return rc;
    if (s->cached == WT_CACHED_HIT)
        wt__pfw_ann_str(w, &t, AN_CACHED, "HIT");
    else if (s->cached == WT_CACHED_MISS)
        wt__pfw_ann_str(w, &t, AN_CACHED, "MISS");
    wt__pfw_ann_int(w, &t, AN_COUNT, s->count);
    if (s->bytes)
        wt__pfw_ann_int(w, &t, AN_BYTES, s->bytes);
    if (s->detail && *s->detail)
        wt__pfw_ann_str(w, &t, AN_DETAIL, s->detail);
    if (s->flags & WT_EVF_UNCLOSED)
        wt__pfw_ann_bool(w, &t, AN_UNCLOSED);
    if (s->flags & WT_EVF_MEASURED)
        wt__pfw_ann_bool(w, &t, AN_MEASURED);
    return wt__pfw_emit(w, &t.pkt);
}

/* The packet header before the TrackEvent's bytes: Trace.packet and its length, timestamp,
 * trusted_packet_sequence_id, the track_event tag and its length. */
static size_t put_head(uint8_t *b, size_t size, const uint8_t *ts, size_t ts_len, size_t te_len)
{
    size_t n = 0;
    b[n++] = 0x0A; /* Trace.packet = 1 */
    n += wt__pfw_varint(b + n, size);
    b[n++] = 0x40; /* timestamp = 8 */
    memcpy(b + n, ts, ts_len); /* its varint, made once */
    n += ts_len;
    b[n++] = 0x50; /* trusted_packet_sequence_id = 10 */
    b[n++] = PF_SEQ_ID;
    b[n++] = 0x5A; /* track_event = 11 */
    return n + wt__pfw_varint(b + n, te_len);
}

/* The longest a packet of wt__pf_span_begin can be: the TrackEvent (annotations and inline
 * strings up to 3 * FAST_STR once repaired), the interned entries, the header. Reserved before
 * writing; within what the buffer keeps free below PF_OB_FLUSH, so the reserve never flushes. */
#define BEGIN_MAX (3 * FAST_STR + 256 + 6 * FAST_STR + 64 + 64)
_Static_assert(BEGIN_MAX <= PF_OB_CAP - PF_OB_FLUSH, "a span BEGIN fits in the room kept free");

int wt__pf_span_begin(pf_writer *w, const pf_span *s, int64_t ts_ns, uint64_t track)
{
    if (w->reference)
        return begin_reference(w, s, ts_ns, track);
    size_t dlen = 0, inlen = 0, iclen = 0;
    const char *detail = "";
    if (s->detail && *s->detail)
        detail = wt__pfw_utf8_n(w, 0, s->detail, strlen(s->detail), &dlen);
    /* the common case: both strings met before in this file, so interned and sent, written
     * as iids whatever their length (the reference path would write the same) */
    uint32_t niid = w->new_names < PF_NEW_RUN ? wt__pf_itab_cached(&w->names, s->label) : 0;
    uint32_t ciid = wt__pf_itab_cached(&w->cats, s->cat);
    int nnew = 0, cnew = 0, rc;
    const char *iname = "", *icat = "";
    if (dlen > FAST_STR)
        return begin_reference(w, s, ts_ns, track);
    if (!niid || !ciid) {
        /* the lengths of those not cached, each measured once: a string cached is written as
         * its iid whatever its length */
        const size_t nlen = niid ? 0 : strlen(s->label), clen = ciid ? 0 : strlen(s->cat);
        if (nlen > FAST_STR || clen > FAST_STR)
            return begin_reference(w, s, ts_ns, track);
        if (!niid) {
            if ((rc = wt__pf_itab_get_n(&w->names, s->label, nlen, &niid, &nnew)) < 0)
                return rc;
            w->new_names = nnew || !niid ? w->new_names + (w->new_names < PF_NEW_RUN) : 0;
        }
        if (!ciid && (rc = wt__pf_itab_get_n(&w->cats, s->cat, clen, &ciid, &cnew)) < 0)
            return rc;
        /* past the interning bound (iid 0) a string goes inline, repaired, in TrackEvent name
         * (23) or categories (22); the reference path takes those longer than FAST_STR once
         * repaired */
        if (!niid)
            iname = wt__pfw_utf8_n(w, 8, s->label, nlen, &inlen);
        if (!ciid)
            icat = wt__pfw_utf8_n(w, 9, s->cat, clen, &iclen);
    }
    if (inlen > FAST_STR || iclen > FAST_STR)
        return begin_reference(w, s, ts_ns, track);
    if (wt__pfw_reserve(w, BEGIN_MAX) < 0)
        return WT_EIO;

    /* The header as it is when the TrackEvent's length and the packet's take one varint byte
     * each (nearly always), those two bytes filled in at the end; the TrackEvent right after
     * it. When they take more, the TrackEvent moves and the header is written again. */
    uint8_t ts[10];
    const size_t ts_len = wt__pfw_varint(ts, (uint64_t)(ts_ns < 0 ? 0 : ts_ns));
    const size_t guess = 1 + 1 + 1 + ts_len + 2 + 1 + 1;
    uint8_t *const pk = w->ob + w->olen, *te = pk + guess;
    pk[0] = 0x0A;                   /* Trace.packet = 1, its length in pk[1] */
    pk[2] = 0x40;                   /* timestamp = 8 */
    memcpy(pk + 3, ts, sizeof ts);  /* whole: what lies past it is written next */
    pk[3 + ts_len] = 0x50;          /* trusted_packet_sequence_id = 10 */
    pk[4 + ts_len] = PF_SEQ_ID;
    pk[5 + ts_len] = 0x5A;          /* track_event = 11, its length in pk[6 + ts_len] */
    size_t t = 0, i = 0;
    if (ciid) {
        te[t++] = 0x18; /* category_iids = 3 */
        t += wt__pfw_varint(te + t, ciid);
    }
    /* the cached annotations as put_ann_str writes them, ready made */
    static const uint8_t hit[9] = { 0x22, 7, 0x08, AN_CACHED, 0x32, 3, 'H', 'I', 'T' };
    static const uint8_t miss[10] = { 0x22, 8, 0x08, AN_CACHED, 0x32, 4, 'M', 'I', 'S', 'S' };
    if (s->cached == WT_CACHED_HIT) {
        memcpy(te + t, hit, sizeof hit);
        t += sizeof hit;
    } else if (s->cached == WT_CACHED_MISS) {
        memcpy(te + t, miss, sizeof miss);
        t += sizeof miss;
    }
    t += put_ann_int(te + t, AN_COUNT, s->count);
    if (s->bytes)
        t += put_ann_int(te + t, AN_BYTES, s->bytes);
    if (dlen)
        t += put_ann_str(te + t, AN_DETAIL, detail, dlen);
    if (s->flags & WT_EVF_UNCLOSED)
        t += put_ann_bool(te + t, AN_UNCLOSED);
    if (s->flags & WT_EVF_MEASURED)
        t += put_ann_bool(te + t, AN_MEASURED);
    te[t++] = 0x48; /* type = 9 */
    te[t++] = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
    if (niid) {
        te[t++] = 0x50; /* name_iid = 10 */
        t += wt__pfw_varint(te + t, niid);
    }
    te[t++] = 0x58; /* track_uuid = 11 */
    t += wt__pfw_track_varint(w, te + t, track);
    if (!ciid) {
        te[t++] = 0xB2; /* categories = 22 */
        te[t++] = 0x01;
        t += wt__pfw_varint(te + t, iclen);
        memcpy(te + t, icat, iclen);
        t += iclen;
    }
    if (!niid) {
        te[t++] = 0xBA; /* name = 23 */
        te[t++] = 0x01;
        t += wt__pfw_varint(te + t, inlen);
        memcpy(te + t, iname, inlen);
        t += inlen;
    }
    size_t body = t; /* what follows the header: the TrackEvent, then the rest */
    if (cnew || nnew) {
        /* interned strings as stored: repaired to UTF-8, so up to three times the input */
        const char *name = nnew ? wt__pf_itab_str(&w->names, niid) : "";
        const char *cat = cnew ? wt__pf_itab_str(&w->cats, ciid) : "";
        uint8_t in[6 * FAST_STR + 64];
        if (cnew) /* event_categories = 1 */
            i += put_interned(in + i, 0x0A, ciid, cat, strlen(cat));
        if (nnew) /* event_names = 2 */
            i += put_interned(in + i, 0x12, niid, name, strlen(name));
        te[body++] = 0x62; /* interned_data = 12 */
        body += wt__pfw_varint(te + body, i);
        memcpy(te + body, in, i);
        body += i;
    }
    te[body++] = 0x68; /* sequence_flags = 13 */
    te[body++] = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;

    const size_t size = guess - 2 + (wt__pfw_varint_len(t) - 1) + body;
    size_t hn = guess;
    if (t < 0x80 && size < 0x80) {
        pk[1] = (uint8_t)size;
        pk[guess - 1] = (uint8_t)t;
    } else { /* a long TrackEvent or packet: the lengths take more bytes */
        uint8_t head[40];
        hn = put_head(head, size, ts, ts_len, t);
        memmove(pk + hn, te, body);
        memcpy(pk, head, hn);
    }
    w->olen += hn + body;
    return wt__pfw_done(w);
}

int wt__pf_span_whole(pf_writer *w, const pf_span *s, int64_t ts, uint64_t track)
{
    int rc = wt__pf_span_begin(w, s, ts, track);
    return rc < 0 ? rc : wt__pf_span_end(w, ts + (s->end - s->ts), track);
}
