/* wt_pagecache_probe(): how much of a file the OS page cache holds, recorded as two counters.
 * The keep/skip comparison needs it because a build that reads weights from memory and one
 * that reads them from disk are not comparable; the probe lets the report say which rounds
 * saw which state. The file is mapped read-only and never touched, so probing does not fault
 * pages in; mincore() reports per page. Large files are mapped in windows and queried in
 * fixed chunks, so memory stays constant for any file size. Not a hot-path call. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "walltime/walltime.h"

#define WINDOW_BYTES ((int64_t)1 << 30) /* mapped at a time: fits any 64-bit address space */
#define CHUNK_PAGES 4096                /* mincore vector on the stack */

/* Resident bytes of [off, off + len) of fd, len > 0; negative WT_E* on failure. */
static int64_t window_resident(int fd, int64_t off, int64_t len, int64_t page)
{
    void *map = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, (off_t)off);
    if (map == MAP_FAILED)
        return WT_EIO;
    unsigned char vec[CHUNK_PAGES];
    int64_t resident = 0, rc = 0;
    for (int64_t done = 0; done < len;) {
        int64_t n = len - done;
        if (n > (int64_t)CHUNK_PAGES * page)
            n = (int64_t)CHUNK_PAGES * page;
        if (mincore((char *)map + done, (size_t)n, vec) != 0) {
            rc = WT_EIO;
            goto out;
        }
        const int64_t pages = (n + page - 1) / page;
        for (int64_t i = 0; i < pages; i++)
            if (vec[i] & 1) {
                /* the last page of the file counts only its bytes */
                const int64_t start = done + i * page, end = start + page;
                resident += (end > len ? len : end) - start;
            }
        done += n;
    }
    rc = resident;
out:
    munmap(map, (size_t)len);
    return rc;
}

int64_t wt_pagecache_probe(const char *path, const char *name)
{
    if (!path)
        return WT_EINVAL;
    const char *base = name ? name : "pagecache";
    char res_name[256], file_name[256];
    if (snprintf(res_name, sizeof res_name, "%s.resident_bytes", base) >= (int)sizeof res_name ||
        snprintf(file_name, sizeof file_name, "%s.file_bytes", base) >= (int)sizeof file_name)
        return WT_EINVAL;
    /* O_NONBLOCK: a FIFO must not block the caller; it is refused below anyway */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return WT_EOPEN;
    int64_t rc = 0;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        rc = WT_EIO;
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = WT_EINVAL; /* devices, pipes, directories have no page-cache residency to speak of */
        goto out;
    }
    const int64_t size = (int64_t)st.st_size;
    long ps = sysconf(_SC_PAGESIZE);
    const int64_t page = ps > 0 ? ps : 4096;
    int64_t resident = 0;
    for (int64_t off = 0; off < size; off += WINDOW_BYTES) {
        const int64_t len = size - off < WINDOW_BYTES ? size - off : WINDOW_BYTES;
        const int64_t r = window_resident(fd, off, len, page);
        if (r < 0) {
            rc = r;
            goto out;
        }
        resident += r;
    }
    wt_counter(file_name, size);
    wt_counter(res_name, resident);
    rc = resident;
out:
    close(fd);
    return rc;
}
