/* The table export as the `export` command runs it: see table_cmd.c. */
#ifndef WT_FLEET_TABLE_CMD_H
#define WT_FLEET_TABLE_CMD_H

#include "inputs.h"
#include "source.h"

/* Exports the tables of the inputs `in` (inputs.h; spent) into `dir` (table.h), says on stderr
 * what was lost and, with `json`, prints a "walltime-export/1" report with format "table" on stdout. Returns the
 * exit status: WT_EXIT_USAGE without a directory, WT_EXIT_FAIL when nothing could be written or
 * read, WT_EXIT_DAMAGED when a file was damaged or unreadable, else WT_EXIT_OK. */
int wt_table_command(wt_inputs *in, const char *dir, int json);

#endif
