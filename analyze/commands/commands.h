/* The subcommands of walltime-analyze, dispatched from the table in main.c. Each lives in
 * cmd_<name>.c with its own usage text, takes argv without the program name (argv[0] is the
 * subcommand), and returns an exit status from source.h. */
#ifndef WT_COMMANDS_H
#define WT_COMMANDS_H

int cmd_ledger(int argc, char **argv);
int cmd_anomalies(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_trend(int argc, char **argv);

#endif
