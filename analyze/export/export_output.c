/* Where an export goes (wt_export_to_path, export.h): through a temporary file next to the
 * target, renamed over it once complete, so a failed export never leaves a half file under the
 * name the user asked for; never over one of the inputs; through symbolic links to the file
 * they point to; in place for a device or FIFO.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"

/* Exports to the regular file (or new name) `out_path` through a temporary file in the same
 * directory, renamed over it at the end. */
static int export_replacing(char *const *paths, int n, const wt_export_opts *o,
                            const char *out_path, wt_export_report *rep)
{
    /* the temporary name sits in the target's directory so rename() cannot cross devices */
    size_t len = strlen(out_path);
    char *tmp = malloc(len + 16);
    if (!tmp)
        return WT_ENOMEM;
    memcpy(tmp, out_path, len);
    memcpy(tmp + len, ".tmp-XXXXXX", 12);
    int rc, fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        memset(rep, 0, sizeof *rep);
        errno = e;
        return WT_EOPEN;
    }
    /* mkstemp makes the file 0600; an export is an ordinary file for the user's umask */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        rc = WT_ENOMEM;
        goto fail;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    rc = wt_export_stream(paths, n, o, f, rep);
    if (fclose(f) != 0 && rc == 0)
        rc = WT_EIO;
    if (rc < 0)
        goto fail;
    if (rep->src.files_ok + rep->src.files_damaged == 0) {
        unlink(tmp); /* nothing readable: keep whatever out_path was */
        free(tmp);
        return 0;
    }
    if (rename(tmp, out_path) != 0) {
        rc = WT_EOPEN;
        goto fail;
    }
    free(tmp);
    rep->written = 1;
    return 0;
fail : {
    int e = errno;
    unlink(tmp);
    free(tmp);
    errno = e;
    return rc;
}
}

/* Where `path` really is: a symbolic link is followed to the file it points to (as editors do,
 * so the link stays a link and its target gets the export), through at most 40 links, a
 * relative target taken from the link's directory. A path that is no link (or cannot be read
 * as one) is itself. Returns a malloc'd path, NULL when memory runs out. */
static char *follow_links(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur && hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            break;
        char target[4096];
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n <= 0)
            break;
        target[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dir = target[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dir + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dir);
            memcpy(next + dir, target, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    return cur;
}

/* The index + 1 of the input that is the same file as `out_path` (device and inode), else 0. */
static int same_as_input(char *const *paths, int n, const char *out_path)
{
    struct stat o, in;
    if (stat(out_path, &o) != 0)
        return 0;
    for (int i = 0; i < n; i++)
        if (stat(paths[i], &in) == 0 && in.st_dev == o.st_dev && in.st_ino == o.st_ino)
            return i + 1;
    return 0;
}

int wt_export_to_path(char *const *paths, int n, const wt_export_opts *o, const char *out_path,
                      wt_export_report *rep)
{
    if (!strcmp(out_path, "-")) {
        int src = wt_export_stream(paths, n, o, stdout, rep);
        rep->written = src == 0;
        return src;
    }
    int clash = same_as_input(paths, n, out_path);
    if (clash) {
        /* writing would replace a trace with its own export */
        memset(rep, 0, sizeof *rep);
        rep->same_as_input = clash;
        return WT_EEXIST;
    }
    struct stat st;
    if (stat(out_path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device or a pipe (/dev/null, a FIFO): renaming a file over it would replace the
         * device itself, so it is written in place */
        FILE *f = fopen(out_path, "wb");
        if (!f) {
            memset(rep, 0, sizeof *rep);
            return WT_EOPEN;
        }
        int src = wt_export_stream(paths, n, o, f, rep);
        if (fclose(f) != 0 && src == 0)
            src = WT_EIO;
        rep->written = src == 0;
        return src;
    }
    char *real = follow_links(out_path);
    if (!real)
        return WT_ENOMEM;
    int rc = export_replacing(paths, n, o, real, rep);
    free(real);
    return rc;
}
