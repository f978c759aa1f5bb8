/* The ledger table, shared by the recorder's exit print and the analyzer: the seed's layout
 * (walltime.py render()) for the flat table, and the reconciled layout built on it. Python's
 * format specs map one to one onto printf here: {:<18} is %-18s (pads, never truncates),
 * {:>10.1f} is %10.1f; both round the exact binary value half to even, so the digits agree.
 * The one readable precision rule of every human output, wt_ledger_fmt_seconds(), lives here
 * too. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "walltime/ledger.h"

#define RULE_WIDTH 74
/* The reconciled layout's columns: name, self, %wall, inclusive, count (minimum widths). */
#define W_NAME 18
#define W_SELF 10
#define W_PCT 8
#define W_INCL 11
#define W_COUNT 8

/* snprintf(buf, n, "%s%.*f %s", sign, prec, v, unit) for 0 <= v, prec <= 3, without printf's
 * multiple-precision arithmetic (1,400 instructions a call; the anomalies call this three
 * times for each of up to 10,000 listed findings): the digits of v * 10^prec rounded to an
 * integer. printf rounds the exact binary value, half to even. With prec 0 the fraction is
 * exact and a tie goes to even; otherwise v * 10^prec (below 10^6 here) is within 2^-33 of the
 * exact product, so a fraction more than 1e-6 from one half rounds as the exact one does, and
 * one nearer gives 0: the caller asks printf. Returns 0 too for v too large for the integers,
 * or for a text longer than n. */
static int fixed_digits(char *buf, size_t n, const char *sign, double v, int prec,
                        const char *unit)
{
    static const double scale[] = { 1, 10, 100, 1000 };
    const double x = v * scale[prec];
    if (!(x < 1e15))
        return 0;
    const double whole = floor(x), frac = x - whole;
    uint64_t r = (uint64_t)whole;
    if (prec == 0)
        r += frac > 0.5 || (frac == 0.5 && (r & 1));
    else if (fabs(frac - 0.5) > 1e-6)
        r += frac > 0.5;
    else
        return 0;
    char d[24]; /* the digits, last first: at least prec + 1 of them */
    int nd = 0;
    do {
        d[nd++] = (char)('0' + r % 10);
        r /= 10;
    } while (r || nd <= prec);
    const size_t len = strlen(sign) + (size_t)nd + (prec > 0) + 1 + strlen(unit);
    if (len >= n)
        return 0;
    char *o = buf;
    for (const char *c = sign; *c; c++)
        *o++ = *c;
    while (nd > prec)
        *o++ = d[--nd];
    if (prec) {
        *o++ = '.';
        while (nd > 0)
            *o++ = d[--nd];
    }
    *o++ = ' ';
    for (const char *c = unit; *c; c++)
        *o++ = *c;
    *o = '\0';
    return 1;
}

/* fixed_digits(), or printf where it declines. */
static void fixed(char *buf, size_t n, const char *sign, double v, int prec, const char *unit)
{
    if (!fixed_digits(buf, n, sign, v, prec, unit))
        snprintf(buf, n, "%s%.*f %s", sign, prec, v, unit);
}

const char *wt_ledger_fmt_seconds(char *buf, size_t n, double seconds)
{
    if (n == 0)
        return buf;
    if (!isfinite(seconds)) {
        snprintf(buf, n, "-");
        return buf;
    }
    const char *sign = seconds < 0 ? "-" : "";
    const double v = fabs(seconds);
    const double ms = v * 1e3;
    /* thresholds are where rounding to three significant digits carries into a new digit */
    if (v == 0.0)
        snprintf(buf, n, "0 ms");
    else if (ms < 0.9995)
        fixed(buf, n, sign, ms, 3, "ms");
    else if (ms < 9.995)
        fixed(buf, n, sign, ms, 2, "ms");
    else if (ms < 99.95)
        fixed(buf, n, sign, ms, 1, "ms");
    else if (ms < 999.5)
        fixed(buf, n, sign, ms, 0, "ms");
    else if (v < 9.995)
        fixed(buf, n, sign, v, 2, "s");
    else if (v < 99.95)
        fixed(buf, n, sign, v, 1, "s");
    else
        fixed(buf, n, sign, v, 0, "s");
    return buf;
}

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

/* The seed's table, byte for byte. */
static void render_seed_rows(FILE *out, const wt_ledger_table *t, const wt_ledger_totals *tot)
{
    fprintf(out, "%-18s%10s%8s%8s   notes\n", "category", "seconds", "%wall", "count");
    for (size_t i = 0; i < t->n_rows; i++) {
        const wt_ledger_row *r = &t->rows[i];
        fprintf(out, "%-18s%10.1f%7.1f%%%8lld   ", or_empty(r->name), r->seconds,
                100.0 * r->seconds / tot->denom, (long long)r->count);
        if (r->hits || r->misses)
            fprintf(out, "%lld HIT / %lld MISS", (long long)r->hits, (long long)r->misses);
        fputc('\n', out);
    }
    fprintf(out, "%-18s%10.1f%7.1f%%\n", "untracked", tot->untracked,
            100.0 * tot->untracked / tot->denom);
    rule(out, '-');
    fprintf(out, "%-18s%10.1f%7.1f%%\n", "TOTAL (tracked)", tot->tracked,
            100.0 * tot->tracked / tot->denom);
    fprintf(out, "%-18s%10.1f%7.1f%%\n", "TOTAL (wall)", tot->wall, 100.0);
}

/* Column widths of the reconciled layout: each at least its minimum, else its widest cell
 * plus two spaces, so that no value runs into its neighbour. */
typedef struct widths {
    int self, incl, count;
} widths;

static int max_i(int a, int b) { return a > b ? a : b; }

static int sec_len(double s)
{
    char b[WT_LEDGER_SECONDS_MAX];
    return (int)strlen(wt_ledger_fmt_seconds(b, sizeof b, s));
}

static int count_len(int64_t c)
{
    char b[32];
    return snprintf(b, sizeof b, "%lld", (long long)c);
}

static widths widths_of(const wt_ledger_table *t, const wt_ledger_extras *x,
                        const wt_ledger_totals *tot)
{
    widths w = { W_SELF, W_INCL, W_COUNT };
    for (size_t i = 0; i < t->n_rows; i++) {
        w.self = max_i(w.self, sec_len(t->rows[i].seconds) + 2);
        w.incl = max_i(w.incl, sec_len(t->rows[i].inclusive) + 2);
        w.count = max_i(w.count, count_len(t->rows[i].count) + 2);
    }
    w.self = max_i(w.self, sec_len(tot->wall) + 2);
    w.self = max_i(w.self, sec_len(tot->tracked) + 2);
    w.self = max_i(w.self, sec_len(tot->untracked) + 2);
    for (size_t i = 0; i < x->n_facts; i++) {
        if (x->facts[i].has_seconds)
            w.self = max_i(w.self, sec_len(x->facts[i].seconds) + 2);
        w.count = max_i(w.count, count_len(x->facts[i].count) + 2);
    }
    return w;
}

/* A line of the reconciled layout; any column but the name may be NULL (blank). Columns
 * after the last one given are left out, so that no line ends in spaces. */
static void line(FILE *out, const widths *w, const char *name, const char *self, const char *pct,
                 const char *incl, const char *count, const char *notes)
{
    const char *col[4] = { self, pct, incl, count };
    const int width[4] = { w->self, W_PCT, w->incl, w->count };
    int last = notes && *notes ? 3 : -1;
    for (int i = 0; i < 4; i++)
        if (col[i])
            last = last > i ? last : i;
    fprintf(out, "%-*s", W_NAME, name);
    for (int i = 0; i <= last; i++)
        fprintf(out, "%*s", width[i], col[i] ? col[i] : "");
    if (notes && *notes)
        fprintf(out, "   %s", notes);
    fputc('\n', out);
}

static const char *pct_of(char *b, size_t n, double v, double denom)
{
    snprintf(b, n, "%.1f%%", 100.0 * v / denom);
    return b;
}

static void render_reconciled_rows(FILE *out, const wt_ledger_table *t, const wt_ledger_extras *x,
                                   const wt_ledger_totals *tot)
{
    const widths w = widths_of(t, x, tot);
    char s[WT_LEDGER_SECONDS_MAX], inc[WT_LEDGER_SECONDS_MAX], pct[32], cnt[32], notes[512];
    line(out, &w, "category", "self", "%wall", "inclusive", "count", "notes");
    for (size_t i = 0; i < t->n_rows; i++) {
        const wt_ledger_row *r = &t->rows[i];
        size_t k = 0;
        notes[0] = '\0';
        if (r->hits || r->misses)
            k += (size_t)snprintf(notes, sizeof notes, "%lld HIT / %lld MISS", (long long)r->hits,
                                  (long long)r->misses);
        if (x->row_notes && x->row_notes[i] && *x->row_notes[i] && k < sizeof notes)
            snprintf(notes + k, sizeof notes - k, "%s%s", k ? "  " : "", x->row_notes[i]);
        snprintf(cnt, sizeof cnt, "%lld", (long long)r->count);
        line(out, &w, or_empty(r->name), wt_ledger_fmt_seconds(s, sizeof s, r->seconds),
             pct_of(pct, sizeof pct, r->seconds, tot->denom),
             wt_ledger_fmt_seconds(inc, sizeof inc, r->inclusive), cnt, notes);
    }
    line(out, &w, "untracked", wt_ledger_fmt_seconds(s, sizeof s, tot->untracked),
         pct_of(pct, sizeof pct, tot->untracked, tot->denom), NULL, NULL, NULL);
    rule(out, '-');
    line(out, &w, "TOTAL (tracked)", wt_ledger_fmt_seconds(s, sizeof s, tot->tracked),
         pct_of(pct, sizeof pct, tot->tracked, tot->denom), NULL, NULL, NULL);
    line(out, &w, "TOTAL (wall)", wt_ledger_fmt_seconds(s, sizeof s, tot->wall), "100.0%", NULL,
         NULL, NULL);
    for (size_t i = 0; i < x->n_facts; i++) {
        const wt_ledger_fact *f = &x->facts[i];
        snprintf(cnt, sizeof cnt, "%lld", (long long)f->count);
        line(out, &w, or_empty(f->name),
             f->has_seconds ? wt_ledger_fmt_seconds(s, sizeof s, f->seconds) : NULL, NULL, NULL,
             cnt, or_empty(f->note));
    }
}

int wt_ledger_render(FILE *out, const wt_ledger_table *t, const wt_ledger_extras *x)
{
    wt_ledger_totals tot;
    wt_ledger_totals_of(t, &tot);

    fputc('\n', out);
    rule(out, '=');
    fprintf(out, "WALL-TIME LEDGER \xc2\xb7 %s\n", or_empty(t->title));
    rule(out, '-');
    if (x)
        render_reconciled_rows(out, t, x, &tot);
    else
        render_seed_rows(out, t, &tot);
    if (x && x->sections)
        x->sections(out, x->sections_ctx);
    fputc('\n', out);
    if (x && x->anomalies) {
        if (x->n_anomalies) {
            fputs("ANOMALIES:\n", out);
            for (size_t i = 0; i < x->n_anomalies; i++) {
                const char *a = or_empty(x->anomalies[i]);
                /* a continuation line (leading space) belongs to the item above it */
                fprintf(out, a[0] == ' ' ? "  %s\n" : "  - %s\n", a);
            }
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
