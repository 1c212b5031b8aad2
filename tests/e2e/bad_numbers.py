"""A value no benchmark can measure (negative, NaN) is rejected with a located error at its
result's line, and nothing of the file is stored (core/record.c record_check, called where
records are stored).

The input is a real fixture with one number changed by this script: one field of one job of a
fio JSON file (json edit). The expected line is found in the edited text here: the line of the
job object's '{' (fio writes its "jobname" on the next line). (fio terse, fio logs, iperf3 JSON
and dd already refuse a negative field where they read it.)"""
import json, os, re, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.environ.get("FIXTURES", "tests/fixtures")
t = Checks("bad_numbers")


def job_line(text, name):
    """The line of the '{' opening the job named name in fio's JSON output."""
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if re.search(r'"jobname"\s*:\s*"%s"' % name, line))
    t.eq(lines[at - 1].strip(), "{", "%s: the job object opens the line before its jobname" % name)
    return at  # 1-based number of the line before


def edited_json(path, job, ddir, field, value):
    """The fio JSON file at path with jobs[job][ddir][field] (a '/'-separated path) set to value,
    laid out again by json.dumps (one key a line, as fio writes it)."""
    doc = json.load(open(path, encoding="utf-8"))
    target = next(j for j in doc["jobs"] if j["jobname"] == job)[ddir]
    keys = field.split("/")
    for k in keys[:-1]:
        target = target[k]
    target[keys[-1]] = value
    return json.dumps(doc, indent=2)


def expect_rejected(name, data, line, metric):
    with tempfile.TemporaryDirectory() as tmp:
        path = bdb.write(os.path.join(tmp, name), data)
        db = os.path.join(tmp, "t.sqlite")
        p = bdb.run(db, "import", path)
        t.eq(p.returncode, 1, "%s (%s): exit status" % (name, metric))
        want = "%s:%d: error: expected a non-negative number for '%s'" % (path, line, metric)
        t.ok(want in p.stderr, "%s: stderr %r lacks %r" % (name, p.stderr.strip(), want))
        t.eq(len(bdb.export(db)), 0, "%s (%s): results stored" % (name, metric))
        dry, _ = bdb.dry_run(path)  # a dry run shows what import would do: the same error
        t.eq(dry.returncode, 1, "%s (%s): dry run's exit status" % (name, metric))
        t.ok(want in dry.stderr, "%s: dry run's stderr %r lacks %r" % (name, dry.stderr, want))


def accepted(name, data):
    with tempfile.TemporaryDirectory() as tmp:
        p = bdb.run(os.path.join(tmp, "t.sqlite"), "import", bdb.write(os.path.join(tmp, name), data))
        return t.eq(p.returncode, 0, "%s as fio wrote it (re-laid out): %s" % (name, p.stderr))


def fio_json():
    src = os.path.join(FIX, "fio_json", "two_jobs_fsync.json")
    relaid = json.dumps(json.load(open(src, encoding="utf-8")), indent=2)
    accepted("two_jobs_fsync.json", relaid)  # the edit alone is what is rejected
    line = job_line(relaid, "rr")
    cases = [("read", "bw_bytes", -1000, "bw_bytes_s"), ("read", "iops", -5.5, "iops"),
             ("read", "runtime", -3, "runtime_ms"), ("read", "io_bytes", -4096, "io_bytes"),
             ("read", "clat_ns/percentile/99.000000", -1, "clat_p99_ns"),
             ("read", "lat_ns/mean", -31494.38, "lat_mean_ns")]
    for ddir, field, value, metric in cases:
        edited = edited_json(src, "rr", ddir, field, value)
        t.eq(job_line(edited, "rr"), line, "%s edit keeps the job's line" % field)
        expect_rejected("two_jobs_fsync.json", edited, line, metric)


fio_json()
sys.exit(t.done())
