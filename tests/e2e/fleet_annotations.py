"""fleet_annotations.py: `benchdb --db postgresql://... trend --publish` stores the change points
of the fleet's series in the server's table change_point, read through v_annotation as a
Grafana PostgreSQL data source's annotation query reads it (time, timeend, text, tags as one
comma-separated string).

The series are trend_watch.py's (copies of a real fio run, one night apart, with planted
steps); the expected change points come from tests/tools/changepoint_ref.py on the values
written, as there. Checked on a real server (tests/tools/pg.py):
- every change point is a row, at its run's start, with its direction, metric and storage
  class as tags, and the role docs/fleet.md grants reading may read them;
- publishing again changes nothing; a publish limited by --where replaces the rows of the
  series it read (a stale row of theirs goes) and leaves the others';
- a role without the grant is refused with nothing changed, and --publish without a server
  or with --since is a usage error. Skipped (77) without PostgreSQL."""
import os
import random
import re
import sys
import tempfile
from datetime import datetime, timezone

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
import bdb  # noqa: E402
import pg  # noqa: E402
import trend_watch as tw  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("fleet_annotations")
PORT = 55481
SRC = os.environ.get("SRCDIR") or os.path.join(os.path.dirname(__file__), "..", "..")
ROWS = "SELECT extract(epoch FROM time)::bigint, extract(epoch FROM timeend)::bigint, tags, text " \
       "FROM v_annotation ORDER BY time, tags"


def publish_grant():
    """docs/fleet.md's grant that lets the hosts' role publish (its last sql block)."""
    text = open(os.path.join(SRC, "docs", "fleet.md")).read()
    return re.findall(r"```sql\n(.*?)```", text, re.S)[-1]


def epoch(iso):
    return int(datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
               .timestamp())


def rows(srv, user=pg.SUPERUSER):
    out = srv.psql(ROWS, user=user, db="bench").stdout.splitlines()
    return [tuple(line.split("|", 3)) for line in out]


def want_rows(data, classes):
    """(time, timeend, sorted tags, class) of the reference's change points of classes."""
    return sorted((epoch(w[2]), epoch(w[2]), ",".join(sorted(
        ["benchdb", w[5], "metric:" + w[1], "storage_class:" + w[0]])), w[0])
        for w in tw.expected(data, tw.START) if w[0] in classes)


def got_rows(srv, user=pg.SUPERUSER):
    out = []
    for start, end, tags, _ in rows(srv, user):
        cls = next(x[len("storage_class:"):] for x in tags.split(",")
                   if x.startswith("storage_class:"))
        out.append((int(start), int(end), ",".join(sorted(tags.split(","))), cls))
    return sorted(out)


def main():
    pg.skip_without_server()
    rng = random.Random(20261203)
    with tempfile.TemporaryDirectory(prefix="bdb-annot-") as tmp, pg.server(PORT) as srv:
        db = os.path.join(tmp, "local.sqlite")
        data = {}
        for cls, plan in tw.PLAN.items():
            v = tw.values(rng, plan)
            files = tw.derive(tmp, cls, v)
            p = bdb.run(db, "import", "--storage-class", cls, *[f for f, _ in files])
            t.eq(p.returncode, 0, "import " + p.stderr)
            data[cls] = (v, files)
        srv.psql("CREATE DATABASE bench")
        url = srv.url(db="bench")
        p = bdb.run(db, "push", url)
        t.eq(p.returncode, 0, "push: " + p.stderr)

        p = tw.trend(url, "--publish", "--format", "annotations")
        t.eq(p.returncode, 0, "trend --publish: " + p.stderr)
        want = want_rows(data, tw.PLAN)
        t.ok(len(want) >= 4, "the planted steps give change points (%d)" % len(want))
        t.eq(got_rows(srv), want, "v_annotation: each change point at its run's start, tagged")
        texts = sorted(r[3] for r in rows(srv))
        t.eq(texts, sorted(a["text"] for a in __import__("json").loads(p.stdout)),
             "the texts are the annotations trend prints")
        srv.psql("CREATE ROLE bench_read LOGIN; GRANT USAGE ON SCHEMA public TO bench_read; "
                 "GRANT SELECT ON ALL TABLES IN SCHEMA public TO bench_read", db="bench")
        t.eq(got_rows(srv, "bench_read"), want, "the reading role reads v_annotation")

        p = tw.trend(url, "--publish")
        t.eq((p.returncode, got_rows(srv)), (0, want), "publishing again changes nothing")

        step = next(r[0] for r in rows(srv) if "storage_class:step" in r[2])
        series = srv.psql("SELECT series FROM change_point WHERE tags @> '{storage_class:step}' "
                          "LIMIT 1", db="bench").stdout.strip()
        srv.psql("INSERT INTO change_point (series, time, text, tags) VALUES ('%s', "
                 "to_timestamp(0), 'undone', '{benchdb}')" % series.replace("'", "''"), db="bench")
        p = tw.trend(url, "--publish", "--where", "storage-class=step")
        t.eq(p.returncode, 0, "--publish --where: " + p.stderr)
        t.eq(got_rows(srv), want, "the stale row of a series read is gone, the others' kept")
        t.ok(int(step) > 0, "a step change point is there")

        srv.psql("CREATE ROLE bench_push LOGIN; GRANT USAGE ON SCHEMA public TO bench_push; "
                 "GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO bench_push", db="bench")
        p = tw.trend(srv.url("bench_push", "bench"), "--publish")
        t.ok(p.returncode == 3 and "permission denied for table change_point" in p.stderr,
             "without the grant: refused (%d) %r" % (p.returncode, p.stderr))
        t.eq(got_rows(srv), want, "a refused publish changes nothing")
        srv.psql(publish_grant(), db="bench")
        p = tw.trend(srv.url("bench_push", "bench"), "--publish")
        t.eq((p.returncode, got_rows(srv)), (0, want), "with docs/fleet.md's grant: published")

        p = tw.trend(db, "--publish")
        t.ok(p.returncode == 2 and "--db postgresql://" in p.stderr,
             "--publish on a local warehouse: usage error %r" % p.stderr)
        p = tw.trend(url, "--publish", "--since", "2026-01-20")
        t.ok(p.returncode == 2 and "no --since or --until" in p.stderr,
             "--publish --since: usage error %r" % p.stderr)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
