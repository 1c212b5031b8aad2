"""side_facts.py: the report's facts of each compared side (its result count, hosts, mounts,
NFS flavors, tool versions and dates) against the warehouse read with python's sqlite3: the
distinct values sorted, the dates of the first and last run in UTC. Labels vary within a side
(two hosts, two mounts of different flavors) and --where narrows what is compared."""
import datetime, glob, json, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("side_facts")
FIX = os.environ["FIXTURES"]

def fixture(name):
    return os.path.join(FIX, "fio_json", name)


def expected_fact(db, side, where=""):
    """The fact line of side, computed from the stored rows."""
    rows = bdb.sql_rows(db, "SELECT r.host, m.options, r.sec, run.tool_version, run.started_at, "
                            "EXISTS (SELECT 1 FROM tag WHERE tag.result_id = r.id AND "
                            "tag.key = 'part') "
                            "FROM result r JOIN run ON run.id = r.run_id "
                            "LEFT JOIN mount m ON m.id = r.mount_id "
                            "WHERE r.storage_class = ?" + where, side)
    # a job's threads, clients and attached logs (tagged part) are counted in the job
    jobs = sum(1 for r in rows if not r[5])
    text = "%d result%s" % (jobs, "" if jobs == 1 else "s")
    for k, label in enumerate(("hosts", "mount", "sec", "tool")):
        values = sorted({r[k] for r in rows if r[k] is not None})
        if values:
            text += "; %s: %s" % (label, ",".join(values))
    dates = [r[4] for r in rows if r[4]]
    if dates:
        day = lambda s: datetime.datetime.fromtimestamp(s, datetime.timezone.utc).strftime("%Y-%m-%d")
        text += "; dates: %s to %s" % (day(min(dates)), day(max(dates)))
    return text


def fact_line(md, side, baseline):
    name = side + (" (baseline)" if baseline else "")
    for line in md.splitlines():
        if line.startswith("- **%s:** " % name):
            return line[len("- **%s:** " % name):]
    return None


def main():
    with bdb.temp_db() as db:
        # a file's content is stored once: each import has files of its own
        imports = [("nfs", ["--host", "zeta", "--mount", "rw,vers=4.2,sec=krb5p,hard"],
                    ["two_jobs_fsync.json"]),
                   ("nfs", ["--host", "alpha", "--mount", "rw,vers=3,sec=sys"],
                    ["unified_mixed.json"]),
                   ("local", ["--host", "alpha"], ["escaped_desc.json", "jsonplus_randrw.json"])]
        for cls, opts, names in imports:
            code, _, err = bdb.call(db, "import", "--storage-class", cls, *opts,
                                    *map(fixture, names))
            t.eq(code, 0, "import %s %s: %s" % (cls, opts, err))
        code, md, err = bdb.call(db, "report", "--compare", "nfs", "local")
        t.eq(code, 0, "report: " + err)
        want = expected_fact(db, "nfs")
        t.ok("hosts: alpha,zeta" in want and "sec: krb5p,sys" in want,
             "the nfs side has two hosts and two flavors: " + want)
        t.eq(fact_line(md, "nfs", True), want, "the baseline's fact")
        t.eq(fact_line(md, "local", False), expected_fact(db, "local"), "the candidate's fact")

        # what --where leaves out is not among what was compared
        code, md, err = bdb.call(db, "report", "--compare", "nfs", "local", "--where", "host=alpha")
        t.eq(code, 0, "report --where: " + err)
        t.eq(fact_line(md, "nfs", True), expected_fact(db, "nfs", " AND r.host = 'alpha'"),
             "--where host=alpha: the baseline's fact")

    with bdb.temp_db() as db:
        # the demo's runs with their bandwidth logs: a log attached to its job is a part of it
        runs = [os.path.join(os.environ["SRCDIR"], "examples", s, "run1") for s in
                ("standard", "premium")]
        for run in runs:
            code, _, err = bdb.call(db, "import", *glob.glob(os.path.join(run, "*.json")),
                                    *glob.glob(os.path.join(run, "*.log")))
            t.eq(code, 0, "import %s: %s" % (run, err))
        code, md, err = bdb.call(db, "report", "--compare", "standard", "premium")
        t.eq(code, 0, "report: " + err)
        jobs = len(json.load(open(os.path.join(runs[0], "demo.json")))["jobs"]) + 1  # randrw: 2
        want = expected_fact(db, "standard")
        t.ok(want.startswith("%d results;" % jobs), "the logs are counted in their jobs: " + want)
        t.eq(fact_line(md, "standard", True), want, "the baseline's fact with its attached log")
    return t.done()


sys.exit(main())
