#!/usr/bin/python3
"""Capacity at a latency target (issue 32) on a real queue-depth sweep (tests/fixtures/capacity,
gen.sh: randread 4k direct=1 at QD 1-64, fio json+, 3 runs on each of two ext4 loop volumes,
one throttled to 4,000 IOPS). Computed here with numpy from the raw JSON, independently of
benchdb: each depth's p99 from the three runs' clat bins summed (fio's rule: the first bin whose
cumulative count reaches 99 % of all), its mean IOPS, and for each target the depth with the
most IOPS whose p99 meets it, the next deeper depth that misses it, or "not reached" with the
lowest p99. The report's section Capacity (JSON) must say the same; its HTML draws a curve per
target with the target line and each side's point marked; bad --slo values are usage errors."""
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


def points(side):
    """[(iodepth, mean IOPS, p99 ns of the merged bins)] of a side, by depth."""
    iops, bins = {}, {}
    for path in sorted(glob.glob(os.path.join(FIX, side + "-run*.json"))):
        with open(path) as f:
            for job in json.load(f)["jobs"]:
                qd = int(job["job options"]["iodepth"])
                iops.setdefault(qd, []).append(job["read"]["iops"])
                for ns, count in job["read"]["clat_ns"]["bins"].items():
                    bins.setdefault(qd, {}).setdefault(int(ns), 0)
                    bins[qd][int(ns)] += count
    out = []
    for qd in sorted(iops):
        ns = np.array(sorted(bins[qd]), dtype=float)
        counts = np.array([bins[qd][int(x)] for x in ns], dtype=float)
        cum = np.cumsum(counts)
        p99 = ns[np.searchsorted(cum, 0.99 * cum[-1], side="left")]
        out.append((qd, float(np.mean(iops[qd])), float(p99)))
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
    return t.done()


sys.exit(main())
