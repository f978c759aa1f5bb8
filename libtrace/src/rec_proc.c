/* The run's identity written at open: a random run id (so traces of one run can be told from
 * another's even when pids repeat), the host's boot id (so monotonic times of two traces are
 * known to be comparable: same boot, same clock), and the rank a launcher gave the process
 * (torchrun, mpirun and the like export RANK, LOCAL_RANK and WORLD_SIZE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rec_proc.h"
#include "walltime/walltime.h"

void wt__run_id(uint8_t out[16])
{
    size_t got = 0;
    while (got < 16) {
        const ssize_t n = getrandom(out + got, 16 - got, GRND_NONBLOCK);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got < 16) {
        /* no entropy yet (early boot): unique enough for telling runs apart */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        uint64_t y = (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)out;
        for (int i = 0; i < 8; i++) {
            out[i] = (uint8_t)(x >> (8 * i));
            out[8 + i] = (uint8_t)(y >> (8 * i));
        }
    }
    out[15] |= 1; /* never all zero: zero means "no run id" in the header */
}

int wt__boot_id(char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f)
        return -1;
    const int ok = fgets(out, (int)cap, f) != NULL;
    fclose(f);
    if (!ok) {
        out[0] = '\0';
        return -1;
    }
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

/* The variable's value when it is a plain decimal integer in 0..2^31-1, else NULL: a rank
 * is an index, and anything else is a launcher we do not understand. */
static const char *rank_var(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v || strlen(v) > 10)
        return NULL;
    for (const char *p = v; *p; p++)
        if (*p < '0' || *p > '9')
            return NULL;
    return strtoll(v, NULL, 10) <= 0x7fffffffLL ? v : NULL;
}

const char *wt__rank(void)
{
    const char *rank = rank_var("WALLTIME_RANK");
    return rank ? rank : rank_var("RANK");
}

void wt__rank_meta(void)
{
    const char *rank = wt__rank();
    const char *local = rank_var("LOCAL_RANK");
    const char *world = rank_var("WORLD_SIZE");
    if (rank)
        wt_meta("rank", rank);
    if (local)
        wt_meta("local_rank", local);
    if (world)
        wt_meta("world_size", world);
}
