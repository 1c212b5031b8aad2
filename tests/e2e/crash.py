#!/usr/bin/python3
"""Crash safety: `benchdb import` of 2000 distinct fio JSON files is killed with SIGKILL part
way through. The database must pass PRAGMA integrity_check, and every file must be either
absent or present with exactly the results and metrics a fresh import of that file alone
gives. Importing the whole batch again must then land every file once."""
import os, signal, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ["BENCHDB"]
FIX = os.path.join(os.environ["FIXTURES"], "fio_json")
BASES = ["two_jobs_fsync.json", "unified_mixed.json", "jsonplus_randrw.json",
         "status_interval.json", "job_error.json"]
N = 2000
t = Checks("crash")


def run(db, *args):
    p = subprocess.run([BENCHDB, "--db", db, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def per_source(db):
    """{path: (results, metrics)} for every stored file."""
    rc, out, err = run(db, "query", "--format", "csv",
                       "SELECT s.path, count(DISTINCT r.id), count(m.name) FROM source_file s "
                       "LEFT JOIN run u ON u.source_id = s.id LEFT JOIN result r ON r.run_id = u.id "
                       "LEFT JOIN metric m ON m.result_id = r.id GROUP BY s.id ORDER BY s.id")
    t.eq(rc, 0, "per-source query: " + err)
    rows = [line.rsplit(",", 2) for line in out.splitlines()[1:]]
    return {p: (int(r), int(m)) for p, r, m in rows}


def integrity(db):
    rc, out, err = run(db, "query", "--format", "csv", "PRAGMA integrity_check")
    t.eq((rc, out.splitlines()[1:]), (0, ["ok"]), "PRAGMA integrity_check " + err)


def make_batch(tmp):
    """N files: the i-th is base i % len(BASES) followed by i // len(BASES) + 1 newlines
    (fio's JSON parser, and benchdb's, ignore trailing whitespace; the hashes differ)."""
    paths, base_of = [], {}
    data = [open(os.path.join(FIX, b), "rb").read().rstrip(b"\n") for b in BASES]
    for i in range(N):
        path = os.path.join(tmp, "batch", "r%04d.json" % i)
        with open(path, "wb") as f:
            f.write(data[i % len(BASES)] + b"\n" * (i // len(BASES) + 1))
        paths.append(path)
        base_of[path] = i % len(BASES)
    return paths, base_of


def expected_counts(tmp, paths):
    """Results and metrics of each base imported alone into a fresh database, checked on the
    first batch file of each base."""
    want = []
    for i in range(len(BASES)):
        db = os.path.join(tmp, "alone%d.sqlite" % i)
        rc, out, err = run(db, "import", paths[i])
        t.eq(rc, 0, "import %s alone: %s" % (paths[i], err))
        want.append(per_source(db)[paths[i]])
        t.ok(want[-1][0] > 0, "%s alone has results" % BASES[i])
    return want


def kill_midway(db, paths):
    """Starts the import, kills it with SIGKILL after a third of the files were committed.
    Batches of 5 ms: an idle machine imports all 2000 files within one batch of the default
    0.25 s, whose "imported" lines come only with its commit, so the kill came after the end;
    at 5 ms there are still many files to a batch, and many batches."""
    env = dict(os.environ, BENCHDB_BATCH_MS="5")
    p = subprocess.Popen([BENCHDB, "--db", db, "import", *paths], stderr=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, env=env)
    done = 0
    for line in p.stderr:
        if b": imported " in line:
            done += 1
            if done == N // 3:
                p.send_signal(signal.SIGKILL)
                break
    p.wait()
    t.eq(p.returncode, -signal.SIGKILL, "import was killed (it had %d files done)" % done)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "batch"))
        paths, base_of = make_batch(tmp)
        want = expected_counts(tmp, paths)
        db = os.path.join(tmp, "w.sqlite")
        kill_midway(db, paths)
        integrity(db)
        got = per_source(db)
        t.ok(N // 3 <= len(got) < N, "killed mid-way: %d of %d files stored" % (len(got), N))
        t.ok(set(got) <= set(paths), "only batch files stored")
        partial = [p for p in got if got[p] != want[base_of[p]]]
        t.eq(partial, [], "files stored only in part")

        rc, out, err = run(db, "import", *paths)
        t.eq(rc, 0, "re-import of the whole batch: " + err[-500:])
        integrity(db)
        got = per_source(db)
        t.eq(sorted(got), sorted(paths), "every file stored after re-import")
        t.eq([p for p in got if got[p] != want[base_of[p]]], [], "files with wrong counts")
        rc, out, err = run(db, "query", "--format", "csv", "SELECT count(*) FROM source_file")
        t.eq(out.splitlines()[1:], [str(N)], "source_file rows (no duplicates)")
    return t.done()


sys.exit(main())
