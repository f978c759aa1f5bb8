/* The trace files a fleet command (trend, export --format table) reads, handed out one path at
 * a time, so that a fleet of 100,000 traces needs neither an argument list (ARG_MAX) nor a word
 * per run in memory.
 *
 * Sources, taken in the order they were added (the commands add their lists first, then the
 * command line's operands):
 *   - a list file: one path a line (empty lines skipped), or NUL-separated (`find -print0`);
 *     "-" is stdin. Read as paths are taken, never held whole.
 *   - a path. A directory (any path that stat(2) says is one, from a list or not) stands for
 *     every `*.wtrace` under it: depth first, each directory's entries in byte order of their
 *     names, a subdirectory's traces in its place. Symbolic links met inside the walk are not
 *     followed into directories (no cycles); a link named *.wtrace is taken as a file.
 * What cannot be had (an over-long or NUL-holding list line, a list that cannot be read on, a
 * directory that cannot be listed) is named on stderr and counted (wt_inputs_failed): the
 * command counts it as an unreadable input, exit 4, and reports the rest.
 *
 * Memory: one path buffer, and while a directory is walked, the sorted names of the directories
 * on the current walk's path (a flat directory of N traces holds its N names; a list holds
 * nothing). Not thread-safe: callers that share one take paths under their own lock. */
#ifndef WT_FLEET_INPUTS_H
#define WT_FLEET_INPUTS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of a path with its NUL: a longer one is an error naming it (or its list line). */
#define WT_INPUTS_PATH_MAX PATH_MAX

typedef struct wt_inputs wt_inputs;

/* An empty set of sources; `cmd` names the command in messages ("trend"; kept, not copied).
 * 0 or WT_ENOMEM. */
int wt_inputs_create(const char *cmd, wt_inputs **out);

/* Appends the list file `list` ("-": stdin; the string is kept, not copied), its paths
 * separated by newlines, or by NUL bytes when `nul`. The file is opened now: 0, WT_ENOMEM, or
 * WT_EOPEN (errno says why; nothing is added). */
int wt_inputs_add_list(wt_inputs *in, const char *list, int nul);

/* Appends the paths `paths[0..n)` (the array and its strings are kept, not copied). 0 or
 * WT_ENOMEM. */
int wt_inputs_add_paths(wt_inputs *in, char *const *paths, size_t n);

/* The next trace path into buf (WT_INPUTS_PATH_MAX bytes): 1; 0 when every source is spent;
 * WT_ENOMEM. Paths that cannot be had are named on stderr, counted and passed over. */
int wt_inputs_next(wt_inputs *in, char *buf);

/* Inputs named on stderr and passed over so far (see above). */
int wt_inputs_failed(const wt_inputs *in);

/* Closes the lists (not stdin). NULL is a no-op. */
void wt_inputs_free(wt_inputs *in);

#endif
