"""MinIO warp text report importer end to end (issue 34). Each real fixture (tests/fixtures/warp,
warp's reports pasted in mmontes11/storage-bench: README.md there) is read here with regular
expressions of its own, its units converted here (warp's MiB is 2^20 bytes, its durations Go's),
and compared with `benchdb export`; damaged copies are refused at their line and column."""
import glob, os, re, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "warp")
t = Checks("warp", rel=1e-9, abs_tol=1e-6, none_equal=True)
MIB = 1 << 20
UNIT = {"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}
RW = {"PUT": ("write", "write"), "GET": ("read", "read"), "DELETE": ("delete", "write"),
      "STAT": ("stat", "read"), "Total": ("mixed", "mixed")}
REQ = {"Avg": "mean", "50%": "p50", "90%": "p90", "99%": "p99", "Fastest": "min",
       "Slowest": "max", "StdDev": "stddev"}
TTFB = {"Avg": "mean", "Best": "min", "25th": "p25", "Median": "p50", "75th": "p75",
        "90th": "p90", "99th": "p99", "Worst": "max", "StdDev": "stddev"}


def ns(text):
    parts = re.findall(r"([0-9.]+)(ns|us|µs|ms|s|m|h)", text)
    t.eq("".join(a + b for a, b in parts), text, "duration read whole: " + text)
    return sum(float(a) * UNIT[b] for a, b in parts)


def rate(text, e, bw, iops):
    m = re.fullmatch(r"(?:([0-9.]+) ?MiB/s, )?([0-9.]+) obj/s", text)
    if m.group(1):
        e[bw] = float(m.group(1)) * MIB
    e[iops] = float(m.group(2))


def expected(path):
    """The records a report must give, read from the file alone."""
    recs, e, split = [], None, False
    for no, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        m = re.fullmatch(r"Report: (\w+)\. Concurrency: (\d+)\. Ran: (\S+)", line)
        if m:
            rw, direction = RW[m.group(1)]
            e = {"tool": "warp", "format": "warp", "job": m.group(1), "rw": rw,
                 "direction": direction, "numjobs": int(m.group(2)),
                 "runtime_ms": ns(m.group(3)) / 1e6, "line_first": no, "bs_bytes": None}
            recs.append(e)
            split = False
            continue
        if e is None or not line.strip():
            continue
        if line.startswith("─"):
            e = None
            continue
        e["line_last"] = no
        if line.startswith("Throughput, split into"):
            split = True
        elif split:
            m = re.fullmatch(r" \* (Fastest|50% Median|Slowest): (.*)", line)
            k = {"Fastest": "fastest", "50% Median": "median", "Slowest": "slowest"}[m.group(1)]
            rate(m.group(2), e, "seg_%s_bw_bytes_s" % k, "seg_%s_iops" % k)
        elif line.startswith(" * Average: "):
            rate(line[len(" * Average: "):], e, "bw_bytes_s", "iops")
        elif line.startswith(" * Reqs: ") or line.startswith(" * TTFB: "):
            kind, names = ("lat", REQ) if "Reqs" in line else ("ttfb", TTFB)
            for label, dur in re.findall(r"(\w+%?): ([0-9.]+[a-zµ]+)", line[9:]):
                e["%s_%s_ns" % (kind, names[label])] = ns(dur)
    return recs


inputs = sorted(glob.glob(os.path.join(FIX, "*.txt")))
t.eq(len(inputs), 4, "fixtures found")
ops = set()
for path in inputs:
    want = expected(path)
    p, recs = bdb.import_export(path)
    name = os.path.basename(path)
    t.eq(p.returncode, 0, name + ": import " + p.stderr.strip())
    if not t.eq(len(recs), len(want), name + ": one result per Report block"):
        continue
    for r, e in zip(recs, want):
        ops.add(e["job"])
        for k, v in e.items():
            if isinstance(v, float):
                t.near(r.get(k), v, "%s %s: %s" % (name, e["job"], k))
            else:
                t.eq(r.get(k), v, "%s %s: %s" % (name, e["job"], k))
t.eq(ops, {"PUT", "GET", "DELETE", "STAT", "Total"}, "every operation seen")

# ---- damaged copies: refused at their line and column ----
with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(FIX, "seaweedfs-get-1mib-in-cluster.txt")
    raw = open(src, encoding="utf-8").read()

    def pos(needle):
        off = raw.index(needle)
        return raw.count("\n", 0, off) + 1, off - (raw.rfind("\n", 0, off) + 1) + 1

    def bad(name, content, want):
        path = bdb.write(os.path.join(tmp, name), content)
        bdb.rejects(t, path, want.format(path=path), "--format", "warp")

    line, col = pos("127.7ms")
    bad("duration.txt", raw.replace("90%: 127.7ms", "90%: fast"),
        "{path}:%d:%d: error: expected a duration such as '107.7ms' for lat '90%%', got 'fast'"
        % (line, col))
    line, col = pos("677.67 MiB/s")
    bad("rate.txt", raw.replace("677.67 MiB/s", "x MiB/s", 1),
        "{path}:%d:%d: error: expected a rate such as '79.43 MiB/s' in warp's report" % (line, col))
    line, _ = pos("Report: GET")
    bad("no-average.txt", re.sub(r" \* Average: [^\n]*\n", "", raw),
        "{path}:%d: error: expected warp's ' * Average:' line after 'Report:'" % line)
    line, col = pos("Concurrency: 64")  # the error points at the count
    bad("concurrency.txt", raw.replace("Concurrency: 64", "Concurrency: lots"),
        "{path}:%d:%d: error: expected 'Concurrency: N.' in warp's report, got 'lots. Ran: 57s'"
        % (line, col + len("Concurrency: ")))
    cut = raw.index("obj/s", raw.index(" * Average"))
    bad("cut.txt", raw[:cut], "{path}:%d:" % (raw.count("\n", 0, cut) + 1))
    bad("none.txt", "Reqs: 1, Errs:0\n", "{path}:1: error: no warp result found")

# ---- a note with warp's output pasted in: the same records, at the note's lines ----
note = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "notes", "warp-minio-synology.md")
p, recs = bdb.import_export(note)
t.eq(p.returncode, 0, "note: import " + p.stderr.strip())
t.eq(len(recs), 14, "note: one result per Report block of its 6 pasted outputs")
t.ok(all(r["format"] == "notes" for r in recs), "note: the records are the note's")
lines = open(note, encoding="utf-8").read().split("\n")
# the fixtures cut from this note (tests/fixtures/warp/README.md): their first line in it
for name, first in (("minio-mixed-1mib-in-cluster.txt", 132), ("minio-put-128mib-in-cluster.txt", 290)):
    want = expected(os.path.join(FIX, name))
    got = [r for r in recs if want[0]["line_first"] + first - 1 <= r["line_first"]
           <= want[-1]["line_last"] + first - 1]
    if not t.eq(len(got), len(want), "note: %s's blocks found" % name):
        continue
    for r, e in zip(got, want):
        for k, v in e.items():
            if k in ("format",):
                continue
            if k in ("line_first", "line_last"):
                v += first - 1
            if isinstance(v, float):
                t.near(r.get(k), v, "note %s %s: %s" % (name, e["job"], k))
            else:
                t.eq(r.get(k), v, "note %s %s: %s" % (name, e["job"], k))
        heading = [ln[3:] for ln in lines[:r["line_first"]] if ln.startswith("## ")][-1]
        t.eq(r["tags"].get("heading"), heading, "note %s %s: its heading" % (name, e["job"]))
sys.exit(t.done())
