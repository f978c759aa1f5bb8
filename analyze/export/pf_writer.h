/* The Perfetto sink's packet writer, above pf_maps.h and below everything else of the sink:
 * TracePackets (analyze/export/wt_perfetto.proto) written one by one as length-delimited field 1
 * of a Trace, through a 1 MiB output buffer.
 *
 * One packet sequence (trusted_packet_sequence_id 1) carries everything: its first packet
 * (wt__pfw_start) clears the incremental state, sets the default clock (CLOCK_MONOTONIC, the
 * recorder's) and interns the debug annotation names; event names and categories are interned
 * on first use in the packet that uses them, and every track event packet says it needs that
 * state. Every string written is valid UTF-8: interned strings are repaired when interned, the
 * others through wt__pfw_utf8.
 *
 * Packets other than the per-span ones (pf_span.c) are packed by protobuf-c from a `pf_tev`
 * (a track event under construction) or a filled message. Every function that writes returns 0
 * or a negative WT_E* (WT_EIO when writing failed, WT_ENOMEM).
 */
#ifndef WT_PF_WRITER_H
#define WT_PF_WRITER_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pf_maps.h"
#include "walltime/error.h"
#include "wt_perfetto.pb-c.h"

#define PF_SEQ_ID 1u
#define PF_CLOCK_MONO 3u
#define PF_CLOCK_REAL 1u
#define PF_OB_CAP (1u << 20)
#define PF_OB_FLUSH (PF_OB_CAP - (64u << 10)) /* leaves room for one direct span packet */
/* The bound on the bytes of interned event names and categories, both tables together (each
 * string counts its bytes plus PF_ISTR_OVERHEAD): past it a new string is written inline in its
 * event (TrackEvent name / categories) instead of being interned. */
#define PF_INTERN_BYTES ((size_t)32 << 20)
#define PF_NEW_RUN 8u /* span labels new in a row, from which a label skips the pointer cache */
#define PF_FIX_SLOTS 12 /* strings repaired at once: 0-7 annotations, 8-11 the rest of a packet */

/* Debug annotation names, interned once in the first packet. */
enum { AN_CACHED = 1, AN_COUNT, AN_BYTES, AN_DETAIL, AN_UNCLOSED, AN_MEASURED, AN_ROUND, AN_TEXT,
       AN_CATEGORY, AN_LABEL, AN_SECONDS, AN_COST, AN_DROPPED, AN_COUNT_ALL };

typedef struct pf_writer {
    FILE *out;
    uint8_t *ob; /* the output buffer, written out at PF_OB_FLUSH */
    size_t olen;
    uint8_t *buf; /* protobuf-c packs here */
    size_t cap;
    int reference; /* tests: pack span packets with protobuf-c too (same bytes) */
    int started, eio;
    uint64_t next_uuid;
    /* the varint of the last track uuid encoded (uuids take 9 bytes, and a thread's spans come
     * in runs on one track): vt_len bytes of vt encode vt_track */
    uint64_t vt_track;
    uint8_t vt[10], vt_len;
    /* span labels in a row that the names table did not hold (new, or past the interning
     * bound): from PF_NEW_RUN on, the labels are taken to be new ones (one a span) and go
     * straight to the table, without the pointer cache's lookup, a miss out of cache each */
    uint32_t new_names;
    uint64_t bytes; /* written out */
    pf_itab names, cats;
    size_t intern_left; /* the interning budget left (names and cats point to it) */
    char *fix[PF_FIX_SLOTS];
    size_t fix_cap[PF_FIX_SLOTS];
    /* the interned entries of the packet under construction */
    Perfetto__Protos__InternedData interned;
    Perfetto__Protos__EventName iname, *iname_p;
    Perfetto__Protos__EventCategory icat, *icat_p;
    Perfetto__Protos__DebugAnnotation ann[8], *ann_p[8];
} pf_writer;

/* A track event packet under construction, packed by protobuf-c (wt__pfw_emit). */
typedef struct pf_tev {
    Perfetto__Protos__TracePacket pkt;
    Perfetto__Protos__TrackEvent te;
    uint64_t cat;
    char *cat_s; /* a category written inline */
    size_t n_ann;
} pf_tev;

/* Sets up a writer to `out` (not closed by it), with the interning bound PF_INTERN_BYTES.
 * Returns 0 or WT_ENOMEM. */
int wt__pfw_init(pf_writer *w, FILE *out);
void wt__pfw_release(pf_writer *w);
/* A new track uuid, unique in this trace. */
uint64_t wt__pfw_uuid(pf_writer *w);
/* `s` when it is valid UTF-8, else a repaired copy in slot `slot` (valid until that slot is
 * used again); "" for NULL or when memory runs out. */
const char *wt__pfw_utf8(pf_writer *w, unsigned slot, const char *s);
/* As wt__pfw_utf8 for a non-NULL `s` of length n (strlen(s)); *len is the result's length. */
const char *wt__pfw_utf8_n(pf_writer *w, unsigned slot, const char *s, size_t n, size_t *len);

/* The length of v's base-128 varint, 1 to 10: ceil(bits / 7), as (9 * bits + 64) / 64 for 1 to
 * 64 bits (test_export_pf_encode checks every bit length). */
static inline size_t wt__pfw_varint_len(uint64_t v)
{
    const unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1);
    return (9u * bits + 64u) / 64u;
}

/* The base-128 varint of v at b (at most 10 bytes); returns its length. Inline: a span packet
 * writes a dozen of them, and a call each cost more than the encoding. */
static inline size_t wt__pfw_varint(uint8_t *b, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
        b[n++] = (uint8_t)(v | 0x80);
    b[n++] = (uint8_t)v;
    return n;
}

/* The varint of track uuid `track` at b (room for 10 bytes: the whole of vt is copied);
 * returns its length. */
static inline size_t wt__pfw_track_varint(pf_writer *w, uint8_t *b, uint64_t track)
{
    if (track != w->vt_track) {
        w->vt_track = track;
        w->vt_len = (uint8_t)wt__pfw_varint(w->vt, track);
    }
    memcpy(b, w->vt, sizeof w->vt);
    return w->vt_len;
}

/* Writes the output buffer out. */
int wt__pfw_flush(pf_writer *w);
/* Appends `n` bytes of a packed TracePacket as field 1 (length-delimited) of Trace. */
int wt__pfw_packet(pf_writer *w, const uint8_t *pkt, size_t n);
/* Room for a packet of up to `n` bytes written straight into w->ob + w->olen (flushes first
 * when needed); the caller adds what it wrote to w->olen and calls wt__pfw_done. */
int wt__pfw_reserve(pf_writer *w, size_t n);
int wt__pfw_done(pf_writer *w);
void wt__pfw_packet_init(Perfetto__Protos__TracePacket *pkt);
/* Packs one packet with protobuf-c and writes it. */
int wt__pfw_emit(pf_writer *w, const Perfetto__Protos__TracePacket *pkt);
int wt__pfw_emit_track(pf_writer *w, Perfetto__Protos__TrackDescriptor *td);
/* A named track (a child of `parent` when non-zero); rank < 0: no sibling_order_rank;
 * `ordered`: its own children are shown in sibling_order_rank order. */
int wt__pfw_track(pf_writer *w, uint64_t uuid, uint64_t parent, const char *name, int rank,
                  int ordered);
/* The first packet of the sequence (once; later calls do nothing). */
int wt__pfw_start(pf_writer *w);

void wt__pfw_tev_init(pf_writer *w, pf_tev *t, int64_t ts, int type, uint64_t track);
/* Sets the event's name and category (NULL: none), interning them; new entries ride in this
 * packet. Past the interning bound a new string is written inline (repair slots 8 and 9). */
int wt__pfw_tev_name(pf_writer *w, pf_tev *t, const char *name, const char *cat);
/* Puts event name `iid` (just interned elsewhere) into this packet, so every iid resolves. */
void wt__pfw_send_name(pf_writer *w, pf_tev *t, uint32_t iid);
/* Debug annotations (at most 8 per event); string values are repaired to UTF-8. */
void wt__pfw_ann_str(pf_writer *w, pf_tev *t, unsigned name, const char *s);
void wt__pfw_ann_int(pf_writer *w, pf_tev *t, unsigned name, int64_t v);
void wt__pfw_ann_real(pf_writer *w, pf_tev *t, unsigned name, double v);
void wt__pfw_ann_bool(pf_writer *w, pf_tev *t, unsigned name);
/* A SLICE_END at `ts` on `track`. */
int wt__pfw_end_slice(pf_writer *w, int64_t ts, uint64_t track);

#endif
