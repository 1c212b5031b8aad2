"""iozone importer end to end (issue 34, item 2). Each raw fixture (tests/fixtures/iozone, made by
gen.sh with Debian's iozone3 489-1) is read here with regular expressions, its units converted
here (iozone's kB = 1024 bytes: it shifts bytes/s right by 10; ops/s as is; us/op -> ns), and
compared with `benchdb export`; an Excel section alone gives the table's values; damaged copies
are refused with a located error; tmpfs and disk, 3 runs each, are compared by `benchdb report`
with the means, factors, p and verdicts python computes from the raw files (stats_ref, scipy);
the typed note with a pasted output imports with the note's storage class and host."""
import csv, glob, io, os, re, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
import stats_ref  # noqa: E402
from checks import Checks  # noqa: E402

FIXTURES = os.environ.get("FIXTURES", "tests/fixtures")
FIX = os.path.join(FIXTURES, "iozone")
t = Checks("iozone", rel=1e-9, abs_tol=1e-9, none_equal=True)

KB = 1024
# the table's columns: (name under it, test, fio rw or the test's own name, direction)
COLUMNS = [("write", "write", "write", "write"), ("rewrite", "rewrite", "rewrite", "write"),
           ("read", "read", "read", "read"), ("reread", "reread", "reread", "read"),
           ("read", "randread", "randread", "read"), ("write", "randwrite", "randwrite", "write"),
           ("read", "bkwdread", "bkwdread", "read"),
           ("rewrite", "recrewrite", "recrewrite", "write"),
           ("read", "strideread", "strideread", "read"), ("fwrite", "fwrite", "fwrite", "write"),
           ("frewrite", "frewrite", "frewrite", "write"), ("fread", "fread", "fread", "read"),
           ("freread", "freread", "freread", "read")]
TEST = {c[1]: c for c in COLUMNS}
EXCEL = {"Writer report": "write", "Re-writer report": "rewrite", "Reader report": "read",
         "Re-Reader report": "reread", "Random read report": "randread",
         "Random write report": "randwrite", "Backward read report": "bkwdread",
         "Record rewrite report": "recrewrite", "Stride read report": "strideread",
         "Fwrite report": "fwrite", "Re-Fwrite report": "frewrite", "Fread report": "fread",
         "Re-Fread report": "freread"}
THROUGHPUT = {"initial writers": "write", "rewriters": "rewrite", "readers": "read",
              "re-readers": "reread", "random readers": "randread", "random writers": "randwrite"}


def settings(text):
    """What the lines before the results say: unit, direct, sync, tags."""
    unit = ("iops" if "OPS Mode. Output is in operations per second." in text else
            "lat" if "Microseconds/op Mode." in text else "bw")
    tags = {}
    if re.search(r"^\tInclude fsync in write timing$", text, re.M):
        tags["fsync_end"] = "on"
    if re.search(r"^\tInclude close in write timing$", text, re.M):
        tags["close_in_timing"] = "on"
    tags["command"] = re.search(r"^\tCommand line used: (.*)$", text, re.M).group(1).rstrip()
    return {"unit": unit, "tags": tags,
            "version": "iozone " + re.search(r"Version \$Revision: ([\d.]+) \$", text).group(1),
            "direct": int("\tO_DIRECT feature enabled\n" in text),
            "sync": int(re.search(r"^\tSYNC Mode\. *$", text, re.M) is not None)}


def value(unit, v):
    return {"bw": ("bw_bytes_s", v * KB), "iops": ("iops", v), "lat": ("lat_mean_ns", v * 1000)}[unit]


def table_cells(text):
    """{(test, file kB, record kB): value} of the auto table, each value placed under the column
    name whose last character is nearest to its own."""
    lines = text.split("\n")
    h = next(i for i, l in enumerate(lines) if re.match(r"^\s+kB  reclen ", l))
    ends = [m.end() for m in re.finditer(r"\S+", lines[h])][2:]
    cells = {}
    for line in lines[h + 1:]:
        if not re.match(r"^\s+\d", line):
            break
        toks = [(m.group(), m.end()) for m in re.finditer(r"\S+", line)]
        fkb, rkb = int(toks[0][0]), int(toks[1][0])
        for tok, end in toks[2:]:
            col = min(range(len(ends)), key=lambda k: abs(ends[k] - end))
            assert abs(ends[col] - end) <= 2, (line, tok)
            cells[(COLUMNS[col][1], fkb, rkb)] = float(tok)
    return cells


def excel_cells(text):
    """The same from -R's section: a block per test, a row per file size, its values those of
    the header's record sizes up to the file size."""
    cells = {}
    for m in re.finditer(r'^"([^"\n]+ report)"\n\s+((?:"\d+"\s*)+)\n((?:"\d+".*\n)+)', text, re.M):
        recs = [int(x) for x in re.findall(r'"(\d+)"', m.group(2))]
        for row in m.group(3).strip("\n").split("\n"):
            fkb = int(re.match(r'"(\d+)"', row).group(1))
            vals = row.split()[1:]
            fit = [r for r in recs if r <= fkb]
            for rkb, v in zip(fit[len(fit) - len(vals):], vals):
                cells[(EXCEL[m.group(1)], fkb, rkb)] = float(v)
    return cells


def record(s, test, fkb, rkb, numjobs, job):
    name, test, rw, direction = TEST[test]
    return {"tool": "iozone", "format": "iozone", "tool_version": s["version"], "job": job,
            "direction": direction, "rw": rw, "bs_bytes": rkb * KB, "size_bytes": fkb * KB,
            "numjobs": numjobs, "iodepth": 1, "direct": s["direct"], "sync": s["sync"], "fsync": 0,
            "ioengine": None if test.startswith("f") else "sync",
            "tags": dict(s["tags"], test=test)}


def expected(path):
    """The records an iozone output must give, read from its text alone."""
    text = open(path, encoding="utf-8").read()
    s = settings(text)
    out = []
    if re.search(r"^\s+kB  reclen ", text, re.M):
        cells = table_cells(text)
        if '"Writer report"' in text:
            t.eq(excel_cells(text), cells, os.path.basename(path) + ": the Excel section is the table")
        for (test, fkb, rkb), v in cells.items():
            e = record(s, test, fkb, rkb, 1, "%s %dk/%dk" % (test, fkb, rkb))
            e["tags"]["section"] = "table"
            k, x = value(s["unit"], v)
            e[k] = x
            out.append(e)
    u = "ops" if s["unit"] == "iops" else "kB"
    num = r"=\s+([\d.]+) %s" % u
    procs = re.search(r"^\tThroughput test with (\d+) processes$", text, re.M)
    sizes = re.search(r"^\tEach process writes a (\d+) kByte file in (\d+) kByte records$", text, re.M)
    for m in re.finditer(r"^\tChildren see throughput for\s+(\d+) (.+?)\s+%s/sec\n"
                         r"\tParent sees throughput for .*%s/sec\n"
                         r"\tMin throughput per process\s+%s/sec \n"
                         r"\tMax throughput per process\s+%s/sec\n"
                         r"\tAvg throughput per process\s+%s/sec\n"
                         r"\tMin xfer\s+%s\n" % ((num,) * 6), text, re.M):
        n, test = int(m.group(1)), THROUGHPUT[m.group(2)]
        fkb, rkb = int(sizes.group(1)), int(sizes.group(2))
        t.eq(n, int(procs.group(1)), "%s: the block's process count" % path)
        e = record(s, test, fkb, rkb, n, "%s %dk/%dk x%d" % (test, fkb, rkb, n))
        e["tags"]["section"] = "throughput"
        vals = [float(m.group(k)) for k in range(3, 9)]
        names = (["iops", "parent_iops", "proc_iops_min", "proc_iops_max", "proc_iops_mean",
                  "min_xfer_ops"] if u == "ops" else
                 ["bw_bytes_s", "parent_bw_bytes_s", "proc_bw_min_bytes_s", "proc_bw_max_bytes_s",
                  "proc_bw_mean_bytes_s", "min_xfer_bytes"])
        for k, v in zip(names, vals):
            e[k] = v if u == "ops" else v * KB
        out.append(e)
    return out


def compare(recs, exp, what):
    t.eq(len(recs), len(exp), what + ": results")
    by_job = {r["job"]: r for r in recs}
    t.eq(len(by_job), len(recs), what + ": one result per job")
    for e in exp:
        r = by_job.get(e["job"])
        if not t.ok(r is not None, "%s: a result for %s" % (what, e["job"])):
            continue
        t.fields(r, e, "%s %s" % (what, e["job"]))


# ---- every raw fixture against an independent reading ----
inputs = sorted(p for p in glob.glob(os.path.join(FIX, "*.txt")) if "error-" not in p)
inputs += sorted(glob.glob(os.path.join(FIX, "compare", "*.txt")))
t.ok(len(inputs) >= 19, "fixtures found: %d" % len(inputs))
tests_seen, units_seen = set(), set()
for path in inputs:
    exp = expected(path)
    t.ok(exp, os.path.basename(path) + ": the test reads results")
    tests_seen |= {e["tags"]["test"] for e in exp}
    units_seen |= {k for e in exp for k in ("bw_bytes_s", "iops", "lat_mean_ns") if k in e}
    p, recs = bdb.import_export(path)
    t.eq(p.returncode, 0, os.path.basename(path) + ": import " + p.stderr.strip())
    compare(recs, exp, os.path.basename(path))
t.eq(tests_seen, set(TEST), "every test of the table seen")
t.eq(units_seen, {"bw_bytes_s", "iops", "lat_mean_ns"}, "kB/s, ops/s and us/op seen")

# explicit conversions, by hand from the fixtures
_, recs = bdb.import_export(os.path.join(FIX, "direct.txt"))
w = [r for r in recs if r["tags"]["test"] == "write"]
text = open(os.path.join(FIX, "direct.txt")).read()
kbs = int(re.search(r"^\s+1024\s+64\s+(\d+)", text, re.M).group(1))
t.ok(w and w[0]["bw_bytes_s"] == kbs * 1024 and w[0]["direct"] == 1 and w[0]["bs_bytes"] == 65536
     and w[0]["size_bytes"] == 1048576, "-I: %d kB/s is %d bytes/s, direct, 64 kB records of a "
     "1024 kB file" % (kbs, kbs * 1024))
_, recs = bdb.import_export(os.path.join(FIX, "throughput-t4-excel.txt"))
t.ok(recs and all(r["numjobs"] == 4 for r in recs), "-t 4: numjobs 4")

# ---- the typed note with a pasted output ----
note = os.path.join(FIXTURES, "notes", "iozone.md")
p, recs = bdb.import_export(note)
t.eq(p.returncode, 0, "note: import " + p.stderr.strip())
t.ok(recs and recs[0]["format"] == "notes", "note: detected as notes, not as iozone output")
exp = expected(os.path.join(FIX, "osync.txt"))
for e in exp:
    e["format"] = "notes"
compare(recs, exp, "note")
if recs:
    text = open(note).read().split("\n")
    t.eq({r["storage_class"] for r in recs}, {"local-ext4"}, "note: storage class from its line")
    t.eq({r["host"] for r in recs}, {"benchbox"}, "note: host from the prompt")
    t.eq({r["line_first"] for r in recs},
         {next(i for i, l in enumerate(text, 1) if re.match(r"^\s+512\s+16\s", l))},
         "note: the results' line is the note's")

with tempfile.TemporaryDirectory() as tmp:
    raw = open(os.path.join(FIX, "auto-excel.txt"), encoding="utf-8").read()
    section = raw[raw.index('"Writer report"'):]
    path = bdb.write(os.path.join(tmp, "excel-only.txt"), section)
    p, recs = bdb.import_export(path)
    t.eq(p.returncode, 0, "excel-only: import " + p.stderr.strip())
    cells = table_cells(raw)
    t.eq(len(recs), len(cells), "excel-only: a result per cell of the table")
    for r in recs:
        key = (r["tags"]["test"], r["size_bytes"] // KB, r["bs_bytes"] // KB)
        t.near(r["bw_bytes_s"], cells.get(key, -1) * KB, "excel-only %s" % (key,))
        t.eq((r["tags"].get("section"), r["tags"].get("unit_assumed"), r["direct"]),
             ("excel", "kB/s", None), "excel-only %s: no settings, kB/s assumed" % (key,))

# ---- damaged copies: refused with a located error ----
with tempfile.TemporaryDirectory() as tmp:
    raw = open(os.path.join(FIX, "auto-excel.txt"), encoding="utf-8").read()
    lines = raw.split("\n")

    def line_of(pred):
        return next(i for i, l in enumerate(lines, 1) if pred(l))

    def bad(name, content, want, *opts):
        path = bdb.write(os.path.join(tmp, name), content)
        bdb.rejects(t, path, want.format(path=path), *opts)

    row = line_of(lambda l: re.match(r"^\s+128\s+16\s", l))
    rl = lines[row - 1]
    cut = raw.index(rl) + 40
    bad("cut.txt", raw[:cut], "{path}:%d:1: error: expected a whole iozone line, got the end of "
        "the input (the line is cut)" % row)
    m = list(re.finditer(r"\S+", rl))[4]  # the read column's value
    garbled = rl[:m.start()] + "1x" + rl[m.start() + 2:]
    bad("garbled.txt", raw.replace(rl, garbled, 1), "{path}:%d:%d: error: expected a number under "
        "iozone's 'read' column, got '%s'" % (row, m.start() + 1, garbled[m.start():m.end()]))
    # the last value of a subset's row four columns to the right: under no column
    sub = open(os.path.join(FIX, "i012.txt"), encoding="utf-8").read()
    sl = sub.split("\n")
    srow = next(i for i, l in enumerate(sl, 1) if re.match(r"^\s+1024\s+4\s", l))
    last = list(re.finditer(r"\S+", sl[srow - 1]))[-1]
    bad("shifted.txt", sub.replace(sl[srow - 1], sl[srow - 1][:last.start()] + "    " +
                                   last.group(), 1),
        "{path}:%d:%d: error: expected a value under a column of iozone's table (line %d), got "
        "'%s'" % (srow, last.start() + 5, srow - 1, last.group()))
    xl = line_of(lambda l: l.startswith('"128"'))
    xline = lines[xl - 1]
    x0 = xline.split()[1]
    bad("excel-differs.txt", raw.replace(xline, xline.replace(x0, str(int(x0) + 1), 1), 1),
        "{path}:%d:%d: error: expected %s in iozone's 'Writer report' at 128 kB / 4 kB (the table's "
        "value, line %d), got %d" % (xl, xline.index(x0) + 1, x0,
                                     line_of(lambda l: re.match(r"^\s+128\s+4\s", l)), int(x0) + 1))
    bad("bad-report.txt", raw.replace('"Stride read report"', '"Stride zap report"'),
        "{path}:%d:2: error: expected an iozone report such as 'Writer report', got 'Stride zap "
        "report'" % line_of(lambda l: l == '"Stride read report"'))
    end_excel = raw.index('"Re-Fread report"')
    bad("excel-cut.txt", raw[:end_excel],
        "error: expected iozone's Excel section to hold 'Re-Fread report' at 64 kB / 4 kB")
    no_end = raw[:raw.index("iozone test complete.")]
    bad("no-end.txt", no_end, "{path}:%d: error: expected 'iozone test complete.' at the end of "
        "the run, got the end of the input" % no_end.count("\n"))
    tp = open(os.path.join(FIX, "throughput-t2.txt"), encoding="utf-8").read()
    tpl = tp.split("\n")
    avg = next(i for i, l in enumerate(tpl, 1) if l.startswith("\tAvg throughput"))
    bad("tp-cut-block.txt", tp.replace(tpl[avg] + "\n", "", 1),
        "{path}:%d: error: expected iozone's 'Min xfer ...' line in the initial writers block, got "
        "an empty line" % (avg + 1))
    bad("tp-bad-test.txt", tp.replace("2 re-readers", "2 zap-readers", 1),
        "{path}:%d:32: error: expected an iozone throughput test such as 'initial writers', got "
        "'zap-readers'" % next(i for i, l in enumerate(tpl, 1) if "2 re-readers" in l))
    bad("nothing.txt", "\tIozone: Performance Test of File I/O\n\nhello\n",
        "{path}:3: error: no iozone result found")
    err = os.path.join(FIX, "error-cannot-open.txt")
    el = open(err).read().split("\n")
    bdb.rejects(t, err, "%s:%d: error: iozone run failed: Can not open temp file: "
                "/nonexistent/iozone.tmp" % (err, next(i for i, l in enumerate(el, 1)
                                                        if l.startswith("Can not open"))))
    # two runs one after the other (a shell loop's output): both runs' results
    two = bdb.write(os.path.join(tmp, "two.txt"),
                    raw + open(os.path.join(FIX, "direct.txt")).read())
    p, recs = bdb.import_export(two)
    t.eq(p.returncode, 0, "two runs: " + p.stderr.strip())
    t.eq(len(recs), len(expected(os.path.join(FIX, "auto-excel.txt"))) +
         len(expected(os.path.join(FIX, "direct.txt"))), "two runs in one file: both runs' results")

# ---- a report comparing tmpfs and the disk, 3 runs each ----
side_files = {s: sorted(glob.glob(os.path.join(FIX, "compare", "%s-*.txt" % s)))
              for s in ("disk", "shm")}
with bdb.temp_db() as db:
    for side, cls in (("disk", "disk"), ("shm", "tmpfs")):
        p = bdb.run(db, "import", "--storage-class", cls, *side_files[side])
        t.eq(p.returncode, 0, "import %s: %s" % (cls, p.stderr.strip()))
    rc, out, err = bdb.call(db, "report", "--format", "csv", "--compare", "disk", "tmpfs")
    t.eq(rc, 0, "report: " + err.strip())
    rows = list(csv.DictReader(io.StringIO(out)))
    raw = {s: [{e["tags"]["test"]: e for e in expected(p)} for p in side_files[s]]
           for s in side_files}
    tests = sorted(raw["disk"][0])
    t.eq(len(rows), len(tests), "one row per test: %s" % [r["Workload"] for r in rows])
    t.ok(all(r["Metric"] == "Bandwidth" for r in rows), "every row is bandwidth")
    samples = {}
    for r in rows:
        test = next((x for x in tests if r["Workload"].lower().startswith(
            {"write": "sequential write", "read": "sequential read", "randread": "random read",
             "randwrite": "random write"}.get(x, x))), None)
        if not t.ok(test is not None, "row %s names a test" % r["Workload"]):
            continue
        a = [x[test]["bw_bytes_s"] for x in raw["disk"]]
        b = [x[test]["bw_bytes_s"] for x in raw["shm"]]
        samples[r["Workload"]] = (a, b)
        what = r["Workload"]
        t.near(float(r["disk (baseline)"]), statistics.mean(a), what + ": disk mean", rel=1e-9)
        t.near(float(r["tmpfs"]), statistics.mean(b), what + ": tmpfs mean", rel=1e-9)
        t.near(float(r["disk (baseline) sd"]), statistics.stdev(a), what + ": disk sd", rel=1e-9)
        t.eq((r["disk (baseline) n"], r["tmpfs n"]), ("3", "3"), what + ": 3 runs each")
        t.near(float(r["tmpfs vs disk"]), statistics.mean(b) / statistics.mean(a),
               what + ": factor", rel=1e-9)
    keys = list(samples)
    ps = [stats_ref.ratio_p(*samples[k]) for k in keys]
    for k, p_raw, p_adj in zip(keys, ps, stats_ref.holm(ps)):
        r = next(x for x in rows if x["Workload"] == k)
        lo, hi = stats_ref.ratio_interval(*samples[k])
        t.near(float(r["tmpfs vs disk p"]), p_raw, k + ": p", rel=1e-6)
        t.near(float(r["tmpfs vs disk p_holm"]), p_adj, k + ": Holm's p", rel=1e-6)
        t.eq(r["tmpfs vs disk verdict"], stats_ref.verdict(p_adj, lo, hi), k + ": verdict")

sys.exit(t.done())
