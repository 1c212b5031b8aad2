#!/usr/bin/python3
"""reimport_hint.py: re-importing a stored file (same content) with other labels adds one note
after 'already imported' with a command that changes them; the command is run here as printed
(shlex.split, benchdb's path in place of 'benchdb') and the labels are read back with python's
sqlite3. Same labels: no note. A mount that differs: the rm hint, and rm plus import again
stores the new mount. Two files imported from one path: the command picks the run. Fixtures:
tests/fixtures/fio_json (fio 3.33, gen.sh)."""
import os, shlex, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("reimport_hint")
FIO = os.path.join(os.environ["FIXTURES"], "fio_json")
FSYNC = os.path.join(FIO, "two_jobs_fsync.json")
MIXED = os.path.join(FIO, "unified_mixed.json")
ENV = {k: v for k, v in os.environ.items() if k != "BENCHDB_DB"}
SKIPPED = "note: already imported (same content as "


def run(args, cwd=None):
    return subprocess.run([bdb.BENCHDB] + list(args), capture_output=True, text=True, cwd=cwd,
                          env=ENV, timeout=300)


def hints(stderr):
    """The notes after 'already imported' lines (the hint lines)."""
    return [line for line in stderr.splitlines()
            if ": note: " in line and SKIPPED not in line and "without a storage class" not in line]


def run_printed(command, cwd=None):
    """Runs the command a hint printed, as a user pasting it into a shell would."""
    argv = shlex.split(command)
    t.eq(argv[0], "benchdb", "the command starts with benchdb: %r" % command)
    return run(argv[1:], cwd)


def labels_of(db, path):
    """{result id: (storage_class, host, sec, {tag: value}, mount options)} of the results
    of the files imported from path."""
    rows = bdb.sql_rows(db, "SELECT r.id, r.storage_class, r.host, r.sec, m.options FROM result r"
                            " JOIN run ON run.id = r.run_id JOIN source_file s ON s.id = "
                            "run.source_id LEFT JOIN mount m ON m.id = r.mount_id WHERE s.path = ?",
                        path)
    out = {}
    for rid, cls, host, sec, mount in rows:
        tags = dict(bdb.sql_rows(db, "SELECT key, value FROM tag WHERE result_id = ?", rid))
        out[rid] = (cls, host, sec, tags, mount)
    return out


def fio_results(path):
    """Results fio's JSON holds: one per job and direction that did I/O."""
    import json
    with open(path) as f:
        doc = json.load(f)
    return sum(1 for job in doc["jobs"] for d in ("read", "write", "trim", "mixed")
               if job.get(d, {}).get("total_ios", 0) > 0)


def relabel_with_quoted_db():
    """--db in a directory whose name needs quotes; storage class and a tag differ."""
    with tempfile.TemporaryDirectory(prefix="bdb-e2e-") as tmp:
        where = os.path.join(tmp, "it's here")
        os.mkdir(where)
        db = os.path.join(where, "w h.sqlite")
        p = run(["--db", db, "import", "--storage-class", "a", FSYNC])
        t.eq(p.returncode, 0, "first import: " + p.stderr)
        p = run(["--db", db, "import", "--storage-class", "a", FSYNC])
        t.eq(hints(p.stderr), [], "same labels: no hint")
        p = run(["--db", db, "import", "--storage-class", "b", "--tag", "fw=2.1 beta", FSYNC])
        t.eq(p.returncode, 0, "re-import exit status")
        lines = hints(p.stderr)
        t.eq(len(lines), 1, "one hint line: %r" % p.stderr)
        want = ("benchdb: note: '%s' is stored with storage class 'a', tag fw none; to change "
                "its labels: benchdb --db %s relabel --where source=%s --set storage_class=b "
                "--set 'tag:fw=2.1 beta'" % (FSYNC, shlex.quote(db).replace('"\'"', "\\'"), FSYNC))
        t.eq(lines[0] if lines else None, want, "the hint")
        before = labels_of(db, FSYNC)
        t.eq(len(before), fio_results(FSYNC), "results stored")
        cmd = lines[0].split("to change its labels: ", 1)[1] if lines else "benchdb"
        p = run_printed(cmd)
        t.eq(p.returncode, 0, "the printed relabel: " + p.stderr)
        after = labels_of(db, FSYNC)
        t.eq(sorted(after), sorted(before), "the same results")
        t.ok(all(v[0] == "b" and v[3].get("fw") == "2.1 beta" for v in after.values()),
             "relabelled: %r" % after)
        p = run(["--db", db, "import", "--storage-class", "b", "--tag", "fw=2.1 beta", FSYNC])
        t.eq(hints(p.stderr), [], "after the relabel the same import says nothing more")


def default_warehouse_and_mount():
    """No --db (the default ./benchdb.sqlite): the command names none. A mount that differs
    from the stored one: the rm hint, which with an import again stores the new mount."""
    with tempfile.TemporaryDirectory(prefix="bdb-e2e-") as tmp:
        db = os.path.join(tmp, "benchdb.sqlite")
        p = run(["import", "--host", "h1", "--mount", "hard,vers=4.1", MIXED], cwd=tmp)
        t.eq(p.returncode, 0, "first import: " + p.stderr)
        p = run(["import", "--host", "h2", "--mount", "vers=4.1,hard", MIXED], cwd=tmp)
        lines = hints(p.stderr)
        want = ("benchdb: note: '%s' is stored with host 'h1'; to change its labels: benchdb "
                "relabel --where source=%s --set host=h2" % (MIXED, MIXED))
        t.eq(lines, [want], "same mount written otherwise: only the host differs")
        p = run(["import", "--host", "h1", "--mount", "soft,nfsvers=4.2", MIXED], cwd=tmp)
        lines = hints(p.stderr)
        want = ("benchdb: note: '%s': mount options differ ('hard,vers=4.1' stored, "
                "'soft,vers=4.2' given): benchdb rm --where source=%s, then import again"
                % (MIXED, MIXED))
        t.eq(lines, [want], "mount hint")
        cmd = lines[0].split("given): ", 1)[1].rsplit(", then import again", 1)[0] if lines else ""
        p = run_printed(cmd or "benchdb", cwd=tmp)
        t.eq(p.returncode, 0, "the printed rm: " + p.stderr)
        t.eq(labels_of(db, MIXED), {}, "removed")
        p = run(["import", "--host", "h1", "--mount", "soft,nfsvers=4.2", MIXED], cwd=tmp)
        t.eq(hints(p.stderr), [], "imported again: no hint")
        mounts = {v[4] for v in labels_of(db, MIXED).values()}
        t.eq(mounts, {"soft,vers=4.2"}, "the new mount")


def shared_path():
    """Two contents imported from one path: --where source= would take both, so the command
    names the run of the stored file, and the other file keeps its labels."""
    with tempfile.TemporaryDirectory(prefix="bdb-e2e-") as tmp:
        db = os.path.join(tmp, "t.sqlite")
        path = os.path.join(tmp, "x.json")
        for content, cls in ((FSYNC, "a"), (MIXED, "m")):
            shutil.copyfile(content, path)
            p = run(["--db", db, "import", "--storage-class", cls, path])
            t.eq(p.returncode, 0, "import %s: %s" % (cls, p.stderr))
        shutil.copyfile(FSYNC, path)
        p = run(["--db", db, "import", "--storage-class", "b", path])
        run_id = bdb.sql_rows(db, "SELECT min(run.id) FROM run JOIN source_file s ON s.id = "
                                  "run.source_id WHERE s.path = ? AND s.sha256 = (SELECT sha256 "
                                  "FROM source_file WHERE path = ? ORDER BY id LIMIT 1)",
                              path, path)[0][0]
        lines = hints(p.stderr)
        want = ("benchdb: note: '%s' is stored with storage class 'a'; to change its labels: "
                "benchdb --db %s relabel --where run=%d --set storage_class=b" % (path, db, run_id))
        t.eq(lines, [want], "the run's hint")
        p = run_printed(lines[0].split("labels: ", 1)[1] if lines else "benchdb")
        t.eq(p.returncode, 0, "the printed relabel: " + p.stderr)
        classes = sorted({v[0] for v in labels_of(db, path).values()})
        t.eq(classes, ["b", "m"], "only the stored file's results changed")


relabel_with_quoted_db()
default_warehouse_and_mount()
shared_path()
sys.exit(t.done())
