/* `walltime-analyze dump`: every event of the files, one per line, as text or JSON lines, for
 * reading a trace by eye or piping it into other tools. Streams; keeps nothing. */
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

static int on_begin(void *ctx, int fi, const char *path, const wt_trace_info *in)
{
    dump_ctx *d = ctx;
    d->path = path;
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
          "damaged\n",
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
    static const wt_source_ops ops = { on_begin, on_event, on_damage, NULL };
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
