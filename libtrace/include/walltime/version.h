/* walltime version and symbol visibility.
 *
 * The library is built with -fvisibility=hidden; only declarations marked WT_API are
 * exported from the shared library. */
#ifndef WALLTIME_VERSION_H
#define WALLTIME_VERSION_H

#define WT_VERSION_MAJOR 0
#define WT_VERSION_MINOR 1
#define WT_VERSION_PATCH 0
#define WT_VERSION_NUMBER (WT_VERSION_MAJOR * 10000 + WT_VERSION_MINOR * 100 + WT_VERSION_PATCH)
#define WT__STR2(x) #x
#define WT__STR(x) WT__STR2(x)
#define WT_VERSION_STRING                                                                  \
    WT__STR(WT_VERSION_MAJOR) "." WT__STR(WT_VERSION_MINOR) "." WT__STR(WT_VERSION_PATCH)

#if defined(WT_BUILDING_LIBRARY) && defined(__GNUC__)
#define WT_API __attribute__((visibility("default")))
#else
#define WT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version at run time, as WT_VERSION_NUMBER (major*10000 + minor*100 + patch). */
WT_API unsigned wt_version(void);

/* The same as a string, such as "0.1.0". Static storage. */
WT_API const char *wt_version_string(void);

#ifdef __cplusplus
}
#endif
#endif
