#!/usr/bin/python3
"""export's CSV keeps bytes exact (issue 29, item 8): docs/export.md says so, but a text field
beginning with = + - @ got report's spreadsheet guard, a ' before it, so a storage class
'-fast' exported as "'-fast" and loaded back as another label. Now export writes every field
as stored (RFC 4180 quoting only), while query's CSV, for spreadsheets like report's, keeps
the guard (docs/benchdb.1.md). Input: a real fio run (tests/fixtures/fio_json/two_jobs_fsync.json) labelled with
flags; python's csv module reads both outputs back. Env: BENCHDB, FIXTURES."""
import csv
import io
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ.get("BENCHDB", "benchdb")
FIXTURE = os.path.join(os.environ["FIXTURES"], "fio_json", "two_jobs_fsync.json")
t = Checks("export_csv_exact")
LABELS = {"host": '=HYPERLINK("http://x","y")', "storage_class": "-fast"}
TAG = ("note", '@sum, "quoted"')


def run(db, *args):
    p = subprocess.run([BENCHDB, "--db", db] + list(args), capture_output=True, text=True,
                       timeout=120)
    t.eq(p.returncode, 0, "benchdb %s: %s" % (" ".join(args), p.stderr[-200:]))
    return p.stdout


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-csv-") as tmp:
        db = os.path.join(tmp, "w.sqlite")
        run(db, "import", "--host", LABELS["host"], "--storage-class", LABELS["storage_class"],
            "--tag", "%s=%s" % TAG, FIXTURE)
        rows = list(csv.DictReader(io.StringIO(run(db, "export", "--format", "csv"), newline="")))
        t.ok(len(rows) >= 1, "export has rows")
        for r in rows:
            for key, want in LABELS.items():
                t.eq(r[key], want, "export's %s as stored" % key)
            t.ok("%s=%s" % TAG in r["tags"].split(";"), "export's tags as stored: %r" % r["tags"])
        q = run(db, "query", "--format", "csv",
                "SELECT DISTINCT host, storage_class FROM v_result")
        got = list(csv.reader(io.StringIO(q, newline="")))
        t.eq(got, [["host", "storage_class"], ["'" + LABELS["host"], "'" + LABELS["storage_class"]]],
             "query's CSV keeps the spreadsheet guard")
    return t.done()


sys.exit(main())
