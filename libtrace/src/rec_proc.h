/* Facts about the process and its run that the recorder writes at open (header fields of
 * format 1.1) and the launcher's rank variables, recorded as run metadata. Included only by
 * rec_*.c; nothing here is on the hot path. */
#ifndef WT_REC_PROC_H
#define WT_REC_PROC_H

#include <stddef.h>
#include <stdint.h>

/* Fills out[0..16) with random bytes (getrandom; a clock-and-pid mix when the kernel has no
 * entropy to give without blocking). Never all zero, which the header reads as "absent". */
void wt__run_id(uint8_t out[16]);

/* Reads the host's boot id into out[0..cap) without its newline. Returns 0, or -1 (out is
 * "") when /proc/sys/kernel/random/boot_id cannot be read. */
int wt__boot_id(char *out, size_t cap);

/* The rank a launcher gave the process: WALLTIME_RANK, else RANK, when it is a decimal integer
 * in 0..2^31-1 (the environment's string, not a copy); NULL otherwise. */
const char *wt__rank(void);

/* Records WALLTIME_RANK (else RANK), LOCAL_RANK and WORLD_SIZE as the run metadata keys
 * "rank", "local_rank" and "world_size" on the calling thread. A variable that is not a
 * decimal integer in 0..2^31-1 is ignored. Called right after open, with recording on. */
void wt__rank_meta(void);

#endif
