#!/usr/bin/python3
"""--since/--until on runs, export and report (issue 15 item 5). The series is derived from a
real fio run (tests/fixtures/disk_tmpfs/*/randread-1.json): copies whose "timestamp" (the run's start, Unix
seconds, which is all benchdb reads of the time) is set here around a day's edges, plus a real
dd output, which has no start time. Which runs a range keeps is worked out here with python's
datetime, never read from benchdb. Env: BENCHDB, FIXTURES, SRCDIR."""
import csv
import io
import json
import os
import re
import sys
from datetime import datetime, timezone

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.environ.get("FIXTURES") or os.path.join(HERE, "..", "fixtures")
DD = os.path.join(FIX, "dd", "gnu-default.txt")
t = Checks("dates")

STARTS = ["2026-02-28T23:30:00+00:00", "2026-03-01T00:00:00+00:00", "2026-03-01T13:29:59+00:00",
          "2026-03-01T13:30:00+00:00", "2026-03-01T23:59:59+00:00", "2026-03-02T00:00:00+00:00"]


def unix(iso):
    return int(datetime.fromisoformat(iso).timestamp())


def derive(tmp, cls):
    """One copy of cls's real randread-1.json per start time; returns {path: start}."""
    with open(os.path.join(bdb.EXAMPLES, cls, "randread-1.json")) as f:
        doc = json.load(f)
    out = {}
    for i, iso in enumerate(STARTS):
        doc["timestamp"] = unix(iso)
        doc["timestamp_ms"] = unix(iso) * 1000
        path = bdb.write(os.path.join(tmp, "%s-%d.json" % (cls, i)), json.dumps(doc, indent=2))
        out[path] = unix(iso)
    return out


def kept(starts, since=None, until=None):
    """The paths whose start lies in [since, until] (Unix seconds; None: open)."""
    return sorted(p for p, s in starts.items()
                  if s is not None and (since is None or s >= since) and (until is None or s <= until))


def runs_sources(db, *opts):
    p = bdb.run(db, "runs", "--format", "csv", *opts)
    t.eq(p.returncode, 0, "runs %s: %s" % (opts, p.stderr))
    return sorted(row["source"] for row in csv.DictReader(io.StringIO(p.stdout)))


def check_runs(db, starts):
    day_end = unix("2026-03-01T23:59:59+00:00")
    cases = [
        (("--since", "2026-03-01", "--until", "2026-03-01"),
         kept(starts, unix("2026-03-01T00:00:00+00:00"), day_end)),
        (("--since", "2026-03-01T14:30:00+01:00",), kept(starts, unix("2026-03-01T13:30:00+00:00"))),
        (("--until", "2026-03-01T13:29:59.5Z",), kept(starts, None, unix("2026-03-01T13:29:59+00:00"))),
        (("--since", "2026-03-01T13:29:59.5Z",), kept(starts, unix("2026-03-01T13:30:00+00:00"))),
        (("--until", "2026-03-01 08:30-05:00",), kept(starts, None, unix("2026-03-01T13:30:00+00:00"))),
        (("--since", "2026-03-03",), []),
        ((), sorted(starts)),
    ]
    for opts, want in cases:
        t.eq(runs_sources(db, *opts), want, "runs %s" % " ".join(opts))
    t.ok(any(s is None for s in starts.values()), "the dd run has no start time")


def check_export(db, starts):
    since, until = unix("2026-03-01T00:00:00+00:00"), unix("2026-03-01T23:59:59+00:00")
    p = bdb.run(db, "export", "--since", "2026-03-01", "--until", "2026-03-01")
    t.eq(p.returncode, 0, "export exit status " + p.stderr)
    got = sorted(json.loads(line)["source"] for line in p.stdout.splitlines())
    t.eq(got, kept(starts, since, until), "export --since/--until a day")


def check_report(db, starts):
    """The comparison's n is the count of runs of each side inside the range."""
    since = unix("2026-03-01T13:30:00+00:00")
    p = bdb.run(db, "report", "--compare", "disk", "tmpfs", "--since", "2026-03-01T13:30Z")
    t.eq(p.returncode, 0, "report exit status " + p.stderr)
    row = next((ln for ln in p.stdout.splitlines() if "| Bandwidth |" in ln), "")
    n = [int(x) for x in re.findall(r"\(n=(\d+)\)", row)]
    want = [len([s for s in kept(starts, since) if os.path.basename(s).startswith(c)])
            for c in ("disk", "tmpfs")]
    t.eq(n, want, "report's n per side with --since")


def check_usage_errors(db):
    for opts, value in [(("runs", "--since", "2026-02-30"), "2026-02-30"),
                        (("export", "--until", "tomorrow"), "tomorrow"),
                        (("report", "--compare", "disk", "tmpfs", "--since", "2026-03-01T24:00"),
                         "2026-03-01T24:00")]:
        p = bdb.run(db, *opts)
        t.eq(p.returncode, 2, "%s: usage error" % " ".join(opts))
        t.ok(("benchdb %s: error: invalid date '%s' for --%s: " % (opts[0], value, opts[-2][2:]))
             in p.stderr, "%s names the value: %r" % (" ".join(opts), p.stderr))


def main():
    with bdb.temp_db() as db:
        tmp = os.path.dirname(db)
        starts = {}
        for cls in ("disk", "tmpfs"):
            files = derive(tmp, cls)
            p = bdb.run(db, "import", "--storage-class", cls, *files)
            t.eq(p.returncode, 0, "import " + p.stderr)
            starts.update(files)
        p = bdb.run(db, "import", "--storage-class", "disk", DD)
        t.eq(p.returncode, 0, "import dd " + p.stderr)
        starts[DD] = None
        check_runs(db, starts)
        check_export(db, starts)
        check_report(db, starts)
        check_usage_errors(db)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
