/* The Perfetto sink's packet writer (pf_writer.h). */
#include <stdlib.h>
#include <string.h>

#include "pf_writer.h"

/* Any base works, uuids only need be unique within the file (0 is the root's, and never
 * made here): from 1, a track's uuid is a varint of 1-3 bytes. Every slice's begin and end
 * carries its track's, so the base of session 13 and before, 0x5754 << 48 ("WT"), spent 9
 * bytes more on each of them: 16 of the 81 bytes a span of a nested export. */
#define UUID_BASE 0ull

/* Debug annotation names by AN_* id. */
static const char *const an_names[AN_COUNT_ALL] = {
    NULL, "cached", "count", "bytes", "detail", "unclosed", "measured", "round", "text",
    "category", "label", "seconds", "cost", "dropped",
};

int wt__pfw_init(pf_writer *w, FILE *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->intern_left = PF_INTERN_BYTES;
    w->vt_len = 1; /* vt holds track 0's varint: one zero byte */
    w->names.budget = w->cats.budget = &w->intern_left;
    w->cap = 4096;
    w->buf = malloc(w->cap);
    w->ob = malloc(PF_OB_CAP);
    if (!w->buf || !w->ob) {
        wt__pfw_release(w);
        return WT_ENOMEM;
    }
    return 0;
}

void wt__pfw_release(pf_writer *w)
{
    wt__pf_itab_release(&w->names);
    wt__pf_itab_release(&w->cats);
    for (unsigned i = 0; i < PF_FIX_SLOTS; i++)
        free(w->fix[i]);
    free(w->buf);
    free(w->ob);
    memset(w, 0, sizeof *w);
}

uint64_t wt__pfw_uuid(pf_writer *w) { return UUID_BASE + ++w->next_uuid; }

const char *wt__pfw_utf8(pf_writer *w, unsigned slot, const char *s)
{
    size_t len;
    return s ? wt__pfw_utf8_n(w, slot, s, strlen(s), &len) : "";
}

const char *wt__pfw_utf8_n(pf_writer *w, unsigned slot, const char *s, size_t n, size_t *len)
{
    *len = n;
    if (wt__pf_utf8_ok(s, n))
        return s;
    const char *fixed = wt__pf_utf8_fix(s, n, &w->fix[slot], &w->fix_cap[slot]);
    if (!fixed)
        fixed = "";
    *len = strlen(fixed);
    return fixed;
}

int wt__pfw_flush(pf_writer *w)
{
    if (w->olen && fwrite(w->ob, 1, w->olen, w->out) != w->olen) {
        w->eio = 1;
        w->olen = 0;
        return WT_EIO;
    }
    w->bytes += w->olen;
    w->olen = 0;
    return 0;
}

int wt__pfw_reserve(pf_writer *w, size_t n)
{
    if (w->olen + n > PF_OB_CAP && wt__pfw_flush(w) < 0)
        return WT_EIO;
    return 0;
}

int wt__pfw_done(pf_writer *w) { return w->olen >= PF_OB_FLUSH ? wt__pfw_flush(w) : 0; }

int wt__pfw_packet(pf_writer *w, const uint8_t *pkt, size_t n)
{
    if (wt__pfw_reserve(w, n + 16) < 0)
        return WT_EIO;
    if (n + 16 > PF_OB_CAP) { /* a huge packet (long strings): straight out */
        uint8_t h[16];
        size_t hn = 1;
        h[0] = 0x0A;
        hn += wt__pfw_varint(h + 1, n);
        if (fwrite(h, 1, hn, w->out) != hn || fwrite(pkt, 1, n, w->out) != n) {
            w->eio = 1;
            return WT_EIO;
        }
        w->bytes += hn + n;
        return 0;
    }
    w->ob[w->olen++] = 0x0A; /* Trace.packet = 1, wire type 2 */
    w->olen += wt__pfw_varint(w->ob + w->olen, n);
    memcpy(w->ob + w->olen, pkt, n);
    w->olen += n;
    return wt__pfw_done(w);
}

void wt__pfw_packet_init(Perfetto__Protos__TracePacket *pkt)
{
    perfetto__protos__trace_packet__init(pkt);
    pkt->optional_trusted_packet_sequence_id_case =
        PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
    pkt->trusted_packet_sequence_id = PF_SEQ_ID;
}

int wt__pfw_emit(pf_writer *w, const Perfetto__Protos__TracePacket *pkt)
{
    size_t n = perfetto__protos__trace_packet__get_packed_size(pkt);
    if (n > w->cap) {
        size_t nc = w->cap * 2 > n ? w->cap * 2 : n;
        uint8_t *nb = realloc(w->buf, nc);
        if (!nb)
            return WT_ENOMEM;
        w->buf = nb;
        w->cap = nc;
    }
    perfetto__protos__trace_packet__pack(pkt, w->buf);
    return wt__pfw_packet(w, w->buf, n);
}

int wt__pfw_emit_track(pf_writer *w, Perfetto__Protos__TrackDescriptor *td)
{
    Perfetto__Protos__TracePacket pkt;
    wt__pfw_packet_init(&pkt);
    pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
    pkt.track_descriptor = td;
    return wt__pfw_emit(w, &pkt);
}

int wt__pfw_track(pf_writer *w, uint64_t uuid, uint64_t parent, const char *name, int rank,
                  int ordered)
{
    Perfetto__Protos__TrackDescriptor td;
    perfetto__protos__track_descriptor__init(&td);
    td.has_uuid = 1;
    td.uuid = uuid;
    if (parent) {
        td.has_parent_uuid = 1;
        td.parent_uuid = parent;
    }
    td.static_or_dynamic_name_case = PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
    td.name = (char *)wt__pfw_utf8(w, 8, name);
    if (rank >= 0) {
        td.has_sibling_order_rank = 1;
        td.sibling_order_rank = rank;
    }
    if (ordered) {
        td.has_child_ordering = 1;
        td.child_ordering = PERFETTO__PROTOS__TRACK_DESCRIPTOR__CHILD_TRACKS_ORDERING__EXPLICIT;
    }
    return wt__pfw_emit_track(w, &td);
}

int wt__pfw_start(pf_writer *w)
{
    Perfetto__Protos__TracePacket pkt;
    Perfetto__Protos__TracePacketDefaults def;
    Perfetto__Protos__InternedData in;
    Perfetto__Protos__DebugAnnotationName dn[AN_COUNT_ALL], *dnp[AN_COUNT_ALL];
    if (w->started)
        return 0;
    wt__pfw_packet_init(&pkt);
    perfetto__protos__trace_packet_defaults__init(&def);
    def.has_timestamp_clock_id = 1;
    def.timestamp_clock_id = PF_CLOCK_MONO;
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
    w->started = 1;
    return wt__pfw_emit(w, &pkt);
}

void wt__pfw_tev_init(pf_writer *w, pf_tev *t, int64_t ts, int type, uint64_t track)
{
    wt__pfw_packet_init(&t->pkt);
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
    perfetto__protos__interned_data__init(&w->interned);
}

void wt__pfw_send_name(pf_writer *w, pf_tev *t, uint32_t iid)
{
    perfetto__protos__event_name__init(&w->iname);
    w->iname.has_iid = 1;
    w->iname.iid = iid;
    w->iname.name = (char *)wt__pf_itab_str(&w->names, iid);
    w->iname_p = &w->iname;
    w->interned.n_event_names = 1;
    w->interned.event_names = &w->iname_p;
    t->pkt.interned_data = &w->interned;
}

int wt__pfw_tev_name(pf_writer *w, pf_tev *t, const char *name, const char *cat)
{
    uint32_t iid;
    int is_new, rc;
    if ((rc = wt__pf_itab_get(&w->names, name ? name : "(none)", &iid, &is_new)) < 0)
        return rc;
    if (!iid) {
        t->te.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME;
        t->te.name = (char *)wt__pfw_utf8(w, 8, name ? name : "(none)");
    } else {
        t->te.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
        t->te.name_iid = iid;
    }
    if (is_new)
        wt__pfw_send_name(w, t, iid);
    if (!cat)
        return 0;
    if ((rc = wt__pf_itab_get(&w->cats, cat, &iid, &is_new)) < 0)
        return rc;
    if (!iid) {
        t->cat_s = (char *)wt__pfw_utf8(w, 9, cat);
        t->te.n_categories = 1;
        t->te.categories = &t->cat_s;
        return 0;
    }
    t->cat = iid;
    t->te.n_category_iids = 1;
    t->te.category_iids = &t->cat;
    if (is_new) {
        perfetto__protos__event_category__init(&w->icat);
        w->icat.has_iid = 1;
        w->icat.iid = iid;
        w->icat.name = (char *)wt__pf_itab_str(&w->cats, iid);
        w->icat_p = &w->icat;
        w->interned.n_event_categories = 1;
        w->interned.event_categories = &w->icat_p;
        t->pkt.interned_data = &w->interned;
    }
    return 0;
}

static Perfetto__Protos__DebugAnnotation *tev_ann(pf_writer *w, pf_tev *t, unsigned name)
{
    Perfetto__Protos__DebugAnnotation *a = &w->ann[t->n_ann];
    perfetto__protos__debug_annotation__init(a);
    a->name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
    a->name_iid = name;
    w->ann_p[t->n_ann++] = a;
    t->te.n_debug_annotations = t->n_ann;
    t->te.debug_annotations = w->ann_p;
    return a;
}

void wt__pfw_ann_str(pf_writer *w, pf_tev *t, unsigned name, const char *s)
{
    const char *v = wt__pfw_utf8(w, (unsigned)t->n_ann, s);
    Perfetto__Protos__DebugAnnotation *a = tev_ann(w, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
    a->string_value = (char *)v;
}

void wt__pfw_ann_int(pf_writer *w, pf_tev *t, unsigned name, int64_t v)
{
    Perfetto__Protos__DebugAnnotation *a = tev_ann(w, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
    a->int_value = v;
}

void wt__pfw_ann_real(pf_writer *w, pf_tev *t, unsigned name, double v)
{
    Perfetto__Protos__DebugAnnotation *a = tev_ann(w, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
    a->double_value = v;
}

void wt__pfw_ann_bool(pf_writer *w, pf_tev *t, unsigned name)
{
    Perfetto__Protos__DebugAnnotation *a = tev_ann(w, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE;
    a->bool_value = 1;
}

int wt__pfw_end_slice(pf_writer *w, int64_t ts, uint64_t track)
{
    pf_tev t;
    wt__pfw_tev_init(w, &t, ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END, track);
    return wt__pfw_emit(w, &t.pkt);
}
