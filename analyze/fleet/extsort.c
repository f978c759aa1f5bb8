/* External sort of fixed-size records: see extsort.h. */
#include "extsort.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "spanstat.h"
#include "walltime/error.h"

#define READ_BYTES 4096    /* a chunk's read buffer while merging */
#define WRITE_BYTES 65536  /* a merge pass's write buffer */

/* One chunk being merged: the part not yet read is in the file, the part read in buf. */
typedef struct source {
    off_t at;           /* its next unread byte in the file */
    size_t left;        /* its records still in the file */
    unsigned char *buf; /* READ_BYTES (at least one record) */
    size_t pos, n;      /* buf's records [pos, n) are not taken yet */
} source;

struct wt__extsort {
    size_t rec, chunk;
    wt__extsort_cmp cmp;
    unsigned char *mem; /* records in memory: [0, n), room for cap */
    size_t n, cap, next;
    int fd;             /* the chunks' file, -1 while everything is in memory */
    size_t total;       /* records in the file */
    size_t run;         /* records a chunk of the file holds (the last may hold fewer) */
    source src[WT_EXTSORT_FANIN];
    int n_src;
    size_t read_recs;   /* records a source's buffer takes */
    unsigned char *rbuf; /* the sources' buffers, one block */
};

int wt__tmpfd(void)
{
    const char *env = getenv("TMPDIR");
    const char *dirs[2] = { env && env[0] ? env : "/tmp", "/tmp" };
    int err = ENOENT;
    for (int i = 0; i < 2; i++) {
        char path[4096];
        if (snprintf(path, sizeof path, "%s/walltime-trend-XXXXXX", dirs[i]) >= (int)sizeof path) {
            err = ENAMETOOLONG;
            continue;
        }
        const int fd = mkstemp(path);
        if (fd >= 0) {
            unlink(path);
            return fd;
        }
        err = errno;
    }
    errno = err;
    return -1;
}

/* len bytes of p at offset `at` of fd. 0, or WT_EIO with errno set (ENOSPC when the device took
 * none of a write: a full disk may say so by a short count alone). */
static int write_at(int fd, const void *p, size_t len, off_t at)
{
    const unsigned char *b = p;
    while (len) {
        const ssize_t w = pwrite(fd, b, len, at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return WT_EIO;
        }
        b += w;
        len -= (size_t)w;
        at += w;
    }
    return 0;
}

/* len bytes at offset `at` of fd into p. 0, or WT_EIO (errno set; 0 when the file is short). */
static int read_at(int fd, void *p, size_t len, off_t at)
{
    unsigned char *b = p;
    while (len) {
        const ssize_t r = pread(fd, b, len, at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = 0;
            return WT_EIO;
        }
        b += r;
        len -= (size_t)r;
        at += r;
    }
    return 0;
}

int wt__extsort_create(size_t rec, size_t chunk, wt__extsort_cmp cmp, wt__extsort **out)
{
    *out = NULL;
    if (rec == 0 || rec > READ_BYTES || !cmp)
        return WT_EINVAL;
    wt__extsort *s = calloc(1, sizeof *s);
    if (!s)
        return WT_ENOMEM;
    s->rec = rec;
    s->chunk = chunk ? chunk : WT_EXTSORT_CHUNK;
    s->cmp = cmp;
    s->fd = -1;
    s->read_recs = READ_BYTES / rec;
    *out = s;
    return 0;
}

/* The records in memory, sorted, appended to the file as its next chunk (made at the first). */
static int spill_mem(wt__extsort *s)
{
    if (s->fd < 0 && (s->fd = wt__tmpfd()) < 0)
        return WT_EIO;
    qsort(s->mem, s->n, s->rec, s->cmp);
    const int rc = write_at(s->fd, s->mem, s->n * s->rec, (off_t)(s->total * s->rec));
    if (rc == 0) {
        s->total += s->n;
        s->n = 0;
    }
    return rc;
}

int wt__extsort_put(wt__extsort *s, const void *r)
{
    if (s->n == s->chunk) {
        const int rc = spill_mem(s);
        if (rc)
            return rc;
    }
    if (s->n == s->cap) {
        /* doubled as they come (from 8), up to the chunk: a few runs take a few bytes */
        size_t cap = s->cap;
        unsigned char *m = wt__grow_array(s->mem, &cap, s->n + 1, s->rec);
        if (!m)
            return WT_ENOMEM;
        s->mem = m;
        s->cap = cap;
    }
    memcpy(s->mem + s->n++ * s->rec, r, s->rec);
    return 0;
}

/* Source k reads chunk c of the file (chunks of s->run records). */
static void source_open(wt__extsort *s, int k, size_t c)
{
    source *x = &s->src[k];
    const size_t first = c * s->run;
    x->at = (off_t)(first * s->rec);
    x->left = s->total - first < s->run ? s->total - first : s->run;
    x->buf = s->rbuf + (size_t)k * s->read_recs * s->rec;
    x->pos = x->n = 0;
}

/* Source k's next record, read in when its buffer is spent: 1 and *r, 0 when it is done, or
 * WT_EIO. */
static int source_peek(wt__extsort *s, int k, const unsigned char **r)
{
    source *x = &s->src[k];
    if (x->pos == x->n) {
        if (x->left == 0)
            return 0;
        const size_t n = x->left < s->read_recs ? x->left : s->read_recs;
        const int rc = read_at(s->fd, x->buf, n * s->rec, x->at);
        if (rc)
            return rc;
        x->at += (off_t)(n * s->rec);
        x->left -= n;
        x->pos = 0;
        x->n = n;
    }
    *r = x->buf + x->pos * s->rec;
    return 1;
}

/* The least of the sources' next records (the first source's on a tie: chunks are in the order
 * their records were put), taken: 1 and *r, 0 when all are done, or WT_EIO. A handful of
 * sources, so a scan rather than a heap. */
static int take_min(wt__extsort *s, const void **r)
{
    int best = -1;
    const unsigned char *least = NULL;
    for (int k = 0; k < s->n_src; k++) {
        const unsigned char *p;
        const int rc = source_peek(s, k, &p);
        if (rc < 0)
            return rc;
        if (rc && (best < 0 || s->cmp(p, least) < 0)) {
            best = k;
            least = p;
        }
    }
    if (best < 0)
        return 0;
    s->src[best].pos++;
    *r = least;
    return 1;
}

static size_t n_chunks(const wt__extsort *s) { return (s->total + s->run - 1) / s->run; }

/* One pass: every FANIN chunks of the file merged into one chunk of a new file, which then
 * replaces it. */
static int merge_pass(wt__extsort *s)
{
    int rc = 0;
    const int out = wt__tmpfd();
    unsigned char *wbuf = malloc(WRITE_BYTES);
    const size_t wrecs = WRITE_BYTES / s->rec;
    if (out < 0 || !wbuf) {
        rc = out < 0 ? WT_EIO : WT_ENOMEM;
        goto out;
    }
    const size_t chunks = n_chunks(s);
    off_t at = 0;
    for (size_t c = 0; rc == 0 && c < chunks; c += WT_EXTSORT_FANIN) {
        s->n_src = 0;
        for (size_t i = c; i < chunks && i < c + WT_EXTSORT_FANIN; i++)
            source_open(s, s->n_src++, i);
        size_t nw = 0;
        const void *r;
        while (rc == 0 && (rc = take_min(s, &r)) == 1) {
            memcpy(wbuf + nw++ * s->rec, r, s->rec);
            rc = 0;
            if (nw == wrecs) {
                rc = write_at(out, wbuf, nw * s->rec, at);
                at += (off_t)(nw * s->rec);
                nw = 0;
            }
        }
        if (rc == 0 && nw) {
            rc = write_at(out, wbuf, nw * s->rec, at);
            at += (off_t)(nw * s->rec);
        }
    }
    if (rc == 0) {
        close(s->fd);
        s->fd = out;
        s->run *= WT_EXTSORT_FANIN;
    }
out:
    if (rc && out >= 0) {
        const int e = errno;
        close(out);
        errno = e;
    }
    free(wbuf);
    s->n_src = 0;
    return rc;
}

int wt__extsort_finish(wt__extsort *s)
{
    if (s->fd < 0) {
        if (s->n) /* mem is NULL before the first record */
            qsort(s->mem, s->n, s->rec, s->cmp); /* all in memory: no file */
        return 0;
    }
    int rc = s->n ? spill_mem(s) : 0;
    if (rc)
        return rc;
    free(s->mem); /* the merge reads through its small buffers */
    s->mem = NULL;
    s->cap = 0;
    s->run = s->chunk;
    if (!(s->rbuf = malloc(WT_EXTSORT_FANIN * s->read_recs * s->rec)))
        return WT_ENOMEM;
    while (rc == 0 && n_chunks(s) > WT_EXTSORT_FANIN)
        rc = merge_pass(s);
    for (size_t c = 0; rc == 0 && c < n_chunks(s); c++)
        source_open(s, s->n_src++, c);
    return rc;
}

int wt__extsort_next(wt__extsort *s, const void **r)
{
    if (s->fd >= 0)
        return take_min(s, r);
    if (s->next == s->n)
        return 0;
    *r = s->mem + s->next++ * s->rec;
    return 1;
}

void wt__extsort_free(wt__extsort *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    free(s->mem);
    free(s->rbuf);
    free(s);
}
