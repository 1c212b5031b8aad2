#!/usr/bin/env bash
# log.sh BENCHDB LOG [RUNS]: issue 35's log row. Imports the fio log LOG into a new warehouse
# with one parser thread (-j 1) and with the default (one per CPU, at most 8), and the same
# as dry runs (-n: parsing alone, no hashing, packing or storing), against
# `dd bs=4M conv=fsync` of the same file on the same disk and bench/log_floor.c (read the
# file, parse five columns); RUNS (default 3) interleaved rounds. Prints one line per run
# (wall s, user+sys CPU s, peak RSS KiB, exit status), then the medians as a Markdown table.
# Make LOG with: bench/gen.py log LOG 1024 SRC (SRC: a real fio log). Work files go next to
# LOG's directory in a directory removed on exit.
set -eu
bdb=$1 log=$2 runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "$(dirname "$log")/benchdb-log.XXXXXX")
trap 'rm -rf "$work"' EXIT
gcc -O2 -D_GNU_SOURCE -o "$work/log_floor" "$here/log_floor.c"
rows=$work/rows
one() { # WHO CMD...
    local who=$1 t0 t1 status=0
    shift
    rm -f "$work"/w.sqlite* "$work/copy"
    t0=$(date +%s%N)
    /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || status=$?
    t1=$(date +%s%N)
    read -r u s m <"$work/time"
    printf '%s\t%s\t%s\t%s\t%s\n' "$who" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')" \
        "$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')" "$m" "$status" | tee -a "$rows"
}
for _ in $(seq "$runs"); do
    one "benchdb -j 1" "$bdb" --db "$work/w.sqlite" import -q -j 1 "$log"
    one "benchdb (default -j)" "$bdb" --db "$work/w.sqlite" import -q "$log"
    one "benchdb -n -j 1 (parse only)" "$bdb" import -n -j 1 "$log"
    one "benchdb -n (parse only, default -j)" "$bdb" import -n "$log"
    one "dd bs=4M conv=fsync" dd if="$log" of="$work/copy" bs=4M conv=fsync
    one "log_floor.c" "$work/log_floor" "$log"
done
echo
/usr/bin/python3 - "$rows" "$runs" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    who, wall, cpu, rss, _ = line.rstrip("\n").split("\t")
    rows.setdefault(who, []).append((float(wall), float(cpu), int(rss)))
print("| what | wall s (median of %s) | CPU s (user + sys) | peak RSS MiB |" % sys.argv[2])
print("|---|---|---|---|")
for who, r in rows.items():
    med = [statistics.median(x[i] for x in r) for i in range(3)]
    print("| %s | %.2f | %.2f | %.1f |" % (who, med[0], med[1], med[2] / 1024))
PY
