/* Option helpers shared by the subcommands: `--name=value` and `--name value` forms, numbers
 * with a clear usage error, and the anomaly options (thresholds, --budget, --fail-on) that both
 * `ledger` and `anomalies` accept. Usage errors are reported on stderr here; callers return
 * WT_EXIT_USAGE. */
#ifndef WT_ARGS_H
#define WT_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "anomalies.h"

/* When argv[*i] is the option `name` ("--flat"): for a flag (want_value 0) returns "" ; for an
 * option with a value returns the value, taken from "--name=value" or from the next argument
 * (then *i is advanced). Returns NULL when argv[*i] is not this option; sets *err to 1 when the
 * value is missing (and reports it). */
const char *wt_args_match(int argc, char **argv, int *i, const char *name, int want_value, int *err);

/* Parses a finite number; reports "option: 'value' is not a number" and returns -1 on error. */
int wt_args_double(const char *opt, const char *s, double *out);
int wt_args_int(const char *opt, const char *s, long long *out);

/* The value of --budget (self 0) or --budget-self (self 1), named `opt` in messages:
 * "CATEGORY=SECONDS" or "CATEGORY=PERCENT%" (0 to 100). The category is a copy the caller
 * frees. 0, or -1 after reporting a malformed value or a share over 100%. */
int wt_args_budget(const char *opt, const char *spec, int self, wt_budget *out);

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

/* After the run, before any output: every budget's category must be in the trace (a typo
 * would make a CI gate always pass). 0, or -1 after reporting the unknown category and the
 * categories that exist (the caller exits WT_EXIT_USAGE). */
int wt_anomaly_args_check(const wt_anomaly_args *a, const wt_ledger_result *r);

/* The exit status of the --fail-on gate: WT_EXIT_GATE when a selected kind matched, else 0. */
int wt_anomaly_args_gate(const wt_anomaly_args *a, const wt_anomalies *an);

/* The usage errors every subcommand words alike, on stderr: "CMD: unknown option 'OPT'; see
 * '... CMD --help'" and "CMD: no trace file given; see '... CMD --help'". */
void wt_args_unknown(const char *cmd, const char *opt);
void wt_args_no_file(const char *cmd);

/* True when argv[i] looks like an option ("-x", "--x"; a lone "-" is not one). */
#define WT_ARGS_IS_OPTION(s) ((s)[0] == '-' && (s)[1] != '\0')

/* The command line of a subcommand whose one option is --json (info, dump): -h/--help prints
 * usage(stdout), every other argument is a file, collected into files[] (room for argc) and
 * counted in *nfiles. Returns -1 to go on, else the exit status to return at once: WT_EXIT_OK
 * after the help, WT_EXIT_USAGE after a usage error (reported). */
int wt_args_json_files(int argc, char **argv, const char *cmd, void (*usage)(FILE *), int *json,
                       char **files, int *nfiles);

#endif
