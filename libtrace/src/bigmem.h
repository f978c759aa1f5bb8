/* Large buffers of the reader: its string arena past a few MiB and its string table past
 * 256 Ki ids, taken from mmap() aligned to 2 MiB with MADV_HUGEPAGE. A trace of millions of
 * distinct strings otherwise took a page fault every 4 KiB (32,000 of them for 4 M strings:
 * a quarter of `info`'s CPU on the 2-core VM of session 11, whose faults are dear); with
 * transparent huge pages each fault maps 2 MiB. Where the kernel gives none (THP off) they
 * are plain anonymous memory, zeroed as mmap() gives it. Sizes are rounded up to
 * WT__BIG_UNIT; a caller keeps the size it asked for and hands it back. */
#ifndef WT_BIGMEM_H
#define WT_BIGMEM_H

#include <stddef.h>

#define WT__BIG_UNIT ((size_t)2 << 20)

/* n bytes (> 0), zeroed, aligned to WT__BIG_UNIT; NULL when there is no memory. */
void *wt__big_alloc(size_t n);
/* p (of wt__big_alloc(old) or a previous resize to old) grown or shrunk to n, its first
 * min(old, n) bytes kept, the rest zero; maybe moved (the pages move, the bytes are not
 * copied). NULL when there is no memory: p is then unchanged. */
void *wt__big_resize(void *p, size_t old, size_t n);
/* Gives p (of size n, as asked) back; NULL is a no-op. */
void wt__big_free(void *p, size_t n);

#endif
