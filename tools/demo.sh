#!/usr/bin/env bash
# The README's main job: installs dependencies, builds, records the sample model load
# (samples/hello_load), prints its ledger and anomalies, and exports it for ui.perfetto.dev.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
cmake -S . -B build -DWT_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
out=${OUT_DIR:-demo}
mkdir -p "$out"
rm -f "$out/hello_load.wtrace" "$out/hello_load.pftrace"
WALLTIME_TRACE="$out/hello_load.wtrace" WALLTIME_SUMMARY=0 build/samples/hello_load
build/analyze/walltime-analyze ledger "$out/hello_load.wtrace"
build/analyze/walltime-analyze export "$out/hello_load.wtrace" -o "$out/hello_load.pftrace"
echo
echo "open $out/hello_load.pftrace in https://ui.perfetto.dev (Open trace file)"
