"""fleet_read.py: the read commands with --db postgresql://... read the fleet's warehouse. Two
hosts' warehouses (tests/tools/fleet.py) pushed to a throwaway server (tests/tools/pg.py) give
the same export (ndjson and CSV), report --compare (Markdown, CSV), check, trend and runs output,
byte for byte, as the SQLite warehouse that `benchdb merge` makes of both, also with
--since/--until (which copy only the runs in range from the server); the export holds the
union of the hosts' results (counted with python's sqlite3). A command that writes refuses the
URL, and a server that is down is a clear error (exit status 3)."""
import glob, json, os, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb, fleet, pg
from checks import Checks

t = Checks("fleet_read")
PORT = 55432
SAME = [["export", "--format", "ndjson"], ["export", "--format", "csv"],
        ["report", "--compare", "disk", "tmpfs"],
        ["report", "--compare", "disk", "tmpfs", "--format", "csv"],
        ["report", "--compare", "a", "b", "--by", "host", "--where", "rw=randread"],
        ["check", "--compare", "disk", "tmpfs"], ["trend"], ["runs"], ["runs", "--history"],
        ["baseline", "list"]]


def test_same_output(srv, merged):
    for args in SAME:
        server, local = bdb.run(srv.url(), *args), bdb.run(merged, *args)
        t.eq(server.returncode, local.returncode,
             "%s: exit status (%s)" % (" ".join(args), server.stderr.strip()))
        t.ok(server.stdout == local.stdout and server.stdout.strip(),
             "%s: output differs from the merged warehouse's" % " ".join(args))


def test_range(srv, merged):
    """report, check and trend with --since/--until copy only the runs in range from the
    server (report and check only the compared results among them): their output is still the merged warehouse's (which holds every run)."""
    started = sorted(json.load(open(f))["timestamp"] for f in glob.glob(fleet.fixture("*.json")))
    since, until = started[2], started[-3]  # fio's "timestamp": the run's start, Unix seconds
    inside = [s for s in started if since <= s <= until]
    t.ok(0 < len(inside) < len(started), "the range holds some runs, not all: %r" % inside)
    iso = lambda s: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(s))
    dates = ["--since", iso(since), "--until", iso(until)]
    srv.psql("ALTER DATABASE postgres SET log_statement = 'all'")  # for the check at the end
    for args in (["report", "--compare", "disk", "tmpfs"] + dates,
                 ["check", "--compare", "disk", "tmpfs"] + dates, ["trend"] + dates):
        server, local = bdb.run(srv.url(), *args), bdb.run(merged, *args)
        t.eq(server.returncode, local.returncode,
             "%s: exit status (%s)" % (" ".join(args), server.stderr.strip()))
        t.ok(server.stdout == local.stdout and server.stdout.strip(),
             "%s: output differs from the merged warehouse's" % " ".join(args))
    log = open(os.path.join(srv.dir, "server.log")).read()
    t.ok("run.started_at BETWEEN %d AND" % since in log,
         "the results' SELECT sent to the server holds the range (fleet_pushdown.py)")


def test_union(srv, a, b):
    got = bdb.export(srv.url(), t)
    union = fleet.rows_by_source([a, b], "result", "result")
    t.eq(len(got), sum(union.values()), "exported results = the union's")
    t.eq({r["sha256"] for r in got}, set(union), "exported sources = the union's")


def test_errors(srv, tmp):
    p = bdb.run(srv.url(), "relabel", "--set", "host=x")
    t.eq(p.returncode, 3, "relabel on the server: exit status")
    t.ok("benchdb: error: a PostgreSQL warehouse is only read here" in p.stderr,
         "relabel on the server: %r" % p.stderr)
    down = "postgresql:///postgres?host=%s&port=%d" % (tmp, PORT + 1)
    p = bdb.run(down, "report", "--compare", "disk", "tmpfs")
    t.eq(p.returncode, 3, "report from a server that is down: exit status")
    t.ok(p.stderr.startswith("benchdb: error: cannot connect to the server: connection to "
                             "server on socket") and p.stderr.count("\n") == 1,
         "report from a server that is down: %r" % p.stderr)
    srv.psql("CREATE DATABASE empty")
    p = bdb.run(srv.url(db="empty"), "runs")
    t.ok(p.returncode == 3 and "no benchdb warehouse on the server yet" in p.stderr,
         "runs from an empty database: %r" % p.stderr)


def test_older_schema(srv, merged):
    """A fleet last pushed by a benchdb of schema 6 (before 0007's indexes, which no read needs)
    is read as it is and left so, not refused until someone pushes to it; one of schema 5 (before
    0006's table) is refused, with what to do."""
    srv.psql("DROP INDEX result_storage_class; DROP INDEX run_tool; "
             "UPDATE benchdb_meta SET value = '6' WHERE key = 'schema_version'")
    args = ["report", "--compare", "disk", "tmpfs"]
    server, local = bdb.run(srv.url(), *args), bdb.run(merged, *args)
    t.eq(server.returncode, 0, "report from schema 6: exit status (%s)" % server.stderr.strip())
    t.ok(server.stdout == local.stdout and server.stdout.strip(),
         "report from schema 6: output differs from the merged warehouse's")
    version = "SELECT value FROM benchdb_meta WHERE key = 'schema_version'"
    t.eq(srv.psql(version).stdout.strip(), "6", "a read leaves the server's schema as it was")
    srv.psql("UPDATE benchdb_meta SET value = '5' WHERE key = 'schema_version'")
    p = bdb.run(srv.url(), *args)
    t.eq(p.returncode, 3, "report from schema 5: exit status")
    t.ok("has schema version 5 and this benchdb reads 6 or later: push to it once to upgrade "
         "it" in p.stderr, "report from schema 5: %r" % p.stderr)


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-fleet-") as tmp, pg.server(PORT) as srv:
        a, b, merged = fleet.pushed_hosts(tmp, srv, t)
        test_same_output(srv, merged)
        test_range(srv, merged)
        test_union(srv, a, b)
        test_errors(srv, tmp)
        test_older_schema(srv, merged)
    return t.done()


sys.exit(main())
