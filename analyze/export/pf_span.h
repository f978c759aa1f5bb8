/* The Perfetto sink's span packets, above the packet writer (pf_writer.h): a span's
 * SLICE_BEGIN (name, category, annotations) and SLICE_END.
 *
 * At two packets per span these are the export's hot path, so they are encoded here directly
 * instead of through protobuf-c (whose generic packer sizes nested messages twice: over half of
 * the export's time, docs/EXPORT.md), field for field as protobuf-c writes the same message, so
 * the bytes are identical: test_export_fast_path_matches_protobuf_c compares whole files
 * exported both ways (the writer's `reference` mode packs them with protobuf-c).
 *
 * A span is carried as a `pf_span`, a copy of the reader's event small enough to hold back
 * while the layout (pf_layout.h) waits for its parent; its strings point into the reader, so
 * it must be written before that file's reader is freed.
 */
#ifndef WT_PF_SPAN_H
#define WT_PF_SPAN_H

#include <stdint.h>

#include "pf_writer.h"
#include "walltime/reader.h"

typedef struct pf_span {
    int64_t ts, end; /* end >= ts */
    int64_t count, bytes;
    const char *label, *cat, *detail; /* the reader's strings (label and cat never NULL) */
    uint64_t seq;    /* arrival order on its thread */
    uint64_t lo;     /* the layout's: the arrival number of its first held descendant */
    uint32_t depth;  /* as recorded (clamped to WT_EXPORT_MAX_DEPTH - 1) */
    uint32_t flags;  /* WT_EVF_* */
    uint8_t cached;  /* wt_cached */
    uint8_t lane;    /* the layout's decision: 1 = not on the thread's nested track */
} pf_span;

/* The span of reader event `ev` (a WT_EV_SPAN), with a negative duration read as 0 and an end
 * past INT64_MAX clamped. */
void wt__pf_span_of(pf_span *s, const wt_event *ev);
/* The SLICE_BEGIN of `s` moved to start at `ts`, on `track`. */
int wt__pf_span_begin(pf_writer *w, const pf_span *s, int64_t ts, uint64_t track);
/* A SLICE_END at `ts` on `track`. */
int wt__pf_span_end(pf_writer *w, int64_t ts, uint64_t track);
/* Both: the whole span moved to start at `ts`. */
int wt__pf_span_whole(pf_writer *w, const pf_span *s, int64_t ts, uint64_t track);

#endif
