#!/usr/bin/python3
"""Time series (tests/fixtures/series, real fio 3.33 runs): logs imported with their run's JSON
attach to the job's result whatever the order and -j; the steady-state verdict of each result
equals the SNIA PTS rule computed here from the raw log (or fio's own steadystate block); the
cliff insight names the time python finds; the comparison marks results that are not steady."""
import csv, io, json, os, shutil, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
import series_ref  # noqa: E402
from series_ref import snia  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ["FIXTURES"], "series")
t = Checks("series", rel=1e-9)
METRIC = {"bw": "bw_bytes_s", "iops": "iops", "lat": "lat_ns", "clat": "clat_ns",
          "slat": "slat_ns"}


def log_points(name):
    """[(t_ms, value in base units)] of a windowed read log of the fixtures, as fio wrote it."""
    return series_ref.log_points(os.path.join(FIX, name))


def cliff(pts):
    """The first drop below half the mean of all earlier points lasting > 10 % of the run."""
    end = pts[-1][0]
    for i in range(1, len(pts)):
        before = sum(v for _, v in pts[:i]) / i
        if not pts[i][1] < 0.5 * before:
            continue
        j = i
        while j < len(pts) and pts[j][1] < 0.5 * before:
            j += 1
        stop = pts[j][0] if j < len(pts) else end
        if stop - pts[i][0] > 0.1 * end:
            return pts[i][0]
    return None


def report_table(db, name, *sides):
    rc, out, err = bdb.call(db, "report", "--compare", *sides, "--format", "csv", "--table", name)
    t.eq(rc, 0, "report table %s: %s" % (name, err))
    return list(csv.DictReader(io.StringIO(out)))


def stored(db):
    """{(source, job): {'tags': ..., 'series': {metric: points}}} of every result."""
    rows = bdb.sql_rows(db, "SELECT r.id, s.path, r.job FROM result r JOIN run ON run.id = "
                            "r.run_id JOIN source_file s ON s.id = run.source_id")
    out = {}
    for rid, path, job in rows:
        tags = dict(bdb.sql_rows(db, "SELECT key, value FROM tag WHERE result_id = ?", rid))
        series = {m: json.loads(p) for m, p in
                  bdb.sql_rows(db, "SELECT metric, points FROM series WHERE result_id = ?", rid)}
        out[(os.path.basename(path), job)] = {"tags": tags, "series": series}
    return out


def import_all(db, jobs):
    """Logs before their JSON (steady), after it (cliff, cached, ss): both orders."""
    names = ["steady_bw.1.log", "steady_iops.1.log", "steady_lat.1.log", "steady_clat.1.log",
             "steady_slat.1.log", "steady.json", "ss.json", "ss_bw.1.log"]
    rc, _, err = bdb.call(db, "import", "-j", str(jobs), "--storage-class", "tmpfs",
                          *[os.path.join(FIX, n) for n in names + ["cached.json",
                                                                   "cached_bw.1.log"]])
    t.eq(rc, 0, "import tmpfs -j %d: %s" % (jobs, err))
    rc, _, err = bdb.call(db, "import", "-j", str(jobs), "--storage-class", "disk",
                          os.path.join(FIX, "cliff.json"), os.path.join(FIX, "cliff_bw.1.log"))
    t.eq(rc, 0, "import disk -j %d: %s" % (jobs, err))


def check_attached(res):
    for run, kinds in (("steady", ["bw", "iops", "lat", "clat", "slat"]), ("cliff", ["bw"]),
                       ("cached", ["bw"]), ("ss", ["bw"])):
        job = res[(run + ".json", run)]
        t.eq(sorted(job["series"]), sorted(METRIC[k] for k in kinds),
             "%s: the job's result holds its logs' series" % run)
        for k in kinds:
            name = "%s_%s.1.log" % (run, k)
            want = log_points(name)
            got = job["series"].get(METRIC[k], [])
            t.ok(len(got) == len(want) and all(t.close(g[0], w[0]) and t.close(g[1], w[1])
                                               for g, w in zip(got, want)),
                 "%s: the attached series is the log's (%d vs %d points)" %
                 (name, len(got), len(want)))
            t.eq(job["tags"].get("series:" + METRIC[k]), os.path.join(FIX, name),
                 "%s: tag series:%s names the log" % (run, METRIC[k]))
            log = res[(name, run)]
            t.eq(log["tags"].get("part"), "fio log", name + ": the log's own result is a part")
            t.eq(log["series"], {}, name + ": its series moved to the job")


def check_other_folder():
    """A log in another folder than the JSON stays on its own."""
    with tempfile.TemporaryDirectory(prefix="bdb-series-") as tmp:
        os.mkdir(os.path.join(tmp, "logs"))
        shutil.copy(os.path.join(FIX, "cliff_bw.1.log"), os.path.join(tmp, "logs"))
        db = os.path.join(tmp, "t.sqlite")
        rc, _, err = bdb.call(db, "import", os.path.join(FIX, "cliff.json"),
                              os.path.join(tmp, "logs", "cliff_bw.1.log"))
        t.eq(rc, 0, "import from two folders: " + err)
        res = stored(db)
        t.eq(res[("cliff.json", "cliff")]["series"], {}, "no series from another folder")
        t.eq(sorted(res[("cliff_bw.1.log", "cliff")]["series"]), ["bw_bytes_s"],
             "the log keeps its series")


def check_threads():
    """A job of two threads wrote a log per thread: neither is attached, and a note says so."""
    with bdb.temp_db() as db:
        names = ["threads.json", "threads_bw.1.log", "threads_bw.2.log"]
        rc, _, err = bdb.call(db, "import", *[os.path.join(FIX, n) for n in names])
        t.eq(rc, 0, "import threads: " + err)
        t.eq(err.count("not attached to job 'threads'"), 2, "a note per log: " + err)
        res = stored(db)
        t.eq(res[("threads.json", "threads")]["series"], {}, "the job takes no thread's log")
        for n in names[1:]:
            t.eq(sorted(res[(n, "threads")]["series"]), ["bw_bytes_s"], n + " keeps its series")


UNLABELED = "stored without a storage class"


def check_sidecar_labels():
    """The labels of a JSON's sidecar (FILE.meta, which names one file) are its attached logs'
    too, logs before or after it: no note calls them unclassed. A log left alone (another
    folder, a job of two threads) is still counted."""
    with tempfile.TemporaryDirectory(prefix="bdb-series-") as tmp:
        os.mkdir(os.path.join(tmp, "logs"))
        names = ["steady_bw.1.log", "steady_clat.1.log", "steady.json", "cliff.json",
                 "cliff_bw.1.log", "threads.json", "threads_bw.1.log", "threads_bw.2.log"]
        for n in names:
            shutil.copy(os.path.join(FIX, n), tmp)
        shutil.copy(os.path.join(FIX, "cached_bw.1.log"), os.path.join(tmp, "logs"))
        labels = {"steady": ("nvme", "h1"), "cliff": ("disk", "h2"), "threads": ("nvme", "h1")}
        for run, (cls, host) in labels.items():
            with open(os.path.join(tmp, run + ".json.meta"), "w") as f:
                f.write("storage_class=%s\nhost=%s\n" % (cls, host))
        db = os.path.join(tmp, "t.sqlite")
        paths = [os.path.join(tmp, n) for n in names[:5]]
        rc, _, err = bdb.call(db, "import", *paths)
        t.eq(rc, 0, "import with sidecars: " + err)
        t.ok(UNLABELED not in err, "no file called unclassed: " + err)
        rows = bdb.sql_rows(db, "SELECT s.path, r.storage_class, r.host FROM result r JOIN run "
                                "ON run.id = r.run_id JOIN source_file s ON s.id = run.source_id")
        for path, cls, host in rows:
            run = os.path.basename(path).split("_")[0].split(".")[0]
            t.eq((cls, host), labels[run], "%s: its job's labels" % os.path.basename(path))
        rc, _, err = bdb.call(db, "import", *[os.path.join(tmp, n) for n in names[5:]],
                              os.path.join(tmp, "logs", "cached_bw.1.log"))
        t.eq(rc, 0, "import of logs left alone: " + err)
        t.ok("3 files %s" % UNLABELED in err,
             "the two threads' logs and the log of another folder counted: " + err)


def check_verdicts(db):
    rows = report_table(db, "steady_state", "tmpfs", "disk")
    got = {os.path.basename(r["Result"].split(":")[0]): r for r in rows}
    for run in ("steady", "cached", "cliff"):
        ok, rng, exc = snia(log_points(run + "_bw.1.log"))
        row = got.get(run + ".json", {})
        t.eq(row.get("Steady state"), "reached" if ok else "not reached",
             "%s: SNIA verdict (python: range %.3f, slope x 4 %.3f)" % (run, rng, exc))
        t.ok(("range %.1f %%" % (rng * 100)) in row.get("Basis", ""),
             "%s: the basis gives python's range: %r" % (run, row.get("Basis")))
    t.ok(snia(log_points("steady_bw.1.log"))[0], "the steady run is steady by python's rule")
    t.ok(not snia(log_points("cliff_bw.1.log"))[0], "the cliff run is not, by python's rule")
    fio_ss = json.load(open(os.path.join(FIX, "ss.json")))["jobs"][0]["steadystate"]
    row = got.get("ss.json", {})
    t.eq(row.get("Steady state"), "reached" if fio_ss["attained"] else "not reached",
         "ss: fio's steadystate block decides")
    t.ok(row.get("Basis", "").startswith("fio ss=" + fio_ss["ss"]), "ss: basis " + repr(row))


def check_insights(db):
    rows = report_table(db, "insights", "tmpfs", "disk")
    by = {r["Insight"]: r for r in rows}
    start = cliff(log_points("cliff_bw.1.log"))
    t.ok(start is not None, "python finds the cliff")
    for run in ("steady", "cached"):
        t.eq(cliff(log_points(run + "_bw.1.log")), None, run + ": no cliff by python's rule")
    ev = by.get("Throughput cliff", {}).get("Evidence", "")
    t.ok("cliff.json" in ev and ("at %.2f s" % (start / 1000)) in ev,
         "the cliff insight names python's start %.0f ms: %r" % (start, ev))
    t.ok("steady.json" not in ev and "cached.json" not in ev, "no cliff elsewhere: " + ev)
    ev = by.get("Not steady", {}).get("Evidence", "")
    t.ok("cliff.json" in ev and "cached.json" not in ev and "steady.json" not in ev,
         "not steady: exactly the cliff run: " + ev)
    comp = report_table(db, "comparison", "tmpfs", "disk")
    marks = [r for r in comp if "Sequential Read 1M" in r["Workload"]]
    text = [r.get("disk vs tmpfs text", "") for r in marks]
    t.ok(marks and all("caution: disk" in x and "not steady" in x for x in text),
         "the comparison marks the disk side not steady: %r" % text)


def check_malformed(db):
    """A series whose points are not JSON (a damaged warehouse) is an error that says what
    SQLite said of it and names the result, never "not an error" (issue 29, item 8)."""
    import sqlite3
    (rid,) = bdb.sql_rows(db, "SELECT result_id FROM series WHERE metric = 'bw_bytes_s' "
                              "ORDER BY result_id LIMIT 1")[0]
    con = sqlite3.connect(db)
    con.execute("UPDATE series SET points = '[[0, 1], [1' WHERE result_id = ? AND "
                "metric = 'bw_bytes_s'", (rid,))
    con.commit()
    con.close()
    rc, _, err = bdb.call(db, "report", "--compare", "tmpfs", "disk")
    t.ok(rc != 0 and "not an error" not in err and "malformed JSON" in err and
         "result %d" % rid in err, "a malformed series named with SQLite's reason: %r" % err)


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-series-") as tmp:
        dbs = [os.path.join(tmp, "j%d.sqlite" % j) for j in (1, 2)]
        for j, db in zip((1, 2), dbs):
            import_all(db, j)
        one, two = stored(dbs[0]), stored(dbs[1])
        t.eq(two, one, "-j 2 stores what -j 1 stores")
        check_attached(one)
        check_verdicts(dbs[0])
        check_insights(dbs[0])
        rc, out, err = bdb.call(dbs[0], "reparse")
        t.ok(rc == 0 and all("unchanged" in line for line in out.splitlines()),
             "reparse keeps the attached series: " + out + err)
        t.eq(stored(dbs[0]), one, "nothing moved by reparse")
        check_malformed(dbs[1])
    check_other_folder()
    check_threads()
    check_sidecar_labels()
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
