#!/usr/bin/env bash
# first_import.sh [N] [RUNS]: issue 35 item 1's row. N (default 3,000) fio JSON files made by
# bench/gen.py varied from two real fio outputs are imported into a new warehouse by $BENCHDB
# (default build/benchdb) and, when set, by $BEFORE (a build of an earlier commit); into a
# warehouse that already holds N other such files (so has its dictionary) by $BENCHDB; by
# bench/naive.py (python's json and sqlite3) and by bench/floor.c (cJSON and one prepared
# insert). RUNS (default 3) interleaved rounds; prints each run (wall s, user+sys s, peak RSS
# KiB), then the medians, the ratios to naive.py and floor.c, and each warehouse's bytes against
# the input's, as a Markdown table. RETRAIN=1 adds the retraining's cost (below). Work files
# live in a directory under $TMPDIR, removed on exit.
set -eu
cd "$(dirname "$0")/.."
n=${1:-3000} runs=${2:-3}
benchdb=$(realpath "${BENCHDB:-build/benchdb}")
before=${BEFORE:+$(realpath "$BEFORE")}
work=$(mktemp -d "${TMPDIR:-/tmp}/bdb-first-import.XXXXXX")
trap 'rm -rf "$work"' EXIT
fx=tests/fixtures/fio_json
bases="$fx/two_jobs_fsync.json $fx/unified_mixed.json"
/usr/bin/python3 bench/gen.py varied "$work/json" "$n" $bases
GEN_SEED=5 /usr/bin/python3 bench/gen.py varied "$work/other" "$n" $bases
gcc -O2 -o "$work/floor" bench/floor.c -lcjson -lsqlite3
"$benchdb" --db "$work/seeded.sqlite" import -q "$work/other"
input=$(du -sb "$work/json" | cut -f1)
rows=$work/rows

# one WHO DB CMD...: runs CMD into a fresh DB (seeded.sqlite's copy for "later"), one row
one() {
    local who=$1 db=$2 t0 t1
    shift 2
    rm -f "$db"*
    if [ "$who" = "benchdb, later import" ]; then cp "$work/seeded.sqlite" "$db"; fi
    t0=$(date +%s%N)
    /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/err"
    t1=$(date +%s%N)
    read -r u s m <"$work/time"
    printf '%s\t%s\t%s\t%s\t%s\n' "$who" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')" \
        "$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')" "$m" "$(stat -c %s "$db")" |
        tee -a "$rows" >&2
}
for _ in $(seq "$runs"); do
    one "benchdb, new warehouse" "$work/new.sqlite" "$benchdb" --db "$work/new.sqlite" import -q "$work/json"
    if [ -n "$before" ]; then
        one "before, new warehouse" "$work/old.sqlite" "$before" --db "$work/old.sqlite" import -q "$work/json"
    fi
    one "benchdb, later import" "$work/later.sqlite" "$benchdb" --db "$work/later.sqlite" import -q "$work/json"
    one "naive.py" "$work/naive.sqlite" /usr/bin/python3 bench/naive.py "$work/naive.sqlite" "$work"/json/*.json
    one "floor.c" "$work/floor.sqlite" "$work/floor" "$work/floor.sqlite" "$work"/json/*.json
done
echo "Machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $n files, $input bytes"
/usr/bin/python3 - "$rows" "$input" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
order, by = [], {}
for who, wall, cpu, rss, size in rows:
    if who not in by:
        order.append(who)
    by.setdefault(who, []).append((float(wall), float(cpu), int(rss), int(size)))
med = {w: [statistics.median(v[i] for v in by[w]) for i in range(4)] for w in order}
print("| import | wall (median) | CPU | peak RSS | vs naive.py | vs floor.c | warehouse / input |")
print("|---|---|---|---|---|---|---|")
for w in order:
    wall, cpu, rss, size = med[w]
    print("| %s | %.3f s | %.2f s | %d MiB | %.2fx | %.2fx | %s |" % (
        w, wall, cpu, rss // 1024, med["naive.py"][0] / wall, med["floor.c"][0] / wall,
        "%.2f" % (size / int(sys.argv[2])) if w.startswith(("benchdb, new", "before")) else "-"))
PY

# The retraining the shipped dictionary gives way to (rawstore_train.c's RETRAIN_FILES): 10,240
# files into a new warehouse, whose import trains at its end, against 10,239, which does not;
# then vacuum of the 10,240 (which repacks them against the trained one). RUNS rounds, medians.
if [ "${RETRAIN:-0}" = 1 ]; then
    GEN_SEED=9 /usr/bin/python3 bench/gen.py varied "$work/retrain" 10240 $bases
    short=$(ls "$work/retrain" | head -n 10239 | sed "s|^|$work/retrain/|")
    : >"$work/retrain.rows"
    timed() { # WHO CMD...
        local who=$1 t0 t1
        shift
        t0=$(date +%s%N)
        "$@" >/dev/null 2>"$work/err"
        t1=$(date +%s%N)
        printf '%s\t%s\n' "$who" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')" |
            tee -a "$work/retrain.rows" >&2
    }
    for _ in $(seq "$runs"); do
        rm -f "$work"/r.sqlite* "$work"/s.sqlite*
        # shellcheck disable=SC2086 # one path a word
        timed "10,239 files, no training" "$benchdb" --db "$work/s.sqlite" import -q $short
        timed "10,240 files, trained at the end" "$benchdb" --db "$work/r.sqlite" import -q "$work/retrain"
        before=$(stat -c %s "$work/r.sqlite")
        timed "vacuum of the 10,240" "$benchdb" --db "$work/r.sqlite" vacuum
    done
    echo "warehouse of the 10,240: $before bytes before vacuum, $(stat -c %s "$work/r.sqlite") after"
    /usr/bin/python3 - "$work/retrain.rows" <<'PY'
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    who, wall = line.rstrip("\n").split("\t")
    by.setdefault(who, []).append(float(wall))
print("| step | wall (median) |\n|---|---|")
for who, v in by.items():
    print("| %s | %.3f s |" % (who, statistics.median(v)))
PY
fi
