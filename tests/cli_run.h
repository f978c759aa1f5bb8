/* Runs walltime-analyze for the CLI tests: argv through /bin/sh in a directory, stdout and
 * stderr captured into files, the exit status returned. Test-only helper. */
#ifndef WT_TEST_CLI_RUN_H
#define WT_TEST_CLI_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Runs `WT_ANALYZE_BIN args` in `dir`; stdout to out_path, stderr to err_path (absolute).
 * Returns the exit status, or -1 when it did not exit normally (a crash) or could not be
 * started. The command is built at its full length: a cut one would run something else. */
static int cli_run(const char *dir, const char *args, const char *out_path, const char *err_path)
{
    static const char fmt[] = "cd '%s' && '%s' %s >'%s' 2>'%s'";
    const int len = snprintf(NULL, 0, fmt, dir, WT_ANALYZE_BIN, args, out_path, err_path);
    char *cmd = len >= 0 ? malloc((size_t)len + 1) : NULL;
    int st = -1;
    if (cmd) {
        snprintf(cmd, (size_t)len + 1, fmt, dir, WT_ANALYZE_BIN, args, out_path, err_path);
        st = system(cmd);
        free(cmd);
    }
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* The whole file as a NUL-terminated string (caller frees), or NULL. */
static char *cli_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len <= 1) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

#endif
