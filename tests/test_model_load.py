#!/usr/bin/env python3
"""samples/model_load end to end: the sample is run with small options (no cache directory,
cold, warm, a changed cache key, keep/skip rounds) and what walltime-analyze says about each
trace (ledger, grouped anomalies, counters, compare's rows and HIT/MISS per configuration) is
checked against what those options imply, worked out below by hand from the sample's
documented shape -- never against the analyzer's own output.

    test_model_load.py SAMPLE ANALYZE     (ctest passes both paths)

To check a new output (a column, a JSON field, a grouped line), add a check_* function and call
it from the scenario that should show it; each scenario is one function at the end."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SAMPLE, ANALYZE = sys.argv[1], sys.argv[2]

# The options of every run, and what they imply.
LAYERS, PER_LAYER, THREADS, SIZE_KB, STEPS, KERNELS = 3, 6, 2, 16, 2, 1
OPTS = ["--layers", str(LAYERS), "--tensors-per-layer", str(PER_LAYER), "--threads", str(THREADS),
        "--size", str(SIZE_KB), "--steps", str(STEPS), "--kernels", str(KERNELS)]
TENSORS = LAYERS * PER_LAYER  # one convert span and one upload span per tensor
N = SIZE_KB * 1024 // 4  # fp32 elements per tensor
# A layer's first six tensors are attn.wq, attn.wk, attn.wv, attn.wo, mlp.w1, mlp.w2: the skip
# configuration leaves out the two mlp.* ones.
SKIP_TENSORS = LAYERS * (PER_LAYER - 2)
BF16, INT8 = 2, 1  # device bytes per element

failures = []


def check(cond, what):
    """Records a failed check (all are run, then all failures are listed)."""
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)


def run_sample(work, name, *extra):
    """Runs the sample with OPTS and `extra` into work/name.wtrace; returns its path and stdout."""
    trace = os.path.join(work, name + ".wtrace")
    env = dict(os.environ, WALLTIME_TRACE=trace, WALLTIME_SUMMARY="0")
    env.pop("WALLTIME", None)
    args = [SAMPLE, "--data-dir", os.path.join(work, "data")] + OPTS + list(extra)
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=240)
    check(r.returncode == 0, "%s: exit %d, stderr %r" % (name, r.returncode, r.stderr[-500:]))
    check(r.stderr == "", "%s: nothing on stderr with WALLTIME_SUMMARY=0, got %r" % (name, r.stderr[:300]))
    return trace, r.stdout


def analyze(*args):
    r = subprocess.run([ANALYZE] + list(args), capture_output=True, text=True, timeout=120)
    check(r.returncode in (0, 3), "walltime-analyze %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr[-300:]))
    return r.stdout


def ledger(trace):
    return json.loads(analyze("ledger", "--json", trace))


def anomalies(trace):
    return json.loads(analyze("anomalies", "--json", trace))


def last_counters(trace):
    """The last sample of each counter in the trace, in time order (dump --json)."""
    samples = []
    for line in analyze("dump", "--json", trace).splitlines():
        ev = json.loads(line)
        if ev.get("kind") == "counter":
            samples.append((ev["ts"], ev["name"], ev["value"]))
    return {name: value for _, name, value in sorted(samples)}


def cats(led):
    return {c["name"]: c for c in led["categories"]}


# ---- checks -------------------------------------------------------------------------------

def check_span_counts(name, led, builds, tensors_loaded, prepare):
    """Span counts per category, as the sample's shape implies for `builds` loads that put
    `tensors_loaded` tensors on the device in all (`prepare`: the checkpoint was written)."""
    c = cats(led)
    want = {"load": builds, "weight_load": builds * LAYERS, "convert": tensors_loaded,
            "upload": tensors_loaded, "warmup": builds, "generate": builds * STEPS}
    if prepare:
        want["prepare"] = 1
    for cat, n in want.items():
        got = c.get(cat, {}).get("spans")
        check(got == n, "%s: %d %s spans expected, ledger says %s" % (name, n, cat, got))
    check(set(c) == set(want), "%s: categories %s, expected %s" % (name, sorted(c), sorted(want)))
    check(led["spans"] == sum(want.values()), "%s: %d spans in all expected, ledger says %s"
          % (name, sum(want.values()), led["spans"]))


def check_cache(name, led, hits, misses):
    conv = cats(led).get("convert", {})
    check((conv.get("hits"), conv.get("misses")) == (hits, misses),
          "%s: convert %d HIT / %d MISS expected, ledger says %s / %s"
          % (name, hits, misses, conv.get("hits"), conv.get("misses")))
    others = sum(c["hits"] + c["misses"] for c in led["categories"] if c["name"] != "convert")
    check(others == 0, "%s: only convert spans carry HIT/MISS, others have %d" % (name, others))


def check_device_bytes(name, led, trace, tensors, esize):
    """The upload spans' bytes and the last device_bytes/tensors samples: the sum of the
    tensors' sizes in the device's dtype."""
    want = tensors * N * esize
    check(cats(led).get("upload", {}).get("bytes") == want,
          "%s: upload bytes %d expected, ledger says %s" % (name, want, cats(led).get("upload", {}).get("bytes")))
    last = last_counters(trace)
    check(last.get("device_bytes") == want, "%s: device_bytes counter ends at %d expected, got %s"
          % (name, want, last.get("device_bytes")))
    check(last.get("tensors") == tensors, "%s: tensors counter ends at %d expected, got %s"
          % (name, tensors, last.get("tensors")))


def check_reconciles(name, led):
    """Rows + untracked = wall (the ledger's promise), to a nanosecond per row."""
    rows = sum(c["seconds"] for c in led["categories"])
    tol = 1e-9 * (len(led["categories"]) + 2)
    check(abs(rows + led["untracked_s"] - led["wall_s"]) <= tol,
          "%s: rows %.9f + untracked %.9f != wall %.9f" % (name, rows, led["untracked_s"], led["wall_s"]))
    check(led["untracked_s"] >= 0, "%s: untracked %.9f below 0" % (name, led["untracked_s"]))


def check_threads(name, led, builds, tensors_loaded, prepare):
    """The loader threads hold the weight_load, convert and upload spans; main the rest. Which
    loader took which layer is up to the scheduler, so only their sum is fixed."""
    by_name = {}
    for t in led["threads"]:
        by_name.setdefault("loader" if t["name"].startswith("loader-") else t["name"], []).append(t)
    loaders = sum(t["spans"] for t in by_name.get("loader", []))
    want = builds * LAYERS + 2 * tensors_loaded
    check(loaders == want, "%s: loader threads hold %d spans, %d expected" % (name, loaders, want))
    check(len(by_name.get("loader", [])) <= THREADS * builds,
          "%s: more loader threads than --threads per build" % name)
    main_spans = sum(t["spans"] for t in by_name.get("main", []))
    want = builds * (1 + 1 + STEPS) + (1 if prepare else 0)
    check(main_spans == want, "%s: main holds %d spans, %d expected" % (name, main_spans, want))
    check(set(by_name) <= {"main", "loader"}, "%s: unexpected threads %s" % (name, sorted(by_name)))


def check_misses(name, trace, n, detail):
    """n CACHE MISS anomalies, all in convert, one per tensor, each detail starting `detail`."""
    an = anomalies(trace)
    misses = [a for a in an["anomalies"] if a["kind"] == "miss"]
    check(an["counts"]["miss"] == n, "%s: %d misses counted expected, got %s" % (name, n, an["counts"]["miss"]))
    if an.get("omitted", 0) == 0:
        check(len(misses) == n, "%s: %d miss lines expected, got %d" % (name, n, len(misses)))
    check(all(a["category"] == "convert" for a in misses), "%s: a miss outside convert" % name)
    check(len({a["label"] for a in misses}) == len(misses), "%s: two misses share a label" % name)
    bad = [a["detail"] for a in misses if not (a["detail"] or "").startswith(detail)]
    check(not bad, "%s: miss details should start %r, got %r" % (name, detail, bad[:2]))
    check(an["counts"]["repeat-miss"] == 0, "%s: a REPEATED MISS with one label per tensor" % name)
    check_miss_group(name, an, misses, n)  # grouped anomalies: one group per rule and category


def check_miss_group(name, an, misses, n):
    """The misses form one group, in convert, of n lines, its cost the sum of theirs, with the
    10 most costly listed (all of them with --all)."""
    groups = [g for g in an["groups"] if g["kind"] == "miss"]
    check(len(groups) == (1 if n else 0), "%s: %d miss groups, %d expected" % (name, len(groups), 1 if n else 0))
    if not groups or not n:
        return
    g = groups[0]
    check((g["category"], g["count"]) == ("convert", n),
          "%s: miss group %s/%s, convert/%d expected" % (name, g["category"], g["count"], n))
    check(len(g["lines"]) == min(10, n), "%s: %d lines listed, %d expected" % (name, len(g["lines"]), min(10, n)))
    if len(misses) == n:
        cost = sum(a["cost_s"] for a in misses)
        check(abs(g["cost_s"] - cost) <= 1e-6, "%s: group cost %.9f, its misses' sum %.9f" % (name, g["cost_s"], cost))


def check_single_load(name, trace, esize, hits, misses, detail, prepare=False):
    led = ledger(trace)
    check_span_counts(name, led, 1, TENSORS, prepare)
    check_threads(name, led, 1, TENSORS, prepare)
    check_cache(name, led, hits, misses)
    check_device_bytes(name, led, trace, TENSORS, esize)
    check_reconciles(name, led)
    check_misses(name, trace, misses, detail)


# ---- scenarios ----------------------------------------------------------------------------

def scenario_cache_story(work):
    """No cache directory, then cold, warm and a changed key in one cache directory."""
    cache = os.path.join(work, "cache")
    trace, out = run_sample(work, "nocache")
    check_single_load("no cache dir", trace, BF16, 0, TENSORS, "cache directory unset", prepare=True)
    check("(%d MISS, 0 HIT)" % TENSORS in out, "no cache dir: the sample's own line: %r" % out)

    trace, _ = run_sample(work, "cold", "--cache-dir", cache)
    check_single_load("cold", trace, BF16, 0, TENSORS, "not in the cache")
    check(len(os.listdir(cache)) == TENSORS, "cold: one cache file per tensor expected")

    trace, out = run_sample(work, "warm", "--cache-dir", cache)
    check_single_load("warm", trace, BF16, TENSORS, 0, "")
    check("(0 MISS, %d HIT)" % TENSORS in out, "warm: the sample's own line: %r" % out)

    trace, _ = run_sample(work, "int8", "--cache-dir", cache, "--dtype", "int8")
    check_single_load("dtype changed", trace, INT8, 0, TENSORS, "cache key changed: dtype bf16 -> int8")


def scenario_rounds(work):
    """--rounds 2 into an empty cache: keep 0 misses every tensor, the three builds after it hit."""
    rounds = 2
    trace, _ = run_sample(work, "rounds", "--cache-dir", os.path.join(work, "cache-rounds"),
                          "--rounds", str(rounds))
    led = ledger(trace)
    loaded = rounds * (TENSORS + SKIP_TENSORS)
    check_span_counts("rounds", led, 2 * rounds, loaded, prepare=False)
    check_threads("rounds", led, 2 * rounds, loaded, prepare=False)
    check_cache("rounds", led, loaded - TENSORS, TENSORS)
    check_reconciles("rounds", led)
    check_misses("rounds", trace, TENSORS, "not in the cache")

    cmp = json.loads(analyze("compare", "--json", trace))
    configs = {c["name"]: c for c in cmp["configs"]}
    check(sorted(configs) == ["keep", "skip"], "rounds: configurations %s" % sorted(configs))
    for name, tensors in (("keep", TENSORS), ("skip", SKIP_TENSORS)):
        c = configs.get(name, {})
        check(c.get("n_rounds") == rounds, "rounds: %s has %s rounds, %d expected" % (name, c.get("n_rounds"), rounds))
        for r in c.get("rounds", []):
            check(r["counters"].get("device_bytes") == tensors * N * BF16,
                  "rounds: %s round %s device_bytes %s" % (name, r["round"], r["counters"].get("device_bytes")))
    # per build: load, a weight_load per layer, convert + upload per tensor, warmup, the steps
    spans = rounds * sum(1 + LAYERS + 2 * t + 1 + STEPS for t in (TENSORS, SKIP_TENSORS))
    check(cmp["spans"]["in_rounds"] == spans and cmp["spans"]["outside_rounds"] == 0,
          "rounds: spans in/outside rounds %s, expected %d/0" % (cmp["spans"], spans))
    stages = {s["name"]: s for s in cmp["stages"]}
    check("load/from_pretrained" in stages, "rounds: compare lost the whole-build stage: %s" % sorted(stages)[:8])
    # --by auto (the default): convert has a label per tensor, more than 8, so it is rolled up,
    # a row under each layer's weight_load row that holds conversions, with HIT/MISS per
    # configuration: keep misses every tensor in round 0 and hits after; skip (after keep 0)
    # hits every tensor it loads
    rows = [s for s in cmp["stages"] if s["name"] == "convert/*"]
    check(rows and all(s["parent"].startswith("weight_load/") for s in rows),
          "rounds: convert/* rows not under weight_load rows: %s" % [s["parent"] for s in rows])
    conv = {}
    for s in rows:
        for p in s["per_config"]:
            h, m = conv.get(p["config"], (0, 0))
            conv[p["config"]] = (h + p["hits"], m + p["misses"])
    want = {"keep": ((rounds - 1) * TENSORS, TENSORS), "skip": (rounds * SKIP_TENSORS, 0)}
    for cfg, (hits, misses) in want.items():
        got = conv.get(cfg)
        check(got == (hits, misses), "rounds: compare's convert/* %s HIT/MISS %s, (%d, %d) expected"
              % (cfg, got, hits, misses))


def scenario_default_exit_output(work):
    """A run of the default shape (8 layers x 6 tensors, no cache directory: 48 misses) prints
    its exit ledger in at most 80 lines of stderr. Smaller tensors and fewer steps than the
    default keep it quick under the sanitizers; they change no line of the exit output."""
    env = dict(os.environ, WALLTIME_TRACE=os.path.join(work, "default.wtrace"))
    for k in ("WALLTIME", "WALLTIME_SUMMARY"):
        env.pop(k, None)
    r = subprocess.run([SAMPLE, "--data-dir", os.path.join(work, "data-default"), "--size", "64",
                        "--steps", "1", "--kernels", "1"], env=env,
                       capture_output=True, text=True, timeout=240)
    check(r.returncode == 0, "default run: exit %d" % r.returncode)
    lines = r.stderr.count("\n")
    check(0 < lines <= 80, "default run: %d lines on stderr at exit, at most 80 expected" % lines)


def main():
    work = tempfile.mkdtemp(prefix="wt-model-load-")
    try:
        scenario_cache_story(work)
        scenario_rounds(work)
        scenario_default_exit_output(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures), file=sys.stderr)
        return 1
    print("model_load: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
