#!/usr/bin/env bash
# gen.sh: regenerates the bundled example results with the real fio (Debian's fio 3.33).
# Two "storage classes" on one machine: tmpfs (/dev/shm) and the local disk (/var/tmp), four
# workloads each, three repeats, so that comparisons have a spread to test. Output is fio's own
# JSON, untouched. Usage: examples/gen.sh [OUTDIR] (default: the folder of this script).
set -eu
out=${1:-$(dirname "$0")}
run() { # class dir name rw bs extra...
  local class=$1 dir=$2 name=$3 rw=$4 bs=$5; shift 5
  for rep in 1 2 3; do
    mkdir -p "$out/$class"
    fio --name="$name" --directory="$dir" --filename=benchdb-example.dat --size=64M \
      --rw="$rw" --bs="$bs" --runtime=2 --time_based --ioengine=psync "$@" \
      --output-format=json --output="$out/$class/$name-$rep.json"
    rm -f "$dir/benchdb-example.dat"
  done
}
for class in tmpfs disk; do
  dir=/dev/shm; [ "$class" = disk ] && dir=/var/tmp
  run $class $dir seqwrite write 1M --end_fsync=1
  run $class $dir seqread read 1M
  run $class $dir randread randread 4k
  run $class $dir syncwrite write 4k --fsync=1
done
