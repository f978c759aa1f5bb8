"""bench_load.py: the seed's keep/skip load harness in Python, on a real small load, recorded
with walltime (the Python counterpart of samples/bench_load.c, with the same spans and
counters).

It writes a weights file (N float32 tensors in one blob), then builds "the model" --rounds
times per configuration, alternating ``keep, skip, keep, skip, ...`` through
``walltime.rounds`` so both see the same page-cache state:

  keep  reads every tensor and converts it to bf16 into the "device" buffer;
  skip  leaves out every --skip-every-th tensor (the DiT tensors a megakernel packs itself)
        and packs those as int8 into an arena during head_build instead.

Converted tensors go to a cache directory: the first build that needs one converts and
writes it (MISS), later builds read it back (HIT). Each round records the page-cache residency
of the weights file before the build, the stages as spans (load/from_pretrained around
load/weights_load and load/head_build, weights/tensor per tensor, head/arena_pack) and the
counters device_bytes, n_tensors and arena_bytes. It prints the seed's per-round line and, at
the end, the seed's result layout (stages ``<stage>/<config>`` with median ms, min and
per-round figures; ``meta.device_mb``, ``meta.delta``, ``meta.rounds``). Then::

    walltime-analyze compare walltime-<pid>.wtrace

Run from the build tree: ``PYTHONPATH=build/python python3 samples/python/bench_load.py``.
No numpy: the conversions are byte slicing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import struct
import tempfile
import time
from typing import Any, Dict, List

import walltime

CONFIGS = {"keep": True, "skip": None}  # as the seed's: config -> load the DiT weights?


def write_weights(path: str, tensors: int, tensor_kb: int) -> None:
    """N float32 tensors of tensor_kb KiB each, values that differ per tensor."""
    n = tensor_kb * 1024 // 4
    with open(path, "wb") as f:
        for t in range(tensors):
            f.write(struct.pack(f"<{n}f", *((t * 0.5 + i * 1e-3) for i in range(n))))


def to_bf16(raw: bytes) -> bytes:
    """float32 little-endian -> bf16: the top two bytes of each value (truncation)."""
    out = bytearray(len(raw) // 2)
    out[0::2] = raw[2::4]
    out[1::2] = raw[3::4]
    return bytes(out)


def to_int8(raw: bytes) -> bytes:
    """A crude int8 packing for the arena: the top byte of each float32."""
    return raw[3::4]


class Model:
    def __init__(self) -> None:
        self.device: List[bytes] = []
        self.arena: List[bytes] = []

    @property
    def device_bytes(self) -> int:
        return sum(len(b) for b in self.device)

    @property
    def arena_bytes(self) -> int:
        return sum(len(b) for b in self.arena)


def load_tensor(f, idx: int, size: int, cache_dir: str) -> bytes:
    """One tensor to bf16, from the conversion cache when it has it."""
    cached = os.path.join(cache_dir, f"t{idx}.bf16")
    with walltime.span("weights", "tensor") as s:
        if os.path.exists(cached):
            with open(cached, "rb") as c:
                out = c.read()
            s.cached = walltime.HIT
        else:
            f.seek(idx * size)
            out = to_bf16(f.read(size))
            with open(cached, "wb") as c:
                c.write(out)
            s.cached = walltime.MISS
            s.detail = "not converted yet"
        s.bytes = len(out)
    return out


def one_build(weights: str, cache_dir: str, args, load_dit: bool) -> Dict[str, Any]:
    """Builds the model once, returns the seed's per-round record, releases it."""
    size = args.tensor_kb * 1024
    model = Model()
    t0 = time.perf_counter()
    with walltime.span("load", "from_pretrained"):
        with walltime.span("load", "weights_load"):
            t1 = time.perf_counter()
            with open(weights, "rb") as f:
                for i in range(args.tensors):
                    if not load_dit and i % args.skip_every == 0:
                        continue
                    model.device.append(load_tensor(f, i, size, cache_dir))
            weights_s = time.perf_counter() - t1
        with walltime.span("load", "head_build"):
            t2 = time.perf_counter()
            if not load_dit:
                with walltime.span("head", "arena_pack") as s, open(weights, "rb") as f:
                    for i in range(0, args.tensors, args.skip_every):
                        f.seek(i * size)
                        model.arena.append(to_int8(f.read(size)))
                    s.count = len(model.arena)
                    s.bytes = model.arena_bytes
            head_s = time.perf_counter() - t2
    total = time.perf_counter() - t0
    walltime.counter("device_bytes", model.device_bytes)
    walltime.counter("n_tensors", len(model.device))
    walltime.counter("arena_bytes", model.arena_bytes)
    rec = {
        "from_pretrained_s": total,
        "weights_load_s": weights_s,
        "executor_and_head_build_s": head_s,
        "n_tensors": len(model.device),
        "device_bytes": float(model.device_bytes),
        "skipped": {"n_tensors": len(model.arena), "device_bytes": model.arena_bytes} if model.arena else {},
    }
    del model
    return rec


def summarize(per_cfg: Dict[str, List[Dict[str, Any]]], rounds: int) -> Dict[str, Any]:
    """The seed's result layout: stages, meta.configs, meta.device_mb, meta.delta, meta.rounds."""
    stages: Dict[str, Dict[str, Any]] = {}
    for name, recs in per_cfg.items():

        def med(key: str) -> float:
            return statistics.median(float(x[key]) for x in recs)

        stages[f"from_pretrained/{name}"] = {
            "metric": "ms",
            "value": med("from_pretrained_s") * 1e3,
            "min": min(float(x["from_pretrained_s"]) for x in recs) * 1e3,
            "per_round": [round(float(x["from_pretrained_s"]) * 1e3, 1) for x in recs],
        }
        stages[f"weights_load/{name}"] = {"metric": "ms", "value": med("weights_load_s") * 1e3}
        stages[f"head_build/{name}"] = {"metric": "ms", "value": med("executor_and_head_build_s") * 1e3}
    meta: Dict[str, Any] = {
        "configs": per_cfg,
        "device_mb": {n: {"mb": r[0]["device_bytes"] / 1e6, "n_tensors": r[0]["n_tensors"]} for n, r in per_cfg.items()},
        "rounds": rounds,
    }
    if "keep" in per_cfg and "skip" in per_cfg:
        k, s = per_cfg["keep"][0], per_cfg["skip"][0]
        meta["delta"] = {
            "device_mb_saved": (k["device_bytes"] - s["device_bytes"]) / 1e6,
            "n_tensors_saved": k["n_tensors"] - s["n_tensors"],
            "from_pretrained_ms_saved_median": stages["from_pretrained/keep"]["value"] - stages["from_pretrained/skip"]["value"],
            "weights_load_ms_saved_median": stages["weights_load/keep"]["value"] - stages["weights_load/skip"]["value"],
        }
    return {"stages": stages, "meta": meta}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tensors", type=int, default=32)
    ap.add_argument("--tensor-kb", type=int, default=256)
    ap.add_argument("--skip-every", type=int, default=3)
    ap.add_argument("--dir", default=None, help="working directory (default: a temporary one, removed)")
    ap.add_argument("--out", default=None, help="write the result JSON here")
    args = ap.parse_args()
    if args.rounds <= 0 or args.tensors <= 0 or args.tensor_kb <= 0 or args.skip_every <= 0:
        ap.error("--rounds, --tensors, --tensor-kb and --skip-every must be positive")
    work = args.dir or tempfile.mkdtemp(prefix="bench_load_py-")
    os.makedirs(work, exist_ok=True)
    try:
        weights = os.path.join(work, "weights.bin")
        cache_dir = os.path.join(work, "cache")
        os.makedirs(cache_dir, exist_ok=True)
        with walltime.timed("setup", "write_weights"):
            write_weights(weights, args.tensors, args.tensor_kb)
        for k, v in (("bench", "bench_load.py"), ("tensors", args.tensors), ("tensor_kb", args.tensor_kb),
                     ("rounds", args.rounds), ("skip_every", args.skip_every)):
            walltime.meta(k, str(v))
        per_cfg: Dict[str, List[Dict[str, Any]]] = {name: [] for name in CONFIGS}
        for name, r in walltime.rounds(CONFIGS, args.rounds):
            walltime.meta("config", name)
            walltime.pagecache_probe(weights, "weights")
            rec = one_build(weights, cache_dir, args, bool(CONFIGS[name]))
            rec["round"] = r
            per_cfg[name].append(rec)
            skipped = rec["skipped"]
            print(f"[bench_load] {name} round {r}: from_pretrained {rec['from_pretrained_s']:.3f} s "
                  f"(weights {rec['weights_load_s']:.3f} s, {rec['n_tensors']} tensors, "
                  f"{rec['device_bytes'] / 1e6:.1f} MB; head {rec['executor_and_head_build_s']:.3f} s"
                  + (f"; skipped {skipped['n_tensors']} tensors / {skipped['device_bytes'] / 1e6:.1f} MB" if skipped else "")
                  + ")")
        result = summarize(per_cfg, args.rounds)
        text = json.dumps(result, indent=2)
        if args.out:
            with open(args.out, "w") as f:
                f.write(text + "\n")
            print(f"[bench_load] wrote {args.out}")
        else:
            print(json.dumps(result["stages"], indent=2))
        print(f"[bench_load] trace: {walltime.trace_path()}")
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
