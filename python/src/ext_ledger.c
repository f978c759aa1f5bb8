/* The seed's ledger, kept in C by walltime._walltime: per category (in the order categories
 * first appear) a float sum of seconds, the sum of counts, HIT and MISS tallies, and every
 * MISS as (label, seconds, detail) - the seed's own arithmetic, so render() prints its text.
 * The category index is a dict keyed by the caller's objects (a str caches its hash), so a
 * record costs one dict lookup. Guarded by the GIL. */
#include "ext.h"

typedef struct row {
    double seconds;
    long long count, hits, misses;
} row;

static PyObject *g_index;  /* dict: category -> row index (int) */
static PyObject *g_cats;   /* list: categories in the order they first came */
static row *g_rows;
static Py_ssize_t g_cap;
static PyObject *g_misses; /* list of (label, seconds, detail), as the seed keeps them */

int wtpy_ledger_init(void)
{
    g_index = PyDict_New();
    g_cats = PyList_New(0);
    g_misses = PyList_New(0);
    if (g_index && g_cats && g_misses)
        return 0;
    Py_CLEAR(g_index);
    Py_CLEAR(g_cats);
    Py_CLEAR(g_misses);
    return -1;
}

int wtpy_ledger_add(PyObject *cat, PyObject *label, double seconds, PyObject *secobj,
                    wt_cached cached, long long count, PyObject *detail)
{
    PyObject *ix = PyDict_GetItemWithError(g_index, cat);
    Py_ssize_t i;
    if (ix) {
        i = PyLong_AsSsize_t(ix);
    } else {
        if (PyErr_Occurred())
            return -1; /* an unhashable category, as the seed's dict would say */
        i = PyList_GET_SIZE(g_cats);
        if (i == g_cap) {
            const Py_ssize_t cap = g_cap ? 2 * g_cap : 16;
            row *r = PyMem_Realloc(g_rows, (size_t)cap * sizeof *r);
            if (!r) {
                PyErr_NoMemory();
                return -1;
            }
            g_rows = r;
            g_cap = cap;
        }
        PyObject *n = PyLong_FromSsize_t(i);
        if (!n || PyDict_SetItem(g_index, cat, n)) {
            Py_XDECREF(n);
            return -1;
        }
        if (PyList_Append(g_cats, cat)) {
            PyDict_DelItem(g_index, cat);
            Py_DECREF(n);
            return -1;
        }
        Py_DECREF(n);
        g_rows[i] = (row){ 0.0, 0, 0, 0 };
    }
    if (cached == WT_CACHED_MISS) {
        PyObject *sec = secobj ? (Py_INCREF(secobj), secobj) : PyFloat_FromDouble(seconds);
        PyObject *t = sec ? PyTuple_Pack(3, label, sec, detail ? detail : wtpy_empty) : NULL;
        Py_XDECREF(sec);
        if (!t || PyList_Append(g_misses, t)) {
            Py_XDECREF(t);
            return -1;
        }
        Py_DECREF(t);
    }
    row *r = &g_rows[i];
    r->seconds += seconds;
    r->count += count;
    r->hits += cached == WT_CACHED_HIT;
    r->misses += cached == WT_CACHED_MISS;
    return 0;
}

/* Copies, which the caller may keep. */
PyObject *wtpy_ledger_rows(PyObject *m, PyObject *unused)
{
    const Py_ssize_t n = PyList_GET_SIZE(g_cats);
    PyObject *rows = PyList_New(n), *misses = NULL, *out = NULL;
    if (!rows)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        const row *r = &g_rows[i];
        PyObject *t = Py_BuildValue("(OdLLL)", PyList_GET_ITEM(g_cats, i), r->seconds, r->count,
                                    r->hits, r->misses);
        if (!t)
            goto out;
        PyList_SET_ITEM(rows, i, t);
    }
    misses = PyList_GetSlice(g_misses, 0, PyList_GET_SIZE(g_misses));
    if (misses)
        out = PyTuple_Pack(2, rows, misses);
out:
    Py_XDECREF(rows);
    Py_XDECREF(misses);
    return out;
}

PyObject *wtpy_ledger_reset(PyObject *m, PyObject *unused)
{
    PyDict_Clear(g_index);
    if (PyList_SetSlice(g_cats, 0, PyList_GET_SIZE(g_cats), NULL) ||
        PyList_SetSlice(g_misses, 0, PyList_GET_SIZE(g_misses), NULL))
        return NULL;
    Py_RETURN_NONE;
}
