"""fleet_push.py: benchdb push to a throwaway PostgreSQL server (tests/tools/pg.py). Two hosts'
warehouses (tests/tools/fleet.py) with overlapping files are pushed twice each: the server holds
the union (each source once, with every result, tag, histogram, series and chunk of it, counted
per source with python's sqlite3 on the local files and psql on the server; each mount once, with
its options) and the second round sends nothing. A relabel made after a push is pushed as label
changes, once, also after benchdb rm renumbered the results of the run. A file another host
stores while a push waits for its turn is left out of it whole. A server of an older schema is
upgraded by a push. A compression dictionary goes to the server once, and the sources stored
against it decode there. A server that is down, a bad URL and a database that is not a
warehouse are clear errors (exit status 1)."""
import hashlib, os, sqlite3, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb, fleet, pg
from checks import Checks

t = Checks("fleet_push")
PORT = 55431
PUSH_LOCK = 7461626863686463  # fleet/push.c's: the lock a push holds from its start to its end


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


def test_relabel_after_rm(srv, tmp):
    """benchdb rm of a run's first result renumbers the rest locally, not on the server: a
    relabel of the second job, pushed after, still reaches that job's result there."""
    c = os.path.join(tmp, "c.sqlite")
    p = bdb.run(c, "import", os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "fio_json",
                                         "two_jobs_fsync.json"))
    t.eq(p.returncode, 0, "import: " + p.stderr)
    srv.psql("CREATE DATABASE renumbered")
    p = bdb.run(c, "push", srv.url(db="renumbered"))
    t.ok(p.returncode == 0 and p.stderr.startswith("pushed 1 source (1 runs, 2 results)"),
         "push the run of two jobs: %r" % p.stderr)
    for args in (("rm", "--where", "job=syncw"), ("relabel", "--where", "job=rr", "--set",
                                                  "storage_class=nvme")):
        p = bdb.run(c, *args)
        t.eq(p.returncode, 0, "%s: %s" % (args[0], p.stderr))
    p = bdb.run(c, "push", srv.url(db="renumbered"))
    t.ok(p.returncode == 0 and p.stderr.rstrip().endswith("; 1 label change"),
         "the relabel after the rm pushed: %r" % p.stderr)
    got = srv.psql("SELECT job, coalesce(storage_class, '-') FROM result ORDER BY job",
                   db="renumbered").stdout.split()
    t.eq(got, ["rr|nvme", "syncw|-"], "the server's labels: the relabelled job's only")


def wait_for(srv, sql, db, what):
    """Polls sql (one number) on the server until it is not 0."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if srv.psql(sql, db=db).stdout.strip() not in ("", "0"):
            return
        time.sleep(0.02)
    raise RuntimeError("timed out waiting for " + what)


def test_race(srv, a, b):
    """Another host stores one of b's files while b's push starts: b's push waits for the lock
    the other push holds (docs/fleet.md), then finds that file stored and sends the rest."""
    srv.psql("CREATE DATABASE race")
    p = bdb.run(a, "push", srv.url(db="race"))
    t.eq(p.returncode, 0, "push a: " + p.stderr)
    sha = hashlib.sha256(open(fleet.fixture("b-randread-4k.json"), "rb").read()).hexdigest()
    other = subprocess.Popen(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d",
                              srv.url(db="race")], stdin=subprocess.PIPE, text=True,
                             stdout=subprocess.DEVNULL)
    other.stdin.write("BEGIN; SELECT pg_advisory_xact_lock(%s); INSERT INTO source_file (path, "
                      "sha256, format, importer_version, imported_at, size_bytes) VALUES "
                      "('elsewhere', '%s', 'fio-json', '1', '2026-01-01T00:00:00Z', 1);\n"
                      % (PUSH_LOCK, sha))
    other.stdin.flush()
    wait_for(srv, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted", "race",
             "the other host's lock")
    push = subprocess.Popen([bdb.BENCHDB, "--db", b, "push", srv.url(db="race")],
                            stderr=subprocess.PIPE, text=True)
    wait_for(srv, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
             "race", "b's push to wait for the lock")
    other.communicate("COMMIT;\n", timeout=60)
    err = push.communicate(timeout=120)[1]
    t.eq(push.returncode, 0, "b's push: " + err)
    t.ok(err.startswith("pushed 3 sources") and "3 already on the server" in err,
         "b's push leaves out the file stored meanwhile: %r" % err)
    got = srv.psql("SELECT s.path, count(run.id) FROM source_file s LEFT JOIN run ON "
                   "run.source_id = s.id WHERE s.sha256 = '%s' GROUP BY s.path" % sha, db="race")
    t.eq(got.stdout.split(), ["elsewhere|0"], "the file stored meanwhile is the other host's")
    want = fleet.rows_by_source([a, b], "result", "result")
    del want[sha]
    lines = srv.psql(fleet.per_source_sql("result", "result"), db="race").stdout.split()
    t.eq({s: int(n) for s, n in (line.split("|") for line in lines)}, want,
         "every other file whole on the server")


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


ORDINAL_FILES = ["notes/composed.md", "bonnie/disk-x2.csv", "fio_json/two_jobs_fsync.json"]


def test_ordinals(srv, tmp):
    """Each run and result on the server is numbered among its parent's rows in the order of its
    local id (ranks computed here with python's sqlite3), with files of several runs (a note
    quoting three outputs) and of many results per run (bonnie++, two fio jobs)."""
    db = os.path.join(tmp, "ordinals.sqlite")
    fx = os.environ.get("FIXTURES", "tests/fixtures")
    p = bdb.run(db, "import", *[os.path.join(fx, f) for f in ORDINAL_FILES])
    t.eq(p.returncode, 0, "import: " + p.stderr)
    want = []
    with sqlite3.connect(db) as h:
        for source, sha in h.execute("SELECT id, sha256 FROM source_file ORDER BY id").fetchall():
            runs = [r[0] for r in h.execute("SELECT id FROM run WHERE source_id = ? ORDER BY id",
                                            (source,))]
            for run_rank, run in enumerate(runs, 1):
                rows = h.execute("SELECT coalesce(job, '-'), coalesce(direction, '-') FROM "
                                 "result WHERE run_id = ? ORDER BY id", (run,)).fetchall()
                want += ["%s|%d|%d|%s|%s" % (sha, run_rank, rank, job, d)
                         for rank, (job, d) in enumerate(rows, 1)]
    t.ok(len(want) > 2 * len(ORDINAL_FILES), "results to number: %d" % len(want))
    srv.psql("CREATE DATABASE ordinals")
    p = bdb.run(db, "push", srv.url(db="ordinals"))
    t.eq(p.returncode, 0, "push: " + p.stderr)
    got = srv.psql("SELECT s.sha256, run.ordinal, r.ordinal, coalesce(r.job, '-'), "
                   "coalesce(r.direction, '-') FROM result r JOIN run ON run.id = r.run_id JOIN "
                   "source_file s ON s.id = run.source_id", db="ordinals").stdout.split("\n")[:-1]
    t.eq(sorted(got), sorted(want), "the server's ordinals of runs and results")


def test_upgrade(srv, a):
    """A server whose warehouse is of the first two migrations (schema/pg/, applied with psql as
    an older benchdb left them) is upgraded by a push to the number of migrations in schema/pg/,
    and the push then stores the files whole."""
    srv.psql("CREATE DATABASE old")
    migrations = fleet.apply_migrations(srv, "old", 2)
    p = bdb.run(a, "push", srv.url(db="old"))
    t.eq(p.returncode, 0, "push to a server of schema version 2: " + p.stderr)
    got = srv.psql("SELECT value FROM benchdb_meta WHERE key = 'schema_version'", db="old")
    t.eq(got.stdout.strip(), str(migrations), "the server's schema version after the push")
    got = srv.psql("SELECT count(*) FROM pg_indexes WHERE indexname IN ('result_class', "
                   "'result_host')", db="old")
    t.eq(got.stdout.strip(), "0", "the indexes migration 3 drops")
    got = srv.psql("SELECT indexdef FROM pg_indexes WHERE indexname IN ('result_storage_class', "
                   "'run_tool') ORDER BY indexname", db="old")
    t.eq(got.stdout.split("\n")[:-1],
         ["CREATE INDEX result_storage_class ON public.result USING btree (storage_class)",
          "CREATE INDEX run_tool ON public.run USING btree (tool)"],
         "the indexes migration 7 makes for a comparison's selection")
    lines = srv.psql(fleet.per_source_sql("result", "result"), db="old").stdout.split()
    t.eq({s: int(n) for s, n in (line.split("|") for line in lines)},
         fleet.rows_by_source([a], "result", "result"), "results per source after the upgrade")


def test_dictionaries(srv, tmp):
    """256 real dd outputs give dd a compression dictionary (schema/0006_raw_dict.sql); pushed,
    the server holds it once (also after a second host's copy of it is pushed), and every
    source's bytes, read with psql, decode against the server's dictionary (by the zstd
    program) to the bytes of the file (python's sha256)."""
    d = os.path.join(tmp, "dd")
    os.makedirs(d)
    files = bdb.dd_outputs(d, 256)
    one, other = os.path.join(tmp, "dd1.sqlite"), os.path.join(tmp, "dd2.sqlite")
    t.eq(bdb.call(one, "import", *files)[0], 0, "import of 256 dd outputs")
    t.eq(bdb.call(other, "import", *files[:255])[0], 0, "the second host: 255 of them")
    t.eq(bdb.call(other, "merge", one)[0], 0, "and a merge of the first host's")
    (local,) = bdb.sql_rows(one, "SELECT sha256 FROM raw_dict")
    srv.psql("CREATE DATABASE dicts")
    for db in (one, other, one):
        p = bdb.run(db, "push", srv.url(db="dicts"))
        t.eq(p.returncode, 0, "push of %s: %s" % (os.path.basename(db), p.stderr))
    got = srv.psql("SELECT format || '|' || sha256 FROM raw_dict", db="dicts").stdout.split()
    t.eq(got, ["dd|" + local[0]], "the server's dictionaries: dd's, once")
    rows = srv.psql("SELECT s.sha256, encode(s.raw, 'hex'), coalesce(s.raw_codec, ''), "
                    "coalesce(encode(d.bytes, 'hex'), '') FROM source_file s LEFT JOIN raw_dict "
                    "d ON d.id = s.raw_dict", db="dicts").stdout.split()
    by_dict = sum(1 for r in rows if r.split("|")[3])
    t.eq(by_dict, bdb.sql_rows(one, "SELECT count(*) FROM source_file WHERE raw_dict IS NOT "
                                    "NULL")[0][0], "sources stored against it on the server")
    bad = []
    for row in rows:
        sha, raw, codec, dictionary = row.split("|")
        try:
            data = bdb.decode(bytes.fromhex(raw), codec or None,
                              bytes.fromhex(dictionary) if dictionary else None)
        except subprocess.CalledProcessError:
            data = None
        if data is None or hashlib.sha256(data).hexdigest() != sha:
            bad.append(sha)
    t.eq((len(rows), bad), (256, []), "every source on the server decodes to its file's bytes")


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-fleet-") as tmp, pg.server(PORT) as srv:
        a, b = fleet.make_hosts(tmp, t)
        test_push_twice(srv, a, b)
        test_relabel(srv, a)
        test_race(srv, a, b)
        test_relabel_after_rm(srv, tmp)
        test_errors(srv, a, tmp)
        test_upgrade(srv, a)
        test_ordinals(srv, tmp)
        test_dictionaries(srv, tmp)
    return t.done()


sys.exit(main())
