"""Shared by the Python tests: run a scenario in a fresh interpreter (each is a new process,
so a new recorder and a new ledger) with the build tree's walltime on its path, and read the
traces it wrote back through `walltime-analyze dump --json` and `info --json`."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

ANALYZE = os.environ.get("WT_ANALYZE", "walltime-analyze")
PYTHONPATH = os.environ.get("WT_PYTHONPATH", "")


# GCC 12's AddressSanitizer takes no lock of its allocator across fork(): when the recorder's
# writer thread is inside malloc at the fork, the child's first thread start waits for ever on
# the allocator's region mutex (seen in CI: the child's new writer thread blocked in
# SizeClassAllocator64::GetFromAllocator under AsanThread::Init). glibc's malloc is fork-safe,
# so the tests that fork run in the plain build; tests/test_fork.c covers fork in C under ASan.
FORK_UNDER_ASAN = unittest.skipIf(
    os.environ.get("WT_SANITIZE"), "ASan's allocator is not fork-safe with a second thread")


class Run:
    """A scenario's process: its output and the directory its traces went to."""

    def __init__(self, code: str, env: dict | None = None, timeout: float = 120):
        self.dir = tempfile.mkdtemp(prefix="wt-py-")
        e = dict(os.environ)
        for k in ("WALLTIME", "TT_WALLTIME", "WALLTIME_RANK", "RANK", "LOCAL_RANK", "WORLD_SIZE"):
            e.pop(k, None)
        e["PYTHONPATH"] = PYTHONPATH
        e["WALLTIME_TRACE"] = os.path.join(self.dir, "t-%p.wtrace")
        e["WALLTIME_SUMMARY"] = "0"
        e.update(env or {})
        self.proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=e,
                                   cwd=self.dir, capture_output=True, text=True, timeout=timeout)
        self.out, self.err, self.rc = self.proc.stdout, self.proc.stderr, self.proc.returncode

    def traces(self) -> list[str]:
        return sorted(glob.glob(os.path.join(self.dir, "*.wtrace*")))

    def cleanup(self) -> None:
        for p in glob.glob(os.path.join(self.dir, "*")):
            os.unlink(p)
        os.rmdir(self.dir)


def dump(path: str) -> list[dict]:
    """The trace's header and events as dump --json gives them."""
    p = subprocess.run([ANALYZE, "dump", "--json", path], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def header(path: str) -> dict:
    """The header as info --json gives it (it has the 1.1 fields)."""
    p = subprocess.run([ANALYZE, "info", "--json", path], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)["files"][0]["header"]


def spans(events: list[dict]) -> list[dict]:
    return [e for e in events if e["kind"] == "span"]


class RunCase(unittest.TestCase):
    """A test case whose scenarios run in fresh interpreters, cleaned up after the test."""

    def run_py(self, code: str, env: dict | None = None) -> Run:
        r = Run(code, env)
        self.addCleanup(r.cleanup)
        self.assertEqual(r.rc, 0, r.err)
        return r
