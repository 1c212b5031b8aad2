"""fleet_query_copy.py: `benchdb query --db postgresql://...` refuses COPY, in every form, with
a clear message and exit status 1, promptly (each call under a 20 s timeout; COPY (SELECT 1)
TO STDOUT printed an empty error and spun at 100 % CPU for ever): TO STDOUT, FROM STDIN, TO a
server file (allowed by PostgreSQL in a read-only transaction: the file must not appear), in
lower case after comments. A plain SELECT still prints its rows; an empty statement is an
error as in the SQLite warehouse. A throwaway server (tests/tools/pg.py)."""
import os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb, fleet, pg
from checks import Checks

t = Checks("fleet_query_copy")
PORT = 55447
REFUSED = "query: COPY is refused"


def query(srv, sql, *opts):
    try:
        return bdb.call(srv.url(), "query", *opts, sql, timeout=20)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after 20 s"


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-copy-") as tmp, pg.server(PORT) as srv:
        fleet.apply_migrations(srv, "postgres")
        # the server runs as nobody when we are root: a file it could write
        target = os.path.join(srv.dir, "copied.txt")
        for sql in ("COPY (SELECT 1) TO STDOUT", "COPY benchdb_meta TO STDOUT (FORMAT csv)",
                    "COPY benchdb_meta FROM STDIN",
                    "/* a /* nested */ comment */ -- and a line\n  copy (select 1) to stdout",
                    "COPY (SELECT 1) TO '%s'" % target):
            rc, out, err = query(srv, sql)
            t.eq(rc, 1, "%r: exit status (%s)" % (sql, err.strip()))
            t.ok(REFUSED in err, "%r: refused with a message: %r" % (sql, err))
            t.eq(out, "", "%r: nothing on stdout" % sql)
        t.ok(not os.path.exists(target), "COPY TO a server file wrote nothing")
        rc, out, err = query(srv, "SELECT 41 + 1 AS answer, 'copy' AS word", "--format", "csv")
        t.eq((rc, out, err), (0, "answer,word\n%d,copy\n" % (41 + 1), ""), "a SELECT's rows")
        rc, out, err = query(srv, "SELECT 'COPY (SELECT 1) TO STDOUT' AS copy")
        t.eq(rc, 0, "a SELECT whose text holds COPY: " + err)
        rc, out, err = query(srv, "  ")
        t.eq((rc, err.strip()), (1, "benchdb: error: query: empty statement"), "empty statement")
    return t.done()


sys.exit(main())
