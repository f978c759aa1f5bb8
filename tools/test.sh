#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, runs every test with ctest.
# BUILD_DIR (default build) and extra CMake arguments in CMAKE_ARGS may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
dir=${BUILD_DIR:-build}
cmake -S . -B "$dir" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$dir" -j"$(nproc)"
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" ${CTEST_ARGS:-}
