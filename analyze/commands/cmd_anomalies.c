/* `walltime-analyze anomalies`: cache misses and the other rules of anomalies.h, with
 * thresholds as options and --fail-on for CI gating. Text, or walltime-anomalies/1 JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "args.h"
#include "source.h"
#include "commands.h"
#include "ledger.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " WT_PROG " anomalies [OPTIONS] FILE.wtrace...\n"
            "\n"
            "What a person would otherwise dig out of logs, grouped by rule and category: a\n"
            "group is a heading with its count and total cost, then its %d most costly\n"
            "(--all: every one). In a run of several processes each line names its process.\n"
            "\n"
            "  miss         every cache MISS with its category, label, detail, and avoidable\n"
            "               cost (its time minus the median HIT of its label, else category)\n"
            "  untracked    untracked above --untracked-pct of wall\n"
            "  repeat-miss  a label missing where a warm cache was expected: in a later round\n"
            "               or run than its first load (a cache that never warms)\n"
            "  slow-hit     a HIT slower than the median MISS of its label\n"
            "  outlier      a span over --outlier-factor x the median of its siblings (same\n"
            "               category and label, 3 spans or more)\n"
            "  unclosed     spans left open at exit or crash\n"
            "  no-end       a trace without its end record, or ended by a signal\n"
            "  dropped      events dropped by the recorder\n"
            "  damaged      a damaged file\n"
            "  budget       --budget exceeded\n"
            "  baseline     a category that grew against --baseline\n"
            "\n"
            "slow-hit and outlier fire only when they cost --min-cost or more;\n"
            "how many did not is said last.\n"
            "\n"
            "options:\n"
            "%s"
            "  --all                    every line of every group\n"
            "  --json                   the walltime-anomalies/1 JSON object\n"
            "  -h, --help               this help\n"
            "\n"
            "exit status: 0 ok (anomalies or not); 1 no file could be read, or output failed;\n"
            "2 usage; 3 a --fail-on gate matched (before 4); 4 a file was damaged, or one of\n"
            "several could not be read\n",
            WT_ANOMALY_TOP, wt_anomaly_args_help);
}

/* The walltime-anomalies/1 object: the groups with their totals and shown lines, then every
 * listed anomaly (docs/ANALYZE.md). */
static void render_json(const wt_anomalies *an, const wt_ledger_result *l, size_t top)
{
    wt_json j;
    wt_json_init(&j, stdout, 1);
    wt_json_object_begin(&j, NULL);
    wt_json_string(&j, "schema", "walltime-anomalies/1");
    wt_json_array_begin(&j, "files");
    for (size_t i = 0; i < l->n_procs; i++)
        wt_json_string(&j, NULL, l->procs[i].path);
    wt_json_array_end(&j);
    wt_json_object_begin(&j, "counts");
    for (int k = 0; k < WT_AN_KIND_COUNT; k++)
        wt_json_int(&j, wt_anomaly_kind_name((wt_anomaly_kind)k),
                    wt_anomalies_count(an, (wt_anomaly_kind)k));
    wt_json_object_end(&j);
    wt_json_int(&j, "omitted", wt_anomalies_omitted(an));
    wt_json_fixed(&j, "min_cost_s", wt_anomalies_min_cost(an), 9);
    wt_json_object_begin(&j, "below_min_cost");
    for (int k = 0; k < WT_AN_KIND_COUNT; k++)
        if (wt_anomalies_below_min_cost(an, (wt_anomaly_kind)k))
            wt_json_int(&j, wt_anomaly_kind_name((wt_anomaly_kind)k),
                        wt_anomalies_below_min_cost(an, (wt_anomaly_kind)k));
    wt_json_object_end(&j);
    int lower;
    wt_json_fixed(&j, "avoidable_s", wt_anomalies_avoidable(an, &lower), 9);
    wt_json_bool(&j, "avoidable_is_lower_bound", lower);
    /* spans past the key bounds, folded into "(other ...)" keys: their per-label statistics
     * are shared; as in the ledger's JSON, present only when not 0 */
    if (l->folded_categories)
        wt_json_int(&j, "folded_categories", l->folded_categories);
    if (l->folded_labels)
        wt_json_int(&j, "folded_labels", l->folded_labels);
    size_t ng;
    const wt_anomaly_group *g = wt_anomalies_groups(an, &ng);
    wt_json_array_begin(&j, "groups");
    for (size_t i = 0; i < ng; i++) {
        wt_json_object_begin(&j, NULL);
        wt_json_string(&j, "kind", wt_anomaly_kind_name(g[i].kind));
        wt_json_string(&j, "title", g[i].title);
        wt_json_string(&j, "category", g[i].category);
        wt_json_int(&j, "count", g[i].count);
        wt_json_fixed(&j, "cost_s", g[i].cost, 9);
        wt_json_bool(&j, "cost_is_lower_bound", g[i].cost_lower_bound);
        wt_json_int(&j, "listed", (int64_t)g[i].n_items);
        wt_json_bool(&j, "ranked", g[i].ranked);
        wt_json_array_begin(&j, "lines");
        size_t shown = top && top < g[i].n_items ? top : g[i].n_items;
        for (size_t k = 0; k < shown; k++)
            wt_json_string(&j, NULL, g[i].items[k]->text);
        wt_json_array_end(&j);
        wt_json_object_end(&j);
    }
    wt_json_array_end(&j);
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(an, &n);
    wt_json_array_begin(&j, "anomalies");
    for (size_t i = 0; i < n; i++) {
        wt_json_object_begin(&j, NULL);
        wt_json_string(&j, "kind", wt_anomaly_kind_name(v[i].kind));
        wt_json_int(&j, "group", (int64_t)v[i].group);
        wt_json_uint(&j, "pid", v[i].pid);
        wt_json_uint(&j, "tid", v[i].tid);
        wt_json_int(&j, "ts_ns", v[i].ts);
        wt_json_int(&j, "dur_ns", v[i].dur);
        wt_json_string(&j, "category", v[i].category);
        wt_json_string(&j, "label", v[i].label);
        wt_json_string(&j, "detail", v[i].detail);
        wt_json_fixed(&j, "seconds", v[i].seconds, 9);
        wt_json_fixed(&j, "cost_s", v[i].cost, 9);
        wt_json_string(&j, "process", v[i].process);
        wt_json_string(&j, "text", v[i].text);
        wt_json_object_end(&j);
    }
    wt_json_array_end(&j);
    wt_json_object_end(&j);
    wt_json_finish(&j);
}

int cmd_anomalies(int argc, char **argv)
{
    wt_anomaly_config aa;
    wt_anomaly_config_init(&aa);
    int json = 0, all = 0, status = WT_EXIT_USAGE, nfiles = 0;
    char **lines = NULL;
    size_t n_lines = 0;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    wt_analysis A = { 0 };
    if (!files) {
        status = WT_EXIT_FAIL;
        goto out;
    }
    enum { OPT_JSON = WT_OPT_FIRST_FREE, OPT_ALL };
    static const struct option longopts[] = { { "help", no_argument, NULL, 'h' },
                                              { "json", no_argument, NULL, OPT_JSON },
                                              { "all", no_argument, NULL, OPT_ALL },
                                              WT_ANOMALY_LONGOPTS,
                                              { NULL, 0, NULL, 0 } };
    int c;
    opterr = 0;
    optind = 0; /* a full reset: the loop may run more than once in a process */
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            status = WT_EXIT_OK;
            goto out;
        } else if (c == OPT_JSON) {
            json = 1;
        } else if (c == OPT_ALL) {
            all = 1;
        } else if (c == ':' || c == '?') {
            wt_args_getopt_error(c, argv);
            goto out;
        } else if (wt_anomaly_args_opt(&aa, c, optarg) < 0) {
            goto out;
        }
    }
    if (wt_args_files(argc, argv, "anomalies", files, &nfiles) < 0)
        goto out;
    const wt_analysis_opts ao = { NULL, &aa.opts, aa.baseline, NULL, NULL };
    const int ran = wt_args_analyze("anomalies", files, nfiles, &ao, &aa, &A);
    status = ran >= 0 ? ran : WT_EXIT_FAIL;
    if (ran >= 0)
        goto out;
    const wt_anomalies *an = A.an;
    const size_t top = all ? 0 : WT_ANOMALY_TOP;
    if (json) {
        render_json(an, wt_ledger_calc_result(A.lc), top);
    } else {
        if (wt_anomalies_lines(an, top, &lines, &n_lines) < 0) {
            wt_cli_error("anomalies: out of memory");
            goto out;
        }
        puts(n_lines ? "ANOMALIES:" : "ANOMALIES: none");
        for (size_t i = 0; i < n_lines; i++)
            printf(lines[i][0] == ' ' ? "  %s\n" : "  - %s\n", lines[i]); /* as the ledger */
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        wt_cli_error("cannot write to stdout");
        goto out;
    }
    status = wt_source_exit_status(&A.res);
    if (wt_anomaly_config_status(&aa, an))
        status = WT_EXIT_GATE;
out:
    wt_anomaly_lines_free(lines, n_lines);
    wt_analysis_release(&A);
    wt_anomaly_config_release(&aa);
    free(files);
    return status;
}
