/* The seed's ledger table (walltime.py render()), shared by the recorder's exit print and the
 * analyzer. Python's format specs map one to one onto printf here: {:<18} is %-18s (pads,
 * never truncates), {:>10.1f} is %10.1f; both round the exact binary value half to even, so
 * the digits agree. */
#include <stdio.h>
#include <string.h>

#include "walltime/ledger.h"

#define RULE_WIDTH 74

void wt_ledger_totals_of(const wt_ledger_table *t, wt_ledger_totals *out)
{
    double tracked = 0.0;
    for (size_t i = 0; i < t->n_rows; i++)
        tracked += t->rows[i].seconds;
    out->tracked = tracked;
    /* never report a wall smaller than what was measured */
    out->wall = t->wall > tracked ? t->wall : tracked;
    out->untracked = out->wall - tracked;
    out->denom = out->wall != 0.0 ? out->wall : 1.0;
}

static void rule(FILE *out, char c)
{
    char line[RULE_WIDTH + 2];
    memset(line, c, RULE_WIDTH);
    line[RULE_WIDTH] = '\n';
    line[RULE_WIDTH + 1] = '\0';
    fputs(line, out);
}

static const char *or_empty(const char *s) { return s ? s : ""; }

int wt_ledger_render_flat(FILE *out, const wt_ledger_table *t)
{
    return wt_ledger_render(out, t, NULL);
}

int wt_ledger_render(FILE *out, const wt_ledger_table *t, const wt_ledger_extras *x)
{
    wt_ledger_totals tot;
    wt_ledger_totals_of(t, &tot);

    fputc('\n', out);
    rule(out, '=');
    fprintf(out, "WALL-TIME LEDGER \xc2\xb7 %s\n", or_empty(t->title));
    rule(out, '-');
    fprintf(out, "%-18s%10s%8s%8s   notes\n", "category", "seconds", "%wall", "count");
    for (size_t i = 0; i < t->n_rows; i++) {
        const wt_ledger_row *r = &t->rows[i];
        fprintf(out, "%-18s%10.1f%7.1f%%%8lld   ", or_empty(r->name), r->seconds,
                100.0 * r->seconds / tot.denom, (long long)r->count);
        if (r->hits || r->misses)
            fprintf(out, "%lld HIT / %lld MISS", (long long)r->hits, (long long)r->misses);
        if (x && x->row_notes && x->row_notes[i] && *x->row_notes[i])
            fprintf(out, "%s%s", r->hits || r->misses ? "  " : "", x->row_notes[i]);
        fputc('\n', out);
    }
    fprintf(out, "%-18s%10.1f%7.1f%%\n", "untracked", tot.untracked,
            100.0 * tot.untracked / tot.denom);
    rule(out, '-');
    fprintf(out, "%-18s%10.1f%7.1f%%\n", "TOTAL (tracked)", tot.tracked,
            100.0 * tot.tracked / tot.denom);
    fprintf(out, "%-18s%10.1f%7.1f%%\n", "TOTAL (wall)", tot.wall, 100.0);
    for (size_t i = 0; x && i < x->n_facts; i++) {
        const wt_ledger_fact *f = &x->facts[i];
        if (f->has_seconds)
            fprintf(out, "%-18s%10.1f%8s%8lld   %s\n", or_empty(f->name), f->seconds, "",
                    (long long)f->count, or_empty(f->note));
        else
            fprintf(out, "%-18s%10s%8s%8lld   %s\n", or_empty(f->name), "", "",
                    (long long)f->count, or_empty(f->note));
    }
    if (x && x->sections)
        x->sections(out, x->sections_ctx);
    fputc('\n', out);
    if (x && x->anomalies) {
        if (x->n_anomalies) {
            fputs("ANOMALIES:\n", out);
            /* a line that starts with a space is a member of the group headed above it */
            for (size_t i = 0; i < x->n_anomalies; i++)
                fprintf(out, or_empty(x->anomalies[i])[0] == ' ' ? "     %s\n" : "  - %s\n",
                        or_empty(x->anomalies[i]));
        } else {
            fputs("ANOMALIES: none\n", out);
        }
    } else if (t->n_misses) {
        fputs("ANOMALIES:\n", out);
        for (size_t i = 0; i < t->n_misses; i++) {
            const wt_ledger_miss *m = &t->misses[i];
            const char *detail = m->detail && *m->detail ? m->detail : WT_LEDGER_MISS_DEFAULT;
            fprintf(out, "  - CACHE MISS: %s %s (%.1fs) \xe2\x80\x94 %s\n", or_empty(m->category),
                    or_empty(m->label), m->seconds, detail);
        }
    } else {
        fputs("ANOMALIES: none\n", out);
    }
    rule(out, '=');
    return ferror(out) ? WT_EIO : 0;
}
