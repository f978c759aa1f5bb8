/* Process names for people: see procname.h. */
#include "procname.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void wt_procname_init(wt_procname *p, uint64_t pid)
{
    p->pid = pid;
    p->rank = 0;
    p->has_rank = 0;
}

int wt_procname_parse_rank(const char *s, int64_t *out)
{
    if (!s)
        return 0;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    int64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        const int d = *s - '0';
        if (v > (INT64_MAX - d) / 10)
            return 0; /* past INT64_MAX: not a rank anyone launched */
        v = v * 10 + d;
    }
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s)
        return 0;
    *out = v;
    return 1;
}

int wt_procname_event(wt_procname *p, const wt_event *ev)
{
    if (ev->kind != WT_EV_META || !ev->name || strcmp(ev->name, WT_PROCNAME_RANK_KEY) != 0)
        return 0;
    int64_t r;
    if (!wt_procname_parse_rank(ev->detail, &r))
        return 0;
    p->rank = r;
    p->has_rank = 1;
    return 1;
}

const char *wt_procname_format(const wt_procname *p, char *buf, size_t n)
{
    if (n == 0)
        return buf;
    if (p->has_rank)
        snprintf(buf, n, "rank %lld (pid %llu)", (long long)p->rank, (unsigned long long)p->pid);
    else
        snprintf(buf, n, "pid %llu", (unsigned long long)p->pid);
    return buf;
}
