/* `walltime-analyze trend`: options and exit status; the trend itself is analyze/fleet/trend.c. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "source.h"
#include "trend.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " WT_PROG " trend [OPTIONS] [--files-from LIST] [FILE.wtrace|DIR]...\n"
            "\n"
            "How each category's seconds per run move over many runs (each file a run), in order\n"
            "of their start, and the runs where a category changed beyond its noise. A DIR\n"
            "stands for every *.wtrace under it (sorted by name, links to directories not\n"
            "followed). For more runs than a command line holds:\n"
            "  find runs -name '*.wtrace' | " WT_PROG " trend --files-from -\n"
            "\n"
            "%s"
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
            "unreadable, or a list line or directory could not be read (named on stderr, left\n"
            "out of the series).\n",
            wt_args_inputs_help, WT_TREND_MAX_CHARTS);
}

/* Whether `key` is one of the --group keys. */
static int keyed_by(const wt_trend_opts *o, const char *key)
{
    for (int k = 0; k < o->n_keys; k++)
        if (!strcmp(o->keys[k], key))
            return 1;
    return 0;
}

/* Splits "a,b,c" (modified in place) into o->keys. 0 or -1 (reported). */
static int parse_keys(char *s, wt_trend_opts *o)
{
    o->n_keys = 0;
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (o->n_keys >= WT_TREND_MAX_KEYS) {
            wt_usage_error("--group: at most %d keys", WT_TREND_MAX_KEYS);
            return -1;
        }
        o->keys[o->n_keys++] = tok;
    }
    return 0;
}

static int int_opt(const char *name, const char *v, int *out)
{
    long long x;
    if (wt_args_int(name, v, &x) < 0)
        return -1;
    if (x < 0 || x > 1000000) {
        wt_usage_error("%s: '%s' is out of range", name, v);
        return -1;
    }
    *out = (int)x;
    return 0;
}

int cmd_trend(int argc, char **argv)
{
    wt_trend_opts o = { 0 };
    wt_cp_opts_default(&o.cp);
    char *keys = NULL;
    const char *svg = NULL;
    int status = WT_EXIT_USAGE, fail_regression = 0;
    wt_trend *t = NULL;
    wt_inputs *in = NULL;
    int lists = 0;
    wt_args_set_command("trend");
    if (wt_inputs_create("trend", &in) < 0) {
        wt_cli_error("trend: %s", wt_strerror(WT_ENOMEM));
        return WT_EXIT_FAIL;
    }
    enum { OPT_WINDOW = WT_OPT_FIRST_FREE, OPT_MIN_RUNS, OPT_PERSIST, OPT_K, OPT_FLOOR, OPT_SVG,
           OPT_JSON, OPT_FAIL_ON, OPT_FILES_FROM, OPT_FILES_FROM0 };
    static const struct option longopts[] = {
        { "help", no_argument, NULL, 'h' },
        { "group", required_argument, NULL, 'g' },
        { "threads", required_argument, NULL, 'j' },
        { "window", required_argument, NULL, OPT_WINDOW },
        { "min-runs", required_argument, NULL, OPT_MIN_RUNS },
        { "persist", required_argument, NULL, OPT_PERSIST },
        { "k", required_argument, NULL, OPT_K },
        { "floor", required_argument, NULL, OPT_FLOOR },
        { "svg", required_argument, NULL, OPT_SVG },
        { "json", no_argument, NULL, OPT_JSON },
        { "fail-on", required_argument, NULL, OPT_FAIL_ON },
        { "files-from", required_argument, NULL, OPT_FILES_FROM },
        { "files-from0", required_argument, NULL, OPT_FILES_FROM0 },
        { NULL, 0, NULL, 0 },
    };
    int c, bad = 0;
    opterr = 0;
    optind = 0; /* a full reset: the loop may run more than once in a process */
    while (!bad && (c = getopt_long(argc, argv, ":hg:j:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            status = WT_EXIT_OK;
            goto out;
        case 'g':
            free(keys);
            bad = !(keys = strdup(optarg)) || parse_keys(keys, &o) < 0;
            break;
        case 'j': bad = int_opt("--threads", optarg, &o.threads) < 0; break;
        case OPT_WINDOW: bad = int_opt("--window", optarg, &o.cp.window) < 0; break;
        case OPT_MIN_RUNS: bad = int_opt("--min-runs", optarg, &o.cp.min_runs) < 0; break;
        case OPT_PERSIST: bad = int_opt("--persist", optarg, &o.cp.persist) < 0; break;
        case OPT_K: bad = wt_args_double("--k", optarg, &o.cp.k) < 0; break;
        case OPT_FLOOR: bad = wt_args_double("--floor", optarg, &o.cp.floor) < 0; break;
        case OPT_SVG: svg = optarg; break;
        case OPT_JSON: o.json = 1; break;
        case OPT_FAIL_ON:
            if (strcmp(optarg, "regression") != 0) {
                wt_usage_error("--fail-on: '%s' is not 'regression'", optarg);
                bad = 1;
            }
            fail_regression = 1;
            break;
        case OPT_FILES_FROM:
        case OPT_FILES_FROM0: {
            const int st = wt_args_files_from(in, optarg, c == OPT_FILES_FROM0);
            lists++;
            if (st >= 0) {
                status = st;
                goto out;
            }
            break;
        }
        default:
            wt_args_getopt_error(c, argv);
            bad = 1;
        }
    }
    if (bad)
        goto out;
    const int ist = wt_args_inputs(argc, argv, "trend", lists, in);
    if (ist >= 0) {
        status = ist;
        goto out;
    }
    if (wt_cp_opts_check(&o.cp) < 0) {
        wt_usage_error("the rule's options are out of range (1 <= --min-runs <= --window <= %d, "
                       "1 <= --persist <= %d, --k > 0, --floor >= 0)",
                       WT_CP_MAX_WINDOW, WT_CP_MAX_PERSIST);
        goto out;
    }
    status = WT_EXIT_FAIL;
    /* the paths are argv's own (getopt_long moved them to its end) or the lists': taken as the
     * workers go, no word per run here */
    int rc = wt_trend_run_inputs(in, &o, stdout, &t);
    if (rc < 0) {
        wt_cli_error("trend: %s", wt_strerror(rc));
        goto out;
    }
    const wt_trend_result *r = wt_trend_result_get(t);
    if (r->src.files_ok + r->src.files_damaged + r->src.files_failed == 0)
        wt_cli_error("trend: no trace file: the lists and directories given named none");
    if (r->src.files_damaged || r->src.files_failed)
        wt_cli_error("trend: %d damaged and %d unreadable file(s) left out of the series",
                     r->src.files_damaged, r->src.files_failed);
    if (r->groups_dropped)
        wt_cli_error("trend: %lld runs of groups past the first %d left out",
                     (long long)r->groups_dropped, WT_TREND_MAX_GROUPS);
    if (r->runs_ranked && !keyed_by(&o, "rank"))
        fprintf(stderr,
                WT_PROG ": trend: note: %lld run(s) are one rank of a launch, and their ranks share "
                        "each series (the spread across ranks counts as noise): --group rank, or "
                        "host,rank, gives each rank a series of its own\n",
                (long long)r->runs_ranked);
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
    wt_inputs_free(in);
    free(keys);
    return status;
}
