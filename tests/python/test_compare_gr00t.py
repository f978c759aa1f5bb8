"""compare --json --schema gr00t-tt-perf/1 against the seed's own arithmetic: samples/python/
bench_load.py computes the seed bench_load.py's result layout (stages, meta.device_mb,
meta.delta, meta.rounds) from its own clock reads; compare computes the same document from
the trace of the same run. The two must agree field by field: the keys the seed writes are
all there, counts and bytes exactly, times within 1 ms (each side read its own clock, a few
microseconds apart; the margin is for a preemption between the two reads on a loaded machine).
The exact arithmetic is test_compare.c's, on a hand-built trace."""

import json
import os
import subprocess
import unittest

from wtpy import ANALYZE, RunCase

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "python", "bench_load.py")
MS = 1.0  # the sample times a build with perf_counter around the span the trace holds


class CompareGr00t(RunCase):
    def test_gr00t_layout_matches_the_seed_arithmetic_of_the_same_run(self):
        r = self.run_py(f"""
import runpy, sys
sys.argv = ["bench_load.py", "--rounds", "3", "--tensors", "6", "--tensor-kb", "64", "--out", "seed.json"]
runpy.run_path({os.path.abspath(SAMPLE)!r}, run_name="__main__")
""")
        [path] = r.traces()
        with open(os.path.join(r.dir, "seed.json")) as f:
            seed = json.load(f)
        p = subprocess.run([ANALYZE, "compare", "--json", "--schema", "gr00t-tt-perf/1", path],
                           capture_output=True, text=True, check=True)
        ours = json.loads(p.stdout)
        self.assertEqual(ours["schema"], "gr00t-tt-perf/1")
        for key, want in seed["stages"].items():
            got = ours["stages"][key]
            self.assertEqual(got["metric"], "ms", key)
            self.assertAlmostEqual(got["value"], want["value"], delta=MS, msg=key)
            if "min" in want:
                self.assertAlmostEqual(got["min"], want["min"], delta=MS, msg=key)
            if "per_round" in want:
                self.assertEqual(len(got["per_round"]), len(want["per_round"]), key)
                for g, w in zip(got["per_round"], want["per_round"]):
                    self.assertAlmostEqual(g, w, delta=0.1 + MS, msg=key)  # both rounded to 0.1
        meta, want = ours["meta"], seed["meta"]
        self.assertEqual(meta["device_mb"], want["device_mb"])
        self.assertEqual(meta["rounds"], want["rounds"])
        self.assertEqual(meta["delta"]["device_mb_saved"], want["delta"]["device_mb_saved"])
        self.assertEqual(meta["delta"]["n_tensors_saved"], want["delta"]["n_tensors_saved"])
        for key in ("from_pretrained_ms_saved_median", "weights_load_ms_saved_median"):
            self.assertAlmostEqual(meta["delta"][key], want["delta"][key], delta=2 * MS, msg=key)
        for cfg, recs in want["configs"].items():
            self.assertEqual([x["round"] for x in meta["configs"][cfg]], [x["round"] for x in recs])
            for g, w in zip(meta["configs"][cfg], recs):
                self.assertEqual(g["n_tensors"], w["n_tensors"])
                self.assertEqual(g["device_bytes"], w["device_bytes"])
                self.assertAlmostEqual(g["from_pretrained_s"], w["from_pretrained_s"], delta=MS / 1e3)


if __name__ == "__main__":
    unittest.main()
