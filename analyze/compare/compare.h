/* compare: keep/skip rounds, streamed from trace events into a rounds x stages table, then
 * summarised per configuration, paired across configurations, and reported as text, JSON
 * (walltime-compare/1, docs/COMPARE.md) or SVG (svg.h).
 *
 * Two passes over the same files, in the same order: pass 1 collects the rounds (WT_EV_ROUND,
 * written when a round ends, so after the spans inside it); pass 2 puts each span, counter and
 * metadata event into the round whose time window holds it on that process. Memory is rounds x
 * stages x configurations plus counters and metadata keys, each capped (WT_CMP_MAX_*); spans
 * are never kept.
 *
 * Two modes. Rounds mode: the rounds inside the files, a configuration per round name
 * ("keep", "skip"). Runs mode: two sides (base/new); each file of a side is a run; a run
 * without rounds is one implicit round spanning the trace, and the configuration is the side
 * ("base"), or "side:round name" when the runs have rounds, paired with the same round name
 * of the other side.
 *
 * Lifecycle: create; pass 1 (file_begin, event..., file_end per file); pass 2 (file_resume,
 * event... per file); finish; write_text / write_json / wt_svg_write; free. Functions return
 * 0 or a negative WT_E* code unless said otherwise. */
#ifndef WT_COMPARE_H
#define WT_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "procname.h"
#include "stats.h"
#include "walltime/reader.h"

#define WT_CMP_MAX_FILES 4096
#define WT_CMP_MAX_ROUNDS 20000
#define WT_CMP_MAX_STAGES 512
#define WT_CMP_MAX_CONFIGS 32
#define WT_CMP_MAX_COUNTERS 128
#define WT_CMP_MAX_META 256
#define WT_CMP_MAX_WARNINGS 200
#define WT_CMP_SCHEMA "walltime-compare/1"
/* Stage grouping (compare_tree.c). */
#define WT_CMP_AUTO_LABELS 8       /* --by auto: a category with more labels is one row */
#define WT_CMP_MAX_KEYS 16384      /* distinct (category, label) counted in pass 1 */
#define WT_CMP_MAX_CATEGORIES 1024 /* distinct categories counted in pass 1 */
#define WT_CMP_CENSUS_BYTES (4u << 20) /* and at most this many bytes of their names */
/* The last of those bytes are kept, as the analyses keep their last keys (spanstat.h,
 * wt__label_keys_full), for names that must keep rows: the stages that end after a load's
 * thousands of tensors (compare_census.c). */
#define WT_CMP_CENSUS_RESERVE_BYTES (1u << 20)
/* Labels past the census are counted, not kept: a set of their 64-bit hashes, up to this many
 * (8 MiB of slots at most); past it a category's count is a lower bound. */
#define WT_CMP_MAX_PAST_LABELS (1u << 19)
#define WT_CMP_MAX_DEPTH 32        /* nesting levels followed per thread; deeper spans count flat */
#define WT_CMP_MAX_THREADS 4096    /* threads followed per file; others count flat */
#define WT_CMP_MAX_PENDING 262144  /* span sums waiting for their parent, all threads */

/* How spans are grouped into stages. */
typedef enum wt_cmp_by {
    WT_CMP_BY_AUTO = 0,  /* by label, but a category with more than WT_CMP_AUTO_LABELS labels is
                            one row (top-level stages of the round's thread keep their own) */
    WT_CMP_BY_LABEL,     /* a row per (category, label), folded by category only at the limit */
    WT_CMP_BY_CATEGORY   /* a row per category */
} wt_cmp_by;

/* What a stage row is. */
#define WT_CMP_STAGE_ROUND 0    /* the round's own duration */
#define WT_CMP_STAGE_LABEL 1    /* one (category, label) */
#define WT_CMP_STAGE_CATEGORY 2 /* every label of a category (--by category) */
#define WT_CMP_STAGE_ROLLUP 3   /* the labels of a category rolled up (auto, or at the limit) */
#define WT_CMP_STAGE_OTHER 4    /* past every limit: "(other stages)" */

typedef struct wt_compare_opts {
    double confidence;     /* of the paired interval; 0 means 0.95 */
    int discard;           /* rounds left out at the start of every configuration */
    int runs;              /* 1: runs mode (two sides), 0: rounds mode */
    const char *side[2];   /* runs mode: the sides' names; NULL: "a", "b" */
    wt_cmp_by by;          /* stage grouping */
} wt_compare_opts;

/* A name table: strings copied once, found by content through an open-addressing hash. */
typedef struct wt_cmp_names {
    char **s;
    size_t n, cap; /* cap: the most names it takes */
    uint32_t *slot; /* 1 + index, 0 free; nslot a power of two >= 2 cap */
    size_t nslot;
} wt_cmp_names;

typedef struct wt_cmp_file {
    char *path, *program, *host;
    int side;
    uint64_t pid;
    wt_procname who; /* "rank N (pid P)" when the trace records wt_meta rank, else "pid P" */
    int64_t open_ns, min_ts, max_end;
    int64_t utc_minus_mono; /* the header's anchor: CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
    size_t first_round, n_rounds; /* its rounds: [first, first + n), sorted by start */
    int launch;       /* the launch it is a process of (compare_launch.c), after finish */
    size_t n_in_launch; /* processes of that launch, itself included */
} wt_cmp_file;

/* Pass 1's census of span names, from which the stages are planned before pass 2: grouping
 * needs each category's label count, and the top-level stages must be known before the
 * limit folds anything. */
typedef struct wt_cmp_census {
    wt_cmp_names keys;      /* "category\x1flabel" */
    long *key_cat;          /* [WT_CMP_MAX_KEYS] its category, -1 past the category limit */
    uint64_t *key_top_tid;  /* the thread of its first depth-0 span */
    unsigned char *key_top; /* 1: it has a depth-0 span; 2: one on the main thread (tid = pid) */
    long *key_stage;        /* after planning */
    wt_cmp_names cats;
    size_t *cat_labels;     /* [WT_CMP_MAX_CATEGORIES] distinct labels counted */
    uint64_t *cat_overflow; /* spans of labels past the key limit */
    size_t *cat_past;       /* distinct labels past the key limit */
    unsigned char *cat_past_more; /* more past labels than cat_past: the hash set was full */
    uint64_t *past;         /* the hashes of the "category\x1flabel" names past the census */
    size_t n_past, past_slots;
    long *cat_stage;        /* its category row, -1 none */
    int *cat_fold;          /* 0 not folded, 1 auto, 2 limit, 3 --by category */
    uint64_t keys_overflow, cats_overflow;
    size_t key_bytes;       /* of the names counted, against WT_CMP_CENSUS_BYTES */
    uint64_t round_tid[64]; /* threads that recorded rounds: their depth-0 spans are top-level */
    size_t n_round_tid;
    long other_stage;       /* "(other stages)", -1 none */
    size_t n_limit_folded, n_to_other; /* categories folded at the limit; keys sent to other */
} wt_cmp_census;

/* Pass 2's view of one thread: per nesting level, the span time of finished spans still
 * waiting for their enclosing span (spans are written when they end, children first). */
typedef struct wt_cmp_pending {
    uint32_t stage;
    int direct; /* a span of this level (1), or time carried up from below (0) */
    double ns;
} wt_cmp_pending;

/* A span of a rolled-up row waiting for its parent, kept by label: which row it lands in
 * depends on the parent (a rolled-up category gets a row under each row that encloses it),
 * and the row counts the labels under it. */
typedef struct wt_cmp_keyed {
    uint32_t key;          /* census key */
    uint32_t hits, misses; /* spans with cached HIT / MISS */
    int64_t first;         /* the earliest start */
    double ns;
} wt_cmp_keyed;

typedef struct wt_cmp_level {
    long round;        /* the round these spans lie in */
    int64_t first, last; /* the earliest start and latest end of its spans */
    wt_cmp_pending *e;
    size_t n, cap;
    wt_cmp_keyed *k;   /* spans of rolled-up rows, one per span (no merging: no scan) */
    size_t nk, kcap;
} wt_cmp_level;

typedef struct wt_cmp_thread {
    uint64_t tid;
    int used, top; /* top: one past the deepest level with entries */
    wt_cmp_level lv[WT_CMP_MAX_DEPTH];
} wt_cmp_thread;

typedef struct wt_cmp_round {
    int config, file;
    int64_t number, ts, dur;
    int implicit, discarded;
    int merged;        /* combined into a round of another process of its launch: not counted */
    uint32_t n_procs;  /* processes combined into this round (1: its own file only) */
    double *stage_ns;  /* [n stages] summed span time, NAN when the stage is absent; a span
                          inside a span of its own stage (same thread) is not added again */
    uint32_t *hits, *misses; /* [n stages] spans with cached HIT / MISS */
    size_t n_stage_cap;
    int64_t *ctr, *ctr_ts; /* [WT_CMP_MAX_COUNTERS]; ctr_ts INT64_MIN: no sample */
} wt_cmp_round;

typedef struct wt_cmp_stage {
    const char *category, *label; /* NULL allowed; label NULL for a category row */
    char *display;                /* "category/label", "category" or "category/..." (rolled up) */
    int kind;                     /* WT_CMP_STAGE_* */
    size_t n_labels;              /* category rows: the distinct labels in it */
    size_t n_labels_past;         /* of them, labels past the census (they land in this row) */
    int labels_more;              /* n_labels is a lower bound (WT_CMP_MAX_PAST_LABELS) */
    long parent;                  /* the enclosing stage (the round: 0); -1 not yet seen */
    uint32_t depth;               /* in the stage tree: the round 0, its children 1, ... */
    int64_t first_offset;         /* least start - round start: orders siblings */
    int is_round;                 /* the round's own duration */
    int has_data;                 /* some span of it lies in a round */
    long base;                    /* a rolled-up row under one more enclosing row: the row it
                                     was made from (compare_tree.c); -1 otherwise */
    int split;                    /* a rolled-up row that got rows under other rows */
    unsigned char *seen;          /* rolled-up rows: bit per census key linked into it */
} wt_cmp_stage;

/* A stage of one configuration. */
typedef struct wt_cmp_cell {
    wt_summary s;        /* over the rounds that have the stage, in ms */
    uint64_t hits, misses; /* spans with cached HIT / MISS in the configuration's kept rounds */
    double *per_round;   /* [config n_rounds], ms, NAN when absent in that round */
} wt_cmp_cell;

typedef struct wt_cmp_config {
    char *name;
    int side;
    size_t *rounds;  /* indices of its kept rounds, in round order */
    size_t n_rounds, n_discarded;
    char **meta;     /* [WT_CMP_MAX_META] values seen inside its rounds, NULL none */
    wt_summary *ctr; /* [n counters] over its rounds' last samples */
} wt_cmp_config;

/* A stage of a pair (A, B): saved = median A - median B; paired over rounds with both. */
typedef struct wt_cmp_pair_stage {
    double a_median, b_median, saved, saved_pct; /* ms, %; NAN when a side lacks the stage */
    wt_paired paired;                            /* d = A - B, ms */
    long more_pairs;   /* too few or noise: the fewest further pairs that, agreeing with the
                          median's sign, would give an interval excluding 0; 0 decided; -1 not
                          within WT_CMP_MAX_MORE or no direction */
    double *diff;                                /* [paired.n] A - B per pair, pair order */
} wt_cmp_pair_stage;

typedef struct wt_cmp_pair {
    int a, b;
    size_t n_pairs;           /* min of the round counts */
    wt_cmp_pair_stage *stage; /* [n stages] */
} wt_cmp_pair;

typedef struct wt_cmp_warning {
    const char *kind; /* static: "first_round_outlier", "drift", ... (docs/COMPARE.md) */
    char *message;
} wt_cmp_warning;

typedef struct wt_compare {
    wt_compare_opts opt;
    int pass, cur_file;
    wt_cmp_file *files;
    size_t n_files;
    size_t n_launches;      /* after finish: launches of more than one process */
    uint64_t rounds_partial; /* combined rounds that lack a process of their launch */
    wt_cmp_round *rounds;
    size_t n_rounds;
    wt_cmp_names stage_keys, counter_names, meta_keys, config_keys;
    wt_cmp_census census;
    wt_cmp_thread *threads; /* pass 2, the current file: [WT_CMP_MAX_THREADS] by tid hash */
    size_t n_pending;
    uint64_t spans_flat;    /* spans counted without their tree (depth or thread limits) */
    wt_cmp_stage *stages;
    wt_cmp_config *configs;
    char **side_meta[2];   /* [WT_CMP_MAX_META] metadata outside rounds, per side */
    uint64_t spans_outside, spans_in_rounds, dropped_rounds, dropped_stages, dropped_counters;
    /* results, after finish */
    int finished;
    wt_cmp_cell *cells;    /* [config * n stages + stage] */
    wt_cmp_pair *pairs;
    size_t n_pairs;
    size_t *stage_order;   /* display order: the stage tree depth first, siblings by start */
    size_t n_order;        /* stages shown: the round and every stage with data */
    wt_cmp_warning *warnings;
    size_t n_warnings;
    uint64_t warnings_dropped;
} wt_compare;

/* Creates an empty comparison; opts NULL means defaults. NULL when out of memory. */
wt_compare *wt_compare_create(const wt_compare_opts *opts);
void wt_compare_free(wt_compare *c);

/* Pass 1: a file of `side` (0 in rounds mode) opened. Returns its file index (>= 0) or a
 * negative WT_E* code (WT_ELIMIT: too many files). */
int wt_compare_file_begin(wt_compare *c, int side, const char *path, const wt_trace_info *info);
/* Pass 1: the file is done. */
int wt_compare_file_end(wt_compare *c);
/* Pass 2: the events of file `index` (from file_begin) follow. */
int wt_compare_file_resume(wt_compare *c, int index);
/* An event of the current file, in either pass. Never fails on odd events: they are counted
 * or ignored. */
int wt_compare_event(wt_compare *c, const wt_event *ev);
/* Rounds, configurations and stages after pass 1 (stages only after pass 2). */
size_t wt_compare_n_stages(const wt_compare *c);
size_t wt_compare_n_configs(const wt_compare *c);
/* Computes summaries, pairs and warnings. After it nothing more may be fed. */
int wt_compare_finish(wt_compare *c);

/* The cell of configuration `config` and stage `stage`. */
const wt_cmp_cell *wt_compare_cell(const wt_compare *c, size_t config, size_t stage);
/* The stage whose display name is `display`, or -1. */
long wt_compare_find_stage(const wt_compare *c, const char *display);
/* Runs mode: side 0 or 1's name (after its file, for BASE NEW), else "a" or "b". */
const char *wt_compare_side_name(const wt_compare *c, int side);
/* The first warning of `kind`, or NULL. */
const wt_cmp_warning *wt_compare_find_warning(const wt_compare *c, const char *kind);

/* The human report, on `out`. */
int wt_compare_write_text(const wt_compare *c, FILE *out);
/* The walltime-compare/1 document, on `out`. */
int wt_compare_write_json(const wt_compare *c, FILE *out, int pretty);

/* The name of file f's process, "rank N (pid P)" or "pid P", into buf; returns buf. */
const char *wt_compare_process(const wt_compare *c, size_t f, char *buf, size_t n);

/* A value in ms, "-" for NAN, into buf; returns buf. */
const char *wt_compare_fmt_ms(char *buf, size_t n, double ms);

/* Internals shared by compare.c, compare_warn.c and compare_report.c. */
void wt__cmp_warn(wt_compare *c, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
double wt__cmp_round_stage_ns(const wt_cmp_round *r, size_t s);
/* Groups the files into launches (several ranks of one distributed run) and combines each
 * launch's round r of every process into one round, before the rounds are collected
 * (compare_launch.c). */
int wt__cmp_combine_launches(wt_compare *c);
/* Adds every warning of a finished collection (compare_warn.c). */
int wt__cmp_find_warnings(wt_compare *c);

/* Name tables (compare.c). names_find: the index of `s`, added when `add` and there is room;
 * -1 absent or full, -2 no memory. */
int wt__cmp_names_init(wt_cmp_names *t, size_t cap);
void wt__cmp_names_release(wt_cmp_names *t);
long wt__cmp_names_find(wt_cmp_names *t, const char *s, int add);
/* The round of the current file whose window holds [ts, end], or NULL (compare.c). */
wt_cmp_round *wt__cmp_round_at(wt_compare *c, int64_t ts, int64_t end);

/* The rows (compare_census.c): pass 1's census of a span and of a thread that records rounds;
 * the plan of the rows after pass 1. */
int wt__cmp_census_init(wt_cmp_census *k);
void wt__cmp_census_release(wt_cmp_census *k);
int wt__cmp_census_span(wt_compare *c, const wt_event *ev);
void wt__cmp_census_round_tid(wt_compare *c, uint64_t tid);
int wt__cmp_plan(wt_compare *c);
/* The row of rolled-up row `base` under row `parent`, made the first time (a copy of base:
 * its category and name); -1 when the table is full, -2 out of memory. */
long wt__cmp_rollup_row(wt_compare *c, uint32_t base, uint32_t parent);
/* "category\x1flabel" of a span: a separator no name has, so "a/b"+"c" and "a"+"b/c" stay
 * apart. In buf when it fits, else malloc'd (the caller frees it when != buf); NULL when out
 * of memory. */
char *wt__cmp_key_of(char *buf, size_t n, const wt_event *ev);
/* The stage tree (compare_tree.c): a span of pass 2; the end of a file's pass 2; the tree
 * order at finish. */
int wt__cmp_place_span(wt_compare *c, const wt_event *ev);
void wt__cmp_flush_threads(wt_compare *c);
int wt__cmp_tree_order(wt_compare *c);
/* The most further pairs compare looks for when a verdict is not reached. */
#define WT_CMP_MAX_MORE 1000
#define WT_CMP_STR_(x) #x
#define WT_CMP_STR(x) WT_CMP_STR_(x)

#endif
