"""fleet_server.py: the fleet's server as docs/fleet.md sets it up, on a throwaway PostgreSQL
(tests/tools/pg.py). The owner's first push creates the schema; the GRANT blocks of
docs/fleet.md, run verbatim, give a push role that can push but not delete or update (until
the relabel block grants it) and a read role for `benchdb query` (run on the server, read-only,
with a timeout). The views hold every result and every logged point (checked against the fio
log itself); every query of docs/grafana-dashboard.json runs; docs/export.md's CSV commands
load the export verbatim."""
import glob, hashlib, json, os, re, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb, fleet, pg
from checks import Checks

t = Checks("fleet_server")
PORT = 55434
SRC = os.environ.get("SRCDIR", ".")


def doc_blocks(name, lang):
    """The fenced code blocks of docs/NAME in language lang, in order."""
    text = open(os.path.join(SRC, "docs", name)).read()
    return re.findall(r"```%s\n(.*?)```" % lang, text, re.S)


def local_count(path, sql):
    with sqlite3.connect(path) as h:
        return h.execute(sql).fetchone()[0]


def test_roles(srv, a, b):
    url = lambda user: srv.url(user, "bench")
    p = bdb.run(a, "push", url("bench_owner"))
    t.eq(p.returncode, 0, "the owner's first push: " + p.stderr)
    grants, relabel_grants = doc_blocks("fleet.md", "sql")[:2]
    srv.psql(grants, db="bench")
    p = bdb.run(b, "push", url("bench_push"))
    t.eq(p.returncode, 0, "push as bench_push: " + p.stderr)
    for sql in ("DELETE FROM tag", "UPDATE result SET host = 'x'", "TRUNCATE source_file"):
        got = srv.psql(sql, user="bench_push", db="bench", check=False)
        t.ok(got.returncode and "permission denied" in got.stderr, "bench_push may not " + sql)
    p = bdb.run(b, "relabel", "--where", "host=b", "--set", "storage_class=ssd")
    t.eq(p.returncode, 0, "relabel: " + p.stderr)
    p = bdb.run(b, "push", url("bench_push"))
    t.ok(p.returncode == 1 and "permission denied for table result" in p.stderr,
         "relabel pushed without the grant: %r" % p.stderr)
    srv.psql(relabel_grants, db="bench")
    p = bdb.run(b, "push", url("bench_push"))
    t.ok(p.returncode == 0 and p.stderr.rstrip().endswith("; 4 label changes"),
         "relabel pushed with the grant: %r" % p.stderr)
    got = srv.psql("SELECT count(*) FROM result WHERE storage_class = 'ssd'", db="bench")
    t.eq(got.stdout.strip(), "4", "results relabelled on the server")


STORED_RUNS_TRIGGER = (
    "CREATE TABLE run_stored (n int); CREATE FUNCTION note_run() RETURNS trigger LANGUAGE "
    "plpgsql SECURITY DEFINER AS $$BEGIN INSERT INTO run_stored VALUES (1); RETURN NULL; END$$; "
    "CREATE TRIGGER note_run AFTER INSERT ON run FOR EACH STATEMENT EXECUTE FUNCTION note_run()")


def test_key_checks(srv, b):
    """The server checks each pushed row's foreign keys (triggers) until docs/fleet.md's grant
    lets bench_push set session_replication_role, and not after: a trigger of the test's own,
    counting the statements that store runs, fires for a push before the grant and not after.
    Either way the file is stored whole."""
    url = srv.url("bench_push", "bench")
    srv.psql(STORED_RUNS_TRIGGER, db="bench")
    set_grant = doc_blocks("fleet.md", "sql")[2]
    for name, grant, fired in (("bs_range.json", None, 1), ("bs_mixed_differ.json", set_grant, 0)):
        if grant:
            srv.psql(grant, db="bench")
        path = os.path.join(SRC, "tests", "fixtures", "fio_json", name)
        p = bdb.run(b, "import", "--host", "c", path)
        t.eq(p.returncode, 0, "import %s: %s" % (name, p.stderr))
        srv.psql("TRUNCATE run_stored", db="bench")
        p = bdb.run(b, "push", url)
        t.ok(p.returncode == 0 and p.stderr.startswith("pushed 1 source"),
             "push of %s as bench_push: %r" % (name, p.stderr))
        got = srv.psql("SELECT count(*) FROM run_stored", db="bench").stdout.strip()
        t.eq(got, str(fired), "%s: statements storing runs that fired a trigger (%s the grant)"
             % (name, "after" if grant else "before"))
        sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
        want = fleet.rows_by_source([b], "result", "result")[sha]
        got = srv.psql(fleet.per_source_sql("result", "result").replace(
            "GROUP BY", "WHERE s.sha256 = '%s' GROUP BY" % sha), db="bench").stdout.strip()
        t.eq(got, "%s|%d" % (sha, want), name + ": its results on the server")
    srv.psql("DROP TRIGGER note_run ON run; DROP FUNCTION note_run(); DROP TABLE run_stored",
             db="bench")


def test_query(srv, union, a):
    read = srv.url("bench_read", "bench")
    sql = "SELECT 1 AS n, 2.5 AS x, 'a|b' AS t, NULL AS z, -7 AS i"
    for fmt in ("table", "csv", "json", "md"):
        server, local = bdb.run(read, "query", "--format", fmt, sql), bdb.run(a, "query",
                                                                              "--format", fmt, sql)
        t.ok(server.returncode == 0 and server.stdout == local.stdout,
             "query --format %s: the server's %r, SQLite's %r" % (fmt, server.stdout,
                                                                   local.stdout))
    p = bdb.run(read, "query", "--format", "csv", "SELECT count(*) AS n, "
                "count(DISTINCT sha256) AS files FROM v_result")
    t.eq((p.returncode, p.stdout), (0, "n,files\n%d,%d\n" % union), "query on the server")
    p = bdb.run(read, "query", "--timeout", "0.5", "SELECT pg_sleep(5)")
    t.eq((p.returncode, p.stderr), (1, "benchdb: error: query: stopped by --timeout after "
                                       "0.5 s\n"), "a query past its timeout")
    p = bdb.run(srv.url(db="bench"), "query", "DELETE FROM tag")
    t.eq((p.returncode, p.stderr), (1, "benchdb: error: query: cannot execute DELETE in a "
                                       "read-only transaction\n"), "a query that writes")


def test_views(srv, union):
    got = srv.psql("SELECT count(*), count(DISTINCT sha256) FROM v_result", db="bench")
    t.eq(got.stdout.strip(), "%d|%d" % union, "v_result: one row per result")
    # fio's bandwidth log: time in ms, value in KiB/s (fio HOWTO, "Log File Formats")
    log = [line.split(",") for line in open(fleet.fixture("seqwrite_bw.1.log")) if line.strip()]
    want = ["%d|%d" % (int(ms), int(kib) * 1024) for ms, kib, *_ in log]
    got = srv.psql("SELECT t_ms, value FROM v_series_point WHERE metric = 'bw_bytes_s' "
                   "ORDER BY t_ms", db="bench").stdout.split()
    t.eq(got, want, "v_series_point: the bandwidth log's points")
    got = srv.psql("SELECT count(*) FROM v_series_point WHERE \"time\" IS NULL", db="bench")
    t.eq(got.stdout.strip(), "0", "v_series_point: every point has a time")


def test_vocabulary(srv, a):
    """The server's views have the columns of the SQLite warehouse's, in the same order, and a
    run's start reads the same in both (timestamptz there, ISO 8601 text here)."""
    with sqlite3.connect(a) as h:
        for view in ("v_result", "v_metric", "v_series_point"):
            local = [r[1] for r in h.execute("SELECT * FROM pragma_table_info(?)", (view,))]
            got = srv.psql("SELECT column_name FROM information_schema.columns WHERE table_name"
                           " = '%s' ORDER BY ordinal_position" % view, db="bench").stdout.split()
            t.eq(got, local, view + ": the server's columns are SQLite's")
        local = dict(h.execute("SELECT DISTINCT sha256, started_at FROM v_result"))
    got = srv.psql("SELECT DISTINCT sha256, to_char(started_at AT TIME ZONE 'UTC', "
                   "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM v_result", db="bench").stdout
    server = {k: v or None for k, v in (line.split("|") for line in got.split("\n") if line)}
    t.eq({k: server.get(k) for k in local}, local, "started_at: the same time on the server")
    t.eq(srv.psql("SELECT count(*) FROM v_result WHERE tags IS NULL", db="bench").stdout.strip(),
         "0", "tags: an object, {} when a result has none")


def test_dashboard(srv, tmp):
    """Every query runs and names every series, also those of results without a host or a
    storage class: a third warehouse pushes, unlabelled, the fixture's sequential-write run with
    its bandwidth log attached (new content to the server: the run's timestamp a second later,
    the log without its last point)."""
    runs = os.path.join(tmp, "unlabelled")
    os.makedirs(runs)
    doc = json.load(open(fleet.fixture("a-seqwrite-1m.json")))
    doc["timestamp"] += 1
    json.dump(doc, open(os.path.join(runs, "a-seqwrite-1m.json"), "w"), indent=2)
    with open(fleet.fixture("seqwrite_bw.1.log")) as f:
        lines = f.read().splitlines(True)
    with open(os.path.join(runs, "seqwrite_bw.1.log"), "w") as f:
        f.writelines(lines[:-1])
    c = os.path.join(tmp, "c.sqlite")
    p = bdb.run(c, "import", *sorted(glob.glob(os.path.join(runs, "*"))))
    t.eq(p.returncode, 0, "import the unlabelled run and its log: " + p.stderr)
    p = bdb.run(c, "push", srv.url("bench_owner", "bench"))
    t.eq(p.returncode, 0, "push it: " + p.stderr)
    got = srv.psql("SELECT count(*) FROM v_result r WHERE (host IS NULL OR storage_class IS NULL)"
                   " AND EXISTS (SELECT 1 FROM v_series_point p WHERE p.result_id = r.result_id"
                   " AND p.\"time\" IS NOT NULL)", db="bench")
    t.ok(int(got.stdout.strip() or 0) > 0, "a logged result with an unset label: %r" % got.stdout)
    dash = json.load(open(os.path.join(SRC, "docs", "grafana-dashboard.json")))
    sqls = [tg["rawSql"] for panel in dash["panels"] for tg in panel["targets"]]
    t.eq(len(sqls), 3, "queries in the dashboard")
    for sql in sqls:  # Grafana's macro, expanded as Grafana does
        sql = re.sub(r"\$__timeFilter\(([^()]*(?:\([^()]*\))?[^()]*)\)",
                     r"\1 BETWEEN '2000-01-01T00:00:00Z' AND '2100-01-01T00:00:00Z'", sql)
        got = srv.psql(sql, user="bench_read", db="bench", check=False)
        t.ok(got.returncode == 0 and got.stdout.strip(),
             "dashboard query gives rows: %r %s" % (sql[:60], got.stderr))
        if " AS metric" in sql:  # Grafana names a series by it: never NULL, whatever is unset
            got = srv.psql("SELECT count(*) FROM (%s) q WHERE metric IS NULL" % sql,
                           user="bench_read", db="bench", check=False)
            t.eq(got.stdout.strip(), "0", "every series named: %r %s" % (sql[:60], got.stderr))


def test_export_doc(srv, a, tmp):
    """docs/export.md's CSV commands, verbatim, with benchdb on PATH."""
    block = [b for b in doc_blocks("export.md", "sh") if "pg-ddl" in b][0]
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    os.symlink(bdb.BENCHDB, os.path.join(bindir, "benchdb"))
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"], BENCHDB_DB=a, PGHOST=srv.dir,
               PGPORT=str(PORT), PGUSER=pg.SUPERUSER, PGDATABASE="postgres")
    p = subprocess.run(["bash", "-euc", block], cwd=tmp, env=env, capture_output=True, text=True)
    t.eq(p.returncode, 0, "docs/export.md's CSV commands: " + p.stderr)
    got = srv.psql("SELECT count(*), sum(bw_bytes_s), count(tags) FROM benchdb_result").stdout
    want = local_count(a, "SELECT count(*) || '|' || sum(bw_bytes_s) || '|' || count(*) "
                          "FROM result")
    n, bw, tags = got.strip().split("|")
    wn, wbw, wtags = want.split("|")
    t.ok(n == wn and t.close(float(bw), float(wbw), 1e-12) and int(tags) <= int(wtags),
         "the loaded CSV: %r, the warehouse: %r" % (got, want))


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-fleet-") as tmp, pg.server(PORT) as srv:
        a, b = fleet.make_hosts(tmp, t)
        srv.psql("CREATE ROLE bench_owner LOGIN")
        srv.psql("CREATE DATABASE bench OWNER bench_owner")
        test_roles(srv, a, b)
        test_key_checks(srv, b)
        by_source = fleet.rows_by_source([a, b], "result", "result")
        union = (sum(by_source.values()), len(by_source))
        test_query(srv, union, a)
        test_views(srv, union)
        test_vocabulary(srv, a)
        test_dashboard(srv, tmp)
        test_export_doc(srv, a, tmp)
    return t.done()


sys.exit(main())
