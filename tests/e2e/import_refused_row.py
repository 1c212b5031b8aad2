#!/usr/bin/python3
"""A file the warehouse refuses after its first row is stored (issue 35): files parsed ahead are
checked whole and stored without a savepoint of their own (import/session.c, checked_first), so
a row refused by a rule no check of benchdb's knows must take the batch back to its start and
store its other files again, each in a savepoint.

The rule is a real one of SQLite's: a trigger added to the warehouse refuses a result of job
'rr' (RAISE(ABORT)), the second job of tests/fixtures/fio_json/two_jobs_fsync.json (fio 3.33),
whose first job's rows are stored by then. One batch (BENCHDB_BATCH_MS) holds two good fio runs,
the refused one, two more, and a copy of the first (skipped). With -j 2 (parsed ahead) the exit
status, the error (the trigger's message, once), the files stored (each said imported once) and
every row of every table are those of -j 1, where each file is in a savepoint; the refused file
left no row, and what is stored is read off the inputs: the good files' paths and hashes.
Env: BENCHDB, FIXTURES."""
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ["BENCHDB"]
FIO = os.path.join(os.environ["FIXTURES"], "fio_json")
t = Checks("import_refused_row")
BEFORE = ["unified_mixed.json", "jsonplus_randrw.json"]
REFUSED = "two_jobs_fsync.json"
AFTER = ["bs_range.json", "escaped_desc.json"]
TRIGGER = ("CREATE TRIGGER refuse_rr BEFORE INSERT ON result WHEN NEW.job = 'rr' "
           "BEGIN SELECT RAISE(ABORT, 'no job rr here'); END")


def warehouse(d, name):
    """A warehouse holding one other fio run, with the trigger."""
    db = os.path.join(d, name)
    first = subprocess.run([BENCHDB, "--db", db, "import", os.path.join(FIO, "bs_mixed_differ.json")],
                           capture_output=True, text=True)
    t.eq(first.returncode, 0, name + ": the first import: " + first.stderr)
    con = sqlite3.connect(db)
    con.execute(TRIGGER)
    con.commit()
    con.close()
    return db


def rows(db):
    """Every row of every table (ids as stored), sorted."""
    con = sqlite3.connect(db)
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                       "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    out = {name: sorted(map(repr, con.execute("SELECT * FROM %s" % name))) for name in names}
    con.close()
    return out


def main():
    env = dict(os.environ, BENCHDB_BATCH_MS="1000000", SOURCE_DATE_EPOCH="1700000000")
    with tempfile.TemporaryDirectory(prefix="bdb-refused-") as d:
        paths = {}
        for name in BEFORE + [REFUSED] + AFTER:
            paths[name] = os.path.join(d, name)
            shutil.copy(os.path.join(FIO, name), paths[name])
        copy = os.path.join(d, "copy_of_first.json")
        shutil.copy(paths[BEFORE[0]], copy)
        args = [paths[n] for n in BEFORE + [REFUSED] + AFTER] + [copy]
        good = [paths[n] for n in BEFORE + AFTER]
        runs = {}
        for jobs in (1, 2):
            db = warehouse(d, "j%d.sqlite" % jobs)
            p = subprocess.run([BENCHDB, "--db", db, "import", "-j", str(jobs), *args],
                               capture_output=True, text=True, env=env, timeout=300)
            runs[jobs] = (p, db)
        (serial, db1), (parallel, db2) = runs[1], runs[2]
        t.eq(serial.returncode, 1, "-j 1: exit status 1 (an input rejected): " + serial.stderr)
        t.eq(parallel.returncode, 1, "-j 2: exit status 1: " + parallel.stderr)
        lines = parallel.stderr.splitlines()
        want = "benchdb: error: database '%s': cannot store results of '%s': no job rr here" % (
            db2, paths[REFUSED])
        t.eq([line for line in lines if ": error: " in line], [want], "the one error: the trigger's")
        for path in good:
            said = [line for line in lines if line.startswith(path + ": imported ")]
            t.eq(len(said), 1, "%s said imported once: %s" % (path, lines))
        t.ok(any(line.startswith(copy + ": note: already imported") for line in lines),
             "the copy skipped: %s" % lines)
        t.eq(parallel.stderr.replace(db2, "DB"), serial.stderr.replace(db1, "DB"),
             "-j 2's stderr is -j 1's")
        stored = rows(db2)
        t.eq(stored, rows(db1), "-j 2's rows are -j 1's, id for id")
        con = sqlite3.connect(db2)
        hashes = dict(con.execute("SELECT path, sha256 FROM source_file"))
        orphans = con.execute("SELECT (SELECT count(*) FROM run WHERE source_id NOT IN "
                              "(SELECT id FROM source_file)) + (SELECT count(*) FROM result "
                              "WHERE run_id NOT IN (SELECT id FROM run))").fetchone()[0]
        jobs = [r[0] for r in con.execute("SELECT DISTINCT job FROM result")]
        con.close()
        for path in good:
            with open(path, "rb") as f:
                t.eq(hashes.get(path), hashlib.sha256(f.read()).hexdigest(), path + ": stored")
        t.eq(sorted(hashes), sorted(good + [os.path.join(FIO, "bs_mixed_differ.json")]),
             "the files stored: the first one and the good ones")
        t.eq(orphans, 0, "no run or result of a file not stored")
        t.ok("syncw" not in jobs and "rr" not in jobs,
             "no result of the refused file's jobs (syncw, rr): %s" % jobs)
    return t.done()


sys.exit(main())
