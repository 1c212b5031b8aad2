"""Truncated input never stores a different number.

Every fixture under tests/fixtures/<dir>/ (every importer's) is cut at each 10 % of its size
(10 % ... 90 %) and the cut copy imported, with the format the whole file was imported as. The
import of a cut copy must either
- fail with a located error: `NAME:LINE:` in stderr, nothing stored; or
- succeed with every value it stores equal to the value of the same result (same job,
  direction, host, peer and part) imported from the whole file. A value left unknown is no
  different number; an error code is (0 stored for a run that failed).
A fixture is skipped when the whole file is rejected: it is one that is meant to be (a tool's
failure output), and a cut copy of it has nothing to compare with. The expected values are the
whole file's import, not benchdb's output for the cut copy.

benchdb imports each file of an import in a transaction of its own, so few imports do: all the
whole files with one `benchdb import` into one warehouse, then the cut copies of all fixtures
of one format with one more into a fresh one (and one more for a copy with the same content as
another's, which benchdb would skip as stored); stored results are told apart by their source.
That import's exit status must be 1 when a copy is rejected, else 0. When it crashes or hangs,
each fixture's cut copies are imported again with one import of their own, which names the
fixture (and its exit status must be 0 or 1).

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
NOT_INPUTS = {"COMMANDS.md", "gen.sh", "README.md"}  # the fixtures' provenance, not output
CUTS = [k / 10 for k in range(1, 10)]
# Fields that name the copy or the import, not the result's values.
NOT_VALUES = {"result_id", "run_id", "source", "sha256", "imported_at", "line_first", "line_last"}
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


def by_source(rows):
    """{source path: its exported rows}."""
    out = {}
    for r in rows:
        out.setdefault(r["source"], []).append(r)
    return out


def import_whole(paths):
    """{fixture: (the format it imported as, its rows), or None when the whole file is rejected}:
    every fixture imported with one `benchdb import` into one fresh warehouse; a fixture it
    neither imported nor rejected with an error (the same content as another fixture, or one
    after a crash) is imported again alone."""
    with tempfile.TemporaryDirectory(prefix="bdb-trunc-") as tmp:
        rc, err, copies, rows = import_copies(
            [(os.path.basename(p), open(p, "rb").read()) for p in paths], None, tmp)
    rows = by_source(rows)
    outcome = {}
    for path, copy in zip(paths, copies):
        m = re.search(r"(^|\n)%s: %s" % (re.escape(copy), IMPORTED_AS.pattern), err)
        error = re.search(r"(^|\n)%s:[^\n]*error: " % re.escape(copy), err)
        if m and not error:
            outcome[path] = m.group(2), rows.get(copy, [])
        elif error:
            outcome[path] = None
        else:
            with tempfile.TemporaryDirectory(prefix="bdb-trunc-") as tmp:
                rc, err1, _, rows1 = import_copies([(os.path.basename(path),
                                                     open(path, "rb").read())], None, tmp)
            m = IMPORTED_AS.search(err1)
            outcome[path] = (m.group(1), rows1) if rc == 0 and m else None
    return outcome


def distinct(copies):
    """copies ((fixture, what, name, bytes)) in as few lists as keep equal contents apart
    (benchdb skips a content already stored: cuts of two fixtures can be equal)."""
    lists, seen = [], []
    for c in copies:
        k = next((k for k, contents in enumerate(seen) if c[3] not in contents), len(lists))
        if k == len(lists):
            lists.append([])
            seen.append(set())
        lists[k].append(c)
        seen[k].add(c[3])
    return lists


def check_cuts(task):
    """task: (format, [(fixture, the whole file's rows)] of fixtures imported whole as format).
    Their cut copies imported with the format, all with one `benchdb import` into one fresh
    warehouse (one more for a copy equal to another): ([(fixture, its failures)], the failures
    of those imports as a whole). When one crashes or hangs, each fixture's cut copies are
    imported again on their own, to name the fixture."""
    fmt, fixtures = task
    copies = []
    for path, _ in fixtures:
        data, name = open(path, "rb").read(), os.path.basename(path)
        fracs = [f for f in CUTS if fmt not in LINE_SERIES or data[int(len(data) * f) - 1] != 10]
        for frac in fracs:
            cut = data[:int(len(data) * frac)]
            copies.append((path, "%s cut at %d%% (%d of %d bytes)" % (
                name, round(frac * 100), len(cut), len(data)), name, cut))
    whole = dict(fixtures)
    failures, bad = {path: [] for path, _ in fixtures}, []
    for batch in distinct(copies):
        with tempfile.TemporaryDirectory(prefix="bdb-trunc-") as tmp:
            rc, err, paths, rows = import_copies([(c[2], c[3]) for c in batch], fmt, tmp)
        what = "%s: the %d cut copies of %d fixtures in one import" % (
            fmt, len(batch), len({c[0] for c in batch}))
        if rc not in (0, 1) and len(fixtures) > 1:
            alone = [check_cuts((fmt, [f])) for f in fixtures]
            return ([f for fs, _ in alone for f in fs],
                    ["%s: %s" % (what, "exit status %d" % rc if rc is not None else err)] +
                    [b for _, bs in alone for b in bs])
        name = os.path.basename(fixtures[0][0])
        if rc is None:
            return [(fixtures[0][0], ["%s: %s" % (name, err)])], []
        if rc not in (0, 1):
            failures[fixtures[0][0]].append("%s: exit status %d" % (name, rc))
        rows, rejected = by_source(rows), False
        for (path, cut_what, _, _), cut_path in zip(batch, paths):
            fs = check_cut(cut_what, cut_path, err, rows.get(cut_path, []), whole[path])
            rejected |= any("rejected" in f or "results stored" in f for f in fs)
            failures[path] += fs
        if rc != (1 if rejected or re.search(r": error: ", err) else 0):
            if len(fixtures) > 1:
                bad.append("%s: exit status %d for these cut copies" % (what, rc))
            else:
                failures[fixtures[0][0]].append("%s: exit status %d for these cut copies" % (
                    name, rc))
    return [(path, failures[path]) for path, _ in fixtures], bad


def main():
    t = Checks("truncation")
    whole = import_whole(list(fixtures()))
    per_importer, tasks = {}, {}
    for path, outcome in whole.items():
        if outcome is None:
            print("skipped %s: the whole file is rejected" % os.path.relpath(path, FIXTURES))
        else:
            tasks.setdefault(outcome[0], []).append((path, outcome[1]))
    # the largest format first: two imports at a time, each parsing on every CPU
    tasks = sorted(tasks.items(), key=lambda kv: -sum(os.path.getsize(p) for p, _ in kv[1]))
    with multiprocessing.Pool(2) as pool:
        outcomes = pool.map(check_cuts, tasks, chunksize=1)
    for (fmt, _), (per_fixture, bad) in zip(tasks, outcomes):
        per_importer[fmt] = per_fixture
        for b in bad:
            t.ok(not b, b)
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
