/* walltime error codes.
 *
 * Every function of libwalltime that can fail returns int: 0 (or a positive count where its
 * comment says so) on success, a negative WT_E* code on failure. The codes come from one
 * X-macro so that the enum and wt_strerror() can never disagree. */
#ifndef WALLTIME_ERROR_H
#define WALLTIME_ERROR_H

#include "walltime/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, message) */
#define WT_ERRNO_MAP(X)                                                                    \
    X(EINVAL, -1, "invalid argument")                                                       \
    X(ENOMEM, -2, "out of memory")                                                          \
    X(EIO, -3, "input/output error")                                                        \
    X(EOPEN, -4, "cannot open file")                                                        \
    X(EEXIST, -5, "file already exists")                                                    \
    X(ENOTTRACE, -6, "not a walltime trace")                                                \
    X(EVERSION, -7, "trace written by a newer format version")                              \
    X(ETRUNC, -8, "trace is truncated")                                                     \
    X(ECORRUPT, -9, "trace is corrupted")                                                   \
    X(ELIMIT, -10, "a size limit of the reader was exceeded")                              \
    X(ENOSPC, -11, "buffer too small")                                                      \
    X(EDISABLED, -12, "recording is disabled")                                              \
    X(ESTATE, -13, "call not valid in the current state")

typedef enum wt_errno {
#define WT__ERR_ENUM(name, value, msg) WT_##name = (value),
    WT_ERRNO_MAP(WT__ERR_ENUM)
#undef WT__ERR_ENUM
} wt_errno;

/* A static, lowercase message for a WT_E* code ("unknown error" for anything else).
 * Never returns NULL. */
WT_API const char *wt_strerror(int code);

/* The symbolic name of a WT_E* code, such as "WT_ETRUNC"; "WT_E?" for anything else. */
WT_API const char *wt_errname(int code);

#ifdef __cplusplus
}
#endif
#endif
