#!/usr/bin/env bash
# fleet.sh [PER_HOST] [HOSTS] [PCT]: issue 35 item 4's benchmark, how far one PostgreSQL
# server goes. A fleet of HOSTS hosts (default 10) of about PER_HOST results each (default
# 100,000; fio JSON files bench/gen.py varies from two real fio outputs, each host's drawn with
# its own GEN_SEED so no two hosts share a file). Each host's files go into its own warehouse
# (--host hN), PCT % of them (default 10) as the two compared storage classes (nfs, nvme: half
# each), the rest as class bulk; all hosts are pushed, one after the other, to one throwaway
# PostgreSQL server (tests/tools/pg.py). Locally, cmp.sqlite holds the compared files of every
# host (the rows the comparison reads) and all.sqlite the whole fleet (`benchdb merge`).
# Measured, rounds interleaved, medians of 3, the load average beside each:
#   (a) importing one batch of 1,000 new files, and one file, into copies of warehouses that
#       hold about 1k, PER_HOST and HOSTS x PER_HOST results: the cost per file (the batch's
#       less the single file's, over 999) and what an import pays once;
#   (b) `report --compare nfs nvme` (wall, peak RSS from /usr/bin/time -v) from the server,
#       cmp.sqlite and all.sqlite; the reports are checked identical byte for byte;
#   (c) each host's push (once each, into a server that grows), and a read of the whole fleet
#       (`export --format csv` from the server, which copies every row);
#   (d) the server's database and largest tables on disk, their rows;
#   (e) with an index on result (storage_class), which the server does not keep
#       (schema/pg/0003_read_indexes.sql): the report from the server, and a push of 100k
#       into a new database.
# $BENCHDB (default build/benchdb) is the binary measured. Work files live in a directory
# under $TMPDIR, removed on exit (the full size needs about 8 GB there).
set -eu
cd "$(dirname "$0")/.."
per_host=${1:-100000}
hosts=${2:-10}
pct=${3:-10}
batch=1000
benchdb=$(realpath "${BENCHDB:-build/benchdb}")
work=$(mktemp -d "${TMPDIR:-/tmp}/bdb-fleet-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
. bench/lib.sh

fleet_size "$per_host"
compared_side "$pct"
echo "fleet.sh: $hosts hosts of $n files of $per results each, $side of each compared class" >&2
machine
import_class() { # DB HOST CLASS LIST: imports the files LIST names (in $work/json)
    (cd "$work/json" && xargs "$benchdb" --db "$1" import --host "$2" --storage-class "$3" \
        <"$4" >/dev/null 2>&1)
}
for ((h = 0; h < hosts; h++)); do
    rm -rf "$work/json"
    GEN_SEED=$((h + 1)) /usr/bin/python3 bench/gen.py varied "$work/json" "$n" $bases
    ls "$work/json" | sort >"$work/all"
    head -n "$side" "$work/all" >"$work/nfs"
    sed -n "$((side + 1)),$((2 * side))p" "$work/all" >"$work/nvme"
    tail -n "+$((2 * side + 1))" "$work/all" >"$work/bulk"
    start=$(date +%s.%N)
    for class in nfs nvme bulk; do
        import_class "$work/h$h.sqlite" "h$h" "$class" "$work/$class"
    done
    end=$(date +%s.%N)
    for class in nfs nvme; do
        import_class "$work/cmp.sqlite" "h$h" "$class" "$work/$class"
    done
    if [ "$h" = 0 ]; then # the small warehouse of (a): about 1,000 results of host 0
        head -n "$(/usr/bin/python3 -c "import math; print(math.ceil(1000 / $per))")" \
            "$work/bulk" >"$work/small"
        import_class "$work/small.sqlite" h0 bulk "$work/small"
    fi
    echo "  h$h: $n files imported in $(echo "$end - $start" | bc) s," \
        "load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
rm -rf "$work/json"
start=$(date +%s.%N)
"$benchdb" --db "$work/all.sqlite" merge "$work"/h*.sqlite >/dev/null 2>&1
echo "  merge of $hosts warehouses: $(echo "$(date +%s.%N) - $start" | bc) s" >&2
GEN_SEED=1000 /usr/bin/python3 bench/gen.py varied "$work/batch" "$((batch + 1))" $bases

WORK=$work BENCHDB=$benchdb HOSTS=$hosts /usr/bin/python3 - <<'PY'
import glob, os, re, shutil, statistics, subprocess, sys, time
sys.path.insert(0, "tests/tools")
import pg

work, benchdb, hosts = os.environ["WORK"], os.environ["BENCHDB"], int(os.environ["HOSTS"])
args = ["report", "--compare", "nfs", "nvme"]


def load():
    return float(open("/proc/loadavg").read().split()[0])


def timed(cmd):
    """Wall s (finer than time's own), CPU s, peak RSS MiB, stdout and stderr of cmd under
    /usr/bin/time -v."""
    start = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, check=True, capture_output=True,
                       text=True)
    secs = time.monotonic() - start
    cpu = sum(float(re.search(r"%s time \(seconds\): ([\d.]+)" % k, p.stderr).group(1))
              for k in ("User", "System"))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    return secs, cpu, rss / 1024, p.stdout, p.stderr


def results(db):
    return int(subprocess.run(["sqlite3", db, "SELECT count(*) FROM result"], check=True,
                              capture_output=True, text=True).stdout)


def loads(runs):
    return "%.1f-%.1f" % (min(r[-1] for r in runs), max(r[-1] for r in runs))


# (a) one batch of new files into copies of warehouses of three sizes
sizes = [("small", os.path.join(work, "small.sqlite")), ("host", os.path.join(work, "h0.sqlite")),
         ("fleet", os.path.join(work, "all.sqlite"))]
batch = sorted(glob.glob(os.path.join(work, "batch", "*.json")))
one, batch = batch[-1:], batch[:-1]
copy = os.path.join(work, "copy.sqlite")
runs = {}
for _ in range(3):
    for name, db in sizes:
        for what, files in (("one", one), ("batch", batch)):
            shutil.copyfile(db, copy)
            with open(copy, "rb+") as f:  # written out untimed, or the import's fsync pays
                os.fsync(f.fileno())
            wall, cpu, rss, _, err = timed([benchdb, "--db", copy, "import", "--host", "hx",
                                            "--storage-class", "bulk"] + files)
            assert len(re.findall(r": imported \d+ results? \(", err)) == len(files), err[-300:]
            runs.setdefault((name, what), []).append((wall, cpu, rss, load()))
            os.remove(copy)
print("\n(a) import of %d new files, and of 1 (3 interleaved rounds, medians)\n" % len(batch))
print("| results already stored | %d files | 1 file | per file | CPU per file | peak RSS | load |"
      % len(batch))
print("|---|---|---|---|---|---|---|")
for name, db in sizes:
    r, r1 = runs[(name, "batch")], runs[(name, "one")]
    wall, cpu = statistics.median(x[0] for x in r), statistics.median(x[1] for x in r)
    wall1, cpu1 = statistics.median(x[0] for x in r1), statistics.median(x[1] for x in r1)
    print("| %s | %.3f s | %.3f s | %.3f ms | %.2f ms | %.0f MiB | %s |" % (
        format(results(db), ","), wall, wall1, (wall - wall1) * 1000 / (len(batch) - 1),
        (cpu - cpu1) * 1000 / (len(batch) - 1), statistics.median(x[2] for x in r),
        loads(r + r1)))

with pg.server(55493) as srv:
    # (c) the pushes, host after host, into one server
    print("\n(c) push of each host's warehouse into the growing server (once each)\n")
    print("| host | results | on the server before | wall | load |")
    print("|---|---|---|---|---|")
    before = 0
    for h in range(hosts):
        db = os.path.join(work, "h%d.sqlite" % h)
        start = time.monotonic()
        subprocess.run([benchdb, "--db", db, "push", srv.url()], check=True,
                       capture_output=True)
        wall = time.monotonic() - start
        print("| h%d | %s | %s | %.2f s | %.1f |" % (h, format(results(db), ","),
                                                  format(before, ","), wall, load()))
        before = int(srv.psql("SELECT count(*) FROM result").stdout)
    srv.psql("VACUUM ANALYZE")
    srv.psql("CHECKPOINT")

    # (d) what the server holds
    q = lambda sql: srv.psql(sql).stdout.strip()
    print("\n(d) the server after VACUUM ANALYZE\n")
    print("database: %s (%s); results %s, of them compared %s; runs %s; sources %s" % (
        q("SELECT pg_size_pretty(pg_database_size(current_database()))"),
        q("SELECT pg_database_size(current_database())"), q("SELECT count(*) FROM result"),
        q("SELECT count(*) FROM result WHERE storage_class IN ('nfs', 'nvme')"),
        q("SELECT count(*) FROM run"), q("SELECT count(*) FROM source_file")))
    print("\n| table | rows | total size (with indexes, TOAST) | indexes |")
    print("|---|---|---|---|")
    for row in q("SELECT relname, pg_total_relation_size(oid), pg_indexes_size(oid) FROM "
                 "pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace "
                 "ORDER BY 2 DESC LIMIT 8").splitlines():
        name, total, idx = row.split("|")
        print("| %s | %s | %.1f MiB | %.1f MiB |" % (
            name, format(int(q("SELECT count(*) FROM %s" % name)), ","), int(total) / 2**20,
            int(idx) / 2**20))

    # (b) the comparison from the server and from the two local warehouses
    wheres = [("server", srv.url()), ("local, compared rows", os.path.join(work, "cmp.sqlite")),
              ("local, whole fleet", os.path.join(work, "all.sqlite"))]
    runs = {}
    for _ in range(3):
        for name, db in wheres:
            wall, cpu, rss, out, _ = timed([benchdb, "--db", db] + args)
            runs.setdefault(name, []).append((wall, cpu, rss, out, load()))
    ref = runs["local, compared rows"][0][3]
    print("\n(b) `%s` (3 interleaved rounds, medians)\n" % " ".join(args))
    print("| warehouse | results in it | wall | CPU | peak RSS | same report | load |")
    print("|---|---|---|---|---|---|---|")
    for name, db in wheres:
        r = runs[name]
        print("| %s | %s | %.2f s | %.2f s | %.0f MiB | %s | %s |" % (
            name, format(int(q("SELECT count(*) FROM result")) if name == "server" else
                         results(db), ","),
            statistics.median(x[0] for x in r), statistics.median(x[1] for x in r),
            statistics.median(x[2] for x in r), all(x[3] == ref for x in r), loads(r)))
    print("\nreport: %d lines, %d bytes" % (ref.count("\n"), len(ref)))

    # (c) reading the whole fleet: export copies every row from the server
    print("\n(c) `export --format csv` of the whole fleet (once each)\n")
    print("| warehouse | wall | CPU | peak RSS | same CSV | load |")
    print("|---|---|---|---|---|---|")
    outs = {}
    for name, db in (("server", srv.url()), ("local, whole fleet", wheres[2][1])):
        path = os.path.join(work, "export-%s.csv" % name.split(",")[0])
        wall, cpu, rss, _, _ = timed([benchdb, "--db", db, "export", "--format", "csv", "-o",
                                      path])
        outs[name] = open(path, "rb").read()
        print("| %s | %.2f s | %.2f s | %.0f MiB | %s | %.1f |" % (
            name, wall, cpu, rss, "reference" if name == "server" else
            outs[name] == outs["server"], load()))

    # (e) the index schema/pg/0003_read_indexes.sql leaves out: what it gives the report, and
    # what it costs a push
    rep = {"with": [], "without": []}
    for _ in range(3):
        start = time.monotonic()
        srv.psql("CREATE INDEX result_class ON result (storage_class); ANALYZE result")
        build = time.monotonic() - start
        rep["with"].append(timed([benchdb, "--db", srv.url()] + args)[:3] + (load(),))
        size = int(q("SELECT pg_relation_size('result_class')"))
        srv.psql("DROP INDEX result_class; ANALYZE result")
        rep["without"].append(timed([benchdb, "--db", srv.url()] + args)[:3] + (load(),))
    pushes, host = {"with": [], "without": []}, os.path.join(work, "h%d.sqlite" % min(1, hosts - 1))
    for run in range(3):
        for idx in ("with", "without"):
            db = "idx_%s%d" % (idx, run)
            srv.psql("CREATE DATABASE " + db)
            subprocess.run([benchdb, "--db", os.path.join(work, "small.sqlite"), "push",
                            srv.url(db=db)], check=True, capture_output=True)
            if idx == "with":
                srv.psql("CREATE INDEX result_class ON result (storage_class)", db=db)
            srv.psql("VACUUM ANALYZE", db=db)
            srv.psql("CHECKPOINT")
            start = time.monotonic()
            subprocess.run([benchdb, "--db", host, "push", srv.url(db=db)], check=True,
                           capture_output=True)
            pushes[idx].append((time.monotonic() - start, load()))
            srv.psql("DROP DATABASE " + db)
    print("\n(e) an index on result (storage_class) on the server (3 interleaved rounds, "
          "medians): built in %.2f s (the last time), %.1f MiB\n" % (build, size / 2**20))
    print("| index | report from the server: wall | CPU | peak RSS | push of %s (%s results) "
          "into a server holding 1k | load |" % (os.path.basename(host)[:-7],
                                                  format(results(host), ",")))
    print("|---|---|---|---|---|---|")
    for idx in ("without", "with"):
        r, p = rep[idx], pushes[idx]
        print("| %s | %.2f s | %.2f s | %.0f MiB | %.2f s | %s |" % (
            idx, statistics.median(x[0] for x in r), statistics.median(x[1] for x in r),
            statistics.median(x[2] for x in r), statistics.median(x[0] for x in p),
            loads(r + p)))
PY
