"""notes: a results table pasted from a wiki or a spreadsheet, its header's cells separated by
spaces and its rows' by tabs, with a comment column after the figures (seed 003's shape; the
fixture tests/fixtures/notes/mixed-separators.md has it too). The header's words name the label
and value columns one by one, the rest of the line heads the comment; value columns named by a
storage (tmpfs, ext4, CephFS, NFS) are storage classes. A latency without a statistic is stored as
the mean (lat_mean_ns), never as a percentile. A header that does not match its rows' columns
is warned about and names no column (no class, no column tag).

Expected values are read off the raw text here (split at tabs and blanks, units by hand), never
from benchdb's output. Seed 003 (../shared/seeds) is checked when it is there."""
import csv, io, os, re, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIXTURE = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "notes",
                       "mixed-separators.md")
SEEDS = os.path.join(os.environ.get("SRCDIR", "."), "..", "shared", "seeds")
t = Checks("notes_spaced_header", rel=1e-12)

RATE = {"MiB/s": 1 << 20, "KiB/s": 1 << 10, "GiB/s": 1 << 30, "MB/s": 1e6}
TIME_NS = {"ns": 1, "us": 1e3, "ms": 1e6}
METRIC = {"BW": "bw_bytes_s", "IOPS": "iops", "latency": "lat_mean_ns"}


def figure(cell, metric):
    """A typed figure in base units: '16.1 MiB/s' (bytes/s), '2,056' or '139k' (IOPS), '0.395 ms'
    (ns)."""
    if metric == "iops":
        m = re.fullmatch(r"([0-9.,]+)(k?)", cell)
        return float(m.group(1).replace(",", "")) * (1e3 if m.group(2) else 1)
    num, unit = cell.split()
    return float(num) * (RATE if metric == "bw_bytes_s" else TIME_NS)[unit]


def typed_table(text):
    """(header line number, the column names, {(column, direction): {metric: value}}) of the
    first tab-separated table: its header is the text line above it (blank lines between), split
    at blanks into the label's and one word per value column."""
    lines = text.split("\n")
    first = next(i for i, l in enumerate(lines) if l.count("\t") >= 2)
    h = first - 1
    while not lines[h].strip():
        h -= 1
    want = {}
    n_values = 0
    for line in lines[first:]:
        cells = line.split("\t")
        if len(cells) < 3:
            break
        direction, _, what = cells[0].partition(" ")
        if direction not in ("READ", "WRITE"):
            continue
        metric = METRIC[what]
        values = cells[1:3]
        n_values = max(n_values, len(values))
        for col, cell in enumerate(values, 1):
            want.setdefault((col, direction.lower()), {})[metric] = figure(cell, metric)
    names = lines[h].split()[1:1 + n_values]
    return h + 1, names, want


def check_table(path, text, where):
    """Imports path and checks each (column, direction) result against the typed table."""
    hdr_no, names, want = typed_table(text)
    with bdb.temp_db() as db:
        rc, _, err = bdb.call(db, "import", path)
        t.eq(rc, 0, where + ": import (%s)" % err.strip())
        t.ok("warning" not in err, where + ": no warning: %r" % err)
        t.ok("without a storage class" not in err, where + ": the note names its classes")
        recs = bdb.export(db, t)
        rc, out, _ = bdb.call(db, "runs", "--format", "csv")
        runs = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
        t.eq([sorted(r["storage_classes"].split(",")) for r in runs],
             [sorted(n.lower() for n in names)], where + ": runs lists the classes")
        rc, _, err = bdb.call(db, "report", "--compare", names[0].lower(), names[1].lower(),
                              "--format", "csv")
        t.eq(rc, 0, where + ": compared by storage class (%s)" % err.strip())
    t.eq(len(recs), len(want), where + ": one result per column and direction")
    for r in recs:
        col = names.index(r["tags"].get("column")) + 1 if r["tags"].get("column") in names else 0
        at = "%s %s %s" % (where, r["tags"].get("column"), r["direction"])
        t.eq(r["storage_class"], names[col - 1].lower() if col else None, at + ": class")
        t.eq(r["line_first"], hdr_no, at + ": from the header's line")
        for metric, value in want.get((col, r["direction"]), {"": None}).items():
            t.near(r.get(metric), value, at + ": " + metric)
        # a latency typed without a statistic is no percentile and no completion latency
        t.eq([k for k, v in r.items() if v is not None and re.search(r"_p\d|clat_|slat_", k)], [],
             at + ": no percentile or clat stored")


def import_note(text, name):
    """Imports text as a note: (exit status, stderr, the exported results)."""
    with tempfile.TemporaryDirectory(prefix="bdb-e2e-") as tmp:
        path = bdb.write(os.path.join(tmp, name), text)
        db = os.path.join(tmp, "t.sqlite")
        rc, _, err = bdb.call(db, "import", "--format", "notes", path)
        return rc, err, bdb.export(db)


def check_unmatched(text):
    """Headers the rows' columns cannot be matched to: a warning at the header's line, the
    figures kept, no column named (no class, no column tag)."""
    lines = text.split("\n")
    hdr_no, names, want = typed_table(text)
    header = lines[hdr_no - 1]
    # one word short: the label's word left out
    short = text.replace(header, " ".join(names), 1)
    rc, err, recs = import_note(short, "short.md")
    t.eq(rc, 0, "short header: imported (%s)" % err.strip())
    t.ok(re.search(r"short\.md:%d: warning: table header '%s' does not match" %
                   (hdr_no, re.escape(" ".join(names))), err), "short header: warned: %r" % err)
    t.eq(len(recs), len(want), "short header: the figures kept")
    t.eq([(r["storage_class"], r["tags"].get("column")) for r in recs if r["storage_class"] or
          r["tags"].get("column")], [], "short header: no class, no column")
    # the comment column cut off the rows: the last value column's name is the rest of the
    # header ("ext4 Remarks (...)"), several words, so no column is a storage class
    rows = [l for l in lines if l.count("\t") >= 2]
    cut = text
    for l in rows:
        cut = cut.replace(l, "\t".join(l.split("\t")[:3]), 1)
    rc, err, recs = import_note(cut, "long.md")
    t.ok(rc == 0 and "warning" not in err, "long header: no warning: %r" % err)
    rest = header.split(" ", 2)[2]
    t.eq(sorted({r["tags"].get("column") for r in recs}), sorted([names[0], rest]),
         "long header: the columns named, the last by the rest of the line")
    t.eq([r["storage_class"] for r in recs if r["storage_class"]], [], "long header: no class")
    t.eq(len(recs), len(want), "long header: the figures kept")
    # a "Storage Class:" line of the note wins over columns named by storages: they compare
    # file systems on that one class
    on_class = text.replace(header, "**Storage Class:** local-nvme-retain\n\n" + header, 1)
    rc, err, recs = import_note(on_class, "on_class.md")
    t.eq(rc, 0, "a note's class: imported (%s)" % err.strip())
    t.eq(sorted({r["storage_class"] for r in recs}), ["local-nvme-retain"],
         "a note's class: every result on it")
    t.eq(sorted({r["tags"].get("column") for r in recs}), sorted(names),
         "a note's class: the columns still named")
    # a label cell of two words shifts the names: no count sees it, but a column named 'metric'
    # is no storage, so no result gets a class from the shifted names
    shifted = text.replace(header, "Test " + header, 1)
    rc, err, recs = import_note(shifted, "shifted.md")
    t.eq(rc, 0, "shifted header: imported (%s)" % err.strip())
    t.eq([r["storage_class"] for r in recs if r["storage_class"]], [], "shifted header: no class")


def check_pipe(text):
    """The same table typed with pipes: the same classes and figures (one path for both)."""
    lines = text.split("\n")
    hdr_no, names, want = typed_table(text)
    rows = [l.split("\t")[:3] for l in lines if l.count("\t") >= 2]
    table = ["| Metric | %s | %s |" % tuple(names), "|---|---|---|"] + \
        ["| %s |" % " | ".join(r) for r in rows]
    rc, err, recs = import_note("\n".join(lines[:hdr_no - 1] + table) + "\n", "pipe.md")
    t.eq(rc, 0, "pipe table: imported (%s)" % err.strip())
    got = {(r["storage_class"], r["direction"]): r.get("lat_mean_ns") for r in recs}
    t.eq(got, {(names[c - 1].lower(), d): v.get("lat_mean_ns") for (c, d), v in want.items()},
         "pipe table: classes and latencies")


fixture = open(FIXTURE, encoding="utf-8").read()
check_table(FIXTURE, fixture, "fixture")
check_unmatched(fixture)
check_pipe(fixture)
seeds = sorted(f for f in os.listdir(SEEDS) if f.startswith("003_")) if os.path.isdir(SEEDS) else []
if seeds:
    path = os.path.join(SEEDS, seeds[0])
    check_table(path, open(path, encoding="utf-8").read(), "seed 003")
else:
    print("note: seed 003 not found in %s; the fixture checked only" % SEEDS)
sys.exit(t.done())
