#!/usr/bin/env bash
# The README's main job: installs dependencies, builds, records the sample model load
# (samples/model_load: two loader threads, one label per tensor, its conversion cache
# directory unset, so every tensor misses), prints its ledger and anomalies, and exports it
# for ui.perfetto.dev.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
cmake -S . -B build -DWT_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
out=${OUT_DIR:-demo}
mkdir -p "$out"
rm -f "$out/model_load.wtrace" "$out/model_load.pftrace"
WALLTIME_TRACE="$out/model_load.wtrace" WALLTIME_SUMMARY=0 build/samples/model_load | sed -n 1p
build/analyze/walltime-analyze ledger "$out/model_load.wtrace"
build/analyze/walltime-analyze export "$out/model_load.wtrace" -o "$out/model_load.pftrace"
echo
echo "open $out/model_load.pftrace in https://ui.perfetto.dev (Open trace file)"
