"""`pip install ./python` without network: the package's build backend (python/wt_build.py)
builds a wheel with nothing but the standard library and the project's CMake, and the
installed package imports and records with no library path (the extension finds the
libwalltime.so.0 beside it by its $ORIGIN rpath). pip itself is not needed for this: the test
calls the backend as pip would and unpacks the wheel as pip would."""

import glob
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

from wtpy import ANALYZE

PYDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")


@unittest.skipIf(os.environ.get("WT_SANITIZE"), "the wheel is an unsanitized build; tested in the plain build")
class Wheel(unittest.TestCase):
    def test_backend_builds_a_wheel_that_imports_without_a_library_path(self):
        with tempfile.TemporaryDirectory(prefix="wt-wheel-") as tmp:
            out = os.path.join(tmp, "dist")
            code = (f"import sys; sys.path.insert(0, {os.path.abspath(PYDIR)!r}); import wt_build; "
                    f"print(wt_build.get_requires_for_build_wheel()); print(wt_build.build_wheel({out!r}))")
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
            self.assertEqual(p.returncode, 0, p.stderr[-3000:])
            requires, name = p.stdout.split("\n")[:2]
            self.assertEqual(requires, "[]")  # nothing to fetch from an index
            whl = os.path.join(out, name)
            with zipfile.ZipFile(whl) as z:
                names = z.namelist()
                self.assertIn("walltime/libwalltime.so.0", names)
                self.assertTrue(any(n.startswith("walltime/_walltime.cpython-") for n in names))
                record = z.read("walltime-0.1.0.dist-info/RECORD").decode()
                self.assertEqual(len(record.strip().splitlines()), len(names))
                site = os.path.join(tmp, "site")
                z.extractall(site)
            for so in glob.glob(os.path.join(site, "walltime", "*.so*")):
                os.chmod(so, 0o755)
            env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "WALLTIME", "TT_WALLTIME")}
            env.update(PYTHONPATH=site, WALLTIME_TRACE=os.path.join(tmp, "w-%p.wtrace"), WALLTIME_SUMMARY="0")
            p = subprocess.run([sys.executable, "-c", (
                "import walltime, atexit; atexit.unregister(walltime._atexit)\n"
                "with walltime.timed('weights', 'from the wheel'): pass\n"
                "print(walltime._ext.__file__)")], env=env, capture_output=True, text=True, cwd=tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(p.stdout.startswith(os.path.join(site, "walltime")), p.stdout)
            [trace] = glob.glob(os.path.join(tmp, "w-*.wtrace"))
            d = subprocess.run([ANALYZE, "dump", trace], capture_output=True, text=True, check=True)
            self.assertIn('label="from the wheel"', d.stdout)


if __name__ == "__main__":
    unittest.main()
