/* trend --svg (trend.h): a column of small charts, one per change. Each: x the runs of the
 * series in order, y inclusive seconds from 0 to the largest shown; dots per run, the change's run
 * marked by a red line, the level before (grey) and after (red) as dashed lines, and a title
 * with what changed where. No scripts or external references. */
#include "trend.h"

#include <string.h>

#include "walltime/error.h"

#define CW 720     /* chart width */
#define CH 150     /* chart height, with its title */
#define PAD 40
#define PLOT_TOP 28
#define PLOT_H 100

/* XML character data: markup characters as entities, control bytes (not XML 1.0) as '?'. */
static void put_xml(FILE *out, const char *s)
{
    static const char *const ent[] = { ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;",
                                       ['"'] = "&quot;" };
    for (; s && *s; s++) {
        unsigned char b = (unsigned char)*s;
        if (b < sizeof ent / sizeof ent[0] && ent[b])
            fputs(ent[b], out);
        else
            fputc(b < 0x20 ? '?' : b, out);
    }
}

static void chart(FILE *out, const wt_trend_chart *ch, const wt_trend_change *c, int row)
{
    const int y0 = row * CH;
    double top = 0;
    for (size_t i = 0; i < ch->n; i++)
        if (ch->v[i] > top)
            top = ch->v[i];
    if (c->before_s > top)
        top = c->before_s;
    if (c->after_s > top)
        top = c->after_s;
    top = top > 0 ? top * 1.1 : 1;
    const double dx = ch->n > 1 ? (double)(CW - 2 * PAD) / (double)(ch->n - 1) : 0;
#define X(i) (PAD + dx * (double)(i))
#define Y(v) (y0 + PLOT_TOP + PLOT_H - (v) / top * PLOT_H)
    const double d = c->after_s - c->before_s;
    fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"13\">", PAD, y0 + 16);
    put_xml(out, c->group);
    fputs(" \xC2\xB7 ", out);
    put_xml(out, c->category);
    fprintf(out, ": %.6f \xE2\x86\x92 %.6f s (%+.6f s, %+.1f%%) at ", c->before_s, c->after_s, d,
            c->before_s > 0 ? 100 * d / c->before_s : 0.0);
    put_xml(out, c->file);
    fprintf(out, ", run %lld of %lld in the group, ", (long long)c->run_in_group,
            (long long)c->group_runs);
    put_xml(out, c->host);
    fputs(" ", out);
    put_xml(out, c->run_id);
    fputs("</text>\n", out);
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                 "stroke=\"#ccc\"/>\n",
            PAD, y0 + PLOT_TOP, CW - 2 * PAD, PLOT_H);
    fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%.3g s</text>\n",
            PAD - 4, Y(top) + 10, top);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" "
                 "stroke-dasharray=\"4 3\"/>\n",
            X(0), Y(c->before_s), X(ch->at), Y(c->before_s));
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" "
                 "stroke-dasharray=\"4 3\"/>\n",
            X(ch->at), Y(c->after_s), X(ch->n ? ch->n - 1 : 0), Y(c->after_s));
    fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c00\"/>\n",
            X(ch->at), y0 + PLOT_TOP, X(ch->at), y0 + PLOT_TOP + PLOT_H);
    for (size_t i = 0; i < ch->n; i++)
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>\n", X(i), Y(ch->v[i]),
                i < ch->at ? "#3465a4" : "#c00");
#undef X
#undef Y
}

int wt_trend_svg_write(const wt_trend_result *r, FILE *out)
{
    const int rows = r->n_charts ? (int)r->n_charts : 1;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
                 "height=\"%d\" font-family=\"sans-serif\">\n"
                 "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            CW, rows * CH);
    if (!r->n_charts)
        fprintf(out, "<text x=\"%d\" y=\"30\" font-size=\"13\">no change in %lld runs</text>\n",
                PAD, (long long)r->runs);
    for (size_t i = 0; i < r->n_charts; i++)
        chart(out, &r->charts[i], &r->changes[r->charts[i].change], (int)i);
    fputs("</svg>\n", out);
    return ferror(out) ? WT_EIO : 0;
}
