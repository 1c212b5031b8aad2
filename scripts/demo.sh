#!/usr/bin/env bash
# demo.sh: set up, build, import the bundled example results (a standard volume capped at
# 3,000 IOPS and 125 MiB/s against an uncapped premium one: ten fio jobs, three runs on each,
# made by examples/gen.sh) and write the comparison report, with the capacity at a latency
# target, as Markdown, HTML and XLSX to out/.
set -eu -o pipefail
cd "$(dirname "$0")/.."
step() { printf '\n== %s\n' "$*"; }
step "installing what the build needs (scripts/setup.sh; nothing when it is there)"
scripts/setup.sh
step "building benchdb in build/ (about a minute the first time; the tests are built by scripts/test.sh)"
mkdir -p out
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# the whole log goes to out/build.log; the screen gets a line per library and program linked
if ! cmake --build build --target benchdb -j"$(nproc)" 2>&1 | tee out/build.log |
  { grep --line-buffered -E '^\[ *[0-9]+%\] (Linking|Built target benchdb$)' || true; }; then
  tail -n 30 out/build.log >&2
  echo "demo: the build failed (the whole log: out/build.log)" >&2
  exit 1
fi
rm -f out/demo.sqlite out/demo.sqlite-*
step "importing examples/: each run's fio json+ output, its bandwidth log and its sidecar (the filesystem and its mount line)"
build/benchdb --db out/demo.sqlite import examples/*/run*/*.json examples/*/run*/*.log
step "comparing premium against standard"
# with the capacity at a p99 target of 1 ms and what it costs (examples/costs.ini): the
# workbook's Inputs, Capacity and Capacity points sheets keep that part live
build/benchdb --db out/demo.sqlite report --compare standard premium \
  --slo 'p99<=1ms' --cost examples/costs.ini -o out/report.md -o out/report.html -o out/report.xlsx
echo "wrote out/report.md, out/report.html and out/report.xlsx (warehouse: out/demo.sqlite)"
grep -m1 '^- \*\*premium vs standard:\*\*' out/report.md | sed 's/^- \*\*\(.*\):\*\* /verdicts, \1: /'
