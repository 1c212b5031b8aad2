"""fleet.py: the two hosts of the fleet tests (tests/e2e/fleet_*.py), from the real fio runs
in tests/fixtures/fleet: host a's files (one with its bandwidth and latency logs) labelled
--host a --storage-class disk (the random ones on an NFS mount, the other on none); host b's
labelled --host b --storage-class tmpfs on another mount, and two of host a's files copied to
host b too (the overlap), with the same labels and mount (a mount the server may hold
already)."""
import glob, os, sqlite3

import bdb

FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "fleet")
SHARED = ["a-randread-4k.json", "a-randwrite-4k.json"]
MOUNT_A, MOUNT_B = "rw,hard,vers=4.2,sec=sys,rsize=1048576", "rw,vers=3,soft"


def fixture(name):
    return os.path.join(FIX, name)


def make_hosts(tmp, checks):
    """Imports both hosts' warehouses into tmp: (a's path, b's path)."""
    a, b = os.path.join(tmp, "a.sqlite"), os.path.join(tmp, "b.sqlite")
    a_files = sorted(glob.glob(fixture("a-rand*.json")))
    steps = [(a, ["--host", "a", "--storage-class", "disk", "--mount", MOUNT_A] + a_files),
             (a, ["--host", "a", "--storage-class", "disk", fixture("a-seqwrite-1m.json"),
                  fixture("seqwrite_bw.1.log"), fixture("seqwrite_clat.1.log")]),
             (b, ["--host", "b", "--storage-class", "tmpfs", "--mount", MOUNT_B] +
              sorted(glob.glob(fixture("b-*.json")))),
             (b, ["--host", "a", "--storage-class", "disk", "--mount", MOUNT_A] +
              [fixture(f) for f in SHARED])]
    for db, args in steps:
        p = bdb.run(db, "import", *args)
        checks.eq(p.returncode, 0, "import into %s: %s" % (os.path.basename(db), p.stderr))
    return a, b


def pushed_hosts(tmp, srv, checks):
    """Both hosts' warehouses (make_hosts) pushed to srv and merged into one local warehouse,
    which holds what the server does: (a's path, b's path, the merged one's)."""
    a, b = make_hosts(tmp, checks)
    for db in (a, b):
        p = bdb.run(db, "push", srv.url())
        checks.eq(p.returncode, 0, "push: " + p.stderr)
    merged = os.path.join(tmp, "merged.sqlite")
    p = bdb.run(merged, "merge", a, b)
    checks.eq(p.returncode, 0, "merge: " + p.stderr)
    return a, b, merged


def apply_migrations(srv, db, count=None):
    """Creates the warehouse schema in db as a push would, from the first count (all by
    default) of schema/pg/'s migrations applied in order with psql, and records that version;
    returns how many migrations schema/pg/ holds."""
    pgdir = os.path.join(os.environ.get("SRCDIR", "."), "schema", "pg")
    migrations = sorted(f for f in os.listdir(pgdir) if f.endswith(".sql"))
    applied = migrations[:count]
    for name in applied:
        srv.psql(open(os.path.join(pgdir, name)).read(), db=db)
    srv.psql("INSERT INTO benchdb_meta VALUES ('schema_version', '%d')" % len(applied), db=db)
    return len(migrations)


def per_source_sql(table, key):
    """SQL giving (sha256, number of rows of table) per source: key "result" counts results,
    "result_id" rows of table whose result_id is one of the source's results, "source_id" rows
    of table whose source_id is the source's (the same SQL reads SQLite and PostgreSQL)."""
    return {"result": "SELECT s.sha256, count(r.id) FROM source_file s JOIN run ON "
                      "run.source_id = s.id JOIN result r ON r.run_id = run.id GROUP BY s.sha256",
            "result_id": "SELECT s.sha256, count(*) FROM source_file s JOIN run ON "
                         "run.source_id = s.id JOIN result r ON r.run_id = run.id JOIN %s x ON "
                         "x.result_id = r.id GROUP BY s.sha256" % table,
            "source_id": "SELECT s.sha256, count(*) FROM source_file s JOIN %s x ON "
                         "x.source_id = s.id GROUP BY s.sha256" % table}[key]


def rows_by_source(paths, table, key):
    """{sha256: per_source_sql's count} over the union of the SQLite warehouses at paths, read
    with python's sqlite3."""
    union = {}
    for path in paths:
        with sqlite3.connect(path) as h:
            union.update(dict(h.execute(per_source_sql(table, key)).fetchall()))
    return union
