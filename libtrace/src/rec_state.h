/* The recorder's shared state: the raw entries threads append, the per-thread state that owns
 * a ring of them, and the process-wide recorder state. Included only by rec_*.c.
 *
 * Invariants:
 * - A thread's ring has one producer (its thread) and one consumer (the writer, or the crash
 *   handler when the process is dying). The producer stores entries and then publishes `head`
 *   with a release store; the consumer reads `head` with acquire and gives space back by a
 *   release store of `tail`, but only after the frame holding those entries has been
 *   written: until then the crash handler can still write them from the ring.
 * - Producer-written fields and the consumer-written `tail` live on separate cache lines;
 *   no two threads ever write one line per event.
 * - A raw entry is 24 bytes. A span is stored once, at its end. Fields an entry cannot hold
 *   (count, bytes, detail, a large id) go to one extension entry right after it; the two are
 *   published together.
 * - Thread states are never freed: a thread that exits leaves its state DEAD, the writer
 *   drains it and marks it FREE, and a new thread recycles it. Walking the list is therefore
 *   safe without a lock (for the writer and the crash handler). */
#ifndef WT_REC_STATE_H
#define WT_REC_STATE_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "rec_clock.h"
#include "rec_intern.h"
#include "walltime/walltime.h"

/* Entry kinds (top 4 bits of wt__ent.b). */
enum {
    WT__K_SPAN = 1,
    WT__K_SPAN_MEASURED = 2, /* t0 holds the duration in ns, t1 the end tick */
    WT__K_SPAN_UNCLOSED = 3,
    WT__K_COUNTER = 4,       /* t0 tick, t1 value, a name */
    WT__K_MARK = 5,          /* t0 tick, a label, cat category, ext detail */
    WT__K_META = 6,          /* t0 tick, a key, ext detail = value */
    WT__K_THREAD_NAME = 7,   /* t0 tick, a name */
    WT__K_ROUND = 8,         /* t0, t1 ticks, a config, ext count = round */
    /* SPAN and SPAN_UNCLOSED whose label's words follow (formatted labels, below): `a` is a
     * text word (WT__TEXT_*), not an id. The kind's top bit is the text word's flag, so an
     * end stores b | (a & WT__TEXT_FLAG). */
    WT__K_SPAN_TEXT = 9,
    WT__K_SPAN_UNCLOSED_TEXT = 11
};

/* b = kind:4 | cached:2 | ext:1 | depth:8 | cat:17 */
#define WT__B_CAT_BITS 17
#define WT__B_CAT_BIG ((1u << WT__B_CAT_BITS) - 1) /* the category id is in ext.cat */
#define WT__B_MAKE(kind, cached, ext, depth, cat)                                          \
    ((uint32_t)(kind) << 28 | (uint32_t)(cached) << 26 | (uint32_t)(ext) << 25 |              \
     (uint32_t)(depth) << 17 | (uint32_t)(cat))
#define WT__B_KIND(b) ((b) >> 28)
#define WT__B_CACHED(b) (((b) >> 26) & 3u)
#define WT__B_EXT(b) (((b) >> 25) & 1u)
#define WT__B_DEPTH(b) (((b) >> 17) & 0xffu)
#define WT__B_CATID(b) ((b) & WT__B_CAT_BIG)
#define WT__B_TEXT(b) ((WT__B_KIND(b) | 2u) == WT__K_SPAN_UNCLOSED_TEXT) /* 9 or 11 */

typedef struct wt__ent {
    uint64_t t0, t1;
    uint32_t a, b;
} wt__ent;

typedef struct wt__ext {
    int64_t count; /* spans: count (0 = 1); ROUND: the round */
    int64_t bytes;
    uint32_t detail; /* spans, marks: detail; META: value */
    uint32_t cat;    /* the category when it does not fit in b */
} wt__ext;

_Static_assert(sizeof(wt__ent) == 24, "raw entries are 24 bytes");
_Static_assert(sizeof(wt__ext) == 24, "an extension takes one entry slot");

#define WT__MAX_DEPTH 255 /* deeper begins are dropped (counted) */

typedef struct wt__open {
    uint64_t t0;
    uint32_t cat, label; /* label: an id, or a text word whose words are in `text` */
    uint64_t tag; /* serial:16 | generation:32, the handle without its depth: one compare */
    uint64_t text[WT__TEXT_WORDS]; /* the label's words (rec_intern.h): 128 bytes in all */
} wt__open;
_Static_assert(sizeof(wt__open) == 128, "an open-span slot is two cache lines");

enum { WT__TS_LIVE = 1, WT__TS_DEAD = 2, WT__TS_FREE = 3 };

typedef struct wt__tstate {
    /* ---- written by the owning thread ---- */
    wt__ent *ring;
    uint64_t mask;      /* ring size - 1 */
    uint64_t limit;     /* the fast path may append while head + n <= limit */
    _Atomic uint64_t head;
    uint32_t depth;     /* open spans */
    uint32_t gen;       /* bumped per begin: the handle's generation */
    uint32_t serial;    /* this incarnation of the state, in handles */
    uint32_t pfw;       /* the CPU has PREFETCHW (wt__ring_prefetch()) */
    uint64_t tag_base;  /* (serial & 0xffff) << 32: the serial part of a span's tag */
    int dropping;       /* a wait for room ran out: drop without waiting until there is room */
    uint64_t round_t0;
    int64_t round_no;
    uint32_t round_cfg;
    int round_open;
    wt__open *stack;    /* WT__MAX_DEPTH entries */
    wt__icache icache;
    /* ---- written by the writer ---- */
    _Alignas(64) _Atomic uint64_t tail; /* committed: written to the file */
    uint64_t enc_pos;                   /* writer-private: encoded into the current frame */
    uint64_t drop_enc; /* writer-private: of `dropped`, the count in the current frame's
                        * DROPPED record, taken off `dropped` when that frame is written */
    /* ---- rare, either side ---- */
    _Alignas(64) _Atomic uint64_t dropped; /* added with release, taken with acquire */
    atomic_int kicked;
    /* set by the writer when this thread's copied labels repeat (rec_writer.c), cleared by
     * the thread, whose next copied label is then looked up by content and fills the memo
     * (rec_core.c, begin_again): relaxed, a hint only */
    atomic_int text_again;
    atomic_int status;
    uint64_t tid;
    struct wt__tstate *next; /* immutable once published */
} wt__tstate;

#define WT__SUMMARY_FLAT 2 /* WALLTIME_SUMMARY=flat: the seed's table at exit */

enum { WT__ST_UNINIT = 0, WT__ST_OPEN, WT__ST_CLOSED, WT__ST_DISABLED, WT__ST_FAILED };

typedef struct wt__rec {
    atomic_int on;    /* the hot path's one check: 1 while recording */
    atomic_int state; /* WT__ST_* */
    atomic_int end_signal; /* wt_close_signalled()'s signal for the end record, else 0 */
    /* configuration, from the environment at the first call */
    int summary, signals, force_monotonic, zstd_level; /* summary: 0, 1, WT__SUMMARY_FLAT */
    int compress_pct; /* WALLTIME_COMPRESS_CPU: zstd's share of one core (rec_zbudget.h) */
    uint32_t ring_entries;
    int64_t ring_wait_ns; /* WALLTIME_RING_WAIT_MS: the longest one wait for ring space */
    char *path_template;
    /* the open file; path is read by any thread (wt_trace_path) while open and close set it */
    int fd;
    _Atomic(char *) path;
    int64_t process_start_ns, open_ns;
    /* the writer. writer_running is read by any thread (wake-ups); `wake` is initialised
     * once and never destroyed, so a late sem_post after a close is harmless. */
    pthread_t writer;
    atomic_int writer_running;
    sem_t wake;
    atomic_int stop;
    /* flush requests, all under flush_lock. The counters only grow (never reset at open), so
     * a request is answered when flush_done reaches it; a writer that ends bumps epoch_over
     * to its epoch, which answers (WT_ESTATE) whatever it could not take. */
    pthread_mutex_t flush_lock;
    pthread_cond_t flush_cond;
    uint64_t flush_req, flush_done;
    uint64_t flush_epoch, epoch_over; /* writers started / the last one that ended */
    int flush_open;                   /* a writer takes requests */
    int flush_rc;                     /* the answer to requests up to flush_done */
    /* frames: the writer and the crash handler never write concurrently */
    atomic_int io_busy;
    atomic_int crashed;
    /* a close under way: `closing` from before `on` drops until the writer is joined;
     * `writer_ended` once the writer wrote its end record (or gave up). A kill signal then
     * finds nothing to dump (`on` is 0) and waits for the end instead (rec_signal.c): a
     * multiprocessing Pool's workers get SIGTERM while their finalizer closes the trace. */
    atomic_int closing, writer_ended;
    _Atomic uint32_t strings_written; /* ids 1..n are in the file */
    /* full rings (rec_thread.c): a futex word the writer bumps after each frame's commit,
     * and the threads waiting on it (the writer makes the wake-up call only when some are) */
    _Atomic uint32_t commits;
    atomic_int waiters;
    /* threads */
    _Atomic(wt__tstate *) threads;
    pthread_mutex_t threads_lock;
    atomic_uint serials;
} wt__rec;

/* hidden: the hot path reaches them without a GOT load (the library is built -fPIC) */
extern wt__rec wt__g __attribute__((visibility("hidden")));

/* rec_thread.c: the calling thread's state, created on first use; NULL when out of memory. */
extern __thread wt__tstate *wt__tls __attribute__((tls_model("initial-exec"), visibility("hidden")));
wt__tstate *wt__tstate_make(void);
/* rec_writer.c: 1 on the writer's thread (a signal there must not wait for the writer) */
extern __thread int wt__in_writer __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Re-entry: a signal handler that records while its thread is inside a recording call (or
 * wt_open/wt_close) would interleave with that call's half-made entry, open-span slot or
 * lock. Each such call runs with wt__busy set; a call that finds it set is the handler's and
 * is dropped, counted in the thread's DROPPED record (wt__busy_drop). A handler runs to
 * completion before the code it interrupted goes on, so a plain thread-local flag with
 * compiler fences is enough: no atomic read-modify-write. */
extern __thread int wt__busy __attribute__((tls_model("initial-exec"), visibility("hidden")));
/* Drops counted before the thread had a state; added to it when it gets one. */
extern __thread uint64_t wt__busy_early __attribute__((tls_model("initial-exec"), visibility("hidden")));

static inline void wt__busy_on(void)
{
    wt__busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
}

static inline void wt__busy_off(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    wt__busy = 0;
}

static inline void wt__busy_drop(void)
{
    wt__tstate *ts = wt__tls;
    if (ts)
        atomic_fetch_add_explicit(&ts->dropped, 1, memory_order_release);
    else
        wt__busy_early++;
}
/* Resets every state's ring to empty and their positions (at open). */
void wt__tstates_reset(void);
/* The slow path of appending n entries: refreshes the tail, wakes the writer, waits for
 * room at most wt__g.ring_wait_ns, else drops (counted). Returns 1 with room, 0 dropped. */
int wt__ring_slow(wt__tstate *ts, unsigned n);
/* Ends the thread's open spans deeper than to_depth at tick `t`, flagged unclosed. */
void wt__close_spans(wt__tstate *ts, uint64_t t, uint32_t to_depth);
/* Ends all its open spans (unclosed) and its open round at tick `t`. */
void wt__close_open(wt__tstate *ts, uint64_t t);

static inline wt__ent *wt__ring_at(const wt__tstate *ts, uint64_t pos) { return &ts->ring[pos & ts->mask]; }

/* How far past head the producer asks for the ring's next lines, in entries (6 lines). */
#define WT__RING_AHEAD 16
/* Asks for the line of entry `pos` with intent to write. The writer, on another core, read
 * that line when it last drained it, so a store to it waits for the line to come back: on the
 * 2-core EPYC a span's thread CPU was 15 ns with the writer on the same core and 45 ns with
 * it on the other one (`const fmt`, two entries a span), the store buffer full of such stores.
 * PREFETCHW 16 entries ahead takes the line back while the spans before it are recorded: 16
 * ns (perf/RECORDING.md, session 11). A plain read prefetch does not help (the line then still
 * has to be made writable), and PREFETCHW is used only where CPUID says it exists. */
static inline void wt__ring_prefetch(const wt__tstate *ts, uint64_t pos)
{
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_expect(ts->pfw != 0, 1))
        __asm__ volatile("prefetchw %0" : : "m"(*(const char *)wt__ring_at(ts, pos)));
#else
    __builtin_prefetch(wt__ring_at(ts, pos), 1, 3);
#endif
}

/* Room for n entries at head; NULL when they were dropped. */
static inline wt__ent *wt__reserve(wt__tstate *ts, unsigned n)
{
    const uint64_t h = atomic_load_explicit(&ts->head, memory_order_relaxed);
    if (__builtin_expect(h + n > ts->limit, 0) && !wt__ring_slow(ts, n))
        return NULL;
    wt__ring_prefetch(ts, h + n - 1 + WT__RING_AHEAD);
    return wt__ring_at(ts, h);
}

/* The words of slot o's formatted label as the ring takes them: from the 8-byte word holding
 * its first byte (the slot's from byte WT__TEXT_SLOT_OFF - WT__TEXT_OFF, 0 or 8). */
static inline const char *wt__text_words(const wt__open *o)
{
    return (const char *)o->text + (WT__TEXT_SLOT_OFF(o->label) & 8u);
}

/* Stores the words of slot o's formatted label (WT__TEXT_ENTRIES() of its text word, maybe
 * none) as the raw entries `at`, `at` + 1, ... past head: whole entries, each of which may be
 * the ring's last (the ring wraps between entries, never inside one). */
static inline void wt__text_put(wt__tstate *ts, const wt__open *o, unsigned at)
{
    const uint64_t h = atomic_load_explicit(&ts->head, memory_order_relaxed) + at;
    const unsigned k = WT__TEXT_ENTRIES(o->label);
    const char *const words = wt__text_words(o);
    wt__ent *const ring = ts->ring; /* locals: the stores may alias the state */
    const uint64_t mask = ts->mask;
    for (unsigned i = 0; i < k; i++)
        memcpy(&ring[(h + i) & mask], words + i * sizeof(wt__ent), sizeof(wt__ent));
}

static inline void wt__publish(wt__tstate *ts, unsigned n)
{
    const uint64_t h = atomic_load_explicit(&ts->head, memory_order_relaxed);
    atomic_store_explicit(&ts->head, h + n, memory_order_release);
}

/* rec_writer.c */
int wt__writer_start(void);
void wt__writer_stop(void); /* final drain, END record, join */
int wt__writer_flush(void);
void wt__writer_kick(void);
void wt__writer_forget(void); /* in a forked child, where the thread does not exist */
/* Waits until the writer is between passes and keeps it there (fork), then lets it go on;
 * in a forked child, resume releases what the forking thread took. Taken before the
 * aggregates' lock (the writer takes that one inside a pass). */
void wt__writer_pause(void);
void wt__writer_resume(void);
/* After ring space was given back (tails committed): wakes the threads waiting for it. */
void wt__commits_wake(void);
/* Turns recording off after an I/O error, printing the one message (once per open). */
void wt__fail(const char *what, int err);
void wt__fail_reset(void);
/* write() until done (EINTR retried); 0 or -1 with errno. Async-signal-safe. */
int wt__write_all(int fd, const uint8_t *p, size_t n);

/* rec_ledger.c: the exit ledger's aggregates, fed by the writer: the flat view per span or
 * per run (wt__agg_span, wt__agg_run, wt__agg_miss) and the reconciled view per span, in
 * batches, in the order the thread ended them (wt__agg_nest). */
typedef struct wt__agg_item {
    uint32_t cat, depth;
    wt_cached cached;
    int64_t end, dur; /* ns */
    int64_t bytes;    /* 0: none */
    int unclosed;     /* ended at exit, crash or its parent's end, not by its own end */
} wt__agg_item;
void wt__agg_nest(uint64_t tid, const wt__agg_item *items, size_t n);
/* Thread `tid` exited and all its events are written: it will start no more spans, so it no
 * longer holds back the folding of the coverage set (its spans in progress still count). */
void wt__agg_thread_gone(uint64_t tid);
void wt__agg_span(uint32_t cat, uint32_t label, uint32_t detail, int64_t end_ns, int64_t dur_ns,
                  wt_cached cached, int64_t count);
/* A run of spans of category `cat`: the end of its first span (ends within a thread's run
 * never decrease), the sums of durations and counts, and how many were HITs; each MISS of the
 * run is also given to wt__agg_miss(), which only tallies and lists it. */
void wt__agg_run(uint32_t cat, int64_t first_end, int64_t ns, int64_t count, int64_t hits);
void wt__agg_miss(uint32_t cat, uint32_t label, uint32_t detail, int64_t dur_ns);
/* n more events dropped (the count of a DROPPED record the writer wrote): the exit ledger's
 * "dropped events" line. Called with the lock held, as the others fed per drain. */
void wt__agg_dropped(uint64_t n);
void wt__agg_reset(void);
void wt__agg_lock(void);
void wt__agg_unlock(void);
/* The END record's time: from then on the printed wall ends there (as the analyzer's does),
 * not at the `wall` wt__agg_print() is given. */
void wt__agg_end(int64_t end_ns);
void wt__agg_print(const char *title, double wall);
int wt__agg_empty(void);

/* rec_signal.c */
/* 0, or -1 when its buffers cannot be allocated (no handler is installed then). */
int wt__signals_install(void);
void wt__signals_remove(void);

/* rec_env.c */
void wt__env_load(void);
int wt__file_open(const char *tmpl, int keep_existing, char **path_out, int *fd_out,
                  int *err_out);
int64_t wt__process_start_ns(void);
char *wt__cmdline(void);

/* rec_emit.c: ring entries to records, shared by the writer and the crash handler. */
#include "encode.h"
typedef struct wt__sink wt__sink;
struct wt__sink {
    wt__enc enc;
    uint32_t strings_done;  /* ids 1..n are defined in written or pending frames */
    int (*flush)(wt__sink *); /* makes a frame of enc's records; 0 or negative: give up */
    /* the id of a formatted label's len bytes at s (the writer's table, or the crash
     * handler's try-lock and placeholder); never 0 for a label that has bytes unless memory
     * ran out */
    uint32_t (*label)(wt__sink *, const char *s, uint32_t len);
    /* the writer's front cache of copied labels (rec_intern.h), looked in before label();
     * NULL in the crash handler's */
    const wt__tcache *front;
    /* copied labels seen, how many were the one before again, the last one's id (the
     * writer's hint, rec_writer.c) */
    struct wt__text_count {
        uint32_t n, reps, last;
    } text;
    int agg;                  /* feed the ledger aggregates (writer only) */
};
/* Encodes the entries [from, to) of ts; returns the position reached (to, or less when the
 * sink gave up). Stores the position after each entry in *progress, so a flush in between
 * (which commits what is encoded) knows where the frame ends. */
uint64_t wt__emit_ring(wt__sink *s, const wt__tstate *ts, uint64_t from, uint64_t to,
                       const wt__clockmap *c, uint64_t *progress);
/* Defines strings strings_done+1 .. upto. 0 or -1 (the sink gave up). */
int wt__emit_strings(wt__sink *s, uint32_t upto);

#endif
