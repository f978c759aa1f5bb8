/* The insides of an anomaly analysis, shared by anomalies.c (the streaming pass and the rules)
 * and anomalies_group.c (what finish makes of them: process names, groups, lines, gates). */
#ifndef WT_ANALYZE_ANOMALIES_INT_H
#define WT_ANALYZE_ANOMALIES_INT_H

#include "anomalies.h"
#include "procname.h"
#include "spanstat.h"
#include "textset.h"
#include "walltime/ledger.h"

#define NS 1e-9

typedef struct an_span {
    uint64_t pid, tid;
    int64_t ts, dur;
    const char *detail;
    const char *label; /* its own label, interned, when its key folds labels; else NULL */
    uint32_t key;  /* index in keys */
    uint32_t file; /* index in files */
    int repeat;    /* a MISS where a warm cache was expected (anomalies.h, repeat-miss): 1 in a
                      later round of its file, 2 in a later run */
    int round;     /* of a fold key's MISS: its round in its file, set at the file's end */
} an_span;

/* Where a span of a known key was: what the slowest-span lists keep (the key has the names). */
typedef struct an_at {
    uint64_t pid, tid;
    int64_t ts, dur;
} an_at;

/* A MISS past the list, kept among its key's AN_LATE_KEEP slowest (anomalies_late.c). */
#define AN_LATE_KEEP 4
typedef struct an_late {
    int64_t ts, dur;
    uint64_t tid;
    uint32_t file;  /* index in files */
    uint8_t picked; /* at finish: listed among its category's most costly */
    char *strs;     /* owned, NULL for neither: its own label (a fold key's, else "") and its
                       detail ("" for none), each ending in NUL */
} an_late;

typedef struct an_key {
    /* first: what every span of the key reads (the header and its class's reservoir) */
    int64_t floor_slow, floor_slow_hits; /* a span enters slow[] (slow_hits[]) when over this:
                                            -1 while not full, then the shortest kept */
    int64_t load_ts_file; /* the earliest start of a HIT or MISS in the current file (INT64_MAX
                             none): a later one is the common case */
    uint32_t cat; /* index in cat_hits */
    /* the durations of its HITs, its MISSes and its other spans (cached unknown): each span
     * goes to one of them. The median of all its spans (the outlier rule's siblings) is that of
     * their union, each sample weighted by what it stands for (wt__reservoir_median_union():
     * exact while each holds its whole class; a reservoir of all spans was 1 KB more a label
     * and a second sample a span). */
    wt__reservoir hits, misses, others;
    const char *category, *label;
    an_at slow[WT_ANOMALY_KEEP_SLOWEST], slow_hits[WT_ANOMALY_KEEP_SLOWEST];
    uint8_t n_slow, n_slow_hits;
    uint8_t lo_slow, lo_slow_hits; /* the index of the shortest kept, once full */
    /* the first load (HIT or MISS) of the run, for repeats across runs */
    int64_t load_ts;
    uint32_t load_file;
    /* the MISSes listed one by one (the rest are only in misses) */
    int64_t listed_n;
    double listed_s;
    /* repeated MISSes among the listed ones, found at file end and at finish */
    int64_t rep_n, rep_runs; /* repeats, of which in a later run */
    double rep_s;
    an_at first_rep;
    /* 1 once labels past the bound fold into the key: its spans are of many labels, so the
     * rules that hold a span against its label's others (slow-hit, outlier) skip it, a MISS
     * names its own label, and repeats are its labels' (anomalies_fold.c) */
    uint8_t fold;
    /* its AN_LATE_KEEP slowest MISSes past the list (made at the first of them) */
    uint8_t n_late, lo_late;
    int64_t floor_late; /* a MISS past the list enters late[] when over this: -1 while not
                           full, then the shortest kept */
    an_late *late;
} an_key;

/* One file (process) of the run. */
typedef struct an_file {
    uint64_t pid;
    wt_procname who;     /* its pid and rank (the run metadata "rank"), for its name */
    const char *program; /* the command's first word, without its directory */
    const char *name;    /* "rank N (pid P)" or "pid P", made at finish */
    int64_t start, end;  /* process start; end record or last event */
    size_t miss_begin;   /* its first listed MISS */
    int run;             /* files whose processes overlap in time are one run */
} an_file;

typedef struct an_list {
    wt_anomaly *v;
    size_t n, cap;
} an_list;

typedef struct an_group {
    wt_anomaly_group g;
    size_t first; /* creation order, for ties */
} an_group;

struct wt_anomalies {
    wt_anomaly_opts opts;
    wt__pair_slot pcache[WT_PAIR_CACHE]; /* (category, label) pointers -> key index */
    wt__strmap strings;       /* interned strings, owned */
    wt__strmap key_map;       /* "category\x1flabel" -> index in keys */
    an_key *keys;
    size_t n_keys, cap_keys;
    size_t label_key_bytes; /* of the labels of the keys (bounded as in the ledger) */
    /* once key_map reached WT_MAX_LABEL_KEYS: every label of the keys, so that a label of none
     * of them folds without building and looking up its key (textset.h, as in the ledger) */
    wt__textset kept_labels;
    /* the category pointer of the last span folded into WT_OTHER_LABELS, and that key's index
     * (valid in the current file, as the pointer cache) */
    const char *fold_cat;
    uint32_t fold_key;
    int fold_ok;
    wt__strmap cat_map;       /* category -> index in cat_hits */
    wt__reservoir *cat_hits;
    size_t n_cats, cap_cats;
    uint32_t *cat_keys; /* how many keys each category has (the bound's reserve, spanstat.h) */
    size_t cap_cat_keys;
    an_span *misses;
    size_t n_misses, cap_misses;
    an_list kinds[WT_AN_KIND_COUNT];
    int64_t counts[WT_AN_KIND_COUNT];
    int64_t below[WT_AN_KIND_COUNT]; /* not fired: cost under min_cost */
    double min_cost;
    int64_t omitted;
    /* the groups: (kind, category) -> index */
    wt__strmap group_map;
    an_group *groups;
    size_t n_groups, cap_groups;
    const wt_anomaly **items; /* the members of every group, group after group */
    wt_anomaly_group *out_groups;
    double avoidable;
    int avoidable_lb;
    double wall, untracked; /* the ledger's, for the gates */
    wt_anomaly *out;
    size_t n_out;
    /* the files; rounds of the current one (their starts) */
    an_file *files;
    size_t n_files, cap_files;
    int64_t *rounds;
    size_t n_rounds, cap_rounds;
    /* the current file */
    const char *path;
    uint64_t pid, first_pid;
    int64_t start, first_start, last_ts, dropped;
    uint64_t dropped_tid;
    int files_seen, damaged_reported;
    int late_failed; /* the batch path could not keep a MISS past the list: out of memory */
};

/* How many spans key k has had. */
static inline int64_t wt__an_key_spans(const an_key *k)
{
    return k->hits.n + k->misses.n + k->others.n;
}

/* Rounds of one file whose starts are kept, to tell the round of a MISS; later ones are taken
 * as part of the last kept round. */
#define AN_MAX_ROUNDS 65536

/* `s` seconds for a person, the one precision rule of every human output (walltime/ledger.h):
 * "41.2 s", "412 ms", "4.12 ms". buf is a char array of WT_LEDGER_SECONDS_MAX. */
#define AN_SECS(buf, s) wt_ledger_fmt_seconds(buf, sizeof buf, s)

/* The string interned in a (NULL for NULL or out of memory). */
const char *wt__an_intern(wt_anomalies *a, const char *s);

/* A REPEATED MISS of key k's label (anomalies.c): rep_n repeats, rep_runs of them in a later
 * run, rep_s seconds, the earliest at f. */
int wt__an_report_repeat(wt_anomalies *a, const an_key *k, const char *label, int64_t rep_n,
                         int64_t rep_runs, double rep_s, const an_at *f);

/* anomalies_fold.c: the repeats of a fold key's labels, found and reported. */
int wt__an_fold_repeats(wt_anomalies *a);

/* A MISS of key k (its own label, detail NULL for none) as a CACHE MISS finding against the
 * key's median HIT; its cost added to the run's avoidable seconds. Listed past the rule's cap
 * when `uncapped` (a late MISS: a bounded number). */
int wt__an_report_miss(wt_anomalies *a, an_key *k, const wt_anomaly *where,
                       const char *label, const char *detail, int uncapped);

/* The median HIT a MISS of k is held against (its label's, else its category's) in *med, and
 * what it is of; NULL when there is no HIT at all. A fold key's HITs are those of its labels. */
const char *wt__an_hit_median(wt_anomalies *a, an_key *k, double *med);

/* The cost of a MISS of sec seconds against the median HIT med of `of`
 * (wt__an_hit_median()): what it took over the median, or all it took with no HIT to compare. */
static inline double wt__an_miss_cost(double sec, double med, const char *of)
{
    return of ? (sec > med ? sec - med : 0.0) : sec;
}

/* anomalies_late.c: keeps key k's MISS past the list (at ts on thread tid, of duration dur
 * over k's floor_late, its own label and detail NULL for none) among the key's slowest; at
 * finish, lists each category's most costly of them and counts the rest into their groups;
 * frees what a key keeps. */
int wt__an_keep_late(wt_anomalies *a, an_key *k, int64_t ts, int64_t dur, uint64_t tid,
                     const char *label, const char *detail);
int wt__an_finish_late(wt_anomalies *a);
void wt__an_late_release(an_key *k);

/* Counts n anomalies of total cost `cost` into the group of (title, category), made on first
 * sight (title static, category interned in a or NULL); returns the group's index, or -1 out
 * of memory. */
long wt__an_group_add(wt_anomalies *a, wt_anomaly_kind k, const char *title,
                      const char *category, int64_t n, double cost);

/* The end of finish: texts with process names, the list, the groups sorted. 0 or WT_ENOMEM. */
int wt__an_compose(wt_anomalies *a);

#endif
