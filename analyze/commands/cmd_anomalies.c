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
            "What a person would otherwise dig out of logs, one line each:\n"
            "  miss         every cache MISS with its category, label, detail, and avoidable\n"
            "               cost (its time minus the median HIT of its label, else category)\n"
            "  untracked    untracked above --untracked-pct of wall\n"
            "  repeat-miss  a label missing --repeat-miss times or more (a cache never warms)\n"
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
            "options:\n"
            "%s"
            "  --json                   the walltime-anomalies/1 JSON object\n"
            "  -h, --help               this help\n"
            "\n"
            "exit status: 0 ok (anomalies or not); 1 no file could be read, or output failed;\n"
            "2 usage; 3 a --fail-on gate matched (before 4); 4 a file was damaged\n",
            wt_anomaly_args_help);
}

static void render_json(const wt_anomalies *an, const wt_ledger_result *l)
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
    /* spans past the key bounds, folded into "(other ...)" keys: their per-label statistics
     * are shared; as in the ledger's JSON, present only when not 0 */
    if (l->folded_categories)
        wt_json_int(&j, "folded_categories", l->folded_categories);
    if (l->folded_labels)
        wt_json_int(&j, "folded_labels", l->folded_labels);
    size_t n;
    const wt_anomaly *v = wt_anomalies_list(an, &n);
    wt_json_array_begin(&j, "anomalies");
    for (size_t i = 0; i < n; i++) {
        wt_json_object_begin(&j, NULL);
        wt_json_string(&j, "kind", wt_anomaly_kind_name(v[i].kind));
        wt_json_uint(&j, "pid", v[i].pid);
        wt_json_uint(&j, "tid", v[i].tid);
        wt_json_int(&j, "ts_ns", v[i].ts);
        wt_json_int(&j, "dur_ns", v[i].dur);
        wt_json_string(&j, "category", v[i].category);
        wt_json_string(&j, "label", v[i].label);
        wt_json_string(&j, "detail", v[i].detail);
        wt_json_fixed(&j, "seconds", v[i].seconds, 9);
        wt_json_fixed(&j, "cost_s", v[i].cost, 9);
        wt_json_string(&j, "text", v[i].text);
        wt_json_object_end(&j);
    }
    wt_json_array_end(&j);
    wt_json_object_end(&j);
    wt_json_finish(&j);
}

int cmd_anomalies(int argc, char **argv)
{
    wt_anomaly_args aa;
    wt_anomaly_args_init(&aa);
    int json = 0, status = WT_EXIT_USAGE, nfiles = 0;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    wt_analysis A = { 0 };
    if (!files) {
        status = WT_EXIT_FAIL;
        goto out;
    }
    for (int i = 1; i < argc; i++) {
        int err = 0;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            status = WT_EXIT_OK;
            goto out;
        }
        if (wt_args_match(argc, argv, &i, "--json", 0, &err)) {
            json = 1;
            continue;
        }
        int r = wt_anomaly_args_parse(&aa, argc, argv, &i);
        if (r < 0)
            goto out;
        if (r == 0) {
            if (WT_ARGS_IS_OPTION(argv[i])) {
                wt_args_unknown("anomalies", argv[i]);
                goto out;
            }
            files[nfiles++] = argv[i];
        }
    }
    if (nfiles == 0) {
        wt_args_no_file("anomalies");
        goto out;
    }
    status = WT_EXIT_FAIL;
    const wt_analysis_opts ao = { NULL, &aa.opts, aa.baseline, NULL, NULL };
    int rc = wt_analysis_run(files, nfiles, &ao, &A);
    if (rc != 0) {
        if (rc != WT_EOPEN)
            wt_cli_error("anomalies: out of memory");
        goto out;
    }
    if (wt_anomaly_args_check(&aa, wt_ledger_calc_result(A.lc)) < 0) {
        status = WT_EXIT_USAGE;
        goto out;
    }
    const wt_anomalies *an = A.an;
    if (json) {
        render_json(an, wt_ledger_calc_result(A.lc));
    } else {
        size_t n;
        const wt_anomaly *v = wt_anomalies_list(an, &n);
        if (n == 0)
            puts("ANOMALIES: none");
        else
            puts("ANOMALIES:");
        for (size_t i = 0; i < n; i++)
            printf("  - %s\n", v[i].text);
        if (wt_anomalies_omitted(an))
            printf("  (%lld more not listed)\n", (long long)wt_anomalies_omitted(an));
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        wt_cli_error("cannot write to stdout");
        goto out;
    }
    status = wt_source_exit_status(&A.res);
    if (wt_anomaly_args_gate(&aa, an))
        status = WT_EXIT_GATE;
out:
    wt_analysis_release(&A);
    wt_anomaly_args_release(&aa);
    free(files);
    return status;
}
