"""The seed's API, unchanged: record() sums worked out by hand with the seed's arithmetic,
render() byte for byte as the seed prints it for the same calls (the expected text below was
printed by the seed's own module and is written here literally), timed() nesting, the exit
print, the disabled mode, and a span left by an exception."""

import json
import unittest

from wtpy import RunCase, dump, spans

CALLS = """
import walltime
walltime.record("weight_load", "layer0", 2.25, cached=False, detail="key changed")
walltime.record("weight_load", "layer1", 0.35, cached=True)
walltime.record("warmup", "compile", 12.05)
walltime.record("generate", "run", 30.0, count=4)
walltime.record("weight_load", "layer2", 1.15, cached=False)
walltime.record("decode", "audio", 0.05, count=0)
"""

# What the seed's render() returns after CALLS, for render("case one", wall=60.0) and
# render("clamped", wall=1.0) (a wall below the tracked sum is raised to it).
SEED_CASE_ONE = "\n".join([
    "",
    "==========================================================================",
    "WALL-TIME LEDGER · case one",
    "--------------------------------------------------------------------------",
    "category             seconds   %wall   count   notes",
    "weight_load              3.8    6.2%       3   1 HIT / 2 MISS",
    "warmup                  12.1   20.1%       1   ",
    "generate                30.0   50.0%       4   ",
    "decode                   0.1    0.1%       0   ",
    "untracked               14.2   23.6%",
    "--------------------------------------------------------------------------",
    "TOTAL (tracked)         45.8   76.4%",
    "TOTAL (wall)            60.0  100.0%",
    "",
    "ANOMALIES:",
    "  - CACHE MISS: weight_load layer0 (2.2s) — key changed",
    "  - CACHE MISS: weight_load layer2 (1.1s) — TT_DIT_CACHE_DIR unset or blocking key changed",
    "==========================================================================",
])

SEED_CLAMPED = "\n".join([
    "",
    "==========================================================================",
    "WALL-TIME LEDGER · clamped",
    "--------------------------------------------------------------------------",
    "category             seconds   %wall   count   notes",
    "weight_load              3.8    8.2%       3   1 HIT / 2 MISS",
    "warmup                  12.1   26.3%       1   ",
    "generate                30.0   65.4%       4   ",
    "decode                   0.1    0.1%       0   ",
    "untracked                0.0    0.0%",
    "--------------------------------------------------------------------------",
    "TOTAL (tracked)         45.8  100.0%",
    "TOTAL (wall)            45.8  100.0%",
    "",
    "ANOMALIES:",
    "  - CACHE MISS: weight_load layer0 (2.2s) — key changed",
    "  - CACHE MISS: weight_load layer2 (1.1s) — TT_DIT_CACHE_DIR unset or blocking key changed",
    "==========================================================================",
])

SEED_EMPTY = "\n".join([
    "",
    "==========================================================================",
    "WALL-TIME LEDGER · empty",
    "--------------------------------------------------------------------------",
    "category             seconds   %wall   count   notes",
    "untracked                0.0    0.0%",
    "--------------------------------------------------------------------------",
    "TOTAL (tracked)          0.0    0.0%",
    "TOTAL (wall)             0.0  100.0%",
    "",
    "ANOMALIES: none",
    "==========================================================================",
])


class SeedApi(RunCase):
    def test_record_sums_by_hand(self):
        r = self.run_py(CALLS + """
import json, atexit
led = walltime.snapshot()
print(json.dumps({"cats": {k: [c.seconds, c.count, c.hits, c.misses] for k, c in led.cats.items()},
                  "misses": [list(m) for m in led.misses]}))
atexit.unregister(walltime._atexit)
""")
        got = json.loads(r.out)
        # by hand: weight_load 2.25 + 0.35 + 1.15 = 3.75 s over 3 records, 1 HIT, 2 MISS;
        # count=0 adds nothing, as the seed's `count += count`
        self.assertEqual(list(got["cats"]), ["weight_load", "warmup", "generate", "decode"])
        self.assertAlmostEqual(got["cats"]["weight_load"][0], 3.75, places=12)
        self.assertEqual(got["cats"]["weight_load"][1:], [3, 1, 2])
        self.assertEqual(got["cats"]["warmup"], [12.05, 1, 0, 0])
        self.assertEqual(got["cats"]["generate"], [30.0, 4, 0, 0])
        self.assertEqual(got["cats"]["decode"], [0.05, 0, 0, 0])
        self.assertEqual(got["misses"], [["layer0", 2.25, "key changed"], ["layer2", 1.15, ""]])

    def test_render_is_the_seeds_text(self):
        r = self.run_py(CALLS + """
import atexit, sys
atexit.unregister(walltime._atexit)
sys.stdout.write(walltime.render("case one", wall=60.0) + "\\0")
sys.stdout.write(walltime.render("clamped", wall=1.0) + "\\0")
sys.stdout.write(walltime.render("empty", walltime._Ledger(), wall=0.0))
""")
        one, clamped, empty = r.out.split("\0")
        self.assertEqual(one, SEED_CASE_ONE)
        self.assertEqual(clamped, SEED_CLAMPED)
        self.assertEqual(empty, SEED_EMPTY)

    def test_exit_prints_the_ledger_on_stdout(self):
        r = self.run_py(CALLS)
        # the exit print is render("end of run") with the wall since import: the rows match
        self.assertIn("WALL-TIME LEDGER · end of run", r.out)
        self.assertIn("weight_load              3.8", r.out)
        self.assertIn("  - CACHE MISS: weight_load layer2 (1.1s) — TT_DIT_CACHE_DIR unset", r.out)
        self.assertEqual(r.out.count("WALL-TIME LEDGER"), 1)

    def test_no_exit_print_when_nothing_was_recorded(self):
        r = self.run_py("import walltime\n")
        self.assertEqual(r.out, "")
        self.assertEqual(r.traces(), [])  # nothing recorded: no file either

    def test_timed_nesting(self):
        r = self.run_py("""
import time, walltime, atexit
atexit.unregister(walltime._atexit)
with walltime.timed("phase", "load"):
    time.sleep(0.02)
    with walltime.timed("weight_load", "layer0", cached=True):
        time.sleep(0.03)
    time.sleep(0.01)
led = walltime.snapshot()
print(led.cats["phase"].seconds, led.cats["weight_load"].seconds, led.cats["weight_load"].hits)
""")
        outer, inner, hits = r.out.split()
        # flat, as the seed: the outer holds the inner's time too
        self.assertGreaterEqual(float(outer), 0.06)
        self.assertGreaterEqual(float(inner), 0.03)
        self.assertGreater(float(outer), float(inner) + 0.029)
        self.assertEqual(hits, "1")
        [path] = r.traces()
        sp = {s["label"]: s for s in spans(dump(path))}
        self.assertEqual(sp["load"]["depth"], 0)
        self.assertEqual(sp["layer0"]["depth"], 1)
        self.assertEqual(sp["layer0"]["cached"], "hit")
        self.assertGreaterEqual(sp["layer0"]["ts"], sp["load"]["ts"])
        self.assertLessEqual(sp["layer0"]["ts"] + sp["layer0"]["dur"], sp["load"]["ts"] + sp["load"]["dur"])
        self.assertGreaterEqual(sp["layer0"]["dur"], 30_000_000)

    def test_disabled_records_nothing(self):
        for env in ({"TT_WALLTIME": "0"}, {"WALLTIME": "0"}):
            with self.subTest(env=env):
                r = self.run_py(CALLS + """
with walltime.timed("phase", "x") as s:
    s.cached = False
with walltime.span("phase", "y"):
    pass
walltime.counter("c", 1)
print(walltime.enabled(), walltime.trace_path(), len(walltime.snapshot().cats))
print(walltime.timed("a", "b") is walltime.timed("c", "d"))
""", env)
                self.assertEqual(r.out, "False None 0\nTrue\n")  # no exit print either
                self.assertEqual(r.traces(), [])

    def test_exception_ends_the_span_with_its_type_and_goes_on(self):
        r = self.run_py("""
import walltime, atexit
atexit.unregister(walltime._atexit)
class CacheKeyError(Exception):
    pass
for f in (walltime.timed, walltime.span):
    try:
        with f("weight_load", "layer9"):
            raise CacheKeyError("bad key")
    except CacheKeyError:
        print("raised")
try:
    with walltime.span("weight_load", "layer8") as s:
        s.detail = "set before"
        raise KeyError(1)
except KeyError:
    print("raised")
led = walltime.snapshot()
print(led.cats["weight_load"].count)
""")
        self.assertEqual(r.out, "raised\nraised\nraised\n3\n")
        [path] = r.traces()
        details = [s["detail"] for s in spans(dump(path))]
        self.assertEqual(details, ["CacheKeyError", "CacheKeyError", "set before"])


if __name__ == "__main__":
    unittest.main()
