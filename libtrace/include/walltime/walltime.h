/* libwalltime: the in-process recorder.
 *
 * A program marks where its wall time goes (spans with a category and label, the cache
 * outcome HIT/MISS, a count and a detail), plus counters, instant marks, run metadata,
 * thread names and keep/skip rounds. The library writes them, zstd-compressed, to a trace
 * file (docs/FORMAT.md) that `walltime-analyze` reads offline.
 *
 * Rules that hold for every function in this header:
 * - It never fails the host program: no call aborts, blocks on I/O or returns an error the
 *   caller must handle. A write error turns recording off with one message on stderr.
 * - Strings are copied (interned by content) before the call returns; the caller's buffers
 *   need not outlive the call. NULL is accepted wherever a string is, meaning "none". Any
 *   bytes are accepted (invalid UTF-8 is kept as it is); a string longer than 4096 bytes is
 *   cut to its first 4096. A process defines at most 4,194,304 distinct strings of at most
 *   128 MiB in all (each counted as its length + 1), what a trace file holds; every new
 *   string after that is recorded as "(walltime: more distinct strings than a trace holds)".
 * - Every value a call accepts reads back: what a value becomes when the file cannot hold
 *   it as given is said at the call (seconds, cache outcomes, counts).
 * - Without wt_open() the recorder starts by itself on first use, with the path from the
 *   environment (below), and closes at exit: from the library's destructor, after the
 *   program's atexit() handlers and C++ static destructors, which may still record.
 * - fork(): a child of a recording process records into a file of its own, opened at its
 *   first recording call from the template the parent opened with (%p: the child's pid), with
 *   the parent's pid in its header; spans open in the parent at the fork stay the parent's.
 * - With WALLTIME=0 (or off, false, no) or TT_WALLTIME=0 in the environment every call is a
 *   no-op costing a branch, and no file is written.
 * - Thread safety: every function may be called from any thread at any time, wt_open(),
 *   wt_flush() and wt_close() included (a flush during a close on another thread returns 0
 *   when its events made it into the file, WT_ESTATE when the file was already being ended).
 *   Spans belong to the thread that began them; wt_end() on another thread is ignored.
 * - Signal handlers: the recording calls (wt_begin, wt_end, wt_end_ex, wt_record,
 *   wt_record_ex, wt_counter, wt_mark, wt_meta, wt_thread_name, wt_round_begin,
 *   wt_round_end) may be made from a signal handler once the recorder has started outside
 *   it (wt_open() or any first call). A call that interrupted another walltime call of its
 *   thread is dropped and counted in the trace's DROPPED record (an interrupted wt_end() or
 *   wt_round_end() is ignored instead: the span stays open and is recorded unclosed with its
 *   parent or its thread); any other call is recorded. wt_open(), wt_flush(), wt_close(),
 *   wt_print_ledger() and wt_pagecache_probe() are not for handlers (they lock, allocate or
 *   print); wt_open(), wt_flush() and wt_close() made from one that interrupted a walltime
 *   call return WT_ESTATE and do nothing.
 * - The program's own handlers: crash handlers are installed for SIGSEGV, SIGBUS, SIGILL,
 *   SIGFPE and SIGABRT (unless WALLTIME_SIGNALS=0). A handler the program installed before
 *   walltime's first call runs first; a fault it repairs (mprotect, as JITs and garbage
 *   collectors do) leaves recording on and the trace unmarked. One installed later runs
 *   before walltime's anyway. SIGTERM, SIGINT, SIGHUP and SIGQUIT get a handler only where
 *   their disposition is the default at the first call (a handler or SIG_IGN the program set
 *   is never replaced; one it sets later replaces walltime's): on such a kill every thread's
 *   open spans are written as unclosed with an END record naming the signal, then the
 *   process dies by the signal as it would have (the same wait status).
 * - libwalltime.so is never unloaded: dlclose() leaves it mapped and recording (its writer
 *   thread and the threads that recorded run its code until they end).
 *
 * Environment (read once, at the first call). Switches take 0/off/false/no and 1/on/true/yes
 * in any case; unset or empty means the default. A value a variable does not take, and a
 * WALLTIME_* name not listed here, get one warning line each on stderr at start (none when
 * recording is off) and are otherwise ignored.
 *   WALLTIME=0 / TT_WALLTIME=0   record nothing.
 *   WALLTIME_TRACE=TEMPLATE      output path; %p pid, %t start time (YYYYmmdd-HHMMSS),
 *                                %h host name, %r rank (as recorded below; empty without
 *                                one), %% a percent sign. Default:
 *                                walltime-%p.wtrace in the working directory. The path holds
 *                                the latest run: a file already there is moved aside to
 *                                NAME.1.wtrace (the first free number), never overwritten.
 *   WALLTIME_SUMMARY=0           do not print the ledger and trace path to stderr at exit.
 *   WALLTIME_SIGNALS=0           install no crash or kill handlers.
 *   WALLTIME_CLOCK=monotonic     time with clock_gettime(CLOCK_MONOTONIC) even where the
 *                                invariant TSC (the default, cheaper; =tsc) is available.
 *   WALLTIME_ZSTD_LEVEL=N        zstd level, -7..19 (tuning; default 1).
 *   WALLTIME_COMPRESS_CPU=P      share of one core zstd may take, 0..100 %; frames past it
 *                                are stored uncompressed (default 5; 100 compresses all).
 *   WALLTIME_RING=N              ring entries per recording thread, a power of two
 *                                1024..1048576 (tuning; default 32768, 24 bytes each:
 *                                768 KiB per recording thread, touched as it fills).
 *   WALLTIME_RING_WAIT_MS=N      longest wait of a recording call for room in a full ring,
 *                                0..10000 ms (default 500); past it the event is dropped
 *                                and counted.
 *   WALLTIME_RANK=N, else RANK=N; LOCAL_RANK=N; WORLD_SIZE=N
 *                                recorded at open as the metadata "rank", "local_rank",
 *                                "world_size" (decimal integers 0..2^31-1; others ignored).
 *   WALLTIME_READER_THREAD=1     read by the trace reader (walltime-analyze), not the
 *                                recorder: decompress ahead on a second thread, less wall
 *                                time for more CPU (default 0: one thread).
 *   WALLTIME_SOURCE_DIR=DIR      read by the Python build (python/wt_build.py), not the
 *                                recorder: the walltime source tree (default: the folder
 *                                above python/).
 */
#ifndef WALLTIME_WALLTIME_H
#define WALLTIME_WALLTIME_H

#include <stddef.h> /* NULL, used by the scope macros */
#include <stdint.h>

#include "walltime/error.h"
#include "walltime/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The outcome of a cached load. Three-valued, as in the seed: unknown, HIT, MISS. Any other
 * value a call is given (3, -1, ...) is recorded as WT_CACHED_UNKNOWN. */
typedef enum wt_cached { WT_CACHED_UNKNOWN = 0, WT_CACHED_HIT = 1, WT_CACHED_MISS = 2 } wt_cached;

/* A handle to an open span, returned by wt_begin(). 0 is the invalid handle: wt_end(0, ...)
 * is a no-op, so the handle of a disabled recorder can be used as usual. */
typedef uint64_t wt_span;

/* Everything a span can carry beyond its category and label. Zero-initialise it and set
 * what you know: {0} means cached unknown, count 1 (a zero count is taken as 1, as the seed's
 * default), no bytes (0), no detail. */
typedef struct wt_span_args {
    wt_cached cached;
    int64_t count;      /* items this span covered, e.g. tensors; below 1 means 1 */
    int64_t bytes;      /* bytes moved, e.g. uploaded to the device; 0 means none; any
                           value, negative included, reads back as given */
    const char *detail; /* free text, e.g. why a cache missed; NULL for none */
} wt_span_args;

/* The seed's record(): a span of `seconds` that ends now, measured by the caller.
 * label and detail may be NULL. A negative or non-finite `seconds` (NaN, infinities) is
 * recorded as 0. A span cannot start before the clock's origin (CLOCK_MONOTONIC's zero,
 * about the boot): a longer one (a compile timed elsewhere, on a freshly booted machine)
 * starts there, its duration cut to the time since. count as in wt_span_args (below 1 is
 * 1). */
WT_API void wt_record(const char *category, const char *label, double seconds, wt_cached cached,
                      int64_t count, const char *detail);

/* wt_record() with every field, including bytes. args may be NULL (all defaults). */
WT_API void wt_record_ex(const char *category, const char *label, double seconds,
                         const wt_span_args *args);

/* Begins a span on the calling thread, timed by the library (the seed's timed()). Spans nest:
 * a span begun while another is open on the same thread is its child. Returns the handle to
 * pass to wt_end(); 0 when recording is off. */
WT_API wt_span wt_begin(const char *category, const char *label);

/* Ends the span `h` with its outcome, often known only now. Spans still open inside `h` are
 * ended with it (flagged unclosed). A stale or foreign handle is ignored. */
WT_API void wt_end(wt_span h, wt_cached cached, int64_t count, const char *detail);

/* wt_end() with every field. args may be NULL. */
WT_API void wt_end_ex(wt_span h, const wt_span_args *args);

/* Records a counter sample now: device bytes, tensor counts, page-cache residency. */
WT_API void wt_counter(const char *name, int64_t value);

/* Records an instant mark now, such as "first token". */
WT_API void wt_mark(const char *category, const char *label, const char *detail);

/* Records run metadata: model version, configuration, anything that makes two runs differ.
 * A later value for the same key supersedes the earlier one. */
WT_API void wt_meta(const char *key, const char *value);

/* Names the calling thread in the trace. */
WT_API void wt_thread_name(const char *name);

/* Keep/skip rounds: marks the start of round `round` of configuration `config` ("keep",
 * "skip") on the calling thread; stages recorded until wt_round_end() belong to it.
 * A round begun while another is open ends the open one first. */
WT_API void wt_round_begin(const char *config, int64_t round);

/* Ends the open round of the calling thread; a no-op when none is open. */
WT_API void wt_round_end(void);

/* Probes how much of the file at `path` is resident in the OS page cache (mincore) and
 * records it as two counters, "<name>.resident_bytes" and "<name>.file_bytes", where <name>
 * is `name` or, when NULL, "pagecache". Not a hot-path call: it maps the file and does
 * system calls. Returns the resident bytes, or a negative WT_E* code (nothing recorded):
 * WT_EINVAL when path is NULL or `name` is too long to take the suffixes (over 240 bytes). */
WT_API int64_t wt_pagecache_probe(const char *path, const char *name);

/* Starts recording into `path` (a template as WALLTIME_TRACE; NULL: the environment's or
 * the default). Returns 0; WT_EDISABLED when recording is turned off by the environment;
 * WT_ESTATE when already open (nothing is changed); WT_EOPEN when the file cannot be created
 * (recording stays off and the message is on stderr); WT_EIO when the header cannot be
 * written; WT_ENOMEM when memory runs out (recording is off, the message is on stderr).
 * After a failure, wt_close() returns the failure's WT_EIO once and wt_open() may be tried
 * again. */
WT_API int wt_open(const char *path);

/* Writes everything recorded so far by every thread to the file. Returns 0; WT_EIO when
 * recording has been turned off by an error; WT_ESTATE when no trace is open. Not for hot
 * paths: it waits for I/O. */
WT_API int wt_flush(void);

/* Flushes, writes the end record and closes the file. Spans still open on the calling
 * thread, and those a thread left open when it exited, are recorded as unclosed; spans still
 * open on other live threads are not recorded. Later calls record nothing until wt_open().
 * Returns 0; WT_EIO when recording had been turned off by an error (a failed wt_open() or
 * first call included; the recorder is then closed and the next wt_close() returns
 * WT_ESTATE); WT_ESTATE when nothing is open. Runs by itself at exit when the program does
 * not call it. */
WT_API int wt_close(void);

/* wt_close(), its end record saying that the process ends by signal `signo` (1..64; else
 * WT_EINVAL and nothing closes): for a runtime that finishes its shutdown and then kills
 * itself by a signal, as Python does after an uncaught KeyboardInterrupt (SIGINT), where no
 * exit handler runs and the trace would have no end record. The analyzer then says the
 * process was killed by that signal. */
WT_API int wt_close_signalled(int signo);

/* 1 when calls are being recorded, 0 when not (disabled, closed, or turned off by an error). */
WT_API int wt_enabled(void);

/* The table printed at exit, chosen by WALLTIME_SUMMARY. */
typedef enum wt_exit_print {
    WT_SUMMARY_NONE = 0,       /* WALLTIME_SUMMARY=0: no exit print */
    WT_SUMMARY_RECONCILED = 1, /* the default: the reconciled ledger */
    WT_SUMMARY_FLAT = 2        /* WALLTIME_SUMMARY=flat: the seed's flat table */
} wt_exit_print;

/* What the environment configures, read as the first call reads it but without starting to
 * record (no file is opened): for a host that keeps state of its own beside the recorder,
 * such as the Python module, so that it follows the library's rules rather than a copy.
 * wt_env_recording(): 1 unless WALLTIME or TT_WALLTIME turn recording off.
 * wt_env_summary(): the exit print WALLTIME_SUMMARY chose (WT_SUMMARY_NONE when recording
 * is off). */
WT_API int wt_env_recording(void);
WT_API wt_exit_print wt_env_summary(void);

/* The caller prints its own table at exit in place of the library's (the Python module
 * with WALLTIME_SUMMARY=flat prints the seed's table on stdout): from now on the library
 * prints neither its exit ledger nor the trace path line at close. */
WT_API void wt_summary_handover(void);

/* The path of the trace file being written, or NULL when there is none. Valid until
 * wt_close(). */
WT_API const char *wt_trace_path(void);

/* Prints the ledger of what was recorded so far to stderr, titled `title`, from in-memory
 * aggregates: the reconciled one (self and inclusive time, each instant of wall once, as
 * walltime-analyze ledger; spans whose parent has not ended yet count as if it ended with
 * them), or the seed's flat table with WALLTIME_SUMMARY=flat or 0. The same print runs at
 * exit unless WALLTIME_SUMMARY=0. */
WT_API void wt_print_ledger(const char *title);

/* ---- Scope spans for C -------------------------------------------------------------
 * WT_SCOPE(cat, label) { ... } times the block that follows: the span ends when the block
 * is left normally. Leaving it with return, goto or break skips the end; the span is then
 * ended (as unclosed) by its parent's end or at exit. With GCC/Clang, prefer
 * WT_SCOPED(var, cat, label), which ends the span when `var` goes out of scope by any path:
 *
 *     { WT_SCOPED(s, "weights", "load"); ... }
 *
 * Both compile to nothing when WT_DISABLE is defined. */
#ifndef WT_DISABLE
#define WT__CAT2(a, b) a##b
#define WT__CAT(a, b) WT__CAT2(a, b)
#define WT_SCOPE(cat, label)                                                               \
    for (wt_span WT__CAT(wt__s, __LINE__) = wt_begin((cat), (label)), WT__CAT(wt__o, __LINE__) = 1; \
         WT__CAT(wt__o, __LINE__);                                                          \
         WT__CAT(wt__o, __LINE__) = 0, wt_end(WT__CAT(wt__s, __LINE__), WT_CACHED_UNKNOWN, 0, NULL))
#if defined(__GNUC__)
static inline void wt__scoped_end(wt_span *s) { wt_end(*s, WT_CACHED_UNKNOWN, 0, (const char *)0); }
#define WT_SCOPED(var, cat, label)                                                         \
    wt_span var __attribute__((cleanup(wt__scoped_end))) = wt_begin((cat), (label))
#endif
#else
#define WT_SCOPE(cat, label)
#define WT_SCOPED(var, cat, label) wt_span var = 0
#endif

#ifdef __cplusplus
}
#endif
#endif
