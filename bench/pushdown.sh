#!/usr/bin/env bash
# pushdown.sh [RESULTS] [PCT]: issue 35 item 3's benchmark. A fleet of about RESULTS results
# (default 200,000; fio JSON files made by bench/gen.py varied from two real fio outputs) of
# which PCT % (default 2) are the two compared storage classes (nfs, nvme: half each), the rest
# storage class bulk, imported into one SQLite warehouse and pushed to a throwaway PostgreSQL
# server (tests/tools/pg.py). Then `report --compare nfs nvme` is timed with /usr/bin/time -v
# (wall time, peak RSS) from the local warehouse, from a local warehouse of the compared rows
# alone (the issue's reference) and from the server, with each binary given
# ($BENCHDB, default build/benchdb; $BEFORE, a build of the commit before, if set), 3 times
# interleaved, medians; the reports are checked identical. Work files live in a directory
# under $TMPDIR, removed on exit.
set -eu
cd "$(dirname "$0")/.."
want=${1:-200000}
pct=${2:-2}
benchdb=$(realpath "${BENCHDB:-build/benchdb}")
before=${BEFORE:+$(realpath "$BEFORE")}
work=$(mktemp -d "${TMPDIR:-/tmp}/bdb-pushdown-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
. bench/lib.sh

fleet_size "$want"
compared_side "$pct"
echo "pushdown.sh: $n files of $per results each, $side of each compared class" >&2
/usr/bin/python3 bench/gen.py varied "$work/json" "$n" $bases
ls "$work/json" | sort >"$work/all"
head -n "$side" "$work/all" >"$work/nfs"
sed -n "$((side + 1)),$((2 * side))p" "$work/all" >"$work/nvme"
tail -n "+$((2 * side + 1))" "$work/all" >"$work/bulk"
for class in nfs nvme bulk; do
    (cd "$work/json" && xargs "$benchdb" --db "$work/host.sqlite" import --host h \
        --storage-class "$class" <"$work/$class" >/dev/null 2>&1)
done

machine
WORK=$work BENCHDB=$benchdb BEFORE=$before /usr/bin/python3 - <<'PY'
import os, re, statistics, subprocess, sys
sys.path.insert(0, "tests/tools")
import pg

work, host = os.environ["WORK"], os.path.join(os.environ["WORK"], "host.sqlite")
bins = [("after", os.environ["BENCHDB"])]
if os.environ["BEFORE"]:
    bins.insert(0, ("before", os.environ["BEFORE"]))
args = ["report", "--compare", "nfs", "nvme"]


def timed(db, binary):
    p = subprocess.run(["/usr/bin/time", "-v", binary, "--db", db] + args, check=True,
                       capture_output=True, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    secs = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    return secs, rss / 1024, p.stdout


with pg.server(55492) as srv:
    subprocess.run([bins[-1][1], "--db", host, "push", srv.url()], check=True,
                   capture_output=True)
    srv.psql("VACUUM ANALYZE")
    total = srv.psql("SELECT count(*) FROM result").stdout.strip()
    side = srv.psql("SELECT count(*) FROM result WHERE storage_class IN ('nfs', 'nvme')")
    print("fleet: %s results, %s compared" % (total, side.stdout.strip()))
    # the target's reference: a local warehouse of the compared rows alone (the copy the
    # report reads from the server, saved once), beside the whole fleet's warehouse
    compared = os.path.join(work, "compared.sqlite")
    subprocess.run([bins[-1][1], "--db", srv.url()] + args, check=True, capture_output=True,
                   env=dict(os.environ, BENCHDB_DEBUG_PULL_INTO=compared))
    runs = {}
    for _ in range(3):
        for name, binary in bins:
            for where, db in (("local", host), ("local, compared rows only", compared),
                              ("fleet", srv.url())):
                runs.setdefault((name, where), []).append(timed(db, binary))
    local_out = runs[(bins[-1][0], "local")][0][2]
    print("| binary | warehouse | wall (median of 3) | peak RSS | same report as local |")
    print("|---|---|---|---|---|")
    for (name, where), r in runs.items():
        print("| %s | %s | %.2f s | %.0f MiB | %s |" % (
            name, where, statistics.median(x[0] for x in r), statistics.median(x[1] for x in r),
            all(x[2] == local_out for x in r)))
PY
