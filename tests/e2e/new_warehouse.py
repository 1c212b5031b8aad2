#!/usr/bin/python3
"""A warehouse an import creates is filled in SQLite's rollback-journal mode until its first
batch is committed, then switched to WAL (schema/db.c, fill_new): that batch writes each page
once.

- A new warehouse, after importing the 24 fio runs of tests/fixtures/disk_tmpfs: journal_mode
  is wal (python's sqlite3), no -journal or -wal file is left, every file is stored (counted by
  glob here), and an import into it afterwards (WAL from its open on) stores one more.
- A first import killed (SIGKILL) while it stores a 128 MiB fio log (bench/gen.py's repeat of a
  real fio 3.33 log): what it left opens, passes integrity_check, holds none of the log (its
  transaction was not committed), and the next import stores the log whole and leaves the
  warehouse in WAL mode.
- Batches of 1 ms (BENCHDB_BATCH_MS): a fio run, then the same log, into a new warehouse: the
  log's pages go to a -wal file (seen while it is stored, no -journal then), as the warehouse
  went to WAL once the batch of the fio run was committed.
Env: BENCHDB, FIXTURES, SRCDIR."""
import glob
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ["BENCHDB"]
FIX = os.environ["FIXTURES"]
t = Checks("new_warehouse")


def mode_and_count(db):
    h = sqlite3.connect(db)
    try:
        return (h.execute("PRAGMA journal_mode").fetchone()[0],
                h.execute("PRAGMA integrity_check").fetchone()[0],
                h.execute("SELECT count(*) FROM source_file").fetchone()[0])
    finally:
        h.close()


def leftovers(db):
    return [s for s in ("-journal", "-wal") if os.path.exists(db + s)]


def filled_whole(tmp):
    db = os.path.join(tmp, "new.sqlite")
    files = sorted(glob.glob(os.path.join(FIX, "disk_tmpfs", "*", "*.json")))
    t.eq(len(files), 24, "the fixtures")
    p = subprocess.run([BENCHDB, "--db", db, "import", "-q"] + files, capture_output=True,
                       text=True)
    t.eq(p.returncode, 0, "import into a new warehouse: " + p.stderr[-300:])
    stored = len(files)
    t.eq(mode_and_count(db), ("wal", "ok", stored), "the new warehouse: WAL, whole, every file")
    t.eq(leftovers(db), [], "no journal or WAL file left")
    log = os.path.join(FIX, "fio_log", "perio_clat.1.log")
    p = subprocess.run([BENCHDB, "--db", db, "import", "-q", log], capture_output=True, text=True)
    t.eq(p.returncode, 0, "a later import: " + p.stderr)
    t.eq(mode_and_count(db), ("wal", "ok", stored + 1), "a later import into it")


def killed_first_import(tmp):
    log = os.path.join(tmp, "big_clat.1.log")
    subprocess.run(["/usr/bin/python3", os.path.join(os.environ["SRCDIR"], "bench", "gen.py"),
                    "log", log, "128", os.path.join(FIX, "fio_log", "perio_clat.1.log")],
                   check=True)
    db = os.path.join(tmp, "killed.sqlite")
    p = subprocess.Popen([BENCHDB, "--db", db, "import", "-j", "1", log],
                         stderr=subprocess.DEVNULL)
    for _ in range(12000):  # until the warehouse exists and the log's transaction writes pages
        if p.poll() is not None or (os.path.exists(db + "-journal") and
                                    os.path.getsize(db) > 1 << 20):
            break
        time.sleep(0.005)
    t.ok(p.poll() is None, "killed while it stored the log (it had not ended)")
    p.send_signal(signal.SIGKILL)
    p.wait()
    t.ok(os.path.exists(db), "the killed import left its warehouse")
    t.eq(mode_and_count(db)[1:], ("ok", 0), "what it left: whole, without the log")
    p = subprocess.run([BENCHDB, "--db", db, "import", "-q", log], capture_output=True, text=True)
    t.eq(p.returncode, 0, "the log imported again: " + p.stderr)
    t.eq(mode_and_count(db), ("wal", "ok", 1), "then: WAL, whole, the log stored")
    t.eq(leftovers(db), [], "no journal or WAL file left")
    return log


def wal_after_first_batch(tmp, log):
    db = os.path.join(tmp, "batches.sqlite")
    run = os.path.join(FIX, "disk_tmpfs", "disk", "randread-1.json")
    p = subprocess.Popen([BENCHDB, "--db", db, "import", "-j", "1", run, log],
                         stderr=subprocess.DEVNULL, env=dict(os.environ, BENCHDB_BATCH_MS="1"))
    seen = set()
    while p.poll() is None:
        for s in ("-journal", "-wal"):
            if os.path.exists(db + s) and os.path.getsize(db + s) > 1 << 20:
                seen.add(s)
        time.sleep(0.005)
    t.eq(p.returncode, 0, "the fio run and the log imported in batches")
    t.eq(sorted(seen), ["-wal"], "the log's pages went to a -wal file, none to a -journal")
    t.eq(mode_and_count(db), ("wal", "ok", 2), "then: WAL, whole, both stored")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        filled_whole(tmp)
        log = killed_first_import(tmp)
        wal_after_first_batch(tmp, log)
    return t.done()


sys.exit(main())
