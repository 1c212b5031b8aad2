#!/usr/bin/python3
"""Two concurrent imports and the dictionary (issue 29, item 8): an import packs its files
against the dictionaries it read when it began, and a format's dictionary is trained once, by
the import that ends with 256 of its files stored without one. The files an import stored while
another trained the dictionary were left without it for good: the later import ended, saw that
the format had a dictionary, and trained nothing. Now it packs them against it.

Inputs: copies of a real IOR JSON summary (tests/fixtures/ior/posix-fpp-np2-disk.json: a format
benchdb ships no dictionary for), each with a key of its own. Import B (-j 2, a batch per file)
stores its first file, then waits on a FIFO; import A stores 300 files and trains ior-json's
dictionary meanwhile (the one dictionary, its
training repacks B's first file too); then the FIFO is fed and B stores it and 41 more files.
After B, every source is stored against that dictionary (python's sqlite3) and decodes, by the
zstd program, to its file's bytes (python's sha256); B's note counts the 42 files it stored
after the training. Env: BENCHDB, FIXTURES."""
import glob
import hashlib
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

BENCHDB = os.environ.get("BENCHDB", "benchdb")
FIXTURE = os.path.join(os.environ["FIXTURES"], "ior", "posix-fpp-np2-disk.json")
t = Checks("raw_dict_concurrent")


def named(raw, name):
    """raw with a key of its own: another file's content."""
    return raw.replace(b'"Machine": ', b'"copy": "%s", "Machine": ' % name, 1)


def copies(raw, d, prefix, n):
    os.makedirs(d)
    paths = []
    for i in range(n):
        paths.append(os.path.join(d, "%s%03d.json" % (prefix, i)))
        with open(paths[-1], "wb") as f:
            f.write(named(raw, b"%s%d" % (prefix.encode(), i)))
    return paths


def rows(db, sql):
    con = sqlite3.connect(db, timeout=60)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def main():
    raw = open(FIXTURE, "rb").read()
    with tempfile.TemporaryDirectory(prefix="bdb-dictconc-") as tmp:
        db = os.path.join(tmp, "w.sqlite")
        a = copies(raw, os.path.join(tmp, "a"), "a", 300)
        b = copies(raw, os.path.join(tmp, "b"), "b", 41)
        fifo = os.path.join(tmp, "b", "fed.json")
        os.mkfifo(fifo)
        fed = named(raw, b"fed")
        first = os.path.join(tmp, "b0.json")
        with open(first, "wb") as f:
            f.write(named(raw, b"first"))
        p = subprocess.run([BENCHDB, "--db", db, "import", os.path.join(tmp, "a", "a000.json")],
                           capture_output=True, text=True)  # the warehouse made
        t.eq(p.returncode, 0, "a000 imported: " + p.stderr)
        env = dict(os.environ, BENCHDB_BATCH_MS="0")
        pb = subprocess.Popen([BENCHDB, "--db", db, "import", "-j", "2", first, fifo] + b,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for _ in range(600):
            if rows(db, "SELECT count(*) FROM source_file WHERE path = '%s'" % first)[0][0]:
                break
            time.sleep(0.05)
        pa = subprocess.run([BENCHDB, "--db", db, "import"] + a[1:], capture_output=True,
                            text=True, timeout=300)
        t.eq(pa.returncode, 0, "A imported: " + pa.stderr[-300:])
        want = ("note: ior-json: %d stored files compressed against a dictionary trained on"
                % (len(a) + 1))  # A's and B's first
        t.ok(want in pa.stderr, "A trained the dictionary with B's first file: want %r, got %r"
             % (want, pa.stderr[-300:]))
        t.eq(pb.poll(), None, "B still waits on the FIFO")
        with open(fifo, "wb") as f:
            f.write(fed)
        out, err = pb.communicate(timeout=300)
        t.eq(pb.returncode, 0, "B imported: " + err[-300:])
        want = ("note: ior-json: %d stored files compressed against the dictionary another "
                "import trained meanwhile" % (len(b) + 1))
        t.ok(want in err, "B's note: want %r, got %r" % (want, err[-400:]))

        dicts = rows(db, "SELECT id, format FROM raw_dict")
        t.eq([f for _, f in dicts], ["ior-json"], "one dictionary, ior-json's")
        files = dict(rows(db, "SELECT path, id FROM source_file"))
        t.eq(len(files), len(a) + len(b) + 2, "every file stored once")
        undict = rows(db, "SELECT path FROM source_file WHERE raw_dict IS NULL")
        t.eq(undict, [], "every file stored against the dictionary")
        content = {p: open(p, "rb").read() for p in a + b + [first]}
        content[fifo] = fed
        bad = [p for p, i in files.items()
               if hashlib.sha256(bdb.stored_bytes(db, i)).digest()
               != hashlib.sha256(content[p]).digest()]
        t.eq(bad, [], "every source decodes to its file's bytes")
    return t.done()


sys.exit(main())
