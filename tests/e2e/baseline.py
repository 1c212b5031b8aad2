"""baseline.py: saved baselines (schema/0004_baseline.sql). A baseline holds the results that
matched when it was saved (read back here with python's sqlite3), is a side of check and report
as baseline:NAME, keeps its results through relabel and reparse, and comes along with merge (mapped onto
the merged warehouse's results by source and job, idempotently; a name saved in both keeps the
one saved here, with a warning). Fixtures: tests/fixtures/check (real fio runs)."""
import csv, glob, io, os, sqlite3, sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("baseline")
FIX = os.path.join(os.environ["FIXTURES"], "check")


def files(name):
    return sorted(glob.glob(os.path.join(FIX, name + "-*.json")))


def load(db, *names):
    for name in names:
        p = bdb.run(db, "import", "--storage-class", name, *files(name))
        t.eq(p.returncode, 0, "import %s: %s" % (name, p.stderr))


def members(db, name):
    """(source file name, job) of baseline name's results, sorted, read with sqlite3."""
    return sorted(bdb.sql_rows(
        db, "SELECT s.path, r.job FROM baseline b JOIN baseline_result br ON br.baseline_id = b.id"
        " JOIN result r ON r.id = br.result_id JOIN run ON run.id = r.run_id"
        " JOIN source_file s ON s.id = run.source_id WHERE b.name = ?", name))


def expected_members(name):
    return sorted((p, "fw") for p in files(name))


def comparison(db, base, cand):
    rc, out, err = bdb.call(db, "report", "--format", "csv", "--compare", base, cand)
    t.eq(rc, 0, "report %s %s: %s" % (base, cand, err.strip()))
    return list(csv.reader(io.StringIO(out)))


def test_save_and_compare(db):
    rc, out, err = bdb.call(db, "baseline", "save", "ref", "--where", "storage_class=fast")
    t.eq((rc, out), (0, "saved baseline 'ref': 3 results\n"), "save: " + err)
    t.eq(members(db, "ref"), expected_members("fast"), "the saved results are fast's")
    rc, out, err = bdb.call(db, "baseline", "list", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    t.eq([(r["name"], r["results"], r["where"]) for r in rows], [("ref", "3", "storage_class=fast")],
         "list")
    rc, out, err = bdb.call(db, "baseline", "save", "dash", "--where", "storage-class=fast")
    t.eq(rc, 0, "--where storage-class= (as --by spells it) is storage_class: " + err)
    t.eq(members(db, "dash"), expected_members("fast"), "the same results")
    bdb.run(db, "baseline", "rm", "dash")
    # the same comparison as fast vs slow: only the side's name differs
    named = comparison(db, "fast", "slow")
    saved = comparison(db, "baseline:ref", "slow")
    t.eq([[c.replace("baseline:ref", "fast") for c in row] for row in saved], named,
         "baseline:ref compares as the results it holds")
    rc_named, out_named, _ = bdb.call(db, "check", "--compare", "fast", "slow")
    rc, out, _ = bdb.call(db, "check", "--compare", "baseline:ref", "slow")
    t.eq((rc, out.replace("baseline:ref", "fast")), (rc_named, out_named), "check baseline:ref")
    t.eq(rc, 1, "slow against the saved fast baseline regresses")


def test_errors(db):
    rc, _, err = bdb.call(db, "baseline", "save", "ref", "--where", "storage_class=slow")
    t.eq(rc, 1, "a saved name is not replaced")
    t.ok("baseline 'ref' exists" in err, "says the name is taken: " + err)
    t.eq(members(db, "ref"), expected_members("fast"), "the saved baseline is unchanged")
    rc, _, err = bdb.call(db, "baseline", "save", "x", "--where", "storage_class=nosuch")
    t.eq(rc, 1, "no results: nothing saved")
    t.eq(bdb.sql_rows(db, "SELECT count(*) FROM baseline WHERE name = 'x'"), [(0,)], "no x")
    rc, _, err = bdb.call(db, "check", "--compare", "baseline:rf", "slow")
    t.eq(rc, 1, "an unknown baseline is rejected")
    t.ok("no saved baseline 'rf'" in err and "saved baselines: 'ref'" in err, err)
    rc, _, err = bdb.call(db, "check", "--compare", "baseline:ref", "slow", "--where", "rw=read")
    t.ok(rc == 1 and "the filters remove all 3 of its results" in err, "filtered out: " + err)


def test_relabel_keeps(db):
    """A baseline is its results, not its filter: relabelled, they stay in it."""
    p = bdb.run(db, "relabel", "--where", "storage_class=fast", "--set", "storage_class=tmpfs")
    t.eq(p.returncode, 0, "relabel: " + p.stderr)
    t.eq(members(db, "ref"), expected_members("fast"), "relabelled results stay in the baseline")
    bdb.run(db, "relabel", "--where", "storage_class=tmpfs", "--set", "storage_class=fast")


def test_reparse_keeps(db):
    """Reparse replaces changed results with new ones: their membership moves with them."""
    old = bdb.sql_rows(db, "SELECT result_id FROM baseline_result ORDER BY result_id")
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE result SET iops = NULL WHERE storage_class = 'fast'")
    con.close()
    rc, out, err = bdb.call(db, "reparse", "--where", "storage_class=fast")
    t.eq(rc, 0, "reparse: " + err)
    t.eq(out.count("metrics 1 added"), 3, "the three damaged sources are re-derived: " + out)
    new = bdb.sql_rows(db, "SELECT result_id FROM baseline_result ORDER BY result_id")
    t.ok(len(new) == 3 and not set(new) & set(old), "members are the new results: %s -> %s"
         % (old, new))
    t.eq(members(db, "ref"), expected_members("fast"), "reparsed results stay in the baseline")
    t.eq(bdb.sql_rows(db, "SELECT count(*) FROM result WHERE iops IS NULL"), [(0,)], "restored")


def test_merge(db):
    with bdb.temp_db("into.sqlite") as into:
        load(into, "slow")  # a source of the other's baseline stored in both: none; others new
        for i in range(2):
            rc, _, err = bdb.call(into, "merge", db)
            t.eq(rc, 0, "merge %d: %s" % (i, err))
            t.ok("baseline" not in err, "merge %d warns about no baseline: %s" % (i, err))
            t.eq(members(into, "ref"), expected_members("fast"), "merged baseline %d" % i)
        t.eq(bdb.sql_rows(into, "SELECT count(*) FROM baseline_result"), [(3,)], "idempotent")
    with bdb.temp_db("both.sqlite") as both:
        load(both, "fast", "slow")  # every source stored in both: members map onto these
        bdb.run(both, "baseline", "save", "ref", "--where", "storage_class=slow")
        rc, _, err = bdb.call(both, "merge", db)
        t.eq(rc, 0, "merge into a warehouse with its own 'ref': " + err)
        t.ok("baseline 'ref' is saved in both warehouses with different results" in err,
             "the clash is a warning: " + err)
        t.eq(members(both, "ref"), expected_members("slow"), "the baseline saved here is kept")
        bdb.run(db, "baseline", "save", "fast-too", "--where", "storage_class=fast")
        rc, _, err = bdb.call(both, "merge", db)
        t.eq(members(both, "fast-too"), expected_members("fast"),
             "a baseline of sources stored in both maps onto the results here")
        bdb.run(db, "baseline", "rm", "fast-too")


def test_rm(db):
    rc, out, err = bdb.call(db, "baseline", "rm", "ref")
    t.eq((rc, out), (0, "removed baseline 'ref'\n"), "rm: " + err)
    t.eq(bdb.sql_rows(db, "SELECT count(*) FROM baseline_result"), [(0,)], "members gone")
    t.eq(bdb.sql_rows(db, "SELECT count(*) FROM result WHERE storage_class = 'fast'"), [(3,)],
         "its results stay")
    rc, _, err = bdb.call(db, "baseline", "rm", "ref")
    t.ok(rc == 1 and "no saved baseline 'ref'" in err, "rm twice: " + err)


with bdb.temp_db() as db:
    load(db, "fast", "slow")
    test_save_and_compare(db)
    test_errors(db)
    test_relabel_keeps(db)
    test_reparse_keeps(db)
    test_merge(db)
    test_rm(db)
sys.exit(t.done())
