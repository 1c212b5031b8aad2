#!/usr/bin/python3
"""Importer contract battery: every real fixture (tests/fixtures/*/*) is damaged in the ways
real files get damaged (empty, truncated at each 10 %, CRLF, UTF-8 BOM, NUL byte, a 400-digit
number, a duplicated JSON key, two documents back to back, one 100 MB line) and imported with
its own importer: the one benchdb detects in the intact file, all fixtures with one
`import --dry-run` (which must not crash either). All damaged copies of one fixture are
imported with one `benchdb import` (each file is its own transaction) into a fresh database;
it must end with exit 1 when a copy failed, else 0, and never with a crash, a hang (60 s), or
a sanitizer report. Then, per copy, read with Python's own sqlite3 and hashlib: a copy stored
under its path must hold its bytes' sha256 and size, a run, and the results stderr says it
imported, and have no error; a copy neither stored under its path nor of a content stored (as
an earlier copy's) failed, and must have a located `path:line[:col]: error:` on stderr and no
`imported` line there. A failed copy must leave nothing: the database has as many source files
as copies stored, as many results as those have, no row a foreign key leaves dangling, and
passes PRAGMA integrity_check. When that one import crashes, hangs or reports a sanitizer
error, every copy is imported again alone (exit 0, or exit 1, a located error and the counts
unchanged) to name the culprit. The empty file (detected and forced to every importer) and
the 100 MB lines are imported one file per process."""
import concurrent.futures, contextlib, glob, hashlib, os, re, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ["BENCHDB"]
FIX = os.environ["FIXTURES"]
# A hang is a run that never ends: the limits are far above what the slowest build takes
# (the sanitizer build, two tests at once), so that a slow machine is never called a hang.
TIMEOUT = 60
LONG_LINE_TIMEOUT = 1200  # a 100 MB line: 2.5 s in the release build, 10-60x that under ASan
t = Checks("battery")


def run(*args, timeout=TIMEOUT):
    try:
        p = subprocess.run([BENCHDB, *args], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", ""
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def sanitizer_report(err):
    return "runtime error" in err or "AddressSanitizer" in err or "LeakSanitizer" in err


def crashed(rc, err):
    """How one benchdb run broke the contract (a hang, a sanitizer report, an exit status but 0
    or 1), or ""."""
    return ("hang (no exit within %d s)" % TIMEOUT if rc is None else
            "sanitizer report: " + err[-2000:] if sanitizer_report(err) else
            "exit %d (want 0 or 1): %s" % (rc, err[-500:]) if rc not in (0, 1) else "")


def located(path):
    return re.compile(r"^%s:\d+(:\d+)?: error: " % re.escape(path), re.M)


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


def detect(paths):
    """{path: the importer the fixture is meant for, or None}, from benchdb's own detection of
    the intact files (the point here is how that importer copes with damage, not detection):
    one `import --dry-run` of them all, and of each path it names no importer for (the one
    import crashed, say) one more alone. The broken contract of the one import, or ""."""
    def formats(out):
        return {m.group(1): m.group(2) for m in re.finditer(r"^(.*): format (\S+)$", out, re.M)}

    rc, out, err = run("import", "--dry-run", *paths)
    found = formats(out)
    bad = crashed(rc, err)
    for path in paths:
        if path not in found:
            found[path] = formats(run("import", "--dry-run", path)[1]).get(path)
    return found, bad and "import --dry-run of the intact fixtures: " + bad


def check_import(db, path, fmt, what, timeout=TIMEOUT):
    """One import of a damaged file; returns what broke the contract ("" when kept)."""
    before = counts(db)
    args = ["--db", db, "import"] + (["--format", fmt] if fmt else []) + [path]
    rc, out, err = run(*args, timeout=timeout)
    bad = []
    if rc is None:
        return "%s: hang (no exit within %d s)" % (what, timeout)
    if sanitizer_report(err):
        bad.append("%s: sanitizer report: %s" % (what, err[-2000:]))
    if rc not in (0, 1):
        bad.append("%s: exit %d (want 0 or 1): %s" % (what, rc, err[-500:]))
    if rc == 1:
        if not located(path).search(err):
            bad.append("%s: exit 1 without a located error: %r" % (what, err[-500:]))
        after = counts(db)
        if after != before:
            bad.append("%s: failed import changed the database: %s -> %s" % (what, before, after))
    return "; ".join(bad)


def stored(db):
    """{path: (sha256, size, runs, results)} of every stored file, the number of stored files
    and of results, the rows a foreign key leaves dangling and PRAGMA integrity_check's answer:
    read with Python's own sqlite3."""
    with contextlib.closing(sqlite3.connect(db)) as c:
        files = {path: rest for path, *rest in c.execute(
            "SELECT path, sha256, size_bytes, "
            "(SELECT count(*) FROM run WHERE run.source_id = s.id), "
            "(SELECT count(*) FROM result JOIN run ON result.run_id = run.id "
            "WHERE run.source_id = s.id) FROM source_file s")}
        n_files, n_results = c.execute("SELECT (SELECT count(*) FROM source_file), "
                                       "(SELECT count(*) FROM result)").fetchone()
        dangling = c.execute("PRAGMA foreign_key_check").fetchall()
        integrity = [r[0] for r in c.execute("PRAGMA integrity_check")]
    return files, n_files, n_results, dangling, integrity


def check_imports(db, copies, fmt, name):
    """All copies ((what, path, bytes)) imported by one `benchdb import` into the fresh
    database db; returns what broke the contract: one string per copy ("" when kept), then one
    per broken rule of the whole import."""
    paths = [path for _, path, _ in copies]
    rc, out, err = run("--db", db, "import", "--format", fmt, *paths)
    label = "%s (%s, all %d damaged copies in one import)" % (name, fmt, len(copies))
    crash = crashed(rc, err)
    if crash:  # name the culprit: each copy alone, as many imports into one fresh database
        one = db + ".one-by-one"
        return ["%s: %s" % (label, crash)] + [
            check_import(one, path, fmt, "%s (%s, %s, imported alone)" % (name, fmt, what))
            for what, path, _ in copies]
    try:
        files, n_files, n_results, dangling, integrity = stored(db)
    except sqlite3.Error as e:
        return ["%s: database unreadable: %s" % (label, e)]
    imported = {m.group(1): int(m.group(2)) for m in re.finditer(
        r"^(.*): imported (\d+) results? \(", err, re.M)}
    stored_sha = {f[0] for f in files.values()}
    bad, failed, want_results = [], 0, 0
    for what, path, data in copies:
        what, sha, wrong = "%s (%s, %s)" % (name, fmt, what), hashlib.sha256(data).hexdigest(), []
        error = located(path).search(err)
        if path in files:
            got_sha, size, runs, results = files[path]
            want_results += results
            if (got_sha, size) != (sha, len(data)):
                wrong.append("stored as sha256 %s, %d bytes: not its content" % (got_sha, size))
            if runs < 1:
                wrong.append("stored without a run")
            if imported.get(path) != results:
                wrong.append("stderr says %r results imported, the database has %d" % (
                    imported.get(path), results))
            if error:
                wrong.append("stored, yet a located error: %r" % error.group(0))
        elif sha in stored_sha:  # the same content as a stored copy: skipped
            if error:
                wrong.append("its content is stored, yet a located error: %r" % error.group(0))
        else:
            failed += 1
            if not error:
                wrong.append("failed without a located error: %r" % err[-500:])
            if path in imported:
                wrong.append("failed, yet stderr says %d results imported" % imported[path])
        bad.append("; ".join("%s: %s" % (what, w) for w in wrong))
    stored_copies = sum(path in files for path in paths)
    if n_files != stored_copies:
        bad.append("%s: %d source files for %d stored copies (a failed one left a row?)" % (
            label, n_files, stored_copies))
    if n_results != want_results:
        bad.append("%s: %d results, the stored copies have %d (rows of a failed one?)" % (
            label, n_results, want_results))
    if dangling:
        bad.append("%s: rows whose foreign key is dangling: %r" % (label, dangling[:10]))
    if integrity != ["ok"]:
        bad.append("%s: PRAGMA integrity_check: %r" % (label, integrity[:10]))
    if rc != (1 if failed else 0):
        bad.append("%s: exit %d with %d copies failed: %s" % (label, rc, failed, err[-500:]))
    return bad


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


def battery(fixture, fmt, tmp):
    name = os.path.relpath(fixture, FIX)
    if not fmt:
        return ["%s: intact fixture not recognised" % name]
    db = os.path.join(tmp, name.replace("/", "_") + ".sqlite")
    data = open(fixture, "rb").read()
    copies = []
    for i, (what, damaged) in enumerate(variants(data)):
        if damaged is None:
            continue
        path = os.path.join(tmp, "%s.%d%s" % (name.replace("/", "_"), i,
                                              os.path.splitext(fixture)[1]))
        with open(path, "wb") as f:
            f.write(damaged)
        copies.append((what, path, damaged))
    return check_imports(db, copies, fmt, name)


def main():
    # every benchmark output of the fixtures: not their notes, scripts, warehouses, fio job
    # files (inputs) or sidecars (read beside an output, never imported alone)
    skip = (".md", ".sh", ".sqlite", ".fio", ".meta")
    fixtures = sorted(p for p in glob.glob(os.path.join(FIX, "*", "*"))
                      if os.path.isfile(p) and not p.endswith(skip))
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
        formats, bad = detect(fixtures)
        t.ok(not bad, bad)
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            for bad in pool.map(lambda f: battery(f, formats[f], tmp), fixtures):
                for b in bad:
                    t.ok(not b, b)
        # one 100 MB line, once: a fio JSON file whose job name is 100 MB long
        src = open(os.path.join(FIX, "fio_json", "two_jobs_fsync.json"), "rb").read()
        big = os.path.join(tmp, "long_line.json")
        with open(big, "wb") as f:
            i = src.index(b'"jobname"')
            j = src.index(b",", i)
            f.write(src[:i] + b'"jobname" : "' + b"x" * (100 << 20) + b'"' + src[j:])
        b = check_import(os.path.join(tmp, "big.sqlite"), big, None, "100 MB line",
                         LONG_LINE_TIMEOUT)
        t.ok(not b, b)
        long_text = os.path.join(tmp, "long_line.txt")
        with open(long_text, "wb") as f:
            f.write(b"x" * (100 << 20) + b"\n")
        b = check_import(os.path.join(tmp, "big.sqlite"), long_text, None, "100 MB line of text",
                         LONG_LINE_TIMEOUT)
        t.ok(not b, b)
    return t.done()


sys.exit(main())
