/* `walltime-analyze info`: what a trace file is and whether it is whole: its header, the run
 * metadata (wt_meta pairs), counts of events per kind, threads, frames, damage, and how it
 * ended. Text, or walltime-info/1 JSON.
 * Memory: per thread counters and names, for at most WT_MAX_THREADS threads and
 * WT_MAX_NAME_BYTES of names per file (spanstat.h; the rest count in one "(other threads)"
 * row), the first few damage messages, and at most MAX_META metadata pairs of at most
 * MAX_META_BYTES each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "source.h"
#include "commands.h"
#include "json.h"
#include "signame.h"
#include "spanstat.h"

#define KINDS 10
#define MAX_DAMAGE_KEPT 8
#define MAX_META 256        /* metadata pairs kept per file; the rest are counted */
#define MAX_META_BYTES 1024 /* of a key or a value; longer ones are cut (and said so) */

static const char *const kind_names[KINDS] = {
    "?", "span", "counter", "mark", "meta", "thread_name", "round", "sync", "end", "dropped",
};

typedef struct info_thread {
    uint64_t tid;
    char *name;
    int64_t events, spans;
    int64_t first_ts, last_ts;
} info_thread;

/* One wt_meta pair; a later value of the same key replaces the earlier one. */
typedef struct info_meta {
    char *key, *value;
} info_meta;

typedef struct info_file {
    const char *path;
    /* header copies: the reader's strings die with it */
    unsigned major, minor;
    uint64_t pid;
    int64_t process_start, open, anchor_mono, anchor_real;
    double tsc_hz;
    char *clock, *host, *cmdline, *recorder;
    uint64_t parent_pid; /* format 1.1: 0, "", NULL, -1 when absent */
    char run_id[33];
    char *boot_id;
    int64_t anchor_err;
    int64_t kinds[KINDS];
    int64_t first_ts, last_ts, end_ts, dropped, unclosed;
    wt__strmap tmap;
    info_thread *threads;
    size_t n_threads, cap_threads;
    size_t last; /* threads[last] had the previous event (valid when n_threads > 0) */
    size_t name_bytes;
    info_meta meta[MAX_META];
    size_t n_meta;
    wt__strmap mmap; /* key -> index in meta */
    int64_t meta_dropped; /* pairs past MAX_META */
    char *damage[MAX_DAMAGE_KEPT];
    size_t n_damage;
    int64_t damage_total;
    wt_reader_stats st;
    int have_st;
} info_file;

typedef struct info_ctx {
    info_file *files;
    size_t n;
} info_ctx;

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static int on_begin(void *ctx, int fi, const char *path, const wt_trace_info *in)
{
    info_ctx *c = ctx;
    info_file *f = &c->files[c->n++];
    memset(f, 0, sizeof *f);
    f->path = path;
    f->major = in->format_major;
    f->minor = in->format_minor;
    f->pid = in->pid;
    f->process_start = in->process_start_ns;
    f->open = in->open_ns;
    f->anchor_mono = in->anchor_mono_ns;
    f->anchor_real = in->anchor_real_ns;
    f->tsc_hz = in->tsc_hz;
    f->clock = dup_or_null(in->clock);
    f->host = dup_or_null(in->host);
    f->cmdline = dup_or_null(in->cmdline);
    f->recorder = dup_or_null(in->recorder);
    f->parent_pid = in->parent_pid;
    memcpy(f->run_id, in->run_id, sizeof f->run_id);
    f->boot_id = dup_or_null(in->boot_id);
    f->anchor_err = in->anchor_err_ns;
    f->first_ts = INT64_MAX;
    f->last_ts = INT64_MIN;
    return 0;
}

/* The thread `tid` of file f, made on first sight. Events come in runs of one thread (a chunk
 * per thread per drain), so the previous event's thread is checked first: the map's key is
 * text, and formatting it per event was a third of `info`'s instructions. */
static info_thread *thread_find(info_file *f, uint64_t tid);

static inline info_thread *thread_of(info_file *f, uint64_t tid)
{
    if (f->n_threads && f->threads[f->last].tid == tid)
        return &f->threads[f->last];
    return thread_find(f, tid);
}

/* thread_of() past its check of the previous thread: out of line, so that its two callers
 * keep only that check inline. */
static __attribute__((noinline)) info_thread *thread_find(info_file *f, uint64_t tid)
{
    char key[24];
    int n = snprintf(key, sizeof key, "%llu", (unsigned long long)tid);
    uint32_t idx;
    if (f->n_threads >= WT_MAX_THREADS && !wt__strmap_get(&f->tmap, key, (size_t)n, &idx)) {
        tid = WT_OTHER_TID; /* past the bound: one row for the rest */
        n = snprintf(key, sizeof key, "%llu", (unsigned long long)tid);
    }
    int rc = wt__strmap_put(&f->tmap, key, (size_t)n, (uint32_t)f->n_threads, &idx, NULL);
    if (rc < 0)
        return NULL;
    if (rc == 1) {
        if (f->n_threads == f->cap_threads) {
            size_t nc = f->cap_threads ? f->cap_threads * 2 : 8;
            info_thread *nt = realloc(f->threads, nc * sizeof *nt);
            if (!nt)
                return NULL;
            f->threads = nt;
            f->cap_threads = nc;
        }
        info_thread *t = &f->threads[f->n_threads++];
        memset(t, 0, sizeof *t);
        t->tid = tid;
        if (tid == WT_OTHER_TID && !(t->name = strdup(WT_OTHER_THREADS)))
            return NULL;
        t->first_ts = INT64_MAX;
        t->last_ts = INT64_MIN;
    }
    f->last = idx;
    return &f->threads[idx];
}

/* A copy of s cut at MAX_META_BYTES (then ending in "..."); NULL when out of memory. */
static char *meta_copy(const char *s)
{
    s = s ? s : "";
    const size_t n = strnlen(s, MAX_META_BYTES + 1);
    if (n <= MAX_META_BYTES)
        return strdup(s);
    char *c = malloc(MAX_META_BYTES + 4);
    if (c) {
        memcpy(c, s, MAX_META_BYTES);
        memcpy(c + MAX_META_BYTES, "...", 4);
    }
    return c;
}

static int on_meta(info_file *f, const wt_event *ev)
{
    char *key = meta_copy(ev->name), *value = meta_copy(ev->detail);
    int rc = WT_ENOMEM;
    uint32_t idx;
    if (!key || !value)
        goto out;
    if (wt__strmap_get(&f->mmap, key, strlen(key), &idx)) {
        free(f->meta[idx].value);
        f->meta[idx].value = value;
        value = NULL;
        rc = 0;
        goto out;
    }
    if (f->n_meta == MAX_META) {
        f->meta_dropped++;
        rc = 0;
        goto out;
    }
    if ((rc = wt__strmap_put(&f->mmap, key, strlen(key), (uint32_t)f->n_meta, &idx, NULL)) < 0)
        goto out;
    f->meta[f->n_meta++] = (info_meta){ key, value };
    key = value = NULL;
    rc = 0;
out:
    free(key);
    free(value);
    return rc;
}

static int on_event(void *ctx, int fi, const wt_event *ev)
{
    info_ctx *c = ctx;
    info_file *f = &c->files[c->n - 1];
    if ((unsigned)ev->kind < KINDS)
        f->kinds[ev->kind]++;
    int64_t ref = ev->ts + (ev->kind == WT_EV_SPAN || ev->kind == WT_EV_ROUND ? ev->dur : 0);
    if (ev->ts < f->first_ts)
        f->first_ts = ev->ts;
    if (ref > f->last_ts)
        f->last_ts = ref;
    if (ev->kind == WT_EV_END) {
        f->end_ts = ev->ts;
        return 0;
    }
    if (ev->kind == WT_EV_SYNC)
        return 0;
    if (ev->kind == WT_EV_DROPPED && ev->count > 0)
        f->dropped += ev->count;
    if (ev->kind == WT_EV_SPAN && (ev->flags & WT_EVF_UNCLOSED))
        f->unclosed++;
    if (ev->kind == WT_EV_META && on_meta(f, ev) < 0)
        return WT_ENOMEM;
    info_thread *t = thread_of(f, ev->tid);
    if (!t)
        return WT_ENOMEM;
    t->events++;
    if (ev->kind == WT_EV_SPAN)
        t->spans++;
    if (ev->ts < t->first_ts)
        t->first_ts = ev->ts;
    if (ref > t->last_ts)
        t->last_ts = ref;
    if (ev->kind == WT_EV_THREAD_NAME && ev->name) {
        if (t->tid == WT_OTHER_TID || f->name_bytes + strlen(ev->name) > WT_MAX_NAME_BYTES)
            return 0; /* the folded row keeps its name; past the bytes bound names are dropped */
        f->name_bytes += strlen(ev->name);
        free(t->name);
        t->name = strdup(ev->name);
    }
    return 0;
}

/* A batch of spans and counter samples (wt_source_run_raw_counters()): what
 * on_event() counts of each of them, with their thread found once and the extents taken over
 * the batch. A sample's dur is 0, so ts + dur is the reference time of both kinds. On a trace
 * that samples counters after every span, the samples coming here rather than one event each
 * took half of `info`'s instructions off. */
static int on_spans(void *ctx, int fi, const wt_span_batch *b)
{
    info_ctx *c = ctx;
    info_file *f = &c->files[c->n - 1];
    info_thread *t = thread_of(f, b->tid);
    if (!t)
        return WT_ENOMEM;
    int64_t first = INT64_MAX, last = INT64_MIN, unclosed = 0, counters = 0;
    for (size_t i = 0; i < b->n; i++) {
        const wt_span_rec *sp = &b->spans[i];
        const int64_t ref = sp->ts + sp->dur;
        first = sp->ts < first ? sp->ts : first;
        last = ref > last ? ref : last;
        unclosed += (sp->flags & WT_EVF_UNCLOSED) != 0;
        counters += (sp->flags & WT_REC_COUNTER) != 0;
    }
    const int64_t n = (int64_t)b->n;
    f->kinds[WT_EV_SPAN] += n - counters;
    f->kinds[WT_EV_COUNTER] += counters;
    f->unclosed += unclosed;
    t->events += n;
    t->spans += n - counters;
    if (first < f->first_ts)
        f->first_ts = first;
    if (last > f->last_ts)
        f->last_ts = last;
    if (first < t->first_ts)
        t->first_ts = first;
    if (last > t->last_ts)
        t->last_ts = last;
    return 0;
}

static int on_damage(void *ctx, int fi, int64_t off, const char *msg)
{
    info_ctx *c = ctx;
    info_file *f = &c->files[c->n - 1];
    f->damage_total++;
    if (f->n_damage < MAX_DAMAGE_KEPT)
        f->damage[f->n_damage++] = strdup(msg ? msg : "");
    return 0;
}

static int on_end(void *ctx, int fi, const wt_reader_stats *st)
{
    info_ctx *c = ctx;
    info_file *f = &c->files[c->n - 1];
    f->st = *st;
    f->have_st = 1;
    return 0;
}

static const char *end_text(const info_file *f, char *buf, size_t n)
{
    if (f->st.end == WT_END_CLEAN)
        snprintf(buf, n, "clean (end record)");
    else if (f->st.end == WT_END_SIGNAL)
        snprintf(buf, n, "%s by signal %d (%s), closed from the signal handler",
                 wt_signal_is_kill(f->st.end_signal) ? "killed" : "crashed", f->st.end_signal,
                 wt_signal_name(f->st.end_signal) ? wt_signal_name(f->st.end_signal) : "?");
    else
        snprintf(buf, n, "no end record: the writer died (kill -9) or the file is cut");
    return buf;
}

static const char *end_name(wt_trace_end e)
{
    return e == WT_END_CLEAN ? "clean" : e == WT_END_SIGNAL ? "signal" : "none";
}

/* Untrusted text on one line: control characters and backslashes escaped (\n, \xHH), a byte
 * that does not start valid UTF-8 as U+FFFD (as wt_text_safe, json.h). */
static void print_plain(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t len = *p < 0x80 ? 1 : wt_json_utf8_len(p, strlen((const char *)p));
        if (len == 0)
            fputs("\xEF\xBF\xBD", stdout);
        else if (len > 1)
            fwrite(p, 1, len, stdout), p += len - 1;
        else if (*p == '\\')
            fputs("\\\\", stdout);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p < 0x20 || *p == 0x7f)
            printf("\\x%02x", *p);
        else
            putchar(*p);
    }
}


static void print_text(const info_file *f)
{
    char buf[128], safe[WT_TEXT_SAFE_MAX]; /* the trace's strings as safe text (json.h) */
    const int64_t base = f->process_start > 0 ? f->process_start : f->open;
    printf("file            %s\n", WT_TEXT_SAFE(safe, f->path));
    printf("format          %u.%u\n", f->major, f->minor);
    printf("pid             %llu\n", (unsigned long long)f->pid);
    if (f->parent_pid)
        printf("parent pid      %llu\n", (unsigned long long)f->parent_pid);
    if (f->run_id[0])
        printf("run id          %s\n", WT_TEXT_SAFE(safe, f->run_id));
    printf("host            %s\n", WT_TEXT_SAFE(safe, f->host));
    if (f->boot_id)
        printf("boot id         %s\n", WT_TEXT_SAFE(safe, f->boot_id));
    printf("command         %s\n", WT_TEXT_SAFE(safe, f->cmdline));
    printf("recorder        %s\n", WT_TEXT_SAFE(safe, f->recorder));
    printf("clock           %s", WT_TEXT_SAFE(safe, f->clock));
    if (f->tsc_hz > 0)
        printf(" (%.0f Hz)", f->tsc_hz);
    putchar('\n');
    if (f->anchor_real > 0) {
        time_t secs = (time_t)((f->anchor_real - (f->anchor_mono - base)) / 1000000000LL);
        struct tm tm;
        if (gmtime_r(&secs, &tm) && strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm))
            printf("started         %s\n", buf);
        if (f->anchor_err >= 0)
            printf("anchor read     within %lld ns\n", (long long)f->anchor_err);
    }
    if (f->n_meta)
        printf("metadata\n");
    else
        printf("metadata        none\n");
    for (size_t i = 0; i < f->n_meta; i++) {
        printf("  ");
        print_plain(f->meta[i].key);
        printf(" = ");
        print_plain(f->meta[i].value);
        putchar('\n');
    }
    if (f->meta_dropped)
        printf("  (%lld more pairs not kept)\n", (long long)f->meta_dropped);
    printf("process start   %lld ns (monotonic)\n", (long long)f->process_start);
    printf("recording from  +%.3fs\n", (double)(f->open - base) * 1e-9);
    if (f->last_ts != INT64_MIN)
        printf("last event      +%.3fs\n", (double)(f->last_ts - base) * 1e-9);
    printf("ended           %s", end_text(f, buf, sizeof buf));
    if (f->st.end != WT_END_NONE)
        printf(" at +%.3fs", (double)(f->end_ts - base) * 1e-9);
    putchar('\n');
    printf("size            %llu bytes\n", (unsigned long long)f->st.file_bytes);
    printf("frames          %llu intact", (unsigned long long)f->st.frames);
    if (f->st.frames_stored) /* the recorder's compression budget ran out: a larger file */
        printf(" (%llu stored uncompressed)", (unsigned long long)f->st.frames_stored);
    printf(", %llu damaged (%llu bytes skipped)\n", (unsigned long long)f->st.frames_damaged,
           (unsigned long long)f->st.bytes_skipped);
    printf("strings         %llu\n", (unsigned long long)f->st.strings);
    printf("events          %llu\n", (unsigned long long)f->st.events);
    for (int k = 1; k < KINDS; k++)
        if (f->kinds[k])
            printf("  %-14s%lld\n", kind_names[k], (long long)f->kinds[k]);
    if (f->dropped)
        printf("dropped         %lld events (by the recorder)\n", (long long)f->dropped);
    if (f->unclosed)
        printf("unclosed        %lld spans (open at exit or crash)\n", (long long)f->unclosed);
    printf("threads         %zu\n", f->n_threads);
    for (size_t i = 0; i < f->n_threads; i++) {
        const info_thread *t = &f->threads[i];
        printf("  %-14llu%lld events, %lld spans", (unsigned long long)t->tid,
               (long long)t->events, (long long)t->spans);
        if (t->name)
            printf(", '%s'", WT_TEXT_SAFE(safe, t->name));
        putchar('\n');
    }
    if (f->damage_total) {
        printf("damage          %lld problems\n", (long long)f->damage_total);
        for (size_t i = 0; i < f->n_damage; i++)
            printf("  %s\n", f->damage[i]);
        if ((size_t)f->damage_total > f->n_damage)
            printf("  (%lld more)\n", (long long)(f->damage_total - (int64_t)f->n_damage));
    } else {
        printf("damage          none\n");
    }
}

static void print_json_file(wt_json *j, const info_file *f)
{
    wt_json_object_begin(j, NULL);
    wt_json_string(j, "path", f->path);
    wt_json_object_begin(j, "header");
    wt_json_uint(j, "format_major", f->major);
    wt_json_uint(j, "format_minor", f->minor);
    wt_json_uint(j, "pid", f->pid);
    wt_json_int(j, "process_start_ns", f->process_start);
    wt_json_int(j, "open_ns", f->open);
    wt_json_int(j, "anchor_mono_ns", f->anchor_mono);
    wt_json_int(j, "anchor_real_ns", f->anchor_real);
    wt_json_string(j, "clock", f->clock);
    wt_json_double(j, "tsc_hz", f->tsc_hz);
    wt_json_string(j, "host", f->host);
    wt_json_string(j, "cmdline", f->cmdline);
    wt_json_string(j, "recorder", f->recorder);
    if (f->parent_pid)
        wt_json_uint(j, "parent_pid", f->parent_pid);
    if (f->run_id[0])
        wt_json_string(j, "run_id", f->run_id);
    if (f->boot_id)
        wt_json_string(j, "boot_id", f->boot_id);
    if (f->anchor_err >= 0)
        wt_json_int(j, "anchor_err_ns", f->anchor_err);
    wt_json_object_end(j);
    wt_json_object_begin(j, "meta");
    for (size_t i = 0; i < f->n_meta; i++)
        wt_json_string(j, f->meta[i].key, f->meta[i].value);
    wt_json_object_end(j);
    wt_json_int(j, "meta_dropped", f->meta_dropped);
    wt_json_object_begin(j, "end");
    wt_json_string(j, "kind", end_name(f->st.end));
    if (f->st.end == WT_END_SIGNAL)
        wt_json_int(j, "signal", f->st.end_signal);
    if (f->st.end != WT_END_NONE)
        wt_json_int(j, "ts_ns", f->end_ts);
    else
        wt_json_null(j, "ts_ns");
    wt_json_object_end(j);
    if (f->last_ts != INT64_MIN)
        wt_json_int(j, "last_event_ns", f->last_ts);
    else
        wt_json_null(j, "last_event_ns");
    wt_json_uint(j, "file_bytes", f->st.file_bytes);
    wt_json_uint(j, "frames", f->st.frames);
    wt_json_uint(j, "frames_damaged", f->st.frames_damaged);
    wt_json_uint(j, "frames_stored", f->st.frames_stored);
    wt_json_uint(j, "bytes_skipped", f->st.bytes_skipped);
    wt_json_uint(j, "strings", f->st.strings);
    wt_json_uint(j, "events", f->st.events);
    wt_json_object_begin(j, "kinds");
    for (int k = 1; k < KINDS; k++)
        wt_json_int(j, kind_names[k], f->kinds[k]);
    wt_json_object_end(j);
    wt_json_int(j, "dropped", f->dropped);
    wt_json_int(j, "unclosed", f->unclosed);
    wt_json_array_begin(j, "threads");
    for (size_t i = 0; i < f->n_threads; i++) {
        const info_thread *t = &f->threads[i];
        wt_json_object_begin(j, NULL);
        wt_json_uint(j, "tid", t->tid);
        wt_json_string(j, "name", t->name);
        wt_json_int(j, "events", t->events);
        wt_json_int(j, "spans", t->spans);
        wt_json_object_end(j);
    }
    wt_json_array_end(j);
    wt_json_object_begin(j, "damage");
    wt_json_int(j, "problems", f->damage_total);
    wt_json_array_begin(j, "messages");
    for (size_t i = 0; i < f->n_damage; i++)
        wt_json_string(j, NULL, f->damage[i]);
    wt_json_array_end(j);
    wt_json_object_end(j);
    wt_json_object_end(j);
}

static void release(info_file *f)
{
    free(f->clock);
    free(f->host);
    free(f->cmdline);
    free(f->recorder);
    free(f->boot_id);
    for (size_t i = 0; i < f->n_threads; i++)
        free(f->threads[i].name);
    free(f->threads);
    wt__strmap_release(&f->tmap);
    for (size_t i = 0; i < f->n_damage; i++)
        free(f->damage[i]);
    for (size_t i = 0; i < f->n_meta; i++) {
        free(f->meta[i].key);
        free(f->meta[i].value);
    }
    wt__strmap_release(&f->mmap);
}

static void usage(FILE *out)
{
    fputs("usage: " WT_PROG " info [--json] FILE.wtrace...\n"
          "\n"
          "What each trace is and whether it is whole: its header (format, pid, host, command,\n"
          "recorder, clock, start), the run metadata (wt_meta pairs), events per kind,\n"
          "threads, frames, damage, and how it ended (clean, killed or crashed by a signal,\n"
          "or no end record).\n"
          "\n"
          "options:\n"
          "  --json        the walltime-info/1 JSON object\n"
          "  -h, --help    this help\n"
          "\n"
          "exit status: 0 ok; 1 no file could be read; 2 usage; 4 a file was damaged, or one of\n"
          "several could not be read\n",
          out);
}

int cmd_info(int argc, char **argv)
{
    int json = 0, nfiles = 0, status = WT_EXIT_USAGE;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    info_ctx c = { calloc((size_t)argc + 1, sizeof(info_file)), 0 };
    if (!files || !c.files) {
        status = WT_EXIT_FAIL;
        goto out;
    }
    if ((status = wt_args_json_files(argc, argv, "info", usage, &json, files, &nfiles)) >= 0)
        goto out;
    static const wt_source_ops ops = { on_begin, on_event, on_damage, on_end, on_spans, NULL };
    wt_source_result res;
    status = WT_EXIT_FAIL;
    if (wt_source_run_raw_counters(files, nfiles, &ops, &c, &res) != 0) {
        wt_cli_error("info: out of memory");
        goto out;
    }
    if (res.files_ok + res.files_damaged == 0)
        goto out;
    if (json) {
        wt_json j;
        wt_json_init(&j, stdout, 1);
        wt_json_object_begin(&j, NULL);
        wt_json_string(&j, "schema", "walltime-info/1");
        wt_json_array_begin(&j, "files");
        for (size_t i = 0; i < c.n; i++)
            print_json_file(&j, &c.files[i]);
        wt_json_array_end(&j);
        wt_json_object_end(&j);
        wt_json_finish(&j);
    } else {
        for (size_t i = 0; i < c.n; i++) {
            if (i)
                putchar('\n');
            print_text(&c.files[i]);
        }
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        wt_cli_error("cannot write to stdout");
        goto out;
    }
    status = wt_source_exit_status(&res);
out:
    for (size_t i = 0; c.files && i < c.n; i++)
        release(&c.files[i]);
    free(c.files);
    free(files);
    return status;
}
