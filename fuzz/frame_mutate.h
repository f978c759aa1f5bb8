/* Mutations that know the frame structure of a .wtrace file (docs/FORMAT.md): a header
 * (skippable frame), then zstd data frames and skippable frames. Shared by the libFuzzer
 * harness's custom mutator (fuzz_reader.c) and the deterministic mutation test
 * (tests/test_fuzz_traces.c), so both reach what byte-level mutations rarely make: empty
 * frames, skippable frames at frame boundaries, records split across two frames, frames
 * merged, dropped or repeated, and damage inside a frame that still passes its checksum.
 *
 * A frame whose content is changed is written back as a raw frame (stored blocks) with a
 * correct checksum, or without one (descriptor E0) one time in four. */
#ifndef WT_FRAME_MUTATE_H
#define WT_FRAME_MUTATE_H

#include <stddef.h>
#include <stdint.h>

/* The caller's random numbers: any 64-bit value. */
typedef uint64_t (*wt_fm_rand)(void *ctx);

/* Changes the bytes of one frame's decoded content in place: content[0..*n), room for `max`
 * bytes; sets *n to the new length. */
typedef void (*wt_fm_bytes)(void *ctx, uint8_t *content, size_t *n, size_t max);

/* Applies one structural mutation to data[0..size) in place (room for `max` bytes) and
 * returns the new size; `bytes` (may be NULL) changes a frame's content for the "record
 * damage" mutation. *what (may be NULL) names what was done. A file whose structure cannot be
 * followed (no header, a frame that does not decode) is still mutated at the boundaries that
 * could be found; when nothing fits in `max` the data is left as it was. */
size_t wt_fm_mutate(uint8_t *data, size_t size, size_t max, wt_fm_rand rnd, wt_fm_bytes bytes,
                    void *ctx, const char **what);

#endif
