"""sync mount: ext4 mounted with the `sync` option against ext4 with defaults (fixtures
tests/fixtures/syncmount, real fio 3.33 runs on loop devices, gen.sh). On a sync mount every
write() waits for stable storage itself, so:
- a WAL job's (fsync=1) durable write is its write latency plus its fsync latency: the
  recommendation's sync-write class adds them on that side (the fsync alone, a little left to
  flush, made the sync mount the pick before), and the comparison's fsync rows carry a caution;
- its buffered writes without fsync are not the page cache's: not "probably cached" there, while
  the default mount's are.

Expected values are computed here from the fio JSON files, never from benchdb's output."""
import glob, json, os, re, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

DIR = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "syncmount")
t = Checks("sync_mount", rel=0.005)  # the report prints 3 significant digits
NS = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}


def job(path, name):
    return next(j for j in json.load(open(path))["jobs"] if j["jobname"] == name)


def wal(side):
    """Per run of the WAL job: (write completion latency, fsync latency), ns."""
    files = sorted(glob.glob(os.path.join(DIR, side + "-*.json")))
    t.eq(len(files), 3, side + ": runs in the fixture")
    return [(job(f, "wal-4k-fsync")["write"]["clat_ns"]["mean"],
             job(f, "wal-4k-fsync")["sync"]["lat_ns"]["mean"]) for f in files]


def evidence_value(evidence, side):
    m = re.search(re.escape(side) + r": sync_lat_mean_ns ([0-9.]+) (ns|µs|ms|s),", evidence)
    return float(m.group(1)) * NS[m.group(2)] if m else None


def section(report, heading):
    return next(s for s in report["sections"] if s["heading"] == heading)


with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "w.sqlite")
    rc, _, err = bdb.call(db, "import", *sorted(glob.glob(os.path.join(DIR, "*.json"))))
    t.eq(rc, 0, "import: " + err)
    rc, out, err = bdb.call(db, "report", "--compare", "ext4-default", "ext4-sync", "--format",
                            "json")
    t.eq(rc, 0, "report: " + err)
    report = json.loads(out)

default, synced = wal("default"), wal("sync")
want_default = statistics.mean(s for _, s in default)  # the write() is the page cache's
want_sync = statistics.mean(c + s for c, s in synced)
t.ok(want_sync > want_default and statistics.mean(s for _, s in synced) < want_default,
     "the fixture shows the case: the sync mount's fsync alone is the faster, its durable write "
     "the slower (%.0f, %.0f, %.0f ns)" % (want_default, want_sync,
                                            statistics.mean(s for _, s in synced)))

rows = section(report, "Recommendations")["table"]["rows"]
sync_class = next(r for r in rows if r[0].startswith("Sync-write heavy"))
t.near(evidence_value(sync_class[3], "ext4-default"), want_default, "ext4-default's fsync latency")
t.near(evidence_value(sync_class[3], "ext4-sync"), want_sync, "ext4-sync's write + fsync latency")
t.ok("ext4-sync: sync_lat_mean_ns" in sync_class[3] and
     "sync mount: write + fsync latency" in sync_class[3], "the evidence says what was added: "
     + sync_class[3])
t.ok(sync_class[1].startswith("ext4-default"), "the default mount comes first (the lower durable "
     "write latency), not the sync mount: " + sync_class[1])

for row in section(report, "Comparison")["table"]["rows"]:
    if not row[0].startswith("Sequential Write 4K sync"):
        continue
    caution = row[4].get("caution") or ""
    if row[1].startswith("fsync"):
        t.ok("ext4-sync mounted sync" in caution, row[1] + " row: caution " + repr(caution))
    else:
        t.ok("mounted sync" not in caution, row[1] + " row: no sync-mount caution")

# buffered 1 MiB writes without fsync: cached on the default mount, not on the sync mount
cached = next((r for r in section(report, "Insights")["table"]["rows"]
               if r[0] == "Probably cached"), None)
t.ok(cached is not None and "default-1.json" in cached[2] and "sync-" not in cached[2],
     "probably cached: the default mount's buffered copies only: %r" % (cached,))
streaming = next(r for r in rows if r[0].startswith("Streaming writes"))
sync_bw = statistics.mean(job(f, "copy-1m-buffered")["write"]["bw_bytes"]
                          for f in sorted(glob.glob(os.path.join(DIR, "sync-*.json"))))
m = re.search(r"ext4-sync: bw_bytes_s ([0-9.]+) (MiB|GiB|KiB)/s", streaming[3])
got = float(m.group(1)) * {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m.group(2)] if m else None
t.near(got, sync_bw, "streaming writes: ext4-sync's buffered copy counts", rel=0.01)
t.ok("ext4-default: 3 results left out as cached" in streaming[3], "streaming writes: the "
     "default mount's copies are left out as cached: " + streaming[3])
sys.exit(t.done())
