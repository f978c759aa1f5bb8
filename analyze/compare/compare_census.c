/* compare's rows: which spans make a row.
 *
 * Pass 1 counts the span names (a census: distinct labels per category, and which names have
 * a depth-0 span on a thread that records rounds or on the main thread: the top-level stages
 * such as load/from_pretrained). Before pass 2 the plan turns the census into rows: a row per
 * (category, label), a row per category (--by category), or, by default, a row per label
 * except that a category with more than a few labels (one per tensor) is rolled up into one
 * row. When the rows would pass WT_CMP_MAX_STAGES, the categories with the most labels are
 * folded first; top-level stages and the round never are (they get their rows first), and the
 * warning names what was folded. Nothing is dropped: past every limit a span still counts, in
 * "(other stages)". The census is capped (WT_CMP_MAX_KEYS names, WT_CMP_MAX_CATEGORIES), and
 * as the analyses do (spanstat.h), it keeps its last 256 names and last bytes for the names of
 * small categories and for the main thread's top-level spans: a load's tensors fill it first,
 * and the stages (load/from_pretrained, warmup/compile) end after them. A name past the census
 * is not kept, but counted: its category row says how many labels it holds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "spanstat.h"
#include "strhash.h"

_Static_assert(WT_CMP_MAX_KEYS == WT_MAX_LABEL_KEYS, "the census reserves keys by the analyses' rule");

/* ---- census (pass 1) ---------------------------------------------------------------- */

int wt__cmp_census_init(wt_cmp_census *k)
{
    memset(k, 0, sizeof *k);
    k->other_stage = -1;
    if (wt__cmp_names_init(&k->keys, WT_CMP_MAX_KEYS) || wt__cmp_names_init(&k->cats, WT_CMP_MAX_CATEGORIES))
        return WT_ENOMEM;
    k->key_cat = calloc(WT_CMP_MAX_KEYS, sizeof *k->key_cat);
    k->key_top_tid = calloc(WT_CMP_MAX_KEYS, sizeof *k->key_top_tid);
    k->key_top = calloc(WT_CMP_MAX_KEYS, 1);
    k->key_stage = calloc(WT_CMP_MAX_KEYS, sizeof *k->key_stage);
    k->cat_labels = calloc(WT_CMP_MAX_CATEGORIES, sizeof *k->cat_labels);
    k->cat_overflow = calloc(WT_CMP_MAX_CATEGORIES, sizeof *k->cat_overflow);
    k->cat_stage = calloc(WT_CMP_MAX_CATEGORIES, sizeof *k->cat_stage);
    k->cat_fold = calloc(WT_CMP_MAX_CATEGORIES, sizeof *k->cat_fold);
    k->cat_past = calloc(WT_CMP_MAX_CATEGORIES, sizeof *k->cat_past);
    k->cat_past_more = calloc(WT_CMP_MAX_CATEGORIES, 1);
    return (k->key_cat && k->key_top_tid && k->key_top && k->key_stage && k->cat_labels &&
            k->cat_overflow && k->cat_stage && k->cat_fold && k->cat_past && k->cat_past_more)
               ? 0 : WT_ENOMEM;
}

void wt__cmp_census_release(wt_cmp_census *k)
{
    wt__cmp_names_release(&k->keys);
    wt__cmp_names_release(&k->cats);
    free(k->key_cat);
    free(k->key_top_tid);
    free(k->key_top);
    free(k->key_stage);
    free(k->cat_labels);
    free(k->cat_overflow);
    free(k->cat_stage);
    free(k->cat_fold);
    free(k->cat_past);
    free(k->cat_past_more);
    free(k->past);
}

char *wt__cmp_key_of(char *buf, size_t n, const wt_event *ev)
{
    const char *cat = ev->category ? ev->category : "", *lab = ev->label ? ev->label : "";
    const size_t lc = strlen(cat), ll = strlen(lab);
    char *key = lc + ll + 2 <= n ? buf : malloc(lc + ll + 2);
    if (key) {
        memcpy(key, cat, lc);
        key[lc] = '\x1f';
        memcpy(key + lc + 1, lab, ll + 1);
    }
    return key;
}

void wt__cmp_census_round_tid(wt_compare *c, uint64_t tid)
{
    wt_cmp_census *k = &c->census;
    for (size_t i = 0; i < k->n_round_tid; i++)
        if (k->round_tid[i] == tid)
            return;
    if (k->n_round_tid < sizeof k->round_tid / sizeof k->round_tid[0])
        k->round_tid[k->n_round_tid++] = tid;
}

/* The hash that stands for a name past the census (0 marks a free slot). */
static uint64_t past_hash(const char *key)
{
    const uint64_t h = wt__str_hash(key, strlen(key));
    return h + !h;
}

/* Whether a name of hash h was counted past the census. Two names of one 64-bit hash count
 * once: at the set's 2^19 names, about one chance in 10^8. */
static int past_has(const wt_cmp_census *k, uint64_t h)
{
    if (!k->past_slots)
        return 0;
    const size_t m = k->past_slots - 1;
    for (size_t i = h & m; k->past[i]; i = (i + 1) & m)
        if (k->past[i] == h)
            return 1;
    return 0;
}

/* Counts a name past the census: 1, or -1 when the set is full (or out of memory), so that
 * the name may be one counted already. */
static int past_add(wt_cmp_census *k, uint64_t h)
{
    if (k->n_past >= WT_CMP_MAX_PAST_LABELS)
        return -1;
    if (2 * (k->n_past + 1) > k->past_slots) { /* at most half full */
        const size_t ns = k->past_slots ? 2 * k->past_slots : 1024, m = ns - 1;
        uint64_t *t = calloc(ns, sizeof *t);
        if (!t)
            return -1;
        for (size_t j = 0; j < k->past_slots; j++)
            if (k->past[j]) {
                size_t i = k->past[j] & m;
                while (t[i])
                    i = (i + 1) & m;
                t[i] = k->past[j];
            }
        free(k->past);
        k->past = t;
        k->past_slots = ns;
    }
    const size_t m = k->past_slots - 1;
    size_t i = h & m;
    while (k->past[i])
        i = (i + 1) & m;
    k->past[i] = h;
    k->n_past++;
    return 1;
}

/* Whether a new name may take one of the census's last keys and bytes: a main thread's
 * top-level span (a stage such as load/from_pretrained), or a label of a category with few
 * labels, by the analyses' rule. */
static int census_room(const wt_cmp_census *k, const wt_event *ev, long cat, size_t len)
{
    const size_t cat_keys = cat >= 0 ? k->cat_labels[cat] : SIZE_MAX;
    const int reserved = ev->depth == 0 && ev->tid == ev->pid;
    if (k->key_bytes + len > WT_CMP_CENSUS_BYTES)
        return 0;
    if (reserved)
        return k->keys.n < WT_CMP_MAX_KEYS;
    return !wt__label_keys_full(k->keys.n, cat_keys) &&
           (k->key_bytes + len <= WT_CMP_CENSUS_BYTES - WT_CMP_CENSUS_RESERVE_BYTES ||
            cat_keys < WT_SMALL_CATEGORY_KEYS);
}

int wt__cmp_census_span(wt_compare *c, const wt_event *ev)
{
    wt_cmp_census *k = &c->census;
    const long cat = wt__cmp_names_find(&k->cats, ev->category ? ev->category : "", 1);
    if (cat == -2)
        return WT_ENOMEM;
    char buf[256], *key = wt__cmp_key_of(buf, sizeof buf, ev);
    if (!key)
        return WT_ENOMEM;
    const size_t before = k->keys.n, len = strlen(key) + 1;
    long i = wt__cmp_names_find(&k->keys, key, 0);
    int fresh = 0; /* past the census: a new name (1), one counted (0), maybe new (-1) */
    if (i == -1) {
        /* a name counted past the census stays there (it is counted once): only a main
         * thread's top-level span could find room later, and only while the set was full */
        const uint64_t h = past_hash(key);
        const int counted = past_has(k, h);
        if (!counted && census_room(k, ev, cat, len)) {
            i = wt__cmp_names_find(&k->keys, key, 1);
            k->key_bytes += i >= 0 ? len : 0;
        } else if (!counted) {
            fresh = past_add(k, h);
        }
    }
    if (key != buf)
        free(key);
    if (i == -2)
        return WT_ENOMEM;
    if (i < 0) { /* past the key limit: its category (or "other") takes it */
        k->keys_overflow++;
        if (cat >= 0) {
            k->cat_overflow[cat]++;
            k->cat_past[cat] += fresh == 1;
            k->cat_past_more[cat] |= fresh == -1;
        }
        return 0;
    }
    if ((size_t)i >= before) {
        k->key_cat[i] = cat;
        if (cat >= 0)
            k->cat_labels[cat]++;
        else
            k->cats_overflow++;
    }
    if (ev->depth == 0) {
        if (!k->key_top[i])
            k->key_top_tid[i] = ev->tid;
        /* the main thread (tid = pid on Linux) builds the model in runs without rounds */
        k->key_top[i] |= ev->tid == ev->pid ? 3 : 1;
    }
    return 0;
}

/* ---- plan (between the passes) ----------------------------------------------------- */

/* A top-level stage: a depth-0 span on a thread that records rounds, or on the main thread
 * (the build itself, such as load/from_pretrained). */
static int is_top(const wt_cmp_census *k, size_t key)
{
    if (!k->key_top[key])
        return 0;
    if (k->key_top[key] & 2)
        return 1;
    for (size_t i = 0; i < k->n_round_tid; i++)
        if (k->round_tid[i] == k->key_top_tid[key])
            return 1;
    return 0;
}

/* Adds a stage row; its index, -1 when the table is full, -2 out of memory. */
static long add_stage(wt_compare *c, const char *key, int kind, const char *cat, const char *label)
{
    /* one row stays free for "(other stages)" */
    if (kind != WT_CMP_STAGE_OTHER && c->stage_keys.n + 1 >= WT_CMP_MAX_STAGES)
        return -1;
    const long s = wt__cmp_names_find(&c->stage_keys, key, 1);
    if (s < 0)
        return s;
    wt_cmp_stage *st = &c->stages[s];
    st->kind = kind;
    st->parent = -1;
    st->base = -1;
    st->first_offset = INT64_MAX;
    st->category = cat ? strdup(cat) : NULL;
    st->label = label ? strdup(label) : NULL;
    const size_t lc = cat ? strlen(cat) : 0, ll = label ? strlen(label) : 0;
    st->display = malloc(lc + ll + 16);
    if (!st->display || (cat && !st->category) || (label && !st->label))
        return -2;
    if (kind == WT_CMP_STAGE_OTHER)
        strcpy(st->display, "(other stages)");
    else if (kind == WT_CMP_STAGE_LABEL)
        snprintf(st->display, lc + ll + 16, "%s%s%s", cat ? cat : "", (lc && ll) ? "/" : "", label ? label : "");
    else
        snprintf(st->display, lc + ll + 16, "%s%s", lc ? cat : "(no category)",
                 kind == WT_CMP_STAGE_ROLLUP ? "/*" : "");
    return s;
}

/* Every round gets cells for the rows from `from` on, absent until a span lands there. */
static int round_cells(wt_compare *c, size_t from)
{
    const size_t ns = c->stage_keys.n;
    for (size_t r = 0; r < c->n_rounds; r++) {
        wt_cmp_round *R = &c->rounds[r];
        double *v = realloc(R->stage_ns, ns * sizeof *v);
        if (v)
            R->stage_ns = v;
        uint32_t *h = realloc(R->hits, ns * sizeof *h);
        if (h)
            R->hits = h;
        uint32_t *m = realloc(R->misses, ns * sizeof *m);
        if (m)
            R->misses = m;
        if (!v || !h || !m)
            return WT_ENOMEM; /* n_stage_cap still says what each array holds */
        for (size_t s = from; s < ns; s++) {
            v[s] = NAN;
            h[s] = m[s] = 0;
        }
        R->n_stage_cap = ns;
    }
    return 0;
}

long wt__cmp_rollup_row(wt_compare *c, uint32_t base, uint32_t parent)
{
    char key[48];
    snprintf(key, sizeof key, "\x04%lu\x1f%lu", (unsigned long)base, (unsigned long)parent);
    long s = wt__cmp_names_find(&c->stage_keys, key, 0);
    if (s >= 0)
        return s;
    const size_t before = c->stage_keys.n;
    s = add_stage(c, key, WT_CMP_STAGE_ROLLUP, c->stages[base].category, NULL);
    if (s < 0)
        return s;
    wt_cmp_stage *st = &c->stages[s];
    st->base = (long)base;
    st->n_labels = c->stages[base].n_labels;
    c->stages[base].split = 1;
    return round_cells(c, before) ? -2 : s;
}

static long other_stage(wt_compare *c)
{
    wt_cmp_census *k = &c->census;
    if (k->other_stage < 0)
        k->other_stage = add_stage(c, "\x03other", WT_CMP_STAGE_OTHER, NULL, NULL);
    return k->other_stage;
}

/* The category row of census category `cat`, made on first use; falls back to "other". */
static long category_stage(wt_compare *c, long cat)
{
    wt_cmp_census *k = &c->census;
    if (cat < 0)
        return other_stage(c);
    if (k->cat_stage[cat] >= 0)
        return k->cat_stage[cat];
    const char *name = k->cats.s[cat];
    const size_t n = strlen(name);
    char *key = malloc(n + 2);
    if (!key)
        return -2;
    key[0] = '\x02';
    memcpy(key + 1, name, n + 1);
    long s = add_stage(c, key, k->cat_fold[cat] == 3 ? WT_CMP_STAGE_CATEGORY : WT_CMP_STAGE_ROLLUP, name, NULL);
    free(key);
    if (s == -1) {
        k->n_to_other++;
        s = other_stage(c);
    }
    if (s >= 0 && s != k->other_stage) {
        wt_cmp_stage *st = &c->stages[s];
        st->n_labels = k->cat_labels[cat] + k->cat_past[cat];
        st->n_labels_past = k->cat_past[cat];
        st->labels_more = k->cat_past_more[cat];
    }
    k->cat_stage[cat] = s;
    return s;
}

/* Rows the census would make: the round, "other", per category one row plus its top-level
 * labels when folded, else one per label. */
static size_t rows_needed(const wt_cmp_census *k, const size_t *top)
{
    size_t rows = 2;
    for (size_t g = 0; g < k->cats.n; g++)
        rows += k->cat_fold[g] ? 1 + top[g] : k->cat_labels[g];
    return rows;
}

int wt__cmp_plan(wt_compare *c)
{
    wt_cmp_census *k = &c->census;
    const size_t nk = k->keys.n, ng = k->cats.n;
    size_t *top = calloc(ng + 1, sizeof *top);
    if (!top)
        return WT_ENOMEM;
    for (size_t i = 0; i < nk; i++)
        if (k->key_cat[i] >= 0 && c->opt.by != WT_CMP_BY_CATEGORY && is_top(k, i))
            top[k->key_cat[i]]++;
    for (size_t g = 0; g < ng; g++) {
        k->cat_stage[g] = -1;
        if (c->opt.by == WT_CMP_BY_CATEGORY)
            k->cat_fold[g] = 3;
        else if (k->cat_overflow[g])
            k->cat_fold[g] = 2; /* labels past the census: only the category can hold them */
        else if (c->opt.by == WT_CMP_BY_AUTO && k->cat_labels[g] > WT_CMP_AUTO_LABELS)
            k->cat_fold[g] = 1;
    }
    /* at the limit: fold the categories with the most labels first */
    while (rows_needed(k, top) > WT_CMP_MAX_STAGES) {
        size_t best = SIZE_MAX;
        for (size_t g = 0; g < ng; g++)
            if (!k->cat_fold[g] && k->cat_labels[g] > 1 + top[g] &&
                (best == SIZE_MAX || k->cat_labels[g] > k->cat_labels[best]))
                best = g;
        if (best == SIZE_MAX)
            break; /* too many categories: the last ones go to "other" below */
        k->cat_fold[best] = 2;
        k->n_limit_folded++;
    }
    int rc = 0;
    char buf[256];
    /* top-level names first: past every limit, only later names go to "other" */
    for (size_t j = 0; j < 2 * nk && !rc; j++) {
        const size_t i = j % nk;
        if ((j < nk) != is_top(k, i))
            continue;
        const long g = k->key_cat[i];
        long s;
        if (g < 0 || (k->cat_fold[g] && !(c->opt.by != WT_CMP_BY_CATEGORY && is_top(k, i)))) {
            s = category_stage(c, g);
        } else {
            const char *key = k->keys.s[i], *sep = strchr(key, '\x1f');
            const size_t lc = (size_t)(sep - key);
            char *cat = lc < sizeof buf ? buf : malloc(lc + 1);
            if (!cat) {
                rc = WT_ENOMEM;
                break;
            }
            memcpy(cat, key, lc);
            cat[lc] = 0;
            s = add_stage(c, key, WT_CMP_STAGE_LABEL, cat, sep + 1);
            if (cat != buf)
                free(cat);
            if (s == -1) { /* more categories than rows: the rest is "other" */
                k->n_to_other++;
                s = other_stage(c);
            }
        }
        if (s == -2)
            rc = WT_ENOMEM;
        k->key_stage[i] = s;
    }
    for (size_t g = 0; g < ng && !rc; g++) {
        if (k->cat_overflow[g] && category_stage(c, (long)g) == -2)
            rc = WT_ENOMEM;
        /* a rolled-up row holds the labels that kept no row of their own */
        const long cs = k->cat_stage[g];
        if (cs >= 0 && c->stages[cs].kind == WT_CMP_STAGE_ROLLUP && c->stages[cs].n_labels > top[g])
            c->stages[cs].n_labels -= top[g];
    }
    if (!rc && (k->keys_overflow || k->cats_overflow) && other_stage(c) == -2)
        rc = WT_ENOMEM;
    free(top);
    /* every round gets a cell per stage, NAN (absent) until a span lands in it */
    if (!rc)
        rc = round_cells(c, 0);
    return rc;
}
