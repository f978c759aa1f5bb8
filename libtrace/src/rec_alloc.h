/* The recorder's memory: every allocation of rec_*.c goes through here, so that a test can
 * make the Nth one fail and check that the host never crashes and recording turns off
 * cleanly with one message (issue 10). Thread states and the string table take whole pages
 * from mmap(), not malloc(): a signal handler's recording call may create them while the
 * code it interrupted is inside malloc(). */
#ifndef WT_REC_ALLOC_H
#define WT_REC_ALLOC_H

#include <stddef.h>

/* malloc / realloc, or NULL (also when the test hook says this one fails). */
void *wt__alloc(size_t n);
void *wt__realloc(void *p, size_t n);

/* n bytes of zeroed, page-aligned memory from mmap(), or NULL. Async-signal-safe. */
void *wt__pages(size_t n);
/* Gives back what wt__pages(n) returned; NULL is a no-op. */
void wt__pages_free(void *p, size_t n);

/* Test hook: counting starts again at 0, and the nth allocation from now fails (1 is the
 * next one); 0 fails none. Allocations are counted either way. */
void wt__alloc_fail_at(long n);
/* Allocations made since the last wt__alloc_fail_at(). */
long wt__alloc_count(void);

#endif
