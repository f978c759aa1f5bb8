/* The recorder's hot path: wt_begin/wt_end, wt_record, counters, marks, metadata, thread
 * names and rounds. Each call is one check of the global `on` flag, the thread's state from
 * a TLS pointer, one clock read, interned ids from the thread's pointer cache, and a 24-byte
 * entry (two when the event carries a count, bytes, a detail or a large category id) stored
 * into the thread's ring and published by one release store. No lock, no system call, no
 * allocation, unless a ring is half full (one wake-up of the writer) or a string is new.
 *
 * Workload: millions of spans per second from a few threads; the spans of a model load are
 * a few hundred distinct literals repeated. */
#include <math.h>
#include <string.h>

#include "rec_state.h"

/* Starts the recorder on the first call (rec_life.c); returns whether it records. */
int wt__on_slow(void);

#define ON() __builtin_expect(atomic_load_explicit(&wt__g.on, memory_order_relaxed), 1)

static inline wt__tstate *self(void)
{
    wt__tstate *ts = wt__tls;
    if (__builtin_expect(ts != NULL, 1))
        return ts;
    return wt__tstate_make();
}

static inline wt__ext *ext_at(wt__tstate *ts)
{
    return (wt__ext *)(void *)wt__ring_at(ts, atomic_load_explicit(&ts->head, memory_order_relaxed) + 1);
}

static inline uint32_t cat_bits(uint32_t cat) { return cat < WT__B_CAT_BIG ? cat : WT__B_CAT_BIG; }

/* A cache outcome the format can hold: a value outside wt_cached (3, -1, ...) is unknown,
 * as walltime.h says; a plain mask would make 3 invalid in the file and 5 a HIT. */
static inline unsigned cached_bits(wt_cached c) { return (unsigned)c <= WT_CACHED_MISS ? (unsigned)c : 0u; }

/* The label of slot o, given level 1's answer `lab` for it: that id when trusted (a literal),
 * else, for a pointer level 1 knows as writable memory, its words copied into the slot (a
 * formatted label up to the cap: the writer interns it, rec_state.h), else its id by
 * content. A pointer level 1 has not seen goes by content once, which teaches level 1
 * whether it is a literal. The placeholder a crash dump may need exists before the first
 * copied label (one lookup per process). */
static inline uint32_t slot_label(wt__tstate *ts, wt__open *o, const char *label, uint32_t lab)
{
    if (__builtin_expect(!(lab & WT__ICACHE_MISS), 1))
        return lab;
    if (lab == WT__ICACHE_WRITABLE) { /* never NULL: level 1 holds no NULL pointer */
        const uint32_t w = wt__text_take(o->text, label);
        if (__builtin_expect(w != 0, 1) && (wt__text_placeholder_get() || wt__text_placeholder()))
            return w;
    }
    return label ? wt__intern_slow(&ts->icache, label) : 0;
}

/* wt_begin() in full: first call, new thread, depth limit, strings to validate or intern. */
static __attribute__((noinline)) wt_span begin_slow(const char *category, const char *label)
{
    if (wt__busy) {
        /* a signal handler interrupted a call of this thread (its first call included, which
         * turns recording on): drop, counted */
        wt__busy_drop();
        return 0;
    }
    wt_span h = 0;
    wt__busy_on();
    if (!ON() && !wt__on_slow())
        goto out;
    wt__tstate *ts = self();
    if (!ts)
        goto out;
    const uint32_t d = ts->depth;
    if (__builtin_expect(d >= WT__MAX_DEPTH, 0)) {
        atomic_fetch_add_explicit(&ts->dropped, 1, memory_order_release);
        goto out;
    }
    wt__open *o = &ts->stack[d];
    o->cat = wt__intern(&ts->icache, category);
    o->label = slot_label(ts, o, label, label ? wt__icache_ro(&ts->icache, label) : 0);
    const uint64_t tag = ts->tag_base | ++ts->gen;
    o->tag = tag;
    ts->depth = d + 1;
    /* the clock last, so interning is not inside the span */
    o->t0 = wt__ticks();
    h = tag << 16 | (uint64_t)(d + 1);
out:
    wt__busy_off();
    return h;
}

/* The end of every recording path of wt_begin() past begin_slow(): span d of ts opened in
 * its slot o (&ts->stack[d], which a caller may hold already) with its ids and start tick,
 * then the depth that makes it live; the busy flag cleared, its handle returned. */
static inline __attribute__((always_inline)) wt_span open_span(wt__tstate *ts, wt__open *o,
                                                              uint32_t d, uint32_t cat,
                                                              uint32_t lab, uint64_t t0)
{
    const uint64_t tag = ts->tag_base | ++ts->gen;
    o->cat = cat;
    o->label = lab;
    o->tag = tag;
    ts->depth = d + 1;
    o->t0 = t0;
    wt__busy_off();
    return tag << 16 | (uint64_t)(d + 1);
}

/* wt_begin() past the checks of its fast path, for strings its pointer cache did not vouch
 * for (writable memory, or not cached yet): the label's words copied into the slot, or
 * levels 2 and 3 of rec_intern.h (a category, a label over the cap), for those only (cat or
 * lab a miss, WT__ICACHE_MISS or WT__ICACHE_WRITABLE), without going through begin_slow()'s
 * checks again. Called with the busy flag set (rec_state.h), which it clears. */
static __attribute__((noinline)) wt_span begin_intern(wt__tstate *ts, uint32_t d, uint32_t cat,
                                                      uint32_t lab, const char *category,
                                                      const char *label)
{
    wt__open *o = &ts->stack[d];
    /* a miss is a string level 1 has no trusted entry for, or NULL with its set full */
    if (cat & WT__ICACHE_MISS)
        cat = category ? wt__intern_slow(&ts->icache, category) : 0;
    lab = slot_label(ts, o, label, lab);
    return open_span(ts, o, d, cat, lab, wt__rdtsc()); /* the clock after the interning */
}

/* begin_text()'s rare end: the writer saw this thread's copied labels repeat (a buffer
 * formatted with the same label again and again): the label is looked up by content and
 * fills the memo (then the bytes are compared, not copied), and the clock read again, as for
 * any lookup by content. Keeps the copy (text word w) when the lookup fails. Out of line, so
 * begin_text() makes tail calls only and keeps no stack frame. Clears the busy flag. */
static __attribute__((noinline)) wt_span begin_again(wt__tstate *ts, uint32_t d, uint32_t cat,
                                                     const char *label, uint32_t w, uint64_t t0)
{
    atomic_store_explicit(&ts->text_again, 0, memory_order_relaxed);
    const uint32_t id = wt__memo_learn(&ts->icache, label);
    if (id) {
        w = id;
        t0 = wt__rdtsc();
    }
    return open_span(ts, &ts->stack[d], d, cat, w, t0);
}

/* wt_begin() past the checks of its fast path, for a category its pointer cache vouched for
 * and a label it knows as writable memory (a reused buffer, WT__ICACHE_WRITABLE): a label up
 * to the cap has its bytes compared with the memo's or copied into the slot (rec_intern.h),
 * with no lookup; a longer one goes to begin_intern(). Not sanitized, for
 * the inlined scan and compare; it writes only this thread's slot and counters. Called with
 * the busy flag set, which it clears. */
static __attribute__((noinline)) WT__NO_SANITIZE_SCAN wt_span
begin_text(wt__tstate *ts, uint32_t d, uint32_t cat, const char *category, const char *label,
           uint64_t t0)
{
    wt__open *o = &ts->stack[d];
    /* the buffer holding the label the memo knows: its id, nothing copied (const fmt) */
    uint32_t w = wt__memo_id(&ts->icache, label);
    if (!w) {
        /* over the cap, or no placeholder yet: begin_intern() looks it up or makes it */
        if (__builtin_expect(!(w = wt__text_scan(o->text, label)), 0) ||
            __builtin_expect(!wt__text_placeholder_get(), 0))
            return begin_intern(ts, d, cat, WT__ICACHE_WRITABLE, category, label);
        if (__builtin_expect(atomic_load_explicit(&ts->text_again, memory_order_relaxed), 0))
            return begin_again(ts, d, cat, label, w, t0);
    }
    return open_span(ts, o, d, cat, w, t0);
}

/* The hot path: the thread's state, two cache hits, the open-span slot, one rdtsc. Anything
 * unusual (recording off, a new thread, the monotonic clock, a deep stack) goes to
 * begin_slow(), which also runs the first call; a label level 1 knows as writable memory, to
 * begin_text(); any other miss (a string not cached yet, a category in writable memory), to
 * begin_intern(). */
wt_span wt_begin(const char *category, const char *label)
{
    wt__tstate *ts = wt__tls;
    if (__builtin_expect(!ts || !ON() || !WT__TSC_ON() || wt__busy, 0))
        return begin_slow(category, label);
    wt__busy_on(); /* before reading anything a handler's call could change */
    const uint32_t d = ts->depth;
    if (__builtin_expect(d >= WT__MAX_DEPTH, 0)) {
        wt__busy_off();
        return begin_slow(category, label);
    }
    /* The clock before the lookups: it then does not wait behind the chain that yields the
     * label's id (the caller's load of the pointer, the hash, the set's load), which cost
     * 0.1x the floor on 1,000 labels (perf/RECORDING.md, session 5). The span then includes
     * a few ns of label handling (a literal's lookups, a formatted label's copy); a lookup
     * by content (a new string, a label over the cap) reads the clock again after it. */
    const uint64_t t0 = wt__rdtsc();
    /* NULL needs no test of its own: its set's empty way answers 0, else it misses */
    const uint32_t cat = wt__icache_ro(&ts->icache, category);
    const uint32_t lab = wt__icache_ro(&ts->icache, label);
    if (__builtin_expect((cat | lab) & WT__ICACHE_MISS, 0)) {
        /* they clear the busy flag */
        if (!(cat & WT__ICACHE_MISS) && lab == WT__ICACHE_WRITABLE)
            return begin_text(ts, d, cat, category, label, t0);
        return begin_intern(ts, d, cat, lab, category, label);
    }
    return open_span(ts, &ts->stack[d], d, cat, lab, t0);
}

/* wt_end() in full, given the end tick `t` read first. */
static __attribute__((noinline)) void end_slow(uint64_t t, wt_span h, wt_cached cached,
                                               int64_t count, int64_t bytes, const char *detail)
{
    wt__tstate *ts = wt__tls;
    /* busy: a signal handler interrupted a call of this thread. The end is ignored, not
     * counted: the span stays open and is recorded (unclosed) with its parent or thread. */
    if (!h || !ts || !ON() || wt__busy)
        return;
    wt__busy_on();
    const uint32_t idx = (uint32_t)(h & 0xffffu) - 1;
    if (idx >= ts->depth || ts->stack[idx].tag != h >> 16)
        goto out; /* stale, already ended, or another thread's */
    if (idx + 1 < ts->depth)
        wt__close_spans(ts, t, idx + 1);
    const wt__open *o = &ts->stack[idx];
    const uint32_t did = detail ? wt__intern(&ts->icache, detail) : 0;
    const int ext = (count != 0 && count != 1) || bytes != 0 || did != 0 || o->cat >= WT__B_CAT_BIG;
    const unsigned n = 1 + (unsigned)ext + WT__TEXT_ENTRIES(o->label);
    ts->depth = idx;
    wt__ent *e = wt__reserve(ts, n);
    if (e) {
        e->t0 = o->t0;
        e->t1 = t;
        e->a = o->label;
        e->b = WT__B_MAKE(WT__K_SPAN, cached_bits(cached), ext, idx, cat_bits(o->cat)) |
               (o->label & WT__TEXT_FLAG); /* the kind's TEXT bit */
        if (ext) {
            wt__ext *x = ext_at(ts);
            x->count = count;
            x->bytes = bytes;
            x->detail = did;
            x->cat = o->cat;
        }
        wt__text_put(ts, o, 1 + (unsigned)ext);
        wt__publish(ts, n);
    }
out:
    wt__busy_off();
}

/* The fast path of wt_end() for the innermost span o (checked) whose label's words are in its
 * slot: the entry and the words, published together, when they fit the ring's fast window.
 * Out of line, so the literal path keeps no stack frame. Called with the busy flag set, which
 * it clears. */
static __attribute__((noinline)) void end_text(wt__tstate *ts, const wt__open *o, uint64_t t,
                                               wt_span h, wt_cached cached)
{
    const uint64_t head = atomic_load_explicit(&ts->head, memory_order_relaxed);
    const uint32_t lab = o->label, d = ts->depth;
    const unsigned n = 1 + WT__TEXT_ENTRIES(lab);
    if (__builtin_expect(head + n > ts->limit, 0)) {
        wt__busy_off();
        end_slow(t, h, cached, 0, 0, NULL);
        return;
    }
    wt__ent *e = wt__ring_at(ts, head);
    wt__ring_prefetch(ts, head + WT__RING_AHEAD);
    wt__ring_prefetch(ts, head + WT__RING_AHEAD + n - 1);
    e->t0 = o->t0;
    e->t1 = t;
    e->a = lab;
    e->b = WT__B_MAKE(WT__K_SPAN_TEXT, cached_bits(cached), 0, d - 1, o->cat);
    wt__text_put(ts, o, 1);
    ts->depth = d - 1;
    atomic_store_explicit(&ts->head, head + n, memory_order_release);
    wt__busy_off();
}

/* wt_end() when its fast path does not apply before the clock is read (the monotonic clock,
 * a count, bytes or a detail), out of line: the clock read here is a few instructions later
 * than the fast path's, and its timespec would otherwise give the hot path a stack frame. */
static __attribute__((noinline)) void end_other(wt_span h, wt_cached cached, int64_t count,
                                                int64_t bytes, const char *detail)
{
    const uint64_t t = wt__ticks();
    end_slow(t, h, cached, count, bytes, detail);
}

/* The hot path: the innermost open span of this thread ends with at most a cache outcome,
 * and its entry fits in the ring's fast window. Everything else goes to end_slow(). */
static inline __attribute__((always_inline)) void end_impl(wt_span h, wt_cached cached,
                                                         int64_t count, int64_t bytes,
                                                         const char *detail)
{
    /* arguments the fast path cannot store are sent away before the clock is read, so the
     * registers holding them are free again for the rest */
    if (__builtin_expect(!WT__TSC_ON() || (uint64_t)count > 1 || bytes || detail, 0)) {
        end_other(h, cached, count, bytes, detail);
        return;
    }
    /* the clock first, so the bookkeeping below is not inside the span */
    const uint64_t t = wt__rdtsc();
    wt__tstate *ts = wt__tls;
    if (__builtin_expect(!ts || wt__busy, 0))
        return; /* no state: nothing open; busy: a handler's end, ignored as end_slow() says */
    wt__busy_on(); /* before reading anything a handler's call could change */
    const uint32_t d = ts->depth;
    const uint64_t head = atomic_load_explicit(&ts->head, memory_order_relaxed);
    /* h's depth is d (the innermost span; h = 0 never matches a d > 0) */
    if (__builtin_expect((h & 0xffffu) != d || d == 0 || !ON(), 0)) {
        wt__busy_off();
        end_slow(t, h, cached, count, bytes, detail);
        return;
    }
    const wt__open *o = &ts->stack[d - 1];
    if (__builtin_expect(o->tag != h >> 16 || o->cat >= WT__B_CAT_BIG, 0)) {
        wt__busy_off();
        end_slow(t, h, cached, count, bytes, detail);
        return;
    }
    if (o->label & WT__TEXT_FLAG) {
        end_text(ts, o, t, h, cached); /* it clears the busy flag */
        return;
    }
    if (__builtin_expect(head + 1 > ts->limit, 0)) {
        wt__busy_off();
        end_slow(t, h, cached, count, bytes, detail);
        return;
    }
    wt__ent *e = wt__ring_at(ts, head);
    wt__ring_prefetch(ts, head + WT__RING_AHEAD);
    e->t0 = o->t0;
    e->t1 = t;
    e->a = o->label;
    e->b = WT__B_MAKE(WT__K_SPAN, cached_bits(cached), 0, d - 1, o->cat);
    ts->depth = d - 1;
    atomic_store_explicit(&ts->head, head + 1, memory_order_release);
    wt__busy_off();
}

void wt_end(wt_span h, wt_cached cached, int64_t count, const char *detail)
{
    end_impl(h, cached, count, 0, detail);
}

void wt_end_ex(wt_span h, const wt_span_args *args)
{
    if (args)
        end_impl(h, args->cached, args->count, args->bytes, args->detail);
    else
        end_impl(h, WT_CACHED_UNKNOWN, 0, 0, NULL);
}

/* The entry of the recording calls other than wt_begin/wt_end (which have their own fast
 * path): the clock is read first, so the event's time is the call's; then the on check (a first
 * call chooses the clock, so it is read again) and the thread's state. NULL: record nothing. */
static inline wt__tstate *enter(uint64_t *t)
{
    *t = wt__ticks();
    if (wt__busy) {
        /* a signal handler interrupted a call of this thread: drop, counted */
        wt__busy_drop();
        return NULL;
    }
    wt__busy_on();
    if (!ON()) {
        if (!wt__on_slow()) {
            wt__busy_off();
            return NULL;
        }
        *t = wt__ticks(); /* the clock was chosen just now */
    }
    wt__tstate *ts = self();
    if (!ts)
        wt__busy_off();
    return ts;
}

/* The end of a call enter() let in. */
static inline void leave(void) { wt__busy_off(); }

static inline void record_impl(const char *category, const char *label, double seconds,
                               wt_cached cached, int64_t count, int64_t bytes, const char *detail)
{
    uint64_t t;
    wt__tstate *ts = enter(&t);
    if (!ts)
        return;
    const uint32_t cat = wt__intern(&ts->icache, category);
    const uint32_t lab = wt__intern(&ts->icache, label);
    const uint32_t did = detail ? wt__intern(&ts->icache, detail) : 0;
    /* a negative, NaN or infinite duration is 0; an absurd one is capped at ~292 years */
    int64_t dur = 0;
    if (isfinite(seconds) && seconds > 0)
        dur = seconds < 9.2e9 ? (int64_t)(seconds * 1e9 + 0.5) : INT64_MAX / 2;
    const int ext = (count != 0 && count != 1) || bytes != 0 || did != 0 || cat >= WT__B_CAT_BIG;
    wt__ent *e = wt__reserve(ts, 1 + ext);
    if (e) {
        e->t0 = (uint64_t)dur;
        e->t1 = t;
        e->a = lab;
        e->b = WT__B_MAKE(WT__K_SPAN_MEASURED, cached_bits(cached), ext, ts->depth, cat_bits(cat));
        if (ext) {
            wt__ext *x = ext_at(ts);
            x->count = count;
            x->bytes = bytes;
            x->detail = did;
            x->cat = cat;
        }
        wt__publish(ts, 1 + ext);
    }
    leave();
}

void wt_record(const char *category, const char *label, double seconds, wt_cached cached,
               int64_t count, const char *detail)
{
    record_impl(category, label, seconds, cached, count, 0, detail);
}

void wt_record_ex(const char *category, const char *label, double seconds,
                  const wt_span_args *args)
{
    if (args)
        record_impl(category, label, seconds, args->cached, args->count, args->bytes,
                    args->detail);
    else
        record_impl(category, label, seconds, WT_CACHED_UNKNOWN, 0, 0, NULL);
}

void wt_counter(const char *name, int64_t value)
{
    uint64_t t;
    wt__tstate *ts = enter(&t);
    if (!ts)
        return;
    const uint32_t id = wt__intern(&ts->icache, name);
    wt__ent *e = wt__reserve(ts, 1);
    if (e) {
        e->t0 = t;
        e->t1 = (uint64_t)value;
        e->a = id;
        e->b = WT__B_MAKE(WT__K_COUNTER, 0, 0, 0, 0);
        wt__publish(ts, 1);
    }
    leave();
}

/* The rarer instants: an entry plus an extension for the second string. */
static void instant2(unsigned kind, const char *category, const char *a, const char *detail)
{
    uint64_t t;
    wt__tstate *ts = enter(&t);
    if (!ts)
        return;
    const uint32_t cat = wt__intern(&ts->icache, category);
    const uint32_t aid = wt__intern(&ts->icache, a);
    const uint32_t did = wt__intern(&ts->icache, detail);
    wt__ent *e = wt__reserve(ts, 2);
    if (e) {
        e->t0 = t;
        e->t1 = 0;
        e->a = aid;
        e->b = WT__B_MAKE(kind, 0, 1, 0, cat_bits(cat));
        wt__ext *x = ext_at(ts);
        memset(x, 0, sizeof *x);
        x->detail = did;
        x->cat = cat;
        wt__publish(ts, 2);
    }
    leave();
}

void wt_mark(const char *category, const char *label, const char *detail)
{
    instant2(WT__K_MARK, category, label, detail);
}

void wt_meta(const char *key, const char *value) { instant2(WT__K_META, NULL, key, value); }

void wt_thread_name(const char *name) { instant2(WT__K_THREAD_NAME, NULL, name, NULL); }

static void round_end_at(wt__tstate *ts, uint64_t t)
{
    ts->round_open = 0;
    wt__ent *e = wt__reserve(ts, 2);
    if (!e)
        return;
    e->t0 = ts->round_t0;
    e->t1 = t;
    e->a = ts->round_cfg;
    e->b = WT__B_MAKE(WT__K_ROUND, 0, 1, 0, 0);
    wt__ext *x = ext_at(ts);
    memset(x, 0, sizeof *x);
    x->count = ts->round_no;
    wt__publish(ts, 2);
}

void wt_round_begin(const char *config, int64_t round)
{
    uint64_t t;
    wt__tstate *ts = enter(&t);
    if (!ts)
        return;
    if (ts->round_open)
        round_end_at(ts, t);
    ts->round_cfg = wt__intern(&ts->icache, config);
    ts->round_no = round;
    ts->round_t0 = t;
    ts->round_open = 1;
    leave();
}

void wt_round_end(void)
{
    const uint64_t t = wt__ticks();
    wt__tstate *ts = wt__tls;
    if (!ts || !ON() || wt__busy) /* busy: a handler's call, ignored as wt_end's is */
        return;
    wt__busy_on();
    if (ts->round_open)
        round_end_at(ts, t);
    wt__busy_off();
}
