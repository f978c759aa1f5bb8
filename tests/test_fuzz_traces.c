/* Hostile and damaged traces: a deterministic mutation test of the reader and of every analysis
 * that reads traces (ledger + anomalies, compare, export to Perfetto and Chrome).
 *
 * Seeds are real traces built with tracebuild (compressed and raw frames, several threads,
 * nesting, every record type, rounds, counters). A fixed-seed PRNG applies thousands of
 * mutations to them: file-level (bit flips, bytes set to 0x00/0xFF/0x80, truncation, insertion
 * and deletion, duplicated and swapped frames, huge varints, large lengths) and record-level
 * (a frame's content is decompressed, mutated and written back as a raw frame with a correct
 * XXH64 checksum, so the record parser itself sees the damage rather than the checksum).
 * Each mutant goes through the reader to the end, then through the analyses; the checks are
 * what the contracts (reader.h, ledger.h, docs/FORMAT.md) promise, stated here independently:
 * termination within a bound set by the file's size, sane events, ledger rows + untracked ==
 * wall, well-formed JSON out of the Chrome export. Memory errors and undefined behaviour are
 * the sanitizers' to catch (run this under -DWT_SANITIZE="address;undefined").
 *
 * WT_FUZZ_ITERS=N in the environment changes the number of mutants (default below); a failing
 * mutant is saved as fuzz-fail-*.wtrace in the working directory and named on stderr.
 * Known bugs, found by this test and not yet fixed, are listed in known_bug(): a mutant that
 * trips only those is counted and reported, not failed, until the fix lands (docs/FUZZING.md). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "analysis.h"
#include "compare.h"
#include "encode.h"
#include "export.h"
#include "format.h"
#include "svg.h"
#include "frame_mutate.h"
#include "tracebuild.h"
#include "trend.h"

#define MS 1000000LL
#define DEFAULT_ITERS 5000
#define DEFAULT_ITERS_SANITIZED 2000
#define MUTANT "fuzz_mutant.wtrace"
#define BASELINE "fuzz_baseline.wtrace"
#define EXPORT_OUT "fuzz_export.out"

/* ---- running a mutant in a child process ------------------------------------------------
 * Each mutant runs in a fork, its stderr (the analyses' damage reports, the sanitizers'
 * reports) going to a log file: a crash or a sanitizer abort then ends only the child, and the
 * parent classifies it by the report's place and kind (known bugs, below) or fails. */

int __lsan_do_recoverable_leak_check(void) __attribute__((weak));
void __asan_init(void) __attribute__((weak));
/* No stack traces for UBSan: symbolizing one costs 20 ms per known-bug hit, and the report's
 * first line (file:line: runtime error: ...) is what is matched. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "print_stacktrace=0"; }

#define CHILD_LOG "fuzz_child.log"
static char current[160]; /* what is being run */
static int in_child;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

/* ---- PRNG (xorshift64*, fixed seed: the same mutants on every run) ---------------------- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* ---- byte buffers ------------------------------------------------------------------------ */

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void buf_reserve(buf *b, size_t n)
{
    if (n <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < n)
        cap *= 2;
    b->p = realloc(b->p, cap);
    assert_non_null(b->p);
    b->cap = cap;
}
static void buf_set(buf *b, const uint8_t *p, size_t n)
{
    buf_reserve(b, n + 1);
    memcpy(b->p, p, n);
    b->n = n;
}
static void buf_insert(buf *b, size_t at, const uint8_t *p, size_t n)
{
    buf_reserve(b, b->n + n + 1);
    memmove(b->p + at + n, b->p + at, b->n - at);
    memcpy(b->p + at, p, n);
    b->n += n;
}
static void buf_erase(buf *b, size_t at, size_t n)
{
    if (at + n > b->n)
        n = b->n - at;
    memmove(b->p + at, b->p + at + n, b->n - at - n);
    b->n -= n;
}

/* ---- seeds ------------------------------------------------------------------------------- */

typedef struct frame_loc {
    size_t off, len;
} frame_loc;

typedef struct seed {
    const char *name;
    uint8_t *data;
    size_t len;
    frame_loc frames[64]; /* data frames (the header excluded) */
    size_t n_frames;
    /* what the intact seed holds, counted by the builder (per wt_event_kind) */
    long kinds[10];
} seed;

static void count(seed *s, wt_event_kind k, long n) { s->kinds[k] += n; }

/* One process: threads 1..nthreads, `rounds` keep/skip rounds of nested spans, with every
 * record type; a frame per round (a flush), raw or compressed. */
static void build_seed(seed *s, const char *path, uint64_t pid, int raw, int nthreads, int rounds,
                       int end)
{
    tb *b = tb_create(path, pid, 1000, 5000);
    tb_set_raw(b, raw);
    int64_t t = 10 * MS;
    for (int th = 1; th <= nthreads; th++) {
        char name[32];
        snprintf(name, sizeof name, "worker-%d", th);
        tb_thread_name(b, (uint64_t)th, t, name);
        count(s, WT_EV_THREAD_NAME, 1);
    }
    tb_meta(b, 1, t, "model", "tiny-llm");
    tb_meta(b, 1, t, "git", NULL);
    count(s, WT_EV_META, 2);
    for (int r = 0; r < rounds; r++) {
        const char *config = r % 2 ? "skip" : "keep";
        int64_t r0 = t;
        for (int th = 1; th <= nthreads; th++) {
            int64_t a = r0 + th * 100000;
            /* depth 2 inside depth 1 inside depth 0: written children first */
            tb_span_desc leaf = { .tid = (uint64_t)th, .start = a + 200000, .end = a + 500000,
                                  .depth = 2, .category = "load", .label = "w0",
                                  .detail = r % 3 ? NULL : "/models/w0.bin",
                                  .cached = r % 2 ? WT_CACHED_HIT : WT_CACHED_MISS,
                                  .count = 3, .bytes = 4096 * (r + 1) };
            tb_span_ex(b, &leaf);
            tb_span(b, (uint64_t)th, a + 600000, a + 700000, 2, "compute", NULL);
            tb_span_desc mid = { .tid = (uint64_t)th, .start = a + 100000, .end = a + 900000,
                                 .depth = 1, .category = "io", .label = "read",
                                 .measured = th == 2 };
            tb_span_ex(b, &mid);
            tb_counter(b, (uint64_t)th, a + 950000, "rss", 1000000 + r * 4096 - th);
            tb_mark(b, (uint64_t)th, a + 960000, "phase", "warm", r ? NULL : "first");
            tb_span(b, (uint64_t)th, a, a + 1000000, 0, "step", config);
            count(s, WT_EV_SPAN, 4);
            count(s, WT_EV_COUNTER, 1);
            count(s, WT_EV_MARK, 1);
        }
        t = r0 + 2 * MS;
        tb_round(b, 1, r0, t, config, r / 2);
        count(s, WT_EV_ROUND, 1);
        tb_sync(b, t);
        count(s, WT_EV_SYNC, 1);
        tb_frame(b);
    }
    tb_dropped(b, 1, t + 1, 7);
    count(s, WT_EV_DROPPED, 1);
    tb_span_desc open = { .tid = 1, .start = t + 10, .end = t + MS, .depth = 0,
                          .category = "step", .label = "shutdown", .unclosed = 1 };
    tb_span_ex(b, &open);
    count(s, WT_EV_SPAN, 1);
    tb_close(b, end, t + 2 * MS, end == TB_END_SIGNAL ? 11 : 0);
    if (end != TB_END_NONE)
        count(s, WT_EV_END, 1);

    s->data = tb_read_file(path, &s->len);
    /* the frames: after the header, one zstd frame after another */
    size_t off = 8 + wt__get_le32(s->data + 4);
    while (off < s->len) {
        size_t n = ZSTD_findFrameCompressedSize(s->data + off, s->len - off);
        assert_false(ZSTD_isError(n));
        assert_true(s->n_frames < sizeof s->frames / sizeof s->frames[0]);
        s->frames[s->n_frames++] = (frame_loc){ off, n };
        off += n;
    }
}

/* Hand-built hostile values that the format allows, each at its limit: what a mutation
 * rarely reaches by chance. */
static void build_extreme(seed *s, const char *path, int variant)
{
    const int64_t TMAX = INT64_MAX / 2 - 1; /* the latest time the reader takes */
    if (variant == 0 || variant == 3 || variant == 4 || variant == 5) {
        /* one quantity at a time at its largest (count, bytes, dropped; then counter values,
         * round numbers, ids and depth), so that one bug does not hide the next */
        tb *b = tb_create(path, variant == 5 ? UINT64_MAX : 3, 0, 1000);
        const uint64_t tid = variant == 5 ? UINT64_MAX : 1;
        tb_thread_name(b, tid, 2000, "max");
        for (int i = 0; i < 3; i++) {
            tb_span_desc d = { .tid = tid, .start = 3000 + i * 10, .end = 3005 + i * 10,
                               .depth = variant == 5 ? UINT32_MAX : 0, .category = "load",
                               .label = "w", .cached = WT_CACHED_MISS,
                               .count = variant == 0 ? INT64_MAX : 1,
                               .bytes = variant == 3 ? INT64_MAX : 0 };
            tb_span_ex(b, &d);
        }
        if (variant == 4) {
            tb_dropped(b, tid, 4003, INT64_MAX);
            tb_dropped(b, tid, 4004, INT64_MAX);
            tb_dropped(b, 0, 4005, INT64_MAX);
        }
        if (variant == 5) {
            tb_span(b, 0, 3000, 4000, 0, "load", "w");
            tb_counter(b, tid, 4000, "c", INT64_MAX);
            tb_counter(b, tid, 4001, "c", INT64_MIN);
            tb_counter(b, tid, 4002, "c", INT64_MAX);
            tb_round(b, 1, 5000, 6000, "keep", INT64_MAX);
            tb_round(b, 1, 6000, 7000, "skip", INT64_MIN);
            tb_round(b, 1, 7000, 8000, "keep", INT64_MIN);
            tb_round(b, 1, 8000, 9000, "skip", INT64_MAX);
        }
        tb_close(b, TB_END_SIGNAL, 10000, 128);
    } else if (variant == 1) {
        /* times at the far end of the range: spans as long as the range, rounds too */
        tb *b = tb_create(path, 1, 0, 1LL << 61);
        tb_set_raw(b, 1);
        tb_span(b, 1, 0, TMAX, 0, "all", "of time");
        tb_span(b, 2, 0, TMAX, 0, "all", "again");
        tb_span(b, 2, TMAX - 1, TMAX, 1, "tail", NULL);
        /* children as long as the range, several: their sum is past int64 */
        for (int k = 0; k < 4; k++)
            tb_span(b, 3, 0, TMAX, 1, "child", "long");
        tb_span(b, 3, 0, TMAX, 0, "parent", "long");
        for (int k = 0; k < 4; k++)
            tb_span(b, 3, 0, TMAX, 0, "parent", "again");
        tb_counter(b, 1, TMAX, "c", 1);
        tb_mark(b, 1, TMAX, "m", "end", NULL);
        tb_round(b, 1, 0, TMAX, "keep", 0);
        tb_round(b, 1, TMAX - 1, TMAX, "skip", 0);
        tb_sync(b, TMAX);
        tb_close(b, TB_END_CLEAN, TMAX, 0);
    } else {
        /* span counts and bytes below 1 and 0, which the encoder writes (zigzag) */
        tb *b = tb_create(path, 7, 1000, 2000);
        int64_t counts[] = { 0, -1, INT64_MIN, INT64_MIN + 1, INT64_MAX };
        for (int i = 0; i < 5; i++) {
            tb_span_desc d = { .tid = 1, .start = 3000 + i * 100, .end = 3050 + i * 100,
                               .category = "load", .label = "w", .cached = WT_CACHED_HIT,
                               .count = counts[i], .bytes = counts[4 - i] };
            tb_span_ex(b, &d);
        }
        tb_round(b, 1, 2500, 4000, "keep", 0);
        tb_round(b, 1, 4000, 5000, "keep", 1);
        tb_close(b, TB_END_NONE, 0, 0);
    }
    s->data = tb_read_file(path, &s->len);
    size_t off = 8 + wt__get_le32(s->data + 4);
    while (off < s->len) {
        size_t n = ZSTD_findFrameCompressedSize(s->data + off, s->len - off);
        assert_false(ZSTD_isError(n));
        s->frames[s->n_frames++] = (frame_loc){ off, n };
        off += n;
    }
}

/* ---- mutations ----------------------------------------------------------------------------- */

static const uint8_t huge_varint[10] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 };

/* Mutates a record buffer or a whole file alike: the byte-level operations. */
static const char *mutate_bytes(buf *m, size_t lo)
{
    static const uint8_t special[] = { 0x00, 0xFF, 0x80, 0x7F, 0x01 };
    if (m->n <= lo)
        lo = 0;
    size_t span = m->n - lo;
    size_t at = lo + below(span);
    switch (below(9)) {
    case 0:
        if (span)
            m->p[at] ^= (uint8_t)(1u << below(8));
        return "bit flip";
    case 1:
        if (span)
            m->p[at] = special[below(sizeof special)];
        return "byte set";
    case 2:
        m->n = lo + below(span + 1);
        return "truncation";
    case 3: {
        uint8_t ins[16];
        size_t n = 1 + below(sizeof ins);
        for (size_t i = 0; i < n; i++)
            ins[i] = (uint8_t)rnd();
        buf_insert(m, at, ins, n);
        return "insertion";
    }
    case 4:
        buf_erase(m, at, 1 + below(32));
        return "deletion";
    case 5:
        buf_insert(m, at, huge_varint, 1 + below(sizeof huge_varint));
        return "huge varint inserted";
    case 6:
        if (span >= 10 && at + 10 <= m->n) {
            memcpy(m->p + at, huge_varint, 10);
            if (below(2))
                m->p[at + 9] = 0x7F; /* over 64 bits */
        }
        return "huge varint written";
    case 7:
        if (at + 4 <= m->n)
            wt__put_le32(m->p + at, below(2) ? 0xFFFFFFFFu : 0x7FFFFFFFu >> below(31));
        return "le32 set large";
    default:
        if (span >= 2) {
            size_t a = lo + below(span), n = 1 + below(span / 2);
            if (a + n > m->n)
                n = m->n - a;
            uint8_t tmp[256];
            if (n > sizeof tmp)
                n = sizeof tmp;
            memcpy(tmp, m->p + a, n);
            buf_insert(m, lo + below(span), tmp, n);
        }
        return "range duplicated";
    }
}

/* The content of frame `f` of the seed (decompressed), or 0 bytes when it does not decode. */
static void frame_content(const seed *s, size_t f, buf *out)
{
    const uint8_t *p = s->data + s->frames[f].off;
    size_t n = s->frames[f].len;
    unsigned long long size = ZSTD_getFrameContentSize(p, n);
    assert_true(size <= WT__FRAME_MAX);
    buf_reserve(out, (size_t)size + 1);
    size_t got = ZSTD_decompress(out->p, (size_t)size + 1, p, n);
    assert_false(ZSTD_isError(got));
    out->n = got;
}

/* Record-level: mutates one frame's content and writes it back as a raw frame with a correct
 * content checksum, so the damage reaches the record parser. Varint fields get large values
 * with the right shape more often than random bytes would give them. */
static const char *mutate_records(const seed *s, buf *m)
{
    size_t f = below(s->n_frames);
    buf content = { 0 }, framed = { 0 };
    frame_content(s, f, &content);
    const char *what = "record bytes";
    int rounds = 1 + (int)below(3);
    for (int i = 0; i < rounds; i++) {
        if (below(3) == 0 && content.n > 2) {
            /* a varint after a type byte (most records start so) gets a big value */
            size_t at = below(content.n - 1) + 1;
            uint8_t v[10];
            uint64_t big = below(2) ? (uint64_t)INT64_MAX : (1ull << (40 + below(24)));
            if (below(4) == 0)
                big = UINT64_MAX;
            size_t n = wt__put_varint(v, big);
            buf_erase(&content, at, 1);
            buf_insert(&content, at, v, n);
            what = "record varint set large";
        } else {
            what = mutate_bytes(&content, 0);
        }
        static char desc[128]; /* room for the longest description and a 20-digit frame */
        snprintf(desc, sizeof desc, "record-level %s in frame %zu", what, f);
        what = desc;
    }
    buf_reserve(&framed, WT__FRAME_RAW_BOUND(content.n + 1));
    framed.n = wt__frame_raw(framed.p, framed.cap, content.p ? content.p : (const uint8_t *)"",
                             content.n);
    buf_set(m, s->data, s->frames[f].off);
    buf_insert(m, m->n, framed.p, framed.n);
    size_t rest = s->frames[f].off + s->frames[f].len;
    buf_insert(m, m->n, s->data + rest, s->len - rest);
    free(content.p);
    free(framed.p);
    return what;
}

/* Frame-level: duplicated or swapped frames, a frame's declared size set large. */
static const char *mutate_frames(const seed *s, buf *m)
{
    buf_set(m, s->data, s->len);
    const frame_loc a = s->frames[below(s->n_frames)], b = s->frames[below(s->n_frames)];
    switch (below(4)) {
    case 0: {
        size_t at = below(2) ? a.off + a.len : b.off;
        buf_insert(m, at, s->data + a.off, a.len);
        return "frame duplicated";
    }
    case 1:
        if (a.off != b.off) {
            const frame_loc x = a.off < b.off ? a : b, y = a.off < b.off ? b : a;
            buf_set(m, s->data, x.off);
            buf_insert(m, m->n, s->data + y.off, y.len);
            buf_insert(m, m->n, s->data + x.off + x.len, y.off - x.off - x.len);
            buf_insert(m, m->n, s->data + x.off, x.len);
            buf_insert(m, m->n, s->data + y.off + y.len, s->len - y.off - y.len);
        }
        return "frames swapped";
    case 2:
        /* the frame's content size field (raw frames: 8 bytes after the descriptor) */
        if (a.len > 13 && m->p[a.off + 4] == 0xE4) {
            uint64_t v = below(2) ? (uint64_t)WT__FRAME_MAX + 1 : UINT64_MAX >> below(64);
            for (int i = 0; i < 8; i++)
                m->p[a.off + 5 + i] = (uint8_t)(v >> (8 * i));
        } else {
            m->p[a.off + 4] = (uint8_t)rnd(); /* the frame header descriptor */
        }
        return "frame size set large";
    default:
        /* the header's payload size, or a skippable frame of a hostile size in between, or
         * the start of one cut by the end of the file */
        if (below(3) == 0) {
            uint8_t tail[8] = { 0 };
            wt__put_le32(tail, 0x184D2A50u + (uint32_t)below(16));
            buf_insert(m, m->n, tail, 4 + below(4));
        } else if (below(2)) {
            wt__put_le32(m->p + 4, below(2) ? 0xFFFFFFFFu : (uint32_t)below(70000));
        } else {
            uint8_t skip[8];
            wt__put_le32(skip, 0x184D2A50u + (uint32_t)below(16));
            wt__put_le32(skip + 4, below(2) ? 0xFFFFFFF0u : (uint32_t)below(64));
            buf_insert(m, a.off, skip, sizeof skip);
        }
        return "hostile size field";
    }
}

static uint64_t fm_rand(void *ctx) { return rnd(); }

/* The byte-level operations on one frame's content, for wt_fm_mutate(). */
static void fm_bytes(void *ctx, uint8_t *content, size_t *n, size_t max)
{
    buf b = { 0 };
    buf_set(&b, content, *n);
    mutate_bytes(&b, 0);
    *n = b.n < max ? b.n : max;
    memcpy(content, b.p, *n);
    free(b.p);
}

/* Frame structure (fuzz/frame_mutate.h): empty and skippable frames at boundaries, records
 * split across frames, frames merged, dropped, repeated; one to three of them stacked. */
static const char *mutate_structure(const seed *s, buf *m)
{
    buf_set(m, s->data, s->len);
    const char *what = NULL;
    const int n = 1 + (int)below(3);
    for (int i = 0; i < n; i++) {
        buf_reserve(m, m->n + (64u << 10));
        m->n = wt_fm_mutate(m->p, m->n, m->cap, fm_rand, fm_bytes, NULL, &what);
    }
    static char desc[96];
    snprintf(desc, sizeof desc, "structure: %s%s", what, n > 1 ? " (and more)" : "");
    return desc;
}

static const char *mutate(const seed *s, buf *m)
{
    switch (below(10)) {
    case 0:
    case 1:
    case 2:
        return mutate_records(s, m);
    case 3:
        return mutate_frames(s, m);
    case 4:
    case 5:
        return mutate_structure(s, m);
    default: {
        buf_set(m, s->data, s->len);
        const char *what = NULL;
        int n = 1 + (below(3) == 0 ? (int)below(4) : 0);
        for (int i = 0; i < n; i++)
            what = mutate_bytes(m, below(4) ? 8 : 0); /* mostly past the header's magic */
        return n > 1 ? "stacked byte mutations" : what;
    }
    }
}

/* ---- checks -------------------------------------------------------------------------------- */

/* Known bugs, found by this test and not fixed yet: a mutant whose only problems are these is
 * counted, not failed, until the fix lands (docs/FUZZING.md has each one's details and fix).
 * `key` names a failed check of this file; or, for a sanitizer report, `file` and `what` are
 * matched against the report's first "runtime error"/"ERROR" line. */
typedef struct known {
    const char *key, *file, *what, *bug;
    long hits;
} known;
static known known_bugs[] = {
    { NULL, NULL, NULL, NULL, 0 },
};

static long failures;
static long mutant_index;

/* In a child: a line for the parent ("fuzz: FAIL ..." or "fuzz: KNOWN key"). */
static void check_failed(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check_failed(const char *key, const char *fmt, ...)
{
    for (known *k = known_bugs; k->key; k++) {
        if (!strcmp(k->key, key)) {
            if (!k->hits++ && in_child)
                say("fuzz: KNOWN %s\n", key);
            return;
        }
    }
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    say("fuzz: FAIL [%s] %s: %s\n", key, current, msg);
    failures++;
}

#define CHECK(key, cond, ...)                                                                  \
    do {                                                                                       \
        if (!(cond))                                                                           \
            check_failed(key, __VA_ARGS__);                                                    \
    } while (0)

static void check_string(const char *key, const char *s)
{
    if (s)
        CHECK(key, strlen(s) <= WT__STRING_MAX, "string of %zu bytes", strlen(s));
}

/* The reader to the end: returns the number of events. */
static long run_reader(const char *path, size_t file_len, long kinds[10], int *damaged)
{
    wt_reader *r = NULL;
    long events = 0, errors = 0;
    char last_msg[512] = "";
    *damaged = 0;
    int rc = wt_reader_open(path, &r);
    if (rc < 0) {
        CHECK("reader-open-message", r && *wt_reader_error(r), "open failed without a message");
        wt_reader_free(r);
        *damaged = 1;
        return -1;
    }
    /* Every event takes at least one byte of some frame's content, and a frame holds at most
     * WT__FRAME_MAX bytes from at least 4 bytes of the file (its magic): so this bounds the
     * calls of a reader that terminates, whatever the file says. */
    const long bound = (long)((file_len / 4 + 1) * (uint64_t)WT__FRAME_MAX / 2 + file_len + 2000);
    long calls = 0;
    wt_event ev;
    for (;;) {
        if (++calls > bound) {
            CHECK("reader-terminates", 0, "over %ld calls of wt_reader_next() for %zu bytes",
                  bound, file_len);
            break;
        }
        int n = wt_reader_next(r, &ev);
        if (n == 0)
            break;
        if (n < 0) {
            errors++;
            *damaged = 1;
            const char *msg = wt_reader_error(r);
            int64_t off = wt_reader_error_offset(r);
            CHECK("reader-error-message", msg && !strncmp(msg, "'", 1) && strstr(msg, "': at byte "),
                  "error message '%s'", msg ? msg : "(null)");
            CHECK("reader-error-offset", off >= 0 && (uint64_t)off <= file_len,
                  "error offset %lld in a file of %zu bytes", (long long)off, file_len);
            /* damage is reported once, then the reader goes on past it */
            CHECK("reader-error-repeats", strcmp(msg, last_msg) != 0,
                  "the same error twice in a row: %s", msg);
            snprintf(last_msg, sizeof last_msg, "%s", msg);
            continue;
        }
        events++;
        CHECK("event-kind", ev.kind >= WT_EV_SPAN && ev.kind <= WT_EV_DROPPED, "kind %d", ev.kind);
        if (ev.kind >= WT_EV_SPAN && ev.kind <= WT_EV_DROPPED)
            kinds[ev.kind]++;
        CHECK("event-time", ev.ts >= 0 && ev.dur >= 0 && ev.ts <= INT64_MAX / 2 - ev.dur,
              "ts %lld dur %lld", (long long)ev.ts, (long long)ev.dur);
        CHECK("event-dur-kind", ev.dur == 0 || ev.kind == WT_EV_SPAN || ev.kind == WT_EV_ROUND,
              "dur %lld on kind %d", (long long)ev.dur, ev.kind);
        CHECK("event-cached", ev.cached >= WT_CACHED_UNKNOWN && ev.cached <= WT_CACHED_MISS,
              "cached %d", ev.cached);
        CHECK("event-flags", (ev.flags & ~(WT_EVF_UNCLOSED | WT_EVF_MEASURED)) == 0, "flags %x",
              ev.flags);
        if (ev.kind == WT_EV_SPAN)
            CHECK("span-count", ev.count >= 1, "span count %lld (reader.h: >= 1)",
                  (long long)ev.count);
        if (ev.kind == WT_EV_END)
            CHECK("end-reason", ev.end == WT_END_CLEAN || ev.end == WT_END_SIGNAL, "end %d", ev.end);
        if (ev.kind == WT_EV_DROPPED)
            CHECK("dropped-count", ev.count >= 0, "dropped %lld", (long long)ev.count);
        check_string("event-string", ev.category);
        check_string("event-string", ev.label);
        check_string("event-string", ev.name);
        check_string("event-string", ev.detail);
    }
    /* after the end, the end again */
    CHECK("reader-end-sticky", wt_reader_next(r, &ev) == 0, "a call after 0 did not return 0");
    wt_reader_stats st;
    wt_reader_get_stats(r, &st);
    CHECK("stats-events", st.events == (uint64_t)events, "stats.events %llu, delivered %ld",
          (unsigned long long)st.events, events);
    CHECK("stats-errors", st.errors == (uint64_t)errors, "stats.errors %llu, returned %ld",
          (unsigned long long)st.errors, errors);
    CHECK("stats-errors-capped", errors <= 1000, "%ld errors (docs/FORMAT.md: at most 1000)", errors);
    CHECK("stats-skipped", st.bytes_skipped <= file_len, "%llu bytes skipped of %zu",
          (unsigned long long)st.bytes_skipped, file_len);
    wt_reader_free(r);
    return events;
}

static int near(double a, double b) { return a == b || __builtin_fabs(a - b) <= 1e-6 * (__builtin_fabs(a) + __builtin_fabs(b)) + 1e-9; }

static void check_ledger(const wt_ledger_result *L)
{
    CHECK("ledger-finite", L->wall == L->wall && L->untracked == L->untracked, "NaN wall/untracked");
    CHECK("ledger-nonneg", L->wall >= 0 && L->untracked >= 0 && L->tracked >= 0 && L->covered >= 0,
          "wall %g tracked %g untracked %g covered %g", L->wall, L->tracked, L->untracked,
          L->covered);
    CHECK("ledger-busy-nonneg", L->busy >= 0, "busy %g s", L->busy);
    double rows = 0;
    for (size_t i = 0; i < L->n_cats; i++) {
        CHECK("ledger-row-nonneg", L->cats[i].seconds >= 0, "row %zu: %g s", i, L->cats[i].seconds);
        rows += L->cats[i].seconds;
        check_string("ledger-string", L->cats[i].name);
    }
    CHECK("ledger-reconciles", near(rows + L->untracked, L->wall), "rows %.9g + untracked %.9g != wall %.9g",
          rows, L->untracked, L->wall);
}

/* A strict JSON syntax check (RFC 8259): no control characters in strings, no NaN. */
typedef struct jp {
    const char *p, *end;
    int depth;
} jp;
static void jws(jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}
static int jvalue(jp *j);
static int jstring(jp *j)
{
    if (j->p >= j->end || *j->p != '"')
        return 0;
    for (j->p++; j->p < j->end; j->p++) {
        unsigned char c = (unsigned char)*j->p;
        if (c == '"') {
            j->p++;
            return 1;
        }
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            if (++j->p >= j->end || !strchr("\"\\/bfnrtu", *j->p))
                return 0;
        }
    }
    return 0;
}
static int jnumber(jp *j)
{
    const char *s = j->p;
    if (j->p < j->end && *j->p == '-')
        j->p++;
    int digits = 0;
    while (j->p < j->end && (strchr("0123456789", *j->p) && *j->p)) {
        j->p++;
        digits++;
    }
    if (j->p < j->end && *j->p == '.')
        for (j->p++; j->p < j->end && *j->p >= '0' && *j->p <= '9'; j->p++)
            ;
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
            j->p++;
    }
    return digits > 0 && j->p > s;
}
static int jvalue(jp *j)
{
    jws(j);
    if (j->p >= j->end || ++j->depth > 200)
        return 0;
    int ok = 1;
    char c = *j->p;
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->p++;
        jws(j);
        if (j->p < j->end && *j->p == close) {
            j->p++;
        } else {
            for (;;) {
                if (c == '{') {
                    jws(j);
                    if (!jstring(j))
                        return 0;
                    jws(j);
                    if (j->p >= j->end || *j->p++ != ':')
                        return 0;
                }
                if (!jvalue(j))
                    return 0;
                jws(j);
                if (j->p < j->end && *j->p == ',') {
                    j->p++;
                    continue;
                }
                if (j->p < j->end && *j->p == close) {
                    j->p++;
                    break;
                }
                return 0;
            }
        }
    } else if (c == '"') {
        ok = jstring(j);
    } else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
        j->p += 4;
    } else if (!strncmp(j->p, "false", 5)) {
        j->p += 5;
    } else {
        ok = jnumber(j);
    }
    j->depth--;
    return ok;
}

static void check_chrome_json(void)
{
    size_t n;
    unsigned char *d = tb_read_file(EXPORT_OUT, &n);
    jp j = { (const char *)d, (const char *)d + n, 0 };
    int ok = n > 0 && jvalue(&j);
    jws(&j);
    CHECK("chrome-json", ok && j.p == j.end, "not valid JSON near byte %zu of %zu",
          (size_t)(j.p - (const char *)d), n);
    free(d);
}

/* ---- the analyses ---------------------------------------------------------------------------- */

typedef struct cmp_ctx {
    wt_compare *c;
    int side;
} cmp_ctx;
static int cmp_begin(void *p, int fi, const char *path, const wt_trace_info *info)
{
    cmp_ctx *x = p;
    int rc = wt_compare_file_begin(x->c, x->side, path, info);
    return rc < 0 && rc != WT_ELIMIT ? rc : 0;
}
static int cmp_event(void *p, int fi, const wt_event *ev)
{
    cmp_ctx *x = p;
    return x->c->cur_file < 0 ? 0 : wt_compare_event(x->c, ev);
}
static int cmp_end(void *p, int fi, const wt_reader_stats *st)
{
    cmp_ctx *x = p;
    return x->c->cur_file < 0 ? 0 : wt_compare_file_end(x->c);
}

/* compare as the command drives it: pass 1 by the source driver, pass 2 by a reader per file,
 * then every report. runs: mutant against the intact seed (two sides); else rounds mode. */
static void run_compare(int runs, FILE *devnull)
{
    wt_compare_opts o = { .runs = runs, .discard = (int)below(2) };
    wt_compare *c = wt_compare_create(&o);
    assert_non_null(c);
    char *a[1] = { BASELINE }, *b[1] = { MUTANT };
    wt_source_ops ops = { .file_begin = cmp_begin, .event = cmp_event, .file_end = cmp_end };
    wt_source_result res;
    int rc = 0;
    if (runs) {
        cmp_ctx x0 = { c, 0 };
        rc = wt_source_run(a, 1, &ops, &x0, &res);
    }
    cmp_ctx x1 = { c, runs ? 1 : 0 };
    if (rc == 0)
        rc = wt_source_run(b, 1, &ops, &x1, &res);
    CHECK("compare-pass1", rc == 0, "pass 1 returned %d", rc);
    for (size_t i = 0; rc == 0 && i < c->n_files; i++) {
        wt_reader *r = NULL;
        if (wt_reader_open(c->files[i].path, &r) < 0) {
            wt_reader_free(r);
            continue;
        }
        rc = wt_compare_file_resume(c, (int)i);
        wt_event ev;
        int n, errors = 0;
        while (rc == 0 && (n = wt_reader_next(r, &ev)) != 0) {
            if (n < 0) {
                if (++errors > 100000)
                    break;
                continue;
            }
            rc = wt_compare_event(c, &ev);
        }
        wt_reader_free(r);
    }
    CHECK("compare-pass2", rc == 0, "pass 2 returned %d", rc);
    if (rc == 0 && (rc = wt_compare_finish(c)) == 0) {
        CHECK("compare-configs", wt_compare_n_configs(c) <= WT_CMP_MAX_CONFIGS, "%zu configs",
              wt_compare_n_configs(c));
        CHECK("compare-text", wt_compare_write_text(c, devnull) == 0, "text report failed");
        CHECK("compare-json", wt_compare_write_json(c, devnull, 1) == 0, "json report failed");
        CHECK("compare-svg", wt_svg_write(c, devnull) == 0, "svg failed");
    } else {
        CHECK("compare-finish", rc == 0, "finish returned %d", rc);
    }
    wt_compare_free(c);
}

static void run_export(int no_analysis)
{
    char *paths[1] = { MUTANT };
    for (int fmt = 0; fmt < 2; fmt++) {
        wt_export_opts eo = { .format = fmt ? WT_EXPORT_CHROME : WT_EXPORT_PERFETTO,
                              .no_analysis = no_analysis };
        wt_export_report rep;
        int rc = wt_export_to_path(paths, 1, &eo, EXPORT_OUT, &rep);
        CHECK("export", rc == 0, "export %s returned %d", fmt ? "chrome" : "perfetto", rc);
        if (rc == 0 && fmt && rep.written)
            check_chrome_json();
        unlink(EXPORT_OUT);
    }
}

/* trend over the mutant and the baseline (two runs, read by two threads), text or JSON. */
static void run_trend(FILE *devnull, int json)
{
    char *paths[2] = { MUTANT, BASELINE };
    wt_trend_opts o = { .keys = { "host" }, .n_keys = 1, .threads = 2, .json = json };
    wt_cp_opts_default(&o.cp);
    wt_trend *t = NULL;
    const int rc = wt_trend_run(paths, 2, &o, devnull, &t);
    CHECK("trend", rc == 0, "wt_trend_run returned %d", rc);
    wt_trend_free(t);
}

/* Every analysis; those that do not use the ledger first, so that a ledger bug (which ends
 * the child under a sanitizer) does not hide what comes after it. `i` alternates the variants
 * (compare's two modes, export with and without the analyses) to halve the time per mutant. */
static void run_analyses(FILE *devnull, long i)
{
    const int with_baseline = i % 4 == 0;
    run_compare((int)(i & 1), devnull);
    run_trend(devnull, (int)(i & 1));
    if (i & 2)
        run_export(1);

    char *paths[1] = { MUTANT };
    wt_budget budget = { "load", 0.000001, 0, 0 };
    wt_anomaly_opts ao;
    wt_anomaly_opts_init(&ao);
    ao.budgets = &budget;
    ao.n_budgets = 1;
    wt_analysis_opts o = { .anomalies = &ao, .baseline = with_baseline ? BASELINE : NULL };
    wt_analysis a;
    int rc = wt_analysis_run(paths, 1, &o, &a);
    CHECK("analysis-run", rc == 0 || rc == WT_EOPEN, "wt_analysis_run returned %d", rc);
    if (rc == 0) {
        const wt_ledger_result *L = wt_ledger_calc_result(a.lc);
        check_ledger(L);
        size_t n;
        const wt_anomaly *list = wt_anomalies_list(a.an, &n);
        for (size_t k = 0; k < n; k++) {
            CHECK("anomaly-text", list[k].text != NULL, "anomaly %zu without text", k);
            check_string("anomaly-string", list[k].category);
        }
        CHECK("ledger-text", wt_ledger_calc_render_text(a.lc, devnull, NULL, 0) == 0,
              "render text failed");
        wt_json j;
        wt_json_init(&j, devnull, 1);
        wt_json_object_begin(&j, NULL);
        wt_ledger_calc_render_json(a.lc, &j, "ledger");
        wt_json_object_end(&j);
        wt_json_finish(&j);
    }
    wt_analysis_release(&a);
    if (!(i & 2))
        run_export(0);
}

/* ---- the tests ------------------------------------------------------------------------------- */

#define N_EXTREME 6
#define N_SEEDS (3 + N_EXTREME) /* 3 realistic, then the extreme ones */
static seed seeds[N_SEEDS];

static int setup(void **state)
{
    build_seed(&seeds[0], "fuzz_seed0.wtrace", 4242, 0, 3, 6, TB_END_CLEAN);
    seeds[0].name = "compressed, 3 threads, clean end";
    build_seed(&seeds[1], "fuzz_seed1.wtrace", 777, 1, 2, 4, TB_END_SIGNAL);
    seeds[1].name = "raw, 2 threads, signal end";
    build_seed(&seeds[2], "fuzz_seed2.wtrace", 99, 1, 1, 2, TB_END_NONE);
    seeds[2].name = "raw, 1 thread, no end";
    for (int v = 0; v < N_EXTREME; v++) {
        static const char *const names[] = { "extreme span counts", "extreme times",
                                             "span counts below 1", "extreme span bytes",
                                             "extreme dropped counts",
                                             "extreme counters, rounds, ids and depth" };
        char path[64];
        snprintf(path, sizeof path, "fuzz_extreme%d.wtrace", v);
        build_extreme(&seeds[3 + v], path, v);
        seeds[3 + v].name = names[v];
    }
    return 0;
}

static int teardown(void **state)
{
    for (size_t i = 0; i < N_SEEDS; i++)
        free(seeds[i].data);
    return 0;
}

/* The seeds themselves: everything the builder wrote comes back, intact, with no damage. */
static void test_fuzz_seeds_read_back_intact(void **state)
{
    FILE *devnull = fopen("/dev/null", "w");
    assert_non_null(devnull);
    for (size_t i = 0; i < 3; i++) {
        const seed *s = &seeds[i];
        tb_write_file(MUTANT, s->data, s->len);
        tb_write_file(BASELINE, s->data, s->len);
        snprintf(current, sizeof current, "seed %zu (%s)", i, s->name);
        long kinds[10] = { 0 };
        int damaged;
        long events = run_reader(MUTANT, s->len, kinds, &damaged);
        assert_false(damaged);
        long want = 0;
        for (int k = 0; k < 10; k++) {
            assert_int_equal(kinds[k], s->kinds[k]);
            want += s->kinds[k];
        }
        assert_int_equal(events, want);
        for (long v = 0; v < 4; v++)
            run_analyses(devnull, v);
        assert_int_equal(failures, 0);
    }
    fclose(devnull);
}

/* When set: "mutant" i is the saved reproducer replay[i] (tests/data/fuzz), as it is. */
static glob_t replay;
static int replaying;

/* Mutant i: the same bytes on every run (the PRNG is seeded from i alone). */
static const char *gen_mutant(long i, buf *m, const seed **sp)
{
    if (replaying) {
        size_t n;
        unsigned char *d = tb_read_file(replay.gl_pathv[i], &n);
        buf_set(m, d, n);
        free(d);
        *sp = &seeds[0];
        const char *base = strrchr(replay.gl_pathv[i], '/');
        snprintf(current, sizeof current, "reproducer %s", base ? base + 1 : replay.gl_pathv[i]);
        return "reproducer";
    }
    rng_state = 0x9E3779B97F4A7C15ull ^ ((uint64_t)(i + 1) * 0xD1B54A32D192ED03ull);
    const seed *s;
    const char *what;
    if (i < N_EXTREME) {
        /* the extreme seeds first, as they are */
        s = &seeds[3 + i];
        buf_set(m, s->data, s->len);
        what = "no mutation";
    } else {
        /* mostly the realistic seeds */
        s = &seeds[below(8) < 6 ? below(3) : 3 + below(N_EXTREME)];
        what = mutate(s, m);
    }
    snprintf(current, sizeof current, "mutant %ld (%s of '%s', %zu bytes)", i, what, s->name, m->n);
    *sp = s;
    return what;
}

/* The child: mutants [from, to) through the reader and the analyses, stderr into CHILD_LOG,
 * each announced by a BEGIN line so that the parent knows which one a crash belongs to. */
static void child_batch(long from, long to)
{
    in_child = 1;
    int fd = open(CHILD_LOG, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        dup2(fd, 2);
        close(fd);
    }
    setvbuf(stderr, NULL, _IONBF, 0);
    FILE *devnull = fopen("/dev/null", "w");
    buf m = { 0 };
    for (long i = from; i < to; i++) {
        const seed *s;
        gen_mutant(i, &m, &s);
        mutant_index = i;
        tb_write_file(MUTANT, m.p, m.n);
        tb_write_file(BASELINE, s->data, s->len);
        failures = 0;
        for (known *k = known_bugs; k->key; k++)
            k->hits = 0;
        say("fuzz: BEGIN %ld\n", i);
        alarm(20); /* a hang: SIGALRM ends the child, the parent says so */
        long kinds[10] = { 0 };
        int damaged;
        long ev = run_reader(MUTANT, m.n, kinds, &damaged);
        say("fuzz: EVENTS %ld %d\n", ev, damaged);
        run_analyses(devnull, i);
        alarm(0);
        /* memory the analyses lost on this mutant (LeakSanitizer, in ASan builds) */
        if (__lsan_do_recoverable_leak_check && ((i - from) % 16 == 15 || i + 1 == to) &&
            __lsan_do_recoverable_leak_check())
            check_failed("leak", "memory leaked in mutants %ld..%ld (LeakSanitizer report in "
                         "the log)", i - (i - from) % 16, i);
        say("fuzz: DONE %ld\n", i);
    }
    fclose(devnull);
    _exit(0);
}

/* Saves mutant i and its part of the log for a failure. */
static void save_failure(long i, const char *log_lines)
{
    buf m = { 0 };
    const seed *s;
    gen_mutant(i, &m, &s);
    char path[64];
    snprintf(path, sizeof path, "fuzz-fail-%ld.wtrace", i);
    tb_write_file(path, m.p, m.n);
    snprintf(path, sizeof path, "fuzz-fail-%ld.log", i);
    tb_write_file(path, (const unsigned char *)log_lines, strlen(log_lines));
    fprintf(stderr, "fuzz:   saved as fuzz-fail-%ld.wtrace, its stderr as %s\n", i, path);
    free(m.p);
}

typedef struct tally {
    long events, damaged, failed;
} tally;

/* The parent: reads the batch's log. Returns the mutant the child died in, or -1 when the
 * child finished the batch. */
static long read_batch_log(int status, tally *t)
{
    FILE *f = fopen(CHILD_LOG, "r");
    char line[1024], report[1024] = "";
    long cur = -1, done = -1;
    int cur_failed = 0, found_report = 0;
    buf lines = { 0 };
    buf_reserve(&lines, 1);
    lines.p[0] = 0;
    while (f && fgets(line, sizeof line, f)) {
        long e, i;
        int d;
        if (sscanf(line, "fuzz: BEGIN %ld", &i) == 1) {
            cur = i;
            cur_failed = found_report = 0;
            lines.n = 0;
            lines.p[0] = 0;
            continue;
        }
        if (lines.n < 65536) {
            buf_insert(&lines, lines.n, (const uint8_t *)line, strlen(line));
            lines.p[lines.n] = 0;
        }
        if (sscanf(line, "fuzz: DONE %ld", &i) == 1) {
            done = i;
            if (cur_failed) {
                save_failure(i, (const char *)lines.p);
                t->failed++;
            }
        } else if (sscanf(line, "fuzz: EVENTS %ld %d", &e, &d) == 2) {
            t->events += e > 0 ? e : 0;
            t->damaged += d;
        } else if (!strncmp(line, "fuzz: KNOWN ", 12)) {
            for (known *k = known_bugs; k->key; k++)
                if (!strncmp(line + 12, k->key, strlen(k->key)) && line[12 + strlen(k->key)] == '\n')
                    k->hits++;
        } else if (!strncmp(line, "fuzz: FAIL", 10)) {
            fputs(line, stderr);
            cur_failed = 1;
        } else if (!found_report && (strstr(line, "runtime error:") || strstr(line, "ERROR: "))) {
            snprintf(report, sizeof report, "%s", line);
            found_report = 1;
        }
    }
    if (f)
        fclose(f);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && done == cur) {
        free(lines.p);
        return -1;
    }
    /* the child died in mutant `cur` */
    long died = cur;
    const seed *s;
    buf m = { 0 };
    gen_mutant(died, &m, &s); /* for `current` */
    free(m.p);
    for (known *k = known_bugs; k->key; k++) {
        if (k->file && found_report && strstr(report, k->file) && strstr(report, k->what)) {
            k->hits++;
            free(lines.p);
            return died;
        }
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        fprintf(stderr, "fuzz: FAIL [hang] %s: over 20 s\n", current);
    else
        fprintf(stderr, "fuzz: FAIL [crash] %s: %s (exit %d, signal %d): %s", current,
                found_report ? "sanitizer report" : "died",
                WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                WIFSIGNALED(status) ? WTERMSIG(status) : 0, found_report ? report : "\n");
    save_failure(died, (const char *)lines.p);
    t->failed++;
    free(lines.p);
    return died;
}

/* Runs "mutants" [from, to) in children, a new child after each one that died. */
static void run_range(long from, long to, tally *t)
{
    while (from < to) {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
            child_batch(from, to);
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        long died = read_batch_log(status, t);
        if (died < 0)
            break;
        from = died + 1;
    }
}

static void report_known(void)
{
    for (known *k = known_bugs; k->key; k++) {
        if (k->hits)
            fprintf(stderr, "fuzz: known bug hit by %ld inputs: %s\n", k->hits, k->bug);
        k->hits = 0;
    }
}

static void test_fuzz_mutants_never_crash_hang_or_break_invariants(void **state)
{
    const char *env = getenv("WT_FUZZ_ITERS");
    /* sanitized builds run about ten times slower: fewer mutants keep the test near 15 s */
    long iters = env ? atol(env) : __asan_init ? DEFAULT_ITERS_SANITIZED : DEFAULT_ITERS;
    const char *from_env = getenv("WT_FUZZ_FROM"); /* one again: WT_FUZZ_FROM=i WT_FUZZ_ITERS=1 */
    long from = from_env ? atol(from_env) : 0;
    tally t = { 0, 0, 0 };
    run_range(from, from + iters, &t);
    fprintf(stderr, "fuzz: %ld mutants, %ld damaged as seen by the reader, %ld events delivered, "
            "%ld failed\n", iters, t.damaged, t.events, t.failed);
    report_known();
    assert_int_equal(t.failed, 0);
}

/* The reproducers saved in tests/data/fuzz: each either passes or trips only its known bug. */
static void test_fuzz_saved_reproducers_pass_or_trip_only_known_bugs(void **state)
{
    if (glob(WT_TEST_DATA_DIR "/fuzz/*.wtrace", 0, NULL, &replay) != 0 || replay.gl_pathc == 0)
        skip();
    replaying = 1;
    tally t = { 0, 0, 0 };
    run_range(0, (long)replay.gl_pathc, &t);
    replaying = 0;
    fprintf(stderr, "fuzz: %zu saved reproducers, %ld failed\n", replay.gl_pathc, t.failed);
    report_known();
    globfree(&replay);
    assert_int_equal(t.failed, 0);
}

/* Memory is bounded by distinct strings and, past WT_MAX_LABEL_KEYS (category, label) keys
 * (spanstat.h), no longer grows with pairs (ledger.h, anomalies.h): the analyses of each trace
 * run in a child, and the children's peak memory is compared. 22500 pairs are past the bound
 * already, so 90000 pairs (4 times the spans, twice the strings) must cost little more; before
 * the bound (BUG-5) each pair cost about 2.3 KB (5 KB under ASan), 150 MB more here. */
static long child_peak_kb(const char *path)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 2);
        char *paths[1] = { (char *)path };
        wt_analysis a;
        wt_analysis_run(paths, 1, NULL, &a);
        wt_analysis_release(&a);
        _exit(0);
    }
    int status;
    struct rusage ru;
    assert_int_equal(wait4(pid, &status, 0, &ru), pid);
    assert_true(WIFEXITED(status));
    return ru.ru_maxrss;
}

/* n x n spans over n categories x n labels, or over one pair when `one` */
static void pairs_trace(const char *path, int n, int one)
{
    tb *b = tb_create(path, 5, 0, 1000);
    char cat[16], lab[16];
    int64_t t = 2000;
    for (int c = 0; c < n; c++)
        for (int l = 0; l < n; l++, t += 10) {
            snprintf(cat, sizeof cat, "c%d", one ? 0 : c);
            snprintf(lab, sizeof lab, "l%d", one ? 0 : l);
            tb_span(b, 1, t, t + 5, 0, cat, lab);
        }
    tb_close(b, TB_END_CLEAN, t, 0);
}

static void test_fuzz_memory_follows_strings_not_pairs(void **state)
{
    pairs_trace("fuzz_pairs1.wtrace", 150, 1);
    pairs_trace("fuzz_pairs150.wtrace", 150, 0);
    pairs_trace("fuzz_pairs300.wtrace", 300, 0);
    long one = child_peak_kb("fuzz_pairs1.wtrace"), p150 = child_peak_kb("fuzz_pairs150.wtrace"),
         p300 = child_peak_kb("fuzz_pairs300.wtrace");
    fprintf(stderr, "fuzz: 22500 spans over 1 pair: %ld KB peak; over 22500 pairs: %ld KB; "
            "90000 spans over 90000 pairs: %ld KB\n", one, p150, p300);
    /* past the bound: 67500 more pairs, 300 more strings and 150 more fold keys, which must
     * cost well under half of what the first 22500 pairs did (with BUG-5: three times as much;
     * under ASan its quarantine of freed memory adds a few MB) */
    assert_true(p300 - p150 < (p150 - one) / 2);
    unlink("fuzz_pairs1.wtrace");
    unlink("fuzz_pairs150.wtrace");
    unlink("fuzz_pairs300.wtrace");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fuzz_seeds_read_back_intact),
        cmocka_unit_test(test_fuzz_saved_reproducers_pass_or_trip_only_known_bugs),
        cmocka_unit_test(test_fuzz_mutants_never_crash_hang_or_break_invariants),
        cmocka_unit_test(test_fuzz_memory_follows_strings_not_pairs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
