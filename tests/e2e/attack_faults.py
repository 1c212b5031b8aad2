#!/usr/bin/python3
"""Faults an attack found (issue 13): control characters in diagnostics, forged rows in a
merged warehouse, foreign and broken databases, relabel values, inputs that are pipes and
sidecars that are FIFOs. Expected messages are built here from the inputs (escaping done by
this file's own escape()), never copied from benchdb's output. Env: BENCHDB, FIXTURES."""
import contextlib
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.environ.get("FIXTURES") or os.path.join(HERE, "..", "fixtures")
FIO_JSON = os.path.join(FIX, "fio_json", "two_jobs_fsync.json")

t = Checks("attack_faults")


def escape(text):
    """C0 controls and DEL as a diagnostic shows them: \\n, \\t, \\r, else \\xHH."""
    named = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
    return "".join(named.get(c) or ("\\x%02x" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7f
                                    else c) for c in text)


def raw_controls(text):
    """The control characters of text other than the newlines ending its lines."""
    return [c for c in text if (ord(c) < 0x20 and c != "\n") or ord(c) == 0x7f]


def control_characters():
    """A file name with ESC ]0;...BEL and a newline, and a sidecar line with control bytes:
    every message is one line, its path and quoted text escaped."""
    with bdb.temp_db() as db:
        tmp = os.path.dirname(db)
        name = os.path.join(tmp, "evil\x1b]0;pwned\x07\nname.json")
        bdb.write(name, open(FIO_JSON, "rb").read())
        bad_line = "\x1b]0;title\x07 no\x7fequals"
        bdb.write(name + ".meta", "host=a\n" + bad_line + "\n")
        code, out, err = bdb.call(db, "import", name)
        t.eq(code, 1, "bad sidecar: exit status")
        t.eq(err, "%s:2: error: expected key=value, got '%s'\n"
             % (escape(name + ".meta"), escape(bad_line)), "bad sidecar: message")

        os.unlink(name + ".meta")
        code, out, err = bdb.call(db, "import", name)
        t.eq(code, 0, "evil name imports: " + err)
        t.eq(raw_controls(err), [], "import: no raw control characters in %r" % err)
        t.ok(err.startswith(escape(name) + ": imported "), "import: escaped path in %r" % err)
        code, out, err = bdb.call(db, "import", name)
        t.eq(raw_controls(err), [], "re-import: no raw control characters in %r" % err)
        t.ok(err.startswith(escape(name) + ": note: already imported (same content as '%s')"
                            % escape(name)), "re-import: escaped paths in %r" % err)

        gone = name + ".missing\r"
        code, out, err = bdb.call(db, "import", "--format", "fio-json", gone)
        t.eq((code, err), (1, "benchdb: error: cannot open '%s': No such file or directory\n"
                              % escape(gone)), "missing file: escaped message")


def stored_sources(db):
    """How many source files the warehouse holds (sqlite3 directly: none when it is absent)."""
    if not os.path.exists(db):
        return 0
    with contextlib.closing(sqlite3.connect(db)) as con:
        return con.execute("SELECT count(*) FROM source_file").fetchone()[0]


def fifo_sidecar():
    """FILE.meta a FIFO with no writer: import does not wait for it; the sidecar is refused
    with its path and kind, and the file is not stored (its labels would be missing)."""
    with bdb.temp_db() as db:
        tmp = os.path.dirname(db)
        path = bdb.write(os.path.join(tmp, "run.json"), open(FIO_JSON, "rb").read())
        os.mkfifo(path + ".meta")
        try:
            code, out, err = bdb.call(db, "import", path, timeout=20)
        except subprocess.TimeoutExpired:
            code, err = None, "timed out"
        t.eq((code, err), (1, "%s.meta: error: sidecar is a FIFO; it is read only from a "
                              "regular file\n" % path), "FIFO sidecar")
        t.eq(stored_sources(db), 0, "FIFO sidecar: nothing stored")


control_characters()
fifo_sidecar()
sys.exit(t.done())
