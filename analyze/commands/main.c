/* walltime-analyze: replays .wtrace files into a ledger, anomalies, comparisons and exports.
 * This file only dispatches: each subcommand lives in cmd_<name>.c with its own usage. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "source.h"
#include "commands.h"
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
    { "info", cmd_info, "header, counts and integrity of trace files" },
    { "dump", cmd_dump, "every event, as text or JSON lines" },
};

static void usage(FILE *out)
{
    fprintf(out, "usage: " WT_PROG " [COMMAND] [OPTIONS] FILE.wtrace...\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nWithout a command, `ledger` runs. `" WT_PROG " COMMAND --help` says more.\n"
                 "\nexit status: 0 ok; 1 a file could not be read or output not written; 2 usage;\n"
                 "3 a --fail-on gate matched; 4 a file was damaged (results cover what was readable)\n");
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
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return run(commands[i].fn, argc - 1, argv + 1);
    if (argv[1][0] == '-' && argv[1][1] != '\0') {
        /* an option first: the default command gets everything */
        argv[0] = "ledger";
        return run(cmd_ledger, argc, argv);
    }
    if (strstr(argv[1], ".wtrace") || strchr(argv[1], '/')) {
        argv[0] = "ledger";
        return run(cmd_ledger, argc, argv);
    }
    wt_cli_error("'%s' is not a command; see '" WT_PROG " --help'", argv[1]);
    return WT_EXIT_USAGE;
}
