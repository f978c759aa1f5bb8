"""Teardown: a C++ library loaded by Python records from a static destructor, which runs after
the interpreter has finished (the seed's docstring said this could not be had). The counter
must be in the trace, and the trace must end clean. And an uncaught KeyboardInterrupt, after
which Python kills itself by SIGINT: the trace must end saying so."""

import unittest

from wtpy import Run, dump


class Teardown(unittest.TestCase):
    def test_cpp_static_destructor_counter_after_the_interpreter(self):
        r = Run("""
import ctypes, os, walltime
lib = ctypes.CDLL(os.environ["WT_PYCXXLIB"])
with walltime.span("load", "compile kernels"):
    for _ in range(3):
        lib.wt_pycxx_hit()
""")
        self.addCleanup(r.cleanup)
        self.assertEqual(r.rc, 0, r.err)
        [path] = r.traces()
        ev = dump(path)
        counters = [(e["name"], e["value"]) for e in ev if e["kind"] == "counter"]
        self.assertEqual(counters, [("jit_cache.hits", 3)])
        self.assertEqual([e["end"] for e in ev if e["kind"] == "end"], ["clean"])
        # it came after everything Python recorded
        span = next(e for e in ev if e["kind"] == "span")
        counter = next(e for e in ev if e["kind"] == "counter")
        self.assertGreater(counter["ts"], span["ts"] + span["dur"])

    def test_uncaught_keyboard_interrupt_ends_the_trace_killed_by_sigint(self):
        # Python ends such a process by SIGINT after its shutdown, where no C exit handler
        # runs: without the module's excepthook the trace had no end record at all
        r = Run("""
import time, walltime
with walltime.span("load", "setup"):
    time.sleep(0.02)
with walltime.span("load", "weights"):
    raise KeyboardInterrupt
""")
        self.addCleanup(r.cleanup)
        self.assertEqual(r.rc, -2, r.err)  # still killed by SIGINT, as without walltime
        self.assertIn("KeyboardInterrupt", r.err)  # the traceback is printed first
        [path] = r.traces()
        ev = dump(path)
        ends = [(e["end"], e.get("signal")) for e in ev if e["kind"] == "end"]
        self.assertEqual(ends, [("signal", 2)])
        labels = [e["label"] for e in ev if e["kind"] == "span"]
        self.assertEqual(labels, ["setup", "weights"])


if __name__ == "__main__":
    unittest.main()
