/* The Perfetto sink of `export`, internals shared by its files: TracePackets
 * (analyze/export/wt_perfetto.proto) written one by one as length-delimited field 1 of a Trace, as the
 * events stream in.
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
 *
 * The files: export_pf_maps.c (interning, two-key map), export_pf_packet.c (output buffer,
 * protobuf-c packets, tracks), export_pf_fast.c (span packets encoded directly),
 * export_pf_aligned.c (rounds aligned at t=0), export_perfetto.c (the sink's callbacks).
 */
#ifndef WT_EXPORT_PERFETTO_H
#define WT_EXPORT_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "export.h"
#include "wt_perfetto.pb-c.h"

#define SEQ_ID 1u
#define CLOCK_MONO 3u
#define CLOCK_REAL 1u
#define UUID_BASE 0x5754000000000000ull /* "WT": any base works, uuids only need be unique */
#define PTR_CACHE 1024
#define OB_CAP (1u << 20)
#define OB_FLUSH (OB_CAP - (64u << 10)) /* leaves room for one fast-path packet */

/* Debug annotation names, interned once in the first packet (wt__pf_start). */
enum { AN_CACHED = 1, AN_COUNT, AN_BYTES, AN_DETAIL, AN_UNCLOSED, AN_MEASURED, AN_ROUND, AN_TEXT,
       AN_CATEGORY, AN_LABEL, AN_SECONDS, AN_COST, AN_DROPPED, AN_COUNT_ALL };

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

/* ---- a map from two 64-bit keys to an index ---- */

typedef struct kslot {
    uint64_t a, b;
    uint32_t v; /* index + 1, 0 = empty */
} kslot;

typedef struct kmap {
    kslot *s;
    size_t cap, n;
} kmap;

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

/* One round of the aligned view (export_pf_aligned.c). */
typedef struct al_round {
    int fi;
    uint32_t cfg;         /* the configuration's event-name iid */
    int64_t number, ts, dur;
    uint64_t tid;         /* the thread that recorded the round */
    uint64_t uuid;        /* its track under "walltime: rounds at t=0" */
    unsigned n_threads;   /* threads seen in it so far (their tracks' order) */
} al_round;

/* A (round, thread, depth) of the aligned view: its lanes. */
typedef struct al_group {
    lane_group g;
    unsigned thread_rank; /* 0: the round's own thread */
} al_group;

/* The rounds aligned at t=0: noted in pass 1 (bounded by WT_EXPORT_MAX_ALIGNED), written with
 * their spans in the driver's second pass. */
typedef struct pf_aligned {
    al_round *r;          /* sorted by (file, start) once pass 1 is over */
    size_t n, cap;
    size_t *file_first;   /* [n_files + 1]: rounds of file f are r[file_first[f] ..) */
    int64_t origin;       /* the common start: the earliest round's */
    kmap group_map;       /* (round << 8 | depth, tid) -> groups index + 1 */
    al_group *groups;
    size_t n_groups, groups_cap; /* at most WT_EXPORT_MAX_ALIGNED_TRACKS */
} pf_aligned;

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
    pf_aligned al;
    int eio;
    wt_export_sink_stats st;
    /* the packet under construction, reused */
    Perfetto__Protos__InternedData interned;
    Perfetto__Protos__EventName iname, *iname_p;
    Perfetto__Protos__EventCategory icat, *icat_p;
    uint64_t cat_iid;
    Perfetto__Protos__DebugAnnotation ann[8], *ann_p[8];
} pf;

static inline uint64_t wt__pf_new_uuid(pf *p) { return UUID_BASE + ++p->next_uuid; }

/* A track event packet under construction, packed by protobuf-c (wt__pf_emit). */
typedef struct tev {
    Perfetto__Protos__TracePacket pkt;
    Perfetto__Protos__TrackEvent te;
    uint64_t cat;
    size_t n_ann;
} tev;

/* ---- export_pf_maps.c ---- */

/* The iid of `s` (1..), added when new; *is_new is set when it was just added (it must then be
 * sent in the packet that uses it). 0 or WT_ENOMEM. */
int wt__pf_itab_get(itab *t, const char *s, uint32_t *iid, int *is_new);
void wt__pf_itab_release(itab *t);
/* The value stored for (a, b), 0 when absent. */
uint32_t wt__pf_kmap_get(const kmap *m, uint64_t a, uint64_t b);
/* Stores v (non-zero) for (a, b), not present yet. 0 or WT_ENOMEM. */
int wt__pf_kmap_put(kmap *m, uint64_t a, uint64_t b, uint32_t v);

/* ---- export_pf_packet.c: every call returns 0 or WT_EIO / WT_ENOMEM ---- */

size_t wt__pf_put_varint(uint8_t *b, uint64_t v);
/* Writes the output buffer out. */
int wt__pf_flush(pf *p);
/* Appends `n` bytes of a packed TracePacket as field 1 (length-delimited) of Trace. */
int wt__pf_packet(pf *p, const uint8_t *pkt, size_t n);
void wt__pf_packet_init(Perfetto__Protos__TracePacket *pkt);
/* Packs one packet with protobuf-c and writes it. */
int wt__pf_emit(pf *p, const Perfetto__Protos__TracePacket *pkt);
int wt__pf_emit_track(pf *p, Perfetto__Protos__TrackDescriptor *td);
/* A plain named child track of `parent`; rank < 0: no sibling_order_rank. */
int wt__pf_child_track(pf *p, uint64_t uuid, uint64_t parent, const char *name, int rank);
/* The first packet of the sequence. */
int wt__pf_start(pf *p);
void wt__pf_tev_init(pf *p, tev *t, int64_t ts, int type, uint64_t track);
void wt__pf_send_name(pf *p, tev *t, uint32_t iid);
int wt__pf_tev_name(pf *p, tev *t, const char *name, const char *cat);
void wt__pf_ann_str(pf *p, tev *t, unsigned name, const char *s);
void wt__pf_ann_int(pf *p, tev *t, unsigned name, int64_t v);
void wt__pf_ann_real(pf *p, tev *t, unsigned name, double v);
void wt__pf_ann_bool(pf *p, tev *t, unsigned name);
int wt__pf_end_slice(pf *p, int64_t ts, uint64_t track);
/* The lane of `g` a slice starting at `start` can go on in time order, making its track (a
 * child of `parent`, named "round: CFG" or "depth RANK", with " (overlap k)" past the first)
 * when needed; the caller sets its last_end. */
int wt__pf_pick_lane(pf *p, lane_group *g, int64_t start, uint64_t parent, const char *cfg,
                     unsigned rank, lane **out);

/* ---- export_perfetto.c ---- */

/* The BEGIN and END packets of span `ev`, moved to start at `ts`, on `track`. */
int wt__pf_span_packets(pf *p, const wt_event *ev, int64_t ts, uint64_t track);

/* ---- export_pf_aligned.c ---- */

/* Notes round `ev` of file `fi` (configuration iid `cfg`) for the aligned view. */
int wt__pf_aligned_note(pf *p, int fi, const wt_event *ev, uint32_t cfg);
/* After pass 1: writes the aligned tracks and round slices; 1 when spans are wanted again. */
int wt__pf_aligned_begin(void *self);
int wt__pf_aligned_file(void *self, int fi);
/* Pass 2: a span inside a noted round goes on the aligned view; other events are ignored. */
int wt__pf_aligned_event(void *self, int fi, const wt_event *ev);
void wt__pf_aligned_release(pf_aligned *al);

/* ---- export_pf_fast.c ---- */

/* The BEGIN packet of span `ev`, at `ts` on `track`, encoded directly (the same bytes as
 * protobuf-c). Returns 1 when the span does not fit the fast path (nothing written). */
int wt__pf_fast_begin(pf *p, const wt_event *ev, int64_t ts, uint64_t track);
int wt__pf_fast_end(pf *p, int64_t ts, uint64_t track);

#endif
