"""Where a span or a trace begins and ends in real Python programs: a span object reused
(nested, across threads, one block after another), a multiprocessing Pool that terminates its
workers (SIGTERM) as their finalizers close their traces, and workers that import walltime
only after the fork. Each case was found losing or misbooking spans in a user's review."""

from __future__ import annotations

import unittest

from wtpy import FORK_UNDER_ASAN, RunCase, dump, spans


def ends(events: list[dict]) -> list[str]:
    return [e["end"] for e in events if e["kind"] == "end"]


class SpanReuse(RunCase):
    def one_trace(self, r):
        paths = r.traces()
        self.assertEqual(len(paths), 1, paths)
        return dump(paths[0])

    def test_entering_an_open_span_again_is_refused(self):
        r = self.run_py("""
import walltime
s = walltime.span("load", "weights")
with s:
    try:
        with s:
            pass
    except RuntimeError as e:
        print("refused:", e)
""")
        self.assertIn("refused: this walltime span is already open", r.out)
        sp = spans(self.one_trace(r))
        # one span, closed: not an outer one left open beside a doubled inner one
        self.assertEqual([(s["category"], s["label"]) for s in sp], [("load", "weights")])
        self.assertFalse(sp[0].get("unclosed", False), sp[0])

    def test_a_span_shared_by_two_threads_is_one_block_at_a_time(self):
        r = self.run_py("""
import threading, walltime
s = walltime.span("load", "shared")
inside, go = threading.Event(), threading.Event()
refused = []
def other():
    inside.wait()
    try:
        with s:
            pass
    except RuntimeError:
        refused.append(1)
    go.set()
t = threading.Thread(target=other)
t.start()
with s:
    inside.set()
    go.wait()
t.join()
with s:  # closed now: it may be entered again
    pass
print("refused", len(refused))
""")
        self.assertIn("refused 1", r.out)
        sp = spans(self.one_trace(r))
        self.assertEqual(len(sp), 2)
        self.assertTrue(all(not s.get("unclosed", False) for s in sp))

    def test_each_block_starts_from_the_outcome_the_span_was_made_with(self):
        r = self.run_py("""
import walltime
s = walltime.span("load", "w", count=4, detail="made")
with s:
    s.cached = False
    s.detail = "cold"
    s.count = 9
with s:
    pass
t = walltime.span("load", "x", cached=True)
with t:
    t.cached = False
with t:
    pass
""")
        sp = spans(self.one_trace(r))
        got = [(s["label"], s["cached"], s["count"], s.get("detail") or "") for s in sp]
        self.assertEqual(got, [("w", "miss", 9, "cold"), ("w", "unknown", 4, "made"),
                               ("x", "miss", 1, ""), ("x", "hit", 1, "")])


@FORK_UNDER_ASAN
class Workers(RunCase):
    def totals(self, r):
        """Spans over all the run's files, and each file's end records."""
        n, files = 0, []
        for p in r.traces():
            ev = dump(p)
            n += len(spans(ev))
            files.append((p, ends(ev)))
        return n, files

    def test_pool_terminating_its_workers_keeps_their_spans(self):
        # Pool.__exit__ calls terminate(): SIGTERM to workers that may be closing their trace.
        # 5 runs (the race was lost in about 1 run of 3)
        code = """
import multiprocessing as mp, walltime
def f(i):
    for j in range(10):
        with walltime.span("work", f"t{i}.{j}"):
            pass
    return i
if __name__ == "__main__":
    with mp.get_context("fork").Pool(4) as p:
        p.map(f, range(20))
"""
        for _ in range(5):
            r = self.run_py(code)
            n, files = self.totals(r)
            self.assertEqual(n, 200, files)
            for p, e in files:
                self.assertEqual(len(e), 1, f"{p} has no end record: {files}")

    def test_workers_that_import_walltime_after_the_fork_close_their_traces(self):
        for n_spans in (10, 20000):
            r = self.run_py(f"""
import multiprocessing as mp
def f(i):
    import walltime  # the parent never imports it
    for j in range({n_spans}):
        with walltime.span("work", f"t{{i}}.{{j}}"):
            pass
if __name__ == "__main__":
    ps = [mp.get_context("fork").Process(target=f, args=(i,)) for i in range(3)]
    for p in ps: p.start()
    for p in ps: p.join()
    assert [p.exitcode for p in ps] == [0, 0, 0]
""")
            n, files = self.totals(r)
            self.assertEqual(len(files), 3, files)
            self.assertEqual(n, 3 * n_spans, files)
            for p, e in files:
                self.assertEqual(e, ["clean"], p)


if __name__ == "__main__":
    unittest.main()
