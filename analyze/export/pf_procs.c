/* Process tracks, grouped by host when there are several: see pf_procs.h. */
#include "pf_procs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PF_MAX_ARGS 64
#define PF_PID_STEP ((uint64_t)1 << 22) /* Linux's PID_MAX_LIMIT: no real pid reaches it */

/* The process's track descriptor: `name`; with `host` its label; with `order` >= 0 its
 * place. */
static int emit(pf_writer *w, const pf_procinfo *pi, const char *name, const char *host,
                int order)
{
    char *args[PF_MAX_ARGS], *label = NULL;
    size_t n_args = 0;
    char *cmd = strdup(pi->cmd); /* split in a copy: the arguments point into it */
    if (!cmd)
        return WT_ENOMEM;
    for (char *save = NULL, *tok = strtok_r(cmd, " ", &save); tok && n_args < PF_MAX_ARGS;
         tok = strtok_r(NULL, " ", &save))
        args[n_args++] = tok;
    Perfetto__Protos__TrackDescriptor td;
    Perfetto__Protos__ProcessDescriptor pd;
    perfetto__protos__track_descriptor__init(&td);
    perfetto__protos__process_descriptor__init(&pd);
    td.has_uuid = 1;
    td.uuid = pi->uuid;
    pd.has_pid = 1;
    pd.pid = (int32_t)pi->track_pid;
    pd.process_name = (char *)name;
    pd.n_cmdline = n_args;
    pd.cmdline = args;
    int rc = 0;
    if (host) {
        const size_t need = strlen(host) + sizeof "host ";
        if (!(label = malloc(need)))
            rc = WT_ENOMEM;
        else
            snprintf(label, need, "host %s", host);
        pd.n_process_labels = 1;
        pd.process_labels = &label;
    }
    if (order >= 0) {
        pd.has_legacy_sort_index = td.has_sibling_order_rank = 1;
        pd.legacy_sort_index = td.sibling_order_rank = order;
    }
    td.process = &pd;
    if (rc == 0)
        rc = wt__pfw_emit_track(w, &td);
    free(label);
    free(cmd);
    return rc;
}

/* Whether an earlier file's tracks carry `pid`. */
static int pid_taken(const pf_procs *P, size_t fi, uint64_t pid)
{
    for (size_t i = 0; i < fi; i++)
        if (P->v[i].host && P->v[i].track_pid == pid)
            return 1;
    return 0;
}

/* The pid file `fi` shows on its tracks: its own, unless a file of another host has it. */
static uint64_t track_pid(const pf_procs *P, size_t fi, uint64_t pid, const char *host)
{
    for (size_t i = 0; i < fi; i++) /* one host's files of one pid stay one process, as before */
        if (P->v[i].host && P->v[i].who.pid == pid && !strcmp(P->v[i].host, host))
            return P->v[i].track_pid;
    for (uint64_t k = 0; pid + k * PF_PID_STEP <= INT32_MAX; k++)
        if (!pid_taken(P, fi, pid + k * PF_PID_STEP))
            return pid + k * PF_PID_STEP;
    return pid; /* ~500 hosts of one pid: the rest merge */
}

int wt__pf_procs_begin(pf_procs *P, pf_writer *w, int fi, uint64_t uuid, const char *path,
                       const wt_trace_info *info, uint64_t *track_pid_out)
{
    if ((size_t)fi >= P->n) {
        pf_procinfo *nv = realloc(P->v, ((size_t)fi + 1) * sizeof *nv);
        if (!nv)
            return WT_ENOMEM;
        memset(nv + P->n, 0, ((size_t)fi + 1 - P->n) * sizeof *nv);
        P->v = nv;
        P->n = (size_t)fi + 1;
    }
    pf_procinfo *pi = &P->v[fi];
    pi->uuid = uuid;
    wt_procname_init(&pi->who, info->pid);
    pi->host = strdup(wt__pfw_utf8(w, 10, info->host ? info->host : ""));
    pi->cmd = strdup(wt__pfw_utf8(w, 10, info->cmdline));
    if (!pi->host || !pi->cmd)
        return WT_ENOMEM;
    *track_pid_out = pi->track_pid = track_pid(P, (size_t)fi, info->pid, pi->host);
    /* the program: the first argument's base name */
    const char *first = pi->cmd + strspn(pi->cmd, " ");
    const size_t len = strcspn(first, " ");
    const char *prog = first;
    for (const char *c = first; c < first + len; c++)
        if (*c == '/')
            prog = c + 1;
    pi->prog = len ? strndup(prog, len - (size_t)(prog - first))
                   : strdup(wt__pfw_utf8(w, 11, path));
    if (!pi->prog)
        return WT_ENOMEM;
    return emit(w, pi, pi->prog, NULL, -1);
}

void wt__pf_procs_event(pf_procs *P, int fi, const wt_event *ev)
{
    if ((size_t)fi < P->n)
        wt_procname_event(&P->v[fi].who, ev);
}

/* Host (bytes), then rank (none last), then pid. */
static int order_cmp(const void *a, const void *b)
{
    const pf_procinfo *x = *(pf_procinfo *const *)a, *y = *(pf_procinfo *const *)b;
    int c = strcmp(x->host, y->host);
    if (c)
        return c;
    if (x->who.has_rank != y->who.has_rank)
        return y->who.has_rank - x->who.has_rank;
    if (x->who.has_rank && x->who.rank != y->who.rank)
        return x->who.rank < y->who.rank ? -1 : 1;
    return x->who.pid < y->who.pid ? -1 : x->who.pid > y->who.pid;
}

int wt__pf_procs_finish(pf_procs *P, pf_writer *w)
{
    const char *first = NULL;
    int several = 0, ranked = 0;
    for (size_t i = 0; i < P->n; i++) {
        if (!P->v[i].host) /* a file index that never opened has none */
            continue;
        ranked |= P->v[i].who.has_rank;
        if (!first)
            first = P->v[i].host;
        else
            several |= strcmp(P->v[i].host, first) != 0;
    }
    if (!several && !ranked)
        return 0; /* one host, no ranks: each process once, named after its program */
    pf_procinfo **by = malloc(P->n * sizeof *by);
    if (!by)
        return WT_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < P->n; i++)
        if (P->v[i].host)
            by[m++] = &P->v[i];
    qsort(by, m, sizeof *by, order_cmp);
    /* the root descriptor: processes in their sibling_order_rank order */
    Perfetto__Protos__TrackDescriptor root;
    perfetto__protos__track_descriptor__init(&root);
    root.has_uuid = root.has_process_ordering = 1;
    root.uuid = 0;
    root.process_ordering =
        PERFETTO__PROTOS__TRACK_DESCRIPTOR__PROCESS_ORDERING__PROCESS_ORDERING_EXPLICIT;
    int rc = wt__pfw_emit_track(w, &root);
    for (size_t k = 0; rc == 0 && k < m; k++) {
        /* the ledger's name ("rank R (pid P)"), so a track reads as the ledger's and the
         * anomalies' texts name it; one host's processes without a rank keep their program */
        const pf_procinfo *pi = by[k];
        char who[WT_PROCNAME_MAX], *name;
        wt_procname_format(&pi->who, who, sizeof who);
        const char *base = several || pi->who.has_rank ? who : pi->prog;
        const size_t need = strlen(base) + strlen(pi->host) + sizeof " @ ";
        if (!(name = malloc(need))) {
            rc = WT_ENOMEM;
            break;
        }
        snprintf(name, need, "%s%s%s", base, several ? " @ " : "", several ? pi->host : "");
        rc = emit(w, pi, name, several ? pi->host : NULL, (int)k);
        free(name);
    }
    free(by);
    return rc;
}

void wt__pf_procs_release(pf_procs *P)
{
    for (size_t i = 0; i < P->n; i++) {
        free(P->v[i].host);
        free(P->v[i].cmd);
        free(P->v[i].prog);
    }
    free(P->v);
    memset(P, 0, sizeof *P);
}
