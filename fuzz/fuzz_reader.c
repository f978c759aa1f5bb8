/* libFuzzer harness: one input is a whole .wtrace file. It goes through the reader to the end
 * (with the invariants reader.h promises checked on every event), then through the ledger and
 * anomalies (wt_analysis_run, with a budget so that rule runs too), compare in rounds mode with
 * every report, and the Perfetto (also with an interning budget of 200 bytes) and Chrome
 * exports. A crash, a sanitizer report, a hang (-timeout) or an allocation over
 * -rss_limit_mb / -malloc_limit_mb is a finding; so is a broken invariant, which aborts with
 * a message naming it.
 *
 * Mutations: libFuzzer's own byte mutations half of the time, else one that knows the frame
 * structure (frame_mutate.h: empty and skippable frames, records split across frames, frames
 * merged or dropped, damage inside a frame under a good checksum).
 *
 * Built only with -DWT_FUZZ=ON and clang (fuzz/CMakeLists.txt); docs/FUZZING.md says how to run
 * it. The reader takes a path, so each input is written to a file in $TMPDIR first. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "frame_mutate.h"
#include "compare.h"
#include "export.h"
#include "svg.h"
#include "walltime/reader.h"

static char trace_path[256];
static FILE *devnull;

static void broken(const char *what, long long a, long long b)
{
    fprintf(stdout, "fuzz_reader: invariant broken: %s (%lld, %lld)\n", what, a, b);
    fflush(stdout);
    abort();
}

#define EXPECT(cond, what, a, b)                                                               \
    do {                                                                                       \
        if (!(cond))                                                                           \
            broken(what, (long long)(a), (long long)(b));                                      \
    } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(trace_path, sizeof trace_path, "%s/wt_fuzz_%ld.wtrace", tmp && *tmp ? tmp : "/tmp",
             (long)getpid());
    devnull = fopen("/dev/null", "w");
    /* the analyses report every damaged frame on stderr: silenced (libFuzzer and the sanitizers
     * write to the file descriptor, not through this FILE) */
    stderr = devnull;
    return 0;
}

static void check_string(const char *s)
{
    if (s)
        EXPECT(strlen(s) <= 4096, "string longer than the format allows", strlen(s), 4096);
}

/* FNV-1a over what an event says, so that two ways of reading can be compared. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t mix_str(uint64_t h, const char *s) { return s ? mix(h, s, strlen(s) + 1) : mix(h, "", 1) ^ 1; }

/* The invariants of a span (from wt_reader_next() or a batch), added to the hash *h. */
static void check_span(uint64_t *h, uint64_t tid, int64_t ts, int64_t dur, uint32_t depth,
                       int cached, uint32_t flags, int64_t count, int64_t bytes, const char *cat,
                       const char *label, const char *detail)
{
    EXPECT(ts >= 0 && dur >= 0 && ts <= INT64_MAX / 2 - dur, "span time", ts, dur);
    EXPECT(cached >= 0 && cached <= WT_CACHED_MISS, "cached", cached, 0);
    EXPECT((flags & ~(WT_EVF_UNCLOSED | WT_EVF_MEASURED)) == 0, "span flags", flags, 0);
    EXPECT(count >= 1, "span count >= 1 (BUG-1)", count, 0);
    check_string(cat);
    check_string(label);
    check_string(detail);
    const int64_t v[7] = { (int64_t)tid, ts, dur, depth, cached, (int64_t)flags, count };
    *h = mix(*h, v, sizeof v);
    *h = mix(*h, &bytes, sizeof bytes);
    *h = mix_str(mix_str(mix_str(*h, cat), label), detail);
}

/* The fields of a span that a lean batch fills (WT_SPANF_LEAN), added to the hash *h. */
static void mix_lean(uint64_t *h, uint64_t tid, int64_t dur, uint32_t depth, const char *cat)
{
    EXPECT(dur >= 0, "span duration", dur, 0);
    check_string(cat);
    const int64_t v[3] = { (int64_t)tid, dur, depth };
    *h = mix_str(mix(*h, v, sizeof v), cat);
}

/* Reads the opened r to its end with every invariant checked; its stats in *st, a hash of
 * every event in *hash and of the spans' lean fields (tid, duration, depth, category) and the
 * errors in *hash_lean. With `batches`, spans come through wt_reader_next_spans() (of
 * capacities 1 to 8 in turn) wherever it gives some, which must change nothing; `batches` 2:
 * spans and counter samples through wt_reader_next_records(); `lean`: the reader was told to
 * fill WT_SPANF_LEAN only, and only *hash_lean covers its batches. */
static void read_through(wt_reader *r, size_t size, int batches, int lean, wt_reader_stats *st,
                         uint64_t *hash, uint64_t *hash_lean)
{
    /* each event takes a byte of a frame of at most 4 MiB, which needs 4 bytes of the file */
    const long long bound = (long long)(size / 4 + 1) * (4 << 20) / 2 + (long long)size + 2000;
    long long calls = 0, events = 0, errors = 0;
    char last[512] = "";
    uint64_t h = 0xcbf29ce484222325ULL, hl = h;
    wt_span_rec spans[8];
    wt_event ev;
    int n;
    for (;;) {
        uint64_t tid = 0;
        const size_t cap = 1 + (size_t)(calls % 8);
        const size_t nb = batches == 2 ? wt_reader_next_records(r, spans, cap, &tid)
                          : batches    ? wt_reader_next_spans(r, spans, cap, &tid)
                                       : 0;
        if (nb > 0) {
            EXPECT(++calls <= bound, "wt_reader_next_spans() does not end", calls, bound);
            EXPECT(nb <= 1 + (size_t)((calls - 1) % 8), "batch past its capacity", nb, 0);
            for (size_t i = 0; i < nb; i++) {
                const wt_span_rec *sp = &spans[i];
                if (batches == 2 && sp->flags == WT_REC_COUNTER) {
                    /* hashed as the event path hashes a counter sample */
                    const int kind = WT_EV_COUNTER;
                    h = mix(h, &kind, sizeof kind);
                    const char *name = wt_reader_string(r, sp->label);
                    EXPECT((name != NULL) == (sp->label != 0), "sample name id", sp->label, 0);
                    EXPECT(sp->ts >= 0 && sp->ts <= INT64_MAX / 2, "sample time", sp->ts, 0);
                    const int64_t v[5] = { (int64_t)tid, sp->ts, 0, 0, sp->count };
                    h = mix_str(mix_str(mix_str(mix_str(mix(h, v, sizeof v), NULL), NULL), name),
                                NULL);
                    continue;
                }
                const char *cat = wt_reader_string(r, sp->category);
                EXPECT((cat != NULL) == (sp->category != 0), "batch category id", sp->category, 0);
                mix_lean(&hl, tid, sp->dur, sp->depth, cat);
                if (lean)
                    continue; /* the other fields, flags too, hold what they held */
                EXPECT(!(sp->flags & WT_REC_COUNTER), "a span flagged as a sample", sp->flags, 0);
                const char *label = wt_reader_string(r, sp->label);
                const char *detail = wt_reader_string(r, sp->detail);
                EXPECT((label != NULL) == (sp->label != 0), "batch label id", sp->label, 0);
                EXPECT((detail != NULL) == (sp->detail != 0), "batch detail id", sp->detail, 0);
                const int kind = WT_EV_SPAN;
                h = mix(h, &kind, sizeof kind);
                check_span(&h, tid, sp->ts, sp->dur, sp->depth, sp->cached, sp->flags, sp->count,
                           sp->bytes, cat, label, detail);
            }
            events += (long long)nb;
            continue;
        }
        if ((n = wt_reader_next(r, &ev)) == 0)
            break;
        EXPECT(++calls <= bound, "wt_reader_next() does not end", calls, bound);
        if (n < 0) {
            errors++;
            int64_t off = wt_reader_error_offset(r);
            EXPECT(off >= 0 && (uint64_t)off <= size, "error offset outside the file", off, size);
            EXPECT(strstr(wt_reader_error(r), "': at byte ") != NULL, "error message form", 0, 0);
            EXPECT(strcmp(last, wt_reader_error(r)) != 0, "the same error twice (BUG-6)", off, 0);
            snprintf(last, sizeof last, "%s", wt_reader_error(r));
            h = mix_str(mix(h, &off, sizeof off), wt_reader_error(r));
            hl = mix(hl, &off, sizeof off);
            continue;
        }
        events++;
        EXPECT(ev.kind >= WT_EV_SPAN && ev.kind <= WT_EV_DROPPED, "event kind", ev.kind, 0);
        const int kind = (int)ev.kind;
        h = mix(h, &kind, sizeof kind);
        if (ev.kind == WT_EV_SPAN) {
            mix_lean(&hl, ev.tid, ev.dur, ev.depth, ev.category);
            check_span(&h, ev.tid, ev.ts, ev.dur, ev.depth, (int)ev.cached, ev.flags, ev.count,
                       ev.bytes, ev.category, ev.label, ev.detail);
            continue;
        }
        EXPECT(ev.ts >= 0 && ev.dur >= 0 && ev.ts <= INT64_MAX / 2 - ev.dur, "event time", ev.ts,
               ev.dur);
        EXPECT(ev.dur == 0 || ev.kind == WT_EV_ROUND, "dur on an instant", ev.kind, ev.dur);
        EXPECT(ev.cached <= WT_CACHED_MISS, "cached", ev.cached, 0);
        EXPECT(ev.flags == 0, "flags on an event that is not a span", ev.flags, 0);
        if (ev.kind == WT_EV_DROPPED)
            EXPECT(ev.count >= 0, "dropped count", ev.count, 0);
        check_string(ev.category);
        check_string(ev.label);
        check_string(ev.name);
        check_string(ev.detail);
        const int64_t v[5] = { (int64_t)ev.tid, ev.ts, ev.dur, ev.count, ev.value };
        h = mix(h, v, sizeof v);
        h = mix_str(mix_str(mix_str(mix_str(h, ev.category), ev.label), ev.name), ev.detail);
    }
    EXPECT(wt_reader_next(r, &ev) == 0, "a call after the end did not return 0", 0, 0);
    EXPECT(wt_reader_next_spans(r, spans, 8, NULL) == 0, "a batch after the end", 0, 0);
    EXPECT(wt_reader_next_records(r, spans, 8, NULL) == 0, "a batch after the end", 0, 0);
    wt_reader_get_stats(r, st);
    EXPECT(st->events == (uint64_t)events, "stats.events", st->events, events);
    EXPECT(st->errors == (uint64_t)errors, "stats.errors", st->errors, errors);
    EXPECT(errors <= 1000, "errors past the limit of 1000 (BUG-7)", errors, 1000);
    EXPECT(st->bytes_skipped <= size, "bytes skipped past the file", st->bytes_skipped, size);
    *hash = h;
    *hash_lean = hl;
}

/* The input through a fresh reader, then through one reader reopened for every input (as
 * `trend` reads): whatever the inputs before left in it, it must read this one the same. */
static void run_reader(size_t size)
{
    static wt_reader *kept;
    wt_reader *r = NULL;
    const int rc = wt_reader_open(trace_path, &r);
    const int rc_kept = kept ? wt_reader_reopen(kept, trace_path) : wt_reader_open(trace_path, &kept);
    EXPECT(rc == rc_kept, "a reopened reader opens differently", rc, rc_kept);
    if (rc < 0) {
        EXPECT(r != NULL && *wt_reader_error(r), "open failed without a message", 0, 0);
        EXPECT(kept != NULL && !strcmp(wt_reader_error(r), wt_reader_error(kept)),
               "a reopened reader fails differently", 0, 0);
        wt_reader_free(r);
        return;
    }
    /* a fresh reader event by event and others with batches (of spans; of spans and counter
     * samples): the same events, errors and stats; the kept one (with batches) the same stats
     * (its messages may differ: zstd's words for a frame can depend on the buffers an earlier
     * input left) */
    wt_reader_stats st, st_b, st_kept;
    uint64_t h, h_b, h_kept, hl, hl_b, hl_kept;
    read_through(r, size, 0, 0, &st, &h, &hl);
    for (int batches = 1; batches <= 2; batches++) {
        wt_reader *rb = NULL;
        EXPECT(wt_reader_open(trace_path, &rb) == rc, "a second open differs", rc, 0);
        read_through(rb, size, batches, 0, &st_b, &h_b, &hl_b);
        wt_reader_free(rb);
        EXPECT(!memcmp(&st, &st_b, sizeof st), "batches and events count differently",
               st.events, st_b.events);
        EXPECT(h == h_b, "batches and events read differently", batches, st_b.events);
        EXPECT(hl == hl_b, "batches and events read differently", batches, st_b.events);
    }
    /* the kept one's batches are lean (as trend's): the same spans and stats */
    wt_reader_span_fields(kept, WT_SPANF_LEAN);
    read_through(kept, size, 1, 1, &st_kept, &h_kept, &hl_kept);
    EXPECT(!memcmp(&st, &st_kept, sizeof st), "a reopened reader reads differently", st.events,
           st_kept.events);
    EXPECT(hl == hl_kept, "lean batches read differently", st.events, st_kept.events);
    wt_reader_free(r);
}

static void run_ledger(char **paths)
{
    wt_budget budget = { .category = "load", .limit = 0.000001 };
    wt_anomaly_opts ao;
    wt_anomaly_opts_init(&ao);
    ao.budgets = &budget;
    ao.n_budgets = 1;
    wt_analysis_opts o = { .anomalies = &ao };
    wt_analysis a;
    int rc = wt_analysis_run(paths, 1, &o, &a);
    EXPECT(rc == 0 || rc == WT_EOPEN, "wt_analysis_run", rc, 0);
    if (rc == 0) {
        const wt_ledger_result *L = wt_ledger_calc_result(a.lc);
        double rows = 0;
        for (size_t i = 0; i < L->n_cats; i++) {
            EXPECT(L->cats[i].seconds >= 0, "ledger row < 0", i, L->cats[i].seconds * 1e9);
            rows += L->cats[i].seconds;
        }
        EXPECT(L->wall >= 0 && L->untracked >= 0, "ledger wall/untracked < 0 or NaN",
               L->wall * 1e9, L->untracked * 1e9);
        double diff = rows + L->untracked - L->wall;
        EXPECT(diff <= 1e-6 * (L->wall + rows) + 1e-9 && -diff <= 1e-6 * (L->wall + rows) + 1e-9,
               "ledger rows + untracked != wall", (rows + L->untracked) * 1e9, L->wall * 1e9);
        wt_ledger_calc_render_text(a.lc, devnull, NULL, 0);
        wt_json j;
        wt_json_init(&j, devnull, 0);
        wt_json_object_begin(&j, NULL);
        wt_ledger_calc_render_json(a.lc, &j, "ledger");
        wt_json_object_end(&j);
        wt_json_finish(&j);
    }
    wt_analysis_release(&a);
}

static int cmp_begin(void *p, int fi, const char *path, const wt_trace_info *info)
{
    int rc = wt_compare_file_begin(p, 0, path, info);
    return rc < 0 ? rc : 0;
}
static int cmp_event(void *p, int fi, const wt_event *ev) { return wt_compare_event(p, ev); }
static int cmp_end(void *p, int fi, const wt_reader_stats *st) { return wt_compare_file_end(p); }

static void run_compare(char **paths)
{
    wt_compare_opts o = { .runs = 0 };
    wt_compare *c = wt_compare_create(&o);
    if (!c)
        return;
    wt_source_ops ops = { .file_begin = cmp_begin, .event = cmp_event, .file_end = cmp_end };
    wt_source_result res;
    int rc = wt_source_run(paths, 1, &ops, c, &res);
    if (rc == 0 && c->n_files == 1) {
        wt_reader *r = NULL;
        if (wt_reader_open(paths[0], &r) == 0 && (rc = wt_compare_file_resume(c, 0)) == 0) {
            wt_event ev;
            int n;
            while (rc == 0 && (n = wt_reader_next(r, &ev)) != 0)
                if (n > 0)
                    rc = wt_compare_event(c, &ev);
        }
        wt_reader_free(r);
    }
    if (rc == 0 && res.files_ok + res.files_damaged > 0 && wt_compare_finish(c) == 0) {
        wt_compare_write_text(c, devnull);
        wt_compare_write_json(c, devnull, 0);
        wt_svg_write(c, devnull);
    }
    wt_compare_free(c);
}

static void run_export(char **paths)
{
    /* Perfetto, Chrome, and Perfetto with an interning budget of 200 bytes: a few strings
     * interned, the rest refused, so the names' filter past the budget (pf_maps.c) is made and
     * read on the fuzzed files too (its default budget, 32 MiB, is far beyond any input here) */
    for (int v = 0; v < 3; v++) {
        wt_export_opts eo = { .format = v == 1 ? WT_EXPORT_CHROME : WT_EXPORT_PERFETTO,
                              .intern_bytes = v == 2 ? 200 : 0 };
        wt_export_report rep;
        int rc = wt_export_stream(paths, 1, &eo, devnull, &rep);
        EXPECT(rc == 0, "export failed", v, rc);
    }
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint64_t mut_rng;

static uint64_t mut_rand(void *ctx)
{
    mut_rng ^= mut_rng << 13;
    mut_rng ^= mut_rng >> 7;
    mut_rng ^= mut_rng << 17;
    return mut_rng;
}

static void mut_bytes(void *ctx, uint8_t *content, size_t *n, size_t max)
{
    *n = LLVMFuzzerMutate(content, *n, max);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    mut_rng = 0x9E3779B97F4A7C15ull ^ seed;
    if (mut_rand(NULL) % 2)
        return LLVMFuzzerMutate(data, size, max_size);
    return wt_fm_mutate(data, size, max_size, mut_rand, mut_bytes, NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(trace_path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    char *paths[1] = { trace_path };
    run_reader(size);
    run_ledger(paths);
    run_compare(paths);
    run_export(paths);
    return 0;
}
