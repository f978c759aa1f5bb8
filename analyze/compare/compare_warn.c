/* compare's warnings: what a careful engineer checks before trusting a keep/skip number.
 * Each rule reads the finished tables (per-round cells, paired differences, counters and
 * metadata per configuration) and adds at most a few lines, grouped so a run with many
 * stages still gets a short list. The kinds and thresholds are documented in docs/COMPARE.md;
 * tests/test_compare.c has a firing and a non-firing case for each. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* A first round this far from the others' median (relative) and outside their range is
 * flagged: a cold cache typically doubles it, ordinary noise stays within a few percent. */
#define FIRST_OUTLIER_REL 0.25
/* Drift: |Kendall tau| of the paired differences at least this, over at least DRIFT_MIN
 * pairs, moving by more than DRIFT_REL of A's median. */
#define DRIFT_TAU 0.8
#define DRIFT_MIN 4
#define DRIFT_REL 0.05
/* Page-cache residency fractions of paired rounds differing by more than this. */
#define PAGECACHE_DIFF 0.10

void wt__cmp_warn(wt_compare *c, const char *kind, const char *fmt, ...)
{
    if (c->n_warnings >= WT_CMP_MAX_WARNINGS) {
        c->warnings_dropped++;
        return;
    }
    if (!c->warnings && !(c->warnings = calloc(WT_CMP_MAX_WARNINGS, sizeof *c->warnings)))
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *m = strdup(buf);
    if (!m)
        return;
    c->warnings[c->n_warnings].kind = kind;
    c->warnings[c->n_warnings++].message = m;
}


/* The configuration's own name as a program would write it in metadata: "keep" of "a:keep". */
static const char *config_word(const wt_cmp_config *k)
{
    const char *colon = strchr(k->name, ':');
    return colon ? colon + 1 : k->name;
}

/* Says which categories the stage limit folded into one row, and what went to "other". */
static void warn_folded(wt_compare *c)
{
    const wt_cmp_census *k = &c->census;
    if (!k->n_limit_folded && !k->n_to_other && !k->keys_overflow && !k->cats_overflow)
        return;
    char list[600] = "";
    size_t used = 0, count = 0;
    for (size_t g = 0; g < k->cats.n; g++) {
        if (k->cat_fold[g] != 2)
            continue;
        if (++count <= 6 && used < sizeof list) {
            int w = snprintf(list + used, sizeof list - used, "%s'%s' (%zu%s labels)", count > 1 ? ", " : "",
                             k->cats.s[g], k->cat_labels[g] + k->cat_past[g], k->cat_past_more[g] ? "+" : "");
            used += w > 0 ? (size_t)w : 0;
        }
    }
    if (count)
        wt__cmp_warn(c, "limit",
                     "more than %d stages: the labels of %s%s are folded into one row per category "
                     "(shown as 'category/*'); the round and top-level stages keep their own rows",
                     WT_CMP_MAX_STAGES, list, count > 6 ? ", ..." : "");
    if (k->n_to_other || k->cats_overflow)
        wt__cmp_warn(c, "limit",
                     "more categories than stage rows: %zu names of the last categories counted in "
                     "'(other stages)'", k->n_to_other + (size_t)(k->cats_overflow ? 1 : 0));
}

static void warn_inputs(wt_compare *c)
{
    warn_folded(c);
    if (c->dropped_rounds || c->dropped_stages || c->dropped_counters)
        wt__cmp_warn(c, "limit",
                     "limits reached: %llu rounds, %llu spans and %llu counter samples "
                     "left out (at most %d rounds, %d stages, %d counters)",
                     (unsigned long long)c->dropped_rounds, (unsigned long long)c->dropped_stages,
                     (unsigned long long)c->dropped_counters, WT_CMP_MAX_ROUNDS, WT_CMP_MAX_STAGES,
                     WT_CMP_MAX_COUNTERS);
    if (c->rounds_partial)
        wt__cmp_warn(c, "partial_launch",
                     "%llu combined round%s lack a process of their launch (a rank stopped early or "
                     "ran fewer rounds): those take the slowest of the processes that have them",
                     (unsigned long long)c->rounds_partial, c->rounds_partial == 1 ? "" : "s");
    char who[WT_PROCNAME_MAX];
    for (size_t f = 0; f < c->n_files && !c->opt.runs; f++)
        if (c->files[f].n_rounds == 0)
            wt__cmp_warn(c, "no_rounds",
                         "'%s' (%s): no rounds: record each build between wt_round_begin(config, round) "
                         "and wt_round_end()", c->files[f].path, wt_compare_process(c, f, who, sizeof who));
    if (c->opt.runs) {
        for (int s = 0; s < 2; s++) {
            int any = 0;
            for (size_t f = 0; f < c->n_files; f++)
                any |= c->files[f].side == s;
            int configs = 0;
            for (size_t k = 0; k < c->config_keys.n; k++)
                configs += c->configs[k].side == s;
            if (!any)
                wt__cmp_warn(c, "no_rounds", "side '%s' has no readable file", wt_compare_side_name(c, s));
            else if (!configs)
                wt__cmp_warn(c, "no_rounds", "side '%s' has nothing to compare: no rounds or events "
                             "could be read", wt_compare_side_name(c, s));
        }
        const wt_cmp_file *first[2] = { NULL, NULL };
        for (size_t f = 0; f < c->n_files; f++)
            if (!first[c->files[f].side])
                first[c->files[f].side] = &c->files[f];
        for (size_t f = 0; f < c->n_files && first[0] && first[1]; f++) {
            if (strcmp(c->files[f].program, first[0]->program)) {
                wt__cmp_warn(c, "different_programs",
                             "files of different programs: '%s' ran '%s', '%s' ran '%s': compared "
                             "anyway, stage by stage", first[0]->path, first[0]->program,
                             c->files[f].path, c->files[f].program);
                break;
            }
        }
        for (size_t f = 0; f < c->n_files && first[0] && first[1]; f++)
            if (strcmp(c->files[f].host, first[0]->host)) {
                wt__cmp_warn(c, "different_hosts", "runs on different hosts: '%s' on '%s', '%s' on '%s'",
                             first[0]->path, first[0]->host, c->files[f].path, c->files[f].host);
                break;
            }
    }
    const size_t nc = c->config_keys.n;
    if (nc == 1 && !c->opt.runs)
        wt__cmp_warn(c, "one_config",
                     "only one configuration ('%s', %zu rounds): nothing to pair it with; run the "
                     "others alternately (keep, skip, keep, skip, ...)", c->configs[0].name,
                     c->configs[0].n_rounds);
    for (size_t k = 0; k < nc && c->opt.runs; k++) {
        int paired = 0;
        for (size_t p = 0; p < c->n_pairs; p++)
            paired |= (size_t)c->pairs[p].a == k || (size_t)c->pairs[p].b == k;
        if (!paired)
            wt__cmp_warn(c, "unpaired_config", "configuration '%s' is only in '%s': not compared",
                         c->configs[k].name, wt_compare_side_name(c, c->configs[k].side));
    }
}

static void warn_first_round(wt_compare *c)
{
    const size_t ns = c->stage_keys.n;
    for (size_t k = 0; k < c->config_keys.n; k++) {
        const wt_cmp_config *K = &c->configs[k];
        const wt_cmp_cell *cell = &c->cells[k * ns];
        if (K->n_rounds < 3)
            continue;
        double rest[64]; /* the first 64 others are plenty for a median */
        size_t n = 0;
        for (size_t i = 1; i < K->n_rounds && n < 64; i++)
            rest[n++] = cell->per_round[i];
        wt_stats_sort(rest, n);
        const double m = wt_stats_median_sorted(rest, n), first = cell->per_round[0];
        /* slower: a cold cache, the usual cause; faster: no guess (the later rounds may pay
         * for what the first did not, an eviction or a clock that slowed) */
        if ((first > rest[n - 1] || first < rest[0]) && fabs(first - m) > FIRST_OUTLIER_REL * m)
            wt__cmp_warn(c, "first_round_outlier",
                         "first %sround of '%s' is an outlier: %.1f ms against a median of %.1f ms for "
                         "the others (%.2fx)%s --discard %d leaves it out",
                         c->opt.discard ? "kept " : "", K->name, first, m, m > 0 ? first / m : 0.0,
                         first > m ? ": a cold cache?" : ", faster than all of them:",
                         c->opt.discard + 1);
    }
}

static void warn_alternation(wt_compare *c)
{
    if (c->opt.runs || c->config_keys.n < 2)
        return;
    for (size_t f = 0; f < c->n_files; f++) {
        const wt_cmp_file *F = &c->files[f];
        size_t times = 0;
        const wt_cmp_round *ex = NULL;
        for (size_t i = 1; i < F->n_rounds; i++) {
            const wt_cmp_round *r = &c->rounds[F->first_round + i];
            if (r->config == r[-1].config) {
                if (!times)
                    ex = r;
                times++;
            }
        }
        char who[WT_PROCNAME_MAX];
        if (times)
            wt__cmp_warn(c, "not_alternating",
                         "rounds did not alternate in %s: '%s' rounds %lld and %lld ran back to back (%zu "
                         "time%s in all): configurations may have seen different page-cache states",
                         wt_compare_process(c, f, who, sizeof who), c->configs[ex->config].name,
                         (long long)ex[-1].number, (long long)ex->number, times, times == 1 ? "" : "s");
    }
}

/* The value of counter t in the i-th kept round of configuration k, or -1 when absent. */
static int64_t ctr_at(const wt_compare *c, const wt_cmp_config *K, size_t i, size_t t)
{
    const wt_cmp_round *r = &c->rounds[K->rounds[i]];
    return r->ctr_ts[t] == INT64_MIN ? -1 : r->ctr[t];
}

static void warn_pagecache(wt_compare *c, const wt_cmp_pair *p)
{
    const wt_cmp_config *A = &c->configs[p->a], *B = &c->configs[p->b];
    static const char suffix[] = ".resident_bytes";
    for (size_t t = 0; t < c->counter_names.n; t++) {
        const char *name = c->counter_names.s[t];
        const size_t len = strlen(name), sl = sizeof suffix - 1;
        if (len <= sl || strcmp(name + len - sl, suffix))
            continue;
        char fname[512];
        snprintf(fname, sizeof fname, "%.*s.file_bytes", (int)(len - sl), name);
        long ft = -1;
        for (size_t u = 0; u < c->counter_names.n; u++)
            if (!strcmp(c->counter_names.s[u], fname))
                ft = (long)u;
        if (ft < 0)
            continue;
        size_t differ = 0, first = 0;
        double fa0 = 0, fb0 = 0;
        for (size_t i = 0; i < p->n_pairs; i++) {
            const int64_t ra = ctr_at(c, A, i, t), rb = ctr_at(c, B, i, t);
            const int64_t sa = ctr_at(c, A, i, (size_t)ft), sb = ctr_at(c, B, i, (size_t)ft);
            if (ra < 0 || rb < 0 || sa <= 0 || sb <= 0)
                continue;
            const double fa = (double)ra / (double)sa, fb = (double)rb / (double)sb;
            if (fabs(fa - fb) > PAGECACHE_DIFF) {
                if (!differ) {
                    first = i;
                    fa0 = fa;
                    fb0 = fb;
                }
                differ++;
            }
        }
        if (differ)
            wt__cmp_warn(c, "pagecache_differs",
                         "page cache differed for '%.*s': in pair %zu '%s' saw %.0f%% resident, '%s' "
                         "%.0f%% (%zu of %zu pairs differ by more than %.0f points)",
                         (int)(len - sl), name, first + 1, A->name, 100 * fa0, B->name, 100 * fb0,
                         differ, p->n_pairs, 100 * PAGECACHE_DIFF);
    }
}

static void warn_meta(wt_compare *c, const wt_cmp_pair *p)
{
    const wt_cmp_config *A = &c->configs[p->a], *B = &c->configs[p->b];
    char msg[900] = "";
    size_t used = 0, count = 0;
    for (size_t m = 0; m < c->meta_keys.n; m++) {
        const char *key = c->meta_keys.s[m];
        const char *va = A->meta[m] ? A->meta[m] : c->side_meta[A->side][m];
        const char *vb = B->meta[m] ? B->meta[m] : c->side_meta[B->side][m];
        if (!va && !vb)
            continue;
        if (va && vb && !strcmp(va, vb))
            continue;
        if (!strcmp(key, "config") || !strcmp(key, "configuration"))
            continue;
        /* a key naming the configuration itself is the intended difference */
        if (va && vb && !strcmp(va, config_word(A)) && !strcmp(vb, config_word(B)))
            continue;
        count++;
        if (count <= 4 && used < sizeof msg) {
            int w = snprintf(msg + used, sizeof msg - used, "%s'%s' is '%s' in '%s', '%s' in '%s'",
                             count > 1 ? "; " : "", key, va ? va : "(unset)", A->name,
                             vb ? vb : "(unset)", B->name);
            used += w > 0 ? (size_t)w : 0;
        }
    }
    if (count)
        wt__cmp_warn(c, "meta_differs", "metadata differs beyond the configuration: %s%s", msg,
                     count > 4 ? "; ..." : "");
}

static void warn_stages(wt_compare *c, const wt_cmp_pair *p)
{
    const size_t ns = c->stage_keys.n;
    for (int dir = 0; dir < 2; dir++) {
        const int has = dir ? p->b : p->a, lacks = dir ? p->a : p->b;
        char list[600] = "";
        size_t used = 0, count = 0;
        for (size_t s = 1; s < ns; s++) {
            if (c->cells[(size_t)has * ns + s].s.n == 0 || c->cells[(size_t)lacks * ns + s].s.n > 0)
                continue;
            if (++count <= 5 && used < sizeof list) {
                int w = snprintf(list + used, sizeof list - used, "%s'%s'", count > 1 ? ", " : "",
                                 c->stages[s].display);
                used += w > 0 ? (size_t)w : 0;
            }
        }
        if (count)
            wt__cmp_warn(c, "missing_stage", "stage%s %s%s only in '%s', absent from every '%s' round",
                         count > 1 ? "s" : "", list, count > 5 ? ", ..." : "",
                         c->configs[has].name, c->configs[lacks].name);
    }
}

static void warn_partial_stages(wt_compare *c)
{
    const size_t ns = c->stage_keys.n;
    for (size_t k = 0; k < c->config_keys.n; k++) {
        const wt_cmp_config *K = &c->configs[k];
        for (size_t s = 1; s < ns; s++) {
            const wt_cmp_cell *cell = &c->cells[k * ns + s];
            if (cell->s.n > 0 && cell->s.n < K->n_rounds) {
                wt__cmp_warn(c, "partial_stage", "stage '%s' is missing from %zu of %zu '%s' rounds",
                             c->stages[s].display, K->n_rounds - cell->s.n, K->n_rounds, K->name);
                break; /* one per configuration: the rest usually share the cause */
            }
        }
    }
}

static void warn_pair(wt_compare *c, const wt_cmp_pair *p)
{
    const wt_cmp_config *A = &c->configs[p->a], *B = &c->configs[p->b];
    if (A->n_rounds != B->n_rounds)
        wt__cmp_warn(c, "unequal_rounds",
                     "unequal round counts: '%s' has %zu rounds, '%s' %zu: paired the first %zu of each",
                     A->name, A->n_rounds, B->name, B->n_rounds, p->n_pairs);
    const wt_cmp_pair_stage *ps = &p->stage[0];
    if (ps->paired.verdict == WT_VERDICT_TOO_FEW) {
        char more[96] = "run more rounds";
        if (ps->more_pairs > 0)
            snprintf(more, sizeof more, "%ld more pair%s would let %.0f%% decide, if they agree", ps->more_pairs,
                     ps->more_pairs == 1 ? "" : "s", 100 * c->opt.confidence);
        wt__cmp_warn(c, "too_few_rounds",
                     "too few rounds to tell: %zu pair%s of '%s' and '%s'; a %.0f%% interval needs at "
                     "least %u: %s", ps->paired.n, ps->paired.n == 1 ? "" : "s", A->name,
                     B->name, 100 * c->opt.confidence, ps->paired.min_pairs, more);
    }
    if (ps->paired.n >= DRIFT_MIN && ps->paired.n <= 5000) {
        const double tau = wt_stats_kendall_tau(ps->diff, ps->paired.n);
        double lo = ps->diff[0], hi = ps->diff[0];
        for (size_t i = 1; i < ps->paired.n; i++) {
            lo = ps->diff[i] < lo ? ps->diff[i] : lo;
            hi = ps->diff[i] > hi ? ps->diff[i] : hi;
        }
        if (fabs(tau) >= DRIFT_TAU && hi - lo > DRIFT_REL * fabs(ps->a_median))
            wt__cmp_warn(c, "drift",
                         "the paired differences '%s' - '%s' drift across rounds (Kendall tau %+.2f): "
                         "%.1f ms in the first pair, %.1f ms in the last; rounds are not alike (warm-up, "
                         "throttling, a growing cache?)", A->name, B->name, tau, ps->diff[0],
                         ps->diff[ps->paired.n - 1]);
    }
    warn_stages(c, p);
    warn_meta(c, p);
    warn_pagecache(c, p);
}

int wt__cmp_find_warnings(wt_compare *c)
{
    warn_inputs(c);
    warn_alternation(c);
    warn_first_round(c);
    for (size_t p = 0; p < c->n_pairs; p++)
        warn_pair(c, &c->pairs[p]);
    warn_partial_stages(c);
    return 0;
}
