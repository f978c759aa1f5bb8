/* The Perfetto sink of `export`, the top of the sink's layers (each file includes only those
 * below it):
 *
 *   export_perfetto.c  the sink's callbacks: processes, counters, marks, rounds, anomalies,
 *                      the run slice; it owns the layers below
 *   pf_aligned.c       rounds aligned at t=0 (--aligned-rounds)
 *   pf_procs.c         process tracks, by rank, grouped by host when there are several
 *   pf_layout.c        spans: a track per thread (folded past a bound)
 *   pf_nest.c          a thread's spans nested on its track: the hold, begin order
 *   pf_lanes.c         flat lanes for what cannot nest
 *   pf_span.c          span packets, encoded directly
 *   pf_writer.c        packets, interning, the output buffer
 *   pf_maps.c          hash tables, UTF-8 repair
 *
 * Workload: up to tens of millions of spans, two packets each, so the per-span path does no
 * allocation in the steady state. docs/EXPORT.md says what the trace holds and why.
 */
#include <stdlib.h>
#include <string.h>

#include "pf_aligned.h"
#include "pf_layout.h"
#include "pf_procs.h"

typedef struct pf_file {
    pf_proc proc;       /* pid and the process track */
    uint64_t anom_uuid; /* 0 until the first anomaly */
} pf_file;

typedef struct pf {
    pf_writer w;
    pf_layout layout;
    pf_aligned al;
    pf_procs procs;     /* the process tracks */
    int aligned;        /* --aligned-rounds */
    pf_file *files;
    size_t n_files;
    uint64_t *pids;     /* for the aligned view */
    pf_kmap counter_map; /* (file, name iid) -> counter_uuids index + 1 */
    pf_kmap round_map;   /* (file, config iid) -> rounds index + 1 */
    pf_lane_group *rounds;
    size_t n_rounds, rounds_cap;
    uint64_t *counter_uuids; /* by counter_map value - 1 */
    size_t n_counters, counters_cap;
    int64_t rounds_written, instants, counters, misplaced;
} pf;

static int mark(pf *p, int fi, const wt_event *ev)
{
    uint64_t track;
    /* marks get their own track: an instant on the thread's track would nest in its slices */
    int rc = wt__pf_layout_marks(&p->layout, fi, &p->files[fi].proc, ev->tid, &track);
    if (rc < 0)
        return rc;
    pf_tev t;
    wt__pfw_tev_init(&p->w, &t, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, track);
    if (ev->kind == WT_EV_DROPPED) {
        if ((rc = wt__pfw_tev_name(&p->w, &t, "walltime: dropped events", "walltime")) < 0)
            return rc;
        wt__pfw_ann_int(&p->w, &t, AN_DROPPED, ev->count);
    } else {
        if ((rc = wt__pfw_tev_name(&p->w, &t, ev->label, ev->category ? ev->category : "(none)")) < 0)
            return rc;
        if (ev->detail && *ev->detail)
            wt__pfw_ann_str(&p->w, &t, AN_DETAIL, ev->detail);
    }
    p->instants++;
    return wt__pfw_emit(&p->w, &t.pkt);
}

static int counter(pf *p, int fi, const wt_event *ev)
{
    uint32_t iid;
    int is_new, rc;
    const char *name = ev->name ? ev->name : "(none)";
    /* counter names share the event-name table only to get a stable id for the map */
    if ((rc = wt__pf_itab_need(&p->w.names, name, &iid, &is_new)) < 0)
        return rc;
    uint64_t uuid;
    uint32_t v = wt__pf_kmap_get(&p->counter_map, (uint64_t)fi, iid);
    if (v) {
        uuid = p->counter_uuids[v - 1];
    } else {
        if (p->n_counters == p->counters_cap) {
            size_t nc = p->counters_cap ? p->counters_cap * 2 : 16;
            uint64_t *nu = realloc(p->counter_uuids, nc * sizeof *nu);
            if (!nu)
                return WT_ENOMEM;
            p->counter_uuids = nu;
            p->counters_cap = nc;
        }
        uuid = p->counter_uuids[p->n_counters] = wt__pfw_uuid(&p->w);
        if ((rc = wt__pf_kmap_put(&p->counter_map, (uint64_t)fi, iid, (uint32_t)++p->n_counters)) < 0)
            return rc;
        Perfetto__Protos__TrackDescriptor td;
        Perfetto__Protos__CounterDescriptor cd;
        perfetto__protos__track_descriptor__init(&td);
        perfetto__protos__counter_descriptor__init(&cd);
        td.has_uuid = td.has_parent_uuid = 1;
        td.uuid = uuid;
        td.parent_uuid = p->files[fi].proc.uuid;
        td.static_or_dynamic_name_case = PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
        td.name = (char *)wt__pf_itab_str(&p->w.names, iid);
        if (strstr(name, "bytes")) {
            cd.has_unit = 1;
            cd.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_SIZE_BYTES;
        }
        td.counter = &cd;
        if ((rc = wt__pfw_emit_track(&p->w, &td)) < 0)
            return rc;
    }
    pf_tev t;
    wt__pfw_tev_init(&p->w, &t, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER, uuid);
    if (is_new)
        wt__pfw_send_name(&p->w, &t, iid);
    t.te.counter_value_field_case = PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
    t.te.counter_value = ev->value;
    p->counters++;
    return wt__pfw_emit(&p->w, &t.pkt);
}

static int round_slice(pf *p, int fi, const wt_event *ev)
{
    const char *cfg = ev->name ? ev->name : "(none)";
    uint32_t iid;
    int is_new, rc;
    pf_tev t;
    if ((rc = wt__pf_itab_need(&p->w.names, cfg, &iid, &is_new)) < 0)
        return rc;
    uint32_t v = wt__pf_kmap_get(&p->round_map, (uint64_t)fi, iid);
    if (!v) {
        if (p->n_rounds == p->rounds_cap) {
            size_t nc = p->rounds_cap ? p->rounds_cap * 2 : 4;
            pf_lane_group *ng = realloc(p->rounds, nc * sizeof *ng);
            if (!ng)
                return WT_ENOMEM;
            p->rounds = ng;
            p->rounds_cap = nc;
        }
        memset(&p->rounds[p->n_rounds], 0, sizeof *p->rounds);
        v = (uint32_t)++p->n_rounds;
        if ((rc = wt__pf_kmap_put(&p->round_map, (uint64_t)fi, iid, v)) < 0)
            return rc;
    }
    pf_lane *l;
    char name[128];
    int64_t end = ev->ts + (ev->dur > 0 && ev->ts <= INT64_MAX - ev->dur ? ev->dur : 0);
    snprintf(name, sizeof name, "round: %.100s", wt__pf_itab_str(&p->w.names, iid));
    if ((rc = wt__pf_group_pick(&p->w, &p->rounds[v - 1], ev->ts, p->files[fi].proc.uuid, name,
                                (int)(v * PF_GROUP_LANES), &l, &p->misplaced)) < 0)
        return rc;
    l->last_end = end;
    wt__pfw_tev_init(&p->w, &t, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, l->uuid);
    if ((rc = wt__pfw_tev_name(&p->w, &t, cfg, "round")) < 0)
        return rc;
    /* the iid may be new (interned above, so tev_name saw it as known): send it */
    if (is_new)
        wt__pfw_send_name(&p->w, &t, iid);
    wt__pfw_ann_int(&p->w, &t, AN_ROUND, ev->count);
    if ((rc = wt__pfw_emit(&p->w, &t.pkt)) < 0)
        return rc;
    p->rounds_written++;
    if ((rc = wt__pfw_end_slice(&p->w, end, l->uuid)) < 0)
        return rc;
    return p->aligned ? wt__pf_aligned_note(&p->al, fi, ev, iid) : 0;
}

static int clock_snapshot(pf *p, const wt_trace_info *info)
{
    Perfetto__Protos__TracePacket pkt;
    Perfetto__Protos__ClockSnapshot cs;
    Perfetto__Protos__ClockSnapshot__Clock c[2], *cp[2] = { &c[0], &c[1] };
    wt__pfw_packet_init(&pkt);
    perfetto__protos__clock_snapshot__init(&cs);
    for (int i = 0; i < 2; i++) {
        perfetto__protos__clock_snapshot__clock__init(&c[i]);
        c[i].has_clock_id = c[i].has_timestamp = 1;
    }
    c[0].clock_id = PF_CLOCK_MONO;
    c[0].timestamp = (uint64_t)info->anchor_mono_ns;
    c[1].clock_id = PF_CLOCK_REAL;
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
    pkt.timestamp_clock_id = PF_CLOCK_MONO;
    return wt__pfw_emit(&p->w, &pkt);
}

/* ---- sink callbacks ---- */

static int pf_file_begin(void *self, int fi, const char *path, const wt_trace_info *info)
{
    pf *p = self;
    int rc;
    if ((rc = wt__pfw_start(&p->w)) < 0)
        return rc;
    /* the reader's strings of the previous file are gone: their pointers may be reused */
    wt__pf_itab_forget_pointers(&p->w.names);
    wt__pf_itab_forget_pointers(&p->w.cats);
    if ((size_t)fi >= p->n_files) {
        pf_file *nf = realloc(p->files, (size_t)(fi + 1) * sizeof *nf);
        uint64_t *np = nf ? realloc(p->pids, (size_t)(fi + 1) * sizeof *np) : NULL;
        if (nf)
            p->files = nf;
        if (!np)
            return WT_ENOMEM;
        p->pids = np;
        memset(nf + p->n_files, 0, ((size_t)fi + 1 - p->n_files) * sizeof *nf);
        p->n_files = (size_t)fi + 1;
    }
    pf_file *f = &p->files[fi];
    f->proc.pid = p->pids[fi] = info->pid;
    f->proc.uuid = wt__pfw_uuid(&p->w);
    if (info->anchor_real_ns > 0 && (rc = clock_snapshot(p, info)) < 0)
        return rc;
    /* the tracks' pid: another host's file may have taken this one */
    if ((rc = wt__pf_procs_begin(&p->procs, &p->w, fi, f->proc.uuid, path, info, &f->proc.pid)) < 0)
        return rc;
    /* the run slice, closed with the run's annotations in pf_proc_end */
    pf_tev t;
    wt__pfw_tev_init(&p->w, &t, info->process_start_ns ? info->process_start_ns : info->open_ns,
                     PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, f->proc.uuid);
    if ((rc = wt__pfw_tev_name(&p->w, &t, "walltime: run", "walltime")) < 0)
        return rc;
    return wt__pfw_emit(&p->w, &t.pkt);
}

/* Names past which a batch's labels have their lines of the pointer cache asked for before
 * its spans come (the sink's upcoming). */
#define PF_AHEAD_NAMES 2048

/* The names' pointer cache lines of a batch's spans, asked for before they come as events:
 * over 16,384 labels in random order a label's line is out of every cache when it comes
 * again, and its lookup in wt__pf_span_begin() had 18 % of export's CPU. A batch's lines
 * (at most one a span, 8 KiB) stay in the second-level cache until their spans come.
 * Below PF_AHEAD_NAMES names the lines stay in cache anyway and this would cost a look-up
 * and a prefetch a span for nothing; past the interning budget (the table's filter made) most labels are new
 * ones, over unique labels, whose lines are written anyway, and it cost 3-5 % more CPU. */
static void pf_upcoming(void *self, int fi, const wt_span_batch *b)
{
    const pf *p = self;
    if (p->w.names.n < PF_AHEAD_NAMES || p->w.names.absent)
        return;
    for (size_t i = 0; i < b->n; i++)
        if (!(b->spans[i].flags & WT_REC_COUNTER))
            wt__pf_itab_prefetch(&p->w.names, wt_reader_string(b->reader, b->spans[i].label));
}

static int pf_event(void *self, int fi, const wt_event *ev)
{
    pf *p = self;
    const pf_proc *pr = &p->files[fi].proc;
    switch (ev->kind) {
    case WT_EV_SPAN:
        return wt__pf_layout_span(&p->layout, fi, pr, ev);
    case WT_EV_MARK:
    case WT_EV_DROPPED:
        return mark(p, fi, ev);
    case WT_EV_COUNTER:
        return counter(p, fi, ev);
    case WT_EV_ROUND:
        return round_slice(p, fi, ev);
    case WT_EV_THREAD_NAME:
        return wt__pf_layout_name(&p->layout, fi, pr, ev->tid, ev->name);
    case WT_EV_META:
        wt__pf_procs_event(&p->procs, fi, ev); /* its rank, for the process's name */
        return 0;
    default:
        return 0; /* SYNC, END: the driver keeps what the run slice needs */
    }
}

static int pf_file_end(void *self, int fi) { return wt__pf_layout_file_end(&((pf *)self)->layout, fi); }

static int pf_anomaly(void *self, int fi, const wt_anomaly *a)
{
    pf *p = self;
    pf_file *f = &p->files[fi];
    pf_writer *w = &p->w;
    int rc;
    if (!f->anom_uuid) {
        uint64_t u = wt__pfw_uuid(w);
        if ((rc = wt__pfw_track(w, u, f->proc.uuid, "walltime: anomalies", -1, 0)) < 0)
            return rc;
        f->anom_uuid = u;
    }
    pf_tev t;
    wt__pfw_tev_init(w, &t, a->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, f->anom_uuid);
    /* anomalies are few (the analyzer bounds its list): the pointer cache is of no use here and
     * their strings are owned by the list, so lookups go by content */
    wt__pf_itab_forget_pointers(&w->names);
    wt__pf_itab_forget_pointers(&w->cats);
    if ((rc = wt__pfw_tev_name(w, &t, wt_anomaly_kind_name(a->kind), "walltime: anomaly")) < 0)
        return rc;
    if (a->text)
        wt__pfw_ann_str(w, &t, AN_TEXT, a->text);
    if (a->category)
        wt__pfw_ann_str(w, &t, AN_CATEGORY, a->category);
    if (a->label)
        wt__pfw_ann_str(w, &t, AN_LABEL, a->label);
    if (a->detail && *a->detail)
        wt__pfw_ann_str(w, &t, AN_DETAIL, a->detail);
    wt__pfw_ann_real(w, &t, AN_SECONDS, a->seconds);
    if (a->cost > 0)
        wt__pfw_ann_real(w, &t, AN_COST, a->cost);
    p->instants++;
    return wt__pfw_emit(w, &t.pkt);
}

/* The END of the run slice with the run's annotations (strings repaired to UTF-8 one by one:
 * there are more of them than the writer's repair slots). */
static int pf_proc_end(void *self, const wt_export_proc *pe)
{
    pf *p = self;
    const pf_file *f = &p->files[pe->file_index];
    Perfetto__Protos__DebugAnnotation *ann = NULL, **annp = NULL;
    char **fixed = NULL;
    size_t *fixed_cap = NULL;
    int rc = WT_ENOMEM;
    if (pe->n_args) {
        ann = calloc(pe->n_args, sizeof *ann);
        annp = calloc(pe->n_args, sizeof *annp);
        fixed = calloc(2 * pe->n_args, sizeof *fixed);
        fixed_cap = calloc(2 * pe->n_args, sizeof *fixed_cap);
        if (!ann || !annp || !fixed || !fixed_cap)
            goto out;
    }
    for (size_t i = 0; i < pe->n_args; i++) {
        const wt_export_arg *a = &pe->args[i];
        const char *key = a->key ? a->key : "", *sv = a->s ? a->s : "";
        if (!wt__pf_utf8_ok(key, strlen(key)) &&
            !(key = wt__pf_utf8_fix(key, strlen(key), &fixed[2 * i], &fixed_cap[2 * i])))
            goto out;
        if (a->type == WT_ARG_STR && !wt__pf_utf8_ok(sv, strlen(sv)) &&
            !(sv = wt__pf_utf8_fix(sv, strlen(sv), &fixed[2 * i + 1], &fixed_cap[2 * i + 1])))
            goto out;
        perfetto__protos__debug_annotation__init(&ann[i]);
        /* one-off names: not worth interning */
        ann[i].name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME;
        ann[i].name = (char *)key;
        if (a->type == WT_ARG_STR) {
            ann[i].value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
            ann[i].string_value = (char *)sv;
        } else if (a->type == WT_ARG_INT) {
            ann[i].value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
            ann[i].int_value = a->i;
        } else {
            ann[i].value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
            ann[i].double_value = a->d;
        }
        annp[i] = &ann[i];
    }
    pf_tev t;
    wt__pfw_tev_init(&p->w, &t, pe->end_ns, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END,
                     f->proc.uuid);
    t.te.n_debug_annotations = pe->n_args;
    t.te.debug_annotations = annp;
    rc = wt__pfw_emit(&p->w, &t.pkt);
out:
    for (size_t i = 0; fixed && i < 2 * pe->n_args; i++)
        free(fixed[i]);
    free(fixed);
    free(fixed_cap);
    free(ann);
    free(annp);
    return rc;
}

static int pf_finish(void *self)
{
    pf *p = self;
    int rc = wt__pfw_start(&p->w); /* an empty trace is still a valid one */
    if (rc == 0)
        rc = wt__pf_procs_finish(&p->procs, &p->w);
    if (wt__pfw_flush(&p->w) < 0 || fflush(p->w.out) != 0 || ferror(p->w.out) || p->w.eio)
        return WT_EIO;
    return rc;
}

static void pf_get_stats(const void *self, wt_export_sink_stats *out)
{
    const pf *p = self;
    pf_layout_stats lst;
    const pf_layout_stats *ls = &lst;
    wt__pf_layout_stats(&p->layout, &lst);
    memset(out, 0, sizeof *out);
    out->spans = ls->spans;
    out->instants = p->instants;
    out->counters = p->counters;
    out->rounds = p->rounds_written;
    out->depth_clamped = ls->depth_clamped;
    out->lanes_extra = ls->lane_spans;
    out->misplaced = ls->misplaced + p->misplaced + p->al.misplaced;
    out->early = ls->early;
    out->spans_folded = ls->spans_folded;
    out->aligned_rounds = p->al.rounds;
    out->aligned_spans = p->al.spans;
    out->aligned_dropped = p->al.dropped;
    out->bytes = p->w.bytes;
}

static void pf_free(void *self)
{
    pf *p = self;
    if (!p)
        return;
    wt__pf_layout_release(&p->layout);
    wt__pf_aligned_release(&p->al);
    wt__pf_procs_release(&p->procs);
    wt__pfw_release(&p->w);
    free(p->files);
    free(p->pids);
    free(p->rounds);
    free(p->counter_uuids);
    wt__pf_kmap_release(&p->counter_map);
    wt__pf_kmap_release(&p->round_map);
    free(p);
}

static int pf_pass2_begin(void *self)
{
    pf *p = self;
    return p->aligned ? wt__pf_aligned_begin(&p->al, p->pids, p->n_files) : 0;
}

static int pf_pass2_file(void *self, int fi) { return wt__pf_aligned_file(&((pf *)self)->al, fi); }

static int pf_pass2_event(void *self, int fi, const wt_event *ev)
{
    return wt__pf_aligned_event(&((pf *)self)->al, fi, ev);
}

int wt__export_perfetto_create(FILE *out, const wt_export_opts *o, wt_export_sink *sink)
{
    pf *p = calloc(1, sizeof *p);
    if (!p || wt__pfw_init(&p->w, out) < 0) {
        free(p);
        return WT_ENOMEM;
    }
    p->w.reference = o && o->reference;
    if (o && o->intern_bytes)
        p->w.intern_left = o->intern_bytes;
    p->aligned = o && o->aligned_rounds;
    wt__pf_layout_init(&p->layout, &p->w);
    wt__pf_aligned_init(&p->al, &p->w);
    *sink = (wt_export_sink){ .self = p, .file_begin = pf_file_begin, .event = pf_event,
                              .file_end = pf_file_end, .anomaly = pf_anomaly,
                              .proc_end = pf_proc_end, .finish = pf_finish,
                              .get_stats = pf_get_stats, .free = pf_free,
                              .pass2_begin = pf_pass2_begin, .pass2_file = pf_pass2_file,
                              .pass2_event = pf_pass2_event, .upcoming = pf_upcoming };
    return 0;
}
