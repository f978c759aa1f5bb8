/* An external sort of fixed-size records: what orders trend's runs by start without holding a
 * record per run in memory.
 *
 * Records are appended to a buffer of at most `chunk` records; a full buffer is sorted and
 * written as a sorted chunk to an unlinked temporary file (wt__tmpfd). At the end the chunks
 * are merged FANIN at a time, each read through a small fixed buffer; while more than FANIN
 * chunks remain, a pass merges them into a new temporary file (chunks FANIN times longer).
 * When every record fits in the buffer, no file is made and the records are read from the
 * buffer itself. Memory: the buffer (its capacity grows with the records up to `chunk`), and
 * while merging FANIN read buffers and one write buffer; never a word per record or per chunk
 * (chunks of one pass all hold the same number of records but the last).
 *
 * The temporary files hold the records' bytes as they are in memory: they are this process's
 * own, unlinked at once, read back by it only. */
#ifndef WT_FLEET_EXTSORT_H
#define WT_FLEET_EXTSORT_H

#include <stddef.h>

#define WT_EXTSORT_CHUNK 4096 /* records sorted in memory at once, by default */
#define WT_EXTSORT_FANIN 16    /* chunks merged at once */

typedef struct wt__extsort wt__extsort;

/* The order of records. Make it total (a tie broken by something the record carries, as trend
 * breaks ties of start by the place on the command line): records that compare equal come out
 * in no promised order (qsort is not stable). */
typedef int (*wt__extsort_cmp)(const void *a, const void *b);

/* A sort of records of `rec` bytes (1 .. 4096), `chunk` of them in memory at once (0: the
 * default, WT_EXTSORT_CHUNK). Returns 0 and *out, or WT_ENOMEM / WT_EINVAL (*out NULL). */
int wt__extsort_create(size_t rec, size_t chunk, wt__extsort_cmp cmp, wt__extsort **out);

/* Appends a copy of `r`. Returns 0; WT_ENOMEM (nothing changed); WT_EIO when a full buffer could
 * not be written to a temporary file (errno says why; the sort is then unusable). */
int wt__extsort_put(wt__extsort *s, const void *r);

/* No more records: sorts what is left and merges the chunks down to at most FANIN. Then the
 * records come out of wt__extsort_next in order. Returns 0, WT_ENOMEM or WT_EIO (errno set). */
int wt__extsort_finish(wt__extsort *s);

/* After finish: 1 and *r pointing at the next record (valid until the next call), 0 at the
 * end, WT_EIO when a temporary file could not be read back (errno set, or 0 for a short read). */
int wt__extsort_next(wt__extsort *s, const void **r);

/* NULL is a no-op. Closes the temporary files. */
void wt__extsort_free(wt__extsort *s);

/* A temporary file for this process alone: made in $TMPDIR (else, or when that fails, /tmp),
 * opened read-write and unlinked at once, so nothing is left behind however the process ends.
 * Returns its descriptor, or -1 with errno set when neither directory works. */
int wt__tmpfd(void);

#endif
