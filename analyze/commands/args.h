/* Option helpers shared by the subcommands, whose option loops are getopt_long(3): numbers with
 * a clear usage error, the one form of usage errors, and the anomaly options (thresholds,
 * --budget, --fail-on) that `ledger`, `anomalies` and `export` accept, into a
 * wt_anomaly_config (analysis.h). Usage errors are reported on stderr here; callers return
 * WT_EXIT_USAGE. */
#ifndef WT_ARGS_H
#define WT_ARGS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis.h"
#include "inputs.h"

/* Parses a finite number; reports "option: 'value' is not a number" and returns -1 on error. */
int wt_args_double(const char *opt, const char *s, double *out);
int wt_args_int(const char *opt, const char *s, long long *out);

/* The value of --budget (self 0) or --budget-self (self 1), named `opt` in messages:
 * "CATEGORY=SECONDS" or "CATEGORY=PERCENT%" (0 to 100). The category is malloc'ed (the config
 * frees it). 0, or -1 after reporting a malformed value or a share over 100%. */
int wt_args_budget(const char *opt, const char *spec, int self, wt_budget *out);

/* Seconds as "5", "5s", "500ms" or "250us", finite and not negative: 0, or -1 after
 * reporting "OPT: 'S' is not a duration". */
int wt_args_seconds(const char *opt, const char *s, double *out);

/* The --fail-on grammar, a comma-separated list of gates:
 *   KIND          any anomaly of KIND (miss, budget, repeat-miss, ...; anomaly: of any kind)
 *   KIND>N        more than N of them
 *   avoidable>S   the MISSes' avoidable seconds over S (a duration as wt_args_seconds())
 *   untracked>P%  untracked over P percent of wall (0 to 100); untracked>S: over S seconds
 * Appends to c->gates (each gate's text points into s); 0, or -1 after reporting. */
int wt_args_fail_on(const char *s, wt_anomaly_config *c);

/* Of names[0..n), the one nearest to a mistyped word: within 2 edits (a swap of two
 * neighbours is one: "legder" -> "ledger") and fewer edits than the word has letters (so "ab"
 * suggests nothing); NULL when none is. */
const char *wt_args_nearest(const char *word, const char *const *names, size_t n);

/* The anomaly options, as getopt_long(3) entries for a subcommand's table (their codes are
 * above any character), and what one of them sets in c: 0, or -1 after reporting a usage
 * error. The values' grammars (budgets, gates, durations) are ours. */
enum {
    WT_OPT_BUDGET = 0x100,
    WT_OPT_BUDGET_SELF,
    WT_OPT_BASELINE,
    WT_OPT_FAIL_ON,
    WT_OPT_MIN_COST,
    WT_OPT_UNTRACKED_PCT,
    WT_OPT_OUTLIER_FACTOR,
    WT_OPT_BASELINE_PCT,
    WT_OPT_BASELINE_MIN,
    WT_OPT_REPEAT_MISS,
    WT_OPT_FIRST_FREE /* the first code a subcommand may use for its own options */
};
#define WT_ANOMALY_LONGOPTS                                                                    \
    { "budget", required_argument, NULL, WT_OPT_BUDGET },                                      \
        { "budget-self", required_argument, NULL, WT_OPT_BUDGET_SELF },                        \
        { "baseline", required_argument, NULL, WT_OPT_BASELINE },                              \
        { "fail-on", required_argument, NULL, WT_OPT_FAIL_ON },                                \
        { "min-cost", required_argument, NULL, WT_OPT_MIN_COST },                              \
        { "untracked-pct", required_argument, NULL, WT_OPT_UNTRACKED_PCT },                    \
        { "outlier-factor", required_argument, NULL, WT_OPT_OUTLIER_FACTOR },                  \
        { "baseline-pct", required_argument, NULL, WT_OPT_BASELINE_PCT },                      \
        { "baseline-min", required_argument, NULL, WT_OPT_BASELINE_MIN },                      \
        { "repeat-miss", required_argument, NULL, WT_OPT_REPEAT_MISS }
int wt_anomaly_args_opt(wt_anomaly_config *c, int code, const char *value);

/* Reports what getopt_long(3) returned `rc` (':' or '?', with opterr 0 and an optstring that
 * starts with ':') for: "option 'OPT' needs a value" or "unknown option 'OPT'". */
void wt_args_getopt_error(int rc, char **argv);
/* The help text of the anomaly options. */
extern const char wt_anomaly_args_help[];

/* After the run, before any output: every budget's category must be in the trace (a typo
 * would make a CI gate always pass). 0, or -1 after reporting the unknown category and the
 * categories that exist (the caller exits WT_EXIT_USAGE). */
int wt_anomaly_args_check(const wt_anomaly_config *c, const wt_ledger_result *r);

/* The analysis pass of `ledger` and `anomalies`: wt_analysis_run() over files[0..n) into *a,
 * then the budgets of `c` checked against the categories read. Returns -1 to go on, else the
 * exit status to return: WT_EXIT_FAIL (a file could not be opened, already said; or out of
 * memory, said for CMD), WT_EXIT_USAGE (a budget names a category the trace lacks, said). */
int wt_args_analyze(const char *cmd, char **files, int n, const wt_analysis_opts *o,
                    const wt_anomaly_config *c, wt_analysis *a);

/* Usage errors are worded alike in every subcommand, one line on stderr:
 *   walltime-analyze: CMD: PROBLEM; see 'walltime-analyze CMD --help'
 * PROBLEM leads with what is wrong and quotes its subject: "unknown option '--x'", "--top: 'x'
 * is not an integer" (STYLE.md, The CLI). The helpers here report theirs so. */

/* The subcommand whose usage errors these are; main.c sets it before dispatch ("ledger"
 * without). */
void wt_args_set_command(const char *cmd);
/* A usage error of the current subcommand, printf-style, in the form above. */
void wt_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "no trace file given" for CMD (which becomes the current one). */
void wt_args_no_file(const char *cmd);
/* The operands after getopt_long's loop, argv[optind..argc), appended to files[] (room for
 * argc) and counted in *nfiles. Returns 0, or -1 after "no trace file given" for CMD when
 * there are none. */
int wt_args_files(int argc, char **argv, const char *cmd, char **files, int *nfiles);

/* The inputs of a fleet command (trend, export --format table; inputs.h): --files-from LIST
 * (`nul` 0) or --files-from0 LIST (`nul` 1) appended to `in`, the list opened now. Returns -1
 * to go on, else the exit status to return: WT_EXIT_FAIL after "cannot open the list 'LIST'"
 * or out of memory (said). */
int wt_args_files_from(wt_inputs *in, const char *list, int nul);
/* The operands after getopt_long's loop, argv[optind..argc), appended to `in` after its lists.
 * Returns -1 to go on, else the exit status to return: WT_EXIT_USAGE after "no trace file
 * given" for CMD when there are neither operands nor lists (`lists`: how many were given),
 * WT_EXIT_FAIL after saying out of memory. */
int wt_args_inputs(int argc, char **argv, const char *cmd, int lists, wt_inputs *in);
/* The help lines of --files-from and --files-from0. */
extern const char wt_args_inputs_help[];

/* True when argv[i] looks like an option ("-x", "--x"; a lone "-" is not one). */
#define WT_ARGS_IS_OPTION(s) ((s)[0] == '-' && (s)[1] != '\0')

/* Gives stdout a buffer of 1 MiB when it is not a terminal (a file, a pipe), before any output
 * to it. stdio's default there is the file system's block, 4 KiB: `dump --json` of 1 M spans
 * made 52,000 write() calls (204 now), and on a virtual machine, where each is an exit to
 * the host, they were a third of its samples; its CPU halved (docs/perf/ANALYZER.md). */
void wt_args_stdout_buffered(void);

/* The command line of a subcommand whose one option is --json (info, dump): -h/--help prints
 * usage(stdout), every other argument is a file, collected into files[] (room for argc) and
 * counted in *nfiles. Returns -1 to go on, else the exit status to return at once: WT_EXIT_OK
 * after the help, WT_EXIT_USAGE after a usage error (reported). */
int wt_args_json_files(int argc, char **argv, const char *cmd, void (*usage)(FILE *), int *json,
                       char **files, int *nfiles);

#endif
