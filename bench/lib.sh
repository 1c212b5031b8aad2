# lib.sh: sourced by the fleet benches (push.sh, pushdown.sh, fleet.sh) from the top of the
# tree, with $benchdb (the binary) and $work (a scratch directory) set.
fx=tests/fixtures/fio_json
bases="$fx/two_jobs_fsync.json $fx/unified_mixed.json"

# fleet_size RESULTS: sets per (results in one file bench/gen.py varies from $bases, from a
# sample of 20 imported) and n (files for about RESULTS results).
fleet_size() {
    /usr/bin/python3 bench/gen.py varied "$work/sample" 20 $bases
    "$benchdb" --db "$work/sample.sqlite" import "$work"/sample/*.json 2>/dev/null
    per=$(sqlite3 "$work/sample.sqlite" "SELECT count(*) / 20.0 FROM result")
    n=$(/usr/bin/python3 -c "import math; print(math.ceil($1 / $per))")
}

# compared_side PCT: sets side, the files of each of the two compared classes when PCT % of
# the $n files are compared (half each).
compared_side() {
    side=$(/usr/bin/python3 -c "import math; print(math.ceil($n * $1 / 200))")
}

# machine: one line naming the CPUs, the load average and the PostgreSQL client.
machine() {
    echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 |
        sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg); $(psql --version)"
}
