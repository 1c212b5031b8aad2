"""fleet_kill.py: a push killed with SIGKILL midway (after its first batch committed) leaves
only whole files on the server, and the next push completes it. The warehouse holds 3,500 fio
JSON files made by bench/gen.py from the real runs of tests/fixtures/fleet (job names made
unique), so the push takes several batches, each slowed by a trigger of the test's (so that
the push is midway for a while, whatever the machine's speed). Files and results per source
are counted with python's sqlite3 on the local warehouse and psql on the server. The same
warehouse pushed whole by 1 and by 3 workers (batches sent at once) gives the server its
sources, runs and results in the local order (the ids of a batch are taken after those of the
batches before it). A push whose server stops midway fails with clear errors, and the next
one completes it."""
import glob, os, signal, sqlite3, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb, fleet, pg
from checks import Checks

t = Checks("fleet_kill")
PORT = 55433
FILES = 3500


# Each batch's COPY into source_file sleeps (a trigger enabled ALWAYS fires for a push's rows too,
# docs/fleet.md): the push is midway for a while whatever the machine's speed.
SLOW_BATCHES = (
    "CREATE FUNCTION slow_batch() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN PERFORM "
    "pg_sleep(0.2); RETURN NULL; END$$; CREATE TRIGGER slow_batch AFTER INSERT ON source_file "
    "FOR EACH STATEMENT EXECUTE FUNCTION slow_batch(); ALTER TABLE source_file ENABLE ALWAYS "
    "TRIGGER slow_batch")


def slow_warehouse(srv, db):
    """Creates the warehouse schema in db as a push would, with SLOW_BATCHES."""
    fleet.apply_migrations(srv, db)
    srv.psql(SLOW_BATCHES, db=db)


def wait_stored(srv, db, push):
    """Polls until the server holds some of push's files (or push ended)."""
    stored, deadline = 0, time.monotonic() + 120
    while not stored and push.poll() is None and time.monotonic() < deadline:
        stored = int(srv.psql("SELECT count(*) FROM source_file", db=db).stdout)
        time.sleep(0.01)


def server_results(srv, db="postgres"):
    lines = srv.psql("SELECT s.sha256, count(r.id) FROM source_file s LEFT JOIN run ON "
                     "run.source_id = s.id LEFT JOIN result r ON r.run_id = run.id "
                     "GROUP BY s.sha256", db=db).stdout.split()
    return {sha: int(n) for sha, n in (line.split("|") for line in lines)}


def kill_after_first_batch(srv, db):
    """Starts a push and kills it once the server holds some of its files."""
    push = subprocess.Popen([bdb.BENCHDB, "--db", db, "push", srv.url()],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_stored(srv, "postgres", push)
    push.send_signal(signal.SIGKILL)
    push.wait()


def test_server_lost(srv, db, local):
    """The server stopped (immediately) while a push's workers send their batches: the push
    ends with exit status 1 and errors naming the lost connection, nothing else; once the
    server is back, the next push completes it, every file whole."""
    srv.psql("CREATE DATABASE lost")
    slow_warehouse(srv, "lost")
    push = subprocess.Popen([bdb.BENCHDB, "--db", db, "push", "--jobs", "3", srv.url(db="lost")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_stored(srv, "lost", push)
    srv.stop()
    err = push.communicate(timeout=120)[1]
    errors = [line for line in err.splitlines() if not line.startswith("WARNING:")]
    t.ok(push.returncode == 1 and errors and all(
        line.startswith("benchdb push: error: ") and "server closed the connection" in line
        for line in errors), "push whose server stopped: status %d, %r" % (push.returncode, err))
    srv.resume()
    p = bdb.run(db, "push", srv.url(db="lost"))
    t.eq(p.returncode, 0, "push once the server is back: " + p.stderr)
    t.eq(server_results(srv, "lost"), local, "results per file after the server came back")


# each source, run and result in the order of its ids, by what identifies it across warehouses
ORDER_SQL = {"source": "SELECT s.sha256 FROM source_file s ORDER BY s.id",
             "run": "SELECT s.sha256 FROM run JOIN source_file s ON s.id = run.source_id "
                    "ORDER BY run.id",
             "result": "SELECT s.sha256 || ' ' || r.job FROM result r JOIN run ON run.id = "
                       "r.run_id JOIN source_file s ON s.id = run.source_id ORDER BY r.id"}


def test_order(srv, db):
    with sqlite3.connect(db) as h:
        local = {what: [row[0] for row in h.execute(sql)] for what, sql in ORDER_SQL.items()}
    for jobs in ("1", "3"):
        name = "order%s" % jobs
        srv.psql("CREATE DATABASE " + name)
        p = bdb.run(db, "push", "--jobs", jobs, srv.url(db=name))
        t.eq(p.returncode, 0, "push -j %s: %s" % (jobs, p.stderr))
        for what, sql in ORDER_SQL.items():
            got = srv.psql(sql, db=name).stdout.split("\n")[:-1]
            t.ok(got == local[what], "push -j %s: the server's %ss in the local order (%d of %d)"
                 % (jobs, what, len(got), len(local[what])))


def main():
    src = os.environ.get("SRCDIR", ".")
    with tempfile.TemporaryDirectory(prefix="bdb-fleet-") as tmp, pg.server(PORT) as srv:
        files = os.path.join(tmp, "files")
        subprocess.run([sys.executable, os.path.join(src, "bench", "gen.py"), "files", files,
                        str(FILES)] + sorted(glob.glob(fleet.fixture("*-rand*.json"))),
                       check=True)
        db = os.path.join(tmp, "host.sqlite")
        p = bdb.run(db, "import", "--host", "a", "--storage-class", "disk",
                    *sorted(glob.glob(os.path.join(files, "*.json"))))
        t.eq(p.returncode, 0, "import: " + p.stderr[-300:])
        local = fleet.rows_by_source([db], "result", "result")
        t.eq(len(local), FILES, "files imported")
        slow_warehouse(srv, "postgres")
        kill_after_first_batch(srv, db)
        after_kill = server_results(srv)
        t.ok(0 < len(after_kill) < FILES, "killed midway: %d of %d files on the server"
             % (len(after_kill), FILES))
        t.eq({sha: n for sha, n in after_kill.items() if local.get(sha) != n}, {},
             "files on the server after the kill that are not whole")
        p = bdb.run(db, "push", srv.url())
        t.eq(p.returncode, 0, "push after the kill: " + p.stderr)
        t.ok(p.stderr.startswith("pushed %d sources" % (FILES - len(after_kill))),
             "push after the kill sends the rest: %r" % p.stderr)
        t.eq(server_results(srv), local, "results per file after the second push")
        test_order(srv, db)
        test_server_lost(srv, db, local)
    return t.done()


sys.exit(main())
