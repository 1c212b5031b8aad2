#!/usr/bin/python3
"""A push never makes the server's sources point at a dictionary they were not compressed
against (issue 29, item 2). The server knows a dictionary by its sha256. Host A's 256 real dd
outputs (bdb.dd_outputs) train a dd dictionary and are pushed. Host B's 256 other dd outputs
train another one (python checks the bytes differ), and B's raw_dict.sha256 is made to claim
A's: pushing B leaves out every source compressed against that dictionary (exit 1, the
warehouse, the dictionary, why and the sources left out named: python counts them, raw_dict IS
NOT NULL) and pushes B's other sources; the server holds one dictionary, A's bytes. An older
benchdb pushed all 256 with exit 0, each then pointing at A's dictionary on the server.
Env: BENCHDB, SRCDIR; skips without PostgreSQL's binaries."""
import hashlib
import os
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
import pg  # noqa: E402
from checks import Checks  # noqa: E402

PORT = 55461
t = Checks("fleet_push_dict")


def warehouse(tmp, name):
    folder = os.path.join(tmp, name)
    os.mkdir(folder)
    db = os.path.join(tmp, name + ".sqlite")
    code, out, err = bdb.call(db, "import", *bdb.dd_outputs(folder, 256))
    t.eq(code, 0, "import of %s: %s" % (name, err[-300:]))
    return db


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-pushdict-") as tmp, pg.server(PORT) as srv:
        a, b = warehouse(tmp, "a"), warehouse(tmp, "b")
        ((a_sha, a_bytes),) = bdb.sql_rows(a, "SELECT sha256, bytes FROM raw_dict")
        ((b_id, b_bytes),) = bdb.sql_rows(b, "SELECT id, bytes FROM raw_dict")
        t.ok(a_bytes != b_bytes, "A and B trained different dictionaries")
        con = sqlite3.connect(b)
        con.execute("UPDATE raw_dict SET sha256 = ?", (a_sha,))
        con.commit()
        con.close()
        # a B output whose bytes equal one of A's (dd can print the same twice) is on the
        # server already, as A's: only the others are left out
        on_server = {h for (h,) in bdb.sql_rows(a, "SELECT sha256 FROM source_file")}
        packed = [p for (p, h) in bdb.sql_rows(b, "SELECT path, sha256 FROM source_file WHERE "
                                                  "raw_dict IS NOT NULL ORDER BY id")
                  if h not in on_server]
        t.ok(len(packed) > 128, "most of B is compressed against its dictionary")

        p = bdb.run(a, "push", srv.url())
        t.eq(p.returncode, 0, "push of A: " + p.stderr)
        p = bdb.run(b, "push", srv.url())
        want = ("%s: error: dictionary %d (format 'dd'): its bytes hash to sha256 %s..., not to "
                "the %s... stored with it; its %d sources ('%s' first) not pushed\n"
                % (b, b_id, hashlib.sha256(b_bytes).hexdigest()[:12], a_sha[:12], len(packed),
                   packed[0]))
        t.eq((p.returncode, p.stderr), (1, want), "push of B: its forged dictionary's sources "
             "left out and named")
        got = srv.psql("SELECT count(*) FROM source_file").stdout.split()
        distinct = len(on_server | {h for (h,) in bdb.sql_rows(b, "SELECT sha256 FROM source_file")})
        t.eq(got, [str(distinct - len(packed))], "A's sources and B's others are on the server")
        got = srv.psql("SELECT encode(sha256(bytes), 'hex') FROM raw_dict").stdout.split()
        t.eq(got, [a_sha], "one dictionary on the server: A's bytes")
    return t.done()


sys.exit(main())
