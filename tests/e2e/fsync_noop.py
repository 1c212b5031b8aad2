"""fsync without a flush: a WAL-like fio job (fsync after each 4 KiB write) on ext4, as it is
and under eatmydata, whose fsync is a no-op (fixtures tests/fixtures/fsync_noop, real fio 3.33
runs, gen.sh). No device makes a write durable in under 10 µs: the eatmydata runs are named in
the insights with their fsync median and left out of the recommendations as cached (before,
their microsecond fsyncs made them the sync-write pick). tmpfs's fsync (a memory filesystem),
and one on a filesystem not recorded, are not judged. An O_DIRECT job's fdatasync latency is
kept though fio 3.33 writes its sync.total_ios as 0 (direct-1.json). O_SYNC writes without
fsync are judged by the write itself (osync-*.json: eatmydata drops O_SYNC at open).

Expected values are computed here from the fio JSON files, never from benchdb's output."""
import glob, json, os, re, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIXTURES = os.environ.get("FIXTURES", "tests/fixtures")
DIR = os.path.join(FIXTURES, "fsync_noop")
TMPFS = sorted(glob.glob(os.path.join(FIXTURES, "verdicts", "fsync-tmpfs-*.json")))
t = Checks("fsync_noop", rel=0.005)  # the report prints 3 significant digits
NS = {"ns": 1, "µs": 1e3, "ms": 1e6}
MIN_DEVICE_IO_NS = 10e3


def runs(side):
    return sorted(glob.glob(os.path.join(DIR, side + "-*.json")))


def fsync_stats(path):
    """(median, mean) of the job's fsync latency, ns."""
    lat = json.load(open(path))["jobs"][0]["sync"]["lat_ns"]
    return lat["percentile"]["50.000000"], lat["mean"]


def section_rows(report, heading):
    return next(s for s in report["sections"] if s["heading"] == heading)["table"]["rows"]


def report(db, *sides):
    rc, out, err = bdb.call(db, "report", "--compare", *sides, "--format", "json")
    t.eq(rc, 0, "report: " + err)
    return json.loads(out)


noop, disk = runs("eatmydata"), runs("disk")
t.eq((len(noop), len(disk)), (3, 3), "runs in the fixture")
t.ok(all(fsync_stats(f)[0] < MIN_DEVICE_IO_NS for f in noop) and
     all(fsync_stats(f)[0] > MIN_DEVICE_IO_NS for f in disk),
     "the fixture shows the case: eatmydata's fsync medians under 10 µs, the disk's above")

with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "w.sqlite")
    for cls, files in (("disk", disk), ("nosync", noop)):
        rc, _, err = bdb.call(db, "import", "--storage-class", cls, *files)
        t.eq(rc, 0, "import %s: %s" % (cls, err))
    rep = report(db, "disk", "nosync")

    found = next((r for r in section_rows(rep, "Insights") if r[0] == "fsync without a flush"),
                 None)
    t.ok(found is not None, "an 'fsync without a flush' insight")
    found = found or ["", "", ""]
    t.ok(found[1].startswith("%d sync-write results" % len(noop)), "its count: " + found[1])
    for f in noop:
        m = re.search(re.escape(f) + r":\d+ \(nosync, [^)]* on ext4: flush ([0-9.]+) (ns|µs)\)",
                      found[2])
        t.near(float(m.group(1)) * NS[m.group(2)] if m else None, fsync_stats(f)[0],
               f + ": named with its fsync median")
    for f in disk:
        t.ok(f not in found[2], f + ": the disk's runs are not named")

    sync = next(r for r in section_rows(rep, "Recommendations")
                if r[0].startswith("Sync-write heavy"))
    t.ok("nosync: 3 results left out as cached" in sync[3], "left out: " + sync[3])
    t.ok("nosync" not in sync[1], "the no-op fsync is not recommended: " + sync[1])
    disk_mean = statistics.mean(fsync_stats(f)[1] for f in disk)
    m = re.search(r"disk: sync_lat_mean_ns ([0-9.]+) (ns|µs|ms)", sync[3])
    t.near(float(m.group(1)) * NS[m.group(2)] if m else None, disk_mean,
           "the disk's fsync mean stands: " + sync[3])

    # O_DIRECT writes with fdatasync: fio 3.33 counts those fsyncs in lat_ns.N alone
    direct = os.path.join(DIR, "direct-1.json")
    sync = json.load(open(direct))["jobs"][0]["sync"]
    t.eq((sync["total_ios"], sync["lat_ns"]["N"] > 0), (0, True), "the fixture: total_ios 0, N > 0")
    db3 = os.path.join(tmp, "direct.sqlite")
    rc, _, err = bdb.call(db3, "import", "--storage-class", "direct", direct)
    t.eq(rc, 0, "import direct: " + err)
    rec = bdb.export(db3, t)
    t.eq(len(rec), 1, "one result")
    got = rec[0] if rec else {}
    t.near(got.get("sync_lat_mean_ns"), sync["lat_ns"]["mean"], "direct: its fdatasync latency kept")
    t.near(got.get("sync_total_ios"), sync["lat_ns"]["N"], "direct: its fdatasync count, lat_ns.N")

    # O_SYNC writes without fsync: the write is the flush; eatmydata drops O_SYNC at open
    db4 = os.path.join(tmp, "osync.sqlite")
    osync = {cls: os.path.join(DIR, "osync-%s-1.json" % name)
             for cls, name in (("disk", "disk"), ("nosync", "eatmydata"))}
    p50 = {cls: json.load(open(f))["jobs"][0]["write"]["clat_ns"]["percentile"]["50.000000"]
           for cls, f in osync.items()}
    t.ok(p50["nosync"] < MIN_DEVICE_IO_NS < p50["disk"], "the fixture: O_SYNC write medians %r" % p50)
    for cls, f in osync.items():
        rc, _, err = bdb.call(db4, "import", "--storage-class", cls, f)
        t.eq(rc, 0, "import %s: %s" % (f, err))
    rep = report(db4, "disk", "nosync")
    found = next((r for r in section_rows(rep, "Insights") if r[0] == "fsync without a flush"),
                 ["", "", ""])
    m = re.search(re.escape(osync["nosync"]) + r":\d+ \(nosync, [^)]* on ext4: flush ([0-9.]+) "
                  r"(ns|µs)\)", found[2])
    t.near(float(m.group(1)) * NS[m.group(2)] if m else None, p50["nosync"],
           "O_SYNC under eatmydata: named with its write median")
    t.ok(osync["disk"] not in found[2], "O_SYNC on the disk: not named")
    sync = next(r for r in section_rows(rep, "Recommendations")
                if r[0].startswith("Sync-write heavy"))
    t.ok("nosync" not in sync[1] and "nosync: 1 result left out as cached" in sync[3],
         "O_SYNC under eatmydata is not the sync-write pick: %s | %s" % (sync[1], sync[3]))

    # tmpfs: a memory filesystem's fsync is a no-op by design; unrecorded: not judged
    for args in (["--mount", "tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0"], []):
        db2 = os.path.join(tmp, "tmpfs%d.sqlite" % len(args))
        bdb.call(db2, "import", "--storage-class", "disk", *disk)
        rc, _, err = bdb.call(db2, "import", "--storage-class", "tmpfs", *args, *TMPFS)
        t.eq(rc, 0, "import tmpfs: " + err)
        rows = section_rows(report(db2, "disk", "tmpfs"), "Insights")
        t.ok(not any(r[0] == "fsync without a flush" for r in rows),
             "tmpfs %s: not judged" % ("with its mount line" if args else "unrecorded"))
sys.exit(t.done())
