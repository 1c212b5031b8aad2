"""fleet_series_malformed.py: a series on the fleet's server whose points are not the JSON array
of [t_ms, value] pairs that push sends (issue 29, item 8): a read command on the server said
"cannot read the results' time series: not an error", SQLite's text for SQLITE_OK, naming
neither the series nor what is wrong. The rows are read from the server into a private
warehouse (fleet/pull.c): a series that is not such an array is left out there, with a warning
naming its result and metric; the command's other output is the one it gives when the server
holds no such series (python deletes it there, a second server database pushed the same).

The hosts of tests/tools/fleet.py (real fio runs, one of a's with its bandwidth and latency
logs) are pushed to a throwaway server (tests/tools/pg.py); a's bandwidth series is then broken with psql
in three ways: cut JSON, a JSON object, pairs of strings."""
import os, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb, fleet, pg
from checks import Checks

t = Checks("fleet_series_malformed")
PORT = 55462
BROKEN = ["[[0,1],[1", '{"t": 1}', '[["a","b"]]']
ARGS = [["report", "--compare", "disk", "tmpfs"], ["check", "--compare", "disk", "tmpfs"]]


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-fleetser-") as tmp, pg.server(PORT) as srv:
        a, b = fleet.make_hosts(tmp, t)
        n = bdb.sql_rows(a, "SELECT count(*) FROM series WHERE metric = 'bw_bytes_s'")[0][0]
        t.eq(n, 1, "host a has one bandwidth series")
        srv.psql("CREATE DATABASE clean")
        for db in ("postgres", "clean"):
            for host in (a, b):
                p = bdb.run(host, "push", srv.url(db=db))
                t.eq(p.returncode, 0, "push: " + p.stderr)
        rid = srv.psql("SELECT result_id FROM series WHERE metric = 'bw_bytes_s'").stdout.strip()
        srv.psql("DELETE FROM series WHERE metric = 'bw_bytes_s'", db="clean")
        for args in ARGS:
            clean = bdb.run(srv.url(db="clean"), *args)
            # check is a gate: a regression (1) or an inconclusive metric (4) is its answer too
            ok = (0, 1, 4) if args[0] == "check" else (0,)
            t.ok(clean.returncode in ok, "%s without the series: %s" % (args[0], clean.stderr))
            for points in BROKEN:
                srv.psql("UPDATE series SET points = '%s' WHERE metric = 'bw_bytes_s'" % points)
                p = bdb.run(srv.url(), *args)
                what = "%s, points %s" % (args[0], points)
                t.ok("not an error" not in p.stderr, what + ": " + p.stderr)
                want = ("benchdb: warning: the server's series 'bw_bytes_s' of result %s is not "
                        "a JSON array of [t_ms, value] pairs: left out" % rid)
                t.ok(want in p.stderr, "%s: want %r, got %r" % (what, want, p.stderr))
                t.eq(p.returncode, clean.returncode, what + ": exit status: " + p.stderr)
                t.ok(p.stdout == clean.stdout, what + ": the output without the series")
    return t.done()


sys.exit(main())
