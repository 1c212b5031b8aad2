"""bonnie++ importer end to end: expected values are read from the raw fixtures here (CSV split,
text tables split on whitespace), independently of benchdb, then compared with
`benchdb export --format ndjson`."""
import os, re, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "bonnie")
t = Checks("bonnie", rel=1e-3, abs_tol=1e-12, none_equal=True)

TESTS = ["putc", "put_block", "rewrite", "getc", "get_block", "seeks",
         "seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat", "ran_del"]
DIRS = ["write", "write", "mixed", "read", "read", "read",
        "write", "read", "write", "write", "read", "write"]
LAT = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
SIZE = {"K": 1024, "M": 1 << 20, "G": 1 << 30}


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
    t.ok(len(exp) > 0, name + ": the reference reader found results")
    p, recs = bdb.import_export(path)
    t.ok(p.returncode == 0, "%s: import exit %d: %s" % (name, p.returncode, p.stderr.strip()))
    t.ok(len(recs) == len(exp), "%s: %d records, expected %d" % (name, len(recs), len(exp)))
    by = {(r["job"], r["line_first"]): r for r in recs}
    for e in exp:
        r = by.get((e["job"], e["line"]))
        where = "%s:%d %s" % (name, e["line"], e["job"])
        t.ok(r is not None, where + ": missing")
        if r is None:
            continue
        t.ok(r["tool"] == "bonnie++" and r["format"] == "bonnie++", where + ": tool/format")
        t.eq(r["host"], e["host"], where + ": host")
        t.eq(r["direction"], e["direction"], where + ": direction")
        for k in ("bw_bytes_s", "iops", "size_bytes", "cpu_pct", "lat_max_ns"):
            t.near(r.get(k), e[k], "%s: %s" % (where, k))
        if e["too_fast"]:
            t.ok(r["tags"].get("note") == "too-fast-to-measure" and r["bw_bytes_s"] is None
                 and r["iops"] is None, where + ": +++++ must be a tag, not a number")

# explicit unit checks, by hand from the fixtures
_, recs = bdb.import_export(os.path.join(FIX, "disk-x2.csv"))
pb = [r for r in recs if r["job"] == "put_block" and r["line_first"] == 2]
t.ok(len(pb) == 1 and t.close(pb[0]["bw_bytes_s"], 295908 * 1024), "put_block K/sec * 1024")
_, recs = bdb.import_export(os.path.join(FIX, "shm-q-text.txt"))
pc = [r for r in recs if r["job"] == "putc"]
t.ok(len(pc) == 1 and t.close(pc[0]["bw_bytes_s"], 1305 * 1024), "text '1305k' = 1305 KiB/s")

# a 1.96 line (48 fields): the 1.98 fixture line without fields 7-8 (seeks, seek_proc_count)
with tempfile.TemporaryDirectory() as tmp:
    f = open(os.path.join(FIX, "shm-q.csv")).read().strip().split(",")
    f196 = ["1.96"] + f[1:7] + f[9:]
    path = bdb.write(os.path.join(tmp, "v196.csv"), ",".join(f196) + "\n")
    _, recs = bdb.import_export(path)
    exp = expected_csv(path)
    t.ok(len(recs) == len(exp) == 12, "1.96 line: %d records" % len(recs))
    gc = [r for r in recs if r["job"] == "getc"]
    t.ok(len(gc) == 1 and t.close(gc[0]["bw_bytes_s"], float(f[15]) * 1024), "1.96 getc")

    def bad(name, content, want):
        path = bdb.write(os.path.join(tmp, name), content)
        bdb.rejects(t, path, want.format(path=path), "--format", "bonnie++")

    raw = open(os.path.join(FIX, "shm-q.csv"), "rb").read()
    bad("cut.csv", raw[:200], "{path}:1:1: error: expected 50 fields in a bonnie++ 1.98 CSV "
        "line, got 44")
    bad("garbled.csv", raw.replace(b",1305,99,", b",13x5,99,"),
        "{path}:1:40: error: expected a throughput in K/sec for 'putc', got '13x5'")
    bad("garbled-lat.csv", raw.replace(b"12543us", b"12543xs"),
        "error: expected a latency such as '9829us' for 'putc', got '12543xs'")
    text = open(os.path.join(FIX, "shm-q-text.txt"), "rb").read()
    bad("cut-text.txt", text[:270],  # inside the result row
        "{path}:4: error: expected a whole bonnie++ table line, got the end of the input (the "
        "line is cut)")
    row_end = text.index(b"\n", 270) + 1
    bad("cut-text-latency.txt", text[:row_end],
        "{path}:5: error: expected a 'Latency' row after the bonnie++ result row")
    bad("nothing.txt", b"hello\n", "{path}:1: error: no bonnie++ result found")

sys.exit(t.done())
