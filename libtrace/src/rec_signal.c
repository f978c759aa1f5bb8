/* Crash and kill handlers. On SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (crashes), and on
 * SIGTERM, SIGINT, SIGHUP and SIGQUIT (kills: a scheduler's or timeout's SIGTERM, a Ctrl-C)
 * when their disposition is the default, write what the rings hold (the signalled thread
 * first, complete; the others best effort), every thread's open spans as unclosed, and an
 * END record with the signal; then put back the handler that was there before and let the
 * signal go on to it, so the process dies (or a sanitizer or Python's faulthandler reports)
 * as it would have without us. A kill signal the program handles (Python's SIGINT) or ignores
 * is never touched.
 *
 * Everything here is async-signal-safe: buffers are allocated at install time, records are
 * made by the encoder (no allocation, no locks) into raw zstd frames (wt__frame_raw, no
 * compression), and each frame goes out with write(). The writer thread is kept out by the
 * io_busy flag, waited for at most 500 ms (it may be the crashing thread). Limits: a stack
 * overflow needs an alternate signal stack, which the program must provide (the handlers are
 * installed with SA_ONSTACK); events and spans a thread was storing at the instant of the
 * signal may be missing. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "rec_alloc.h"
#include "rec_state.h"

/* The crash signals first (NCRASH of them), then the kill signals, whose default ends the
 * process and which a program that does not handle them dies of: a kill is the moment people
 * ask where the run was stuck. Not SIGUSR1/SIGUSR2 (a program's own messages: dying of one is
 * a missing handler, and libraries claim them), nor SIGPIPE, SIGALRM, SIGXCPU (docs/RECORDER.md,
 * "Kills"). */
#define NCRASH 5
#define NSIGS 9
static const int sigs[NSIGS] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
                                 SIGTERM, SIGINT, SIGHUP, SIGQUIT };
static struct sigaction saved[NSIGS];
static unsigned char mine[NSIGS]; /* our handler was installed for sigs[i] at the last install */
static int installed;

/* The crash path's buffers, allocated once and kept for the life of the process. */
#define CBUF_CAP (256u << 10)
static uint8_t *cbuf, *cframe;
static atomic_int in_crash, dump_done;

static int cflush(wt__sink *s)
{
    if (s->enc.len == 0)
        return 0;
    const size_t n = wt__frame_raw(cframe, WT__FRAME_RAW_BOUND(CBUF_CAP), cbuf, s->enc.len);
    if (n == 0 || wt__write_all(wt__g.fd, cframe, n))
        return -1;
    wt__enc_reset(&s->enc, cbuf, CBUF_CAP);
    return 0;
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Until when the dump tries again for the string table's lock (below). */
static int64_t lock_tries_end;

/* A formatted label's id in the dump: its bytes interned in the string table when its lock is
 * free. The lock may be held by a thread that goes on (the writer stops taking it once it
 * sees the crash; the dump tries again for at most 100 ms in all, not per label: a ring holds
 * thousands) or by this very thread, interrupted inside the table; then the placeholder,
 * which exists whenever a formatted label does (rec_intern.h). Each span given it is one
 * label lost: the file counts them as the spans that carry it. */
static uint32_t clabel(wt__sink *s, const char *str, uint32_t len)
{
    (void)s;
    do {
        const uint32_t id = wt__intern_bytes_try(str, len);
        if (id)
            return id;
    } while (now_ns() < lock_tries_end);
    return wt__text_placeholder_get();
}

/* A thread's open spans, innermost first (the order their ends would have come). For the
 * signalled thread they are exact; another thread may be beginning or ending one meanwhile
 * (best effort): its depth is read once, after its ring (an end lowers the depth before it
 * publishes the span, so a span is never both in the ring read and open here), and a start
 * not stored yet (the slot's previous span's) is kept inside its parent's. */
static int64_t starts[WT__MAX_DEPTH]; /* not on an alternate signal stack: one dump runs */

static void dump_open(wt__sink *s, const wt__tstate *ts, const wt__clockmap *c, int64_t end)
{
    uint32_t depth = __atomic_load_n(&ts->depth, __ATOMIC_ACQUIRE);
    if (depth > WT__MAX_DEPTH)
        depth = WT__MAX_DEPTH;
    for (uint32_t d = 0; d < depth; d++) {
        starts[d] = wt__tick_ns(c, ts->stack[d].t0);
        if (d > 0 && starts[d] < starts[d - 1])
            starts[d] = starts[d - 1];
    }
    for (uint32_t d = depth; d-- > 0;) {
        const wt__open *o = &ts->stack[d];
        uint32_t label = o->label;
        if (label & WT__TEXT_FLAG) /* its words are in the slot */
            label = clabel(s, (const char *)o->text + WT__TEXT_SLOT_OFF(label), WT__TEXT_LEN(label));
        const uint32_t need = o->cat > label ? o->cat : label;
        if (wt__emit_strings(s, need))
            return;
        wt__span_rec r;
        memset(&r, 0, sizeof r);
        r.start = starts[d];
        r.end = end > r.start ? end : r.start;
        r.depth = d;
        r.category = o->cat;
        r.label = label;
        r.count = 1;
        r.unclosed = 1;
        int rc = wt__enc_span(&s->enc, ts->tid, &r);
        if (rc == WT_ENOSPC) {
            if (s->flush(s))
                return;
            rc = wt__enc_span(&s->enc, ts->tid, &r);
        }
        if (rc)
            return;
    }
}

/* A thread's ring, then the events it dropped since the writer's last drain: without their
 * DROPPED record they would be in neither the file nor a count. */
static void dump_ring(wt__sink *s, wt__tstate *ts, const wt__clockmap *c, int64_t end)
{
    uint64_t progress;
    const uint64_t from = atomic_load_explicit(&ts->tail, memory_order_acquire);
    const uint64_t to = atomic_load_explicit(&ts->head, memory_order_acquire);
    if (to > from && to - from <= ts->mask + 1)
        wt__emit_ring(s, ts, from, to, c, &progress);
    const uint64_t d = atomic_exchange_explicit(&ts->dropped, 0, memory_order_acquire);
    if (!d)
        return;
    int rc = wt__enc_dropped(&s->enc, ts->tid, end, d);
    if (rc == WT_ENOSPC && s->flush(s) == 0)
        wt__enc_dropped(&s->enc, ts->tid, end, d);
}

static void dump(int sig)
{
    atomic_store(&wt__g.on, 0);
    atomic_store(&wt__g.crashed, 1);
    /* keep the writer out; it may be stuck or be this very thread, so not for ever */
    const int64_t give_up = now_ns() + 500000000;
    while (atomic_exchange_explicit(&wt__g.io_busy, 1, memory_order_acquire) && now_ns() < give_up)
        ;
    wt__clockmap c;
    wt__clock_map(&c);
    lock_tries_end = now_ns() + 100000000;
    wt__sink s;
    memset(&s, 0, sizeof s);
    wt__enc_reset(&s.enc, cbuf, CBUF_CAP);
    s.strings_done = atomic_load_explicit(&wt__g.strings_written, memory_order_acquire);
    s.flush = cflush;
    s.label = clabel;
    const int64_t end = wt__tick_ns(&c, wt__ticks());
    wt__tstate *me = wt__tls;
    if (me) {
        dump_ring(&s, me, &c, end);
        dump_open(&s, me, &c, end);
    }
    for (wt__tstate *ts = atomic_load_explicit(&wt__g.threads, memory_order_acquire); ts;
         ts = ts->next) {
        if (ts == me)
            continue;
        const int status = atomic_load(&ts->status);
        if (status != WT__TS_FREE)
            dump_ring(&s, ts, &c, end);
        if (status == WT__TS_LIVE) /* a thread that exited ended its spans itself */
            dump_open(&s, ts, &c, end);
    }
    int rc = wt__enc_end(&s.enc, end, WT__END_SIGNAL, sig);
    if (rc == WT_ENOSPC && s.flush(&s) == 0)
        rc = wt__enc_end(&s.enc, end, WT__END_SIGNAL, sig);
    if (rc == 0)
        cflush(&s);
    /* the writer finds `crashed` under the flag and writes nothing more; were the process to
     * survive after all, it must not spin on a flag nobody releases */
    atomic_store_explicit(&wt__g.io_busy, 0, memory_order_release);
}

/* A kill during wt_close(): the writer is writing the last frames and the end record; this
 * thread (the closing one, waiting in the join, or any other) waits for them, up to 2 s,
 * before the signal goes on and the process dies. Without the wait a SIGTERM at that moment
 * left a trace of only its header (multiprocessing's Pool.__exit__ terminates its workers as
 * their finalizers close: 100, 0, 25 of 200 spans in a review). Spinning on an atomic is safe
 * in a handler; the writer blocks asynchronous signals, so it is not the one waiting. */
static void wait_for_close(void)
{
    const int64_t give_up = now_ns() + 2000000000;
    while (!atomic_load(&wt__g.writer_ended) && now_ns() < give_up)
        ;
}

/* The dump, once per process: a second thread crashing meanwhile waits for the first one's. */
/* This thread is writing the dump (a crash handler's mask lets a kill in meanwhile). */
static __thread int dumping __attribute__((tls_model("initial-exec")));

static void dump_once(int sig)
{
    if (!atomic_exchange(&in_crash, 1)) {
        dumping = 1;
        if (atomic_load(&wt__g.on) && cbuf)
            dump(sig);
        else if (atomic_load(&wt__g.closing) && !wt__in_writer)
            wait_for_close();
        dumping = 0;
        atomic_store(&dump_done, 1);
    } else {
        const int64_t give_up = now_ns() + 1000000000;
        while (!atomic_load(&dump_done) && now_ns() < give_up)
            ;
    }
}

static int is_function(const struct sigaction *sa)
{
    if (sa->sa_flags & SA_SIGINFO)
        return sa->sa_sigaction != NULL;
    return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

static void on_crash(int sig, siginfo_t *info, void *uctx);

/* This thread is inside the program's handler that on_crash() called. */
static __thread int chaining __attribute__((tls_model("initial-exec")));

static int ours_now(int sig)
{
    struct sigaction cur;
    return sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
           cur.sa_sigaction == on_crash;
}

/* Runs the handler the program had installed before us, as the kernel would have: with its
 * mask added, and reset to the default first when it asked for SA_RESETHAND. */
static void call_previous(struct sigaction *prev, int sig, siginfo_t *info, void *uctx)
{
    const struct sigaction p = *prev;
    if (p.sa_flags & SA_RESETHAND) {
        memset(prev, 0, sizeof *prev);
        prev->sa_handler = SIG_DFL;
    }
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &p.sa_mask, &old);
    if (p.sa_flags & SA_SIGINFO)
        p.sa_sigaction(sig, info, uctx);
    else
        p.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* When the program had a handler of its own before us (a JIT or a garbage collector that
 * repairs faults with mprotect, Python's faulthandler, a sanitizer), it runs first: a fault it
 * survives costs nothing and leaves the recorder running, its I/O lock free and the trace
 * unmarked. Only when it gives up (puts back a default disposition, to die by it) do we dump,
 * then return so that what it arranged happens. SIGABRT is the exception: abort() dies
 * whatever a handler does (it re-raises with the default), so the dump comes first, as it
 * does when there was no handler before us. Limit: a handler before us that ends the process
 * itself (_exit) leaves no dump; the trace then ends as after a kill -9. */
static void on_crash(int sig, siginfo_t *info, void *uctx)
{
    const int saved_errno = errno;
    int i = 0;
    while (i < NSIGS - 1 && sigs[i] != sig)
        i++;
    if (i >= NCRASH && dumping)
        return; /* a kill inside this thread's crash dump: the crash ends the process */
    if (sig != SIGABRT && is_function(&saved[i]) && !chaining) {
        chaining = 1;
        call_previous(&saved[i], sig, info, uctx);
        chaining = 0;
        if (!ours_now(sig)) /* it gave up: the process dies by what it left installed */
            dump_once(sig);
        errno = saved_errno;
        return;
    }
    dump_once(sig);
    if (chaining) {
        /* the handler we called chained back to us: a loop (a program handler installed
         * between a close and a reopen saved ours as its previous). End it: die by default */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
    } else {
        sigaction(sig, &saved[i], NULL);
    }
    /* a sent signal (abort, kill) is sent again; a fault happens again when we return. A
     * kill signal is always sent again: the terminal's SIGINT, SIGQUIT and SIGHUP come from
     * the kernel (si_code SI_KERNEL, > 0) and would otherwise be lost. Blocked while we run,
     * it is taken by the default action as we return. */
    if (i >= NCRASH || info == NULL || info->si_code <= 0)
        raise(sig);
    errno = saved_errno;
}

/* A kill signal's disposition is the default: nobody handles or ignores it. */
static int is_default(const struct sigaction *sa)
{
    return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL;
}

int wt__signals_install(void)
{
    if (installed)
        return 0;
    if (!cbuf) {
        cbuf = wt__alloc(CBUF_CAP);
        cframe = wt__alloc(WT__FRAME_RAW_BOUND(CBUF_CAP));
        if (!cbuf || !cframe) {
            free(cbuf);
            free(cframe);
            cbuf = cframe = NULL;
            return -1;
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NCRASH; i++) {
        sigaction(sigs[i], &sa, &saved[i]);
        mine[i] = 1;
    }
    /* The kill signals: only over the default. A second kill arriving during the dump waits
     * for it (the mask), so the process dies of the first, with the whole dump written. */
    for (int i = NCRASH; i < NSIGS; i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    for (int i = NCRASH; i < NSIGS; i++) {
        /* what on_crash() goes on to, even where ours is not installed: a program handler
         * that saved ours at an earlier open and passes the signal to it gets the dump and
         * the default, as the program asked */
        memset(&saved[i], 0, sizeof saved[i]);
        saved[i].sa_handler = SIG_DFL;
        mine[i] = 0;
        struct sigaction cur;
        if (sigaction(sigs[i], NULL, &cur) != 0 || !is_default(&cur) ||
            sigaction(sigs[i], &sa, &cur) != 0)
            continue;
        if (!is_default(&cur)) {
            /* another thread installed one between the two calls: theirs stays */
            sigaction(sigs[i], &cur, NULL);
            continue;
        }
        mine[i] = 1;
    }
    atomic_store(&in_crash, 0);
    atomic_store(&dump_done, 0);
    installed = 1;
    return 0;
}

void wt__signals_remove(void)
{
    if (!installed)
        return;
    for (int i = 0; i < NSIGS; i++) {
        struct sigaction cur;
        /* put the old handler back only if nobody installed theirs over ours since */
        if (mine[i] && sigaction(sigs[i], NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
            cur.sa_sigaction == on_crash)
            sigaction(sigs[i], &saved[i], NULL);
        mine[i] = 0;
    }
    installed = 0;
}
