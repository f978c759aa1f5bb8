/* Builds .wtrace files for tests from events the test chooses (pid, tid, times in ns),
 * through the format's encoder, so the result is a real trace the reader must accept. The
 * expected values of a test then come from the test's own numbers, not from the recorder.
 *
 * Strings are interned by content. Records go into the current frame; tb_frame() starts a new
 * one (the recorder writes one per flush). Failures abort the test (these are test fixtures). */
#ifndef WT_TRACEBUILD_H
#define WT_TRACEBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "walltime/walltime.h"

typedef struct tb tb;

typedef struct tb_span_desc {
    uint64_t tid;
    int64_t start, end;
    uint32_t depth;
    const char *category, *label, *detail;
    wt_cached cached;
    int64_t count; /* 0 means 1 */
    int64_t bytes;
    int unclosed, measured;
} tb_span_desc;

/* A trace of process `pid` that started at process_start_ns, recording from open_ns. The
 * header says cmdline "tracebuild test", host "testhost", clock "monotonic". */
tb *tb_create(const char *path, uint64_t pid, int64_t process_start_ns, int64_t open_ns);
/* Frames are zstd-compressed by default; raw (stored) blocks with raw=1, as the crash path. */
void tb_set_raw(tb *b, int raw);
void tb_set_cmdline(tb *b, const char *cmdline); /* before the first record */

/* Where and when a trace was recorded, for traces of many hosts (before the first record;
 * strings must outlive the builder). Unset, the header says host "testhost", a realtime anchor
 * of 2026-01-01 + open_ns and no 1.1 fields. */
typedef struct tb_origin {
    const char *host;        /* NULL: unset (the rest is ignored) */
    const char *boot_id;     /* NULL: not written */
    const char *run_id;      /* 32 hex digits, or NULL: not written */
    int64_t real_minus_mono; /* the anchor: CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
    int64_t anchor_err_ns;   /* 0: not written */
    uint64_t parent_pid;     /* 0: not written */
} tb_origin;
void tb_set_origin(tb *b, const tb_origin *o);

void tb_span(tb *b, uint64_t tid, int64_t start, int64_t end, uint32_t depth, const char *category,
             const char *label);
void tb_span_ex(tb *b, const tb_span_desc *d);
void tb_counter(tb *b, uint64_t tid, int64_t ts, const char *name, int64_t value);
void tb_mark(tb *b, uint64_t tid, int64_t ts, const char *category, const char *label,
             const char *detail);
void tb_meta(tb *b, uint64_t tid, int64_t ts, const char *key, const char *value);
void tb_thread_name(tb *b, uint64_t tid, int64_t ts, const char *name);
void tb_round(tb *b, uint64_t tid, int64_t start, int64_t end, const char *config, int64_t round);
void tb_dropped(tb *b, uint64_t tid, int64_t ts, uint64_t count);
void tb_sync(tb *b, int64_t ts);
/* Defines `s` again (its id unchanged) in the current frame: what a reader that lost its first
 * definition with a damaged frame then learns. */
void tb_redefine(tb *b, const char *s);
/* Ends the current frame; the next record starts a new one. */
void tb_frame(tb *b);

#define TB_END_NONE 0   /* no end record: as a writer killed with -9 */
#define TB_END_CLEAN 1
#define TB_END_SIGNAL 2
/* Writes the last frame (with an end record unless TB_END_NONE) and frees the builder. */
void tb_close(tb *b, int end, int64_t ts, int signo);

/* A temporary directory per test (cmocka setup/teardown): tb_tmpdir_enter makes
 * PREFIX-XXXXXX in the working directory, tb_path_in names a file in it (one of four rotating
 * static buffers), tb_tmpdir_leave removes it with its contents. Return 0 or -1. */
int tb_tmpdir_enter(const char *prefix);
int tb_tmpdir_leave(void);
char *tb_path_in(const char *name);
const char *tb_tmpdir(void); /* the directory itself */
/* How many entries of the test's directory have `part` in their name; -1 when unreadable. */
int tb_count_files(const char *part);

/* File helpers for damage tests: the file's bytes (caller frees) and writing bytes back. */
unsigned char *tb_read_file(const char *path, size_t *len);
void tb_write_file(const char *path, const unsigned char *data, size_t len);
/* The offsets of the zstd frames in a file's bytes (after the header), at most `max`, in at[];
 * returns how many. */
int tb_frame_starts(const unsigned char *d, size_t len, size_t *at, int max);

#endif
