#!/usr/bin/env bash
# report_scale.sh [RESULTS]: report --compare on a warehouse of RESULTS results (default
# 1,000,000) against sqlite3 running the equivalent aggregate. The warehouse is the bundled
# examples (24 real fio results) copied inside SQLite until it holds RESULTS results, with the
# metric values varied by a few percent per copy. Prints a Markdown table. Uses build-bench/.
set -eu
cd "$(dirname "$0")/.."
want=${1:-1000000}
command -v /usr/bin/time >/dev/null || { echo "report_scale.sh: needs /usr/bin/time" >&2; exit 2; }
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" --target benchdb >/dev/null
bdb=$PWD/build-bench/benchdb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/w.sqlite
"$bdb" --db "$db" import --storage-class disk examples/disk/*.json 2>/dev/null
"$bdb" --db "$db" import --storage-class tmpfs examples/tmpfs/*.json 2>/dev/null
copies=$(( want / 24 ))
cols="run_id, host, peer, storage_class, sec, mount_id, job, direction, rw, bs_bytes, iodepth,
  numjobs, direct, sync, fsync, fdatasync, ioengine, size_bytes, rwmixread, runtime_s, error,
  error_msg, line_first, line_last, transcribed"
sqlite3 "$db" "
  CREATE TEMP TABLE base AS SELECT * FROM result;
  CREATE TEMP TABLE basem AS SELECT * FROM metric;
  WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $copies)
  INSERT INTO result(id, $cols) SELECT b.id + 100 * k.i, $cols FROM base b, k;
  WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $copies)
  INSERT INTO metric SELECT m.result_id + 100 * k.i, m.name, m.value * (1 + (k.i % 7) / 100.0)
  FROM basem m, k;"
n=$(sqlite3 "$db" "SELECT count(*) FROM result")
measure() { # name cmd...: "seconds peak-RSS-MB"
    shift
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>&1
    read -r s kb <"$work/time"
    echo "$s $((kb / 1024))"
}
read -r s_b m_b < <(measure benchdb "$bdb" --db "$db" report --compare disk tmpfs)
read -r s_q m_q < <(measure sqlite3 sqlite3 "$db" "SELECT r.storage_class, r.rw, r.bs_bytes,
  r.iodepth, r.numjobs, r.direct, r.sync, r.fsync, r.direction, m.name, count(*), avg(m.value),
  min(m.value), max(m.value) FROM result r JOIN metric m ON m.result_id = r.id AND m.name IN
  ('bw_bytes_s', 'iops', 'clat_mean_ns', 'clat_p99_ns') WHERE r.storage_class IN ('disk',
  'tmpfs') AND r.error = 0 GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10")
echo "| run | results | seconds | peak RSS MB |"
echo "|---|---|---|---|"
echo "| benchdb report --compare (md: comparison, insights, recommendations) | $n | $s_b | $m_b |"
echo "| sqlite3: the same groups, n/avg/min/max of the 4 compared metrics | $n | $s_q | $m_q |"
awk -v a="$s_b" -v b="$s_q" 'BEGIN { printf "\nbenchdb / sqlite3: %.2fx (goal: at most 2x)\n", a / b }'
