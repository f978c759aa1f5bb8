/* walltime-analyze compare: keep/skip rounds inside one trace, or two runs (sets of traces)
 * against each other. Parses the command line, streams the files twice into compare.c (pass 1
 * through the shared source driver, which reports damage once; pass 2 quietly, for the spans
 * inside the rounds found), and writes the text, JSON and SVG reports. */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "source.h"
#include "commands.h"
#include "compare.h"
#include "gr00t.h"
#include "svg.h"

static void usage(FILE *out)
{
    fputs("usage: " WT_PROG " compare [OPTIONS] RUN.wtrace...\n"
          "       " WT_PROG " compare [OPTIONS] BASE.wtrace NEW.wtrace\n"
          "       " WT_PROG " compare [OPTIONS] --a FILE... --b FILE...\n"
          "\n"
          "Keep/skip comparisons. With one file, the rounds inside it (wt_round_begin/end): a\n"
          "configuration per round name, paired round by round. With two files, or --a/--b, two\n"
          "runs: each file is a run (one round) or contributes its rounds, side against side.\n"
          "Per stage (spans inside a round, grouped as --by says, each under its enclosing span on\n"
          "the same thread) and configuration: n, median, min, max, HIT/MISS and per-round ms; per\n"
          "pair: the savings A - B, the median paired difference with an exact sign-test interval,\n"
          "and a verdict (faster, slower, within noise, too few rounds: and how many more pairs).\n"
          "\n"
          "options:\n"
          "  --rounds          rounds mode for every file given (several processes of one run;\n"
          "                    round r of the ranks of one launch is one round, the slowest)\n"
          "  --a FILE...       the base side (runs mode), up to the next option\n"
          "  --b FILE...       the new side (runs mode)\n"
          "  --by WAY          stages by 'label' (category/label), 'category', or 'auto' (the\n"
          "                    default: by label, a category with more than " WT_CMP_STR(WT_CMP_AUTO_LABELS) " labels as one row\n"
          "                    under each row that encloses it)\n"
          "  --json            the walltime-compare/1 document on stdout instead of the table\n"
          "  --schema NAME     with --json: 'walltime-compare/1' (default) or 'gr00t-tt-perf/1', the\n"
          "                    layout of the seed's bench_load results\n"
          "  --svg FILE        also write a self-contained SVG chart to FILE\n"
          "  --svg-scale S     'stage' (default: each stage its own ms scale) or 'shared' (one scale)\n"
          "  --confidence C    coverage of the interval, 0.5 <= C < 1 (default 0.95)\n"
          "  --discard N       leave out the first N rounds of each configuration (cold cache)\n"
          "  -h, --help        this text\n"
          "\n"
          "See docs/COMPARE.md for the method, the JSON schema and the warnings.\n", out);
}

typedef struct ctx {
    wt_compare *c;
    int side;
} ctx;

static int on_begin(void *p, int fi, const char *path, const wt_trace_info *info)
{
    ctx *x = p;
    int rc = wt_compare_file_begin(x->c, x->side, path, info);
    if (rc == WT_ELIMIT) {
        wt_cli_error("'%s': more than %d files: left out", path, WT_CMP_MAX_FILES);
        return 0;
    }
    return rc < 0 ? rc : 0;
}

static int on_event(void *p, int fi, const wt_event *ev)
{
    ctx *x = p;
    if (x->c->cur_file < 0)
        return 0; /* a file left out at the limit */
    return wt_compare_event(x->c, ev);
}

static int on_end(void *p, int fi, const wt_reader_stats *st)
{
    ctx *x = p;
    return x->c->cur_file < 0 ? 0 : wt_compare_file_end(x->c);
}

/* Pass 2: the same files again; damage was reported in pass 1, so it is skipped quietly. */
static int rescan(wt_compare *c)
{
    for (size_t i = 0; i < c->n_files; i++) {
        wt_reader *r = NULL;
        if (wt_reader_open(c->files[i].path, &r) < 0) {
            wt_cli_error("'%s': could not be read a second time", c->files[i].path);
            wt_reader_free(r);
            continue;
        }
        int rc = wt_compare_file_resume(c, (int)i), n, errors = 0;
        wt_event ev;
        while (rc == 0 && (n = wt_reader_next(r, &ev)) != 0) {
            if (n < 0) {
                if (++errors > 1000000) /* a reader that cannot get past damage */
                    break;
                continue;
            }
            rc = wt_compare_event(c, &ev);
        }
        wt_reader_free(r);
        if (rc)
            return rc;
    }
    return 0;
}

/* "base" of "dir/base.wtrace". */
static char *side_name(const char *path)
{
    const char *slash = strrchr(path, '/'), *b = slash ? slash + 1 : path;
    size_t n = strlen(b);
    if (n > 7 && !strcmp(b + n - 7, ".wtrace"))
        n -= 7;
    return strndup(b, n);
}

int cmd_compare(int argc, char **argv)
{
    int json = 0, rounds_mode = 0, discard = 0, which = -1, status = WT_EXIT_FAIL, shared = 0, gr00t = 0;
    wt_cmp_by by = WT_CMP_BY_AUTO;
    double confidence = 0.95;
    const char *svg = NULL;
    char **files[3] = { NULL, NULL, NULL }; /* positional, --a, --b */
    int nfiles[3] = { 0, 0, 0 };
    char *names[2] = { NULL, NULL };
    wt_compare *c = NULL;
    for (int k = 0; k < 3; k++)
        if (!(files[k] = calloc((size_t)argc + 1, sizeof(char *))))
            goto out;
    enum { OPT_JSON = WT_OPT_FIRST_FREE, OPT_ROUNDS, OPT_A, OPT_B, OPT_BY, OPT_SVG, OPT_SVG_SCALE,
           OPT_SCHEMA, OPT_CONFIDENCE, OPT_DISCARD };
    static const struct option longopts[] = {
        { "help", no_argument, NULL, 'h' },
        { "json", no_argument, NULL, OPT_JSON },
        { "rounds", no_argument, NULL, OPT_ROUNDS },
        { "a", no_argument, NULL, OPT_A },
        { "b", no_argument, NULL, OPT_B },
        { "by", required_argument, NULL, OPT_BY },
        { "svg", required_argument, NULL, OPT_SVG },
        { "svg-scale", required_argument, NULL, OPT_SVG_SCALE },
        { "schema", required_argument, NULL, OPT_SCHEMA },
        { "confidence", required_argument, NULL, OPT_CONFIDENCE },
        { "discard", required_argument, NULL, OPT_DISCARD },
        { NULL, 0, NULL, 0 },
    };
    int opt;
    status = WT_EXIT_USAGE;
    wt_args_set_command("compare");
    opterr = 0;
    optind = 0; /* a full reset: the loop may run more than once in a process */
    /* "-" first: every file comes back in order as code 1, so --a and --b take the files
     * that follow them, up to the next option */
    while ((opt = getopt_long(argc, argv, "-:h", longopts, NULL)) != -1) {
        long long d = 0;
        char *end = NULL;
        if (opt == 'h') {
            usage(stdout);
            status = WT_EXIT_OK;
            goto out;
        } else if (opt == 1) {
            const int k = which < 0 ? 0 : which;
            files[k][nfiles[k]++] = optarg;
        } else if (opt == OPT_JSON) {
            json = 1;
        } else if (opt == OPT_ROUNDS) {
            rounds_mode = 1;
        } else if (opt == OPT_A || opt == OPT_B) {
            which = opt == OPT_A ? 1 : 2;
        } else if (opt == OPT_BY) {
            if (!strcmp(optarg, "auto"))
                by = WT_CMP_BY_AUTO;
            else if (!strcmp(optarg, "label"))
                by = WT_CMP_BY_LABEL;
            else if (!strcmp(optarg, "category"))
                by = WT_CMP_BY_CATEGORY;
            else {
                wt_usage_error("--by: '%s' is not one of auto, label, category", optarg);
                goto out;
            }
        } else if (opt == OPT_SVG) {
            svg = optarg;
        } else if (opt == OPT_SVG_SCALE) {
            if (strcmp(optarg, "stage") && strcmp(optarg, "shared")) {
                wt_usage_error("--svg-scale: '%s' is not one of stage, shared", optarg);
                goto out;
            }
            shared = !strcmp(optarg, "shared");
        } else if (opt == OPT_SCHEMA) {
            if (strcmp(optarg, WT_CMP_SCHEMA) && strcmp(optarg, WT_GR00T_SCHEMA)) {
                wt_usage_error("--schema: '%s' is not one of " WT_CMP_SCHEMA ", " WT_GR00T_SCHEMA,
                               optarg);
                goto out;
            }
            gr00t = !strcmp(optarg, WT_GR00T_SCHEMA);
        } else if (opt == OPT_CONFIDENCE) {
            confidence = strtod(optarg, &end);
            if (end == optarg || *end || !(confidence >= 0.5 && confidence < 1)) {
                wt_usage_error("--confidence: '%s' is not a number in [0.5, 1)", optarg);
                goto out;
            }
        } else if (opt == OPT_DISCARD) {
            if (wt_args_int("--discard", optarg, &d) < 0)
                goto out;
            if (d < 0 || d > 1000000) {
                wt_usage_error("--discard: '%s' is not a round count (0 to 1000000)", optarg);
                goto out;
            }
            discard = (int)d;
        } else {
            wt_args_getopt_error(opt, argv);
            goto out;
        }
    }
    for (int i = optind; i < argc; i++) { /* the files after "--" */
        const int k = which < 0 ? 0 : which;
        files[k][nfiles[k]++] = argv[i];
    }
    const int runs = nfiles[1] || nfiles[2] || (nfiles[0] == 2 && !rounds_mode);
    if (runs && nfiles[0] && (nfiles[1] || nfiles[2])) {
        wt_usage_error("give the runs either as two files or with --a/--b, not both");
        goto out;
    }
    if (runs ? (nfiles[0] == 0 && (!nfiles[1] || !nfiles[2])) : nfiles[0] == 0) {
        wt_usage_error(runs ? "--a and --b each need at least one file" : "no trace file given");
        goto out;
    }
    if (!runs && nfiles[0] > 1 && !rounds_mode) {
        wt_usage_error("%d files: give two runs as BASE NEW or --a/--b, or --rounds for the "
                       "processes of one run", nfiles[0]);
        goto out;
    }
    if (gr00t && !json) {
        wt_usage_error("--schema: '%s' needs --json", WT_GR00T_SCHEMA);
        goto out;
    }
    status = WT_EXIT_FAIL;
    wt_compare_opts o = { .confidence = confidence, .discard = discard, .runs = runs, .by = by };
    if (runs && nfiles[0] == 2) {
        /* BASE NEW: name the sides after the files, unless that does not tell them apart */
        names[0] = side_name(files[0][0]);
        names[1] = side_name(files[0][1]);
        if (names[0] && names[1] && *names[0] && *names[1] && strcmp(names[0], names[1]) &&
            !strchr(names[0], ':') && !strchr(names[1], ':')) {
            o.side[0] = names[0];
            o.side[1] = names[1];
        }
        files[1][nfiles[1]++] = files[0][0];
        files[2][nfiles[2]++] = files[0][1];
        nfiles[0] = 0;
    }
    if (!(c = wt_compare_create(&o))) {
        wt_cli_error("compare: out of memory");
        goto out;
    }
    wt_source_ops ops = { .file_begin = on_begin, .event = on_event, .file_end = on_end };
    wt_source_result total = { 0 };
    for (int k = 0; k < 3; k++) {
        if (!nfiles[k])
            continue;
        ctx x = { c, k == 2 ? 1 : 0 };
        wt_source_result res;
        int rc = wt_source_run(files[k], nfiles[k], &ops, &x, &res);
        total.files_ok += res.files_ok;
        total.files_failed += res.files_failed;
        total.files_damaged += res.files_damaged;
        total.files_no_end += res.files_no_end;
        if (rc) {
            wt_cli_error("compare: %s", wt_strerror(rc));
            goto out;
        }
    }
    if (total.files_ok + total.files_damaged == 0)
        goto out; /* every file was reported on stderr already */
    int rc = rescan(c);
    if (!rc)
        rc = wt_compare_finish(c);
    if (rc) {
        wt_cli_error("compare: %s", wt_strerror(rc));
        goto out;
    }
    for (size_t k = 0; k < wt_compare_n_configs(c); k++)
        if (c->configs[k].n_rounds == 0 && c->configs[k].n_discarded > 0) {
            /* an empty table would look like a result */
            wt_usage_error("--discard: '%d' leaves no rounds of '%s' (it has %zu)", discard,
                           c->configs[k].name, c->configs[k].n_discarded);
            status = WT_EXIT_USAGE;
            goto out;
        }
    if (json && gr00t)
        rc = wt_gr00t_write_json(c, stdout, 1);
    else
        rc = json ? wt_compare_write_json(c, stdout, 1) : wt_compare_write_text(c, stdout);
    if (rc || fflush(stdout)) {
        wt_cli_error("compare: cannot write the report: %s", wt_strerror(WT_EIO));
        goto out;
    }
    if (svg) {
        FILE *f = fopen(svg, "w");
        const wt_svg_opts so = { .shared_scale = shared };
        int src = f ? wt_svg_write_ex(c, &so, f) : WT_EOPEN;
        if (f && fclose(f))
            src = WT_EIO;
        if (src) {
            wt_cli_error("cannot write '%s': %s", svg, wt_strerror(src));
            goto out;
        }
    }
    status = wt_source_exit_status(&total);
    if (status == WT_EXIT_OK && wt_compare_n_configs(c) == 0) {
        wt_cli_error("compare: no rounds to compare: record each build between "
                     "wt_round_begin(config, round) and wt_round_end()");
        status = WT_EXIT_FAIL;
    }
out:
    wt_compare_free(c);
    free(names[0]);
    free(names[1]);
    for (int k = 0; k < 3; k++)
        free(files[k]);
    return status;
}
