/* The order in which the analyses read the files of one run: a forked child's before its
 * parent's (forkorder.c). */
#ifndef WT_FORKORDER_H
#define WT_FORKORDER_H

/* paths[0..n) in a new array (malloc'd, for the caller to free; NULL when out of memory) so
 * that every file whose process was forked from the process of another of them (the header's
 * parent pid, on the same host and boot, started no earlier) comes before that one; files keep their order otherwise, and a file that cannot be
 * opened keeps its place among the unrelated ones. The ledger gives each instant of wall to
 * the first top-level span, in trace order, that covers it: a worker thread's spans arrive
 * before the parent's span that joins them, and so, read first, do a worker process's. Read
 * after its parent, a child's `convert` got 0 ms while the parent's span around the fork and
 * the wait got it all. */
char **wt_fork_order(char *const *paths, int n);

#endif
