#!/usr/bin/python3
"""e2e (issue 13): network, bonnie++ and notes input that ended early, and inputs that were
wrongly refused.

A cut copy of a real fixture either fails with a located error or stores exactly what the whole
file stores; a result whose own summary block is incomplete is an error, never another number
(one stream as the -P total, the sender's figure for the receiver's, a cut row's packets); a
test dropped for want of its summary is named in a warning. iperf3 text written with
--timestamps or --title (every line prefixed) and an iperf2 -y C server log of a --dualtest run
(the client banner first) import, with values read here from the raw files."""
import csv, io, os, re, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.environ.get("FIXTURES", "tests/fixtures")
IPERF = os.path.join(FIX, "iperf")
t = Checks("attack_net", rel=1e-3, abs_tol=1e-9)

BYTES = {"Bytes": 1, "KBytes": 1024, "MBytes": 1024 ** 2, "GBytes": 1024 ** 3}
BITS = {"bits": 1, "Kbits": 1e3, "Mbits": 1e6, "Gbits": 1e9}
ROW = re.compile(r"^\[\s*(\d+|SUM)\]\s+([0-9.]+)-\s*([0-9.]+)\s+sec\s+([0-9.]+) (\w*Bytes)\s+"
                 r"([0-9.]+) (\w*bits)/sec(.*)$")


def raw(name):
    with open(os.path.join(IPERF, name), "rb") as f:
        return f.read()


def rows(text):
    """The report rows of iperf text (prefix already removed): dicts with the line number."""
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        m = ROW.match(line)
        if m:
            ident, a, b, tr, tu, rate, ru, tail = m.groups()
            out.append({"id": ident, "start": float(a), "end": float(b),
                        "bytes": float(tr) * BYTES[tu], "bw": float(rate) * BITS[ru] / 8,
                        "tail": tail.strip(), "line": no})
    return out


def line_end(data, pred):
    """The byte offset just after the first line for which pred(line text) holds."""
    off = 0
    for line in data.split(b"\n"):
        off += len(line) + 1
        if pred(line.decode()):
            return off
    raise AssertionError("no such line")


def import_cut(name, data, *opts):
    """Imports data (a cut copy of fixture name, under that name) into a fresh warehouse:
    (CompletedProcess, exported results, the copy's path)."""
    with tempfile.TemporaryDirectory(prefix="bdb-net-") as tmp:
        path = bdb.write(os.path.join(tmp, name), data)
        p, recs = bdb.import_export(path, *opts)
    return p, recs, path


def rejected_at(what, name, data, line, want):
    """The cut copy is refused: exit 1 and `COPY:LINE[:COL]: error: ...want...`."""
    p, recs, path = import_cut(name, data)
    t.eq(p.returncode, 1, "%s: exit status (%s)" % (what, p.stderr.strip()[-300:]))
    located = r"^%s:%d(:\d+)?: error: .*%s" % (re.escape(path), line, re.escape(want))
    t.ok(re.search(located, p.stderr, re.M), "%s: stderr %r lacks '%s:%d: error: ...%s'" % (
        what, p.stderr.strip(), os.path.basename(path), line, want))
    t.eq(recs, [], "%s: results stored" % what)


def lines_in(data):
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


# ---- 1. iperf3 text -P 2 cut after its first stream's summary: that stream was the total
data = raw("iperf3_tcp_P2.txt")
cut = data[:line_end(data, lambda l: l.startswith("[  5]") and l.rstrip().endswith("receiver"))]
rejected_at("iperf3 -P 2 cut before [SUM]", "iperf3_tcp_P2.txt", cut, lines_in(cut),
            "expected iperf3 summary row '[SUM] ... sender'")

# ---- 2. iperf3 UDP text cut inside the receiver row (after '0/7'): the packets came from it
data = raw("iperf3_udp.txt")
recv = data.index(b"receiver")
cut = data[:data.rindex(b"/", 0, recv) + 2]
rejected_at("iperf3 UDP cut in the receiver row", "iperf3_udp.txt", cut, lines_in(cut),
            "expected iperf3 summary row '[  5] ... receiver'")

# ---- 3. iperf2 text -P 2 cut before the whole-test [SUM] row
data = raw("iperf2_tcp_P2.txt")
whole_rows = [r for r in rows(data.decode()) if r["start"] == 0 and r["end"] > 2]
last_stream = [r for r in whole_rows if r["id"] != "SUM"][-1]["line"]
cut = b"\n".join(data.split(b"\n")[:last_stream]) + b"\n"
rejected_at("iperf2 -P 2 cut before [SUM]", "iperf2_tcp_P2.txt", cut, last_stream,
            "expected iperf whole-test row '[SUM] 0.0...'")

# ---- 4. iperf2 UDP client cut before its Server Report row (the sender's figure was stored)
data = raw("iperf2_udp.txt")
cut = data[:line_end(data, lambda l: "Server Report:" in l)]
rejected_at("iperf2 UDP cut before the Server Report", "iperf2_udp.txt", cut, lines_in(cut),
            "expected iperf UDP 'Server Report' of stream [  1]")

# ---- 5. iperf2 UDP server log cut inside the whole-test row's UDP columns (after '0/1')
data = raw("iperf2_server_udp.txt")
first = [r for r in rows(data.decode()) if r["start"] == 0 and r["end"] > 1.5][0]
row_line = data.split(b"\n")[first["line"] - 1]
start = line_end(data, lambda l: l == row_line.decode()) - len(row_line) - 1
cut = data[:start + row_line.rindex(b"/") + 2]
rejected_at("iperf2 UDP server row cut in its columns", "iperf2_server_udp.txt", cut,
            first["line"], "no whole-test row")

# ---- 6. iperf2 server log cut after the second test's first interval row: that test is
# dropped with a warning, the first one stored with the whole file's values
data = raw("iperf2_server.txt")
text = data.decode()
tests = [m.start() for m in re.finditer(r"(?m)^\[\s*\d+\] local .* connected with", text)]
second = text[tests[1]:]
first_row = rows(second)[0]
cut_at = tests[1] + len("\n".join(second.split("\n")[:first_row["line"]])) + 1
p, recs, path = import_cut("iperf2_server.txt", data[:cut_at])
t.eq(p.returncode, 0, "iperf2 server log cut in its second test: exit status " + p.stderr)
second_line = text[:tests[1]].count("\n") + 1
t.ok(re.search(r"^%s:%d: warning: iperf test from line %d ends before its whole-test rows: "
               r"not imported$" % (re.escape(path), second_line, second_line), p.stderr, re.M),
     "iperf2 server log cut: no warning naming the dropped test: %r" % p.stderr)
head = rows(text[:tests[1]])
whole = [r for r in head if r["start"] == 0 and r["end"] > 1.5][-1]
t.eq(len(recs), 1, "iperf2 server log cut in its second test: results")
for r in recs[:1]:
    t.near(r.get("bw_bytes_s"), whole["bw"], "iperf2 server log cut: first test's bw_bytes_s")
    t.near(r.get("io_bytes"), whole["bytes"], "iperf2 server log cut: first test's io_bytes")
    t.near(r.get("runtime_ms"), (whole["end"] - whole["start"]) * 1000,
           "iperf2 server log cut: first test's runtime_ms")

# ---- 7. iperf2 CSV cut inside a whole-test row: the cut bytes/rate were stored
for name in ("iperf2_tcp.csv", "iperf2_tcp_P2.csv"):
    data = raw(name)
    recs_raw = list(csv.reader(io.StringIO(data.decode())))
    last = len(recs_raw)
    cut = data[:len(data) - 1 - len(recs_raw[-1][8]) // 2]  # half the last row's rate
    p, recs, path = import_cut(name, cut)
    wholes = [r for r in recs_raw[:-1] if r[6].startswith("0.0-") and r[6] != "0.0-1.0"]
    if not wholes:
        t.eq(p.returncode, 1, "%s cut in its last row: exit status" % name)
        t.ok(re.search(r"^%s:%d: error: no whole-test row" % (re.escape(path), last),
                       p.stderr, re.M), "%s cut: no located error: %r" % (name, p.stderr))
        continue
    t.eq(p.returncode, 0, "%s cut in its last row: exit status %s" % (name, p.stderr))
    dropped = [no for no, r in enumerate(recs_raw, 1) if r[2] == recs_raw[-1][2]][0]
    t.ok(re.search(r"^%s:%d: warning: iperf connection of line %d has no whole-test row" % (
        re.escape(path), dropped, dropped), p.stderr, re.M),
        "%s cut: no warning naming the dropped connection: %r" % (name, p.stderr))
    t.eq(sorted(r["bw_bytes_s"] for r in recs), sorted(float(r[8]) / 8 for r in wholes),
         "%s cut in its last row: the other connections' bandwidth" % name)

# ---- 8. a note with pasted iperf3 -P 2 output cut after its first stream's summary
data = raw("iperf3_tcp_P2.txt")
cut = data[:line_end(data, lambda l: l.startswith("[  5]") and l.rstrip().endswith("receiver"))]
note = b"# loopback, two streams\n\n$ iperf3 -c 127.0.0.1 -P 2\n" + cut
p, recs, path = import_cut("note.md", note, "--format", "notes")
t.ok(p.returncode == 1 or all(r.get("numjobs") != 1 and "bw_bytes_s" not in r for r in recs),
     "note with iperf3 -P 2 cut before [SUM]: stored %r (%s)" % (
         [(r.get("numjobs"), r.get("bw_bytes_s")) for r in recs], p.stderr.strip()))
if p.returncode == 1:
    t.ok(re.search(r"^%s:\d+: error: " % re.escape(path), p.stderr, re.M),
         "note cut: no located error: %r" % p.stderr)


# ---- 9. bonnie++: a CSV run line cut to a few fields was dropped silently, and so was a text
# table cut before its result row
BONNIE = os.path.join(FIX, "bonnie")
with open(os.path.join(BONNIE, "disk-x2.csv"), "rb") as f:
    data = f.read()
runs = data.split(b"\n")
cut = b"\n".join(runs[:2]) + b"\n" + b",".join(runs[2].split(b",")[:3])
rejected_at("bonnie++ CSV run line cut to 3 fields", "disk-x2.csv", cut, 3,
            "expected 50 fields in a bonnie++ 1.98 CSV line, got 3")
rejected_at("bonnie++ CSV run line cut to '1.9'", "disk-x2.csv", cut[:cut.rindex(b"\n") + 4], 3,
            "expected a whole bonnie++ CSV line, got the end of the input")
with open(os.path.join(BONNIE, "shm-q-text.txt"), "rb") as f:
    data = f.read()
tables = [no for no, l in enumerate(data.split(b"\n"), 1) if l.startswith(b"Version ")]
cut = b"\n".join(data.split(b"\n")[:tables[1] + 2]) + b"\n"
rejected_at("bonnie++ text cut before the second table's row", "shm-q-text.txt", cut,
            tables[1] + 2, "expected a bonnie++ result row under the table of line %d" % tables[1])
with open(os.path.join(BONNIE, "disk-text-and-csv.txt"), "rb") as f:
    data = f.read()
second = data.index(b"Version ", data.index(b"Version ") + 1)
rejected_at("bonnie++ tables and CSV cut in the second table (the table's rounded figures)",
            "disk-text-and-csv.txt", data[:second + 5], data[:second].count(b"\n") + 1,
            "expected a whole bonnie++ table line, got the end of the input")

# ---- 10. iperf3 text with every line prefixed (--timestamps, --title)
PREFIX = re.compile(r"^(?:\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4} |run1:  )")


def expect_iperf3_text(name):
    text = "\n".join(PREFIX.sub("", l) for l in raw(name).decode().splitlines())
    summary = [r for r in rows(text) if r["tail"].endswith(("sender", "receiver"))]
    streams = {r["id"] for r in summary if r["id"] != "SUM"}
    pick = [r for r in summary if r["id"] == ("SUM" if len(streams) > 1 else r["id"])]
    snd = [r for r in pick if r["tail"].endswith("sender")][-1]
    rcv = [r for r in pick if r["tail"].endswith("receiver")][-1]
    return {"numjobs": len(streams), "bw_bytes_s": rcv["bw"], "io_bytes": rcv["bytes"],
            "runtime_ms": (rcv["end"] - rcv["start"]) * 1000, "sender_bw_bytes_s": snd["bw"],
            "retransmits": float(snd["tail"].split()[0]), "direction": "send"}


for name in ("iperf3_timestamps.txt", "iperf3_title_P2.txt"):
    p, recs = bdb.import_export(os.path.join(IPERF, name))
    t.eq(p.returncode, 0, "%s: exit status %s" % (name, p.stderr.strip()))
    t.eq(len(recs), 1, "%s: results" % name)
    for k, v in expect_iperf3_text(name).items():
        got = recs[0].get(k) if recs else None
        if isinstance(v, str) or k == "numjobs":
            t.eq(got, v, "%s: %s" % (name, k))
        else:
            t.near(got, v, "%s: %s" % (name, k))

# ---- 11. iperf2 -y C server log of a --dualtest run, the client banner first
name = "iperf2_server_dualtest.csv"
lines = [l for l in raw(name).decode().splitlines() if l.count(",") == 8]
want = sorted((float(f[8]) / 8, float(f[7])) for f in csv.reader(lines))
p, recs = bdb.import_export(os.path.join(IPERF, name))
t.eq(p.returncode, 0, "%s: exit status %s" % (name, p.stderr.strip()))
t.ok("(iperf2-csv)" in p.stderr, "%s: not imported as iperf2-csv: %r" % (name, p.stderr))
t.eq(len(recs), len(want), "%s: results" % name)
for (bw, nbytes), r in zip(want, sorted(recs, key=lambda r: r["bw_bytes_s"])):
    t.near(r["bw_bytes_s"], bw, "%s: bw_bytes_s" % name)
    t.near(r["io_bytes"], nbytes, "%s: io_bytes" % name)
    t.near(r["runtime_ms"], 2000, "%s: runtime_ms" % name)

sys.exit(t.done())
