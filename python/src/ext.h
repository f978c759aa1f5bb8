/* The parts of walltime._walltime shared by its files: the module's switches, the seed's
 * ledger (ext_ledger.c) and the span object (ext_span.c). Every function here runs with the
 * GIL held, which is what guards the state. Included only by the extension's own files. */
#ifndef WTPY_EXT_H
#define WTPY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "walltime/walltime.h"

/* walltime_ext.c: the module's state and helpers */
extern int wtpy_on;                      /* recording, decided at import */
extern unsigned wtpy_gen;                /* bumped in a forked child: spans begun before are not ours */
extern unsigned wtpy_name_gen;           /* bumped by a fork or an open: thread names go in again */
extern __thread unsigned wtpy_t_named;   /* == wtpy_name_gen once this thread's name is in the trace */
extern PyObject *wtpy_empty;             /* "" */
extern PyObject *wtpy_decorate;          /* the Python layer's decorator for span objects */

/* The seed's cached argument: only the True and False singletons count (`is True`). */
wt_cached wtpy_cached_of(PyObject *o);
/* UTF-8 of a str, or of str(o) kept alive in *tmp (the caller drops it); NULL for None and on
 * failure (the error is cleared: a name that cannot be encoded is recorded as none). */
const char *wtpy_utf8(PyObject *o, PyObject **tmp);
/* Puts the calling Python thread's name into the trace (once per wtpy_name_gen). */
void wtpy_name_thread(void);

#define NAME_THREAD()                                                                      \
    do {                                                                                   \
        if (__builtin_expect(wtpy_t_named != wtpy_name_gen, 0))                            \
            wtpy_name_thread();                                                            \
    } while (0)

/* ext_ledger.c: the seed's ledger */
/* Makes the empty ledger; 0, or -1 with an exception. */
int wtpy_ledger_init(void);
/* The seed's record(): adds to the category's row, tallies HIT/MISS, keeps a MISS for the
 * anomaly list. `secobj` is the caller's seconds object when there is one (kept in the MISS
 * list as the seed keeps it), else NULL. Returns 0, or -1 with an exception (an unhashable
 * category, out of memory); nothing is counted then (a new category may keep an empty row). */
int wtpy_ledger_add(PyObject *cat, PyObject *label, double seconds, PyObject *secobj,
                    wt_cached cached, long long count, PyObject *detail);
/* _ledger(): ([(category, seconds, count, hits, misses)], [(label, seconds, detail)]). */
PyObject *wtpy_ledger_rows(PyObject *m, PyObject *unused);
/* _ledger_reset(): empties the ledger (a forked child starts its own). */
PyObject *wtpy_ledger_reset(PyObject *m, PyObject *unused);

/* ext_span.c: the span object of timed() and span() */
typedef struct wtpy_span {
    PyObject_HEAD
    PyObject *cat, *label, *detail; /* detail: NULL for none */
    long long count, bytes;
    wt_cached cached;
    /* the outcome as it was when first entered: each `with` starts from it, so that what one
     * block set (cached=False, a detail) is not the next block's (span_enter) */
    PyObject *detail0;
    long long count0, bytes0;
    wt_cached cached0;
    int entered;
    unsigned gen; /* the fork generation it was entered in */
    int open;
    wt_span h;
    double t0;
} wtpy_span;

extern PyTypeObject wtpy_span_type;
/* Readies the type and the shared span of a module that records nothing; 0 or -1. */
int wtpy_span_init(void);
/* A new span of (cat, label), outcome unknown, count 1; NULL with an exception. */
wtpy_span *wtpy_span_new(PyObject *cat, PyObject *label);
/* The one span every timed()/span() returns while recording is off (a new reference). */
PyObject *wtpy_off_span(void);
/* Attribute setters, also for keyword arguments: 0, or -1 with a TypeError/OverflowError. */
int wtpy_set_cached(wtpy_span *s, PyObject *v, void *unused);
int wtpy_set_count(wtpy_span *s, PyObject *v, void *unused);
int wtpy_set_bytes(wtpy_span *s, PyObject *v, void *unused);
int wtpy_set_detail(wtpy_span *s, PyObject *v, void *unused);
/* A Python int as long long into *out: 0, or -1 with an exception. */
int wtpy_set_ll(PyObject *v, long long *out, const char *what);

#endif
