/* walltime._walltime: the Python face of libwalltime. The module drives the one recorder of
 * the process (libwalltime, linked as a shared library, so C and C++ code of the same process
 * that records too writes into the same trace), and keeps the seed's in-memory ledger - the
 * per-category seconds, counts, HIT/MISS tallies and the MISS list that render() prints - with
 * the seed's own arithmetic (a float sum per category, in the order categories first appear).
 *
 * This file holds the module's functions, its switches and its init; the span object is in
 * ext_span.c, the ledger in ext_ledger.c.
 *
 * Workload: `with walltime.timed(...)` around every weight load and phase of a model
 * bring-up, tens of thousands of times; it must cost far less than the pure-Python seed. So
 * the span object, its __enter__/__exit__ and the ledger update are C, and the functions
 * take fast-call arguments.
 *
 * Invariants: every function runs with the GIL held, which is what guards the ledger (the
 * module is single-phase, one state per process); calls that wait for I/O release it. With
 * recording off (TT_WALLTIME or WALLTIME off at import, by the library's reading of them) every
 * call returns at its first check and nothing reaches the ledger, as in the seed. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "ext.h"

int wtpy_on;
static int wtpy_summary; /* wt_exit_print, read at import */
unsigned wtpy_gen = 1;
unsigned wtpy_name_gen = 1;
__thread unsigned wtpy_t_named;
PyObject *wtpy_empty;
PyObject *wtpy_decorate;
static PyObject *g_current_thread; /* threading.current_thread */

wt_cached wtpy_cached_of(PyObject *o)
{
    return o == Py_True ? WT_CACHED_HIT : o == Py_False ? WT_CACHED_MISS : WT_CACHED_UNKNOWN;
}

const char *wtpy_utf8(PyObject *o, PyObject **tmp)
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

void wtpy_name_thread(void)
{
    wtpy_t_named = wtpy_name_gen;
    if (!g_current_thread)
        return;
    PyObject *t = PyObject_CallNoArgs(g_current_thread);
    PyObject *name = t ? PyObject_GetAttrString(t, "name") : NULL;
    PyObject *tmp;
    const char *s = name ? wtpy_utf8(name, &tmp) : NULL;
    if (s)
        wt_thread_name(s);
    if (name)
        Py_XDECREF(tmp);
    Py_XDECREF(name);
    Py_XDECREF(t);
    PyErr_Clear();
}

/* ---- argument parsing for the fast-call functions -------------------------------------- */

/* Sorts the keyword arguments of a fast call into out[] by their place in `allowed` (a
 * NULL-terminated list; out[i] stays as it was when not given). Returns 0, or -1 with a
 * TypeError for a keyword not in `allowed`. */
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

/* ---- module functions -------------------------------------------------------------------- */

static PyObject *m_timed(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (!wtpy_on)
        return wtpy_off_span();
    static const char *const kws[] = { "cached", NULL };
    PyObject *kv[1] = { NULL };
    if (want_args(nargs, 2, "timed") || kw_parse(args, nargs, kwnames, kws, kv, "timed"))
        return NULL;
    wtpy_span *s = wtpy_span_new(args[0], args[1]);
    if (s && kv[0])
        s->cached = wtpy_cached_of(kv[0]);
    return (PyObject *)s;
}

static PyObject *m_span(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const kws[] = { "cached", "count", "bytes", "detail", NULL };
    PyObject *kv[4] = { NULL, NULL, NULL, NULL };
    if (want_args(nargs, 2, "span") || kw_parse(args, nargs, kwnames, kws, kv, "span"))
        return NULL;
    wtpy_span *s = wtpy_span_new(args[0], args[1]);
    if (!s)
        return NULL;
    if ((kv[0] && wtpy_set_cached(s, kv[0], NULL)) || (kv[1] && wtpy_set_count(s, kv[1], NULL)) ||
        (kv[2] && wtpy_set_bytes(s, kv[2], NULL)) || (kv[3] && wtpy_set_detail(s, kv[3], NULL))) {
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
    if (!wtpy_on)
        Py_RETURN_NONE;
    const double seconds = PyFloat_AsDouble(args[2]);
    if (seconds == -1.0 && PyErr_Occurred())
        return NULL;
    long long count = 1, bytes = 0;
    if ((kv[1] && wtpy_set_ll(kv[1], &count, "count")) || (kv[3] && wtpy_set_ll(kv[3], &bytes, "bytes")))
        return NULL;
    const wt_cached cached = kv[0] ? wtpy_cached_of(kv[0]) : WT_CACHED_UNKNOWN;
    PyObject *detail = kv[2] && kv[2] != Py_None ? kv[2] : wtpy_empty;
    NAME_THREAD();
    PyObject *t1, *t2, *t3;
    const char *c = wtpy_utf8(args[0], &t1), *l = wtpy_utf8(args[1], &t2);
    const char *d = PyObject_IsTrue(detail) == 1 ? wtpy_utf8(detail, &t3) : (t3 = NULL, NULL);
    PyErr_Clear();
    const wt_span_args a = { cached, count, bytes, d };
    wt_record_ex(c, l, seconds, &a);
    Py_XDECREF(t1);
    Py_XDECREF(t2);
    Py_XDECREF(t3);
    if (wtpy_ledger_add(args[0], args[1], seconds, args[2], cached, count, detail))
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
    if (wtpy_on) {
        NAME_THREAD();
        PyObject *t;
        const char *n = wtpy_utf8(args[0], &t);
        wt_counter(n, v);
        Py_XDECREF(t);
    }
    Py_RETURN_NONE;
}

static PyObject *m_mark(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2 || nargs > 3)
        return want_args(nargs, 2, "mark"), NULL;
    if (wtpy_on) {
        NAME_THREAD();
        PyObject *t1, *t2, *t3;
        const char *c = wtpy_utf8(args[0], &t1), *l = wtpy_utf8(args[1], &t2);
        const char *d = nargs > 2 ? wtpy_utf8(args[2], &t3) : (t3 = NULL, NULL);
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
    if (wtpy_on) {
        PyObject *t1, *t2;
        const char *k = wtpy_utf8(args[0], &t1), *v = wtpy_utf8(args[1], &t2);
        wt_meta(k, v);
        Py_XDECREF(t1);
        Py_XDECREF(t2);
    }
    Py_RETURN_NONE;
}

static PyObject *m_thread_name(PyObject *m, PyObject *name)
{
    if (wtpy_on) {
        wtpy_t_named = wtpy_name_gen; /* the caller's name wins over the Python thread's */
        PyObject *t;
        const char *n = wtpy_utf8(name, &t);
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
    if (wtpy_on) {
        NAME_THREAD();
        PyObject *t;
        const char *c = wtpy_utf8(args[0], &t);
        wt_round_begin(c, r);
        Py_XDECREF(t);
    }
    Py_RETURN_NONE;
}

static PyObject *m_round_end(PyObject *m, PyObject *unused)
{
    if (wtpy_on)
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
    const char *name = nargs > 1 ? wtpy_utf8(args[1], &t) : NULL;
    int64_t r = WT_EDISABLED;
    if (wtpy_on) {
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

static PyObject *m_close_signalled(PyObject *m, PyObject *arg)
{
    const long signo = PyLong_AsLong(arg);
    if (signo == -1 && PyErr_Occurred())
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = wt_close_signalled((int)signo);
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
    if (wtpy_on) {
        rc = wt_open(path ? PyBytes_AS_STRING(path) : NULL);
        wtpy_name_gen++; /* a new file: names go into it again */
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

static PyObject *m_enabled(PyObject *m, PyObject *unused) { return PyBool_FromLong(wtpy_on); }

/* The exit print the library's reading of WALLTIME_SUMMARY chose: 0 none, 1 the library's
 * reconciled ledger, 2 the seed's table (printed by the module, see _atexit). */
static PyObject *m_summary(PyObject *m, PyObject *unused) { return PyLong_FromLong(wtpy_summary); }

/* The module prints the exit table itself: the library then prints nothing at close. */
static PyObject *m_summary_handover(PyObject *m, PyObject *unused)
{
    wt_summary_handover();
    Py_RETURN_NONE;
}

static PyObject *m_strerror(PyObject *m, PyObject *code)
{
    const long c = PyLong_AsLong(code);
    if (c == -1 && PyErr_Occurred())
        return NULL;
    return PyUnicode_FromString(wt_strerror((int)c));
}

static PyObject *m_set_decorator(PyObject *m, PyObject *fn)
{
    Py_INCREF(fn);
    Py_XSETREF(wtpy_decorate, fn);
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
    { "_close_signalled", (PyCFunction)m_close_signalled, METH_O,
      "_close_signalled(signo): close(), the end record saying the process ends by signo" },
    { "open", FAST(m_open), METH_FASTCALL, "open(path=None): 0 or a negative code" },
    { "trace_path", (PyCFunction)m_trace_path, METH_NOARGS, "the trace file's path, or None" },
    { "enabled", (PyCFunction)m_enabled, METH_NOARGS, "whether this process records" },
    { "strerror", (PyCFunction)m_strerror, METH_O, "the message of a negative code" },
    { "_summary", (PyCFunction)m_summary, METH_NOARGS, NULL },
    { "_summary_handover", (PyCFunction)m_summary_handover, METH_NOARGS, NULL },
    { "_ledger", (PyCFunction)wtpy_ledger_rows, METH_NOARGS, NULL },
    { "_ledger_reset", (PyCFunction)wtpy_ledger_reset, METH_NOARGS, NULL },
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
    wtpy_gen++;
    wtpy_name_gen++;
}

PyMODINIT_FUNC PyInit__walltime(void)
{
    PyObject *m = NULL, *threading = NULL;
    /* the switches are the library's: it reads TT_WALLTIME/WALLTIME by its own rule (the
       seed's "0" among its words), once; the hot calls then check wtpy_on only */
    wtpy_on = wt_env_recording();
    wtpy_summary = (int)wt_env_summary();
    wtpy_empty = PyUnicode_FromString("");
    if (!wtpy_empty || wtpy_ledger_init() || wtpy_span_init())
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
    Py_INCREF(&wtpy_span_type);
    if (PyModule_AddObject(m, "Span", (PyObject *)&wtpy_span_type) ||
        PyModule_AddStringConstant(m, "LIBRARY_VERSION", wt_version_string())) {
        Py_DECREF(m);
        goto fail;
    }
    pthread_atfork(NULL, NULL, after_fork_child);
    return m;
fail:
    /* an import that fails leaves what it made: a second import attempt is rare, and
       the objects are small */
    Py_CLEAR(g_current_thread);
    return NULL;
}
