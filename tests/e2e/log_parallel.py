#!/usr/bin/python3
"""log_parallel.py: a streamed fio log parsed in chunks on several threads (import -j N) gives
byte for byte what one thread gives (-j 1): the dry run's records and messages, the export,
every stored row (results, tags, bins, series) and a report; and a damaged line anywhere, in
a late chunk too, is reported at the same file:line:col with the same exit status (the first
error in file order wins). Inputs: every fixture of tests/fixtures/fio_log and, when fio is
installed, logs of a real fio run (per-I/O clat/lat/bw/iops logs of ~10^5 lines and a
histogram log). BENCHDB_STREAM_THRESHOLD=0 streams every file; BENCHDB_LOG_CHUNK_BYTES (a
testing knob) makes chunks small enough that each file is cut into many, down to one line.
Env: BENCHDB, FIXTURES."""
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.environ.get("FIXTURES") or os.path.join(HERE, "..", "fixtures")
os.environ["BENCHDB_STREAM_THRESHOLD"] = "0"
os.environ["SOURCE_DATE_EPOCH"] = "1700000000"
TABLES = ["result", "tag", "histogram", "series"]

t = Checks("log_parallel")


def env(chunk):
    e = dict(os.environ)
    if chunk:
        e["BENCHDB_LOG_CHUNK_BYTES"] = str(chunk)
    return e


def dry(path, jobs, chunk=None):
    p = bdb.run(None, "import", "-n", "-j", str(jobs), path, env=env(chunk))
    return p.returncode, p.stdout, p.stderr


def stored(tmp, paths, jobs, chunk=None):
    """Imports paths (the first as class a, the rest as b) into a new warehouse with -j jobs:
    the export (import times dropped), every row of TABLES and a report."""
    db = os.path.join(tmp, "j%d-%s.sqlite" % (jobs, chunk))
    for cls, group in (("a", paths[:1]), ("b", paths[1:])):
        if group:
            p = bdb.run(db, "import", "-j", str(jobs), "--storage-class", cls, *group,
                        env=env(chunk))
            t.eq(p.returncode, 0, "import -j %d %s: %s" % (jobs, group, p.stderr))
    out = [re.sub(r'"imported_at":"[^"]*"', "", bdb.run(db, "export").stdout)]
    for table in TABLES:
        out.append(bdb.run(db, "query", "--format", "csv",
                           "SELECT * FROM %s ORDER BY rowid" % table).stdout)
    if len(paths) > 1:
        out.append(bdb.run(db, "report", "--compare", "a", "b").stdout)
    os.unlink(db)
    return out


def same(path, chunks, jobs=(2, 3)):
    """The dry run of path with each jobs and chunk size against -j 1's."""
    want = dry(path, 1)
    t.eq(want[0], 0, "%s -j 1: %s" % (path, want[2]))
    for chunk in chunks:
        for j in jobs:
            got = dry(path, j, chunk)
            t.eq(got, want, "%s: -j %d, chunks of %s bytes, as -j 1" % (path, j, chunk))


def same_error(path, line, chunks=(None, 4096, 1)):
    """path is refused with the same message, at line, by every jobs and chunk size."""
    want = dry(path, 1)
    t.eq(want[0], 1, "%s -j 1 refused: %s" % (path, want[2]))
    t.ok(":%d:" % line in want[2], "%s: the error is on line %d: %r" % (path, line, want[2]))
    for chunk in chunks:
        got = dry(path, 3, chunk)
        t.eq(got, want, "%s: -j 3, chunks of %s bytes: the same error" % (path, chunk))


def fio_logs(tmp):
    """Logs of a real fio run (2 s each): per-I/O latency logs, per-I/O bw/iops logs of a
    random read/write mix and a latency histogram log every 10 ms. [] without fio."""
    if not shutil.which("fio"):
        print("log_parallel: fio not installed: the real-run logs are skipped")
        return []
    common = ["--filename=" + os.path.join(tmp, "data"), "--size=16M", "--bs=4k",
              "--ioengine=psync", "--log_avg_msec=0", "--time_based", "--runtime=2"]
    for args in (["--name=lat", "--rw=randread", "--write_lat_log=lat"],
                 ["--name=mix", "--rw=randrw", "--write_bw_log=mix", "--write_iops_log=mix",
                  "--write_hist_log=mix", "--log_hist_msec=10"]):
        p = subprocess.run(["fio"] + common + args, cwd=tmp, capture_output=True, text=True)
        t.eq(p.returncode, 0, "fio %s: %s" % (args, p.stderr))
    return sorted(f for f in glob.glob(os.path.join(tmp, "*.log")) if os.path.getsize(f))


def damaged(tmp, path):
    """Copies of path damaged at a late line, each refused at its line by every parser."""
    lines = open(path, "rb").read().split(b"\n")[:-1]
    n = len(lines)
    late = n * 7 // 8
    name = os.path.basename(path)
    cases = {
        "value": (late, lambda c: [c[0], b"12x4"] + c[2:]),
        "ddir": (late, lambda c: c[:2] + [b"7"] + c[3:] if len(c) < 9 else [c[0], b"7"] + c[2:]),
        "columns": (late, lambda c: c[:-1]),
        "first_of_two": (n // 2, lambda c: [c[0], b"-5"] + c[2:]),
    }
    for case, (at, spoil) in cases.items():
        cols = lines[at].split(b", ")
        copy = lines[:at] + [b", ".join(spoil(cols))] + lines[at + 1:]
        if case == "first_of_two":  # a second damaged line later: the first is reported
            copy[late] = b"garbage"
        out = os.path.join(tmp, case, name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        bdb.write(out, b"\n".join(copy) + b"\n")
        same_error(out, at + 1)
    out = os.path.join(tmp, "cut", name)  # the last line cut: no newline
    os.makedirs(os.path.dirname(out), exist_ok=True)
    bdb.write(out, b"\n".join(lines)[:-3])
    same_error(out, n)


def main():
    with bdb.temp_db() as db:
        tmp = os.path.dirname(db)
        fixtures = sorted(glob.glob(os.path.join(FIX, "fio_log", "*.log")))
        for f in fixtures:
            same(f, (None, 1, 97, 4096))
        real = fio_logs(tmp)
        for f in real:
            same(f, (None, 4096, 65536))
        # stored rows and a report: two logs of the same kind as the sides of a comparison
        for paths in ([os.path.join(FIX, "fio_log", "perio_clat.1.log")] +
                      [f for f in real if f.endswith("_clat.1.log")],
                      [os.path.join(FIX, "fio_log", "hist_clat_hist.1.log")] +
                      [f for f in real if f.endswith("_clat_hist.1.log")],
                      fixtures):
            want = stored(tmp, paths, 1)
            for chunk in (None, 1000):
                t.eq(stored(tmp, paths, 3, chunk), want,
                     "%s: stored rows, export and report -j 3, chunks of %s bytes, as -j 1" %
                     ([os.path.basename(p) for p in paths], chunk))
        for f in [os.path.join(FIX, "fio_log", n) for n in
                  ("perio_clat.1.log", "avg_bw.1.log", "hist_clat_hist.1.log")] + real:
            damaged(tmp, f)


main()
sys.exit(t.done())
