"""rm.py: benchdb rm removes the matching results, and the runs and files they leave empty
(everything hanging off them too), records each removal in the label history, lists what it
removed (--dry-run lists and removes nothing), and vacuum gives the space back. Counts are read
with python's sqlite3 and file sizes with os.stat, independently of benchdb. Fixtures:
tests/fixtures/check (real fio runs), tests/fixtures/fio_json/two_jobs_fsync.json; a fio
latency log written here by fio itself for the space."""
import glob, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("rm")
FIX = os.environ["FIXTURES"]
os.environ["SOURCE_DATE_EPOCH"] = "1798761600"  # 2027-01-01T00:00:00Z
WHEN = "2027-01-01T00:00:00Z"
TWO_JOBS = os.path.join(FIX, "fio_json", "two_jobs_fsync.json")


def files(name):
    return sorted(glob.glob(os.path.join(FIX, "check", name + "-*.json")))


def count(db, table, where="1"):
    return bdb.sql_rows(db, "SELECT count(*) FROM %s WHERE %s" % (table, where))[0][0]


def snapshot(db):
    return {tb: count(db, tb) for tb in ("result", "run", "source_file", "tag", "label_history",
                                         "baseline_result")}


def test_dry_run(db):
    before = snapshot(db)
    rc, out, err = bdb.call(db, "rm", "--where", "storage_class=slow", "--dry-run")
    t.eq(rc, 0, "dry run: " + err)
    want = ["would remove 1 of 1 result of '%s' (run %d, with the run and the file)" % (p, r)
            for p, r in bdb.sql_rows(db, "SELECT s.path, run.id FROM run JOIN source_file s ON "
                                     "s.id = run.source_id JOIN result r ON r.run_id = run.id "
                                     "WHERE r.storage_class = 'slow' ORDER BY run.id")]
    t.eq(out.splitlines()[:-1], want, "dry run lists each run")
    t.eq(out.splitlines()[-1], "rm: would remove 3 results, 3 runs and 3 files "
         "(dry run: nothing removed)", "dry run total")
    t.eq(snapshot(db), before, "a dry run changes nothing")


def test_remove(db):
    before = snapshot(db)
    slow_ids = [r[0] for r in bdb.sql_rows(db, "SELECT id FROM result WHERE storage_class = 'slow'"
                                           " ORDER BY id")]
    rc, out, err = bdb.call(db, "rm", "--where", "storage_class=slow")
    t.eq(rc, 0, "rm: " + err)
    t.eq(out.splitlines()[-1], "rm: removed 3 results, 3 runs and 3 files", "total")
    t.eq(count(db, "result", "storage_class = 'slow'"), 0, "slow results gone")
    t.eq(count(db, "result"), before["result"] - 3, "only they")
    t.eq((count(db, "run"), count(db, "source_file")), (before["run"] - 3, before["source_file"] - 3),
         "their runs and files gone")
    t.eq(count(db, "baseline_result"), before["baseline_result"] - 3, "they left the baseline")
    hist = bdb.sql_rows(db, "SELECT result_id, field, old_value, new_value, changed_by, changed_at"
                        " FROM label_history WHERE field = 'removed' ORDER BY result_id")
    user = os.environ.get("USER") or __import__("pwd").getpwuid(os.geteuid()).pw_name
    want = [(i, "removed", "source=%s job=fw direction=write storage_class=slow host=" % p, None,
             user, WHEN) for i, p in zip(slow_ids, files("slow"))]
    t.eq(hist, want, "each removal recorded: who, when, what")
    rc, out, _ = bdb.call(db, "runs", "--history", "--format", "json")
    import json
    rows = json.loads(out)["history"]
    t.eq(sorted(r["result_id"] for r in rows if r["field"] == "removed"), slow_ids,
         "runs --history lists the removals")
    rc, _, err = bdb.call(db, "check", "--compare", "baseline:slow", "fast")
    t.ok(rc == 1 and "baseline 'slow' has no results left" in err, "an emptied baseline: " + err)
    rc, out, err = bdb.call(db, "rm", "--where", "storage_class=slow")
    t.eq((rc, out, err), (1, "", "benchdb rm: error: no result matches the filters: nothing "
                          "removed (see 'benchdb labels')\n"), "nothing left: an error")


def test_partial(db):
    """A run keeps what is not removed."""
    bdb.run(db, "import", "--storage-class", "two", TWO_JOBS)
    run = bdb.sql_rows(db, "SELECT run_id FROM result WHERE storage_class = 'two' LIMIT 1")[0][0]
    rc, out, err = bdb.call(db, "rm", "--where", "storage_class=two", "--where", "job=syncw")
    t.eq(out.splitlines()[0], "removed 1 of 2 results of '%s' (run %d)" % (TWO_JOBS, run),
         "a partial removal keeps the run: " + err)
    t.eq(count(db, "result", "run_id = %d" % run), 1, "one result left in the run")
    t.eq(count(db, "source_file", "path = '%s'" % TWO_JOBS), 1, "the file stays")


def test_dates(db):
    """--since/--until select by the run's start (the fixtures' fio timestamps, read here)."""
    import json
    starts = sorted(json.load(open(p))["timestamp"] for p in files("fast"))
    before = snapshot(db)
    rc, out, _ = bdb.call(db, "rm", "--where", "storage_class=fast", "--until", "@%d" % 0)
    t.eq(rc, 2, "a bad date is a usage error")
    import datetime
    day = lambda ts: datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    rc, out, err = bdb.call(db, "rm", "--where", "storage_class=fast", "--until", day(starts[0] - 1))
    t.eq((rc, out), (1, ""), "before the runs: nothing matches, an error: " + err)
    rc, out, err = bdb.call(db, "rm", "--where", "storage_class=fast", "--since", day(starts[-1]),
                            "--dry-run")
    t.eq(out.splitlines()[-1], "rm: would remove 1 result, 1 run and 1 file (dry run: nothing "
         "removed)", "--since the last run's start: that run only: " + err)
    t.eq(snapshot(db), before, "dated dry runs change nothing")


def test_relabel_history_stays(db):
    bdb.run(db, "relabel", "--where", "storage_class=aa-a", "--set", "tag:x=1")
    bdb.run(db, "rm", "--where", "storage_class=aa-a")
    t.eq(count(db, "label_history", "field = 'tag:x'"), 3, "a removed result's history stays")


def test_vacuum():
    if not shutil.which("fio"):
        return
    with tempfile.TemporaryDirectory(prefix="bdb-rm-") as tmp:
        # on tmpfs (buffered reads from memory): ~100k I/Os a second, one log line each
        data = "--filename=/dev/shm/benchdb-rm-%d.dat" % os.getpid()
        subprocess.run(["fio", "--name=l", data, "--size=4M", "--rw=randread", "--bs=4k",
                        "--runtime=2", "--time_based", "--write_lat_log=" + tmp + "/l",
                        "--output=" + tmp + "/out.txt"], check=True, capture_output=True)
        os.unlink(data.split("=", 1)[1])
        log = os.path.join(tmp, "l_clat.1.log")
        db = os.path.join(tmp, "v.sqlite")
        p = bdb.run(db, "import", "--storage-class", "big", log)
        t.eq(p.returncode, 0, "import the log: " + p.stderr)
        stored = bdb.sql_rows(db, "SELECT coalesce(length(raw), 0) + coalesce((SELECT sum(length("
                              "data)) FROM source_chunk), 0) FROM source_file")[0][0]
        size = os.path.getsize(db)
        bdb.run(db, "rm", "--where", "storage_class=big")
        after_rm = os.path.getsize(db)
        rc, out, _ = bdb.call(db, "vacuum")
        after = os.path.getsize(db)
        t.ok(stored > 100000 and after_rm >= size - 4096, "rm keeps the pages for reuse (%d: %d "
             "-> %d)" % (stored, size, after_rm))
        t.ok(after <= size - stored * 0.9, "vacuum gives the log's %d bytes back: %d -> %d"
             % (stored, size, after))
        t.eq(out, "vacuum: '%s': %d bytes before, %d after\n" % (db, after_rm, after), "vacuum says")
        print("rm: %d-byte log stored in %d bytes; file %d, after rm %d, after vacuum %d"
              % (os.path.getsize(log), stored, size, after_rm, after))


with bdb.temp_db() as db:
    for name in ("fast", "slow", "aa-a"):
        bdb.run(db, "import", "--storage-class", name, *files(name))
    bdb.run(db, "baseline", "save", "both", "--where", "storage_class=fast")
    bdb.run(db, "baseline", "save", "slow", "--where", "storage_class=slow")
    test_dry_run(db)
    test_remove(db)
    test_partial(db)
    test_dates(db)
    test_relabel_history_stays(db)
test_vacuum()
sys.exit(t.done())
