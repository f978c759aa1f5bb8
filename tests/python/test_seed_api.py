"""The seed's API, unchanged: record() sums worked out by hand with the seed's arithmetic,
render() byte for byte as the seed prints it for the same calls (the expected text below was
printed by the seed's own module and is written here literally), timed() nesting, the one
exit print in each WALLTIME_SUMMARY mode, the disabled mode by the library's switch words, and
a span left by an exception."""

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

    def test_one_exit_print_in_each_mode(self):
        # WALLTIME_SUMMARY unset (empty: the default), flat, 0: exactly one table, or none
        default = self.run_py(CALLS, {"WALLTIME_SUMMARY": ""})
        flat = self.run_py(CALLS, {"WALLTIME_SUMMARY": "flat"})
        off = self.run_py(CALLS, {"WALLTIME_SUMMARY": "0"})
        # default: the library's reconciled ledger on stderr, nothing on stdout
        self.assertEqual(default.out, "")
        self.assertEqual(default.err.count("WALL-TIME LEDGER"), 1)
        self.assertIn("WALL-TIME LEDGER · end of run\n", default.err)
        self.assertIn("category                self   %wall  inclusive   count   notes\n", default.err)
        # grouped misses; avoidable by hand: each MISS less the median HIT (0.35 s):
        # 2.25 - 0.35 = 1.90, 1.15 - 0.35 = 0.80, 2.70 in all
        self.assertIn("ANOMALIES:\n"
                      "  - 2 CACHE MISS in weight_load, 2.70 s avoidable in all; the 2 most costly:\n"
                      "    layer0 (2.25 s) — key changed; avoidable 1.90 s\n"
                      "    layer2 (1.15 s) — TT_DIT_CACHE_DIR unset or blocking key changed;"
                      " avoidable 800 ms\n", default.err)
        [path] = default.traces()
        self.assertTrue(default.err.endswith(
            f"walltime: trace written to '{path}'; the full analysis: walltime-analyze ledger '{path}'\n"))
        # flat: the seed's exit print, render("end of run") on stdout; the wall since import is
        # below the 45.8 s tracked, so it is raised to it: the clamped table, exactly
        self.assertEqual(flat.out, SEED_CLAMPED.replace("· clamped", "· end of run") + "\n")
        self.assertEqual(flat.err, "")
        self.assertEqual(len(flat.traces()), 1)  # the trace is still written
        # 0: nothing at all
        self.assertEqual((off.out, off.err), ("", ""))
        self.assertEqual(len(off.traces()), 1)

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
        # the library's switch words: 0/off/false/no, any case, in either variable
        for env in ({"TT_WALLTIME": "0"}, {"WALLTIME": "0"}, {"WALLTIME": "off"},
                    {"TT_WALLTIME": "false"}, {"WALLTIME": "No", "WALLTIME_SUMMARY": "flat"}):
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

    def test_switched_on_by_a_true_word(self):
        for env in ({"WALLTIME": "yes"}, {"TT_WALLTIME": "1", "WALLTIME": "TRUE"}):
            with self.subTest(env=env):
                r = self.run_py("""
import walltime
with walltime.span("phase", "x"):
    pass
print(walltime.enabled(), walltime.trace_path() is not None)
""", env)
                self.assertEqual(r.out, "True True\n")
                self.assertEqual(len(r.traces()), 1)

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
