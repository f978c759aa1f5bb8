/* The recorder's life cycle: the first call (configuration from the environment, clock
 * calibration, start at first use), wt_open/wt_flush/wt_close, the exit hook, and fork().
 *
 * fork(): the child does not write into the parent's file. In the child the parent's
 * unwritten events are discarded and spans open at the fork stay the parent's (the child
 * records none of them). When the parent was recording, the child records into a file of
 * its own, opened at its first recording call from the template the parent opened with (its
 * %p is the child's pid), with the parent's pid in its header: a child that records nothing,
 * such as one that execs at once, writes no file. The writer thread does not exist in the
 * child until then. The locks the recorder takes outside the hot path are held across fork()
 * so the child never inherits one taken.
 *
 * Exit: the trace is closed from the library's ELF destructor, not atexit(): destructors run
 * after every atexit() and C++ static destructor of the program (and after those of the
 * libraries that depend on libwalltime), so a destructor that records at teardown - a device
 * runtime reporting its cache hits with wt_counter() after Python has finished - still
 * reaches the trace. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "rec_proc.h"
#include "rec_state.h"

wt__rec wt__g = {
    .fd = -1,
    .flush_lock = PTHREAD_MUTEX_INITIALIZER,
    .flush_cond = PTHREAD_COND_INITIALIZER,
    .threads_lock = PTHREAD_MUTEX_INITIALIZER,
};

static pthread_mutex_t life = PTHREAD_MUTEX_INITIALIZER;
static int inited;
/* This thread holds `life`: a signal handler's wt_open/wt_close here would wait for it. */
static __thread int in_life __attribute__((tls_model("initial-exec")));

static void life_lock(void)
{
    pthread_mutex_lock(&life);
    in_life = 1;
}

static void life_unlock(void)
{
    in_life = 0;
    pthread_mutex_unlock(&life);
}

/* The template of the last open, for a forked child's own file; owned, kept across close. */
static char *open_tmpl;
/* In a forked child: the pid it was forked from (else 0), for its header. */
static uint64_t forked_from;
static pid_t pid_at_fork;
/* wt_summary_handover() was called: the host prints the exit table, the library nothing. */
static atomic_int summary_handed_over;

__attribute__((destructor)) static void at_exit(void)
{
    const int st = atomic_load(&wt__g.state);
    if (st == WT__ST_OPEN || (st == WT__ST_FAILED && atomic_load(&wt__g.writer_running)))
        wt_close();
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&life);
    pid_at_fork = getpid();
    pthread_mutex_lock(&wt__g.threads_lock);
    wt__writer_pause();
    wt__agg_lock();
    wt__intern_lock();
}

static void fork_parent(void)
{
    wt__intern_unlock();
    wt__agg_unlock();
    wt__writer_resume();
    pthread_mutex_unlock(&wt__g.threads_lock);
    pthread_mutex_unlock(&life);
}

static void fork_child(void)
{
    wt__intern_unlock();
    wt__agg_unlock();
    wt__writer_resume();
    pthread_mutex_unlock(&wt__g.threads_lock);
    atomic_store(&wt__g.on, 0);
    forked_from = (uint64_t)pid_at_fork;
    const int st = atomic_load(&wt__g.state);
    if (st == WT__ST_OPEN || st == WT__ST_FAILED) {
        wt__signals_remove();
        if (wt__g.fd >= 0)
            close(wt__g.fd);
        wt__g.fd = -1;
        free(atomic_exchange(&wt__g.path, NULL));
        /* a recording parent: the child opens its own file at its first call (wt__on_slow) */
        atomic_store(&wt__g.state, st == WT__ST_OPEN ? WT__ST_UNINIT : WT__ST_CLOSED);
    }
    pthread_mutex_init(&wt__g.flush_lock, NULL);
    pthread_cond_init(&wt__g.flush_cond, NULL);
    wt__writer_forget();
    atomic_store(&wt__g.io_busy, 0);
    /* only the forking thread exists in the child */
    wt__tstate *me = wt__tls;
    for (wt__tstate *ts = atomic_load(&wt__g.threads); ts; ts = ts->next) {
        if (ts != me) {
            atomic_store(&ts->status, WT__TS_FREE);
        } else {
            ts->depth = 0;
            ts->round_open = 0;
            ts->tid = (uint64_t)getpid();
        }
    }
    pthread_mutex_unlock(&life);
}

/* Once per process, with `life` held. */
static void init_locked(void)
{
    if (inited)
        return;
    inited = 1;
    wt__env_load();
    if (atomic_load(&wt__g.state) == WT__ST_DISABLED)
        return;
    wt__clock_init(wt__g.force_monotonic);
    wt__intern_scan_ro();
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static void say_cannot(const char *path, int err)
{
    fprintf(stderr, "walltime: cannot write '%s': %s; recording is off\n", path ? path : "?",
            strerror(err));
}

static int open_locked(const char *tmpl)
{
    char *path = NULL;
    int fd = -1, err = 0, rc = 0;
    char *cmdline = NULL;
    if (!tmpl)
        tmpl = wt__g.path_template;
    if (tmpl != open_tmpl) {
        char *t = strdup(tmpl);
        if (t) {
            free(open_tmpl);
            open_tmpl = t;
        }
    }
    if (wt__file_open(tmpl, forked_from != 0, &path, &fd, &err)) {
        say_cannot(path ? path : tmpl, err);
        rc = WT_EOPEN;
        goto fail;
    }
    char host[256];
    if (gethostname(host, sizeof host - 1))
        strcpy(host, "");
    host[sizeof host - 1] = '\0';
    cmdline = wt__cmdline();
    char boot_id[64];
    wt__boot_id(boot_id, sizeof boot_id);
    struct timespec real;
    const int64_t mono = wt__mono_ns();
    clock_gettime(CLOCK_REALTIME, &real);
    const int64_t mono_after = wt__mono_ns();
    wt__g.open_ns = mono;
    wt__g.process_start_ns = wt__process_start_ns();
    if (!wt__g.process_start_ns || wt__g.process_start_ns > mono)
        wt__g.process_start_ns = mono;
    wt__header h = {
        .pid = (uint64_t)getpid(),
        .process_start_ns = wt__g.process_start_ns,
        .open_ns = mono,
        .anchor_mono_ns = mono,
        .anchor_real_ns = (int64_t)real.tv_sec * 1000000000 + real.tv_nsec,
        .clock = wt__clock_name(),
        .tsc_hz = wt__clock_hz(),
        .host = host,
        .cmdline = cmdline,
        .recorder = "libwalltime " WT_VERSION_STRING,
        .parent_pid = forked_from ? forked_from : (uint64_t)getppid(),
        .boot_id = boot_id[0] ? boot_id : NULL,
        .anchor_err_ns = mono_after > mono ? (uint64_t)(mono_after - mono) : 1,
    };
    wt__run_id(h.run_id);
    static uint8_t frame[WT__HEADER_MAX + 8];
    const size_t n = wt__header_frame(frame, sizeof frame, &h);
    if (n == 0 || wt__write_all(fd, frame, n)) {
        say_cannot(path, n == 0 ? EINVAL : errno);
        rc = WT_EIO;
        goto fail;
    }
    wt__g.fd = fd;
    wt__g.path = path;
    wt__tstates_reset();
    atomic_store(&wt__g.strings_written, 0);
    atomic_store(&wt__g.crashed, 0);
    atomic_store(&wt__g.io_busy, 0);
    wt__fail_reset();
    wt__agg_reset();
    if (wt__writer_start()) {
        say_cannot(path, ENOMEM);
        wt__g.fd = -1;
        wt__g.path = NULL;
        rc = WT_ENOMEM;
        goto fail;
    }
    atomic_store(&wt__g.state, WT__ST_OPEN);
    atomic_store(&wt__g.on, 1);
    /* the opener's own calls, not a handler's: each sets the busy flag for itself */
    const int busy = wt__busy;
    wt__busy_off();
    wt__rank_meta();
    if (busy)
        wt__busy_on();
    free(cmdline);
    if (wt__g.signals && wt__signals_install()) {
        /* the writer runs: recording turns off as after a write error, wt_close() says so */
        wt__fail(path, ENOMEM);
        return WT_ENOMEM;
    }
    return 0;
fail:
    if (fd >= 0)
        close(fd);
    free(path);
    free(cmdline);
    atomic_store(&wt__g.state, WT__ST_FAILED);
    return rc;
}

int wt__on_slow(void)
{
    if (atomic_load(&wt__g.state) == WT__ST_UNINIT) {
        life_lock();
        init_locked();
        if (atomic_load(&wt__g.state) == WT__ST_UNINIT)
            open_locked(forked_from ? open_tmpl : NULL); /* a child: its parent's template */
        life_unlock();
    }
    return atomic_load_explicit(&wt__g.on, memory_order_relaxed);
}

int wt_open(const char *path)
{
    if (wt__busy || in_life)
        return WT_ESTATE; /* called from a signal handler inside a walltime call */
    wt__busy_on();
    life_lock();
    init_locked();
    int rc;
    const int st = atomic_load(&wt__g.state);
    if (st == WT__ST_DISABLED)
        rc = WT_EDISABLED;
    else if (st == WT__ST_OPEN || (st == WT__ST_FAILED && atomic_load(&wt__g.writer_running)))
        rc = WT_ESTATE;
    else
        rc = open_locked(path);
    life_unlock();
    wt__busy_off();
    return rc;
}

/* wt_flush() takes no life lock: it may run on any thread during an open or a close. The
 * writer answers it, or refuses it (WT_ESTATE) when none runs or the one running is ending. */
int wt_flush(void)
{
    if (wt__busy)
        return WT_ESTATE; /* called from a signal handler inside a walltime call */
    wt__busy_on();
    const int rc = wt__writer_flush();
    wt__busy_off();
    if (rc == WT_ESTATE && atomic_load(&wt__g.state) == WT__ST_FAILED)
        return WT_EIO;
    return rc;
}

static int close_locked(void);

/* wt_close(), its end record saying signal `signo` (0: a clean end). */
static int close_as(int signo)
{
    if (wt__busy || in_life)
        return WT_ESTATE; /* called from a signal handler inside a walltime call */
    wt__busy_on();
    life_lock();
    atomic_store(&wt__g.end_signal, signo); /* the writer's end record (rec_writer.c) */
    const int rc = close_locked();
    atomic_store(&wt__g.end_signal, 0);
    life_unlock();
    wt__busy_off();
    return rc;
}

int wt_close(void) { return close_as(0); }

int wt_close_signalled(int signo)
{
    return signo < 1 || signo > 64 ? WT_EINVAL : close_as(signo);
}

/* wt_close() with the life lock held. */
static int close_locked(void)
{
    const int st = atomic_load(&wt__g.state);
    if (st == WT__ST_FAILED && !atomic_load(&wt__g.writer_running)) {
        /* the open failed: say so once, as wt_flush() does, then the recorder is closed */
        atomic_store(&wt__g.state, WT__ST_CLOSED);
        return WT_EIO;
    }
    if (st != WT__ST_OPEN && st != WT__ST_FAILED)
        return WT_ESTATE;
    /* the calling thread's open spans end now; other threads' end with their thread */
    wt__tstate *ts = wt__tls;
    if (ts && st == WT__ST_OPEN)
        wt__close_open(ts, wt__ticks());
    atomic_store(&wt__g.closing, 1);
    atomic_store(&wt__g.on, 0);
    wt__writer_stop();
    atomic_store(&wt__g.closing, 0);
    wt__signals_remove();
    const int failed = atomic_load(&wt__g.state) == WT__ST_FAILED;
    if (wt__g.fd >= 0)
        close(wt__g.fd);
    wt__g.fd = -1;
    atomic_store(&wt__g.state, WT__ST_CLOSED);
    if (!failed && wt__g.summary && !atomic_load(&summary_handed_over)) {
        if (!wt__agg_empty())
            wt__agg_print("end of run",
                          (double)(wt__mono_ns() - wt__g.process_start_ns) * 1e-9);
        fprintf(stderr, "walltime: trace written to '%s'; the full analysis: walltime-analyze ledger '%s'\n",
                wt__g.path, wt__g.path);
        fflush(stderr);
    }
    free(atomic_exchange(&wt__g.path, NULL));
    return failed ? WT_EIO : 0;
}

/* Reads the environment once, as the first call does, without opening the trace. */
static void env_read(void)
{
    if (wt__busy || in_life)
        return; /* from a signal handler inside a walltime call: the caller's call reads it */
    wt__busy_on();
    life_lock();
    init_locked();
    life_unlock();
    wt__busy_off();
}

int wt_env_recording(void)
{
    env_read();
    return atomic_load(&wt__g.state) != WT__ST_DISABLED;
}

wt_exit_print wt_env_summary(void)
{
    if (!wt_env_recording())
        return WT_SUMMARY_NONE;
    return wt__g.summary == WT__SUMMARY_FLAT ? WT_SUMMARY_FLAT
           : wt__g.summary                   ? WT_SUMMARY_RECONCILED
                                             : WT_SUMMARY_NONE;
}

void wt_summary_handover(void) { atomic_store(&summary_handed_over, 1); }

int wt_enabled(void) { return atomic_load_explicit(&wt__g.on, memory_order_relaxed); }

const char *wt_trace_path(void)
{
    return atomic_load(&wt__g.state) == WT__ST_OPEN ? wt__g.path : NULL;
}

void wt_print_ledger(const char *title)
{
    if (atomic_load(&wt__g.state) == WT__ST_OPEN)
        wt__writer_flush();
    wt__agg_print(title, wt__g.process_start_ns
                             ? (double)(wt__mono_ns() - wt__g.process_start_ns) * 1e-9
                             : 0.0);
}
