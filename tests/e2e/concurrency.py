#!/usr/bin/python3
"""Concurrency: two `benchdb import` processes on one database at once (a fresh database,
then overlapping file lists) both succeed and store every file exactly once; `report` run
while an import is writing works and shows the committed data only."""
import glob, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ["BENCHDB"]
FIX = os.path.join(os.environ["FIXTURES"], "fio_json")
EXAMPLES = os.path.join(os.environ["SRCDIR"], "tests", "fixtures", "disk_tmpfs")
BASES = ["two_jobs_fsync.json", "unified_mixed.json", "jsonplus_randrw.json"]
t = Checks("concurrency")


def run(db, *args):
    p = subprocess.run([BENCHDB, "--db", db, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def start(db, *args):
    """Runs benchdb in the background, its output going to temporary files (a pipe nobody
    reads would stall it)."""
    err = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen([BENCHDB, "--db", db, *args], stdout=subprocess.DEVNULL, stderr=err)
    p.err = err
    return p


def finish(p, what):
    p.wait(timeout=600)
    p.err.seek(0)
    t.eq(p.returncode, 0, "%s: exit status: %s" % (what, p.err.read()[-800:]))


def batch(tmp, name, n):
    """n valid fio JSON files distinct from each other and from other batches' (a fixture
    plus trailing newlines, then as many spaces as batches made before)."""
    data = [open(os.path.join(FIX, b), "rb").read().rstrip(b"\n") for b in BASES]
    os.mkdir(os.path.join(tmp, name))
    paths = []
    for i in range(n):
        paths.append(os.path.join(tmp, name, "r%04d.json" % i))
        with open(paths[-1], "wb") as f:
            f.write(data[i % len(data)] + b"\n" * (i // len(data) + 1) + b" " * batch.made)
    batch.made += 1
    return paths


batch.made = 0


def check_stored(db, want, what):
    """Every path in want is stored exactly once, and nothing else."""
    rc, out, err = run(db, "query", "--format", "csv", "SELECT path FROM source_file ORDER BY path")
    t.eq(rc, 0, "query source_file: " + err)
    got = out.splitlines()[1:]
    t.eq(len(got), len(want), "%s: rows" % what)
    t.eq(sorted(set(want) - set(got))[:5], [], "%s: missing (first 5)" % what)
    t.eq(sorted(set(got) - set(want))[:5], [], "%s: unexpected (first 5)" % what)


def two_importers(tmp):
    db = os.path.join(tmp, "two.sqlite")
    paths = batch(tmp, "two", 400)
    half = len(paths) // 2
    # a fresh database: both create and migrate it at once
    a, b = start(db, "import", *paths[:half]), start(db, "import", *paths[half:])
    finish(a, "first of two imports into a new database")
    finish(b, "second of two imports into a new database")
    check_stored(db, paths, "two simultaneous imports")
    # overlapping lists, walked in opposite orders: each file is stored once
    more = batch(tmp, "overlap", 200)
    a, b = start(db, "import", *more), start(db, "import", *reversed(more))
    finish(a, "overlapping import, forward")
    finish(b, "overlapping import, backward")
    check_stored(db, paths + more, "overlapping imports")


def report_during_import(tmp):
    db = os.path.join(tmp, "report.sqlite")
    for cls in ("disk", "tmpfs"):
        rc, out, err = run(db, "import", "--storage-class", cls,
                           *sorted(glob.glob(os.path.join(EXAMPLES, cls, "*.json"))))
        t.eq(rc, 0, "import tests/fixtures/disk_tmpfs/%s: %s" % (cls, err))
    rc, before, err = run(db, "report", "--compare", "disk", "tmpfs")
    t.eq(rc, 0, "report before the import: " + err)
    p = start(db, "import", "--storage-class", "other", *batch(tmp, "during", 1500))
    reports = 0
    while p.poll() is None:
        rc, out, err = run(db, "report", "--compare", "disk", "tmpfs")
        t.eq(rc, 0, "report during an import: " + err)
        t.ok(out == before, "report during an import shows the same comparison")
        reports += 1
    finish(p, "import while reporting")
    t.ok(reports >= 2, "reports ran while the import was writing (%d)" % reports)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        two_importers(tmp)
        report_during_import(tmp)
    return t.done()


sys.exit(main())
