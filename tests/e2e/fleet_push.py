"""fleet_push.py: benchdb push to a throwaway PostgreSQL server (tests/tools/pg.py). Two hosts'
warehouses (tests/tools/fleet.py) with overlapping files are pushed twice each: the server holds
the union (each source once, with every result, tag, histogram, series and chunk of it, counted
per source with python's sqlite3 on the local files and psql on the server; each mount once, with
its options) and the second round sends nothing. A relabel made after a push is pushed as label changes, once. A server that is
down, a bad URL and a database that is not a warehouse are clear errors (exit status 1)."""
import os, sqlite3, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb, fleet, pg
from checks import Checks

t = Checks("fleet_push")
PORT = 55431


def server_by_source(srv, table, key):
    """fleet.rows_by_source's counts, read on the server with psql."""
    lines = srv.psql(fleet.per_source_sql(table, key)).stdout.split()
    return {sha: int(n) for sha, n in (line.split("|") for line in lines)}


MOUNTS_SQL = ("SELECT m.options || '|' || o.key || '|' || coalesce(o.value, '') FROM mount m "
              "JOIN mount_option o ON o.mount_id = m.id ORDER BY 1")


def local_mounts(paths):
    """Each mount's option rows, "options|key|value", over the warehouses at paths (a mount is
    known by its options: the same options on two hosts are one mount)."""
    rows = set()
    for path in paths:
        with sqlite3.connect(path) as h:
            rows.update(r[0] for r in h.execute(MOUNTS_SQL))
    return sorted(rows)


def test_push_twice(srv, a, b):
    errs = []
    for db in (a, b, a, b):
        p = bdb.run(db, "push", srv.url())
        t.eq(p.returncode, 0, "push %s: %s" % (os.path.basename(db), p.stderr))
        errs.append(p.stderr)
    t.ok(errs[0].startswith("pushed 7 sources"), "first push: %r" % errs[0])
    t.ok(errs[1].startswith("pushed 4 sources") and "2 already on the server" in errs[1],
         "second host's push (2 files shared): %r" % errs[1])
    for e in errs[2:]:
        t.ok(e.startswith("pushed 0 sources (0 runs, 0 results)"), "push again: %r" % e)
    union = fleet.rows_by_source([a, b], "result", "result")
    t.eq(len(union), 11, "sources in the union")
    t.eq(server_by_source(srv, "result", "result"), union, "results per source")
    for table, key in (("tag", "result_id"), ("histogram", "result_id"),
                       ("series", "result_id"), ("source_chunk", "source_id")):
        t.eq(server_by_source(srv, table, key), fleet.rows_by_source([a, b], table, key),
             table + " rows per source")
    t.eq(srv.psql("SELECT count(*) FROM result").stdout.strip(), str(sum(union.values())),
         "result count = the union's")
    mounts = local_mounts([a, b])
    t.ok(len({m.split("|")[0] for m in mounts}) == 2, "the hosts' two mounts: %r" % mounts)
    t.eq(srv.psql(MOUNTS_SQL).stdout.split(), mounts, "the server's mounts and their options")


def test_relabel(srv, a):
    p = bdb.run(a, "relabel", "--where", "job=randread-64k", "--set", "storage_class=nvme",
                "--set", "tag:rack=r7")
    t.eq(p.returncode, 0, "relabel: " + p.stderr)
    p = bdb.run(a, "push", srv.url())
    t.eq(p.returncode, 0, "push the relabel: " + p.stderr)
    t.ok(p.stderr.rstrip().endswith("; 2 label changes"), "relabel pushed: %r" % p.stderr)
    got = srv.psql("SELECT r.storage_class, t.value FROM result r JOIN tag t ON t.result_id = "
                   "r.id AND t.key = 'rack' WHERE r.job = 'randread-64k' AND r.host = 'a'")
    t.eq(got.stdout.split(), ["nvme|r7"], "the server's labels after the push")
    t.eq(srv.psql("SELECT field, old_value, new_value FROM label_history ORDER BY field")
         .stdout.split(), ["storage_class|disk|nvme", "tag:rack||r7"], "the server's history")
    p = bdb.run(a, "push", srv.url())
    t.ok(p.returncode == 0 and p.stderr.rstrip().endswith("; 0 label changes"),
         "relabel pushed again: %r" % p.stderr)


def test_errors(srv, a, tmp):
    cases = [("postgresql:///postgres?host=%s&port=%d" % (tmp, PORT + 1),
              "benchdb push: error: cannot connect to the server: connection to server on socket"),
             ("postgresql://%zz/", "benchdb push: error: cannot connect to the server: invalid "
                                   "percent-encoded token: \"%zz\"")]
    srv.psql("CREATE DATABASE other")
    srv.psql("CREATE TABLE mine (x int)", db="other")
    cases.append((srv.url(db="other"), "benchdb push: error: the database holds tables but no "
                                       "benchdb warehouse (no table benchdb_meta)"))
    for url, want in cases:
        p = bdb.run(a, "push", url)
        t.eq(p.returncode, 1, "push to %s: exit status" % url)
        t.ok(p.stderr.startswith(want) and p.stderr.count("\n") == 1,
             "push to %s: %r lacks %r" % (url, p.stderr, want))
    p = bdb.run(a, "push", "/tmp/not-a-url")
    t.ok(p.returncode == 2 and "expected a postgresql:// URL" in p.stderr, "not a URL: %r" % p.stderr)


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-fleet-") as tmp, pg.server(PORT) as srv:
        a, b = fleet.make_hosts(tmp, t)
        test_push_twice(srv, a, b)
        test_relabel(srv, a)
        test_errors(srv, a, tmp)
    return t.done()


sys.exit(main())
