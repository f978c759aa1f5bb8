/* compare's SVG chart (svg.h). Geometry: a label column, a bar panel where x is ms from 0 to
 * the stage's largest round (or, with a shared scale, the largest round of any stage drawn),
 * and a difference panel where x is A - B in ms, symmetric around a zero line. Each stage has
 * tick marks under both panels, so bars of different stages are not read as one scale when
 * they are not. The round comes first (the reference), then the stages by effect (|saved| of
 * the first pair, largest first), each with its parent stage named, since sorting breaks the
 * tree. Verdicts are coloured: green faster, red slower, grey within noise or not comparable,
 * amber too few rounds. */
#include "svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 1000
#define LABEL_X 12
#define BAR_X 250
#define BAR_W 400
#define DIFF_X 690
#define DIFF_W 290
#define ROW_H 16
#define HEAD_H 20
#define AXIS_H 18

static const char *const fill[] = { "#9ecae1", "#fdae6b", "#a1d99b", "#bcbddc", "#fc9272", "#d9d9d9" };
static const char *const dot[] = { "#08519c", "#a63603", "#006d2c", "#54278f", "#a50f15", "#252525" };
#define NCOLOR (sizeof fill / sizeof fill[0])

/* The colour of a verdict: green faster, red slower, amber too few, grey otherwise. */
static const char *verdict_colour(wt_verdict v)
{
    switch (v) {
    case WT_VERDICT_FASTER: return "#1a9850";
    case WT_VERDICT_SLOWER: return "#d73027";
    case WT_VERDICT_TOO_FEW: return "#d08000";
    default: break;
    }
    return "#737373";
}

static void xml_text(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default:
            /* control bytes are not allowed in XML 1.0 */
            fputc((unsigned char)*s < 0x20 ? '?' : *s, out);
        }
    }
}

static size_t stages_drawn(const wt_compare *c)
{
    return c->n_order > WT_SVG_MAX_STAGES ? WT_SVG_MAX_STAGES : c->n_order;
}

static double stage_max(const wt_compare *c, size_t s)
{
    double m = 0;
    for (size_t k = 0; k < c->config_keys.n; k++) {
        const double v = c->cells[k * c->stage_keys.n + s].s.max;
        if (!isnan(v) && v > m)
            m = v;
    }
    return m;
}

static double diff_span(const wt_cmp_pair_stage *ps)
{
    double m = 0;
    const double v[3] = { ps->paired.median, ps->paired.lo, ps->paired.hi };
    for (int i = 0; i < 3; i++)
        if (!isnan(v[i]) && fabs(v[i]) > m)
            m = fabs(v[i]);
    for (size_t i = 0; i < ps->paired.n; i++)
        if (fabs(ps->diff[i]) > m)
            m = fabs(ps->diff[i]);
    return m;
}

/* A tick step of 1, 2 or 5 times a power of ten giving at most `parts` intervals up to max. */
static double tick_step_n(double max, int parts)
{
    if (!(max > 0) || !isfinite(max))
        return 1;
    const double raw = max / parts, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}


/* The scale's end: the first tick at or above max (so the last tick closes the axis). */
static double nice_max_n(double max, int parts)
{
    const double step = tick_step_n(max, parts);
    const double n = ceil(max / step - 1e-9);
    return (n < 1 ? 1 : n) * step;
}

static double nice_max(double max)
{
    return nice_max_n(max, 5);
}

/* An axis from lo to hi ms with ticks at multiples of a round step, labelled with as many
 * decimals as the step needs (50, 0.2, 0.05). */
static void draw_ticks(FILE *out, double x0, double width, double lo, double hi, double y)
{
    const double step = tick_step_n(hi > -lo ? hi : -lo, lo < 0 ? 2 : 5);
    const int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n", x0, y, x0 + width, y);
    for (double v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-6; v += step) {
        const double x = x0 + (v - lo) / (hi - lo) * width;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n", x, y, x, y + 3);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">%.*f</text>\n", x, y + 12, dec,
                fabs(v) < step * 1e-6 ? 0.0 : v);
    }
}

static void draw_configs(const wt_compare *c, FILE *out, size_t s, double y, double scale)
{
    const size_t ns = c->stage_keys.n;
    char b[32];
    for (size_t k = 0; k < c->config_keys.n; k++, y += ROW_H) {
        const wt_cmp_cell *cell = &c->cells[k * ns + s];
        /* the median goes with the configuration's name, left of the bars: placed after the
         * bars it ran into the difference panel's text */
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"cfg\">", BAR_X - 8, y + 11);
        xml_text(out, c->configs[k].name);
        if (cell->s.n == 0) {
            fputs("</text>\n", out);
            fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"note\">absent</text>\n", BAR_X + 4, y + 11);
            continue;
        }
        fprintf(out, " %s ms (n %zu", wt_compare_fmt_ms(b, sizeof b, cell->s.median), cell->s.n);
        if (cell->hits || cell->misses)
            fprintf(out, ", %llu HIT / %llu MISS", (unsigned long long)cell->hits, (unsigned long long)cell->misses);
        fputs(")</text>\n", out);
        const double w = scale > 0 ? cell->s.median / scale * BAR_W : 0;
        fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", BAR_X,
                y + 2, w, ROW_H - 4, fill[k % NCOLOR]);
        for (size_t i = 0; i < c->configs[k].n_rounds; i++) {
            const double v = cell->per_round[i];
            if (isnan(v))
                continue;
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
                    BAR_X + (scale > 0 ? v / scale * BAR_W : 0), y + ROW_H / 2.0, dot[k % NCOLOR]);
            xml_text(out, c->configs[k].name);
            fprintf(out, " round %lld: %s ms</title></circle>\n",
                    (long long)c->rounds[c->configs[k].rounds[i]].number, wt_compare_fmt_ms(b, sizeof b, v));
        }
    }
    if (scale > 0)
        draw_ticks(out, BAR_X, BAR_W, 0, scale, y + 2);
}

static void draw_pairs(const wt_compare *c, FILE *out, size_t s, double y, double shared_span)
{
    char b1[32], b2[32], b3[32];
    const double zero = DIFF_X + DIFF_W / 2.0;
    for (size_t pi = 0; pi < c->n_pairs; pi++, y += 2 * ROW_H) {
        const wt_cmp_pair *p = &c->pairs[pi];
        const wt_cmp_pair_stage *ps = &p->stage[s];
        const char *colour = verdict_colour(ps->paired.verdict);
        const double span = shared_span > 0 ? shared_span : nice_max_n(diff_span(ps) * 1.05, 2);
        const double k = (DIFF_W / 2.0) / span, cy = y + ROW_H / 2.0;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"zero\"/>\n", zero,
                y, zero, y + ROW_H);
        for (size_t i = 0; i < ps->paired.n; i++)
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"#969696\"><title>pair %zu: %s ms</title></circle>\n",
                    zero + ps->diff[i] * k, cy, i + 1, wt_compare_fmt_ms(b1, sizeof b1, ps->diff[i]));
        if (!isnan(ps->paired.lo))
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
                    zero + ps->paired.lo * k, cy, zero + ps->paired.hi * k, cy, colour);
        if (!isnan(ps->paired.median))
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\" "
                         "transform=\"rotate(45 %.1f %.1f)\"/>\n",
                    zero + ps->paired.median * k - 3.5, cy - 3.5, colour, zero + ps->paired.median * k, cy);
        if (ps->paired.n)
            draw_ticks(out, DIFF_X, DIFF_W, -span, span, y + ROW_H + 1);
        /* right-aligned: a long verdict grows into the free end of the stage's title line */
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"verdict\" fill=\"%s\">", W - LABEL_X, y - 4, colour);
        xml_text(out, c->configs[p->a].name);
        fputs(" - ", out);
        xml_text(out, c->configs[p->b].name);
        const char *b = c->configs[p->b].name;
        if (ps->paired.n == 0) {
            fputs(": not comparable</text>\n", out);
            continue;
        }
        if (isnan(ps->paired.lo)) {
            fprintf(out, ": %s ms, ", wt_compare_fmt_ms(b1, sizeof b1, ps->paired.median));
            if (ps->paired.n && ps->more_pairs > 0)
                fprintf(out, "too few rounds (%ld more pairs)</text>\n", ps->more_pairs);
            else
                fputs(ps->paired.n ? "too few rounds</text>\n" : "not comparable</text>\n", out);
            continue;
        }
        fprintf(out, ": %s [%s, %s] ms: ", wt_compare_fmt_ms(b1, sizeof b1, ps->paired.median),
                wt_compare_fmt_ms(b2, sizeof b2, ps->paired.lo), wt_compare_fmt_ms(b3, sizeof b3, ps->paired.hi));
        if (ps->paired.verdict == WT_VERDICT_NOISE)
            fputs("within noise", out);
        else {
            xml_text(out, b);
            fputs(ps->paired.verdict == WT_VERDICT_FASTER ? " faster" : " slower", out);
        }
        fputs("</text>\n", out);
    }
}

static const wt_compare *effect_ctx; /* qsort has no context argument in C11 */

/* The effect of a stage: |saved| of the first pair; stages without one sort last. */
static double effect_of(const wt_compare *c, size_t s)
{
    if (!c->n_pairs)
        return -1;
    const double v = c->pairs[0].stage[s].saved;
    return isnan(v) ? -1 : fabs(v);
}

static int cmp_effect(const void *pa, const void *pb)
{
    const size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    if (effect_ctx->stages[a].is_round != effect_ctx->stages[b].is_round)
        return effect_ctx->stages[b].is_round - effect_ctx->stages[a].is_round;
    const double ea = effect_of(effect_ctx, a), eb = effect_of(effect_ctx, b);
    if (ea != eb)
        return ea < eb ? 1 : -1;
    return (a > b) - (a < b);
}

int wt_svg_write_ex(const wt_compare *c, const wt_svg_opts *opts, FILE *out)
{
    const int shared = opts && opts->shared_scale;
    const size_t nc = c->config_keys.n, nd = stages_drawn(c);
    size_t *order = malloc((c->n_order + 1) * sizeof *order);
    if (!order)
        return WT_ENOMEM;
    memcpy(order, c->stage_order, c->n_order * sizeof *order);
    effect_ctx = c;
    qsort(order, c->n_order, sizeof *order, cmp_effect);
    double bar_scale = 0, diff_scale = 0; /* shared: the largest of the stages drawn */
    for (size_t o = 0; o < nd && shared; o++) {
        const double m = stage_max(c, order[o]);
        bar_scale = m > bar_scale ? m : bar_scale;
        for (size_t p = 0; p < c->n_pairs; p++) {
            const double d = diff_span(&c->pairs[p].stage[order[o]]);
            diff_scale = d > diff_scale ? d : diff_scale;
        }
    }
    if (shared) {
        bar_scale = nice_max(bar_scale);
        diff_scale = nice_max_n(diff_scale * 1.05, 2);
    }
    const size_t rows = nc + 1 > 2 * c->n_pairs ? nc + 1 : 2 * c->n_pairs;
    const double block = HEAD_H + (double)rows * ROW_H + AXIS_H;
    const double height = 80 + (double)nd * block + 30;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%.0f\" "
                 "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
            W, height, W, height);
    fputs("<style>.cfg{text-anchor:end}.stage{font-weight:bold;font-size:12px}"
          ".note{fill:#525252}.parent{fill:#737373;font-size:10px}.zero{stroke:#252525;stroke-width:1}"
          ".axis{stroke:#969696;stroke-width:0.8}.tick{fill:#737373;font-size:9px;text-anchor:middle}"
          ".verdict{font-weight:bold;text-anchor:end}.title{font-size:15px;font-weight:bold}"
          "</style>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", out);
    fprintf(out, "<text x=\"%d\" y=\"22\" class=\"title\">walltime compare: ", LABEL_X);
    for (size_t k = 0; k < nc; k++) {
        fputs(k ? " vs " : "", out);
        xml_text(out, c->configs[k].name);
    }
    fprintf(out, " (%s mode)</text>\n", c->opt.runs ? "runs" : "rounds");
    fprintf(out, "<text x=\"%d\" y=\"40\" class=\"note\">Left: each configuration's median (bar) and every "
                 "round (dots), in ms, %s. Stages by effect, largest first.</text>\n"
                 "<text x=\"%d\" y=\"54\" class=\"note\">Right: A - B of each pair of rounds (grey), their "
                 "median (diamond) and %.0f%% interval (line); right of the zero line, B saves time.</text>\n"
                 "<text x=\"%d\" y=\"68\" class=\"note\">Verdicts: <tspan fill=\"#1a9850\">faster</tspan>, "
                 "<tspan fill=\"#d73027\">slower</tspan>, <tspan fill=\"#737373\">within noise</tspan>, "
                 "<tspan fill=\"#d08000\">too few rounds</tspan>.</text>\n",
            LABEL_X, shared ? "one scale for every stage" : "each stage on its own scale (see its ticks)",
            LABEL_X, 100 * c->opt.confidence, LABEL_X);
    double y = 90;
    for (size_t o = 0; o < nd; o++, y += block) {
        const size_t s = order[o];
        const wt_cmp_stage *st = &c->stages[s];
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#d9d9d9\"/>\n", LABEL_X,
                y - 4, W - LABEL_X, y - 4);
        fprintf(out, "<text x=\"%d\" y=\"%.1f\"><tspan class=\"stage\">", LABEL_X, y + 12);
        xml_text(out, st->is_round ? (c->opt.runs ? "whole run" : "whole round") : st->display);
        fputs("</tspan>", out);
        const int labels = st->kind == WT_CMP_STAGE_ROLLUP || st->kind == WT_CMP_STAGE_CATEGORY;
        const int in = !st->is_round && st->parent > 0;
        if (labels || in) {
            /* dx, not a leading space: renderers collapse it */
            fputs("<tspan class=\"parent\" dx=\"8\">", out);
            if (labels)
                fprintf(out, "%zu%s labels%s", st->n_labels, st->labels_more ? "+" : "", in ? ", " : "");
            if (in) {
                fputs("in ", out);
                xml_text(out, c->stages[st->parent].display);
            }
            fputs("</tspan>", out);
        }
        fputs("</text>\n", out);
        draw_configs(c, out, s, y + HEAD_H, shared ? bar_scale : nice_max(stage_max(c, s)));
        draw_pairs(c, out, s, y + HEAD_H, shared ? diff_scale : 0);
    }
    if (c->n_order > nd)
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"note\">%zu more stages in the text report</text>\n",
                LABEL_X, y + 14, c->n_order - nd);
    if (c->n_warnings)
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"note\">%zu warning%s: see the text report</text>\n",
                W / 2, y + 14, c->n_warnings, c->n_warnings == 1 ? "" : "s");
    fputs("</svg>\n", out);
    free(order);
    return ferror(out) ? WT_EIO : 0;
}

int wt_svg_write(const wt_compare *c, FILE *out)
{
    return wt_svg_write_ex(c, NULL, out);
}
