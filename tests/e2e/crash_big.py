#!/usr/bin/python3
"""Crash safety of a big streamed import: `benchdb import` of a ~60 MB fio log (stored as
zstd-compressed 4 MiB chunks while it is read; fed through a FIFO so that it cannot end) is
killed with SIGKILL once some of its chunks were written. The warehouse must pass integrity and foreign key checks, hold no trace of the
killed file (no source row, placeholder or chunk) and keep the file imported before it intact;
importing the log again must then store it whole: its chunks decode (by the zstd program) to
the file's sha256, computed here.
Env: BENCHDB, FIXTURES, SRCDIR."""
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("SRCDIR") or os.path.join(HERE, "..", "..")
FIX = os.environ.get("FIXTURES") or os.path.join(SRC, "tests", "fixtures")
THRESHOLD = 5_000_000
os.environ["BENCHDB_STREAM_THRESHOLD"] = str(THRESHOLD)
t = Checks("crash_big")


def kill_while_storing(db, tmp, path):
    """Feeds the log through a FIFO (it streams) all but its last MiB, so the import cannot
    end, and kills it once its write-ahead log holds chunks (SQLite spills pages there before
    the commit)."""
    fifo = os.path.join(tmp, "feed.log")
    os.mkfifo(fifo)
    p = subprocess.Popen([bdb.BENCHDB, "--db", db, "import", fifo], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    with open(path, "rb") as f:
        data = f.read()
    with open(fifo, "wb") as w:
        w.write(data[:-(1 << 20)])
        w.flush()
        wal = db + "-wal"
        deadline = time.monotonic() + 120
        while p.poll() is None and time.monotonic() < deadline:
            if os.path.exists(wal) and os.path.getsize(wal) > 1_000_000:
                break
            time.sleep(0.01)
        t.ok(os.path.getsize(wal) > 1_000_000, "chunks reached the write-ahead log")
        p.send_signal(signal.SIGKILL)
        p.wait()
    t.eq(p.returncode, -signal.SIGKILL, "the import was killed while storing")


def check_consistent(db, small):
    t.eq(bdb.sql_rows(db, "PRAGMA integrity_check"), [("ok",)], "integrity")
    t.eq(bdb.sql_rows(db, "PRAGMA foreign_key_check"), [], "foreign keys hold")
    t.eq(bdb.sql_rows(db, "SELECT path, sha256 FROM source_file"), [(small, bdb.file_sha256(small))],
         "only the file imported before is stored")
    t.eq(bdb.sql_rows(db, "SELECT count(*) FROM source_chunk"), [(0,)], "no chunk of the killed import")
    t.eq(hashlib.sha256(bdb.stored_bytes(db, 1)).hexdigest(), bdb.file_sha256(small),
         "the earlier file's bytes are intact")


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-crashbig-") as tmp:
        db = os.path.join(tmp, "w.sqlite")
        small = os.path.join(FIX, "fio_json", "two_jobs_fsync.json")
        code, out, err = bdb.call(db, "import", small)
        t.eq(code, 0, "a first file imports: " + err)
        big = os.path.join(tmp, "big_clat.1.log")
        subprocess.run([sys.executable, os.path.join(SRC, "bench", "gen.py"), "log", big, "60",
                        os.path.join(FIX, "fio_log", "perio_clat.1.log")], check=True)
        kill_while_storing(db, tmp, big)
        check_consistent(db, small)

        code, out, err = bdb.call(db, "import", big)
        t.eq(code, 0, "the log imports again after the kill: " + err)
        got = bdb.sql_rows(db, "SELECT id, sha256, size_bytes FROM source_file WHERE path = '%s'" % big)
        want = (bdb.file_sha256(big), os.path.getsize(big))
        t.eq([g[1:] for g in got], [want], "stored once, with its sha256 and size")
        if got:
            data = bdb.stored_bytes(db, got[0][0])
            t.eq(hashlib.sha256(data).hexdigest(), want[0], "its chunks decode to the file")
        t.eq(bdb.sql_rows(db, "SELECT count(*) FROM source_chunk WHERE codec = 'zstd'"),
             bdb.sql_rows(db, "SELECT count(*) FROM source_chunk"), "every chunk compressed")
        t.eq(bdb.sql_rows(db, "PRAGMA integrity_check"), [("ok",)], "integrity after the rerun")
    return t.done()


sys.exit(main())
