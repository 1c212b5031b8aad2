#!/usr/bin/python3
"""Insights and tier recommendations: each insight must fire exactly when the raw files show the
condition (computed here from fio's and iperf3's own JSON) and stay silent otherwise."""
import csv, glob, io, json, os, re, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ["FIXTURES"], "insights")
t = Checks("insights")


def table(db, name, *args):
    rc, out, err = bdb.call(db, "report", *args, "--format", "csv", "--table", name)
    t.eq(rc, 0, "report table %s: %s" % (name, err))
    return list(csv.DictReader(io.StringIO(out)))


def job_of(path):
    job = json.load(open(path))["jobs"][0]
    d = "read" if job["read"]["io_bytes"] else "write"
    return job, job[d]


def is_sync(o):
    return (int(o.get("fsync", "0")) > 0 or int(o.get("fdatasync", "0")) > 0
            or o.get("sync", "0") not in ("0", "none"))


def cached(o):
    """Buffered random I/O, or a buffered sequential write without fsync/fdatasync/O_SYNC
    (end_fsync is not stored, so it does not count)."""
    if o.get("direct", "0") != "0":
        return False
    return o["rw"].startswith("rand") or (o["rw"] == "write" and not is_sync(o))


def expectations(files):
    """What the raw files say, per insight."""
    e = {"cached": 0, "short": 0, "sync": 0, "tail": 0}
    for f in files:
        job, x = job_of(f)
        o = job["job options"]
        if cached(o):
            e["cached"] += 1
        if x["runtime"] < 5000:
            e["short"] += 1
        if is_sync(o):
            e["sync"] += 1
        p = x["clat_ns"]["percentile"]
        if p["99.000000"] / p["50.000000"] > 10:
            e["tail"] += 1
    return e


def count_in(rows, kind):
    """The number a finding reports ('6 buffered ...'), 0 when the finding is absent."""
    r = [r for r in rows if r["Insight"] == kind]
    return int(r[0]["Finding"].split()[0]) if r else 0


def no_pick(means, out, metric):
    """What the recommendation says when no side meets a higher-is-better rule: the closest
    side (its value follows, in the report's units), else why there was nothing to judge: the
    results left out, counted in the report's order of reasons."""
    if means:
        return "none meets the threshold (closest: %s, %s " % (
            max(sorted(means), key=lambda k: means[k]), metric)
    why = [w for side in out.values() for w in side]
    parts = ["%d %s" % (why.count(w), w) for w in ("cached", "short") if why.count(w)]
    return "no usable results (%s)" % ", ".join(parts) if parts else "no results of this class"


def test_examples_fire():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        files = sum(bdb.import_examples(db, "--host", "labhost").values(), [])
        net = os.path.join(FIX, "iperf3-100M.json")
        rc, out, err = bdb.call(db, "import", "--host", "labhost", net)
        t.eq(rc, 0, "iperf3 import " + err)
        rows = table(db, "insights", "--compare", "disk", "tmpfs")
        e = expectations(files)
        t.ok(e["cached"] > 0 and e["short"] > 0 and e["sync"] > 0, "examples show the conditions")
        t.eq(count_in(rows, "Probably cached"), e["cached"], "cache insight count")
        t.eq(count_in(rows, "Short runs"), e["short"], "short-run insight count")
        t.eq(count_in(rows, "Sync writes"), e["sync"], "sync-write insight count")
        t.eq(count_in(rows, "Tail latency"), e["tail"], "tail-latency insight count")
        t.eq(count_in(rows, "Failed jobs"), 0, "no failed jobs")
        # local storage is never compared with the network, whatever the host measured
        t.eq(count_in(rows, "Faster than the network"), 0, "local storage: no network finding")
        rc, md, err = bdb.call(db, "report", "--compare", "disk", "tmpfs")
        t.ok("Storage against the network" not in md, "no network section for local storage")
        # spread: coefficient of variation of bandwidth per workload and class
        groups = {}
        for f in files:
            key = (os.path.basename(os.path.dirname(f)), os.path.basename(f).rsplit("-", 1)[0])
            groups.setdefault(key, []).append(job_of(f)[1]["bw_bytes"])
        import statistics
        wide = sum(1 for v in groups.values()
                   if statistics.stdev(v) / statistics.mean(v) > 0.25)
        t.eq(count_in(rows, "Large spread"), wide, "spread insight count")
        # recommendations: database class = random reads of <= 16k, worst workload's mean IOPS
        # >= 5000; buffered or short results are left out and named
        rec = table(db, "recommendations", "--compare", "disk", "tmpfs")
        db_row = [r for r in rec if r["Workload class"].startswith("Databases")][0]
        iops, out = {}, {}
        for f in files:
            job, x = job_of(f)
            o, cls = job["job options"], os.path.basename(os.path.dirname(f))
            if o["rw"] != "randread":
                continue
            if cached(o):
                out.setdefault(cls, []).append("cached")
            elif x["runtime"] < 5000:
                out.setdefault(cls, []).append("short")
            else:
                iops.setdefault(cls, []).append(x["iops"])
        means = {k: sum(v) / len(v) for k, v in iops.items()}
        ok = {k: v for k, v in means.items() if v >= 5000}
        if ok:
            t.eq(db_row["Recommended"], max(sorted(ok), key=lambda k: ok[k]), "database tier")
        else:  # issue 28: why nothing is recommended, from the files
            t.ok(db_row["Recommended"].startswith(no_pick(means, out, "iops")),
                 "database tier: %r, want %r" % (db_row["Recommended"], no_pick(means, out, "iops")))
        for cls, why in out.items():
            n = why.count("cached")
            t.ok(n == 0 or "%s: %d result%s left out as cached" % (cls, n, "s" if n > 1 else "")
                 in db_row["Evidence"], "left-out results named: " + db_row["Evidence"])
        # missing data is named: without random reads, no database results on either side
        rec = table(db, "recommendations", "--compare", "disk", "tmpfs", "--where", "rw=read")
        db_row = [r for r in rec if r["Workload class"].startswith("Databases")][0]
        t.eq(db_row["Recommended"], "no results of this class", "no data, no recommendation")
        t.ok("no database results for disk" in db_row["Evidence"], "missing data named")
        # user rules: an impossible threshold, and a broken file with a located error
        rules = os.path.join(tmp, "strict.rules")
        open(rules, "w").write("[db]\ntitle = strict\nrw = randread\nmetric = iops\n"
                               "threshold = 900M\n")
        rec = table(db, "recommendations", "--compare", "disk", "tmpfs", "--rules", rules)
        t.ok(len(rec) == 1 and rec[0]["Recommended"].startswith(no_pick(means, out, "iops")),
             "--rules is used: %r" % [r["Recommended"] for r in rec])
        open(rules, "w").write("[db]\nmetric = iops\nthreshold = fast\n")
        rc, out, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--rules", rules)
        t.eq(rc, 1, "bad rules exit status")
        t.ok("%s:3: error: cannot read threshold 'fast'" % rules in err, "located rules error: " + err)
        # a metric that is neither known nor stored: located, with the known ones listed
        open(rules, "w").write("[db]\nmetric = iops_per_watt\nthreshold = 5\n")
        rc, out, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--rules", rules)
        t.eq(rc, 1, "unknown metric exit status")
        t.ok("%s:2: error: unknown metric 'iops_per_watt' (known: bw_bytes_s, iops" % rules in err,
             "unknown metric located and the known ones listed: " + err)
        # any stored metric may decide: cpu_sys_pct (lower is better) of the sequential reads
        open(rules, "w").write("[cpu]\nrw = read\nmetric = cpu_sys_pct\nthreshold = 100\n")
        rc, out, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--rules", rules)
        t.eq(rc, 0, "a stored metric is accepted: " + err)
        # a metric outside the known list counts when some result stores it (here in its
        # column of result): the iperf3 run's sender_bw_bytes_s
        open(rules, "w").write("[net]\nmetric = sender_bw_bytes_s\nthreshold = 1\n")
        rc, out, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--rules", rules)
        t.eq(rc, 0, "a stored metric outside the known list is accepted: " + err)


def test_network_mount():
    """The same results on an NFS mount of a host whose link was measured at 100 Mbit/s: those
    above the link (bit/s) or its packet rate are flagged, with the link named."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        files = sum(bdb.import_examples(db, "--host", "labhost", "--mount",
                                        "srv:/export /mnt nfs4 rw,vers=4.2,sec=sys 0 0").values(), [])
        net = os.path.join(FIX, "iperf3-100M.json")
        rc, out, err = bdb.call(db, "import", "--host", "labhost", net)
        t.eq(rc, 0, "iperf3 import " + err)
        link = json.load(open(net))["end"]["sum_received"]["bits_per_second"]
        above = sum(1 for f in files if job_of(f)[1]["bw_bytes"] * 8 > link
                    or job_of(f)[1]["iops"] > link / (84 * 8))
        t.ok(above > 0, "some storage results exceed the 100 Mbit/s network")
        rows = table(db, "insights", "--compare", "disk", "tmpfs")
        t.eq(count_in(rows, "Faster than the network"), above, "network-ceiling insight count")
        ev = [r for r in rows if r["Insight"] == "Faster than the network"][0]["Evidence"]
        mbit = link / 1e6  # three significant digits, as the report writes them
        shown = "%.*f" % (0 if mbit >= 100 else 1 if mbit >= 10 else 2, mbit)
        t.ok("link: iperf3 TCP, 1 stream: %s Mbit/s at %s:1" % (shown, net) in ev,
             "the link is named: " + ev)
        share = table(db, "network", "--compare", "disk", "tmpfs")
        t.eq(len(share), len(files), "one share row per storage result on that host")
        for r in share[:3]:
            t.near(float(r["Share"]), 100 * float(r["Storage"]) / link, "share in percent of bit/s")


def test_direct_runs_stay_silent():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        a, b = sorted(glob.glob(os.path.join(FIX, "direct-randread-*.json")))
        bdb.call(db, "import", "--host", "other", "--storage-class", "a", a)
        bdb.call(db, "import", "--host", "other", "--storage-class", "b", b)
        bdb.call(db, "import", "--host", "labhost", os.path.join(FIX, "iperf3-100M.json"))
        rows = table(db, "insights", "--compare", "a", "b")
        e = expectations([a, b])
        t.eq((e["cached"], e["short"], e["sync"]), (0, 0, 0), "direct long runs lack the conditions")
        for kind in ("Probably cached", "Short runs", "Sync writes", "Large spread",
                     "Failed jobs", "Faster than the network", "Faster than the device",
                     "Stated as cached", "Little's law", "Synchronous engine",
                     "Typed without context", "Submission latency", "Effective queue depth"):
            t.eq(count_in(rows, kind), 0, "silent: " + kind)
        t.eq(count_in(rows, "Tail latency"), e["tail"], "tail latency as the files say")
        rc, md, err = bdb.call(db, "report", "--compare", "a", "b")
        t.ok("Storage against the network" not in md, "no network section for another host")
        t.ok("(single run)" in md, "single runs are marked, without a verdict")


def test_typed_percentiles():
    """Seed 000's 212 ms p99 against a 49 µs median is found from the typed percentiles."""
    seed = os.path.join(os.environ["SRCDIR"], "..", "shared", "seeds",
                        "000_a7b55c5c8e3b3737.txt")
    if not os.path.exists(seed):
        print("note: %s not found: skipping the typed-percentile check" % seed)
        return
    unit = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}
    medians, p99s = [], []
    for line in open(seed, encoding="utf-8"):
        m = re.match(r"- (Median|99th percentile): ([0-9.]+) (ns|µs|ms|s)\b", line)
        if m:
            (medians if m.group(1) == "Median" else p99s).append(
                float(m.group(2)) * unit[m.group(3)])
    want = sum(1 for a, b in zip(medians, p99s) if b / a > 10)
    t.ok(want > 0, "the seed has tail latency")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        rc, out, err = bdb.call(db, "import", seed)
        t.eq(rc, 0, "import seed 000: " + err)
        rows = table(db, "insights", "--compare", "nfs-csi", "local-nvme-retain")
        t.eq(count_in(rows, "Tail latency"), want, "tail latency from typed percentiles")
        t.ok("212 ms vs median 49.0 \u00b5s" in [r for r in rows if r["Insight"] ==
                                                 "Tail latency"][0]["Evidence"],
             "the 212 ms p99 is named with its median")


def test_paced_queue():
    """fio at iodepth=16 paced by rate_iops=200 (gen.sh): IOPS x total latency, from the file,
    is far under the 16 I/Os asked for; the psync runs beside it (one I/O per job whatever
    iodepth says) are not named."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        paced = os.path.join(FIX, "paced-qd16.json")
        direct = sorted(glob.glob(os.path.join(FIX, "direct-randread-*.json")))
        bdb.call(db, "import", "--storage-class", "a", paced)
        bdb.call(db, "import", "--storage-class", "b", *direct)
        rows = table(db, "insights", "--compare", "a", "b")
        x = job_of(paced)[1]
        in_flight = x["iops"] * x["lat_ns"]["mean"] / 1e9
        t.ok(in_flight < 4, "the paced job keeps under a quarter of its queue busy (%.2f)" % in_flight)
        t.eq(count_in(rows, "Effective queue depth"), 1, "one result with a shallow queue")
        r = [r for r in rows if r["Insight"] == "Effective queue depth"]
        t.ok(r and "paced-qd16.json" in r[0]["Evidence"] and
             "%.2f I/Os in flight of 16 asked" % in_flight in r[0]["Evidence"],
             "named with its I/Os in flight: %r" % (r[0]["Evidence"] if r else None))


test_examples_fire()
test_network_mount()
test_paced_queue()
test_direct_runs_stay_silent()
test_typed_percentiles()
sys.exit(t.done())
