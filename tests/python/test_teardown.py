"""Teardown: a C++ library loaded by Python records from a static destructor, which runs after
the interpreter has finished (the seed's docstring said this could not be had). The counter
must be in the trace, and the trace must end clean."""

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


if __name__ == "__main__":
    unittest.main()
