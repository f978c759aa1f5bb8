/* The Perfetto sink's packet layer: the 1 MiB output buffer every packet goes through, packets
 * packed by protobuf-c (track descriptors, the sequence's first packet, track events built in a
 * reusable `tev`), and the lanes (tracks) a slice can go on in time order. The per-span fast
 * path (export_pf_fast.c) writes into the same output buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "export_perfetto.h"

/* Debug annotation names by AN_* id. */
static const char *const an_names[AN_COUNT_ALL] = {
    NULL, "cached", "count", "bytes", "detail", "unclosed", "measured", "round", "text",
    "category", "label", "seconds", "cost", "dropped",
};

void wt__pf_packet_init(Perfetto__Protos__TracePacket *pkt)
{
    perfetto__protos__trace_packet__init(pkt);
    pkt->optional_trusted_packet_sequence_id_case =
        PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
    pkt->trusted_packet_sequence_id = SEQ_ID;
}

int wt__pf_flush(pf *p)
{
    if (p->olen && fwrite(p->ob, 1, p->olen, p->out) != p->olen) {
        p->eio = 1;
        p->olen = 0;
        return WT_EIO;
    }
    p->st.bytes += p->olen;
    p->olen = 0;
    return 0;
}

size_t wt__pf_put_varint(uint8_t *b, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
        b[n++] = (uint8_t)(v | 0x80);
    b[n++] = (uint8_t)v;
    return n;
}

/* Appends `n` bytes of a packed TracePacket as field 1 (length-delimited) of Trace. */
int wt__pf_packet(pf *p, const uint8_t *pkt, size_t n)
{
    if (p->olen + n + 16 > OB_CAP && wt__pf_flush(p) < 0)
        return WT_EIO;
    if (n + 16 > OB_CAP) { /* a huge packet (long strings): straight out */
        uint8_t h[16];
        size_t hn = 1;
        h[0] = 0x0A;
        hn += wt__pf_put_varint(h + 1, n);
        if (fwrite(h, 1, hn, p->out) != hn || fwrite(pkt, 1, n, p->out) != n) {
            p->eio = 1;
            return WT_EIO;
        }
        p->st.bytes += hn + n;
        return 0;
    }
    p->ob[p->olen++] = 0x0A; /* field 1, wire type 2 */
    p->olen += wt__pf_put_varint(p->ob + p->olen, n);
    memcpy(p->ob + p->olen, pkt, n);
    p->olen += n;
    return p->olen >= OB_FLUSH ? wt__pf_flush(p) : 0;
}

/* Packs one packet with protobuf-c and writes it. */
int wt__pf_emit(pf *p, const Perfetto__Protos__TracePacket *pkt)
{
    size_t n = perfetto__protos__trace_packet__get_packed_size(pkt);
    if (n > p->cap) {
        size_t nc = p->cap * 2 > n ? p->cap * 2 : n;
        uint8_t *nb = realloc(p->buf, nc);
        if (!nb)
            return WT_ENOMEM;
        p->buf = nb;
        p->cap = nc;
    }
    perfetto__protos__trace_packet__pack(pkt, p->buf);
    return wt__pf_packet(p, p->buf, n);
}

int wt__pf_emit_track(pf *p, Perfetto__Protos__TrackDescriptor *td)
{
    Perfetto__Protos__TracePacket pkt;
    wt__pf_packet_init(&pkt);
    pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
    pkt.track_descriptor = td;
    return wt__pf_emit(p, &pkt);
}

/* A plain named child track of `parent`. */
int wt__pf_child_track(pf *p, uint64_t uuid, uint64_t parent, const char *name, int rank)
{
    Perfetto__Protos__TrackDescriptor td;
    perfetto__protos__track_descriptor__init(&td);
    td.has_uuid = 1;
    td.uuid = uuid;
    td.has_parent_uuid = 1;
    td.parent_uuid = parent;
    td.static_or_dynamic_name_case = PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
    td.name = (char *)name;
    if (rank >= 0) {
        td.has_sibling_order_rank = 1;
        td.sibling_order_rank = rank;
    }
    return wt__pf_emit_track(p, &td);
}

/* The first packet: clears the sequence's incremental state, sets CLOCK_MONOTONIC as its
 * default clock, and interns the debug annotation names. */
int wt__pf_start(pf *p)
{
    Perfetto__Protos__TracePacket pkt;
    Perfetto__Protos__TracePacketDefaults def;
    Perfetto__Protos__InternedData in;
    Perfetto__Protos__DebugAnnotationName dn[AN_COUNT_ALL], *dnp[AN_COUNT_ALL];
    wt__pf_packet_init(&pkt);
    perfetto__protos__trace_packet_defaults__init(&def);
    def.has_timestamp_clock_id = 1;
    def.timestamp_clock_id = CLOCK_MONO;
    perfetto__protos__interned_data__init(&in);
    for (unsigned i = 1; i < AN_COUNT_ALL; i++) {
        perfetto__protos__debug_annotation_name__init(&dn[i]);
        dn[i].has_iid = 1;
        dn[i].iid = i;
        dn[i].name = (char *)an_names[i];
        dnp[i - 1] = &dn[i];
    }
    in.n_debug_annotation_names = AN_COUNT_ALL - 1;
    in.debug_annotation_names = dnp;
    pkt.trace_packet_defaults = &def;
    pkt.interned_data = &in;
    pkt.has_sequence_flags = 1;
    pkt.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
    pkt.has_incremental_state_cleared = 1;
    pkt.incremental_state_cleared = 1;
    pkt.has_first_packet_on_sequence = 1;
    pkt.first_packet_on_sequence = 1;
    p->started = 1;
    return wt__pf_emit(p, &pkt);
}

void wt__pf_tev_init(pf *p, tev *t, int64_t ts, int type, uint64_t track)
{
    wt__pf_packet_init(&t->pkt);
    perfetto__protos__track_event__init(&t->te);
    t->pkt.has_timestamp = 1;
    t->pkt.timestamp = (uint64_t)(ts < 0 ? 0 : ts);
    t->pkt.has_sequence_flags = 1;
    t->pkt.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    t->pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
    t->pkt.track_event = &t->te;
    t->te.has_type = 1;
    t->te.type = type;
    t->te.has_track_uuid = 1;
    t->te.track_uuid = track;
    t->n_ann = 0;
    perfetto__protos__interned_data__init(&p->interned);
}

/* Puts the event name `iid`, just interned, into this packet so every iid resolves. */
void wt__pf_send_name(pf *p, tev *t, uint32_t iid)
{
    perfetto__protos__event_name__init(&p->iname);
    p->iname.has_iid = 1;
    p->iname.iid = iid;
    p->iname.name = p->names.v[iid - 1].s;
    p->iname_p = &p->iname;
    p->interned.n_event_names = 1;
    p->interned.event_names = &p->iname_p;
    t->pkt.interned_data = &p->interned;
}

/* Sets the name and category, interning them; new entries ride in this packet. */
int wt__pf_tev_name(pf *p, tev *t, const char *name, const char *cat)
{
    uint32_t iid;
    int is_new, rc;
    if ((rc = wt__pf_itab_get(&p->names, name ? name : "(none)", &iid, &is_new)) < 0)
        return rc;
    t->te.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
    t->te.name_iid = iid;
    if (is_new)
        wt__pf_send_name(p, t, iid);
    if (!cat)
        return 0;
    if ((rc = wt__pf_itab_get(&p->cats, cat, &iid, &is_new)) < 0)
        return rc;
    t->cat = iid;
    t->te.n_category_iids = 1;
    t->te.category_iids = &t->cat;
    if (is_new) {
        perfetto__protos__event_category__init(&p->icat);
        p->icat.has_iid = 1;
        p->icat.iid = iid;
        p->icat.name = p->cats.v[iid - 1].s;
        p->icat_p = &p->icat;
        p->interned.n_event_categories = 1;
        p->interned.event_categories = &p->icat_p;
        t->pkt.interned_data = &p->interned;
    }
    return 0;
}

static Perfetto__Protos__DebugAnnotation *tev_ann(pf *p, tev *t, unsigned name)
{
    Perfetto__Protos__DebugAnnotation *a = &p->ann[t->n_ann];
    perfetto__protos__debug_annotation__init(a);
    a->name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
    a->name_iid = name;
    p->ann_p[t->n_ann++] = a;
    t->te.n_debug_annotations = t->n_ann;
    t->te.debug_annotations = p->ann_p;
    return a;
}

void wt__pf_ann_str(pf *p, tev *t, unsigned name, const char *s)
{
    Perfetto__Protos__DebugAnnotation *a = tev_ann(p, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
    a->string_value = (char *)s;
}

void wt__pf_ann_int(pf *p, tev *t, unsigned name, int64_t v)
{
    Perfetto__Protos__DebugAnnotation *a = tev_ann(p, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
    a->int_value = v;
}

void wt__pf_ann_real(pf *p, tev *t, unsigned name, double v)
{
    Perfetto__Protos__DebugAnnotation *a = tev_ann(p, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
    a->double_value = v;
}

void wt__pf_ann_bool(pf *p, tev *t, unsigned name)
{
    Perfetto__Protos__DebugAnnotation *a = tev_ann(p, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE;
    a->bool_value = 1;
}

int wt__pf_end_slice(pf *p, int64_t ts, uint64_t track)
{
    tev t;
    wt__pf_tev_init(p, &t, ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END, track);
    return wt__pf_emit(p, &t.pkt);
}

/* The lane of `g` a slice [start, end) can go on in time order, making one when needed. */
int wt__pf_pick_lane(pf *p, lane_group *g, int64_t start, uint64_t parent, const char *cfg,
                     unsigned rank, lane **out)
{
    for (unsigned i = 0; i < g->n; i++) {
        if (g->l[i].last_end <= start) {
            if (i > 0)
                p->st.lanes_extra++;
            *out = &g->l[i];
            return 0;
        }
    }
    if (g->n == WT_EXPORT_MAX_LANES) {
        p->st.misplaced++;
        *out = &g->l[g->n - 1];
        return 0;
    }
    lane *l = &g->l[g->n];
    char base[96], name[128];
    l->uuid = wt__pf_new_uuid(p);
    l->last_end = INT64_MIN;
    if (cfg)
        snprintf(base, sizeof base, "round: %.80s", cfg);
    else
        snprintf(base, sizeof base, "depth %u", rank);
    if (g->n == 0)
        snprintf(name, sizeof name, "%s", base);
    else
        snprintf(name, sizeof name, "%s (overlap %u)", base, g->n);
    int rc = wt__pf_child_track(p, l->uuid, parent, name, (int)(rank * WT_EXPORT_MAX_LANES + g->n));
    if (rc < 0)
        return rc;
    if (g->n > 0)
        p->st.lanes_extra++;
    g->n++;
    *out = l;
    return 0;
}
