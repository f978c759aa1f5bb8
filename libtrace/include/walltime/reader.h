/* libwalltime: the trace reader.
 *
 * The only code that knows the byte layout of a .wtrace file (docs/FORMAT.md). It streams a
 * file's decoded events one at a time, in memory bounded by the number of distinct strings
 * and threads and by the format's frame limit, never by the number of events.
 *
 * A trace is untrusted input. Damage (truncation, a corrupted frame, a hostile length) is
 * reported by wt_reader_next() returning a negative WT_E* code with a message that names the
 * file and byte offset (wt_reader_error()); the caller may call wt_reader_next() again, and
 * the reader goes on with the next intact frame when it can find one. Everything readable is
 * delivered.
 *
 * Events come in file order: the recorder writes each thread's events in the order they
 * happened, but the threads of a process are interleaved in chunks (one chunk per thread per
 * flush). A WT_EV_SYNC event marks each flush: see its comment.
 */
#ifndef WALLTIME_READER_H
#define WALLTIME_READER_H

#include <stddef.h>
#include <stdint.h>

#include "walltime/error.h"
#include "walltime/walltime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The format version this reader understands. A file with a larger major version is refused
 * (WT_EVERSION); a larger minor version is read, skipping what it does not know. */
#define WT_FORMAT_MAJOR 1
#define WT_FORMAT_MINOR 1

/* The reader keeps at most this many strings and bytes of strings (the memory bound); the
 * strings a file defines past them read as "(string past the reader's limit)". */
#define WT_READER_MAX_STRINGS (4u << 20)
#define WT_READER_MAX_STRING_BYTES (128u << 20)

typedef enum wt_event_kind {
    WT_EV_SPAN = 1,        /* a span: ts/dur, category, label, cached, count, bytes, detail, depth */
    WT_EV_COUNTER = 2,     /* a counter sample: name, value */
    WT_EV_MARK = 3,        /* an instant: category, label, detail */
    WT_EV_META = 4,        /* run metadata: name = key, detail = value */
    WT_EV_THREAD_NAME = 5, /* the thread `tid` is called `name` from now on */
    WT_EV_ROUND = 6,       /* a keep/skip round: ts/dur, name = configuration, count = round */
    WT_EV_SYNC = 7,        /* a flush by the recorder at `ts`: see below */
    WT_EV_END = 8,         /* the end record: the recorder closed the file at `ts` */
    WT_EV_DROPPED = 9      /* the recorder dropped `count` events of thread `tid` */
} wt_event_kind;

/* Span flags. */
#define WT_EVF_UNCLOSED 0x1u /* still open at exit, crash or its parent's end; ended then */
#define WT_EVF_MEASURED 0x2u /* from wt_record(): measured by the caller, not by the library */

/* How a trace ended: from the end record, or its absence. */
typedef enum wt_trace_end {
    WT_END_NONE = 0,   /* no end record (yet): the writer died (kill -9) or the file is cut */
    WT_END_CLEAN = 1,  /* closed by wt_close() or at exit */
    WT_END_SIGNAL = 2  /* closed from the crash handler; wt_event.count is the signal number */
} wt_trace_end;

/* One decoded event. Strings point into the reader and stay valid until wt_reader_free();
 * a string the recorder was given as NULL reads back as NULL. Times are nanoseconds on the
 * recording host's CLOCK_MONOTONIC, so events of several threads and processes of one host
 * line up. */
typedef struct wt_event {
    wt_event_kind kind;
    uint32_t flags;       /* WT_EVF_* (spans) */
    uint64_t pid;         /* the recording process */
    uint64_t tid;         /* the recording thread (Linux tid) */
    int64_t ts;           /* start (spans, rounds) or instant (others), ns */
    int64_t dur;          /* duration in ns (spans, rounds); 0 otherwise */
    uint32_t depth;       /* spans: how many spans were open on the thread when it began */
    wt_cached cached;     /* spans */
    int64_t count;        /* spans: count (>= 1); rounds: the round number; DROPPED: events
                             dropped; END: the signal number when ended by a signal */
    int64_t bytes;        /* spans: bytes moved (0 none) */
    int64_t value;        /* COUNTER: the sample */
    wt_trace_end end;     /* END: how the trace ended */
    const char *category; /* SPAN, MARK */
    const char *label;    /* SPAN, MARK */
    const char *name;     /* COUNTER name, META key, THREAD_NAME name, ROUND configuration */
    const char *detail;   /* SPAN and MARK detail, META value */
} wt_event;

/* WT_EV_SYNC: the recorder flushed at `ts`. Every event of this process that happened before
 * `ts` - WT_SYNC_SLACK_NS has been delivered before this SYNC event (a thread preempted between
 * reading the clock and storing its event can be later than that; analyses that merge threads
 * must tolerate it and may count such late events). */
#define WT_SYNC_SLACK_NS 100000000LL

/* The header of a trace: who wrote it, when and how. Strings valid until wt_reader_free(). */
typedef struct wt_trace_info {
    unsigned format_major, format_minor;
    uint64_t pid;
    int64_t process_start_ns; /* CLOCK_MONOTONIC ns at which the process started (from the OS) */
    int64_t open_ns;          /* CLOCK_MONOTONIC ns at which recording started */
    int64_t anchor_mono_ns;   /* one instant read on both clocks: CLOCK_MONOTONIC ns ... */
    int64_t anchor_real_ns;   /* ... and CLOCK_REALTIME ns since the Unix epoch */
    const char *clock;        /* the recorder's time source: "tsc" or "monotonic" */
    double tsc_hz;            /* the calibrated TSC frequency, 0 when not the TSC */
    const char *host;         /* host name */
    const char *cmdline;      /* the command line, arguments separated by spaces */
    const char *recorder;     /* the recorder's version string */
    /* since format 1.1; zero, "" or NULL in older files */
    uint64_t parent_pid;      /* the pid the process was forked from (a recording parent), else
                                 its parent as the OS said at open; 0 when unknown */
    char run_id[33];          /* 128 random bits made at open, 32 lowercase hex digits; "" */
    const char *boot_id;      /* the host's boot id (/proc/sys/kernel/random/boot_id); NULL */
    int64_t anchor_err_ns;    /* the realtime anchor was read within [anchor_mono_ns,
                                 anchor_mono_ns + anchor_err_ns]; -1 when unknown */
} wt_trace_info;

typedef struct wt_reader wt_reader;

/* Opens `path` and reads its header. On success returns 0 and *out is a reader to free with
 * wt_reader_free(). On failure returns a negative WT_E* code (WT_EOPEN, WT_ENOTTRACE,
 * WT_EVERSION, WT_ETRUNC, WT_ECORRUPT, WT_ENOMEM) and *out is still a reader when one could be
 * made, so wt_reader_error() can say what is wrong (free it too); *out may be NULL only for
 * WT_ENOMEM. */
WT_API int wt_reader_open(const char *path, wt_reader **out);

/* Closes the file `r` reads (or failed to open) and opens `path` in its place, as
 * wt_reader_open() would, keeping the reader's memory: its input buffer and zstd decompression
 * context, its frame buffer and the arrays of its string and thread tables. For a program that
 * reads many files one after another (one reader per thread, reopened for each file), the
 * next file then costs no setup. Everything of the previous file is forgotten: its info, its
 * stats, its error, and its strings, which are no longer valid (nor are the strings of events
 * delivered from it). Returns as wt_reader_open(); after a failure `r` says what is wrong
 * (wt_reader_error()) and may be reopened again or freed. A reader is used by one thread at a
 * time. Returns WT_EINVAL, and does nothing, when `r` is NULL. */
WT_API int wt_reader_reopen(wt_reader *r, const char *path);

/* Decodes the next event into *ev. Returns 1 with an event, 0 at the end of the file, or a
 * negative WT_E* code for damage found at this point (message in wt_reader_error()); after an
 * error the caller may call again to go on past the damage. After 0, every call returns 0. */
WT_API int wt_reader_next(wt_reader *r, wt_event *ev);

/* ---- batches of spans ----
 * Most records of a trace are spans of one thread in a row. wt_reader_next_spans() decodes
 * such a run into a caller's array of compact records keyed by the reader's string ids, for
 * analyses that cost per span: no string pointers to copy, ids that index the analysis's own
 * arrays. It only ever takes plain spans; everything else (other records, frame and thread
 * changes, damage, a span with an undefined id or an unusual value) stays with
 * wt_reader_next(), which the caller calls whenever a batch comes back empty. The string
 * definitions among the spans (the first of each id, whole and within the limits) are taken
 * on the way, as wt_reader_next() would take them: a trace that gives every span a label of
 * its own still comes in batches, and the ids of a batch keep their strings. The two mix
 * freely: together they deliver every event of the file once, in file order, with the same
 * checks, values, errors and stats as wt_reader_next() alone. */

/* One span of a batch: the fields of a WT_EV_SPAN wt_event, strings as ids. */
typedef struct wt_span_rec {
    int64_t ts;        /* start, ns (as wt_event.ts) */
    int64_t dur;       /* duration, ns, >= 0 */
    int64_t count;     /* >= 1 */
    int64_t bytes;     /* 0 none */
    uint32_t category; /* string ids for wt_reader_string(); 0 reads as NULL */
    uint32_t label;
    uint32_t detail;
    uint32_t depth;
    uint16_t flags;    /* WT_EVF_* */
    uint8_t cached;    /* a wt_cached */
} wt_span_rec;

/* Decodes the run of plain spans at the reader's position, at most `cap` of them, into
 * out[0..n) and returns n. They are consecutive span records of one frame and one thread:
 * process wt_reader_info()->pid, thread *tid (set when n > 0; `tid` may be NULL). It stops
 * before any other record, at the frame's end, and before a span that wt_reader_next() must
 * judge (a string id not defined, a value out of range, damage): a return of 0 means the next
 * event is for wt_reader_next() (which also says the end of the file). A return of 0 costs a
 * few instructions, so a caller may try a batch before every event. Counts in
 * wt_reader_stats.events. Returns 0 for a NULL `r` or `out`, or `cap` 0. out[n], when n < cap,
 * may have been written over (the span it stopped before is decoded in place). */
WT_API size_t wt_reader_next_spans(wt_reader *r, wt_span_rec *out, size_t cap, uint64_t *tid);

/* The same, taking counter samples too: a run of spans and counter samples of one thread, in
 * file order, for a caller that counts both (a trace that samples counters between spans comes
 * in batches instead of one event a sample). A counter sample is a record whose `flags` is
 * WT_REC_COUNTER: `ts` its time, `label` its name's string id, `count` its value, the other
 * fields 0; a span's flags never hold that bit. Every field of a span is filled, whatever
 * wt_reader_span_fields() says. A sample that wt_reader_next() must judge (an undefined name,
 * a time out of range, damage) ends the batch as a span would. Otherwise as
 * wt_reader_next_spans(), with which (and wt_reader_next()) it mixes freely. */
#define WT_REC_COUNTER 0x8000u
WT_API size_t wt_reader_next_records(wt_reader *r, wt_span_rec *out, size_t cap, uint64_t *tid);

/* The fields of wt_span_rec, for wt_reader_span_fields(). */
#define WT_SPANF_TS       0x001u
#define WT_SPANF_DUR      0x002u
#define WT_SPANF_COUNT    0x004u
#define WT_SPANF_BYTES    0x008u
#define WT_SPANF_CATEGORY 0x010u
#define WT_SPANF_LABEL    0x020u
#define WT_SPANF_DETAIL   0x040u
#define WT_SPANF_DEPTH    0x080u
#define WT_SPANF_FLAGS    0x100u
#define WT_SPANF_CACHED   0x200u
#define WT_SPANF_ALL      0x3ffu
/* The fields a per-category time sum reads: a batch that fills these only stores less. */
#define WT_SPANF_LEAN     (WT_SPANF_DUR | WT_SPANF_CATEGORY | WT_SPANF_DEPTH)

/* Says which fields of wt_span_rec the caller reads from later batches (WT_SPANF_* or'ed; 0 is
 * WT_SPANF_ALL, the default). The batches fill at least those: when they are all within
 * WT_SPANF_LEAN, only WT_SPANF_LEAN's fields are stored and the others of out[] keep what they
 * held. Which spans a batch takes, its checks, errors and stats do not change. The choice is
 * kept across wt_reader_reopen(). Does nothing for a NULL `r`. */
WT_API void wt_reader_span_fields(wt_reader *r, unsigned fields);

/* The string of id `id` as a span of a batch names it: the same text wt_reader_next() gives
 * for it (a definition lost with damage reads "(unknown string N)"). NULL for id 0 and for
 * an id the file has not named yet. Valid until wt_reader_reopen() or wt_reader_free(). */
WT_API const char *wt_reader_string(const wt_reader *r, uint32_t id);

/* Changes whenever the string of an id changes within a file: an id that was read as
 * "(unknown string N)" and is defined later. A cache keyed by id is valid while it holds. */
WT_API uint64_t wt_reader_string_epoch(const wt_reader *r);

/* The header. Never NULL for a reader returned by wt_reader_open(), even a failed one (then
 * with zeros and NULL strings). */
WT_API const wt_trace_info *wt_reader_info(const wt_reader *r);

/* The message of the last error, "'PATH': at byte OFFSET: PROBLEM" (or, when the file cannot be
 * opened, "cannot open 'PATH': REASON"), or "" when there was none. */
WT_API const char *wt_reader_error(const wt_reader *r);

/* The byte offset in the file of the last error, or -1 when there was none. */
WT_API int64_t wt_reader_error_offset(const wt_reader *r);

/* What the reader saw, for `info` and integrity warnings. Valid at any time; final after
 * wt_reader_next() returned 0. */
typedef struct wt_reader_stats {
    uint64_t file_bytes;      /* the file's size */
    uint64_t frames;          /* data frames decoded intact */
    uint64_t frames_damaged;  /* frames skipped as truncated or corrupt */
    uint64_t bytes_skipped;   /* file bytes not decoded because of damage */
    uint64_t events;          /* events delivered */
    uint64_t strings;         /* distinct strings defined */
    uint64_t threads;         /* distinct thread ids seen */
    uint64_t errors;          /* errors returned by wt_reader_next() */
    wt_trace_end end;         /* how the trace ended (WT_END_NONE until the end record) */
    int end_signal;           /* the signal number for WT_END_SIGNAL */
    uint64_t records_skipped; /* records dropped alone for invalid values (the frame went on) */
    uint64_t unknown_strings; /* string ids met without a definition, read as "(unknown string N)" */
    uint64_t strings_past_limit; /* strings defined past the reader's limits (WT_READER_MAX_STRINGS,
                                    WT_READER_MAX_STRING_BYTES): counted, read as
                                    "(string past the reader's limit)" */
    uint64_t frames_stored;   /* of the frames read whole, those of 4 KiB of records or more
                                 stored uncompressed (no smaller in the file than their
                                 records): the recorder stores frames
                                 once zstd has used its share of a core (WALLTIME_COMPRESS_CPU,
                                 docs/RECORDER.md) */
} wt_reader_stats;

WT_API void wt_reader_get_stats(const wt_reader *r, wt_reader_stats *out);

/* Closes the file and frees everything, including the strings of delivered events.
 * NULL is a no-op. */
WT_API void wt_reader_free(wt_reader *r);

#ifdef __cplusplus
}
#endif
#endif
