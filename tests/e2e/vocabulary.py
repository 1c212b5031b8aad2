#!/usr/bin/python3
"""issue 31, item 6: one vocabulary. The names and kinds of value of export (ndjson and CSV),
runs (JSON and CSV), runs --history, the views, trend's JSON and the report's Runs and Results
sheets agree (docs/schema.md, "Vocabulary"), on the bundled examples (real fio 3.33 runs with
a bandwidth log and benchdb.meta sidecars). Each run's start is computed here from the fio
JSON's own "timestamp" (Unix seconds), and each logged point's time from it and the log's
milliseconds; the server's views are checked against these in fleet_server.py."""
import csv, datetime, glob, io, json, os, re, sqlite3, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

import openpyxl  # noqa: E402

SRC = os.environ.get("SRCDIR", ".")
t = Checks("vocabulary")
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def iso(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def expected_starts():
    """{source path as imported: its run's start} from each fio JSON's "timestamp"."""
    starts = {}
    for path in sorted(glob.glob(os.path.join(SRC, "examples", "*", "run*", "demo.json"))):
        with open(path) as f:
            starts[path] = iso(json.load(f)["timestamp"])
    return starts


def view_rows(db, sql):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    con.row_factory = sqlite3.Row
    rows = [dict(r) for r in con.execute(sql)]
    con.close()
    return rows


def check_export(db, starts):
    """export's fixed fields are v_result's columns with v_result's values."""
    records = bdb.export(db, t)
    view = {r["result_id"]: r for r in view_rows(db, "SELECT * FROM v_result")}
    t.eq(len(records), len(view), "export: a record per v_result row")
    fixed = list(records[0])[:list(records[0]).index("tags") + 1]
    missing = [f for f in fixed if f not in view[records[0]["result_id"]]]
    t.eq(missing, [], "export's fields are all columns of v_result")
    bad = [(r["result_id"], f) for r in records for f in fixed if f != "tags"
           and r[f] != view[r["result_id"]][f]]
    t.eq(bad[:5], [], "export and v_result hold the same values")
    t.eq([r["result_id"] for r in records if r["tags"] != json.loads(view[r["result_id"]]["tags"])],
         [], "tags: the same object in export and v_result")
    got = {r["source"]: r["started_at"] for r in records if r["source"] in starts}
    t.eq(got, starts, "export: started_at is the fio run's timestamp, ISO 8601 UTC")
    t.ok(all(ISO.match(r["imported_at"]) for r in records), "export: imported_at ISO 8601 UTC")
    p = bdb.run(db, "export", "--format", "csv")
    header = next(csv.reader(io.StringIO(p.stdout)))
    t.eq(header[:len(fixed)], fixed, "export csv: the ndjson's fields, in order")
    return records


def check_runs(db, records, starts):
    """runs names its fields as export does, with the same values for each run's results."""
    p = bdb.run(db, "runs", "--format", "json")
    doc = json.loads(p.stdout)
    t.eq(doc["schema"], 2, "runs json: shape 2")
    runs = doc["runs"]
    shared = ["run_id", "source", "format", "tool", "tool_version", "sec", "mount_options",
              "fstype", "mount_source", "started_at", "imported_at"]
    t.eq([k for k in shared if k not in runs[0]], [], "runs json: the export's names")
    by_run = {}
    for r in records:
        by_run.setdefault(r["run_id"], []).append(r)
    t.eq(sorted(by_run), sorted(r["run_id"] for r in runs), "runs: the export's run_ids")
    for run in runs:
        for k in shared[1:]:  # each run here has one value of each (a volume, a mount)
            values = {r[k] for r in by_run[run["run_id"]]}
            t.eq({run[k]}, values, "runs %s: %s as its results' export says" % (run["run_id"], k))
    got = {r["source"]: r["started_at"] for r in runs if r["source"] in starts}
    t.eq(got, starts, "runs json: started_at")
    p = bdb.run(db, "runs", "--format", "csv")
    t.eq(next(csv.reader(io.StringIO(p.stdout))), list(runs[0]), "runs csv: json's names")
    return runs


def check_history(db):
    one = view_rows(db, "SELECT result_id, source FROM v_result WHERE format = 'fio-log'"
                        " ORDER BY result_id LIMIT 1")[0]
    rc, _, err = bdb.call(db, "relabel", "--where", "source=" + one["source"], "--set",
                          "tag:reviewed=yes")
    t.eq(rc, 0, "relabel one result " + err)
    hist = json.loads(bdb.run(db, "runs", "--history", "--format", "json").stdout)["history"]
    t.eq([(h["result_id"], h["field"]) for h in hist], [(one["result_id"], "tag:reviewed")],
         "runs --history: result_id, as export names it")
    t.ok(all("run_id" in h for h in hist), "runs --history: run_id")


def check_series(db, starts):
    """v_series_point's time is the run's start plus the point's offset."""
    points = view_rows(db, "SELECT p.time, p.t_ms, v.source, v.started_at FROM v_series_point p"
                           " JOIN v_result v ON v.result_id = p.result_id")
    t.ok(len(points) > 100, "v_series_point: the bandwidth logs' points (%d)" % len(points))
    bad = []
    for p in points:
        start = datetime.datetime.strptime(starts[p["source"]], "%Y-%m-%dT%H:%M:%SZ")
        want = start + datetime.timedelta(milliseconds=p["t_ms"])
        if p["time"] != want.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (want.microsecond // 1000):
            bad.append((p["time"], want))
    t.eq(bad[:3], [], "v_series_point: time = start + t_ms")
    cols = [r["name"] for r in view_rows(db, "SELECT name FROM pragma_table_info('v_metric')")]
    base = [r["name"] for r in view_rows(db, "SELECT name FROM pragma_table_info('v_result')")]
    t.eq(cols, base + ["metric", "value"], "v_metric: v_result's columns, then metric and value")


def check_trend(db, runs):
    doc = json.loads(bdb.run(db, "trend", "--format", "json").stdout)
    t.eq(doc["schema"], 2, "trend json: schema 2")
    started = {r["run_id"]: r["started_at"] for r in runs}
    points = [p for s in doc["series"] for p in s["points"]]
    t.ok(points, "trend json: points")
    t.eq([p for p in points if started.get(p["run_id"]) != p["started_at"]], [],
         "trend points: run_id and started_at as runs says")
    p = bdb.run(db, "trend", "--format", "csv", "--table", "points")
    header = next(csv.reader(io.StringIO(p.stdout)))
    t.ok("run_id" in header and "started_at" in header, "trend csv points: %s" % header)


def check_xlsx(db, tmp, runs):
    out = os.path.join(tmp, "r.xlsx")
    rc, _, err = bdb.call(db, "report", "--compare", "standard", "premium", "-o", out)
    if not t.eq(rc, 0, "report -o r.xlsx " + err):
        return
    wb = openpyxl.load_workbook(out)
    header = [c.value for c in next(wb["Runs"].iter_rows())]
    t.eq([k for k in runs[0] if k not in header], [], "Runs sheet: runs' names %s" % header)
    view = view_rows(db, "SELECT * FROM v_result LIMIT 1")[0]
    header = [c.value for c in next(wb["Results"].iter_rows())]
    t.eq([k for k in header if k not in view], [], "Results sheet: v_result's names")
    rows = list(wb["Runs"].iter_rows(values_only=True))
    col = rows[0].index("started_at")
    want = {r["run_id"]: r["started_at"] for r in runs}
    t.eq({r[0]: r[col] for r in rows[1:]}, {r[0]: want[r[0]] for r in rows[1:]},
         "Runs sheet: started_at as runs says")


def main():
    starts = expected_starts()
    t.eq(len(starts), 6, "the examples: three runs of two volumes")
    with tempfile.TemporaryDirectory(prefix="bdb-vocab-") as tmp:
        db = os.path.join(tmp, "v.sqlite")
        files = [f for pattern in ("demo.json", "*.log")
                 for f in glob.glob(os.path.join(SRC, "examples", "*", "run*", pattern))]
        rc, _, err = bdb.call(db, "import", "-q", *sorted(files))
        t.eq(rc, 0, "import the examples " + err)
        records = check_export(db, starts)
        runs = check_runs(db, records, starts)
        check_series(db, starts)
        check_trend(db, runs)
        check_xlsx(db, tmp, runs)
        check_history(db)
    return t.done()


sys.exit(main())
