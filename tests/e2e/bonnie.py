"""bonnie++ importer end to end: expected values are read from the raw fixtures here (CSV split,
text tables split on whitespace), independently of benchdb, then compared with
`benchdb export --format ndjson` (and with dump_records for cpu_pct/lat_max_ns, which the
export does not carry)."""
import json, os, re, subprocess, sys, tempfile

BENCHDB = os.environ.get("BENCHDB", "benchdb")
DUMP = os.environ.get("DUMP_RECORDS")
FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "bonnie")
TOL = 1e-3
passed = failed = 0

TESTS = ["putc", "put_block", "rewrite", "getc", "get_block", "seeks",
         "seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat", "ran_del"]
DIRS = ["write", "write", "mixed", "read", "read", "read",
        "write", "read", "write", "write", "read", "write"]
LAT = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
SIZE = {"K": 1024, "M": 1 << 20, "G": 1 << 30}


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def near(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= TOL * abs(b) if b else abs(a) < 1e-12


def lat(v):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", v)
    return float(m.group(1)) * LAT[m.group(2)] if m else None


def one(test, val, cpu, latency, host, line, size=None, text=False):
    e = {"job": TESTS[test], "direction": DIRS[test], "host": host, "line": line,
         "bw_bytes_s": None, "iops": None, "too_fast": False, "cpu_pct": None,
         "lat_max_ns": lat(latency) if latency else None, "size_bytes": None}
    if re.fullmatch(r"\++", val):
        e["too_fast"] = True
    elif test < 5:
        m = re.fullmatch(r"([0-9.]+)([kmg]?)", val)
        mult = {"": 1, "k": 1, "m": 1024, "g": 1024 * 1024}[m.group(2)] if text else 1
        e["bw_bytes_s"] = float(m.group(1)) * mult * 1024
    else:
        e["iops"] = float(val)
    if cpu and not re.fullmatch(r"\++", cpu):
        e["cpu_pct"] = float(cpu)
    if test < 6 and size:
        m = re.fullmatch(r"(\d+)([KMG])", size)
        e["size_bytes"] = int(m.group(1)) * SIZE[m.group(2)]
    return e


def expected_csv(path):
    out = []
    for no, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        f = line.split(",")
        if f[0] not in ("1.96", "1.97", "1.98"):
            continue
        s = 0 if f[0] == "1.98" else -2
        for t in range(12):
            base = 9 + s + 2 * t if t < 6 else 26 + s + 2 * (t - 6)
            if f[base] == "":
                continue
            out.append(one(t, f[base], f[base + 1], f[38 + s + t], f[2], no, f[5]))
    return out


def expected_text(path):
    out, host, block_files = [], None, False
    lines = open(path, encoding="utf-8").read().split("\n")
    for no, line in enumerate(lines, 1):
        tok = line.split()
        if not tok:
            continue
        if tok[0] == "Version":
            block_files = "Create" in line
            continue
        if block_files and "-Create--" in line:
            host = tok[0]
            continue
        # complete result rows only (12 value/cpu tokens after the labels)
        if not block_files and len(tok) == 14 and not tok[2].startswith("/sec"):
            row = (tok[0], tok[1], tok[2:], no)
        elif block_files and len(tok) == 13 and tok[1] != "/sec":
            row = (host, None, tok[1:], no)
        elif tok[0] == "Latency":
            h, size, v, first = row
            for i in range(6):
                t = i + (6 if block_files else 0)
                e = one(t, v[2 * i], v[2 * i + 1], tok[1 + i], h, first, size, text=True)
                e["line_last"] = no
                out.append(e)
    return out


def run(args):
    return subprocess.run([BENCHDB] + args, capture_output=True, text=True)


def import_export(path):
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "t.sqlite")
        p = run(["--db", db, "import", path])
        if p.returncode != 0:
            return p, []
        e = run(["--db", db, "export", "--format", "ndjson"])
        return p, [json.loads(l) for l in e.stdout.splitlines() if l.strip()]


def dumped(path):
    """cpu_pct and lat_max_ns per (job, line) from dump_records."""
    if not DUMP:
        return None
    p = subprocess.run([DUMP, path], capture_output=True, text=True)
    recs, cur = {}, None
    for line in p.stdout.splitlines():
        m = re.match(r"record (\w+)/\w* lines (\d+)-(\d+)", line)
        if m:
            cur = recs.setdefault((m.group(1), int(m.group(2))), {})
            continue
        m = re.match(r"  (cpu_pct|lat_max_ns)=(\S+)", line)
        if m and cur is not None:
            cur[m.group(1)] = float(m.group(2))
    return recs


FILES = {
    "shm-q.csv": expected_csv,
    "disk-x2.csv": expected_csv,
    "fileonly-q.csv": expected_csv,
    "disk-text-and-csv.txt": expected_csv,   # the CSV wins over the text tables
    "shm-q-text.txt": expected_text,
    "fileonly-q-text.txt": expected_text,
}
for name, reader in FILES.items():
    path = os.path.join(FIX, name)
    exp = reader(path)
    check(len(exp) > 0, name + ": the reference reader found results")
    p, recs = import_export(path)
    check(p.returncode == 0, "%s: import exit %d: %s" % (name, p.returncode, p.stderr.strip()))
    check(len(recs) == len(exp), "%s: %d records, expected %d" % (name, len(recs), len(exp)))
    by = {(r["job"], r["line_first"]): r for r in recs}
    dump = dumped(path)
    for e in exp:
        key = (e["job"], e["line"])
        r = by.get(key)
        where = "%s:%d %s" % (name, e["line"], e["job"])
        check(r is not None, where + ": missing")
        if r is None:
            continue
        check(r["tool"] == "bonnie++" and r["format"] == "bonnie++", where + ": tool/format")
        check(r["host"] == e["host"], "%s: host %r != %r" % (where, r["host"], e["host"]))
        check(r["direction"] == e["direction"], "%s: direction %r" % (where, r["direction"]))
        for k in ("bw_bytes_s", "iops", "size_bytes"):
            check(near(r.get(k), e[k]), "%s: %s %r != %r" % (where, k, r.get(k), e[k]))
        if e["too_fast"]:
            check(r["tags"].get("note") == "too-fast-to-measure" and r["bw_bytes_s"] is None
                  and r["iops"] is None, where + ": +++++ must be a tag, not a number")
        if dump is not None:
            d = dump.get(key, {})
            for k in ("cpu_pct", "lat_max_ns"):
                check(near(d.get(k), e[k]), "%s: %s %r != %r" % (where, k, d.get(k), e[k]))

# explicit unit checks, by hand from the fixtures
_, recs = import_export(os.path.join(FIX, "disk-x2.csv"))
pb = [r for r in recs if r["job"] == "put_block" and r["line_first"] == 2]
check(len(pb) == 1 and near(pb[0]["bw_bytes_s"], 295908 * 1024), "put_block K/sec * 1024")
_, recs = import_export(os.path.join(FIX, "shm-q-text.txt"))
pc = [r for r in recs if r["job"] == "putc"]
check(len(pc) == 1 and near(pc[0]["bw_bytes_s"], 1305 * 1024), "text '1305k' = 1305 KiB/s")

# a 1.96 line (48 fields): the 1.98 fixture line without fields 7-8 (seeks, seek_proc_count)
with tempfile.TemporaryDirectory() as tmp:
    f = open(os.path.join(FIX, "shm-q.csv")).read().strip().split(",")
    f196 = ["1.96"] + f[1:7] + f[9:]
    path = os.path.join(tmp, "v196.csv")
    open(path, "w").write(",".join(f196) + "\n")
    _, recs = import_export(path)
    exp = expected_csv(path)
    check(len(recs) == len(exp) == 12, "1.96 line: %d records" % len(recs))
    gc = [r for r in recs if r["job"] == "getc"]
    check(len(gc) == 1 and near(gc[0]["bw_bytes_s"], float(f[15]) * 1024), "1.96 getc")

    def bad(name, content, want, fmt=True):
        path = os.path.join(tmp, name)
        with open(path, "wb") as fh:
            fh.write(content)
        args = ["--db", os.path.join(tmp, "e.sqlite"), "import"]
        p = run(args + (["--format", "bonnie++"] if fmt else []) + [path])
        check(p.returncode == 1, "%s: exit %d, expected 1" % (name, p.returncode))
        check(want.format(path=path) in p.stderr,
              "%s: stderr %r lacks %r" % (name, p.stderr.strip(), want.format(path=path)))

    raw = open(os.path.join(FIX, "shm-q.csv"), "rb").read()
    bad("cut.csv", raw[:200], "{path}:1:1: error: expected 50 fields in a bonnie++ 1.98 CSV "
        "line, got 44")
    bad("garbled.csv", raw.replace(b",1305,99,", b",13x5,99,"),
        "{path}:1:40: error: expected a throughput in K/sec for 'putc', got '13x5'")
    bad("garbled-lat.csv", raw.replace(b"12543us", b"12543xs"),
        "error: expected a latency such as '9829us' for 'putc', got '12543xs'")
    text = open(os.path.join(FIX, "shm-q-text.txt"), "rb").read()
    bad("cut-text.txt", text[:270],
        "{path}:5: error: expected a 'Latency' row after the bonnie++ result row")
    bad("nothing.txt", b"hello\n", "{path}:1: error: no bonnie++ result found")

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
