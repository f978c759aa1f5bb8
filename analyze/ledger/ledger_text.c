/* The ledger calc's end of run: finish (the reconciled totals, per-label and per-process
 * breakdowns) and rendering as text (through libwalltime's wt_ledger_render, so the table
 * layout exists once) and as the "walltime-ledger/1" JSON object. */
#include "ledger_int.h"
#include "signame.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS 1e-9
#define WT_STR_(x) #x
#define WT_STR(x) WT_STR_(x)

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct cat_key {
    int64_t first_end;
    size_t idx;
} cat_key;

/* By first end, ties in the order the categories were met. */
static int by_first_end(const void *a, const void *b)
{
    const cat_key *x = a, *y = b;
    if (x->first_end != y->first_end)
        return x->first_end < y->first_end ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_label_total(const void *a, const void *b)
{
    const lc_label *x = a, *y = b;
    if (x->st.total != y->st.total)
        return x->st.total < y->st.total ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The threads' order in the result: by file (the run's processes in the order they were
 * given), its main thread first, then by tid (creation order, as a timeline lists them). They
 * arrive in the order of their first delivered span, which is the order the recorder's writer
 * happened to drain them: two runs of one program listed their loader threads differently. */
typedef struct thread_key {
    int file;
    int not_main;
    uint64_t tid;
    size_t i;
} thread_key;

static int by_thread_key(const void *a, const void *b)
{
    const thread_key *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->not_main != y->not_main)
        return x->not_main - y->not_main;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static wt_ledger_thread thread_row(const lc_thread *t)
{
    return (wt_ledger_thread){ t->pid, t->tid, t->name, (double)t->busy_ns * NS,
                               (double)t->waiting_ns * NS, t->spans };
}

/* lc->out_threads in that order (in arrival order without memory for the keys). */
static void fill_threads(wt_ledger_calc *lc)
{
    thread_key *k = lc->n_threads > 1 ? malloc(lc->n_threads * sizeof *k) : NULL;
    if (k) {
        for (size_t i = 0; i < lc->n_threads; i++) {
            const lc_thread *t = &lc->threads[i];
            k[i] = (thread_key){ t->file, t->tid != t->pid, t->tid, i };
        }
        qsort(k, lc->n_threads, sizeof *k, by_thread_key);
    }
    for (size_t j = 0; j < lc->n_threads; j++)
        lc->out_threads[j] = thread_row(&lc->threads[k ? k[j].i : j]);
    free(k);
}

static wt_ledger_stat stat_of(wt__reservoir *r)
{
    wt_ledger_stat s = { r->n, r->min, wt__reservoir_median(r), r->max, r->total };
    return s;
}

static int finish_labels(wt_ledger_calc *lc, lc_cat *c, wt_ledger_cat *oc)
{
    /* labels are only read from here on: sorting them in place is safe */
    qsort(c->labs, c->n_labs, sizeof *c->labs, cmp_label_total);
    size_t top = (size_t)lc->opts.top;
    size_t n = c->n_labs <= top ? c->n_labs : top + 1;
    c->out_labels = calloc(n ? n : 1, sizeof *c->out_labels);
    if (!c->out_labels)
        return WT_ENOMEM;
    for (size_t i = 0; i < c->n_labs && i < top; i++) {
        c->out_labels[i].name = c->labs[i].name;
        c->out_labels[i].st = stat_of(&c->labs[i].st);
    }
    if (c->n_labs > top) {
        wt_ledger_stat *o = &c->out_labels[top].st;
        o->median = NAN; /* the rest's median is not kept */
        for (size_t i = top; i < c->n_labs; i++) {
            const wt__reservoir *r = &c->labs[i].st;
            if (o->n == 0 || r->min < o->min)
                o->min = r->min;
            if (o->n == 0 || r->max > o->max)
                o->max = r->max;
            o->n += r->n;
            o->total += r->total;
        }
    }
    oc->labels = c->out_labels;
    oc->n_labels = n;
    return 0;
}

int wt_ledger_calc_finish(wt_ledger_calc *lc)
{
    wt_ledger_result *r = &lc->res;
    if (lc->finished)
        return 0;
    lc->finished = 1;
    memset(r, 0, sizeof *r);

    int64_t start = INT64_MAX, stop = INT64_MIN;
    for (size_t i = 0; i < lc->n_procs; i++) {
        if (lc->procs[i].start < start)
            start = lc->procs[i].start;
        if (lc->procs[i].stop > stop)
            stop = lc->procs[i].stop;
    }
    r->wall = lc->n_procs && stop > start ? (double)(stop - start) * NS : 0.0;

    const int64_t covered = wt_ledger_cover_total(&lc->cover);
    /* busy (all): the threads' busy times, each the union of its top-level spans (so at most
     * the wall each): the categories' self times sum to more when spans of one thread overlap
     * (a span measured by the caller around earlier ones), and "saved" came out of one thread */
    int64_t busy = 0;
    for (size_t i = 0; i < lc->n_threads; i++)
        busy = wt__sat_add_i64(busy, lc->threads[i].busy_ns);
    r->covered = (double)covered * NS;
    r->busy = (double)busy * NS;
    int64_t waiting = 0;
    for (size_t i = 0; i < lc->n_threads; i++)
        waiting = wt__sat_add_i64(waiting, lc->threads[i].waiting_ns);
    r->waiting = (double)waiting * NS;
    r->parallel_saved = r->busy - r->waiting > r->covered ? r->busy - r->waiting - r->covered : 0.0;
    r->scale = busy > 0 ? (double)covered / (double)busy : 1.0;

    lc->out_cats = calloc(lc->n_cats ? lc->n_cats : 1, sizeof *lc->out_cats);
    lc->out_threads = calloc(lc->n_threads ? lc->n_threads : 1, sizeof *lc->out_threads);
    lc->out_procs = calloc(lc->n_procs ? lc->n_procs : 1, sizeof *lc->out_procs);
    double *vals = calloc(lc->n_procs ? lc->n_procs : 1, sizeof *vals);
    if (!lc->out_cats || !lc->out_threads || !lc->out_procs || !vals) {
        free(vals);
        return WT_ENOMEM;
    }
    /* rows in the order their category's first span ended (the seed's record() order): the
     * trace interleaves threads by flush, so arrival order would depend on the writer */
    lc->cat_order = calloc(lc->n_cats ? lc->n_cats : 1, sizeof *lc->cat_order);
    if (!lc->cat_order) {
        free(vals);
        return WT_ENOMEM;
    }
    cat_key *keys = calloc(lc->n_cats ? lc->n_cats : 1, sizeof *keys);
    if (!keys) {
        free(vals);
        return WT_ENOMEM;
    }
    for (size_t i = 0; i < lc->n_cats; i++)
        keys[i] = (cat_key){ lc->cats[i].first_end, i };
    qsort(keys, lc->n_cats, sizeof *keys, by_first_end);
    for (size_t i = 0; i < lc->n_cats; i++)
        lc->cat_order[i] = keys[i].idx;
    free(keys);
    double tracked = 0.0;
    for (size_t k = 0; k < lc->n_cats; k++) {
        const size_t i = lc->cat_order[k];
        lc_cat *c = &lc->cats[i];
        wt_ledger_cat *o = &lc->out_cats[k];
        o->name = c->name;
        o->self_seconds = (double)c->self_ns * NS;
        o->flat_seconds = c->st.total;
        o->inclusive = (double)c->incl_ns * NS;
        o->seconds = lc->opts.flat ? c->st.total : c->attr_ns * NS;
        o->count = c->count;
        o->spans = c->st.n;
        o->hits = c->hits;
        o->misses = c->misses;
        o->bytes = c->bytes;
        o->gbps = c->bytes > 0 && c->bytes_ns > 0 ? (double)c->bytes / (double)c->bytes_ns : 0.0;
        o->st = stat_of(&c->st);
        tracked += o->seconds;
        if (lc->n_procs > 1) {
            double mx = 0.0;
            for (size_t p = 0; p < lc->n_procs; p++) {
                vals[p] = p < lc->n_procs && i < lc->procs[p].cap_cat
                              ? (double)lc->procs[p].cat_self[i] * NS
                              : 0.0;
                if (vals[p] > mx) {
                    mx = vals[p];
                    o->straggler_proc = p;
                }
            }
            qsort(vals, lc->n_procs, sizeof *vals, cmp_double);
            size_t n = lc->n_procs;
            double med = n & 1 ? vals[n / 2] : 0.5 * (vals[n / 2 - 1] + vals[n / 2]);
            o->straggler = mx - med;
        }
        if (lc->opts.by_label && finish_labels(lc, c, o) < 0) {
            free(vals);
            return WT_ENOMEM;
        }
    }
    free(vals);
    r->cats = lc->out_cats;
    r->n_cats = lc->n_cats;
    r->tracked = tracked;
    if (lc->opts.flat && r->wall < tracked)
        r->wall = tracked; /* the seed: never a wall smaller than what was measured */
    r->untracked = r->wall > tracked ? r->wall - tracked : 0.0;

    fill_threads(lc);
    r->threads = lc->out_threads;
    r->n_threads = lc->n_threads;
    for (size_t i = 0; i < lc->n_procs; i++) {
        lc_proc *p = &lc->procs[i];
        p->cat_seconds = calloc(lc->n_cats ? lc->n_cats : 1, sizeof *p->cat_seconds);
        if (!p->cat_seconds)
            return WT_ENOMEM;
        for (size_t k = 0; k < lc->n_cats; k++)
            if (lc->cat_order[k] < p->cap_cat)
                p->cat_seconds[k] = (double)p->cat_self[lc->cat_order[k]] * NS;
        wt_procname_format(&p->who, p->name, sizeof p->name);
        lc->out_procs[i] = (wt_ledger_process){ p->pid, p->name, p->who.has_rank, p->who.rank,
                                                p->path, (double)(p->stop - p->start) * NS,
                                                p->cat_seconds, p->end, p->signo, p->no_end,
                                                p->damaged, p->dropped, p->unclosed, p->late };
        if (p->no_end)
            r->no_end = 1;
        if (p->end == WT_END_SIGNAL && !r->signal_end)
            r->signal_end = p->signo ? p->signo : -1;
        if (p->damaged)
            r->damaged = 1;
    }
    r->procs = lc->out_procs;
    r->n_procs = lc->n_procs;
    r->spans = 0;
    for (size_t i = 0; i < lc->n_cats; i++)
        r->spans += lc->cats[i].st.n;
    r->events = lc->events + r->spans;
    r->dropped = lc->dropped;
    r->unclosed = lc->unclosed;
    r->unclosed_s = (double)lc->unclosed_ns * NS;
    r->late = lc->late + lc->late_spans;
    r->lost_trees = lc->lost_trees;
    r->lost_s = (double)lc->lost_ns * NS;
    r->misses = lc->n_misses_total;
    r->folded_categories = lc->folded_cat_spans;
    r->folded_labels = lc->folded_label_spans;
    r->folded_threads = lc->folded_thread_spans;

    if (lc->opts.title)
        snprintf(lc->title, sizeof lc->title, "%s", lc->opts.title);
    else if (lc->n_procs == 1)
        snprintf(lc->title, sizeof lc->title, "%s", lc->procs[0].path);
    else
        snprintf(lc->title, sizeof lc->title, "%zu files", lc->n_procs);
    return lc->nomem ? WT_ENOMEM : 0;
}

/* ---- text ---- */

static void section_rule(FILE *out)
{
    fputs("--------------------------------------------------------------------------\n", out);
}

/* Seconds in the one readable precision (walltime/ledger.h); `b` is the caller's buffer. */
#define SEC(b, v) wt_ledger_fmt_seconds((b), sizeof(b), (v))

/* Fills order (r->n_threads entries, or NULL: no memory, every row in the result's order)
 * with the thread indices in printing order and returns how many rows to print one by one:
 * every thread in the result's order when there are few or `all`; else the busiest
 * WT_LEDGER_TEXT_THREADS_SHOWN (ties: the result's order), the rest after them, summed by the
 * caller into one row. */
static size_t thread_rows(const wt_ledger_result *r, int all, size_t *order)
{
    if (!order)
        return r->n_threads;
    for (size_t i = 0; i < r->n_threads; i++)
        order[i] = i;
    if (all || r->n_threads <= WT_LEDGER_TEXT_THREADS)
        return r->n_threads;
    /* a partial selection: the shown rows are few, the threads up to WT_MAX_THREADS per run */
    for (size_t k = 0; k < WT_LEDGER_TEXT_THREADS_SHOWN; k++) {
        size_t best = k;
        for (size_t i = k + 1; i < r->n_threads; i++)
            if (r->threads[order[i]].busy > r->threads[order[best]].busy ||
                (r->threads[order[i]].busy == r->threads[order[best]].busy && order[i] < order[best]))
                best = i;
        const size_t t = order[k];
        order[k] = order[best];
        order[best] = t;
    }
    return WT_LEDGER_TEXT_THREADS_SHOWN;
}

/* A process the text always lists: it did not end with its END record, or is damaged. */
static int proc_unclean(const wt_ledger_process *p)
{
    return p->end != WT_END_CLEAN || p->no_end || p->damaged;
}

/* The label column of the by-label table: wide enough for the widest label shown (one per
 * tensor: "model.layers.17.self_attn.q_proj.weight" is 39 characters), at least the table's
 * usual 18, at most LABEL_COL_MAX; a wider label keeps its head and tail around "...". */
#define LABEL_COL_MIN 18
#define LABEL_COL_MAX 64

/* Characters of UTF-8 text (bytes that do not continue a sequence). */
static int text_width(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0u) != 0x80u;
    return n;
}

/* The byte offset in s after its first `chars` characters. */
static size_t chars_bytes(const char *s, int chars)
{
    size_t i = 0;
    for (; s[i] && chars > 0; chars--)
        do
            i++;
        while (((unsigned char)s[i] & 0xC0u) == 0x80u);
    return i;
}

/* s in at most `w` characters into buf (cap bytes): itself, or its head, "..." and its tail. */
static const char *fit_width(const char *s, int w, char *buf, size_t cap)
{
    const int n = text_width(s);
    if (n <= w)
        return s;
    const int keep = w - 3, head = keep / 2, tail = keep - head;
    const size_t hb = chars_bytes(s, head), tb = chars_bytes(s, n - tail);
    snprintf(buf, cap, "%.*s...%s", (int)hb, s, s + tb);
    return buf;
}

static int label_col_width(const wt_ledger_result *r, char *s1, size_t cap)
{
    int w = LABEL_COL_MIN;
    for (size_t i = 0; i < r->n_cats; i++)
        for (size_t k = 0; k < r->cats[i].n_labels; k++) {
            const char *name = r->cats[i].labels[k].name;
            const int lw = name ? 2 + text_width(wt_text_safe(name, s1, cap)) + 1 : 0;
            w = lw > w ? lw : w;
        }
    return w < LABEL_COL_MAX ? w : LABEL_COL_MAX;
}

/* A "%wall" cell, 8 characters as "%7.1f%%" writes it up to 9999.9 %: past that without the
 * decimal (the busy time of a hundred threads or ranks at once), so that it never runs into
 * the seconds before it. */
static const char *pct_cell(char *buf, size_t cap, double v)
{
    snprintf(buf, cap, v < 9999.95 ? "%7.1f%%" : "%7.0f%%", v);
    return buf;
}

static void print_sections(FILE *out, void *ctx)
{
    const wt_ledger_calc *lc = ctx;
    const wt_ledger_result *r = &lc->res;
    const double denom = r->wall > 0 ? r->wall : 1.0;
    char a[WT_LEDGER_SECONDS_MAX], b[WT_LEDGER_SECONDS_MAX], c3[WT_LEDGER_SECONDS_MAX],
        d[WT_LEDGER_SECONDS_MAX], s1[WT_TEXT_SAFE_MAX], s2[WT_TEXT_SAFE_MAX], pc[32];
    if (r->n_threads > 1 || r->parallel_saved > 0) {
        section_rule(out);
        fprintf(out, "%-18s%10s%8s%8s   %s\n", "thread", "busy", "%wall", "spans", "name");
        size_t *order = malloc(r->n_threads * sizeof *order);
        const size_t shown = thread_rows(r, lc->opts.all_rows, order);
        for (size_t k = 0; k < shown; k++) {
            const wt_ledger_thread *t = &r->threads[order ? order[k] : k];
            char id[48];
            if (t->tid == WT_OTHER_TID) /* the threads past the bound (spanstat.h) */
                snprintf(id, sizeof id, "(other)");
            else if (r->n_procs > 1)
                snprintf(id, sizeof id, "%llu/%llu", (unsigned long long)t->pid,
                         (unsigned long long)t->tid);
            else
                snprintf(id, sizeof id, "%llu", (unsigned long long)t->tid);
            fprintf(out, "%-18s%10s%s%8lld   %s\n", id, SEC(a, t->busy),
                    pct_cell(pc, sizeof pc, 100.0 * t->busy / denom), (long long)t->spans,
                    t->name && *t->name ? WT_TEXT_SAFE(s1, t->name)
                    : t->tid == t->pid  ? "(main thread, no name given)"
                                        : "(no name given)");
        }
        if (shown < r->n_threads) {
            double busy = 0;
            long long spans = 0;
            for (size_t k = shown; k < r->n_threads; k++) {
                busy += r->threads[order[k]].busy;
                spans += r->threads[order[k]].spans;
            }
            char more[48];
            snprintf(more, sizeof more, "(%zu more)", r->n_threads - shown);
            fprintf(out, "%-18s%10s%s%8lld   %s\n", more, SEC(a, busy),
                    pct_cell(pc, sizeof pc, 100.0 * busy / denom), spans,
                    "the less busy threads, summed (--all lists them)");
        }
        free(order);
        fprintf(out, "%-18s%10s%s\n", "busy (all)", SEC(a, r->busy),
                pct_cell(pc, sizeof pc, 100.0 * r->busy / denom));
        if (r->waiting > 0)
            fprintf(out, "%-18s%10s%7.1f%%   %s\n", "waiting", SEC(a, r->waiting),
                    100.0 * r->waiting / denom,
                    "of busy: threads waiting on other threads' work inside their spans");
        fprintf(out, "%-18s%10s%7.1f%%   %s\n", "covered", SEC(a, r->covered),
                100.0 * r->covered / denom, "wall-clock time when some thread was busy");
        fprintf(out, "%-18s%10s%8s%8s   %s\n", "saved (parallel)", SEC(a, r->parallel_saved), "",
                "", r->waiting > 0 ? "busy - waiting - covered: seconds saved by overlap"
                                   : "busy - covered: seconds saved by running at once");
    }
    if (r->n_procs > 1) {
        section_rule(out);
        /* the first column fits the longest process name ("rank N (pid P)" may pass 18) */
        int w = 18;
        for (size_t i = 0; i < r->n_procs; i++)
            if ((int)strlen(r->procs[i].name) + 2 > w)
                w = (int)strlen(r->procs[i].name) + 2;
        fprintf(out, "%-*s%10s%8s%8s   %s\n", w, "process", "wall", "", "end", "file");
        /* past WT_LEDGER_TEXT_THREADS processes: every one that did not end cleanly, the
         * longest of the rest, in the result's order; the others summed in one row */
        unsigned char *show = calloc(r->n_procs, 1);
        const int few = lc->opts.all_rows || r->n_procs <= WT_LEDGER_TEXT_THREADS || !show;
        for (size_t i = 0; show && i < r->n_procs; i++)
            show[i] = few || proc_unclean(&r->procs[i]);
        for (size_t k = 0; !few && k < WT_LEDGER_TEXT_THREADS_SHOWN; k++) {
            size_t best = r->n_procs;
            for (size_t i = 0; i < r->n_procs; i++)
                if (!show[i] && (best == r->n_procs || r->procs[i].wall > r->procs[best].wall))
                    best = i;
            if (best < r->n_procs)
                show[best] = 1;
        }
        size_t more = 0;
        double lo = 0, hi = 0;
        for (size_t i = 0; i < r->n_procs; i++) {
            const wt_ledger_process *p = &r->procs[i];
            if (show && !show[i]) {
                lo = more == 0 || p->wall < lo ? p->wall : lo;
                hi = more == 0 || p->wall > hi ? p->wall : hi;
                more++;
                continue;
            }
            const char *end = p->end == WT_END_CLEAN ? "clean"
                              : p->end == WT_END_SIGNAL ? "signal" : "none";
            fprintf(out, "%-*s%10s%8s%8s   %s\n", w, WT_TEXT_SAFE(s1, p->name), SEC(a, p->wall), "", end,
                    WT_TEXT_SAFE(s2, p->path));
        }
        if (more > 0) {
            char name[48], what[96];
            snprintf(name, sizeof name, "(%zu more)", more);
            snprintf(what, sizeof what, "the shorter clean ones, wall %s to %s (--all lists them)",
                     SEC(b, lo), SEC(c3, hi));
            fprintf(out, "%-*s%10s%8s%8s   %s\n", w, name, "", "", "clean", what);
        }
        free(show);
        fprintf(out, "%-18s%10s%8s%8s   %s\n", "straggler", "max-med", "", "",
                "per category, over processes: the slowest");
        for (size_t i = 0; i < r->n_cats; i++) {
            const wt_ledger_cat *c = &r->cats[i];
            if (c->straggler > 0)
                fprintf(out, "%-18s%10s%8s%8s   %s\n", WT_TEXT_SAFE(s1, c->name), SEC(a, c->straggler), "",
                        "", WT_TEXT_SAFE(s2, r->procs[c->straggler_proc].name));
            else
                fprintf(out, "%-18s%10s\n", WT_TEXT_SAFE(s1, c->name), SEC(a, c->straggler));
        }
    }
    if (lc->opts.by_label) {
        section_rule(out);
        const int w = label_col_width(r, s1, sizeof s1);
        /* "spans": how many spans, where the category table's "count" sums their counts */
        fprintf(out, "%-*s%10s%8s%10s%10s%10s\n", w, "category / label", "total", "spans", "min",
                "median", "max");
        for (size_t i = 0; i < r->n_cats; i++) {
            const wt_ledger_cat *c = &r->cats[i];
            fprintf(out, "%s\n", WT_TEXT_SAFE(s1, c->name));
            for (size_t k = 0; k < c->n_labels; k++) {
                const wt_ledger_label *l = &c->labels[k];
                char name[WT_TEXT_SAFE_MAX + 2];
                snprintf(name, sizeof name, "  %s",
                         l->name ? fit_width(WT_TEXT_SAFE(s1, l->name), w - 3, s2, sizeof s2) : "(other)");
                /* printf pads by bytes: add the bytes that continue UTF-8 characters */
                const int pad = w + (int)strlen(name) - text_width(name);
                /* the rest's median is not kept: NaN, shown as "-" */
                fprintf(out, "%-*s%10s%8lld%10s%10s%10s\n", pad, name, SEC(a, l->st.total),
                        (long long)l->st.n, SEC(b, l->st.min), SEC(c3, l->st.median),
                        SEC(d, l->st.max));
            }
        }
    }
    section_rule(out);
    fputs("self: time in the category's own spans, not in their children, each instant of wall\n"
          "counted once (shared among overlapping work in proportion to its self time);\n"
          "inclusive: wall-clock time a span of the category was open, per thread, summed over\n"
          "threads (see walltime-analyze ledger --help)\n",
          out);
}

/* The copies wt_text_safe() had to make, kept until the table is printed. */
typedef struct text_pool {
    char **v;
    size_t n, cap;
    int failed;
} text_pool;

/* s itself when it is safe text, else a repaired copy owned by the pool ("" when out of
 * memory, with failed set). */
static const char *pool_safe(text_pool *p, const char *s)
{
    char buf[WT_TEXT_SAFE_MAX];
    const char *t = wt_text_safe(s, buf, sizeof buf);
    if (t != buf)
        return t;
    char **nv = wt__grow_array(p->v, &p->cap, p->n + 1, sizeof *nv);
    char *copy = nv ? strdup(buf) : NULL;
    if (!copy) {
        p->failed = 1;
        return "";
    }
    p->v = nv;
    return p->v[p->n++] = copy;
}

static void pool_free(text_pool *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
}

int wt_ledger_calc_render_text(const wt_ledger_calc *lc, FILE *out, const char *const *anomaly_lines,
                               size_t n_anomaly_lines)
{
    const wt_ledger_result *r = &lc->res;
    int rc = WT_ENOMEM;
    size_t n_misses;
    const wt_ledger_miss *misses = wt_ledger_calc_misses(lc, &n_misses);
    wt_ledger_row *rows = calloc(r->n_cats ? r->n_cats : 1, sizeof *rows);
    char **notes = calloc(r->n_cats ? r->n_cats : 1, sizeof *notes);
    wt_ledger_miss *safe_misses = calloc(n_misses ? n_misses : 1, sizeof *safe_misses);
    text_pool pool = { 0 };
    char title[WT_TEXT_SAFE_MAX], s1[WT_TEXT_SAFE_MAX], s2[WT_TEXT_SAFE_MAX];
    if (!rows || !notes || !safe_misses)
        goto out;
    for (size_t i = 0; i < n_misses; i++) {
        safe_misses[i] = misses[i];
        safe_misses[i].category = pool_safe(&pool, misses[i].category);
        safe_misses[i].label = pool_safe(&pool, misses[i].label);
        safe_misses[i].detail = misses[i].detail ? pool_safe(&pool, misses[i].detail) : NULL;
    }
    for (size_t i = 0; i < r->n_cats; i++) {
        const wt_ledger_cat *c = &r->cats[i];
        rows[i] = (wt_ledger_row){ pool_safe(&pool, c->name), c->seconds, c->count, c->hits, c->misses, c->inclusive };
        if (c->gbps > 0 && !lc->opts.flat) {
            notes[i] = malloc(32);
            if (notes[i])
                snprintf(notes[i], 32, "%.2f GB/s", c->gbps);
        }
    }
    if (pool.failed)
        goto out;
    wt_ledger_table t = { WT_TEXT_SAFE(title, lc->title), rows, r->n_cats, safe_misses, n_misses, r->wall };
    if (lc->opts.flat) {
        rc = wt_ledger_render_flat(out, &t);
        goto out;
    }
    for (size_t i = 0; i < r->n_procs; i++) {
        const wt_ledger_process *p = &r->procs[i];
        if (p->damaged)
            fprintf(out, "warning: '%s' is damaged: this ledger covers only what was readable\n",
                    WT_TEXT_SAFE(s1, p->path));
        if (p->end == WT_END_SIGNAL)
            fprintf(out, "note: '%s' %s by signal %d (%s): closed from the signal handler\n",
                    WT_TEXT_SAFE(s1, p->path),
                    wt_signal_is_kill(p->end_signal) ? "killed" : "ended", p->end_signal,
                    wt_signal_name(p->end_signal) ? wt_signal_name(p->end_signal) : "signal");
        else if (p->no_end)
            fprintf(out, "note: '%s' has no end record (the writer died or the file is cut): "
                         "its wall ends at its last event\n", WT_TEXT_SAFE(s2, p->path));
    }
    wt_ledger_fact facts[7];
    size_t nf = 0;
    if (r->unclosed)
        facts[nf++] = (wt_ledger_fact){ "in flight at exit", r->unclosed_s, 1, r->unclosed,
                                        "spans still open at exit, crash or kill, ended then" };
    if (r->lost_trees)
        facts[nf++] = (wt_ledger_fact){ "inside lost spans", r->lost_s, 1, r->lost_trees,
                                        "spans open at a kill -9 or cut off: of no category "
                                        "known, in untracked" };
    if (r->dropped)
        facts[nf++] = (wt_ledger_fact){ "dropped events", 0, 0, r->dropped,
                                        "events the recorder dropped (buffers full)" };
    if (r->late)
        facts[nf++] = (wt_ledger_fact){ "late events", 0, 0, r->late,
                                        "behind a flush watermark: counted, coverage may miss them" };
    if (r->folded_categories)
        facts[nf++] = (wt_ledger_fact){ "folded categories", 0, 0, r->folded_categories,
                                        "spans past " WT_STR(WT_MAX_CATEGORIES) " categories, counted in "
                                        WT_OTHER_CATEGORIES };
    if (r->folded_labels)
        facts[nf++] = (wt_ledger_fact){ "folded labels", 0, 0, r->folded_labels,
                                        "spans past " WT_STR(WT_MAX_LABEL_KEYS) " category/label pairs, in "
                                        WT_OTHER_LABELS };
    if (r->folded_threads)
        facts[nf++] = (wt_ledger_fact){ "folded threads", 0, 0, r->folded_threads,
                                        "spans past " WT_STR(WT_MAX_THREADS) " threads, in "
                                        WT_OTHER_THREADS };
    wt_ledger_extras x = { (const char *const *)notes, facts, nf, anomaly_lines, n_anomaly_lines,
                           print_sections, (void *)lc };
    rc = wt_ledger_render(out, &t, &x);
out:
    for (size_t i = 0; notes && i < r->n_cats; i++)
        free(notes[i]);
    free(notes);
    free(rows);
    free(safe_misses);
    pool_free(&pool);
    return rc;
}

/* ---- JSON ---- */

/* Seconds to the nanosecond: what the trace holds, and stable for golden files. */
static void json_s(wt_json *j, const char *key, double v) { wt_json_fixed(j, key, v, 9); }

static void json_stat(wt_json *j, const wt_ledger_stat *s)
{
    wt_json_int(j, "n", s->n);
    json_s(j, "min_s", s->n ? s->min : NAN);
    json_s(j, "median_s", s->median);
    json_s(j, "max_s", s->n ? s->max : NAN);
    json_s(j, "total_s", s->total);
}

static const char *end_name(wt_trace_end e)
{
    return e == WT_END_CLEAN ? "clean" : e == WT_END_SIGNAL ? "signal" : "none";
}

void wt_ledger_calc_render_json_members(const wt_ledger_calc *lc, wt_json *j)
{
    const wt_ledger_result *r = &lc->res;
    const double denom = r->wall > 0 ? r->wall : 1.0;
    wt_json_string(j, "schema", "walltime-ledger/1");
    wt_json_string(j, "title", lc->title);
    wt_json_string(j, "mode", lc->opts.flat ? "flat" : "reconciled");
    json_s(j, "wall_s", r->wall);
    json_s(j, "tracked_s", r->tracked);
    json_s(j, "untracked_s", r->untracked);
    json_s(j, "busy_s", r->busy);
    json_s(j, "waiting_s", r->waiting);
    json_s(j, "covered_s", r->covered);
    json_s(j, "parallel_saved_s", r->parallel_saved);
    wt_json_int(j, "spans", r->spans);
    wt_json_int(j, "events", r->events);
    wt_json_array_begin(j, "categories");
    for (size_t i = 0; i < r->n_cats; i++) {
        const wt_ledger_cat *c = &r->cats[i];
        wt_json_object_begin(j, NULL);
        wt_json_string(j, "name", c->name);
        json_s(j, "seconds", c->seconds);
        json_s(j, "percent_wall", 100.0 * c->seconds / denom);
        json_s(j, "self_s", c->self_seconds);
        json_s(j, "inclusive_s", c->inclusive);
        json_s(j, "flat_s", c->flat_seconds);
        wt_json_int(j, "count", c->count);
        wt_json_int(j, "spans", c->spans);
        wt_json_int(j, "hits", c->hits);
        wt_json_int(j, "misses", c->misses);
        wt_json_int(j, "bytes", c->bytes);
        if (c->gbps > 0)
            json_s(j, "gbps", c->gbps);
        else
            wt_json_null(j, "gbps");
        if (r->n_procs > 1) {
            json_s(j, "straggler_s", c->straggler);
            wt_json_string(j, "straggler_process", c->straggler > 0 ? r->procs[c->straggler_proc].name : NULL);
        }
        json_stat(j, &c->st);
        if (lc->opts.by_label) {
            wt_json_array_begin(j, "labels");
            for (size_t k = 0; k < c->n_labels; k++) {
                wt_json_object_begin(j, NULL);
                wt_json_string(j, "label", c->labels[k].name);
                wt_json_bool(j, "rest", c->labels[k].name == NULL);
                json_stat(j, &c->labels[k].st);
                wt_json_object_end(j);
            }
            wt_json_array_end(j);
        }
        wt_json_object_end(j);
    }
    wt_json_array_end(j);
    wt_json_array_begin(j, "threads");
    for (size_t i = 0; i < r->n_threads; i++) {
        wt_json_object_begin(j, NULL);
        wt_json_uint(j, "pid", r->threads[i].pid);
        wt_json_uint(j, "tid", r->threads[i].tid);
        wt_json_string(j, "name", r->threads[i].name);
        json_s(j, "busy_s", r->threads[i].busy);
        json_s(j, "waiting_s", r->threads[i].waiting);
        wt_json_int(j, "spans", r->threads[i].spans);
        wt_json_object_end(j);
    }
    wt_json_array_end(j);
    wt_json_array_begin(j, "files");
    for (size_t i = 0; i < r->n_procs; i++) {
        const wt_ledger_process *p = &r->procs[i];
        wt_json_object_begin(j, NULL);
        wt_json_string(j, "path", p->path);
        wt_json_uint(j, "pid", p->pid);
        wt_json_string(j, "name", p->name);
        if (p->has_rank)
            wt_json_int(j, "rank", p->rank);
        else
            wt_json_null(j, "rank");
        json_s(j, "wall_s", p->wall);
        wt_json_string(j, "end", end_name(p->end));
        if (p->end == WT_END_SIGNAL)
            wt_json_int(j, "signal", p->end_signal);
        wt_json_bool(j, "damaged", p->damaged);
        wt_json_int(j, "dropped", p->dropped);
        wt_json_int(j, "unclosed", p->unclosed);
        wt_json_int(j, "late", p->late);
        wt_json_object_begin(j, "self_s");
        for (size_t c = 0; c < r->n_cats; c++)
            json_s(j, r->cats[c].name, p->cat_seconds[c]);
        wt_json_object_end(j);
        wt_json_object_end(j);
    }
    wt_json_array_end(j);
    wt_json_object_begin(j, "recorder");
    wt_json_int(j, "dropped", r->dropped);
    wt_json_int(j, "unclosed", r->unclosed);
    json_s(j, "unclosed_s", r->unclosed_s);
    wt_json_int(j, "late", r->late);
    if (r->lost_trees) { /* as the folds: only when some were lost */
        wt_json_int(j, "lost_trees", r->lost_trees);
        json_s(j, "lost_s", r->lost_s);
    }
    /* only when a bound was reached, so that the usual output stays as it was */
    if (r->folded_categories)
        wt_json_int(j, "folded_categories", r->folded_categories);
    if (r->folded_labels)
        wt_json_int(j, "folded_labels", r->folded_labels);
    if (r->folded_threads)
        wt_json_int(j, "folded_threads", r->folded_threads);
    wt_json_object_end(j);
    size_t n_misses;
    const wt_ledger_miss *m = wt_ledger_calc_misses(lc, &n_misses);
    wt_json_array_begin(j, "misses");
    for (size_t i = 0; i < n_misses; i++) {
        wt_json_object_begin(j, NULL);
        wt_json_string(j, "category", m[i].category);
        wt_json_string(j, "label", m[i].label);
        wt_json_string(j, "detail", m[i].detail ? m[i].detail : WT_LEDGER_MISS_DEFAULT);
        json_s(j, "seconds", m[i].seconds);
        wt_json_object_end(j);
    }
    wt_json_array_end(j);
}

void wt_ledger_calc_render_json(const wt_ledger_calc *lc, wt_json *j, const char *key)
{
    wt_json_object_begin(j, key);
    wt_ledger_calc_render_json_members(lc, j);
    wt_json_object_end(j);
}
