#!/usr/bin/env bash
# run.sh [SCALE]: benchdb throughput against a C floor (bench/floor.c) and a plain python
# loader (bench/naive.py), log import speed and memory, report speed against sqlite3. Prints a
# Markdown table. SCALE (default 1) multiplies the sizes: 10,000 fio JSON files, 2,000 json+
# files, a 1024 MB latency log. Uses build-bench/ and $TMPDIR.
set -eu
cd "$(dirname "$0")/.."
scale=${1:-1}
n_json=$(python3 -c "print(int(10000*$scale))") n_plus=$(python3 -c "print(int(2000*$scale))")
log_mb=$(python3 -c "print(int(1024*$scale))")
command -v /usr/bin/time >/dev/null || { echo "run.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" --target benchdb >/dev/null
bdb=$PWD/build-bench/benchdb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/floor" bench/floor.c -lcjson -lsqlite3
fx=tests/fixtures/fio_json
python3 bench/gen.py files "$work/json" "$n_json" $fx/two_jobs_fsync.json $fx/unified_mixed.json
python3 bench/gen.py files "$work/plus" "$n_plus" $fx/jsonplus_randrw.json
python3 bench/gen.py log "$work/big_clat.1.log" "$log_mb" tests/fixtures/fio_log/perio_clat.1.log

# measure NAME CMD...: wall seconds and peak RSS (MB) of CMD
measure() {
    local name=$1
    shift
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
        { echo "run.sh: $name failed:" >&2; tail -3 "$work/err" >&2; exit 1; }
    read -r secs kb <"$work/time"
    printf '%s %s %s\n' "$name" "$secs" "$((kb / 1024))"
}
row() { # label files secs rss [baseline_secs]
    awk -v l="$1" -v n="$2" -v s="$3" -v m="$4" -v b="${5:-}" 'BEGIN {
        r = s > 0 ? n / s : 0; rel = (b != "" && s > 0) ? sprintf("%.2fx", b / s) : "";
        printf "| %s | %d | %.2f | %.0f | %d | %s |\n", l, n, s, r, m, rel }'
}

echo "| run | items | seconds | items/s | peak RSS MB | speed vs benchdb |"
echo "|---|---|---|---|---|---|"
for set in json plus; do
    n=$(ls "$work/$set" | wc -l)
    read -r _ s_b m_b < <(measure benchdb "$bdb" --db "$work/$set.sqlite" import "$work/$set"/*.json)
    read -r _ s_f m_f < <(measure floor "$work/floor" "$work/$set-floor.sqlite" "$work/$set"/*.json)
    read -r _ s_p m_p < <(measure naive /usr/bin/python3 bench/naive.py "$work/$set-py.sqlite" "$work/$set"/*.json)
    row "benchdb import ($set files)" "$n" "$s_b" "$m_b" "$s_b"
    row "floor.c ($set files)" "$n" "$s_f" "$m_f" "$s_b"
    row "naive.py ($set files)" "$n" "$s_p" "$m_p" "$s_b"
done
# memory: 100 files vs all of them
read -r _ s m100 < <(measure benchdb "$bdb" --db "$work/m100.sqlite" import $(ls -d "$work/json"/*.json | head -100))
row "benchdb import, 100 files (memory)" 100 "$s" "$m100"
# a big log: MB/s and memory
mb=$(( $(stat -c %s "$work/big_clat.1.log") >> 20 ))
read -r _ s m < <(measure log "$bdb" --db "$work/log.sqlite" import "$work/big_clat.1.log")
row "benchdb import fio log (MB)" "$mb" "$s" "$m"
# report --compare against the same aggregate in sqlite3, on the json warehouse relabelled
# into two classes (half each)
sqlite3 "$work/json.sqlite" "UPDATE result SET storage_class = CASE WHEN id % 2 THEN 'disk' ELSE 'tmpfs' END"
nres=$(sqlite3 "$work/json.sqlite" "SELECT count(*) FROM result")
read -r _ s_r m_r < <(measure report "$bdb" --db "$work/json.sqlite" report --compare disk tmpfs)
read -r _ s_q m_q < <(measure sqlite3 sqlite3 "$work/json.sqlite" "SELECT r.storage_class, r.rw,
    r.bs_bytes, r.direction, m.name, count(*), avg(m.value), min(m.value), max(m.value)
    FROM result r JOIN metric m ON m.result_id = r.id
    WHERE r.storage_class IN ('disk', 'tmpfs') GROUP BY 1, 2, 3, 4, 5")
row "benchdb report --compare (results)" "$nres" "$s_r" "$m_r" "$s_r"
row "sqlite3 aggregate (results)" "$nres" "$s_q" "$m_q" "$s_r"
