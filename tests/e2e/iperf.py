#!/usr/bin/python3
"""e2e: iperf3 JSON, iperf2/iperf3 text and iperf2 CSV imports.

Expected values are read from the raw fixtures here (json/regex), independently of benchdb,
then compared with `benchdb export --format ndjson` (0.1 % tolerance)."""
import datetime, json, os, re, shutil, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "iperf")
t = Checks("iperf", rel=1e-3, abs_tol=1e-12, none_equal=True)


BYTES = {"Bytes": 1, "KBytes": 1024, "MBytes": 1024 ** 2, "GBytes": 1024 ** 3, "TBytes": 1024 ** 4}
BITS = {"bits": 1, "Kbits": 1e3, "Mbits": 1e6, "Gbits": 1e9, "Tbits": 1e12}
ROW = re.compile(r"^\[\s*(\*?\d+|SUM)\](?:\[(\w\w-\w)\])?\s+([0-9.]+)-\s*([0-9.]+)\s+sec\s+([0-9.]+) "
                 r"(\w*Bytes)\s+([0-9.]+) (\w*bits)/sec(.*)$")


def iso_utc(seconds):
    """Unix seconds as export writes a time: ISO 8601 UTC."""
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def rows(text):
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        m = ROW.match(line)
        if m:
            ident, role, a, b, tr, tu, rate, ru, tail = m.groups()
            out.append({"id": ident, "role": role or "", "start": float(a), "end": float(b),
                        "bytes": float(tr) * BYTES[tu], "bw": float(rate) * BITS[ru] / 8,
                        "tail": tail.strip(), "line": i})
    return out


def expect_records(name, exp, recs):
    """exp: list of dicts of field -> value; each must match one record (in order)."""
    t.ok(len(recs) == len(exp), "%s: %d records, expected %d" % (name, len(recs), len(exp)))
    for i, (e, r) in enumerate(zip(exp, recs)):
        for k, v in e.items():
            got = r.get("tags", {}).get(k[4:]) if k.startswith("tag.") else r.get(k)
            number = isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool)
                                              and k not in ("numjobs",))
            t.ok(t.close(got, v) if number else got == v,
                 "%s record %d: %s = %r, expected %r" % (name, i, k, got, v))


def check_import(name, exp):
    """Imports the fixture name and compares its records with exp (see expect_records)."""
    p, recs = bdb.import_export(os.path.join(FIX, name))
    t.ok(p.returncode == 0, "%s: import exit %d: %s" % (name, p.returncode, p.stderr.strip()))
    expect_records(name, exp, recs)


# ---- iperf3 JSON
def iperf3_json_expect(path):
    text = open(path).read()
    dec, docs, i = json.JSONDecoder(), [], 0
    while True:
        j = text.find("{", i)
        if j < 0:
            break
        doc, i = dec.raw_decode(text, j)
        docs.append(doc)
    exp = []
    for doc in docs:
        end = doc.get("end") or {}
        if "sum_received" not in end and "sum" not in end:
            continue
        ts = doc["start"]["test_start"]
        proto = ts["protocol"].lower()
        client = "connecting_to" in doc["start"]
        pairs = [("send" if not ts["reverse"] else "receive", end["sum_sent"], end["sum_received"])]
        if "sum_sent_bidir_reverse" in end:
            pairs.append(("receive", end["sum_sent_bidir_reverse"], end["sum_received_bidir_reverse"]))
        for direction, sent, recv in pairs:
            e = {"tool": "iperf3", "tool_version": doc["start"]["version"], "direction": direction,
                 "numjobs": ts["num_streams"], "tag.protocol": proto,
                 "bw_bytes_s": recv["bits_per_second"] / 8, "io_bytes": float(recv["bytes"]),
                 "runtime_ms": recv["seconds"] * 1000,
                 "cpu_pct": end["cpu_utilization_percent"]["host_total"],
                 # the run's start: one file is one run, started by its first test
                 "started_at": iso_utc(docs[0]["start"]["timestamp"]["timesecs"]),
                 # the machine (uname's nodename), not its socket's address
                 "host": doc["start"]["system_info"].split()[1],
                 "tag.local_address": doc["start"]["connected"][0]["local_host"]}
            e["sender_bw_bytes_s"] = sent["bits_per_second"] / 8 if sent["bytes"] > 0 else None
            if proto == "tcp":
                e["retransmits"] = float(sent["retransmits"]) if sent["bytes"] > 0 else None
                local_sends = client == (direction == "send")
                rtts = [s["sender"]["mean_rtt"] for s in end["streams"]
                        if s["sender"].get("sender", True) and s["sender"].get("max_rtt", 0) > 0]
                e["rtt_mean_ns"] = sum(rtts) / len(rtts) * 1000 if local_sends and rtts else None
            else:
                e["jitter_ns"] = recv["jitter_ms"] * 1e6
                e["lost_packets"] = float(recv["lost_packets"])
                e["packets"] = float(recv["packets"])
            exp.append(e)
    return exp


for f in ["iperf3_tcp.json", "iperf3_tcp_P2.json", "iperf3_reverse.json", "iperf3_udp.json",
          "iperf3_bidir.json", "iperf3_server.json"]:
    check_import(f, iperf3_json_expect(os.path.join(FIX, f)))


# ---- iperf3 text
def iperf3_text_expect(path):
    text = open(path).read()
    tests = re.split(r"(?m)^(?=Server listening on|Connecting to host)", text)
    exp = []
    for t in tests:
        t = t.split("\nServer output:\n")[0]  # --get-server-output: the same test, again
        trs = [r for r in rows(t) if r["tail"].endswith(("sender", "receiver"))]
        if not trs:
            continue
        udp = "Jitter" in t
        server = "Accepted connection" in t
        for role in dict.fromkeys(r["role"] for r in trs):
            grp = [r for r in trs if r["role"] == role]
            pick = lambda kind: ([r for r in grp if r["id"] == "SUM" and r["tail"].endswith(kind)] or
                                 [r for r in grp if r["tail"].endswith(kind)] or [None])[-1]
            snd, rcv = pick("sender"), pick("receiver")
            if role:
                direction = "send" if role in ("TX-C", "RX-S") else "receive"
            elif server:
                direction = "receive" if snd else "send"
            else:
                direction = "receive" if "Reverse mode" in t else "send"
            src = rcv or snd
            e = {"tool": "iperf3", "direction": direction, "bw_bytes_s": src["bw"],
                 "io_bytes": src["bytes"], "tag.protocol": "udp" if udp else "tcp",
                 "numjobs": len({r["id"] for r in grp if r["id"] != "SUM"}),
                 "sender_bw_bytes_s": snd["bw"] if snd else None}
            if snd and not udp:
                e["retransmits"] = float(snd["tail"].split()[0])
            if udp and rcv:
                m = re.match(r"([0-9.]+) ms\s+(\d+)/(\d+)", rcv["tail"])
                e["jitter_ns"] = float(m.group(1)) * 1e6
                e["lost_packets"] = float(m.group(2))
                e["packets"] = float(m.group(3))
            exp.append(e)
    return exp


for f in ["iperf3_tcp.txt", "iperf3_tcp_P2.txt", "iperf3_reverse.txt", "iperf3_udp.txt",
          "iperf3_bidir.txt", "iperf3_server.txt", "iperf3_server_output.txt"]:
    check_import(f, iperf3_text_expect(os.path.join(FIX, f)))


# ---- iperf2 text: the last row of a stream that starts at 0 is its whole-test result
def whole(rs, ident):
    mine = [r for r in rs if r["id"] == ident]
    return [r for r in mine if r["start"] == 0][-1]


def iperf2_client(path, ident, sum_=False, report=False, retr=False):
    text = open(path).read()
    rs = rows(text)
    w = whole(rs, "SUM" if sum_ else ident)
    e = {"tool": "iperf", "direction": "send", "sender_bw_bytes_s": w["bw"],
         "bw_bytes_s": w["bw"], "io_bytes": w["bytes"],
         "runtime_ms": (w["end"] - w["start"]) * 1000}
    if report:  # UDP: the receiver's figures come from the Server Report row
        i = text.splitlines().index("[%3s] Server Report:" % ident)
        rep = [r for r in rs if r["line"] > i + 1][0]
        m = re.match(r"([0-9.]+) ms\s*(\d+)/\s*(\d+)", rep["tail"])
        e.update({"bw_bytes_s": rep["bw"], "io_bytes": rep["bytes"], "tag.protocol": "udp",
                  "jitter_ns": float(m.group(1)) * 1e6, "lost_packets": float(m.group(2)),
                  "packets": float(m.group(3))})
    if retr:
        e["retransmits"] = float(w["tail"].split()[1])
    return [e]


cases = [("iperf2_tcp.txt", iperf2_client(os.path.join(FIX, "iperf2_tcp.txt"), "1")),
         ("iperf2_tcp_P2.txt", iperf2_client(os.path.join(FIX, "iperf2_tcp_P2.txt"), "", sum_=True)),
         ("iperf2_udp.txt", iperf2_client(os.path.join(FIX, "iperf2_udp.txt"), "1", report=True)),
         ("iperf2_udp_enhanced.txt",
          iperf2_client(os.path.join(FIX, "iperf2_udp_enhanced.txt"), "1", report=True)),
         ("iperf2_tcp_enhanced.txt",
          iperf2_client(os.path.join(FIX, "iperf2_tcp_enhanced.txt"), "1", retr=True))]
cases[1][1][0]["numjobs"] = 2
# dual test: the client's own stream sends, the one its listener accepted receives
dual = rows(open(os.path.join(FIX, "iperf2_dualtest.txt")).read())
cases.append(("iperf2_dualtest.txt",
              [{"direction": "send", "bw_bytes_s": whole(dual, "1")["bw"]},
               {"direction": "receive", "bw_bytes_s": whole(dual, "2")["bw"],
                "sender_bw_bytes_s": None}]))
# server log (UDP): one record per test, the receiver's figures, direction as the client sent
srv = open(os.path.join(FIX, "iperf2_server_udp.txt")).read()
exp = []
for ident in sorted({r["id"] for r in rows(srv)}):
    w = whole(rows(srv), ident)
    m = re.match(r"([0-9.]+) ms\s*(\d+)/\s*(\d+)", w["tail"])
    exp.append({"direction": "send", "bw_bytes_s": w["bw"], "sender_bw_bytes_s": None,
                "jitter_ns": float(m.group(1)) * 1e6, "packets": float(m.group(3)),
                "tag.protocol": "udp"})
cases.append(("iperf2_server_udp.txt", exp))
for f, exp in cases:
    check_import(f, exp)

# server log (TCP, with -P, -r and -d tests): SUM rows for -P tests, every test found
srv = open(os.path.join(FIX, "iperf2_server.txt")).read()
p, recs = bdb.import_export(os.path.join(FIX, "iperf2_server.txt"))
t.ok(p.returncode == 0, "iperf2_server.txt: import exit %d" % p.returncode)
sums = [r["bw"] for r in rows(srv) if r["id"] == "SUM" and r["start"] == 0 and r["end"] > 1.5]
got = [r["bw_bytes_s"] for r in recs]
for s in sums[:2]:  # the -P tests' sums (the last SUM adds both directions of -d)
    t.ok(any(t.close(g, s) for g in got), "iperf2_server.txt: SUM %g not found in %s" % (s, got))
t.ok(sum(r["direction"] == "receive" for r in recs) == 2,
     "iperf2_server.txt: the -r and -d reverse streams are 'receive'")


# ---- iperf2 CSV: one record per connection's whole-test row
def csv_expect(path):
    conns = {}
    for line in open(path).read().splitlines():
        f = line.split(",")
        a, b = map(float, f[6].split("-"))
        if a == 0:
            conns[tuple(f[1:6])] = f
    exp = []
    for f in conns.values():
        e = {"tool": "iperf", "direction": "send", "bw_bytes_s": float(f[8]) / 8,
             "io_bytes": float(f[7]), "host": f[1], "peer": f[3],
             "tag.protocol": "udp" if len(f) >= 14 else "tcp"}
        if len(f) >= 14:
            ok = int(f[11]) >= 0
            e["jitter_ns"] = float(f[9]) * 1e6 if ok else None
            e["packets"] = float(f[11]) if ok else None
        exp.append(e)
    return exp


for f in ["iperf2_tcp.csv", "iperf2_tcp_P2.csv", "iperf2_udp.csv", "iperf2_server.csv"]:
    check_import(f, csv_expect(os.path.join(FIX, f)))
# a CSV saved by an editor that starts it with a UTF-8 byte order mark (Windows' Notepad does):
# the same records as the file without one (an older benchdb detected it and refused line 1)
with tempfile.TemporaryDirectory() as tmp:
    bom = os.path.join(tmp, "iperf2_udp_bom.csv")
    with open(bom, "wb") as out:
        out.write(b"\xef\xbb\xbf" + open(os.path.join(FIX, "iperf2_udp.csv"), "rb").read())
    p, recs = bdb.import_export(bom)
    t.ok(p.returncode == 0, "a CSV with a BOM: import exit %d: %s" % (p.returncode, p.stderr))
    expect_records("iperf2_udp.csv with a BOM", csv_expect(os.path.join(FIX, "iperf2_udp.csv")),
                   recs)
# iperf 2.1's CSV has no sum row for -P, and a client's streams look like a server's tests:
# a file of several connections says that each is a result of its own, at its last row
for f in ["iperf2_tcp_P2.csv", "iperf2_tcp.csv"]:
    rows = [l.split(",") for l in open(os.path.join(FIX, f)).read().splitlines() if l]
    conns = sorted({tuple(r[1:6]) for r in rows})
    p, _ = bdb.import_export(os.path.join(FIX, f))
    warned = "warning: %d iperf connections, each stored as a result of its own" % len(conns)
    t.eq(warned in p.stderr, len(conns) > 1, "%s: %d connections, warned: %r" %
         (f, len(conns), p.stderr))

# ---- errors: the tool's own failure, truncated and garbled inputs
tmp = tempfile.mkdtemp(prefix="iperf-e2e-bad-")
ref = os.path.join(FIX, "iperf3_refused.txt")
msg = open(ref).read().splitlines()[0].split("iperf3: error - ")[1]
bdb.rejects(t, ref, "%s:1: error: iperf3 run failed: %s" % (ref, msg))
ref = os.path.join(FIX, "iperf3_refused.json")
doc = json.load(open(ref))
lines = open(ref).read().splitlines()
eline = [i for i, l in enumerate(lines, 1) if '"error"' in l][0]
bdb.rejects(t, ref, "%s:%d:2: error: iperf3 run failed: %s" % (ref, eline, doc["error"]))
ref = os.path.join(FIX, "iperf2_refused.txt")
lines = open(ref).read().splitlines()
eline = [i for i, l in enumerate(lines, 1) if "connect failed" in l][0]
bdb.rejects(t, ref, "%s:%d: error: iperf run failed: %s" % (ref, eline, lines[eline - 1].strip()))
# a JSON document cut in the middle: located at the end of the input
data = open(os.path.join(FIX, "iperf3_tcp.json"), "rb").read()
cut = data[: len(data) // 2]
bad = bdb.write(os.path.join(tmp, "cut.json"), cut)
line = cut.count(b"\n") + 1
col = len(cut) - (cut.rfind(b"\n") + 1) + 1
bdb.rejects(t, bad, "%s:%d:%d: error: truncated JSON document (opened at line 1)" %
            (bad, line, col))
# an iperf2 text run cut before its whole-test row
lines = open(os.path.join(FIX, "iperf2_tcp.txt")).read().splitlines()
bad = bdb.write(os.path.join(tmp, "cut.txt"), "\n".join(lines[:-1]) + "\n")
bdb.rejects(t, bad, "%s:%d: error: no whole-test row" % (bad, len(lines) - 1))
# a CSV row with a garbled byte count
lines = open(os.path.join(FIX, "iperf2_tcp.csv")).read().splitlines()
f = lines[0].split(",")
f[7] = "12x4"
lines[0] = ",".join(f)
bad = bdb.write(os.path.join(tmp, "bad.csv"), "\n".join(lines) + "\n")
col = len(",".join(f[:7])) + 2
bdb.rejects(t, bad, "%s:1:%d: error: bad iperf CSV field 8 '12x4'" % (bad, col))
shutil.rmtree(tmp, ignore_errors=True)

sys.exit(t.done())
