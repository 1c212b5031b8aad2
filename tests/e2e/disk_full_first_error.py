#!/usr/bin/python3
"""A full disk reports the error that happened, and what was not stored (issue 29, item 8).

The disk is filled with RLIMIT_FSIZE (SIGXFSZ ignored, so that a write past it fails: SQLite's
'disk I/O error'), as attack_report.py does. SQLite may then roll the whole transaction back by
itself: the import went on to "ROLLBACK TO file" and said only "no such savepoint: file", and
the training of a dictionary at the end of an import said "cannot rollback - no transaction
is active", the real error replaced by the ROLLBACK's.

- mid-batch: 1500 copies of a real fio run (tests/fixtures/fio_json/jsonplus_randrw.json, each
  with its own job name) in one batch (BENCHDB_BATCH_MS), the first imported before under no
  limit; a limit of 2.5 MB is reached inside the batch, once SQLite spills its cache. The error
  names the file being stored and the real error, then says that file and the files stored
  before it in its batch were not stored: their count is that of the arguments before it, less
  the one imported before (skipped); the warehouse holds the first file only.
- training: 300 copies of a real IOR JSON summary (tests/fixtures/ior/posix-fpp-np2-disk.json:
  a format benchdb ships no dictionary for, so the import trains one), each with 24,000 random
  hex digits in a key of its own (so that the repack against the dictionary writes more than
  SQLite's cache holds), all committed, into a warehouse that holds one fio run already (in
  WAL mode: a new one is filled in rollback-journal mode, whose journal never outgrows the
  database, so no limit that lets the import through stops its training); limits
  from 6 to 10 MB stop the training: the error is the disk's, a note says the files are stored
  uncompressed against a dictionary, and they are all in the warehouse (python's count).
Env: BENCHDB, FIXTURES."""
import glob
import os
import random
import resource
import signal
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ.get("BENCHDB", "benchdb")
FIXTURE = os.path.join(os.environ["FIXTURES"], "fio_json", "jsonplus_randrw.json")
IOR_FIXTURE = os.path.join(os.environ["FIXTURES"], "ior", "posix-fpp-np2-disk.json")
t = Checks("disk_full_first_error")
BAD = ("no such savepoint", "cannot rollback", "no transaction is active")


def run(db, files, limit):
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    env = dict(os.environ, BENCHDB_BATCH_MS="1000000")
    return subprocess.run([BENCHDB, "--db", db, "import"] + files, capture_output=True, text=True,
                          preexec_fn=pre, env=env, timeout=600)


def count(db, sql):
    return sqlite3.connect(db).execute(sql).fetchone()[0]


def mid_batch(tmp, raw):
    d = os.path.join(tmp, "batch")
    os.makedirs(d)
    files = []
    for i in range(1500):
        files.append(os.path.join(d, "f%04d.json" % i))
        with open(files[-1], "wb") as f:
            f.write(raw.replace(b'"jobname" : "', b'"jobname" : "j%d' % i, 1))
    db = os.path.join(tmp, "batch.sqlite")
    first = subprocess.run([BENCHDB, "--db", db, "import", files[0]], capture_output=True)
    t.eq(first.returncode, 0, "the first file imported")
    p = run(db, files, 2500000)
    err = p.stderr
    t.eq(p.returncode, 3, "a full disk: exit 3: " + err[-300:])
    for bad in BAD:
        t.ok(bad not in err, "mid-batch: no %r: %s" % (bad, err[-400:]))
    failed = [f for f in files if ("cannot store results of '%s'" % f) in err]
    t.eq(len(failed), 1, "the file being stored named with its error: " + err[-400:])
    if failed:
        t.ok(("cannot store results of '%s': disk I/O error" % failed[0]) in err,
             "the real error: " + err[-400:])
        before = files.index(failed[0]) - 1  # the first file was skipped, stored before
        want = ("error: '%s' and the %d files stored before it in its batch were not stored "
                "(nothing of them is in the warehouse)" % (failed[0], before))
        t.ok(want in err, "what is lost: want %r, got %r" % (want, err[-400:]))
    t.eq(count(db, "SELECT count(*) FROM source_file"), 1, "only the first file is stored")


def training(tmp):
    raw = open(IOR_FIXTURE, "rb").read()
    d = os.path.join(tmp, "train")
    os.makedirs(d)
    rnd = random.Random(29)
    files = []
    for i in range(300):
        pad = bytes(rnd.getrandbits(8) for _ in range(12000)).hex().encode()
        files.append(os.path.join(d, "t%03d.json" % i))
        with open(files[-1], "wb") as f:
            f.write(raw.replace(b'"Machine": ', b'"pad": "%s", "Machine": ' % pad, 1))
    failed_training = 0
    for limit in (6000000, 7000000, 8000000, 9000000):
        db = os.path.join(tmp, "train%d.sqlite" % limit)
        subprocess.run([BENCHDB, "--db", db, "import", "-q", FIXTURE], check=True)
        p = run(db, files, limit)
        err = p.stderr
        for bad in BAD:
            t.ok(bad not in err, "training at %d: no %r: %s" % (limit, bad, err[-400:]))
        if "cannot train a dictionary" not in err:
            continue
        failed_training += 1
        t.ok(("database '%s': cannot train a dictionary for stored bytes: disk I/O error" % db)
             in err, "training at %d: the real error: %s" % (limit, err[-400:]))
        t.ok("note: the files imported are stored, not compressed against a dictionary" in err,
             "training at %d: what was not done said: %s" % (limit, err[-400:]))
        t.eq(count(db, "SELECT count(*) FROM source_file"), len(files) + 1,
             "training at %d: every file stored" % limit)
        t.eq(count(db, "SELECT count(*) FROM source_file WHERE raw_dict IS NOT NULL AND path "
                       "LIKE '%s/%%'" % d), 0,
             "training at %d: none compressed against a dictionary" % limit)
    t.ok(failed_training > 0, "some limit stopped the training itself")


def main():
    raw = open(FIXTURE, "rb").read()
    with tempfile.TemporaryDirectory(prefix="bdb-full-") as tmp:
        mid_batch(tmp, raw)
        training(tmp)
    return t.done()


sys.exit(main())
