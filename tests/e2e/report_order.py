"""report_order.py: a comparison reads the result table in its order when the compared sides
hold a quarter of the warehouse or more, and through the storage-class index otherwise
(query/results.c, read_in_order). Either way the report is the same: the bundled examples
compared alone (every result compared), then in a warehouse where they are under a fifth of
the results (200 more files of another class, made by bench/gen.py from a real fio output)."""
import os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("report_order")
SRC = os.environ.get("SRCDIR", ".")


def warehouse(db, extra_dir=None):
    for cls in ("disk", "tmpfs"):
        files = sorted(os.path.join(bdb.EXAMPLES, cls, f)
                       for f in os.listdir(os.path.join(bdb.EXAMPLES, cls)) if f.endswith(".json"))
        code, _, err = bdb.call(db, "import", "--storage-class", cls, *files)
        t.eq(code, 0, "import %s: %s" % (cls, err[-300:]))
    if extra_dir:
        files = sorted(os.path.join(extra_dir, f) for f in os.listdir(extra_dir))
        code, _, err = bdb.call(db, "import", "--storage-class", "other", *files)
        t.eq(code, 0, "import the other class: " + err[-300:])


def compared_share(db):
    (n,), = bdb.sql_rows(db, "SELECT count(*) FROM result WHERE storage_class IN ('disk', 'tmpfs')")
    (total,), = bdb.sql_rows(db, "SELECT max(id) FROM result")
    return n / total


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-order-") as tmp:
        extra = os.path.join(tmp, "other")
        p = subprocess.run(["/usr/bin/python3", os.path.join(SRC, "bench", "gen.py"), "files",
                            extra, "200",
                            os.path.join(SRC, "tests", "fixtures", "fio_json", "two_jobs_fsync.json")],
                           capture_output=True, text=True)
        t.eq(p.returncode, 0, "gen.py: " + p.stderr[-300:])
        alone, mixed = os.path.join(tmp, "alone.sqlite"), os.path.join(tmp, "mixed.sqlite")
        warehouse(alone)
        warehouse(mixed, extra)
        t.eq(compared_share(alone), 1.0, "alone: every result is compared")
        t.ok(compared_share(mixed) < 0.2, "mixed: the compared results are under a fifth (%.2f)"
             % compared_share(mixed))
        for fmt in ("md", "json"):
            reports = []
            for db in (alone, mixed):
                code, out, err = bdb.call(db, "report", "--compare", "disk", "tmpfs",
                                          "--format", fmt)
                t.eq(code, 0, "report --format %s: %s" % (fmt, err[-300:]))
                reports.append(out)
            t.ok(len(reports[0]) > 1000, "a real %s report (%d bytes)" % (fmt, len(reports[0])))
            t.eq(reports[1], reports[0], "--format %s: the same report either way" % fmt)
    return t.done()


sys.exit(main())
