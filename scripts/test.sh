#!/usr/bin/env bash
# test.sh: set up, build with warnings as errors, run every test; then again under
# AddressSanitizer + UndefinedBehaviorSanitizer. This is what CI runs.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh
export LC_ALL=C
jobs=$(nproc)
cmake -S . -B build-ci -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBENCHDB_WERROR=ON >/dev/null
cmake --build build-ci -j"$jobs"
(cd build-ci && ctest --output-on-failure -j"$jobs")
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DBENCHDB_WERROR=ON -DBENCHDB_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && ctest --output-on-failure -j"$jobs")
# libFuzzer on every importer: a fixed number of inputs with a fixed seed, so a run is
# repeatable (longer, open-ended runs: scripts/fuzz.sh SECONDS)
scripts/fuzz.sh --runs 20000
