/* Anomaly rules over a stream of events: see anomalies.h for the rules and memory bounds.
 *
 * Per (category, label) the pass keeps reservoirs of all durations, HIT durations and MISS
 * durations, the miss count, and the few slowest spans and HITs (the only spans the outlier
 * and slow-HIT rules can name). Misses are kept one by one (bounded list) because their
 * avoidable cost needs the median HIT, known only at the end. */
#include "anomalies.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NS 1e-9

typedef struct an_span {
    uint64_t pid, tid;
    int64_t ts, dur;
    const char *category, *label, *detail;
} an_span;

/* Where a span of a known key was: what the slowest-span lists keep (the key has the names). */
typedef struct an_at {
    uint64_t pid, tid;
    int64_t ts, dur;
} an_at;

typedef struct an_key {
    /* first: what every span of the key reads (two cache lines) */
    int64_t floor_slow, floor_slow_hits; /* a span enters slow[] (slow_hits[]) when over this:
                                            -1 while not full, then the shortest kept */
    uint32_t cat; /* index in cat_hits */
    wt__reservoir all, hits, misses;
    const char *category, *label;
    an_at slow[WT_ANOMALY_KEEP_SLOWEST], slow_hits[WT_ANOMALY_KEEP_SLOWEST];
    uint8_t n_slow, n_slow_hits;
    uint8_t lo_slow, lo_slow_hits; /* the index of the shortest kept, once full */
    an_at first_miss;
} an_key;

typedef struct an_list {
    wt_anomaly *v;
    size_t n, cap;
} an_list;

struct wt_anomalies {
    wt_anomaly_opts opts;
    wt__pair_slot pcache[WT_PAIR_CACHE]; /* (category, label) pointers -> key index */
    wt__strmap strings;       /* interned strings, owned */
    wt__strmap key_map;       /* "category\x1flabel" -> index in keys */
    an_key *keys;
    size_t n_keys, cap_keys;
    wt__strmap cat_map;       /* category -> index in cat_hits */
    wt__reservoir *cat_hits;
    size_t n_cats, cap_cats;
    an_span *misses;
    size_t n_misses, cap_misses;
    an_list kinds[WT_AN_KIND_COUNT];
    int64_t counts[WT_AN_KIND_COUNT];
    int64_t omitted, listed;
    wt_anomaly *out;
    size_t n_out;
    /* the current file */
    const char *path;
    uint64_t pid, first_pid;
    int64_t start, first_start, last_ts, dropped;
    uint64_t dropped_tid;
    int files, damaged_reported;
};

static const char *const kind_names[WT_AN_KIND_COUNT] = {
    "miss", "untracked", "repeat-miss", "slow-hit", "outlier", "unclosed",
    "no-end", "dropped", "damaged", "budget", "baseline",
};

const char *wt_anomaly_kind_name(wt_anomaly_kind k)
{
    return (unsigned)k < WT_AN_KIND_COUNT ? kind_names[k] : "unknown";
}

void wt_anomaly_opts_init(wt_anomaly_opts *o)
{
    memset(o, 0, sizeof *o);
    o->untracked_pct = 10.0;
    o->repeat_miss = 3;
    o->outlier_factor = 5.0;
    o->baseline_pct = 20.0;
    o->baseline_min_s = 0.5;
}

static const char *intern(wt_anomalies *a, const char *s)
{
    if (!s)
        return NULL;
    uint32_t v;
    const char *stable = NULL;
    if (wt__strmap_put(&a->strings, s, strlen(s), 0, &v, &stable) < 0)
        return NULL;
    return stable;
}

/* Adds an anomaly of kind k with a printf text; counted always, listed while under the cap. */
static int add(wt_anomalies *a, wt_anomaly_kind k, const wt_anomaly *proto, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int add(wt_anomalies *a, wt_anomaly_kind k, const wt_anomaly *proto, const char *fmt, ...)
{
    a->counts[k]++;
    if (a->listed >= WT_ANOMALY_MAX_LIST) {
        a->omitted++;
        return 0;
    }
    an_list *l = &a->kinds[k];
    wt_anomaly *nv = wt__grow_array(l->v, &l->cap, l->n + 1, sizeof *nv);
    if (!nv)
        return WT_ENOMEM;
    l->v = nv;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *text = strdup(buf);
    if (!text)
        return WT_ENOMEM;
    wt_anomaly *x = &l->v[l->n++];
    *x = *proto;
    x->kind = k;
    x->text = text;
    a->listed++;
    return 0;
}

int wt_anomalies_create(const wt_anomaly_opts *opts, wt_anomalies **out)
{
    wt_anomalies *a = calloc(1, sizeof *a);
    *out = NULL;
    if (!a)
        return WT_ENOMEM;
    if (opts)
        a->opts = *opts;
    else
        wt_anomaly_opts_init(&a->opts);
    *out = a;
    return 0;
}

int wt_anomalies_file_begin(wt_anomalies *a, const char *path, const wt_trace_info *info)
{
    a->path = intern(a, path ? path : "");
    a->pid = info ? info->pid : 0;
    a->start = info ? (info->process_start_ns > 0 ? info->process_start_ns : info->open_ns) : 0;
    if (a->files == 0) {
        a->first_pid = a->pid;
        a->first_start = a->start;
    }
    a->files++;
    a->last_ts = a->start;
    a->dropped = 0;
    a->dropped_tid = 0;
    a->damaged_reported = 0;
    memset(a->pcache, 0, sizeof a->pcache);
    return a->path ? 0 : WT_ENOMEM;
}

static wt__reservoir *cat_hits_of(wt_anomalies *a, const char *cat, uint32_t *idx_out);

/* At most WT_MAX_LABEL_KEYS keys of their own and one fold key per category: the array never
 * grows past that, so that doubling does not leave a third of it unused (a key is 0.9 KB). */
#define AN_MAX_KEYS (WT_MAX_LABEL_KEYS + WT_MAX_CATEGORIES + 1)

static int grow_keys(wt_anomalies *a)
{
    size_t nc = a->cap_keys ? a->cap_keys * 2 : 64;
    if (nc > AN_MAX_KEYS && a->n_keys < AN_MAX_KEYS)
        nc = AN_MAX_KEYS;
    an_key *nk = realloc(a->keys, nc * sizeof *nk);
    if (!nk)
        return WT_ENOMEM;
    a->keys = nk;
    a->cap_keys = nc;
    return 0;
}

/* "c\x1fl" into buf, cut to size - 1 bytes; its length. Not snprintf: this runs on every
 * pointer-cache miss, and snprintf cost ~880 instructions a call. */
static size_t key_text(char *buf, size_t size, const char *c, const char *l)
{
    size_t nc = strlen(c), nl = strlen(l);
    if (nc > size - 1)
        nc = size - 1;
    memcpy(buf, c, nc);
    size_t n = nc;
    if (n < size - 1)
        buf[n++] = '\x1f';
    if (nl > size - 1 - n)
        nl = size - 1 - n;
    memcpy(buf + n, l, nl);
    n += nl;
    buf[n] = '\0';
    return n;
}

/* The key of (cat, label), made on first sight. Past the bounds (spanstat.h) a new category is
 * WT_OTHER_CATEGORIES and a new pair is (category, WT_OTHER_LABELS), as in the ledger: the
 * same events in the same order fold the same spans in both. */
static an_key *key_of(wt_anomalies *a, const char *cat, const char *label)
{
    char buf[2 * 4096 + 2];
    const char *c = cat ? cat : "", *l = label ? label : "";
    uint32_t idx;
    if (WT_UNLIKELY(a->cat_map.n >= WT_MAX_CATEGORIES) &&
        !wt__strmap_get(&a->cat_map, c, strlen(c), &idx))
        c = WT_OTHER_CATEGORIES;
    size_t n = key_text(buf, sizeof buf, c, l);
    if (WT_UNLIKELY(a->key_map.n >= WT_MAX_LABEL_KEYS) &&
        !wt__strmap_get(&a->key_map, buf, n, &idx)) {
        l = WT_OTHER_LABELS;
        n = key_text(buf, sizeof buf, c, l);
    }
    int rc = wt__strmap_put(&a->key_map, buf, n, (uint32_t)a->n_keys, &idx, NULL);
    if (rc < 0)
        return NULL;
    if (rc == 1) {
        if (a->n_keys == a->cap_keys && grow_keys(a) < 0)
            return NULL;
        an_key *k = &a->keys[a->n_keys++];
        memset(k, 0, sizeof *k);
        k->floor_slow = k->floor_slow_hits = -1;
        k->category = intern(a, c);
        k->label = intern(a, l);
        if (!k->category || !k->label || !cat_hits_of(a, c, &k->cat))
            return NULL;
    }
    return &a->keys[idx];
}

static an_key *key_of_event(wt_anomalies *a, const wt_event *ev)
{
    const uint64_t ca = (uintptr_t)ev->category, la = (uintptr_t)ev->label;
    wt__pair_slot *pc = wt__pair_cache_slot(a->pcache, WT_PAIR_CACHE_BITS, ca, la);
    if (pc->valid && pc->a == ca && pc->b == la)
        return &a->keys[pc->x];
    an_key *k = key_of(a, ev->category, ev->label);
    if (k)
        *pc = (wt__pair_slot){ ca, la, (uint32_t)(k - a->keys), 0, 1, 0 };
    return k;
}

static wt__reservoir *cat_hits_of(wt_anomalies *a, const char *cat, uint32_t *idx_out)
{
    const char *c = cat ? cat : "";
    uint32_t idx;
    int rc = wt__strmap_put(&a->cat_map, c, strlen(c), (uint32_t)a->n_cats, &idx, NULL);
    if (rc < 0)
        return NULL;
    if (rc == 1) {
        wt__reservoir *nr = wt__grow_array(a->cat_hits, &a->cap_cats, a->n_cats + 1, sizeof *nr);
        if (!nr)
            return NULL;
        a->cat_hits = nr;
        a->n_cats++;
    }
    if (idx_out)
        *idx_out = idx;
    return &a->cat_hits[idx];
}

static uint8_t shortest(const an_at *v, uint8_t n)
{
    uint8_t lo = 0;
    for (uint8_t i = 1; i < n; i++)
        if (v[i].dur < v[lo].dur)
            lo = i;
    return lo;
}

/* Keeps s in v (unordered), a span over *thr (the shortest kept once v is full, -1 before):
 * appends it, or replaces the shortest; then *thr is the new threshold, so the common case
 * (a span that is not among the slowest) costs one comparison. */
static void keep_slowest(an_at *v, uint8_t *n, uint8_t *lo, int64_t *thr, an_at s)
{
    if (*n < WT_ANOMALY_KEEP_SLOWEST) {
        v[(*n)++] = s;
        if (*n == WT_ANOMALY_KEEP_SLOWEST) {
            *lo = shortest(v, *n);
            *thr = v[*lo].dur;
        }
        return;
    }
    v[*lo] = s;
    *lo = shortest(v, *n);
    *thr = v[*lo].dur;
}

static inline an_span span_of(const wt_event *ev, const an_key *k, int64_t dur)
{
    return (an_span){ ev->pid, ev->tid, ev->ts, dur, k->category, k->label, NULL };
}

static inline an_at at_of(const wt_event *ev, int64_t dur)
{
    return (an_at){ ev->pid, ev->tid, ev->ts, dur };
}

/* A MISS: sampled, listed (bounded) for its cost at finish. */
static int on_miss(wt_anomalies *a, an_key *k, const wt_event *ev, int64_t dur, double sec)
{
    an_span m = span_of(ev, k, dur);
    if (wt__reservoir_add(&k->misses, sec) < 0)
        return WT_ENOMEM;
    if (k->misses.n == 1)
        k->first_miss = at_of(ev, dur);
    if (a->n_misses < WT_ANOMALY_MAX_LIST) {
        /* the detail only of a listed miss: details past the list would grow the strings */
        if (ev->detail && *ev->detail && !(m.detail = intern(a, ev->detail)))
            return WT_ENOMEM;
        an_span *nm = wt__grow_array(a->misses, &a->cap_misses, a->n_misses + 1, sizeof *nm);
        if (!nm)
            return WT_ENOMEM;
        a->misses = nm;
        a->misses[a->n_misses++] = m;
    } else {
        a->counts[WT_AN_MISS]++;
        a->omitted++;
    }
    return 0;
}

static int on_unclosed(wt_anomalies *a, an_key *k, const wt_event *ev, int64_t dur, double sec)
{
    wt_anomaly p = { 0, ev->pid, ev->tid, ev->ts, dur, k->category, k->label, NULL, sec, 0, NULL };
    return add(a, WT_AN_UNCLOSED, &p,
               "LEFT OPEN: %s %s (%.1fs) was still open at exit or crash (thread %llu), "
               "ended then", k->category, k->label, sec, (unsigned long long)ev->tid);
}

/* One span of key k: the per-span path (tens of millions of calls). Of all and HIT durations
 * only n and the median are read: wt__reservoir_sample_ns(), no floating point unless a
 * sample is taken; a span is copied only when it is kept (most are neither slow nor a miss). */
static inline int key_span(wt_anomalies *a, an_key *k, const wt_event *ev)
{
    const int64_t dur = ev->dur > 0 ? ev->dur : 0;
    const int64_t ref = ev->ts + dur;
    if (ref > a->last_ts)
        a->last_ts = ref;
    if (WT_UNLIKELY(wt__reservoir_sample_ns(&k->all, dur) < 0))
        return WT_ENOMEM;
    if (WT_UNLIKELY(dur > k->floor_slow))
        keep_slowest(k->slow, &k->n_slow, &k->lo_slow, &k->floor_slow, at_of(ev, dur));
    if (ev->cached == WT_CACHED_HIT) {
        wt__reservoir *ch = &a->cat_hits[k->cat];
        if (WT_UNLIKELY(wt__reservoir_sample_ns(&k->hits, dur) < 0 ||
                        wt__reservoir_sample_ns(ch, dur) < 0))
            return WT_ENOMEM;
        if (WT_UNLIKELY(dur > k->floor_slow_hits))
            keep_slowest(k->slow_hits, &k->n_slow_hits, &k->lo_slow_hits, &k->floor_slow_hits,
                         at_of(ev, dur));
    } else if (ev->cached == WT_CACHED_MISS) {
        int rc = on_miss(a, k, ev, dur, (double)dur * NS);
        if (rc < 0)
            return rc;
    }
    if (WT_UNLIKELY(ev->flags & WT_EVF_UNCLOSED))
        return on_unclosed(a, k, ev, dur, (double)dur * NS);
    return 0;
}

/* The first span of a key in this file, or any span that is not the common case below. */
static __attribute__((noinline)) int span_general(wt_anomalies *a, const wt_event *ev,
                                                  uint32_t *key)
{
    if (*key == 0) {
        an_key *k = key_of(a, ev->category, ev->label);
        if (!k)
            return WT_ENOMEM;
        *key = (uint32_t)(k - a->keys) + 1;
    }
    return key_span(a, &a->keys[*key - 1], ev);
}

int wt__anomalies_span(wt_anomalies *a, const wt_event *ev, uint32_t *key)
{
    /* The common case, decided before anything changes: a known key, no sample replaced, not
     * among the slowest, not a MISS to list, not left open. It only counts; everything else is
     * span_general() (the same work as wt_anomalies_event()). Kept free of calls so that it
     * needs no stack frame. */
    const uint32_t ki = *key;
    if (WT_UNLIKELY(ki == 0))
        return span_general(a, ev, key);
    an_key *k = &a->keys[ki - 1];
    const int64_t dur = ev->dur > 0 ? ev->dur : 0;
    const wt_cached cached = ev->cached;
    wt__reservoir *ch = &a->cat_hits[k->cat];
    int common = k->all.n + 1 < k->all.next && dur <= k->floor_slow &&
                 !(ev->flags & WT_EVF_UNCLOSED);
    if (cached == WT_CACHED_HIT)
        common = common && k->hits.n + 1 < k->hits.next && ch->n + 1 < ch->next &&
                 dur <= k->floor_slow_hits;
    else if (cached == WT_CACHED_MISS) /* a MISS past the listed ones is only counted */
        common = common && k->misses.n + 1 < k->misses.next && a->n_misses >= WT_ANOMALY_MAX_LIST;
    if (WT_UNLIKELY(!common))
        return span_general(a, ev, key);
    const int64_t ref = ev->ts + dur;
    if (ref > a->last_ts)
        a->last_ts = ref;
    k->all.n++;
    if (cached == WT_CACHED_HIT) {
        k->hits.n++;
        ch->n++;
    } else if (cached == WT_CACHED_MISS) {
        const double sec = (double)dur * NS; /* wt__reservoir_add() without a new sample */
        if (sec < k->misses.min)
            k->misses.min = sec;
        if (sec > k->misses.max)
            k->misses.max = sec;
        k->misses.total += sec;
        k->misses.n++;
        a->counts[WT_AN_MISS]++;
        a->omitted++;
    }
    return 0;
}

int wt_anomalies_event(wt_anomalies *a, const wt_event *ev)
{
    if (ev->kind == WT_EV_SPAN) {
        an_key *k = key_of_event(a, ev);
        return k ? key_span(a, k, ev) : WT_ENOMEM;
    }
    if (ev->ts > a->last_ts)
        a->last_ts = ev->ts;
    switch (ev->kind) {
    case WT_EV_DROPPED:
        if (ev->count > 0) {
            if (!a->dropped)
                a->dropped_tid = ev->tid;
            a->dropped = wt__sat_add_i64(a->dropped, ev->count);
        }
        return 0;
    default:
        return 0;
    }
}

void wt_anomalies_damage(wt_anomalies *a, int64_t offset, const char *message)
{
    if (a->damaged_reported)
        return;
    a->damaged_reported = 1;
    wt_anomaly p = { 0, a->pid, 0, a->last_ts, 0, NULL, NULL, NULL, 0, 0, NULL };
    add(a, WT_AN_DAMAGED, &p, "DAMAGED: %s (results cover what was readable)",
        message && *message ? message : a->path);
}

static const char *sig_name(int s)
{
    switch (s) {
    case SIGSEGV: return " (SIGSEGV)";
    case SIGABRT: return " (SIGABRT)";
    case SIGBUS: return " (SIGBUS)";
    case SIGFPE: return " (SIGFPE)";
    case SIGILL: return " (SIGILL)";
    case SIGTERM: return " (SIGTERM)";
    case SIGINT: return " (SIGINT)";
    default: return "";
    }
}

int wt_anomalies_file_end(wt_anomalies *a, const wt_reader_stats *st)
{
    int rc = 0;
    wt_anomaly p = { 0, a->pid, 0, a->last_ts, 0, NULL, NULL, NULL, 0, 0, NULL };
    if (st && st->end == WT_END_NONE)
        rc = add(a, WT_AN_NO_END, &p,
                 "NO END RECORD: '%s' ends without its end record: the writer died or the file "
                 "is cut; its wall ends at its last event", a->path);
    else if (st && st->end == WT_END_SIGNAL)
        rc = add(a, WT_AN_NO_END, &p, "CRASHED: '%s' ended by signal %d%s", a->path,
                 st->end_signal, sig_name(st->end_signal));
    if (rc == 0 && a->dropped) {
        p.tid = a->dropped_tid;
        rc = add(a, WT_AN_DROPPED, &p, "DROPPED: the recorder dropped %lld events in '%s'",
                 (long long)a->dropped, a->path);
    }
    if (rc == 0 && st && (st->frames_damaged || st->errors) && !a->damaged_reported)
        wt_anomalies_damage(a, -1, a->path);
    return rc;
}

/* ---- end-of-run rules ---- */

static int finish_misses(wt_anomalies *a)
{
    for (size_t i = 0; i < a->n_misses; i++) {
        const an_span *m = &a->misses[i];
        an_key *k = key_of(a, m->category, m->label);
        if (!k)
            return WT_ENOMEM;
        const double sec = (double)m->dur * NS;
        double med = NAN;
        const char *of = NULL;
        if (k->hits.n) {
            med = wt__reservoir_median(&k->hits);
            of = "label";
        } else {
            wt__reservoir *ch = &a->cat_hits[k->cat];
            if (ch->n) {
                med = wt__reservoir_median(ch);
                of = "category";
            }
        }
        double cost = of ? (sec > med ? sec - med : 0.0) : sec;
        wt_anomaly p = { 0, m->pid, m->tid, m->ts, m->dur, m->category, m->label, m->detail, sec, cost,
                         NULL };
        const char *detail = m->detail ? m->detail : WT_LEDGER_MISS_DEFAULT;
        int rc;
        if (of)
            rc = add(a, WT_AN_MISS, &p,
                     "CACHE MISS: %s %s (%.1fs) \xe2\x80\x94 %s; avoidable %.2fs (median HIT of "
                     "the %s %.2fs)", m->category, m->label, sec, detail, cost, of, med);
        else
            rc = add(a, WT_AN_MISS, &p,
                     "CACHE MISS: %s %s (%.1fs) \xe2\x80\x94 %s; avoidable up to %.2fs (no HIT "
                     "to compare)", m->category, m->label, sec, detail, cost);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int finish_keys(wt_anomalies *a)
{
    const wt_anomaly_opts *o = &a->opts;
    int rc = 0;
    for (size_t i = 0; i < a->n_keys && rc == 0; i++) {
        an_key *k = &a->keys[i];
        if (o->repeat_miss > 0 && k->misses.n >= o->repeat_miss) {
            const an_at *f = &k->first_miss;
            wt_anomaly p = { 0, f->pid, f->tid, f->ts, f->dur, k->category, k->label, NULL,
                             k->misses.total, k->misses.total, NULL };
            rc = add(a, WT_AN_REPEAT_MISS, &p,
                     "REPEATED MISS: %s %s missed %lld times (%.1fs in misses): a cache that "
                     "never warms", k->category, k->label, (long long)k->misses.n, k->misses.total);
        }
        if (rc == 0 && k->misses.n && k->n_slow_hits) {
            double mm = wt__reservoir_median(&k->misses);
            for (size_t j = 0; j < k->n_slow_hits && rc == 0; j++) {
                const an_at *h = &k->slow_hits[j];
                double sec = (double)h->dur * NS;
                if (sec <= mm)
                    continue;
                wt_anomaly p = { 0, h->pid, h->tid, h->ts, h->dur, k->category, k->label, NULL,
                                 sec, sec - mm, NULL };
                rc = add(a, WT_AN_SLOW_HIT, &p,
                         "SLOW HIT: %s %s HIT took %.1fs, slower than its median MISS %.1fs: a "
                         "cache that does not help", k->category, k->label, sec, mm);
            }
        }
        if (rc == 0 && k->all.n >= 3 && o->outlier_factor > 0) {
            double med = wt__reservoir_median(&k->all);
            for (size_t j = 0; j < k->n_slow && rc == 0; j++) {
                const an_at *s = &k->slow[j];
                double sec = (double)s->dur * NS;
                if (!(med > 0) || sec <= o->outlier_factor * med)
                    continue;
                wt_anomaly p = { 0, s->pid, s->tid, s->ts, s->dur, k->category, k->label, NULL,
                                 sec, sec - med, NULL };
                rc = add(a, WT_AN_OUTLIER, &p,
                         "SLOW SPAN: %s %s took %.1fs, %.1fx the median %.1fs of its %lld "
                         "siblings", k->category, k->label, sec, sec / med, med,
                         (long long)k->all.n);
            }
        }
    }
    return rc;
}

static const wt_ledger_cat *find_cat(const wt_ledger_result *r, const char *name)
{
    for (size_t i = 0; r && i < r->n_cats; i++)
        if (!strcmp(r->cats[i].name, name))
            return &r->cats[i];
    return NULL;
}

static int finish_totals(wt_anomalies *a, const wt_ledger_result *l, const wt_ledger_result *base)
{
    const wt_anomaly_opts *o = &a->opts;
    const double wall = l->wall > 0 ? l->wall : 0.0;
    wt_anomaly p = { 0, a->first_pid, 0, a->first_start, 0, NULL, NULL, NULL, 0, 0, NULL };
    int rc = 0;
    if (wall > 0 && 100.0 * l->untracked / wall > o->untracked_pct) {
        p.seconds = l->untracked;
        rc = add(a, WT_AN_UNTRACKED, &p,
                 "UNTRACKED: %.1fs of %.1fs wall (%.1f%%) is in no span (threshold %g%%)",
                 l->untracked, wall, 100.0 * l->untracked / wall, o->untracked_pct);
    }
    for (size_t i = 0; i < o->n_budgets && rc == 0; i++) {
        const wt_budget *b = &o->budgets[i];
        const wt_ledger_cat *c = find_cat(l, b->category);
        const double sec = c ? (b->self ? c->seconds : c->inclusive) : 0.0;
        const double limit = b->percent ? b->limit / 100.0 * wall : b->limit;
        if (sec <= limit)
            continue;
        char took[WT_LEDGER_SECONDS_MAX], by[WT_LEDGER_SECONDS_MAX], lim[WT_LEDGER_SECONDS_MAX];
        wt_ledger_fmt_seconds(took, sizeof took, sec);
        wt_ledger_fmt_seconds(by, sizeof by, sec - limit);
        const char *what = b->self ? "self" : "inclusive";
        p.category = intern(a, b->category);
        p.seconds = sec;
        p.cost = sec - limit;
        if (b->percent)
            rc = add(a, WT_AN_BUDGET, &p,
                     "BUDGET: %s took %s %s = %.1f%% of wall, over its budget of %g%% (by %s)",
                     b->category, took, what, wall > 0 ? 100.0 * sec / wall : 0.0, b->limit, by);
        else
            rc = add(a, WT_AN_BUDGET, &p, "BUDGET: %s took %s %s, over its budget of %s (by %s)",
                     b->category, took, what, wt_ledger_fmt_seconds(lim, sizeof lim, b->limit),
                     by);
    }
    for (size_t i = 0; base && i < l->n_cats && rc == 0; i++) {
        const wt_ledger_cat *c = &l->cats[i];
        const wt_ledger_cat *old = find_cat(base, c->name);
        double was = old ? old->seconds : 0.0, grew = c->seconds - was;
        if (grew <= o->baseline_min_s)
            continue;
        if (was > 0 && 100.0 * grew / was <= o->baseline_pct)
            continue;
        p.category = intern(a, c->name);
        p.seconds = c->seconds;
        p.cost = grew;
        if (was > 0)
            rc = add(a, WT_AN_BASELINE, &p,
                     "REGRESSION: %s took %.1fs against %.1fs in the baseline (+%.1fs, +%.0f%%; "
                     "threshold %g%%)", c->name, c->seconds, was, grew, 100.0 * grew / was,
                     o->baseline_pct);
        else
            rc = add(a, WT_AN_BASELINE, &p,
                     "REGRESSION: %s took %.1fs and is not in the baseline", c->name, c->seconds);
    }
    return rc;
}

int wt_anomalies_finish(wt_anomalies *a, const wt_ledger_result *ledger,
                        const wt_ledger_result *baseline)
{
    if (a->out)
        return 0;
    int rc = finish_misses(a);
    if (rc == 0)
        rc = finish_keys(a);
    if (rc == 0 && ledger)
        rc = finish_totals(a, ledger, baseline);
    if (rc < 0)
        return rc;
    size_t n = 0;
    for (int k = 0; k < WT_AN_KIND_COUNT; k++)
        n += a->kinds[k].n;
    a->out = calloc(n ? n : 1, sizeof *a->out);
    if (!a->out)
        return WT_ENOMEM;
    for (int k = 0; k < WT_AN_KIND_COUNT; k++) {
        if (a->kinds[k].n)
            memcpy(a->out + a->n_out, a->kinds[k].v, a->kinds[k].n * sizeof *a->out);
        a->n_out += a->kinds[k].n;
    }
    return 0;
}

const wt_anomaly *wt_anomalies_list(const wt_anomalies *a, size_t *n)
{
    *n = a->n_out;
    return a->out;
}

int64_t wt_anomalies_count(const wt_anomalies *a, wt_anomaly_kind k)
{
    return (unsigned)k < WT_AN_KIND_COUNT ? a->counts[k] : 0;
}

int64_t wt_anomalies_omitted(const wt_anomalies *a) { return a->omitted; }

void wt_anomalies_free(wt_anomalies *a)
{
    if (!a)
        return;
    for (int k = 0; k < WT_AN_KIND_COUNT; k++) {
        for (size_t i = 0; i < a->kinds[k].n; i++)
            free((char *)a->kinds[k].v[i].text);
        free(a->kinds[k].v);
    }
    for (size_t i = 0; i < a->n_keys; i++) {
        wt__reservoir_release(&a->keys[i].all);
        wt__reservoir_release(&a->keys[i].hits);
        wt__reservoir_release(&a->keys[i].misses);
    }
    for (size_t i = 0; i < a->n_cats; i++)
        wt__reservoir_release(&a->cat_hits[i]);
    free(a->cat_hits);
    free(a->keys);
    free(a->misses);
    free(a->out);
    wt__strmap_release(&a->strings);
    wt__strmap_release(&a->key_map);
    wt__strmap_release(&a->cat_map);
    free(a);
}
