/* Stragglers by host and rank, text and JSON: see hostrank.h. */
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

static void hr_free(hr_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++)
        free(rows[i].host);
    free(rows);
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

/* The processes sorted by host, rank and pid, each with its host; *hosts: distinct hosts.
 * Returns 0 or WT_ENOMEM (*rows freed). */
static int hr_rows(const wt_ledger_result *r, hr_row **out, size_t *hosts)
{
    *out = NULL;
    *hosts = 0;
    hr_row *rows = calloc(r->n_procs ? r->n_procs : 1, sizeof *rows);
    if (!rows)
        return WT_ENOMEM;
    for (size_t i = 0; i < r->n_procs; i++) {
        rows[i].p = &r->procs[i];
        if (!(rows[i].host = host_of(r->procs[i].path))) {
            hr_free(rows, r->n_procs);
            return WT_ENOMEM;
        }
    }
    qsort(rows, r->n_procs, sizeof *rows, row_cmp);
    *hosts = r->n_procs > 0;
    for (size_t i = 1; i < r->n_procs; i++)
        *hosts += strcmp(rows[i].host, rows[i - 1].host) != 0;
    *out = rows;
    return 0;
}

/* Whether row i is the slowest of its host in category c (ties: every one of them; a host
 * that spent nothing in c has none). Rows of a host are adjacent. */
static int slowest_of_host(const hr_row *rows, size_t n, size_t i, size_t c)
{
    const double s = rows[i].p->cat_seconds[c];
    if (!(s > 0))
        return 0;
    for (size_t j = i; j-- > 0 && !strcmp(rows[j].host, rows[i].host);)
        if (rows[j].p->cat_seconds[c] > s)
            return 0;
    for (size_t j = i + 1; j < n && !strcmp(rows[j].host, rows[i].host); j++)
        if (rows[j].p->cat_seconds[c] > s)
            return 0;
    return 1;
}

int wt_hostrank_render(const wt_ledger_result *r, FILE *out)
{
    if (r->n_procs < 2)
        return 0;
    hr_row *rows;
    size_t hosts;
    int rc = hr_rows(r, &rows, &hosts);
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
                cell(out, p->cat_seconds[c], p == &r->procs[r->cats[c].straggler_proc] ? '*'
                                             : slowest_of_host(rows, r->n_procs, i, c) ? '+'
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
    hr_free(rows, r->n_procs);
    return rc;
}

static int dcmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Per category of one host's rows [a, b): the median and the max of its processes' seconds. */
static void host_stats(const wt_ledger_result *r, const hr_row *rows, size_t a, size_t b,
                       double *tmp, wt_json *j)
{
    static const char *const keys[2] = { "median_s", "max_s" };
    for (int k = 0; k < 2; k++) {
        wt_json_object_begin(j, keys[k]);
        for (size_t c = 0; c < r->n_cats; c++) {
            const size_t n = b - a;
            for (size_t i = 0; i < n; i++)
                tmp[i] = rows[a + i].p->cat_seconds[c];
            qsort(tmp, n, sizeof *tmp, dcmp);
            const double v = k ? tmp[n - 1] : n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
            wt_json_fixed(j, r->cats[c].name, v, 9);
        }
        wt_json_object_end(j);
    }
}

int wt_hostrank_json(const wt_ledger_result *r, wt_json *j)
{
    if (r->n_procs < 2)
        return 0;
    hr_row *rows;
    size_t hosts;
    int rc = hr_rows(r, &rows, &hosts);
    double *tmp = rc == 0 && hosts > 1 ? malloc(r->n_procs * sizeof *tmp) : NULL;
    if (rc == 0 && hosts > 1 && !tmp)
        rc = WT_ENOMEM;
    if (rc == 0 && hosts > 1) {
        wt_json_object_begin(j, "stragglers_by_host");
        wt_json_int(j, "hosts", (int64_t)hosts);
        wt_json_array_begin(j, "processes");
        for (size_t i = 0; i < r->n_procs; i++) {
            const wt_ledger_process *p = rows[i].p;
            wt_json_object_begin(j, NULL);
            wt_json_string(j, "host", rows[i].host);
            wt_json_int(j, "rank", p->has_rank ? p->rank : -1);
            wt_json_uint(j, "pid", p->pid);
            wt_json_string(j, "name", p->name);
            wt_json_string(j, "path", p->path);
            wt_json_object_begin(j, "self_s");
            for (size_t c = 0; c < r->n_cats; c++)
                wt_json_fixed(j, r->cats[c].name, p->cat_seconds[c], 9);
            wt_json_object_end(j);
            wt_json_array_begin(j, "slowest_of_all");
            for (size_t c = 0; c < r->n_cats; c++)
                if (r->cats[c].straggler > 0 && p == &r->procs[r->cats[c].straggler_proc])
                    wt_json_string(j, NULL, r->cats[c].name);
            wt_json_array_end(j);
            wt_json_array_begin(j, "slowest_of_host");
            for (size_t c = 0; c < r->n_cats; c++)
                if (slowest_of_host(rows, r->n_procs, i, c))
                    wt_json_string(j, NULL, r->cats[c].name);
            wt_json_array_end(j);
            wt_json_object_end(j);
        }
        wt_json_array_end(j);
        wt_json_array_begin(j, "by_host");
        for (size_t a = 0, b; a < r->n_procs; a = b) {
            for (b = a + 1; b < r->n_procs && !strcmp(rows[b].host, rows[a].host); b++)
                ;
            wt_json_object_begin(j, NULL);
            wt_json_string(j, "host", rows[a].host);
            wt_json_int(j, "processes", (int64_t)(b - a));
            host_stats(r, rows, a, b, tmp, j);
            wt_json_object_end(j);
        }
        wt_json_array_end(j);
        wt_json_object_begin(j, "straggler_s");
        for (size_t c = 0; c < r->n_cats; c++)
            wt_json_fixed(j, r->cats[c].name, r->cats[c].straggler, 9);
        wt_json_object_end(j);
        wt_json_object_end(j);
    }
    free(tmp);
    hr_free(rows, r->n_procs);
    return rc;
}
