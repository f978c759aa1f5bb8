/* Huge-page-friendly large buffers: see bigmem.h. */
#include "bigmem.h"

#include <stdint.h>
#include <sys/mman.h>

static size_t rounded(size_t n) { return (n + WT__BIG_UNIT - 1) & ~(WT__BIG_UNIT - 1); }

static void want_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    (void)madvise(p, n, MADV_HUGEPAGE); /* a hint: without THP the pages are small */
#else
    (void)p;
    (void)n;
#endif
}

void *wt__big_alloc(size_t n)
{
    if (n == 0 || n > SIZE_MAX - 2 * WT__BIG_UNIT)
        return NULL;
    const size_t size = rounded(n);
    /* one unit more, then the parts before the first aligned address and past the size go */
    uint8_t *const m = mmap(NULL, size + WT__BIG_UNIT, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    const uintptr_t at = ((uintptr_t)m + WT__BIG_UNIT - 1) & ~(uintptr_t)(WT__BIG_UNIT - 1);
    uint8_t *const p = (uint8_t *)at;
    if (p > m)
        (void)munmap(m, (size_t)(p - m));
    if (p + size < m + size + WT__BIG_UNIT)
        (void)munmap(p + size, (size_t)(m + size + WT__BIG_UNIT - (p + size)));
    want_huge(p, size);
    return p;
}

void *wt__big_resize(void *p, size_t old, size_t n)
{
    if (n == 0 || n > SIZE_MAX - 2 * WT__BIG_UNIT)
        return NULL;
    const size_t from = rounded(old), to = rounded(n);
    if (from == to)
        return p;
    void *q = mremap(p, from, to, MREMAP_MAYMOVE);
    if (q == MAP_FAILED)
        return NULL;
    if (to > from)
        want_huge(q, to);
    return q;
}

void wt__big_free(void *p, size_t n)
{
    if (p)
        (void)munmap(p, rounded(n));
}
