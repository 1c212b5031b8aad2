#!/usr/bin/python3
"""issue 14: report's runs and results tables (the XLSX sheets Runs and Results, CSV --table
runs|results) list what the report compared: the compared values' results that pass --where
(failed jobs too, not the per-thread parts of a job result), with the runs they come from and
their counts; --all lists every run and result in the warehouse. Expected ids and counts are
read from the warehouse with python's sqlite3."""
import csv, glob, io, os, sqlite3, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

import openpyxl  # noqa: E402

FIXTURES = os.environ["FIXTURES"]
t = Checks("report_appendix")


def expected(db, classes, rw=None):
    """({result id}, {run id: results}) of the results of storage classes (with rw) that are
    not a part of another result; classes None: every result and run."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    if classes is None:
        results = {i for (i,) in con.execute("SELECT id FROM result")}
        runs = dict(con.execute("SELECT run.id, count(r.id) FROM run"
                                " LEFT JOIN result r ON r.run_id = run.id GROUP BY run.id"))
        return results, runs
    parts = {i for (i,) in con.execute("SELECT result_id FROM tag WHERE key = 'part'")}
    results, runs = set(), {}
    for rid, run, cls, r_rw in con.execute("SELECT id, run_id, storage_class, rw FROM result"):
        if cls in classes and rid not in parts and (rw is None or r_rw == rw):
            results.add(rid)
            runs[run] = runs.get(run, 0) + 1
    return results, runs


def sheet_rows(ws):
    rows = [[c.value for c in r] for r in ws.iter_rows()]
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def check(db, tmp, what, classes, args, rw=None):
    want_results, want_runs = expected(db, classes, rw)
    out = os.path.join(tmp, "r.xlsx")
    rc, _, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", *args, "-o", out)
    if not t.eq(rc, 0, "%s: report -o r.xlsx %s" % (what, err)):
        return
    wb = openpyxl.load_workbook(out)
    results = sheet_rows(wb["Results"])
    t.eq(len(results), len(want_results), what + ": Results rows")
    t.eq({r["result_id"] for r in results}, want_results, what + ": Results ids")
    runs = sheet_rows(wb["Runs"])
    t.eq(len(runs), len(want_runs), what + ": Runs rows")
    t.eq({r["run_id"]: r["results"] for r in runs}, want_runs, what + ": Runs and their counts")
    for table, want in (("results", len(want_results)), ("runs", len(want_runs))):
        rc, text, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", *args, "--format",
                                 "csv", "--table", table)
        t.eq(rc, 0, "%s: csv %s %s" % (what, table, err))
        t.eq(len(list(csv.reader(io.StringIO(text)))) - 1, want, "%s: csv %s rows" % (what, table))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        bdb.import_examples(db, checks=t)
        # numjobs=4 without group_reporting: job results with their threads stored as parts
        threads = sorted(glob.glob(os.path.join(FIXTURES, "jobs", "mt_threads_*.json")))
        rc, _, err = bdb.call(db, "import", "--storage-class", "disk", *threads)
        t.eq(rc, 0, "import threads " + err)
        rc, _, err = bdb.call(db, "import", "--storage-class", "other",
                              os.path.join(FIXTURES, "report", "hostile_jobs.json"))
        t.eq(rc, 0, "import other " + err)
        con = sqlite3.connect(db)
        t.ok(con.execute("SELECT count(*) FROM tag WHERE key = 'part'").fetchone()[0] > 0,
             "the warehouse holds parts")
        t.ok(con.execute("SELECT count(*) FROM result WHERE storage_class = 'other'")
             .fetchone()[0] > 0, "and results of a value not compared")
        con.close()
        check(db, tmp, "compared", {"disk", "tmpfs"}, [])
        check(db, tmp, "--where rw=randread", {"disk", "tmpfs"}, ["--where", "rw=randread"],
              rw="randread")
        check(db, tmp, "--all", None, ["--all"])
        check(db, tmp, "--all --where", None, ["--all", "--where", "rw=randread"])
        rc, out, _ = bdb.call(db, "report", "--help")
        t.ok("--all" in out, "report --help names --all")
        man = open(os.path.join(os.environ["SRCDIR"], "docs", "benchdb.1.md")).read()
        t.ok("`--all`" in man, "docs/benchdb.1.md documents --all")
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
