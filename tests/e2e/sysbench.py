"""sysbench fileio importer end to end (issue 34). Each raw fixture (tests/fixtures/sysbench,
made by gen.sh with Debian's sysbench 1.0.20) is read here with regular expressions, its units
converted here (MiB = 2**20 bytes, ms -> ns, s -> ms), and compared with `benchdb export`;
damaged copies are refused with a located error; tmpfs and disk, 3 runs each, are compared by
`benchdb report` with the means, factors and verdicts python computes from the raw files; the
typed note with a pasted output imports with the note's storage class and host."""
import glob, os, re, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402
from compare_check import check_compare  # noqa: E402

FIXTURES = os.environ.get("FIXTURES", "tests/fixtures")
FIX = os.path.join(FIXTURES, "sysbench")
t = Checks("sysbench", rel=1e-9, abs_tol=1e-9, none_equal=True)

MODES = {  # "Doing X test" -> (mode, fio rw, directions)
    "sequential write (creation)": ("seqwr", "write", ["write"]),
    "sequential rewrite": ("seqrewr", "write", ["write"]),
    "sequential read": ("seqrd", "read", ["read"]),
    "random read": ("rndrd", "randread", ["read"]),
    "random write": ("rndwr", "randwrite", ["write"]),
    "random r/w": ("rndrw", "randrw", ["read", "write"]),
}
SIZE = {"B": 1, "KiB": 1024, "MiB": 1 << 20, "GiB": 1 << 30}


def num(text, pattern):
    m = re.search(pattern, text, re.M)
    return float(m.group(1)) if m else None


def expected(path):
    """The records a sysbench output must give, read from its text alone."""
    text = open(path, encoding="utf-8").read()
    mode, rw, dirs = MODES[re.search(r"^Doing (.*) test$", text, re.M).group(1)]
    size = lambda s: round(float(re.match(r"([\d.]+)(\w+)", s).group(1)) *  # noqa: E731
                           SIZE[re.match(r"([\d.]+)(\w+)", s).group(2)])
    flags = re.search(r"^Extra file open flags: (.*)$", text, re.M).group(1).strip()
    freq = num(text, r"^Periodic FSYNC enabled, calling fsync\(\) each (\d+) requests\.$")
    ratio = num(text, r"^Read/Write ratio for combined random IO test: ([\d.]+)$")
    pct = re.search(r"^\s+(\d+)th percentile:\s+([\d.]+)$", text, re.M)
    fair_e = re.search(r"events \(avg/stddev\):\s+([\d.]+)/([\d.]+)", text)
    fair_t = re.search(r"execution time \(avg/stddev\):\s+([\d.]+)/([\d.]+)", text)
    ms = lambda label: num(text, r"^\s+%s:\s+([\d.]+)$" % label) * 1e6  # noqa: E731
    rates = {d: num(text, r"^\s+%s/s:\s+([\d.]+)$" % d) for d in ("reads", "writes", "fsyncs")}
    events = ",".join(k for k in ("reads", "writes", "fsyncs") if rates[k] > 0)
    common = {
        "tool": "sysbench", "format": "sysbench", "tool_version": "sysbench 1.0.20",
        "job": "fileio " + mode, "rw": rw,
        "bs_bytes": size(re.search(r"^Block size (\S+)$", text, re.M).group(1)),
        "numjobs": int(num(text, r"^Number of threads: (\d+)$")),
        "size_bytes": size(re.search(r"^(\S+) total file size$", text, re.M).group(1)),
        "direct": int("directio" in flags.split()), "sync": int("sync" in flags.split()),
        # sysbench issues no fsync in a mode that does not write
        "fsync": int(freq or 0) if "write" in dirs else 0,
        "rwmixread": round(100 * ratio / (1 + ratio)) if mode == "rndrw" else None,
        "iodepth": 1, "ioengine": "psync",
        "runtime_ms": num(text, r"total time:\s+([\d.]+)s$") * 1000,
        "lat_min_ns": ms("min"), "lat_mean_ns": ms("avg"), "lat_max_ns": ms("max"),
        "lat_sum_ns": ms("sum"),
        "lat_p95_ns": float(pct.group(2)) * 1e6 if pct else None,
        "events": num(text, r"total number of events:\s+(\d+)$"),
        "events_thread_mean": float(fair_e.group(1)),
        "events_thread_stddev": float(fair_e.group(2)),
        "thread_runtime_mean_ms": float(fair_t.group(1)) * 1000,
        "thread_runtime_stddev_ms": float(fair_t.group(2)) * 1000,
        "tags": {"mode": mode, "lat_events": events, "open_flags": flags},
    }
    out = []
    for d in dirs:
        e = dict(common, direction=d)
        e["iops"] = rates["reads" if d == "read" else "writes"]
        mib = num(text, r"^\s+%s, MiB/s:\s+([\d.]+)$" % ("read" if d == "read" else "written"))
        e["bw_bytes_s"] = mib * 1048576
        # fsyncs/s is the run's: on its write result (on the read one when there is none)
        e["fsync_iops"] = rates["fsyncs"] if d == "write" or dirs == ["read"] else None
        out.append(e)
    return out


def compare(path, recs, exp, what):
    t.eq(len(recs), len(exp), what + ": results")
    for e in exp:
        r = [x for x in recs if x["direction"] == e["direction"]]
        if not t.ok(len(r) == 1, "%s: one %s result" % (what, e["direction"])):
            continue
        t.fields(r[0], e, "%s %s" % (what, e["direction"]))


# ---- every raw fixture against an independent reading ----
inputs = sorted(p for p in glob.glob(os.path.join(FIX, "*.txt")) if "error-" not in p)
inputs += sorted(glob.glob(os.path.join(FIX, "compare", "*.txt")))
t.ok(len(inputs) >= 15, "fixtures found: %d" % len(inputs))
modes_seen = set()
for path in inputs:
    exp = expected(path)
    modes_seen.add(exp[0]["tags"]["mode"])
    p, recs = bdb.import_export(path)
    t.eq(p.returncode, 0, os.path.basename(path) + ": import " + p.stderr.strip())
    compare(path, recs, exp, os.path.basename(path))
t.eq(modes_seen, {"seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"}, "every test mode")

# explicit conversions, by hand from rndrw-t4-ratio3-direct.txt
_, recs = bdb.import_export(os.path.join(FIX, "rndrw-t4-ratio3-direct.txt"))
rd = [r for r in recs if r["direction"] == "read"][0]
t.near(rd["bw_bytes_s"], 99.25 * 1024 * 1024, "read, MiB/s 99.25 is 99.25 * 2^20 bytes/s")
t.near(rd["lat_p95_ns"], 750000, "95th percentile 0.75 ms is 750000 ns")
t.eq((rd["rwmixread"], rd["direct"], rd["fsync"], rd["numjobs"]), (75, 1, 50, 4),
     "ratio 3.00 is rwmixread 75; directio; fsync each 50; 4 threads")
_, recs = bdb.import_export(os.path.join(FIX, "rndrd-t1-nopct.txt"))
t.ok(recs and recs[0].get("lat_p95_ns") is None, "'percentile stats: disabled' stores no percentile")

# ---- damaged copies: refused with a located error ----
with tempfile.TemporaryDirectory() as tmp:
    raw = open(os.path.join(FIX, "rndrw-t2.txt"), encoding="utf-8").read()
    lines = raw.split("\n")

    def line_of(prefix):
        return next(i for i, l in enumerate(lines, 1) if l.strip().startswith(prefix))

    def bad(name, content, want):
        path = bdb.write(os.path.join(tmp, name), content)
        bdb.rejects(t, path, want.format(path=path), "--format", "sysbench")

    cut = raw.index("    avg:")
    bad("cut.txt", raw[:cut + 20], "{path}:%d:1: error: expected a whole sysbench line, got the "
        "end of the input (the line is cut)" % line_of("avg:"))
    bad("cut-at-line.txt", raw[:raw.index("Threads fairness:")],
        "{path}:%d: error: expected sysbench's 'events (avg/stddev)' line in its 'Threads "
        "fairness' block, got the end of the input" % (line_of("Threads fairness:") - 1))
    wline = lines[line_of("writes/s:") - 1]
    col = len(wline) - len(wline.split()[-1]) + 1
    bad("garbled.txt", raw.replace(wline, wline[:col - 1] + "x" + wline[col - 1:], 1),
        "{path}:%d:%d: error: expected a number for 'writes/s', got 'x" % (line_of("writes/s:"), col))
    bad("unknown-line.txt", raw.replace("    fsyncs/s:", "    syncs/s:", 1),
        "{path}:%d:5: error: expected a line of sysbench's 'File operations' block, got "
        "'syncs/s:" % line_of("fsyncs/s:"))
    bad("bad-mode.txt", raw.replace("Doing random r/w test", "Doing random zap test"),
        "{path}:%d:7: error: expected a sysbench fileio test mode such as 'random r/w', got "
        "'random zap'" % line_of("Doing random"))
    bad("nothing.txt", "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nhello\n",
        "{path}:3: error: no sysbench fileio result found")
    err = os.path.join(FIX, "error-not-prepared.txt")
    fatal = open(err).read().split("\n")
    bdb.rejects(t, err, "%s:%d: error: sysbench run failed: Cannot open file 'test_file.0'" %
                (err, next(i for i, l in enumerate(fatal, 1) if l.startswith("FATAL:"))))
    # two runs one after the other (a shell loop's output): two runs' results, in order
    two = bdb.write(os.path.join(tmp, "two.txt"), raw + open(os.path.join(FIX, "seqwr-t1.txt")).read())
    p, recs = bdb.import_export(two)
    t.eq(sorted((r["job"], r["direction"], r["line_first"]) for r in recs),
         [("fileio rndrw", "read", 1), ("fileio rndrw", "write", 1),
          ("fileio seqwr", "write", len(lines))], "two runs in one file")

# ---- a report comparing tmpfs and the disk, 3 runs each ----
side_files = {s: sorted(glob.glob(os.path.join(FIX, "compare", "%s-rndrw-*.txt" % s)))
              for s in ("disk", "shm")}
raw = {s: [{e["direction"]: e for e in expected(p)} for p in side_files[s]] for s in side_files}
pick = {"Bandwidth": "bw_bytes_s", "Mean latency": "lat_mean_ns"}


def raw_values(row, side):
    d = "read" if "(read)" in row["Workload"] else "write"
    return [x[d][pick[row["Metric"]]] for x in raw[{"disk": "disk", "tmpfs": "shm"}[side]]]


with bdb.temp_db() as db:
    for side, cls in (("disk", "disk"), ("shm", "tmpfs")):
        p = bdb.run(db, "import", "--storage-class", cls, *side_files[side])
        t.eq(p.returncode, 0, "import %s: %s" % (cls, p.stderr.strip()))
    rows = check_compare(t, db, "disk", "tmpfs", raw_values)
    t.eq(sorted((r["Metric"], "(read)" in r["Workload"]) for r in rows),
         [("Bandwidth", False), ("Bandwidth", True), ("Mean latency", False),
          ("Mean latency", True)], "rows: bandwidth and mean latency per direction")
    for r in rows:
        if r["Metric"] == "Bandwidth":
            d = "read" if "(read)" in r["Workload"] else "write"
            t.near(float(r["tmpfs iops"]), statistics.mean(x[d]["iops"] for x in raw["shm"]),
                   r["Workload"] + ": IOPS beside it", rel=1e-9)

# ---- the typed note with a pasted output ----
note = os.path.join(FIXTURES, "notes", "sysbench.md")
p, recs = bdb.import_export(note)
t.eq(p.returncode, 0, "note: import " + p.stderr.strip())
t.ok(recs and recs[0]["format"] == "notes", "note: detected as notes, not as sysbench output")
exp = expected(os.path.join(FIX, "rndwr-t2-fsync10.txt"))
for e in exp:
    e["format"] = "notes"
compare(note, recs, exp, "note")
if recs:
    text = open(note).read().split("\n")
    t.eq(recs[0]["storage_class"], "local-ext4", "note: storage class from its Storage Class line")
    t.eq(recs[0]["host"], "benchbox", "note: host from the prompt")
    t.eq(recs[0]["line_first"],
         next(i for i, l in enumerate(text, 1) if l.startswith("sysbench 1.0.20")),
         "note: the result's lines are the note's")

sys.exit(t.done())
