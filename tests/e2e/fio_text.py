#!/usr/bin/python3
"""e2e: fio normal (human-readable) output, importer fio-text.

Expected values are read here from the raw fixtures with regular expressions (an independent
reading of fio's format, docs/formats.md section 3), then compared with what
`benchdb export --format ndjson` returns (0.1 % relative tolerance). Error cases check the exit
status and the exact `path:line[:col]: error: ...` line."""
import os, re, shutil, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "fio_text")
TMP = tempfile.mkdtemp(prefix="fio-text-e2e-")
t = Checks("fio_text", rel=1e-3, abs_tol=1e-12, none_equal=True)


def write_tmp(name, data):
    return bdb.write(os.path.join(TMP, name), data)


# ---- independent reference reading of fio 3.x normal output
BIN = {"B": 1, "K": 1024, "M": 1024 ** 2, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4,
       "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3}
NS = {"nsec": 1, "usec": 1e3, "msec": 1e6}
SUF = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6}

HOSTPFX = r"(?:<(?P<pfx>[^>\s]+)> )?"
HDR = re.compile("^" + HOSTPFX + r"(?P<name>.+?): \(groupid=(?P<g>\d+), jobs=(?P<jobs>\d+)\): "
                 r"err=\s*(?P<err>-?\d+)(?: \((?P<emsg>.*)\))?: pid=(?P<pid>\d+)")
OPT = re.compile("^" + HOSTPFX + r"(?P<name>.+?): \(g=(?P<g>\d+)\): rw=(?P<rw>\w+), "
                 r"bs=(?:\(R\) (?P<r>[\w.]+)-(?P=r), \(W\) (?P<w>[\w.]+)-(?P=w), \(T\) (?P<t>[\w.]+)-(?P=t)|"
                 r"(?P<r2>\w+)-(?P=r2)/(?P<w2>\w+)-(?P=w2)/(?P<t2>\w+)-(?P=t2)), "
                 r"ioengine=(?P<eng>\w+), iodepth=(?P<qd>\d+)")
DIR = re.compile(r"^\s+(read|write|trim|mixed): IOPS=([0-9.]+)([kM]?), BW=([0-9.]+)(\w+?)(?:/s)? "
                 r"\([^)]*\)\(([0-9.]+)(\w+)/(\d+)msec\)")
# fio <= 2.15: "  read : io=3200.0KB, bw=1599.3KB/s, iops=399, runt=  2001msec" (KB = KiB)
DIR2 = re.compile(r"^\s+(read|write|trim|mixed)\s*: io=([0-9.]+)(\w+), bw=([0-9.]+)(\w+)/s, "
                  r"iops=(\d+), runt=\s*(\d+)msec")
LAT = re.compile(r"^\s+(slat|clat|lat|sync) \((nsec|usec|msec)\): min=([0-9.]+)([kKM]?), "
                 r"max=([0-9.]+)([kKM]?), avg=\s*([0-9.]+), stdev=\s*([0-9.]+)")
PCTH = re.compile(r"^\s+(clat|lat|slat|sync) percentiles \((nsec|usec|msec)\):")
PCT = re.compile(r"([0-9.]+)th=\[\s*(\d+)\]")
BW = re.compile(r"^\s+bw \(\s*(\w+)/s\): min=\s*(\d+), max=\s*(\d+), per=[0-9.]+%, "
                r"avg=\s*([0-9.]+), stdev=\s*([0-9.]+)")
IOPS = re.compile(r"^\s+iops\s+: min=\s*(\d+), max=\s*(\d+), avg=\s*([0-9.]+), stdev=\s*([0-9.]+)")
CPU = re.compile(r"^\s+cpu\s+: usr=([0-9.]+)%, sys=([0-9.]+)%")
ISSUED = re.compile(r"issued rwts?: total=(\d+),(\d+),(\d+),(\d*)|issued\s+: total=r=(\d+)/w=(\d+)/d=(\d+)")
BANNER = re.compile(r"^hostname=([^,]+), .*fio=(fio-[^,\s]+)")
VERSION = re.compile(r"^(fio-\d\S*)$")


def size(tok):
    m = re.match(r"^([0-9.]+)(\w*)$", tok)
    return int(round(float(m.group(1)) * BIN[m.group(2) or "B"]))


def label(p):
    return ("%.6f" % float(p)).rstrip("0").rstrip(".").replace(".", "_")


def segments(text):
    """(line number, text) for every '\\n' line, split again at CR (ETA lines); BOM dropped."""
    for no, line in enumerate(text.split("\n"), 1):
        for seg in line.split("\r"):
            yield no, seg.lstrip("\ufeff")


def reference(text):
    jobs, opts, version, banners = [], {}, None, []
    cur = dirrec = pct = None

    def close():
        nonlocal cur
        if cur:
            for i, j in enumerate(jobs[:-1]):  # --status-interval: the last report wins
                if (j["host"], j["name"], j["g"], j["pid"]) == \
                        (cur["host"], cur["name"], cur["g"], cur["pid"]):
                    jobs[i] = cur
                    jobs.pop()
                    break
        cur = None

    for no, seg in segments(text):
        if cur and (seg.startswith((" ", "\t")) or not seg.strip()):
            if not seg.strip():
                continue
            cur["last"] = no
            if pct and seg.strip().startswith("|"):
                for p, v in PCT.findall(seg):
                    dirrec["%s_p%s_ns" % (pct[0], label(p))] = float(v) * pct[1]
                continue
            pct = None
            m = DIR.match(seg)
            if m:
                d, iops, isuf, bw, bwu, io, iou, ms = m.groups()
                dirrec = cur["dirs"].setdefault(d, {})
                dirrec.update(iops=float(iops) * SUF[isuf], bw_bytes_s=float(bw) * BIN[bwu],
                              io_bytes=float(io) * BIN[iou], runtime_ms=float(ms))
                continue
            m = DIR2.match(seg)
            if m:
                d, io, iou, bw, bwu, iops, ms = m.groups()
                dirrec = cur["dirs"].setdefault(d, {})
                dirrec.update(iops=float(iops), bw_bytes_s=float(bw) * BIN[bwu],
                              io_bytes=float(io) * BIN[iou], runtime_ms=float(ms))
                continue
            m = LAT.match(seg)
            if m:
                k, u, mn, mns, mx, mxs, avg, sd = m.groups()
                if k == "sync":
                    dirrec = cur["sync"]
                    k = "sync_lat"
                s = NS[u]
                dirrec.update({k + "_min_ns": float(mn) * SUF[mns] * s,
                               k + "_max_ns": float(mx) * SUF[mxs] * s,
                               k + "_mean_ns": float(avg) * s, k + "_stddev_ns": float(sd) * s})
                continue
            m = PCTH.match(seg)
            if m:
                pct = ("sync_lat" if m.group(1) == "sync" else m.group(1), NS[m.group(2)])
                if m.group(1) == "sync":
                    dirrec = cur["sync"]
                continue
            m = BW.match(seg)
            if m:
                u = BIN[m.group(1)]
                dirrec.update(bw_min_bytes_s=float(m.group(2)) * u, bw_max_bytes_s=float(m.group(3)) * u,
                              bw_mean_bytes_s=float(m.group(4)) * u,
                              bw_stddev_bytes_s=float(m.group(5)) * u)
                continue
            m = IOPS.match(seg)
            if m:
                dirrec.update(iops_min=float(m.group(1)), iops_max=float(m.group(2)),
                              iops_mean=float(m.group(3)), iops_stddev=float(m.group(4)))
                continue
            m = CPU.search(seg)
            if m:
                cur["cpu"] = (float(m.group(1)), float(m.group(2)))
            m = ISSUED.search(seg)
            if m:
                cur["issued"] = [float(x) for x in m.groups() if x]
            continue
        close()
        s = seg
        m = HDR.match(s) or (s.startswith("Jobs:") and HDR.match(re.sub(r"^Jobs:.*[\])]\s*", "", s)))
        if m:
            cur = {"name": m.group("name"), "g": m.group("g"), "jobs": int(m.group("jobs")),
                   "err": int(m.group("err")), "emsg": m.group("emsg"), "pid": m.group("pid"),
                   "host": m.group("pfx"), "first": no, "last": no, "dirs": {}, "sync": {},
                   "version": version}
            dirrec = None
            jobs.append(cur)
            continue
        m = BANNER.match(s)
        if m:
            banners.append(m.group(1))
            version = m.group(2)
            continue
        m = VERSION.match(s.strip())
        if m:
            version = m.group(1)
            continue
        m = OPT.match(s)
        if m:
            opts[m.group("name")] = m
    close()

    exp = []
    for j in jobs:
        o = opts.get(j["name"])
        clones = sum(1 for x in jobs if x["name"] == j["name"] and x["g"] == j["g"])
        host = j["host"] or (o and o.group("pfx")) or (banners[0] if len(banners) == 1 else None)
        for d in ("read", "write", "trim", "mixed"):
            if d not in j["dirs"]:
                continue
            r = dict(j["dirs"][d])
            if j["cpu"]:
                r["cpu_usr_pct"], r["cpu_sys_pct"] = j["cpu"]
            if j.get("issued") and d != "mixed":
                r["total_ios"] = j["issued"][("read", "write", "trim").index(d)]
            if d == "write" and j["sync"]:
                r.update(j["sync"])
                if len(j["issued"]) > 3:
                    r["sync_total_ios"] = j["issued"][3]
            r.update(job=j["name"], direction=d, tool="fio", tool_version=j["version"],
                     error=j["err"], line_first=j["first"], line_last=j["last"],
                     numjobs=j["jobs"] if j["jobs"] > 1 else clones)
            r["host"] = None if j["name"] == "All clients" else host
            if o:
                r.update(rw=o.group("rw"), ioengine=o.group("eng"), iodepth=int(o.group("qd")))
                bs = [o.group(k) or o.group(k + "2") for k in "rwt"]
                if d != "mixed":
                    r["bs_bytes"] = size(bs[("read", "write", "trim").index(d)])
                elif bs[0] == bs[1]:
                    r["bs_bytes"] = size(bs[0])
            exp.append(r)
    return one_result_per_job(exp)


def one_result_per_job(exp):
    """docs/methods.md "What one result is": the blocks fio prints per thread of one job (numjobs
    without group_reporting) are parts (`part` = `thread K`) of one merged job result; with
    "All clients" summing one job per direction, the servers' blocks are its parts
    (`client HOST`) and it is that job's result (keeping fio's name, "All clients")."""
    merged = []
    for agg in [e for e in exp if e["job"] == "All clients"]:
        members = [e for e in exp if e["job"] != "All clients" and e["direction"] == agg["direction"]]
        if members and len({m["job"] for m in members}) == 1:
            for m in members:
                m["part"] = "client %s" % m["host"]
            hosts = {m["host"] for m in members}
            agg["host"] = hosts.pop() if len(hosts) == 1 else None
            agg.update({k: members[0][k] for k in ("rw", "ioengine", "iodepth", "bs_bytes",
                                                   "numjobs") if k in members[0]})
        elif members:
            agg["part"] = "all clients, several jobs"
    groups = {}
    for e in exp:
        if "part" not in e and e["job"] != "All clients":
            groups.setdefault((e["job"], e["direction"], e["host"], e["numjobs"]), []).append(e)
    for (job, d, host, nj), g in groups.items():
        if len(g) < 2:
            continue
        for k, e in enumerate(g, 1):
            e["part"] = "thread %d" % k
        merged.append({"job": job, "direction": d, "merged": len(g),
                       "line_first": min(e["line_first"] for e in g)})
    return exp + merged


LAT_FIELDS = ["%s_%s_ns" % (k, s) for k in ("slat", "clat", "lat", "sync_lat")
              for s in ("min", "max", "mean", "stddev")]


def compare(name, exp, recs):
    t.ok(len(recs) == len(exp), "%s: %d records, expected %d" % (name, len(recs), len(exp)))
    for e in exp:
        cand = [r for r in recs if r.get("job") == e["job"] and r.get("direction") == e["direction"]
                and r.get("line_first") == e["line_first"]
                and r["tags"].get("part") == e.get("part")]
        t.ok(len(cand) == 1, "%s: one record for %s/%s at line %d, got %d" %
             (name, e["job"], e["direction"], e["line_first"], len(cand)))
        if not cand:
            continue
        r = cand[0]
        if "merged" in e:  # the merged job result: its values are checked by tests/e2e/jobs.py
            t.ok(r["tags"].get("threads") == str(e["merged"]), "%s %s/%s: threads=%d" %
                 (name, e["job"], e["direction"], e["merged"]))
            continue
        for k, v in e.items():
            if k == "part":
                continue
            got = r.get(k)
            ok = t.close(got, float(v)) if isinstance(v, float) else got == v
            t.ok(ok, "%s %s/%s: %s = %r, expected %r" % (name, e["job"], e["direction"], k, got, v))
        for k in LAT_FIELDS:  # a latency fio did not print is unknown, never 0
            if k not in e:
                t.ok(r.get(k) is None, "%s %s/%s: %s = %r, expected null" %
                     (name, e["job"], e["direction"], k, r.get(k)))


def good_file(path, min_records=1, *opts):
    name = os.path.basename(path)
    text = open(path, encoding="utf-8", errors="replace", newline="").read()
    exp = reference(text)
    t.ok(len(exp) >= min_records, "%s: reference found %d records" % (name, len(exp)))
    p, recs = bdb.import_export(path, *opts)
    t.ok(p.returncode == 0, "%s: exit %d, stderr %s" % (name, p.returncode, p.stderr.strip()))
    t.ok(all(r.get("format") == "fio-text" for r in recs), "%s: format fio-text" % name)
    compare(name, exp, recs)
    return exp, recs


def expect_error(path, line, *opts):
    bdb.rejects(t, path, line, *opts, whole_line=True)


# ---- the fixtures
for f, n in [("multi_jobs.txt", 6), ("group_reporting.txt", 2), ("unified_eta.txt", 1),
             ("devfull_rw.txt", 1), ("client_server.txt", 4),
             ("fio2_multi_jobs.txt", 6), ("fio2_group_status.txt", 1), ("fio215_multi_jobs.txt", 6)]:
    good_file(os.path.join(FIX, f), n)

# units: a few conversions spelled out from the printed text
_, recs = bdb.import_export(os.path.join(FIX, "group_reporting.txt"))
text = open(os.path.join(FIX, "group_reporting.txt")).read()
m = re.search(r"  read: IOPS=([0-9.]+)k, BW=([0-9.]+)MiB/s", text)
r = [x for x in recs if x["direction"] == "read"]
t.ok(bool(m) and r and t.close(r[0]["iops"], float(m.group(1)) * 1000),
     "group_reporting: IOPS k = 1000")
t.ok(bool(m) and r and t.close(r[0]["bw_bytes_s"], float(m.group(2)) * 1048576),
     "group_reporting: MiB/s = 1048576 bytes/s")
m = re.search(r"    slat \(nsec\): min=\d+, max=([0-9.]+)k,", text)
t.ok(bool(m) and r and t.close(r[0]["slat_max_ns"], float(m.group(1)) * 1000),
     "group_reporting: max=N.Nk (nsec) = N.N * 1000 ns")
m = re.search(r"     lat \(usec\): min=\d+, max=\d+, avg=\s*([0-9.]+)", text)
t.ok(bool(m) and r and t.close(r[0]["lat_mean_ns"], float(m.group(1)) * 1000),
     "group_reporting: usec = 1000 ns")
t.ok(r and r[0]["numjobs"] == 3, "group_reporting: numjobs 3")

# --status-interval: 2 jobs x 2 directions, the last of the 4 reports of each job
exp, recs = good_file(os.path.join(FIX, "status_interval.txt"), 4)
si = open(os.path.join(FIX, "status_interval.txt")).read().split("\n")
hdr = [i for i, l in enumerate(si, 1) if ": (groupid=" in l]
# numjobs=2: per direction one job result and its 2 threads as parts
t.ok(len(recs) == 6, "status_interval: 6 records, got %d" % len(recs))
t.ok(sorted({r["line_first"] for r in recs}) == hdr[-2:],
     "status_interval: records from the last reports %r" % hdr[-2:])

# client/server: host from the banner; "All clients" sums one job per direction here, so it is
# that job's result (aggregate tag kept), the server's own blocks its parts
_, recs = bdb.import_export(os.path.join(FIX, "client_server.txt"))
t.ok(all(r["host"] == "vm" for r in recs), "client_server: host vm")
agg = [r for r in recs if r["tags"].get("aggregate") == "all-clients"]
job_rw = dict(re.findall(r"^<vm> (\w+): \(g=0\): rw=(\w+)",
                        open(os.path.join(FIX, "client_server.txt")).read(), re.M))
t.ok(sorted((r["job"], r["direction"], r["rw"]) for r in agg) ==
     [("All clients", "read", job_rw["csread"]), ("All clients", "write", job_rw["cswrite"])]
     and all("part" not in r["tags"] for r in agg), "client_server: All clients is the job result")
parts = [r for r in recs if r["tags"].get("part") == "client vm"]
t.ok(sorted(r["job"] for r in parts) == ["csread", "cswrite"], "client_server: servers are parts")

# errors with results and without
exp, recs = good_file(os.path.join(FIX, "devfull_rw.txt"), 1)
t.ok(recs and recs[0]["error"] == 28 and recs[0]["error_msg"] == "No space left on device",
     "devfull_rw: error 28 with its message")
p, recs = bdb.import_export(os.path.join(FIX, "devfull_write.txt"))
t.ok(p.returncode == 0 and len(recs) == 1 and recs[0]["error"] == 28 and
     recs[0]["direction"] is None and recs[0]["bw_bytes_s"] is None,
     "devfull_write: one flagged record without metrics")

# a second job that failed its setup and did no I/O: fio prints no report for it, only its
# `fio: pid=0, err=E/..., error=MSG` line; the file imports with a warning there, not as cut
path = os.path.join(FIX, "setup_failed.txt")
lines = open(path).read().split("\n")
no, m = next((i, re.match(r"fio: pid=0, err=(\d+)/.*, error=(.*)$", l))
             for i, l in enumerate(lines, 1) if l.startswith("fio: pid=0"))
started = int(re.search(r"^Starting (\d+) processes$", "\n".join(lines), re.M).group(1))
reports = sum(1 for l in lines if ": (groupid=" in l)
t.ok(started == 2 and reports == 1, "setup_failed: 2 jobs started, 1 report (%d, %d)" %
     (started, reports))
exp, recs = good_file(path, 1)
p, _ = bdb.import_export(path)
t.ok("%s:%d: warning: a job failed with error %s: %s and did no I/O: fio printed no report for it"
     % (path, no, m.group(1), m.group(2)) in p.stderr, "setup_failed: warning %r" % p.stderr)

# fio that could not start
path = os.path.join(FIX, "engine_failed.txt")
lines = open(path).read().split("\n")
first = next(i for i, l in enumerate(lines, 1) if l.startswith("fio: "))
expect_error(path, "%s:%d: error: fio run failed: %s" % (path, first, lines[first - 1][5:]))

# normal+json in one stream: detection leaves it to fio-json; forced, the normal part is read
path = os.path.join(FIX, "normal_json.txt")
p, recs = bdb.import_export(path)
t.ok(p.returncode == 0 and recs and all(r["format"] == "fio-json" for r in recs),
     "normal_json: detected as fio-json (%s)" % p.stderr.strip())
good_file(path, 2, "--format", "fio-text")

# ---- variants made from the fixtures
base = open(os.path.join(FIX, "multi_jobs.txt"), newline="").read()
good_file(write_tmp("crlf_bom.txt", "\ufeff" + base.replace("\n", "\r\n")), 6)

uni = open(os.path.join(FIX, "unified_eta.txt"), newline="").read()
glued = re.sub(r"\r?\n(uni: \(groupid=)", r"\r\1", uni, count=1)
t.ok(glued != uni, "unified_eta: glued variant made")
exp, _ = good_file(write_tmp("eta_glued.txt", glued), 1)

# truncated inside the first clat percentile block
lines = base.split("\n")
cut = next(i for i, l in enumerate(lines) if "50.00th=" in l) + 1
hdr = next(i for i, l in enumerate(lines, 1) if ": (groupid=" in l)
name = lines[hdr - 1].split(":")[0]
path = write_tmp("trunc_pct.txt", "\n".join(lines[:cut]) + "\n")
expect_error(path, "%s:%d: error: truncated report of job '%s' (line %d): no 'cpu' line" %
             (path, cut, name, hdr))

# truncated in the middle of a direction line, inside "(io/runtime)"
i = next(i for i, l in enumerate(lines) if re.match(r"\s+read: IOPS=", l))
col = lines[i].index(")(") + 2
path = write_tmp("trunc_dir.txt", "\n".join(lines[:i]) + "\n" + lines[i][:col + 3])
expect_error(path, "%s:%d:%d: error: expected '(<io>/<runtime>)', got '%s'" %
             (path, i + 1, col, lines[i][col - 1:col + 3]))

# garbled cpu line
i = next(i for i, l in enumerate(lines) if l.startswith("  cpu "))
bad = lines[i].replace("usr=", "usx=")
col = bad.index(":") + 2
path = write_tmp("garbled_cpu.txt", "\n".join(lines[:i] + [bad] + lines[i + 1:]))
expect_error(path, "%s:%d:%d: error: expected 'usr=N%%, sys=N%%', got '%s'" %
             (path, i + 1, col, bad[col:].split(",")[0].strip()))

# a garbled number in a latency line
i = next(i for i, l in enumerate(lines) if l.startswith("    clat (nsec): min="))
bad = lines[i].replace("avg=", "avg=x", 1)
col = bad.index("avg=x") + 5
path = write_tmp("garbled_lat.txt", "\n".join(lines[:i] + [bad] + lines[i + 1:]))
expect_error(path, "%s:%d:%d: error: expected a number, got '%s'" %
             (path, i + 1, col, bad[col - 1:].split(",")[0]))

# ---- cut copies: refused with a located error, never stored with other numbers (issue 13)
def fixture_lines(name):
    return open(os.path.join(FIX, name), newline="").read().split("\n")


def cut_copy(name, lines, upto, tail=""):
    """The first `upto` lines with their line ends, then tail: a line the cut ended inside."""
    return write_tmp(name, "".join(l + "\n" for l in lines[:upto]) + tail)


def headers(lines, upto):
    """(1-based line, match) of the job headers in lines[:upto]."""
    return [(k, m) for k, m in ((k, HDR.match(l)) for k, l in enumerate(lines[:upto], 1)) if m]


ml = fixture_lines("multi_jobs.txt")
# cut inside a number: `total=80` of `total=800` would be stored as 80 I/Os
i = next(k for k, l in enumerate(ml) if "issued rwts: total=" in l)
m = re.search(r"total=(\d+)", ml[i])
t.ok(len(m.group(1)) > 1, "multi_jobs: the issued count has digits to cut")
tail = ml[i][:m.end(1) - 1]
hl, hm = headers(ml, i)[-1]
path = cut_copy("cut_in_number.txt", ml, i, tail)
expect_error(path, "%s:%d:%d: error: truncated report of job '%s' (line %d): expected a line "
             "end, got end of file" % (path, i + 1, len(tail) + 1, hm.group("name"), hl))
# cut at the line end before `issued`: its I/O counts would be missing from the thread merge
path = cut_copy("cut_before_issued.txt", ml, i)
expect_error(path, "%s:%d: error: truncated report of job '%s' (line %d): no 'issued' line" %
             (path, i, hm.group("name"), hl))
# cut between two threads' whole blocks: one thread would be the job's result
started = sum(int(n) for n in re.findall(r"(\d+) (?:thread|process)",
                                          next(l for l in ml if l.startswith("Starting "))))
second = headers(ml, len(ml))[1][0]
shown = headers(ml, second - 1)
path = cut_copy("cut_between_threads.txt", ml, second - 1)
expect_error(path, "%s:%d: error: truncated output: fio started %d jobs and reported %d (the "
             "run's first report is at line %d)" % (path, second - 1, started,
                                                    sum(int(m.group("jobs")) for _, m in shown),
                                                    shown[0][0]))

# --status-interval cut in a later report: the interim report's numbers are no result
si = fixture_lines("status_interval.txt")
groups = [k for k, l in enumerate(si) if l.startswith("Run status group ")]
g2, grp = groups[1], re.match(r"Run status group (\d+)", si[groups[1]]).group(1)
w = next(k for k in range(g2, len(si)) if si[k].lstrip().startswith("WRITE:"))
tail = si[w][:len(si[w]) // 2]
path = cut_copy("si_cut_in_summary.txt", si, w, tail)
expect_error(path, "%s:%d:%d: error: truncated output: expected a line end, got end of file" %
             (path, w + 1, len(tail) + 1))
path = cut_copy("si_cut_before_write.txt", si, w)
expect_error(path, "%s:%d: error: truncated 'Run status group %s' summary (line %d): no 'WRITE:' "
             "line" % (path, w, grp, g2 + 1))
report2 = next(k for k, _ in headers(si, len(si)) if k > groups[0] + 1)
path = cut_copy("si_cut_before_summary.txt", si, g2)
expect_error(path, "%s:%d: error: truncated report (line %d): no 'Run status group %s' summary "
             "after its job blocks" % (path, g2, report2, grp))
# cut inside the next report's first line, after a whole summary
path = cut_copy("si_cut_in_next_header.txt", si, report2 - 1, si[report2 - 1][:5])
expect_error(path, "%s:%d:6: error: truncated output: expected a line end, got end of file" %
             (path, report2))

# --client cut before "All clients": one server's entry would be the job's result
cs = fixture_lines("client_server.txt")
a = next(k for k, l in enumerate(cs) if l.startswith("All clients: "))
servers = headers(cs, a)
path = cut_copy("cs_cut_before_all_clients.txt", cs, a)
expect_error(path, "%s:%d: error: truncated client/server output: no 'All clients' report after "
             "the %d reports of the servers (from line %d)" % (path, a, len(servers),
                                                              servers[0][0]))

shutil.rmtree(TMP, ignore_errors=True)
sys.exit(t.done())
