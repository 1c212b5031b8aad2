"""A comparison of network tests alone (iperf, iperf3) gets no storage-tier table: the built-in
tiers.rules classes (database reads, sync writes, streaming ...) could only each say "none
meets the threshold" of results that are not storage. A line says why instead; a comparison
that holds storage results keeps the table."""
import os, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("network_report")
FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "iperf")
LINE = ("Only network tests (iperf, iperf3) were compared: the storage tiers of the built-in "
        "tiers.rules do not apply to them.")


def section(md, heading):
    part = md.split("\n## %s\n" % heading, 1)
    return part[1].split("\n## ", 1)[0] if len(part) == 2 else None


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        for cfg, f in (("a", "iperf3_tcp.json"), ("b", "iperf3_tcp_P2.json"),
                       ("a", "iperf3_tcp.txt"), ("b", "iperf3_tcp_P2.txt")):
            rc, out, err = bdb.call(db, "import", "--tag", "cfg=" + cfg, os.path.join(FIX, f))
            t.eq(rc, 0, "import %s: %s" % (f, err))
        rc, md, err = bdb.call(db, "report", "--compare", "a", "b", "--by", "tag:cfg")
        t.eq(rc, 0, "network report: " + err)
        rec = section(md, "Recommendations")
        t.eq(rec.strip() if rec else rec, LINE, "network tests alone: one line, no table")
        # with storage results on both sides, the tiers table is back
        for cfg, d in (("a", "disk"), ("b", "tmpfs")):
            files = [os.path.join(bdb.EXAMPLES, d, f)
                     for f in sorted(os.listdir(os.path.join(bdb.EXAMPLES, d)))]
            rc, out, err = bdb.call(db, "import", "--tag", "cfg=" + cfg, *files)
            t.eq(rc, 0, "import %s: %s" % (d, err))
        rc, md, err = bdb.call(db, "report", "--compare", "a", "b", "--by", "tag:cfg")
        rec = section(md, "Recommendations") or ""
        t.ok("| Workload class |" in rec and LINE not in rec, "storage results: the tiers table")
    return t.done()


sys.exit(main())
