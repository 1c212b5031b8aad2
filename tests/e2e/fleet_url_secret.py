"""fleet_url_secret.py: a password in a postgresql:// URL is never printed. libpq's messages
about a URL it cannot parse quote the password ('invalid percent-encoded token: "S3CRETPW%zz"')
or the whole URL (an unclosed IPv6 host '@[::1'), and one with an unencoded '/' is a port to
libpq ('invalid integer value "S3CRET" for connection option "port"'): each read command
(runs, query, export) and push says it cannot connect (exit status 3; 1 for query and push)
without any piece of the
password, as written or percent-decoded, in its stderr. No server is needed: the URLs do not
parse."""
import os, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("fleet_url_secret")
PW = "S3CRETPW"
URLS = ["postgresql://user:%s%%zz@localhost/db" % PW,
        "postgresql://user:%s@[::1/db" % PW,
        "postgres://user:%s@[::1:5432/db?sslmode=require" % PW,
        "postgresql://user:S3CR%%45TPW@[::1/db",  # %45 is 'E': the password decoded is PW
        "postgresql://user:S3CRET/PW@localhost/db",
        "postgresql:///db?host=/nonexistent&password=%s%%zz" % PW,
        "postgresql:///db?sslpassword=%s%%zz&user=u" % PW]
# pieces of the password a message could hold: it whole, and its halves (a '/' splits it)
PIECES = [PW, PW[:6], "S3CR%45TPW", "S3CRET", "/PW@"]


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-secret-") as tmp:
        local = os.path.join(tmp, "w.sqlite")
        rc, _, err = bdb.call(local, "import", "--storage-class", "disk",
                              os.path.join(bdb.EXAMPLES, "disk", "randread-1.json"))
        t.eq(rc, 0, "import: " + err)
        for url in URLS:
            for args in (["--db", url, "runs"], ["--db", url, "query", "SELECT 1"],
                         ["--db", url, "export"], ["--db", local, "push", url]):
                rc, out, err = bdb.call(None, *args, timeout=60)
                what = "%s %s" % ("push" if "push" in args else args[2], url)
                # push and query end 1 on a server's failure, the other read commands 3
                t.eq(rc, 1 if what.split()[0] in ("push", "query") else 3,
                     "%s: exit status (%s)" % (what, err.strip()))
                t.ok("cannot connect to the server" in err, "%s: says so: %r" % (what, err))
                leaked = [p for p in PIECES if p in err or p in out]
                t.ok(not leaked, "%s: the password is printed (%r): %r" % (what, leaked, err))
    return t.done()


sys.exit(main())
