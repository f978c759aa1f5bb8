/* Per-thread recorder state: creation on a thread's first call, recycling of states whose
 * thread exited, the ring's slow path (wake the writer, wait a bounded time for room, drop
 * past the bound), and the unclosed ends of spans a thread leaves open.
 *
 * The wait policy for a full ring: the thread sleeps on a futex the writer bumps after every
 * frame it commits (the writer makes the wake-up call only when a thread waits), so it
 * resumes the moment its ring has room, and it waits at most wt__g.ring_wait_ns per call
 * (WALLTIME_RING_WAIT_MS, default 500 ms). Past the bound the event is dropped and counted
 * (the writer writes a DROPPED record, the ledgers show the count), and the thread drops
 * without waiting until its ring has room again: a writer that is stuck costs a recording
 * call at most one bound, and a stuck writer costs each thread one bound per stall, not one
 * per event. docs/RECORDER.md has the figures behind the choice. */
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rec_alloc.h"
#include "rec_state.h"

__thread wt__tstate *wt__tls __attribute__((tls_model("initial-exec")));
__thread int wt__busy __attribute__((tls_model("initial-exec")));
__thread uint64_t wt__busy_early __attribute__((tls_model("initial-exec")));

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* A thread leaves: its open spans end now as unclosed, and the writer takes over. */
static void on_thread_exit(void *p)
{
    wt__tstate *ts = p;
    wt__busy_on(); /* a handler's call now is dropped: the state is being handed over */
    if (atomic_load_explicit(&wt__g.on, memory_order_relaxed))
        wt__close_open(ts, wt__ticks());
    wt__tls = NULL;
    atomic_store_explicit(&ts->status, WT__TS_DEAD, memory_order_release);
    wt__writer_kick();
    wt__busy_off();
}

static void make_key(void) { pthread_key_create(&key, on_thread_exit); }

/* Whether the CPU has PREFETCHW (CPUID 0x80000001 ECX bit 8, AMD's 3DNowPrefetch and Intel's
 * PRFCHW): wt__ring_prefetch() uses it only then. Asked once a process (CPUID traps to the
 * hypervisor in a VM), then kept: 0 or 1, -1 not asked yet; two threads asking at once get
 * the same answer. */
static uint32_t has_prefetchw(void)
{
#if defined(__x86_64__) || defined(__i386__)
    static atomic_int known = -1;
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v < 0) {
        unsigned a, b, c, d;
        v = __get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000001u &&
            __get_cpuid(0x80000001u, &a, &b, &c, &d) && ((c >> 8) & 1u);
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return (uint32_t)v;
#else
    return 1; /* __builtin_prefetch's write hint: no CPU faults on it */
#endif
}

static void init_state(wt__tstate *ts)
{
    const uint64_t h = atomic_load_explicit(&ts->head, memory_order_relaxed);
    ts->depth = 0;
    ts->round_open = 0;
    ts->dropping = 0;
    ts->limit = h + (ts->mask + 1) / 2;
    ts->serial = atomic_fetch_add(&wt__g.serials, 1) + 1;
    ts->tag_base = (uint64_t)(ts->serial & 0xffffu) << 32;
    ts->tid = (uint64_t)syscall(SYS_gettid);
    ts->pfw = has_prefetchw(); /* cpuid and an atomic: fine in a signal handler */
}

static wt__tstate *tstate_make(void);

/* errno kept: this may run in a signal handler (rec_state.h, re-entry) */
wt__tstate *wt__tstate_make(void)
{
    const int saved = errno;
    wt__tstate *ts = tstate_make();
    errno = saved;
    return ts;
}

static wt__tstate *tstate_make(void)
{
    pthread_once(&key_once, make_key);
    wt__tstate *ts;
    /* recycle the state of a thread that exited and whose events are all written */
    for (ts = atomic_load_explicit(&wt__g.threads, memory_order_acquire); ts; ts = ts->next) {
        int want = WT__TS_FREE;
        if (atomic_compare_exchange_strong(&ts->status, &want, WT__TS_LIVE))
            goto claimed;
    }
    /* pages, not malloc(): this may run in a signal handler that interrupted malloc() */
    const uint64_t n = wt__g.ring_entries;
    ts = wt__pages(sizeof *ts);
    if (ts) {
        ts->ring = wt__pages(n * sizeof(wt__ent));
        ts->stack = wt__pages(WT__MAX_DEPTH * sizeof(wt__open));
    }
    if (!ts || !ts->ring || !ts->stack) {
        if (ts) {
            wt__pages_free(ts->ring, n * sizeof(wt__ent));
            wt__pages_free(ts->stack, WT__MAX_DEPTH * sizeof(wt__open));
        }
        wt__pages_free(ts, sizeof *ts);
        wt__fail(atomic_load(&wt__g.path), ENOMEM); /* off, with the one message */
        return NULL;
    }
    ts->mask = n - 1;
    atomic_store(&ts->status, WT__TS_LIVE);
    pthread_mutex_lock(&wt__g.threads_lock);
    ts->next = atomic_load_explicit(&wt__g.threads, memory_order_relaxed);
    atomic_store_explicit(&wt__g.threads, ts, memory_order_release);
    pthread_mutex_unlock(&wt__g.threads_lock);
claimed:
    init_state(ts);
    wt__tls = ts;
    /* calls a signal handler dropped while this thread had no state yet; from here on a
     * handler counts into ts->dropped, so the early count no longer moves under us */
    atomic_signal_fence(memory_order_seq_cst);
    const uint64_t early = wt__busy_early;
    wt__busy_early = 0;
    atomic_fetch_add_explicit(&ts->dropped, early, memory_order_release);
    pthread_setspecific(key, ts);
    return ts;
}

/* At open, with no writer running: the opener is the rings' consumer, so it touches only the
 * consumer's side (tail, enc_pos) and the shared counters. The producers' own fields (limit,
 * dropping) stay theirs: their threads may be recording right now. A stale limit is never
 * too high (tail only grows), so the next append past it just takes the slow path. */
void wt__tstates_reset(void)
{
    for (wt__tstate *ts = atomic_load(&wt__g.threads); ts; ts = ts->next) {
        const uint64_t h = atomic_load_explicit(&ts->head, memory_order_acquire);
        ts->enc_pos = h;
        atomic_store_explicit(&ts->tail, h, memory_order_release);
        atomic_store(&ts->dropped, 0);
        ts->drop_enc = 0;
        atomic_store(&ts->kicked, 0);
    }
}

static void kick(wt__tstate *ts)
{
    if (!atomic_exchange_explicit(&ts->kicked, 1, memory_order_relaxed))
        wt__writer_kick();
}

static int ring_slow(wt__tstate *ts, unsigned n);

/* errno kept: this may run in a signal handler, whose interrupted code may be reading it */
int wt__ring_slow(wt__tstate *ts, unsigned n)
{
    const int saved = errno;
    const int rc = ring_slow(ts, n);
    errno = saved;
    return rc;
}

/* Waits until the ring has room for entries up to `need` (head + n) or the bound has passed;
 * 1 with room (the limit raised to it), 0 without. The waiter is counted before it reads the
 * commit count and the tail, and the writer bumps the count after storing the tails and reads
 * the waiters after that (all sequentially consistent): either the writer sees this waiter and
 * wakes it, or the futex call finds the count moved and returns at once. */
static int wait_room(wt__tstate *ts, uint64_t need)
{
    const uint64_t size = ts->mask + 1;
    const int64_t deadline = wt__mono_ns() + wt__g.ring_wait_ns;
    int room = 0;
    atomic_fetch_add(&wt__g.waiters, 1);
    for (;;) {
        const uint32_t seen = atomic_load(&wt__g.commits);
        const uint64_t t = atomic_load_explicit(&ts->tail, memory_order_acquire);
        if (need <= t + size) {
            ts->limit = t + size;
            room = 1;
            break;
        }
        const int64_t left = deadline - wt__mono_ns();
        if (left <= 0 || !atomic_load_explicit(&wt__g.on, memory_order_relaxed))
            break;
        kick(ts);
        const struct timespec rel = { (time_t)(left / 1000000000), (long)(left % 1000000000) };
        /* any return (woken, timed out, EAGAIN, a signal) is answered by looking again */
        syscall(SYS_futex, (uint32_t *)&wt__g.commits, FUTEX_WAIT_PRIVATE, seen, &rel, NULL, 0);
    }
    atomic_fetch_sub(&wt__g.waiters, 1);
    return room;
}

static int ring_slow(wt__tstate *ts, unsigned n)
{
    const uint64_t h = atomic_load_explicit(&ts->head, memory_order_relaxed);
    const uint64_t size = ts->mask + 1, half = size / 2;
    const uint64_t tail = atomic_load_explicit(&ts->tail, memory_order_acquire);
    if (h + n <= tail + half) {
        ts->limit = tail + half;
        ts->dropping = 0;
        return 1;
    }
    /* half full: the writer should come now rather than at its next period */
    kick(ts);
    if (h + n <= tail + size) {
        ts->limit = tail + size;
        ts->dropping = 0;
        return 1;
    }
    if (ts->dropping || !atomic_load_explicit(&wt__g.on, memory_order_relaxed))
        goto drop;
    if (wait_room(ts, h + n))
        return 1;
    ts->dropping = 1;
drop:
    atomic_fetch_add_explicit(&ts->dropped, 1, memory_order_release);
    kick(ts);
    return 0;
}

void wt__close_spans(wt__tstate *ts, uint64_t t, uint32_t to_depth)
{
    while (ts->depth > to_depth) {
        const uint32_t d = ts->depth - 1;
        const wt__open *o = &ts->stack[d];
        const int big = o->cat >= WT__B_CAT_BIG;
        const unsigned n = 1 + (unsigned)big + WT__TEXT_ENTRIES(o->label); /* a formatted label's words */
        /* no longer open before it is published (its slot keeps its fields until the next
         * begin): a signal's dump (rec_signal.c) never finds it both in the ring and open */
        ts->depth = d;
        wt__ent *e = wt__reserve(ts, n);
        if (e) {
            e->t0 = o->t0;
            e->t1 = t;
            e->a = o->label;
            e->b = WT__B_MAKE(WT__K_SPAN_UNCLOSED, 0, big, d, big ? WT__B_CAT_BIG : o->cat) |
                   (o->label & WT__TEXT_FLAG);
            if (big) {
                wt__ext *x = (wt__ext *)(void *)wt__ring_at(ts, atomic_load_explicit(&ts->head, memory_order_relaxed) + 1);
                memset(x, 0, sizeof *x);
                x->cat = o->cat;
            }
            wt__text_put(ts, o, 1 + (unsigned)big);
            wt__publish(ts, n);
        }
    }
}

void wt__close_open(wt__tstate *ts, uint64_t t)
{
    wt__close_spans(ts, t, 0);
    if (ts->round_open) {
        ts->round_open = 0;
        wt__ent *e = wt__reserve(ts, 2);
        if (e) {
            e->t0 = ts->round_t0;
            e->t1 = t;
            e->a = ts->round_cfg;
            e->b = WT__B_MAKE(WT__K_ROUND, 0, 1, 0, 0);
            wt__ext *x = (wt__ext *)(void *)wt__ring_at(ts, atomic_load_explicit(&ts->head, memory_order_relaxed) + 1);
            memset(x, 0, sizeof *x);
            x->count = ts->round_no;
            wt__publish(ts, 2);
        }
    }
}
