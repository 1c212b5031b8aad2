#!/usr/bin/python3
"""benchdb trend (issue 15 item 1): change points in series of runs over time.

The series are derived here from a real fio run (tests/fixtures/disk_tmpfs/disk/randread-1.json, fio 3.33):
copies whose "timestamp" (the run's start) is one night apart and whose bandwidth (bw_bytes,
bw, iops) and mean latency (lat_ns.mean) are set here from a seeded generator. Storage class
"step" plants a 20 % bandwidth drop and a 25 % latency rise at run STEP; "flat" is 30 runs of
noise around one level. Every expected change point comes from tests/tools/changepoint_ref.py
(python, scipy) on the values written here; the JSON is checked against docs/trend.schema.json
with python3-jsonschema. Env: BENCHDB, SRCDIR."""
import csv
import re
import io
import json
import os
import random
import sys
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
import bdb  # noqa: E402
import changepoint_ref as ref  # noqa: E402
import charts  # noqa: E402  (its chromium checks)
from checks import Checks  # noqa: E402

try:
    import jsonschema
except ImportError:
    print("trend: python3-jsonschema is not installed (scripts/setup.sh --test)")
    sys.exit(77)

SRC = os.environ.get("SRCDIR") or os.path.join(os.path.dirname(__file__), "..", "..")
SCHEMA = os.path.join(SRC, "docs", "trend.schema.json")
RUNS, STEP = 30, 18
START = datetime(2026, 1, 1, 2, 0, tzinfo=timezone.utc)
t = Checks("trend", rel=1e-9)


def series_values(rng, step):
    """(bandwidths in bytes/s, mean latencies in ns) of the runs."""
    bw, lat = [], []
    for i in range(RUNS):
        late = step and i >= STEP
        bw.append(round(30e6 * (0.8 if late else 1.0) * rng.gauss(1, 0.02)))
        lat.append(round(130000 * (1.25 if late else 1.0) * rng.gauss(1, 0.02), 3))
    return bw, lat


def derive(tmp, cls, bw, lat):
    """The run files of one storage class; returns [(path, start as ISO text)]."""
    with open(os.path.join(bdb.EXAMPLES, "disk", "randread-1.json")) as f:
        doc = json.load(f)
    out = []
    for i in range(RUNS):
        when = START + timedelta(days=i)
        read = doc["jobs"][0]["read"]
        doc["timestamp"] = int(when.timestamp())
        doc["timestamp_ms"] = doc["timestamp"] * 1000
        read["bw_bytes"], read["bw"], read["iops"] = bw[i], bw[i] // 1024, bw[i] / 4096
        read["lat_ns"]["mean"] = lat[i]
        path = bdb.write(os.path.join(tmp, "%s-%02d.json" % (cls, i)), json.dumps(doc, indent=2))
        out.append((path, when.strftime("%Y-%m-%dT%H:%M:%SZ")))
    return out


def run_ids(db):
    p = bdb.run(db, "runs", "--format", "json")
    return {row["source"]: row["run_id"] for row in json.loads(p.stdout)["runs"]}


def find(doc, cls, metric):
    return [s for s in doc["series"] if s["storage_class"] == cls and s["metric"] == metric]


def check_series(got, values, files, ids, what, direction):
    """got's change points and values against the reference on the values written here."""
    want = ref.change_points(values)
    t.eq([p["value"] for p in got["points"]], values, what + ": the values over time")
    t.eq([p["started_at"] for p in got["points"]], [w for _, w in files], what + ": their dates")
    t.eq(len(got["change_points"]), len(want), what + ": change points")
    for g, w in zip(got["change_points"], want):
        t.eq(g["started_at"], files[w["index"]][1], what + ": date of the change")
        t.eq(g["run_id"], ids[files[w["index"]][0]], what + ": run of the change")
        t.near(g["before"], w["before"], what + ": mean before")
        t.near(g["after"], w["after"], what + ": mean after")
        t.near(g["change"], (w["after"] / w["before"] - 1) * 100, what + ": change in percent")
        t.near(g["p_value"], w["p"], what + ": p", rel=1e-6)
        t.eq(g["direction"], direction, what + ": direction")
    return want


def check_step_and_flat(db, data, ids, doc):
    (bw, lat, files), (fbw, flat_lat, ffiles) = data["step"], data["flat"]
    (gbw,), (glat,), (gflat,) = find(doc, "step", "bw_bytes_s"), find(doc, "step", "lat_mean_ns"), \
        find(doc, "flat", "bw_bytes_s")
    want = check_series(gbw, bw, files, ids, "planted bandwidth drop", "worse")
    t.eq([w["index"] for w in want], [STEP], "the reference finds the planted step at its run")
    t.eq([w["index"] for w in check_series(glat, lat, files, ids, "planted latency rise", "worse")],
         [STEP], "the latency rise too")
    t.eq(check_series(gflat, fbw, ffiles, ids, "flat noisy series", "worse"), [],
         "the reference finds no change in the flat series")
    t.eq(gflat["change_points"], [], "no change point in a flat noisy series of 30 runs")
    t.ok("% lower bandwidth" in gbw["points"][STEP]["change"], "the step's run names the change")


def check_outputs(db, bw, files):
    """md, csv and html show the same change points; --until/--metric narrow the series."""
    md = bdb.run(db, "trend")
    t.eq(md.returncode, 0, "md exit status " + md.stderr)
    (w,) = ref.change_points(bw)
    phrase = "%.1f %% lower bandwidth" % abs((w["after"] / w["before"] - 1) * 100)
    t.ok("| %s |" % phrase in md.stdout, "md names the bandwidth drop: " + phrase)
    p = bdb.run(db, "trend", "--format", "csv", "--where", "storage-class=step")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    t.eq(sorted(r["direction"] for r in rows), ["worse", "worse"], "csv: the step's two changes")
    html = bdb.run(db, "trend", "--format", "html", "--where", "storage-class=step")
    t.eq(html.stdout.count("<svg"), 3, "html: one chart per series (bw, lat, p99)")
    t.eq(html.stdout.count('<g class="mark"'), 2, "html: each change point marked")
    t.eq(html.stdout.count('data-kind="timeseries"'), 3, "html: the series drawn as time series")
    t.ok(">%s</text>" % phrase in html.stdout, "html: the bandwidth drop's mark names it")
    titles = re.findall(r'<text class="axis-title"[^>]*>([^<]*)</text>', html.stdout)
    for quantity in ("Bandwidth", "Latency"):
        t.ok(any(x.startswith(quantity + " (") for x in titles),
             "html: a value axis says it holds %s with its unit: %s" % (quantity, titles))
    page = os.path.join(os.path.dirname(db), "trend.html")
    with open(page, "w") as f:
        f.write(html.stdout)
    charts.t = t  # its browser checks count here
    charts.chromium(page, os.path.dirname(db), ["timeseries"])
    before_step = files[STEP - 1][1]
    p = bdb.run(db, "trend", "--format", "json", "--metric", "bw_bytes_s", "--until", before_step)
    doc = json.loads(p.stdout)
    t.eq(sorted((s["storage_class"], s["runs"], len(s["change_points"])) for s in doc["series"]),
         [("flat", STEP, 0), ("step", STEP, 0)], "--until before the step: no change, 18 runs")


def check_errors(db):
    for opts, status, msg in [
            (("--p-value", "2"), 2, "expected --p-value above 0 and at most 0.5, got '2'"),
            (("--min-magnitude", "five"), 2, "expected --min-magnitude from 0 to 1000"),
            (("--since", "2026-02-30"), 2, "invalid date '2026-02-30' for --since"),
            (("--format", "xml"), 2, "unknown format 'xml'"),
            (("--metric", "no_such_metric"), 1, "no results with a start time and a value of"),
            (("--where", "storage-class=none"), 1, "that pass the filters")]:
        p = bdb.run(db, "trend", *opts)
        t.eq(p.returncode, status, "trend %s: exit status" % " ".join(opts))
        t.ok(msg in p.stderr, "trend %s names it: %r" % (" ".join(opts), p.stderr))


def check_network_bits():
    """A network's series is in bit/s, as links are rated and as the report shows it (issue 28):
    each point is the receiver's rate iperf3 printed (end.sum_received.bits_per_second)."""
    iperf = os.path.join(os.environ["FIXTURES"], "iperf")
    with bdb.temp_db() as db:
        files = [os.path.join(iperf, f) for f in ("iperf3_tcp.json", "iperf3_tcp_P2.json")]
        p = bdb.run(db, "import", *files)
        t.eq(p.returncode, 0, "import iperf3: " + p.stderr)
        p = bdb.run(db, "trend", "--metric", "bw_bytes_s", "--table", "points", "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        want = sorted(json.load(open(f))["end"]["sum_received"]["bits_per_second"] for f in files)
        t.eq([r["unit"] for r in rows], ["bits/s"] * 2, "network series in bits/s")
        got = sorted(float(r["value"]) for r in rows)
        t.ok(len(got) == 2 and all(t.close(g, w) for g, w in zip(got, want)),
             "network points: iperf3's bits_per_second: %r vs %r" % (got, want))


def main():
    check_network_bits()
    rng = random.Random(20261201)
    with bdb.temp_db() as db:
        tmp = os.path.dirname(db)
        data = {}
        for cls, step in (("step", True), ("flat", False)):
            bw, lat = series_values(rng, step)
            files = derive(tmp, cls, bw, lat)
            p = bdb.run(db, "import", "--storage-class", cls, *[f for f, _ in files])
            t.eq(p.returncode, 0, "import " + p.stderr)
            data[cls] = (bw, lat, files)
        ids = run_ids(db)
        p = bdb.run(db, "trend", "--format", "json")
        t.eq(p.returncode, 0, "trend --format json: " + p.stderr)
        doc = json.loads(p.stdout)
        with open(SCHEMA) as f:
            errors = [e.message for e in jsonschema.Draft7Validator(json.load(f)).iter_errors(doc)]
        t.eq(errors, [], "the JSON validates against docs/trend.schema.json")
        check_step_and_flat(db, data, ids, doc)
        check_outputs(db, data["step"][0], data["step"][2])
        check_errors(db)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
