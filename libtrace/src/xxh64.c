/* XXH64: see xxh64.h. Four lanes consume 32-byte stripes; the tail is folded in 8, 4 and 1
 * byte steps; a final avalanche mixes the bits. Reads are little-endian byte by byte, so the
 * result does not depend on the host's byte order or alignment. */
#include "xxh64.h"

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t read64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t read32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t round_(uint64_t acc, uint64_t in) { return rotl(acc + in * P2, 31) * P1; }

static uint64_t merge(uint64_t acc, uint64_t v) { return (acc ^ round_(0, v)) * P1 + P4; }

uint64_t wt__xxh64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data, *end = p + len;
    uint64_t acc;
    if (len >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        do {
            v1 = round_(v1, read64(p));
            v2 = round_(v2, read64(p + 8));
            v3 = round_(v3, read64(p + 16));
            v4 = round_(v4, read64(p + 24));
            p += 32;
        } while (end - p >= 32);
        acc = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
        acc = merge(acc, v1);
        acc = merge(acc, v2);
        acc = merge(acc, v3);
        acc = merge(acc, v4);
    } else {
        acc = seed + P5;
    }
    acc += (uint64_t)len;
    for (; end - p >= 8; p += 8) {
        acc ^= round_(0, read64(p));
        acc = rotl(acc, 27) * P1 + P4;
    }
    if (end - p >= 4) {
        acc ^= (uint64_t)read32(p) * P1;
        acc = rotl(acc, 23) * P2 + P3;
        p += 4;
    }
    for (; p < end; p++) {
        acc ^= *p * P5;
        acc = rotl(acc, 11) * P1;
    }
    acc ^= acc >> 33;
    acc *= P2;
    acc ^= acc >> 29;
    acc *= P3;
    acc ^= acc >> 32;
    return acc;
}
