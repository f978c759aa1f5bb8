"""The cost of an empty `with walltime.timed(...)` block against the seed's timed(), measured
in the same run (issue 8's targets: at most 0.25x the seed's with recording on, at most 0.1x
with TT_WALLTIME=0). Not a test: it prints figures.

Each mode runs in a fresh interpreter (TT_WALLTIME is read at import, by the seed and by
walltime alike), which times the two modules alternately: REPS repetitions of N empty blocks
each, per-block wall (perf_counter) and CPU (thread_time) time, medians over the repetitions.

    PYTHONPATH=build/python python3 bench/bench_python.py --seed PATH/TO/seed/walltime.py

--seed is the seed's module file (the one users import today); without it the seed is not
measured and no ratio is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types


def load_seed(path: str):
    # The shared copy of the seed starts with a line naming its path in the original project
    # (`code/.../walltime.py`), which is not Python: it is dropped, the rest compiled as is.
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[0].endswith(".py") and " " not in lines[0]:
        lines[0] = ""
    mod = types.ModuleType("seed_walltime")
    mod.__file__ = path
    sys.modules["seed_walltime"] = mod  # its dataclasses look their module up
    exec(compile("\n".join(lines), path, "exec"), mod.__dict__)
    import atexit

    atexit.unregister(mod._atexit)  # its ledger print is not part of the figures
    return mod


def per_block(timed, n: int) -> tuple[float, float]:
    """ns per empty block, wall and CPU, for n blocks."""
    w0, c0 = time.perf_counter_ns(), time.thread_time_ns()
    for _ in range(n):
        with timed("weight_load", "layer"):
            pass
    w1, c1 = time.perf_counter_ns(), time.thread_time_ns()
    return (w1 - w0) / n, (c1 - c0) / n


def measure(seed_path: str | None, n: int, reps: int) -> dict:
    import atexit

    import walltime

    atexit.unregister(walltime._atexit)  # likewise
    subjects = {"walltime": walltime.timed}
    if seed_path:
        subjects["seed"] = load_seed(seed_path).timed
    for t in subjects.values():
        per_block(t, n // 10 + 1)  # warm up: first calls, the trace file, caches
    got = {k: {"wall": [], "cpu": []} for k in subjects}
    for _ in range(reps):
        for k, t in subjects.items():
            w, c = per_block(t, n)
            got[k]["wall"].append(w)
            got[k]["cpu"].append(c)
    return {k: {m: statistics.median(v) for m, v in d.items()} for k, d in got.items()}


def child(args) -> None:
    print(json.dumps(measure(args.seed, args.n, args.reps)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", help="the seed's walltime.py (not in this repository)")
    ap.add_argument("-n", type=int, default=200000, help="blocks per repetition")
    ap.add_argument("--reps", type=int, default=9, help="repetitions (the median is reported)")
    ap.add_argument("--child", choices=("on", "off"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return 0
    results = {}
    with tempfile.TemporaryDirectory(prefix="wt-bench-py-") as tmp:
        for mode in ("on", "off"):
            env = dict(os.environ, WALLTIME_TRACE=os.path.join(tmp, "b-%p.wtrace"), WALLTIME_SUMMARY="0")
            env.pop("WALLTIME", None)
            env["TT_WALLTIME"] = "1" if mode == "on" else "0"
            cmd = [sys.executable, os.path.abspath(__file__), "--child", mode, "-n", str(args.n),
                   "--reps", str(args.reps)] + (["--seed", args.seed] if args.seed else [])
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
            results[mode] = json.loads(next(l for l in out.splitlines() if l.startswith("{")))
    print(f"empty `with timed(...)` block, ns per block, median of {args.reps} x {args.n} "
          f"(python {sys.version.split()[0]})")
    print(f"{'':30}{'wall':>10}{'cpu':>10}")
    for mode in ("on", "off"):
        for k, v in results[mode].items():
            name = f"{k} ({'recording' if mode == 'on' else 'TT_WALLTIME=0'})"
            print(f"{name:<30}{v['wall']:>10.1f}{v['cpu']:>10.1f}")
    if args.seed:
        seed_on = results["on"]["seed"]
        for mode, target in (("on", 0.25), ("off", 0.10)):
            ours = results[mode]["walltime"]
            for m in ("wall", "cpu"):
                ratio = ours[m] / seed_on[m]
                print(f"walltime {mode:>3} / seed recording ({m}): {ratio:.3f}x  target <= {target}x  "
                      f"{'met' if ratio <= target else 'MISSED'}")
            seed_same = results[mode]["seed"]
            print(f"walltime {mode:>3} / seed {mode:>3} (wall): {ours['wall'] / seed_same['wall']:.3f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
