#!/usr/bin/python3
"""Importer contract battery: every real fixture (tests/fixtures/*/*) is damaged in the ways
real files get damaged (empty, truncated at each 10 %, CRLF, UTF-8 BOM, NUL byte, a 400-digit
number, a duplicated JSON key, two documents back to back, one 100 MB line) and imported with
its own importer. Each import must end with exit 0, or exit 1 and a located
`path:line[:col]: error:` on stderr; never a crash, a hang (60 s), or a sanitizer report. A
failed import must leave the database as it was (source_file and result counts)."""
import concurrent.futures, contextlib, glob, os, re, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ["BENCHDB"]
FIX = os.environ["FIXTURES"]
TIMEOUT = 60
t = Checks("battery")


def run(*args):
    try:
        p = subprocess.run([BENCHDB, *args], capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "", ""
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def counts(db):
    """Stored files and results, read with Python's own sqlite3 (one benchdb start less per
    variant, and a reading independent of the code under test)."""
    if not os.path.exists(db):
        return "0,0"
    try:
        with contextlib.closing(sqlite3.connect(db)) as c:
            row = c.execute("SELECT (SELECT count(*) FROM source_file), "
                            "(SELECT count(*) FROM result)").fetchone()
    except sqlite3.Error:
        return None
    return "%d,%d" % row


def detect(path):
    """The importer the fixture is meant for, from benchdb's own detection of the intact file
    (the point here is how that importer copes with damage, not detection)."""
    rc, out, err = run("import", "--dry-run", path)
    m = re.search(r": format (\S+)$", out, re.M)
    return m.group(1) if m else None


def check_import(db, path, fmt, what):
    """One import of a damaged file; returns what broke the contract ("" when kept)."""
    before = counts(db)
    args = ["--db", db, "import"] + (["--format", fmt] if fmt else []) + [path]
    rc, out, err = run(*args)
    bad = []
    if rc is None:
        return "%s: hang (no exit within %d s)" % (what, TIMEOUT)
    if "runtime error" in err or "AddressSanitizer" in err or "LeakSanitizer" in err:
        bad.append("%s: sanitizer report: %s" % (what, err[-2000:]))
    if rc not in (0, 1):
        bad.append("%s: exit %d (want 0 or 1): %s" % (what, rc, err[-500:]))
    if rc == 1:
        located = re.compile(r"^%s:\d+(:\d+)?: error: " % re.escape(path), re.M)
        if not located.search(err):
            bad.append("%s: exit 1 without a located error: %r" % (what, err[-500:]))
        after = counts(db)
        if after != before:
            bad.append("%s: failed import changed the database: %s -> %s" % (what, before, after))
    return "; ".join(bad)


def number_spliced(data):
    runs = list(re.finditer(rb"\d+", data))
    if not runs:
        return None
    m = runs[len(runs) // 2]
    return data[:m.start()] + b"9" * 400 + data[m.end():]


def duplicate_key(data):
    """Repeats the middle `"key": value,` pair with a different value right after itself."""
    pairs = list(re.finditer(rb'("[^"\n]+")\s*:\s*(-?\d[\d.eE+-]*|"[^"\n]*")\s*,', data))
    if not pairs:
        return None
    m = pairs[len(pairs) // 2]
    return data[:m.end()] + b" " + m.group(1) + b" : 12345," + data[m.end():]


def variants(data):
    n = len(data)
    for pct in range(10, 100, 10):
        yield "truncated at %d%%" % pct, data[:n * pct // 100]
    yield "CRLF", data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    yield "UTF-8 BOM", b"\xef\xbb\xbf" + data
    yield "NUL byte", data[:n // 2] + b"\0" + data[n // 2:]
    yield "400-digit number", number_spliced(data)
    if data.lstrip().startswith(b"{"):
        yield "duplicate key", duplicate_key(data)
    yield "two documents", data + (b"" if data.endswith(b"\n") else b"\n") + data


def battery(fixture, tmp):
    fmt = detect(fixture)
    name = os.path.relpath(fixture, FIX)
    if not fmt:
        return ["%s: intact fixture not recognised" % name]
    db = os.path.join(tmp, name.replace("/", "_") + ".sqlite")
    data = open(fixture, "rb").read()
    bad = []
    for i, (what, damaged) in enumerate(variants(data)):
        if damaged is None:
            continue
        path = os.path.join(tmp, "%s.%d%s" % (name.replace("/", "_"), i,
                                              os.path.splitext(fixture)[1]))
        with open(path, "wb") as f:
            f.write(damaged)
        bad.append(check_import(db, path, fmt, "%s (%s, %s)" % (name, fmt, what)))
    return bad


def main():
    fixtures = sorted(p for p in glob.glob(os.path.join(FIX, "*", "*"))
                      if os.path.isfile(p) and not p.endswith((".md", ".sh", ".sqlite")))
    with tempfile.TemporaryDirectory() as tmp:
        # empty input, detected and forced to every importer
        empty = os.path.join(tmp, "empty.txt")
        open(empty, "wb").close()
        db = os.path.join(tmp, "empty.sqlite")
        rc, out, err = run("formats")
        names = [line.split()[0] for line in out.splitlines() if line.strip()]
        t.ok(len(names) >= 5, "benchdb formats lists the importers: %r" % out)
        for fmt in [None] + names:
            rc, out, err = run("--db", db, "import", *(["--format", fmt] if fmt else []), empty)
            t.eq(rc, 1, "empty file with --format %s: exit status" % fmt)
            t.ok(re.search(r"^%s:1(:\d+)?: error: " % re.escape(empty), err, re.M),
                 "empty file with --format %s: located error: %r" % (fmt, err))
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            for bad in pool.map(lambda f: battery(f, tmp), fixtures):
                for b in bad:
                    t.ok(not b, b)
        # one 100 MB line, once: a fio JSON file whose job name is 100 MB long
        src = open(os.path.join(FIX, "fio_json", "two_jobs_fsync.json"), "rb").read()
        big = os.path.join(tmp, "long_line.json")
        with open(big, "wb") as f:
            i = src.index(b'"jobname"')
            j = src.index(b",", i)
            f.write(src[:i] + b'"jobname" : "' + b"x" * (100 << 20) + b'"' + src[j:])
        b = check_import(os.path.join(tmp, "big.sqlite"), big, None, "100 MB line")
        t.ok(not b, b)
        long_text = os.path.join(tmp, "long_line.txt")
        with open(long_text, "wb") as f:
            f.write(b"x" * (100 << 20) + b"\n")
        b = check_import(os.path.join(tmp, "big.sqlite"), long_text, None, "100 MB line of text")
        t.ok(not b, b)
    return t.done()


sys.exit(main())
