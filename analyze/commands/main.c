/* walltime-analyze: replays .wtrace files into a ledger, anomalies, comparisons and exports.
 * This file only dispatches: each subcommand lives in cmd_<name>.c with its own usage. A first
 * word that is no command runs `ledger` when it looks like a file (which then says whether it
 * exists), else it is a usage error that suggests the nearest command. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "commands.h"
#include "source.h"
#include "walltime/version.h"

static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} commands[] = {
    { "ledger", cmd_ledger, "where the wall time went, reconciled to wall time (default)" },
    { "anomalies", cmd_anomalies, "cache misses and other things a person would dig out of logs" },
    { "compare", cmd_compare, "keep/skip rounds: paired statistics and verdicts" },
    { "export", cmd_export, "timelines for ui.perfetto.dev (Perfetto protobuf) or Chrome JSON" },
    { "trend", cmd_trend, "many runs: each category's seconds over time, and where they changed" },
    { "info", cmd_info, "header, counts and integrity of trace files" },
    { "dump", cmd_dump, "every event, as text or JSON lines" },
};

static void usage(FILE *out)
{
    fprintf(out, "usage: " WT_PROG " [COMMAND] [OPTIONS] FILE.wtrace...\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nWithout a command, `ledger` runs. `" WT_PROG " COMMAND --help` says more.\n"
                 "\nexit status, every command: 0 ok; 1 no file could be read (compare: or no round\n"
                 "at all), or output not written; 2 usage; 3 a --fail-on gate matched (before 4);\n"
                 "4 a file was damaged, or one of several could not be read (results cover what\n"
                 "was readable, named on stderr)\n");
}

/* Runs a command. A failure that no message explained (a command that ran out of memory
 * where it did not say so) still gets one: exit 1 is never silent (docs/RELIABILITY.md). */
static int run(int (*fn)(int, char **), int argc, char **argv)
{
    const int status = fn(argc, argv);
    if (status == WT_EXIT_FAIL && !wt_cli_said())
        wt_cli_error("%s: %s", argv[0], errno == ENOMEM ? "out of memory" : "failed");
    return status;
}

/* The command nearest to a mistyped word (wt_args_nearest()); NULL when none is. */
static const char *nearest(const char *word)
{
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        names[i] = commands[i].name;
    return wt_args_nearest(word, names, sizeof names / sizeof names[0]);
}

/* A word that names a file rather than a command: it has a dot or a slash, or a file of that
 * name exists. */
static int looks_like_file(const char *word)
{
    struct stat st;
    return strchr(word, '.') || strchr(word, '/') || stat(word, &st) == 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return WT_EXIT_OK;
    }
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf(WT_PROG " %s\n", wt_version_string());
        return WT_EXIT_OK;
    }
    if (argc < 2) {
        usage(stderr);
        return WT_EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (!strcmp(argv[1], commands[i].name)) {
            wt_args_set_command(commands[i].name);
            return run(commands[i].fn, argc - 1, argv + 1);
        }
    }
    /* an option or a file first: the default command gets everything (it says when the
     * file does not exist: "cannot open 'run.wtraec': No such file or directory") */
    if (WT_ARGS_IS_OPTION(argv[1]) || looks_like_file(argv[1])) {
        argv[0] = "ledger";
        wt_args_set_command("ledger");
        return run(cmd_ledger, argc, argv);
    }
    const char *near = nearest(argv[1]);
    if (near)
        wt_cli_error("'%s' is not a command; did you mean '%s'? see '" WT_PROG " --help'",
                     argv[1], near);
    else
        wt_cli_error("'%s' is not a command, nor a file; see '" WT_PROG " --help'", argv[1]);
    return WT_EXIT_USAGE;
}
