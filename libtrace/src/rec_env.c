/* What the recorder learns from its environment: the configuration variables, the trace
 * path (template expansion and the never-overwrite rule), and facts about the process from
 * the OS: its start time, command line and host. Runs at open, never on the hot path. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rec_proc.h"
#include "rec_state.h"

#define DEFAULT_TEMPLATE "walltime-%p.wtrace"
#define DEFAULT_RING 32768u /* entries per thread (768 KiB): docs/RECORDER.md, "Ring size" */
#define DEFAULT_LEVEL 1
#define DEFAULT_COMPRESS_PCT 5 /* zstd's share of one core: rec_zbudget.h */
#define DEFAULT_RING_WAIT_MS 500 /* the longest wait for ring space: docs/RECORDER.md */

/* ---- the configuration variables ----------------------------------------------------------
 * One table row per variable: its name, a setter that reads the value into wt__g (returning
 * -1, with wt__g unchanged, for a value it does not know) and the values it takes, as said
 * in the warning. A new variable, or a new value of one, is a row or a line in its setter.
 * An unset or empty variable keeps its default. A value a setter refuses, and a WALLTIME_*
 * name the table does not hold, get one warning line each at start: a typo in a variable
 * must not silently leave a run unrecorded or recorded the wrong way. */

/* The usual switch words, any case: off/false/no/0 -> 0, on/true/yes/1 -> 1; else -1. */
static int switch_word(const char *v)
{
    static const char *const off[] = { "0", "off", "false", "no" };
    static const char *const on[] = { "1", "on", "true", "yes" };
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        if (strcasecmp(v, off[i]) == 0)
            return 0;
        if (strcasecmp(v, on[i]) == 0)
            return 1;
    }
    return -1;
}

/* A whole decimal integer in [lo, hi] into *out; -1 for anything else ("3x", "", overflow). */
static int int_in(const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    const long l = strtol(v, &end, 10);
    if (end == v || *end || errno || l < lo || l > hi)
        return -1;
    *out = l;
    return 0;
}

/* A switch word into *dst; -1 (nothing changed) for any other word. */
static int set_switch(const char *v, int *dst)
{
    const int on = switch_word(v);
    if (on >= 0)
        *dst = on;
    return on < 0 ? -1 : 0;
}

/* WALLTIME and TT_WALLTIME: either one off turns recording off. */
static int recording_on; /* set to 1 before the table is read */

static int set_recording(const char *v)
{
    int on = 1;
    const int rc = set_switch(v, &on);
    recording_on &= on;
    return rc;
}

static int set_summary(const char *v)
{
    if (strcasecmp(v, "flat") == 0) {
        wt__g.summary = WT__SUMMARY_FLAT; /* the seed's table at exit */
        return 0;
    }
    return set_switch(v, &wt__g.summary);
}
static int set_signals(const char *v) { return set_switch(v, &wt__g.signals); }

static int set_clock(const char *v)
{
    if (strcasecmp(v, "monotonic") != 0 && strcasecmp(v, "tsc") != 0)
        return -1;
    wt__g.force_monotonic = strcasecmp(v, "monotonic") == 0;
    return 0;
}

static int set_level(const char *v)
{
    long l;
    if (int_in(v, -7, 19, &l))
        return -1;
    wt__g.zstd_level = (int)l;
    return 0;
}

static int set_compress(const char *v)
{
    long p;
    if (int_in(v, 0, 100, &p))
        return -1;
    wt__g.compress_pct = (int)p;
    return 0;
}

static int set_ring(const char *v)
{
    long r;
    if (int_in(v, 1024, 1L << 20, &r) || (r & (r - 1)) != 0)
        return -1;
    wt__g.ring_entries = (uint32_t)r;
    return 0;
}

static int set_ring_wait(const char *v)
{
    long ms;
    if (int_in(v, 0, 10000, &ms))
        return -1;
    wt__g.ring_wait_ns = ms * 1000000LL;
    return 0;
}

static int set_template(const char *v)
{
    char *t = strdup(v);
    if (!t)
        return 0; /* out of memory: the default stays; not the user's mistake */
    free(wt__g.path_template);
    wt__g.path_template = t;
    return 0;
}

/* Variables read elsewhere, listed so that their names are not called unknown and their
 * values are checked the way their readers take them. */
static int set_reader_thread(const char *v) /* the trace reader, reader.c */
{
    return strcmp(v, "0") && strcmp(v, "1") ? -1 : 0;
}

static int set_rank(const char *v) /* rec_proc.c: metadata "rank" */
{
    long r;
    return strspn(v, "0123456789") == strlen(v) ? int_in(v, 0, 0x7fffffffL, &r) : -1;
}

static int set_any(const char *v) /* python/wt_build.py: WALLTIME_SOURCE_DIR, a path */
{
    (void)v;
    return 0;
}

typedef struct env_var {
    const char *name;
    int (*set)(const char *value);
    const char *takes; /* the values it takes, for the warning */
} env_var;

static const env_var vars[] = {
    { "WALLTIME", set_recording, "off/false/no/0 or on/true/yes/1" },
    { "TT_WALLTIME", set_recording, "off/false/no/0 or on/true/yes/1" },
    { "WALLTIME_TRACE", set_template, "a path template" },
    { "WALLTIME_SUMMARY", set_summary, "off/false/no/0, on/true/yes/1 or flat" },
    { "WALLTIME_SIGNALS", set_signals, "off/false/no/0 or on/true/yes/1" },
    { "WALLTIME_CLOCK", set_clock, "monotonic or tsc" },
    { "WALLTIME_ZSTD_LEVEL", set_level, "an integer -7..19" },
    { "WALLTIME_COMPRESS_CPU", set_compress, "an integer 0..100 (percent of one core)" },
    { "WALLTIME_RING", set_ring, "a power of two 1024..1048576" },
    { "WALLTIME_RING_WAIT_MS", set_ring_wait, "an integer 0..10000 (milliseconds)" },
    { "WALLTIME_READER_THREAD", set_reader_thread, "0 or 1" },
    { "WALLTIME_RANK", set_rank, "a decimal integer 0..2147483647" },
    { "WALLTIME_SOURCE_DIR", set_any, "a directory" },
};
#define N_VARS (sizeof vars / sizeof vars[0])

/* `s` cut to 40 bytes with anything unprintable as '?', so a warning stays one short line. */
static void printable(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap && n < 40; s++)
        out[n++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    out[n] = '\0';
}

/* Warns once about each set WALLTIME_* name the table does not hold, naming those it does. */
static void warn_unknown_names(void)
{
    static const char prefix[] = "WALLTIME_";
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, prefix, sizeof prefix - 1) != 0)
            continue;
        const size_t len = strcspn(*e, "=");
        size_t i = 0;
        while (i < N_VARS && !(strlen(vars[i].name) == len && strncmp(vars[i].name, *e, len) == 0))
            i++;
        if (i < N_VARS)
            continue;
        char name[48], known[512];
        printable(*e, name, sizeof name);
        name[strcspn(name, "=")] = '\0';
        size_t n = 0;
        known[0] = '\0';
        for (i = 0; i < N_VARS && n < sizeof known; i++) /* a longer table is cut, not overrun */
            n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", i ? " " : "", vars[i].name);
        fprintf(stderr, "walltime: ignoring unknown variable '%s' (known: %s)\n", name, known);
    }
}

void wt__env_load(void)
{
    wt__g.summary = 1;
    wt__g.signals = 1;
    wt__g.force_monotonic = 0;
    wt__g.zstd_level = DEFAULT_LEVEL;
    wt__g.compress_pct = DEFAULT_COMPRESS_PCT;
    wt__g.ring_entries = DEFAULT_RING; /* a power of two between 1 Ki and 1 Mi */
    wt__g.ring_wait_ns = DEFAULT_RING_WAIT_MS * 1000000LL;
    free(wt__g.path_template);
    wt__g.path_template = strdup(DEFAULT_TEMPLATE);
    recording_on = 1;
    /* refused values are remembered and said only when recording is on: off means quiet */
    const env_var *refused[N_VARS];
    size_t n_refused = 0;
    for (size_t i = 0; i < N_VARS; i++) {
        const char *v = getenv(vars[i].name);
        if (v && *v && vars[i].set(v) != 0)
            refused[n_refused++] = &vars[i];
    }
    if (!recording_on) {
        atomic_store(&wt__g.state, WT__ST_DISABLED);
        return;
    }
    for (size_t i = 0; i < n_refused; i++) {
        char v[48];
        printable(getenv(refused[i]->name), v, sizeof v);
        fprintf(stderr, "walltime: ignoring %s='%s': it takes %s\n", refused[i]->name, v,
                refused[i]->takes);
    }
    warn_unknown_names();
}

/* Appends s to out[*n..cap); returns -1 when it does not fit. */
static int put(char *out, size_t cap, size_t *n, const char *s, size_t len)
{
    if (*n + len + 1 > cap)
        return -1;
    memcpy(out + *n, s, len);
    *n += len;
    out[*n] = '\0';
    return 0;
}

/* Expands %p %t %h %r %% of `tmpl` into out; an unknown %x is kept as it is. %r is the rank
 * (wt__rank()), empty when the process has none: one process per rank writes one file each,
 * named by rank rather than by a pid nobody remembers. */
int wt__path_expand(const char *tmpl, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = tmpl; *p; p++) {
        char tmp[256];
        const char *s = tmp;
        size_t len;
        if (p[0] != '%' || !p[1]) {
            s = p;
            len = 1;
        } else if (p[1] == 'p') {
            len = (size_t)snprintf(tmp, sizeof tmp, "%ld", (long)getpid());
            p++;
        } else if (p[1] == 't') {
            const time_t now = time(NULL);
            struct tm tm;
            localtime_r(&now, &tm);
            len = strftime(tmp, sizeof tmp, "%Y%m%d-%H%M%S", &tm);
            p++;
        } else if (p[1] == 'h') {
            if (gethostname(tmp, sizeof tmp - 1))
                strcpy(tmp, "host");
            tmp[sizeof tmp - 1] = '\0';
            len = strlen(tmp);
            p++;
        } else if (p[1] == 'r') {
            const char *rank = wt__rank();
            s = rank ? rank : "";
            len = strlen(s);
            p++;
        } else if (p[1] == '%') {
            s = "%";
            len = 1;
            p++;
        } else {
            s = p;
            len = 1;
        }
        if (put(out, cap, &n, s, len))
            return -1;
    }
    return 0;
}

/* `base` numbered i before its extension, into out: "load.wtrace" -> "load.1.wtrace" (so a
 * directory scan for *.wtrace still finds it), "trace" and ".hidden" -> "trace.1", ".hidden.1". */
static int numbered(const char *base, unsigned i, char *out, size_t cap)
{
    const char *slash = strrchr(base, '/');
    const char *name = slash ? slash + 1 : base;
    const char *dot = strrchr(name, '.');
    const int n = !dot || dot == name ? snprintf(out, cap, "%s.%u", base, i)
                                      : snprintf(out, cap, "%.*s.%u%s", (int)(dot - base), base, i, dot);
    return n >= 0 && (size_t)n < cap ? 0 : -1; /* -1: too long (cap leaves room for 5 digits) */
}

/* Moves the regular file at `path` to its first free numbered name (numbered()), never
 * replacing a file there: 0, or -1 with errno. A file system without RENAME_NOREPLACE gets a
 * hard link and an unlink, which fail the same way on a taken name. */
static int move_aside(const char *path)
{
    char to[4096 + 16];
    for (unsigned i = 1; i <= 10000; i++) {
        if (numbered(path, i, to, sizeof to)) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int rc = renameat2(AT_FDCWD, path, AT_FDCWD, to, RENAME_NOREPLACE);
        if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
            rc = link(path, to);
            if (rc == 0 && unlink(path) != 0) {
                const int e = errno;
                (void)unlink(to);
                errno = e;
                return -1;
            }
        }
        if (rc == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

/* Creates `path` for appending, or opens it as it is when it exists and is not a regular file
 * (a device such as /dev/null or /dev/full, a FIFO): 0 with *fd; 1 when a regular file has
 * the name; -1 with errno. */
static int open_new(const char *path, int *fd)
{
    const int flags = O_WRONLY | O_APPEND | O_CLOEXEC;
    if ((*fd = open(path, flags | O_CREAT | O_EXCL, 0644)) >= 0)
        return 0;
    if (errno != EEXIST)
        return -1;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return (*fd = open(path, flags)) >= 0 ? 0 : -1;
    errno = EEXIST;
    return 1;
}

/* Opens the trace for appending, never overwriting an existing regular file: one at the path
 * is moved aside to its first free numbered name (move_aside()), so that the path holds the
 * latest run, which a CI step reading it after the run expects. With `keep_existing` (a
 * forked child, whose parent may be writing the file at the path), or when the file cannot
 * be moved, the new file takes the first free numbered name instead. Returns 0 with
 * *path_out (malloc'd) and *fd_out; or -1 with *err_out (an errno) and *path_out the name
 * that failed (malloc'd, may be NULL). */
int wt__file_open(const char *tmpl, int keep_existing, char **path_out, int *fd_out,
                  int *err_out)
{
    char base[4096], path[4096 + 16];
    *path_out = NULL;
    if (!tmpl)
        tmpl = DEFAULT_TEMPLATE; /* the environment's copy could not be allocated */
    if (wt__path_expand(tmpl, base, sizeof base)) {
        *err_out = ENAMETOOLONG;
        *path_out = strdup(tmpl);
        return -1;
    }
    snprintf(path, sizeof path, "%s", base);
    int rc = open_new(path, fd_out);
    /* a few moves at most: another process may take the name between a move and the open
     * (ranks of one template started at once), and its file is then moved in turn */
    for (int moves = 0; rc == 1 && !keep_existing && moves < 8; moves++) {
        if (move_aside(path) != 0 && errno != ENOENT)
            break; /* ENOENT: someone else moved it */
        rc = open_new(path, fd_out);
    }
    for (unsigned i = 1; rc == 1 && i <= 10000; i++) {
        if (numbered(base, i, path, sizeof path)) {
            errno = ENAMETOOLONG;
            rc = -1;
            break;
        }
        rc = open_new(path, fd_out);
    }
    if (rc == 0) {
        *path_out = strdup(path);
        return 0;
    }
    *err_out = errno;
    *path_out = strdup(path);
    return -1;
}

/* The process start on CLOCK_MONOTONIC: field 22 of /proc/self/stat is the start in clock
 * ticks since boot, and boot time is CLOCK_BOOTTIME's zero; the two clocks differ by the
 * time spent suspended, which we subtract. 0 when unknown. */
int64_t wt__process_start_ns(void)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "re");
    if (!f)
        return 0;
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* the command name may hold spaces and parentheses: fields resume after the last ')' */
    const char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    p++;
    /* after ')' come field 3 (state) ... field 22 (starttime): skip 19 fields */
    for (int field = 3; field < 22; field++) {
        while (*p == ' ')
            p++;
        while (*p && *p != ' ')
            p++;
    }
    while (*p == ' ')
        p++;
    char *end;
    const unsigned long long start = strtoull(p, &end, 10);
    const long hz = sysconf(_SC_CLK_TCK);
    if (end == p || hz <= 0)
        return 0;
    struct timespec boot, mono;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    const int64_t boot_ns = (int64_t)boot.tv_sec * 1000000000 + boot.tv_nsec;
    const int64_t mono_ns = (int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec;
    const int64_t start_boot = (int64_t)(start / (unsigned long long)hz) * 1000000000 +
                               (int64_t)(start % (unsigned long long)hz) * 1000000000 / hz;
    const int64_t r = start_boot - (boot_ns - mono_ns);
    return r > 0 ? r : 0;
}

/* /proc/self/cmdline with its NUL separators turned into spaces; NULL when unreadable. */
char *wt__cmdline(void)
{
    FILE *f = fopen("/proc/self/cmdline", "re");
    if (!f)
        return NULL;
    const size_t cap = 8192;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        return NULL;
    }
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    while (n > 0 && buf[n - 1] == '\0')
        n--;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    buf[n] = '\0';
    return buf;
}
