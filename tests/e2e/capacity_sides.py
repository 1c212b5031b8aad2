"""The capacity at a latency target when the compared sides differ in their mount (the usual
A/B of a storage class: each class its own mount line). tests/fixtures/ab: ext4 with
data=ordered against data=journal, the same twelve fio jobs on each, 3 runs (gen.sh). A sweep
family joins the sides' sweeps of one workload: the mount that differs between the sides is what
is compared, not another experiment. Before, each side's sweep was a family of its own, so every
workload had two rows per side, one saying "no sweep of this workload on this side" next to the
row that had it.

The expected families are computed here from the fio JSON (jobs of one rw, block size and engine
at two or more queue depths), never from benchdb's output."""
import collections, glob, json, os, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

DIR = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "ab")
t = Checks("capacity_sides")


def swept(path):
    """{(rw, bs, engine): set of iodepths} of the file's jobs that a capacity sweep takes: direct
    I/O without fsync, on an engine that queues (psync runs one I/O whatever iodepth says)."""
    doc = json.load(open(path))
    glob_opts = doc.get("global options", {})
    out = collections.defaultdict(set)
    for j in doc["jobs"]:
        o = dict(glob_opts, **j["job options"])
        if "fsync" in o or o.get("direct") != "1" or o.get("ioengine") == "psync":
            continue
        out[(o["rw"], o["bs"], o["ioengine"])].add(int(o.get("iodepth", "1")))
    return out


sides = {}
for f in sorted(glob.glob(os.path.join(DIR, "*.json"))):
    meta = dict(line.rstrip("\n").split("=", 1) for line in open(f + ".meta"))
    sides.setdefault(meta["storage_class"], {})[f] = meta["mount"]
t.eq(sorted(sides), ["ext4-journal", "ext4-ordered"], "the fixture's two classes")
mounts = {cls: set(files.values()) for cls, files in sides.items()}
t.ok(mounts["ext4-journal"].isdisjoint(mounts["ext4-ordered"]),
     "the fixture (not the code): the sides' mount lines differ")
families = {}
for cls, files in sides.items():
    for f in files:
        for key, depths in swept(f).items():
            families.setdefault(key, {}).setdefault(cls, set()).update(depths)
both = [k for k, per in families.items() if all(len(per.get(c, ())) >= 2 for c in sides)]
t.ok(len(both) >= 2, "families both sides swept: %r" % both)

with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "w.sqlite")
    rc, _, err = bdb.call(db, "import", *sorted(glob.glob(os.path.join(DIR, "*.json"))))
    t.eq(rc, 0, "import: " + err)
    rc, out, err = bdb.call(db, "report", "--compare", "ext4-ordered", "ext4-journal",
                            "--slo", "p99<=2ms", "--format", "json")
    t.eq(rc, 0, "report: " + err)
    report = json.loads(out)
    rows = next(s for s in report["sections"] if s["heading"] == "Capacity")["table"]["rows"]
    per_workload = collections.Counter((r[0], r[2]) for r in rows)
    t.eq(len({w for w, _ in per_workload}), len(both), "one family per workload both sides swept")
    for (workload, side), n in sorted(per_workload.items()):
        t.eq(n, 1, "%s, %s: one row" % (workload, side))
    for r in rows:
        t.ok(r[8] != "no sweep of this workload on this side",
             "%s, %s: its sweep is found: %s" % (r[0], r[2], r[8]))
sys.exit(t.done())
