/* The findings of a fold key: one key per category holds the spans of every label past the
 * bound (spanstat.h), so what it finds must name each span's own label, and a label rule
 * must not take two labels for one. A real load reaches the bound: one label per tensor of a
 * model of 256 experts in 61 layers is 46,848 labels. A MISS or a span left open names its
 * own label (anomalies.c); slow-hit and outlier, which hold a span against its label's other
 * spans, skip a fold key: its "siblings" would be other tensors (one of 4 KiB against one of
 * 1 GiB), and a label with a key of its own and one span has none.
 *
 * Repeats. A key's repeat is a MISS after the key's first load (HIT or MISS) in an earlier
 * round or run; a fold key's first load is that of any of its labels, so a MISS of one label
 * after another label's load looked like a cache that never warms. Here a folded label's MISS
 * is a repeat only after a listed MISS of the same label in an earlier round of its file, or
 * an earlier run of its program: the HITs of folded labels are not kept one by one, so this
 * finds fewer repeats than a label with its own key would show, never one that is not. */
#include "anomalies_int.h"

#include <stdlib.h>

/* A fold key's listed MISS with what orders it: by key and label (interned: one pointer a
 * text), program (interned too), run, file, round, time. */
typedef struct fold_miss {
    uint32_t key, file;
    uintptr_t label, program;
    int run, round;
    int64_t ts;
    size_t i; /* in misses */
} fold_miss;

#define CMP(x, y)                                                                                \
    do {                                                                                         \
        if ((x) != (y))                                                                          \
            return (x) < (y) ? -1 : 1;                                                           \
    } while (0)

static int cmp_fold_miss(const void *x, const void *y)
{
    const fold_miss *m = x, *n = y;
    CMP(m->key, n->key);
    CMP(m->label, n->label);
    CMP(m->program, n->program);
    CMP(m->run, n->run);
    CMP(m->file, n->file);
    CMP(m->round, n->round);
    CMP(m->ts, n->ts);
    return 0;
}

int wt__an_fold_repeats(wt_anomalies *a)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n_misses; i++)
        n += a->misses[i].label != NULL;
    if (n == 0)
        return 0;
    fold_miss *v = malloc(n * sizeof *v);
    if (!v)
        return WT_ENOMEM;
    n = 0;
    for (size_t i = 0; i < a->n_misses; i++) {
        const an_span *m = &a->misses[i];
        if (m->label)
            v[n++] = (fold_miss){ m->key, m->file, (uintptr_t)m->label,
                                  (uintptr_t)a->files[m->file].program, a->files[m->file].run,
                                  m->round, m->ts, i };
    }
    qsort(v, n, sizeof *v, cmp_fold_miss);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0;) {
        /* one (key, label, program): its first MISS, then each file's first */
        const fold_miss *first = &v[i], *file_first = &v[i];
        int64_t rep_n = 0, rep_runs = 0;
        double rep_s = 0;
        an_at at = { 0 };
        size_t j = i;
        for (; j < n && v[j].key == first->key && v[j].label == first->label &&
               v[j].program == first->program;
             j++) {
            if (v[j].file != file_first->file)
                file_first = &v[j];
            an_span *m = &a->misses[v[j].i];
            m->repeat = v[j].round > file_first->round ? 1 : v[j].run > first->run ? 2 : 0;
            if (!m->repeat)
                continue;
            if (rep_n == 0 || m->ts < at.ts)
                at = (an_at){ m->pid, m->tid, m->ts, m->dur };
            rep_n++;
            rep_runs += m->repeat == 2;
            rep_s += (double)m->dur * NS;
        }
        if (a->opts.repeat_miss > 0 && rep_n >= a->opts.repeat_miss)
            rc = wt__an_report_repeat(a, &a->keys[first->key], (const char *)first->label, rep_n,
                                      rep_runs, rep_s, &at);
        i = j;
    }
    free(v);
    return rc;
}
