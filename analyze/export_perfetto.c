/* The Perfetto sink of `export`: TracePackets (analyze/wt_perfetto.proto, packed by protobuf-c)
 * written one by one as length-delimited field 1 of a Trace, as the events stream in.
 *
 * Workload: up to tens of millions of spans, two packets each, so the per-span path does no
 * allocation in the steady state: one reusable packet and pack buffer, interned names and
 * categories looked up through a pointer cache (the reader hands out one pointer per distinct
 * string of a file), and tracks found through a hash map.
 *
 * Spans arrive per thread in END order (children before their parent) with their depth, but
 * Perfetto wants each track's begins and ends in time order. Instead of holding children until
 * their parent arrives (memory bounded only by the largest subtree, i.e. not bounded: one root
 * span around ten million children holds them all), every (thread, depth) gets its own track:
 * spans of one depth of one thread never overlap, so they arrive in start order and each can be
 * written as BEGIN/END at once. The thread track carries depth 0; depth d >= 1 is a child track
 * "depth d" under it, ordered by depth, so the thread reads as a flame chart. Memory: a few
 * bytes per (thread, depth). The one exception, a wt_record() span measured longer than the
 * gap since its previous sibling ended, goes to an "overlap" track of that depth
 * (WT_EXPORT_MAX_LANES per depth). docs/EXPORT.md has the measurements.
 *
 * One packet sequence (trusted_packet_sequence_id 1) carries everything: its first packet
 * clears the incremental state and sets the default clock (CLOCK_MONOTONIC, the recorder's),
 * names and categories are interned on first use in the packet that uses them, and every track
 * event packet says it needs that state.
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "wt_perfetto.pb-c.h"

#define SEQ_ID 1u
#define CLOCK_MONO 3u
#define CLOCK_REAL 1u
#define UUID_BASE 0x5754000000000000ull /* "WT": any base works, uuids only need be unique */
#define PTR_CACHE 1024
#define OB_CAP (1u << 20)
#define OB_FLUSH (OB_CAP - (64u << 10)) /* leaves room for one fast-path packet */

/* Debug annotation names, interned once in the first packet. */
enum { AN_CACHED = 1, AN_COUNT, AN_BYTES, AN_DETAIL, AN_UNCLOSED, AN_MEASURED, AN_ROUND, AN_TEXT,
       AN_CATEGORY, AN_LABEL, AN_SECONDS, AN_COST, AN_DROPPED, AN_COUNT_ALL };
static const char *const an_names[AN_COUNT_ALL] = {
    NULL, "cached", "count", "bytes", "detail", "unclosed", "measured", "round", "text",
    "category", "label", "seconds", "cost", "dropped",
};

/* ---- string interning: content -> iid (1..), one table per iid space ---- */

typedef struct istr {
    char *s;
    uint64_t h;
} istr;

typedef struct itab {
    istr *v;          /* v[iid - 1] */
    size_t n, vcap;
    uint32_t *slots;  /* open addressing: iid, 0 = empty */
    size_t scap;      /* power of two */
    struct { const char *p; uint32_t iid; } cache[PTR_CACHE];
} itab;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a: strings are short labels */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static int itab_grow(itab *t)
{
    size_t ncap = t->scap ? t->scap * 2 : 256;
    uint32_t *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return WT_ENOMEM;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = t->v[i].h & (ncap - 1);
        while (ns[j])
            j = (j + 1) & (ncap - 1);
        ns[j] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = ns;
    t->scap = ncap;
    return 0;
}

/* The iid of `s`; *is_new is set when it was just added (it must be sent in this packet). */
static int itab_get(itab *t, const char *s, uint32_t *iid, int *is_new)
{
    size_t c = ((uintptr_t)s >> 3) & (PTR_CACHE - 1);
    *is_new = 0;
    if (t->cache[c].p == s) {
        *iid = t->cache[c].iid;
        return 0;
    }
    if ((t->n + 1) * 2 > t->scap && itab_grow(t) < 0)
        return WT_ENOMEM;
    uint64_t h = hash_str(s);
    size_t j = h & (t->scap - 1);
    for (; t->slots[j]; j = (j + 1) & (t->scap - 1)) {
        const istr *e = &t->v[t->slots[j] - 1];
        if (e->h == h && !strcmp(e->s, s)) {
            *iid = t->slots[j];
            goto found;
        }
    }
    if (t->n == t->vcap) {
        size_t nc = t->vcap ? t->vcap * 2 : 256;
        istr *nv = realloc(t->v, nc * sizeof *nv);
        if (!nv)
            return WT_ENOMEM;
        t->v = nv;
        t->vcap = nc;
    }
    char *copy = strdup(s);
    if (!copy)
        return WT_ENOMEM;
    t->v[t->n].s = copy;
    t->v[t->n].h = h;
    t->slots[j] = (uint32_t)++t->n;
    *iid = (uint32_t)t->n;
    *is_new = 1;
found:
    t->cache[c].p = s;
    t->cache[c].iid = *iid;
    return 0;
}

static void itab_release(itab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].s);
    free(t->v);
    free(t->slots);
}

/* ---- a map from two 64-bit keys to an index ---- */

typedef struct kslot {
    uint64_t a, b;
    uint32_t v; /* index + 1, 0 = empty */
} kslot;

typedef struct kmap {
    kslot *s;
    size_t cap, n;
} kmap;

static size_t kmix(uint64_t a, uint64_t b)
{
    uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    return (size_t)(x ^ (x >> 29));
}

static uint32_t kmap_get(const kmap *m, uint64_t a, uint64_t b)
{
    if (!m->cap)
        return 0;
    for (size_t j = kmix(a, b) & (m->cap - 1); m->s[j].v; j = (j + 1) & (m->cap - 1))
        if (m->s[j].a == a && m->s[j].b == b)
            return m->s[j].v;
    return 0;
}

static int kmap_put(kmap *m, uint64_t a, uint64_t b, uint32_t v)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        kslot *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return WT_ENOMEM;
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->s[i].v)
                continue;
            size_t j = kmix(m->s[i].a, m->s[i].b) & (nc - 1);
            while (ns[j].v)
                j = (j + 1) & (nc - 1);
            ns[j] = m->s[i];
        }
        free(m->s);
        m->s = ns;
        m->cap = nc;
    }
    size_t j = kmix(a, b) & (m->cap - 1);
    while (m->s[j].v)
        j = (j + 1) & (m->cap - 1);
    m->s[j] = (kslot){ a, b, v };
    m->n++;
    return 0;
}

/* ---- tracks ---- */

typedef struct lane {
    uint64_t uuid;
    int64_t last_end;
} lane;

/* The tracks of one depth of a thread, or of one round configuration. */
typedef struct lane_group {
    unsigned n;
    lane l[WT_EXPORT_MAX_LANES];
} lane_group;

typedef struct pf_thread {
    uint64_t uuid;       /* the thread track: depth 0, first lane */
    uint64_t marks_uuid; /* 0 until the first mark */
    uint64_t tid;
    unsigned n_depth;
    lane_group *depth;   /* [n_depth], grown on demand up to WT_EXPORT_MAX_DEPTH */
} pf_thread;

typedef struct pf_file {
    uint64_t pid;
    uint64_t proc_uuid;
    uint64_t anom_uuid; /* 0 until the first anomaly */
} pf_file;

typedef struct pf {
    FILE *out;
    uint8_t *buf;  /* protobuf-c packs here */
    size_t cap;
    uint8_t *ob;   /* the output buffer: written out when OB_FLUSH bytes are in it */
    size_t olen;
    int reference; /* pack span packets with protobuf-c too (tests compare the two) */
    uint64_t next_uuid;
    int started;
    itab names, cats;
    uint32_t run_name, run_cat; /* iids of "walltime: run" / "walltime" */
    pf_file *files;
    size_t n_files;
    pf_thread *threads;
    size_t n_threads, threads_cap;
    kmap thread_map;  /* (file, tid) -> thread */
    size_t last_th;   /* the last thread looked up, + 1 (spans come in chunks per thread) */
    int last_fi;
    kmap counter_map; /* (file, name iid) -> uuid index in uuids */
    kmap round_map;   /* (file, config iid) -> rounds index */
    lane_group *rounds;
    size_t n_rounds, rounds_cap;
    int eio;
    wt_export_sink_stats st;
    /* the packet under construction, reused */
    Perfetto__Protos__InternedData interned;
    Perfetto__Protos__EventName iname, *iname_p;
    Perfetto__Protos__EventCategory icat, *icat_p;
    uint64_t cat_iid;
    Perfetto__Protos__DebugAnnotation ann[8], *ann_p[8];
} pf;

static uint64_t new_uuid(pf *p) { return UUID_BASE + ++p->next_uuid; }

static void packet_init(Perfetto__Protos__TracePacket *pkt)
{
    perfetto__protos__trace_packet__init(pkt);
    pkt->optional_trusted_packet_sequence_id_case =
        PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
    pkt->trusted_packet_sequence_id = SEQ_ID;
}

static int ob_flush(pf *p)
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

static size_t put_varint(uint8_t *b, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
        b[n++] = (uint8_t)(v | 0x80);
    b[n++] = (uint8_t)v;
    return n;
}

/* Appends `n` bytes of a packed TracePacket as field 1 (length-delimited) of Trace. */
static int ob_packet(pf *p, const uint8_t *pkt, size_t n)
{
    if (p->olen + n + 16 > OB_CAP && ob_flush(p) < 0)
        return WT_EIO;
    if (n + 16 > OB_CAP) { /* a huge packet (long strings): straight out */
        uint8_t h[16];
        size_t hn = 1;
        h[0] = 0x0A;
        hn += put_varint(h + 1, n);
        if (fwrite(h, 1, hn, p->out) != hn || fwrite(pkt, 1, n, p->out) != n) {
            p->eio = 1;
            return WT_EIO;
        }
        p->st.bytes += hn + n;
        return 0;
    }
    p->ob[p->olen++] = 0x0A; /* field 1, wire type 2 */
    p->olen += put_varint(p->ob + p->olen, n);
    memcpy(p->ob + p->olen, pkt, n);
    p->olen += n;
    return p->olen >= OB_FLUSH ? ob_flush(p) : 0;
}

/* Packs one packet with protobuf-c and writes it. */
static int emit(pf *p, const Perfetto__Protos__TracePacket *pkt)
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
    return ob_packet(p, p->buf, n);
}

static int emit_track(pf *p, Perfetto__Protos__TrackDescriptor *td)
{
    Perfetto__Protos__TracePacket pkt;
    packet_init(&pkt);
    pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
    pkt.track_descriptor = td;
    return emit(p, &pkt);
}

/* A plain named child track of `parent`. */
static int emit_child_track(pf *p, uint64_t uuid, uint64_t parent, const char *name, int rank)
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
    return emit_track(p, &td);
}

/* The first packet: clears the sequence's incremental state, sets CLOCK_MONOTONIC as its
 * default clock, and interns the debug annotation names. */
static int start(pf *p)
{
    Perfetto__Protos__TracePacket pkt;
    Perfetto__Protos__TracePacketDefaults def;
    Perfetto__Protos__InternedData in;
    Perfetto__Protos__DebugAnnotationName dn[AN_COUNT_ALL], *dnp[AN_COUNT_ALL];
    packet_init(&pkt);
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
    return emit(p, &pkt);
}

/* ---- track events ---- */

typedef struct tev {
    Perfetto__Protos__TracePacket pkt;
    Perfetto__Protos__TrackEvent te;
    uint64_t cat;
    size_t n_ann;
} tev;

static void tev_init(pf *p, tev *t, int64_t ts, int type, uint64_t track)
{
    packet_init(&t->pkt);
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
static void send_name(pf *p, tev *t, uint32_t iid)
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
static int tev_name(pf *p, tev *t, const char *name, const char *cat)
{
    uint32_t iid;
    int is_new, rc;
    if ((rc = itab_get(&p->names, name ? name : "(none)", &iid, &is_new)) < 0)
        return rc;
    t->te.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
    t->te.name_iid = iid;
    if (is_new)
        send_name(p, t, iid);
    if (!cat)
        return 0;
    if ((rc = itab_get(&p->cats, cat, &iid, &is_new)) < 0)
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

static void ann_str(pf *p, tev *t, unsigned name, const char *s)
{
    Perfetto__Protos__DebugAnnotation *a = tev_ann(p, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
    a->string_value = (char *)s;
}

static void ann_int(pf *p, tev *t, unsigned name, int64_t v)
{
    Perfetto__Protos__DebugAnnotation *a = tev_ann(p, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
    a->int_value = v;
}

static void ann_real(pf *p, tev *t, unsigned name, double v)
{
    Perfetto__Protos__DebugAnnotation *a = tev_ann(p, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
    a->double_value = v;
}

static void ann_bool(pf *p, tev *t, unsigned name)
{
    Perfetto__Protos__DebugAnnotation *a = tev_ann(p, t, name);
    a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE;
    a->bool_value = 1;
}

static int end_slice(pf *p, int64_t ts, uint64_t track)
{
    tev t;
    tev_init(p, &t, ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END, track);
    return emit(p, &t.pkt);
}

/* The lane of `g` a slice [start, end) can go on in time order, making one when needed. */
static int pick_lane(pf *p, lane_group *g, int64_t start, uint64_t parent, const char *cfg,
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
    l->uuid = new_uuid(p);
    l->last_end = INT64_MIN;
    if (cfg)
        snprintf(base, sizeof base, "round: %.80s", cfg);
    else
        snprintf(base, sizeof base, "depth %u", rank);
    if (g->n == 0)
        snprintf(name, sizeof name, "%s", base);
    else
        snprintf(name, sizeof name, "%s (overlap %u)", base, g->n);
    int rc = emit_child_track(p, l->uuid, parent, name, (int)(rank * WT_EXPORT_MAX_LANES + g->n));
    if (rc < 0)
        return rc;
    if (g->n > 0)
        p->st.lanes_extra++;
    g->n++;
    *out = l;
    return 0;
}

static int emit_thread_track(pf *p, const pf_file *f, const pf_thread *th, const char *name)
{
    Perfetto__Protos__TrackDescriptor td;
    Perfetto__Protos__ThreadDescriptor thd;
    perfetto__protos__track_descriptor__init(&td);
    perfetto__protos__thread_descriptor__init(&thd);
    td.has_uuid = 1;
    td.uuid = th->uuid;
    td.has_child_ordering = 1;
    td.child_ordering = PERFETTO__PROTOS__TRACK_DESCRIPTOR__CHILD_TRACKS_ORDERING__EXPLICIT;
    thd.has_pid = thd.has_tid = 1;
    thd.pid = (int32_t)f->pid;
    thd.tid = (int64_t)th->tid;
    thd.thread_name = (char *)name;
    td.thread = &thd;
    return emit_track(p, &td);
}

static int get_thread(pf *p, int fi, uint64_t tid, pf_thread **out)
{
    if (p->last_th && p->last_fi == fi && p->threads[p->last_th - 1].tid == tid) {
        *out = &p->threads[p->last_th - 1];
        return 0;
    }
    uint32_t v = kmap_get(&p->thread_map, (uint64_t)fi, tid);
    if (v) {
        p->last_th = v;
        p->last_fi = fi;
        *out = &p->threads[v - 1];
        return 0;
    }
    if (p->n_threads == p->threads_cap) {
        size_t nc = p->threads_cap ? p->threads_cap * 2 : 16;
        pf_thread *nt = realloc(p->threads, nc * sizeof *nt);
        if (!nt)
            return WT_ENOMEM;
        p->threads = nt;
        p->threads_cap = nc;
    }
    pf_thread *th = &p->threads[p->n_threads];
    memset(th, 0, sizeof *th);
    th->tid = tid;
    th->uuid = new_uuid(p);
    int rc = kmap_put(&p->thread_map, (uint64_t)fi, tid, (uint32_t)(p->n_threads + 1));
    if (rc < 0)
        return rc;
    p->n_threads++;
    /* depth 0's first lane is the thread track itself */
    lane_group *g = calloc(1, sizeof *g);
    if (!g)
        return WT_ENOMEM;
    g->n = 1;
    g->l[0].uuid = th->uuid;
    g->l[0].last_end = INT64_MIN;
    th->depth = g;
    th->n_depth = 1;
    char name[48];
    snprintf(name, sizeof name, "thread %llu", (unsigned long long)tid);
    *out = th;
    return emit_thread_track(p, &p->files[fi], th, name);
}

/* ---- the fast path: span packets encoded directly ----
 * protobuf-c packs through its generic descriptors, and sizes every nested message twice: at
 * two packets per span that was over half of the export's time (docs/EXPORT.md). The span
 * BEGIN and END packets are therefore written here by hand, field for field as protobuf-c
 * writes the same message (fields in field-number order, proto2 unpacked repeated fields),
 * so the bytes are identical: test_export_fast_path_matches_protobuf_c compares whole files
 * exported both ways. Strings longer than FAST_STR take the protobuf-c path. */

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
    n += put_varint(b + n, len);
    memcpy(b + n, s, len);
    return n + len;
}

/* DebugAnnotation (TrackEvent field 4) with name_iid (1) and one value field. */
static size_t put_ann_str(uint8_t *b, unsigned name, const char *s, size_t len)
{
    size_t n = 0;
    b[n++] = 0x22;
    n += put_varint(b + n, 2 + 1 + varint_len(len) + len);
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
    return n + put_varint(b + n, (uint64_t)v);
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
    n += put_varint(b + n, 1 + varint_len(iid) + 1 + varint_len(len) + len);
    b[n++] = 0x08;
    n += put_varint(b + n, iid);
    return n + put_len_field(b + n, 0x12, s, len);
}

static int fast_end(pf *p, int64_t ts, uint64_t track)
{
    uint8_t b[48];
    size_t n = 0;
    b[n++] = 0x40; /* timestamp = 8 */
    n += put_varint(b + n, (uint64_t)(ts < 0 ? 0 : ts));
    b[n++] = 0x50; /* trusted_packet_sequence_id = 10 */
    b[n++] = SEQ_ID;
    b[n++] = 0x5A; /* track_event = 11 */
    b[n++] = (uint8_t)(2 + 1 + varint_len(track));
    b[n++] = 0x48; /* type = 9 */
    b[n++] = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
    b[n++] = 0x58; /* track_uuid = 11 */
    n += put_varint(b + n, track);
    b[n++] = 0x68; /* sequence_flags = 13 */
    b[n++] = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    return ob_packet(p, b, n);
}

/* Returns 1 when the span does not fit the fast path (then nothing was written). */
static int fast_begin(pf *p, const wt_event *ev, uint64_t track)
{
    const char *name = ev->label ? ev->label : "(none)";
    const char *cat = ev->category ? ev->category : "(none)";
    size_t dlen = ev->detail ? strlen(ev->detail) : 0;
    uint32_t niid, ciid;
    int nnew, cnew, rc;
    if (dlen > FAST_STR || strlen(name) > FAST_STR || strlen(cat) > FAST_STR)
        return 1;
    if ((rc = itab_get(&p->names, name, &niid, &nnew)) < 0 ||
        (rc = itab_get(&p->cats, cat, &ciid, &cnew)) < 0)
        return rc;
    uint8_t te[FAST_STR + 256], in[2 * FAST_STR + 64];
    size_t t = 0, i = 0, n = 0;
    te[t++] = 0x18; /* category_iids = 3 */
    t += put_varint(te + t, ciid);
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
    t += put_varint(te + t, niid);
    te[t++] = 0x58; /* track_uuid = 11 */
    t += put_varint(te + t, track);
    if (cnew)
        i += put_interned(in + i, 0x0A, ciid, cat); /* event_categories = 1 */
    if (nnew)
        i += put_interned(in + i, 0x12, niid, name); /* event_names = 2 */

    /* straight into the output buffer: the packet's size is known from its parts */
    uint64_t ts = (uint64_t)(ev->ts < 0 ? 0 : ev->ts);
    size_t size = 1 + varint_len(ts) + 2 + 1 + varint_len(t) + t + 2;
    if (i)
        size += 1 + varint_len(i) + i;
    if (p->olen + size + 16 > OB_CAP && ob_flush(p) < 0)
        return WT_EIO;
    uint8_t *pk = p->ob + p->olen;
    pk[n++] = 0x0A; /* Trace.packet = 1 */
    n += put_varint(pk + n, size);
    pk[n++] = 0x40;
    n += put_varint(pk + n, ts);
    pk[n++] = 0x50;
    pk[n++] = SEQ_ID;
    pk[n++] = 0x5A;
    n += put_varint(pk + n, t);
    memcpy(pk + n, te, t);
    n += t;
    if (i) {
        pk[n++] = 0x62; /* interned_data = 12 */
        n += put_varint(pk + n, i);
        memcpy(pk + n, in, i);
        n += i;
    }
    pk[n++] = 0x68;
    pk[n++] = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    p->olen += n;
    return p->olen >= OB_FLUSH ? ob_flush(p) : 0;
}

static int span(pf *p, int fi, const wt_event *ev)
{
    pf_thread *th;
    int rc = get_thread(p, fi, ev->tid, &th);
    if (rc < 0)
        return rc;
    unsigned d = ev->depth;
    if (d >= WT_EXPORT_MAX_DEPTH) {
        p->st.depth_clamped++;
        d = WT_EXPORT_MAX_DEPTH - 1;
    }
    if (d >= th->n_depth) {
        lane_group *ng = realloc(th->depth, (d + 1) * sizeof *ng);
        if (!ng)
            return WT_ENOMEM;
        memset(ng + th->n_depth, 0, (d + 1 - th->n_depth) * sizeof *ng);
        th->depth = ng;
        th->n_depth = d + 1;
    }
    lane *l;
    int64_t end = ev->ts + (ev->dur > 0 ? ev->dur : 0);
    if ((rc = pick_lane(p, &th->depth[d], ev->ts, th->uuid, NULL, d, &l)) < 0)
        return rc;
    l->last_end = end;
    if (!p->reference) {
        rc = fast_begin(p, ev, l->uuid);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            p->st.spans++;
            return fast_end(p, end, l->uuid);
        }
    }

    tev t;
    tev_init(p, &t, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, l->uuid);
    if ((rc = tev_name(p, &t, ev->label, ev->category ? ev->category : "(none)")) < 0)
        return rc;
    if (ev->cached == WT_CACHED_HIT)
        ann_str(p, &t, AN_CACHED, "HIT");
    else if (ev->cached == WT_CACHED_MISS)
        ann_str(p, &t, AN_CACHED, "MISS");
    ann_int(p, &t, AN_COUNT, ev->count);
    if (ev->bytes)
        ann_int(p, &t, AN_BYTES, ev->bytes);
    if (ev->detail && *ev->detail)
        ann_str(p, &t, AN_DETAIL, ev->detail);
    if (ev->flags & WT_EVF_UNCLOSED)
        ann_bool(p, &t, AN_UNCLOSED);
    if (ev->flags & WT_EVF_MEASURED)
        ann_bool(p, &t, AN_MEASURED);
    if ((rc = emit(p, &t.pkt)) < 0)
        return rc;
    p->st.spans++;
    return end_slice(p, end, l->uuid);
}

static int mark(pf *p, int fi, const wt_event *ev)
{
    pf_thread *th;
    int rc = get_thread(p, fi, ev->tid, &th);
    if (rc < 0)
        return rc;
    /* marks get their own track: the thread track's slices are written when they end, so an
     * instant inside an open span would come before that span's begin */
    if (!th->marks_uuid) {
        th->marks_uuid = new_uuid(p);
        if ((rc = emit_child_track(p, th->marks_uuid, th->uuid, "marks", 0)) < 0)
            return rc;
    }
    tev t;
    tev_init(p, &t, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, th->marks_uuid);
    if (ev->kind == WT_EV_DROPPED) {
        if ((rc = tev_name(p, &t, "walltime: dropped events", "walltime")) < 0)
            return rc;
        ann_int(p, &t, AN_DROPPED, ev->count);
    } else {
        if ((rc = tev_name(p, &t, ev->label, ev->category ? ev->category : "(none)")) < 0)
            return rc;
        if (ev->detail && *ev->detail)
            ann_str(p, &t, AN_DETAIL, ev->detail);
    }
    p->st.instants++;
    return emit(p, &t.pkt);
}

static int counter(pf *p, int fi, const wt_event *ev)
{
    uint32_t iid;
    int is_new, rc;
    const char *name = ev->name ? ev->name : "(none)";
    /* counter names share the event-name table only to get a stable id for the map */
    if ((rc = itab_get(&p->names, name, &iid, &is_new)) < 0)
        return rc;
    uint64_t uuid;
    uint32_t v = kmap_get(&p->counter_map, (uint64_t)fi, iid);
    if (v) {
        uuid = UUID_BASE + v;
    } else {
        uuid = new_uuid(p);
        if ((rc = kmap_put(&p->counter_map, (uint64_t)fi, iid, (uint32_t)(uuid - UUID_BASE))) < 0)
            return rc;
        Perfetto__Protos__TrackDescriptor td;
        Perfetto__Protos__CounterDescriptor cd;
        perfetto__protos__track_descriptor__init(&td);
        perfetto__protos__counter_descriptor__init(&cd);
        td.has_uuid = td.has_parent_uuid = 1;
        td.uuid = uuid;
        td.parent_uuid = p->files[fi].proc_uuid;
        td.static_or_dynamic_name_case = PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
        td.name = (char *)name;
        if (strstr(name, "bytes")) {
            cd.has_unit = 1;
            cd.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_SIZE_BYTES;
        }
        td.counter = &cd;
        if ((rc = emit_track(p, &td)) < 0)
            return rc;
    }
    tev t;
    tev_init(p, &t, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER, uuid);
    if (is_new)
        send_name(p, &t, iid);
    t.te.counter_value_field_case = PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
    t.te.counter_value = ev->value;
    p->st.counters++;
    return emit(p, &t.pkt);
}

static int round_slice(pf *p, int fi, const wt_event *ev)
{
    const char *cfg = ev->name ? ev->name : "(none)";
    uint32_t iid;
    int is_new, rc;
    tev t;
    if ((rc = itab_get(&p->names, cfg, &iid, &is_new)) < 0)
        return rc;
    uint32_t v = kmap_get(&p->round_map, (uint64_t)fi, iid);
    if (!v) {
        if (p->n_rounds == p->rounds_cap) {
            size_t nc = p->rounds_cap ? p->rounds_cap * 2 : 4;
            lane_group *ng = realloc(p->rounds, nc * sizeof *ng);
            if (!ng)
                return WT_ENOMEM;
            p->rounds = ng;
            p->rounds_cap = nc;
        }
        memset(&p->rounds[p->n_rounds], 0, sizeof *p->rounds);
        v = (uint32_t)++p->n_rounds;
        if ((rc = kmap_put(&p->round_map, (uint64_t)fi, iid, v)) < 0)
            return rc;
    }
    lane *l;
    int64_t end = ev->ts + (ev->dur > 0 ? ev->dur : 0);
    if ((rc = pick_lane(p, &p->rounds[v - 1], ev->ts, p->files[fi].proc_uuid, cfg, v, &l)) < 0)
        return rc;
    l->last_end = end;
    /* the iid may be new (is_new from itab_get above): tev_name finds it through the cache, so
     * send it explicitly */
    tev_init(p, &t, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, l->uuid);
    if ((rc = tev_name(p, &t, cfg, "round")) < 0)
        return rc;
    if (is_new)
        send_name(p, &t, iid);
    ann_int(p, &t, AN_ROUND, ev->count);
    if ((rc = emit(p, &t.pkt)) < 0)
        return rc;
    p->st.rounds++;
    return end_slice(p, end, l->uuid);
}

/* ---- sink callbacks ---- */

static int pf_file_begin(void *self, int fi, const char *path, const wt_trace_info *info)
{
    pf *p = self;
    int rc;
    if (!p->started && (rc = start(p)) < 0)
        return rc;
    /* the reader's strings of the previous file are gone: their pointers may be reused */
    memset(p->names.cache, 0, sizeof p->names.cache);
    memset(p->cats.cache, 0, sizeof p->cats.cache);
    if ((size_t)fi >= p->n_files) {
        pf_file *nf = realloc(p->files, (size_t)(fi + 1) * sizeof *nf);
        if (!nf)
            return WT_ENOMEM;
        memset(nf + p->n_files, 0, (size_t)(fi + 1 - (int)p->n_files) * sizeof *nf);
        p->files = nf;
        p->n_files = (size_t)fi + 1;
    }
    pf_file *f = &p->files[fi];
    f->pid = info->pid;
    f->proc_uuid = new_uuid(p);

    if (info->anchor_real_ns > 0) {
        Perfetto__Protos__TracePacket pkt;
        Perfetto__Protos__ClockSnapshot cs;
        Perfetto__Protos__ClockSnapshot__Clock c[2], *cp[2] = { &c[0], &c[1] };
        packet_init(&pkt);
        perfetto__protos__clock_snapshot__init(&cs);
        for (int i = 0; i < 2; i++) {
            perfetto__protos__clock_snapshot__clock__init(&c[i]);
            c[i].has_clock_id = c[i].has_timestamp = 1;
        }
        c[0].clock_id = CLOCK_MONO;
        c[0].timestamp = (uint64_t)info->anchor_mono_ns;
        c[1].clock_id = CLOCK_REAL;
        c[1].timestamp = (uint64_t)info->anchor_real_ns;
        cs.n_clocks = 2;
        cs.clocks = cp;
        cs.has_primary_trace_clock = 1;
        cs.primary_trace_clock = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC;
        pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
        pkt.clock_snapshot = &cs;
        pkt.has_timestamp = 1;
        pkt.timestamp = (uint64_t)info->anchor_mono_ns;
        pkt.has_timestamp_clock_id = 1;
        pkt.timestamp_clock_id = CLOCK_MONO;
        if ((rc = emit(p, &pkt)) < 0)
            return rc;
    }

    /* the process: named after the program of its command line */
    char *args[64];
    size_t n_args = 0;
    char *cmd = strdup(info->cmdline ? info->cmdline : "");
    if (!cmd)
        return WT_ENOMEM;
    for (char *save = NULL, *tok = strtok_r(cmd, " ", &save); tok && n_args < 64;
         tok = strtok_r(NULL, " ", &save))
        args[n_args++] = tok;
    const char *pname = path;
    if (n_args) {
        const char *slash = strrchr(args[0], '/');
        pname = slash ? slash + 1 : args[0];
    }
    Perfetto__Protos__TrackDescriptor td;
    Perfetto__Protos__ProcessDescriptor pd;
    perfetto__protos__track_descriptor__init(&td);
    perfetto__protos__process_descriptor__init(&pd);
    td.has_uuid = 1;
    td.uuid = f->proc_uuid;
    pd.has_pid = 1;
    pd.pid = (int32_t)info->pid;
    pd.process_name = (char *)pname;
    pd.n_cmdline = n_args;
    pd.cmdline = args;
    td.process = &pd;
    rc = emit_track(p, &td);
    free(cmd);
    if (rc < 0)
        return rc;

    /* the run slice, closed with the run's annotations in pf_proc_end */
    tev t;
    tev_init(p, &t, info->process_start_ns ? info->process_start_ns : info->open_ns,
             PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, f->proc_uuid);
    if ((rc = tev_name(p, &t, "walltime: run", "walltime")) < 0)
        return rc;
    return emit(p, &t.pkt);
}

static int pf_event(void *self, int fi, const wt_event *ev)
{
    pf *p = self;
    pf_thread *th;
    int rc;
    switch (ev->kind) {
    case WT_EV_SPAN:
        return span(p, fi, ev);
    case WT_EV_MARK:
    case WT_EV_DROPPED:
        return mark(p, fi, ev);
    case WT_EV_COUNTER:
        return counter(p, fi, ev);
    case WT_EV_ROUND:
        return round_slice(p, fi, ev);
    case WT_EV_THREAD_NAME:
        if ((rc = get_thread(p, fi, ev->tid, &th)) < 0)
            return rc;
        return emit_thread_track(p, &p->files[fi], th, ev->name ? ev->name : "");
    default:
        return 0; /* META, SYNC, END: the driver keeps what the run slice needs */
    }
}

static int pf_anomaly(void *self, int fi, const wt_anomaly *a)
{
    pf *p = self;
    pf_file *f = &p->files[fi];
    int rc;
    if (!f->anom_uuid) {
        f->anom_uuid = new_uuid(p);
        if ((rc = emit_child_track(p, f->anom_uuid, f->proc_uuid, "walltime: anomalies", -1)) < 0)
            return rc;
    }
    tev t;
    tev_init(p, &t, a->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, f->anom_uuid);
    /* anomalies are few (the analyzer bounds its list): the pointer cache is of no use here and
     * their strings are owned by the list, so lookups go by content */
    memset(p->names.cache, 0, sizeof p->names.cache);
    memset(p->cats.cache, 0, sizeof p->cats.cache);
    if ((rc = tev_name(p, &t, wt_anomaly_kind_name(a->kind), "walltime: anomaly")) < 0)
        return rc;
    if (a->text)
        ann_str(p, &t, AN_TEXT, a->text);
    if (a->category)
        ann_str(p, &t, AN_CATEGORY, a->category);
    if (a->label)
        ann_str(p, &t, AN_LABEL, a->label);
    if (a->detail && *a->detail)
        ann_str(p, &t, AN_DETAIL, a->detail);
    ann_real(p, &t, AN_SECONDS, a->seconds);
    if (a->cost > 0)
        ann_real(p, &t, AN_COST, a->cost);
    p->st.instants++;
    return emit(p, &t.pkt);
}

static int pf_proc_end(void *self, const wt_export_proc *pe)
{
    pf *p = self;
    const pf_file *f = &p->files[pe->file_index];
    Perfetto__Protos__DebugAnnotation *ann = NULL, **annp = NULL;
    int rc = WT_ENOMEM;
    if (pe->n_args) {
        ann = calloc(pe->n_args, sizeof *ann);
        annp = calloc(pe->n_args, sizeof *annp);
        if (!ann || !annp)
            goto out;
    }
    for (size_t i = 0; i < pe->n_args; i++) {
        const wt_export_arg *a = &pe->args[i];
        perfetto__protos__debug_annotation__init(&ann[i]);
        /* one-off names: not worth interning */
        ann[i].name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME;
        ann[i].name = (char *)a->key;
        if (a->type == WT_ARG_STR) {
            ann[i].value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
            ann[i].string_value = (char *)(a->s ? a->s : "");
        } else if (a->type == WT_ARG_INT) {
            ann[i].value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
            ann[i].int_value = a->i;
        } else {
            ann[i].value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
            ann[i].double_value = a->d;
        }
        annp[i] = &ann[i];
    }
    tev t;
    tev_init(p, &t, pe->end_ns, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END, f->proc_uuid);
    t.te.n_debug_annotations = pe->n_args;
    t.te.debug_annotations = annp;
    rc = emit(p, &t.pkt);
out:
    free(ann);
    free(annp);
    return rc;
}

static int pf_finish(void *self)
{
    pf *p = self;
    int rc = 0;
    if (!p->started)
        rc = start(p); /* an empty but valid trace */
    if (ob_flush(p) < 0 || fflush(p->out) != 0 || ferror(p->out) || p->eio)
        return WT_EIO;
    return rc;
}

static void pf_get_stats(const void *self, wt_export_sink_stats *out) { *out = ((const pf *)self)->st; }

static void pf_free(void *self)
{
    pf *p = self;
    if (!p)
        return;
    for (size_t i = 0; i < p->n_threads; i++)
        free(p->threads[i].depth);
    free(p->threads);
    free(p->files);
    free(p->rounds);
    free(p->thread_map.s);
    free(p->counter_map.s);
    free(p->round_map.s);
    itab_release(&p->names);
    itab_release(&p->cats);
    free(p->buf);
    free(p->ob);
    free(p);
}

int wt__export_perfetto_create(FILE *out, wt_export_sink *sink)
{
    pf *p = calloc(1, sizeof *p);
    if (!p)
        return WT_ENOMEM;
    p->out = out;
    p->cap = 4096;
    p->buf = malloc(p->cap);
    p->ob = malloc(OB_CAP);
    if (!p->buf || !p->ob) {
        free(p->buf);
        free(p->ob);
        free(p);
        return WT_ENOMEM;
    }
    *sink = (wt_export_sink){ p, pf_file_begin, pf_event, pf_anomaly, pf_proc_end, pf_finish,
                              pf_get_stats, pf_free };
    return 0;
}

void wt__export_perfetto_reference(wt_export_sink *sink, int on) { ((pf *)sink->self)->reference = on; }
