"""The read commands leave nothing beside the warehouse: SQLite's -wal and -shm files are gone
when each of them exits (a connection opened read-only could not remove them, so every report
left two files next to the warehouse), and the warehouse's bytes are unchanged by reading."""
import hashlib, os, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("read_tidy")

READS = [["report", "--compare", "disk", "tmpfs"], ["report", "--compare", "disk", "tmpfs",
         "-o", "OUT"], ["runs"], ["labels"], ["export", "--format", "csv"],
         ["query", "SELECT count(*) FROM result"], ["trend", "--metric", "bw_bytes_s"]]


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def main():
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as elsewhere:
        db = os.path.join(tmp, "w.sqlite")
        out = os.path.join(elsewhere, "report.xlsx")
        bdb.import_examples(db, checks=t)
        t.eq(sorted(os.listdir(tmp)), ["w.sqlite"], "after the import")
        before = digest(db)
        for args in READS:
            p = bdb.run(db, *[a.replace("OUT", out) for a in args])
            t.eq(p.returncode, 0, "%s: exit status (%s)" % (" ".join(args), p.stderr[-300:]))
            t.eq(sorted(os.listdir(tmp)), ["w.sqlite"], "after %s" % " ".join(args))
        t.eq(digest(db), before, "the warehouse's bytes after the reads")
    return t.done()


sys.exit(main())
