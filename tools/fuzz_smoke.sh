#!/usr/bin/env bash
# The fuzz smoke of CI (docs/FUZZING.md): builds the libFuzzer harness with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer, writes its seed corpus and fuzzes for
# FUZZ_SECONDS (default 60) from it. A crash, sanitizer report, broken invariant, hang or
# allocation past the limits fails the run; the input is left in $BUILD_DIR/fuzz/smoke/artifacts.
# Installs clang and libFuzzer (Debian 12: clang, libclang-rt-14-dev) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "walltime: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
dir=${BUILD_DIR:-build-fuzz}
CC=clang cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWT_FUZZ=ON \
  -DWT_SANITIZE="address;undefined" -DWT_BUILD_TESTS=OFF -DWT_BUILD_BENCH=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" --target fuzz_reader fuzz_seeds >/dev/null
cd "$dir/fuzz"
rm -rf smoke
mkdir -p smoke/seeds smoke/corpus smoke/artifacts
./fuzz_seeds smoke/seeds
status=0
./fuzz_reader -max_total_time="${FUZZ_SECONDS:-60}" -max_len=65536 -timeout=20 \
  -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix=smoke/artifacts/ \
  -print_final_stats=1 smoke/corpus smoke/seeds >smoke/fuzz.log 2>&1 || status=$?
grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)" smoke/fuzz.log || true
if [ "$status" -ne 0 ]; then
  echo "fuzz smoke: a finding (exit $status); the end of its log:" >&2
  tail -40 smoke/fuzz.log >&2
  ls -l smoke/artifacts >&2
  exit 1
fi
echo "fuzz smoke: ${FUZZ_SECONDS:-60} s, no finding"
