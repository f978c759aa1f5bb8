/* `walltime-analyze ledger`: where the wall time went, reconciled to wall time (the default
 * command). Streams the files once into a ledger calc and an anomaly analysis, then prints the
 * table (text or walltime-ledger/1 JSON). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "args.h"
#include "source.h"
#include "commands.h"
#include "hostrank.h"
#include "ledger.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " WT_PROG " ledger [OPTIONS] FILE.wtrace...\n"
            "\n"
            "Where the wall time went: per category self and inclusive time, %% of wall,\n"
            "count, HIT/MISS, untracked, totals, and the anomalies, over the union of the\n"
            "files (several processes of one run).\n"
            "\n"
            "How it counts (docs/ANALYZE.md):\n"
            "  wall      process start (from the OS) to the end record; a trace without one\n"
            "            ends at its last event, said above the table. Several files: from\n"
            "            the earliest start to the latest end.\n"
            "  nesting   a span's row gets its self time (its duration minus its children's),\n"
            "            so nested spans are counted once. `inclusive`: the wall-clock time a\n"
            "            span of the category was open (per thread, a category nested in\n"
            "            itself once), summed over threads.\n"
            "  threads   each instant of wall is counted once: it goes to the first top-level\n"
            "            span (in trace order) that covers it, and is shared among that span's\n"
            "            tree in proportion to self time. Rows + untracked = wall. A second\n"
            "            section lists per-thread busy seconds and the seconds saved by\n"
            "            overlap (busy - waiting - covered: the main thread's time waiting\n"
            "            on threads that appeared during its span is not work).\n"
            "  flat      --flat: the seed's arithmetic and layout exactly: every span's full\n"
            "            seconds in its category (nesting double-counts), untracked clamped.\n"
            "\n"
            "options:\n"
            "  --flat                   the seed's table, exactly\n"
            "  --by label               per category, the top labels (rest summed): count,\n"
            "                           min, median, max, total seconds of their spans\n"
            "  --top N                  labels per category with --by label (10)\n"
            "  --title TEXT             the table's title (default: the file name)\n"
            "  --all                    every thread and process row and every anomaly line\n"
            "                           (default: past 16, the 12 busiest threads, the 12\n"
            "                           longest processes and any not ended cleanly; the 10\n"
            "                           most costly of each anomaly group)\n"
            "  --json                   the walltime-ledger/1 JSON object\n"
            "  -h, --help               this help\n"
            "anomaly options (the ANOMALIES list; see `" WT_PROG " anomalies --help`):\n"
            "%s"
            "\n"
            "exit status: 0 ok; 1 no file could be read, or output failed; 2 usage;\n"
            "3 a --fail-on gate matched; 4 a file was damaged, or one of several could not be\n"
            "read (the ledger covers what was readable, with a warning above it)\n",
            wt_anomaly_args_help);
}

int cmd_ledger(int argc, char **argv)
{
    wt_ledger_opts lo = { 0 };
    wt_anomaly_config aa;
    wt_anomaly_config_init(&aa);
    int json = 0, status = WT_EXIT_USAGE, nfiles = 0;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    wt_analysis A = { 0 };
    char **lines = NULL;
    size_t n_lines = 0;
    int all = 0;
    if (!files) {
        status = WT_EXIT_FAIL;
        goto out;
    }
    enum { OPT_FLAT = WT_OPT_FIRST_FREE, OPT_JSON, OPT_ALL, OPT_BY, OPT_TOP, OPT_TITLE };
    static const struct option longopts[] = {
        { "help", no_argument, NULL, 'h' },         { "flat", no_argument, NULL, OPT_FLAT },
        { "json", no_argument, NULL, OPT_JSON },    { "all", no_argument, NULL, OPT_ALL },
        { "by", required_argument, NULL, OPT_BY },  { "top", required_argument, NULL, OPT_TOP },
        { "title", required_argument, NULL, OPT_TITLE },
        WT_ANOMALY_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    int c;
    opterr = 0;
    optind = 0; /* a full reset: the loop may run more than once in a process */
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        long long n = 0;
        if (c == 'h') {
            usage(stdout);
            status = WT_EXIT_OK;
            goto out;
        } else if (c == OPT_FLAT) {
            lo.flat = 1;
        } else if (c == OPT_JSON) {
            json = 1;
        } else if (c == OPT_ALL) {
            all = 1;
            lo.all_rows = 1;
        } else if (c == OPT_BY) {
            if (strcmp(optarg, "label") != 0) {
                wt_usage_error("--by: '%s' is not supported (only 'label')", optarg);
                goto out;
            }
            lo.by_label = 1;
        } else if (c == OPT_TOP) {
            if (wt_args_int("--top", optarg, &n) < 0)
                goto out;
            if (n < 1 || n > 100000) {
                wt_usage_error("--top: '%s' is not between 1 and 100000", optarg);
                goto out;
            }
            lo.top = (int)n;
        } else if (c == OPT_TITLE) {
            lo.title = optarg;
        } else if (c == ':' || c == '?') {
            wt_args_getopt_error(c, argv);
            goto out;
        } else if (wt_anomaly_args_opt(&aa, c, optarg) < 0) {
            goto out;
        }
    }
    if (wt_args_files(argc, argv, "ledger", files, &nfiles) < 0)
        goto out;
    const wt_analysis_opts ao = { &lo, &aa.opts, aa.baseline, NULL, NULL };
    const int ran = wt_args_analyze("ledger", files, nfiles, &ao, &aa, &A);
    status = ran >= 0 ? ran : WT_EXIT_FAIL;
    if (ran >= 0)
        goto out;
    const wt_ledger_calc *lc = A.lc;
    int wrc;
    if (json) {
        wt_json j;
        wt_json_init(&j, stdout, 1);
        wt_json_object_begin(&j, NULL);
        wt_ledger_calc_render_json_members(lc, &j);
        /* several hosts: stragglers by host and rank (docs/FLEET.md) */
        wrc = wt_hostrank_json(wt_ledger_calc_result(lc), &j);
        wt_json_object_end(&j);
        wt_json_finish(&j);
        if (ferror(stdout))
            wrc = -1;
    } else if (lo.flat) {
        wrc = wt_ledger_calc_render_text(lc, stdout, NULL, 0);
    } else {
        if (wt_anomalies_lines(A.an, all ? 0 : WT_ANOMALY_TOP, &lines, &n_lines) < 0)
            goto out;
        wrc = wt_ledger_calc_render_text(lc, stdout, (const char *const *)lines, n_lines);
        if (wrc == 0) /* several hosts: stragglers by host and rank (docs/FLEET.md) */
            wrc = wt_hostrank_render(wt_ledger_calc_result(lc), stdout);
    }
    if (fflush(stdout) != 0 || wrc < 0) {
        wt_cli_error("cannot write the ledger to stdout");
        goto out;
    }
    status = wt_source_exit_status(&A.res);
    if (wt_anomaly_config_status(&aa, A.an))
        status = WT_EXIT_GATE;
out:
    wt_anomaly_lines_free(lines, n_lines);
    wt_analysis_release(&A);
    wt_anomaly_config_release(&aa);
    free(files);
    return status;
}
