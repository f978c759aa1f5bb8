/* Option helpers shared by the subcommands: `--name=value` and `--name value` forms, numbers
 * with a clear usage error, and the anomaly options (thresholds, --budget, --fail-on) that both
 * `ledger` and `anomalies` accept. Usage errors are reported on stderr here; callers return
 * WT_EXIT_USAGE. */
#ifndef WT_ARGS_H
#define WT_ARGS_H

#include <stddef.h>

#include "anomalies.h"

/* When argv[*i] is the option `name` ("--flat"): for a flag (want_value 0) returns "" ; for an
 * option with a value returns the value, taken from "--name=value" or from the next argument
 * (then *i is advanced). Returns NULL when argv[*i] is not this option; sets *err to 1 when the
 * value is missing (and reports it). */
const char *wt_args_match(int argc, char **argv, int *i, const char *name, int want_value, int *err);

/* Parses a finite number; reports "option: 'value' is not a number" and returns -1 on error. */
int wt_args_double(const char *opt, const char *s, double *out);
int wt_args_int(const char *opt, const char *s, long long *out);

/* "category=SECONDS" or "category=PERCENT%". The category points into spec. 0 or -1. */
int wt_args_budget(const char *spec, wt_budget *out);

#define WT_FAIL_MISS 0x1
#define WT_FAIL_ANOMALY 0x2
#define WT_FAIL_BUDGET 0x4
/* "miss", "anomaly", "budget", or a comma-separated list of them: ORs the flags. 0 or -1. */
int wt_args_fail_on(const char *s, unsigned *flags);

/* The anomaly options as parsed from a command line. */
typedef struct wt_anomaly_args {
    wt_anomaly_opts opts;
    wt_budget budgets[64];
    const char *baseline; /* --baseline FILE, or NULL */
    unsigned fail_on;
} wt_anomaly_args;

void wt_anomaly_args_init(wt_anomaly_args *a);
/* Frees what parsing allocated (the budgets' categories). */
void wt_anomaly_args_release(wt_anomaly_args *a);
/* Tries the anomaly options at argv[*i]: 1 when consumed, 0 when not one of them, -1 on a
 * usage error (reported). */
int wt_anomaly_args_parse(wt_anomaly_args *a, int argc, char **argv, int *i);
/* The help text of the anomaly options. */
extern const char wt_anomaly_args_help[];

/* The exit status of the --fail-on gate: WT_EXIT_GATE when a selected kind matched, else 0. */
int wt_anomaly_args_gate(const wt_anomaly_args *a, const wt_anomalies *an);

/* Runs the ledger of the trace `path` alone (for --baseline); 0 and *out (free with
 * wt_ledger_calc_free), or WT_EXIT_FAIL after reporting why. In cmd_ledger.c. */
int wt__baseline_ledger(const char *path, wt_ledger_calc **out);

#endif
