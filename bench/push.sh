#!/usr/bin/env bash
# push.sh [RESULTS]: issue 17's benchmark. A warehouse of about RESULTS results (default
# 100,000; fio JSON files made by bench/gen.py from two real fio outputs, imported) is sent to
# a throwaway PostgreSQL server (tests/tools/pg.py) with `benchdb push`, against loading the
# same results with psql's \copy from the CSV export into the table `export --format pg-ddl`
# prints (docs/export.md). Each is timed 5 times into a fresh database, interleaved; after each
# run its database is vacuumed and the server checkpointed, untimed, so that no run pays for
# the autovacuum or the writes of the one before it. The median counts. The exports are made
# beforehand and not timed. $BENCHDB (default build/benchdb) is the binary measured. Prints the
# machine, the times and the ratio; work files live in a directory under $TMPDIR, removed on
# exit.
set -eu
cd "$(dirname "$0")/.."
want=${1:-100000}
benchdb=$(realpath "${BENCHDB:-build/benchdb}")
work=$(mktemp -d "${TMPDIR:-/tmp}/bdb-push-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
. bench/lib.sh

fleet_size "$want"
echo "push.sh: $n files of $per results each" >&2
/usr/bin/python3 bench/gen.py varied "$work/json" "$n" $bases
find "$work/json" -name '*.json' | sort | xargs "$benchdb" --db "$work/host.sqlite" import \
    >/dev/null 2>&1
"$benchdb" --db "$work/host.sqlite" export --format pg-ddl -o "$work/results.sql"
"$benchdb" --db "$work/host.sqlite" export --format csv -o "$work/results.csv"

machine
WORK=$work BENCHDB=$benchdb /usr/bin/python3 - <<'PY'
import os, statistics, subprocess, sys, time
sys.path.insert(0, "tests/tools")
import pg

work, benchdb = os.environ["WORK"], os.environ["BENCHDB"]
copy = "\\copy benchdb_result FROM 'results.csv' WITH (FORMAT csv, HEADER true)"


def timed(cmd, **kw):
    start = time.monotonic()
    subprocess.run(cmd, check=True, capture_output=True, **kw)
    return time.monotonic() - start


with pg.server(55490) as srv:
    times = {"push": [], "copy": []}
    for run in range(5):
        for what in ("push", "copy"):
            db = "%s%d" % (what, run)
            srv.psql("CREATE DATABASE " + db)
            if what == "push":
                times[what].append(timed([benchdb, "--db", os.path.join(work, "host.sqlite"),
                                          "push", srv.url(db=db)]))
                count = srv.psql("SELECT count(*) FROM result", db=db).stdout.strip()
            else:
                times[what].append(timed(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d",
                                          srv.url(db=db), "-f", "results.sql", "-c", copy],
                                         cwd=work))
                count = srv.psql("SELECT count(*) FROM benchdb_result", db=db).stdout.strip()
            print("  %s run %d: %.2f s, %s results" % (what, run + 1, times[what][-1], count),
                  file=sys.stderr)
            srv.psql("VACUUM ANALYZE", db=db)
            srv.psql("CHECKPOINT")
    push, load = statistics.median(times["push"]), statistics.median(times["copy"])
    print("| work | psql \\copy of the CSV export | benchdb push | ratio | target |")
    print("|---|---|---|---|---|")
    print("| %s results | %.2f s | %.2f s | %.2fx | <= 3x |" % (count, load, push, push / load))
PY
