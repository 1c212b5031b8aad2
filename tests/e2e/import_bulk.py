#!/usr/bin/python3
"""Bulk imports (issue 31, item 5): 60,000 small real files, by directory, by --files-from and
by --files-from -0, then Ctrl-C in the middle of one.

The inputs: a few real GNU dd outputs made here (`dd if=/dev/zero of=/dev/null bs=1k
count=N`), and from them 60,000 copies, each with its own N (records, bytes and the sizes in
parentheses for N, dd's time of the real run it copies, the rate those give), so that no two
contents are the same: one result each, of io_bytes N * 1024. They sit in 60 folders of 1,000,
beside hidden files and folders (with dd outputs of N of their own, which must not be
imported), a link to a folder and a FIFO (neither read), a benchdb.meta (storage class
'sidecar-dir') in one folder and a FILE.meta (storage class 'sidecar-file') beside one file.
- `import -q DIR`: every file below DIR but the hidden ones and the sidecars, in sorted order
  (source ids follow the sorted paths), one result each with its N's bytes, the sidecars'
  classes on their files, and stderr only the storage-class note and the totals line (the
  numbers counted here);
- the same files again, by a --files-from list into the same warehouse: the first 10 skipped
  files named, one note for the rest, the totals; nothing stored twice;
- --files-from LIST (newline-separated) and -0 with a NUL-separated list from stdin (names
  with a space and a newline among them), each into a new warehouse: the same counts;
- SIGINT during an import of the directory, then SIGTERM during another (a service manager's
  stop, a CI job's timeout): exit status 128 + the signal, the message with the files
  stored, which is what the warehouse holds (python's sqlite3): integrity_check ok, each
  stored file whole (one result, its bytes' sha256, its N's io_bytes), every result in a
  stored file.
The files live on /dev/shm when it has room (scratch()); the test prints each phase's time.
Env: BENCHDB."""
import hashlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("import_bulk")
FOLDERS, PER_FOLDER = 60, 1000
TOTAL = FOLDERS * PER_FOLDER


def real_dd(n):
    """A real GNU dd output: (its time in seconds, its text)."""
    p = subprocess.run(["dd", "if=/dev/zero", "of=/dev/null", "bs=1k", "count=%d" % n],
                       stderr=subprocess.PIPE, check=True, env=dict(os.environ, LC_ALL="C"))
    text = p.stderr.decode()
    secs = re.search(r"copied, ([0-9.e-]+) s, ", text)
    return float(secs.group(1)), text


def human(v, base, units):
    """dd's short sizes: one decimal under 10, else whole."""
    for u in units:
        if v < base or u == units[-1]:
            return ("%.1f %s" if v < 10 else "%.0f %s") % (v, u)
        v /= base


def dd_text(n, secs):
    """The output dd prints for count=n bs=1k that took secs."""
    b = n * 1024
    si = human(b / 1000.0, 1000.0, ["kB", "MB", "GB"])
    binary = human(b / 1024.0, 1024.0, ["KiB", "MiB", "GiB"])
    rate = b / secs
    for unit in ("B/s", "kB/s", "MB/s", "GB/s"):
        if rate < 1000 or unit == "GB/s":
            break
        rate /= 1000.0
    rate_s = ("%.1f %s" if rate < 100 else "%.0f %s") % (rate, unit)
    return ("%d+0 records in\n%d+0 records out\n%d bytes (%s, %s) copied, %g s, %s\n"
            % (n, n, b, si, binary, secs, rate_s))


def make_tree(root):
    """The 60,000 files and the distractors: {path: N} of the files to import."""
    reals = [real_dd(n) for n in (1, 2, 3, 5, 8)]
    # the copies keep a real run's lines, with their N's counts: check one against dd itself
    t.eq(dd_text(5, reals[3][0]).split("copied")[0], reals[3][1].split("copied")[0],
         "a copy for N=5 reads as dd's own output up to the time")
    want = {}
    n = 10
    for f in range(FOLDERS):
        folder = os.path.join(root, "g%02d" % f)
        os.makedirs(folder)
        for i in range(PER_FOLDER):
            n += 1
            path = os.path.join(folder, "dd-%04d.txt" % i)
            with open(path, "w") as out:
                out.write(dd_text(n, reals[n % len(reals)][0]))
            want[path] = n
    # hidden files and folders, with dd outputs of their own N: never imported
    for hidden in (os.path.join(root, ".cache", "dd.txt"), os.path.join(root, "g00", ".x.txt")):
        os.makedirs(os.path.dirname(hidden), exist_ok=True)
        n += 1
        with open(hidden, "w") as out:
            out.write(dd_text(n, 0.001))
    # a link to a folder (not followed: g00's files would be found twice) and a FIFO (not a
    # file: opening it would wait for a writer forever)
    os.symlink(os.path.join(root, "g00"), os.path.join(root, "g03", "again"))
    os.mkfifo(os.path.join(root, "g04", "pipe.txt"))
    with open(os.path.join(root, "g01", "benchdb.meta"), "w") as out:
        out.write("storage_class=sidecar-dir\n")
    with open(os.path.join(root, "g02", "dd-0007.txt.meta"), "w") as out:
        out.write("storage_class=sidecar-file\n")
    return want


def stored(db):
    """{path: (source id, sha256, results, io_bytes)} of the warehouse, by python's sqlite3."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT s.path, s.id, s.sha256, count(r.id), sum(r.io_bytes) "
                           "FROM source_file s LEFT JOIN run ON run.source_id = s.id "
                           "LEFT JOIN result r ON r.run_id = run.id GROUP BY s.id").fetchall()
    finally:
        con.close()
    return {p: (sid, sha, nres, io) for p, sid, sha, nres, io in rows}


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check_all(db, want, what):
    got = stored(db)
    t.eq(len(got), len(want), what + ": files stored")
    t.eq(sorted(got), sorted(want), what + ": the paths stored are the files below the folder "
         "but hidden ones and sidecars")
    bad = [p for p, n in want.items() if p not in got or got[p][2:] != (1, n * 1024.0)]
    t.eq(bad[:5], [], what + ": each file one result with its N's bytes")
    return got


TOTALS = "imported %d results from %d files"
DICT_NOTE = re.compile(r"^benchdb: note: dd: \d+ stored files compressed against a dictionary")
LABEL_NOTE = ("benchdb: note: %d files stored without a storage class, which reports compare: "
              "give one with --storage-class, in a sidecar FILE.meta or benchdb.meta "
              "(storage_class=...), or later with 'benchdb relabel --where source=FILE --set "
              "storage_class=...'")


def said(stderr):
    """stderr's lines but the one that says a compression dictionary was trained (once, on the
    first 256 files of a format a warehouse stores: docs/schema.md), which -q keeps."""
    lines = stderr.splitlines()
    t.ok(sum(1 for line in lines if DICT_NOTE.match(line)) <= 1, "one dictionary note at most")
    return [line for line in lines if not DICT_NOTE.match(line)]


def by_directory(tmp, root, want):
    db = os.path.join(tmp, "dir.sqlite")
    start = time.monotonic()
    p = bdb.run(db, "import", "-q", root)
    print("import -q DIR of %d files: %.1f s" % (TOTAL, time.monotonic() - start))
    t.eq(p.returncode, 0, "import DIR: exit status (" + p.stderr[-300:] + ")")
    unlabeled = TOTAL - PER_FOLDER - 1  # g01 has benchdb.meta, one file its FILE.meta
    t.eq(said(p.stderr), [LABEL_NOTE % unlabeled, TOTALS % (TOTAL, TOTAL)],
         "-q: the storage-class note and the totals only")
    got = check_all(db, want, "import DIR")
    ids = [got[path][0] for path in sorted(want)]
    t.eq(ids, sorted(ids), "stored in sorted order")
    con = sqlite3.connect(db)
    classes = dict(con.execute("SELECT coalesce(storage_class, ''), count(*) FROM result "
                               "GROUP BY 1").fetchall())
    con.close()
    t.eq(classes, {"": unlabeled, "sidecar-dir": PER_FOLDER, "sidecar-file": 1},
         "the sidecars' classes on their files")

    # the same files again, listed: every one skipped, ten named and the rest in one note
    listed = os.path.join(tmp, "list.txt")
    paths = sorted(want)
    with open(listed, "w") as f:
        f.write("".join(path + "\n" for path in paths))
    start = time.monotonic()
    p = bdb.run(db, "import", "--files-from", listed)
    print("import --files-from, all %d stored already: %.1f s" % (TOTAL, time.monotonic() - start))
    t.eq(p.returncode, 0, "again: exit status")
    want_lines = ["%s: note: already imported (same content as '%s'), skipped" % (path, path)
                  for path in paths[:10]]
    want_lines.append("benchdb: note: %d more files already imported (same content as one "
                      "stored), skipped without a note each" % (TOTAL - 10))
    want_lines.append("imported 0 results from 0 files; %d files already stored, skipped" % TOTAL)
    t.eq(p.stderr.splitlines(), want_lines, "again: ten skipped files named, one note, the totals")
    t.eq(len(stored(db)), TOTAL, "again: nothing stored twice")


def by_lists(tmp, root, want):
    listed = os.path.join(tmp, "list.txt")  # written by by_directory
    db = os.path.join(tmp, "list.sqlite")
    start = time.monotonic()
    p = bdb.run(db, "import", "-q", "--storage-class", "listed", "--files-from", listed)
    print("import --files-from LIST of %d files: %.1f s" % (TOTAL, time.monotonic() - start))
    t.eq(p.returncode, 0, "--files-from: exit status (" + p.stderr[-300:] + ")")
    t.eq(said(p.stderr), [TOTALS % (TOTAL, TOTAL)], "--files-from -q: the totals only")
    check_all(db, want, "--files-from")

    # -0 from stdin: names a newline-separated list could not carry
    odd = os.path.join(root, "g03", "with space\nand newline.txt")
    with open(odd, "w") as f:
        f.write(dd_text(7_000_001, 0.5))
    want0 = dict(want)
    want0[odd] = 7_000_001
    db = os.path.join(tmp, "null.sqlite")
    start = time.monotonic()
    p = bdb.run(db, "import", "-q", "-0", "--files-from", "-", "--storage-class", "z",
                input="".join(path + "\0" for path in sorted(want0)))
    print("import -0 --files-from - of %d files: %.1f s" % (len(want0), time.monotonic() - start))
    t.eq(p.returncode, 0, "-0: exit status (" + p.stderr[-300:] + ")")
    t.eq(said(p.stderr), [TOTALS % (len(want0), len(want0))], "-0 -q: the totals only")
    check_all(db, want0, "-0 --files-from -")
    os.unlink(odd)


INTERRUPTED = re.compile(r"^benchdb: error: interrupted: (\d+) files? stored, the rest not "
                         r"imported \((\d+) of (\d+) files not read\)$")


def interrupted(tmp, root, want):
    for sig in (signal.SIGINT, signal.SIGTERM):
        stopped_by(sig, tmp, root, want)


def stopped_by(sig, tmp, root, want):
    db = os.path.join(tmp, "int-%s.sqlite" % sig.name)
    p = subprocess.Popen([bdb.BENCHDB, "--db", db, "import", "-q", "--storage-class", "c", root],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # wait until some files are in the warehouse (a batch committed), then signal
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.1)
        try:
            con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=1)
            n = con.execute("SELECT count(*) FROM source_file").fetchone()[0]
            con.close()
        except sqlite3.Error:
            continue
        if n >= 1000:
            break
    p.send_signal(sig)
    start = time.monotonic()
    err = p.communicate(timeout=120)[1]
    print("%s after %d files stored: ended %.1f s later" % (sig.name, n, time.monotonic() - start))
    t.eq(p.returncode, 128 + sig, "%s: exit status %d (%s)" % (sig.name, 128 + sig, err[-300:]))
    lines = err.splitlines()
    m = INTERRUPTED.match(lines[-1] if lines else "")
    if not t.ok(m, "the last line says what was kept: %r" % lines[-3:]):
        return
    got = stored(db)
    n = int(m.group(1))
    t.eq(n, len(got), "the files said stored are those in the warehouse")
    t.ok(0 < n < TOTAL, "stopped in the middle: %d of %d" % (n, TOTAL))
    t.eq(int(m.group(3)), TOTAL, "of the files given")
    t.ok(int(m.group(2)) <= TOTAL - n, "the files not read are among those not stored")
    t.eq(lines[-2] if len(lines) > 1 else "", TOTALS % (n, n), "the totals before it")
    con = sqlite3.connect(db)
    t.eq(con.execute("PRAGMA integrity_check").fetchall(), [("ok",)], "integrity_check")
    orphans = con.execute("SELECT count(*) FROM result r LEFT JOIN run ON run.id = r.run_id "
                          "LEFT JOIN source_file s ON s.id = run.source_id "
                          "WHERE s.id IS NULL").fetchone()[0]
    con.close()
    t.eq(orphans, 0, "every result in a stored file")
    bad = [path for path, (sid, digest, nres, io) in got.items()
           if path not in want or nres != 1 or io != want[path] * 1024.0 or digest != sha(path)]
    t.eq(bad[:5], [], "each stored file whole: its one result, its bytes' sha256")
    # the files stored are the first ones in sorted order
    t.eq(sorted(got), sorted(want)[:n], "the first files in order")


def scratch():
    """Where the files go: a tmpfs when there is one with room (creating and removing 60,000
    files on a busy disk takes minutes, on tmpfs seconds: about 250 MiB there), else the
    default temporary directory."""
    try:
        st = os.statvfs("/dev/shm")
        if os.access("/dev/shm", os.W_OK) and st.f_bavail * st.f_frsize > (2 << 30):
            return "/dev/shm"
    except OSError:
        pass
    return None


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-bulk-", dir=scratch()) as tmp:
        root = os.path.join(tmp, "runs")
        start = time.monotonic()
        want = make_tree(root)
        print("made %d files: %.1f s" % (len(want), time.monotonic() - start))
        t.eq(len(want), TOTAL, "files made")
        for phase in (by_directory, by_lists, interrupted):
            start = time.monotonic()
            phase(tmp, root, want)
            print("%s: %.1f s in all" % (phase.__name__, time.monotonic() - start))
        start = time.monotonic()
    print("removing the files: %.1f s" % (time.monotonic() - start))
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
