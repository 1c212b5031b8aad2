"""seeds_expert.py: the seeds (../shared/seeds, real notes) read as a storage engineer reads them
(issue 28, item 5). Each check's expected value is worked out here from the seed's own text
(its fio command lines, pasted fio headers, the author's words), never from benchdb's output:

- 001, 003: a pasted fio command without --ioengine/--direct ran fio's defaults (psync,
  buffered), marked as defaults; a psync job's iodepth=4/16 is no queue depth (no "QD4"), and
  001's buffered random reads are cautioned as cached;
- 004: the header line of pasted fio output ("nfs: (g=0): rw=randwrite, bs=(R) 8192B-8192B, ...,
  ioengine=libaio, iodepth=128") gives the pmem baseline its workload;
- 000: the author's own words apply to the results they describe: "(cached)", the random I/O
  heading, and the note under the mixed 70/30 results ("substantial local caching effects":
  109k IOPS x 4 KiB is 3.6 Gbit/s over 1 GbE); "without local caching" is no such statement;
- 000: a network-filesystem I/O faster than any link it could cross (block size / latency: 1 MiB
  writes at a 49 us median over NFS are 171 Gbit/s per I/O) is cautioned as cached; the NFS
  reads (1 MiB at 9 ms: 0.93 Gbit/s) and the local NVMe results are not judged by it;
- 002: "over NFS ... from RHEL 4u7 to Fedora 8 Host": os is the client's (RHEL 4.7, the machine
  that ran dd), server_os the server's (Fedora 8); a local run's os is its own;
- 002: `labels` lists the flag mount:async (no value); --by/--compare/--where find its result;
Skipped (exit 77) where the seeds are not next to the checkout."""
import csv, glob, io, json, os, re, sys, tempfile, zipfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("seeds_expert")
SEEDS = os.path.join(os.environ.get("SRCDIR", "."), "..", "shared", "seeds")


def seed(prefix):
    found = sorted(glob.glob(os.path.join(SEEDS, prefix + "_*.txt")))
    return found[0] if found else None


def table(db, name, *args):
    rc, out, err = bdb.call(db, "report", "--format", "csv", "--table", name, *args)
    t.eq(rc, 0, "report --table %s %s: %s" % (name, " ".join(args), err.strip()))
    return list(csv.DictReader(io.StringIO(out)))


def fio_options(command):
    """--key=value options of a fio command line (backslash continuations joined)."""
    return dict(re.findall(r"--(\w+)(?:=(\S+))?", command.replace("\\\n", " ")))


def expected_defaults(opts):
    """What fio runs for the options a command leaves out (fio HOWTO: ioengine psync on Linux,
    direct 0, iodepth 1, numjobs 1), in the order benchdb's tag lists them."""
    out = []
    if "ioengine" not in opts:
        out.append("ioengine=psync")
    for k in ("iodepth", "numjobs"):
        if k not in opts:
            out.append(k + "=1")
    if "direct" not in opts and "buffered" not in opts:
        out.append("direct=0")
    return ",".join(out)


def test_001_defaults(path):
    text = open(path, encoding="utf-8").read()
    cmd = re.search(r"^fio .*$", text, re.M).group(0)
    opts = fio_options(cmd)
    want_tag = expected_defaults(opts)
    t.eq(want_tag, "ioengine=psync,direct=0", "001: the command omits --ioengine and --direct")
    lines = text.splitlines()
    # the results: "4K randread: IOPS=..." lines under the command
    want_lines = [i for i, l in enumerate(lines, 1) if re.match(r"4K \w+: IOPS=", l)]
    with bdb.temp_db() as db:
        bdb.run(db, "import", path)
        recs = [r for r in bdb.export(db, t) if r["tool"] == "fio"]
        t.eq(sorted(r["line_first"] for r in recs), want_lines, "001: one fio result per line")
        for r in recs:
            at = "001 line %d" % r["line_first"]
            t.eq(r.get("ioengine"), "psync", at + ": fio's default engine")
            t.eq(r.get("direct"), 0, at + ": fio's default, buffered")
            t.eq(r.get("iodepth"), int(opts["iodepth"]), at + ": the iodepth typed, kept")
            t.eq(r["tags"].get("fio_defaults"), want_tag, at + ": the defaults named")
        labels = sorted({r["tags"]["label"] for r in recs if r.get("rw") == "randread"})
        rows = table(db, "comparison", "--by", "tag:label", "--compare", *labels)
        t.ok(rows, "001: a comparison")
        for row in rows:
            t.ok("QD" not in row["Workload"], "001: no queue depth on psync: " + row["Workload"])
            t.ok("buffered" in row["Workload"], "001: buffered named: " + row["Workload"])
        insights = {i["Insight"]: i for i in table(db, "insights", "--by", "tag:label",
                                                    "--compare", *labels)}
        cached = insights.get("Probably cached", {}).get("Evidence", "")
        # every buffered random read is named (evidence lists 3 then "and N more")
        named = len(re.findall(r":\d+ \(", cached)) + sum(
            int(n) for n in re.findall(r"and (\d+) more", cached))
        want = sum(1 for r in recs if r.get("rw") == "randread")
        t.eq(named, want, "001: every buffered random read cautioned as cached")
        t.ok("Synchronous engine" in insights, "001: iodepth=4 on psync explained")
        # the engine no command named is fio's, and the insight says so
        sync_ev = insights.get("Synchronous engine", {}).get("Evidence", "")
        t.ok("ioengine=psync (fio's default), iodepth=%s" % opts["iodepth"] in sync_ev,
             "001: psync named as fio's default: " + sync_ev)


def test_003_defaults(path):
    text = open(path, encoding="utf-8").read()
    cmds = re.findall(r"^fio --name=.*?(?:\n(?!\S).*)*$", text, re.M)
    cmds = [fio_options(c) for c in cmds]
    t.eq(len(cmds), 4, "003: four fio commands")
    rand = [o for o in cmds if o["rw"] == "randrw"]
    want_tag = expected_defaults(rand[0])
    t.eq(want_tag, "ioengine=psync", "003: the commands give --direct=1 but no --ioengine")
    # the typed table: per side, READ/WRITE IOPS and latency (ms); Little's law with psync's one
    # I/O in flight per job: IOPS x latency summed over both directions = numjobs
    rows = dict((l.split("\t")[0], l.split("\t")[1:3]) for l in text.splitlines()
                if l.count("\t") >= 2)
    jobs = int(rand[0]["numjobs"])
    for col, side in enumerate(("CephFS", "NFS")):
        in_flight = sum(float(rows[d + " IOPS"][col].replace(",", "")) *
                        float(rows[d + " latency"][col].split()[0]) / 1e3 for d in ("READ", "WRITE"))
        t.near(in_flight, jobs * 1, "003 %s: I/Os in flight = numjobs x 1 (psync)" % side,
               rel=0.01)
    with bdb.temp_db() as db:
        bdb.run(db, "import", path)
        recs = bdb.export(db, t)
        t.eq(len(recs), 4, "003: results")
        for r in recs:
            at = "003 %s %s" % (r["job"], r["direction"])
            t.eq((r.get("ioengine"), r.get("direct"), r.get("iodepth")),
                 ("psync", 1, int(rand[0]["iodepth"])), at + ": engine, direct, iodepth")
            t.eq(r["tags"].get("fio_defaults"), want_tag, at + ": the default named")
        rows = table(db, "comparison", "--by", "tag:column", "--compare", "CephFS", "NFS")
        t.ok(rows, "003: a comparison")
        for row in rows:
            t.ok("QD" not in row["Workload"], "003: no QD16 on psync: " + row["Workload"])
        names = [i["Insight"] for i in table(db, "insights", "--by", "tag:column", "--compare",
                                             "CephFS", "NFS")]
        t.ok("Effective queue depth" not in names,
             "003: 8 I/Os in flight is what 8 psync jobs do, not a shallow queue: %r" % names)
        t.ok("Synchronous engine" in names, "003: iodepth=16 on psync explained")
        ev = [i["Evidence"] for i in table(db, "insights", "--by", "tag:column", "--compare",
                                           "CephFS", "NFS") if i["Insight"] == "Synchronous engine"]
        t.ok(ev and "ioengine=psync (fio's default), iodepth=%s" % rand[0]["iodepth"] in ev[0],
             "003: psync named as fio's default: %r" % ev)


def test_004_header(path):
    text = open(path, encoding="utf-8").read()
    lines = text.splitlines()
    # the first pasted fio report: its header line, then the job's block with its write: line
    hdr_at = next(i for i, l in enumerate(lines) if re.match(r"^\w+: \(g=\d+\): rw=", l))
    block_at = next(i for i, l in enumerate(lines) if i > hdr_at and "(groupid=" in l)
    hdr = lines[hdr_at]
    want = {"rw": re.search(r"rw=(\w+)", hdr).group(1),
            "bs_bytes": int(re.search(r"\(W\) (\d+)B-", hdr).group(1)),
            "ioengine": re.search(r"ioengine=(\w+)", hdr).group(1),
            "iodepth": int(re.search(r"iodepth=(\d+)", hdr).group(1))}
    t.eq(want, {"rw": "randwrite", "bs_bytes": 8192, "ioengine": "libaio", "iodepth": 128},
         "004: the header as typed")
    with bdb.temp_db() as db:
        bdb.run(db, "import", path)
        recs = bdb.export(db, t)
        base = [r for r in recs if r["line_first"] == block_at + 1]
        if t.eq(len(base), 1, "004: the baseline's result (line %d)" % (block_at + 1)):
            t.eq({k: base[0].get(k) for k in want}, want, "004: the baseline's workload")
            t.eq(base[0]["job"], lines[block_at].split(":")[0], "004: its job")
        # every result of the note now has its block size and rw
        t.eq([r["line_first"] for r in recs if r.get("bs_bytes") is None or not r.get("rw")], [],
             "004: no result without block size or rw")


def test_004_unmatched(path):
    """The pmem baseline ran a job file not shown (fio xfs_08k_rand_write.ini; the file shown is
    nfs_08k_rand_write.ini, direct=1), its pasted header states no direct=: its direct is
    unknown, and the NFS runs are direct=1. Unknown is not the same (buffered and O_DIRECT
    writes differ by the page cache): not matched, and the report says which setting is
    unknown on which side."""
    text = open(path, encoding="utf-8").read()
    base = re.search(r"^(Base line[^:\n]*):$", text, re.M).group(1)
    shown = re.search(r"# cat (\S+)\n((?:.*\n)*?)\n", text)
    ran = re.search(r"# fio (\S+)", text).group(1)
    t.ok(shown.group(1) != ran, "004: the baseline ran %s, not the file shown" % ran)
    t.ok(re.search(r"^direct=1\s*$", shown.group(2), re.M), "004: the file shown is direct=1")
    hdr = next(l for l in text.splitlines() if re.match(r"^\w+: \(g=\d+\): rw=", l))
    t.ok("direct" not in hdr, "004: the baseline's header names no direct")
    want = "direct unknown on %s, direct=1 on RHEL 9" % base
    with bdb.temp_db() as db:
        bdb.run(db, "import", path)
        rows = table(db, "unmatched", "--by", "tag:label", "--compare", base, "RHEL 9")
        t.ok(rows, "004: workloads not compared")
        for r in rows:
            t.ok(r.get("Why", "").startswith(want), "004: %s on %s: %s" % (r["Workload"], r["Ran on"],
                                                                   r.get("Why")))
        t.eq(sorted(r["Ran on"] for r in rows)[:1], [base], "004: the baseline's row")


def sections(text):
    """(storage class, heading, body) of every Markdown heading, the class from the last
    'Storage Class:' line above it."""
    out, cls = [], None
    parts = re.split(r"^(#{1,6} .*)$", text, flags=re.M)
    for head, body in zip(parts[1::2], parts[2::2]):
        m = re.search(r"Storage Class:\*\* (\S+)", body)
        out.append((cls, head.lstrip("# ").strip(), body))
        cls = m.group(1) if m else cls
    return out


def test_000_cached(path):
    text = open(path, encoding="utf-8").read()
    secs = sections(text)
    # by hand: the NFS random sections' heading says "cached", their lines "(cached)"; the NFS
    # mixed section ends with a note on caching; the sync write's purpose says "without local
    # caching" (no statement); nothing else in a results section speaks of a cache
    want = set()
    for cls, head, body in secs:
        if cls == "nfs-csi" and head in ("Random Write", "Random Read"):
            t.ok("(cached)" in body, "000: %s typed '(cached)'" % head)
            want.add((cls, head))
        if head.startswith("Mixed Workload"):
            note = re.search(r"^\*\*Note:\*\* (.*)$", body, re.M).group(1)
            if cls == "nfs-csi":
                t.ok("caching effects" in note, "000: the NFS mixed note speaks of caching")
                want.add((cls, head))
            else:
                t.ok("cach" not in note, "000: the NVMe mixed note does not")
        if head == "Synchronized Write Test" and cls == "nfs-csi":
            t.ok("without local caching" in body, "000: the sync write avoids the cache")
    # the author's reason, checked: the mixed reads alone move more than the 1 GbE link can
    mixed = next(b for c, h, b in secs if c == "nfs-csi" and h.startswith("Mixed"))
    iops = float(re.search(r"Read IOPS:\*\* ([\d.]+)k", mixed).group(1)) * 1e3
    gbit = float(re.search(r"aligns with (\d+) Gbps Ethernet", text).group(1))
    t.ok(iops * 4096 * 8 / 1e9 > 3 * gbit, "000: 109k x 4 KiB = 3.6 Gbit/s over %g GbE" % gbit)
    with bdb.temp_db() as db:
        bdb.run(db, "import", path)
        recs = bdb.export(db, t)
        got = {(r["storage_class"], r["job"]) for r in recs if r["tags"].get("cached") == "stated"}
        t.eq(sorted(got), sorted(want), "000: results stated cached")
        t.eq(sum(1 for r in recs if (r["storage_class"], r["job"]) in want
                 and r["tags"].get("cached") != "stated"), 0, "000: each of their directions")
        rows = table(db, "comparison", "--compare", "nfs-csi", "local-nvme-retain")
        mixed_rows = [r for r in rows if r["Workload"].startswith("Mixed")]
        t.ok(mixed_rows, "000: mixed rows compared")
        for r in mixed_rows:
            t.ok("nfs-csi cached" in r["local-nvme-retain vs nfs-csi text"],
                 "000: %s cautioned: %s" % (r["Workload"], r["local-nvme-retain vs nfs-csi text"]))


def test_000_per_io(path):
    text = open(path, encoding="utf-8").read()
    secs = sections(text)
    nfs_part = text[:text.index("# NVMe Local Storage")]
    server = re.search(r"NFS Server:\*\* (\S+)", nfs_part).group(1)
    bs = 1 << 20  # "### Sequential I/O (1M block size)"
    t.ok("Sequential I/O (1M block size)" in nfs_part, "000: sequential I/O is 1M")
    unit = {"ns": 1, "\u00b5s": 1e3, "ms": 1e6}
    per_io = {}
    for cls, head, body in secs:
        if cls == "nfs-csi" and head in ("Sequential Write", "Sequential Read"):
            v, u = re.search(r"Median: ([\d.]+) (ns|\u00b5s|ms)", body).groups()
            per_io[head] = bs * 8 / (float(v) * unit[u] / 1e9)
    # 100 Gbit/s: the fastest link an NFS client plausibly has (benchdb's PLAUSIBLE_LINK_BITS)
    t.ok(per_io["Sequential Write"] > 100e9, "000: NFS writes %.0f Gbit/s per I/O" %
         (per_io["Sequential Write"] / 1e9))
    t.ok(per_io["Sequential Read"] < 1e9, "000: NFS reads %.2f Gbit/s per I/O" %
         (per_io["Sequential Read"] / 1e9))
    with bdb.temp_db() as db:
        bdb.run(db, "import", path)
        recs = bdb.export(db, t)
        t.eq(sorted({(r["storage_class"], r["tags"].get("nfs_export")) for r in recs}),
             [("local-nvme-retain", None), ("nfs-csi", server)], "000: the NFS part's export")
        rows = table(db, "comparison", "--compare", "nfs-csi", "local-nvme-retain")
        for name, cached in (("Sequential Write 1M", True), ("Sequential Read 1M", False)):
            row = [r for r in rows if r["Workload"] == name and r["Metric"] == "Bandwidth"]
            if not t.eq(len(row), 1, "000: a %s row" % name):
                continue
            text_ = row[0]["local-nvme-retain vs nfs-csi text"]
            t.eq("nfs-csi cached" in text_, cached, "000: %s: %s" % (name, text_))
            t.ok("local-nvme-retain cached" not in text_ and "both" not in text_,
                 "000: %s: a local result is not judged against a link: %s" % (name, text_))
        # the insight that explains the caution, worked by hand: 1 MiB in 49 us (3 significant
        # digits, as the report writes them), no iperf in the note so the 100 Gbit/s bound
        v, u = re.search(r"Median: ([\d.]+) (ns|\u00b5s|ms)",
                         next(b for c, h, b in secs if c == "nfs-csi" and h == "Sequential Write")
                         ).groups()
        t.eq((v, u), ("49", "\u00b5s"), "000: the NFS write median as typed")
        want = "%.2f MiB in %.1f %s = %.0f Gbit/s per I/O, above 100 Gbit/s (no link measured)" % (
            bs / 2**20, float(v), u, per_io["Sequential Write"] / 1e9)
        t.eq(want, "1.00 MiB in 49.0 \u00b5s = 171 Gbit/s per I/O, above 100 Gbit/s "
             "(no link measured)", "000: by hand")
        ins = {i["Insight"]: i for i in table(db, "insights", "--compare", "nfs-csi",
                                                "local-nvme-retain")}
        ev = ins.get("Faster than the network per I/O", {}).get("Evidence", "")
        t.ok(want in ev and "nfs-csi, Sequential Write 1M" in ev,
             "000: the per-I/O insight names the write: " + ev)
        t.ok("Sequential Read" not in ev and "local-nvme" not in ev,
             "000: and nothing else: " + ev)


def test_000_range(path):
    """A value typed as a range ("13-15ms average") is stored as its midpoint but shown as typed,
    and a factor from it says so."""
    text = open(path, encoding="utf-8").read()
    nfs_part = text[:text.index("# NVMe Local Storage")]
    lo, hi, unit = re.search(r"fsync latency:\*\* (\d+)-(\d+)(ms) average", nfs_part).groups()
    t.eq((lo, hi, unit), ("13", "15", "ms"), "000: the NFS fsync latency typed as a range")
    shown = "%s-%s %s (typed range)" % (lo, hi, unit)
    midpoint = "%.1f ms" % ((int(lo) + int(hi)) / 2)  # 14.0 ms: how the midpoint would read
    with bdb.temp_db() as db:
        bdb.run(db, "import", path)
        recs = [r for r in bdb.export(db, t) if r["tags"].get("range")]
        t.eq([(r["storage_class"], r.get("sync_lat_mean_ns")) for r in recs],
             [("nfs-csi", (int(lo) + int(hi)) / 2 * 1e6)], "000: stored as its midpoint, in ns")
        rows = table(db, "comparison", "--compare", "local-nvme-retain", "nfs-csi")
        row = [r for r in rows if r["Metric"] == "fsync latency"]
        if t.eq(len(row), 1, "000: one fsync latency row"):
            factor = row[0]["nfs-csi vs local-nvme-retain text"]
            t.ok("nfs-csi from a typed range (%s-%s %s" % (lo, hi, unit) in factor,
                 "000: the factor says it is from a typed range: " + factor)
        rc, md, err = bdb.call(db, "report", "--compare", "local-nvme-retain", "nfs-csi")
        line = [l for l in md.splitlines() if "| fsync latency |" in l]
        if t.eq(len(line), 1, "000: one fsync latency line in the Markdown report"):
            t.ok(shown in line[0], "000: the range shown as typed: " + line[0])
            t.ok(midpoint not in line[0], "000: never its midpoint alone: " + line[0])
        rc, js, err = bdb.call(db, "report", "--format", "json", "--compare",
                               "local-nvme-retain", "nfs-csi")
        t.ok(json.dumps(shown) in js, "000: the JSON cell's text is the range")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.xlsx")
            rc, _, err = bdb.call(db, "report", "--format", "xlsx", "-o", out, "--compare",
                                  "local-nvme-retain", "nfs-csi")
            with zipfile.ZipFile(out) as z:
                notes = "".join(z.read(n).decode() for n in z.namelist() if "comments" in n)
            t.ok(shown in notes, "000: the workbook's value cell has the range as its note")
        recs = table(db, "recommendations", "--compare", "local-nvme-retain", "nfs-csi")
        ev = [r["Evidence"] for r in recs if r["Workload class"].startswith("Sync-write")]
        t.ok(ev and "nfs-csi: sync_lat_mean_ns " + shown in ev[0] and midpoint not in ev[0],
             "000: the recommendation's evidence shows the range as typed: %r" % ev)


def os_name(typed):
    """'RHEL 4u7' -> 'RHEL 4.7' (update 7 of RHEL 4), else as typed."""
    m = re.match(r"RHEL (\d+)u(\d+)$", typed)
    return "RHEL %s.%s" % m.groups() if m else typed


def test_002_os(path):
    text = open(path, encoding="utf-8").read()
    lines = text.splitlines()
    want = {}
    for i, l in enumerate(lines):
        m = re.search(r"over NFS .*from (.+?) to (.+?)(?: Host)?$", l)
        if m:
            want[l] = (os_name(m.group(1)), os_name(m.group(2)))
        m = re.search(r"on local filesystem - (.+)$", l)
        if m:
            want[l] = (m.group(1), None)
    t.eq(len(want), 8, "002: eight labelled dd runs")
    # the transcript agrees: the RHEL 5u2 client's /etc/redhat-release says 5.2
    t.ok("release 5.2 (Tikanga)" in text, "002: RHEL 5u2 is release 5.2")
    with bdb.temp_db() as db:
        bdb.run(db, "import", path)
        recs = bdb.export(db, t)
        t.eq(len(recs), 8, "002: results")
        for r in recs:
            label = r["tags"].get("label")
            if not t.ok(label in want, "002: line %d has a label" % r["line_first"]):
                continue
            t.eq((r["tags"].get("os"), r["tags"].get("server_os")), want[label],
                 "002: client and server OS of '%s'" % label)


def test_002_mount_flag(path):
    text = open(path, encoding="utf-8").read()
    lines = text.splitlines()
    # by hand: the one run mounted with -o async, under its label
    at = next(i for i, l in enumerate(lines) if re.search(r"# mount -o async ", l))
    with bdb.temp_db() as db:
        bdb.run(db, "import", path)
        rc, out, err = bdb.call(db, "labels", "mount:async", "--format", "csv")
        rows = list(csv.reader(io.StringIO(out)))
        t.eq(rows[1:], [["mount:async", "", "1", "1"]], "002: labels lists the flag, no value")
        label = next(l for l in reversed(lines[:at]) if l.startswith("LINUX"))
        rc, out, err = bdb.call(db, "labels", "tag:label", "--where", "mount:async=",
                                "--format", "csv")
        got = [r[1] for r in list(csv.reader(io.StringIO(out)))[1:]]
        t.eq(got, [label], "002: --where mount:async= selects the async run (%s)" % err)
        rc, out, err = bdb.call(db, "report", "--by", "mount:async", "--compare", "", "x")
        t.ok("no result has a mount:async" not in err and "values: ''" in err,
             "002: --by mount:async knows the flag's results: " + err.strip())


if not glob.glob(os.path.join(SEEDS, "00[0-4]_*.txt")):
    print("seeds_expert: the seeds are not in %s: skipped" % SEEDS)
    sys.exit(77)  # CTest's SKIP_RETURN_CODE: skipped, not passed
for prefix, fn in (("000", test_000_cached), ("000", test_000_per_io), ("000", test_000_range), ("001", test_001_defaults), ("002", test_002_os),
                   ("002", test_002_mount_flag), ("003", test_003_defaults),
                   ("004", test_004_header), ("004", test_004_unmatched)):
    if seed(prefix):
        fn(seed(prefix))
    else:
        print("seeds_expert: no seed %s: its checks skipped" % prefix)
sys.exit(t.done())
