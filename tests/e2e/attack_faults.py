#!/usr/bin/python3
"""Faults an attack found (issue 13): control characters in diagnostics, forged rows in a
merged warehouse, foreign and broken databases, relabel values, inputs that are pipes and
sidecars that are FIFOs. Expected messages are built here from the inputs (escaping done by
this file's own escape()), never copied from benchdb's output. Env: BENCHDB, FIXTURES."""
import contextlib
import errno
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

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


def sha256_of(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def warehouse(tmp, name="w.sqlite"):
    """A real warehouse with one imported fio JSON file (closed: its WAL checkpointed)."""
    db = os.path.join(tmp, name)
    code, out, err = bdb.call(db, "import", FIO_JSON)
    t.eq(code, 0, "warehouse import: " + err)
    return db


def foreign_database():
    """A SQLite file with tables of its own: refused (exit 3) with what was found, and left
    byte-identical (no WAL switch, no schema added, no -wal file)."""
    with bdb.temp_db("app.sqlite") as db:
        with contextlib.closing(sqlite3.connect(db)) as con:
            con.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT)")
            con.execute("CREATE TABLE orders(id INTEGER PRIMARY KEY, user_id INTEGER)")
            con.execute("INSERT INTO users(name) VALUES ('ann')")
            con.commit()
        before = sha256_of(db)
        code, out, err = bdb.call(db, "import", FIO_JSON)
        t.eq((code, err), (3, "benchdb: error: '%s' is not a benchdb database: it has 2 tables "
                              "of its own (users, orders) and no benchdb schema; it was left "
                              "unchanged\n" % db), "foreign database refused")
        t.eq(sha256_of(db), before, "foreign database: byte-identical")
        t.eq(sorted(os.listdir(os.path.dirname(db))), ["app.sqlite"], "foreign database: no "
             "-wal or -shm file left")


def truncated_warehouse():
    """A warehouse cut to half its size: reading it says it is damaged, for a reader and a
    writer, not 'no schema'."""
    with bdb.temp_db() as db:
        warehouse(os.path.dirname(db), os.path.basename(db))
        data = open(db, "rb").read()
        bdb.write(db, data[:len(data) // 2])
        want = "benchdb: error: cannot read database '%s': it is damaged (truncated?) or not a " \
               "database: " % db
        for cmd in (["runs"], ["import", FIO_JSON]):
            code, out, err = bdb.call(db, *cmd)
            t.eq(code, 3, "truncated, %s: exit status" % cmd[0])
            t.ok(err.startswith(want) and err.count("\n") == 1,
                 "truncated, %s: %r lacks %r" % (cmd[0], err, want))


def read_only_directory():
    """A valid warehouse in a directory that cannot be written (SQLite must create -wal and
    -shm there): the message names the directory and the system's reason. As root, where
    permissions do not apply, the directory is a read-only bind mount in a private mount
    namespace (unshare -m)."""
    with tempfile.TemporaryDirectory(prefix="bdb-e2e-") as tmp:
        src = os.path.join(tmp, "src")
        os.mkdir(src)
        warehouse(src)
        if os.geteuid() != 0:
            os.chmod(src, 0o555)
            where, reason = src, os.strerror(errno.EACCES)
            cmd = [bdb.BENCHDB, "--db", os.path.join(src, "w.sqlite"), "runs"]
        else:
            where, reason = os.path.join(tmp, "ro"), os.strerror(errno.EROFS)
            os.mkdir(where)
            script = 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" || exit 99; ' \
                     'exec "$3" --db "$2/w.sqlite" runs'
            cmd = ["unshare", "-m", "sh", "-c", script, "sh", src, where, bdb.BENCHDB]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        os.chmod(src, 0o755)
        if p.returncode == 99:
            print("SKIP read-only directory: running as root and no read-only bind mount "
                  "(unshare -m): %s" % p.stderr.strip())
            return
        t.eq((p.returncode, p.stderr),
             (3, "benchdb: error: cannot read database '%s/w.sqlite': cannot write its "
                 "directory '%s' (%s), where SQLite creates the -wal and -shm files it reads "
                 "the warehouse through\n" % (where, where, reason)), "read-only directory")


def locked_database():
    """Another connection holds an exclusive lock (rollback journal, so readers wait too):
    the reader gives up after the busy timeout and says the database is locked."""
    with bdb.temp_db() as db:
        warehouse(os.path.dirname(db), os.path.basename(db))
        with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as con:
            con.execute("PRAGMA journal_mode = DELETE")
            con.execute("BEGIN EXCLUSIVE")
            code, out, err = bdb.call(db, "runs", timeout=120)
            con.execute("ROLLBACK")
        t.eq((code, err), (3, "benchdb: error: cannot read database '%s': it is locked by "
                              "another process (waited 30 s)\n" % db), "locked database")


def forged_merge():
    """A copy of a warehouse whose source row is made to claim another real file's sha256:
    merging it is refused (exit 1) with the copy and the source named, nothing is merged,
    and the real file still imports; the honest warehouse merges."""
    with bdb.temp_db("a.sqlite") as honest:
        tmp = os.path.dirname(honest)
        warehouse(tmp, "a.sqlite")
        forged = os.path.join(tmp, "forged.sqlite")
        shutil.copyfile(honest, forged)
        other = os.path.join(FIX, "fio_json", "unified_mixed.json")
        claimed = sha256_of(other)
        with contextlib.closing(sqlite3.connect(forged)) as con:
            con.execute("UPDATE source_file SET sha256 = ? WHERE path = ?", (claimed, FIO_JSON))
            con.commit()
        into = os.path.join(tmp, "into.sqlite")
        code, out, err = bdb.call(into, "merge", forged)
        t.eq((code, err), (1, "%s: error: source '%s' (id 1): its stored bytes hash to sha256 "
                              "%s..., not to the %s... stored with it\n"
                              "%s: error: nothing merged: a source's bytes do not match its "
                              "sha256 (forged or damaged warehouse)\n"
                              % (forged, FIO_JSON, sha256_of(FIO_JSON)[:12], claimed[:12],
                                 forged)), "forged merge refused")
        t.eq(stored_sources(into), 0, "forged merge: nothing merged")
        code, out, err = bdb.call(into, "import", other)
        t.eq((code, "already imported" in err), (0, False), "forged merge: the real file "
             "imports: " + err)
        code, out, err = bdb.call(into, "merge", honest)
        t.eq(code, 0, "honest merge: " + err)
        t.eq(stored_sources(into), 2, "honest merge: its source added")


control_characters()
fifo_sidecar()
foreign_database()
truncated_warehouse()
read_only_directory()
locked_database()
forged_merge()
sys.exit(t.done())
