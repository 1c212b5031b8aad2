#!/usr/bin/env bash
# fuzz.sh [SECONDS | --runs N] [IMPORTER...]: build the libFuzzer targets with clang
# (build-fuzz/) and run each for SECONDS (default 20), or for exactly N inputs with a fixed seed
# (--runs: repeatable, so CI cannot fail by chance), seeded from tests/corpus/<importer>/. New inputs go to
# build-fuzz/corpus/<importer>/; a crash, leak, timeout or sanitizer report stops with status 1
# and leaves the input in build-fuzz/artifacts/<importer>/ (copy it to tests/corpus/<importer>/
# once fixed, so the replay CTest keeps it). Default: every importer in ingest/registry.c, then
# labels (tests/fuzz/fuzz_labels.c: the sidecar, mount and date parsers).
set -eu
cd "$(dirname "$0")/.."
limit="-max_total_time=${1:-20}" what="${1:-20}s"
if [ "${1:-}" = --runs ]; then
    limit="-runs=$2 -seed=1" what="$2 runs (seed 1)"
    shift 2
elif [ $# -gt 0 ]; then
    shift
fi
jobs=$(nproc)
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBENCHDB_FUZZ=ON \
    -DBENCHDB_WERROR=OFF >/dev/null
cmake --build build-fuzz -j"$jobs" >build-fuzz/build.log 2>&1 || { tail -n 40 build-fuzz/build.log >&2; exit 1; }
if [ $# -eq 0 ]; then
    set -- $(grep -o '&importer_[a-z0-9_]*' ingest/registry.c | sed 's/^&importer_//') labels
fi
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for imp in "$@"; do
    work=build-fuzz/corpus/$imp art=build-fuzz/artifacts/$imp
    mkdir -p "$work" "$art"
    log=build-fuzz/fuzz-$imp.log
    # shellcheck disable=SC2086 # $limit holds one or two options
    if ! build-fuzz/tests/fuzz_"$imp" $limit -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$art/" "$work" "tests/corpus/$imp" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "fuzz.sh: $imp: finding after $(grep -c '^#' "$log") status lines; input in $art/" >&2
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz.sh: $imp: $what, $runs inputs, no finding"
done
