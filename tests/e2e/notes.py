"""notes importer end to end. Expected values are read off the note text here (regexes over
the raw files), independently of benchdb, and compared with `import --dry-run --format notes`
record dumps and, for seed 000, with `report --compare ... --format csv`."""
import csv, io, os, re, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "notes")
SEEDS = os.path.join(os.environ.get("SRCDIR", "."), "..", "shared", "seeds")
MIB = 1 << 20
c = Checks("notes", rel=1e-3)


def dry_run(path, *extra):
    p, recs = bdb.dry_run(path, "--format", "notes", *extra)
    c.eq(p.returncode, 0, "exit status of dry run of %s (%s)" % (path, p.stderr.strip()))
    return recs, p


def num(r, k):
    return float(r[k]) if k in r else None


def seed(prefix):
    for f in sorted(os.listdir(SEEDS)):
        if f.startswith(prefix):
            return os.path.join(SEEDS, f)
    return None


def composed():
    path = os.path.join(FIX, "composed.md")
    text = open(path, encoding="utf-8").read()
    recs, p = dry_run(path, "-v")
    c.eq(len(recs), 3, "composed: results")
    bw = float(re.search(r"write: IOPS=[0-9.k]+, BW=([0-9.]+)MiB/s", text).group(1)) * MIB
    fio = [r for r in recs if r.get("tool") == "fio" and "transcribed" not in r]
    c.eq(len(fio), 1, "composed: pasted fio results")
    if fio:
        c.near(num(fio[0], "bw_bytes_s"), bw, "composed: fio bw")
        c.eq(fio[0].get("host"), re.search(r"^\w+@([\w.-]+):", text, re.M).group(1), "host")
        c.ok("on / type" in fio[0].get("mount", ""), "composed: fio mount line attached")
        c.eq(fio[0].get("storage_class"), "local-ext4", "composed: storage class")
    m = re.search(r"^(\d+) bytes .* copied, ([0-9.]+) s", text, re.M)
    dd = [r for r in recs if r.get("tool") == "dd"]
    c.ok(dd and abs(num(dd[0], "bw_bytes_s") - int(m.group(1)) / float(m.group(2))) < 1,
         "composed: dd rate")
    # stored, each result keeps the tool that printed it (a typed figure names none): the note
    # is a run per tool
    _, stored = bdb.import_export(path)
    c.eq(sorted((r["job"] == "dd", r["transcribed"], r["tool"]) for r in stored),
         [(False, 0, "fio"), (False, 1, "unknown"), (True, 0, "dd")], "composed: stored tools")
    typed = [r for r in recs if r.get("transcribed") == "1"]
    c.ok(len(typed) == 1 and abs(num(typed[0], "bw_bytes_s") - bw) < 1, "composed: typed result")
    c.ok("1 line looks like measurements" in p.stdout, "composed: unused summary line")
    c.ok(re.search(r"composed\.md:\d+: note: unused measurement 'The disk", p.stderr),
         "composed: -v lists the unused line")
    # the note names its storage class (on each result, as the warehouse holds it): no note that
    # files were stored without one; a fio file that names none gets it
    with bdb.temp_db() as db:
        rc, _, err = bdb.call(db, "import", path)
        classes = bdb.sql_rows(db, "SELECT DISTINCT storage_class FROM result")
        c.ok(rc == 0 and classes == [("local-ext4",)], "composed: stored with its class %r" % classes)
        c.ok("without a storage class" not in err, "composed: no unlabelled note: %r" % err)
        rc, _, err = bdb.call(db, "import", os.path.join(os.environ["FIXTURES"], "fio_json",
                                                         "two_jobs_fsync.json"))
        c.ok("1 file stored without a storage class" in err, "a fio file without one: %r" % err)


def seed002(path):
    text = open(path).read()
    recs, _ = dry_run(path)
    c.eq(len(recs), 8, "002: dd runs")
    runs = re.findall(r"^(.*?)(?:time dd .*bs=(\d+) count=(\d+))$", text, re.M)
    runs = [r for r in runs if r[0]]  # with a prompt: the runs, not the how-to line
    printed = re.findall(r"copied, [0-9.]+ s(?:econds)?, ([0-9.]+) MB/s", text)
    reals = re.findall(r"^real\s+(\d+)m([0-9.]+)s", text, re.M)
    blocks = re.split(r"^(?=\S.*time dd )", text, flags=re.M)[1:]
    for r, block in zip(recs, blocks):
        size = 1024 * 10000000
        c.eq(num(r, "size_bytes"), size, "002: size at line %d" % r["line_first"])
        m = re.search(r"copied, [0-9.]+ s(?:econds)?, ([0-9.]+) MB/s", block)
        if m:
            c.ok(abs(num(r, "bw_bytes_s") / 1e6 - float(m.group(1))) <= 0.05,
                 "002: printed rate at line %d" % r["line_first"])
        else:
            mm, ss = re.search(r"^real\s+(\d+)m([0-9.]+)s", block, re.M).groups()
            c.near(num(r, "bw_bytes_s"), size / (int(mm) * 60 + float(ss)),
                   "002: bytes/real at line %d" % r["line_first"])
    c.eq(len(printed) + len(reals) >= 8, True, "002: every run has a rate or a time")
    c.eq([r.get("host") for r in recs], ["dhcp243-189", "dhcp243-189", "localhost", "opensolaris",
                                         "graybox", "localhost", "rhel4box", "rhel5box"], "002: hosts")
    asyncs = [r for r in recs if "async" in r.get("mount", "")]
    c.eq(len(asyncs), 1, "002: one async mount")
    c.ok(any(r.get("tag.nfs_export") == "10.11.243.16:/exports" for r in recs), "002: export tag")


def seed001(path):
    text = open(path).read()
    recs, _ = dry_run(path)
    lines = text.splitlines()
    fio = [r for r in recs if r.get("tool") == "fio"]
    c.eq(len(fio), 16, "001: fio results")
    cmd = re.search(r"^fio .*$", text, re.M).group(0)
    for r in fio:
        i = r["line_first"] - 1
        iops = re.search(r"IOPS=([0-9.]+)(k?)", lines[i])
        c.near(num(r, "iops"), float(iops.group(1)) * (1000 if iops.group(2) else 1),
               "001: iops line %d" % r["line_first"])
        label = next(l for l in reversed(lines[:i]) if l.startswith(("local - ", "vm/")))
        c.eq(r.get("tag.label"), label, "001: label of line %d" % r["line_first"])
        c.eq(r.get("bs_bytes"), "4096", "001: bs")
        c.eq(r.get("iodepth"), re.search(r"--iodepth=(\d+)", cmd).group(1), "001: iodepth")
        c.eq(r.get("sync"), re.search(r"--sync=(\d+)", cmd).group(1), "001: sync")
    ip = [r for r in recs if r.get("tool") == "iperf"]
    want = [float(x) * 1e9 / 8 for x in re.findall(r"sec\s+[0-9.]+ GBytes\s+([0-9.]+) Gbits", text)]
    c.eq(len(ip), 2, "001: iperf results")
    c.eq([num(r, "bw_bytes_s") for r in ip], want, "001: iperf bandwidth")
    c.eq([r.get("tag.label") for r in ip], ["E1000 network adapter", "virtio network adapter"],
         "001: iperf labels")


def seed004(path):
    text = open(path).read()
    recs, _ = dry_run(path)
    c.eq(len(recs), 12, "004: results")
    server = float(re.search(r"WRITE: bw=(\d+)MiB/s", text).group(1)) * MIB
    c.near(num(recs[0], "bw_bytes_s"), server, "004: server bw")
    for os_name in ("RHEL 7", "RHEL 8", "RHEL 9"):
        part = text.split(os_name + ":")[1].split("\nRHEL ")[0].split("\nOverview")[0]
        want = re.findall(r"WRITE: bw=([0-9.]+)MiB/s", part)
        got = [r for r in recs if r.get("tag.label") == os_name]
        c.eq(len(got), len(want), "004: %s results" % os_name)
        for r, w in zip(got, want):
            c.near(num(r, "bw_bytes_s"), float(w) * MIB, "004: %s %s bw" % (os_name, r["job"]))
            c.eq(r.get("sec"), r["job"], "004: sec of job %s" % r["job"])
            c.eq(r.get("tag.os"), os_name, "004: os named by the label")
    c.ok(all("tag.os" not in r for r in recs if not r.get("tag.label", "").startswith("RHEL")),
         "004: no os where the label names none")


def seed000(path):
    text = open(path).read()
    recs, _ = dry_run(path)
    c.eq(len(recs), 14, "000: results")
    c.ok(all(r.get("transcribed") == "1" for r in recs), "000: transcribed")
    p99 = [r.get("lat_p99_ns") for r in recs if "lat_p99_ns" in r]
    c.eq(len(p99), 6, "000: results with a 99th percentile")
    # the same note with its p99s typed as p99.9s: a 99.9th percentile is lat_p99_9_ns, never
    # read as the 99th (the number's decimals were dropped)
    with tempfile.TemporaryDirectory() as tmp:
        nines = os.path.join(tmp, "000-nines.md")
        with open(nines, "w") as f:
            f.write(text.replace("99th percentile:", "99.9th percentile:"))
        recs9, _ = dry_run(nines)
        c.eq([r.get("lat_p99_9_ns") for r in recs9 if "lat_p99_9_ns" in r], p99,
             "000 typed as p99.9: the same values as lat_p99_9_ns")
        c.ok(not any("lat_p99_ns" in r for r in recs9), "000 typed as p99.9: no p99")
    # "fsync latency: 13-15ms average" (NFS) and "4.9ms average" (NVMe): both the sync latency,
    # a range as its midpoint with the range as typed
    typed = re.findall(r"\*\*fsync latency:\*\* ([0-9.]+)(?:-([0-9.]+))?ms average", text)
    sync = [r for r in recs if "sync_lat_mean_ns" in r]
    c.eq(len(sync), len(typed), "000: fsync latencies stored as sync_lat_mean_ns")
    for r, (lo, hi) in zip(sync, typed):
        want = (float(lo) + float(hi or lo)) / 2 * 1e6
        c.near(num(r, "sync_lat_mean_ns"), want, "000: fsync latency %s%s ms" % (lo, "-" + hi if hi else ""))
        c.eq(r.get("tag.range"), "%s-%sms" % (lo, hi) if hi else None, "000: range tag")
        c.ok("lat_mean_ns" not in r, "000: fsync latency is not the I/O latency")
    # "(cached)" in the random I/O heading and lines: the author says a cache served them
    cached = sorted(r["line_first"] for r in recs if r.get("tag.cached") == "stated")
    lines = text.split("\n")
    head = next(i for i, l in enumerate(lines, 1) if l.startswith("#") and "cached" in l)
    end = next(i for i, l in enumerate(lines, 1) if i > head and l.startswith("### "))
    want = [r["line_first"] for r in recs if head < r["line_first"] < end]
    # and under a section whose note says caching served it (seed 000's NFS mixed results)
    for i, l in enumerate(lines, 1):
        if l.startswith("**Note:**") and "caching effects" in l:
            top = max(k for k, h in enumerate(lines[:i], 1) if h.startswith("#"))
            want += [r["line_first"] for r in recs if top < r["line_first"] < i]
    want = sorted(want)
    c.ok(want and cached == want, "000: cached=stated on the results under '%s' and notes: %r" %
         (lines[head - 1], cached))
    with bdb.temp_db() as db:
        bdb.run(db, "import", "--format", "notes", path, check=True)
        out = bdb.run(db, "report", "--compare", "nfs-csi", "local-nvme-retain", "--format",
                      "csv").stdout
    rows = list(csv.reader(io.StringIO(out)))
    fcol = rows[0].index("local-nvme-retain vs nfs-csi")
    tput = [float(x) for x in re.findall(r"\*\*Throughput:\*\* ([0-9.]+) MiB/s", text)]
    # document order: nfs seq w, seq r, sync w, rand w, rand r; nvme seq w, seq r, rand w,
    # rand r, sync w
    for name, a, b, doc in (("Sequential Write 1M", 0, 5, 30), ("Sequential Read 1M", 1, 6, 85),
                            ("Sequential Write sync", 2, 9, 3)):
        row = [r for r in rows if r[0] == name and r[1] == "Bandwidth"]
        c.ok(len(row) == 1 and abs(float(row[0][fcol]) - tput[b] / tput[a]) < 1e-6,
             "000: factor for %s" % name)
        c.ok(len(row) == 1 and round(float(row[0][fcol])) == doc, "000: %s is %dx" % (name, doc))


def seed003(path):
    text = open(path).read()
    recs, _ = dry_run(path)
    c.eq(len(recs), 4, "003: results")
    rows = dict((l.split("\t")[0], l.split("\t")[1:3]) for l in text.splitlines() if "\t" in l)
    for r in recs:
        col = 0 if r["job"] == "CephFS" else 1
        d = r["direction"].upper()
        c.near(num(r, "bw_bytes_s"), float(rows[d + " BW"][col].split()[0]) * MIB, "003 bw")
        c.near(num(r, "iops"), float(rows[d + " IOPS"][col].replace(",", "")), "003 iops")
        c.near(num(r, "lat_mean_ns"), float(rows[d + " latency"][col].split()[0]) * 1e6, "003 lat")
        c.eq((r.get("rw"), r.get("bs_bytes"), r.get("numjobs"), r.get("iodepth"), r.get("direct")),
             ("randrw", "8192", "8", "16", "1"), "003: workload")


def detected_as_notes(path):
    """Without --format, a note is recognised as notes by its own structure."""
    p = bdb.run(None, "import", "-n", path)
    first = p.stdout.splitlines()[0] if p.stdout else ""
    c.eq(first.rsplit(" ", 1)[-1], "notes", "detected format of " + os.path.basename(path))


def server_output_pasted():
    """iperf3 --get-server-output pasted into a note: the server's report after `Server output:`
    is the same test seen from the other end, not a second result."""
    out = open(os.path.join(os.environ["FIXTURES"], "iperf", "iperf3_server_output.txt")).read()
    sent = [l for l in out.split("\n") if l.startswith("[SUM]") and l.rstrip().endswith("sender")]
    with bdb.temp_db() as db:
        note = bdb.write(os.path.join(os.path.dirname(db), "n.md"),
                         "# Network check\n\nFrom the client:\n\n" + out + "\nAll fine.\n")
        p = bdb.run(db, "import", "--format", "notes", note)
        c.eq(p.returncode, 0, "server output note: exit status (%s)" % p.stderr)
        recs = bdb.export(db)
    c.eq([(r["tool"], r["direction"], r["numjobs"]) for r in recs], [("iperf3", "send", 2)],
         "server output note: one result, the client's")
    m = re.search(r"([0-9.]+) Gbits/sec", sent[0]) if len(sent) == 1 else None
    c.ok(m and recs and abs(recs[0]["sender_bw_bytes_s"] - float(m.group(1)) * 1e9 / 8) < 1,
         "server output note: the client's [SUM] sender rate %r" % sent)


composed()
server_output_pasted()
detected_as_notes(os.path.join(os.environ["FIXTURES"], "notes", "composed.md"))
if os.path.isdir(SEEDS):
    for prefix in ("000", "001", "002", "003", "004"):
        if seed(prefix):
            detected_as_notes(seed(prefix))
    for prefix, fn in (("000", seed000), ("001", seed001), ("002", seed002), ("003", seed003),
                       ("004", seed004)):
        if seed(prefix):
            fn(seed(prefix))
else:
    print("note: %s not found; checking the composed notes only" % SEEDS)
sys.exit(c.done())
