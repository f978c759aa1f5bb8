/* `walltime-analyze export`: the command: options, the export (analyze/export/), and what it
 * says about the result on stderr and, with --json, stdout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "args.h"
#include "commands.h"
#include "export.h"
#include "json.h"
#include "ledger.h"
#include "source.h"
#include "table_cmd.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " WT_PROG " export [OPTIONS] [-o OUT] FILE.wtrace...\n"
            "\n"
            "Writes the timeline of the trace files (several files: one process each, on one\n"
            "timeline) for ui.perfetto.dev, chrome://tracing or speedscope.\n"
            "\n"
            "  -f, --format FMT         perfetto (protobuf, the default), chrome (Trace Event JSON)\n"
            "                           or table (runs/spans/counters tables for DuckDB, ClickHouse,\n"
            "                           Spark: -o DIR, docs/FLEET.md)\n"
            "  -o, --output OUT         the output file ('-': stdout); default: the first input\n"
            "                           with .pftrace (perfetto) or .json (chrome) for .wtrace\n"
            "      --no-analysis        skip the ledger and anomalies (no totals, no anomaly events)\n"
            "      --aligned-rounds     perfetto: show the keep/skip rounds again, all starting at\n"
            "                           one instant (their spans twice: the files are read twice)\n"
            "      --json               a report of what was written, as JSON on stdout\n"
            "  -h, --help               this text\n"
            "\n"
            "With --format table (each file on its own, one after another), a FILE that is a\n"
            "directory stands for every *.wtrace under it, and the traces can come in a list:\n"
            "%s"
            "\n"
            "The anomalies in the timeline follow the same options as in `ledger` and `anomalies`:\n"
            "%s"
            "\n"
            "A damaged file exports what is readable (exit 4); the output is written to a\n"
            "temporary file and renamed, so a failed export leaves nothing behind (exit 1).\n",
            wt_args_inputs_help, wt_anomaly_args_help);
}

/* --json: what was written, for scripts ("walltime-export/1"). */
static void print_report(const char *output, const wt_export_opts *o, const wt_export_report *r)
{
    wt_json j;
    wt_json_init(&j, stdout, 1);
    wt_json_object_begin(&j, NULL);
    wt_json_string(&j, "schema", "walltime-export/1");
    wt_json_string(&j, "output", output);
    wt_json_bool(&j, "written", r->written);
    wt_json_string(&j, "format", o->format == WT_EXPORT_CHROME ? "chrome" : "perfetto");
    wt_json_int(&j, "files_ok", r->src.files_ok);
    wt_json_int(&j, "files_damaged", r->src.files_damaged);
    wt_json_int(&j, "files_failed", r->src.files_failed);
    wt_json_uint(&j, "frames_damaged", r->frames_damaged);
    wt_json_uint(&j, "bytes_skipped", r->bytes_skipped);
    wt_json_int(&j, "spans", r->sink.spans);
    wt_json_int(&j, "instants", r->sink.instants);
    wt_json_int(&j, "counters", r->sink.counters);
    wt_json_int(&j, "rounds", r->sink.rounds);
    wt_json_int(&j, "anomalies", r->anomalies);
    wt_json_int(&j, "overlap_tracks_used", r->sink.lanes_extra);
    wt_json_int(&j, "misplaced", r->sink.misplaced);
    wt_json_int(&j, "written_early", r->sink.early);
    wt_json_int(&j, "spans_folded", r->sink.spans_folded);
    wt_json_int(&j, "aligned_rounds", r->sink.aligned_rounds);
    wt_json_int(&j, "aligned_spans", r->sink.aligned_spans);
    wt_json_int(&j, "aligned_dropped", r->sink.aligned_dropped);
    wt_json_int(&j, "depth_clamped", r->sink.depth_clamped);
    wt_json_int(&j, "meta_dropped", r->meta_dropped);
    wt_json_uint(&j, "bytes", r->sink.bytes);
    wt_json_object_end(&j);
    wt_json_finish(&j);
}

static char *default_output(const char *in, wt_export_format fmt)
{
    const char *ext = fmt == WT_EXPORT_CHROME ? ".json" : ".pftrace";
    size_t len = strlen(in);
    if (len > 7 && !strcmp(in + len - 7, ".wtrace"))
        len -= 7;
    char *s = malloc(len + strlen(ext) + 1);
    if (s) {
        memcpy(s, in, len);
        strcpy(s + len, ext);
    }
    return s;
}

/* "-o VALUE", "-oVALUE", "--output VALUE" or "--output=VALUE": the value, else NULL. */
/* wt_export_opts.check: every --budget names a category of the trace (args.h). */
static int check_budgets(void *ctx, const wt_ledger_result *r)
{
    return wt_anomaly_args_check(ctx, r) < 0;
}

/* The inputs of a table export: the lists in order, then the operands. -1 to go on, else the
 * exit status (said). */
static int table_inputs(int argc, char **argv, char **lists, const unsigned char *list0,
                        int nlists, wt_inputs **in)
{
    if (wt_inputs_create("export", in) < 0) {
        wt_cli_error("export: %s", wt_strerror(WT_ENOMEM));
        return WT_EXIT_FAIL;
    }
    for (int i = 0; i < nlists; i++) {
        const int st = wt_args_files_from(*in, lists[i], list0[i]);
        if (st >= 0)
            return st;
    }
    return wt_args_inputs(argc, argv, "export", nlists, *in);
}

int cmd_export(int argc, char **argv)
{
    wt_anomaly_config aa;
    wt_anomaly_config_init(&aa);
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO, .anomaly = &aa };
    wt_ledger_calc *base = NULL;
    const char *output = NULL;
    char *owned = NULL;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    /* --files-from lists (table only), in the order given, and whether each is NUL-separated */
    char **lists = calloc((size_t)argc + 1, sizeof *lists);
    unsigned char *list0 = calloc((size_t)argc + 1, 1);
    wt_inputs *in = NULL;
    int json = 0, nfiles = 0, nlists = 0, status = WT_EXIT_USAGE, table = 0;
    if (!files || !lists || !list0) {
        wt_cli_error("export: %s", wt_strerror(WT_ENOMEM));
        status = WT_EXIT_FAIL;
        goto out;
    }
    enum { OPT_NO_ANALYSIS = WT_OPT_FIRST_FREE, OPT_ALIGNED, OPT_JSON, OPT_FILES_FROM,
           OPT_FILES_FROM0 };
    static const struct option longopts[] = {
        { "help", no_argument, NULL, 'h' },
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "no-analysis", no_argument, NULL, OPT_NO_ANALYSIS },
        { "aligned-rounds", no_argument, NULL, OPT_ALIGNED },
        { "json", no_argument, NULL, OPT_JSON },
        { "files-from", required_argument, NULL, OPT_FILES_FROM },
        { "files-from0", required_argument, NULL, OPT_FILES_FROM0 },
        WT_ANOMALY_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    int c;
    opterr = 0;
    optind = 0; /* a full reset: the loop may run more than once in a process */
    while ((c = getopt_long(argc, argv, ":hf:o:", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            status = WT_EXIT_OK;
            goto out;
        } else if (c == 'f') {
            if (!strcmp(optarg, "perfetto") || !strcmp(optarg, "proto")) {
                o.format = WT_EXPORT_PERFETTO;
            } else if (!strcmp(optarg, "chrome") || !strcmp(optarg, "json")) {
                o.format = WT_EXPORT_CHROME;
            } else if (!strcmp(optarg, "table")) {
                table = 1;
            } else {
                wt_usage_error("unknown format '%s' (perfetto, chrome or table)", optarg);
                goto out;
            }
        } else if (c == 'o') {
            output = optarg;
        } else if (c == OPT_NO_ANALYSIS) {
            o.no_analysis = 1;
        } else if (c == OPT_ALIGNED) {
            o.aligned_rounds = 1;
        } else if (c == OPT_JSON) {
            json = 1;
        } else if (c == OPT_FILES_FROM || c == OPT_FILES_FROM0) {
            list0[nlists] = c == OPT_FILES_FROM0;
            lists[nlists++] = optarg;
        } else if (c == ':' || c == '?') {
            wt_args_getopt_error(c, argv);
            goto out;
        } else if (wt_anomaly_args_opt(&aa, c, optarg) < 0) {
            goto out;
        }
    }
    if (table) {
        status = table_inputs(argc, argv, lists, list0, nlists, &in);
        if (status < 0)
            status = wt_table_command(in, output, json);
        goto out;
    }
    if (nlists) {
        wt_usage_error("--files-from is for --format table (a timeline takes its FILEs)");
        goto out;
    }
    if (wt_args_files(argc, argv, "export", files, &nfiles) < 0)
        goto out;
    status = WT_EXIT_FAIL;
    if (!output && !(output = owned = default_output(files[0], o.format))) {
        wt_cli_error("export: %s", wt_strerror(WT_ENOMEM));
        goto out;
    }
    if (aa.baseline) {
        if (o.no_analysis) {
            wt_usage_error("--baseline needs the analysis (drop --no-analysis)");
            status = WT_EXIT_USAGE;
            goto out;
        }
        if (wt_analysis_baseline(aa.baseline, &base) != 0)
            goto out;
        o.baseline = wt_ledger_calc_result(base);
    }
    if (aa.opts.n_budgets && o.no_analysis) {
        wt_usage_error("--budget needs the analysis (drop --no-analysis)");
        status = WT_EXIT_USAGE;
        goto out;
    }
    o.check = check_budgets; /* a typo in a budget must not let a gate pass */
    o.check_ctx = &aa;
    wt_export_report rep;
    if (!strcmp(output, "-"))
        wt_args_stdout_buffered(); /* as the files it writes (export_output.c) */
    int rc = wt_export_to_path(files, nfiles, &o, output, &rep);
    if (rc == WT_EINVAL && rep.check_failed) {
        status = WT_EXIT_USAGE; /* reported by the check; the output was not replaced */
    } else if (rc == WT_EEXIST && rep.same_as_input) {
        wt_cli_error("export: refusing to write '%s': it is the input '%s' (the same file); "
                     "choose another output with -o",
                     output, files[rep.same_as_input - 1]);
        status = WT_EXIT_USAGE;
    } else if (rc == WT_EOPEN || rc == WT_EIO) {
        wt_cli_error("cannot write '%s': %s", output, strerror(errno));
    } else if (rc < 0) {
        wt_cli_error("export: '%s': %s", output, wt_strerror(rc));
    } else if (rep.src.files_ok + rep.src.files_damaged == 0) {
        wt_cli_error("'%s' not written: no input could be read", output);
    } else {
        if (rep.frames_damaged || rep.bytes_skipped)
            wt_cli_error("'%s': damaged input: %llu frames (%llu bytes) could not be read; the "
                         "timeline covers the rest",
                         output, (unsigned long long)rep.frames_damaged,
                         (unsigned long long)rep.bytes_skipped);
        if (rep.src.files_failed)
            wt_cli_error("'%s': %d input file(s) could not be read and are not in the timeline",
                         output, rep.src.files_failed);
        if (rep.sink.misplaced)
            wt_cli_error("'%s': %lld spans overlap others on their track (more than %d overlap "
                         "lanes a thread were needed); Perfetto will shorten them",
                         output, (long long)rep.sink.misplaced, WT_EXPORT_MAX_LANES);
        if (rep.sink.depth_clamped)
            wt_cli_error("'%s': %lld spans deeper than %d were treated as that deep", output,
                         (long long)rep.sink.depth_clamped, WT_EXPORT_MAX_DEPTH);
        if (rep.sink.spans_folded)
            wt_cli_error("'%s': %lld spans of threads past the first %d share one \"other "
                         "threads\" track per process, unnested",
                         output, (long long)rep.sink.spans_folded, WT_EXPORT_MAX_THREADS);
        if (rep.sink.aligned_dropped)
            wt_cli_error("'%s': %lld rounds or spans past the first %d rounds (%d track groups) "
                         "are not on the tracks aligned at t=0",
                         output, (long long)rep.sink.aligned_dropped, WT_EXPORT_MAX_ALIGNED,
                         WT_EXPORT_MAX_ALIGNED_TRACKS);
        if (rep.meta_dropped)
            wt_cli_error("'%s': %lld metadata pairs past the first %d per file were left out",
                         output, (long long)rep.meta_dropped, WT_EXPORT_MAX_META);
        status = rep.gate ? rep.gate : wt_source_exit_status(&rep.src);
    }
    if (json && rc == 0 && strcmp(output, "-") != 0)
        print_report(output, &o, &rep);
out:
    wt_ledger_calc_free(base);
    wt_anomaly_config_release(&aa);
    free(owned);
    free(files);
    free(lists);
    free(list0);
    wt_inputs_free(in);
    return status;
}
