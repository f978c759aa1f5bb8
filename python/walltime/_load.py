"""Finds the compiled half of the package and says how to build it when it is missing."""

from __future__ import annotations

import glob
import importlib
import os
import sys
import sysconfig

_HOW = (
    "build it with the project's CMake (cmake -S . -B build && cmake --build build) and put "
    "build/python on PYTHONPATH, or install the package with "
    "`pip install --no-build-isolation ./python`; docs/PYTHON.md has the details"
)


def load():
    """The extension module walltime._walltime; ImportError saying how to build it when it is
    not there, or is there only for another Python."""
    try:
        return importlib.import_module("walltime._walltime")
    except ImportError as e:
        here = os.path.dirname(os.path.abspath(__file__))
        found = sorted(os.path.basename(p) for p in glob.glob(os.path.join(here, "_walltime*.so")))
        want = "_walltime" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")
        py = f"Python {sys.version_info[0]}.{sys.version_info[1]} ({sys.executable})"
        if found and want not in found:
            why = f"the walltime extension here is built for another Python ({', '.join(found)}), not {py} which needs {want}"
        elif found:
            why = f"the walltime extension {want} does not load: {e}"
        else:
            why = f"the walltime C extension ({want}) is not built for {py}"
        raise ImportError(f"{why}; {_HOW}") from e
