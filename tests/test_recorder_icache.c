/* The recorder's pointer cache (level 1 of rec_intern.h) never gives a wrong label (issue 11):
 * a hit is trusted without reading the bytes, so these tests put literals where the cache is
 * weakest and check every id against the literal's bytes, computed here from its index:
 * two literals sharing a set, more literals in one set than it has ways (evicting each other
 * on every call), writable memory that changes under one pointer, and 5,000 distinct
 * literals recorded in a random order with NULL categories and labels among them, from 2
 * threads at once, read back from the trace. */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "xorshift.h"
#define RT_DIR_PREFIX "ic" /* this file's temporary directories */
#include "test_recorder_util.h"

#include "rec_intern.h"

#define N_LIT 5000
#define N_SPANS 20000

/* 5,000 literals: "a.000".."a.999", "bb.000".., .. "eeeee.999" (five lengths, so they are not
 * evenly spaced in the binary) */
#define D1(p) p "0", p "1", p "2", p "3", p "4", p "5", p "6", p "7", p "8", p "9"
#define D2(p) D1(p "0"), D1(p "1"), D1(p "2"), D1(p "3"), D1(p "4"), D1(p "5"), D1(p "6"), \
              D1(p "7"), D1(p "8"), D1(p "9")
#define D3(p) D2(p "0"), D2(p "1"), D2(p "2"), D2(p "3"), D2(p "4"), D2(p "5"), D2(p "6"), \
              D2(p "7"), D2(p "8"), D2(p "9")
static const char *const lit[N_LIT] = { D3("a."), D3("bb."), D3("ccc."), D3("dddd."),
                                        D3("eeeee.") };

/* The bytes of literal k, built again from k (never read from lit[]). */
static void lit_text(unsigned k, char *buf, size_t cap)
{
    static const char *const prefix[] = { "a.", "bb.", "ccc.", "dddd.", "eeeee." };
    snprintf(buf, cap, "%s%03u", prefix[k / 1000], k % 1000);
}

static uint64_t next_rand(uint64_t *x) { return xorshift64(x); }

/* A thread's cache, zeroed as a new thread state's is. */
static wt__icache *new_cache(void)
{
    wt__icache *c = calloc(1, sizeof *c);
    assert_non_null(c);
    return c;
}

#define WAYS (sizeof(((wt__icache *)0)->e[0]) / sizeof(((wt__icache *)0)->e[0][0]))

/* The set index of `s` in c. */
static size_t set_of(wt__icache *c, const char *s)
{
    return (size_t)(wt__icache_set(c, s) - c->e[0]) / WAYS;
}

/* Fills `out` with up to `want` literal indices that share one set, the first set found to
 * hold at least `want` of the 5,000; returns how many. */
static unsigned literals_in_one_set(wt__icache *c, unsigned want, unsigned *out)
{
    static uint16_t per_set[WT__ICACHE_SETS];
    memset(per_set, 0, sizeof per_set);
    for (unsigned k = 0; k < N_LIT; k++)
        per_set[set_of(c, lit[k])]++;
    size_t best = 0;
    for (size_t s = 0; s < WT__ICACHE_SETS; s++)
        if (per_set[s] > per_set[best])
            best = s;
    unsigned n = 0;
    for (unsigned k = 0; k < N_LIT && n < want; k++)
        if (set_of(c, lit[k]) == best)
            out[n++] = k;
    return n;
}

/* id's interned bytes are literal k's. */
static void assert_id_is_literal(uint32_t id, unsigned k)
{
    char want[32];
    lit_text(k, want, sizeof want);
    assert_true(id != 0 && id != WT__ICACHE_MISS);
    const char *got = wt__string_get(id, NULL);
    assert_non_null(got);
    assert_string_equal(got, want);
}

/* Literals sharing a set, and more of them than the set has ways, looked up in turn and in a
 * random order: every lookup (levels 1 to 3) gives the literal's own id, and level 1 alone
 * answers either that id or a miss, never another literal's. */
static void test_literals_sharing_a_set_always_get_their_own_id(void **state)
{
    (void)state;
    wt__intern_scan_ro(); /* the literals are in read-only memory: level 1 trusts them */
    wt__icache *c = new_cache();
    unsigned k[8];
    const unsigned n = literals_in_one_set(c, WAYS + 2, k);
    assert_true(n >= WAYS + 1); /* more literals than ways in one set */
    uint32_t id[8];
    for (unsigned i = 0; i < n; i++) {
        id[i] = wt__intern(c, lit[k[i]]);
        assert_id_is_literal(id[i], k[i]);
    }
    uint64_t x = 0x2545F4914F6CDD1Dull;
    unsigned trusted = 0;
    for (int round = 0; round < 2000; round++) {
        const unsigned i = round < 1000 ? (unsigned)round % n : (unsigned)(next_rand(&x) % n);
        const uint32_t ro = wt__icache_ro(c, lit[k[i]]);
        assert_true(ro == WT__ICACHE_MISS || ro == id[i]);
        trusted += ro == id[i];
        assert_int_equal(wt__intern(c, lit[k[i]]), id[i]);
    }
    assert_true(trusted > 0); /* level 1 does answer for literals */
    /* a pointer that differs from a cached one only in its high bits is another pointer */
    if (sizeof(uintptr_t) == 8)
        for (unsigned i = 0; i < n; i++)
            for (unsigned bit = 47; bit < 64; bit += 4)
                assert_int_equal(wt__icache_ro(c, (const char *)(uintptr_t)(
                                                      (uint64_t)(uintptr_t)lit[k[i]] ^ 1ull << bit)),
                                 WT__ICACHE_MISS);
    free(c);
}

/* A pointer to writable memory is never answered by level 1, whatever its bytes become. */
static void test_writable_memory_is_never_trusted(void **state)
{
    (void)state;
    wt__intern_scan_ro();
    wt__icache *c = new_cache();
    char *buf = malloc(32);
    assert_non_null(buf);
    uint32_t ids[3];
    static const char *const words[3] = { "icache.alpha", "icache.beta", "icache.gamma" };
    for (int round = 0; round < 6; round++) {
        const int w = round % 3;
        strcpy(buf, words[w]);
        const uint32_t id = wt__intern(c, buf);
        assert_string_equal(wt__string_get(id, NULL), words[w]);
        if (round < 3)
            ids[w] = id;
        else
            assert_int_equal(id, ids[w]);
        /* held, as writable: the recording thread copies its label (never answered by id) */
        assert_int_equal(wt__icache_ro(c, buf), WT__ICACHE_WRITABLE);
    }
    free(buf);
    free(c);
}

/* ---- recording 5,000 literals from 2 threads ---- */

/* Span i of a thread: literal index, and whether the category / label is NULL. */
typedef struct span_spec {
    unsigned k;
    int null_cat, null_label;
} span_spec;

static span_spec spec_of(uint64_t *x, unsigned i)
{
    span_spec s;
    s.k = (unsigned)(next_rand(x) % N_LIT);
    s.null_cat = i % 5 == 4;
    s.null_label = i % 7 == 6;
    return s;
}

static const char *const thread_cat[2] = { "thread.0", "thread.1" };

static void *record_thread(void *arg)
{
    const unsigned t = (unsigned)(uintptr_t)arg;
    uint64_t x = 88172645463325252ull + t;
    for (unsigned i = 0; i < N_SPANS; i++) {
        const span_spec s = spec_of(&x, i);
        const wt_span h = wt_begin(s.null_cat ? NULL : thread_cat[t], s.null_label ? NULL : lit[s.k]);
        wt_end(h, WT_CACHED_HIT, 0, NULL);
    }
    return NULL;
}

static int two_threads(void *arg)
{
    /* every span is checked, so none may be dropped, however far behind a sanitized writer
     * falls on a loaded machine (the drop policy is tested in test_recorder.c) */
    setenv("WALLTIME_RING_WAIT_MS", "10000", 1);
    if (wt_open(arg) != 0)
        return 1;
    pthread_t th[2];
    for (unsigned t = 0; t < 2; t++)
        if (pthread_create(&th[t], NULL, record_thread, (void *)(uintptr_t)t) != 0)
            return 2;
    for (unsigned t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    return wt_close() != 0;
}

static void test_five_thousand_literals_from_two_threads_read_back_exactly(void **state)
{
    (void)state;
    const int st = rt_run(two_threads, path, NULL, NULL);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    rt_trace *tr = rt_read(path);
    assert_int_equal(tr->open_rc, 0);
    assert_int_equal(tr->errors, 0);
    /* each thread's first span has its category (i = 0 is not a NULL one): it names the tid */
    uint64_t tid[2] = { 0, 0 };
    unsigned seen[2] = { 0, 0 };
    uint64_t x[2] = { 88172645463325252ull, 88172645463325252ull + 1 };
    for (size_t i = 0; i < tr->n; i++) {
        const wt_event *e = &tr->ev[i].ev;
        if (e->kind != WT_EV_SPAN)
            continue;
        unsigned t = e->tid == tid[0] && seen[0] ? 0 : e->tid == tid[1] && seen[1] ? 1 : 2;
        if (t == 2) { /* a thread's first span */
            assert_non_null(e->category);
            t = strcmp(e->category, thread_cat[0]) == 0 ? 0 : 1;
            assert_int_equal(seen[t], 0);
            tid[t] = e->tid;
        }
        assert_true(seen[t] < N_SPANS);
        const span_spec s = spec_of(&x[t], seen[t]++);
        if (s.null_cat)
            assert_null(e->category);
        else
            assert_string_equal(e->category, thread_cat[t]);
        if (s.null_label) {
            assert_null(e->label);
        } else {
            char want[32];
            lit_text(s.k, want, sizeof want);
            assert_non_null(e->label);
            assert_string_equal(e->label, want);
        }
    }
    assert_int_equal(seen[0], N_SPANS);
    assert_int_equal(seen[1], N_SPANS);
    rt_free(tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals_sharing_a_set_always_get_their_own_id),
        cmocka_unit_test(test_writable_memory_is_never_trusted),
        cmocka_unit_test_setup_teardown(test_five_thousand_literals_from_two_threads_read_back_exactly, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
