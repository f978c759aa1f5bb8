/* Option helpers shared by the subcommands: see args.h. */
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

const char *wt_args_match(int argc, char **argv, int *i, const char *name, int want_value, int *err)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (!want_value)
        return a[n] == '\0' ? "" : NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        wt_cli_error("option '%s' needs a value", name);
        *err = 1;
        return NULL;
    }
    return argv[++*i];
}

int wt_args_double(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v)) {
        wt_cli_error("%s: '%s' is not a number", opt, s);
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
        wt_cli_error("%s: '%s' is not an integer", opt, s);
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
        wt_cli_error("%s: '%s' is not CATEGORY=SECONDS or CATEGORY=PERCENT%%", opt, spec);
        return -1;
    }
    if (percent && v > 100) {
        wt_cli_error("%s: '%s': a share of wall is at most 100%%", opt, spec);
        return -1;
    }
    /* the category is the text before '=', owned by the caller (wt_anomaly_args_release) */
    char *cat = strndup(spec, (size_t)(eq - spec));
    if (!cat)
        return -1;
    *out = (wt_budget){ cat, v, percent, self };
    return 0;
}

int wt_anomaly_args_check(const wt_anomaly_args *a, const wt_ledger_result *r)
{
    for (size_t i = 0; i < a->opts.n_budgets; i++) {
        const wt_budget *b = &a->budgets[i];
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
        if (r->n_cats == 0)
            wt_cli_error("%s: no category '%s': the trace has no spans", b->self ? "--budget-self" : "--budget",
                         b->category);
        else
            wt_cli_error("%s: no category '%s'; the categories are %s%s", b->self ? "--budget-self" : "--budget",
                         b->category, list, shown < r->n_cats ? ", ..." : "");
        return -1;
    }
    return 0;
}

int wt_args_fail_on(const char *s, unsigned *flags)
{
    const char *p = s;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 4 && !strncmp(p, "miss", 4))
            *flags |= WT_FAIL_MISS;
        else if (n == 7 && !strncmp(p, "anomaly", 7))
            *flags |= WT_FAIL_ANOMALY;
        else if (n == 6 && !strncmp(p, "budget", 6))
            *flags |= WT_FAIL_BUDGET;
        else {
            wt_cli_error("--fail-on: '%.*s' is not miss, anomaly or budget", (int)n, p);
            return -1;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    if (!*s) {
        wt_cli_error("--fail-on: needs miss, anomaly or budget");
        return -1;
    }
    return 0;
}

void wt_anomaly_args_init(wt_anomaly_args *a)
{
    memset(a, 0, sizeof *a);
    wt_anomaly_opts_init(&a->opts);
    a->opts.budgets = a->budgets;
}

void wt_anomaly_args_release(wt_anomaly_args *a)
{
    for (size_t i = 0; i < a->opts.n_budgets; i++)
        free((char *)a->budgets[i].category);
    a->opts.n_budgets = 0;
}

int wt_anomaly_args_parse(wt_anomaly_args *a, int argc, char **argv, int *i)
{
    int err = 0;
    const char *v;
    long long n;
    for (int self = 0; self <= 1; self++) {
        const char *opt = self ? "--budget-self" : "--budget";
        if (err || !(v = wt_args_match(argc, argv, i, opt, 1, &err)))
            continue;
        if (a->opts.n_budgets >= sizeof a->budgets / sizeof a->budgets[0]) {
            wt_cli_error("%s: at most 64 budgets", opt);
            return -1;
        }
        if (wt_args_budget(opt, v, self, &a->budgets[a->opts.n_budgets]) < 0)
            return -1;
        a->opts.n_budgets++;
        return 1;
    }
    if (!err && (v = wt_args_match(argc, argv, i, "--baseline", 1, &err))) {
        a->baseline = v;
        return 1;
    }
    if (!err && (v = wt_args_match(argc, argv, i, "--fail-on", 1, &err)))
        return wt_args_fail_on(v, &a->fail_on) < 0 ? -1 : 1;
    if (!err && (v = wt_args_match(argc, argv, i, "--untracked-pct", 1, &err)))
        return wt_args_double("--untracked-pct", v, &a->opts.untracked_pct) < 0 ? -1 : 1;
    if (!err && (v = wt_args_match(argc, argv, i, "--outlier-factor", 1, &err)))
        return wt_args_double("--outlier-factor", v, &a->opts.outlier_factor) < 0 ? -1 : 1;
    if (!err && (v = wt_args_match(argc, argv, i, "--baseline-pct", 1, &err)))
        return wt_args_double("--baseline-pct", v, &a->opts.baseline_pct) < 0 ? -1 : 1;
    if (!err && (v = wt_args_match(argc, argv, i, "--baseline-min", 1, &err)))
        return wt_args_double("--baseline-min", v, &a->opts.baseline_min_s) < 0 ? -1 : 1;
    if (!err && (v = wt_args_match(argc, argv, i, "--repeat-miss", 1, &err))) {
        if (wt_args_int("--repeat-miss", v, &n) < 0)
            return -1;
        a->opts.repeat_miss = n;
        return 1;
    }
    return err ? -1 : 0;
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
    "  --repeat-miss N          an anomaly when a label misses N times or more (3)\n"
    "  --outlier-factor F       an anomaly for a span over F x its siblings' median (5)\n"
    "  --fail-on=KIND[,KIND]    exit 3 when anything of KIND was found: miss, budget, or\n"
    "                           anomaly (any kind)\n";

int wt_anomaly_args_gate(const wt_anomaly_args *a, const wt_anomalies *an)
{
    int64_t total = 0;
    for (int k = 0; k < WT_AN_KIND_COUNT; k++)
        total += wt_anomalies_count(an, (wt_anomaly_kind)k);
    if ((a->fail_on & WT_FAIL_MISS) && wt_anomalies_count(an, WT_AN_MISS))
        return WT_EXIT_GATE;
    if ((a->fail_on & WT_FAIL_BUDGET) && wt_anomalies_count(an, WT_AN_BUDGET))
        return WT_EXIT_GATE;
    if ((a->fail_on & WT_FAIL_ANOMALY) && total)
        return WT_EXIT_GATE;
    return 0;
}

void wt_args_unknown(const char *cmd, const char *opt)
{
    wt_cli_error("%s: unknown option '%s'; see '" WT_PROG " %s --help'", cmd, opt, cmd);
}

void wt_args_no_file(const char *cmd)
{
    wt_cli_error("%s: no trace file given; see '" WT_PROG " %s --help'", cmd, cmd);
}

int wt_args_json_files(int argc, char **argv, const char *cmd, void (*usage)(FILE *), int *json,
                       char **files, int *nfiles)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return WT_EXIT_OK;
        } else if (!strcmp(argv[i], "--json")) {
            *json = 1;
        } else if (WT_ARGS_IS_OPTION(argv[i])) {
            wt_args_unknown(cmd, argv[i]);
            return WT_EXIT_USAGE;
        } else {
            files[(*nfiles)++] = argv[i];
        }
    }
    if (*nfiles == 0) {
        wt_args_no_file(cmd);
        return WT_EXIT_USAGE;
    }
    return -1;
}
