/* `walltime-analyze dump`: every event of the files, one per line, as text or JSON lines, for
 * reading a trace by eye or piping it into other tools. Streams; keeps nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "source.h"
#include "commands.h"
#include "json.h"

static const char *const kind_names[] = {
    "?", "span", "counter", "mark", "meta", "thread_name", "round", "sync", "end", "dropped",
};

static const char *kind_name(wt_event_kind k)
{
    return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "?";
}

static const char *cached_name(wt_cached c)
{
    return c == WT_CACHED_HIT ? "hit" : c == WT_CACHED_MISS ? "miss" : "unknown";
}

typedef struct dump_ctx {
    int json;
    const char *path;
} dump_ctx;

/* key="value" with quotes, backslashes and control bytes escaped, bytes that are not UTF-8
 * replaced by U+FFFD (as the JSON outputs do), or nothing for NULL. */
static void text_str(const char *key, const char *s)
{
    if (!s)
        return;
    printf(" %s=\"", key);
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t len = p[i] < 0x80 ? 1 : wt_json_utf8_len(p + i, n - i);
        if (p[i] == '"' || p[i] == '\\')
            printf("\\%c", p[i]);
        else if (p[i] < 0x20 || p[i] == 0x7f)
            printf("\\x%02x", p[i]);
        else if (len == 0)
            fputs("\xEF\xBF\xBD", stdout);
        else
            fwrite(p + i, 1, len, stdout);
        i += len ? len : 1;
    }
    putchar('"');
}

/* ---- the JSON fast path: spans and counters whose strings need no escaping ----
 * The general writer (json.h) makes a dozen stdio calls per event; a span line built here in
 * one buffer and written with one fwrite() is the same bytes at 4-5x the speed. Strings are
 * checked once per pointer (the reader hands out one stable pointer per distinct string for
 * the life of a file) in a small cache cleared at each file. An event with any string that
 * needs escaping (or is long) takes the general writer. */
#define PLAIN_BITS 10
#define PLAIN_MAX 1024 /* longer strings take the general writer */
static struct plain_ent {
    const char *p;
    uint32_t len; /* UINT32_MAX: needs escaping, or too long */
} plain_cache[1u << PLAIN_BITS];

/* The length of s when the JSON writer writes it as it is (wt_json_plain()), else -1. Eight
 * bytes a step: with a label per tensor every span brings a string not seen before, and a
 * byte at a time this was a sixth of `dump --json`'s instructions. */
static long plain_len(const char *s)
{
    const uint64_t h = ((uint64_t)(uintptr_t)s * 0x9E3779B97F4A7C15ull) >> (64 - PLAIN_BITS);
    struct plain_ent *e = &plain_cache[h];
    if (e->p != s) {
        const size_t n = strlen(s);
        e->p = s;
        e->len = n <= PLAIN_MAX && wt_json_plain(s, n) ? (uint32_t)n : UINT32_MAX;
    }
    return e->len == UINT32_MAX ? -1 : (long)e->len;
}

static char *put_lit(char *o, const char *lit, size_t n)
{
    memcpy(o, lit, n);
    return o + n;
}
#define PUT(o, lit) put_lit(o, lit, sizeof lit - 1)

/* Decimal, two digits per step: timestamps have 13 or more digits, and this was a third of
 * the fast path's instructions a digit at a time. */
static char *put_u64(char *o, uint64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char d[24], *e = d + sizeof d, *p = e;
    while (v >= 100) {
        const unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, pairs + 2 * r, 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, pairs + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    memcpy(o, p, (size_t)(e - p));
    return o + (e - p);
}

static char *put_i64(char *o, int64_t v)
{
    if (v < 0) {
        *o++ = '-';
        return put_u64(o, (uint64_t)0 - (uint64_t)v);
    }
    return put_u64(o, (uint64_t)v);
}

/* A string of plain_len() n (NULL: null). */
static char *put_plain(char *o, const char *s, long n)
{
    if (!s)
        return PUT(o, "null");
    *o++ = '"';
    memcpy(o, s, (size_t)n);
    o += n;
    *o++ = '"';
    return o;
}

/* The text ,"pid":P,"tid":T,"ts": of the last (pid, tid) written: a thread's events come in
 * runs, and the two numbers were a third of put_head()'s instructions. */
static struct {
    uint64_t pid, tid;
    size_t n; /* 0: none yet */
    char text[64];
} head_cache;

/* ,"pid":P,"tid":T,"ts":TS: what follows the kind in every event. */
static char *put_head(char *o, const wt_event *ev)
{
    if (head_cache.n == 0 || head_cache.pid != ev->pid || head_cache.tid != ev->tid) {
        char *t = head_cache.text;
        t = PUT(t, ",\"pid\":");
        t = put_u64(t, ev->pid);
        t = PUT(t, ",\"tid\":");
        t = put_u64(t, ev->tid);
        t = PUT(t, ",\"ts\":");
        head_cache.pid = ev->pid;
        head_cache.tid = ev->tid;
        head_cache.n = (size_t)(t - head_cache.text);
    }
    memcpy(o, head_cache.text, head_cache.n);
    return put_i64(o + head_cache.n, ev->ts);
}

/* The event's line through the fast path; 0 when it must take the general writer. */
static int event_json_fast(const wt_event *ev)
{
    char line[4 * PLAIN_MAX + 512], *o = line;
    if (ev->kind == WT_EV_SPAN) {
        const long nc = ev->category ? plain_len(ev->category) : 0,
                   nl = ev->label ? plain_len(ev->label) : 0,
                   nd = ev->detail ? plain_len(ev->detail) : 0;
        if (nc < 0 || nl < 0 || nd < 0)
            return 0;
        o = put_head(PUT(o, "{\"kind\":\"span\""), ev);
        o = PUT(o, ",\"dur\":");
        o = put_i64(o, ev->dur);
        o = PUT(o, ",\"depth\":");
        o = put_u64(o, ev->depth);
        o = PUT(o, ",\"category\":");
        o = put_plain(o, ev->category, nc);
        o = PUT(o, ",\"label\":");
        o = put_plain(o, ev->label, nl);
        o = PUT(o, ",\"cached\":\"");
        const char *c = cached_name(ev->cached);
        o = put_lit(o, c, strlen(c));
        o = PUT(o, "\",\"count\":");
        o = put_i64(o, ev->count);
        o = PUT(o, ",\"bytes\":");
        o = put_i64(o, ev->bytes);
        o = PUT(o, ",\"detail\":");
        o = put_plain(o, ev->detail, nd);
        o = (ev->flags & WT_EVF_UNCLOSED) ? PUT(o, ",\"unclosed\":true")
                                          : PUT(o, ",\"unclosed\":false");
        o = (ev->flags & WT_EVF_MEASURED) ? PUT(o, ",\"measured\":true}\n")
                                          : PUT(o, ",\"measured\":false}\n");
    } else if (ev->kind == WT_EV_COUNTER) {
        const long nn = ev->name ? plain_len(ev->name) : 0;
        if (nn < 0)
            return 0;
        o = put_head(PUT(o, "{\"kind\":\"counter\""), ev);
        o = PUT(o, ",\"name\":");
        o = put_plain(o, ev->name, nn);
        o = PUT(o, ",\"value\":");
        o = put_i64(o, ev->value);
        o = PUT(o, "}\n");
    } else {
        return 0;
    }
    fwrite_unlocked(line, 1, (size_t)(o - line), stdout);
    return 1;
}

static int on_begin(void *ctx, int fi, const char *path, const wt_trace_info *in)
{
    dump_ctx *d = ctx;
    d->path = path;
    /* a later file's strings may reuse an earlier one's addresses */
    memset(plain_cache, 0, sizeof plain_cache);
    if (d->json) {
        wt_json j;
        wt_json_init(&j, stdout, 0);
        wt_json_object_begin(&j, NULL);
        wt_json_string(&j, "kind", "header");
        wt_json_string(&j, "file", path);
        wt_json_uint(&j, "format_major", in->format_major);
        wt_json_uint(&j, "format_minor", in->format_minor);
        wt_json_uint(&j, "pid", in->pid);
        wt_json_int(&j, "process_start_ns", in->process_start_ns);
        wt_json_int(&j, "open_ns", in->open_ns);
        wt_json_string(&j, "clock", in->clock);
        wt_json_string(&j, "host", in->host);
        wt_json_string(&j, "cmdline", in->cmdline);
        wt_json_string(&j, "recorder", in->recorder);
        if (in->parent_pid) /* format 1.1: only when the file has it */
            wt_json_uint(&j, "parent_pid", in->parent_pid);
        if (in->run_id[0])
            wt_json_string(&j, "run_id", in->run_id);
        wt_json_object_end(&j);
        wt_json_finish(&j);
    } else {
        printf("# file '%s' format %u.%u pid %llu process_start_ns %lld open_ns %lld\n", path,
               in->format_major, in->format_minor, (unsigned long long)in->pid,
               (long long)in->process_start_ns, (long long)in->open_ns);
    }
    return 0;
}

static void event_json(const wt_event *ev)
{
    if (event_json_fast(ev))
        return;
    wt_json j;
    wt_json_init(&j, stdout, 0);
    wt_json_object_begin(&j, NULL);
    wt_json_string(&j, "kind", kind_name(ev->kind));
    wt_json_uint(&j, "pid", ev->pid);
    wt_json_uint(&j, "tid", ev->tid);
    wt_json_int(&j, "ts", ev->ts);
    switch (ev->kind) {
    case WT_EV_SPAN:
        wt_json_int(&j, "dur", ev->dur);
        wt_json_uint(&j, "depth", ev->depth);
        wt_json_string(&j, "category", ev->category);
        wt_json_string(&j, "label", ev->label);
        wt_json_string(&j, "cached", cached_name(ev->cached));
        wt_json_int(&j, "count", ev->count);
        wt_json_int(&j, "bytes", ev->bytes);
        wt_json_string(&j, "detail", ev->detail);
        wt_json_bool(&j, "unclosed", (ev->flags & WT_EVF_UNCLOSED) != 0);
        wt_json_bool(&j, "measured", (ev->flags & WT_EVF_MEASURED) != 0);
        break;
    case WT_EV_COUNTER:
        wt_json_string(&j, "name", ev->name);
        wt_json_int(&j, "value", ev->value);
        break;
    case WT_EV_MARK:
        wt_json_string(&j, "category", ev->category);
        wt_json_string(&j, "label", ev->label);
        wt_json_string(&j, "detail", ev->detail);
        break;
    case WT_EV_META:
        wt_json_string(&j, "key", ev->name);
        wt_json_string(&j, "value", ev->detail);
        break;
    case WT_EV_THREAD_NAME:
        wt_json_string(&j, "name", ev->name);
        break;
    case WT_EV_ROUND:
        wt_json_int(&j, "dur", ev->dur);
        wt_json_string(&j, "config", ev->name);
        wt_json_int(&j, "round", ev->count);
        break;
    case WT_EV_END:
        wt_json_string(&j, "end", ev->end == WT_END_SIGNAL ? "signal" : "clean");
        if (ev->end == WT_END_SIGNAL)
            wt_json_int(&j, "signal", ev->count);
        break;
    case WT_EV_DROPPED:
        wt_json_int(&j, "count", ev->count);
        break;
    default:
        break;
    }
    wt_json_object_end(&j);
    wt_json_finish(&j);
}

static void event_text(const wt_event *ev)
{
    printf("%lld %s pid=%llu tid=%llu", (long long)ev->ts, kind_name(ev->kind),
           (unsigned long long)ev->pid, (unsigned long long)ev->tid);
    switch (ev->kind) {
    case WT_EV_SPAN:
        printf(" dur=%lld depth=%u", (long long)ev->dur, ev->depth);
        text_str("category", ev->category);
        text_str("label", ev->label);
        printf(" cached=%s count=%lld", cached_name(ev->cached), (long long)ev->count);
        if (ev->bytes)
            printf(" bytes=%lld", (long long)ev->bytes);
        text_str("detail", ev->detail);
        if (ev->flags & WT_EVF_UNCLOSED)
            fputs(" unclosed", stdout);
        if (ev->flags & WT_EVF_MEASURED)
            fputs(" measured", stdout);
        break;
    case WT_EV_COUNTER:
        text_str("name", ev->name);
        printf(" value=%lld", (long long)ev->value);
        break;
    case WT_EV_MARK:
        text_str("category", ev->category);
        text_str("label", ev->label);
        text_str("detail", ev->detail);
        break;
    case WT_EV_META:
        text_str("key", ev->name);
        text_str("value", ev->detail);
        break;
    case WT_EV_THREAD_NAME:
        text_str("name", ev->name);
        break;
    case WT_EV_ROUND:
        printf(" dur=%lld", (long long)ev->dur);
        text_str("config", ev->name);
        printf(" round=%lld", (long long)ev->count);
        break;
    case WT_EV_END:
        if (ev->end == WT_END_SIGNAL)
            printf(" end=signal signal=%lld", (long long)ev->count);
        else
            fputs(" end=clean", stdout);
        break;
    case WT_EV_DROPPED:
        printf(" count=%lld", (long long)ev->count);
        break;
    default:
        break;
    }
    putchar('\n');
}

static int on_event(void *ctx, int fi, const wt_event *ev)
{
    const dump_ctx *d = ctx;
    if (d->json)
        event_json(ev);
    else
        event_text(ev);
    return ferror(stdout) ? WT_EIO : 0;
}

static int on_damage(void *ctx, int fi, int64_t off, const char *msg)
{
    const dump_ctx *d = ctx;
    if (d->json) {
        wt_json j;
        wt_json_init(&j, stdout, 0);
        wt_json_object_begin(&j, NULL);
        wt_json_string(&j, "kind", "damage");
        wt_json_string(&j, "file", d->path);
        wt_json_int(&j, "offset", off);
        wt_json_string(&j, "message", msg);
        wt_json_object_end(&j);
        wt_json_finish(&j);
    } else {
        printf("# damage at byte %lld: %s\n", (long long)off, msg ? msg : "");
    }
    return 0;
}

static void usage(FILE *out)
{
    fputs("usage: " WT_PROG " dump [--json] FILE.wtrace...\n"
          "\n"
          "Every event, one per line, in file order. Text: `TS KIND pid=P tid=T key=value...`\n"
          "(times in ns on the recording host's CLOCK_MONOTONIC, strings quoted), with a\n"
          "`# file` line per file and a `# damage` line where a file is damaged. --json: JSON\n"
          "lines, a {\"kind\":\"header\"} object per file, one object per event, and\n"
          "{\"kind\":\"damage\"} objects (docs/ANALYZE.md).\n"
          "\n"
          "options:\n"
          "  --json        JSON lines\n"
          "  -h, --help    this help\n"
          "\n"
          "exit status: 0 ok; 1 no file could be read, or output failed; 2 usage; 4 a file was\n"
          "damaged, or one of several could not be read\n",
          out);
}

int cmd_dump(int argc, char **argv)
{
    dump_ctx d = { 0, NULL };
    int nfiles = 0;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files)
        return WT_EXIT_FAIL;
    int status = wt_args_json_files(argc, argv, "dump", usage, &d.json, files, &nfiles);
    if (status >= 0)
        goto out;
    wt_args_stdout_buffered();
    static const wt_source_ops ops = { on_begin, on_event, on_damage, NULL, NULL, NULL };
    wt_source_result res;
    int rc = wt_source_run_raw(files, nfiles, &ops, &d, &res);
    if (rc != 0 || fflush(stdout) != 0) {
        wt_cli_error("cannot write to stdout");
        status = WT_EXIT_FAIL;
        goto out;
    }
    status = wt_source_exit_status(&res);
out:
    free(files);
    return status;
}
