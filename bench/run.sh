#!/usr/bin/env bash
# run.sh [--old REV] [--quick] [SCALE]: issue 12's table, the old and the new benchdb beside
# each reference. Builds benchdb at REV (default 2134e20, the release before issue 12; a git
# worktree under $TMPDIR) and at the current tree (build-bench/), both Release, and measures:
#   - importing N fio JSON files (bench/gen.py) against bench/floor.c and bench/naive.py,
#     N/5 json+ files against floor.c: 3 interleaved runs each, the median;
#   - report --compare on a million results (bench/scale_db.py: the bundled examples imported
#     by each benchdb and copied inside its own schema) against the sqlite3 CLI's GROUP BY
#     over a plain wide table of the same values: 1 run each;
#   - importing a 1 GiB fio log against `dd bs=4M conv=fsync`: 1 run each;
#   - peak RSS importing 100 vs N files, and the warehouse's bytes against the input's.
# SCALE (default 1: 10,000 files, 2,000 json+ files, 1,000,000 results, 1024 MiB) multiplies
# every size; --quick is SCALE 0.05 (about a minute). The page cache is not dropped (that
# needs root): all runs are warm. Prints the machine, then one Markdown table; progress and
# each run's figures go to stderr. Work files live in a directory under $TMPDIR, removed on exit.
set -eu
cd "$(dirname "$0")/.."
old_rev=2134e20 scale=1
while [ $# -gt 0 ]; do
    case $1 in
    --old) old_rev=$2; shift 2 ;;
    --quick) scale=0.05; shift ;;
    -h | --help) sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) scale=$1; shift ;;
    esac
done
scaled() { /usr/bin/python3 -c "import math; print(max(1, math.ceil($1 * $scale)))"; }
n_json=$(scaled 10000) n_plus=$(scaled 2000) n_results=$(scaled 1000000) log_mib=$(scaled 1024)
command -v /usr/bin/time >/dev/null || { echo "run.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "run.sh: needs the sqlite3 CLI" >&2; exit 2; }
started=$(date +%s)

work=$(mktemp -d "${TMPDIR:-/tmp}/benchdb-bench.XXXXXX")
cleanup() {
    git worktree remove --force "$work/old-src" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
log() { echo "run.sh: $*" >&2; }

# build DIR SRC: a Release benchdb of the source tree SRC in DIR
build() {
    cmake -S "$2" -B "$1" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$1" -j"$(nproc)" --target benchdb >/dev/null
}
log "building the new benchdb (build-bench/) and the old one ($old_rev)"
build build-bench .
git worktree add --detach --quiet "$work/old-src" "$old_rev"
build "$work/old-build" "$work/old-src"
new=$PWD/build-bench/benchdb old=$work/old-build/benchdb
gcc -O2 -o "$work/floor" bench/floor.c -lcjson -lsqlite3
measurements=$work/measurements.tsv
{
    printf 'rev\told\t%s\n' "$(git rev-parse --short "$old_rev")"
    printf 'rev\tnew\t%s%s\n' "$(git rev-parse --short HEAD)" \
        "$(git diff --quiet HEAD -- . ':!bench' || echo '+changes')"
    printf 'count\tjson\t%s\ncount\tplus\t%s\ncount\tlog\t%s\n' "$n_json" "$n_plus" "$log_mib"
} >"$measurements"
contenders=(old new)
if "$new" import --help 2>&1 | grep -q -- --jobs; then
    contenders=(old new-j1 new)
fi
# bdb WHO: that benchdb's binary; jobs WHO: its import options
bdb() { if [ "$1" = old ]; then echo "$old"; else echo "$new"; fi; }
jobs() { if [ "$1" = new-j1 ]; then echo "-j 1"; fi; }

log "generating inputs: $n_json fio JSON files, $n_plus json+ files, a $log_mib MiB log"
fx=tests/fixtures/fio_json
/usr/bin/python3 bench/gen.py files "$work/json" "$n_json" $fx/two_jobs_fsync.json $fx/unified_mixed.json
/usr/bin/python3 bench/gen.py files "$work/plus" "$n_plus" $fx/jsonplus_randrw.json
printf 'size\tjson\tinput\t%s\n' "$(du -sb --apparent-size "$work/json" | cut -f1)" >>"$measurements"

# measure ITEM WHO CMD...: runs CMD in a fresh directory $work/out (its warehouse goes there)
# and records wall seconds, peak RSS and exit status
measure() {
    local item=$1 who=$2 t0 t1 status=0
    shift 2
    rm -rf "$work/out" && mkdir "$work/out"
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$work/rss" "$@" >/dev/null 2>"$work/err" || status=$?
    t1=$(date +%s%N)
    [ "$status" = 0 ] || { log "$item/$who failed (exit $status):"; tail -3 "$work/err" >&2; }
    local row
    row=$(printf '%s\t%s\t%s\t%s\t%s' "$item" "$who" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')" \
        "$(tail -1 "$work/rss" | tr -dc 0-9)" "$status")
    printf 'time\t%s\n' "$row" >>"$measurements"
    log "$row"
}
# the bytes a command left in $work/out: the warehouse, its -wal and anything next to it
record_size() { printf 'size\t%s\t%s\t%s\n' "$1" "$2" "$(du -sb "$work/out" | cut -f1)" >>"$measurements"; }

# import_files SET REFERENCE...: 3 interleaved runs of every benchdb and reference on SET
import_files() {
    local set=$1 who
    shift
    for _ in 1 2 3; do
        for who in "${contenders[@]}" "$@"; do
            case $who in
            floor) measure "$set" floor "$work/floor" "$work/out/w.sqlite" "$work/$set"/*.json ;;
            naive) measure "$set" naive /usr/bin/python3 bench/naive.py "$work/out/w.sqlite" "$work/$set"/*.json ;;
            *)
                # shellcheck disable=SC2046 # jobs' words are options
                measure "$set" "$who" "$(bdb "$who")" --db "$work/out/w.sqlite" import $(jobs "$who") "$work/$set"/*.json
                [ "$set" != json ] || record_size json "$who"
                ;;
            esac
        done
    done
}
log "importing the files"
import_files json floor naive
import_files plus floor
hundred=$(printf '%s\n' "$work/json"/*.json | head -100)
for who in old new; do
    # shellcheck disable=SC2086 # a list of paths without spaces
    measure rss100 "$who" "$(bdb "$who")" --db "$work/out/w.sqlite" import $hundred
done

log "importing the log"
/usr/bin/python3 bench/gen.py log "$work/big_clat.1.log" "$log_mib" tests/fixtures/fio_log/perio_clat.1.log
for who in old new dd; do
    case $who in
    dd) measure log dd dd if="$work/big_clat.1.log" of="$work/out/copy" bs=4M conv=fsync ;;
    *) measure log "$who" "$(bdb "$who")" --db "$work/out/w.sqlite" import "$work/big_clat.1.log" ;;
    esac
done
rm -rf "$work/big_clat.1.log" "$work/out"

log "building the $n_results-result warehouses"
for who in old new; do
    for cls in disk tmpfs; do
        "$(bdb "$who")" --db "$work/$who.sqlite" import --storage-class $cls tests/fixtures/disk_tmpfs/$cls/*.json 2>/dev/null
    done
done
/usr/bin/python3 bench/scale_db.py reference "$work/old.sqlite" "$work/ref.sqlite" "$n_results" >/dev/null
for who in old new; do
    printf 'count\treport\t%s\n' "$(/usr/bin/python3 bench/scale_db.py replicate "$work/$who.sqlite" "$n_results")" >>"$measurements"
done
log "reporting"
for who in old new sqlite3; do
    case $who in
    sqlite3) measure report sqlite3 sqlite3 "$work/ref.sqlite" "$(/usr/bin/python3 bench/scale_db.py query)" ;;
    *) measure report "$who" "$(bdb "$who")" --db "$work/$who.sqlite" report --compare disk tmpfs ;;
    esac
done

fs=$(df -T "$work" | awk 'NR == 2 { print $2 }')
cat <<EOF
Machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), \
$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, \$TMPDIR on $fs; \
load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(sqlite3 --version | cut -d' ' -f1) \
(sqlite3 CLI). Runs are warm (page cache not dropped); file imports are the median of 3 \
interleaved runs, the rest 1 run. bench/run.sh took $(( $(date +%s) - started )) s.

EOF
/usr/bin/python3 bench/table.py "$measurements"
