/* Stragglers by host and rank: see hostrank.h. */
#include "hostrank.h"

#include <stdlib.h>
#include <string.h>

#include "walltime/error.h"
#include "walltime/ledger.h"
#include "walltime/reader.h"

typedef struct hr_row {
    const wt_ledger_process *p;
    char *host;
} hr_row;

static int row_cmp(const void *a, const void *b)
{
    const hr_row *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    if (c)
        return c;
    int64_t rx = x->p->has_rank ? x->p->rank : INT64_MAX, ry = y->p->has_rank ? y->p->rank : INT64_MAX;
    if (rx != ry)
        return rx < ry ? -1 : 1;
    return x->p->pid < y->p->pid ? -1 : x->p->pid > y->p->pid;
}

static char *host_of(const char *path)
{
    wt_reader *r = NULL;
    char *h = NULL;
    if (path && wt_reader_open(path, &r) == 0 && wt_reader_info(r)->host)
        h = strdup(wt_reader_info(r)->host);
    else
        h = strdup("?");
    wt_reader_free(r);
    return h;
}

/* The categories shown: the largest stragglers first. */
static size_t pick_cats(const wt_ledger_result *r, size_t *cats)
{
    size_t n = 0;
    for (size_t c = 0; c < r->n_cats; c++) {
        size_t at = n < WT_HOSTRANK_MAX_CATS ? n++ : WT_HOSTRANK_MAX_CATS;
        if (at == WT_HOSTRANK_MAX_CATS) {
            if (r->cats[c].straggler <= r->cats[cats[n - 1]].straggler)
                continue;
            at = n - 1;
        }
        while (at > 0 && r->cats[cats[at - 1]].straggler < r->cats[c].straggler) {
            cats[at] = cats[at - 1];
            at--;
        }
        cats[at] = c;
    }
    return n;
}

static void cell(FILE *out, double s, int mark)
{
    char buf[WT_LEDGER_SECONDS_MAX];
    fprintf(out, " %12s%c", wt_ledger_fmt_seconds(buf, sizeof buf, s), mark ? mark : ' ');
}

int wt_hostrank_render(const wt_ledger_result *r, FILE *out)
{
    if (r->n_procs < 2)
        return 0;
    hr_row *rows = calloc(r->n_procs, sizeof *rows);
    if (!rows)
        return WT_ENOMEM;
    int rc = 0, hosts = 1;
    for (size_t i = 0; i < r->n_procs && rc == 0; i++) {
        rows[i].p = &r->procs[i];
        if (!(rows[i].host = host_of(r->procs[i].path)))
            rc = WT_ENOMEM;
    }
    if (rc == 0) {
        qsort(rows, r->n_procs, sizeof *rows, row_cmp);
        for (size_t i = 1; i < r->n_procs; i++)
            hosts += strcmp(rows[i].host, rows[i - 1].host) != 0;
    }
    if (rc == 0 && hosts > 1) {
        size_t cats[WT_HOSTRANK_MAX_CATS];
        const size_t nc = pick_cats(r, cats);
        fprintf(out, "\nSTRAGGLERS BY HOST AND RANK (self seconds; * slowest of all, + slowest of "
                     "its host)\n%-20s %8s %10s",
                "host", "rank", "pid");
        for (size_t k = 0; k < nc; k++)
            fprintf(out, " %12.12s ", r->cats[cats[k]].name);
        fputc('\n', out);
        for (size_t i = 0; i < r->n_procs; i++) {
            const wt_ledger_process *p = rows[i].p;
            char rank[24] = "-";
            if (p->has_rank)
                snprintf(rank, sizeof rank, "%lld", (long long)p->rank);
            fprintf(out, "%-20.20s %8s %10llu", rows[i].host, rank, (unsigned long long)p->pid);
            for (size_t k = 0; k < nc; k++) {
                const size_t c = cats[k];
                const double s = p->cat_seconds[c];
                int slowest_host = s > 0;
                for (size_t j = 0; j < r->n_procs && slowest_host; j++)
                    if (j != i && !strcmp(rows[j].host, rows[i].host) &&
                        rows[j].p->cat_seconds[c] > s)
                        slowest_host = 0;
                cell(out, s, p == &r->procs[r->cats[c].straggler_proc] ? '*'
                             : slowest_host                            ? '+'
                                                                       : 0);
            }
            fputc('\n', out);
        }
        fprintf(out, "%-40s", "straggler (max - median)");
        for (size_t k = 0; k < nc; k++)
            cell(out, r->cats[cats[k]].straggler, 0);
        fputc('\n', out);
        if (ferror(out))
            rc = WT_EIO;
    }
    for (size_t i = 0; i < r->n_procs; i++)
        free(rows[i].host);
    free(rows);
    return rc;
}
