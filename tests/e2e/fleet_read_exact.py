"""fleet_read_exact.py: the copy a report on a PostgreSQL URL reads holds every column of the
rows it copies with the value and type the local warehouse has, not only what a report prints.
Two hosts' warehouses (tests/tools/fleet.py) pushed to a throwaway server and merged into one
SQLite warehouse; the same SQL (valid in both dialects) then gives a few results values a text
round trip could bend: the smallest subnormal and the largest double, 0.1 + 0.2, an integer
past 2^53, an empty text against a NULL, a text of a tab, a newline, a backslash and a
non-ASCII letter, every latency NULL; and a tag. The in-memory copy of the compared reads
(BENCHDB_DEBUG_PULL_INTO saves it) holds, for each result, run and source, the merged
warehouse's values of every column (ids aside: each warehouse has its own), compared with
python's sqlite3 with their types; the edge values are python's own literals. A --where on the
tag copies only the tagged results (and the network tests, of which these hosts have none),
and its reports (Markdown, JSON) are the merged warehouse's byte for byte.
A comparison's copy leaves out the metrics of result no part of the report reads (NULL in the
copy): READ below, what results.c loads and appendix.c lists, and the metrics the built-in
tiers.rules names (read from the file). Every other metric column is NULL in the copy, and
there are many of them; the rest hold the merged warehouse's values. That nothing reads a
metric left out is the copy's own guard (fleet/pull.c refuses such a statement), exercised by
reports that read more: a capacity target's percentile (--slo p95<=...), which must be copied
for that report alone, and the appendix (its CSV table of results), each the merged
warehouse's."""
import os, re, sqlite3, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb, fleet, pg
from checks import Checks

t = Checks("fleet_read_exact")
PORT = 55494
# SQL that reads the same in SQLite and PostgreSQL: the result of host a's random-read file,
# known by its content, not by an id
RESULT = ("(SELECT r.id FROM result r JOIN run ON run.id = r.run_id JOIN source_file s ON "
          "s.id = run.source_id WHERE s.path LIKE '%%a-randread-4k.json' AND r.host = 'a' %s)")
EDGE = [
    ("bw_bytes_s = 5e-324, iops = 1.7976931348623157e308, clat_mean_ns = 0.30000000000000004, "
     "size_bytes = 9007199254740993, job = '', error_msg = NULL", ""),
    ("lat_mean_ns = NULL, lat_p99_ns = NULL, clat_p99_ns = NULL, clat_p50_ns = NULL, "
     "slat_mean_ns = NULL, runtime_ms = NULL, error_msg = 'tab\tnewline\nback\\slash \u00e9'",
     ""),
]
EXPECT = {"bw_bytes_s": 5e-324, "iops": 1.7976931348623157e308, "clat_mean_ns": 0.1 + 0.2,
          "size_bytes": 2 ** 53 + 1, "job": "", "error_msg": "tab\tnewline\nback\\slash \u00e9"}
# the metrics a report reads whatever its options: those results.c loads (its pivot, with the
# ones standing in for them) and those the appendix lists (appendix.c)
READ = {"bw_bytes_s", "iops", "clat_mean_ns", "lat_mean_ns", "clat_p99_ns", "lat_p99_ns",
        "clat_p50_ns", "lat_p50_ns", "runtime_ms", "sync_lat_mean_ns", "sync_lat_p99_ns",
        "sync_lat_p50_ns", "slat_mean_ns", "clat_p99_9_ns", "lat_max_ns", "io_bytes"}


def rules_metrics():
    """The metric names the built-in tiers.rules holds as words (a rule on sync_lat_X reads
    clat_X too)."""
    path = os.path.join(os.environ["SRCDIR"], "templates", "tiers.rules")
    words = set(re.findall(r"[a-z0-9_]+", open(path).read()))
    return words | {"c" + w[5:] for w in words if w.startswith("sync_lat_")}


TAG = ("INSERT INTO tag (result_id, key, value) SELECT r.id, 'rack', 'r2' FROM result r "
       "WHERE r.rw = 'randread'")


def edit(srv, merged):
    """The same edits on the server and in the merged warehouse."""
    con = sqlite3.connect(merged)
    for sets, extra in EDGE:
        sql = "UPDATE result SET %s WHERE id IN %s" % (sets, RESULT % extra)
        srv.psql(sql)
        con.execute(sql)
    srv.psql(TAG)
    con.execute(TAG)
    con.commit()
    con.close()


def rows(db, table, key_sql):
    """Every row of table in db keyed by its content (key_sql, over the row as x), ids left
    out, and a source's stored bytes and their dictionary (which stay on the server):
    {key: {column: value}}."""
    con = sqlite3.connect(db)
    cols = [r[1] for r in con.execute("SELECT * FROM pragma_table_info(?)", (table,))]
    kept = [c for c in cols if c not in ("id", "raw", "raw_dict") and not c.endswith("_id")]
    got = {}
    for r in con.execute("SELECT %s, %s FROM %s x" % (key_sql, ", ".join("x." + c for c in kept),
                                                         table)):
        t.ok(r[0] not in got, "%s: the key %r is a row's own" % (table, r[0]))
        got[r[0]] = dict(zip(kept, r[1:]))
    con.close()
    return got


# a row's identity in either warehouse: its source's sha256, then its run's rank among the
# source's runs and its own among the run's results (push and merge keep their order)
RUN_KEY = ("(SELECT s.sha256 || '/' || (SELECT count(*) FROM run o WHERE o.source_id = "
           "run.source_id AND o.id <= run.id) FROM run JOIN source_file s ON s.id = run.source_id "
           "WHERE run.id = %s)")
KEYS = {"source_file": "x.sha256", "run": RUN_KEY % "x.id",
        "result": RUN_KEY % "x.run_id" + " || '/' || (SELECT count(*) FROM result o WHERE "
                  "o.run_id = x.run_id AND o.id <= x.id)"}


def metric_columns(db):
    """The REAL columns of result in db: the stored metrics."""
    con = sqlite3.connect(db)
    cols = {r[0] for r in con.execute(
        "SELECT name FROM pragma_table_info('result') WHERE type = 'REAL'")}
    con.close()
    return cols


def same_rows(copy, merged, table, selected, left_out):
    """The copy's rows of table are the merged warehouse's (selected: their keys), each value
    of the same type, but the columns left_out, NULL in every row."""
    got, want = rows(copy, table, KEYS[table]), rows(merged, table, KEYS[table])
    t.eq(sorted(got), sorted(k for k in want if k in selected), "%s: the rows copied" % table)
    for k in got:
        for col, v in want[k].items():
            g = got[k][col]
            if col in left_out:
                t.ok(g is None, "%s %s: %s = %r, left out" % (table, k, col, g))
            else:
                t.ok(g == v and type(g) is type(v),
                     "%s %s: %s = %r (%s), the merged warehouse's %r (%s)" %
                     (table, k, col, g, type(g).__name__, v, type(v).__name__))


def check_copy(srv, merged, tmp, args, where):
    """The copy report ARGS reads against the merged warehouse's rows (where: the results it
    compares, as SQL over result r)."""
    copy = os.path.join(tmp, "copy-%d.sqlite" % len(os.listdir(tmp)))
    p = bdb.run(srv.url(), *args, env=dict(os.environ, BENCHDB_DEBUG_PULL_INTO=copy))
    t.eq(p.returncode, 0, "%s: exit status (%s)" % (" ".join(args), p.stderr))
    con = sqlite3.connect(merged)
    ids = [r[0] for r in con.execute("SELECT r.id FROM result r WHERE " + where)]
    con.close()
    t.ok(ids, "%s: results compared" % " ".join(args))
    # the keys of the compared results, their runs and their sources, in the merged warehouse
    con = sqlite3.connect(merged)
    q = ",".join(map(str, ids))
    sel = {
        "result": {r[0] for r in con.execute(
            "SELECT %s FROM result x WHERE x.id IN (%s)" % (KEYS["result"], q))},
        "run": {r[0] for r in con.execute(
            "SELECT %s FROM run x WHERE x.id IN (SELECT run_id FROM result WHERE id IN (%s))"
            % (KEYS["run"], q))},
        "source_file": {r[0] for r in con.execute(
            "SELECT %s FROM source_file x WHERE x.id IN (SELECT source_id FROM run WHERE id IN "
            "(SELECT run_id FROM result WHERE id IN (%s)))" % (KEYS["source_file"], q))}}
    con.close()
    left_out = metric_columns(merged) - READ - rules_metrics()
    # left out, and most of them stored here: the copy leaves out values, not empty columns
    con = sqlite3.connect(merged)
    stored = [c for c in sorted(left_out) if con.execute(
        "SELECT count(*) FROM result WHERE %s IS NOT NULL AND id IN (%s)" % (c, q)).fetchone()[0]]
    con.close()
    t.ok(len(left_out) >= 60 and len(stored) >= 20,
         "%s: %d metrics left out, %d of them stored" % (" ".join(args), len(left_out), len(stored)))
    for table in ("source_file", "run", "result"):
        same_rows(copy, merged, table, sel[table], left_out if table == "result" else set())
    return copy


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-exact-") as tmp, pg.server(PORT) as srv:
        _, _, merged = fleet.pushed_hosts(tmp, srv, t)
        edit(srv, merged)
        copies = os.path.join(tmp, "copies")
        os.mkdir(copies)

        copy = check_copy(srv, merged, copies, ["report", "--compare", "disk", "tmpfs"],
                          "r.storage_class IN ('disk', 'tmpfs')")
        con = sqlite3.connect(copy)
        edge = con.execute("SELECT %s FROM result WHERE id IN %s" % (
            ", ".join(EXPECT), RESULT % "")).fetchall()
        con.close()
        t.eq(len(edge), 1, "the edited result is in the copy")
        for (col, want), got in zip(EXPECT.items(), edge[0] if edge else []):
            t.ok(got == want and type(got) is type(want),
                 "the copy's %s: %r, written %r" % (col, got, want))

        tagged = ["report", "--compare", "disk", "tmpfs", "--where", "tag:rack=r2"]
        check_copy(srv, merged, copies, tagged,
                   "r.storage_class IN ('disk', 'tmpfs') AND r.id IN (SELECT result_id FROM tag "
                   "WHERE key = 'rack' AND value = 'r2')")
        compared = ["report", "--compare", "disk", "tmpfs"]
        for args in (tagged, tagged + ["--format", "json"], compared + ["--format", "json"],
                     compared + ["--slo", "p95<=1ms"],
                     compared + ["--slo", "p95<=1ms", "--format", "json"],
                     compared + ["--format", "csv", "--table", "results"]):
            server, local = bdb.run(srv.url(), *args), bdb.run(merged, *args)
            t.eq(server.returncode, local.returncode, "%s: exit status" % " ".join(args))
            t.ok(server.stdout == local.stdout and server.stdout.strip(),
                 "%s: output differs from the merged warehouse's" % " ".join(args))
    return t.done()


sys.exit(main())
