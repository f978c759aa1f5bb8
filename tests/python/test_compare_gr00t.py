"""compare --json --schema gr00t-tt-perf/1 against the seed's own arithmetic: samples/python/
bench_load.py computes the seed bench_load.py's result layout (stages, meta.device_mb,
meta.delta, meta.rounds) from its own clock reads; compare computes the same document from
the trace of the same run. The two must agree field by field: the keys the seed writes are
all there, counts and bytes exactly in every run, times within 1 ms in one of three runs
(each side read its own clock, a few microseconds apart; the margin and the runs are for a
preemption between the two reads on a loaded machine). The exact arithmetic is
test_compare.c's, on a hand-built trace."""

import json
import os
import subprocess
import unittest

from wtpy import ANALYZE, RunCase

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "python", "bench_load.py")
MS = 1.0  # the sample times a build with perf_counter around the span the trace holds


ATTEMPTS = 3  # runs of the sample, for the times only


class CompareGr00t(RunCase):
    def one_run(self):
        """One run of the sample: its seed.json and compare's document of its trace."""
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
        return seed, json.loads(p.stdout)

    def check_exact(self, seed, ours):
        """Keys, counts and bytes: equal in every run."""
        self.assertEqual(ours["schema"], "gr00t-tt-perf/1")
        for key, want in seed["stages"].items():
            got = ours["stages"][key]
            self.assertEqual(got["metric"], "ms", key)
            if "per_round" in want:
                self.assertEqual(len(got["per_round"]), len(want["per_round"]), key)
        meta, want = ours["meta"], seed["meta"]
        self.assertEqual(meta["device_mb"], want["device_mb"])
        self.assertEqual(meta["rounds"], want["rounds"])
        self.assertEqual(meta["delta"]["device_mb_saved"], want["delta"]["device_mb_saved"])
        self.assertEqual(meta["delta"]["n_tensors_saved"], want["delta"]["n_tensors_saved"])
        for cfg, recs in want["configs"].items():
            self.assertEqual([x["round"] for x in meta["configs"][cfg]], [x["round"] for x in recs])
            for g, w in zip(meta["configs"][cfg], recs):
                self.assertEqual(g["n_tensors"], w["n_tensors"])
                self.assertEqual(g["device_bytes"], w["device_bytes"])

    def time_misses(self, seed, ours):
        """The times that differ by more than the margin: each side read its own clock, so a
        preemption between the two reads on a loaded machine (1.4 ms seen under ASan with
        the other core busy) widens one; wrong arithmetic widens them in every run."""
        misses = []

        def near(key, g, w, delta):
            if abs(g - w) > delta:
                misses.append(f"{key}: {g} != {w} within {delta}")

        for key, want in seed["stages"].items():
            got = ours["stages"][key]
            near(key, got["value"], want["value"], MS)
            if "min" in want:
                near(key + " min", got["min"], want["min"], MS)
            for g, w in zip(got.get("per_round", []), want.get("per_round", [])):
                near(key + " per_round", g, w, 0.1 + MS)  # both rounded to 0.1
        meta, want = ours["meta"], seed["meta"]
        for key in ("from_pretrained_ms_saved_median", "weights_load_ms_saved_median"):
            near(key, meta["delta"][key], want["delta"][key], 2 * MS)
        for cfg, recs in want["configs"].items():
            for g, w in zip(meta["configs"][cfg], recs):
                near(cfg + " from_pretrained_s", g["from_pretrained_s"], w["from_pretrained_s"], MS / 1e3)
        return misses

    def test_gr00t_layout_matches_the_seed_arithmetic_of_the_same_run(self):
        misses = []
        for _ in range(ATTEMPTS):
            seed, ours = self.one_run()
            self.check_exact(seed, ours)
            misses = self.time_misses(seed, ours)
            if not misses:
                break
        self.assertEqual(misses, [], f"in each of {ATTEMPTS} runs; the last run's")


if __name__ == "__main__":
    unittest.main()
