"""samples/python/bench_load.py runs, and its trace has the keep/skip rounds it promises:
keep, skip, keep, skip, each with the load stages inside, and the counters per round."""

import os
import unittest

from wtpy import Run, dump, spans

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "python", "bench_load.py")


class Sample(unittest.TestCase):
    def test_bench_load_records_alternating_rounds(self):
        r = Run(f"""
import runpy, sys
sys.argv = ["bench_load.py", "--rounds", "2", "--tensors", "6", "--tensor-kb", "16", "--out", "result.json"]
runpy.run_path({os.path.abspath(SAMPLE)!r}, run_name="__main__")
""")
        self.addCleanup(r.cleanup)
        self.assertEqual(r.rc, 0, r.err)
        [path] = r.traces()
        ev = dump(path)
        rounds = [(e["config"], e["round"]) for e in ev if e["kind"] == "round"]
        self.assertEqual(rounds, [("keep", 0), ("skip", 0), ("keep", 1), ("skip", 1)])
        fp = [s for s in spans(ev) if s["label"] == "from_pretrained"]
        self.assertEqual(len(fp), 4)
        # 6 tensors, every 3rd skipped in skip: tensors 0 and 3 -> 4 on the device
        n = [e["value"] for e in ev if e["kind"] == "counter" and e["name"] == "n_tensors"]
        self.assertEqual(n, [6, 4, 6, 4])
        # the first build converts all 6 (MISS), later ones read the cache (HIT)
        tensors = [s["cached"] for s in spans(ev) if s["label"] == "tensor"]
        self.assertEqual(tensors, ["miss"] * 6 + ["hit"] * (4 + 6 + 4))
        with open(os.path.join(r.dir, "result.json")) as f:
            import json

            result = json.load(f)
        self.assertEqual(sorted(result["stages"]), sorted(
            f"{s}/{c}" for s in ("from_pretrained", "weights_load", "head_build") for c in ("keep", "skip")))
        self.assertEqual(len(result["stages"]["from_pretrained/keep"]["per_round"]), 2)
        self.assertEqual(result["meta"]["delta"]["n_tensors_saved"], 2)


if __name__ == "__main__":
    unittest.main()
