/* Shared by the fleet tests (test_fleet_*.c): the per-test directory (tracebuild's) and running
 * walltime-analyze in it with absolute paths (cli_run() changes directory). Include after
 * cmocka.h and tracebuild.h; define FLEET_TMP_PREFIX first. Test-only helper. */
#ifndef WT_TEST_FLEET_CLI_H
#define WT_TEST_FLEET_CLI_H

#include <stdlib.h>

#include "cli_run.h"

static int setup(void **state)
{
    (void)state;
    return tb_tmpdir_enter(FLEET_TMP_PREFIX);
}

static int teardown(void **state)
{
    (void)state;
    return tb_tmpdir_leave();
}

/* The test's directory (name NULL) or a file in it, absolute; two rotating buffers. */
static char *abs_in(const char *name)
{
    static char buf[2][4096];
    static int k;
    k ^= 1;
    char *dir = realpath(tb_tmpdir(), NULL);
    assert_non_null(dir);
    snprintf(buf[k], sizeof buf[k], "%s%s%s", dir, name ? "/" : "", name ? name : "");
    free(dir);
    return buf[k];
}

/* Runs `walltime-analyze ARGS` in the test's directory, stdout and stderr into out.txt and
 * err.txt there; returns the exit status. */
static int fleet_cli(const char *args)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", abs_in(NULL));
    return cli_run(dir, args, abs_in("out.txt"), abs_in("err.txt"));
}

#endif
