/* Error names and messages, from the one X-macro in walltime/error.h. */
#include "walltime/error.h"

const char *wt_strerror(int code)
{
    switch (code) {
#define WT__ERR_MSG(name, value, msg)                                                      \
    case value:                                                                            \
        return msg;
        WT_ERRNO_MAP(WT__ERR_MSG)
#undef WT__ERR_MSG
    default:
        return "unknown error";
    }
}

const char *wt_errname(int code)
{
    switch (code) {
#define WT__ERR_NAME(name, value, msg)                                                     \
    case value:                                                                            \
        return "WT_" #name;
        WT_ERRNO_MAP(WT__ERR_NAME)
#undef WT__ERR_NAME
    default:
        return "WT_E?";
    }
}

unsigned wt_version(void) { return WT_VERSION_NUMBER; }

const char *wt_version_string(void) { return WT_VERSION_STRING; }
