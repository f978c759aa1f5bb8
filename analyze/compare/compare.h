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

typedef struct wt_compare_opts {
    double confidence;     /* of the paired interval; 0 means 0.95 */
    int discard;           /* rounds left out at the start of every configuration */
    int runs;              /* 1: runs mode (two sides), 0: rounds mode */
    const char *side[2];   /* runs mode: the sides' names; NULL: "a", "b" */
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
    int64_t open_ns, min_ts, max_end;
    size_t first_round, n_rounds; /* its rounds: [first, first + n), sorted by start */
} wt_cmp_file;

typedef struct wt_cmp_round {
    int config, file;
    int64_t number, ts, dur;
    int implicit, discarded;
    double *stage_ns;  /* [n_stage_cap] summed span time, NAN when the stage is absent */
    size_t n_stage_cap;
    int64_t *ctr, *ctr_ts; /* [WT_CMP_MAX_COUNTERS]; ctr_ts INT64_MIN: no sample */
} wt_cmp_round;

typedef struct wt_cmp_stage {
    const char *category, *label; /* NULL allowed */
    char *display;                /* "category/label" */
    uint32_t depth;               /* the least depth it was seen at; round stage: 0 */
    int64_t first_offset;         /* least start - round start: orders the table */
    int is_round;                 /* the round's own duration */
} wt_cmp_stage;

/* A stage of one configuration. */
typedef struct wt_cmp_cell {
    wt_summary s;        /* over the rounds that have the stage, in ms */
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
    wt_cmp_round *rounds;
    size_t n_rounds;
    wt_cmp_names stage_keys, counter_names, meta_keys, config_keys;
    wt_cmp_stage *stages;
    wt_cmp_config *configs;
    char **side_meta[2];   /* [WT_CMP_MAX_META] metadata outside rounds, per side */
    uint64_t spans_outside, spans_in_rounds, dropped_rounds, dropped_stages, dropped_counters;
    /* results, after finish */
    int finished;
    wt_cmp_cell *cells;    /* [config * n stages + stage] */
    wt_cmp_pair *pairs;
    size_t n_pairs;
    size_t *stage_order;   /* display order of the stages */
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
/* The first warning of `kind`, or NULL. */
const wt_cmp_warning *wt_compare_find_warning(const wt_compare *c, const char *kind);

/* The human report, on `out`. */
int wt_compare_write_text(const wt_compare *c, FILE *out);
/* The walltime-compare/1 document, on `out`. */
int wt_compare_write_json(const wt_compare *c, FILE *out, int pretty);

/* A value in ms, "-" for NAN, into buf; returns buf. */
const char *wt_compare_fmt_ms(char *buf, size_t n, double ms);

/* Internals shared by compare.c, compare_warn.c and compare_report.c. */
void wt__cmp_warn(wt_compare *c, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
double wt__cmp_round_stage_ns(const wt_cmp_round *r, size_t s);
/* Adds every warning of a finished collection (compare_warn.c). */
int wt__cmp_find_warnings(wt_compare *c);

#endif
