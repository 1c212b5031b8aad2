"""read_only_warehouse.py: a warehouse in a directory its reader cannot write (read-only media,
another user's warehouse) is read: runs, report, export and query by a user who may read the
file but not write its directory (user nobody when we are root, else the directory made
read-only) exit 0, the export holds every result (counted with python's sqlite3), and the file
is left byte for byte as it was, with no -wal or -shm beside it (read as immutable: SQLite
cannot create the -shm a WAL database is read through). Before, each exited 3. With a -wal a
writer left (and no -shm), reading it without the -wal's commits would be wrong: exit 3, and
the message names the -wal file."""
import os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("read_only_warehouse")
NOBODY = 65534


def as_reader():
    if os.geteuid() == 0:
        os.setgid(NOBODY)
        os.setgroups([])
        os.setuid(NOBODY)


def read(db, *args):
    p = subprocess.run([bdb.BENCHDB, "--db", db] + list(args), capture_output=True, text=True,
                       timeout=120, preexec_fn=as_reader)
    return p.returncode, p.stdout, p.stderr


def main():
    tmp = tempfile.mkdtemp(prefix="bdb-ro-")
    try:
        wdir = os.path.join(tmp, "w")
        os.mkdir(wdir)
        db = os.path.join(wdir, "t.sqlite")
        files = bdb.import_examples(db, checks=t)
        # a read-write connection (a read-only one leaves the -wal and -shm behind)
        results = bdb.sql_rows(db, "SELECT count(*) FROM result")[0][0]
        journal = bdb.sql_rows(db, "PRAGMA journal_mode")[0][0]
        t.eq(journal, "wal", "the warehouse is in WAL mode")
        t.eq(sorted(os.listdir(wdir)), ["t.sqlite"], "no -wal or -shm after the imports")
        os.chmod(tmp, 0o755)
        os.chmod(wdir, 0o555)  # nobody (or we, not root) may not write it
        os.chmod(db, 0o644)
        before = bdb.file_sha256(db)
        for args in (["runs"], ["report", "--compare", "disk", "tmpfs"],
                     ["query", "SELECT count(*) AS n FROM v_result"]):
            rc, out, err = read(db, *args)
            t.eq(rc, 0, "%s: exit status (%s)" % (args[0], err.strip()))
            t.ok(out.strip(), "%s: prints" % args[0])
        rc, out, err = read(db, "export", "--format", "ndjson")
        t.eq(rc, 0, "export: exit status (%s)" % err.strip())
        t.eq(len([l for l in out.splitlines() if l.strip()]), results,
             "export: every result (%d files imported)" % sum(len(f) for f in files.values()))
        t.eq(sorted(os.listdir(wdir)), ["t.sqlite"], "no -wal or -shm left by the readers")
        t.eq(bdb.file_sha256(db), before, "the warehouse unchanged")
        # a writer that stopped before folding its -wal in: the -wal holds a commit
        os.chmod(wdir, 0o755)
        code = ("import sqlite3, os; c = sqlite3.connect(%r); c.execute('PRAGMA "
                "wal_autocheckpoint = 0'); c.execute('CREATE TABLE later(a)'); c.commit(); "
                "os._exit(0)" % db)
        subprocess.run([sys.executable, "-c", code], check=True)
        shm = db + "-shm"
        if os.path.exists(shm):
            os.unlink(shm)
        t.ok(os.path.exists(db + "-wal"), "a -wal left")
        os.chmod(wdir, 0o555)
        rc, out, err = read(db, "runs")
        t.eq(rc, 3, "a -wal and no -shm: exit status (%s)" % err.strip())
        t.ok(db + "-wal" in err, "a -wal and no -shm: the message names it: %r" % err)
    finally:
        for root, dirs, _ in os.walk(tmp):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(tmp)
    return t.done()


sys.exit(main())
