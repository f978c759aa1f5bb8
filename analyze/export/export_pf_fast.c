/* The Perfetto sink's fast path: span BEGIN and END packets encoded directly.
 *
 * protobuf-c packs through its generic descriptors, and sizes every nested message twice: at
 * two packets per span that was over half of the export's time (docs/EXPORT.md). The span
 * BEGIN and END packets are therefore written here by hand, field for field as protobuf-c
 * writes the same message (fields in field-number order, proto2 unpacked repeated fields),
 * so the bytes are identical: test_export_fast_path_matches_protobuf_c compares whole files
 * exported both ways. Strings longer than FAST_STR take the protobuf-c path.
 */
#include <stdlib.h>
#include <string.h>

#include "export_perfetto.h"

#define FAST_STR 4096u

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static size_t put_len_field(uint8_t *b, uint8_t tag, const char *s, size_t len)
{
    size_t n = 0;
    b[n++] = tag;
    n += wt__pf_put_varint(b + n, len);
    memcpy(b + n, s, len);
    return n + len;
}

/* DebugAnnotation (TrackEvent field 4) with name_iid (1) and one value field. */
static size_t put_ann_str(uint8_t *b, unsigned name, const char *s, size_t len)
{
    size_t n = 0;
    b[n++] = 0x22;
    n += wt__pf_put_varint(b + n, 2 + 1 + varint_len(len) + len);
    b[n++] = 0x08;
    b[n++] = (uint8_t)name;
    return n + put_len_field(b + n, 0x32, s, len); /* string_value = 6 */
}

static size_t put_ann_int(uint8_t *b, unsigned name, int64_t v)
{
    size_t n = 0;
    b[n++] = 0x22;
    b[n++] = (uint8_t)(2 + 1 + varint_len((uint64_t)v));
    b[n++] = 0x08;
    b[n++] = (uint8_t)name;
    b[n++] = 0x20; /* int_value = 4 */
    return n + wt__pf_put_varint(b + n, (uint64_t)v);
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
static size_t put_interned(uint8_t *b, uint8_t tag, uint32_t iid, const char *s)
{
    size_t len = strlen(s), n = 0;
    b[n++] = tag;
    n += wt__pf_put_varint(b + n, 1 + varint_len(iid) + 1 + varint_len(len) + len);
    b[n++] = 0x08;
    n += wt__pf_put_varint(b + n, iid);
    return n + put_len_field(b + n, 0x12, s, len);
}

int wt__pf_fast_end(pf *p, int64_t ts, uint64_t track)
{
    uint8_t b[48];
    size_t n = 0;
    b[n++] = 0x40; /* timestamp = 8 */
    n += wt__pf_put_varint(b + n, (uint64_t)(ts < 0 ? 0 : ts));
    b[n++] = 0x50; /* trusted_packet_sequence_id = 10 */
    b[n++] = SEQ_ID;
    b[n++] = 0x5A; /* track_event = 11 */
    b[n++] = (uint8_t)(2 + 1 + varint_len(track));
    b[n++] = 0x48; /* type = 9 */
    b[n++] = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
    b[n++] = 0x58; /* track_uuid = 11 */
    n += wt__pf_put_varint(b + n, track);
    b[n++] = 0x68; /* sequence_flags = 13 */
    b[n++] = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    return wt__pf_packet(p, b, n);
}

int wt__pf_fast_begin(pf *p, const wt_event *ev, int64_t ts_ns, uint64_t track)
{
    const char *name = ev->label ? ev->label : "(none)";
    const char *cat = ev->category ? ev->category : "(none)";
    size_t dlen = ev->detail ? strlen(ev->detail) : 0;
    uint32_t niid, ciid;
    int nnew, cnew, rc;
    if (dlen > FAST_STR || strlen(name) > FAST_STR || strlen(cat) > FAST_STR)
        return 1;
    if ((rc = wt__pf_itab_get(&p->names, name, &niid, &nnew)) < 0 ||
        (rc = wt__pf_itab_get(&p->cats, cat, &ciid, &cnew)) < 0)
        return rc;
    uint8_t te[FAST_STR + 256], in[2 * FAST_STR + 64];
    size_t t = 0, i = 0, n = 0;
    te[t++] = 0x18; /* category_iids = 3 */
    t += wt__pf_put_varint(te + t, ciid);
    if (ev->cached == WT_CACHED_HIT)
        t += put_ann_str(te + t, AN_CACHED, "HIT", 3);
    else if (ev->cached == WT_CACHED_MISS)
        t += put_ann_str(te + t, AN_CACHED, "MISS", 4);
    t += put_ann_int(te + t, AN_COUNT, ev->count);
    if (ev->bytes)
        t += put_ann_int(te + t, AN_BYTES, ev->bytes);
    if (dlen)
        t += put_ann_str(te + t, AN_DETAIL, ev->detail, dlen);
    if (ev->flags & WT_EVF_UNCLOSED)
        t += put_ann_bool(te + t, AN_UNCLOSED);
    if (ev->flags & WT_EVF_MEASURED)
        t += put_ann_bool(te + t, AN_MEASURED);
    te[t++] = 0x48; /* type = 9 */
    te[t++] = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
    te[t++] = 0x50; /* name_iid = 10 */
    t += wt__pf_put_varint(te + t, niid);
    te[t++] = 0x58; /* track_uuid = 11 */
    t += wt__pf_put_varint(te + t, track);
    if (cnew)
        i += put_interned(in + i, 0x0A, ciid, cat); /* event_categories = 1 */
    if (nnew)
        i += put_interned(in + i, 0x12, niid, name); /* event_names = 2 */

    /* straight into the output buffer: the packet's size is known from its parts */
    uint64_t ts = (uint64_t)(ts_ns < 0 ? 0 : ts_ns);
    size_t size = 1 + varint_len(ts) + 2 + 1 + varint_len(t) + t + 2;
    if (i)
        size += 1 + varint_len(i) + i;
    if (p->olen + size + 16 > OB_CAP && wt__pf_flush(p) < 0)
        return WT_EIO;
    uint8_t *pk = p->ob + p->olen;
    pk[n++] = 0x0A; /* Trace.packet = 1 */
    n += wt__pf_put_varint(pk + n, size);
    pk[n++] = 0x40;
    n += wt__pf_put_varint(pk + n, ts);
    pk[n++] = 0x50;
    pk[n++] = SEQ_ID;
    pk[n++] = 0x5A;
    n += wt__pf_put_varint(pk + n, t);
    memcpy(pk + n, te, t);
    n += t;
    if (i) {
        pk[n++] = 0x62; /* interned_data = 12 */
        n += wt__pf_put_varint(pk + n, i);
        memcpy(pk + n, in, i);
        n += i;
    }
    pk[n++] = 0x68;
    pk[n++] = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    p->olen += n;
    return p->olen >= OB_FLUSH ? wt__pf_flush(p) : 0;
}
