/* Files of forked children before their parents': see forkorder.h. Reads only the headers. */
#include "forkorder.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <walltime/reader.h>

typedef struct fo_file {
    int ok;
    uint64_t pid, parent_pid;
    int64_t start;
    char *host, *boot_id; /* copies: the reader's go with it */
    int parent;           /* index of its parent's file, -1: none among them */
    int depth;            /* its ancestors among the files */
} fo_file;

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static int same_machine(const fo_file *a, const fo_file *b)
{
    if (!a->host || !b->host || strcmp(a->host, b->host))
        return 0;
    return !a->boot_id || !b->boot_id || !strcmp(a->boot_id, b->boot_id);
}

char **wt_fork_order(char *const *paths, int n)
{
    char **out = malloc((n > 0 ? (size_t)n : 1) * sizeof *out);
    if (!out)
        return NULL;
    for (int i = 0; i < n; i++)
        out[i] = paths[i];
    fo_file *f = n > 1 ? calloc((size_t)n, sizeof *f) : NULL;
    if (!f)
        return out; /* one file, or no memory for the headers: the order given */
    for (int i = 0; i < n; i++) {
        wt_reader *r = NULL;
        if (wt_reader_open(paths[i], &r) == 0) {
            const wt_trace_info *in = wt_reader_info(r);
            f[i] = (fo_file){ 1, in->pid, in->parent_pid, in->process_start_ns,
                              dup_or_null(in->host), dup_or_null(in->boot_id), -1, 0 };
        }
        wt_reader_free(r);
    }
    int any = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n && f[i].ok && f[i].parent_pid && f[i].parent < 0; j++)
            if (j != i && f[j].ok && f[j].pid == f[i].parent_pid && same_machine(&f[i], &f[j]) &&
                f[j].start <= f[i].start) {
                f[i].parent = j;
                any = 1;
            }
    if (any) {
        int deepest = 0;
        for (int i = 0; i < n; i++) {
            int d = 0; /* at most n steps: a cycle (pid reuse) cannot loop */
            for (int p = f[i].parent; p >= 0 && d < n; p = f[p].parent)
                d++;
            f[i].depth = d;
            deepest = d > deepest ? d : deepest;
        }
        /* the deepest first, each depth in the order given: children before parents */
        int k = 0;
        for (int d = deepest; d >= 0; d--)
            for (int i = 0; i < n; i++)
                if (f[i].depth == d)
                    out[k++] = paths[i];
    }
    for (int i = 0; i < n; i++) {
        free(f[i].host);
        free(f[i].boot_id);
    }
    free(f);
    return out;
}
