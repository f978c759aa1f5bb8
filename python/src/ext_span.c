/* The span object of walltime._walltime: what timed() and span() return. A context manager
 * whose __enter__ reads the clock and begins a libwalltime span, and whose __exit__ ends it
 * with the outcome set meanwhile (cached, count, bytes, detail; an exception's type as the
 * detail when none was set) and adds it to the seed's ledger. Called as a decorator, it hands
 * the function to the Python layer's wrapper, which makes a fresh span per call. Not a GC
 * object: it holds only the caller's strings. */
#include <time.h>

#include "ext.h"

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static PyObject *cached_obj(wt_cached c)
{
    PyObject *o = c == WT_CACHED_HIT ? Py_True : c == WT_CACHED_MISS ? Py_False : Py_None;
    Py_INCREF(o);
    return o;
}

wtpy_span *wtpy_span_new(PyObject *cat, PyObject *label)
{
    wtpy_span *s = PyObject_New(wtpy_span, &wtpy_span_type);
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
    s->detail0 = NULL;
    s->count0 = 1;
    s->bytes0 = 0;
    s->cached0 = WT_CACHED_UNKNOWN;
    s->entered = 0;
    s->open = 0;
    s->h = 0;
    s->gen = 0;
    s->t0 = 0;
    return s;
}

static void span_dealloc(wtpy_span *s)
{
    Py_XDECREF(s->cat);
    Py_XDECREF(s->label);
    Py_XDECREF(s->detail);
    Py_XDECREF(s->detail0);
    PyObject_Free(s);
}

/* A span object is one block at a time. Entered again while open (nested `with s:` in
 * `with s:`, or shared by two threads), the first block would never end: its time would be
 * booked as left open and as a slow span. A span open in the parent before a fork is the
 * parent's: the child may enter its copy. */
static PyObject *span_enter(wtpy_span *s, PyObject *unused)
{
    if (wtpy_on) {
        if (s->open && s->gen == wtpy_gen) {
            PyErr_SetString(PyExc_RuntimeError,
                            "this walltime span is already open (entered, not yet exited): a "
                            "span object times one block at a time; make one per block, "
                            "with walltime.span(category, label) in the with statement");
            return NULL;
        }
        if (!s->entered) {
            s->entered = 1;
            Py_XINCREF(s->detail);
            s->detail0 = s->detail;
            s->count0 = s->count;
            s->bytes0 = s->bytes;
            s->cached0 = s->cached;
        } else { /* again: from the outcome it was first entered with */
            Py_XINCREF(s->detail0);
            Py_XSETREF(s->detail, s->detail0);
            s->count = s->count0;
            s->bytes = s->bytes0;
            s->cached = s->cached0;
        }
        NAME_THREAD();
        PyObject *t1, *t2;
        const char *c = wtpy_utf8(s->cat, &t1), *l = wtpy_utf8(s->label, &t2);
        s->gen = wtpy_gen;
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

static PyObject *span_exit(wtpy_span *s, PyObject *const *args, Py_ssize_t nargs)
{
    if (!s->open)
        Py_RETURN_NONE;
    const double t1 = mono_s();
    s->open = 0;
    if (!wtpy_on || s->gen != wtpy_gen)
        Py_RETURN_NONE; /* begun in the parent before a fork: the parent's span */
    if (nargs > 0 && args[0] != Py_None && !s->detail)
        s->detail = exc_name(args[0]);
    PyObject *tmp;
    const wt_span_args a = { s->cached, s->count, s->bytes, wtpy_utf8(s->detail, &tmp) };
    wt_end_ex(s->h, &a);
    Py_XDECREF(tmp);
    if (wtpy_ledger_add(s->cat, s->label, t1 - s->t0, NULL, s->cached, s->count, s->detail))
        PyErr_Clear(); /* never fail the block being timed for the ledger's sake */
    Py_RETURN_NONE;
}

static PyObject *span_call(wtpy_span *s, PyObject *args, PyObject *kw)
{
    if (!wtpy_decorate || kw || PyTuple_GET_SIZE(args) != 1 ||
        !PyCallable_Check(PyTuple_GET_ITEM(args, 0))) {
        PyErr_SetString(PyExc_TypeError, "a span decorates one callable: @walltime.span(cat, label)");
        return NULL;
    }
    return PyObject_CallFunctionObjArgs(wtpy_decorate, (PyObject *)s, PyTuple_GET_ITEM(args, 0), NULL);
}

static PyObject *get_cached(wtpy_span *s, void *u) { return cached_obj(s->cached); }

int wtpy_set_cached(wtpy_span *s, PyObject *v, void *u)
{
    if (v == NULL || (v != Py_None && v != Py_True && v != Py_False)) {
        PyErr_SetString(PyExc_TypeError, "cached is None, True (HIT) or False (MISS)");
        return -1;
    }
    s->cached = wtpy_cached_of(v);
    return 0;
}

int wtpy_set_ll(PyObject *v, long long *out, const char *what)
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

static PyObject *get_count(wtpy_span *s, void *u) { return PyLong_FromLongLong(s->count); }
int wtpy_set_count(wtpy_span *s, PyObject *v, void *u) { return wtpy_set_ll(v, &s->count, "count"); }
static PyObject *get_bytes(wtpy_span *s, void *u) { return PyLong_FromLongLong(s->bytes); }
int wtpy_set_bytes(wtpy_span *s, PyObject *v, void *u) { return wtpy_set_ll(v, &s->bytes, "bytes"); }

static PyObject *get_detail(wtpy_span *s, void *u)
{
    PyObject *d = s->detail ? s->detail : Py_None;
    Py_INCREF(d);
    return d;
}

int wtpy_set_detail(wtpy_span *s, PyObject *v, void *u)
{
    if (v != NULL && v != Py_None && !PyUnicode_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "detail is a str or None");
        return -1;
    }
    Py_XINCREF(v == Py_None ? NULL : v);
    Py_XSETREF(s->detail, v == Py_None ? NULL : v);
    return 0;
}

static PyObject *get_cat(wtpy_span *s, void *u) { Py_INCREF(s->cat); return s->cat; }
static PyObject *get_label(wtpy_span *s, void *u) { Py_INCREF(s->label); return s->label; }

static PyGetSetDef span_getset[] = {
    { "cached", (getter)get_cached, (setter)wtpy_set_cached, "None, True (HIT) or False (MISS)", NULL },
    { "count", (getter)get_count, (setter)wtpy_set_count, "items the span covered (default 1)", NULL },
    { "bytes", (getter)get_bytes, (setter)wtpy_set_bytes, "bytes moved (default 0)", NULL },
    { "detail", (getter)get_detail, (setter)wtpy_set_detail, "free text, e.g. why a cache missed", NULL },
    { "category", (getter)get_cat, NULL, "the category", NULL },
    { "label", (getter)get_label, NULL, "the label", NULL },
    { NULL }
};

static PyMethodDef span_methods[] = {
    { "__enter__", (PyCFunction)span_enter, METH_NOARGS, NULL },
    { "__exit__", (PyCFunction)(void (*)(void))span_exit, METH_FASTCALL, NULL },
    { NULL }
};

PyTypeObject wtpy_span_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "walltime.Span",
    .tp_basicsize = sizeof(wtpy_span),
    .tp_dealloc = (destructor)span_dealloc,
    .tp_call = (ternaryfunc)span_call,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A span: a context manager (its outcome settable inside the block) and a decorator.",
    .tp_methods = span_methods,
    .tp_getset = span_getset,
};

/* The span shared by every timed()/span() call while recording is off: nothing to keep. */
static wtpy_span *g_off_span;

PyObject *wtpy_off_span(void)
{
    Py_INCREF(g_off_span);
    return (PyObject *)g_off_span;
}

int wtpy_span_init(void)
{
    if (PyType_Ready(&wtpy_span_type) < 0)
        return -1;
    g_off_span = wtpy_span_new(wtpy_empty, wtpy_empty);
    return g_off_span ? 0 : -1;
}
