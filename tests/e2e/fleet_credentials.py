"""fleet_credentials.py: a password given on the command line (issue 31, item 3) is taken, warned
about once (naming ~/.pgpass and PGPASSWORD), overwritten in argv while benchdb runs, and never
printed. Against a throwaway server (tests/tools/pg.py, which trusts its socket: the password is
given and not needed):
- push and query work with a password in the URL's userinfo and in its query (password=), each
  with exactly one warning; $BENCHDB_DB holding one works with no warning;
- /proc/PID/cmdline of a running query (pg_sleep) no longer holds the password, in either form
  (nor percent-decoded), and shows its place as '*';
- every command that takes a warehouse (--db before and after the command, and $BENCHDB_DB),
  push's URL and merge's warehouses, given a distinctive password in URL form (good, percent-
  encoded, of a mistyped scheme, unparsable) and in keyword form (password=, sslpassword=,
  quoted, of a keyword string), prints no piece of it on stdout or stderr."""
import os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb, pg
from checks import Checks

t = Checks("fleet_credentials")
PORT = 55471
PW = "Zq7PASSWORDx"
# pieces of the password a message could hold: it whole, percent-encoded, its halves
PIECES = [PW, "Zq7PASS%57ORDx", "Zq7PASS", "WORDx"]
WARNING = "benchdb: warning: a password on the command line"


def good_urls(srv):
    """Connection strings of srv holding PW that connect (the server ignores the password)."""
    q = "host=%s&port=%d" % (srv.dir, srv.port)
    return ["postgresql://%s:%s@/postgres?%s" % (pg.SUPERUSER, PW, q),
            "postgres://%s:Zq7PASS%%57ORDx@/postgres?%s" % (pg.SUPERUSER, q),
            "postgresql:///postgres?%s&user=%s&password=%s" % (q, pg.SUPERUSER, PW)]


def bad_conns(srv):
    """Ones that do not: mistyped schemes, libpq keyword strings, URLs libpq cannot parse, a
    server that is not there."""
    return ["postgressql://u:%s@db.lab/bench" % PW,
            "postgresq://u:%s@db.lab/bench?sslmode=require" % PW,
            "http://u:%s@db.lab/bench" % PW,
            "host=%s port=%d user=u password=%s" % (srv.dir, srv.port, PW),
            "host=db.lab dbname=bench password = '%s'" % PW,
            "dbname=bench sslpassword=%s" % PW,
            "postgresql://u:%s%%zz@localhost/db" % PW,
            "postgresql://u:%s@[::1/db" % PW,
            "postgresql:///db?host=/nonexistent&password=%s" % PW,
            "postgresql:///db?host=/nonexistent&sslpassword=%s&user=u" % PW,
            "postgresql://u:%s@/db?host=/nonexistent" % PW]


# each command with arguments that reach its warehouse
COMMANDS = [["baseline", "list"], ["check", "--compare", "disk", "tmpfs"], ["export"],
            ["labels"], ["query", "SELECT 1"], ["relabel", "--where", "storage_class=disk",
                                                "--set", "notes=x"],
            ["reparse"], ["report", "--compare", "disk", "tmpfs"],
            ["rm", "--where", "storage_class=nothing", "--dry-run"], ["runs"], ["trend"],
            ["vacuum"], ["import", "--storage-class", "disk",
                          os.path.join(bdb.EXAMPLES, "disk", "randread-1.json")],
            ["run", "--", "true"]]


def leaks(out, err):
    return [p for p in PIECES if p in out or p in err]


def call(args, env=None):
    e = dict(os.environ)
    e.pop("BENCHDB_DB", None)
    e.update(env or {})
    p = subprocess.run([bdb.BENCHDB] + args, capture_output=True, text=True, timeout=120,
                       env=e, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def cmdline_while_running(db_args):
    """/proc/PID/cmdline of a query that sleeps 3 s on the server, read after 1 s."""
    p = subprocess.Popen([bdb.BENCHDB] + db_args + ["query", "SELECT pg_sleep(3)"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1)
    with open("/proc/%d/cmdline" % p.pid, "rb") as f:
        seen = f.read().decode(errors="replace")
    out, err = p.communicate(timeout=60)
    return p.returncode, seen, out, err


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-creds-") as tmp, pg.server(PORT) as srv:
        local = os.path.join(tmp, "w.sqlite")
        rc, _, err = call(["--db", local, "import", "--storage-class", "disk",
                           os.path.join(bdb.EXAMPLES, "disk", "randread-1.json")])
        t.eq(rc, 0, "import: " + err)
        for url in good_urls(srv):
            rc, out, err = call(["--db", local, "push", url])
            t.eq(rc, 0, "push %s: %s" % (url, err))
            t.eq(err.count(WARNING), 1, "push %s: warned once: %r" % (url, err))
            t.ok("~/.pgpass" in err and "PGPASSWORD" in err, "push: names the way: %r" % err)
            t.eq(leaks(out, err), [], "push %s: no password printed: %r" % (url, err))
            rc, out, err = call(["--db", url, "query", "--format", "csv",
                                 "SELECT count(*) FROM v_result"])
            t.eq((rc, out), (0, "count\n1\n"), "query %s: %s" % (url, err))
            t.eq(err.count(WARNING), 1, "query %s: warned once: %r" % (url, err))
            t.eq(leaks(out, err), [], "query %s: no password printed: %r" % (url, err))
            # the environment is the user's own, as PGPASSWORD is: no warning
            rc, out, err = call(["runs"], env={"BENCHDB_DB": url})
            t.eq((rc, err), (0, ""), "runs with $BENCHDB_DB=%s" % url)
            # --db URL and --db=URL (the value inside its argument)
            for db_args in (["--db", url], ["--db=" + url]):
                rc, seen, out, err = cmdline_while_running(db_args)
                t.eq(rc, 0, "a sleeping query %s: %s" % (db_args, err))
                t.eq(leaks(seen, ""), [], "cmdline of a running query holds no password: %r"
                     % seen)
                t.ok("@/postgres" in seen or "password=*" in seen, "cmdline keeps the rest: %r"
                     % seen)
                t.ok("***" in seen, "cmdline shows the password's place: %r" % seen)
        for conn in good_urls(srv) + bad_conns(srv):
            runs = [["--db", conn] + c for c in COMMANDS] + [c + ["--db", conn] for c in COMMANDS]
            runs += [["--db", local, "push", conn], ["--db", local, "push", "-j", "2", conn],
                     ["--db", os.path.join(tmp, "m.sqlite"), "merge", local, conn]]
            for args in runs:
                rc, out, err = call(args)
                what = " ".join(args)
                t.eq(leaks(out, err), [], "%s: no password printed: %r %r" % (what, out, err))
                t.ok(err.count(WARNING) <= 1, "%s: one warning at most: %r" % (what, err))
            for c in COMMANDS:
                rc, out, err = call(c, env={"BENCHDB_DB": conn})
                t.eq(leaks(out, err), [], "$BENCHDB_DB=%s %s: no password printed: %r"
                     % (conn, c[0], err))
                t.ok(WARNING not in err, "$BENCHDB_DB %s: no warning: %r" % (c[0], err))
    return t.done()


sys.exit(main())
