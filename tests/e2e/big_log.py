#!/usr/bin/python3
"""Big inputs: a fio latency log over the streaming threshold is read, hashed, stored in
source_chunk rows and parsed piece by piece; a big file in a format without a stream parser
still imports whole. BENCHDB_STREAM_THRESHOLD (a testing knob, bytes) is set to 5 MB so that
a ~6 MB log streams. Expected values are computed here from the generated file: samples, mean,
min and max per direction, the file's sha256 and its bytes (put together from the chunks).
Env: BENCHDB, FIXTURES."""
import csv
import hashlib
import io
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.environ.get("FIXTURES") or os.path.join(HERE, "..", "fixtures")
THRESHOLD = 5_000_000
csv.field_size_limit(1 << 30)  # hex of whole chunks
CHUNK = 4 << 20
DIRS = ["read", "write", "trim", "sync"]
os.environ["BENCHDB_STREAM_THRESHOLD"] = str(THRESHOLD)

t = Checks("big_log", rel=1e-9)


def make_log(path, size):
    """A clat log of at least size bytes: the fixture's lines repeated with times that keep
    increasing (as bench/gen.py does)."""
    rows = [line.split(b",", 1) for line in
            open(os.path.join(FIX, "fio_log", "perio_clat.1.log"), "rb").read().splitlines()
            if line]
    span = int(rows[-1][0]) + 1
    out, written, rep = [], 0, 0
    while written < size:
        part = b"".join(b"%d,%s\n" % (int(tm) + rep * span, rest) for tm, rest in rows)
        out.append(part)
        written += len(part)
        rep += 1
    data = b"".join(out)
    bdb.write(path, data)
    return data


def expected(data):
    """{direction: (samples, mean, min, max)} of the value column, per the ddir column."""
    vals = {}
    for line in data.splitlines():
        cols = [int(c) for c in line.split(b",")]
        vals.setdefault(DIRS[cols[2]], []).append(cols[1])
    return {d: (len(v), sum(v) / len(v), min(v), max(v)) for d, v in vals.items()}


def query(db, sql):
    """The rows of a `benchdb query --format csv` (header dropped)."""
    code, out, err = bdb.call(db, "query", "--format", "csv", sql)
    t.eq(code, 0, "query %r: %s" % (sql, err))
    return list(csv.reader(io.StringIO(out)))[1:]


def check_stored(db, path, data, what):
    """The stored source: hash, size, raw NULL, chunks of 4 MiB (once decoded) that put
    together are data, each compressed (a fio log compresses)."""
    rows = query(db, "SELECT s.id, s.sha256, s.size_bytes, s.raw IS NULL, count(c.seq), "
                     "max(c.size_bytes), min(c.codec = 'zstd' AND length(c.data) < c.size_bytes) "
                     "FROM source_file s JOIN source_chunk c "
                     "ON c.source_id = s.id WHERE s.path = '%s' GROUP BY s.id" % path)
    if not t.eq(len(rows), 1, what + ": one stored source with chunks"):
        return
    sid, sha, size, raw_null, n, biggest, all_packed = rows[0]
    t.eq(sha, hashlib.sha256(data).hexdigest(), what + ": sha256")
    t.eq(int(size), len(data), what + ": size_bytes")
    t.eq(raw_null, "1", what + ": raw is NULL")
    t.eq(int(n), (len(data) + CHUNK - 1) // CHUNK, what + ": chunk count")
    t.eq(int(biggest), CHUNK, what + ": chunk size")
    t.eq(all_packed, "1", what + ": every chunk stored zstd-compressed, smaller")
    t.ok(bdb.stored_bytes(db, int(sid)) == data, what + ": the chunks in seq order are the file")


def check_results(db, path, want, what):
    recs = {r["direction"]: r for r in bdb.export(db, t) if r["source"] == path}
    t.eq(sorted(recs), sorted(want), what + ": directions")
    for d, (n, mean, lo, hi) in want.items():
        r = recs.get(d, {})
        t.eq(r.get("samples"), n, "%s %s: samples" % (what, d))
        t.near(r.get("clat_mean_ns"), mean, "%s %s: clat_mean_ns" % (what, d))
        t.eq(r.get("clat_min_ns"), lo, "%s %s: clat_min_ns" % (what, d))
        t.eq(r.get("clat_max_ns"), hi, "%s %s: clat_max_ns" % (what, d))


def streamed_log():
    with bdb.temp_db() as db:
        tmp = os.path.dirname(db)
        path = os.path.join(tmp, "big_clat.1.log")
        data = make_log(path, THRESHOLD + 1_000_000)
        want = expected(data)
        code, out, err = bdb.call(db, "import", path)
        t.eq(code, 0, "import: " + err)
        check_results(db, path, want, "streamed")
        check_stored(db, path, data, "streamed")

        p, recs = bdb.dry_run(path)
        t.eq(p.returncode, 0, "dry run: " + p.stderr)
        t.eq({r["direction"]: int(float(r["samples"])) for r in recs},
             {d: w[0] for d, w in want.items()}, "dry run (streamed): samples")

        counts = "SELECT (SELECT count(*) FROM source_file), (SELECT count(*) FROM source_chunk)"
        before = query(db, counts)
        code, out, err = bdb.call(db, "import", path)
        t.eq(code, 0, "re-import exit status")
        t.ok("note: already imported" in err, "re-import skipped: %r" % err)
        t.eq(query(db, counts), before, "re-import stored nothing")

        # reparse re-derives from the chunks: spoil a stored value, reparse restores it
        with sqlite3.connect(db) as con:
            con.execute("UPDATE result SET clat_max_ns = 1 WHERE clat_max_ns IS NOT NULL")
        con.close()
        code, out, err = bdb.call(db, "reparse")
        t.eq(code, 0, "reparse: " + err)
        t.ok("metrics 0 added, 0 removed, %d changed" % len(want) in out, "reparse: %r" % out)
        check_results(db, path, want, "reparsed")
        check_stored(db, path, data, "reparsed")

        merged = os.path.join(tmp, "merged.sqlite")
        code, out, err = bdb.call(merged, "merge", db)
        t.eq(code, 0, "merge: " + err)
        check_results(merged, path, want, "merged")
        check_stored(merged, path, data, "merged")


def peak_rss_kb(*args, threshold):
    """Peak RSS of `benchdb ARGS` with the given BENCHDB_STREAM_THRESHOLD (a python in
    between, so that RUSAGE_CHILDREN holds this run only)."""
    env = dict(os.environ, BENCHDB_STREAM_THRESHOLD=str(threshold))
    p = subprocess.run([sys.executable, "-c", "import resource, subprocess, sys; "
                        "rc = subprocess.run(sys.argv[1:], capture_output=True).returncode; "
                        "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
                        bdb.BENCHDB, *args], capture_output=True, text=True, env=env)
    rc, kb = p.stdout.split()
    t.eq(rc, "0", "benchdb %s" % " ".join(args))
    return int(kb)


def memory():
    """A log read as a stream takes the same memory at 40 and 80 MB (its chunks: 4 MiB for each
    of the -j 2 parsers, 8 MiB for the reader), and far less than read whole."""
    with bdb.temp_db() as db:
        small, large = (os.path.join(os.path.dirname(db), "mem%d_clat.1.log" % n) for n in (1, 2))
        make_log(small, 40 << 20)
        make_log(large, 80 << 20)
        streamed = peak_rss_kb("import", "-n", "-j", "2", small, threshold=THRESHOLD)
        streamed_large = peak_rss_kb("import", "-n", "-j", "2", large, threshold=THRESHOLD)
        whole = peak_rss_kb("import", "-n", "-j", "2", small, threshold=1 << 40)
    t.ok(abs(streamed_large - streamed) < (4 << 10),
         "peak RSS streamed: %d KB for 40 MB, %d KB for 80 MB: want flat (within 4 MB)" %
         (streamed, streamed_large))
    t.ok(streamed + (12 << 10) < whole,
         "peak RSS streamed %d KB, whole %d KB: want 12 MB less" % (streamed, whole))


def big_json():
    """fio JSON has no stream parser: over the threshold it is read whole, stored in chunks."""
    with bdb.temp_db() as db:
        path = os.path.join(os.path.dirname(db), "big.json")
        data = open(os.path.join(FIX, "fio_json", "two_jobs_fsync.json"), "rb").read()
        data += b"\n" * (THRESHOLD + 1_000_000)
        bdb.write(path, data)
        code, out, err = bdb.call(db, "import", path)
        t.eq(code, 0, "big json import: " + err)
        t.ok("(fio-json)" in err, "big json: imported as fio-json: %r" % err)
        check_stored(db, path, data, "big json")


def stopped_mid_stream():
    """SIGTERM while a log is read as a stream (a FIFO the test holds open, so that the file
    cannot end first): the log is given up at its next chunk, not stored, and the file stored
    before it is kept; exit status 143."""
    import signal
    import tempfile
    with tempfile.TemporaryDirectory(prefix="bdb-stop-") as tmp:
        db = os.path.join(tmp, "t.sqlite")
        first = os.path.join(tmp, "a_clat.1.log")
        make_log(first, 1000)
        fifo = os.path.join(tmp, "b_clat.1.log")
        os.mkfifo(fifo)
        p = subprocess.Popen([bdb.BENCHDB, "--db", db, "import", first, fifo],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        data = make_log(os.path.join(tmp, "data"), 2 << 20)
        with open(fifo, "wb") as w:
            # more than the 1 MiB head: once written, benchdb is reading the rest as a stream
            w.write(data)
            p.send_signal(signal.SIGTERM)
        err = p.communicate(timeout=60)[1].decode()
        t.eq(p.returncode, 143, "SIGTERM mid-stream: exit status 143: " + err)
        t.ok("'%s': stopped while being read, not stored" % fifo in err,
             "the log given up is named: " + err)
        t.ok(err.rstrip().endswith("interrupted: 1 file stored, the rest not imported (0 of 2 "
                                   "files not read)"), "the file before it kept: " + err)
        con = sqlite3.connect(db)
        paths = [r[0] for r in con.execute("SELECT path FROM source_file")]
        chunks = con.execute("SELECT count(*) FROM source_chunk").fetchone()[0]
        con.close()
        t.eq(paths, [first], "only the first file in the warehouse")
        t.eq(chunks, 0, "no chunk of the log given up")


streamed_log()
memory()
big_json()
stopped_mid_stream()
sys.exit(t.done())
