#!/usr/bin/python3
"""mount_columns.py: `benchdb run` records the file system type and the mount source of the
files a job touches, and `runs` (table, csv, json, md) and `export` (ndjson, csv) show them as
fstype and mount_source: checked against `findmnt -no FSTYPE,SOURCE --target DIR` for a real
fio run in a temporary directory (and /dev/shm, a tmpfs, when there is one)."""
import csv, io, json, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("mount_columns")


def findmnt(path):
    """(fstype, source) of the mount holding path, as findmnt prints them: of mounts stacked
    on one point the last (the one on top); a bind mount's source is printed as
    DEVICE[/subdir], of which the mount table's source is DEVICE."""
    out = subprocess.run(["findmnt", "-no", "FSTYPE,SOURCE", "--target", path],
                         capture_output=True, text=True, check=True).stdout
    fstype, source = out.strip().splitlines()[-1].split(None, 1)
    if source.endswith("]") and "[" in source:
        source = source[:source.rindex("[")]
    return fstype, source


def runs_rows(db, fmt):
    rc, out, err = bdb.call(db, "runs", "--format", fmt)
    t.eq(rc, 0, "runs --format %s: %s" % (fmt, err))
    if fmt == "json":
        return json.loads(out)["runs"]
    if fmt == "csv":
        return list(csv.DictReader(io.StringIO(out)))
    lines = [line for line in out.splitlines() if line.strip() and not line.startswith("| ---")]
    if fmt == "md":  # Markdown escapes its markup: storage\_classes
        cells = [[c.strip().replace("\\_", "_") for c in line.strip("|").split("|")] for line in lines]
    else:  # the text grid: columns start where the header's names start
        starts = [i for i, ch in enumerate(lines[0]) if ch != " " and (i == 0 or lines[0][i - 1] == " ")]
        cells = [[line[a:b].strip() for a, b in zip(starts, starts[1:] + [None])] for line in lines]
    return [dict(zip(cells[0], row)) for row in cells[1:]]


def check(where, db):
    d = tempfile.mkdtemp(prefix="bdb-mnt-", dir=where)
    try:
        rc, out, err = bdb.call(db, "run", "--storage-class", "m-" + where, "--", "fio",
                                "--name=mnt", "--directory=" + d, "--size=1M", "--rw=write",
                                "--bs=64k", "--ioengine=psync")
        if not t.eq(rc, 0, "benchdb run fio in %s: %s" % (where, err)):
            return
        want = findmnt(d)
    finally:
        shutil.rmtree(d)
    for fmt in ("json", "csv", "table", "md"):
        rows = [r for r in runs_rows(db, fmt) if r["storage_classes"] == "m-" + where]
        if t.eq(len(rows), 1, "runs --format %s: one run in %s" % (fmt, where)):
            t.eq((rows[0]["fstype"], rows[0]["mount_source"]), want, "runs --format %s, %s" % (fmt, where))
    recs = [r for r in bdb.export(db, t) if r["storage_class"] == "m-" + where]
    if t.eq(len(recs), 1, "export: one result in " + where):
        t.eq((recs[0]["fstype"], recs[0]["mount_source"]), want, "export ndjson, " + where)
    rc, out, err = bdb.call(db, "export", "--format", "csv")
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["storage_class"] == "m-" + where]
    if t.eq(len(rows), 1, "export csv: one result in " + where):
        t.eq((rows[0]["fstype"], rows[0]["mount_source"]), want, "export csv, " + where)


def main():
    if not shutil.which("fio") or not shutil.which("findmnt"):
        print("mount_columns: skipped: fio or findmnt is not installed")
        return 77
    with bdb.temp_db() as db:
        places = [tempfile.gettempdir()] + (["/dev/shm"] if os.access("/dev/shm", os.W_OK) else [])
        for where in places:
            check(where, db)
        p = bdb.run(db, "import", os.path.join(os.environ["SRCDIR"], "tests", "fixtures", "disk_tmpfs", "disk",
                                               "randread-1.json"))
        t.eq(p.returncode, 0, "import an example: " + p.stderr)
        recs = [r for r in bdb.export(db, t) if r["storage_class"] is None]
        t.eq([(r["fstype"], r["mount_source"]) for r in recs], [(None, None)],
             "an import with no mount: both unknown (null)")
    return t.done()


sys.exit(main())
