/* Anomaly rules over a stream of events: see anomalies.h for the rules and memory bounds.
 *
 * Per (category, label) the pass keeps reservoirs of HIT durations, MISS durations and the
 * other spans' durations (their union stands for all of them), the miss count, and the few
 * slowest spans and HITs (the only spans the outlier and slow-HIT rules can name). Misses are
 * kept one by one (bounded list) because their avoidable cost needs the median HIT, known
 * only at the end. */
#include "anomalies_int.h"
#include "signame.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
    o->repeat_miss = 1;
    o->outlier_factor = 5.0;
    o->baseline_pct = 20.0;
    o->baseline_min_s = 0.5;
    o->min_cost_s = -1.0;
}

const char *wt__an_intern(wt_anomalies *a, const char *s)
{
    if (!s)
        return NULL;
    uint32_t v;
    const char *stable = NULL;
    if (wt__strmap_put(&a->strings, s, strlen(s), 0, &v, &stable) < 0)
        return NULL;
    return stable;
}

/* Whether rule k's findings are at most one per run, file, budget or category: listed always.
 * The others (a finding per span or per label: misses, repeats, slow HITs, outliers, spans
 * left open, damage) list at most WT_ANOMALY_MAX_LIST each, so that a flood of one rule
 * (140,000 cold-cache MISSes) hides neither another rule's findings nor the run's UNTRACKED
 * line, as one cap for all did. */
static int always_listed(wt_anomaly_kind k)
{
    return k == WT_AN_UNTRACKED || k == WT_AN_BUDGET || k == WT_AN_BASELINE ||
           k == WT_AN_NO_END || k == WT_AN_DROPPED;
}

/* Adds an anomaly of kind k: `title` is the rule's word, the printf text what follows it (the
 * process name goes between them at finish). Counted always, in its group too; listed while
 * its rule is under the cap (always_listed()), or past it when `uncapped`. */
static int vadd(wt_anomalies *a, wt_anomaly_kind k, const char *title, const wt_anomaly *proto,
                int uncapped, const char *fmt, va_list ap)
{
    long g = wt__an_group_add(a, k, title, proto->category, 1, proto->cost);
    if (g < 0)
        return WT_ENOMEM;
    a->counts[k]++;
    an_list *l = &a->kinds[k];
    if (l->n >= WT_ANOMALY_MAX_LIST && !always_listed(k) && !uncapped) {
        a->omitted++;
        return 0;
    }
    wt_anomaly *nv = wt__grow_array(l->v, &l->cap, l->n + 1, sizeof *nv);
    if (!nv)
        return WT_ENOMEM;
    l->v = nv;
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    char *text = strdup(buf);
    if (!text)
        return WT_ENOMEM;
    wt_anomaly *x = &l->v[l->n++];
    *x = *proto;
    x->kind = k;
    x->text = text;
    x->title = title;
    x->group = (size_t)g;
    return 0;
}

static int add(wt_anomalies *a, wt_anomaly_kind k, const char *title, const wt_anomaly *proto,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int add(wt_anomalies *a, wt_anomaly_kind k, const char *title, const wt_anomaly *proto,
               const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vadd(a, k, title, proto, 0, fmt, ap);
    va_end(ap);
    return rc;
}

/* add(), listed past the cap when `uncapped`. */
static int add_ex(wt_anomalies *a, wt_anomaly_kind k, const char *title, const wt_anomaly *proto,
                  int uncapped, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int add_ex(wt_anomalies *a, wt_anomaly_kind k, const char *title, const wt_anomaly *proto,
                  int uncapped, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vadd(a, k, title, proto, uncapped, fmt, ap);
    va_end(ap);
    return rc;
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

/* The command's name without its directory: what tells runs of the same program. */
static const char *program_of(wt_anomalies *a, const char *cmdline)
{
    char buf[256];
    const char *c = cmdline ? cmdline : "";
    size_t n = strcspn(c, " ");
    const char *slash = memrchr(c, '/', n);
    if (slash) {
        n -= (size_t)(slash + 1 - c);
        c = slash + 1;
    }
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, c, n);
    buf[n] = '\0';
    return wt__an_intern(a, buf);
}

int wt_anomalies_file_begin(wt_anomalies *a, const char *path, const wt_trace_info *info)
{
    a->path = wt__an_intern(a, path ? path : "");
    a->pid = info ? info->pid : 0;
    a->start = info ? (info->process_start_ns > 0 ? info->process_start_ns : info->open_ns) : 0;
    if (a->files_seen == 0) {
        a->first_pid = a->pid;
        a->first_start = a->start;
    }
    a->files_seen++;
    a->last_ts = a->start;
    a->dropped = 0;
    a->dropped_tid = 0;
    a->damaged_reported = 0;
    a->n_rounds = 0;
    memset(a->pcache, 0, sizeof a->pcache);
    a->fold_ok = 0; /* keyed by pointer, as the pcache */
    for (size_t i = 0; i < a->n_keys; i++)
        a->keys[i].load_ts_file = INT64_MAX;
    an_file *nf = wt__grow_array(a->files, &a->cap_files, a->n_files + 1, sizeof *nf);
    if (!nf)
        return WT_ENOMEM;
    a->files = nf;
    an_file *f = &a->files[a->n_files++];
    memset(f, 0, sizeof *f);
    f->pid = a->pid;
    wt_procname_init(&f->who, f->pid);
    f->start = f->end = a->start;
    f->miss_begin = a->n_misses;
    f->program = program_of(a, info ? info->cmdline : NULL);
    return a->path && f->program ? 0 : WT_ENOMEM;
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
static __attribute__((noinline)) an_key *key_make(wt_anomalies *a, const char *cat,
                                                  const char *label);
static an_key *key_of(wt_anomalies *a, const char *cat, const char *label)
{
    const char *l = label ? label : "";
    if (a->fold_ok && cat == a->fold_cat &&
        wt__label_keys_full(a->key_map.n, a->cat_keys[a->keys[a->fold_key].cat]) &&
        !wt__textset_maybe(&a->kept_labels, l, strlen(l)))
        return &a->keys[a->fold_key]; /* a label of no key: it folds as the last one did */
    return key_make(a, cat, label);
}

/* key_of() past its fold by the filter: the look-ups, and the key made on first sight. */
static __attribute__((noinline)) an_key *key_make(wt_anomalies *a, const char *cat,
                                                  const char *label)
{
    char buf[2 * 4096 + 2];
    const char *c = cat ? cat : "", *l = label ? label : "";
    uint32_t idx;
    if (WT_UNLIKELY(a->cat_map.n >= WT_MAX_CATEGORIES) &&
        !wt__strmap_get(&a->cat_map, c, strlen(c), &idx))
        c = WT_OTHER_CATEGORIES;
    uint32_t ci;
    if (!cat_hits_of(a, c, &ci))
        return NULL;
    size_t n = key_text(buf, sizeof buf, c, l);
    int folds = 0;
    if (WT_UNLIKELY(wt__label_keys_full(a->key_map.n, a->cat_keys[ci]) ||
                    a->label_key_bytes + strlen(l) > WT_MAX_LABEL_KEY_BYTES) &&
        !wt__strmap_get(&a->key_map, buf, n, &idx)) {
        l = WT_OTHER_LABELS;
        n = key_text(buf, sizeof buf, c, l);
        folds = 1;
    }
    int rc = wt__strmap_put(&a->key_map, buf, n, (uint32_t)a->n_keys, &idx, NULL);
    if (rc < 0)
        return NULL;
    if (rc == 1) {
        if (a->n_keys == a->cap_keys && grow_keys(a) < 0)
            return NULL;
        an_key *k = &a->keys[a->n_keys++];
        memset(k, 0, sizeof *k);
        a->label_key_bytes += strlen(l); /* as the ledger counts them: the same spans fold */
        k->floor_slow = k->floor_slow_hits = k->floor_late = -1;
        k->load_ts_file = k->load_ts = INT64_MAX;
        k->category = wt__an_intern(a, c);
        k->label = wt__an_intern(a, l);
        k->cat = ci;
        a->cat_keys[ci]++;
        if (!k->category || !k->label)
            return NULL;
        if (a->kept_labels.bits || a->kept_labels.broken)
            (void)wt__textset_add(&a->kept_labels, l, strlen(l));
        else if (a->key_map.n >= WT_MAX_LABEL_KEYS - WT_LABEL_KEY_RESERVE)
            for (size_t i = 0; i < a->n_keys; i++) /* the set is whole from here on */
                if (wt__textset_add(&a->kept_labels, a->keys[i].label,
                                    strlen(a->keys[i].label)) < 0)
                    break; /* "maybe" to all: the look-ups decide, as before */
    }
    if (folds) {
        a->keys[idx].fold = 1;
        a->fold_cat = cat;
        a->fold_key = idx;
        a->fold_ok = 1;
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
        uint32_t *nk = wt__grow_array(a->cat_keys, &a->cap_cat_keys, a->n_cats + 1, sizeof *nk);
        if (!nk)
            return NULL;
        a->cat_keys = nk;
        a->cat_keys[a->n_cats] = 0;
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

static inline an_at at_of(const wt_event *ev, int64_t dur)
{
    return (an_at){ ev->pid, ev->tid, ev->ts, dur };
}

/* A MISS: sampled, listed (bounded) for its cost at finish. */
static int on_miss(wt_anomalies *a, an_key *k, const wt_event *ev, int64_t dur, double sec)
{
    if (wt__reservoir_add_ns(&k->misses, dur) < 0)
        return WT_ENOMEM;
    if (a->n_misses < WT_ANOMALY_MAX_LIST) {
        an_span m = { ev->pid, ev->tid, ev->ts, dur, NULL, NULL, (uint32_t)(k - a->keys),
                      (uint32_t)(a->n_files - 1), 0, 0 };
        if (k->fold && !(m.label = wt__an_intern(a, ev->label ? ev->label : "")))
            return WT_ENOMEM;
        /* the detail only of a listed miss: details past the list would grow the strings */
        if (ev->detail && *ev->detail && !(m.detail = wt__an_intern(a, ev->detail)))
            return WT_ENOMEM;
        an_span *nm = wt__grow_array(a->misses, &a->cap_misses, a->n_misses + 1, sizeof *nm);
        if (!nm)
            return WT_ENOMEM;
        a->misses = nm;
        a->misses[a->n_misses++] = m;
        k->listed_n++;
        k->listed_s += sec;
    } else {
        a->counts[WT_AN_MISS]++;
        a->omitted++;
        if (dur > k->floor_late)
            return wt__an_keep_late(a, k, ev->ts, dur, ev->tid, ev->label, ev->detail);
    }
    return 0;
}

/* A HIT or MISS: the key's first load, in this file and in the run (what makes a later MISS a
 * repeat). */
static void on_load(wt_anomalies *a, an_key *k, const wt_event *ev)
{
    if (ev->ts < k->load_ts_file)
        k->load_ts_file = ev->ts;
    if (ev->ts < k->load_ts) {
        k->load_ts = ev->ts;
        k->load_file = (uint32_t)(a->n_files - 1);
    }
}

static int on_unclosed(wt_anomalies *a, an_key *k, const wt_event *ev, int64_t dur, double sec)
{
    const char *label = k->label;
    /* a fold key's span by its own label: interned only while the rule lists (bounded) */
    if (k->fold && a->kinds[WT_AN_UNCLOSED].n < WT_ANOMALY_MAX_LIST &&
        !(label = wt__an_intern(a, ev->label ? ev->label : "")))
        return WT_ENOMEM;
    wt_anomaly p = { .pid = ev->pid, .tid = ev->tid, .ts = ev->ts, .dur = dur,
                     .category = k->category, .label = label, .seconds = sec };
    char b[WT_LEDGER_SECONDS_MAX];
    return add(a, WT_AN_UNCLOSED, "LEFT OPEN", &p,
               "%s %s (%s) was still open at exit, crash or kill (thread %llu), ended then",
               k->category, label, AN_SECS(b, sec), (unsigned long long)ev->tid);
}

/* One span of key k: the per-span path (tens of millions of calls). Of the HIT and other
 * durations only n and the median are read: wt__reservoir_sample_ns(), no floating point
 * unless a sample is taken; a span is copied only when it is kept (most are neither slow nor a
 * miss). */
static inline int key_span(wt_anomalies *a, an_key *k, const wt_event *ev)
{
    const int64_t dur = ev->dur > 0 ? ev->dur : 0;
    const int64_t ref = ev->ts + dur;
    if (ref > a->last_ts)
        a->last_ts = ref;
    if (ev->cached != WT_CACHED_HIT && ev->cached != WT_CACHED_MISS &&
        WT_UNLIKELY(wt__reservoir_sample_ns(&k->others, dur) < 0))
        return WT_ENOMEM;
    if (WT_UNLIKELY(dur > k->floor_slow))
        keep_slowest(k->slow, &k->n_slow, &k->lo_slow, &k->floor_slow, at_of(ev, dur));
    if (ev->cached != WT_CACHED_UNKNOWN)
        on_load(a, k, ev);
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

/* A batch's MISS past the list among key k's slowest (span_common() said 2; the batch path
 * cannot fail: out of memory shows at finish). Its strings are the batch's. */
static __attribute__((noinline)) void keep_late_rec(wt_anomalies *a, an_key *k,
                                                    const wt_span_batch *b, const wt_span_rec *r)
{
    const int64_t dur = r->dur > 0 ? r->dur : 0;
    const char *label = k->fold ? wt_reader_string(b->reader, r->label) : NULL;
    const char *detail = r->detail ? wt_reader_string(b->reader, r->detail) : NULL;
    if (wt__an_keep_late(a, k, r->ts, dur, b->tid, label, detail) < 0)
        a->late_failed = 1;
}

/* The common case of a span of key ki (> 0), from its fields (an event's or a batch record's),
 * decided before anything changes: a known key, not among the slowest, not a MISS to list, not
 * left open, not the key's earliest load in this file, and every reservoir it samples into
 * with room for a duration under 4.29 s (wt__reservoir_has_room(), wt__reservoir_narrow(): the
 * add cannot fail). It counts and samples; 1 when it does not hold (nothing changed: the
 * caller takes span_general(), the same work as wt_anomalies_event()); 2 when it took a MISS
 * past the list that is among its key's slowest, which the caller keeps (wt__an_keep_late(),
 * with the span's strings). The samples are key_span()'s, reservoir by reservoir in the same
 * order, so the same values are kept. With 16,384 labels most spans sample (a key's first 255
 * spans fill its reservoirs, and algorithm L replaces some 220 more of its next 350): declining
 * them sent four spans in five down the event path. */
static inline int span_common(wt_anomalies *a, uint32_t ki, int64_t ts, int64_t dur_in,
                              wt_cached cached, uint32_t flags)
{
    an_key *k = &a->keys[ki - 1];
    const int64_t dur = dur_in > 0 ? dur_in : 0;
    wt__reservoir *ch = &a->cat_hits[k->cat];
    int common = dur <= k->floor_slow && wt__reservoir_narrow(dur) && !(flags & WT_EVF_UNCLOSED);
    if (cached == WT_CACHED_HIT)
        common = common && wt__reservoir_has_room(&k->hits) && wt__reservoir_has_room(ch) &&
                 dur <= k->floor_slow_hits && ts >= k->load_ts_file;
    else if (cached == WT_CACHED_MISS) /* a MISS past the listed ones */
        common = common && wt__reservoir_has_room(&k->misses) &&
                 a->n_misses >= WT_ANOMALY_MAX_LIST && ts >= k->load_ts_file;
    else
        common = common && wt__reservoir_has_room(&k->others);
    if (WT_UNLIKELY(!common))
        return 1;
    const int64_t ref = ts + dur;
    if (ref > a->last_ts)
        a->last_ts = ref;
    /* none of these can fail: each reservoir has room */
    if (cached == WT_CACHED_HIT) {
        (void)wt__reservoir_sample_ns(&k->hits, dur);
        (void)wt__reservoir_sample_ns(ch, dur);
    } else if (cached == WT_CACHED_MISS) {
        (void)wt__reservoir_add_ns(&k->misses, dur);
        a->counts[WT_AN_MISS]++;
        a->omitted++;
        if (WT_UNLIKELY(dur > k->floor_late))
            return 2;
    } else {
        (void)wt__reservoir_sample_ns(&k->others, dur);
    }
    return 0;
}

int wt__anomalies_span(wt_anomalies *a, const wt_event *ev, uint32_t *key)
{
    const uint32_t ki = *key;
    int rc;
    if (WT_UNLIKELY(ki == 0) ||
        (rc = span_common(a, ki, ev->ts, ev->dur, ev->cached, ev->flags)) == 1)
        return span_general(a, ev, key);
    if (WT_UNLIKELY(rc == 2))
        return wt__an_keep_late(a, &a->keys[ki - 1], ev->ts, ev->dur > 0 ? ev->dur : 0,
                                ev->tid, ev->label, ev->detail);
    return 0;
}

/* span_common() over a run of HITs of key ki, the first of s[0..n) (s[k] of key keys[k]): the
 * spans of one label in a row (a program that repeats one span). Its checks per span are then
 * the duration against the lower of the two slowest-span floors, the start against the key's
 * earliest load in the file and the flags; the counts' room (no sample replaced in `hits`
 * nor in the category's HITs) is taken once for the run, and
 * the counts and the latest end are stored once. Returns how many it took (0: the first is
 * not such a span, for span_common()). */
static __attribute__((noinline)) size_t hit_run(wt_anomalies *a, uint32_t ki,
                                              const wt_span_rec *s, const uint32_t *keys,
                      size_t n)
{
    an_key *const k = &a->keys[ki - 1];
    wt__reservoir *const ch = &a->cat_hits[k->cat];
    int64_t room = k->hits.next - 1 - k->hits.n;
    if (ch->next - 1 - ch->n < room)
        room = ch->next - 1 - ch->n;
    if (room <= 0)
        return 0;
    if ((uint64_t)room < n)
        n = (size_t)room;
    const int64_t floor = k->floor_slow < k->floor_slow_hits ? k->floor_slow : k->floor_slow_hits;
    const int64_t load = k->load_ts_file;
    int64_t last = a->last_ts;
    size_t j = 0;
    for (; j < n; j++) {
        const wt_span_rec *const r = &s[j];
        const int64_t dur = r->dur > 0 ? r->dur : 0;
        if (keys[j] != ki || r->cached != WT_CACHED_HIT || (r->flags & WT_EVF_UNCLOSED) ||
            dur > floor || r->ts < load)
            break;
        if (r->ts + dur > last)
            last = r->ts + dur;
    }
    a->last_ts = last;
    k->hits.n += (int64_t)j;
    ch->n += (int64_t)j;
    return j;
}

/* How far ahead wt__anomalies_run() asks for a key's state, and then for where its next
 * samples go (read from that state, by then in cache). */
#define AN_AHEAD_KEY 8
#define AN_AHEAD_SLOT 4
/* Keys past which it does (some 5 KB of state a key once sampling: 1,024 keys are 5 MB). */
#define AN_FAR_KEYS 1024

/* The reservoir of key k a span of this cache state goes to. */
static inline const wt__reservoir *class_of(const an_key *k, uint8_t cached)
{
    return cached == WT_CACHED_HIT ? &k->hits : cached == WT_CACHED_MISS ? &k->misses : &k->others;
}

/* The lines of key ki that span_common() reads: with thousands of labels in random order each
 * span's key is a cache miss (16,384 keys of some 5 KB each), the next spans' keys are known.
 * Its header and the reservoir of the span's class. */
static inline void prefetch_key(const wt_anomalies *a, uint32_t ki, uint8_t cached)
{
    const an_key *const k = &a->keys[ki - 1];
    const char *const r = (const char *)class_of(k, cached);
    __builtin_prefetch(k, 1);
    __builtin_prefetch(r, 1);
    __builtin_prefetch(r + sizeof(wt__reservoir) - 1, 1);
}

/* Where the span's sample goes in key ki's reservoir (read from the key, by then in cache):
 * the end of the samples while they fill, the replaced one when algorithm L replaces. */
static inline void prefetch_slots(const wt_anomalies *a, uint32_t ki, uint8_t cached)
{
    const void *at = wt__reservoir_next_slot(class_of(&a->keys[ki - 1], cached));
    if (at)
        __builtin_prefetch(at, 1);
}

/* wt__anomalies_run(), asking ahead for the keys' state when `far` (a constant: the compiler
 * makes a copy of each). */
static inline __attribute__((always_inline)) size_t run_spans(wt_anomalies *a,
                                                              const wt_span_batch *b,
                                                              const wt_span_rec *s,
                                                              const uint32_t *keys, size_t n,
                                                              int far)
{
    size_t k = 0;
    for (size_t j = 0; far && j < AN_AHEAD_KEY && j < n && keys[j] != 0; j++) {
        prefetch_key(a, keys[j], s[j].cached);
        if (j < AN_AHEAD_SLOT)
            prefetch_slots(a, keys[j], s[j].cached);
    }
    while (k < n && keys[k] != 0) {
        size_t m;
        int rc;
        if (far && k + AN_AHEAD_KEY < n && keys[k + AN_AHEAD_KEY] != 0)
            prefetch_key(a, keys[k + AN_AHEAD_KEY], s[k + AN_AHEAD_KEY].cached);
        if (far && k + AN_AHEAD_SLOT < n && keys[k + AN_AHEAD_SLOT] != 0)
            prefetch_slots(a, keys[k + AN_AHEAD_SLOT], s[k + AN_AHEAD_SLOT].cached);
        if (k + 1 < n && keys[k + 1] == keys[k] && (m = hit_run(a, keys[k], s + k, keys + k, n - k)))
            k += m;
        else if ((rc = span_common(a, keys[k], s[k].ts, s[k].dur, (wt_cached)s[k].cached,
                                   s[k].flags)) != 1) {
            if (WT_UNLIKELY(rc == 2))
                keep_late_rec(a, &a->keys[keys[k] - 1], b, &s[k]);
            k++;
        } else {
            break;
        }
    }
    return k;
}

size_t wt__anomalies_run(wt_anomalies *a, const wt_span_batch *b, const wt_span_rec *s,
                         const uint32_t *keys, size_t n)
{
    /* the bench_analyze shapes (up to 1,000 labels, their state within the caches) paid some 36
     * instructions a span for prefetches that found their lines there already */
    return a->n_keys > AN_FAR_KEYS ? run_spans(a, b, s, keys, n, 1)
                                   : run_spans(a, b, s, keys, n, 0);
}

void wt__anomalies_instant(wt_anomalies *a, int64_t ts)
{
    if (ts > a->last_ts)
        a->last_ts = ts;
}

int wt_anomalies_event(wt_anomalies *a, const wt_event *ev)
{
    if (ev->kind == WT_EV_SPAN) {
        an_key *k = key_of_event(a, ev);
        return k ? key_span(a, k, ev) : WT_ENOMEM;
    }
    wt__anomalies_instant(a, ev->ts);
    switch (ev->kind) {
    case WT_EV_DROPPED:
        if (ev->count > 0) {
            if (!a->dropped)
                a->dropped_tid = ev->tid;
            a->dropped = wt__sat_add_i64(a->dropped, ev->count);
        }
        return 0;
    case WT_EV_ROUND: {
        if (ev->ts + (ev->dur > 0 ? ev->dur : 0) > a->last_ts)
            a->last_ts = ev->ts + (ev->dur > 0 ? ev->dur : 0);
        if (a->n_rounds >= AN_MAX_ROUNDS)
            return 0;
        int64_t *nr = wt__grow_array(a->rounds, &a->cap_rounds, a->n_rounds + 1, sizeof *nr);
        if (!nr)
            return WT_ENOMEM;
        a->rounds = nr;
        a->rounds[a->n_rounds++] = ev->ts;
        return 0;
    }
    case WT_EV_META:
        if (a->n_files)
            wt_procname_event(&a->files[a->n_files - 1].who, ev);
        return 0;
    default:
        return 0;
    }
}

void wt_anomalies_damage(wt_anomalies *a, int64_t offset, const char *message)
{
    (void)offset;
    if (a->damaged_reported)
        return;
    a->damaged_reported = 1;
    wt_anomaly p = { .pid = a->pid, .ts = a->last_ts };
    add(a, WT_AN_DAMAGED, "DAMAGED", &p, "%s (results cover what was readable)",
        message && *message ? message : a->path);
}

static int cmp_i64(const void *x, const void *y)
{
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The round of the file at t: how many rounds started at or before t (0: before the first). */
static size_t round_at(const int64_t *starts, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (starts[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The file's MISSes in a later round than the first load of their label in the file. Rounds
 * arrive when they end, after their spans: known only now. */
static void mark_round_repeats(wt_anomalies *a, const an_file *f)
{
    if (a->n_rounds == 0)
        return;
    qsort(a->rounds, a->n_rounds, sizeof *a->rounds, cmp_i64);
    for (size_t i = f->miss_begin; i < a->n_misses; i++) {
        an_span *m = &a->misses[i];
        const an_key *k = &a->keys[m->key];
        if (m->label) /* a fold key's: against its label's earlier MISSes, at finish */
            m->round = (int)round_at(a->rounds, a->n_rounds, m->ts);
        else if (round_at(a->rounds, a->n_rounds, m->ts) >
                 round_at(a->rounds, a->n_rounds, k->load_ts_file))
            m->repeat = 1;
    }
}

int wt_anomalies_file_end(wt_anomalies *a, const wt_reader_stats *st)
{
    int rc = 0;
    an_file *f = a->n_files ? &a->files[a->n_files - 1] : NULL;
    if (f) {
        f->end = a->last_ts;
        mark_round_repeats(a, f);
    }
    wt_anomaly p = { .pid = a->pid, .ts = a->last_ts };
    if (st && st->end == WT_END_NONE)
        rc = add(a, WT_AN_NO_END, "NO END RECORD", &p,
                 "'%s' ends without its end record: the writer died or the file is cut; its "
                 "wall ends at its last event", a->path);
    else if (st && st->end == WT_END_SIGNAL) {
        /* a kill (timeout, a scheduler, Ctrl-C) is not a crash of the program */
        const int sig = st->end_signal;
        const int killed = wt_signal_is_kill(sig);
        const char *name = wt_signal_name(sig);
        rc = add(a, WT_AN_NO_END, killed ? "KILLED" : "CRASHED", &p, "'%s' %s by signal %d%s%s%s",
                 a->path, killed ? "killed" : "ended", sig, name ? " (" : "", name ? name : "",
                 name ? ")" : "");
    }
    if (rc == 0 && a->dropped) {
        p.tid = a->dropped_tid;
        rc = add(a, WT_AN_DROPPED, "DROPPED", &p, "the recorder dropped %lld events in '%s'",
                 (long long)a->dropped, a->path);
    }
    if (rc == 0 && st && (st->frames_damaged || st->errors) && !a->damaged_reported)
        wt_anomalies_damage(a, -1, a->path);
    return rc;
}

/* ---- end-of-run rules ---- */

static int cmp_file_start(const void *x, const void *y)
{
    const an_file *a = *(const an_file *const *)x, *b = *(const an_file *const *)y;
    return (a->start > b->start) - (a->start < b->start);
}

/* Runs: files in order of process start; a file that starts before every earlier file of its
 * run ended is of that run (the ranks of one job), else it starts the next run. */
static int number_runs(wt_anomalies *a)
{
    an_file **by = malloc((a->n_files ? a->n_files : 1) * sizeof *by);
    if (!by)
        return WT_ENOMEM;
    for (size_t i = 0; i < a->n_files; i++)
        by[i] = &a->files[i];
    qsort(by, a->n_files, sizeof *by, cmp_file_start);
    int run = 0;
    int64_t end = INT64_MIN;
    for (size_t i = 0; i < a->n_files; i++) {
        if (i > 0 && by[i]->start >= end)
            run++;
        by[i]->run = run;
        if (by[i]->end > end)
            end = by[i]->end;
    }
    free(by);
    return 0;
}

/* The MISSes in a later run of the same program than their label's first load, then every
 * repeat counted into its key; a fold key's are its labels' (anomalies_fold.c). */
static void count_repeats(wt_anomalies *a)
{
    for (size_t i = 0; i < a->n_misses; i++) {
        an_span *m = &a->misses[i];
        an_key *k = &a->keys[m->key];
        if (m->label)
            continue;
        if (!m->repeat && k->load_ts != INT64_MAX && k->load_file < a->n_files) {
            const an_file *first = &a->files[k->load_file], *here = &a->files[m->file];
            m->repeat = first->run < here->run && first->program == here->program ? 2 : 0;
        }
        if (!m->repeat)
            continue;
        if (k->rep_n == 0 || m->ts < k->first_rep.ts)
            k->first_rep = (an_at){ m->pid, m->tid, m->ts, m->dur };
        k->rep_n++;
        k->rep_runs += m->repeat == 2;
        k->rep_s += (double)m->dur * NS;
    }
}

const char *wt__an_hit_median(wt_anomalies *a, an_key *k, double *med)
{
    if (k->hits.n) {
        *med = wt__reservoir_median(&k->hits);
        return k->fold ? "folded labels" : "label";
    }
    wt__reservoir *ch = &a->cat_hits[k->cat];
    if (ch->n) {
        *med = wt__reservoir_median(ch);
        return "category";
    }
    *med = NAN;
    return NULL;
}

int wt__an_report_miss(wt_anomalies *a, an_key *k, const wt_anomaly *where,
                       const char *label, const char *detail, int uncapped)
{
    const double sec = (double)where->dur * NS;
    double med;
    const char *of = wt__an_hit_median(a, k, &med);
    const double cost = wt__an_miss_cost(sec, med, of);
    a->avoidable += cost;
    wt_anomaly p = *where;
    p.category = k->category;
    p.label = label;
    p.detail = detail;
    p.seconds = sec;
    p.cost = cost;
    const char *d = detail ? detail : WT_LEDGER_MISS_DEFAULT;
    char b1[WT_LEDGER_SECONDS_MAX], b2[WT_LEDGER_SECONDS_MAX], b3[WT_LEDGER_SECONDS_MAX];
    if (of)
        return add_ex(a, WT_AN_MISS, "CACHE MISS", &p, uncapped,
                      "%s %s (%s) \xe2\x80\x94 %s; avoidable %s (median HIT of the %s %s)",
                      k->category, label, AN_SECS(b1, sec), d, AN_SECS(b2, cost), of,
                      AN_SECS(b3, med));
    return add_ex(a, WT_AN_MISS, "CACHE MISS", &p, uncapped,
                  "%s %s (%s) \xe2\x80\x94 %s; avoidable up to %s (no HIT to compare)",
                  k->category, label, AN_SECS(b1, sec), d, AN_SECS(b2, cost));
}

static int finish_misses(wt_anomalies *a)
{
    for (size_t i = 0; i < a->n_misses; i++) {
        const an_span *m = &a->misses[i];
        an_key *k = &a->keys[m->key];
        const wt_anomaly where = { .pid = m->pid, .tid = m->tid, .ts = m->ts, .dur = m->dur };
        int rc = wt__an_report_miss(a, k, &where, m->label ? m->label : k->label, m->detail, 0);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Whether a rule's finding costs enough to fire; if not it is counted below the min cost. */
static int costs_enough(wt_anomalies *a, wt_anomaly_kind k, double cost)
{
    if (cost >= a->min_cost)
        return 1;
    a->below[k]++;
    return 0;
}

int wt__an_report_repeat(wt_anomalies *a, const an_key *k, const char *label, int64_t rep_n,
                         int64_t rep_runs, double rep_s, const an_at *f)
{
    char b1[WT_LEDGER_SECONDS_MAX];
    wt_anomaly p = { .pid = f->pid, .tid = f->tid, .ts = f->ts, .dur = f->dur,
                     .category = k->category, .label = label, .seconds = rep_s, .cost = rep_s };
    const char *where = rep_runs == 0 ? "rounds" : rep_runs == rep_n ? "runs" : "rounds or runs";
    if (rep_n == 1)
        return add(a, WT_AN_REPEAT_MISS, "REPEATED MISS", &p,
                   "%s %s missed again in a later %s than its first load (%s): a cache that "
                   "never warms", k->category, label, rep_runs ? "run" : "round",
                   AN_SECS(b1, rep_s));
    return add(a, WT_AN_REPEAT_MISS, "REPEATED MISS", &p,
               "%s %s missed %lld times in later %s than its first load (%s): a cache that "
               "never warms", k->category, label, (long long)rep_n, where, AN_SECS(b1, rep_s));
}

static int finish_keys(wt_anomalies *a)
{
    const wt_anomaly_opts *o = &a->opts;
    int rc = 0;
    char b1[WT_LEDGER_SECONDS_MAX], b2[WT_LEDGER_SECONDS_MAX];
    for (size_t i = 0; i < a->n_keys && rc == 0; i++) {
        an_key *k = &a->keys[i];
        /* not held to the min cost: each repeat is small, but a cache that never warms is
         * what the rule is for */
        if (o->repeat_miss > 0 && k->rep_n >= o->repeat_miss)
            rc = wt__an_report_repeat(a, k, k->label, k->rep_n, k->rep_runs, k->rep_s,
                                      &k->first_rep);
        /* a fold key's spans are of many labels: no label's siblings (anomalies_fold.c) */
        if (rc == 0 && !k->fold && k->misses.n && k->n_slow_hits) {
            double mm = wt__reservoir_median(&k->misses);
            for (size_t j = 0; j < k->n_slow_hits && rc == 0; j++) {
                const an_at *h = &k->slow_hits[j];
                double sec = (double)h->dur * NS;
                if (sec <= mm || !costs_enough(a, WT_AN_SLOW_HIT, sec - mm))
                    continue;
                wt_anomaly p = { .pid = h->pid, .tid = h->tid, .ts = h->ts, .dur = h->dur,
                                 .category = k->category, .label = k->label, .seconds = sec,
                                 .cost = sec - mm };
                rc = add(a, WT_AN_SLOW_HIT, "SLOW HIT", &p,
                         "%s %s HIT took %s, slower than its median MISS %s: a cache that does "
                         "not help", k->category, k->label, AN_SECS(b1, sec), AN_SECS(b2, mm));
            }
        }
        const int64_t spans = wt__an_key_spans(k);
        if (rc == 0 && !k->fold && spans >= 3 && o->outlier_factor > 0) {
            wt__reservoir *const classes[] = { &k->hits, &k->misses, &k->others };
            double med = wt__reservoir_median_union(classes, 3);
            for (size_t j = 0; j < k->n_slow && rc == 0; j++) {
                const an_at *s = &k->slow[j];
                double sec = (double)s->dur * NS;
                if (!(med > 0) || sec <= o->outlier_factor * med ||
                    !costs_enough(a, WT_AN_OUTLIER, sec - med))
                    continue;
                wt_anomaly p = { .pid = s->pid, .tid = s->tid, .ts = s->ts, .dur = s->dur,
                                 .category = k->category, .label = k->label, .seconds = sec,
                                 .cost = sec - med };
                rc = add(a, WT_AN_OUTLIER, "SLOW SPAN", &p,
                         "%s %s took %s, %.1fx the median %s of its %lld siblings", k->category,
                         k->label, AN_SECS(b1, sec), sec / med, AN_SECS(b2, med),
                         (long long)spans);
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
    wt_anomaly p = { .pid = a->first_pid, .ts = a->first_start };
    char b1[WT_LEDGER_SECONDS_MAX], b2[WT_LEDGER_SECONDS_MAX], b3[WT_LEDGER_SECONDS_MAX];
    int rc = 0;
    if (wall > 0 && 100.0 * l->untracked / wall > o->untracked_pct) {
        p.seconds = l->untracked;
        if (l->lost_trees) /* not "in no span": some was in spans the file does not hold */
            rc = add(a, WT_AN_UNTRACKED, "UNTRACKED", &p,
                     "%s of %s wall (%.1f%%) is in no span the file holds, %s of it inside "
                     "spans open at a kill -9 or cut off (threshold %g%%)",
                     AN_SECS(b1, l->untracked), AN_SECS(b2, wall), 100.0 * l->untracked / wall,
                     AN_SECS(b3, l->lost_s), o->untracked_pct);
        else
            rc = add(a, WT_AN_UNTRACKED, "UNTRACKED", &p,
                     "%s of %s wall (%.1f%%) is in no span (threshold %g%%)",
                     AN_SECS(b1, l->untracked), AN_SECS(b2, wall), 100.0 * l->untracked / wall,
                     o->untracked_pct);
    }
    for (size_t i = 0; i < o->n_budgets && rc == 0; i++) {
        const wt_budget *b = &o->budgets[i];
        const wt_ledger_cat *c = find_cat(l, b->category);
        const double sec = c ? (b->self ? c->seconds : c->inclusive) : 0.0;
        const double limit = b->percent ? b->limit / 100.0 * wall : b->limit;
        if (sec <= limit)
            continue;
        const char *what = b->self ? "self" : "inclusive";
        p.category = wt__an_intern(a, b->category);
        p.seconds = sec;
        p.cost = sec - limit;
        if (b->percent)
            rc = add(a, WT_AN_BUDGET, "BUDGET", &p,
                     "%s took %s %s = %.1f%% of wall, over its budget of %g%% (by %s)",
                     b->category, AN_SECS(b1, sec), what, wall > 0 ? 100.0 * sec / wall : 0.0,
                     b->limit, AN_SECS(b2, sec - limit));
        else
            rc = add(a, WT_AN_BUDGET, "BUDGET", &p, "%s took %s %s, over its budget of %s (by %s)",
                     b->category, AN_SECS(b1, sec), what, AN_SECS(b3, b->limit),
                     AN_SECS(b2, sec - limit));
    }
    for (size_t i = 0; base && i < l->n_cats && rc == 0; i++) {
        const wt_ledger_cat *c = &l->cats[i];
        const wt_ledger_cat *old = find_cat(base, c->name);
        double was = old ? old->seconds : 0.0, grew = c->seconds - was;
        if (grew <= o->baseline_min_s)
            continue;
        if (was > 0 && 100.0 * grew / was <= o->baseline_pct)
            continue;
        p.category = wt__an_intern(a, c->name);
        p.seconds = c->seconds;
        p.cost = grew;
        if (was > 0)
            rc = add(a, WT_AN_BASELINE, "REGRESSION", &p,
                     "%s took %s against %s in the baseline (+%s, +%.0f%%; threshold %g%%)",
                     c->name, AN_SECS(b1, c->seconds), AN_SECS(b2, was), AN_SECS(b3, grew),
                     100.0 * grew / was, o->baseline_pct);
        else
            rc = add(a, WT_AN_BASELINE, "REGRESSION", &p, "%s took %s and is not in the baseline",
                     c->name, AN_SECS(b1, c->seconds));
    }
    return rc;
}

int wt_anomalies_finish(wt_anomalies *a, const wt_ledger_result *ledger,
                        const wt_ledger_result *baseline)
{
    if (a->out)
        return 0;
    a->wall = ledger && ledger->wall > 0 ? ledger->wall : 0.0;
    a->untracked = ledger ? ledger->untracked : 0.0;
    a->min_cost = a->opts.min_cost_s >= 0 ? a->opts.min_cost_s
                                          : fmax(0.01 * a->wall, WT_ANOMALY_MIN_COST_FLOOR_S);
    int rc = number_runs(a);
    if (rc == 0) {
        count_repeats(a);
        rc = wt__an_fold_repeats(a);
    }
    if (rc == 0) {
        rc = finish_misses(a);
    }
    if (rc == 0)
        rc = wt__an_finish_late(a);
    if (rc == 0)
        rc = finish_keys(a);
    if (rc == 0 && ledger)
        rc = finish_totals(a, ledger, baseline);
    return rc < 0 ? rc : wt__an_compose(a);
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

int64_t wt_anomalies_below_min_cost(const wt_anomalies *a, wt_anomaly_kind k)
{
    return (unsigned)k < WT_AN_KIND_COUNT ? a->below[k] : 0;
}

double wt_anomalies_min_cost(const wt_anomalies *a) { return a->min_cost; }

double wt_anomalies_avoidable(const wt_anomalies *a, int *lower_bound)
{
    if (lower_bound)
        *lower_bound = a->avoidable_lb;
    return a->avoidable;
}

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
        wt__reservoir_release(&a->keys[i].hits);
        wt__reservoir_release(&a->keys[i].misses);
        wt__reservoir_release(&a->keys[i].others);
        wt__an_late_release(&a->keys[i]);
    }
    for (size_t i = 0; i < a->n_cats; i++)
        wt__reservoir_release(&a->cat_hits[i]);
    free(a->cat_hits);
    free(a->cat_keys);
    free(a->keys);
    free(a->misses);
    free(a->out);
    free(a->files);
    free(a->rounds);
    free(a->groups);
    free(a->items);
    free(a->out_groups);
    wt__strmap_release(&a->group_map);
    wt__strmap_release(&a->strings);
    wt__strmap_release(&a->key_map);
    wt__strmap_release(&a->cat_map);
    wt__textset_release(&a->kept_labels);
    free(a);
}
