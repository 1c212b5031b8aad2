"""Truncated input never stores a different number.

Every fixture under tests/fixtures/<dir>/ (every importer's) is cut at each 10 % of its size
(10 % ... 90 %) and the cut copy imported, with the format the whole file was imported as, into
a fresh warehouse. The import must either
- fail with a located error: exit status 1, `NAME:LINE:` in stderr, nothing stored; or
- succeed with every value it stores equal to the value of the same result (same job,
  direction, host, peer and part) imported from the whole file. A value left unknown is no
  different number; an error code is (0 stored for a run that failed).
A fixture is skipped when the whole file is rejected: it is one that is meant to be (a tool's
failure output), and a cut copy of it has nothing to compare with. The expected values are the
whole file's import, not benchdb's output for the cut copy.

The cut copy keeps the file's name (fio logs tell their kind by it), each in a directory of its
own. Failures are reported per importer; every importer must pass."""
import multiprocessing, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

# Fixtures whose cut copies can store different numbers because no content can tell the cut,
# with why: printed, not counted.
KNOWN_FAILING_FIXTURES = {
    # numjobs=4 without group_reporting, cut between two threads' lines: 2 complete lines, and
    # terse names no job count (no `Starting N processes`, no `jobs=N`; the disk-util entries
    # repeat on every line): nothing tells it from a numjobs=2 run (a cut inside a line fails)
    "jobs/mt_threads.terse",
}
# Formats whose input is a sequence of complete lines with nothing after the last: a copy cut
# right after a newline is a whole log of a shorter run, which no content can tell (a copy cut
# inside a line is rejected).
LINE_SERIES = {"fio-log"}

FIXTURES = os.environ.get("FIXTURES", "tests/fixtures")
NOT_INPUTS = {"COMMANDS.md", "gen.sh"}  # the fixtures' provenance, not benchmark output
CUTS = [k / 10 for k in range(1, 10)]
# Fields that name the copy or the import, not the result's values.
NOT_VALUES = {"result_id", "source", "sha256", "imported_at", "line_first", "line_last"}
IMPORTED_AS = re.compile(r"imported \d+ results? \(([\w+-]+)\)")


def fixtures():
    for d in sorted(os.listdir(FIXTURES)):
        folder = os.path.join(FIXTURES, d)
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if name not in NOT_INPUTS and os.path.isfile(os.path.join(folder, name)):
                yield os.path.join(folder, name)


def identity(row):
    return (row["job"], row["direction"], row["host"], row["peer"], row["tags"].get("part"))


def import_copies(copies, fmt, tmp):
    """Imports each (name, data) of copies, every one a file of its own in a directory of its
    own under tmp, with one `benchdb import` into one fresh warehouse (each file is its own
    transaction): (exit status or None when it hung, stderr, paths, exported rows)."""
    paths = []
    for k, (name, data) in enumerate(copies):
        os.mkdir(os.path.join(tmp, str(k)))
        paths.append(bdb.write(os.path.join(tmp, str(k), name), data))
    db = os.path.join(tmp, "t.sqlite")
    try:
        # a hang, not slowness: the limit is far above any run (a loaded CI machine included)
        p = bdb.run(db, "import", *(["--format", fmt] if fmt else []), *paths, timeout=600)
    except subprocess.TimeoutExpired:
        return None, "benchdb did not finish in 600 s", paths, []
    return p.returncode, p.stderr, paths, bdb.export(db)


def differences(row, whole_rows):
    """What row stores differently from the whole file's result of the same identity ('' when
    one of them matches every value row stores)."""
    same = [w for w in whole_rows if identity(w) == identity(row)]
    if not same:
        return "a result %r the whole file does not have" % (identity(row),)
    best = None
    for w in same:
        diff = []
        for k, v in row.items():
            if k in NOT_VALUES or v is None:
                continue
            if k == "tags":
                diff += ["tag %s=%r (whole: %r)" % (t, x, w["tags"].get(t))
                         for t, x in v.items() if w["tags"].get(t) != x]
            elif w.get(k) != v:
                diff.append("%s=%r (whole: %r)" % (k, v, w.get(k)))
        if not diff:
            return ""
        if best is None or len(diff) < len(best):
            best = diff
    return "%r: %s" % (identity(row), ", ".join(best[:4]))


def check_cut(what, path, err, rows, whole_rows):
    """The failures of one cut copy, imported from path (a list of strings)."""
    stored = [r for r in rows if r["source"] == path]
    if re.search(r"(^|\n)%s: imported " % re.escape(path), err):
        return ["%s: stores %s" % (what, d)
                for d in (differences(r, whole_rows) for r in stored) if d]
    bad = [] if re.search(r"(^|\n)%s:\d+:(\d+:)? error: " % re.escape(path), err) else [
        "no located error in %r" % err.strip()[-300:]]
    bad += ["%d results stored" % len(stored)] if stored else []
    return ["%s: rejected, but %s" % (what, "; ".join(bad))] if bad else []


def check_fixture(path):
    """(importer, fixture, its failures, or None when the whole file is rejected)."""
    data, name = open(path, "rb").read(), os.path.basename(path)
    with tempfile.TemporaryDirectory(prefix="bdb-trunc-") as tmp:
        rc, err, _, whole_rows = import_copies([(name, data)], None, tmp)
    m = IMPORTED_AS.search(err)
    if rc != 0 or not m:
        return None, path, None
    fmt = m.group(1)
    fracs = [f for f in CUTS if fmt not in LINE_SERIES or data[int(len(data) * f) - 1] != 10]
    cuts = [data[:int(len(data) * frac)] for frac in fracs]
    with tempfile.TemporaryDirectory(prefix="bdb-trunc-") as tmp:
        rc, err, paths, rows = import_copies([(name, c) for c in cuts], fmt, tmp)
        if rc is None:
            return fmt, path, ["%s: %s" % (name, err)]
        failures = [] if rc in (0, 1) else ["%s: exit status %d" % (name, rc)]
        for frac, cut, cut_path in zip(fracs, cuts, paths):
            what = "%s cut at %d%% (%d of %d bytes)" % (name, round(frac * 100), len(cut),
                                                        len(data))
            failures += check_cut(what, cut_path, err, rows, whole_rows)
        rejected = any("rejected" in f or "results stored" in f for f in failures)
        if rc != (1 if rejected or re.search(r": error: ", err) else 0):
            failures.append("%s: exit status %d for these cut copies" % (name, rc))
    return fmt, path, failures


def main():
    t = Checks("truncation")
    with multiprocessing.Pool(2) as pool:
        outcomes = pool.map(check_fixture, list(fixtures()), chunksize=1)
    per_importer = {}
    for fmt, path, failures in outcomes:
        if failures is None:
            print("skipped %s: the whole file is rejected" % os.path.relpath(path, FIXTURES))
            continue
        per_importer.setdefault(fmt, []).append((path, failures))
    for fmt in sorted(per_importer):
        for path, fs in per_importer[fmt]:
            name = os.path.relpath(path, FIXTURES)
            if name in KNOWN_FAILING_FIXTURES:
                print("known failing %s: %d cut copies failing%s" % (
                    name, len(fs), "" if fs else "; it now passes: remove it from the list"))
                for f in fs:
                    print("  known: " + f)
                fs.clear()
        failures = [f for _, fs in per_importer[fmt] for f in fs]
        print("%s: %d fixtures, %d cut copies failing" % (
            fmt, len(per_importer[fmt]), len(failures)))
        for path, fs in per_importer[fmt]:
            t.ok(not fs, "%s:\n    %s" % (os.path.relpath(path, FIXTURES), "\n    ".join(fs)))
    t.ok(bool(per_importer), "no fixture imported whole")
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
