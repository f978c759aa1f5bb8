/* Test fixture: see tracebuild.h. Strings are found by a small hash table (a test may define
 * hundreds of thousands). */
#include "tracebuild.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "encode.h"
#include "format.h"

/* frames up to the format's largest, so the tests reach the reader's paths for big frames */
#define TB_BUF WT__FRAME_MAX

struct tb {
    FILE *f;
    char *path;
    uint64_t pid;
    int64_t process_start, open;
    char *cmdline;
    tb_origin origin; /* tb_set_origin(); host NULL: "testhost", no 1.1 fields */
    int header_written;
    int raw;
    char **strs;
    uint32_t nstr, cap;
    uint32_t *slots; /* open addressing: index + 1 into strs, 0 empty; size nslots */
    uint32_t nslots;
    uint32_t written; /* strings already in the file's frames */
    uint8_t *buf, *out;
    wt__enc enc;
    ZSTD_CCtx *cctx;
};

static void die(const char *what)
{
    fprintf(stderr, "tracebuild: %s\n", what);
    abort();
}

tb *tb_create(const char *path, uint64_t pid, int64_t process_start_ns, int64_t open_ns)
{
    tb *b = calloc(1, sizeof *b);
    if (!b)
        die("out of memory");
    b->f = fopen(path, "wb");
    if (!b->f)
        die("cannot create the trace");
    b->path = strdup(path);
    b->pid = pid;
    b->process_start = process_start_ns;
    b->open = open_ns;
    b->cmdline = strdup("tracebuild test");
    b->buf = malloc(TB_BUF);
    b->out = malloc(ZSTD_compressBound(TB_BUF) + WT__FRAME_RAW_BOUND(TB_BUF));
    b->cctx = ZSTD_createCCtx();
    if (!b->buf || !b->out || !b->cctx)
        die("out of memory");
    wt__enc_reset(&b->enc, b->buf, TB_BUF);
    return b;
}

void tb_set_raw(tb *b, int raw) { b->raw = raw; }

void tb_set_cmdline(tb *b, const char *cmdline)
{
    free(b->cmdline);
    b->cmdline = strdup(cmdline);
}

void tb_set_origin(tb *b, const tb_origin *o) { b->origin = *o; }

static void header(tb *b)
{
    if (b->header_written)
        return;
    const tb_origin *o = &b->origin;
    wt__header h = { .pid = b->pid,
                     .process_start_ns = b->process_start,
                     .open_ns = b->open,
                     .anchor_mono_ns = b->open,
                     .anchor_real_ns = (o->host ? o->real_minus_mono : 1767225600000000000LL) +
                                       b->open, /* default: 2026-01-01 + open */
                     .clock = "monotonic",
                     .host = o->host ? o->host : "testhost",
                     .cmdline = b->cmdline,
                     .recorder = "tracebuild",
                     .parent_pid = o->parent_pid,
                     .boot_id = o->boot_id,
                     .anchor_err_ns = (uint64_t)o->anchor_err_ns };
    for (int i = 0; o->run_id && i < WT__RUN_ID_LEN && o->run_id[2 * i] && o->run_id[2 * i + 1];
         i++) {
        char hex[3] = { o->run_id[2 * i], o->run_id[2 * i + 1], 0 };
        h.run_id[i] = (uint8_t)strtoul(hex, NULL, 16);
    }
    uint8_t hb[WT__HEADER_MAX + 8];
    size_t n = wt__header_frame(hb, sizeof hb, &h);
    if (!n || fwrite(hb, 1, n, b->f) != n)
        die("cannot write the header");
    b->header_written = 1;
}

void tb_frame(tb *b)
{
    header(b);
    if (b->enc.len == 0)
        return;
    size_t n = b->raw ? wt__frame_raw(b->out, WT__FRAME_RAW_BOUND(TB_BUF), b->buf, b->enc.len)
                      : wt__frame_compress(b->cctx, b->out, ZSTD_compressBound(TB_BUF), b->buf,
                                           b->enc.len);
    if (!n || fwrite(b->out, 1, n, b->f) != n)
        die("cannot write a frame");
    wt__enc_reset(&b->enc, b->buf, TB_BUF);
}

static uint64_t str_hash(const char *s) /* FNV-1a */
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

/* Puts v in the first empty slot from h's (a table of n slots, a power of two). */
static void slot_put(uint32_t *slots, uint32_t n, uint64_t h, uint32_t v)
{
    uint32_t j = (uint32_t)h & (n - 1);
    while (slots[j])
        j = (j + 1) & (n - 1);
    slots[j] = v;
}

/* The id of `s` (0 for NULL), defining it in the current frame when new. */
static uint32_t sid(tb *b, const char *s)
{
    if (!s)
        return 0;
    const uint64_t h = str_hash(s);
    for (uint32_t j = b->nslots ? (uint32_t)h & (b->nslots - 1) : 0; b->nslots && b->slots[j];
         j = (j + 1) & (b->nslots - 1))
        if (!strcmp(b->strs[b->slots[j] - 1], s))
            return b->slots[j];
    if (2 * (b->nstr + 1) > b->nslots) { /* grow to keep the load under a half */
        const uint32_t n = b->nslots ? 2 * b->nslots : 1024;
        uint32_t *ns = calloc(n, sizeof *ns);
        if (!ns)
            die("out of memory");
        for (uint32_t i = 0; i < b->nstr; i++)
            slot_put(ns, n, str_hash(b->strs[i]), i + 1);
        free(b->slots);
        b->slots = ns;
        b->nslots = n;
    }
    slot_put(b->slots, b->nslots, h, b->nstr + 1);
    if (b->nstr == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->strs = realloc(b->strs, b->cap * sizeof *b->strs);
        if (!b->strs)
            die("out of memory");
    }
    b->strs[b->nstr++] = strdup(s);
    if (wt__enc_string(&b->enc, b->nstr, s, strlen(s)) == WT_ENOSPC) {
        tb_frame(b);
        if (wt__enc_string(&b->enc, b->nstr, s, strlen(s)))
            die("string does not fit a frame");
    }
    return b->nstr;
}

/* Runs `call` and, when the frame is full, starts a new one and runs it again. */
#define TB_EMIT(b, call)                                                                   \
    do {                                                                                   \
        if ((call) == WT_ENOSPC) {                                                          \
            tb_frame(b);                                                                   \
            if ((call) != 0)                                                               \
                die("record does not fit a frame");                                        \
        }                                                                                  \
    } while (0)

void tb_span_ex(tb *b, const tb_span_desc *d)
{
    wt__span_rec s = { .start = d->start, .end = d->end, .depth = d->depth,
                       .cached = d->cached, .count = d->count ? d->count : 1, .bytes = d->bytes,
                       .unclosed = d->unclosed != 0, .measured = d->measured != 0 };
    s.category = sid(b, d->category);
    s.label = sid(b, d->label);
    s.detail = sid(b, d->detail);
    TB_EMIT(b, wt__enc_span(&b->enc, d->tid, &s));
}

void tb_span(tb *b, uint64_t tid, int64_t start, int64_t end, uint32_t depth, const char *category,
             const char *label)
{
    tb_span_desc d = { .tid = tid, .start = start, .end = end, .depth = depth,
                       .category = category, .label = label };
    tb_span_ex(b, &d);
}

void tb_counter(tb *b, uint64_t tid, int64_t ts, const char *name, int64_t value)
{
    uint32_t n = sid(b, name);
    TB_EMIT(b, wt__enc_counter(&b->enc, tid, ts, n, value));
}

void tb_mark(tb *b, uint64_t tid, int64_t ts, const char *category, const char *label,
             const char *detail)
{
    uint32_t c = sid(b, category), l = sid(b, label), d = sid(b, detail);
    TB_EMIT(b, wt__enc_mark(&b->enc, tid, ts, c, l, d));
}

void tb_redefine(tb *b, const char *s)
{
    const uint32_t id = sid(b, s);
    TB_EMIT(b, wt__enc_string(&b->enc, id, s, strlen(s)));
}

void tb_meta(tb *b, uint64_t tid, int64_t ts, const char *key, const char *value)
{
    uint32_t k = sid(b, key), v = sid(b, value);
    TB_EMIT(b, wt__enc_meta(&b->enc, tid, ts, k, v));
}

void tb_thread_name(tb *b, uint64_t tid, int64_t ts, const char *name)
{
    uint32_t n = sid(b, name);
    TB_EMIT(b, wt__enc_thread_name(&b->enc, tid, ts, n));
}

void tb_round(tb *b, uint64_t tid, int64_t start, int64_t end, const char *config, int64_t round)
{
    uint32_t c = sid(b, config);
    TB_EMIT(b, wt__enc_round(&b->enc, tid, start, end, c, round));
}

void tb_dropped(tb *b, uint64_t tid, int64_t ts, uint64_t count)
{
    TB_EMIT(b, wt__enc_dropped(&b->enc, tid, ts, count));
}

void tb_sync(tb *b, int64_t ts) { TB_EMIT(b, wt__enc_sync(&b->enc, ts)); }

void tb_close(tb *b, int end, int64_t ts, int signo)
{
    header(b);
    if (end != TB_END_NONE)
        TB_EMIT(b, wt__enc_end(&b->enc, ts, end == TB_END_CLEAN ? WT__END_CLEAN : WT__END_SIGNAL,
                               signo));
    tb_frame(b);
    if (fclose(b->f) != 0)
        die("cannot close the trace");
    for (uint32_t i = 0; i < b->nstr; i++)
        free(b->strs[i]);
    free(b->strs);
    free(b->slots);
    free(b->buf);
    free(b->out);
    free(b->path);
    free(b->cmdline);
    ZSTD_freeCCtx(b->cctx);
    free(b);
}

unsigned char *tb_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open a file to read");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc(n > 0 ? (size_t)n : 1);
    if (!d || fread(d, 1, (size_t)n, f) != (size_t)n)
        die("cannot read a file");
    fclose(f);
    *len = (size_t)n;
    return d;
}

void tb_write_file(const char *path, const unsigned char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        die("cannot write a file");
}

static char tmpdir[256];

int tb_tmpdir_enter(const char *prefix)
{
    snprintf(tmpdir, sizeof tmpdir, "%s-XXXXXX", prefix);
    return mkdtemp(tmpdir) ? 0 : -1;
}

int tb_tmpdir_leave(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

const char *tb_tmpdir(void) { return tmpdir; }

char *tb_path_in(const char *name)
{
    static char buf[4][512];
    static int k;
    char *p = buf[k++ & 3];
    snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
    return p;
}

int tb_count_files(const char *part)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, part) != NULL;
    closedir(d);
    return n;
}

int tb_frame_starts(const unsigned char *d, size_t len, size_t *at, int max)
{
    int n = 0;
    for (size_t i = 8; i + 4 <= len && n < max; i++)
        if (d[i] == 0x28 && d[i + 1] == 0xB5 && d[i + 2] == 0x2F && d[i + 3] == 0xFD)
            at[n++] = i;
    return n;
}
