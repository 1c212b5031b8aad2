#!/usr/bin/python3
"""Stored bytes (schema/0003_raw.sql): every fixture imported is stored zstd-compressed when
that makes it smaller, else as it is (codec NULL: the 33-byte busybox dd output, which no zstd
frame shortens), and decodes (by the zstd program, not benchdb) to the file's exact bytes;
reparse reads the compressed bytes back; merge names a source whose compressed bytes no longer
decode and merges nothing. Expected hashes are python's, of the files.
Env: BENCHDB, FIXTURES."""
import glob
import hashlib
import os
import shutil
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.environ.get("FIXTURES") or os.path.join(HERE, "..", "fixtures")
FORMATS = ["dd", "fio_json", "fio_log", "fio_terse", "fio_text", "iperf", "bonnie", "sysbench",
           "iozone", "dlio", "warp", "notes"]
TINY = os.path.join(FIX, "dd", "busybox-default.txt")

t = Checks("raw_codec")


def inputs():
    files = []
    for fmt in FORMATS:
        files += [f for f in sorted(glob.glob(os.path.join(FIX, fmt, "*")))
                  if os.path.isfile(f) and not f.endswith((".md", ".sh"))]
    return files


def sources(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT id, path, sha256, size_bytes, length(raw), raw_codec "
                           "FROM source_file ORDER BY id").fetchall()
    finally:
        con.close()


def check_stored(db):
    rows = sources(db)
    t.ok(len(rows) > 50, "most fixtures import (%d stored)" % len(rows))
    codecs = {}
    for sid, path, sha, size, stored, codec in rows:
        data = open(path, "rb").read()
        want = hashlib.sha256(data).hexdigest()
        t.eq(sha, want, path + ": sha256")
        t.eq(size, len(data), path + ": size_bytes")
        t.ok(codec in (None, "zstd"), path + ": codec %r" % codec)
        t.ok(stored < size if codec else stored == size,
             path + ": %s bytes stored of %d (codec %s)" % (stored, size, codec))
        got = bdb.stored_bytes(db, sid)
        t.ok(hashlib.sha256(got).hexdigest() == want, path + ": decodes to the file's bytes")
        codecs[path] = codec
    t.eq(codecs.get(TINY, "missing"), None, "a file zstd cannot shorten is stored as it is")
    packed = sum(1 for c in codecs.values() if c == "zstd")
    t.eq(packed, len(codecs) - 1, "every other fixture is stored compressed")
    total_in = sum(r[3] for r in rows)
    total_stored = sum(r[4] for r in rows)
    t.ok(total_stored * 4 < total_in,
         "the fixtures' bytes take under a quarter (%d of %d)" % (total_stored, total_in))


def check_merge_refuses_undecodable(tmp, db):
    bad = os.path.join(tmp, "bad.sqlite")
    shutil.copy(db, bad)
    con = sqlite3.connect(bad)
    (victim,) = con.execute("SELECT path FROM source_file WHERE raw_codec = 'zstd' "
                            "ORDER BY id LIMIT 1").fetchone()
    # a frame cut short: its sha256 column is untouched, so only decoding can tell
    con.execute("UPDATE source_file SET raw = substr(raw, 1, length(raw) / 2) WHERE path = ?",
                (victim,))
    con.commit()
    con.close()
    target = os.path.join(tmp, "target.sqlite")
    code, out, err = bdb.call(target, "merge", bad)
    t.ok(code != 0, "merge of a warehouse with an undecodable source fails: %r" % err)
    t.ok(victim in err and "do not decode" in err, "the source is named: %r" % err)
    con = sqlite3.connect(target)
    n = con.execute("SELECT count(*) FROM source_file").fetchone()[0]
    con.close()
    t.eq(n, 0, "nothing merged")
    code, out, err = bdb.call(target, "merge", db)
    t.eq(code, 0, "merge of the sound warehouse: " + err)
    check_stored(target)


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-raw-") as tmp:
        db = os.path.join(tmp, "fx.sqlite")
        files = inputs()
        code, out, err = bdb.call(db, "import", *files)
        t.ok(code in (0, 1), "import of the fixtures (some are meant to fail): %d" % code)
        check_stored(db)
        code, out, err = bdb.call(db, "reparse")
        t.eq(code, 0, "reparse of compressed sources: " + err)
        lines = out.splitlines()
        t.ok(lines and all("unchanged" in line for line in lines),
             "reparse reads every compressed source back to the same results: %r" % out[-300:])
        check_merge_refuses_undecodable(tmp, db)
    return t.done()


sys.exit(main())
