/* A stdio stream whose bytes go zstd-compressed into a file: what the table export writes its
 * newline-delimited JSON through, so the JSON writer (json.h) needs no second backend.
 *
 * The stream is a glibc fopencookie() stream: every write is fed to a ZSTD_CStream and the
 * compressed output is written to the file as it fills a fixed buffer; closing ends the zstd
 * frame. Memory is constant (the compressor's window and two buffers). */
#ifndef WT_ZFILE_H
#define WT_ZFILE_H

#include <stdio.h>

/* Creates (truncates) `path` and returns a stream that compresses into it at `level`
 * (zstd levels; 0 means zstd's default), or NULL with errno set. Close it with
 * wt_zfile_close(), not fclose(), to learn whether every byte reached the file. */
FILE *wt_zfile_open(const char *path, int level);

/* Ends the frame, flushes and closes the stream. Returns 0, or WT_EIO when any write failed
 * (the file is then incomplete; the caller removes it), with errno the first failed write's
 * (EFBIG, ENOSPC, ...; EIO when unknown). NULL is a no-op returning 0. */
int wt_zfile_close(FILE *f);

#endif
