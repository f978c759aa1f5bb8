"""The package's PEP 517 build backend: `pip install ./python` lands here.

It builds the extension with the project's CMake against the Python running the build, and
writes a wheel holding the package, the extension and libwalltime.so.0 (found by the
extension's $ORIGIN rpath: no library path at run time). It uses nothing but the standard
library, so pip needs no index to build it, with or without build isolation. The source tree
is the folder above this one, or WALLTIME_SOURCE_DIR."""

from __future__ import annotations

import base64
import glob
import hashlib
import os
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

NAME, VERSION = "walltime", "0.1.0"
HERE = os.path.dirname(os.path.abspath(__file__))


def _tag() -> str:
    py = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{py}-{py}-{plat}"


def _cmake_build(build: str) -> str:
    """Builds walltime_python in `build`; returns the assembled package folder."""
    source = os.environ.get("WALLTIME_SOURCE_DIR", os.path.dirname(HERE))
    if not os.path.exists(os.path.join(source, "libtrace", "CMakeLists.txt")):
        raise RuntimeError(f"walltime: no source tree at {source}; set WALLTIME_SOURCE_DIR")
    subprocess.check_call([
        "cmake", "-S", source, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
        "-DWT_BUILD_TESTS=OFF", "-DWT_BUILD_BENCH=OFF", "-DWT_BUILD_SAMPLES=OFF",
        f"-DPython3_EXECUTABLE={sys.executable}", "-DWT_PYTHON_RPATH=$ORIGIN",
    ], stdout=sys.stderr)
    subprocess.check_call(["cmake", "--build", build, "--target", "walltime_python",
                           "-j", str(os.cpu_count() or 2)], stdout=sys.stderr)
    return os.path.join(build, "python", NAME)


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _metadata() -> str:
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
            "Summary: walltime: the seed's wall-time ledger, recorded by libwalltime\n"
            "Requires-Python: >=3.8\n")


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    tag = _tag()
    wheel_name = f"{NAME}-{VERSION}-{tag}.whl"
    dist_info = f"{NAME}-{VERSION}.dist-info"
    with tempfile.TemporaryDirectory(prefix="walltime-build-") as tmp:
        pkg = _cmake_build(tmp)
        files = {}
        for path in sorted(glob.glob(os.path.join(pkg, "*.py"))) + glob.glob(os.path.join(pkg, "_walltime*.so")):
            with open(path, "rb") as f:
                files[f"{NAME}/{os.path.basename(path)}"] = f.read()
        # the library under its soname, the name the extension asks the loader for
        lib = os.path.realpath(glob.glob(os.path.join(tmp, "libtrace", "libwalltime.so.*"))[0])
        with open(lib, "rb") as f:
            files[f"{NAME}/libwalltime.so.0"] = f.read()
        files[f"{dist_info}/METADATA"] = _metadata().encode()
        files[f"{dist_info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: wt_build\nRoot-Is-Purelib: false\n"
                                       f"Tag: {tag}\n").encode()
        record = [_record_line(n, d) for n, d in files.items()] + [f"{dist_info}/RECORD,,"]
        files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
        os.makedirs(wheel_directory, exist_ok=True)
        with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as z:
            for n, d in files.items():
                info = zipfile.ZipInfo(n, date_time=(2026, 1, 1, 0, 0, 0))
                info.external_attr = (0o755 if n.endswith(".so") or ".so." in n else 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, d)
    return wheel_name
