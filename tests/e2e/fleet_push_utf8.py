#!/usr/bin/python3
"""A source whose text is not UTF-8 no longer blocks push (issue 29, item 5). A warehouse
imported by an older benchdb holds the bytes it was given; PostgreSQL refuses them ("invalid
byte sequence for encoding UTF8", naming no file), and the whole batch with them, at every push:
with -j4, the good files sharing a batch with one were never sent. Here 40 real dd outputs are
imported, then python's sqlite3 gives three of them what an older import stored: a Latin-1 job
name (result.job), a Latin-1 file name (source_file.path) and a tag value holding a 3-byte
sequence cut short. push -j4 leaves those three out, each named with the column and its value
(exit 1), and pushes the 37 others (the server's sha256s compared with python's, of the files);
a second push sends nothing and says the same. Before the fix: exit 1, PostgreSQL's message,
and none of the 40 on the server. Env: BENCHDB, SRCDIR; skips without PostgreSQL's binaries."""
import hashlib
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
import pg  # noqa: E402
from checks import Checks  # noqa: E402

PORT = 55463
t = Checks("fleet_push_utf8")


def push(db, url):
    p = subprocess.run([bdb.BENCHDB, "--db", db, "push", "-j4", url], capture_output=True,
                       timeout=300)
    return p.returncode, p.stderr.decode("utf-8", errors="backslashreplace")


def main():
    pg.skip_without_server()
    with tempfile.TemporaryDirectory(prefix="bdb-pushutf8-") as tmp, pg.server(PORT) as srv:
        files = bdb.dd_outputs(tmp, 40)
        db = os.path.join(tmp, "w.sqlite")
        code, out, err = bdb.call(db, "import", *files)
        t.eq(code, 0, "import: " + err[-300:])
        sha = {f: hashlib.sha256(open(f, "rb").read()).hexdigest() for f in files}
        con = sqlite3.connect(db)
        ids = {path: i for i, path in con.execute("SELECT id, path FROM source_file")}
        bad = {files[3]: ("result.job", b"caf\xe9", "caf\\xe9"),
               files[17]: ("source_file.path", b"r\xe9sultat.txt", "r\\xe9sultat.txt"),
               files[30]: ("tag.value", b"site-\xe2\x82", "site-\\xe2\\x82")}
        for f, (col, raw, _) in bad.items():
            value = sqlite3.Binary(raw)
            if col == "result.job":
                con.execute("UPDATE result SET job = CAST(? AS TEXT) WHERE run_id IN (SELECT id "
                            "FROM run WHERE source_id = ?)", (value, ids[f]))
            elif col == "source_file.path":
                con.execute("UPDATE source_file SET path = CAST(? AS TEXT) WHERE id = ?",
                            (value, ids[f]))
            else:
                con.execute("INSERT INTO tag SELECT r.id, 'site', CAST(? AS TEXT) FROM result r "
                            "JOIN run ON run.id = r.run_id WHERE run.source_id = ?",
                            (value, ids[f]))
        con.commit()
        con.close()

        want = "".join(
            "%s: error: '%s' not pushed: its %s is not UTF-8: '%s' (text must be UTF-8)\n"
            % (db, shown if col == "source_file.path" else f, col, shown)
            for f, (col, raw, shown) in sorted(bad.items(), key=lambda kv: ids[kv[0]]))
        for attempt in ("first", "second"):
            code, err = push(db, srv.url())
            t.eq((code, err), (1, want), "%s push: the three named, exit 1" % attempt)
            got = sorted(srv.psql("SELECT sha256 FROM source_file").stdout.split())
            t.eq(got, sorted(sha[f] for f in files if f not in bad),
                 "%s push: the 37 others are on the server" % attempt)
    return t.done()


sys.exit(main())
