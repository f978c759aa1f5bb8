/* compare's SVG chart (svg.h). Geometry: a label column, a bar panel where x is ms from 0 to
 * the stage's largest round (so bars and dots of one stage share a scale), and a difference
 * panel where x is A - B in ms, symmetric around a zero line. Each stage gets its own scales:
 * stages differ by orders of magnitude, and a shared axis would flatten the small ones. */
#include "svg.h"

#include <math.h>
#include <string.h>

#define W 1000
#define LABEL_X 12
#define BAR_X 250
#define BAR_W 400
#define DIFF_X 690
#define DIFF_W 290
#define ROW_H 16
#define HEAD_H 20

static const char *const fill[] = { "#9ecae1", "#fdae6b", "#a1d99b", "#bcbddc", "#fc9272", "#d9d9d9" };
static const char *const dot[] = { "#08519c", "#a63603", "#006d2c", "#54278f", "#a50f15", "#252525" };
#define NCOLOR (sizeof fill / sizeof fill[0])

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
    return m > 0 ? m * 1.1 : 1;
}

static void draw_configs(const wt_compare *c, FILE *out, size_t s, double y)
{
    const size_t ns = c->stage_keys.n;
    const double scale = stage_max(c, s);
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
        fprintf(out, " %s ms (n %zu)</text>\n", wt_compare_fmt_ms(b, sizeof b, cell->s.median), cell->s.n);
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
}

static void draw_pairs(const wt_compare *c, FILE *out, size_t s, double y)
{
    char b1[32], b2[32], b3[32];
    const double zero = DIFF_X + DIFF_W / 2.0;
    for (size_t pi = 0; pi < c->n_pairs; pi++, y += 2 * ROW_H) {
        const wt_cmp_pair *p = &c->pairs[pi];
        const wt_cmp_pair_stage *ps = &p->stage[s];
        const double span = diff_span(ps), k = (DIFF_W / 2.0) / span, cy = y + ROW_H / 2.0;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"zero\"/>\n", zero,
                y, zero, y + ROW_H);
        for (size_t i = 0; i < ps->paired.n; i++)
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"#969696\"/>\n",
                    zero + ps->diff[i] * k, cy);
        if (!isnan(ps->paired.lo))
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"ci\"/>\n",
                    zero + ps->paired.lo * k, cy, zero + ps->paired.hi * k, cy);
        if (!isnan(ps->paired.median))
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" class=\"med\" "
                         "transform=\"rotate(45 %.1f %.1f)\"/>\n",
                    zero + ps->paired.median * k - 3, cy - 3, zero + ps->paired.median * k, cy);
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"note\">", DIFF_X, y + ROW_H + 11);
        xml_text(out, c->configs[p->a].name);
        fputs(" - ", out);
        xml_text(out, c->configs[p->b].name);
        const char *b = c->configs[p->b].name;
        if (isnan(ps->paired.lo)) {
            fprintf(out, ": %s ms, %s</text>\n", wt_compare_fmt_ms(b1, sizeof b1, ps->paired.median),
                    ps->paired.n ? "too few rounds to tell" : "not comparable");
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

int wt_svg_write(const wt_compare *c, const wt_svg_opts *opts, FILE *out)
{
    const size_t nc = c->config_keys.n, nd = stages_drawn(c);
    const size_t rows = nc > 2 * c->n_pairs ? nc : 2 * c->n_pairs;
    const double block = HEAD_H + (double)rows * ROW_H + 12;
    const double height = 76 + (double)nd * block + 30;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%.0f\" "
                 "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
            W, height, W, height);
    fputs("<style>.cfg{text-anchor:end}.stage{font-weight:bold;font-size:12px}"
          ".note{fill:#525252}.val{fill:#252525}.zero{stroke:#252525;stroke-width:1}"
          ".ci{stroke:#cb181d;stroke-width:3}.med{fill:#cb181d}.title{font-size:15px;font-weight:bold}"
          "</style>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", out);
    fprintf(out, "<text x=\"%d\" y=\"22\" class=\"title\">walltime compare: ", LABEL_X);
    for (size_t k = 0; k < nc; k++) {
        fputs(k ? " vs " : "", out);
        xml_text(out, c->configs[k].name);
    }
    fprintf(out, " (%s mode)</text>\n", c->opt.runs ? "runs" : "rounds");
    fprintf(out, "<text x=\"%d\" y=\"40\" class=\"note\">Left: each configuration's median (bar, and "
                 "beside its name) and every round (dots), in ms, one scale per stage.</text>\n"
                 "<text x=\"%d\" y=\"54\" class=\"note\">Right: A - B of each pair of rounds (grey), "
                 "their median (red diamond) and %.0f%% interval (red line); right of the black zero line, "
                 "B saves time.</text>\n",
            LABEL_X, LABEL_X, 100 * c->opt.confidence);
    double y = 76;
    for (size_t o = 0; o < nd; o++, y += block) {
        const size_t s = c->stage_order[o];
        const wt_cmp_stage *st = &c->stages[s];
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#d9d9d9\"/>\n", LABEL_X,
                y - 4, W - LABEL_X, y - 4);
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"stage\">", LABEL_X + 10 * (int)(st->depth > 6 ? 6 : st->depth), y + 12);
        xml_text(out, st->is_round ? (c->opt.runs ? "whole run" : "whole round") : st->display);
        fputs(" (ms)</text>\n", out);
        draw_configs(c, out, s, y + HEAD_H);
        draw_pairs(c, out, s, y + HEAD_H);
    }
    if (c->n_order > nd)
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"note\">%zu more stages in the text report</text>\n",
                LABEL_X, y + 14, c->n_order - nd);
    if (c->n_warnings)
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"note\">%zu warning%s: see the text report</text>\n",
                W / 2, y + 14, c->n_warnings, c->n_warnings == 1 ? "" : "s");
    fputs("</svg>\n", out);
    return ferror(out) ? WT_EIO : 0;
}
