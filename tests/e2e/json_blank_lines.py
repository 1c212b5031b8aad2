#!/usr/bin/python3
"""One rule of what a blank is in fio's JSON (issue 29, item 8): cJSON passes every byte up to
' ' between tokens (\\x0b, \\x0c, \\x01, NUL ...), and so did fastjson, but the scan that finds
each job's lines when cJSON parsed the document (a string with an escape: fastjson leaves it to
cJSON) took only " \\t\\r\\n" as blanks before the colon of "jobs": with "jobs"\\x0b: it found no
job, and an error in the second job was reported at the document's first line instead of the
job's. A document cut short and followed by such blanks was 'invalid JSON' instead of truncated.

Input: a real fio run (tests/fixtures/fio_json/two_jobs_fsync.json) with blanks \\x0b, \\x0c,
\\x01 and \\x1f put before the colon of "jobs" and of other members, and the second job's
bw_bytes made negative; once as it is (fastjson parses it) and once with the escape '\\/' in
its "time" string (cJSON parses it). The expected line of the error, that of the second job's
'{', is computed here from the raw bytes. Env: BENCHDB, FIXTURES."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ.get("BENCHDB", "benchdb")
FIXTURE = os.path.join(os.environ["FIXTURES"], "fio_json", "two_jobs_fsync.json")
t = Checks("json_blank_lines")


def second_job_line(data):
    """The line of the '{' opening the second object of the "jobs" array, found by walking the
    bytes: the array's objects are those opened at depth 2 inside it (no brackets in the
    fixture's strings, checked)."""
    key = re.search(rb'"jobs"[\x00-\x20]*:[\x00-\x20]*\[', data)
    assert key, "the jobs array"
    depth, found = 0, []
    for i in range(key.end(), len(data)):
        c = data[i:i + 1]
        if c in (b"{", b"["):
            if depth == 0 and c == b"{":
                found.append(i)
            depth += 1
        elif c in (b"}", b"]"):
            if depth == 0:
                break
            depth -= 1
    assert len(found) == 2, "two jobs"
    return data.count(b"\n", 0, found[1]) + 1


def variant(raw, escape):
    data = raw.replace(b'"jobs" :', b'"jobs"\x0b:', 1)
    data = data.replace(b'"fio version" :', b'"fio version"\x0c\x01:', 1)
    data = data.replace(b'"timestamp" :', b'"timestamp"\x1f :', 1)
    if escape:
        data = re.sub(rb'("time" : "[^"]*?) ', rb"\1\\/", data, count=1)
    # the second job's first bw_bytes made negative
    jobs = data.index(b'"jobs"')
    second = data.index(b'"jobname"', data.index(b'"jobname"', jobs) + 1)
    at = data.index(b'"bw_bytes" : ', second) + len(b'"bw_bytes" : ')
    return data[:at] + b"-" + data[at:]


def main():
    raw = open(FIXTURE, "rb").read()
    t.ok(b"\\" not in raw, "the fixture has no escape (fastjson parses it)")
    with tempfile.TemporaryDirectory(prefix="bdb-blank-") as tmp:
        for escape in (False, True):
            name = "escaped" if escape else "plain"
            data = variant(raw, escape)
            t.ok((b"\\/" in data) == escape, "%s: escape as intended" % name)
            path = os.path.join(tmp, name + ".json")
            with open(path, "wb") as f:
                f.write(data)
            want = "%s:%d: error: expected a non-negative number for 'bw_bytes_s'" % (
                path, second_job_line(data))
            p = subprocess.run([BENCHDB, "--db", os.path.join(tmp, "w.sqlite"), "import", path],
                               capture_output=True, text=True, timeout=120)
            t.eq(p.returncode, 1, "%s: the negative bandwidth rejects the file" % name)
            t.ok(want in p.stderr, "%s: error at the second job's line: want %r, got %r"
                 % (name, want, p.stderr[-400:]))

        # a document cut short, then cJSON's blanks only: truncated, at the end of the file
        data = variant(raw, True)
        cut = data[:data.index(b'"jobs"')] + b"\x0b\x0c\n\x01"
        path = os.path.join(tmp, "cut.json")
        with open(path, "wb") as f:
            f.write(cut)
        line = cut.count(b"\n") + 1
        col = len(cut) - (cut.rindex(b"\n") + 1) + 1
        p = subprocess.run([BENCHDB, "--db", os.path.join(tmp, "w.sqlite"), "import", path],
                           capture_output=True, text=True, timeout=120)
        want = "%s:%d:%d: error: truncated JSON: unexpected end of file" % (path, line, col)
        t.ok(want in p.stderr, "cut: want %r, got %r" % (want, p.stderr[-400:]))
    return t.done()


sys.exit(main())
