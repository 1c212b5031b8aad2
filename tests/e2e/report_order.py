"""report_order.py: a comparison reads the result table in its order when the compared sides
hold a quarter of the warehouse or more, and through the storage-class index otherwise
(query/results.c, read_in_order). Either way the report is the same: the bundled examples
compared alone (every result compared), then in a warehouse where they are under a fifth of
the results (200 more files of another class, made by bench/gen.py from a real fio output).
The compared results' tags are looked up by id for a few results and read in one pass for
many (query/results.c, load_tags): both must find every thread stored as a part of its job
result, which a comparison never counts as a repeat."""
import json, os, subprocess, sys, tempfile

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


def gen(out, n, base):
    p = subprocess.run(["/usr/bin/python3", os.path.join(SRC, "bench", "gen.py"), "files", out,
                        str(n), base], capture_output=True, text=True)
    t.eq(p.returncode, 0, "gen.py: " + p.stderr[-300:])
    return sorted(os.path.join(out, f) for f in os.listdir(out))


def check_parts_left_out(tmp, copies):
    """copies files of 4 threads per class: each file is one job result and 4 parts, so every
    comparison row counts copies repeats, whichever way the tags were read."""
    db = os.path.join(tmp, "threads-%d.sqlite" % copies)
    for cls, k in (("a", 1), ("b", 2)):
        base = os.path.join(SRC, "tests", "fixtures", "jobs", "mt_threads_%d.json" % k)
        files = gen(os.path.join(tmp, "threads-%d-%s" % (copies, cls)), copies, base)
        code, _, err = bdb.call(db, "import", "--storage-class", cls, *files)
        t.eq(code, 0, "import %d thread files: %s" % (copies, err[-300:]))
    (parts,), = bdb.sql_rows(db, "SELECT count(*) FROM tag WHERE key = 'part'")
    t.eq(parts, 2 * 4 * copies, "%d copies: four parts per file" % copies)
    code, out, err = bdb.call(db, "report", "--compare", "a", "b", "--format", "json")
    t.eq(code, 0, "report: " + err[-300:])
    rows = json.loads(out)["sections"][0]["table"]["rows"] if code == 0 else []
    ns = {cell["n"] for row in rows for cell in row[2:4] if isinstance(cell, dict)}
    t.eq(ns, {copies}, "%d copies (%d results compared): each row's n counts job results only"
         % (copies, 10 * copies))


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
        # tags by id (30 results) and in one pass (9,000, over TAGS_BY_ID_MAX)
        check_parts_left_out(tmp, 3)
        check_parts_left_out(tmp, 900)
    return t.done()


sys.exit(main())
