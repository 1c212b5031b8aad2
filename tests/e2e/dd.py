"""dd importer end to end: expected values are read from the raw fixture text here (regex),
independently of benchdb, then compared with `benchdb export --format ndjson`."""
import os, re, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "dd")
t = Checks("dd", rel=1e-3, abs_tol=1e-12, none_equal=True)


SUMMARY = re.compile(r"^(\d+) bytes?(?: \([^)]*\))? copied, ([0-9.e+-]+) s, (.*)$")
RECORDS = re.compile(r"^(\d+)\+(\d+) records (in|out)$")
CMD = re.compile(r"^\+ (?:time (?:-p )?)?(?:/usr/bin/time )?(busybox )?dd (.*)$")
SIZES = {"": 1, "k": 1024, "K": 1024, "M": 1 << 20, "G": 1 << 30}


def size(v):
    m = re.fullmatch(r"(\d+)([kKMG]?)", v)
    return int(m.group(1)) * SIZES[m.group(2)]


def bash_real(v):
    m = re.fullmatch(r"(\d+)m([0-9.]+)s", v)
    return int(m.group(1)) * 60 + float(m.group(2)) if m else float(v)


def expected(path):
    """One dict per dd summary, from the text alone."""
    runs, cmd, cur, cmd_line, err_line = [], None, None, None, None
    lines = open(path, encoding="utf-8", newline="").read().split("\n")
    for no, line in enumerate(lines, 1):
        m = CMD.match(line)
        if m:
            ops = dict(o.split("=", 1) for o in m.group(2).split())
            cmd = {"busybox": bool(m.group(1)), **ops}
            cur, cmd_line, err_line = None, no, None
            continue
        if line.startswith("dd: "):
            err_line = err_line or no
            continue
        final = line.split("\r")[-1] if "\r" in line and not line.endswith("\r") else line
        if "\r" in line:
            cur = {"cmd": cmd, "first": no, "out": None, "bytes": None, "secs": None,
                   "time": None, "progress": True}
            runs.append(cur)
            continue  # status=progress updates (the final summary is on its own line)
        m = RECORDS.match(final)
        if m:
            if m.group(3) == "in" and cur and cur.get("progress"):
                cur["progress"] = False
            elif m.group(3) == "in":
                cur = {"cmd": cmd, "first": cmd_line or err_line or no, "out": None,
                       "bytes": None, "secs": None, "time": None}
                cmd_line = err_line = None
                runs.append(cur)
            else:
                cur["out"] = (int(m.group(1)), int(m.group(2)))
            cur["last"] = no
            continue
        m = SUMMARY.match(final)
        if m and cur:
            cur["bytes"], cur["secs"], cur["last"] = int(m.group(1)), float(m.group(2)), no
            continue
        m = re.match(r"^real[ \t]+(\S+)$", line)
        if m and cur and cur["time"] is None:
            cur["time"], cur["last"] = bash_real(m.group(1)), no
            continue
        m = re.search(r" (\d+):([0-9.]+)elapsed ", line)
        if m and cur and cur["time"] is None:
            cur["time"], cur["last"] = int(m.group(1)) * 60 + float(m.group(2)), no
    out = []
    for r in runs:
        c = r["cmd"] or {}
        b, s = r["bytes"], r["secs"]
        if b is None and c and r["out"] and r["out"][1] == 0:
            b = r["out"][0] * size(c.get("bs", "512"))
        if s is None:
            s = r["time"]
        e = {"line_first": r["first"], "line_last": r["last"],
             "io_bytes": b, "runtime_ms": s * 1000 if s is not None else None,
             "bw_bytes_s": b / s if b and s else None}  # no rate over 0 bytes
        if c:
            e["bs_bytes"] = size(c.get("bs", "512"))
            e["direct"] = int("direct" in c.get("oflag", "") + c.get("iflag", ""))
            e["sync"] = int("sync" in c.get("oflag", ""))
            e["fdatasync"] = int("fdatasync" in c.get("conv", ""))
            e["fsync"] = int(re.search(r"(^|,)fsync", c.get("conv", "")) is not None)
            e["direction"] = ("read" if c.get("of") == "/dev/null" else
                              "write" if c.get("if") in ("/dev/zero", "/dev/urandom") else None)
        out.append(e)
    # one dd binary wrote a transcript: the variant any run shows applies to the file
    variant = ("BusyBox" if any(r["cmd"] and r["cmd"]["busybox"] for r in runs) else
               "GNU coreutils" if any(r["secs"] is not None for r in runs) else None)
    for e in out:
        e["tool_version"] = variant
    return out


FIELDS = ["io_bytes", "runtime_ms", "bw_bytes_s"]
WL = ["bs_bytes", "direct", "sync", "fdatasync", "fsync", "direction", "tool_version"]

for name in sorted(os.listdir(FIX)):
    if not name.endswith(".txt") or name == "gnu-error-nofile.txt":
        continue
    path = os.path.join(FIX, name)
    exp = expected(path)
    p, recs = bdb.import_export(path)
    t.ok(p.returncode == 0, "%s: import exit %d: %s" % (name, p.returncode, p.stderr.strip()))
    recs.sort(key=lambda r: r["line_first"])
    t.ok(len(recs) == len(exp), "%s: %d records, expected %d" % (name, len(recs), len(exp)))
    for r, e in zip(recs, exp):
        where = "%s:%s" % (name, e["line_first"])
        t.ok(r["format"] == "dd" and r["tool"] == "dd", where + ": format/tool")
        for k in ["line_first", "line_last"]:
            t.eq(r[k], e[k], "%s: %s" % (where, k))
        for k in FIELDS:
            t.near(r.get(k), e[k], "%s: %s" % (where, k))
        for k in WL:
            if k in e:
                t.eq(r.get(k), e[k], "%s: %s" % (where, k))

# explicit conversions: the corpus-style single summaries, by hand from the text
by_hand = {
    "gnu-default.txt": 67108864 / 0.14217,
    "gnu-progress.txt": 1258291200 / 4.88035,   # the final summary, not the last progress update
}
for name, bw in by_hand.items():
    _, recs = bdb.import_export(os.path.join(FIX, name))
    t.ok(len(recs) == 1 and t.close(recs[0]["bw_bytes_s"], bw), "%s: bw_bytes_s %r" % (name, bw))

# busybox records only: no rate, no invented numbers
_, recs = bdb.import_export(os.path.join(FIX, "busybox-default.txt"))
t.ok(len(recs) == 1 and recs[0]["bw_bytes_s"] is None and recs[0]["io_bytes"] is None,
     "busybox-default.txt: records-only run must have no metrics")
t.ok(len(recs) == 1 and recs[0]["tags"].get("records_out") == "32+0", "busybox records_out tag")

# a partial copy that dd reported as an error
_, recs = bdb.import_export(os.path.join(FIX, "gnu-error-dev-full.txt"))
t.ok(len(recs) == 1 and "No space left on device" in (recs[0]["error_msg"] or "")
     and recs[0]["io_bytes"] == 0, "gnu-error-dev-full.txt: error_msg and io_bytes=0")

# a copy of nothing: the bytes (0, from the text) are kept, a rate over them is not a
# measurement (dd's "0.0 kB/s" would compare as a throughput of zero); a located warning
path = os.path.join(FIX, "gnu-zero-bytes.txt")
text = open(path).read().split("\n")
no = next(i for i, l in enumerate(text, 1) if l.startswith("0 bytes copied"))
p, recs = bdb.import_export(path)
t.ok(p.returncode == 0 and len(recs) == 1 and recs[0]["io_bytes"] == 0 and
     recs[0]["bw_bytes_s"] is None and not recs[0]["error"], "gnu-zero-bytes.txt: %r" % recs)
t.ok("%s:%d: warning: dd copied 0 bytes: no throughput stored" % (path, no) in p.stderr,
     "gnu-zero-bytes.txt: warning %r" % p.stderr)

# errors: dd's own failure, and truncated/garbled files
with tempfile.TemporaryDirectory() as tmp:
    def bad(name, content, want):
        path = bdb.write(os.path.join(tmp, name), content)
        bdb.rejects(t, path, want.format(path=path), "--format", "dd")

    nofile = os.path.join(FIX, "gnu-error-nofile.txt")
    p, _ = bdb.import_export(nofile)
    t.ok(p.returncode == 1 and ("%s:1: error: dd run failed: failed to open "
                                "'/nonexistent/input': No such file or directory" % nofile)
         in p.stderr, "gnu-error-nofile.txt: %r" % p.stderr)
    raw = open(os.path.join(FIX, "gnu-default.txt"), "rb").read()
    bad("cut-records.txt", raw[:24],
        "{path}:2:5: error: expected 'N+M records in' or 'N+M records out', got '64+0 rec'")
    bad("cut-summary-start.txt", raw[:40],
        "{path}:3:1: error: expected a dd transfer summary after the records lines, "
        "got '6710886'")
    bad("cut-summary.txt", raw[:75],
        "{path}:3:43: error: expected a dd transfer summary 'N bytes ... copied, S s, R/s', "
        "got '67108864 bytes (67 MB, 64 MiB) copied, 0...'")
    bad("garbled-rate.txt", raw.replace(b"MB/s", b"MB/x"),
        "{path}:3:51: error: expected a dd transfer summary")
    bad("empty.txt", b"", "{path}:")

sys.exit(t.done())
