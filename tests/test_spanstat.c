/* The analyses' building blocks (analyze/core/spanstat.h): the 2-way pointer-pair cache keeps
 * two pairs that share a set and evicts the least recently used of them. Pairs that share a
 * set are found by search here, so the test does not depend on the hash's constants. The
 * reservoir's median leaves its samples in the order of a stable insertion sort by `<` (the
 * model here): later adds replace samples by position. Its samples are kept as 32-bit
 * nanoseconds while they fit: every figure it gives is checked, bit for bit, against the
 * doubles (ns * 1e-9) the analyses kept before, and against a reservoir that stores doubles
 * from the start (`wide`). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spanstat.h"
#include "xorshift.h"

#define BITS 6 /* 64 slots: 32 sets */

/* One look-up as the analyses do it: a hit returns its value; a miss fills the slot with v. */
static int lookup(wt__pair_slot *cache, uint64_t a, uint64_t b, uint32_t v, uint32_t *got)
{
    wt__pair_slot *s = wt__pair_cache_slot(cache, BITS, a, b);
    if (s->valid && s->a == a && s->b == b) {
        *got = s->x;
        return 1;
    }
    *s = (wt__pair_slot){ a, b, v, 0, 1, 0 };
    *got = v;
    return 0;
}

/* An empty cache and three keys (7, b[i]) whose look-ups land in one set (the slot returned
 * is the set's first); then (7, b[0]) -> 10 and (7, b[1]) -> 11 looked up, so b[1] is the
 * more recent. */
static void two_in_one_set(wt__pair_slot *cache, uint64_t b[3])
{
    memset(cache, 0, sizeof(wt__pair_slot) << BITS);
    wt__pair_slot *set = wt__pair_cache_slot(cache, BITS, 7, 1000);
    b[0] = 1000;
    int n = 1;
    for (uint64_t k = 1001; n < 3 && k < 1000000; k++)
        if (wt__pair_cache_slot(cache, BITS, 7, k) == set)
            b[n++] = k;
    assert_int_equal(n, 3);
    memset(cache, 0, sizeof(wt__pair_slot) << BITS);
    uint32_t got;
    assert_false(lookup(cache, 7, b[0], 10, &got));
    assert_false(lookup(cache, 7, b[1], 11, &got));
}

static void test_spanstat_pair_cache_keeps_two_pairs_of_one_set(void **state)
{
    (void)state;
    wt__pair_slot cache[1u << BITS];
    uint64_t b[3];
    two_in_one_set(cache, b);
    uint32_t got;
    /* alternating, the two pairs stay (direct-mapped, each would evict the other) */
    for (int i = 0; i < 4; i++) {
        assert_true(lookup(cache, 7, b[0], 99, &got));
        assert_int_equal(got, 10);
        assert_true(lookup(cache, 7, b[1], 99, &got));
        assert_int_equal(got, 11);
    }
}

static void test_spanstat_pair_cache_evicts_the_least_recently_used(void **state)
{
    (void)state;
    wt__pair_slot cache[1u << BITS];
    uint64_t b[3];
    two_in_one_set(cache, b);
    uint32_t got;
    assert_true(lookup(cache, 7, b[0], 99, &got)); /* b[1] is now the least recent */
    assert_false(lookup(cache, 7, b[2], 12, &got)); /* evicts b[1] */
    assert_true(lookup(cache, 7, b[0], 99, &got));
    assert_int_equal(got, 10);
    assert_true(lookup(cache, 7, b[2], 99, &got));
    assert_int_equal(got, 12);
    assert_false(lookup(cache, 7, b[1], 13, &got)); /* gone; refilled, evicting b[0] */
    assert_true(lookup(cache, 7, b[1], 99, &got));
    assert_int_equal(got, 13);
    assert_true(lookup(cache, 7, b[2], 99, &got));
    assert_false(lookup(cache, 7, b[0], 14, &got));
}

static void test_spanstat_pair_cache_slot_keeps_its_third_value_when_moved(void **state)
{
    (void)state;
    /* z is a second user's index (the anomalies' key in the ledger's slot): it moves with
     * its pair inside the set */
    wt__pair_slot cache[1u << BITS];
    uint64_t b[3];
    two_in_one_set(cache, b);
    wt__pair_slot *s = wt__pair_cache_slot(cache, BITS, 7, b[0]); /* b[0] comes first */
    s->z = 42;
    uint32_t got;
    lookup(cache, 7, b[1], 11, &got); /* b[0] moves to the second way */
    s = wt__pair_cache_slot(cache, BITS, 7, b[0]); /* and back */
    assert_true(s->valid && s->b == b[0]);
    assert_int_equal(s->z, 42);
}

/* The model: a stable insertion sort by `<` (what glibc's merge sort, the median's sort before,
 * leaves; values that compare equal keep their order). */
static void model_sort(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        const double x = v[i];
        size_t j = i;
        while (j > 0 && x < v[j - 1]) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* Whether ns is kept as 32 bits. */
static int fits(int64_t ns) { return ns >= 0 && ns <= (int64_t)UINT32_MAX; }

/* n durations into a fresh reservoir (n <= WT_STATS_RESERVOIR: all kept, in order), its
 * median checked against the model's middle of the doubles ns * 1e-9, and its samples, bit
 * for bit, against the model's sort; narrow exactly when every duration fits. */
static void check_sorted_like_model(const int64_t *v, size_t n)
{
    wt__reservoir r;
    memset(&r, 0, sizeof r);
    double m[WT_STATS_RESERVOIR];
    int all_fit = 1;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(wt__reservoir_add_ns(&r, v[i]), 0);
        m[i] = (double)v[i] * 1e-9;
        all_fit &= fits(v[i]);
    }
    assert_int_equal(r.wide, !all_fit);
    model_sort(m, n);
    const double want = n & 1 ? m[n / 2] : 0.5 * (m[n / 2 - 1] + m[n / 2]);
    const double got = wt__reservoir_median(&r);
    assert_memory_equal(&got, &want, sizeof got);
    assert_int_equal(r.len, n);
    for (uint32_t i = 0; i < n; i++) {
        const double at = wt__reservoir_at(&r, i);
        assert_memory_equal(&at, &m[i], sizeof at);
    }
    wt__reservoir_release(&r);
}

/* Durations of several kinds: short ones (narrow), many ties, the 32-bit edge, long and
 * negative ones (a hostile file's) that widen the samples, first or part way through; and the
 * edge counts 1, 2 and full. */
static void test_spanstat_median_sorts_as_the_model(void **state)
{
    (void)state;
    uint64_t x = 0x2545F4914F6CDD1DULL;
    int64_t v[WT_STATS_RESERVOIR];
    int narrow = 0, wide = 0;
    for (int round = 0; round < 300; round++) {
        const size_t n = round < 3 ? (size_t[]){ 1, 2, WT_STATS_RESERVOIR }[round]
                                   : 1 + xorshift64(&x) % WT_STATS_RESERVOIR;
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = xorshift64(&x);
            switch (round % 6) {
            case 0: v[i] = (int64_t)(r % 5000000); break;                   /* durations */
            case 1: v[i] = (int64_t)(r % 41); break;                        /* ties */
            case 2: v[i] = (int64_t)UINT32_MAX - 3 + (int64_t)(r % 7); break; /* the edge */
            case 3: v[i] = (int64_t)(r >> (r % 40)) >> 2; break;             /* magnitudes */
            case 4: v[i] = (r & 1 ? -1 : 1) * (int64_t)(r % 100000); break; /* signs */
            default: /* narrow, then one long duration part way */
                v[i] = i == n / 2 ? ((int64_t)1 << 40) + (int64_t)(r % 9) : (int64_t)(r % 900);
                break;
            }
        }
        check_sorted_like_model(v, n);
        int f = 1;
        for (size_t i = 0; i < n; i++)
            f &= fits(v[i]);
        narrow += f;
        wide += !f;
    }
    assert_true(narrow > 50 && wide > 50); /* both storages were checked */
}

/* Two reservoirs fed the same durations, one narrow, one storing doubles from the start: the
 * same n, min, max, total, median and samples, bit for bit, at many points as they fill,
 * sample (algorithm L replacing) and, in some sequences, widen part way (a long duration
 * after the reservoir is full, while it samples); with wt__reservoir_add_ns() and
 * wt__reservoir_sample_ns() alike. */
static void same_reservoirs(const wt__reservoir *a, const wt__reservoir *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->len, b->len);
    assert_memory_equal(&a->min, &b->min, sizeof a->min);
    assert_memory_equal(&a->max, &b->max, sizeof a->max);
    assert_memory_equal(&a->total, &b->total, sizeof a->total);
    for (uint32_t i = 0; i < a->len; i++) {
        const double x = wt__reservoir_at(a, i), y = wt__reservoir_at(b, i);
        assert_memory_equal(&x, &y, sizeof x);
    }
}

static void test_spanstat_narrow_samples_give_what_doubles_give(void **state)
{
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int seq = 0; seq < 12; seq++) {
        wt__reservoir nar, dbl;
        memset(&nar, 0, sizeof nar);
        memset(&dbl, 0, sizeof dbl);
        dbl.wide = 1;
        const int widen_at = seq % 3 == 0 ? -1 : seq % 3 == 1 ? 100 : 3000; /* -1: never */
        const int sample = seq % 2;
        for (int i = 0; i < 6000; i++) {
            const uint64_t r = xorshift64(&x);
            int64_t ns = (int64_t)(r % (seq < 6 ? 2000000u : 60u)); /* spread, or ties */
            if (i == widen_at)
                ns = (int64_t)UINT32_MAX + 1 + (int64_t)(r % 5);
            else if (widen_at >= 0 && i > widen_at && r % 10 == 0)
                ns = -(int64_t)(r % 1000); /* a hostile file's */
            if (sample) {
                assert_int_equal(wt__reservoir_sample_ns(&nar, ns), 0);
                assert_int_equal(wt__reservoir_sample_ns(&dbl, ns), 0);
            } else {
                assert_int_equal(wt__reservoir_add_ns(&nar, ns), 0);
                assert_int_equal(wt__reservoir_add_ns(&dbl, ns), 0);
            }
            if (i < widen_at || widen_at < 0)
                assert_false(nar.wide);
            if (i == widen_at && i < WT_STATS_RESERVOIR)
                assert_true(nar.wide); /* while it fills every duration is a sample */
            if (i % 97 == 0 || i == 5999) {
                if (i % 2) {
                    const double mn = wt__reservoir_median(&nar), md = wt__reservoir_median(&dbl);
                    assert_memory_equal(&mn, &md, sizeof mn);
                }
                same_reservoirs(&nar, &dbl);
            }
        }
        /* past 3000 the long and negative durations widen it once one is sampled */
        assert_int_equal(nar.wide, widen_at >= 0);
        wt__reservoir_release(&nar);
        wt__reservoir_release(&dbl);
    }
}

/* A median taken while the reservoir samples, then more adds: the samples the adds replace are
 * the model's sorted array's (the same positions), so every later median matches a model fed
 * the same values and sorted by the model at the same points. */
static void test_spanstat_adds_after_a_median_replace_the_sorted_positions(void **state)
{
    (void)state;
    wt__reservoir r;
    memset(&r, 0, sizeof r);
    uint64_t x = 88172645463325252ULL;
    double m[WT_STATS_RESERVOIR];
    for (int i = 0; i < 5000; i++) {
        assert_int_equal(wt__reservoir_add_ns(&r, (int64_t)(xorshift64(&x) % 1000000)), 0);
        if (i % 700 == 699) {
            /* the model: the reservoir's samples, sorted by model_sort() */
            for (uint32_t j = 0; j < r.len; j++)
                m[j] = wt__reservoir_at(&r, j);
            model_sort(m, r.len);
            (void)wt__reservoir_median(&r);
            for (uint32_t j = 0; j < r.len; j++) {
                const double at = wt__reservoir_at(&r, j);
                assert_memory_equal(&at, &m[j], sizeof at);
            }
        }
    }
    assert_int_equal(r.len, WT_STATS_RESERVOIR);
    wt__reservoir_release(&r);
}

/* Algorithm L as Li (1994) gives it, one generator a reservoir: the model of a reservoir's
 * samples. Its generator is the one the reservoir documents (xorshift64 13/7/17 from the seed
 * 0x9E3779B97F4A7C15, u = (x >> 11 + 1/2) / 2^53), and each model draws its own numbers, where
 * the reservoirs share one precomputed schedule (spanstat.h). */
typedef struct model_l {
    int64_t n, next;
    uint64_t rng;
    double w;
    uint32_t len;
    double s[WT_STATS_RESERVOIR];
} model_l;

static double model_unit(model_l *m)
{
    if (!m->rng)
        m->rng = 0x9E3779B97F4A7C15ULL;
    return ((double)(xorshift64(&m->rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static void model_add(model_l *m, int64_t ns)
{
    m->n++;
    if (m->len < WT_STATS_RESERVOIR) {
        m->s[m->len++] = (double)ns * 1e-9;
        return;
    }
    if (m->next == 0) {
        m->w = exp(log(model_unit(m)) / WT_STATS_RESERVOIR);
        m->next = m->n + (int64_t)floor(log(model_unit(m)) / log1p(-m->w));
    }
    if (m->n < m->next)
        return; /* past here model_unit() has seeded the generator */
    m->s[xorshift64(&m->rng) % WT_STATS_RESERVOIR] = (double)ns * 1e-9;
    m->w *= exp(log(model_unit(m)) / WT_STATS_RESERVOIR);
    m->next = m->n + 1 + (int64_t)floor(log(model_unit(m)) / log1p(-m->w));
}

/* Three reservoirs fed interleaved, at rates of their own (one starts late, so they stand at
 * different points of the schedule at once), some with medians taken between the adds (which
 * reorder the samples the next replacements pick by position): each keeps, bit for bit, the
 * samples of its own model, through 300,000 adds and some 4,500 replacements. */
static void test_spanstat_reservoirs_keep_algorithm_l_s_samples(void **state)
{
    (void)state;
    enum { R = 3 };
    wt__reservoir r[R];
    static model_l m[R];
    memset(r, 0, sizeof r);
    memset(m, 0, sizeof m);
    uint64_t x = 0x2545F4914F6CDD1DULL;
    const int sampled[R] = { 0, 1, 0 };
    for (int i = 0; i < 300000; i++) {
        const uint64_t v = xorshift64(&x);
        const int k = v % 7 < 4 ? 0 : v % 7 < 6 ? 1 : 2;
        if (k == 2 && i < 50000)
            continue;
        const int64_t ns = (int64_t)(v >> 40);
        assert_int_equal(sampled[k] ? wt__reservoir_sample_ns(&r[k], ns)
                                    : wt__reservoir_add_ns(&r[k], ns), 0);
        model_add(&m[k], ns);
        if (i % 20011 == 0 && k != 1) { /* a median: both sort, stably, as model_sort() */
            (void)wt__reservoir_median(&r[k]);
            model_sort(m[k].s, m[k].len);
        }
        if (i % 9973 == 0 || i == 299999) {
            for (int j = 0; j < R; j++) {
                assert_int_equal(r[j].n, m[j].n);
                assert_int_equal(r[j].len, m[j].len);
                assert_int_equal(r[j].next, m[j].next);
                for (uint32_t q = 0; q < r[j].len; q++) {
                    const double at = wt__reservoir_at(&r[j], q);
                    assert_memory_equal(&at, &m[j].s[q], sizeof at);
                }
            }
        }
    }
    /* deep into the schedule, each at its own point: 1,693, 1,520 and 1,303 replacements */
    assert_true(r[0].step > 1600 && r[1].step > 1400 && r[2].step > 1200);
    /* the schedule reaches its "never" within its table: 10,544 entries here (2^62 adds) */
    const uint32_t len = wt__reservoir_schedule_len();
    assert_true(len > 9000 && len < WT_RESERVOIR_STEPS);
    for (int j = 0; j < R; j++)
        wt__reservoir_release(&r[j]);
}

/* Four threads fill reservoirs of their own at once, so the first replacements of all of them
 * ask for the schedule together (this test runs first, before any reservoir of the process
 * made it; under ThreadSanitizer, label "threads"): each keeps its model's samples. */
typedef struct fill_job {
    uint64_t seed;
    int ok;
} fill_job;

static void *fill_one(void *arg)
{
    fill_job *j = arg;
    wt__reservoir r;
    model_l *m = calloc(1, sizeof *m);
    memset(&r, 0, sizeof r);
    j->ok = m != NULL;
    for (int i = 0; j->ok && i < 20000; i++) {
        const int64_t ns = (int64_t)(xorshift64(&j->seed) >> 44);
        j->ok = wt__reservoir_add_ns(&r, ns) == 0;
        model_add(m, ns);
    }
    for (uint32_t q = 0; j->ok && q < r.len; q++)
        j->ok = wt__reservoir_at(&r, q) == m->s[q];
    j->ok = j->ok && r.n == m->n && r.next == m->next && r.len == WT_STATS_RESERVOIR;
    wt__reservoir_release(&r);
    free(m);
    return NULL;
}

static void test_spanstat_reservoirs_of_four_threads_share_one_schedule(void **state)
{
    (void)state;
    pthread_t t[4];
    fill_job jobs[4];
    for (int k = 0; k < 4; k++) {
        jobs[k] = (fill_job){ 0x9E3779B97F4A7C15ULL + (uint64_t)k * 0x1234567ULL, 0 };
        assert_int_equal(pthread_create(&t[k], NULL, fill_one, &jobs[k]), 0);
    }
    for (int k = 0; k < 4; k++) {
        assert_int_equal(pthread_join(t[k], NULL), 0);
        assert_true(jobs[k].ok);
    }
}

/* Room without allocating: an empty reservoir has none, one with spare capacity or full has,
 * for a duration that fits in 32 bits (narrow); a longer one widens a narrow reservoir, and
 * the add after the room check may then fail, so the callers take only narrow durations on
 * the path that ignores failures. */
static void test_spanstat_reservoir_room(void **state)
{
    (void)state;
    const int64_t big = (int64_t)UINT32_MAX + 1;
    assert_true(wt__reservoir_narrow(0));
    assert_true(wt__reservoir_narrow((int64_t)UINT32_MAX));
    assert_false(wt__reservoir_narrow(big));
    assert_false(wt__reservoir_narrow(-1));
    wt__reservoir r;
    memset(&r, 0, sizeof r);
    assert_false(wt__reservoir_has_room(&r));
    assert_int_equal(wt__reservoir_add_ns(&r, 1), 0);
    assert_true(wt__reservoir_has_room(&r)); /* capacity 4 */
    for (int i = 1; i < WT_STATS_RESERVOIR; i++) {
        if (r.len == r.cap)
            assert_false(wt__reservoir_has_room(&r));
        assert_int_equal(wt__reservoir_add_ns(&r, i), 0);
    }
    assert_int_equal(r.len, WT_STATS_RESERVOIR);
    assert_true(wt__reservoir_has_room(&r));
    assert_int_equal(wt__reservoir_add_ns(&r, 2), 0);
    assert_true(wt__reservoir_has_room(&r));
    assert_false(r.wide);
    r.next = r.n + 1; /* the next add replaces a sample: with the long one, it widens */
    const uint32_t len = r.len;
    assert_int_equal(wt__reservoir_add_ns(&r, big), 0);
    assert_true(r.wide);
    assert_int_equal(r.len, len);
    int found = 0;
    for (uint32_t i = 0; i < r.len; i++)
        found += wt__reservoir_at(&r, i) == (double)big * 1e-9;
    assert_int_equal(found, 1);
    wt__reservoir_release(&r);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The classic median of v[0..n), sorted here (qsort: independent of the code under test). */
static double model_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n & 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Reservoirs that each hold their whole stream (at most 255 durations): the union's median is
 * the exact median of every duration fed to any of them, bit for bit, whatever the split, the
 * count's parity, ties, empty members, and one member holding doubles (a long duration). */
static void test_spanstat_union_median_is_exact_while_each_holds_its_stream(void **state)
{
    (void)state;
    uint64_t x = 0x2545F4914F6CDD1DULL;
    double all[3 * WT_STATS_RESERVOIR];
    for (int round = 0; round < 400; round++) {
        wt__reservoir r[3];
        memset(r, 0, sizeof r);
        size_t n = 0;
        const unsigned spread = round % 4 == 0 ? 7u : 5000000u; /* ties, or spread values */
        for (int c = 0; c < 3; c++) {
            const size_t k = (size_t)(xorshift64(&x) % (c == 1 && round % 5 == 0 ? 1 : 256));
            for (size_t i = 0; i < k; i++) {
                int64_t ns = (int64_t)(xorshift64(&x) % spread);
                if (round % 7 == 3 && c == 2 && i == 0)
                    ns = (int64_t)UINT32_MAX + 12345; /* widens r[2] */
                assert_int_equal(wt__reservoir_sample_ns(&r[c], ns), 0);
                all[n++] = (double)ns * 1e-9;
            }
        }
        wt__reservoir *const rs[] = { &r[0], NULL, &r[1], &r[2] };
        const double got = wt__reservoir_median_union(rs, 4);
        if (n == 0) {
            assert_true(isnan(got));
        } else {
            const double want = model_median(all, n);
            assert_memory_equal(&got, &want, sizeof got);
        }
        for (int c = 0; c < 3; c++)
            wt__reservoir_release(&r[c]);
    }
}

/* One member: the union's median is that member's, sampled or not. */
static void test_spanstat_union_median_of_one_is_its_median(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ULL;
    wt__reservoir r, empty;
    memset(&r, 0, sizeof r);
    memset(&empty, 0, sizeof empty);
    for (int i = 0; i < 3000; i++) {
        assert_int_equal(wt__reservoir_sample_ns(&r, (int64_t)(xorshift64(&x) % 1000000)), 0);
        if (i % 311 == 0) {
            wt__reservoir *const rs[] = { &empty, &r };
            const double got = wt__reservoir_median_union(rs, 2);
            const double want = wt__reservoir_median(&r);
            assert_memory_equal(&got, &want, sizeof got);
        }
    }
    wt__reservoir_release(&r);
}

/* Past 255 a member's samples stand for more spans than themselves: a member fed 1,000
 * durations of 1 s keeps 255 samples, and with 255 of 2 s and 255 of 3 s beside it the
 * median of the 1,510 durations is 1 s. Counting samples instead of what they stand for would
 * say 2 s (255 ones among 765 samples). */
static void test_spanstat_union_median_weighs_samples_by_their_stream(void **state)
{
    (void)state;
    wt__reservoir a, b, c;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(wt__reservoir_sample_ns(&a, 1000000000), 0);
    for (int i = 0; i < WT_STATS_RESERVOIR; i++) {
        assert_int_equal(wt__reservoir_sample_ns(&b, 2000000000), 0);
        assert_int_equal(wt__reservoir_sample_ns(&c, 3000000000LL), 0);
    }
    assert_int_equal(a.len, WT_STATS_RESERVOIR);
    wt__reservoir *const rs[] = { &b, &c, &a };
    assert_true(wt__reservoir_median_union(rs, 3) == 1.0);
    /* 600 of 1 s (255 samples) beside 500 of 5 s (one exact member twice): the middle of the
     * 1,100 is a 1 s, though the samples are 255 ones and 500 fives */
    wt__reservoir d, e;
    memset(&d, 0, sizeof d);
    memset(&e, 0, sizeof e);
    for (int i = 0; i < 600; i++)
        assert_int_equal(wt__reservoir_sample_ns(&d, 1000000000), 0);
    for (int i = 0; i < 250; i++)
        assert_int_equal(wt__reservoir_sample_ns(&e, 5000000000LL), 0);
    wt__reservoir *const rs2[] = { &d, &e, &e }; /* e twice: 500 of 5 s beside 600 of 1 s */
    assert_true(wt__reservoir_median_union(rs2, 3) == 1.0);
    for (int i = 250; i < WT_STATS_RESERVOIR; i++)
        assert_int_equal(wt__reservoir_sample_ns(&e, 5000000000LL), 0);
    /* 765 of 5 s beside the 600 of 1 s: the middle moves into the fives */
    wt__reservoir *const rs3[] = { &d, &e, &e, &e };
    assert_true(wt__reservoir_median_union(rs3, 4) == 5.0);
    wt__reservoir_release(&a);
    wt__reservoir_release(&b);
    wt__reservoir_release(&c);
    wt__reservoir_release(&d);
    wt__reservoir_release(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spanstat_reservoirs_of_four_threads_share_one_schedule),
        cmocka_unit_test(test_spanstat_pair_cache_keeps_two_pairs_of_one_set),
        cmocka_unit_test(test_spanstat_pair_cache_evicts_the_least_recently_used),
        cmocka_unit_test(test_spanstat_pair_cache_slot_keeps_its_third_value_when_moved),
        cmocka_unit_test(test_spanstat_median_sorts_as_the_model),
        cmocka_unit_test(test_spanstat_narrow_samples_give_what_doubles_give),
        cmocka_unit_test(test_spanstat_adds_after_a_median_replace_the_sorted_positions),
        cmocka_unit_test(test_spanstat_reservoirs_keep_algorithm_l_s_samples),
        cmocka_unit_test(test_spanstat_reservoir_room),
        cmocka_unit_test(test_spanstat_union_median_is_exact_while_each_holds_its_stream),
        cmocka_unit_test(test_spanstat_union_median_of_one_is_its_median),
        cmocka_unit_test(test_spanstat_union_median_weighs_samples_by_their_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
