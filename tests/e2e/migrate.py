"""migrate.py: a warehouse written by the release before the wide schema (tests/fixtures/migrate,
schema 1: one `metric` row per value, `latency_bin` and `series_point` rows) is upgraded in
place on first use, read-only commands included, and loses nothing: every metric, bin, point,
tag and history row reads back as schema 1 stored it, through the views that keep schema 1's
names; the standard metrics are columns of result and the others members of metrics_extra;
reparse finds nothing to change but what this release's importers derive differently (see
DERIVED_SINCE_V1); the export equals a warehouse built from the same inputs by this benchdb."""
import json, os, shutil, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("migrate")
FIXTURE = os.path.join(os.environ.get("SRCDIR", "."), "tests", "fixtures", "migrate")


def rows(db, q):
    con = sqlite3.connect(db)
    try:
        return sorted(con.execute(q).fetchall(), key=repr)
    finally:
        con.close()


def schema1_contents(db):
    """What schema 1 stored, read from its own tables before the upgrade."""
    return {
        "metric": rows(db, "SELECT result_id, name, value FROM metric"),
        "latency_bin": rows(db, "SELECT result_id, metric, value_ns, count FROM latency_bin"),
        "series_point": rows(db, "SELECT result_id, metric, t_ms, value FROM series_point"),
        "tag": rows(db, "SELECT result_id, key, value FROM tag"),
        "label_history": rows(db, "SELECT * FROM label_history"),
        "result": rows(db, "SELECT id, run_id, host, storage_class, sec, mount_id, job, "
                           "direction, rw, bs_bytes FROM result"),
    }


def check_columns(db, metric):
    """Each metric is its column when result has one, else a member of metrics_extra."""
    columns = {r[0] for r in rows(db, "SELECT name FROM pragma_table_info('result') "
                                      "WHERE type = 'REAL'")}
    t.ok({"bw_bytes_s", "iops", "clat_p99_ns", "sync_lat_p99_ns"} <= columns,
         "standard metrics are columns: %r" % sorted(columns)[:8])
    extra = {}
    for rid, raw in rows(db, "SELECT id, metrics_extra FROM result "
                             "WHERE metrics_extra IS NOT NULL"):
        extra[rid] = json.loads(raw)
    con = sqlite3.connect(db)
    bad = 0
    in_extra = 0
    for rid, name, value in metric:
        if name in columns:
            got = con.execute("SELECT %s FROM result WHERE id = ?" % name, (rid,)).fetchone()[0]
        else:
            got = extra.get(rid, {}).get(name)
            in_extra += 1
        bad += got != value
    con.close()
    t.eq(bad, 0, "metric values in their columns or metrics_extra")
    t.ok(in_extra > 0, "the fixture has metrics that are not columns (slat percentiles)")
    stray = sum(len(v) for v in extra.values()) - in_extra
    t.eq(stray, 0, "metrics_extra holds only the metrics that have no column")


def check_flavor_constraint(db):
    """0005 rewrote result's flavor CHECK as comparisons: it accepts and refuses what the IN
    list did, and an insert no longer builds a temporary index of the names."""
    con = sqlite3.connect(db)
    try:
        run_id = con.execute("SELECT min(id) FROM run").fetchone()[0]
        accepted = []
        for sec in ("sys", "krb5", "krb5i", "krb5p", "none", None, "bogus", "KRB5", ""):
            try:
                con.execute("SAVEPOINT probe")
                con.execute("INSERT INTO result(run_id, sec) VALUES (?, ?)", (run_id, sec))
                accepted.append(sec)
            except sqlite3.IntegrityError:
                pass
            finally:
                con.execute("ROLLBACK TO probe")
                con.execute("RELEASE probe")
        t.eq(accepted, ["sys", "krb5", "krb5i", "krb5p", "none", None],
             "the flavor check accepts the five flavors and NULL, nothing else")
        plan = [r[1] for r in con.execute("EXPLAIN INSERT INTO result(run_id, sec) VALUES (1, 'sys')")]
        t.ok("OpenEphemeral" not in plan, "an insert builds no temporary index: %r" % plan[:12])
        t.eq(con.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'result_class'")
             .fetchone(), (0,), "the index result_class (a prefix of result_side) is dropped")
    finally:
        con.close()


# What the importers derive differently since schema 1's release, so that reparse reports it:
# iperf3 JSON's host became the machine (start.system_info) with its socket's address kept as
# tag local_address. reparse adds the tag but keeps the stored host, as it keeps every label (a
# label may have been given with --host), so the upgraded warehouse keeps the address as host.
DERIVED_SINCE_V1 = {"iperf/iperf3_tcp.json": "1 tags added",
                    # its dd output is a run of dd's own (schema 1 stored it under fio's run)
                    "notes/composed.md": "run details changed"}


def reparse_expected(line):
    path = line.split(":")[0]
    if path in DERIVED_SINCE_V1:
        return line.endswith(DERIVED_SINCE_V1[path])
    return "unchanged" in line


def export_without_time(db):
    """The export without what differs by when and in which order results were stored: the
    import time, the result ids (reparse stores a changed source's results anew) and the run ids
    (the order the files were imported in)."""
    out = bdb.export(db, t)
    for r in out:
        r.pop("imported_at")
        r.pop("result_id")
        r.pop("run_id")
        if r["source"] in DERIVED_SINCE_V1:
            r.pop("host")  # the label reparse keeps as stored (see DERIVED_SINCE_V1)
    return sorted(out, key=lambda r: json.dumps(r, sort_keys=True))


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-migrate-") as tmp:
        db = os.path.join(tmp, "v1.sqlite")
        shutil.copy(os.path.join(FIXTURE, "v1.sqlite"), db)
        t.eq(rows(db, "PRAGMA user_version"), [(1,)], "the fixture is schema 1")
        before = schema1_contents(db)
        t.ok(all(before[k] for k in ("metric", "latency_bin", "series_point", "label_history")),
             "the fixture has every kind of stored data")

        # merge reads it as it is (attached read-only): it must be upgraded first, and says so
        into = os.path.join(tmp, "into.sqlite")
        code, _, err = bdb.call(into, "import", os.path.join(FIXTURE, "..", "fio_json",
                                                             "status_interval.json"))
        t.eq(code, 0, "a current warehouse: " + err)
        code, _, err = bdb.call(into, "merge", db)
        t.eq(code, 3, "merging a schema 1 warehouse is refused")
        t.ok("has schema version 1 and this warehouse" in err and "upgrade it first" in err,
             "the refusal says why and what to do: " + err)
        t.eq(rows(db, "PRAGMA user_version"), [(1,)], "merge left it as it was")

        # a read-only command upgrades it
        code, out, err = bdb.call(db, "runs")
        t.eq(code, 0, "runs on a schema 1 warehouse: " + err)
        version = rows(db, "PRAGMA user_version")[0][0]
        t.ok(version >= 2, "upgraded to schema %d" % version)
        t.eq(rows(db, "SELECT type FROM sqlite_schema WHERE name = 'metric'"), [("view",)],
             "metric is a view")
        after = schema1_contents(db)
        for k in before:
            t.eq(after[k], before[k], "%s reads back as schema 1 stored it" % k)
        t.eq(rows(db, "SELECT count(*) FROM histogram"),
             rows(db, "SELECT count(*) FROM (SELECT DISTINCT result_id, metric FROM latency_bin)"),
             "one histogram row per result and latency kind")
        check_columns(db, before["metric"])
        check_flavor_constraint(db)
        t.eq(rows(db, "PRAGMA foreign_key_check"), [], "foreign keys hold")
        t.eq(rows(db, "PRAGMA integrity_check"), [("ok",)], "integrity")

        code, out, err = bdb.call(db, "reparse")
        t.eq(code, 0, "reparse after the upgrade: " + err)
        lines = out.splitlines()
        t.ok(lines and all(reparse_expected(line) for line in lines),
             "reparse finds every migrated value as this release derives it: %r" % out[-600:])
        t.eq(sum(any(line.startswith(p + ":") for line in lines) for p in DERIVED_SINCE_V1),
             len(DERIVED_SINCE_V1), "reparse lists every source derived differently")

        code, out, err = bdb.call(into, "merge", db)
        t.eq(code, 0, "once upgraded it merges: " + err)
        t.ok("merged %d sources" % len(rows(db, "SELECT id FROM source_file")) in err + out,
             "every source merged: " + err + out)

        fresh = os.path.join(tmp, "fresh.sqlite")
        p = subprocess.run(["bash", os.path.join(FIXTURE, "gen.sh"), bdb.BENCHDB, fresh],
                           capture_output=True, text=True)
        t.eq(p.returncode, 0, "the same warehouse built by this benchdb: " + p.stderr[-300:])
        t.eq(export_without_time(db), export_without_time(fresh),
             "the upgraded warehouse exports as one built by this release")
        code, out, err = bdb.call(db, "import", os.path.join(FIXTURE, "..", "fio_json",
                                                             "status_interval.json"))
        t.eq(code, 0, "an upgraded warehouse takes new imports: " + err)
    return t.done()


sys.exit(main())
