"""fleet_pushdown.py: report and check on a PostgreSQL URL copy only what their comparison reads.
A fleet of ~1,000 results whose compared sides (the two hosts of tests/tools/fleet.py, storage
classes disk and tmpfs) are ~1 % of them: the rest are real fio outputs of a third host, storage
class bulk, with their numbers redrawn (bench/gen.py varied). Pushed to a throwaway server, the
reports (Markdown, CSV, JSON) and checks read from it are byte for byte those of the SQLite
warehouse `benchdb merge` makes of the three hosts, with --by, --where, --since/--until and
tag: keys and a saved baseline as a side; and the in-memory copy (BENCHDB_DEBUG_PULL counts its rows per table) holds only the
compared results with their runs, sources, tags, bins and series. A side without results (the
comparison fails naming the values the whole warehouse has) and a --where value the server's
column cannot read copy everything, so that their messages are the local ones too."""
import glob, os, re, sqlite3, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb, fleet, pg
from checks import Checks

t = Checks("fleet_pushdown")
PORT = 55491
BULK = 1000
GEN = os.path.join(os.environ.get("SRCDIR", "."), "bench", "gen.py")


def copied(url, *args):
    """The rows per table the read copied from the server, with its exit status."""
    p = bdb.run(url, *args, env=dict(os.environ, BENCHDB_DEBUG_PULL="1"))
    rows = {m.group(2): int(m.group(1)) for m in
            re.finditer(r"copied (\d+) rows of the server's table '(\w+)'", p.stderr)}
    return p.returncode, rows


def same(srv, merged, args):
    server, local = bdb.run(srv.url(), *args), bdb.run(merged, *args)
    what = " ".join(args)
    t.eq(server.returncode, local.returncode, "%s: exit status (%s)" % (what, server.stderr))
    t.ok(server.stdout == local.stdout, "%s: stdout differs from the merged warehouse's" % what)
    t.eq(server.stderr, local.stderr, "%s: stderr" % what)
    return server


def count(db, sql):
    return bdb.sql_rows(db, sql)[0][0]


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-pushdown-") as tmp, pg.server(PORT) as srv:
        a, b = fleet.make_hosts(tmp, t)
        c, gen = os.path.join(tmp, "c.sqlite"), os.path.join(tmp, "gen")
        subprocess.run([sys.executable, GEN, "varied", gen, str(BULK)] +
                       sorted(glob.glob(fleet.fixture("b-*.json"))), check=True)
        p = bdb.run(c, "import", "--host", "c", "--storage-class", "bulk", "--tag", "rack=r1",
                    *sorted(glob.glob(os.path.join(gen, "*.json"))))
        t.eq(p.returncode, 0, "import of the bulk host: " + p.stderr)
        # a network test of host a: its link, which the report holds host a's NFS results
        # against (query/suspect.c), though it compares storage classes only
        p = bdb.run(c, "import", "--host", "a", os.path.join(os.path.dirname(fleet.FIX),
                                                             "insights", "iperf3-100M.json"))
        t.eq(p.returncode, 0, "import of host a's network test: " + p.stderr)
        for db in (a, b, c):
            p = bdb.run(db, "push", srv.url())
            t.eq(p.returncode, 0, "push: " + p.stderr)
        merged = os.path.join(tmp, "merged.sqlite")
        p = bdb.run(merged, "merge", a, b, c)
        t.eq(p.returncode, 0, "merge: " + p.stderr)

        # a baseline (push sends none: written on both sides alike), its results host b's
        save = ("INSERT INTO baseline (id, name, filter, created_by, created_at) VALUES "
                "(1, 'before', 'host=b', 'ci', '2026-01-01T00:00:00Z'); INSERT INTO "
                "baseline_result SELECT 1, id FROM result WHERE host = 'b' AND storage_class = "
                "'tmpfs'")
        srv.psql(save)
        con = sqlite3.connect(merged)
        con.executescript(save)
        con.close()
        total = count(merged, "SELECT count(*) FROM result")
        compared = count(merged, "SELECT count(*) FROM result WHERE storage_class IN "
                         "('disk', 'tmpfs')")
        t.ok(compared * 50 < total, "the sides are ~1 %% of the fleet: %d of %d" % (compared, total))
        links = count(merged, "SELECT count(*) FROM result r JOIN run ON run.id = r.run_id "
                      "WHERE run.tool IN ('iperf', 'iperf3')")
        t.ok(links > 0, "the fleet holds a network test")

        started = sorted(r[0] for r in bdb.sql_rows(
            merged, "SELECT started_at FROM run r JOIN result x ON x.run_id = r.id "
            "WHERE x.storage_class IN ('disk', 'tmpfs') AND started_at IS NOT NULL GROUP BY r.id"))
        iso = lambda s: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(s))
        dates = ["--since", iso(started[1]), "--until", iso(started[-2])]
        base = ["report", "--compare", "disk", "tmpfs"]
        same(srv, merged, base)
        for args in (base + ["--format", "csv"], base + ["--format", "json"],
                     base + ["--format", "csv", "--table", "results"],
                     base + ["--where", "rw=randread"], base + dates,
                     base + dates + ["--format", "json"],
                     ["report", "--compare", "a", "b", "--by", "host", "--where", "bs=4k"],
                     ["report", "--compare", "a", "b", "--by", "host", "--format", "json"],
                     ["check", "--compare", "disk", "tmpfs"],
                     ["report", "--compare", "baseline:before", "disk", "--format", "json"],
                     ["check", "--compare", "baseline:before", "disk", "--where", "rw=randread"],
                     ["report", "--compare", "baseline:nosuch", "disk"],
                     ["check", "--compare", "disk", "tmpfs", "--where", "iodepth=abc"],
                     ["report", "--compare", "disk", "tmfps"],
                     ["report", "--compare", "disk", "tmpfs", "--where", "rw=nothing"],
                     ["report", "--compare", "r1", "r2", "--by", "tag:rack"]):
            same(srv, merged, args)

        # the copy: the compared results and what hangs off them, not the bulk host's
        rc, rows = copied(srv.url(), *base)
        t.eq(rc, 0, "report with BENCHDB_DEBUG_PULL: exit status")
        t.eq(rows.get("result"), compared + links,
             "the copy holds the compared results and the network tests only")
        sel = ("(SELECT r.id FROM result r JOIN run ON run.id = r.run_id WHERE r.storage_class "
               "IN ('disk', 'tmpfs') OR run.tool IN ('iperf', 'iperf3'))")
        for table, sql in (("run", "SELECT count(DISTINCT run_id) FROM result WHERE id IN " + sel),
                           ("source_file", "SELECT count(DISTINCT run.source_id) FROM result r "
                            "JOIN run ON run.id = r.run_id WHERE r.id IN " + sel),
                           ("tag", "SELECT count(*) FROM tag WHERE result_id IN " + sel),
                           ("histogram", "SELECT count(*) FROM histogram WHERE result_id IN " + sel),
                           ("series", "SELECT count(*) FROM series WHERE result_id IN " + sel)):
            t.eq(rows.get(table), count(merged, sql), "the copy's %s rows" % table)
        t.ok(count(merged, "SELECT count(*) FROM series") > 0 and rows.get("series", 0) > 0,
             "the compared results have series")
        rc, rows = copied(srv.url(), "report", "--compare", "baseline:before", "disk")
        t.eq(rows.get("result"), count(merged, "SELECT count(*) FROM result WHERE storage_class "
                                       "= 'disk' OR id IN (SELECT result_id FROM "
                                       "baseline_result)") + links,
             "baseline:before vs disk: the copy holds those results only")
        t.eq(rows.get("baseline_result"), count(merged, "SELECT count(*) FROM baseline_result"),
             "baseline:before vs disk: the copy holds the baseline's members")
        rc, rows = copied(srv.url(), "report", "--compare", "a", "b", "--by", "host", "--where",
                          "rw=randread")
        t.eq(rows.get("result"), count(merged, "SELECT count(*) FROM result WHERE host IN "
                                       "('a', 'b') AND rw = 'randread'") + links,
             "--by host --where rw=randread: the copy holds those results only")
        # commands that read the whole fleet, and a failing side, copy every result
        for args in (["runs"], ["report", "--compare", "disk", "tmfps"],
                     ["report", "--compare", "disk", "tmpfs", "--all", "--format", "csv"]):
            rc, rows = copied(srv.url(), *args)
            t.eq(rows.get("result"), total, "%s: the copy holds every result" % " ".join(args))
    return t.done()


sys.exit(main())
