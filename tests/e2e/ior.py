"""IOR and mdtest importers end to end (issue 34). Each raw fixture (tests/fixtures/ior and
tests/fixtures/mdtest, made by tests/fixtures/ior/gen.sh with IOR 4.1.0+dev built from source)
is read here on its own terms (IOR's text with regular expressions, its JSON with json, mdtest's
summary table), its units converted here (IOR's MiB = 2**20 bytes, s -> ns and ms), and
compared with `benchdb export`; damaged copies are refused at their line and column; IOR's
repetitions are repeats of one workload; tmpfs and disk are compared by `benchdb report` with
the means, factors, p and verdicts stats_ref computes from the raw files."""
import glob, json, os, re, shlex, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402
from compare_check import check_compare  # noqa: E402

FIXTURES = os.environ.get("FIXTURES", "tests/fixtures")
IOR, MD = os.path.join(FIXTURES, "ior"), os.path.join(FIXTURES, "mdtest")
MIB = 1 << 20
t = Checks("ior", rel=1e-9, abs_tol=1e-9, none_equal=True)


def command_settings(cmd):
    """direct, fsync (every write, -Y) and fsync at the end (-e) from IOR's command line;
    all unknown with a -f script, whose settings the line does not show."""
    args = cmd.split()
    if "-f" in args:
        return None, None, None
    opts = ",".join(args[i + 1] for i, a in enumerate(args[:-1]) if a == "-O").lower()
    on = lambda key: re.search(r"(^|,)%s=([1-9])" % key, opts) is not None  # noqa: E731
    direct = "--posix.odirect" in args or on("useo_direct") or on("posix.odirect")
    return int(direct), int("-Y" in args or on("fsyncperwrite")), int("-e" in args or on("fsync"))


def ior_record(test, access, values, iteration, line=None):
    """The record of one iteration, from a test's settings and a row's values (s, MiB/s)."""
    random, w = test["random"], access == "write"
    rw = (("randwrite" if w else "randread") if random else access) if random is not None else None
    nz = lambda v, k: v * k if v is not None else None  # noqa: E731
    rec = {
        "tool": "ior", "tool_version": test["version"], "host": test["host"],
        "job": "test %d" % test["id"], "direction": access, "rw": rw,
        "bs_bytes": test["xfer"], "size_bytes": test["block"] * test["segments"],
        "numjobs": test["tasks"], "iodepth": 1, "ioengine": test["api"].lower(),
        "direct": test["direct"], "fsync": test["fsync_write"],
        "sync": 0 if test["fsync_write"] is not None else None,
        "bw_bytes_s": nz(values["bw"], MIB), "iops": values["iops"],
        "lat_mean_ns": nz(values["lat"], 1e9), "runtime_ms": nz(values["total"], 1e3),
        "open_time_ms": nz(values["open"], 1e3), "xfer_time_ms": nz(values["wrrd"], 1e3),
        "close_time_ms": nz(values["close"], 1e3),
        "io_bytes": test["block"] * test["segments"] * test["tasks"],
        "tags": {"api": test["api"], "access": test["access"], "type": test["type"],
                 "iteration": str(iteration),
                 "fsync_end": "on" if test["fsync_end"] else None},
    }
    if line is not None:
        rec["line_first"] = rec["line_last"] = line
    return rec


def ior_text(path):
    """The records of an IOR text output, read from its text alone."""
    lines = open(path, encoding="utf-8").read().split("\n")
    text = "\n".join(lines)
    version = re.search(r"^(IOR-\S+): MPI Coordinated Test of Parallel I/O$", text, re.M).group(1)
    host = re.search(r"^Machine\s+: \S+ (\S+)", text, re.M).group(1)
    direct, fsync_write, fsync_end = command_settings(
        re.search(r"^Command line\s+: (.*)$", text, re.M).group(1))
    tests, summary, rows, cur = {}, {}, [], None
    for no, line in enumerate(lines, 1):
        m = re.match(r"^TestID\s+: (\d+)$", line)
        if m:
            cur = int(m.group(1))
            tests[cur] = {"id": cur, "version": version, "host": host, "direct": direct,
                          "fsync_write": fsync_write, "fsync_end": fsync_end}
        m = re.match(r"^ordering in a file\s+: (\w+)$", line)
        if m:
            tests[cur]["random"] = int(m.group(1) == "random")
        m = re.match(r"^type\s+: (\w+)$", line)
        if m:
            tests[cur]["type"] = m.group(1)
        f = line.split()
        if f and f[0] in ("write", "read") and len(f) == 11:  # a Results row
            keys = ("bw", "iops", "lat", "block", "xfer", "open", "wrrd", "close", "total")
            rows.append((cur, f[0], dict(zip(keys, map(float, f[1:10]))), int(f[10]), no))
        elif f and f[0] in ("write", "read") and len(f) == 27:  # a Summary of all tests row
            summary[int(f[12])] = dict(tasks=int(f[13]), segments=int(f[21]), block=int(f[22]),
                                       xfer=int(f[23]), api=f[25],
                                       access="file-per-process" if f[16] == "1"
                                       else "single-shared-file")
    for k, s in summary.items():
        tests[k].update(s)
        # the Options block's sizes agree with the summary's bytes where they are exact
        t.ok(tests[k]["xfer"] > 0 and tests[k]["block"] % tests[k]["xfer"] == 0,
             "%s test %d: block a multiple of the transfer" % (os.path.basename(path), k))
    return [ior_record(tests[c], a, v, i, no) for c, a, v, i, no in rows]


def ior_json(path):
    """The records of an IOR JSON output, read with json (0.0000: below its resolution)."""
    doc = json.load(open(path, encoding="utf-8"))
    direct, _, _ = command_settings(doc["Command line"])
    out = []
    for te in doc["tests"]:
        p, o = te["Parameters"], te["Options"]
        test = {"id": p["testID"], "version": "IOR-" + doc["Version"],
                "host": doc["Machine"].split()[1], "direct": direct,
                "fsync_write": int(p["fsyncperwrite"] != 0), "fsync_end": p["fsync"] != 0,
                "random": int(p["randomOffset"] != 0), "xfer": p["transferSize"],
                "block": p["blockSize"], "segments": p["segmentCount"], "tasks": o["tasks"],
                "api": p["api"], "type": "collective" if p["collective"] else "independent",
                "access": "file-per-process" if p["filePerProc"] else "single-shared-file"}
        seen = {"write": 0, "read": 0}
        for r in te["Results"]:
            if r["access"] == "remove":
                continue
            v = lambda k: r[k] if r[k] > 0 else None  # noqa: E731
            values = dict(bw=v("bwMiB"), iops=v("iops"), lat=v("latency"), open=v("openTime"),
                          wrrd=v("wrRdTime"), close=v("closeTime"), total=v("totalTime"))
            out.append(ior_record(test, r["access"], values, seen[r["access"]]))
            seen[r["access"]] += 1
        t.eq(set(seen.values()) - {0}, {p["repetitions"]},
             "%s: a result per repetition" % os.path.basename(path))
    return out


PHASES = {"Directory creation": ("dir_create", "write"), "Directory stat": ("dir_stat", "read"),
          "Directory rename": ("dir_rename", "write"), "Directory removal": ("dir_remove", "write"),
          "File creation": ("file_create", "write"), "File stat": ("file_stat", "read"),
          "File read": ("file_read", "read"), "File removal": ("file_remove", "write"),
          "Tree creation": ("tree_create", "write"), "Tree removal": ("tree_remove", "write")}


def mdtest(path):
    """The records of an mdtest output: one per row of each 'SUMMARY rate' table."""
    text = open(path, encoding="utf-8").read()
    version = re.search(r"^(mdtest-\S+) was launched", text, re.M).group(1)
    args = shlex.split(re.search(r"^Command line used: (.*)$", text, re.M).group(1))
    out, tasks, items, block = [], None, None, None
    for no, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^(\d+) tasks, (.*)$", line)
        if m:
            tasks, items = int(m.group(1)), m.group(2)
        m = re.match(r"^SUMMARY (rate|time) .*\(of (\d+) iterations?\)$", line)
        if m:
            block, iterations = m.group(1), int(m.group(2))
            continue
        m = re.match(r"^   ([A-Z][a-z]+ [a-z]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", line)
        if m and block == "rate":
            rw, direction = PHASES[m.group(1)]
            mx, mn, mean, sd = map(float, m.group(2, 3, 4, 5))
            out.append({"tool": "mdtest", "tool_version": version, "job": m.group(1).lower(),
                        "direction": direction, "rw": rw, "numjobs": tasks,
                        "direct": int("--posix.odirect" in args), "fsync": int("-y" in args),
                        "iops": mean, "iops_max": mx, "iops_min": mn,
                        "iops_stddev": sd if iterations > 1 else None,
                        "line_first": no, "line_last": no,
                        "tags": {"iterations": str(iterations), "items": items}})
        elif not line.startswith("   "):
            block = None if not line.startswith("SUMMARY") else block
    return out


def compare(recs, exp, what):
    t.eq(len(recs), len(exp), what + ": results")
    for i, (r, e) in enumerate(zip(recs, exp)):
        t.fields(r, e, "%s #%d %s" % (what, i, e["job"]))


def order(recs):
    return sorted(recs, key=lambda r: (r["line_first"], r["direction"]))


# ---- every raw fixture against an independent reading ----
readers = [(p, ior_text) for p in sorted(glob.glob(os.path.join(IOR, "*.txt")))
           + sorted(glob.glob(os.path.join(IOR, "compare", "*.txt"))) if "error-" not in p]
readers += [(p, ior_json) for p in sorted(glob.glob(os.path.join(IOR, "*.json")))]
readers += [(p, mdtest) for p in sorted(glob.glob(os.path.join(MD, "*.txt")))
            + sorted(glob.glob(os.path.join(MD, "compare", "*.txt")))]
t.ok(len(readers) >= 20, "fixtures found: %d" % len(readers))
seen = set()
for path, reader in readers:
    exp = reader(path)
    p, recs = bdb.import_export(path)
    t.eq(p.returncode, 0, os.path.basename(path) + ": import " + p.stderr.strip())
    if reader is ior_json:  # JSON's objects are matched in the order IOR wrote them
        recs = sorted(recs, key=lambda r: r["line_first"])
    else:
        recs, exp = order(recs), sorted(exp, key=lambda e: (e["line_first"], e["direction"]))
    compare(recs, exp, os.path.basename(path))
    seen.update((r["tool"], r["rw"]) for r in recs)
    seen.update(("api", r["tags"].get("api")) for r in recs)
t.ok({("ior", "write"), ("ior", "read"), ("ior", "randwrite"), ("ior", "randread"),
      ("api", "POSIX"), ("api", "MPIIO")} <= seen, "IOR: every access and API: %r" % seen)
t.ok({("mdtest", rw) for rw, _ in PHASES.values()} <= seen, "mdtest: every phase")

# explicit conversions, by hand
_, recs = bdb.import_export(os.path.join(IOR, "posix-fpp-fsync-np2-disk.txt"))
w = [r for r in recs if r["direction"] == "write" and r["tags"]["iteration"] == "0"][0]
line = open(os.path.join(IOR, "posix-fpp-fsync-np2-disk.txt")).read().split("\n")[w["line_first"] - 1]
t.near(w["bw_bytes_s"], float(line.split()[1]) * 1048576, "bw(MiB/s) x 2^20 (IOR's MEBIBYTE)")
t.eq((w["bs_bytes"], w["size_bytes"], w["numjobs"], w["tags"]["access"], w["tags"].get("fsync_end")),
     (1 << 20, 16 << 20, 2, "file-per-process", "on"), "-t 1m -b 16m -F -e on 2 tasks")
_, recs = bdb.import_export(os.path.join(IOR, "posix-direct-np2-disk.txt"))
t.ok(recs and all(r["direct"] == 1 for r in recs), "--posix.odirect is direct=1")
_, recs = bdb.import_export(os.path.join(IOR, "posix-script-two-tests-np2-disk.txt"))
t.ok(recs and all(r["direct"] is None and r["fsync"] is None for r in recs),
     "-f script: direct and fsync unknown, never 0")
t.eq(sorted({(r["job"], r["bs_bytes"]) for r in recs}), [("test 0", 65536), ("test 1", 262144)],
     "a script's two tests, each its transfer size")
# the same run's text and JSON agree on what JSON's resolution keeps
_, recs = bdb.import_export(os.path.join(IOR, "posix-ssf-np2-shm.json"))
t.ok(recs and all(r["lat_mean_ns"] is None or r["lat_mean_ns"] >= 1e5 for r in recs),
     "JSON latency 0.0000 is unknown, never 0")

# ---- IOR's repetitions are repeats of one workload ----
with bdb.temp_db() as db:
    path = os.path.join(IOR, "compare", "disk-ssf.txt")
    bdb.run(db, "import", "--storage-class", "disk", path)
    exp = ior_text(path)
    rows = bdb.sql_rows(db, "SELECT COUNT(*), COUNT(DISTINCT rw || bs_bytes || numjobs) FROM v_result "
                        "WHERE direction = 'write'")
    t.eq(rows[0], (3, 1), "3 iterations, one workload")

# ---- damaged copies: refused with a located error ----
with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(IOR, "posix-ssf-np2-shm.txt")
    raw = open(src, encoding="utf-8").read()
    lines = raw.split("\n")

    def line_of(prefix, nth=0):
        return [i for i, l in enumerate(lines, 1) if l.startswith(prefix)][nth]

    def bad(name, content, want, fmt="ior"):
        path = bdb.write(os.path.join(tmp, name), content)
        bdb.rejects(t, path, want.format(path=path), "--format", fmt)

    row = line_of("read ", 0)
    cut = raw.index(lines[row - 1])
    bad("cut.txt", raw[:cut + 20], "{path}:%d:1: error: expected a whole IOR line, got the end "
        "of the input (the line is cut)" % row)
    bad("cut-at-line.txt", raw[:raw.index("Summary of all tests:")],
        "{path}:%d: error: expected the 'write' row of IOR test 0 in its 'Summary of all tests' "
        "table, got the end of the input" % (line_of("Summary of all tests:") - 1))
    wl = lines[row - 1]
    col = wl.index(wl.split()[2]) + 1  # the IOPS column
    bad("garbled.txt", raw.replace(wl, wl[:col - 1] + "x" + wl[col:], 1),
        "{path}:%d:%d: error: expected a number for IOR's 'IOPS' column, got 'x" % (row, col))
    second = line_of("write ", 1)
    bad("missing-iteration.txt", raw.replace(lines[second - 1] + "\n", "", 1),
        "{path}:%d: error: expected 3 'write' rows in the results of IOR test 0 (its "
        "repetitions), got 2" % (line_of("write ", 3) - 1))
    bad("no-finished.txt", raw[:raw.index("Finished")],
        "{path}:%d: error: expected IOR's 'Finished' line after its summary, got the end of the "
        "input" % (line_of("Finished") - 1))
    err = os.path.join(IOR, "error-no-dir.txt")
    el = open(err).read().split("\n")
    bdb.rejects(t, err, "%s:%d: error: IOR run failed: open64(\"/nonexistent/dir/f\"" %
                (err, next(i for i, l in enumerate(el, 1) if l.startswith("ERROR:"))), "--format", "ior")
    # two runs one after the other (a shell loop's output): both runs' results
    other = open(os.path.join(IOR, "posix-random-np1-disk.txt")).read()
    two = bdb.write(os.path.join(tmp, "two.txt"), raw + other)
    p, recs = bdb.import_export(two)
    t.eq(len(recs), len(ior_text(src)) + len(ior_text(os.path.join(IOR, "posix-random-np1-disk.txt"))),
         "two runs in one file: " + p.stderr.strip())
    # JSON
    jraw = open(os.path.join(IOR, "posix-ssf-np2-shm.json"), encoding="utf-8").read()
    jcut = jraw[:jraw.rindex("\n", 0, len(jraw) // 2) + 1]  # whole lines: cJSON reads to the end
    jl = jcut.split("\n")
    bad("cut.json", jcut, "{path}:%d:%d: error: truncated JSON document (opened at line 1)" %
        (len(jl), len(jl[-1]) + 1), "ior-json")
    at = jraw.index('"iops": ') + len('"iops": ')
    before = jraw[:at].split("\n")
    number = jraw[at:].split(",", 1)[0]
    bad("garbled.json", jraw[:at] + '"x"' + jraw[at + len(number):],
        "{path}:%d:%d: error: expected a number for 'iops' in IOR's Results, got a string" %
        (len(before), len(before[-1]) + 1), "ior-json")
    # mdtest
    mraw = open(os.path.join(MD, "files-dirs-np2-i3-shm.txt"), encoding="utf-8").read()
    ml = mraw.split("\n")
    fc = next(i for i, l in enumerate(ml, 1) if l.strip().startswith("File creation"))
    bad("md-cut.txt", mraw[:mraw.index(ml[fc - 1]) + 30], "{path}:%d:1: error: expected a whole "
        "mdtest line, got the end of the input (the line is cut)" % fc, "mdtest")
    num = ml[fc - 1].split()[3]  # the Min column
    mcol = ml[fc - 1].index(num) + 1
    bad("md-garbled.txt", mraw.replace(num, "1.2.3", 1), "{path}:%d:%d: error: expected a rate "
        "in ops/sec for mdtest's 'File creation', got '1.2.3'" % (fc, mcol), "mdtest")
    bad("md-phase.txt", mraw.replace("File stat", "File zap", 1), "{path}:%d:4: error: expected "
        "an mdtest phase such as 'File creation', got 'File zap" % (fc + 1), "mdtest")
    unfinished = mraw[:mraw.index("-- finished")]
    bad("md-unfinished.txt", unfinished, "{path}:%d: error: expected mdtest's '-- finished at' "
        "line of the run started at line 1, got the end of the input" % unfinished.count("\n"),
        "mdtest")

# ---- reports comparing tmpfs and the disk ----
ior_sides = {s: ior_text(os.path.join(IOR, "compare", "%s-ssf.txt" % s)) for s in ("disk", "shm")}
md_sides = {s: [r for p in sorted(glob.glob(os.path.join(MD, "compare", "%s-files-*.txt" % s)))
                for r in mdtest(p)] for s in ("disk", "shm")}
PICK = {"Bandwidth": "bw_bytes_s", "Mean latency": "lat_mean_ns", "IOPS": "iops"}


def raw_values(row, side):
    """The raw values of a report row's side: IOR's iterations, mdtest's files."""
    s = {"disk": "disk", "tmpfs": "shm"}[side]
    metric = PICK.get(row["Metric"])
    wl = row["Workload"]
    if wl.startswith("Sequential"):
        d = "read" if wl.startswith("Sequential Read") else "write"
        recs = [r for r in ior_sides[s] if r["direction"] == d]
    else:
        recs = [r for r in md_sides[s] if wl.startswith(r["rw"] + " ")]
    vals = [r[metric] for r in recs if metric and r.get(metric) is not None]
    return vals or None


with bdb.temp_db() as db:
    for side, cls in (("disk", "disk"), ("shm", "tmpfs")):
        files = [os.path.join(IOR, "compare", "%s-ssf.txt" % side)] + sorted(
            glob.glob(os.path.join(MD, "compare", "%s-files-*.txt" % side)))
        p = bdb.run(db, "import", "--storage-class", cls, *files)
        t.eq(p.returncode, 0, "import %s: %s" % (cls, p.stderr.strip()))
    rows = check_compare(t, db, "disk", "tmpfs", raw_values)
    t.eq(sorted({(r["Workload"].split(" ")[0], r["Metric"]) for r in rows}),
         sorted({("Sequential", "Bandwidth"), ("Sequential", "Mean latency")}
                | {(rw, "IOPS") for rw in ("file_create", "file_stat", "file_read", "file_remove",
                                           "tree_create", "tree_remove")}),
         "rows: IOR's bandwidth and latency, mdtest's phases")
    t.eq(sum(1 for r in rows if r["Workload"].startswith("Sequential")), 4,
         "IOR: write and read, bandwidth and latency")
    t.ok(all(r["disk (baseline) n"] == "3" for r in rows), "3 runs a side: IOR's -i 3, 3 mdtest files")

# ---- the typed note with pasted IOR and mdtest output ----
note = os.path.join(FIXTURES, "notes", "ior.md")
p, recs = bdb.import_export(note)
t.eq(p.returncode, 0, "note: import " + p.stderr.strip())
t.ok(recs and all(r["format"] == "notes" for r in recs), "note: detected as notes")
text = open(note).read().split("\n")
first = {tool: next(i for i, l in enumerate(text, 1) if l.startswith(start))
         for tool, start in (("ior", "IOR-"), ("mdtest", "-- started at"))}
for tool, reader, fixture in (("ior", ior_text, os.path.join(IOR, "posix-fpp-fsync-np2-disk.txt")),
                              ("mdtest", mdtest, os.path.join(MD, "files-unique-np2-i3-disk.txt"))):
    exp = reader(fixture)
    for e in exp:  # the pasted block's lines are the note's
        e["line_first"] = e["line_last"] = e["line_first"] + first[tool] - 1
    got = order([r for r in recs if r["tool"] == tool])
    compare(got, sorted(exp, key=lambda e: (e["line_first"], e["direction"])), "note " + tool)
    t.ok(got and all(r["storage_class"] == "local-ext4" for r in got),
         "note %s: storage class from its Storage Class line" % tool)
t.ok(recs and all(r["host"] == "vm" for r in recs if r["tool"] == "ior"),
     "note: IOR's own Machine line names the host")

sys.exit(t.done())
