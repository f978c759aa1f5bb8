/* Perfetto traces decoded for the export tests: protoc with the official schema
 * (WT_SHARED_DIR/perfetto) turns the file into text, parsed here into tracks, slices and
 * instants; slices are built from the BEGIN/END events the way trace_processor builds them
 * (per track, sorted by timestamp with ties in file order), so a test sees the tree a Perfetto
 * user would. Included by test_export_*.c only (static functions). */
#ifndef WT_TEST_EXPORT_DECODE_H
#define WT_TEST_EXPORT_DECODE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tracebuild.h"

#define SCHEMA_DIR WT_SHARED_DIR "/perfetto"

/* ---- the decoded trace ---- */

#define MAXT 512
#define MAXS 16384
#define MAXE (2 * MAXS + 64)
#define MAXI 16384

typedef struct kvs {
    char name[64], val[256];
} kvs;

/* One BEGIN or END of a slice track, in file order. */
typedef struct tevent {
    int track, type, order;
    int64_t ts;
    char name[64], cat[64], cached[8];
} tevent;

typedef struct track {
    uint64_t uuid, parent;
    char name[128]; /* its last descriptor's */
    int is_thread, is_process, is_counter;
    int64_t tid, pid;
    int has_order, n_labels; /* a process's place (sibling_order_rank) and labels, last sent */
    int64_t order, sort_index; /* sibling_order_rank, legacy_sort_index */
} track;

/* A slice as trace_processor builds it: the track's events sorted by timestamp (equal ones
 * in file order), a BEGIN opening a slice at the depth of the slices open, an END closing the
 * most recent one. */
typedef struct slice {
    char name[64], cat[64], cached[8];
    int64_t ts, dur;
    int track, depth;
} slice;

typedef struct instant {
    char name[64], cat[64], text[256];
    int64_t ts;
    int track;
} instant;

typedef struct decoded {
    track t[MAXT];
    int nt;
    slice s[MAXS];
    int ns;
    instant in[MAXS];
    int ni;
    int counters;
    tevent ev[MAXE];
    int ne;
    char names[MAXI][64], cats[MAXI][64], anames[MAXI][64];
    kvs run_args[128];
    int n_run_args;
    int unresolved, unbalanced, bad_flags, packets;
    int inline_names, inline_cats; /* written inline (past the interning bound), not interned */
    char process_ordering[64]; /* the root descriptor's (uuid 0), "" when none */
    int roots;                 /* root descriptors */
} decoded;

/* The packet being parsed. */
typedef struct pkt {
    int64_t ts;
    int has_te, has_td, type, seq_flags, seq_id;
    uint64_t track, name_iid, cat_iid;
    char te_name[64], te_cat[64]; /* TrackEvent name / categories, inline */
    int has_te_name, has_te_cat;
    kvs ann[64];
    uint64_t ann_iid[64];
    int n_ann;
    kvs cur_ann;
    uint64_t cur_ann_iid;
    /* interned entries of this packet */
    uint64_t ent_iid;
    char ent_name[64];
    /* track descriptor */
    uint64_t uuid, parent;
    char td_name[128];
    int td_thread, td_process, td_counter;
    int64_t tid, pid;
    int has_order, n_labels;
    int64_t order, sort_index;
    char ordering[64];
} pkt;

static void unquote(const char *v, char *out, size_t cap)
{
    size_t n = strlen(v);
    if (n >= 2 && v[0] == '"')
        v++, n -= 2;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, v, n);
    out[n] = '\0';
}

static track *find_track(decoded *d, uint64_t uuid)
{
    for (int i = 0; i < d->nt; i++)
        if (d->t[i].uuid == uuid)
            return &d->t[i];
    return NULL;
}

static void packet_done(decoded *d, pkt *p)
{
    d->packets++;
    if (p->has_td && p->uuid == 0) { /* the root: the order of the processes, no track */
        d->roots++;
        snprintf(d->process_ordering, sizeof d->process_ordering, "%s", p->ordering);
    } else if (p->has_td) {
        track *t = find_track(d, p->uuid);
        if (!t) {
            assert_true(d->nt < MAXT);
            t = &d->t[d->nt++];
            memset(t, 0, sizeof *t);
            t->uuid = p->uuid;
        }
        t->parent = p->parent;
        if (p->td_name[0])
            snprintf(t->name, sizeof t->name, "%s", p->td_name);
        t->is_thread = p->td_thread;
        t->is_process = p->td_process;
        t->is_counter = p->td_counter;
        t->tid = p->tid;
        t->pid = p->pid;
        t->has_order = p->has_order;
        t->order = p->order;
        t->sort_index = p->sort_index;
        t->n_labels = p->n_labels;
    }
    if (!p->has_te)
        return;
    if (p->seq_id != 1 || p->seq_flags != 2)
        d->bad_flags++;
    track *t = find_track(d, p->track);
    assert_non_null(t); /* a descriptor comes before the track's first event */
    const char *name = "", *cat = "";
    if (p->type != 2 && p->type != 4) {
        if (p->has_te_name)
            name = p->te_name, d->inline_names++;
        else if (p->name_iid >= MAXI || !d->names[p->name_iid][0])
            d->unresolved++;
        else
            name = d->names[p->name_iid];
        if (p->has_te_cat) {
            cat = p->te_cat;
            d->inline_cats++;
        } else if (p->cat_iid) {
            if (p->cat_iid >= MAXI || !d->cats[p->cat_iid][0])
                d->unresolved++;
            else
                cat = d->cats[p->cat_iid];
        }
    }
    const char *cached = "-", *text = "";
    for (int i = 0; i < p->n_ann; i++) {
        if (p->ann_iid[i]) {
            if (p->ann_iid[i] >= MAXI || !d->anames[p->ann_iid[i]][0]) {
                d->unresolved++;
                continue;
            }
            snprintf(p->ann[i].name, sizeof p->ann[i].name, "%s", d->anames[p->ann_iid[i]]);
        }
        if (!strcmp(p->ann[i].name, "cached"))
            cached = p->ann[i].val;
        if (!strcmp(p->ann[i].name, "text"))
            text = p->ann[i].val;
    }
    if (p->type == 1 || p->type == 2) { /* BEGIN, END: slices are built once all are read */
        assert_true(d->ne < MAXE);
        tevent *e = &d->ev[d->ne];
        e->track = (int)(t - d->t);
        e->type = p->type;
        e->order = d->ne++;
        e->ts = p->ts;
        snprintf(e->name, sizeof e->name, "%s", name);
        snprintf(e->cat, sizeof e->cat, "%s", cat);
        snprintf(e->cached, sizeof e->cached, "%.7s", cached);
        if (p->type == 2 && t->is_process)
            for (int i = 0; i < p->n_ann && d->n_run_args < 128; i++)
                d->run_args[d->n_run_args++] = p->ann[i];
    } else if (p->type == 3) {
        assert_true(d->ni < MAXS);
        instant *in = &d->in[d->ni++];
        snprintf(in->name, sizeof in->name, "%s", name);
        snprintf(in->cat, sizeof in->cat, "%s", cat);
        snprintf(in->text, sizeof in->text, "%s", text);
        in->ts = p->ts;
        in->track = (int)(t - d->t);
    } else if (p->type == 4) {
        d->counters++;
    }
}

static const char *const types[] = { "TYPE_UNSPECIFIED", "TYPE_SLICE_BEGIN", "TYPE_SLICE_END",
                                     "TYPE_INSTANT", "TYPE_COUNTER" };

/* Parses protoc's text output of a Trace. */
static void parse(decoded *d, FILE *in)
{
    char line[4096], stack[16][48];
    int depth = 0;
    pkt *p = calloc(1, sizeof *p);
    assert_non_null(p);
    while (fgets(line, sizeof line, in)) {
        char *s = line;
        while (*s == ' ')
            s++;
        s[strcspn(s, "\n")] = '\0';
        size_t n = strlen(s);
        if (n >= 2 && !strcmp(s + n - 2, " {")) {
            s[n - 2] = '\0';
            assert_true(depth < 16);
            snprintf(stack[depth++], sizeof stack[0], "%.47s", s);
            if (depth == 1)
                memset(p, 0, sizeof *p);
            if (!strcmp(s, "track_event"))
                p->has_te = 1;
            if (!strcmp(s, "track_descriptor"))
                p->has_td = 1;
            if (!strcmp(s, "thread"))
                p->td_thread = 1;
            if (!strcmp(s, "process"))
                p->td_process = 1;
            if (!strcmp(s, "counter"))
                p->td_counter = 1;
            if (!strcmp(s, "debug_annotations")) {
                memset(&p->cur_ann, 0, sizeof p->cur_ann);
                p->cur_ann_iid = 0;
            }
            p->ent_iid = 0;
            p->ent_name[0] = '\0';
            continue;
        }
        if (!strcmp(s, "}")) {
            assert_true(depth > 0);
            const char *b = stack[--depth];
            if (!strcmp(b, "debug_annotations") && p->n_ann < 64) {
                p->ann[p->n_ann] = p->cur_ann;
                p->ann_iid[p->n_ann++] = p->cur_ann_iid;
            } else if (p->ent_iid && p->ent_iid < MAXI) {
                char(*tab)[64] = !strcmp(b, "event_names")              ? d->names
                                 : !strcmp(b, "event_categories")       ? d->cats
                                 : !strcmp(b, "debug_annotation_names") ? d->anames
                                                                        : NULL;
                if (tab) {
                    /* an iid is defined once on the sequence (no incremental reset here) */
                    assert_true(!tab[p->ent_iid][0] || !strcmp(tab[p->ent_iid], p->ent_name));
                    snprintf(tab[p->ent_iid], 64, "%s", p->ent_name);
                }
            }
            if (depth == 0)
                packet_done(d, p);
            continue;
        }
        char *colon = strstr(s, ": ");
        if (!colon || depth == 0)
            continue;
        *colon = '\0';
        const char *k = s, *v = colon + 2, *b = stack[depth - 1];
        if (!strcmp(b, "packet")) {
            if (!strcmp(k, "timestamp"))
                p->ts = atoll(v);
            else if (!strcmp(k, "sequence_flags"))
                p->seq_flags = atoi(v);
            else if (!strcmp(k, "trusted_packet_sequence_id"))
                p->seq_id = atoi(v);
        } else if (!strcmp(b, "track_event")) {
            if (!strcmp(k, "type"))
                for (int i = 0; i < 5; i++)
                    if (!strcmp(v, types[i]))
                        p->type = i;
            if (!strcmp(k, "track_uuid"))
                p->track = strtoull(v, NULL, 10);
            if (!strcmp(k, "name_iid"))
                p->name_iid = strtoull(v, NULL, 10);
            if (!strcmp(k, "category_iids"))
                p->cat_iid = strtoull(v, NULL, 10);
            if (!strcmp(k, "name")) {
                unquote(v, p->te_name, sizeof p->te_name);
                p->has_te_name = 1;
            }
            if (!strcmp(k, "categories")) {
                unquote(v, p->te_cat, sizeof p->te_cat);
                p->has_te_cat = 1;
            }
        } else if (!strcmp(b, "debug_annotations")) {
            if (!strcmp(k, "name_iid"))
                p->cur_ann_iid = strtoull(v, NULL, 10);
            else if (!strcmp(k, "name"))
                unquote(v, p->cur_ann.name, sizeof p->cur_ann.name);
            else
                unquote(v, p->cur_ann.val, sizeof p->cur_ann.val);
        } else if (!strcmp(b, "track_descriptor")) {
            if (!strcmp(k, "uuid"))
                p->uuid = strtoull(v, NULL, 10);
            if (!strcmp(k, "parent_uuid"))
                p->parent = strtoull(v, NULL, 10);
            if (!strcmp(k, "name"))
                unquote(v, p->td_name, sizeof p->td_name);
            if (!strcmp(k, "sibling_order_rank"))
                p->has_order = 1, p->order = atoll(v);
            if (!strcmp(k, "process_ordering"))
                snprintf(p->ordering, sizeof p->ordering, "%s", v);
        } else if (!strcmp(b, "thread") || !strcmp(b, "process")) {
            if (!strcmp(k, "tid"))
                p->tid = atoll(v);
            if (!strcmp(k, "pid"))
                p->pid = atoll(v);
            if (!strcmp(k, "thread_name") || !strcmp(k, "process_name"))
                unquote(v, p->td_name, sizeof p->td_name);
            if (!strcmp(k, "legacy_sort_index"))
                p->sort_index = atoll(v);
            if (!strcmp(k, "process_labels"))
                p->n_labels++;
        } else if (!strcmp(k, "iid")) {
            p->ent_iid = strtoull(v, NULL, 10);
        } else if (!strcmp(k, "name")) {
            unquote(v, p->ent_name, sizeof p->ent_name);
        }
    }
    free(p);
}

static int by_track_time(const void *a, const void *b)
{
    const tevent *x = a, *y = b;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->order - y->order;
}

/* Builds the slices as trace_processor does (see `slice`); an END with nothing open, or a
 * BEGIN never closed, is counted as unbalanced. */
static void build_slices(decoded *d)
{
    static int stack[MAXE];
    qsort(d->ev, (size_t)d->ne, sizeof *d->ev, by_track_time);
    int sp = 0;
    for (int i = 0; i < d->ne; i++) {
        const tevent *e = &d->ev[i];
        if (i > 0 && e->track != d->ev[i - 1].track) {
            d->unbalanced += sp;
            sp = 0;
        }
        if (e->type == 1) {
            stack[sp++] = i;
            continue;
        }
        if (sp == 0) {
            d->unbalanced++;
            continue;
        }
        const tevent *o = &d->ev[stack[--sp]];
        assert_true(d->ns < MAXS);
        slice *s = &d->s[d->ns++];
        memcpy(s->name, o->name, sizeof s->name); /* same sizes, NUL-terminated */
        memcpy(s->cat, o->cat, sizeof s->cat);
        memcpy(s->cached, o->cached, sizeof s->cached);
        s->ts = o->ts;
        s->dur = e->ts - o->ts;
        s->track = o->track;
        s->depth = sp;
    }
    d->unbalanced += sp;
}

/* NULL when decoding is possible; else why not. */
static const char *why_no_protoc(void)
{
    if (access(SCHEMA_DIR "/perfetto_trace.proto", R_OK) != 0)
        return "the official schema " SCHEMA_DIR "/perfetto_trace.proto is absent";
    if (system("protoc --version >/dev/null 2>&1") != 0)
        return "protoc is not installed (Debian: protobuf-compiler)";
    return NULL;
}

#define NEED_PROTOC()                                                                      \
    do {                                                                                   \
        const char *why = why_no_protoc();                                                 \
        if (why) {                                                                         \
            printf("skipped: %s\n", why);                                                  \
            skip();                                                                        \
        }                                                                                  \
    } while (0)

/* Decodes `path` with protoc and the official schema; protoc must accept every byte and say
 * nothing on stderr (it warns there about strings that are not UTF-8). */
static decoded *decode(const char *path)
{
    char cmd[2048], err[1024];
    snprintf(err, sizeof err, "%s.protoc-err", path);
    snprintf(cmd, sizeof cmd,
             "protoc --decode=perfetto.protos.Trace -I '%s' perfetto_trace.proto < '%s' 2>'%s'",
             SCHEMA_DIR, path, err);
    FILE *in = popen(cmd, "r");
    assert_non_null(in);
    decoded *d = calloc(1, sizeof *d);
    assert_non_null(d);
    parse(d, in);
    assert_int_equal(pclose(in), 0); /* protoc accepted every byte */
    size_t n_err = 0;
    unsigned char *said = tb_read_file(err, &n_err);
    if (n_err)
        fprintf(stderr, "protoc said: %.*s\n", (int)n_err, (const char *)said);
    assert_int_equal(n_err, 0);
    free(said);
    build_slices(d);
    assert_int_equal(d->unresolved, 0);
    assert_int_equal(d->unbalanced, 0);
    assert_int_equal(d->bad_flags, 0);
    return d;
}

/* The track a slice is on, and whether that is its thread's own track. */
/* The files at paths a and b hold the same bytes (the fast path against protobuf-c's), and
 * more than `min` of them. */
static inline void assert_same_bytes(const char *a, const char *b, size_t min)
{
    size_t na, nb;
    unsigned char *x = tb_read_file(a, &na);
    unsigned char *y = tb_read_file(b, &nb);
    assert_true(na > min);
    assert_int_equal(na, nb);
    assert_memory_equal(x, y, na);
    free(x);
    free(y);
}

static inline int on_thread_track(const decoded *d, const slice *s) { return d->t[s->track].is_thread; }

static inline int64_t tid_of(const decoded *d, const slice *s)
{
    const track *t = &d->t[s->track];
    while (t && !t->is_thread)
        t = t->parent ? find_track((decoded *)d, t->parent) : NULL;
    return t ? t->tid : -1;
}


static inline const slice *find_slice(const decoded *d, const char *name, int64_t ts, int *count)
{
    const slice *found = NULL;
    *count = 0;
    for (int i = 0; i < d->ns; i++)
        if (!strcmp(d->s[i].name, name) && d->s[i].ts == ts) {
            found = &d->s[i];
            ++*count;
        }
    return found;
}

static inline int64_t cat_sum(const decoded *d, const char *cat)
{
    int64_t sum = 0;
    for (int i = 0; i < d->ns; i++)
        if (!strcmp(d->s[i].cat, cat))
            sum += d->s[i].dur;
    return sum;
}

static inline const char *run_arg(const decoded *d, const char *name)
{
    for (int i = 0; i < d->n_run_args; i++)
        if (!strcmp(d->run_args[i].name, name))
            return d->run_args[i].val;
    return NULL;
}

#endif
