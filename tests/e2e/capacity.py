#!/usr/bin/python3
"""Capacity at a latency target (issue 32) on a real queue-depth sweep (tests/fixtures/capacity,
gen.sh: randread 4k direct=1 at QD 1-64, fio json+, 3 runs on each of two ext4 loop volumes,
one throttled to 4,000 IOPS). Computed here with numpy from the raw JSON, independently of
benchdb: each depth's p99 from the three runs' clat bins summed (fio's rule: the first bin whose
cumulative count reaches 99 % of all), its mean IOPS, and for each target the depth with the
most IOPS whose p99 meets it, the next deeper depth that misses it, or "not reached" with the
lowest p99. The report's section Capacity (JSON) must say the same; its HTML draws a curve per
target with the target line and each side's point marked; bad --slo values are usage errors.
With --cost FILE (three classes: "spare" is the uncapped volume's third run under a class of
its own, without a cost line), the price per month, per 1k IOPS and per GiB/s, the share of
the provisioned IOPS and the months of headroom are computed here by hand from the file."""
import glob, json, os, re, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
import bdb  # noqa: E402
import charts  # noqa: E402  (its page parser)
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ["FIXTURES"], "capacity")
SIDES = ("capped", "uncapped")
t = Checks("capacity", rel=1e-9)


def points(side, runs="run*"):
    """[(iodepth, mean IOPS, p99 ns of the merged bins, mean bytes/s)] of a side, by depth."""
    iops, bins, bw = {}, {}, {}
    for path in sorted(glob.glob(os.path.join(FIX, side + "-" + runs + ".json"))):
        with open(path) as f:
            for job in json.load(f)["jobs"]:
                qd = int(job["job options"]["iodepth"])
                iops.setdefault(qd, []).append(job["read"]["iops"])
                bw.setdefault(qd, []).append(job["read"]["bw_bytes"])
                for ns, count in job["read"]["clat_ns"]["bins"].items():
                    bins.setdefault(qd, {}).setdefault(int(ns), 0)
                    bins[qd][int(ns)] += count
    out = []
    for qd in sorted(iops):
        ns = np.array(sorted(bins[qd]), dtype=float)
        counts = np.array([bins[qd][int(x)] for x in ns], dtype=float)
        cum = np.cumsum(counts)
        p99 = ns[np.searchsorted(cum, 0.99 * cum[-1], side="left")]
        out.append((qd, float(np.mean(iops[qd])), float(p99), float(np.mean(bw[qd]))))
    return out


def expected(pts, limit_ns):
    """What the report should say of a side for p99 <= limit: (At, IOPS, latency, finding)."""
    met = [p for p in pts if p[2] <= limit_ns]
    if not met:
        best = min(pts, key=lambda p: p[2])
        return None, None, None, "not reached at any tested depth (best: %%s at QD%d)" % best[0]
    chosen = max(met, key=lambda p: p[1])
    deeper = [p for p in pts if p[0] > chosen[0]]
    if not deeper:
        finding = "met at the deepest tested depth"
    elif deeper[0][2] > limit_ns:
        finding = "between QD%d (met) and QD%d (missed" % (chosen[0], deeper[0][0])
    else:
        finding = "IOPS peak here"
    return "QD%d" % chosen[0], chosen[1], chosen[2], finding


def capacity_rows(db, *slos):
    args = [a for s in slos for a in ("--slo", s)]
    rc, out, err = bdb.call(db, "report", "--compare", *SIDES, *args, "--format", "json")
    t.eq(rc, 0, "report --slo " + err)
    doc = json.loads(out)
    (sec,) = [s for s in doc["sections"] if s["heading"] == "Capacity"]
    names = [c["name"] for c in sec["table"]["columns"]]
    return [dict(zip(names, row)) for row in sec["table"]["rows"]]


def check_targets(db, pts):
    targets = {"p99<=1ms": 1e6, "p99<=2ms": 2e6, "p99<=5ms": 5e6, "p99<=100us": 1e5}
    rows = capacity_rows(db, *targets)
    t.eq(len(rows), len(targets) * len(SIDES), "a row per target and side")
    reached = 0
    for row in rows:
        at, iops, lat, finding = expected(pts[row["Side"]], targets[row["Target"]])
        what = "%s %s" % (row["Side"], row["Target"])
        t.eq(row["At"], at, what + ": the chosen depth")
        if at:
            reached += 1
            t.near(row["IOPS"]["value"], iops, what + ": its mean IOPS")
            t.eq(row["IOPS"]["n"], 3, what + ": of 3 runs")
            t.eq(row["Latency"]["value"], lat, what + ": its p99 from the merged bins")
            t.ok(row["Finding"].startswith(finding), what + ": %r, want %r" % (row["Finding"],
                                                                             finding))
        else:
            t.ok(row["Finding"].startswith(finding.split(" (best")[0]),
                 what + ": %r says not reached" % row["Finding"])
            qd = re.search(r"at (QD\d+)\)$", row["Finding"])
            t.eq(qd and qd.group(1), finding.rsplit(" ", 1)[1][:-1], what + ": the best depth")
    t.ok(reached >= 4, "most targets are reached somewhere (%d)" % reached)
    tight = [r for r in rows if r["Target"] == "p99<=100us"]
    t.eq([r["At"] for r in tight], [None, None], "a target tighter than every point")


def check_html(db, tmp):
    rc, html, err = bdb.call(db, "report", "--compare", *SIDES, "--slo", "p99<=2ms",
                             "--format", "html")
    t.eq(rc, 0, "html " + err)
    page = charts.Page()
    page.feed(html)
    figs = [f for f in page.figures if f["caption"].startswith("Capacity: ")]
    t.eq(len(figs), 1, "one capacity curve: %s" % [f["caption"] for f in page.figures])
    if figs:
        series = {p.get("data-series") for p in figs[0]["points"]}
        t.eq(series, {"capped", "uncapped", "target p99<=2ms"}, "a series per side and the line")
        t.eq(len(figs[0]["marks"]), 2, "each side's chosen point marked")


COSTS = """# three classes priced two ways; spare has no line
currency = EUR
[capped]
gib_month = 0.1
capacity = 2TiB
iops_month = 0.01
provisioned_iops = 4k
provisioned_bw = 16MiB/s
demand_iops = 1500
growth = 25%
[uncapped]
month = 300
demand_iops = 100000
growth = 40%
"""


def check_costs(tmp):
    db = os.path.join(tmp, "cost.sqlite")
    files = sorted(glob.glob(os.path.join(FIX, "*.json")))
    spare = os.path.join(FIX, "uncapped-run3.json")
    rc, _, err = bdb.call(db, "import", "-q", *[f for f in files if f != spare])
    rc2, _, err2 = bdb.call(db, "import", "-q", "--storage-class", "spare", spare)
    t.eq((rc, rc2), (0, 0), "import, the third run as class spare " + err + err2)
    path = os.path.join(tmp, "costs.ini")
    with open(path, "w") as f:
        f.write(COSTS)
    rc, out, err = bdb.call(db, "report", "--compare", "capped", "uncapped", "spare", "--slo",
                            "p99<=2ms", "--cost", path, "--format", "json")
    t.eq(rc, 0, "report --cost " + err)
    (sec,) = [s for s in json.loads(out)["sections"] if s["heading"] == "Capacity"]
    names = [c["name"] for c in sec["table"]["columns"]]
    rows = {r[2]: dict(zip(names, r)) for r in sec["table"]["rows"]}
    month = {"capped": 0.1 * 2048 + 0.01 * 4000, "uncapped": 300.0}
    pts = {"capped": points("capped"), "uncapped": points("uncapped", "run[12]")}
    for side in ("capped", "uncapped"):
        at, iops, _, _ = expected(pts[side], 2e6)
        (bw,) = [p[3] for p in pts[side] if "QD%d" % p[0] == at]
        row = rows[side]
        t.eq(row["At"], at, side + ": the depth priced")
        t.near(row["EUR per month"]["value"], month[side], side + ": price per month")
        t.near(row["EUR per 1k IOPS"]["value"], month[side] / (iops / 1000), side + ": per 1k IOPS")
        t.near(row["EUR per GiB/s"]["value"], month[side] / (bw / 2 ** 30), side + ": per GiB/s")
        demand, growth = (1500, 0.25) if side == "capped" else (100000, 0.40)
        want = 12 * np.log(iops / demand) / np.log1p(growth) if iops > demand else 0
        t.near(row["Months of headroom"]["value"], want, side + ": months of headroom")
    t.near(rows["capped"]["IOPS of provisioned"]["value"], 100 * rows["capped"]["IOPS"]["value"]
           / 4000, "capped: measured IOPS as a share of the 4k provisioned")
    t.eq(rows["uncapped"]["IOPS of provisioned"], "none provisioned", "uncapped: none")
    t.eq(rows["uncapped"]["Months of headroom"]["value"], 0,
         "uncapped: demand of 100k IOPS is already above its capacity")
    t.eq({rows["spare"][k] for k in names[9:]}, {"no cost given"}, "spare: no cost given")


def check_usage(db):
    for bad in ("p99<=2", "p100<=1ms", "p99=<1ms", "max<=1ms", "p99<=-1ms", "p99<=1mss"):
        rc, out, err = bdb.call(db, "report", "--compare", *SIDES, "--slo", bad)
        t.eq((rc, out), (2, ""), "--slo %r is a usage error" % bad)
        t.ok(err.startswith("benchdb report: error: --slo '%s': expected " % bad), err)


def main():
    pts = {side: points(side) for side in SIDES}
    t.eq([p[0] for p in pts["capped"]], [1, 2, 4, 8, 16, 32, 64], "the sweep's depths")
    with tempfile.TemporaryDirectory(prefix="bdb-capacity-") as tmp:
        db = os.path.join(tmp, "c.sqlite")
        rc, _, err = bdb.call(db, "import", "-q", *sorted(glob.glob(os.path.join(FIX, "*.json"))))
        t.eq(rc, 0, "import the sweep " + err)
        check_targets(db, pts)
        check_html(db, tmp)
        check_usage(db)
        check_costs(tmp)
    return t.done()


sys.exit(main())
