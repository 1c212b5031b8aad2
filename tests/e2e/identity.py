"""identity.py: one workload identity in every section (issue 28, item 2).

tests/fixtures/identity (gen.sh there): a random 4k read sweep (QD1, 4, 16) on libaio and on
io_uring, json+, four fio runs imported as sides a and b of two runs each. The two engines are
not repeats of one another, so every section must keep them apart, under the same names:

- the comparison: six workloads, "[engine ...]" broken out;
- the latency percentiles: one figure per compared workload, the same six names;
- the scaling curves: one per engine, each point the mean of that engine's runs only (computed
  here from the raw files), never a point of the other engine;
- trend: a series per class and engine, its values the runs of that engine only."""
import csv, glob, io, json, os, re, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("identity", rel=1e-6)
FIX = os.path.join(os.environ["FIXTURES"], "identity")
ENGINES = {"libaio": "libaio", "uring": "io_uring"}
QDS = (1, 4, 16)


def name(qd, engine):
    """The workload as the comparison names it: QD1 unsaid, the engine broken out."""
    return "Random Read 4K%s [engine %s]" % ("" if qd == 1 else " QD%d" % qd, engine)


def raw():
    """{(side, qd, engine): [the read object of each run's job]} from the files."""
    out = {}
    for path in sorted(glob.glob(os.path.join(FIX, "sweep-*.json"))):
        side = re.search(r"sweep-(\w)-\d\.json$", path).group(1)
        for job in json.load(open(path))["jobs"]:
            m = re.match(r"qd(\d+)-(\w+)$", job["jobname"])
            out.setdefault((side, int(m.group(1)), ENGINES[m.group(2)]), []).append(job["read"])
    return out


def report_csv(db, table):
    p = bdb.run(db, "report", "--compare", "a", "b", "--format", "csv", "--table", table)
    t.eq(p.returncode, 0, "report --table %s: %s" % (table, p.stderr[-200:]))
    return list(csv.DictReader(io.StringIO(p.stdout)))


def check_comparison(db, want_names):
    rows = report_csv(db, "comparison")
    t.eq(sorted({r["Workload"] for r in rows}), sorted(want_names), "comparison: the workloads")
    return rows


def check_percentiles(db, tmp, want_names):
    out = os.path.join(tmp, "r.html")
    p = bdb.run(db, "report", "--compare", "a", "b", "-o", out)
    t.eq(p.returncode, 0, "report html: " + p.stderr[-200:])
    titles = re.findall(r"Latency percentiles: ([^<\"]+)", open(out, encoding="utf-8").read())
    t.eq(sorted(set(titles)), sorted(want_names), "percentile figures: the comparison's workloads")


def check_scaling(db, runs):
    rows = report_csv(db, "scaling")
    want = {"Random Read 4K [engine %s], iodepth 1 to 16" % e for e in ENGINES.values()}
    t.eq({r["Workload"] for r in rows}, want, "scaling: one sweep per engine")
    t.eq(len(rows), 2 * 2 * len(QDS), "scaling: every depth of every engine and side, once")
    for r in rows:
        engine = re.search(r"\[engine (\w+)\]", r["Workload"])
        if not t.ok(engine, "scaling row names its engine: %r" % r["Workload"]):
            continue
        engine = engine.group(1)
        reads = runs[(r["Side"], int(r["iodepth"]), engine)]
        t.near(float(r["IOPS"]), statistics.mean(x["iops"] for x in reads),
               "scaling %s %s QD%s: IOPS of that engine's runs only" % (engine, r["Side"], r["iodepth"]))
        t.near(float(r["Mean latency"]), statistics.mean(x["lat_ns"]["mean"] for x in reads),
               "scaling %s %s QD%s: total latency" % (engine, r["Side"], r["iodepth"]))


def check_trend(db, runs):
    p = bdb.run(db, "trend", "--metric", "bw_bytes_s", "--table", "points", "--format", "csv")
    t.eq(p.returncode, 0, "trend: " + p.stderr[-200:])
    series = {}
    for r in csv.DictReader(io.StringIO(p.stdout)):
        series.setdefault(r["series"], []).append(float(r["value"]))
    want = {"%s, %s: bandwidth" % (side, name(qd, e)): [x["bw_bytes"] for x in runs[(side, qd, e)]]
            for side in "ab" for qd in QDS for e in ENGINES.values()}
    t.eq(sorted(series), sorted(want), "trend: a series per class and workload, engines apart")
    for k, v in want.items():
        got = series.get(k, [])
        t.ok(len(got) == len(v) and all(t.close(g, w) for g, w in zip(sorted(got), sorted(v))),
             "trend %s: that engine's runs only: %r vs %r" % (k, got, v))


def main():
    runs = raw()
    want_names = [name(qd, e) for qd in QDS for e in ENGINES.values()]
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        for side in "ab":
            p = bdb.run(db, "import", "--storage-class", side,
                        *sorted(glob.glob(os.path.join(FIX, "sweep-%s-*.json" % side))))
            t.eq(p.returncode, 0, "import %s: %s" % (side, p.stderr[-200:]))
        check_comparison(db, want_names)
        check_percentiles(db, tmp, want_names)
        check_scaling(db, runs)
        check_trend(db, runs)
    return t.done()


sys.exit(main())
