/* The recorder's allocations and their failure hook (see rec_alloc.h). Allocations are rare
 * (a thread's first call, a new string, an open), so counting each costs nothing that
 * matters. */
#include "rec_alloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>

static atomic_long made;
static atomic_long fail_at;

/* Counts this allocation; 1 when the hook says it fails. */
static int fails(void)
{
    const long n = atomic_fetch_add_explicit(&made, 1, memory_order_relaxed) + 1;
    return n == atomic_load_explicit(&fail_at, memory_order_relaxed);
}

void *wt__alloc(size_t n) { return fails() ? NULL : malloc(n); }

void *wt__realloc(void *p, size_t n) { return fails() ? NULL : realloc(p, n); }

void *wt__pages(size_t n)
{
    if (fails())
        return NULL;
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void wt__pages_free(void *p, size_t n)
{
    if (p)
        munmap(p, n);
}

void wt__alloc_fail_at(long n)
{
    atomic_store(&fail_at, n);
    atomic_store(&made, 0);
}

long wt__alloc_count(void) { return atomic_load(&made); }
