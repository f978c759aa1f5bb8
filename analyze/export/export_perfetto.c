/* The Perfetto sink of `export` (export_perfetto.h has the design): the sink's callbacks, one
 * per kind of event: spans on a track per (thread, depth), marks on a thread's "marks" track,
 * counters on a counter track per (process, name), rounds on a track per configuration,
 * anomalies on the process's "walltime: anomalies" track, and the process's "walltime: run"
 * slice with the run's annotations.
 */
#include <stdlib.h>
#include <string.h>

#include "export_perfetto.h"

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
    return wt__pf_emit_track(p, &td);
}

static int get_thread(pf *p, int fi, uint64_t tid, pf_thread **out)
{
    if (p->last_th && p->last_fi == fi && p->threads[p->last_th - 1].tid == tid) {
        *out = &p->threads[p->last_th - 1];
        return 0;
    }
    uint32_t v = wt__pf_kmap_get(&p->thread_map, (uint64_t)fi, tid);
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
    th->uuid = wt__pf_new_uuid(p);
    int rc = wt__pf_kmap_put(&p->thread_map, (uint64_t)fi, tid, (uint32_t)(p->n_threads + 1));
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

/* The BEGIN and END packets of span `ev`, moved to start at `ts`, on `track`: encoded directly
 * when it fits the fast path (and the sink is not in reference mode), else by protobuf-c. */
int wt__pf_span_packets(pf *p, const wt_event *ev, int64_t ts, uint64_t track)
{
    int rc;
    int64_t end = ts + (ev->dur > 0 ? ev->dur : 0);
    if (!p->reference) {
        rc = wt__pf_fast_begin(p, ev, ts, track);
        if (rc <= 0)
            return rc < 0 ? rc : wt__pf_fast_end(p, end, track);
    }
    tev t;
    wt__pf_tev_init(p, &t, ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, track);
    if ((rc = wt__pf_tev_name(p, &t, ev->label, ev->category ? ev->category : "(none)")) < 0)
        return rc;
    if (ev->cached == WT_CACHED_HIT)
        wt__pf_ann_str(p, &t, AN_CACHED, "HIT");
    else if (ev->cached == WT_CACHED_MISS)
        wt__pf_ann_str(p, &t, AN_CACHED, "MISS");
    wt__pf_ann_int(p, &t, AN_COUNT, ev->count);
    if (ev->bytes)
        wt__pf_ann_int(p, &t, AN_BYTES, ev->bytes);
    if (ev->detail && *ev->detail)
        wt__pf_ann_str(p, &t, AN_DETAIL, ev->detail);
    if (ev->flags & WT_EVF_UNCLOSED)
        wt__pf_ann_bool(p, &t, AN_UNCLOSED);
    if (ev->flags & WT_EVF_MEASURED)
        wt__pf_ann_bool(p, &t, AN_MEASURED);
    if ((rc = wt__pf_emit(p, &t.pkt)) < 0)
        return rc;
    return wt__pf_end_slice(p, end, track);
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
    if ((rc = wt__pf_pick_lane(p, &th->depth[d], ev->ts, th->uuid, NULL, d, &l)) < 0)
        return rc;
    l->last_end = end;
    if ((rc = wt__pf_span_packets(p, ev, ev->ts, l->uuid)) < 0)
        return rc;
    p->st.spans++;
    return 0;
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
        th->marks_uuid = wt__pf_new_uuid(p);
        if ((rc = wt__pf_child_track(p, th->marks_uuid, th->uuid, "marks", 0)) < 0)
            return rc;
    }
    tev t;
    wt__pf_tev_init(p, &t, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, th->marks_uuid);
    if (ev->kind == WT_EV_DROPPED) {
        if ((rc = wt__pf_tev_name(p, &t, "walltime: dropped events", "walltime")) < 0)
            return rc;
        wt__pf_ann_int(p, &t, AN_DROPPED, ev->count);
    } else {
        if ((rc = wt__pf_tev_name(p, &t, ev->label, ev->category ? ev->category : "(none)")) < 0)
            return rc;
        if (ev->detail && *ev->detail)
            wt__pf_ann_str(p, &t, AN_DETAIL, ev->detail);
    }
    p->st.instants++;
    return wt__pf_emit(p, &t.pkt);
}

static int counter(pf *p, int fi, const wt_event *ev)
{
    uint32_t iid;
    int is_new, rc;
    const char *name = ev->name ? ev->name : "(none)";
    /* counter names share the event-name table only to get a stable id for the map */
    if ((rc = wt__pf_itab_get(&p->names, name, &iid, &is_new)) < 0)
        return rc;
    uint64_t uuid;
    uint32_t v = wt__pf_kmap_get(&p->counter_map, (uint64_t)fi, iid);
    if (v) {
        uuid = UUID_BASE + v;
    } else {
        uuid = wt__pf_new_uuid(p);
        if ((rc = wt__pf_kmap_put(&p->counter_map, (uint64_t)fi, iid, (uint32_t)(uuid - UUID_BASE))) < 0)
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
        if ((rc = wt__pf_emit_track(p, &td)) < 0)
            return rc;
    }
    tev t;
    wt__pf_tev_init(p, &t, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER, uuid);
    if (is_new)
        wt__pf_send_name(p, &t, iid);
    t.te.counter_value_field_case = PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
    t.te.counter_value = ev->value;
    p->st.counters++;
    return wt__pf_emit(p, &t.pkt);
}

static int round_slice(pf *p, int fi, const wt_event *ev)
{
    const char *cfg = ev->name ? ev->name : "(none)";
    uint32_t iid;
    int is_new, rc;
    tev t;
    if ((rc = wt__pf_itab_get(&p->names, cfg, &iid, &is_new)) < 0)
        return rc;
    uint32_t v = wt__pf_kmap_get(&p->round_map, (uint64_t)fi, iid);
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
        if ((rc = wt__pf_kmap_put(&p->round_map, (uint64_t)fi, iid, v)) < 0)
            return rc;
    }
    lane *l;
    int64_t end = ev->ts + (ev->dur > 0 ? ev->dur : 0);
    if ((rc = wt__pf_pick_lane(p, &p->rounds[v - 1], ev->ts, p->files[fi].proc_uuid, cfg, v, &l)) < 0)
        return rc;
    l->last_end = end;
    /* the iid may be new (is_new from itab_get above): tev_name finds it through the cache, so
     * send it explicitly */
    wt__pf_tev_init(p, &t, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, l->uuid);
    if ((rc = wt__pf_tev_name(p, &t, cfg, "round")) < 0)
        return rc;
    if (is_new)
        wt__pf_send_name(p, &t, iid);
    wt__pf_ann_int(p, &t, AN_ROUND, ev->count);
    if ((rc = wt__pf_emit(p, &t.pkt)) < 0)
        return rc;
    p->st.rounds++;
    if ((rc = wt__pf_end_slice(p, end, l->uuid)) < 0)
        return rc;
    return wt__pf_aligned_note(p, fi, ev, iid);
}

/* ---- sink callbacks ---- */

static int pf_file_begin(void *self, int fi, const char *path, const wt_trace_info *info)
{
    pf *p = self;
    int rc;
    if (!p->started && (rc = wt__pf_start(p)) < 0)
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
    f->proc_uuid = wt__pf_new_uuid(p);

    if (info->anchor_real_ns > 0) {
        Perfetto__Protos__TracePacket pkt;
        Perfetto__Protos__ClockSnapshot cs;
        Perfetto__Protos__ClockSnapshot__Clock c[2], *cp[2] = { &c[0], &c[1] };
        wt__pf_packet_init(&pkt);
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
        if ((rc = wt__pf_emit(p, &pkt)) < 0)
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
    rc = wt__pf_emit_track(p, &td);
    free(cmd);
    if (rc < 0)
        return rc;

    /* the run slice, closed with the run's annotations in pf_proc_end */
    tev t;
    wt__pf_tev_init(p, &t, info->process_start_ns ? info->process_start_ns : info->open_ns,
             PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, f->proc_uuid);
    if ((rc = wt__pf_tev_name(p, &t, "walltime: run", "walltime")) < 0)
        return rc;
    return wt__pf_emit(p, &t.pkt);
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
        f->anom_uuid = wt__pf_new_uuid(p);
        if ((rc = wt__pf_child_track(p, f->anom_uuid, f->proc_uuid, "walltime: anomalies", -1)) < 0)
            return rc;
    }
    tev t;
    wt__pf_tev_init(p, &t, a->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, f->anom_uuid);
    /* anomalies are few (the analyzer bounds its list): the pointer cache is of no use here and
     * their strings are owned by the list, so lookups go by content */
    memset(p->names.cache, 0, sizeof p->names.cache);
    memset(p->cats.cache, 0, sizeof p->cats.cache);
    if ((rc = wt__pf_tev_name(p, &t, wt_anomaly_kind_name(a->kind), "walltime: anomaly")) < 0)
        return rc;
    if (a->text)
        wt__pf_ann_str(p, &t, AN_TEXT, a->text);
    if (a->category)
        wt__pf_ann_str(p, &t, AN_CATEGORY, a->category);
    if (a->label)
        wt__pf_ann_str(p, &t, AN_LABEL, a->label);
    if (a->detail && *a->detail)
        wt__pf_ann_str(p, &t, AN_DETAIL, a->detail);
    wt__pf_ann_real(p, &t, AN_SECONDS, a->seconds);
    if (a->cost > 0)
        wt__pf_ann_real(p, &t, AN_COST, a->cost);
    p->st.instants++;
    return wt__pf_emit(p, &t.pkt);
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
    wt__pf_tev_init(p, &t, pe->end_ns, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END, f->proc_uuid);
    t.te.n_debug_annotations = pe->n_args;
    t.te.debug_annotations = annp;
    rc = wt__pf_emit(p, &t.pkt);
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
        rc = wt__pf_start(p); /* an empty but valid trace */
    if (wt__pf_flush(p) < 0 || fflush(p->out) != 0 || ferror(p->out) || p->eio)
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
    wt__pf_aligned_release(&p->al);
    wt__pf_itab_release(&p->names);
    wt__pf_itab_release(&p->cats);
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
                              pf_get_stats, pf_free, wt__pf_aligned_begin, wt__pf_aligned_file,
                              wt__pf_aligned_event };
    return 0;
}

void wt__export_perfetto_reference(wt_export_sink *sink, int on) { ((pf *)sink->self)->reference = on; }

