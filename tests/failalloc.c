/* Test-only allocation-failure hook (LD_PRELOAD): with WT_FAIL_ALLOC_AT=N in the environment,
 * the Nth call of malloc, calloc, realloc, posix_memalign or aligned_alloc in the process
 * fails (returns NULL, errno ENOMEM), and every later one succeeds; with WT_FAIL_ALLOC_COUNT
 * set it says at exit how many calls there were, on stderr, so that a test can sweep N over
 * all of them. glibc lets a program replace these functions; the real ones are its
 * __libc_* entry points. Used by tests/test_cli_reliability.c on walltime-analyze. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t align, size_t n);

static long calls, fail_at = -2; /* -2: not read yet; -1: never */

/* Whether this call is the one to fail. getenv() does not allocate. */
static int fail_now(void)
{
    if (fail_at == -2) {
        const char *v = getenv("WT_FAIL_ALLOC_AT");
        fail_at = v && *v ? atol(v) : -1;
    }
    if (++calls == fail_at) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t size) { return fail_now() ? NULL : __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }
void *aligned_alloc(size_t align, size_t n) { return fail_now() ? NULL : __libc_memalign(align, n); }

int posix_memalign(void **out, size_t align, size_t n)
{
    if (fail_now())
        return ENOMEM;
    void *p = __libc_memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

__attribute__((destructor)) static void say_count(void)
{
    if (!getenv("WT_FAIL_ALLOC_COUNT"))
        return;
    char line[64];
    const int n = snprintf(line, sizeof line, "failalloc: %ld allocations\n", calls);
    if (write(2, line, (size_t)n) < 0)
        return;
}
