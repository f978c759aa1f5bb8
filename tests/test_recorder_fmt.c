/* Formatted labels (issue 11): a label in writable memory is copied into the open-span slot at
 * wt_begin and stored after its span at wt_end; the writer (or the crash handler) interns it.
 * Every scenario runs in a forked child and is read back through the reader, each label
 * compared with the one the test formats again itself: a buffer reused across nested spans,
 * the length cap and every alignment, labels of every length at every offset within a 16-byte
 * line ending before an unmapped page (the scan's loads and the memo's compare stop at the
 * NUL), a memo whose label shrinks before an unmapped page,
 * 5,000 distinct labels with their counts, two threads, crashes (with the string table's lock
 * free, and held so the dump must use its placeholder), and the exit ledger. */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define RT_DIR_PREFIX "fm" /* this file's temporary directories */
#include "test_recorder_util.h"

#include "rec_intern.h"

static int exited_0(int st) { return WIFEXITED(st) && WEXITSTATUS(st) == 0; }

/* Runs `child` in a forked recorder, which must exit 0, and reads its trace back whole. */
static rt_trace *run_read(int (*child)(void *))
{
    assert_true(exited_0(rt_run(child, NULL, NULL, NULL)));
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    return t;
}

/* An empty label reads back as no label or an empty one, as a literal "" does. */
static int label_is(const char *got, const char *want)
{
    if (!want[0])
        return !got || !got[0];
    return got && strcmp(got, want) == 0;
}

/* ---- one buffer, nested spans ------------------------------------------------------------ */

static int child_nested(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    char buf[32];
    strcpy(buf, "a");
    const wt_span outer = wt_begin("load", buf);
    strcpy(buf, "b"); /* the outer span's label must not follow the buffer */
    const wt_span inner = wt_begin("load", buf);
    strcpy(buf, "c");
    wt_end(inner, WT_CACHED_HIT, 0, NULL);
    wt_end(outer, WT_CACHED_MISS, 0, NULL);
    /* an outer span ended while its child is open: the child ends unclosed with its label */
    strcpy(buf, "parent.0");
    const wt_span p = wt_begin("load", buf);
    strcpy(buf, "child.1");
    (void)wt_begin("load", buf);
    strcpy(buf, "zzz");
    wt_end(p, WT_CACHED_UNKNOWN, 0, NULL);
    return wt_close() != 0;
}

static void test_fmt_a_reused_buffer_keeps_each_nested_spans_label(void **state)
{
    (void)state;
    rt_trace *t = run_read(child_nested);
    /* spans in the order they ended: b (depth 1), a (depth 0), child.1 (unclosed), parent.0 */
    static const char *const want[] = { "b", "a", "child.1", "parent.0" };
    static const uint32_t depth[] = { 1, 0, 1, 0 };
    static const uint32_t flags[] = { 0, 0, WT_EVF_UNCLOSED, 0 };
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        assert_true(k < 4);
        assert_string_equal(e->label, want[k]);
        assert_int_equal(e->depth, depth[k]);
        assert_int_equal(e->flags & WT_EVF_UNCLOSED, flags[k]);
        k++;
    }
    assert_int_equal(k, 4);
    assert_int_equal(rt_find(t, WT_EV_SPAN, "c", 0), -1);
    rt_free(t);
}

/* ---- the cap, every alignment ------------------------------------------------------------ */

/* Lengths around the entries' and the cap's edges: 0, one word, one entry, the cap, one over
 * (the content path), far over. */
static const size_t lens[] = { 0, 1, 7, 8, 9, 16, 17, 23, 24, 25, 47, 48, 49,
                               WT__TEXT_CAP - 1, WT__TEXT_CAP, WT__TEXT_CAP + 1, 200 };
#define N_LENS (sizeof lens / sizeof lens[0])

/* Label (len, off, salt): len bytes, distinct per length and salt. */
static void make_label(char *out, size_t len, unsigned salt)
{
    for (size_t i = 0; i < len; i++)
        out[i] = (char)('a' + (i * 7 + len + salt) % 26);
    out[len] = '\0';
}

static int child_lengths(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    char buf[256 + 16];
    for (unsigned off = 0; off < 16; off++)
        for (size_t k = 0; k < N_LENS; k++) {
            char *s = buf + off;
            make_label(s, lens[k], off);
            const wt_span h = wt_begin("len", s);
            memset(buf, '#', sizeof buf - 1); /* the label is taken at wt_begin */
            /* every other one with a count: the extension entry before the label's words */
            wt_end(h, WT_CACHED_HIT, (k & 1) ? (int64_t)(off * 100 + k + 2) : 0, NULL);
        }
    return wt_close() != 0;
}

static void test_fmt_labels_at_the_cap_over_it_and_empty_read_back_exactly(void **state)
{
    (void)state;
    rt_trace *t = run_read(child_lengths);
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        const unsigned off = (unsigned)(n / N_LENS);
        const size_t k = n % N_LENS;
        char want[256];
        make_label(want, lens[k], off);
        assert_true(label_is(e->label, want));
        assert_int_equal(e->count, (k & 1) ? (int64_t)(off * 100 + k + 2) : 1);
        n++;
    }
    assert_int_equal(n, 16 * N_LENS);
    rt_free(t);
}

/* ---- one label formatted again and again into one buffer --------------------------------- */

/* The same buffer holding the same label again is answered by the memo (its bytes compared,
 * not copied) once the writer has seen it repeat (MEMO_AFTER spans, then a flush: the writer
 * drains them and tells the thread, whose next span fills the memo); any byte changed,
 * anywhere in a label up to the cap, must read back changed, and the old label again must
 * read back as itself. */
#define MEMO_AFTER 4 /* the first span of a new pointer goes by content, the next 3 are copied */
static const size_t memo_lens[] = { 5, 20, 40, WT__TEXT_CAP };
#define N_MEMO_LENS (sizeof memo_lens / sizeof memo_lens[0])
#define MEMO_STEPS 11

/* Step i of the sequence for length len into out: A A A A A B A A C A A, where B changes the
 * last byte and C the first of A. */
static void memo_label(char *out, size_t len, int i)
{
    make_label(out, len, 3);
    if (i == 5)
        out[len - 1] = out[len - 1] == 'Z' ? 'Y' : 'Z';
    if (i == 8)
        out[0] = out[0] == 'Z' ? 'Y' : 'Z';
}

static int child_memo(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    char buf[WT__TEXT_CAP + 8];
    for (size_t k = 0; k < N_MEMO_LENS; k++)
        for (int i = 0; i < MEMO_STEPS; i++) {
            memo_label(buf + 1, memo_lens[k], i);
            if (i == MEMO_AFTER)
                wt_flush();
            const wt_span h = wt_begin("memo", buf + 1);
            wt_end(h, WT_CACHED_HIT, 0, NULL);
        }
    return wt_close() != 0;
}

static void test_fmt_a_label_formatted_again_reads_back_as_itself_and_changes_show(void **state)
{
    (void)state;
    rt_trace *t = run_read(child_memo);
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        assert_true(n < N_MEMO_LENS * MEMO_STEPS);
        char want[WT__TEXT_CAP + 1];
        memo_label(want, memo_lens[n / MEMO_STEPS], (int)(n % MEMO_STEPS));
        assert_string_equal(e->label, want);
        n++;
    }
    assert_int_equal(n, N_MEMO_LENS * MEMO_STEPS);
    rt_free(t);
}

/* ---- every length at every offset before an unmapped page ------------------------------ */

/* Every length from 0 to past the cap at each of the 16 offsets within an aligned 16-byte
 * line, each placed as late in the page as its offset allows (for each length, one offset
 * puts its NUL at the page's last byte), the bytes from its NUL to the page's end not zero:
 * the scan's loads (16 bytes on SSE2, 8 otherwise) and the memo's
 * compare must stop at the one holding the NUL, since the next one would fault. Each label
 * is recorded EDGE_REPEAT times (a flush after MEMO_AFTER of them: the memo then answers it),
 * then with its last byte changed, then as itself again; every span must read back as the
 * bytes written. */
#define EDGE_MAX_LEN (WT__TEXT_CAP + 16)
#define EDGE_REPEAT 6
#define EDGE_STEPS (EDGE_REPEAT + 2)

/* The latest start s with s % 16 == off whose label of len bytes ends before `end`. */
static char *edge_place(char *end, unsigned off, size_t len)
{
    uintptr_t s = (uintptr_t)end - 1 - len;
    s -= (s - off) & 15;
    return (char *)s;
}

/* Step i of label (off, len) into out (EDGE_STEPS steps: the label, then at EDGE_REPEAT its
 * last byte changed). */
static void edge_label(char *out, unsigned off, size_t len, int i)
{
    make_label(out, len, off);
    if (i == EDGE_REPEAT && len)
        out[len - 1] = '#';
}

static int child_edges(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    long page;
    char *p = rt_guarded_page(&page);
    if (!p)
        return 11;
    char *end = p + page;
    for (unsigned off = 0; off < 16; off++)
        for (size_t len = 0; len <= EDGE_MAX_LEN; len++) {
            char *s = edge_place(end, off, len);
            for (int i = 0; i < EDGE_STEPS; i++) {
                memset(s, '@', (size_t)(end - s)); /* no NUL but the label's */
                edge_label(s, off, len, i);
                if (i == MEMO_AFTER)
                    wt_flush();
                const wt_span h = wt_begin("edge", s);
                wt_end(h, WT_CACHED_HIT, 0, NULL);
            }
        }
    return wt_close() != 0;
}

static void test_fmt_every_length_at_every_offset_before_an_unmapped_page(void **state)
{
    (void)state;
    rt_trace *t = run_read(child_edges);
    size_t n = 0;
    const size_t per_off = (EDGE_MAX_LEN + 1) * EDGE_STEPS;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        assert_true(n < 16 * per_off);
        const unsigned off = (unsigned)(n / per_off);
        const size_t len = n % per_off / EDGE_STEPS;
        char want[EDGE_MAX_LEN + 1];
        edge_label(want, off, len, (int)(n % EDGE_STEPS));
        if (!label_is(e->label, want))
            fail_msg("span %zu (offset %u, length %zu, step %zu): got \"%s\", want \"%s\"", n, off,
                     len, n % EDGE_STEPS, e->label ? e->label : "(null)", want);
        n++;
    }
    assert_int_equal(n, 16 * per_off);
    rt_free(t);
}

/* The memo holds a label that runs into a second page; that page is then made unmapped and a
 * shorter label written at the same address: the compare must stop at the shorter one's NUL
 * (the memo's next words are in the unmapped page). */
static int child_memo_shrinks(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    const long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 11;
    int rc = 0;
    for (unsigned off = 0; off < 16 && !rc; off++) {
        char *s = p + page - 32 + off; /* 32 - off bytes before the second page */
        make_label(s, 60, off);
        for (int i = 0; i < EDGE_REPEAT; i++) {
            if (i == MEMO_AFTER)
                wt_flush();
            const wt_span h = wt_begin("shrink", s);
            wt_end(h, WT_CACHED_HIT, 0, NULL);
        }
        make_label(s, 20 - off, off); /* ends in the first page, its aligned line too */
        if (mprotect(p + page, (size_t)page, PROT_NONE) != 0)
            return 12;
        const wt_span h = wt_begin("shrink", s);
        wt_end(h, WT_CACHED_HIT, 0, NULL);
        rc = mprotect(p + page, (size_t)page, PROT_READ | PROT_WRITE) != 0;
    }
    return rc ? 13 : wt_close() != 0;
}

static void test_fmt_the_memo_never_reads_past_a_shorter_label(void **state)
{
    (void)state;
    rt_trace *t = run_read(child_memo_shrinks);
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        const unsigned off = (unsigned)(n / (EDGE_REPEAT + 1));
        char want[64];
        make_label(want, n % (EDGE_REPEAT + 1) < EDGE_REPEAT ? 60 : 20 - off, off);
        assert_string_equal(e->label, want);
        n++;
    }
    assert_int_equal(n, 16 * (EDGE_REPEAT + 1));
    rt_free(t);
}

/* A label filling a heap block to within its last 16 bytes (the rest is ASan's redzone in a
 * sanitized build): the memo holds it, then a label differing only in its last vector is
 * recorded until the writer has seen it repeat, so that one is looked up by content, whose
 * memo check compares the vector holding the NUL. Neither that compare nor the memo's fill
 * may be reported (they read bytes of the block's last 16 that are not the label's, as the
 * scan does). Steps: A 6 times, B 4 times, A twice; a flush before steps 4 and 9. */
#define HEAP_LABEL "abcdefghijklmnopq" /* 17 bytes: its NUL in the second vector */
#define HEAP_STEPS 12

static void heap_step(char *buf, int i)
{
    strcpy(buf, HEAP_LABEL);
    if (i >= 6 && i < 10)
        buf[16] = 'Z'; /* the same first vector */
}

static int child_heap_memo(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    char *buf = malloc(sizeof HEAP_LABEL);
    if (!buf)
        return 11;
    for (int i = 0; i < HEAP_STEPS; i++) {
        heap_step(buf, i);
        if (i == MEMO_AFTER || i == 9)
            wt_flush();
        const wt_span h = wt_begin("heap", buf);
        wt_end(h, WT_CACHED_HIT, 0, NULL);
    }
    free(buf);
    return wt_close() != 0;
}

static void test_fmt_a_heap_label_at_its_blocks_end_is_compared_unsanitized(void **state)
{
    (void)state;
    rt_trace *t = run_read(child_heap_memo);
    int n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        char want[sizeof HEAP_LABEL];
        heap_step(want, n);
        assert_string_equal(e->label, want);
        n++;
    }
    assert_int_equal(n, HEAP_STEPS);
    rt_free(t);
}

/* ---- 5,000 distinct labels with their counts --------------------------------------------- */

#define N_DISTINCT 5000

/* Label k is recorded k % 3 + 1 times, in rounds: all labels of round 0, then those with
 * k % 3 >= 1, then k % 3 == 2. */
static int child_many(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (wt_open(path) != 0)
        return 10;
    for (int round = 0; round < 3; round++)
        for (int k = 0; k < N_DISTINCT; k++) {
            if (k % 3 < round)
                continue;
            char buf[64];
            snprintf(buf, sizeof buf, "model.layers.%d.self_attn.q_proj.weight", k);
            const wt_span h = wt_begin("weight_load", buf);
            wt_end(h, WT_CACHED_HIT, 0, NULL);
        }
    return wt_close() != 0;
}

static void test_fmt_five_thousand_distinct_labels_keep_their_counts(void **state)
{
    (void)state;
    rt_trace *t = run_read(child_many);
    static unsigned seen[N_DISTINCT];
    memset(seen, 0, sizeof seen);
    size_t spans = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        int k = -1, used = 0;
        assert_non_null(e->label);
        assert_int_equal(sscanf(e->label, "model.layers.%d.self_attn.q_proj.weight%n", &k, &used), 1);
        assert_true(k >= 0 && k < N_DISTINCT && (size_t)used == strlen(e->label));
        seen[k]++;
        spans++;
    }
    /* by hand: 5,000 labels once, 3,333 (k % 3 >= 1) a second time, 1,666 a third */
    assert_int_equal(spans, 5000 + 3333 + 1666);
    for (int k = 0; k < N_DISTINCT; k++)
        assert_int_equal(seen[k], (unsigned)(k % 3 + 1));
    rt_free(t);
}

/* ---- two threads ------------------------------------------------------------------------- */

#define N_THREAD_SPANS 20000

static void *fmt_thread(void *arg)
{
    const int me = (int)(intptr_t)arg;
    char buf[48]; /* this thread's own buffer, rewritten per span */
    for (int i = 0; i < N_THREAD_SPANS; i++) {
        snprintf(buf, sizeof buf, "t%d.layers.%d.mlp", me, i);
        const wt_span outer = wt_begin("load", buf);
        snprintf(buf, sizeof buf, "t%d.inner.%d", me, i % 97);
        const wt_span inner = wt_begin("load", buf);
        wt_end(inner, WT_CACHED_UNKNOWN, 0, NULL);
        wt_end(outer, WT_CACHED_HIT, 0, NULL);
    }
    return NULL;
}

static int child_threads(void *arg)
{
    (void)arg;
    setenv("WALLTIME_SUMMARY", "0", 1);
    /* every span is checked, so none may be dropped: under TSan on a loaded machine the
     * writer fell more than the default 500 ms behind (a run lost 6,057 spans); the drop
     * policy has tests of its own (test_recorder.c) */
    setenv("WALLTIME_RING_WAIT_MS", "10000", 1);
    if (wt_open(path) != 0)
        return 10;
    pthread_t th[2];
    for (int k = 0; k < 2; k++)
        if (pthread_create(&th[k], NULL, fmt_thread, (void *)(intptr_t)k) != 0)
            return 11;
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    return wt_close() != 0;
}

static void test_fmt_two_threads_formatting_into_their_own_buffers(void **state)
{
    (void)state;
    rt_trace *t = run_read(child_threads);
    uint64_t tids[2] = { 0, 0 };
    size_t next[2] = { 0, 0 }; /* spans seen per thread, in end order: inner, outer, ... */
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        assert_non_null(e->label);
        const int me = e->label[1] - '0';
        assert_true(e->label[0] == 't' && (me == 0 || me == 1));
        if (!tids[me])
            tids[me] = e->tid;
        assert_int_equal(e->tid, tids[me]);
        const size_t n = next[me]++;
        const int span = (int)(n / 2);
        char want[48];
        if (n % 2 == 0)
            snprintf(want, sizeof want, "t%d.inner.%d", me, span % 97);
        else
            snprintf(want, sizeof want, "t%d.layers.%d.mlp", me, span);
        assert_string_equal(e->label, want);
    }
    assert_int_equal(next[0], 2 * N_THREAD_SPANS);
    assert_int_equal(next[1], 2 * N_THREAD_SPANS);
    assert_true(tids[0] != tids[1]);
    rt_free(t);
}

/* ---- crashes ----------------------------------------------------------------------------- */

#define N_CRASH 12000 /* 3 entries each: more than a ring, so the writer wrote part of them */

static int child_crash(void *arg)
{
    (void)arg;
    /* a sanitizer's SEGV handler, installed before ours, would end the process without our
     * dump: the default disposition is what walltime saves and dies by */
    signal(SIGSEGV, SIG_DFL);
    setenv("WALLTIME_SUMMARY", "0", 1);
    /* every span is checked, so none may be dropped: as for child_threads(), the writer can
     * fall past the default 500 ms under TSan on a loaded machine (a CI run under TSan once
     * missed a span here; the dump now writes such drops' count, see the test of drops below) */
    setenv("WALLTIME_RING_WAIT_MS", "10000", 1);
    if (wt_open(path) != 0)
        return 10;
    char buf[64] __attribute__((aligned(16)));
    /* at offsets 0, 9 and 18 (2 in its 16-byte line) in turn, so the open ones below, at the
     * same three, are copied (their pointers known): the dump reads each from its slot at
     * its offset there */
    for (int i = 0; i < N_CRASH; i++) {
        char *at = buf + 9 * (i % 3);
        snprintf(at, sizeof buf - 9 * (size_t)(i % 3), "blk.%d.attn_q.weight", i);
        const wt_span h = wt_begin("load", at);
        wt_end(h, WT_CACHED_HIT, i + 1, NULL); /* the count numbers it */
    }
    for (int d = 0; d < 3; d++) {
        snprintf(buf + 9 * d, sizeof buf - 9 * (size_t)d, "open.%d", d);
        (void)wt_begin("load", buf + 9 * d);
    }
    memset(buf, 'x', sizeof buf - 1); /* the buffer no longer holds any of them */
    buf[sizeof buf - 1] = '\0';
    raise(SIGSEGV);
    return 20;
}

static void test_fmt_a_crash_writes_ended_and_open_formatted_labels(void **state)
{
    (void)state;
    const int st = rt_run(child_crash, NULL, NULL, NULL);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGSEGV);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(t->stats.end, WT_END_SIGNAL);
    assert_int_equal(t->stats.end_signal, SIGSEGV);
    static unsigned char seen[N_CRASH + 1];
    memset(seen, 0, sizeof seen);
    size_t open = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        assert_non_null(e->label);
        char want[64];
        if (e->flags & WT_EVF_UNCLOSED) {
            /* innermost first: open.2, open.1, open.0 (the table's lock was free) */
            snprintf(want, sizeof want, "open.%d", 2 - (int)open);
            assert_string_equal(e->label, want);
            assert_int_equal(e->depth, 2 - open);
            open++;
            continue;
        }
        assert_true(e->count >= 1 && e->count <= N_CRASH && !seen[e->count]);
        seen[e->count] = 1;
        snprintf(want, sizeof want, "blk.%d.attn_q.weight", (int)e->count - 1);
        assert_string_equal(e->label, want);
    }
    assert_int_equal(open, 3);
    for (int i = 1; i <= N_CRASH; i++)
        assert_true(seen[i]); /* each exactly once */
    rt_free(t);
}

#define N_LOCKED 50
#define N_DROP 4000 /* ~3 entries each, against a ring of 1,024: most are dropped */

/* The string table's lock held by the crashing thread itself (as when a crash interrupts it
 * inside the table): the dump cannot intern the labels still in the ring and gives them the
 * placeholder. The writer, meanwhile, waits for the lock on the first of them. With `*drop`
 * set, the ring is small and no call waits for room: the spans past the ring's room are
 * dropped, and the crash comes before the writer's next drain could write their count. */
static int child_crash_locked(void *arg)
{
    const int drop = *(const int *)arg;
    signal(SIGSEGV, SIG_DFL);
    setenv("WALLTIME_SUMMARY", "0", 1);
    if (drop) {
        setenv("WALLTIME_RING", "1024", 1);
        setenv("WALLTIME_RING_WAIT_MS", "0", 1);
    }
    if (wt_open(path) != 0)
        return 10;
    char buf[64];
    /* twice: a buffer's first label is looked up by content (which tells the pointer cache
     * it is writable memory, and would take the lock this thread is about to hold); the
     * second is copied, and makes the placeholder */
    for (int i = 0; i < 2; i++) {
        strcpy(buf, "written.before");
        const wt_span h = wt_begin("load", buf);
        wt_end(h, WT_CACHED_HIT, 0, NULL);
    }
    if (wt_flush() != 0)
        return 11;
    wt__intern_lock();
    for (int i = 0; i < (drop ? N_DROP : N_LOCKED); i++) {
        snprintf(buf, sizeof buf, "new.%d", i); /* new to every table */
        const wt_span s = wt_begin("load", buf);
        wt_end(s, WT_CACHED_HIT, i + 1, NULL);
    }
    raise(SIGSEGV);
    return 20;
}

/* The trace of a child that died by SIGSEGV after the dump: read whole, ended by the signal. */
static rt_trace *read_crashed(int drop)
{
    const int st = rt_run(child_crash_locked, &drop, NULL, NULL);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGSEGV);
    rt_trace *t = rt_read(path);
    assert_int_equal(t->open_rc, 0);
    assert_int_equal(t->errors, 0);
    assert_int_equal(t->stats.end, WT_END_SIGNAL);
    assert_true(rt_find(t, WT_EV_SPAN, "written.before", 0) >= 0);
    return t;
}

static void test_fmt_a_crash_with_the_table_locked_writes_the_placeholder(void **state)
{
    (void)state;
    rt_trace *t = read_crashed(0);
    size_t lost = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind != WT_EV_SPAN || rt_streq(e->label, "written.before"))
            continue;
        assert_string_equal(e->label, WT__TEXT_LOST);
        assert_int_equal(e->count, (int64_t)lost + 1); /* in order, none missing */
        lost++;
    }
    assert_int_equal(lost, N_LOCKED);
    rt_free(t);
}

static void test_fmt_a_crash_counts_the_spans_dropped_since_the_last_drain(void **state)
{
    (void)state;
    rt_trace *t = read_crashed(1);
    static unsigned char seen[N_DROP + 1];
    memset(seen, 0, sizeof seen);
    size_t spans = 0;
    int64_t dropped = 0;
    for (size_t i = 0; i < t->n; i++) {
        const wt_event *e = &t->ev[i].ev;
        if (e->kind == WT_EV_DROPPED) {
            dropped += e->count;
        } else if (e->kind == WT_EV_SPAN && !rt_streq(e->label, "written.before")) {
            assert_true(e->count >= 1 && e->count <= N_DROP && !seen[e->count]);
            seen[e->count] = 1;
            spans++;
        }
    }
    /* every span is in the file or in a DROPPED count, and the ring held only part of them */
    assert_true(spans >= 1 && spans < N_DROP / 2);
    assert_int_equal((int64_t)spans + dropped, N_DROP);
    rt_free(t);
}

/* ---- the exit ledger --------------------------------------------------------------------- */

static int child_ledger(void *arg)
{
    (void)arg;
    setenv("WALLTIME_TRACE", path, 1);
    setenv("WALLTIME_SUMMARY", "flat", 1);
    char buf[64];
    for (int i = 0; i < 6; i++) {
        snprintf(buf, sizeof buf, "layer.%d.wq", i);
        const wt_span h = wt_begin("load", buf);
        wt_end(h, i % 3 == 2 ? WT_CACHED_MISS : WT_CACHED_HIT, 0, NULL);
    }
    for (int i = 0; i < 4; i++) {
        snprintf(buf, sizeof buf, "graph.%d", i);
        const wt_span h = wt_begin("compile", buf);
        wt_end(h, WT_CACHED_UNKNOWN, 0, NULL);
    }
    return 0; /* the ledger prints at exit */
}

static void test_fmt_exit_ledger_counts_and_names_formatted_labels(void **state)
{
    (void)state;
    char err[600];
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    assert_true(exited_0(rt_run(child_ledger, NULL, err, NULL)));
    const char *out = rt_slurp(err);
    /* load: 6 spans, 4 HIT / 2 MISS (i = 2, 5); compile: 4 spans, no cache outcome */
    const char *load = strstr(out, "\nload ");
    const char *compile = strstr(out, "\ncompile ");
    assert_non_null(load);
    assert_non_null(compile);
    assert_non_null(strstr(load, "       6   4 HIT / 2 MISS\n"));
    assert_non_null(strstr(compile, "       4   \n"));
    /* one CACHE MISS line per miss, naming the formatted label */
    const char *m2 = strstr(out, "  - CACHE MISS: load layer.2.wq (");
    const char *m5 = strstr(out, "  - CACHE MISS: load layer.5.wq (");
    assert_non_null(m2);
    assert_non_null(m5);
    assert_null(strstr(out, "CACHE MISS: load layer.0.wq"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fmt_a_reused_buffer_keeps_each_nested_spans_label, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fmt_labels_at_the_cap_over_it_and_empty_read_back_exactly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fmt_a_label_formatted_again_reads_back_as_itself_and_changes_show, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fmt_every_length_at_every_offset_before_an_unmapped_page, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fmt_the_memo_never_reads_past_a_shorter_label, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fmt_a_heap_label_at_its_blocks_end_is_compared_unsanitized, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fmt_five_thousand_distinct_labels_keep_their_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fmt_two_threads_formatting_into_their_own_buffers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fmt_a_crash_writes_ended_and_open_formatted_labels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fmt_a_crash_with_the_table_locked_writes_the_placeholder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fmt_a_crash_counts_the_spans_dropped_since_the_last_drain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fmt_exit_ledger_counts_and_names_formatted_labels, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
