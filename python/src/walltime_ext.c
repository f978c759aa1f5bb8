/* walltime._walltime: the Python face of libwalltime. The module drives the one recorder of
 * the process (libwalltime, linked as a shared library, so C and C++ code of the same process
 * that records too writes into the same trace), and keeps the seed's in-memory ledger - the
 * per-category seconds, counts, HIT/MISS tallies and the MISS list that render() prints - with
 * the seed's own arithmetic (a float sum per category, in the order categories first appear).
 *
 * Workload: `with walltime.timed(...)` around every weight load and phase of a model
 * bring-up, tens of thousands of times; it must cost far less than the pure-Python seed. So
 * the span object, its __enter__/__exit__ and the ledger update are C, and the ledger's
 * category index is a dict keyed by the caller's str objects (their hash is cached).
 *
 * Invariants: every function runs with the GIL held, which is what guards the ledger (the
 * module is single-phase, one state per process); calls that wait for I/O release it. With
 * recording off (TT_WALLTIME=0 or WALLTIME=0 at import) every call returns at its first check
 * and nothing reaches the ledger, as in the seed. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "walltime/walltime.h"

/* ---- module state ---------------------------------------------------------------------- */

typedef struct row {
    double seconds;
    long long count, hits, misses;
} row;

static int g_on;                   /* recording, decided at import */
static unsigned g_gen = 1;         /* bumped in a forked child: spans begun before are not ours */
static unsigned g_name_gen = 1;    /* bumped by a fork or an open: thread names go in again */
static __thread unsigned t_named;  /* == g_name_gen once this thread's name is in the trace */
static PyObject *g_index;          /* dict: category -> row index (int) */
static PyObject *g_cats;           /* list: categories in the order they first came */
static row *g_rows;
static Py_ssize_t g_cap;
static PyObject *g_misses;         /* list of (label, seconds, detail), as the seed keeps them */
static PyObject *g_current_thread; /* threading.current_thread */
static PyObject *g_decorate;       /* the Python layer's decorator for span objects */
static PyObject *g_empty;          /* "" */

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The seed's cached argument: only the True and False singletons count (`is True`). */
static wt_cached cached_of(PyObject *o)
{
    return o == Py_True ? WT_CACHED_HIT : o == Py_False ? WT_CACHED_MISS : WT_CACHED_UNKNOWN;
}

static PyObject *cached_obj(wt_cached c)
{
    PyObject *o = c == WT_CACHED_HIT ? Py_True : c == WT_CACHED_MISS ? Py_False : Py_None;
    Py_INCREF(o);
    return o;
}

/* UTF-8 of a str, or of str(o) kept alive in *tmp; NULL for None and on failure (then the
 * error is cleared: a name that cannot be encoded is recorded as none, never raised). */
static const char *utf8_of(PyObject *o, PyObject **tmp)
{
    *tmp = NULL;
    if (o == NULL || o == Py_None)
        return NULL;
    if (!PyUnicode_Check(o)) {
        *tmp = PyObject_Str(o);
        if (!*tmp) {
            PyErr_Clear();
            return NULL;
        }
        o = *tmp;
    }
    const char *s = PyUnicode_AsUTF8(o);
    if (!s)
        PyErr_Clear();
    return s;
}

/* Puts the calling Python thread's name into the trace once (per fork generation). */
static void name_thread(void)
{
    t_named = g_name_gen;
    if (!g_current_thread)
        return;
    PyObject *t = PyObject_CallNoArgs(g_current_thread);
    PyObject *name = t ? PyObject_GetAttrString(t, "name") : NULL;
    PyObject *tmp;
    const char *s = name ? utf8_of(name, &tmp) : NULL;
    if (s)
        wt_thread_name(s);
    if (name)
        Py_XDECREF(tmp);
    Py_XDECREF(name);
    Py_XDECREF(t);
    PyErr_Clear();
}

#define NAME_THREAD()                                                                      \
    do {                                                                                   \
        if (__builtin_expect(t_named != g_name_gen, 0))                                         \
            name_thread();                                                                 \
    } while (0)

/* The seed's record(): add to the category's row, tally HIT/MISS, keep a MISS for the
 * anomaly list. `secobj` is the caller's seconds object when there is one (kept in the MISS
 * list as the seed keeps it), else NULL. Returns 0, or -1 with an exception (out of memory). */
static int ledger_add(PyObject *cat, PyObject *label, double seconds, PyObject *secobj,
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
        if (!n || PyDict_SetItem(g_index, cat, n) || PyList_Append(g_cats, cat)) {
            Py_XDECREF(n);
            return -1;
        }
        Py_DECREF(n);
        g_rows[i] = (row){ 0.0, 0, 0, 0 };
    }
    row *r = &g_rows[i];
    r->seconds += seconds;
    r->count += count;
    if (cached == WT_CACHED_HIT) {
        r->hits++;
    } else if (cached == WT_CACHED_MISS) {
        r->misses++;
        PyObject *s = secobj ? (Py_INCREF(secobj), secobj) : PyFloat_FromDouble(seconds);
        PyObject *t = s ? PyTuple_Pack(3, label, s, detail ? detail : g_empty) : NULL;
        Py_XDECREF(s);
        if (!t || PyList_Append(g_misses, t)) {
            Py_XDECREF(t);
            return -1;
        }
        Py_DECREF(t);
    }
    return 0;
}

/* ---- the span object ------------------------------------------------------------------- */

typedef struct span_obj {
    PyObject_HEAD
    PyObject *cat, *label, *detail; /* detail: NULL for none */
    long long count, bytes;
    wt_cached cached;
    unsigned gen;   /* the fork generation it was entered in */
    int open;
    wt_span h;
    double t0;
} span_obj;

static PyTypeObject span_type;

static span_obj *span_new(PyObject *cat, PyObject *label)
{
    span_obj *s = PyObject_New(span_obj, &span_type);
    if (!s)
        return NULL;
    Py_INCREF(cat);
    Py_INCREF(label);
    s->cat = cat;
    s->label = label;
    s->detail = NULL;
    s->count = 1;
    s->bytes = 0;
    s->cached = WT_CACHED_UNKNOWN;
    s->open = 0;
    s->h = 0;
    s->gen = 0;
    s->t0 = 0;
    return s;
}

static void span_dealloc(span_obj *s)
{
    Py_XDECREF(s->cat);
    Py_XDECREF(s->label);
    Py_XDECREF(s->detail);
    PyObject_Free(s);
}

static PyObject *span_enter(span_obj *s, PyObject *unused)
{
    if (g_on) {
        NAME_THREAD();
        PyObject *t1, *t2;
        const char *c = utf8_of(s->cat, &t1), *l = utf8_of(s->label, &t2);
        s->gen = g_gen;
        s->open = 1;
        s->t0 = mono_s();
        s->h = wt_begin(c, l);
        Py_XDECREF(t1);
        Py_XDECREF(t2);
    }
    Py_INCREF(s);
    return (PyObject *)s;
}

/* The exception type's name, the detail of a span the exception left; NULL on failure. */
static PyObject *exc_name(PyObject *type)
{
    PyObject *n = PyObject_GetAttrString(type, "__name__");
    if (!n || !PyUnicode_Check(n)) {
        Py_XDECREF(n);
        PyErr_Clear();
        return NULL;
    }
    return n;
}

static PyObject *span_exit(span_obj *s, PyObject *const *args, Py_ssize_t nargs)
{
    if (!s->open)
        Py_RETURN_NONE;
    const double t1 = mono_s();
    s->open = 0;
    if (!g_on || s->gen != g_gen)
        Py_RETURN_NONE; /* begun in the parent before a fork: the parent's span */
    if (nargs > 0 && args[0] != Py_None && !s->detail)
        s->detail = exc_name(args[0]);
    PyObject *tmp;
    const wt_span_args a = { s->cached, s->count, s->bytes, utf8_of(s->detail, &tmp) };
    wt_end_ex(s->h, &a);
    Py_XDECREF(tmp);
    if (ledger_add(s->cat, s->label, t1 - s->t0, NULL, s->cached, s->count, s->detail))
        PyErr_Clear(); /* never fail the block being timed for the ledger's sake */
    Py_RETURN_NONE;
}

static PyObject *span_call(span_obj *s, PyObject *args, PyObject *kw)
{
    if (!g_decorate || kw || PyTuple_GET_SIZE(args) != 1 ||
        !PyCallable_Check(PyTuple_GET_ITEM(args, 0))) {
        PyErr_SetString(PyExc_TypeError, "a span decorates one callable: @walltime.span(cat, label)");
        return NULL;
    }
    return PyObject_CallFunctionObjArgs(g_decorate, (PyObject *)s, PyTuple_GET_ITEM(args, 0), NULL);
}

static PyObject *get_cached(span_obj *s, void *u) { return cached_obj(s->cached); }

static int set_cached(span_obj *s, PyObject *v, void *u)
{
    if (v == NULL || (v != Py_None && v != Py_True && v != Py_False)) {
        PyErr_SetString(PyExc_TypeError, "cached is None, True (HIT) or False (MISS)");
        return -1;
    }
    s->cached = cached_of(v);
    return 0;
}

static int set_ll(PyObject *v, long long *out, const char *what)
{
    if (v == NULL) {
        PyErr_Format(PyExc_TypeError, "%s cannot be deleted", what);
        return -1;
    }
    const long long n = PyLong_AsLongLong(v);
    if (n == -1 && PyErr_Occurred())
        return -1;
    *out = n;
    return 0;
}

static PyObject *get_count(span_obj *s, void *u) { return PyLong_FromLongLong(s->count); }
static int set_count(span_obj *s, PyObject *v, void *u) { return set_ll(v, &s->count, "count"); }
static PyObject *get_bytes(span_obj *s, void *u) { return PyLong_FromLongLong(s->bytes); }
static int set_bytes(span_obj *s, PyObject *v, void *u) { return set_ll(v, &s->bytes, "bytes"); }

static PyObject *get_detail(span_obj *s, void *u)
{
    PyObject *d = s->detail ? s->detail : Py_None;
    Py_INCREF(d);
    return d;
}

static int set_detail(span_obj *s, PyObject *v, void *u)
{
    if (v != NULL && v != Py_None && !PyUnicode_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "detail is a str or None");
        return -1;
    }
    Py_XINCREF(v == Py_None ? NULL : v);
    Py_XSETREF(s->detail, v == Py_None ? NULL : v);
    return 0;
}

static PyObject *get_cat(span_obj *s, void *u) { Py_INCREF(s->cat); return s->cat; }
static PyObject *get_label(span_obj *s, void *u) { Py_INCREF(s->label); return s->label; }

static PyGetSetDef span_getset[] = {
    { "cached", (getter)get_cached, (setter)set_cached, "None, True (HIT) or False (MISS)", NULL },
    { "count", (getter)get_count, (setter)set_count, "items the span covered (default 1)", NULL },
    { "bytes", (getter)get_bytes, (setter)set_bytes, "bytes moved (default 0)", NULL },
    { "detail", (getter)get_detail, (setter)set_detail, "free text, e.g. why a cache missed", NULL },
    { "category", (getter)get_cat, NULL, "the category", NULL },
    { "label", (getter)get_label, NULL, "the label", NULL },
    { NULL }
};

static PyMethodDef span_methods[] = {
    { "__enter__", (PyCFunction)span_enter, METH_NOARGS, NULL },
    { "__exit__", (PyCFunction)(void (*)(void))span_exit, METH_FASTCALL, NULL },
    { NULL }
};

static PyTypeObject span_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "walltime.Span",
    .tp_basicsize = sizeof(span_obj),
    .tp_dealloc = (destructor)span_dealloc,
    .tp_call = (ternaryfunc)span_call,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A span: a context manager (its outcome settable inside the block) and a decorator.",
    .tp_methods = span_methods,
    .tp_getset = span_getset,
};

/* ---- argument parsing for the fast-call functions -------------------------------------- */

/* Finds keyword `name` among kwnames; the value or NULL. Raises for a keyword not in `allowed`
 * (a NULL-terminated list) and returns (PyObject *)-1 then. */
static int kw_parse(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    const char *const *allowed, PyObject **out, const char *fn)
{
    if (!kwnames)
        return 0;
    const Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nk; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int found = 0;
        for (int i = 0; allowed[i]; i++)
            if (PyUnicode_CompareWithASCIIString(key, allowed[i]) == 0) {
                out[i] = args[nargs + k];
                found = 1;
                break;
            }
        if (!found) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fn, key);
            return -1;
        }
    }
    return 0;
}

static int want_args(Py_ssize_t nargs, Py_ssize_t n, const char *fn)
{
    if (nargs == n)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes %zd positional arguments (%zd given)", fn, n, nargs);
    return -1;
}

/* The span shared by every timed()/span() call while recording is off: nothing to keep. */
static span_obj *g_off_span;

static PyObject *off_span(void)
{
    Py_INCREF(g_off_span);
    return (PyObject *)g_off_span;
}

/* ---- module functions -------------------------------------------------------------------- */

static PyObject *m_timed(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (!g_on)
        return off_span();
    static const char *const kws[] = { "cached", NULL };
    PyObject *kv[1] = { NULL };
    if (want_args(nargs, 2, "timed") || kw_parse(args, nargs, kwnames, kws, kv, "timed"))
        return NULL;
    span_obj *s = span_new(args[0], args[1]);
    if (s && kv[0])
        s->cached = cached_of(kv[0]);
    return (PyObject *)s;
}

static PyObject *m_span(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const kws[] = { "cached", "count", "bytes", "detail", NULL };
    PyObject *kv[4] = { NULL, NULL, NULL, NULL };
    if (want_args(nargs, 2, "span") || kw_parse(args, nargs, kwnames, kws, kv, "span"))
        return NULL;
    span_obj *s = span_new(args[0], args[1]);
    if (!s)
        return NULL;
    if ((kv[0] && set_cached(s, kv[0], NULL)) || (kv[1] && set_count(s, kv[1], NULL)) ||
        (kv[2] && set_bytes(s, kv[2], NULL)) || (kv[3] && set_detail(s, kv[3], NULL))) {
        Py_DECREF(s);
        return NULL;
    }
    return (PyObject *)s;
}

static PyObject *m_record(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const kws[] = { "cached", "count", "detail", "bytes", NULL };
    PyObject *kv[4] = { NULL, NULL, NULL, NULL };
    if (want_args(nargs, 3, "record") || kw_parse(args, nargs, kwnames, kws, kv, "record"))
        return NULL;
    if (!g_on)
        Py_RETURN_NONE;
    const double seconds = PyFloat_AsDouble(args[2]);
    if (seconds == -1.0 && PyErr_Occurred())
        return NULL;
    long long count = 1, bytes = 0;
    if ((kv[1] && set_ll(kv[1], &count, "count")) || (kv[3] && set_ll(kv[3], &bytes, "bytes")))
        return NULL;
    const wt_cached cached = kv[0] ? cached_of(kv[0]) : WT_CACHED_UNKNOWN;
    PyObject *detail = kv[2] && kv[2] != Py_None ? kv[2] : g_empty;
    NAME_THREAD();
    PyObject *t1, *t2, *t3;
    const char *c = utf8_of(args[0], &t1), *l = utf8_of(args[1], &t2);
    const char *d = PyObject_IsTrue(detail) == 1 ? utf8_of(detail, &t3) : (t3 = NULL, NULL);
    PyErr_Clear();
    const wt_span_args a = { cached, count, bytes, d };
    wt_record_ex(c, l, seconds, &a);
    Py_XDECREF(t1);
    Py_XDECREF(t2);
    Py_XDECREF(t3);
    if (ledger_add(args[0], args[1], seconds, args[2], cached, count, detail))
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_counter(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (want_args(nargs, 2, "counter"))
        return NULL;
    const long long v = PyLong_AsLongLong(args[1]);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    if (g_on) {
        NAME_THREAD();
        PyObject *t;
        const char *n = utf8_of(args[0], &t);
        wt_counter(n, v);
        Py_XDECREF(t);
    }
    Py_RETURN_NONE;
}

static PyObject *m_mark(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2 || nargs > 3)
        return want_args(nargs, 2, "mark"), NULL;
    if (g_on) {
        NAME_THREAD();
        PyObject *t1, *t2, *t3;
        const char *c = utf8_of(args[0], &t1), *l = utf8_of(args[1], &t2);
        const char *d = nargs > 2 ? utf8_of(args[2], &t3) : (t3 = NULL, NULL);
        wt_mark(c, l, d);
        Py_XDECREF(t1);
        Py_XDECREF(t2);
        Py_XDECREF(t3);
    }
    Py_RETURN_NONE;
}

static PyObject *m_meta(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (want_args(nargs, 2, "meta"))
        return NULL;
    if (g_on) {
        PyObject *t1, *t2;
        const char *k = utf8_of(args[0], &t1), *v = utf8_of(args[1], &t2);
        wt_meta(k, v);
        Py_XDECREF(t1);
        Py_XDECREF(t2);
    }
    Py_RETURN_NONE;
}

static PyObject *m_thread_name(PyObject *m, PyObject *name)
{
    if (g_on) {
        t_named = g_name_gen; /* the caller's name wins over the Python thread's */
        PyObject *t;
        const char *n = utf8_of(name, &t);
        wt_thread_name(n);
        Py_XDECREF(t);
    }
    Py_RETURN_NONE;
}

static PyObject *m_round_begin(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (want_args(nargs, 2, "round_begin"))
        return NULL;
    const long long r = PyLong_AsLongLong(args[1]);
    if (r == -1 && PyErr_Occurred())
        return NULL;
    if (g_on) {
        NAME_THREAD();
        PyObject *t;
        const char *c = utf8_of(args[0], &t);
        wt_round_begin(c, r);
        Py_XDECREF(t);
    }
    Py_RETURN_NONE;
}

static PyObject *m_round_end(PyObject *m, PyObject *unused)
{
    if (g_on)
        wt_round_end();
    Py_RETURN_NONE;
}

static PyObject *m_pagecache_probe(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2)
        return want_args(nargs, 1, "pagecache_probe"), NULL;
    PyObject *path = NULL;
    if (!PyUnicode_FSConverter(args[0], &path))
        return NULL;
    PyObject *t = NULL;
    const char *name = nargs > 1 ? utf8_of(args[1], &t) : NULL;
    int64_t r = WT_EDISABLED;
    if (g_on) {
        Py_BEGIN_ALLOW_THREADS
        r = wt_pagecache_probe(PyBytes_AS_STRING(path), name);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(path);
    Py_XDECREF(t);
    if (r < 0)
        Py_RETURN_NONE;
    return PyLong_FromLongLong(r);
}

/* 0 or a negative WT_E* code, as an int: the C API's answer. */
static PyObject *m_flush(PyObject *m, PyObject *unused)
{
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = wt_flush();
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(rc);
}

static PyObject *m_close(PyObject *m, PyObject *unused)
{
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = wt_close();
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(rc);
}

static PyObject *m_open(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs > 1)
        return want_args(nargs, 1, "open"), NULL;
    PyObject *path = NULL;
    if (nargs == 1 && args[0] != Py_None && !PyUnicode_FSConverter(args[0], &path))
        return NULL;
    int rc = WT_EDISABLED;
    if (g_on) {
        rc = wt_open(path ? PyBytes_AS_STRING(path) : NULL);
        g_name_gen++; /* a new file: names go into it again */
    }
    Py_XDECREF(path);
    return PyLong_FromLong(rc);
}

static PyObject *m_trace_path(PyObject *m, PyObject *unused)
{
    const char *p = wt_trace_path();
    if (!p)
        Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(p);
}

static PyObject *m_enabled(PyObject *m, PyObject *unused) { return PyBool_FromLong(g_on); }

static PyObject *m_strerror(PyObject *m, PyObject *code)
{
    const long c = PyLong_AsLong(code);
    if (c == -1 && PyErr_Occurred())
        return NULL;
    return PyUnicode_FromString(wt_strerror((int)c));
}

/* The ledger as plain data: ([(category, seconds, count, hits, misses)], [(label, seconds,
 * detail)]), copies the caller may keep. */
static PyObject *m_ledger(PyObject *m, PyObject *unused)
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

/* Empties the ledger (a forked child starts its own). */
static PyObject *m_ledger_reset(PyObject *m, PyObject *unused)
{
    PyDict_Clear(g_index);
    if (PyList_SetSlice(g_cats, 0, PyList_GET_SIZE(g_cats), NULL) ||
        PyList_SetSlice(g_misses, 0, PyList_GET_SIZE(g_misses), NULL))
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_set_decorator(PyObject *m, PyObject *fn)
{
    Py_INCREF(fn);
    Py_XSETREF(g_decorate, fn);
    Py_RETURN_NONE;
}

#define FAST(f) (PyCFunction)(void (*)(void))(f)

static PyMethodDef methods[] = {
    { "timed", FAST(m_timed), METH_FASTCALL | METH_KEYWORDS,
      "timed(category, label, *, cached=None): the seed's timed(), a span for a `with` block" },
    { "span", FAST(m_span), METH_FASTCALL | METH_KEYWORDS,
      "span(category, label, *, cached=None, count=1, bytes=0, detail=None)" },
    { "record", FAST(m_record), METH_FASTCALL | METH_KEYWORDS,
      "record(category, label, seconds, *, cached=None, count=1, detail='', bytes=0)" },
    { "counter", FAST(m_counter), METH_FASTCALL, "counter(name, value)" },
    { "mark", FAST(m_mark), METH_FASTCALL, "mark(category, label, detail=None)" },
    { "meta", FAST(m_meta), METH_FASTCALL, "meta(key, value)" },
    { "thread_name", (PyCFunction)m_thread_name, METH_O, "thread_name(name)" },
    { "round_begin", FAST(m_round_begin), METH_FASTCALL, "round_begin(config, round)" },
    { "round_end", (PyCFunction)m_round_end, METH_NOARGS, "round_end()" },
    { "pagecache_probe", FAST(m_pagecache_probe), METH_FASTCALL,
      "pagecache_probe(path, name=None): resident bytes, or None" },
    { "flush", (PyCFunction)m_flush, METH_NOARGS, "flush(): 0 or a negative code" },
    { "close", (PyCFunction)m_close, METH_NOARGS, "close(): 0 or a negative code" },
    { "open", FAST(m_open), METH_FASTCALL, "open(path=None): 0 or a negative code" },
    { "trace_path", (PyCFunction)m_trace_path, METH_NOARGS, "the trace file's path, or None" },
    { "enabled", (PyCFunction)m_enabled, METH_NOARGS, "whether this process records" },
    { "strerror", (PyCFunction)m_strerror, METH_O, "the message of a negative code" },
    { "_ledger", (PyCFunction)m_ledger, METH_NOARGS, NULL },
    { "_ledger_reset", (PyCFunction)m_ledger_reset, METH_NOARGS, NULL },
    { "_set_decorator", (PyCFunction)m_set_decorator, METH_O, NULL },
    { NULL }
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "walltime._walltime",
    .m_doc = "libwalltime for Python: the recorder of this process and the seed's ledger.",
    .m_size = -1,
    .m_methods = methods,
};

static void after_fork_child(void)
{
    g_gen++;
    g_name_gen++;
}

/* The seed's switch, and the library's: "0" turns recording off. */
static int env_off(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "0") == 0;
}

PyMODINIT_FUNC PyInit__walltime(void)
{
    PyObject *m = NULL, *threading = NULL;
    if (PyType_Ready(&span_type) < 0)
        return NULL;
    g_on = !env_off("TT_WALLTIME") && !env_off("WALLTIME");
    g_index = PyDict_New();
    g_cats = PyList_New(0);
    g_misses = PyList_New(0);
    g_empty = PyUnicode_FromString("");
    g_off_span = span_new(g_empty, g_empty);
    if (!g_index || !g_cats || !g_misses || !g_empty || !g_off_span)
        goto fail;
    threading = PyImport_ImportModule("threading");
    if (!threading)
        goto fail;
    g_current_thread = PyObject_GetAttrString(threading, "current_thread");
    Py_DECREF(threading);
    if (!g_current_thread)
        goto fail;
    m = PyModule_Create(&module);
    if (!m)
        goto fail;
    Py_INCREF(&span_type);
    if (PyModule_AddObject(m, "Span", (PyObject *)&span_type) ||
        PyModule_AddStringConstant(m, "LIBRARY_VERSION", wt_version_string())) {
        Py_DECREF(m);
        goto fail;
    }
    pthread_atfork(NULL, NULL, after_fork_child);
    return m;
fail:
    Py_CLEAR(g_index);
    Py_CLEAR(g_cats);
    Py_CLEAR(g_misses);
    Py_CLEAR(g_empty);
    Py_CLEAR(g_off_span);
    Py_CLEAR(g_current_thread);
    return NULL;
}
