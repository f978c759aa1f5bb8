#!/usr/bin/env bash
# test_fleet_duckdb: the sample runs (two hand-built traces, hello_load, two bench_load runs
# with keep/skip rounds) exported as tables and queried with docs/FLEET.md's DuckDB blocks
# (check_tables.mjs). Skipped (exit 77) with a clear line when node or DuckDB is absent.
# Usage: run_duckdb_test.sh ANALYZE_BIN SAMPLES_DIR SOURCE_DIR WORKDIR
set -euo pipefail
bin=$1 samples=$2 src=$3 work=$4
if ! command -v node >/dev/null 2>&1; then
  echo "SKIPPED: node is not installed (CI installs it: .ci/run)"
  exit 77
fi
if [ ! -d "$src/tests/fleet/node_modules/@duckdb/node-api" ]; then
  echo "SKIPPED: DuckDB is not installed: run 'npm ci' in tests/fleet (CI does)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/traces"
export WALLTIME_SUMMARY=0
WALLTIME_TRACE="$work/traces/hello-%p.wtrace" "$samples/hello_load" >/dev/null
for i in 1 2; do
  WALLTIME_TRACE="$work/traces/bench$i-%p.wtrace" "$samples/bench_load" --rounds 2 --tensors 6 \
    --tensor-kb 32 >/dev/null
done
cp "$src/tests/data/analyze_a.wtrace" "$src/tests/data/analyze_b.wtrace" "$work/traces/"
cd "$src/tests/fleet"
exec node check_tables.mjs "$bin" "$src/docs/FLEET.md" "$work/db" "$work"/traces/*.wtrace
