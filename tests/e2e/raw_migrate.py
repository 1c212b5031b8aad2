#!/usr/bin/python3
"""A warehouse written by the release before schema 3 (commit 2134e20: bytes stored as they
are, a 9 MB fio log in 4 MiB source_chunk rows) migrates in place without rewriting its bytes,
and what reads them still gets the files' exact bytes: every source decodes to its file's
sha256 (python's), merge's sha256 check passes, and reparse moves raw and chunks to the
re-derived source intact (a stored metric is altered first so that reparse replaces every
source). New imports into it are stored compressed.
The old release is built from `git archive 2134e20` of $SRCDIR into a cache directory under
the system's temporary directory (~25 s once); without git or that commit the test is skipped.
Env: BENCHDB, FIXTURES, SRCDIR."""
import glob
import hashlib
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("SRCDIR") or os.path.join(HERE, "..", "..")
FIX = os.environ.get("FIXTURES") or os.path.join(SRC, "tests", "fixtures")
RELEASE = "2134e20"
SMALL = ["fio_json/two_jobs_fsync.json", "fio_log/perio_bw.1.log", "dd/gnu-bash-time.txt",
         "iperf/iperf3_tcp.json", "dd/busybox-default.txt"]

t = Checks("raw_migrate")


def old_release():
    """The path of the release's benchdb, built once per user; None when it cannot be."""
    cache = os.path.join(tempfile.gettempdir(), "bdb-release-%s-%d" % (RELEASE, os.getuid()))
    exe = os.path.join(cache, "build", "benchdb")
    if os.path.exists(exe):
        return exe
    os.makedirs(cache, exist_ok=True)
    archive = subprocess.run(["git", "-C", SRC, "archive", RELEASE], capture_output=True)
    if archive.returncode:
        return None
    subprocess.run(["tar", "-x", "-C", cache], input=archive.stdout, check=True)
    build = os.path.join(cache, "build")
    subprocess.run(["cmake", "-S", cache, "-B", build, "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", build, "-j2", "--target", "benchdb"], check=True,
                   capture_output=True)
    return exe


def check_bytes(db, want, what):
    """Every source's bytes, as stored, hash to its file's sha256."""
    got = {path: hashlib.sha256(bdb.stored_bytes(db, sid)).hexdigest()
           for sid, path in bdb.sql_rows(db, "SELECT id, path FROM source_file")}
    t.eq(got, want, what + ": every source's stored bytes are its file's")


def make_old_warehouse(old, tmp, db):
    big = os.path.join(tmp, "big_clat.1.log")
    subprocess.run([sys.executable, os.path.join(SRC, "bench", "gen.py"), "log", big, "9",
                    os.path.join(FIX, "fio_log", "perio_clat.1.log")], check=True)
    files = [big] + [os.path.join(FIX, f) for f in SMALL]
    env = dict(os.environ, BENCHDB_STREAM_THRESHOLD="5000000")  # the big log streams
    p = subprocess.run([old, "--db", db, "import"] + files, capture_output=True, text=True,
                       env=env)
    t.eq(p.returncode, 0, "the old release imports: " + p.stderr[-300:])
    return {f: bdb.file_sha256(f) for f in files}


def main():
    old = old_release()
    if not old:
        print("SKIP: cannot build release %s from %s" % (RELEASE, SRC))
        return 77
    with tempfile.TemporaryDirectory(prefix="bdb-rawmig-") as tmp:
        db = os.path.join(tmp, "old.sqlite")
        want = make_old_warehouse(old, tmp, db)
        t.eq(bdb.sql_rows(db, "PRAGMA user_version"), [(1,)], "the old warehouse is schema 1")
        chunks = bdb.sql_rows(db, "SELECT count(*), sum(length(data)) FROM source_chunk")[0]
        t.ok(chunks[0] >= 3, "the big log is in chunks (%d)" % chunks[0])
        check_bytes(db, want, "before the upgrade")

        code, out, err = bdb.call(db, "runs")
        t.eq(code, 0, "a command upgrades it: " + err)
        current = len(glob.glob(os.path.join(SRC, "schema", "[0-9][0-9][0-9][0-9]_*.sql")))
        t.eq(bdb.sql_rows(db, "PRAGMA user_version"), [(current,)],
             "upgraded to the current schema (%d)" % current)
        t.eq(bdb.sql_rows(db, "SELECT count(*) FROM source_file WHERE raw_codec IS NOT NULL"), [(0,)],
             "raw is not rewritten")
        t.eq(bdb.sql_rows(db, "SELECT count(*), sum(length(data)) FROM source_chunk WHERE codec IS NULL "
                      "AND size_bytes IS NULL"), [chunks], "chunks are not rewritten")
        check_bytes(db, want, "after the upgrade")

        merged = os.path.join(tmp, "merged.sqlite")
        code, out, err = bdb.call(merged, "merge", db)
        t.eq(code, 0, "merge verifies the old rows' sha256: " + err)
        check_bytes(merged, want, "merged")

        # one altered metric per source: reparse finds a difference and replaces every source
        con = sqlite3.connect(db)
        con.execute("UPDATE result SET runtime_s = coalesce(runtime_s, 0) + 1")
        con.commit()
        con.close()
        before = bdb.sql_rows(db, "SELECT id FROM source_file ORDER BY id")
        code, out, err = bdb.call(db, "reparse")
        t.eq(code, 0, "reparse of the upgraded warehouse: " + err)
        after = bdb.sql_rows(db, "SELECT id FROM source_file ORDER BY id")
        t.eq(len(after), len(before), "as many sources")
        t.ok(not set(after) & set(before), "every source was re-derived (new ids)")
        check_bytes(db, want, "after reparse moved the bytes")
        code, out, err = bdb.call(db, "reparse")
        t.ok(code == 0 and all("unchanged" in x for x in out.splitlines()),
             "a second reparse changes nothing: %r" % out[-300:])
        t.eq(bdb.sql_rows(db, "PRAGMA foreign_key_check"), [], "foreign keys hold")
        t.eq(bdb.sql_rows(db, "PRAGMA integrity_check"), [("ok",)], "integrity")

        new = os.path.join(FIX, "fio_json", "unified_mixed.json")
        code, out, err = bdb.call(db, "import", new)
        t.eq(code, 0, "an upgraded warehouse takes new imports: " + err)
        t.eq(bdb.sql_rows(db, "SELECT raw_codec FROM source_file WHERE path = ?", new), [("zstd",)],
             "a new import is stored compressed")
        want[new] = bdb.file_sha256(new)
        check_bytes(db, want, "with the new import")
    return t.done()


sys.exit(main())
