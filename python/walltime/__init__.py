"""walltime for Python: the seed's process-global wall-time ledger, recorded by libwalltime.

Migration from the seed is one line::

    from models.tt_dit.utils import walltime   # before
    import walltime                             # after

``record``, ``timed``, ``render`` and ``TT_WALLTIME=0`` behave as the seed's do (same names,
arguments, defaults, arithmetic and text); the seed's exit print is ``WALLTIME_SUMMARY=flat``
(by default the library prints its reconciled ledger at exit instead). In addition every span
goes into the process's trace file (``walltime-analyze``, Perfetto), together with the spans
C and C++ code of the same process records through libwalltime; and the C API is here in
Python form: ``span`` (a context manager and decorator whose outcome is set inside the
block), ``counter``, ``mark``, ``meta``, ``thread_name``, ``rounds``, ``pagecache_probe``,
``flush``, ``trace_path``. docs/PYTHON.md has the details.
"""

from __future__ import annotations

import atexit
import functools
import os
import signal as _signal
import sys
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from ._load import load as _load

_ext = _load()

__all__ = [
    "record", "timed", "render", "span", "counter", "mark", "meta", "thread_name", "rounds",
    "pagecache_probe", "flush", "trace_path", "enabled", "snapshot", "HIT", "MISS", "Span",
]  # open() and close() stay out: `from walltime import *` must not shadow the builtin open

# Wall baseline of render() when no wall is handed in, as in the seed: time since import.
_T_IMPORT = time.monotonic()

HIT = True
MISS = False
Span = _ext.Span

# The hot calls are the extension's own functions: no Python frame in between.
record = _ext.record
timed = _ext.timed
span = _ext.span
counter = _ext.counter
mark = _ext.mark
meta = _ext.meta
thread_name = _ext.thread_name
pagecache_probe = _ext.pagecache_probe
trace_path = _ext.trace_path
enabled = _ext.enabled

# The seed's switch, under the seed's names, for code that looked at them.
_ENABLED = _ext.enabled()


def _enabled() -> bool:
    return _ENABLED


def flush() -> int:
    """Writes everything recorded so far to the trace file. Returns 0, or a negative code."""
    return _ext.flush()


def open(path: str | None = None) -> int:  # noqa: A001 - the C API's name
    """Starts recording into ``path`` (a template: %p pid, %t time, %h host); None: the
    environment's WALLTIME_TRACE or walltime-%p.wtrace. Recording otherwise starts by itself at
    the first call. Returns 0, or a negative code (see ``strerror``)."""
    return _ext.open(path)


def close() -> int:
    """Flushes and closes the trace file (otherwise done at process exit)."""
    return _ext.close()


strerror = _ext.strerror


@dataclass
class _Cat:
    seconds: float = 0.0
    count: int = 0
    hits: int = 0
    misses: int = 0


@dataclass
class _Ledger:
    cats: "OrderedDict[str, _Cat]" = field(default_factory=OrderedDict)
    misses: list = field(default_factory=list)


def snapshot() -> _Ledger:
    """A copy of this process's ledger (what ``record`` and the spans added), in the seed's
    shape: ``cats`` maps category to seconds/count/hits/misses, ``misses`` lists
    (label, seconds, detail) of every MISS."""
    rows, misses = _ext._ledger()
    led = _Ledger()
    for name, seconds, count, hits, nmiss in rows:
        led.cats[name] = _Cat(seconds, count, hits, nmiss)
    led.misses = misses
    return led


def render(title: str, ledger: _Ledger | None = None, wall: float | None = None) -> str:
    """The seed's table of a ledger (this process's when None), reconciled to ``wall`` (time
    since import when None): per category seconds, % of wall, count and HIT/MISS, then
    ``untracked``, the totals and the ANOMALIES list of MISSes. Flat arithmetic, as the seed:
    nested spans are counted in both categories (``walltime-analyze ledger`` counts self time)."""
    led = ledger if ledger is not None else snapshot()
    cats = list(led.cats.items())
    misses = list(led.misses)
    tracked = sum(c.seconds for _, c in cats)
    if wall is None:
        wall = time.monotonic() - _T_IMPORT
    wall = max(wall, tracked)
    untracked = wall - tracked
    denom = wall or 1.0
    rule = "=" * 74
    out = ["", rule, f"WALL-TIME LEDGER · {title}", "-" * 74,
           f"{'category':<18}{'seconds':>10}{'%wall':>8}{'count':>8}   notes"]
    for name, c in cats:
        note = f"{c.hits} HIT / {c.misses} MISS" if (c.hits or c.misses) else ""
        out.append(f"{name:<18}{c.seconds:>10.1f}{100.0 * c.seconds / denom:>7.1f}%{c.count:>8}   {note}")
    out.append(f"{'untracked':<18}{untracked:>10.1f}{100.0 * untracked / denom:>7.1f}%")
    out.append("-" * 74)
    out.append(f"{'TOTAL (tracked)':<18}{tracked:>10.1f}{100.0 * tracked / denom:>7.1f}%")
    out.append(f"{'TOTAL (wall)':<18}{wall:>10.1f}{100.0:>7.1f}%")
    out.append("")
    if misses:
        out.append("ANOMALIES:")
        default = "TT_DIT_CACHE_DIR unset or blocking key changed"
        out.extend(f"  - CACHE MISS: weight_load {label} ({seconds:.1f}s) — {detail or default}"
                   for label, seconds, detail in misses)
    else:
        out.append("ANOMALIES: none")
    out.append(rule)
    return "\n".join(out)


def rounds(configs, n: int):
    """Keep/skip rounds: yields ``(config, round)`` for round 0..n-1 of each configuration in
    turn (``keep, skip, keep, skip, ...`` for ``["keep", "skip"]`` or a dict with those keys),
    so every configuration sees the same page-cache state. Each yield is bracketed by the
    trace's round begin and end, so ``walltime-analyze compare`` groups the stages recorded
    inside it."""
    names = list(configs)
    if n < 0:
        raise ValueError("rounds must not be negative")
    for r in range(n):
        for name in names:
            _ext.round_begin(str(name), r)
            try:
                yield name, r
            finally:
                _ext.round_end()


def _decorate(sp, func):
    cat, label = sp.category, sp.label
    kw = {"cached": sp.cached, "count": sp.count, "bytes": sp.bytes, "detail": sp.detail}

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _ext.span(cat, label, **kw):
            return func(*args, **kwargs)

    return wrapper


_ext._set_decorator(_decorate)


def _after_fork_in_child() -> None:
    # A forked child keeps its own ledger: the parent's rows stay the parent's.
    _ext._ledger_reset()


os.register_at_fork(after_in_child=_after_fork_in_child)


class _ForkToken:
    """Registered with multiprocessing's after-fork hook (which wants a weak-referenceable
    object): a worker process ends with os._exit(), which runs no atexit handler and no
    library destructor, so its trace is closed by multiprocessing's finalizers instead."""


_FORK_TOKEN = _ForkToken()


def _mp_child(_token) -> None:
    from multiprocessing import util

    util.Finalize(None, _ext.close, exitpriority=-100)


try:
    import multiprocessing as _mp
    from multiprocessing import util as _mp_util

    _mp_util.register_after_fork(_FORK_TOKEN, _mp_child)
    # Imported first inside a worker (the parent never imported walltime): no after-fork hook
    # ran, and the worker's os._exit() runs no atexit handler, so without this its trace had
    # only its header (10 spans) or lost its tail and read as killed (100,000 spans).
    if _mp.parent_process() is not None:
        _mp_child(None)
except ImportError:  # pragma: no cover - a Python without multiprocessing
    pass


# WALLTIME_SUMMARY as the library reads it: the one table a process prints at exit.
_SUMMARY_NONE, _SUMMARY_RECONCILED, _SUMMARY_FLAT = 0, 1, 2


def _atexit() -> None:
    # One exit print per process. By default it is the library's reconciled ledger (stderr, at
    # its close: C and Python spans, nested, the trace named); with WALLTIME_SUMMARY=flat it is
    # the seed's print, here: the ledger on stdout once, at teardown, when anything was
    # recorded, and the library is told to print nothing.
    if _ext._summary() != _SUMMARY_FLAT:
        return
    rows, _ = _ext._ledger()
    if not rows:
        return
    _ext._summary_handover()
    try:
        print(render("end of run"))  # noqa: T201
    except (ValueError, OSError):
        pass  # stdout may already be closed during interpreter shutdown


atexit.register(_atexit)


def _excepthook(tp, value, tb):  # noqa: ANN001 - sys.excepthook's signature
    # An uncaught KeyboardInterrupt (Ctrl-C): after its shutdown Python ends the process by
    # SIGINT, which runs no C exit handler, so the trace would have no end record and read as
    # a writer that died. Closed here, after the traceback, it says the process was killed by
    # SIGINT (the span the interrupt ended carries "KeyboardInterrupt").
    try:
        _previous_excepthook(tp, value, tb)
    finally:
        if isinstance(tp, type) and issubclass(tp, KeyboardInterrupt):
            _ext._close_signalled(_signal.SIGINT)


_previous_excepthook = sys.excepthook
sys.excepthook = _excepthook
