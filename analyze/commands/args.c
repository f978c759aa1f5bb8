/* Option helpers shared by the subcommands: see args.h. */
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

/* The subcommand running (main.c sets it before dispatch): every usage error names it. */
static const char *command = "ledger";

void wt_args_set_command(const char *cmd) { command = cmd; }

void wt_usage_error(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    wt_cli_error("%s: %s; see '" WT_PROG " %s --help'", command, msg, command);
}

int wt_args_double(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v)) {
        wt_usage_error("%s: '%s' is not a number", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

int wt_args_int(const char *opt, const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno) {
        wt_usage_error("%s: '%s' is not an integer", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

int wt_args_budget(const char *opt, const char *spec, int self, wt_budget *out)
{
    const char *eq = strrchr(spec, '=');
    char num[64];
    size_t n = eq ? strlen(eq + 1) : 0;
    const int percent = n && eq[n] == '%';
    if (percent)
        n--;
    char *end = NULL;
    double v = -1;
    if (eq && eq != spec && n > 0 && n < sizeof num) {
        memcpy(num, eq + 1, n);
        num[n] = '\0';
        v = strtod(num, &end);
    }
    if (!end || *end || !isfinite(v) || v < 0) {
        wt_usage_error("%s: '%s' is not CATEGORY=SECONDS or CATEGORY=PERCENT%%", opt, spec);
        return -1;
    }
    if (percent && v > 100) {
        wt_usage_error("%s: '%s': a share of wall is at most 100%%", opt, spec);
        return -1;
    }
    /* the category is the text before '=', owned by the config (wt_anomaly_config_release) */
    char *cat = strndup(spec, (size_t)(eq - spec));
    if (!cat)
        return -1;
    *out = (wt_budget){ cat, v, percent, self };
    return 0;
}

int wt_anomaly_args_check(const wt_anomaly_config *c, const wt_ledger_result *r)
{
    for (size_t i = 0; i < c->opts.n_budgets; i++) {
        const wt_budget *b = &c->budgets[i];
        size_t k = 0;
        while (k < r->n_cats && strcmp(r->cats[k].name, b->category) != 0)
            k++;
        if (k < r->n_cats)
            continue;
        /* a typo must not make a gate pass: name what exists (the first few of many) */
        char list[1024];
        size_t len = 0, shown = 0;
        list[0] = '\0';
        for (k = 0; k < r->n_cats && len + 64 < sizeof list; k++, shown++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s'%.60s'", k ? ", " : "",
                                    r->cats[k].name);
        const char *opt = b->self ? "--budget-self" : "--budget";
        if (r->n_cats == 0)
            wt_usage_error("%s: no category '%s': the trace has no spans", opt, b->category);
        else
            wt_usage_error("%s: no category '%s'; the categories are %s%s", opt, b->category, list,
                           shown < r->n_cats ? ", ..." : "");
        return -1;
    }
    return 0;
}

/* wt_args_seconds() without the report. */
static int seconds(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double unit = !strcmp(end, "") || !strcmp(end, "s") ? 1.0
                  : !strcmp(end, "ms")                 ? 1e-3
                  : !strcmp(end, "us")                 ? 1e-6
                                                       : -1.0;
    if (end == s || errno || unit < 0 || !isfinite(v) || v < 0)
        return -1;
    *out = v * unit;
    return 0;
}

int wt_args_seconds(const char *opt, const char *s, double *out)
{
    if (seconds(s, out) == 0)
        return 0;
    wt_usage_error("%s: '%s' is not a duration (seconds, or with s, ms or us)", opt, s);
    return -1;
}

/* The edit distance between a and b (optimal string alignment: a swap of two neighbours is
 * one edit, "legder" -> "ledger"), for words of up to 31 characters; longer: a large number. */
static size_t distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 31 || m > 31)
        return 100;
    size_t d[32][32];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[n][m];
}

const char *wt_args_nearest(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = 3, len = strlen(word);
    for (size_t i = 0; i < n; i++) {
        size_t d = distance(word, names[i]);
        if (d < best_d && d < len) {
            best = names[i];
            best_d = d;
        }
    }
    return best;
}

/* The headings' words for the gate kinds: a user who reads "SLOW SPAN" in the output writes
 * --fail-on slow-span (any case; a space or '_' for the '-'). */
static const struct {
    const char *word;
    wt_anomaly_kind kind;
} gate_aliases[] = {
    { "cache-miss", WT_AN_MISS },       { "repeated-miss", WT_AN_REPEAT_MISS },
    { "slow-span", WT_AN_OUTLIER },     { "left-open", WT_AN_UNCLOSED },
    { "no-end-record", WT_AN_NO_END },  { "killed", WT_AN_NO_END },
    { "crashed", WT_AN_NO_END },        { "regression", WT_AN_BASELINE },
};

/* A gate word's character as the kinds are written: lower case, '-' between words. */
static char gate_fold(char c)
{
    return c == ' ' || c == '_' ? '-' : c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether name[0..n) is word, case aside and with ' ' or '_' for '-'. */
static int gate_word_is(const char *name, size_t n, const char *word)
{
    if (strlen(word) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (gate_fold(name[i]) != word[i])
            return 0;
    return 1;
}

/* KIND or KIND>N: the anomaly kind (anomaly: any) and the count it must exceed. */
static int gate_count(const char *name, size_t n, const char *limit, wt_gate *g)
{
    g->measure = WT_GATE_COUNT;
    g->kind = -2;
    if (gate_word_is(name, n, "anomaly"))
        g->kind = -1;
    for (int k = 0; k < WT_AN_KIND_COUNT && g->kind == -2; k++)
        if (gate_word_is(name, n, wt_anomaly_kind_name((wt_anomaly_kind)k)))
            g->kind = k;
    for (size_t i = 0; i < sizeof gate_aliases / sizeof gate_aliases[0] && g->kind == -2; i++)
        if (gate_word_is(name, n, gate_aliases[i].word))
            g->kind = (int)gate_aliases[i].kind;
    if (g->kind == -2)
        return -1;
    g->limit = 0;
    if (!limit)
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(limit, &end, 10);
    if (end == limit || *end || errno || v < 0 || !(*limit >= '0' && *limit <= '9'))
        return -1;
    g->limit = (double)v;
    return 0;
}

/* One gate of the --fail-on list (anomalies.h: wt_gate), `term` of length n. 0, -1, or -2
 * for untracked>N without a unit. */
static int gate_parse(const char *term, size_t n, wt_gate *g)
{
    char buf[128];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, term, n);
    buf[n] = '\0';
    char *gt = strchr(buf, '>');
    const char *limit = gt ? gt + 1 : NULL;
    size_t name_n = gt ? (size_t)(gt - buf) : n;
    if (gt && !*limit)
        return -1;
    if (limit && name_n == 9 && !strncmp(buf, "avoidable", 9)) {
        g->measure = WT_GATE_AVOIDABLE;
        g->kind = -1;
        return seconds(limit, &g->limit);
    }
    if (limit && name_n == 9 && !strncmp(buf, "untracked", 9)) {
        size_t ln = strlen(limit);
        g->kind = -1;
        if ((limit[ln - 1] >= '0' && limit[ln - 1] <= '9') || limit[ln - 1] == '.')
            return -2; /* 20 of what: a bare number passed a gate meant as 20 % */
        if (limit[ln - 1] != '%') {
            g->measure = WT_GATE_UNTRACKED_S;
            return seconds(limit, &g->limit);
        }
        char *end;
        errno = 0;
        g->measure = WT_GATE_UNTRACKED_PCT;
        g->limit = strtod(limit, &end);
        return end != limit && end == limit + ln - 1 && !errno && g->limit >= 0 &&
                       g->limit <= 100 ? 0 : -1;
    }
    return gate_count(buf, name_n, limit, g);
}

int wt_args_fail_on(const char *s, wt_anomaly_config *c)
{
    const char *p = s;
    do {
        size_t n = strcspn(p, ",");
        if (c->n_gates >= WT_MAX_GATES) {
            wt_usage_error("--fail-on: at most %d gates", WT_MAX_GATES);
            return -1;
        }
        const int rc = gate_parse(p, n, &c->gates[c->n_gates]);
        if (rc == -2) {
            const char *v = memchr(p, '>', n) + 1;
            const int vn = (int)(n - (size_t)(v - p));
            wt_usage_error("--fail-on: '%.*s' needs a unit: untracked>%.*s%% (of wall) or "
                           "untracked>%.*ss", (int)n, p, vn, v, vn, v);
            return -1;
        }
        if (rc < 0) {
            enum { N_ALIASES = sizeof gate_aliases / sizeof gate_aliases[0] };
            const char *names[WT_AN_KIND_COUNT + 3 + N_ALIASES] = { "anomaly", "avoidable",
                                                                   "untracked" };
            char kinds[256] = "anomaly";
            for (int k = 0; k < WT_AN_KIND_COUNT; k++) {
                names[3 + k] = wt_anomaly_kind_name((wt_anomaly_kind)k);
                size_t used = strlen(kinds);
                snprintf(kinds + used, sizeof kinds - used, ", %s", names[3 + k]);
            }
            for (size_t i = 0; i < N_ALIASES; i++)
                names[3 + WT_AN_KIND_COUNT + i] = gate_aliases[i].word;
            char word[64];
            snprintf(word, sizeof word, "%.*s", (int)strcspn(p, ",>"), p);
            for (char *w = word; *w; w++) /* Slow_Span: compared as the kinds are written */
                *w = gate_fold(*w);
            const char *near = wt_args_nearest(word, names, sizeof names / sizeof names[0]);
            wt_usage_error("--fail-on: '%.*s' is not a gate%s%s%s; a gate is KIND, KIND>N, "
                           "avoidable>SECONDS or untracked>PERCENT%% or SECONDS (KIND: %s; or "
                           "the heading's words: cache-miss, slow-span, left-open, ...)", (int)n,
                           p, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
                           kinds);
            return -1;
        }
        snprintf(c->gate_text[c->n_gates++], sizeof c->gate_text[0], "%.*s", (int)n, p);
        p += n;
    } while (*p++ == ',');
    return 0;
}

int wt_anomaly_args_opt(wt_anomaly_config *c, int code, const char *v)
{
    long long n;
    switch (code) {
    case WT_OPT_BUDGET:
    case WT_OPT_BUDGET_SELF: {
        const int self = code == WT_OPT_BUDGET_SELF;
        const char *opt = self ? "--budget-self" : "--budget";
        if (c->opts.n_budgets >= WT_MAX_BUDGETS) {
            wt_usage_error("%s: at most %d budgets", opt, WT_MAX_BUDGETS);
            return -1;
        }
        if (wt_args_budget(opt, v, self, &c->budgets[c->opts.n_budgets]) < 0)
            return -1;
        c->opts.n_budgets++;
        return 0;
    }
    case WT_OPT_BASELINE:
        c->baseline = v;
        return 0;
    case WT_OPT_FAIL_ON:
        return wt_args_fail_on(v, c);
    case WT_OPT_MIN_COST:
        return wt_args_seconds("--min-cost", v, &c->opts.min_cost_s);
    case WT_OPT_UNTRACKED_PCT:
        return wt_args_double("--untracked-pct", v, &c->opts.untracked_pct);
    case WT_OPT_OUTLIER_FACTOR:
        return wt_args_double("--outlier-factor", v, &c->opts.outlier_factor);
    case WT_OPT_BASELINE_PCT:
        return wt_args_double("--baseline-pct", v, &c->opts.baseline_pct);
    case WT_OPT_BASELINE_MIN:
        return wt_args_double("--baseline-min", v, &c->opts.baseline_min_s);
    case WT_OPT_REPEAT_MISS:
        if (wt_args_int("--repeat-miss", v, &n) < 0)
            return -1;
        c->opts.repeat_miss = n;
        return 0;
    default:
        return -1;
    }
}

void wt_args_getopt_error(int rc, char **argv)
{
    /* ':' a known option without its value; '?' an unknown one, or a flag given a value
     * (optopt is then its code); the offending word is the last one getopt_long read */
    const char *word = argv[optind - 1];
    const char *eq = strchr(word, '=');
    if (rc == ':')
        wt_usage_error("option '%s' needs a value", word);
    else if (optopt != 0 && word[0] == '-' && word[1] == '-' && eq)
        wt_usage_error("option '%.*s' takes no value", (int)(eq - word), word);
    else
        wt_usage_error("unknown option '%s'", word);
}

const char wt_anomaly_args_help[] =
    "  --budget CAT=SECONDS     an anomaly when category CAT's inclusive time (its spans\n"
    "                           open, children included) is over SECONDS\n"
    "  --budget CAT=PERCENT%    ... or over PERCENT (0-100) of wall (repeatable); an\n"
    "                           unknown CAT is a usage error that lists the categories\n"
    "  --budget-self CAT=LIMIT  the same on CAT's self time (the ledger's self column)\n"
    "  --baseline OLD.wtrace    an anomaly for each category that grew against OLD\n"
    "  --baseline-pct P         ... by more than P percent (20)\n"
    "  --baseline-min S         ... and by more than S seconds (0.5)\n"
    "  --untracked-pct P        an anomaly when untracked exceeds P% of wall (10)\n"
    "  --repeat-miss N          an anomaly when a label misses N times where a warm cache\n"
    "                           was expected: a later round or run than its first load (1)\n"
    "  --outlier-factor F       an anomaly for a span over F x its siblings' median (5)\n"
    "  --min-cost S             slow-hit and outlier only when they cost S or\n"
    "                           more (e.g. 0.05, 50ms; default: 1% of wall, at least 10ms)\n"
    "  --fail-on=GATE[,GATE]    exit 3 when a gate matches; GATE is KIND (any of it: miss,\n"
    "                           budget, repeat-miss, ..., anomaly for any kind), KIND>N\n"
    "                           (more than N), avoidable>S (the misses' avoidable seconds),\n"
    "                           untracked>P% or untracked>S with its unit (20s, 500ms);\n"
    "                           quote it: --fail-on='miss>10'\n";

void wt_args_no_file(const char *cmd)
{
    wt_args_set_command(cmd);
    wt_usage_error("no trace file given");
}

int wt_args_analyze(const char *cmd, char **files, int n, const wt_analysis_opts *o,
                    const wt_anomaly_config *c, wt_analysis *a)
{
    const int rc = wt_analysis_run(files, n, o, a);
    if (rc != 0) {
        if (rc != WT_EOPEN)
            wt_cli_error("%s: out of memory", cmd);
        return WT_EXIT_FAIL;
    }
    if (wt_anomaly_args_check(c, wt_ledger_calc_result(a->lc)) < 0)
        return WT_EXIT_USAGE;
    return -1;
}

int wt_args_files(int argc, char **argv, const char *cmd, char **files, int *nfiles)
{
    for (int i = optind; i < argc; i++)
        files[(*nfiles)++] = argv[i];
    if (*nfiles == 0) {
        wt_args_no_file(cmd);
        return -1;
    }
    return 0;
}

int wt_args_files_from(wt_inputs *in, const char *list, int nul)
{
    const int rc = wt_inputs_add_list(in, list, nul);
    if (rc == WT_EOPEN)
        wt_cli_error("%s: cannot open the list '%s': %s", command, list, strerror(errno));
    else if (rc < 0)
        wt_cli_error("%s: %s", command, wt_strerror(rc));
    return rc < 0 ? WT_EXIT_FAIL : -1;
}

int wt_args_inputs(int argc, char **argv, const char *cmd, int lists, wt_inputs *in)
{
    const int rc = optind < argc ? wt_inputs_add_paths(in, argv + optind, (size_t)(argc - optind))
                                 : 0;
    if (rc < 0) {
        wt_cli_error("%s: %s", cmd, wt_strerror(rc));
        return WT_EXIT_FAIL;
    }
    if (optind >= argc && lists == 0) {
        wt_args_no_file(cmd);
        return WT_EXIT_USAGE;
    }
    return -1;
}

const char wt_args_inputs_help[] =
    "      --files-from LIST    also the traces named in LIST, one path a line ('-': stdin;\n"
    "                           empty lines skipped), before FILEs; repeatable\n"
    "      --files-from0 LIST   the same, the paths separated by NUL bytes (find -print0)\n";

int wt_args_json_files(int argc, char **argv, const char *cmd, void (*usage)(FILE *), int *json,
                       char **files, int *nfiles)
{
    enum { OPT_JSON = WT_OPT_FIRST_FREE };
    static const struct option longopts[] = { { "help", no_argument, NULL, 'h' },
                                              { "json", no_argument, NULL, OPT_JSON },
                                              { NULL, 0, NULL, 0 } };
    int c;
    wt_args_set_command(cmd);
    opterr = 0;
    optind = 0; /* a full reset: the loop may run more than once in a process */
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return WT_EXIT_OK;
        } else if (c == OPT_JSON) {
            *json = 1;
        } else {
            wt_args_getopt_error(c, argv);
            return WT_EXIT_USAGE;
        }
    }
    return wt_args_files(argc, argv, cmd, files, nfiles) < 0 ? WT_EXIT_USAGE : -1;
}

void wt_args_stdout_buffered(void)
{
    static char buf[1 << 20]; /* static: stdout is flushed at exit, after any frame is gone */
    if (!isatty(STDOUT_FILENO))
        (void)setvbuf(stdout, buf, _IOFBF, sizeof buf);
}
