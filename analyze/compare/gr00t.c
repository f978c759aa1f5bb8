/* The seed's bench_load result (schema gr00t-tt-perf/1) from a finished comparison. Field by
 * field, after bench_load.py's run():
 *   stages["<stage>/<cfg>"] = {metric "ms", value: median ms over the rounds that have the
 *       stage, min: least ms, per_round: ms rounded to 0.1} (the seed gives min and per_round
 *       for from_pretrained only; here every stage has them, a superset);
 *   meta.configs[cfg] = one record per round: "<stage>_s" seconds, the round number and every
 *       counter's last sample (the seed's n_tensors, device_bytes);
 *   meta.device_mb[cfg] = {mb: device_bytes / 1e6, n_tensors} of the configuration's FIRST
 *       round (recs[0] in the seed), null when the counter was not recorded;
 *   meta.delta (when keep and skip exist; else the first pair A, B) = first-round
 *       device_mb_saved and n_tensors_saved, and "<stage>_ms_saved_median" = median A - median B;
 *   meta.rounds = the most rounds a configuration kept.
 * The envelope (bench, version, dry_run, args, method, stages, rows, device, meta) follows the
 * keywords of the seed's perf_payload() call; that helper's own code is not in the seed, so
 * keys it may add (a timestamp, a host) are not written. NaN (the seed's float("nan")) is
 * written as null, which strict JSON readers accept. */
#include "gr00t.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* A number as Python's json writes a float: the fewest decimals that read back as the same
 * double (0.1, not 0.10000000000000001); null for NaN. */
static void num(wt_json *j, const char *key, double v)
{
    char buf[64];
    for (int d = 0; d <= 17 && isfinite(v) && fabs(v) < 1e17; d++) {
        snprintf(buf, sizeof buf, "%.*f", d, v);
        if (strtod(buf, NULL) == v) {
            wt_json_fixed(j, key, v, d);
            return;
        }
    }
    wt_json_double(j, key, v);
}

const char *wt_gr00t_stage_name(const wt_compare *c, size_t s, char *buf, size_t n)
{
    const wt_cmp_stage *st = &c->stages[s];
    switch (st->kind) {
    case WT_CMP_STAGE_ROUND: snprintf(buf, n, "round"); return buf;
    case WT_CMP_STAGE_OTHER: snprintf(buf, n, "other"); return buf;
    case WT_CMP_STAGE_CATEGORY: snprintf(buf, n, "%s", st->category ? st->category : ""); return buf;
    case WT_CMP_STAGE_ROLLUP:
        if ((st->split || st->base >= 0) && st->parent > 0) {
            /* a row under each enclosing row: named after the row it sits in */
            char up[256];
            wt_gr00t_stage_name(c, (size_t)st->parent, up, sizeof up);
            snprintf(buf, n, "%s/%s", up, st->category ? st->category : "");
        } else {
            snprintf(buf, n, "%s", st->category ? st->category : "");
        }
        return buf;
    default: break;
    }
    int unique = st->label != NULL;
    for (size_t o = 0; o < c->n_order && unique; o++) {
        const wt_cmp_stage *x = &c->stages[c->stage_order[o]];
        if (c->stage_order[o] != s && x->kind == WT_CMP_STAGE_LABEL && x->label && !strcmp(x->label, st->label))
            unique = 0;
    }
    snprintf(buf, n, "%s", unique ? st->label : st->display);
    return buf;
}

static long counter_index(const wt_compare *c, const char *name)
{
    for (size_t t = 0; t < c->counter_names.n; t++)
        if (!strcmp(c->counter_names.s[t], name))
            return (long)t;
    return -1;
}

/* Counter t in the first kept round of configuration k, NAN when absent. */
static double first_round_ctr(const wt_compare *c, size_t k, long t)
{
    const wt_cmp_config *K = &c->configs[k];
    if (t < 0 || K->n_rounds == 0)
        return NAN;
    const wt_cmp_round *r = &c->rounds[K->rounds[0]];
    return r->ctr_ts[t] == INT64_MIN ? NAN : (double)r->ctr[t];
}

static long config_named(const wt_compare *c, const char *name)
{
    for (size_t k = 0; k < c->config_keys.n; k++)
        if (!strcmp(c->configs[k].name, name))
            return (long)k;
    return -1;
}

static void write_stages(wt_json *j, const wt_compare *c)
{
    const size_t ns = c->stage_keys.n;
    char name[600], key[700];
    wt_json_object_begin(j, "stages");
    for (size_t k = 0; k < c->config_keys.n; k++)
        for (size_t o = 0; o < c->n_order; o++) {
            const size_t s = c->stage_order[o];
            const wt_cmp_cell *cell = &c->cells[k * ns + s];
            snprintf(key, sizeof key, "%s/%s", wt_gr00t_stage_name(c, s, name, sizeof name), c->configs[k].name);
            wt_json_object_begin(j, key);
            wt_json_string(j, "metric", "ms");
            num(j, "value", cell->s.median);
            num(j, "min", cell->s.min);
            wt_json_array_begin(j, "per_round");
            for (size_t i = 0; i < c->configs[k].n_rounds; i++)
                wt_json_fixed(j, NULL, cell->per_round[i], 1);
            wt_json_array_end(j);
            wt_json_object_end(j);
        }
    wt_json_object_end(j);
}

static void write_configs(wt_json *j, const wt_compare *c)
{
    const size_t ns = c->stage_keys.n;
    char name[600], key[700];
    wt_json_object_begin(j, "configs");
    for (size_t k = 0; k < c->config_keys.n; k++) {
        const wt_cmp_config *K = &c->configs[k];
        wt_json_array_begin(j, K->name);
        for (size_t i = 0; i < K->n_rounds; i++) {
            const wt_cmp_round *r = &c->rounds[K->rounds[i]];
            wt_json_object_begin(j, NULL);
            for (size_t o = 0; o < c->n_order; o++) {
                const size_t s = c->stage_order[o];
                snprintf(key, sizeof key, "%s_s", wt_gr00t_stage_name(c, s, name, sizeof name));
                num(j, key, c->cells[k * ns + s].per_round[i] / 1e3);
            }
            for (size_t t = 0; t < c->counter_names.n; t++)
                if (r->ctr_ts[t] != INT64_MIN)
                    wt_json_int(j, c->counter_names.s[t], r->ctr[t]);
            wt_json_int(j, "round", r->number);
            wt_json_object_end(j);
        }
        wt_json_array_end(j);
    }
    wt_json_object_end(j);
}

static void write_delta(wt_json *j, const wt_compare *c, long tb, long tt)
{
    long a = config_named(c, "keep"), b = config_named(c, "skip");
    if (a < 0 || b < 0) {
        if (!c->n_pairs)
            return;
        a = c->pairs[0].a;
        b = c->pairs[0].b;
    }
    const size_t ns = c->stage_keys.n;
    char name[600], key[700];
    wt_json_object_begin(j, "delta");
    num(j, "device_mb_saved", (first_round_ctr(c, (size_t)a, tb) - first_round_ctr(c, (size_t)b, tb)) / 1e6);
    num(j, "n_tensors_saved", first_round_ctr(c, (size_t)a, tt) - first_round_ctr(c, (size_t)b, tt));
    for (size_t o = 0; o < c->n_order; o++) {
        const size_t s = c->stage_order[o];
        snprintf(key, sizeof key, "%s_ms_saved_median", wt_gr00t_stage_name(c, s, name, sizeof name));
        num(j, key, c->cells[(size_t)a * ns + s].s.median - c->cells[(size_t)b * ns + s].s.median);
    }
    wt_json_object_end(j);
}

static int reserved_meta(const char *key)
{
    static const char *const keys[] = { "configs", "device_mb", "rounds", "delta", "config" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(key, keys[i]))
            return 1;
    return 0;
}

int wt_gr00t_write_json(const wt_compare *c, FILE *out, int pretty)
{
    wt_json j;
    const long tb = counter_index(c, WT_GR00T_BYTES);
    long tt = counter_index(c, WT_GR00T_TENSORS);
    if (tt < 0)
        tt = counter_index(c, WT_GR00T_TENSORS_ALT);
    size_t rounds = 0;
    for (size_t k = 0; k < c->config_keys.n; k++)
        rounds = c->configs[k].n_rounds > rounds ? c->configs[k].n_rounds : rounds;
    const char *version = NULL;
    for (size_t m = 0; m < c->meta_keys.n; m++)
        if (!strcmp(c->meta_keys.s[m], "version"))
            version = c->side_meta[0][m];
    wt_json_init(&j, out, pretty);
    wt_json_object_begin(&j, NULL);
    wt_json_string(&j, "schema", WT_GR00T_SCHEMA);
    wt_json_string(&j, "bench", "bench_load");
    wt_json_string(&j, "version", version);
    wt_json_bool(&j, "dry_run", 0);
    wt_json_object_begin(&j, "args");
    wt_json_uint(&j, "rounds", rounds);
    wt_json_object_end(&j);
    wt_json_object_begin(&j, "method");
    wt_json_string(&j, "builds", "rounds recorded with wt_round_begin/wt_round_end, read from walltime "
                                 "traces; medians over the rounds");
    wt_json_string(&j, "clock", "host wall clock (CLOCK_MONOTONIC)");
    wt_json_object_end(&j);
    write_stages(&j, c);
    wt_json_array_begin(&j, "rows");
    wt_json_array_end(&j);
    wt_json_object_begin(&j, "device");
    wt_json_string(&j, "host", c->n_files ? c->files[0].host : NULL);
    wt_json_object_end(&j);
    wt_json_object_begin(&j, "meta");
    /* the run's own metadata first, as the seed's setup["meta"] */
    for (size_t m = 0; m < c->meta_keys.n; m++)
        if (c->side_meta[0][m] && !reserved_meta(c->meta_keys.s[m]))
            wt_json_string(&j, c->meta_keys.s[m], c->side_meta[0][m]);
    write_configs(&j, c);
    wt_json_object_begin(&j, "device_mb");
    for (size_t k = 0; k < c->config_keys.n; k++) {
        wt_json_object_begin(&j, c->configs[k].name);
        num(&j, "mb", first_round_ctr(c, k, tb) / 1e6);
        num(&j, "n_tensors", first_round_ctr(c, k, tt));
        wt_json_object_end(&j);
    }
    wt_json_object_end(&j);
    wt_json_uint(&j, "rounds", rounds);
    write_delta(&j, c, tb, tt);
    wt_json_object_end(&j);
    wt_json_object_end(&j);
    wt_json_finish(&j);
    return ferror(out) ? WT_EIO : 0;
}
