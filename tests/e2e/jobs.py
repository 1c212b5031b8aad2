#!/usr/bin/python3
"""e2e: one result per fio job per run (docs/methods.md "What one result is").

fio prints one entry per thread for numjobs=4 without group_reporting (fixtures in
tests/fixtures/jobs, made by gen.sh with fio 3.33). benchdb must store one job result, compared,
and the four threads as parts (tag part=thread K). Every expected value is computed here from
the raw files: sums from the threads' JSON, the I/O-weighted mean latency, the p99 from the
summed json+ bins (fio's own rule: the first bin whose cumulative count reaches 99 % of all),
the line of each job's object; the normal and terse outputs read with regular expressions."""
import json, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "jobs")
t = Checks("jobs", rel=1e-6, abs_tol=1e-9)


def doc(path):
    text = open(path).read()
    return text, json.loads(text[text.index("{"):])


def job_lines(text, k):
    """Lines of the '{' and '}' of the k-th job object: the '{' before its k-th "jobname"
    key, then braces counted (fio's job objects hold no braces inside strings)."""
    at = [m.start() for m in re.finditer(r'"jobname"', text)][k]
    first = text.rindex("{", 0, at)
    depth = 0
    for i in range(first, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text.count("\n", 0, first) + 1, text.count("\n", 0, i) + 1


def merged_percentile(threads, pct):
    bins = {}
    for j in threads:
        for k, v in j["read"]["clat_ns"]["bins"].items():
            bins[int(k)] = bins.get(int(k), 0) + v
    total, run = sum(bins.values()), 0
    for value in sorted(bins):
        run += bins[value]
        if run >= pct / 100.0 * total:
            return value


def split(recs):
    jobs = [r for r in recs if "part" not in r["tags"]]
    parts = sorted((r for r in recs if "part" in r["tags"]), key=lambda r: r["tags"]["part"])
    return jobs, parts


# ---- per-thread JSON (json+): one job result, four parts
for k in (1, 2, 3):
    path = os.path.join(FIX, "mt_threads_%d.json" % k)
    name = os.path.basename(path)
    text, d = doc(path)
    th = d["jobs"]
    t.eq(len(th), 4, name + ": fio printed 4 thread entries")
    p, recs = bdb.import_export(path)
    t.eq(p.returncode, 0, name + ": import " + p.stderr)
    jobs, parts = split(recs)
    t.eq(len(jobs), 1, name + ": one job result")
    t.eq([r["tags"]["part"] for r in parts], ["thread %d" % i for i in (1, 2, 3, 4)],
         name + ": the threads are parts")
    if len(jobs) != 1 or len(parts) != 4:
        continue
    j = jobs[0]
    rd = [x["read"] for x in th]
    ios = [x["total_ios"] for x in rd]
    t.eq(j["tags"].get("threads"), "4", name + ": tag threads=4")
    t.ok("percentiles" not in j["tags"], name + ": percentiles from the bins, not worst-thread")
    t.near(j["bw_bytes_s"], sum(x["bw_bytes"] for x in rd), name + ": bw summed")
    t.near(j["iops"], sum(x["iops"] for x in rd), name + ": iops summed")
    t.near(j["io_bytes"], sum(x["io_bytes"] for x in rd), name + ": io_bytes summed")
    t.near(j["total_ios"], sum(ios), name + ": total_ios summed")
    t.near(j["runtime_ms"], max(x["runtime"] for x in rd), name + ": runtime the longest")
    t.near(j["clat_mean_ns"], sum(n * x["clat_ns"]["mean"] for n, x in zip(ios, rd)) / sum(ios),
           name + ": clat mean weighted by I/O count")
    t.near(j["lat_mean_ns"], sum(n * x["lat_ns"]["mean"] for n, x in zip(ios, rd)) / sum(ios),
           name + ": lat mean weighted by I/O count")
    t.near(j["clat_min_ns"], min(x["clat_ns"]["min"] for x in rd), name + ": clat min")
    t.near(j["clat_max_ns"], max(x["clat_ns"]["max"] for x in rd), name + ": clat max")
    for pct, key in ((50, "clat_p50_ns"), (99, "clat_p99_ns"), (99.9, "clat_p99_9_ns")):
        t.near(j[key], merged_percentile(th, pct), "%s: %s from the summed bins" % (name, key))
    t.near(j["bw_thread_min_bytes_s"], min(x["bw_bytes"] for x in rd), name + ": thread min")
    t.near(j["bw_thread_max_bytes_s"], max(x["bw_bytes"] for x in rd), name + ": thread max")
    t.near(j["iops_thread_min"], min(x["iops"] for x in rd), name + ": iops thread min")
    t.near(j["iops_thread_max"], max(x["iops"] for x in rd), name + ": iops thread max")
    t.ok(j["numjobs"] == 4 and j["rw"] == "randread" and j["direct"] == 1,
         name + ": workload kept")
    # each part is its thread, at its own lines
    for i, (r, x) in enumerate(zip(parts, th)):
        t.near(r["bw_bytes_s"], x["read"]["bw_bytes"], "%s: part %d bw" % (name, i + 1))
        t.near(r["clat_p99_ns"], x["read"]["clat_ns"]["percentile"]["99.000000"],
               "%s: part %d p99 as fio printed it" % (name, i + 1))
        t.eq((r["line_first"], r["line_last"]), job_lines(text, i),
             "%s: part %d cites its job object" % (name, i + 1))
    t.eq((j["line_first"], j["line_last"]), (job_lines(text, 0)[0], job_lines(text, 3)[1]),
         name + ": the job result spans its threads")
    # the dry run shows the same records
    p, dry = bdb.dry_run(path)
    t.eq(len(dry), 5, name + ": import -n shows the job result and 4 parts")
    t.eq(sum(1 for r in dry if r.get("tag.threads") == "4"), 1, name + ": import -n job result")

# ---- group_reporting: fio's own single entry, nothing merged
for k in (1, 2, 3):
    path = os.path.join(FIX, "mt_group_%d.json" % k)
    text, d = doc(path)
    p, recs = bdb.import_export(path)
    t.ok(p.returncode == 0 and len(recs) == 1 and not recs[0]["tags"], "%s: one result, "
         "no parts or tags" % os.path.basename(path))
    if recs:
        t.near(recs[0]["bw_bytes_s"], d["jobs"][0]["read"]["bw_bytes"], "group bw as printed")
        t.eq((recs[0]["line_first"], recs[0]["line_last"]), job_lines(text, 0), "group lines")

# ---- a warehouse of the 3 x 2 runs: 6 results compared, 12 parts
with bdb.temp_db() as db:
    files = [os.path.join(FIX, "mt_%s_%d.json" % (kind, k)) for kind in ("threads", "group")
             for k in (1, 2, 3)]
    p = bdb.run(db, "import", *files)
    t.eq(p.returncode, 0, "import all " + p.stderr)
    recs = bdb.export(db, t)
    jobs, parts = split(recs)
    t.eq(len(jobs), 6, "3 + 3 runs: 6 job results")
    t.eq(len(parts), 12, "12 thread parts")
    rc, out, err = bdb.call(db, "reparse")
    t.ok(rc == 0 and out.count("unchanged") == 6, "reparse leaves them unchanged: " + out + err)

# ---- fsync'd writes (json, no bins): sync latency weighted by syncs, worst-thread percentiles
path = os.path.join(FIX, "sw_threads.json")
_, d = doc(path)
p, recs = bdb.import_export(path)
jobs, parts = split(recs)
t.ok(p.returncode == 0 and len(jobs) == 1 and len(parts) == 2, "sw_threads.json: 1 + 2")
if jobs:
    j, th = jobs[0], d["jobs"]
    syncs = [x["sync"]["total_ios"] for x in th]
    t.near(j["sync_total_ios"], sum(syncs), "sw json: syncs summed")
    t.near(j["sync_lat_mean_ns"],
           sum(n * x["sync"]["lat_ns"]["mean"] for n, x in zip(syncs, th)) / sum(syncs),
           "sw json: sync mean weighted by sync count")
    t.near(j["sync_lat_p99_ns"], max(x["sync"]["lat_ns"]["percentile"]["99.000000"] for x in th),
           "sw json: sync p99 of the worst thread")
    t.near(j["clat_p99_ns"], max(x["write"]["clat_ns"]["percentile"]["99.000000"] for x in th),
           "sw json: clat p99 of the worst thread (no bins)")
    t.eq(j["tags"].get("percentiles"), "worst-thread", "sw json: tagged percentiles=worst-thread")

# ---- normal output: the thread blocks read with regular expressions
UNIT = {"KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}
TIME = {"nsec": 1, "usec": 1e3, "msec": 1e6}


def text_threads(path, d):
    blocks = open(path).read().split(": (groupid=")[1:]
    out = []
    for b in blocks:
        m = re.search(r"%s: IOPS=([0-9.]+)(k?), BW=([0-9.]+)(\w+)/s" % d, b)
        issued = [int(x) for x in re.search(r"issued rwts: total=([0-9,]+)", b).group(1).split(",")]
        th = {"bw": float(m.group(3)) * UNIT[m.group(4)],
              "iops": float(m.group(1)) * (1000 if m.group(2) else 1), "issued": issued}
        s = re.search(r"sync \((\w+)\): min=\S+ max=\S+ avg=\s*([0-9.]+)", b)
        if s:
            th["sync_mean"] = float(s.group(2)) * TIME[s.group(1)]
        out.append(th)
    return out


for f, d in (("mt_threads.txt", "read"), ("sw_threads.txt", "write")):
    path = os.path.join(FIX, f)
    th = text_threads(path, d)
    p, recs = bdb.import_export(path)
    jobs, parts = split(recs)
    t.ok(p.returncode == 0 and len(jobs) == 1 and len(parts) == len(th) > 1,
         "%s: one job result and %d parts" % (f, len(th)))
    if not jobs:
        continue
    t.near(jobs[0]["bw_bytes_s"], sum(x["bw"] for x in th), f + ": bw summed")
    t.near(jobs[0]["iops"], sum(x["iops"] for x in th), f + ": iops summed")
    t.eq(jobs[0]["tags"].get("threads"), str(len(th)), f + ": threads tag")
    if d == "write":
        n = [x["issued"][3] for x in th]
        t.near(jobs[0]["sync_lat_mean_ns"],
               sum(k * x["sync_mean"] for k, x in zip(n, th)) / sum(n),
               f + ": sync mean (from 'sync (usec):') weighted by sync count", rel=1e-4)

# ---- terse: one line per thread; v3 field 7 is the read bandwidth in KiB/s, 48 the write
for f, field in (("mt_threads.terse", 6), ("sw_threads.terse", 47)):
    path = os.path.join(FIX, f)
    lines = [ln.split(";") for ln in open(path) if ln.startswith("3;")]
    p, recs = bdb.import_export(path)
    jobs, parts = split(recs)
    t.ok(p.returncode == 0 and len(jobs) == 1 and len(parts) == len(lines) > 1,
         "%s: one job result and %d parts" % (f, len(lines)))
    if jobs:
        t.near(jobs[0]["bw_bytes_s"], sum(float(x[field]) * 1024 for x in lines),
               f + ": bw summed")
        t.eq(jobs[0]["numjobs"], len(lines), f + ": numjobs from the entries")
        t.ok(all(jobs[0].get(k) is None for k in ("sync_lat_mean_ns", "sync_total_ios")),
             f + ": terse carries no sync latency (fio's terse format has none)")

# ---- fio --client (../shared/corpus, when present): "All clients" is the job's result, the
# servers' entries its parts
CORPUS = os.path.join(os.environ.get("SRCDIR", "."), "..", "shared", "corpus")
for f in ("_local_generated/fio_json/fio-3.33_local_client_server_1host.json",
          "_local_generated/fio_json/fio-3.33_local_client_server_2hosts_all_clients.json",
          "fio_json/fio-3.7_pbench_client_server_2hosts_client_stats.txt"):
    path = os.path.join(CORPUS, f)
    if not os.path.exists(path):
        print("note: %s not found, skipped" % path)
        continue
    name = os.path.basename(path)
    text, d = doc(path)
    entries = d["client_stats"]
    agg = [e for e in entries if e["jobname"] == "All clients"][0]
    servers = [e for e in entries if e["jobname"] != "All clients"]
    p, recs = bdb.import_export(path)
    jobs, parts = split(recs)
    t.eq(p.returncode, 0, name + ": import")
    t.eq(len(parts), sum(1 for e in servers for dd in ("read", "write")
                         if e[dd]["io_bytes"] > 0), name + ": one part per server entry")
    t.ok(all(r["tags"]["part"].startswith("client ") for r in parts), name + ": client parts")
    for dd in ("read", "write"):
        if agg[dd]["io_bytes"] == 0:
            continue
        got = [r for r in jobs if r["direction"] == dd]
        names = {e["jobname"] for e in servers if e[dd]["io_bytes"] > 0}
        t.ok(len(got) == 1 and got[0]["tags"].get("aggregate") == "all-clients" and
             got[0]["job"] == "All clients" and len(names) == 1 and
             got[0]["rw"] == [e for e in servers if e["jobname"] in names][0]
             ["job options"].get("rw", got[0]["rw"]),
             "%s %s: All clients (fio's name kept) is the result of %s" % (name, dd, names))
        if got:
            t.near(got[0]["bw_bytes_s"], agg[dd]["bw_bytes"], "%s %s: fio's sum" % (name, dd))

sys.exit(t.done())
