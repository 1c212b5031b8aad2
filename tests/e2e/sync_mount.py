"""Writes whose write() waits for stable storage itself: ext4 mounted with the `sync` option
against ext4 with defaults, and O_SYNC (sync=1) jobs (fixtures tests/fixtures/syncmount, real
fio 3.33 runs on loop devices, gen.sh and sm.fio). There the fsync after the writes finds
little left to flush, so:
- an fsync job's durable write, for the recommendations' sync-write class, is N x the write's
  latency plus the fsync's (fsync=N); the fsync alone made the sync mount the WAL pick before;
  with the default mount's page-cache writes, the fsync alone stands;
- the comparison's fsync rows carry a caution for such a side;
- buffered writes without fsync on the sync mount are not the page cache's: not "probably
  cached" there, while the default mount's are.

Expected values are computed here from the fio JSON files, never from benchdb's output."""
import glob, json, os, re, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

DIR = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "syncmount")
t = Checks("sync_mount", rel=0.005)  # the report prints 3 significant digits
NS = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}
SIDES = ("ext4-default", "ext4-sync")
# job: (writes per fsync, whether its write() waits on the default mount: O_SYNC)
JOBS = {"wal-4k-fsync": (1, False), "wal-4k-fsync4": (4, False), "osync-4k-fsync": (1, True)}


def files(side):
    return sorted(glob.glob(os.path.join(DIR, side.split("-")[1] + "-*.json")))


def job(path, name):
    return next(j for j in json.load(open(path))["jobs"] if j["jobname"] == name)


def durable(side, name):
    """The mean over the runs of what one flush waits for: the fsync, plus the N writes' when
    their write() waits (O_SYNC, or the sync mount)."""
    n, osync = JOBS[name]
    waits = osync or side == "ext4-sync"
    per_run = []
    for f in files(side):
        j = job(f, name)
        per_run.append((n * j["write"]["clat_ns"]["mean"] if waits else 0) +
                       j["sync"]["lat_ns"]["mean"])
    return statistics.mean(per_run), waits


def evidence_value(evidence, side):
    m = re.search(re.escape(side) + r": sync_lat_mean_ns ([0-9.]+) (ns|µs|ms|s),", evidence)
    return float(m.group(1)) * NS[m.group(2)] if m else None


def section(report, heading):
    return next(s for s in report["sections"] if s["heading"] == heading)["table"]["rows"]


def report(db, *args):
    rc, out, err = bdb.call(db, "report", "--compare", *SIDES, "--format", "json", *args)
    t.eq(rc, 0, "report: " + err)
    return json.loads(out)


t.eq([len(files(s)) for s in SIDES], [3, 3], "runs in the fixture")
wal = {s: durable(s, "wal-4k-fsync")[0] for s in SIDES}
fsync_alone = statistics.mean(job(f, "wal-4k-fsync")["sync"]["lat_ns"]["mean"]
                              for f in files("ext4-sync"))
t.ok(fsync_alone < 0.9 * wal["ext4-sync"],
     "the fixture (not the code): the sync mount's fsync alone is well below its durable write, "
     "so the checks below tell them apart: %.0f < %.0f ns" % (fsync_alone, wal["ext4-sync"]))

with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "w.sqlite")
    rc, _, err = bdb.call(db, "import", *sorted(glob.glob(os.path.join(DIR, "*.json"))))
    t.eq(rc, 0, "import: " + err)
    for name in JOBS:
        rep = report(db, "--where", "job=" + name)
        sync_class = next(r for r in section(rep, "Recommendations")
                          if r[0].startswith("Sync-write heavy"))
        for side in SIDES:
            want, waits = durable(side, name)
            t.near(evidence_value(sync_class[3], side), want, "%s, %s: durable write" % (name, side))
            said = re.search(re.escape(side) + r": [^;]*\([^)]*; write\(\) waits for storage too",
                             sync_class[3]) is not None
            t.eq(said, waits, "%s, %s: the evidence says the write() waited: %s" %
                 (name, side, sync_class[3]))
        best = min(SIDES, key=lambda s: durable(s, name)[0])
        t.ok(sync_class[1].startswith(best) or ("closest: %s," % best) in sync_class[1],
             "%s: %s comes first: %s" % (name, best, sync_class[1]))
        fsync_rows = 0
        for row in section(rep, "Comparison"):
            caution = row[4].get("caution") or ""
            for side in SIDES:
                cautioned = side + ": its write() waits for storage too" in caution
                want = row[1].startswith("fsync") and durable(side, name)[1]
                t.eq(cautioned, want, "%s, %s row, %s: caution %r" % (name, row[1], side, caution))
            fsync_rows += row[1].startswith("fsync")
        t.eq(fsync_rows, 2, name + ": its fsync rows (mean, p99)")

    # buffered 1 MiB writes without fsync: cached on the default mount, not on the sync mount
    rep = report(db)
    cached = next((r for r in section(rep, "Insights") if r[0] == "Probably cached"), None)
    t.ok(cached is not None and cached[1].startswith("3 buffered") and
         all(os.path.basename(f) in cached[2] for f in files("ext4-default")),
         "probably cached: the default mount's three buffered copies only: %r" % (cached,))
    streaming = next(r for r in section(rep, "Recommendations")
                     if r[0].startswith("Streaming writes"))
    sync_bw = statistics.mean(job(f, "copy-1m-buffered")["write"]["bw_bytes"]
                              for f in files("ext4-sync"))
    m = re.search(r"ext4-sync: bw_bytes_s ([0-9.]+) (MiB|GiB|KiB)/s", streaming[3])
    got = float(m.group(1)) * {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m.group(2)] if m else None
    t.near(got, sync_bw, "streaming writes: ext4-sync's buffered copy counts", rel=0.01)
    t.ok("ext4-default: 3 results left out as cached" in streaming[3], "streaming writes: the "
         "default mount's copies are left out as cached: " + streaming[3])
sys.exit(t.done())
