/* What the recorder learns from its environment: the configuration variables, the trace
 * path (template expansion and the never-overwrite rule), and facts about the process from
 * the OS: its start time, command line and host. Runs at open, never on the hot path. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rec_state.h"

#define DEFAULT_TEMPLATE "walltime-%p.wtrace"
#define DEFAULT_RING 16384u /* entries per thread: see docs/RECORDER.md for the measurement */
#define DEFAULT_LEVEL 1

static int env_off(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "0") == 0;
}

void wt__env_load(void)
{
    wt__g.summary = !env_off("WALLTIME_SUMMARY");
    const char *sum = getenv("WALLTIME_SUMMARY");
    if (sum && strcmp(sum, "flat") == 0)
        wt__g.summary = WT__SUMMARY_FLAT; /* the seed's table at exit */
    wt__g.signals = !env_off("WALLTIME_SIGNALS");
    const char *clk = getenv("WALLTIME_CLOCK");
    wt__g.force_monotonic = clk && strcmp(clk, "monotonic") == 0;
    const char *lvl = getenv("WALLTIME_ZSTD_LEVEL");
    wt__g.zstd_level = DEFAULT_LEVEL;
    if (lvl && *lvl) {
        const long l = strtol(lvl, NULL, 10);
        if (l >= -7 && l <= 19)
            wt__g.zstd_level = (int)l;
    }
    /* ring size in entries, a power of two between 1 Ki and 1 Mi */
    wt__g.ring_entries = DEFAULT_RING;
    const char *ring = getenv("WALLTIME_RING");
    if (ring && *ring) {
        const unsigned long r = strtoul(ring, NULL, 10);
        if (r >= 1024 && r <= (1u << 20) && (r & (r - 1)) == 0)
            wt__g.ring_entries = (uint32_t)r;
    }
    const char *tmpl = getenv("WALLTIME_TRACE");
    free(wt__g.path_template);
    wt__g.path_template = strdup(tmpl && *tmpl ? tmpl : DEFAULT_TEMPLATE);
    if (env_off("WALLTIME") || env_off("TT_WALLTIME"))
        atomic_store(&wt__g.state, WT__ST_DISABLED);
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

/* Expands %p %t %h %% of `tmpl` into out; an unknown %x is kept as it is. */
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

/* Opens the trace for appending, never touching an existing regular file: a taken name gets
 * .1, .2, ... An existing non-regular file (a device such as /dev/null or /dev/full, a FIFO)
 * is opened as it is. Returns 0 with *path_out (malloc'd) and *fd_out; or -1 with *err_out
 * (an errno) and *path_out the name that failed (malloc'd, may be NULL). */
int wt__file_open(const char *tmpl, char **path_out, int *fd_out, int *err_out)
{
    char base[4096], path[4096 + 16];
    *path_out = NULL;
    if (wt__path_expand(tmpl, base, sizeof base)) {
        *err_out = ENAMETOOLONG;
        *path_out = strdup(tmpl);
        return -1;
    }
    const int flags = O_WRONLY | O_APPEND | O_CLOEXEC;
    snprintf(path, sizeof path, "%s", base);
    for (unsigned i = 1; i <= 10000; i++) {
        int fd = open(path, flags | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) {
            *fd_out = fd;
            *path_out = strdup(path);
            return 0;
        }
        if (errno != EEXIST)
            break;
        struct stat st;
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            fd = open(path, flags);
            if (fd < 0)
                break;
            *fd_out = fd;
            *path_out = strdup(path);
            return 0;
        }
        snprintf(path, sizeof path, "%s.%u", base, i);
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
