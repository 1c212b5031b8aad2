#!/usr/bin/python3
"""A sidecar is read up to 1 MiB (issue 29, item 8): a FILE.meta of 1 GiB (sparse: made with
truncate, all NUL bytes) was read whole, 1 GiB of memory, before "unexpected NUL byte". Now
the import names the sidecar and refuses it before reading it (exit 1, the result file not
stored), and benchdb's peak memory stays far below the sidecar's size (ru_maxrss of the
child, measured here). A sidecar of exactly 1 MiB (a comment line padded to the limit, then
host=) is still read. Input: a real fio run (tests/fixtures/utf8/gen.sh). Env: BENCHDB,
FIXTURES."""
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ.get("BENCHDB", "benchdb")
FIXTURE = os.path.join(os.environ["FIXTURES"], "utf8", "latin1_job.json")
MIB = 1 << 20
t = Checks("sidecar_cap")


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-sidecar-") as tmp:
        big = os.path.join(tmp, "big.json")
        shutil.copyfile(FIXTURE, big)
        with open(big + ".meta", "wb") as f:
            f.truncate(1 << 30)
        db = os.path.join(tmp, "w.sqlite")
        p = subprocess.run([BENCHDB, "--db", db, "import", big], capture_output=True, text=True,
                           timeout=300)
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t.eq(p.returncode, 1, "a 1 GiB sidecar rejects its file: " + p.stderr[-300:])
        t.ok(("%s.meta: error: sidecar over 1024 KiB, the most read" % big) in p.stderr,
             "the sidecar named: " + p.stderr[-300:])
        t.ok(peak_kib < 256 * 1024,
             "peak memory %d KiB, far below the 1 GiB sidecar" % peak_kib)
        t.eq(sqlite3.connect(db).execute("SELECT count(*) FROM source_file").fetchone(), (0,),
             "nothing stored")

        ok = os.path.join(tmp, "ok.json")
        shutil.copyfile(FIXTURE, ok)
        tail = b"\nhost=edge-1\n"
        with open(ok + ".meta", "wb") as f:
            f.write(b"#" + b"x" * (MIB - 1 - len(tail)) + tail)
        t.eq(os.path.getsize(ok + ".meta"), MIB, "the second sidecar is 1 MiB")
        p = subprocess.run([BENCHDB, "--db", db, "import", ok], capture_output=True, text=True,
                           timeout=300)
        t.eq(p.returncode, 0, "a 1 MiB sidecar is read: " + p.stderr[-300:])
        t.eq(sqlite3.connect(db).execute("SELECT DISTINCT host FROM result").fetchall(),
             [("edge-1",)], "its host label stored")
    return t.done()


sys.exit(main())
