/* The tests' pseudo-random numbers: Marsaglia's xorshift64 (shifts 13, 7, 17), seeded by the
 * caller, so that every run of a test draws the same sequence and a failure repeats. */
#ifndef WT_TEST_XORSHIFT_H
#define WT_TEST_XORSHIFT_H

#include <stdint.h>

/* The next number of the sequence in *x (which must not be 0). */
static inline uint64_t xorshift64(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

#endif
