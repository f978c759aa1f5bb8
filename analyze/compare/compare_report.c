/* compare's reports: the text table a person reads at a glance, and the walltime-compare/1
 * JSON document (docs/COMPARE.md) for machines. Both read the finished tables only. */
#include <math.h>
#include <string.h>

#include "compare.h"
#include "json.h"

const char *wt_compare_fmt_ms(char *buf, size_t n, double ms)
{
    if (isnan(ms))
        snprintf(buf, n, "-");
    else if (fabs(ms) < 1)
        snprintf(buf, n, "%.3f", ms);
    else if (fabs(ms) < 100)
        snprintf(buf, n, "%.2f", ms);
    else if (fabs(ms) < 100000)
        snprintf(buf, n, "%.1f", ms);
    else
        snprintf(buf, n, "%.0f", ms);
    return buf;
}


static int is_bytes(const char *name)
{
    const size_t n = strlen(name);
    return n >= 5 && !strcmp(name + n - 5, "bytes");
}

/* A counter value: MB for byte counters (as the seed's device_mb), else the number. */
static const char *fmt_ctr(char *buf, size_t n, const char *name, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (is_bytes(name))
        snprintf(buf, n, "%.2f MB", v / 1e6);
    else
        snprintf(buf, n, "%.0f", v);
    return buf;
}

static const char *verdict_words(char *buf, size_t n, const wt_compare *c, const wt_cmp_pair *p,
                                 const wt_cmp_pair_stage *ps)
{
    char safe[WT_TEXT_SAFE_MAX];
    const char *b = wt_text_safe(c->configs[p->b].name, safe, sizeof safe);
    switch (ps->paired.verdict) {
    case WT_VERDICT_FASTER: snprintf(buf, n, "%s faster", b); break;
    case WT_VERDICT_SLOWER: snprintf(buf, n, "%s slower", b); break;
    case WT_VERDICT_NOISE:
    case WT_VERDICT_TOO_FEW: {
        /* no verdict yet: with a direction, how many more pairs would give one */
        const char *what = ps->paired.verdict == WT_VERDICT_NOISE ? "within noise" : "too few rounds";
        if (ps->more_pairs > 0)
            snprintf(buf, n, "%s: %ld more pair%s would let %.0f%% decide", what, ps->more_pairs,
                     ps->more_pairs == 1 ? "" : "s", 100 * c->opt.confidence);
        else
            snprintf(buf, n, "%s", what);
        break;
    }
    case WT_VERDICT_NONE: snprintf(buf, n, "not comparable"); break;
    }
    return buf;
}

/* The name a row shows: the display name (safe text, json.h), with the label count of a
 * category row. */
static const char *row_name(char *buf, size_t n, const wt_cmp_stage *st)
{
    char safe[WT_TEXT_SAFE_MAX];
    const char *d = wt_text_safe(st->display, safe, sizeof safe);
    if (st->kind == WT_CMP_STAGE_ROLLUP || st->kind == WT_CMP_STAGE_CATEGORY)
        snprintf(buf, n, "%s (%zu%s label%s)", d, st->n_labels, st->labels_more ? "+" : "",
                 st->n_labels == 1 && !st->labels_more ? "" : "s");
    else
        snprintf(buf, n, "%s", d);
    return buf;
}

static int indent_of(const wt_cmp_stage *st)
{
    return 2 * (int)(st->depth > 12 ? 12 : st->depth);
}

/* The stage column: as wide as the longest name up to NAME_COL_MAX; a longer name gets a line
 * of its own and its values start on the next line (never cut). */
#define NAME_COL_MAX 72
static int name_width(const wt_compare *c)
{
    char buf[WT_TEXT_SAFE_MAX + 64];
    int w = 10;
    for (size_t o = 0; o < c->n_order; o++) {
        const wt_cmp_stage *st = &c->stages[c->stage_order[o]];
        const int len = indent_of(st) + (int)strlen(row_name(buf, sizeof buf, st));
        w = len > w && len <= NAME_COL_MAX ? len : w; /* longer ones go on their own line */
    }
    return w;
}

static void write_stage_name(FILE *out, const wt_cmp_stage *st, int width)
{
    char buf[WT_TEXT_SAFE_MAX + 64];
    const char *name = row_name(buf, sizeof buf, st);
    const int indent = indent_of(st), len = (int)strlen(name);
    if (indent + len > width)
        fprintf(out, "%*s%s\n%-*s", indent, "", name, width, "");
    else
        fprintf(out, "%*s%-*s", indent, "", width - indent, name);
}

static const char *by_words(const wt_compare *c)
{
    switch (c->opt.by) {
    case WT_CMP_BY_LABEL: return "by label (--by label)";
    case WT_CMP_BY_CATEGORY: return "by category (--by category)";
    default: break;
    }
    return "by label, a category of more than " WT_CMP_STR(WT_CMP_AUTO_LABELS) " labels as one row (--by auto)";
}

/* A line per launch of several processes: their rounds are one observation each. */
static void write_launches(const wt_compare *c, FILE *out)
{
    for (size_t f = 0; f < c->n_files; f++) {
        const wt_cmp_file *F = &c->files[f];
        size_t first = 0;
        while (c->files[first].launch != F->launch)
            first++;
        if (F->n_in_launch < 2 || first != f)
            continue; /* alone, or said at the launch's first file */
        if (c->opt.runs) /* --a/--b: two launches read alike without their side */
            fprintf(out, "\n  %s: one launch of %zu processes (ranks",
                    wt_compare_side_name(c, F->side), F->n_in_launch);
        else
            fprintf(out, "\n  one launch of %zu processes (ranks", F->n_in_launch);
        size_t shown = 0;
        for (size_t g = f; g < c->n_files; g++)
            if (c->files[g].launch == F->launch && shown++ < 8)
                fprintf(out, "%s %lld", shown > 1 ? "," : "", (long long)c->files[g].who.rank);
        fprintf(out, "%s): each round combined over its processes into one, the slowest's time",
                shown > 8 ? ", ..." : "");
    }
}

int wt_compare_write_text(const wt_compare *c, FILE *out)
{
    const size_t ns = c->stage_keys.n, nc = c->config_keys.n;
    char b1[32], b2[32], b3[32], b4[32], b5[WT_TEXT_SAFE_MAX + 160];
    char s1[WT_TEXT_SAFE_MAX], s2[WT_TEXT_SAFE_MAX]; /* the trace's strings as safe text */
    fprintf(out, "compare: %s mode, %zu file%s;", c->opt.runs ? "runs" : "rounds", c->n_files,
            c->n_files == 1 ? "" : "s");
    for (size_t k = 0; k < nc; k++)
        fprintf(out, "%s '%s' %zu round%s", k ? "," : "", WT_TEXT_SAFE(s1, c->configs[k].name),
                c->configs[k].n_rounds,
                c->configs[k].n_rounds == 1 ? "" : "s");
    if (c->opt.discard)
        fprintf(out, " (first %d of each left out)", c->opt.discard);
    for (size_t f = 0; f < c->n_files; f++) {
        char who[WT_PROCNAME_MAX];
        fprintf(out, "\n  %s: '%s', %zu round%s", WT_TEXT_SAFE(s1, wt_compare_process(c, f, who, sizeof who)),
                WT_TEXT_SAFE(s2, c->files[f].path),
                c->files[f].n_rounds, c->files[f].n_rounds == 1 ? "" : "s");
    }
    write_launches(c, out);
    fprintf(out, "\nstages %s, each under its enclosing span on the same thread\n\n", by_words(c));
    if (nc == 0) {
        fputs("nothing to compare: no rounds\n", out);
        goto warnings;
    }
    int cw = 6; /* the config column: as wide as the longest name */
    for (size_t k = 0; k < nc; k++) {
        const int len = (int)strlen(WT_TEXT_SAFE(s1, c->configs[k].name));
        cw = len > cw ? len : cw;
    }
    const int nw = name_width(c);
    fprintf(out, "%-*s %-*s %3s %10s %10s %10s %9s  %s\n", nw, "stage (ms)", cw, "config", "n", "median",
            "min", "max", "HIT/MISS", "per round");
    for (size_t o = 0; o < c->n_order; o++) {
        const size_t s = c->stage_order[o];
        for (size_t k = 0; k < nc; k++) {
            const wt_cmp_cell *cell = &c->cells[k * ns + s];
            if (k == 0)
                write_stage_name(out, &c->stages[s], nw);
            else
                fprintf(out, "%-*s", nw, "");
            char hm[48] = "-";
            if (cell->hits || cell->misses)
                snprintf(hm, sizeof hm, "%llu/%llu", (unsigned long long)cell->hits,
                         (unsigned long long)cell->misses);
            fprintf(out, " %-*s %3zu %10s %10s %10s %9s ", cw, WT_TEXT_SAFE(s1, c->configs[k].name), cell->s.n,
                    wt_compare_fmt_ms(b1, sizeof b1, cell->s.median),
                    wt_compare_fmt_ms(b2, sizeof b2, cell->s.min),
                    wt_compare_fmt_ms(b3, sizeof b3, cell->s.max), hm);
            for (size_t i = 0; i < c->configs[k].n_rounds && i < 12; i++)
                fprintf(out, " %s", wt_compare_fmt_ms(b1, sizeof b1, cell->per_round[i]));
            if (c->configs[k].n_rounds > 12)
                fputs(" ...", out);
            fputc('\n', out);
        }
    }
    for (size_t pi = 0; pi < c->n_pairs; pi++) {
        const wt_cmp_pair *p = &c->pairs[pi];
        const char *an = WT_TEXT_SAFE(s1, c->configs[p->a].name), *bn = WT_TEXT_SAFE(s2, c->configs[p->b].name);
        fprintf(out, "\n%s vs %s: saved = %s - %s, paired round by round (%zu pairs, %.0f%% interval)\n",
                an, bn, an, bn, p->n_pairs, 100 * c->opt.confidence);
        const int aw = strlen(an) > 10 ? (int)strlen(an) : 10, bw = strlen(bn) > 10 ? (int)strlen(bn) : 10;
        fprintf(out, "%-*s %*s %*s %10s %7s  %-28s %s\n", nw, "stage (ms)", aw, an, bw, bn, "saved", "saved%",
                "paired median [interval]", "verdict");
        for (size_t o = 0; o < c->n_order; o++) {
            const size_t s = c->stage_order[o];
            const wt_cmp_pair_stage *ps = &p->stage[s];
            char ci[112]; /* three numbers of up to 31 bytes */
            if (ps->paired.n == 0)
                snprintf(ci, sizeof ci, "-");
            else if (isnan(ps->paired.lo))
                snprintf(ci, sizeof ci, "%s [n=%zu]", wt_compare_fmt_ms(b4, sizeof b4, ps->paired.median),
                         ps->paired.n);
            else
                snprintf(ci, sizeof ci, "%s [%s, %s]", wt_compare_fmt_ms(b4, sizeof b4, ps->paired.median),
                         wt_compare_fmt_ms(b1, sizeof b1, ps->paired.lo),
                         wt_compare_fmt_ms(b2, sizeof b2, ps->paired.hi));
            char pct[16];
            if (isnan(ps->saved_pct))
                snprintf(pct, sizeof pct, "-");
            else
                snprintf(pct, sizeof pct, "%.1f%%", ps->saved_pct);
            write_stage_name(out, &c->stages[s], nw);
            fprintf(out, " %*s %*s %10s %7s  %-28s %s\n", aw,
                    wt_compare_fmt_ms(b1, sizeof b1, ps->a_median), bw,
                    wt_compare_fmt_ms(b2, sizeof b2, ps->b_median),
                    wt_compare_fmt_ms(b3, sizeof b3, ps->saved), pct, ci,
                    verdict_words(b5, sizeof b5, c, p, ps));
        }
        if (c->counter_names.n) {
            fprintf(out, "%-*s %*s %*s %10s   (median of each round's last sample)\n", nw, "counter",
                    aw, an, bw, bn, "saved");
            for (size_t t = 0; t < c->counter_names.n; t++) {
                const char *name = c->counter_names.s[t];
                const double va = c->configs[p->a].ctr[t].median, vb = c->configs[p->b].ctr[t].median;
                fprintf(out, "%-*s %*s %*s %10s\n", nw, WT_TEXT_SAFE(b5, name), aw, fmt_ctr(b1, sizeof b1, name, va), bw,
                        fmt_ctr(b2, sizeof b2, name, vb), fmt_ctr(b3, sizeof b3, name, va - vb));
            }
        }
    }
warnings:
    if (c->n_warnings) {
        fputs("\nwarnings:\n", out);
        for (size_t i = 0; i < c->n_warnings; i++)
            fprintf(out, "  - %s\n", WT_TEXT_SAFE(b5, c->warnings[i].message));
        if (c->warnings_dropped)
            fprintf(out, "  - (%llu more)\n", (unsigned long long)c->warnings_dropped);
    }
    return ferror(out) ? WT_EIO : 0;
}

/* ---- JSON ----------------------------------------------------------------------------- */

static void json_ms(wt_json *j, const char *key, double ms)
{
    wt_json_fixed(j, key, ms, 3);
}

static void json_summary(wt_json *j, const wt_summary *s)
{
    wt_json_uint(j, "n", s->n);
    json_ms(j, "median_ms", s->median);
    json_ms(j, "min_ms", s->min);
    json_ms(j, "max_ms", s->max);
}

static void json_configs(wt_json *j, const wt_compare *c)
{
    wt_json_array_begin(j, "configs");
    for (size_t k = 0; k < c->config_keys.n; k++) {
        const wt_cmp_config *K = &c->configs[k];
        wt_json_object_begin(j, NULL);
        wt_json_string(j, "name", K->name);
        if (c->opt.runs)
            wt_json_string(j, "side", wt_compare_side_name(c, K->side));
        wt_json_uint(j, "n_rounds", K->n_rounds);
        wt_json_uint(j, "n_discarded", K->n_discarded);
        wt_json_array_begin(j, "rounds");
        for (size_t i = 0; i < K->n_rounds; i++) {
            const wt_cmp_round *r = &c->rounds[K->rounds[i]];
            wt_json_object_begin(j, NULL);
            wt_json_int(j, "round", r->number);
            wt_json_string(j, "file", c->files[r->file].path);
            wt_json_int(j, "ts_ns", r->ts);
            json_ms(j, "dur_ms", (double)r->dur / 1e6);
            wt_json_uint(j, "processes", r->n_procs);
            wt_json_object_begin(j, "counters");
            for (size_t t = 0; t < c->counter_names.n; t++)
                if (r->ctr_ts[t] != INT64_MIN)
                    wt_json_int(j, c->counter_names.s[t], r->ctr[t]);
            wt_json_object_end(j);
            wt_json_object_end(j);
        }
        wt_json_array_end(j);
        wt_json_object_begin(j, "counters");
        for (size_t t = 0; t < c->counter_names.n; t++) {
            if (K->ctr[t].n == 0)
                continue;
            wt_json_object_begin(j, c->counter_names.s[t]);
            wt_json_uint(j, "n", K->ctr[t].n);
            wt_json_double(j, "median", K->ctr[t].median);
            wt_json_double(j, "min", K->ctr[t].min);
            wt_json_double(j, "max", K->ctr[t].max);
            wt_json_object_end(j);
        }
        wt_json_object_end(j);
        wt_json_object_begin(j, "meta");
        for (size_t m = 0; m < c->meta_keys.n; m++) {
            const char *v = K->meta[m] ? K->meta[m] : c->side_meta[K->side][m];
            if (v)
                wt_json_string(j, c->meta_keys.s[m], v);
        }
        wt_json_object_end(j);
        wt_json_object_end(j);
    }
    wt_json_array_end(j);
}

static void json_stages(wt_json *j, const wt_compare *c)
{
    const size_t ns = c->stage_keys.n;
    wt_json_array_begin(j, "stages");
    static const char *const kinds[] = { "round", "label", "category", "rollup", "other" };
    for (size_t o = 0; o < c->n_order; o++) {
        const size_t s = c->stage_order[o];
        const wt_cmp_stage *st = &c->stages[s];
        wt_json_object_begin(j, NULL);
        wt_json_string(j, "name", st->display);
        wt_json_string(j, "category", st->is_round ? NULL : st->category);
        wt_json_string(j, "label", st->is_round ? NULL : st->label);
        wt_json_bool(j, "whole_round", st->is_round);
        wt_json_string(j, "kind", kinds[st->kind]);
        if (st->kind == WT_CMP_STAGE_ROLLUP || st->kind == WT_CMP_STAGE_CATEGORY) {
            wt_json_uint(j, "labels", st->n_labels);
            if (st->labels_more) /* past WT_CMP_MAX_PAST_LABELS: there are more */
                wt_json_bool(j, "labels_lower_bound", 1);
        }
        if (st->is_round)
            wt_json_null(j, "parent");
        else
            wt_json_string(j, "parent", c->stages[st->parent].display);
        wt_json_uint(j, "depth", st->depth);
        wt_json_array_begin(j, "per_config");
        for (size_t k = 0; k < c->config_keys.n; k++) {
            const wt_cmp_cell *cell = &c->cells[k * ns + s];
            wt_json_object_begin(j, NULL);
            wt_json_string(j, "config", c->configs[k].name);
            json_summary(j, &cell->s);
            wt_json_uint(j, "hits", cell->hits);
            wt_json_uint(j, "misses", cell->misses);
            wt_json_array_begin(j, "per_round_ms");
            for (size_t i = 0; i < c->configs[k].n_rounds; i++)
                json_ms(j, NULL, cell->per_round[i]);
            wt_json_array_end(j);
            wt_json_object_end(j);
        }
        wt_json_array_end(j);
        wt_json_object_end(j);
    }
    wt_json_array_end(j);
}

static void json_pairs(wt_json *j, const wt_compare *c)
{
    char words[160];
    wt_json_array_begin(j, "pairs");
    for (size_t pi = 0; pi < c->n_pairs; pi++) {
        const wt_cmp_pair *p = &c->pairs[pi];
        const wt_cmp_config *A = &c->configs[p->a], *B = &c->configs[p->b];
        wt_json_object_begin(j, NULL);
        wt_json_string(j, "a", A->name);
        wt_json_string(j, "b", B->name);
        wt_json_uint(j, "n_pairs", p->n_pairs);
        wt_json_array_begin(j, "stages");
        for (size_t o = 0; o < c->n_order; o++) {
            const size_t s = c->stage_order[o];
            const wt_cmp_pair_stage *ps = &p->stage[s];
            wt_json_object_begin(j, NULL);
            wt_json_string(j, "stage", c->stages[s].display);
            json_ms(j, "a_median_ms", ps->a_median);
            json_ms(j, "b_median_ms", ps->b_median);
            json_ms(j, "saved_ms", ps->saved);
            wt_json_fixed(j, "saved_pct", ps->saved_pct, 2);
            wt_json_object_begin(j, "paired");
            wt_json_uint(j, "n", ps->paired.n);
            json_ms(j, "median_diff_ms", ps->paired.median);
            json_ms(j, "ci_low_ms", ps->paired.lo);
            json_ms(j, "ci_high_ms", ps->paired.hi);
            wt_json_fixed(j, "confidence", ps->paired.confidence, 4);
            wt_json_uint(j, "min_pairs", ps->paired.min_pairs);
            wt_json_array_begin(j, "diff_ms");
            for (size_t i = 0; i < ps->paired.n; i++)
                json_ms(j, NULL, ps->diff[i]);
            wt_json_array_end(j);
            wt_json_object_end(j);
            wt_json_string(j, "verdict", wt_verdict_name(ps->paired.verdict));
            if (ps->more_pairs >= 0)
                wt_json_int(j, "more_pairs", ps->more_pairs);
            else
                wt_json_null(j, "more_pairs");
            wt_json_string(j, "verdict_text", verdict_words(words, sizeof words, c, p, ps));
            wt_json_object_end(j);
        }
        wt_json_array_end(j);
        /* the seed's meta.delta: A - B of each counter's median */
        wt_json_object_begin(j, "counters");
        for (size_t t = 0; t < c->counter_names.n; t++) {
            if (A->ctr[t].n == 0 && B->ctr[t].n == 0)
                continue;
            wt_json_object_begin(j, c->counter_names.s[t]);
            wt_json_double(j, "a", A->ctr[t].median);
            wt_json_double(j, "b", B->ctr[t].median);
            wt_json_double(j, "saved", A->ctr[t].median - B->ctr[t].median);
            wt_json_object_end(j);
        }
        wt_json_object_end(j);
        wt_json_object_end(j);
    }
    wt_json_array_end(j);
}

int wt_compare_write_json(const wt_compare *c, FILE *out, int pretty)
{
    wt_json j;
    wt_json_init(&j, out, pretty);
    wt_json_object_begin(&j, NULL);
    wt_json_string(&j, "schema", WT_CMP_SCHEMA);
    wt_json_string(&j, "mode", c->opt.runs ? "runs" : "rounds");
    wt_json_fixed(&j, "confidence", c->opt.confidence, 4);
    wt_json_int(&j, "discard", c->opt.discard);
    wt_json_string(&j, "by", c->opt.by == WT_CMP_BY_LABEL ? "label" : c->opt.by == WT_CMP_BY_CATEGORY ? "category" : "auto");
    wt_json_array_begin(&j, "inputs");
    for (size_t f = 0; f < c->n_files; f++) {
        const wt_cmp_file *F = &c->files[f];
        wt_json_object_begin(&j, NULL);
        wt_json_string(&j, "path", F->path);
        if (c->opt.runs)
            wt_json_string(&j, "side", wt_compare_side_name(c, F->side));
        wt_json_uint(&j, "pid", F->pid);
        char who[WT_PROCNAME_MAX];
        wt_json_string(&j, "name", wt_compare_process(c, f, who, sizeof who));
        if (F->who.has_rank)
            wt_json_int(&j, "rank", F->who.rank);
        else
            wt_json_null(&j, "rank");
        wt_json_string(&j, "program", F->program);
        wt_json_string(&j, "host", F->host);
        wt_json_uint(&j, "rounds", F->n_rounds);
        wt_json_int(&j, "launch", F->launch);
        wt_json_object_end(&j);
    }
    wt_json_array_end(&j);
    json_configs(&j, c);
    json_stages(&j, c);
    json_pairs(&j, c);
    wt_json_object_begin(&j, "spans");
    wt_json_uint(&j, "in_rounds", c->spans_in_rounds);
    wt_json_uint(&j, "outside_rounds", c->spans_outside);
    wt_json_uint(&j, "flat", c->spans_flat);
    wt_json_object_end(&j);
    wt_json_array_begin(&j, "warnings");
    for (size_t i = 0; i < c->n_warnings; i++) {
        wt_json_object_begin(&j, NULL);
        wt_json_string(&j, "kind", c->warnings[i].kind);
        wt_json_string(&j, "message", c->warnings[i].message);
        wt_json_object_end(&j);
    }
    wt_json_array_end(&j);
    wt_json_object_end(&j);
    wt_json_finish(&j);
    return ferror(out) ? WT_EIO : 0;
}
