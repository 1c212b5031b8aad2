#!/usr/bin/python3
"""Faults an attack found (issue 13): control characters in diagnostics, forged rows in a
merged warehouse, foreign and broken databases, relabel values, inputs that are pipes and
sidecars that are FIFOs. Expected messages are built here from the inputs (escaping done by
this file's own escape()), never copied from benchdb's output. Env: BENCHDB, FIXTURES."""
import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

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

        p, recs = bdb.dry_run(name)
        t.eq((p.returncode, raw_controls(p.stdout)), (0, []), "dry run: no raw control "
             "characters in %r" % p.stdout)
        t.ok(p.stdout.startswith(escape(name) + ": format fio-json\n"), "dry run: escaped path "
             "in %r" % p.stdout)

        # the records' own text (a job named with ESC and a newline, from a real fixture with
        # only its jobname changed by python) is escaped in the dry run's record lines
        doc = json.load(open(FIO_JSON))
        evil_job = "job\x1b]0;pwned\x07\nname"
        doc["jobs"][0]["jobname"] = evil_job
        jobfile = bdb.write(os.path.join(tmp, "evil-job.json"), json.dumps(doc))
        p, recs = bdb.dry_run(jobfile)
        t.eq(raw_controls(p.stdout), [], "dry run of an evil job name: no raw control "
             "characters in %r" % p.stdout)
        t.ok("record %s/" % escape(evil_job) in p.stdout, "dry run: escaped job name")

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
    """A valid warehouse in a directory that cannot be written (read-only media, or a reader
    without write permission): a read command reads it (issue 29, item 7: opened immutable,
    as no -wal or -shm is there), lists its run, and creates nothing beside it. As root, where
    permissions do not apply, the directory is a read-only bind mount in a private mount
    namespace (unshare -m)."""
    with tempfile.TemporaryDirectory(prefix="bdb-e2e-") as tmp:
        src = os.path.join(tmp, "src")
        os.mkdir(src)
        warehouse(src)
        before = sorted(os.listdir(src))
        if os.geteuid() != 0:
            os.chmod(src, 0o555)
            cmd = [bdb.BENCHDB, "--db", os.path.join(src, "w.sqlite"), "runs"]
        else:
            where = os.path.join(tmp, "ro")
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
        t.eq((p.returncode, p.stderr), (0, ""), "read-only directory: read")
        t.ok(os.path.basename(FIO_JSON) in p.stdout, "read-only directory: its run listed")
        t.eq(sorted(os.listdir(src)), before, "read-only directory: nothing created beside it")


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


DIRS = ["read", "write", "trim", "sync"]
LOG_VALUES = ("samples", "value_mean", "value_min", "value_max")


def repeated_log(path, size):
    """The fio clat log fixture repeated (times shifted on) to at least size bytes."""
    rows = [line.split(b",", 1) for line in
            open(os.path.join(FIX, "fio_log", "perio_clat.1.log"), "rb").read().splitlines()]
    span = int(rows[-1][0]) + 1
    parts, n = [], 0
    while n < size:
        parts.append(b"".join(b"%d,%s\n" % (int(tm) + len(parts) * span, rest)
                              for tm, rest in rows))
        n += len(parts[-1])
    return bdb.write(path, b"".join(parts))


def log_stats(path):
    """{direction: (samples, mean, min, max)} of the log's value column."""
    vals = {}
    for line in open(path, "rb"):
        cols = line.split(b",")
        vals.setdefault(DIRS[int(cols[2])], []).append(int(cols[1]))
    return {d: (len(v), sum(v) / len(v), min(v), max(v)) for d, v in vals.items()}


def piped_import_rss(db, path):
    """`cat path | benchdb import -` from a python in between, so that RUSAGE_CHILDREN holds
    this run only: (exit status, stderr, peak RSS in bytes of the largest process)."""
    script = ("import resource, subprocess, sys; "
              "p = subprocess.run(['sh', '-c', 'cat \"$0\" | \"$1\" --db \"$2\" import -'] "
              "+ sys.argv[1:], capture_output=True); "
              "sys.stderr.write(p.stderr.decode()); "
              "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    # under ASan freed memory sits in a quarantine (256 MB) instead of being reused, which
    # would make RSS grow with the bytes parsed; harmless for a build without ASan
    asan = (os.environ.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0").lstrip(":")
    p = subprocess.run([sys.executable, "-c", script, path, bdb.BENCHDB, db],
                       capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, ASAN_OPTIONS=asan))
    code, kb = p.stdout.split()
    return int(code), p.stderr, int(kb) * 1024


def piped_log():
    """An 80 MB fio log through a pipe streams: the values python computes from the file,
    the same as the file imported by name, and memory that does not grow with the input
    (a 40 MB log peaks as high) and stays under its size (it held the whole input before)."""
    with tempfile.TemporaryDirectory(prefix="bdb-e2e-") as tmp:
        big = repeated_log(os.path.join(tmp, "big.log"), 80 << 20)
        half = repeated_log(os.path.join(tmp, "half.log"), 40 << 20)
        code, err, rss = piped_import_rss(os.path.join(tmp, "pipe.sqlite"), big)
        t.eq(code, 0, "80 MB through a pipe: " + err)
        code, err, rss_half = piped_import_rss(os.path.join(tmp, "half.sqlite"), half)
        t.eq(code, 0, "40 MB through a pipe: " + err)
        size = os.path.getsize(big)
        t.ok(rss < size, "peak RSS %d MB under the input's %d MB" % (rss >> 20, size >> 20))
        t.ok(rss - rss_half < 8 << 20, "peak RSS %d MB for 80 MB, %d MB for 40 MB: want "
             "less than 8 MB more" % (rss >> 20, rss_half >> 20))

        piped = {r["direction"]: r for r in bdb.export(os.path.join(tmp, "pipe.sqlite"), t)}
        for d, (n, mean, lo, hi) in log_stats(big).items():
            got = piped.get(d, {})
            t.eq((got.get("samples"), got.get("value_min"), got.get("value_max")), (n, lo, hi),
                 "piped %s: samples, min, max" % d)
            t.near(got.get("value_mean"), mean, "piped %s: mean" % d)
        t.eq({r.get("sha256") for r in piped.values()}, {sha256_of(big)}, "piped: sha256")
        db = os.path.join(tmp, "file.sqlite")
        code, out, err = bdb.call(db, "import", big)
        t.eq(code, 0, "the file by name: " + err)
        by_name = {r["direction"]: {k: r.get(k) for k in LOG_VALUES} for r in bdb.export(db, t)}
        t.eq({d: {k: r.get(k) for k in LOG_VALUES} for d, r in piped.items()}, by_name,
             "piped: the values of the file imported by name")


def endless_fifo():
    """/dev/zero through a FIFO: no format streams it, so it is held up to the cap and then
    refused (exit 1, nothing stored), not read until memory runs out. Watched from here: a
    benchdb that does not stop is killed past 2 GB of RSS or 60 s."""
    with bdb.temp_db() as db:
        fifo = os.path.join(os.path.dirname(db), "zero.log")
        os.mkfifo(fifo)
        writer = subprocess.Popen(["sh", "-c", 'exec cat /dev/zero > "$0"', fifo],
                                  stderr=subprocess.DEVNULL)
        p = subprocess.Popen([bdb.BENCHDB, "--db", db, "import", fifo], stderr=subprocess.PIPE,
                             text=True)
        killed = watch(p, rss_max=2 << 30, seconds=60)
        err = p.stderr.read()
        p.wait()
        writer.kill()
        writer.wait()
        t.eq((killed, p.returncode, err),
             (None, 1, "%s: error: input over 256 MiB, the most read into memory (only fio "
                       "logs are read as a stream); nothing stored\n" % fifo), "endless FIFO")
        t.eq(stored_sources(db), 0, "endless FIFO: nothing stored")


def watch(p, rss_max, seconds):
    """Waits for p, killing it past rss_max bytes of RSS or seconds: None, or why it was
    killed."""
    deadline = time.monotonic() + seconds
    while p.poll() is None:
        try:
            with open("/proc/%d/status" % p.pid) as f:
                rss = next((int(line.split()[1]) * 1024 for line in f
                            if line.startswith("VmRSS:")), 0)
        except OSError:
            rss = 0
        why = "RSS %d MB" % (rss >> 20) if rss > rss_max else \
            "timeout" if time.monotonic() > deadline else None
        if why:
            p.kill()
            return why
        time.sleep(0.05)
    return None


control_characters()
fifo_sidecar()
foreign_database()
truncated_warehouse()
read_only_directory()
locked_database()
forged_merge()
piped_log()
endless_fifo()
sys.exit(t.done())
