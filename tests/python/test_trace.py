"""What Python records reaches the process's trace: span outcomes set inside the block, the
decorator, the C API's other calls, 8 Python threads, a C span from a shared library in the
same trace as the Python span around it, forked children (os.fork and multiprocessing) in
files of their own, rank metadata, keep/skip rounds, and the ImportError of a missing build."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from wtpy import FORK_UNDER_ASAN, PYTHONPATH, RunCase, dump, header, spans


def only(events, kind):
    return [e for e in events if e["kind"] == kind]


_FORK_UNDER_ASAN = FORK_UNDER_ASAN

class Trace(RunCase):
    def one_trace(self, r):
        paths = r.traces()
        self.assertEqual(len(paths), 1, paths)
        return dump(paths[0])

    def test_span_outcome_set_inside_the_block_and_the_decorator(self):
        r = self.run_py("""
import walltime
with walltime.span("weights", "layer0") as s:
    s.cached = walltime.MISS
    s.count = 7
    s.bytes = 4096
    s.detail = "key changed"
with walltime.span("weights", "layer1", cached=True, bytes=10):
    pass

@walltime.span("phase", "double")
def double(x):
    return 2 * x

print(double(21), double.__name__)
walltime.counter("device_bytes", 123)
walltime.mark("generate", "first token", "tok=1")
walltime.meta("model", "tiny")
walltime.thread_name("loader-main")
print(walltime.flush(), walltime.trace_path() is not None)
""")
        self.assertTrue(r.out.startswith("42 double\n0 True\n"), r.out)
        ev = self.one_trace(r)
        sp = {s["label"]: s for s in spans(ev)}
        self.assertEqual((sp["layer0"]["cached"], sp["layer0"]["count"], sp["layer0"]["bytes"],
                          sp["layer0"]["detail"]), ("miss", 7, 4096, "key changed"))
        self.assertEqual((sp["layer1"]["cached"], sp["layer1"]["bytes"]), ("hit", 10))
        self.assertEqual(sp["double"]["category"], "phase")
        self.assertEqual(only(ev, "counter")[0]["value"], 123)
        self.assertEqual(only(ev, "mark")[0]["label"], "first token")
        self.assertIn(("model", "tiny"), [(m["key"], m["value"]) for m in only(ev, "meta")])
        names = [t["name"] for t in only(ev, "thread_name")]
        self.assertEqual(names, ["MainThread", "loader-main"])  # Python's name first

    def test_eight_python_threads(self):
        r = self.run_py("""
import threading, walltime
N = 500
def work(i):
    for k in range(N):
        with walltime.timed("weights", f"t{i}"):
            pass
ts = [threading.Thread(target=work, args=(i,), name=f"worker-{i}") for i in range(8)]
for t in ts: t.start()
for t in ts: t.join()
led = walltime.snapshot()
print(led.cats["weights"].count)
""")
        self.assertTrue(r.out.startswith("4000\n"), r.out)
        ev = self.one_trace(r)
        sp = spans(ev)
        self.assertEqual(len(sp), 4000)
        by_tid = {}
        for s in sp:
            by_tid.setdefault(s["tid"], set()).add(s["label"])
        self.assertEqual(len(by_tid), 8)
        for labels in by_tid.values():
            self.assertEqual(len(labels), 1)  # each thread's spans are its own
        names = {t["tid"]: t["name"] for t in only(ev, "thread_name")}
        for tid, labels in by_tid.items():
            i = next(iter(labels))[1:]
            self.assertEqual(names[tid], f"worker-{i}")

    def test_c_span_from_a_shared_library_nests_in_the_python_span(self):
        r = self.run_py("""
import ctypes, os, walltime
lib = ctypes.CDLL(os.environ["WT_PYCLIB"])
lib.wt_pyclib_upload.argtypes = [ctypes.c_int64]
with walltime.span("py", "load model"):
    lib.wt_pyclib_upload(1 << 20)
""")
        ev = self.one_trace(r)  # one recorder, one file
        sp = {s["label"]: s for s in spans(ev)}
        outer, inner = sp["load model"], sp["upload"]
        self.assertEqual(inner["tid"], outer["tid"])
        self.assertEqual((outer["depth"], inner["depth"]), (0, 1))
        self.assertLessEqual(outer["ts"], inner["ts"])
        self.assertLessEqual(inner["ts"] + inner["dur"], outer["ts"] + outer["dur"])
        self.assertEqual((inner["cached"], inner["count"], inner["bytes"], inner["detail"]),
                         ("hit", 2, 1 << 20, "from C"))
        self.assertEqual(only(ev, "counter")[0]["name"], "c.device_bytes")

    @_FORK_UNDER_ASAN
    def test_forked_child_records_its_own_file(self):
        r = self.run_py("""
import os, walltime
with walltime.span("parent", "before"):
    pass
with walltime.span("parent", "open across fork"):
    pid = os.fork()
    if pid == 0:
        with walltime.span("child", "in child"):
            pass
        os._exit(0 if walltime.close() == 0 else 3)
    _, st = os.waitpid(pid, 0)
print(os.getpid(), pid, st)
""")
        ppid, cpid, st = (int(x) for x in r.out.split()[:3])
        self.assertEqual(st, 0)
        paths = {os.path.basename(p): p for p in r.traces()}
        self.assertEqual(sorted(paths), sorted([f"t-{ppid}.wtrace", f"t-{cpid}.wtrace"]))
        parent = dump(paths[f"t-{ppid}.wtrace"])
        child = dump(paths[f"t-{cpid}.wtrace"])
        self.assertEqual(sorted(s["label"] for s in spans(parent)), ["before", "open across fork"])
        self.assertEqual([s["label"] for s in spans(child)], ["in child"])
        self.assertEqual(spans(child)[0]["depth"], 0)
        h = header(paths[f"t-{cpid}.wtrace"])
        self.assertEqual((h["pid"], h["parent_pid"], h["format_minor"]), (cpid, ppid, 1))
        self.assertEqual(len(h["run_id"]), 32)
        self.assertNotEqual(h["run_id"], header(paths[f"t-{ppid}.wtrace"])["run_id"])
        # the child's thread is named again in its own file
        self.assertEqual([t["name"] for t in only(child, "thread_name")], ["MainThread"])

    @_FORK_UNDER_ASAN
    def test_multiprocessing_workers_close_their_files(self):
        r = self.run_py("""
import multiprocessing as mp, os, walltime
def work(i):
    with walltime.span("worker", f"item{i}"):
        pass
if __name__ == "__main__":
    with walltime.span("parent", "pool"):
        ps = [mp.get_context("fork").Process(target=work, args=(i,)) for i in range(3)]
        for p in ps: p.start()
        for p in ps: p.join()
    print(os.getpid(), *[p.pid for p in ps])
""")
        pids = [int(x) for x in r.out.split()[:4]]
        paths = r.traces()
        self.assertEqual(len(paths), 4)
        labels = set()
        for p in paths:
            ev = dump(p)
            pid = ev[0]["pid"]
            self.assertIn(pid, pids)
            if pid != pids[0]:
                self.assertEqual(header(p)["parent_pid"], pids[0])
                self.assertEqual(only(ev, "end")[0]["end"], "clean")  # closed before os._exit
            labels |= {s["label"] for s in spans(ev)}
        self.assertEqual(labels, {"pool", "item0", "item1", "item2"})

    def test_rank_metadata(self):
        r = self.run_py("""
import walltime
walltime.counter("x", 1)
""", {"RANK": "3", "LOCAL_RANK": "1", "WORLD_SIZE": "4"})
        meta = {m["key"]: m["value"] for m in only(self.one_trace(r), "meta")}
        self.assertEqual(meta, {"rank": "3", "local_rank": "1", "world_size": "4"})

    def test_rounds_alternate_and_bracket(self):
        r = self.run_py("""
import walltime
seen = []
for cfg, rnd in walltime.rounds({"keep": True, "skip": None}, 2):
    seen.append((cfg, rnd))
    with walltime.span("from_pretrained", cfg):
        pass
print(seen)
""")
        self.assertTrue(r.out.startswith("[('keep', 0), ('skip', 0), ('keep', 1), ('skip', 1)]"), r.out)
        ev = self.one_trace(r)
        rounds = [(e["config"], e["round"]) for e in only(ev, "round")]
        self.assertEqual(rounds, [("keep", 0), ("skip", 0), ("keep", 1), ("skip", 1)])
        for rd, s in zip(only(ev, "round"), spans(ev)):
            self.assertLessEqual(rd["ts"], s["ts"])
            self.assertLessEqual(s["ts"] + s["dur"], rd["ts"] + rd["dur"])

    def test_pagecache_probe(self):
        r = self.run_py("""
import walltime
with open("blob", "wb") as f:
    f.write(b"x" * 100000)
print(walltime.pagecache_probe("blob", "blob"), walltime.pagecache_probe("missing"))
""")
        got, missing = r.out.split()[:2]
        self.assertTrue(0 <= int(got) <= 100000)
        self.assertEqual(missing, "None")
        names = {c["name"]: c["value"] for c in only(self.one_trace(r), "counter")}
        self.assertEqual(names["blob.file_bytes"], 100000)

    def test_import_error_says_how_to_build(self):
        pkg = os.path.join(PYTHONPATH, "walltime")
        tmp = tempfile.mkdtemp(prefix="wt-noext-")
        self.addCleanup(shutil.rmtree, tmp)
        os.mkdir(os.path.join(tmp, "walltime"))
        for f in os.listdir(pkg):
            if f.endswith(".py"):
                shutil.copy(os.path.join(pkg, f), os.path.join(tmp, "walltime", f))
        env = dict(os.environ, PYTHONPATH=tmp)
        run = lambda: subprocess.run([sys.executable, "-c", "import walltime"], env=env,
                                     capture_output=True, text=True)
        p = run()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("ImportError: the walltime C extension", p.stderr)
        self.assertIn("is not built for Python", p.stderr)
        self.assertIn("cmake --build build", p.stderr)
        self.assertIn("pip install --no-build-isolation ./python", p.stderr)
        # an extension built for another Python
        open(os.path.join(tmp, "walltime", "_walltime.cpython-39-x86_64-linux-gnu.so"), "wb").close()
        p = run()
        self.assertIn("built for another Python (_walltime.cpython-39-x86_64-linux-gnu.so)", p.stderr)


if __name__ == "__main__":
    unittest.main()
