/* The writer thread: every 250 ms, or sooner when a ring is half full or wt_flush() asks, it
 * reads CLOCK_MONOTONIC (the SYNC time), refines the TSC calibration, drains every thread's
 * ring into records (chunk per thread), feeds the ledger aggregates, compresses the records
 * into one zstd frame per WT__FRAME_TARGET bytes and appends each frame with one write() to
 * the O_APPEND file (a frame is stored uncompressed instead when zstd has used up its share of
 * a core, rec_zbudget.h). Space in a ring is given back only once the frame holding its entries
 * is written, so the crash handler can still write whatever is not in the file yet. After
 * each commit it bumps wt__g.commits, the futex threads with a full ring wait on (woken only
 * when one waits); while one waits, each ring's space is given back as soon as it is drained.
 *
 * The writer and the crash handler never write at the same time: both take `io_busy` (a
 * spin flag, async-signal-safe) around write-and-commit, and the writer gives up on a frame
 * when it finds the process crashed. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "rec_alloc.h"
#include "rec_state.h"
#include "rec_zbudget.h"

#define PERIOD_NS 250000000LL
/* For the first half second of a file the writer looks every 10 ms, so a short run killed
 * early (kill -9 a quarter of a second in) keeps what it recorded; an idle look walks the
 * thread list and writes nothing. */
#define YOUNG_PERIOD_NS 10000000LL
#define YOUNG_NS 500000000LL

static struct {
    ZSTD_CCtx *cctx;
    uint8_t *buf, *out;
    size_t out_cap;
    wt__sink sink;
    wt__tstate **touched; /* rings with entries in the frame being built */
    size_t n_touched, cap_touched;
    wt__tstate *cur;      /* the ring being drained: it goes on into the next frame */
    wt__zbudget zb;       /* zstd's share of a core: compressed or stored, frame by frame */
} W;

/* The writer's own content table for formatted labels (rec_state.h): their bytes -> ids,
 * kept across files (ids are the process's). Only its content-table part is used; the
 * pointer cache's pages are never touched. In a forked child it is the parent's, which
 * matches the string table the child inherits (a fork waits for the writer between passes). */
static wt__icache labels;
/* Its front cache (rec_intern.h), kept and inherited as the table is. */
static wt__tcache labels_front;

/* A copied label the front cache did not answer inline (rec_emit.c's text_id: a label new to
 * it, or one whose entries wrap to the ring's start). A hit there takes no lock, so it needs
 * no crash check. No memo of the last label before the table: its compare and copy cost
 * 1,000 labels in turn more (about 65 instructions a span) than they saved a repeated one
 * (about 35). */
static uint32_t wlabel(wt__sink *s, const char *str, uint32_t len)
{
    (void)s;
    /* after a crash the frame will not be written: leave the string table's lock to the
     * crash handler, which interns the same labels from the rings */
    if (atomic_load_explicit(&wt__g.crashed, memory_order_relaxed))
        return 0;
    return wt__intern_bytes(&labels, &labels_front, str, len);
}

/* After a thread's entries: when at least a quarter of its copied labels (and two) were the
 * one before again (a buffer formatted with one label over and over), the thread is told, so
 * that its next copy is looked up by content and fills its memo (rec_core.c): the recording
 * thread then compares such a label instead of copying it, without checking every copy for a
 * repeat itself. 1,000 labels in turn or at random never reach a quarter. */
static void text_hint(wt__tstate *ts)
{
    const wt__sink *s = &W.sink;
    if (s->text.reps >= 2 && s->text.reps >= s->text.n / 4 &&
        !atomic_load_explicit(&ts->text_again, memory_order_relaxed))
        atomic_store_explicit(&ts->text_again, 1, memory_order_relaxed);
}

static atomic_int fail_once;
/* Held by the writer while it drains, compresses and writes: fork() takes it (through
 * wt__writer_pause) so a child never inherits the writer stopped inside an allocator or zstd
 * call, whose locks (a sanitizer's allocator has no fork handling) the child would find taken. */
static pthread_mutex_t active = PTHREAD_MUTEX_INITIALIZER;
/* The writer thread has reached writer_main(). Its start before that is not ours: under
 * AddressSanitizer it allocates (the sanitizer's thread set-up), outside `active`, and a fork
 * in that moment left the child an allocator lock taken for ever (a hang at the child's first
 * recording call or at its exit, seen in CI). So fork() also waits for the writer to be in.
 * Set to 0 before each start, under the life lock as the start itself. */
static atomic_int entered;

void wt__writer_pause(void)
{
    while (atomic_load(&wt__g.writer_running) && !atomic_load(&entered))
        syscall(SYS_futex, (uint32_t *)&entered, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    pthread_mutex_lock(&active);
}

void wt__writer_resume(void) { pthread_mutex_unlock(&active); }

void wt__commits_wake(void)
{
    atomic_fetch_add(&wt__g.commits, 1);
    if (atomic_load(&wt__g.waiters))
        syscall(SYS_futex, (uint32_t *)&wt__g.commits, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void wt__fail(const char *what, int err)
{
    atomic_store(&wt__g.on, 0);
    atomic_store(&wt__g.state, WT__ST_FAILED);
    wt__commits_wake(); /* waiting threads see recording off and drop at once */
    if (!atomic_exchange(&fail_once, 1))
        fprintf(stderr, "walltime: cannot write '%s': %s; recording is off\n",
                what ? what : "?", strerror(err));
}

void wt__fail_reset(void) { atomic_store(&fail_once, 0); }

void wt__writer_kick(void)
{
    if (atomic_load_explicit(&wt__g.writer_running, memory_order_relaxed))
        sem_post(&wt__g.wake);
}

static void io_lock(void)
{
    while (atomic_exchange_explicit(&wt__g.io_busy, 1, memory_order_acquire))
        sched_yield();
}

static void io_unlock(void) { atomic_store_explicit(&wt__g.io_busy, 0, memory_order_release); }

/* One write() per frame; a short write on a regular file happens only with an error, but
 * go on after one rather than leave half a frame. */
int wt__write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        const ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (w == 0) {
            errno = ENOSPC;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Under io_lock, with the frame written: its entries' ring space given back, and its drops'
 * count taken off `dropped`. Until then the crash handler (which takes io_busy too) finds
 * both still there, so whatever the frame held is either in the file or in the dump. */
static void commit_touched(void)
{
    for (size_t i = 0; i < W.n_touched; i++) {
        wt__tstate *ts = W.touched[i];
        atomic_store_explicit(&ts->tail, ts->enc_pos, memory_order_release);
        if (ts->drop_enc) {
            atomic_fetch_sub_explicit(&ts->dropped, ts->drop_enc, memory_order_relaxed);
            ts->drop_enc = 0;
        }
    }
}

static int touch(wt__tstate *ts)
{
    for (size_t i = 0; i < W.n_touched; i++)
        if (W.touched[i] == ts)
            return 0;
    if (W.n_touched == W.cap_touched) {
        const size_t cap = W.cap_touched ? 2 * W.cap_touched : 16;
        wt__tstate **t = wt__realloc(W.touched, cap * sizeof *t);
        if (!t) {
            wt__fail(wt__g.path, ENOMEM);
            return -1;
        }
        W.touched = t;
        W.cap_touched = cap;
    }
    W.touched[W.n_touched++] = ts;
    return 0;
}

static int64_t thread_cpu_ns(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return 0; /* then the compression counts as free, and the budget as the wall allows */
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The frame of records W.buf[0..n) into W.out: compressed while zstd is within its budget,
 * else stored; stored too when zstd fails (its workspace is allocated at the first frame),
 * so the file goes on. Returns its size, 0 on failure. */
static size_t frame_out(size_t n)
{
    size_t size = 0;
    if (wt__zbudget_take(&W.zb, wt__mono_ns())) {
        /* two clock reads a frame (a microsecond against milliseconds of zstd), at 100 % too,
         * where the bucket's debt is never consulted */
        const int64_t t0 = thread_cpu_ns();
        size = wt__frame_compress(W.cctx, W.out, W.out_cap, W.buf, n);
        wt__zbudget_spend(&W.zb, thread_cpu_ns() - t0);
    }
    return size ? size : wt__frame_raw(W.out, W.out_cap, W.buf, n);
}

static int wflush(wt__sink *s)
{
    if (s->enc.len == 0)
        return 0;
    const size_t n = frame_out(s->enc.len);
    if (n == 0) {
        wt__fail(wt__g.path, ENOMEM);
        return -1;
    }
    io_lock();
    if (atomic_load(&wt__g.crashed) || atomic_load(&wt__g.state) == WT__ST_FAILED) {
        io_unlock();
        return -1;
    }
    if (wt__write_all(wt__g.fd, W.out, n)) {
        const int err = errno;
        io_unlock();
        wt__fail(wt__g.path, err);
        return -1;
    }
    atomic_store_explicit(&wt__g.strings_written, s->strings_done, memory_order_release);
    commit_touched();
    io_unlock();
    wt__commits_wake();
    W.n_touched = 0;
    if (W.cur)
        W.touched[W.n_touched++] = W.cur; /* capacity is there: it was in the list */
    wt__enc_reset(&s->enc, W.buf, WT__FRAME_TARGET);
    return 0;
}

#define TRY(call)                                                                          \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        if (rc_ == WT_ENOSPC) {                                                            \
            if (wflush(&W.sink) < 0)                                                       \
                return -1;                                                                 \
            rc_ = (call);                                                                  \
        }                                                                                  \
        if (rc_)                                                                           \
            return -1;                                                                     \
    } while (0)

/* One drain: see the file comment. Returns 0, or -1 when writing failed. */
static int drain(void)
{
    /* the SYNC time is read before any ring: everything before it is in the rings */
    const int64_t now = wt__clock_refine();
    wt__clockmap c;
    wt__clock_map(&c);
    int any = 0;
    wt__agg_lock();
    for (wt__tstate *ts = atomic_load_explicit(&wt__g.threads, memory_order_acquire); ts;
         ts = ts->next) {
        const int st = atomic_load_explicit(&ts->status, memory_order_acquire);
        if (st == WT__TS_FREE)
            continue;
        const uint64_t h = atomic_load_explicit(&ts->head, memory_order_acquire);
        /* acquire: a count pairs with the producer's release, so its state (tid) is seen */
        const uint64_t pending = atomic_load_explicit(&ts->dropped, memory_order_acquire);
        atomic_store_explicit(&ts->kicked, 0, memory_order_relaxed);
        if (ts->enc_pos == h && pending == ts->drop_enc)
            continue;
        any = 1;
        if (touch(ts))
            goto fail;
        W.cur = ts;
        W.sink.text = (struct wt__text_count){ 0, 0, 0 };
        if (ts->enc_pos < h && wt__emit_ring(&W.sink, ts, ts->enc_pos, h, &c, &ts->enc_pos) < h)
            goto fail;
        text_hint(ts);
        /* the drops not in a record yet, read after the ring (whose labels may wait for the
         * string table's lock, while drops go on) and left in ts->dropped until the frame is
         * written (commit_touched): a crash dump before that writes them itself */
        const uint64_t d =
            atomic_load_explicit(&ts->dropped, memory_order_acquire) - ts->drop_enc;
        if (d) {
            int rc = wt__enc_dropped(&W.sink.enc, ts->tid, now, d);
            if (rc == WT_ENOSPC) {
                if (wflush(&W.sink) < 0)
                    goto fail;
                rc = wt__enc_dropped(&W.sink.enc, ts->tid, now, d);
            }
            if (rc)
                goto fail;
            ts->drop_enc += d;
            wt__agg_dropped(d); /* the exit ledger's line, as the analyzer's */
        }
        W.cur = NULL;
        /* a thread waits for room: give this ring's space back now, not after every ring */
        if (atomic_load(&wt__g.waiters) && wflush(&W.sink) < 0)
            goto fail;
    }
    wt__agg_unlock();
    if (!any)
        return 0;
    TRY(wt__enc_sync(&W.sink.enc, now));
    if (wflush(&W.sink) < 0)
        return -1;
    /* states of exited threads whose events are all in the file can be recycled; and their
     * drops' count: one a thread made after this drain took its count and before it exited
     * would otherwise go to the next thread given the state, under that thread's id */
    for (wt__tstate *ts = atomic_load_explicit(&wt__g.threads, memory_order_acquire); ts;
         ts = ts->next) {
        if (atomic_load_explicit(&ts->status, memory_order_acquire) == WT__TS_DEAD &&
            atomic_load(&ts->tail) == atomic_load(&ts->head) &&
            atomic_load_explicit(&ts->dropped, memory_order_relaxed) == 0) {
            wt__agg_thread_gone(ts->tid); /* before the state can be recycled */
            atomic_store_explicit(&ts->status, WT__TS_FREE, memory_order_release);
        }
    }
    return 0;
fail:
    W.cur = NULL;
    wt__agg_unlock();
    return -1;
}

static int write_end(void)
{
    const int64_t now = wt__mono_ns();
    wt__agg_end(now); /* the exit ledger's wall ends where the trace's does */
    const int sig = atomic_load(&wt__g.end_signal); /* wt_close_signalled() */
    TRY(wt__enc_end(&W.sink.enc, now, sig ? WT__END_SIGNAL : WT__END_CLEAN, sig));
    return wflush(&W.sink);
}

/* The request the writer answers with this drain. */
static uint64_t flush_taken(void)
{
    pthread_mutex_lock(&wt__g.flush_lock);
    const uint64_t req = wt__g.flush_req;
    pthread_mutex_unlock(&wt__g.flush_lock);
    return req;
}

/* The last drains at close. A flush asked while the final drain ran is taken by one more
 * drain (its caller's events were published before it asked); after that, requests are
 * refused (WT_ESTATE at once), so none can wait for a writer that is gone. A caller that
 * flushes without pause cannot hold the close up: at most three extra drains. */
static void final_drains(uint64_t *req, int *failed)
{
    for (int round = 0;; round++) {
        pthread_mutex_lock(&wt__g.flush_lock);
        const uint64_t more = wt__g.flush_req;
        if (more == *req || *failed || round == 3)
            wt__g.flush_open = 0;
        const int again = wt__g.flush_open;
        pthread_mutex_unlock(&wt__g.flush_lock);
        if (!again)
            return;
        *req = more;
        if (drain() < 0)
            *failed = 1;
    }
}

__thread int wt__in_writer __attribute__((tls_model("initial-exec")));

static void *writer_main(void *arg)
{
    (void)arg;
    wt__in_writer = 1;
    atomic_store(&entered, 1);
    syscall(SYS_futex, (uint32_t *)&entered, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    int failed = 0;
    for (;;) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        const int young = wt__mono_ns() - wt__g.open_ns < YOUNG_NS;
        until.tv_nsec += young ? YOUNG_PERIOD_NS : PERIOD_NS;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        while (sem_clockwait(&wt__g.wake, CLOCK_MONOTONIC, &until) < 0 && errno == EINTR)
            ;
        const int stop = atomic_load(&wt__g.stop);
        uint64_t req = flush_taken();
        pthread_mutex_lock(&active); /* fork() waits for the writer to be between passes */
        if (!failed && drain() < 0)
            failed = 1;
        if (stop) {
            final_drains(&req, &failed);
            if (!failed && write_end() < 0)
                failed = 1;
            atomic_store(&wt__g.writer_ended, 1); /* a kill waiting in rec_signal.c may go */
        }
        pthread_mutex_unlock(&active);
        pthread_mutex_lock(&wt__g.flush_lock);
        wt__g.flush_done = req;
        wt__g.flush_rc = failed || atomic_load(&wt__g.state) == WT__ST_FAILED ? WT_EIO : 0;
        if (stop)
            wt__g.epoch_over = wt__g.flush_epoch;
        pthread_cond_broadcast(&wt__g.flush_cond);
        pthread_mutex_unlock(&wt__g.flush_lock);
        if (stop)
            break;
    }
    return NULL;
}

/* Frees the writer's buffers (what of them exists). */
static void release_buffers(void)
{
    ZSTD_freeCCtx(W.cctx);
    free(W.buf);
    free(W.out);
    free(W.touched);
    memset(&W, 0, sizeof W);
}

int wt__writer_start(void)
{
    static int sem_ready; /* under the life lock, as every call here */
    W.cctx = ZSTD_createCCtx();
    W.buf = wt__alloc(WT__FRAME_TARGET);
    W.out_cap = ZSTD_compressBound(WT__FRAME_TARGET);
    if (W.out_cap < WT__FRAME_RAW_BOUND(WT__FRAME_TARGET))
        W.out_cap = WT__FRAME_RAW_BOUND(WT__FRAME_TARGET);
    W.out = wt__alloc(W.out_cap);
    if (!W.cctx || !W.buf || !W.out)
        goto fail;
    ZSTD_CCtx_setParameter(W.cctx, ZSTD_c_compressionLevel, wt__g.zstd_level);
    wt__zbudget_init(&W.zb, wt__g.compress_pct, wt__mono_ns());
    memset(&W.sink, 0, sizeof W.sink);
    wt__enc_reset(&W.sink.enc, W.buf, WT__FRAME_TARGET);
    W.sink.flush = wflush;
    W.sink.label = wlabel;
    W.sink.front = &labels_front;
    W.sink.agg = 1;
    W.n_touched = 0;
    atomic_store(&wt__g.stop, 0);
    atomic_store(&wt__g.writer_ended, 0);
    atomic_store(&entered, 0);
    if (!sem_ready) {
        sem_init(&wt__g.wake, 0, 0);
        sem_ready = 1;
    }
    /* the writer takes no asynchronous signal meant for the program; crash signals stay
     * open so a fault in the writer still reaches the crash handler */
    sigset_t all, old;
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGABRT);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int rc = pthread_create(&wt__g.writer, NULL, writer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc)
        goto fail;
    pthread_setname_np(wt__g.writer, "walltime-writer");
    pthread_mutex_lock(&wt__g.flush_lock);
    wt__g.flush_epoch++;
    wt__g.flush_open = 1;
    pthread_mutex_unlock(&wt__g.flush_lock);
    atomic_store(&wt__g.writer_running, 1);
    return 0;
fail:
    release_buffers();
    return WT_ENOMEM;
}

/* Frees the writer's buffers once its thread is gone (joined, or absent in a forked child). */
static void release_writer(void)
{
    atomic_store(&wt__g.writer_running, 0);
    release_buffers();
}

void wt__writer_stop(void)
{
    if (!atomic_load(&wt__g.writer_running))
        return;
    atomic_store(&wt__g.stop, 1);
    sem_post(&wt__g.wake);
    pthread_join(wt__g.writer, NULL);
    release_writer();
}

/* Forgets the writer in a forked child, where its thread does not exist: its buffers are
 * the child's copies, free to release; no request can be waiting (only the forking thread
 * exists, and it was not in wt_flush). */
void wt__writer_forget(void)
{
    wt__g.flush_open = 0;
    wt__g.epoch_over = wt__g.flush_epoch;
    if (!atomic_load(&wt__g.writer_running))
        return;
    release_writer();
}

int wt__writer_flush(void)
{
    pthread_mutex_lock(&wt__g.flush_lock);
    if (!wt__g.flush_open) {
        pthread_mutex_unlock(&wt__g.flush_lock);
        return WT_ESTATE;
    }
    const uint64_t mine = ++wt__g.flush_req, epoch = wt__g.flush_epoch;
    sem_post(&wt__g.wake);
    while (wt__g.flush_done < mine && wt__g.epoch_over < epoch)
        pthread_cond_wait(&wt__g.flush_cond, &wt__g.flush_lock);
    const int rc = wt__g.flush_done >= mine ? wt__g.flush_rc : WT_ESTATE;
    pthread_mutex_unlock(&wt__g.flush_lock);
    return rc;
}
