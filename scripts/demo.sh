#!/usr/bin/env bash
# demo.sh: set up, build, import the bundled example results (real fio runs on tmpfs and on the
# local disk, three repeats each) and write the comparison report as Markdown, HTML and XLSX
# to out/.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
mkdir -p out
rm -f out/demo.sqlite
build/benchdb --db out/demo.sqlite import --storage-class disk examples/disk/*.json
build/benchdb --db out/demo.sqlite import --storage-class tmpfs examples/tmpfs/*.json
for ext in md html xlsx; do
  build/benchdb --db out/demo.sqlite report --compare disk tmpfs -o out/report.$ext
done
echo "wrote out/report.md, out/report.html and out/report.xlsx (warehouse: out/demo.sqlite)"
