/* `walltime-analyze trend`: options and exit status; the trend itself is analyze/fleet/trend.c. */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "source.h"
#include "trend.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " WT_PROG " trend [OPTIONS] FILE.wtrace...\n"
            "\n"
            "How each category's seconds per run move over many runs (each file a run), in order\n"
            "of their start, and the runs where a category changed beyond its noise.\n"
            "\n"
            "  -g, --group KEYS         group runs by these metadata keys (comma-separated; `host`\n"
            "                           and `command` fall back to the header); default: one group\n"
            "      --window N           runs before a run that set its reference level (50)\n"
            "      --min-runs N         runs needed before a change can be found (10)\n"
            "      --k K                how many noise scales away is a change (5)\n"
            "      --floor F            the noise scale is at least F x the level (0.01)\n"
            "      --persist N          runs in a row that must be beyond (3)\n"
            "  -j, --threads N          files read at once (default: one per core)\n"
            "      --json               the series and changes as JSON (walltime-trend/1)\n"
            "      --svg FILE           a small chart per change (the first %d) into FILE\n"
            "      --fail-on regression exit 3 when some category got slower\n"
            "  -h, --help               this text\n"
            "\n"
            "The rule (docs/FLEET.md): a run is a change when it and the next persist - 1 runs are\n"
            "all more than K x max(1.4826 MAD, F x median, 1 us) from the median of the window of\n"
            "runs before it, on one side; the window then restarts at that run.\n"
            "Exit: 0; 1 nothing readable; 2 usage; 3 --fail-on matched; 4 a file was damaged or\n"
            "unreadable (named on stderr, left out of the series).\n",
            WT_TREND_MAX_CHARTS);
}

/* Splits "a,b,c" (modified in place) into o->keys. 0 or -1 (reported). */
static int parse_keys(char *s, wt_trend_opts *o)
{
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (o->n_keys >= WT_TREND_MAX_KEYS) {
            wt_cli_error("trend: at most %d --group keys", WT_TREND_MAX_KEYS);
            return -1;
        }
        o->keys[o->n_keys++] = tok;
    }
    return 0;
}

static int int_opt(const char *name, const char *v, int *out)
{
    long long x;
    if (wt_args_int(name, v, &x) < 0 || x < 0 || x > 1000000) {
        wt_cli_error("trend: %s: '%s' is out of range", name, v);
        return -1;
    }
    *out = (int)x;
    return 0;
}

int cmd_trend(int argc, char **argv)
{
    wt_trend_opts o = { 0 };
    wt_cp_opts_default(&o.cp);
    char **files = calloc((size_t)argc + 1, sizeof *files);
    char *keys = NULL;
    const char *svg = NULL;
    int nfiles = 0, status = WT_EXIT_USAGE, fail_regression = 0;
    wt_trend *t = NULL;
    if (!files) {
        wt_cli_error("trend: %s", wt_strerror(WT_ENOMEM));
        status = WT_EXIT_FAIL;
        goto out;
    }
    for (int i = 1; i < argc; i++) {
        int err = 0;
        const char *a = argv[i], *v;
        if (a[0] != '-' || !a[1]) {
            files[nfiles++] = argv[i];
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            status = WT_EXIT_OK;
            goto out;
        } else if ((v = wt_args_match(argc, argv, &i, "--group", 1, &err)) ||
                   (!err && (v = wt_args_match(argc, argv, &i, "-g", 1, &err)))) {
            free(keys);
            if (!(keys = strdup(v)) || parse_keys(keys, &o) < 0)
                goto out;
        } else if (!err && (v = wt_args_match(argc, argv, &i, "--window", 1, &err))) {
            if (int_opt("--window", v, &o.cp.window) < 0)
                goto out;
        } else if (!err && (v = wt_args_match(argc, argv, &i, "--min-runs", 1, &err))) {
            if (int_opt("--min-runs", v, &o.cp.min_runs) < 0)
                goto out;
        } else if (!err && (v = wt_args_match(argc, argv, &i, "--persist", 1, &err))) {
            if (int_opt("--persist", v, &o.cp.persist) < 0)
                goto out;
        } else if (!err && ((v = wt_args_match(argc, argv, &i, "--threads", 1, &err)) ||
                            (!err && (v = wt_args_match(argc, argv, &i, "-j", 1, &err))))) {
            if (int_opt("--threads", v, &o.threads) < 0)
                goto out;
        } else if (!err && (v = wt_args_match(argc, argv, &i, "--k", 1, &err))) {
            if (wt_args_double("--k", v, &o.cp.k) < 0)
                goto out;
        } else if (!err && (v = wt_args_match(argc, argv, &i, "--floor", 1, &err))) {
            if (wt_args_double("--floor", v, &o.cp.floor) < 0)
                goto out;
        } else if (!err && (v = wt_args_match(argc, argv, &i, "--svg", 1, &err))) {
            svg = v;
        } else if (!err && wt_args_match(argc, argv, &i, "--json", 0, &err)) {
            o.json = 1;
        } else if (!err && (v = wt_args_match(argc, argv, &i, "--fail-on", 1, &err))) {
            if (strcmp(v, "regression") != 0) {
                wt_cli_error("trend: --fail-on: '%s' is not 'regression'", v);
                goto out;
            }
            fail_regression = 1;
        } else {
            if (!err) {
                wt_cli_error("trend: unknown option '%s'", a);
                usage(stderr);
            }
            goto out;
        }
    }
    if (nfiles == 0) {
        wt_cli_error("trend: no trace file given");
        usage(stderr);
        goto out;
    }
    if (wt_cp_opts_check(&o.cp) < 0) {
        wt_cli_error("trend: the rule's options are out of range (1 <= --min-runs <= --window <= "
                     "%d, 1 <= --persist <= %d, --k > 0, --floor >= 0)",
                     WT_CP_MAX_WINDOW, WT_CP_MAX_PERSIST);
        goto out;
    }
    status = WT_EXIT_FAIL;
    int rc = wt_trend_run(files, nfiles, &o, stdout, &t);
    if (rc < 0) {
        wt_cli_error("trend: %s", wt_strerror(rc));
        goto out;
    }
    const wt_trend_result *r = wt_trend_result_get(t);
    if (r->src.files_damaged || r->src.files_failed)
        wt_cli_error("trend: %d damaged and %d unreadable file(s) left out of the series",
                     r->src.files_damaged, r->src.files_failed);
    if (r->groups_dropped)
        wt_cli_error("trend: %lld runs of groups past the first %d left out",
                     (long long)r->groups_dropped, WT_TREND_MAX_GROUPS);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        wt_cli_error("trend: cannot write the output");
        goto out;
    }
    if (svg) {
        FILE *f = fopen(svg, "w");
        int src = f ? wt_trend_svg_write(r, f) : WT_EOPEN;
        if (f && fclose(f) != 0)
            src = WT_EIO;
        if (src < 0) {
            wt_cli_error("cannot write '%s': %s", svg, wt_strerror(src));
            goto out;
        }
    }
    status = r->src.files_ok == 0 ? WT_EXIT_FAIL
             : fail_regression && r->regressions ? WT_EXIT_GATE
             : wt_source_exit_status(&r->src);
out:
    wt_trend_free(t);
    free(keys);
    free(files);
    return status;
}
