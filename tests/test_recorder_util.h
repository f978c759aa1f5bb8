/* Helpers shared by the recorder's tests: run a scenario in a forked child (each child is a
 * fresh recorder: the test process itself never records), and read a trace back through
 * the reader into an array of events with copied strings. */
#ifndef WT_TEST_RECORDER_UTIL_H
#define WT_TEST_RECORDER_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "walltime/reader.h"
#include "walltime/walltime.h"

typedef struct rt_event {
    wt_event ev; /* strings point into the copies below */
    char *s[4];
} rt_event;

typedef struct rt_trace {
    int open_rc;
    wt_trace_info info;
    char *clock, *cmdline, *recorder, *host;
    rt_event *ev;
    size_t n, cap;
    wt_reader_stats stats;
    int errors;
} rt_trace;

static inline char *rt_dup(const char *s) { return s ? strdup(s) : NULL; }

/* Reads `path`; returns the trace (open_rc < 0 when it could not be opened). */
static inline rt_trace *rt_read(const char *path)
{
    rt_trace *t = calloc(1, sizeof *t);
    wt_reader *r = NULL;
    t->open_rc = wt_reader_open(path, &r);
    if (t->open_rc == 0) {
        t->info = *wt_reader_info(r);
        t->clock = rt_dup(t->info.clock);
        t->cmdline = rt_dup(t->info.cmdline);
        t->recorder = rt_dup(t->info.recorder);
        t->host = rt_dup(t->info.host);
        wt_event ev;
        int rc;
        while ((rc = wt_reader_next(r, &ev)) != 0) {
            if (rc < 0) {
                fprintf(stderr, "reader: %s\n", wt_reader_error(r));
                t->errors++;
                continue;
            }
            if (t->n == t->cap) {
                t->cap = t->cap ? 2 * t->cap : 1024;
                t->ev = realloc(t->ev, t->cap * sizeof *t->ev);
            }
            rt_event *e = &t->ev[t->n++];
            e->ev = ev;
            e->s[0] = rt_dup(ev.category);
            e->s[1] = rt_dup(ev.label);
            e->s[2] = rt_dup(ev.name);
            e->s[3] = rt_dup(ev.detail);
            e->ev.category = e->s[0];
            e->ev.label = e->s[1];
            e->ev.name = e->s[2];
            e->ev.detail = e->s[3];
        }
        wt_reader_get_stats(r, &t->stats);
    }
    wt_reader_free(r);
    return t;
}

static inline void rt_free(rt_trace *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        for (int k = 0; k < 4; k++)
            free(t->ev[i].s[k]);
    free(t->ev);
    free(t->clock);
    free(t->cmdline);
    free(t->recorder);
    free(t->host);
    free(t);
}

static inline int rt_streq(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* The index of the n-th (0-based) event of `kind` whose label (spans, marks) or name equals
 * `what` (NULL: any); -1 when there is none. */
static inline long rt_find(const rt_trace *t, wt_event_kind kind, const char *what, int nth)
{
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != kind)
            continue;
        const char *key = (kind == WT_EV_SPAN || kind == WT_EV_MARK) ? e->label : e->name;
        if (what && !rt_streq(key, what))
            continue;
        if (nth-- == 0)
            return (long)i;
    }
    return -1;
}

static inline size_t rt_count(const rt_trace *t, wt_event_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->ev[i].ev.kind == kind;
    return n;
}

/* A fresh directory for one test's files. */
static inline void rt_tmpdir(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "/tmp/wt-rec-%s-%d", name, (int)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot clean %s\n", out);
    mkdir(out, 0755);
}

static inline void rt_rmdir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* Runs fn(arg) in a child with stderr sent to `err_path` (NULL: inherited). The child exits
 * with fn's return value, through exit() so the recorder's exit hook runs. Returns the raw
 * wait status; *pid_out is the child's pid. */
static inline int rt_run(int (*fn)(void *), void *arg, const char *err_path, pid_t *pid_out)
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        if (err_path) {
            const int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0) {
                dup2(fd, 2);
                close(fd);
            }
        }
        exit(fn(arg));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (pid_out)
        *pid_out = pid;
    return status;
}

/* The "step" spans of a crash test, whose counts number them 1..n: how many distinct ones
 * the trace holds, or -1 when one is out of range, seen twice, or (tid != 0) on another
 * thread. The crash tests expect exactly n. */
static inline long rt_steps_once(const rt_trace *t, int n, uint64_t tid)
{
    unsigned char *seen = calloc((size_t)n + 1, 1);
    long steps = 0;
    for (size_t i = 0; seen && i < t->n && steps >= 0; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN || !rt_streq(e->label, "step"))
            continue;
        if (e->count < 1 || e->count > n || seen[e->count] || (tid && e->tid != tid))
            steps = -1;
        else
            seen[e->count] = 1, steps++;
    }
    free(seen);
    return seen ? steps : -1;
}

/* Two pages, the second PROT_NONE: a string placed to end (its NUL) at the first page's
 * last byte is next to memory whose reading faults. NULL when they cannot be made. */
static inline char *rt_guarded_page(long *page)
{
    *page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, (size_t)*page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (mprotect(p + *page, (size_t)*page, PROT_NONE) != 0)
        return NULL;
    return p;
}

/* The whole of a small file, NUL-terminated (static buffer). */
static inline const char *rt_slurp(const char *path)
{
    static char buf[65536];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return buf;
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static inline int rt_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

#ifdef RT_DIR_PREFIX
/* The cmocka fixtures of a recorder test file: each test gets a fresh directory `dir` (named
 * from RT_DIR_PREFIX, defined before this header) and `path`, the trace file in it. */
static char dir[256];
static char path[512];

static int setup(void **state)
{
    (void)state;
    rt_tmpdir(dir, sizeof dir, RT_DIR_PREFIX);
    snprintf(path, sizeof path, "%s/run.wtrace", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rt_rmdir(dir);
    return 0;
}
#endif

#endif
