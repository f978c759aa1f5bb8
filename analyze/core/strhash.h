/* The analyzer's string hash, one for every table keyed by text. */
#ifndef WT_STRHASH_H
#define WT_STRHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A 64-bit hash of s[0..n), eight bytes a step: it runs on every span of a label new to the
 * analyses (textset.h) and to the Perfetto writer's names (pf_maps.c), where a byte-wise hash
 * was a tenth of the work over unique labels. Its low bits are well spread (the final mix), as
 * the open-addressing tables that take them as their index need. */
static inline uint64_t wt__str_hash(const char *s, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xC2B2AE3D27D4EB4FULL);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 29;
    }
    if (i < n) {
        /* the last 8 bytes, overlapping the words above, when there are 8; else byte by byte
         * (a memcpy of a variable length would be a call) */
        uint64_t w = 0;
        if (n >= 8)
            memcpy(&w, s + n - 8, 8);
        else
            for (size_t k = 0; k < n; k++)
                w |= (uint64_t)(unsigned char)s[k] << (8 * k);
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
    }
    h ^= h >> 32;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 29;
    return h;
}

#endif
