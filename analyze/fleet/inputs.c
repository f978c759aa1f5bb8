/* The trace files of a fleet command, one path at a time: see inputs.h. The sources are walked
 * in order; a list is read a line at a time into the caller's buffer, a directory is listed
 * once (its kept names sorted) when the walk enters it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getc_unlocked, fstatat's AT_SYMLINK_NOFOLLOW, DT_* */
#endif
#include "inputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source.h"
#include "spanstat.h"

/* A list, or an array of paths (the command line's operands: one item for all of them, so that
 * argv costs no word a path here). */
typedef struct source_item {
    const char *name;   /* the list's (the caller's) */
    FILE *list;         /* a list (stdin for "-"), else NULL: paths */
    int nul;            /* the list's paths end with NUL, not newline */
    int64_t line;       /* lines (entries) of the list read */
    char *const *paths; /* the caller's */
    size_t n_paths, next_path;
} source_item;

/* A directory's entries worth a look: its subdirectories and its *.wtrace names. */
typedef struct dir_entry {
    char *name;
    int is_dir;
} dir_entry;

/* One directory of the walk: its entries, the next to take, and where its path ends in
 * wt_inputs.dir (without the '/' its entries add). */
typedef struct walk_level {
    dir_entry *e;
    size_t n, next, path_len;
} walk_level;

struct wt_inputs {
    const char *cmd;
    source_item *src;
    size_t n_src, cap_src, cur;
    walk_level *levels; /* the directories from the walk's root to the one being read */
    size_t depth, cap_levels;
    char dir[WT_INPUTS_PATH_MAX]; /* the path of levels[depth - 1] */
    int failed;
};

int wt_inputs_create(const char *cmd, wt_inputs **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return WT_ENOMEM;
    (*out)->cmd = cmd;
    return 0;
}

static int add(wt_inputs *in, const source_item *s)
{
    source_item *ns = wt__grow_array(in->src, &in->cap_src, in->n_src + 1, sizeof *ns);
    if (!ns)
        return WT_ENOMEM;
    in->src = ns;
    in->src[in->n_src++] = *s;
    return 0;
}

int wt_inputs_add_list(wt_inputs *in, const char *list, int nul)
{
    const int is_stdin = !strcmp(list, "-");
    FILE *f = is_stdin ? stdin : fopen(list, "r");
    if (!f)
        return WT_EOPEN;
    const source_item s = { list, f, nul, 0, NULL, 0, 0 };
    const int rc = add(in, &s);
    if (rc && !is_stdin)
        fclose(f);
    return rc;
}

int wt_inputs_add_paths(wt_inputs *in, char *const *paths, size_t n)
{
    const source_item s = { NULL, NULL, 0, 0, paths, n, 0 };
    return n ? add(in, &s) : 0;
}

int wt_inputs_failed(const wt_inputs *in) { return in->failed; }

/* An input passed over: named on stderr (the message says why), counted. */
static void fail(wt_inputs *in, const char *fmt, const char *a, const char *b)
{
    char msg[WT_INPUTS_PATH_MAX + 256];
    snprintf(msg, sizeof msg, fmt, a, b);
    wt_cli_error("%s: %s; left out", in->cmd, msg);
    in->failed++;
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const dir_entry *)a)->name, ((const dir_entry *)b)->name);
}

/* Whether `name` is a trace's: ends with ".wtrace" (and has a stem). */
static int is_trace_name(const char *name)
{
    const size_t n = strlen(name);
    return n > 7 && !strcmp(name + n - 7, ".wtrace");
}

/* Whether the entry is a directory itself, not a link to one (DT_UNKNOWN: asked of the file
 * system), and whether it is worth keeping at all. */
static int classify(DIR *d, const struct dirent *de, int *is_dir)
{
    struct stat sb;
    if (de->d_type != DT_UNKNOWN)
        *is_dir = de->d_type == DT_DIR;
    else
        *is_dir = fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
                  S_ISDIR(sb.st_mode);
    if (*is_dir)
        return strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    return is_trace_name(de->d_name);
}

/* Lists the directory in->dir (its path is in->dir[0..len)) onto the walk. 0, WT_ENOMEM, or 1
 * when it cannot be listed (named, counted). */
static int enter(wt_inputs *in, size_t len)
{
    DIR *d = opendir(in->dir);
    if (!d) {
        fail(in, "cannot read the directory '%s': %s", in->dir, strerror(errno));
        return 1;
    }
    walk_level lv = { NULL, 0, 0, len };
    size_t cap = 0;
    int rc = 0;
    const struct dirent *de;
    while (rc == 0) {
        errno = 0; /* readdir's end and its failure differ only by errno */
        if (!(de = readdir(d)))
            break;
        int is_dir;
        if (!classify(d, de, &is_dir))
            continue;
        dir_entry *ne = wt__grow_array(lv.e, &cap, lv.n + 1, sizeof *ne);
        char *name = ne ? strdup(de->d_name) : NULL;
        if (ne)
            lv.e = ne;
        if (!name)
            rc = WT_ENOMEM;
        else
            lv.e[lv.n++] = (dir_entry){ name, is_dir };
    }
    if (rc == 0 && errno != 0) {
        fail(in, "cannot read the directory '%s': %s", in->dir, strerror(errno));
        rc = 1;
    }
    closedir(d);
    walk_level *nl = rc ? NULL : wt__grow_array(in->levels, &in->cap_levels, in->depth + 1,
                                                 sizeof *nl);
    if (rc == 0 && !nl)
        rc = WT_ENOMEM;
    if (rc) {
        for (size_t i = 0; i < lv.n; i++)
            free(lv.e[i].name);
        free(lv.e);
        return rc;
    }
    qsort(lv.e, lv.n, sizeof *lv.e, entry_cmp);
    in->levels = nl;
    in->levels[in->depth++] = lv;
    return 0;
}

/* `path` taken: a directory is entered (0, or 1 when it cannot be listed), anything else is
 * the next trace, copied into buf (1). Its length is checked by the caller. */
static int take(wt_inputs *in, const char *path, char *buf)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        size_t len = strlen(path);
        memcpy(in->dir, path, len + 1);
        while (len > 1 && in->dir[len - 1] == '/')
            in->dir[--len] = '\0'; /* "runs/": its entries read "runs/a.wtrace" */
        const int rc = enter(in, len);
        return rc < 0 ? rc : 0;
    }
    /* a file, or what stat cannot see: opening it names what is wrong (path may be buf) */
    memmove(buf, path, strlen(path) + 1);
    return 1;
}

/* One step of the walk: the next entry of the innermost directory (1 and a trace in buf, or 0
 * after entering a subdirectory or leaving a finished directory), or WT_ENOMEM. */
static int walk_step(wt_inputs *in, char *buf)
{
    walk_level *lv = &in->levels[in->depth - 1];
    if (lv->next == lv->n) {
        for (size_t i = 0; i < lv->n; i++)
            free(lv->e[i].name);
        free(lv->e);
        in->depth--;
        if (in->depth)
            in->dir[in->levels[in->depth - 1].path_len] = '\0';
        return 0;
    }
    const dir_entry *e = &lv->e[lv->next++];
    const size_t len = lv->path_len, nlen = strlen(e->name);
    const int root = len == 1 && in->dir[0] == '/';
    if (len + !root + nlen >= WT_INPUTS_PATH_MAX) {
        fail(in, "'%s/%s': the path is longer than PATH_MAX", in->dir, e->name);
        return 0;
    }
    in->dir[len] = '/';
    memcpy(in->dir + len + !root, e->name, nlen + 1);
    if (e->is_dir) {
        const int rc = enter(in, len + !root + nlen);
        if (rc == 1) /* not listed: back to this directory's own path */
            in->dir[len] = '\0';
        return rc < 0 ? rc : 0;
    }
    memcpy(buf, in->dir, len + !root + nlen + 1);
    in->dir[len] = '\0';
    return 1;
}

/* The next entry of the list s into buf: 1, or 0 at its end (or when it cannot be read on,
 * named). Over-long entries and, in a newline list, entries holding a NUL are named with their
 * line number and passed over; empty ones are skipped. */
static int list_entry(wt_inputs *in, source_item *s, char *buf)
{
    const int delim = s->nul ? '\0' : '\n';
    for (;;) {
        size_t n = 0;
        int c, over = 0, nul = 0;
        while ((c = getc_unlocked(s->list)) != EOF && c != delim) {
            nul |= c == '\0';
            if (n + 1 < WT_INPUTS_PATH_MAX)
                buf[n++] = (char)c;
            else
                over = 1; /* the rest of the line is read and dropped: memory stays bounded */
        }
        buf[n] = '\0';
        if (c == EOF && ferror(s->list)) {
            fail(in, "cannot read the list '%s' on: %s", s->name, strerror(errno));
            return 0;
        }
        if (c == EOF && n == 0 && !over)
            return 0;
        s->line++;
        char where[96];
        snprintf(where, sizeof where, "%s %lld", s->nul ? "entry" : "line", (long long)s->line);
        if (over)
            fail(in, "'%s' %s: a path longer than PATH_MAX", s->name, where);
        else if (nul)
            fail(in, "'%s' %s: a NUL byte in the path (a NUL-separated list: --files-from0)",
                 s->name, where);
        else if (n > 0)
            return 1;
    }
}

int wt_inputs_next(wt_inputs *in, char *buf)
{
    for (;;) {
        int rc;
        if (in->depth > 0) {
            if ((rc = walk_step(in, buf)) != 0)
                return rc;
            continue;
        }
        if (in->cur >= in->n_src)
            return 0;
        source_item *s = &in->src[in->cur];
        if (!s->list) {
            const char *path = s->paths[s->next_path++];
            if (s->next_path == s->n_paths)
                in->cur++;
            if (strlen(path) >= WT_INPUTS_PATH_MAX) {
                fail(in, "'%.64s...': the path is longer than PATH_MAX%s", path, "");
                continue;
            }
            rc = take(in, path, buf);
        } else if (list_entry(in, s, buf)) {
            rc = take(in, buf, buf);
        } else {
            if (s->list != stdin)
                fclose(s->list);
            s->list = NULL;
            in->cur++;
            continue;
        }
        if (rc != 0)
            return rc;
    }
}

void wt_inputs_free(wt_inputs *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->n_src; i++)
        if (in->src[i].list && in->src[i].list != stdin)
            fclose(in->src[i].list);
    while (in->depth > 0) {
        walk_level *lv = &in->levels[--in->depth];
        for (size_t i = 0; i < lv->n; i++)
            free(lv->e[i].name);
        free(lv->e);
    }
    free(in->levels);
    free(in->src);
    free(in);
}
