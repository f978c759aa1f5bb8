/* XXH64, the hash zstd frames carry as their content checksum (RFC 8878 section 3.1.1:
 * the low 32 bits of XXH64 with seed 0). Written from the algorithm's published description so
 * the crash path can checksum the raw frames it writes without calling into zstd.
 * Pure arithmetic: async-signal-safe. */
#ifndef WT_XXH64_H
#define WT_XXH64_H

#include <stddef.h>
#include <stdint.h>

uint64_t wt__xxh64(const void *data, size_t len, uint64_t seed);

#endif
