#!/usr/bin/python3
"""Parallel import (-j N): a mixed set of inputs (good files of several formats, a truncated
fio JSON, a copy of a file imported earlier in the same run, an empty file, a missing file, a
sidecar, standard input, fio logs read as a stream) imported with -j 1 and -j 4 prints the
same stdout and the same stderr lines in the same order (up to when a batch commit says
which files it stored), exits the same, and stores the same rows: the
tables (source_file, result, tag, metric, ...) compared by content (ids replaced by what they
point to) and, since the writer stores in input order, also id for id. What each file must
come to (imported, rejected, skipped) is read off the inputs, not off benchdb."""
import hashlib, os, shutil, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ["BENCHDB"]
FIX = os.environ["FIXTURES"]
t = Checks("import_parallel")
GOOD = [
    "fio_json/two_jobs_fsync.json",
    "fio_json/unified_mixed.json",
    "fio_json/jsonplus_randrw.json",
    "fio_terse/terse2_randrw.out",
    "dd/gnu-default.txt",
    "bonnie/disk-x2.csv",
    "iperf/iperf2_tcp.csv",
    "iperf/iperf2_udp.txt",
    "iperf/iperf3_tcp.json",
    "iperf/iperf3_udp.json",
    "iperf/iperf3_bidir.txt",
    "bonnie/shm-q-text.txt",
    "notes/composed.md",
    "fio_log/avg_clat.1.log",
    "fio_log/perio_bw.1.log",
]
STDIN = "fio_terse/terse3_2jobs_header.out"


def make_inputs(d):
    """The argument list, and what each argument must come to."""
    args, want = [], []
    for rel in GOOD:
        dst = os.path.join(d, rel.replace("/", "_"))
        shutil.copy(os.path.join(FIX, rel), dst)
        args.append(dst)
        want.append("imported")
    with open(os.path.join(FIX, GOOD[0]), "rb") as f:
        data = f.read()
    cut = os.path.join(d, "truncated.json")
    with open(cut, "wb") as f:
        f.write(data[: len(data) // 2])
    empty = os.path.join(d, "empty.json")
    open(empty, "wb").close()
    dup = os.path.join(d, "copy_of_first.json")
    shutil.copy(args[0], dup)
    missing = os.path.join(d, "missing.json")
    refused = os.path.join(d, "iperf3_refused.json")  # the tool's own failure: an error
    shutil.copy(os.path.join(FIX, "iperf/iperf3_refused.json"), refused)
    args += [cut, dup, empty, missing, refused, "-"]
    want += ["error", "already imported", "empty file", "cannot open", "error", "imported"]
    # a sidecar for every file of the folder
    with open(os.path.join(d, "benchdb.meta"), "w") as f:
        f.write("storage_class=nfs-csi\ntag.rack=r7\n")
    return args, want


def dump(db):
    """Every row of the stored tables, ids as stored and with ids replaced by content."""
    con = sqlite3.connect(db)
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' "
                                        "AND name NOT LIKE 'sqlite_%'")]
    by_id, by_content = {}, {}
    for name in sorted(tables):
        cur = con.execute("SELECT * FROM %s" % name)
        cols = [c[0] for c in cur.description]
        rows = cur.fetchall()
        by_id[name] = sorted(map(repr, rows))
        keep = [i for i, c in enumerate(cols) if c != "id" and not c.endswith("_id")]
        by_content[name] = sorted(repr(tuple(r[i] for i in keep)) for r in rows)
    con.close()
    return by_id, by_content


def stderr_lines(p, imported):
    return [line for line in p.stderr.decode().splitlines()
            if (": imported " in line) == imported]


def run_import(d, args, jobs, env):
    db = os.path.join(d, "j%s.sqlite" % jobs)
    with open(os.path.join(FIX, STDIN), "rb") as stdin_data:
        p = subprocess.run([BENCHDB, "--db", db, "import", "-j", str(jobs), *args],
                           stdin=stdin_data, capture_output=True, env=env, timeout=600)
    return p, db


def check_set(label, env):
    with tempfile.TemporaryDirectory() as d:
        args, want = make_inputs(d)
        serial, db1 = run_import(d, args, 1, env)
        parallel, db4 = run_import(d, args, 4, env)
        t.eq(serial.returncode, 1, label + ": -j 1 exit status (some input rejected)")
        t.eq(parallel.returncode, serial.returncode, label + ": -j 4 exit status")
        t.eq(parallel.stdout, serial.stdout, label + ": stdout")
        # "imported" lines are printed when their batch commits, which happens by the clock
        # (schema/db.c's BATCH_SECONDS): where they fall between the other lines depends on
        # timing even between two -j 1 runs, so each kind is compared in its own order
        for kind, pick in (("imported lines", True), ("other lines", False)):
            t.eq(stderr_lines(parallel, pick), stderr_lines(serial, pick),
                 "%s: stderr's %s, in order" % (label, kind))
        err = serial.stderr.decode()
        for path, what in zip(args, want):
            name = "<stdin>" if path == "-" else path
            t.ok(any(name in line and what in line for line in err.splitlines()),
                 "%s: %s: a line saying '%s' in\n%s" % (label, name, what, err))
        ids1, content1 = dump(db1)
        ids4, content4 = dump(db4)
        for table in ("source_file", "result", "tag"):
            t.ok(len(content1.get(table, [])) > 0, "%s: table %s has rows" % (label, table))
        t.eq(content4, content1, label + ": rows by content")
        t.eq(ids4, ids1, label + ": rows id for id")
        con = sqlite3.connect(db4)
        sources = con.execute("SELECT count(*) FROM source_file").fetchone()[0]
        con.close()
        t.eq(sources, want.count("imported"), label + ": one source per imported input")
        # the workers hash the files they read: each stored hash is its file's
        con = sqlite3.connect(db4)
        stored = dict(con.execute("SELECT path, sha256 FROM source_file"))
        con.close()
        for path, what in zip(args, want):
            if what == "imported" and path != "-":
                with open(path, "rb") as f:
                    t.eq(stored.get(path), hashlib.sha256(f.read()).hexdigest(),
                         "%s: %s: sha256" % (label, path))


env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
check_set("whole files", env)
# fio logs over the threshold are read as a stream by the writer, between parallel files
check_set("logs streamed", dict(env, BENCHDB_STREAM_THRESHOLD="1000"))
sys.exit(t.done())
