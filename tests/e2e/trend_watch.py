#!/usr/bin/python3
"""benchdb trend as a watch (issue 33 item 5): --since DATE / --since-last-baseline list the
change points (regressions and improvements) from that date on, found against the runs before
it, and exit 1 on a regression; --stale DURATION names each series whose newest run is older
than that and exits 5; --now and SOURCE_DATE_EPOCH fix "now".

The runs are copies of a real fio run (tests/fixtures/disk_tmpfs/disk/randread-1.json) made as
trend.py makes them, one night apart: "step" drops its bandwidth 20 % (and raises its latency
25 %) at run 18, "gain" raises its bandwidth 25 % (latency 20 % lower) at run 24, "flat" is
noise around one level, and "gone" stopped after 12 nights. Expected change points come from
tests/tools/changepoint_ref.py on the values written here, on the whole series; which of them
are listed, the exit statuses and the stale series' ages are computed here from the dates.
Env: BENCHDB, SRCDIR."""
import csv
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
from checks import Checks  # noqa: E402

try:
    import jsonschema
except ImportError:
    print("trend_watch: python3-jsonschema is not installed (scripts/setup.sh --test)")
    sys.exit(77)

SRC = os.environ.get("SRCDIR") or os.path.join(os.path.dirname(__file__), "..", "..")
SCHEMA = os.path.join(SRC, "docs", "trend.schema.json")
START = datetime(2026, 1, 1, 2, 0, tzinfo=timezone.utc)
RUNS = 30
# storage class: (runs, the run from which the level changes, bandwidth factor, latency factor)
PLAN = {"step": (RUNS, 18, 0.8, 1.25), "gain": (RUNS, 24, 1.25, 0.8), "flat": (RUNS, None, 1, 1),
        "gone": (12, None, 1, 1)}
METRICS = {"bw_bytes_s": True, "lat_mean_ns": False}  # higher is better?
t = Checks("trend_watch", rel=1e-9)


def iso(when):
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def values(rng, plan):
    runs, at, fbw, flat = plan
    bw, lat = [], []
    for i in range(runs):
        late = at is not None and i >= at
        bw.append(round(30e6 * (fbw if late else 1.0) * rng.gauss(1, 0.02)))
        lat.append(round(130000 * (flat if late else 1.0) * rng.gauss(1, 0.02), 3))
    return {"bw_bytes_s": bw, "lat_mean_ns": lat}


def derive(tmp, cls, v):
    """The run files of one storage class; returns [(path, start)]."""
    with open(os.path.join(bdb.EXAMPLES, "disk", "randread-1.json")) as f:
        doc = json.load(f)
    out = []
    for i, bw in enumerate(v["bw_bytes_s"]):
        when = START + timedelta(days=i)
        read = doc["jobs"][0]["read"]
        doc["timestamp"] = int(when.timestamp())
        doc["timestamp_ms"] = doc["timestamp"] * 1000
        read["bw_bytes"], read["bw"], read["iops"] = bw, bw // 1024, bw / 4096
        read["lat_ns"]["mean"] = v["lat_mean_ns"][i]
        path = bdb.write(os.path.join(tmp, "%s-%02d.json" % (cls, i)), json.dumps(doc))
        out.append((path, when))
    return out


def expected(data, since):
    """[(class, metric, start, before, after, direction)] of the reference's change points on
    each whole series, those started at or after since."""
    out = []
    for cls, (v, files) in sorted(data.items()):
        for metric, higher in METRICS.items():
            for w in ref.change_points(v[metric]):
                when = files[w["index"]][1]
                if when >= since:
                    better = (w["after"] > w["before"]) == higher
                    out.append((cls, metric, iso(when), w["before"], w["after"],
                                "better" if better else "worse"))
    return out


def trend(db, *args, env=None):
    e = dict(os.environ, LC_ALL="C")
    e.pop("SOURCE_DATE_EPOCH", None)
    e.update(env or {})
    return bdb.run(db, "trend", "--metric", "bw_bytes_s", "--metric", "lat_mean_ns", *args, env=e)


def validate(doc, what):
    with open(SCHEMA) as f:
        errors = [e.message for e in jsonschema.Draft7Validator(json.load(f)).iter_errors(doc)]
    t.eq(errors, [], what + ": the JSON validates against docs/trend.schema.json")


def got_changes(doc):
    return sorted((s["storage_class"], s["metric"], c["started_at"], c["before"], c["after"],
                   c["direction"]) for s in doc["series"] for c in s["change_points"])


def check_changes(got, want, what):
    t.eq([g[:3] + g[5:] for g in got], [w[:3] + w[5:] for w in sorted(want)],
         what + ": the change points listed, with their direction")
    for g, w in zip(got, sorted(want)):
        t.near(g[3], w[3], what + ": mean before (the runs before --since included)")
        t.near(g[4], w[4], what + ": mean after")


def check_since(db, data):
    step_at = START + timedelta(days=PLAN["step"][1])
    want = expected(data, step_at)
    t.eq(sorted({(w[0], w[5]) for w in want}), [("gain", "better"), ("step", "worse")],
         "the reference finds the planted drop and gain from the step's night on")
    # what a filter on the runs would see: the step is its first run, with no history before it
    cut = ref.change_points(data["step"][0]["bw_bytes_s"][PLAN["step"][1]:])
    t.eq(cut, [], "the runs from the step on alone show no change: the history is needed")
    p = trend(db, "--since", iso(step_at), "--format", "json")
    t.eq(p.returncode, 1, "--since the step's night: a regression, exit 1 " + p.stderr)
    doc = json.loads(p.stdout)
    validate(doc, "--since")
    check_changes(got_changes(doc), want, "--since the step's night")
    for s in doc["series"]:
        runs = [w for _, w in data[s["storage_class"]][1] if w >= step_at]
        t.eq([x["started_at"] for x in s["points"]], [iso(w) for w in runs],
             "%s %s: the values from --since on" % (s["storage_class"], s["metric"]))
        t.eq((s["runs"], s["first"], s["change_count"]),
             (len(runs), iso(runs[0]), len(s["change_points"])),
             "%s %s: runs, first and changes count the window" % (s["storage_class"], s["metric"]))
    t.ok("gone" not in {s["storage_class"] for s in doc["series"]},
         "a series without a run since is not listed")
    t.eq(doc["facts"]["Regressions since"], "%d (improvements: %d)" % (
        sum(w[5] == "worse" for w in want), sum(w[5] == "better" for w in want)),
        "the facts count regressions and improvements since")
    # after the drop, before the gain: improvements only pass
    after = step_at + timedelta(days=1)
    p = trend(db, "--since", iso(after), "--format", "csv")
    t.eq(p.returncode, 0, "--since after the drop: only an improvement, exit 0 " + p.stderr)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    want = expected(data, after)
    t.eq(sorted((r["started_at"], r["direction"]) for r in rows),
         sorted((w[2], w[5]) for w in want), "csv: the gain's change points, each better")
    t.ok(all(w[0] == "gain" for w in want) and want, "the reference agrees: the gain alone")
    p = trend(db, "--since", iso(START + timedelta(days=40)))
    t.eq(p.returncode, 0, "--since after every run: nothing to list, exit 0 " + p.stderr)
    t.ok("- **Series:** 0 with runs since 2026-02-10T02:00:00Z (of 8)\n" in p.stdout,
         "md: no series has runs since, of the 8 read: " + p.stdout[:400])
    md = trend(db, "--since", iso(step_at)).stdout
    t.ok("- **Since:** %s\n" % iso(step_at) in md, "md states since when")


# Grafana's annotation, as its HTTP API (POST /api/annotations: time and timeEnd in epoch ms,
# tags, text) and the JSON data sources (title) take it
ANNOTATION = {"type": "array", "items": {
    "type": "object", "required": ["time", "text", "tags"],
    "properties": {"time": {"type": "integer"}, "timeEnd": {"type": "integer"},
                   "title": {"type": "string"}, "text": {"type": "string"},
                   "tags": {"type": "array", "items": {"type": "string"}}},
    "additionalProperties": False}}


def check_annotations(db, data):
    step_at = START + timedelta(days=PLAN["step"][1])
    p = trend(db, "--since", iso(step_at), "--format", "annotations")
    t.eq(p.returncode, 1, "annotations since the drop: exit 1 as json's " + p.stderr)
    got = json.loads(p.stdout)
    t.eq([e.message for e in jsonschema.Draft7Validator(ANNOTATION).iter_errors(got)], [],
         "annotations have Grafana's shape")
    want = sorted((int(datetime.strptime(w[2], "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=timezone.utc).timestamp()) * 1000, sorted(["benchdb", w[5], "metric:" + w[1],
                                                          "storage_class:" + w[0]]))
        for w in expected(data, step_at))
    t.eq(sorted((a["time"], sorted(a["tags"])) for a in got), want,
         "one annotation per change point since: its time in ms and its tags")
    t.ok(all(("lower" in a["text"] or "higher" in a["text"]) and "(p = " in a["text"]
             for a in got), "each text says the change and p")
    p = trend(db, "--since", iso(START + timedelta(days=40)), "--format", "annotations")
    t.eq((p.returncode, p.stdout), (0, "[]\n"), "no change point since: an empty array")


def save_baseline(db, name, when):
    """baseline save NAME, its creation time when (SOURCE_DATE_EPOCH)."""
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(int(when.timestamp())))
    p = bdb.run(db, "baseline", "save", name, "--where", "storage-class=flat", env=env)
    t.eq(p.returncode, 0, "baseline save %s: %s" % (name, p.stderr))


def check_since_last_baseline(db, data):
    p = trend(db, "--since-last-baseline")
    t.eq(p.returncode, 1, "--since-last-baseline without a baseline: exit 1")
    t.eq(p.stderr, "benchdb: error: no baseline is saved: 'benchdb baseline save NAME' "
         "saves one, or give --since DATE\n", "--since-last-baseline without one says so")
    step_at = START + timedelta(days=PLAN["step"][1])
    after = step_at + timedelta(days=1)
    save_baseline(db, "good", step_at - timedelta(hours=1))
    save_baseline(db, "older", START)  # saved last, created first: not the newest
    p = trend(db, "--since-last-baseline", "--format", "json")
    t.eq(p.returncode, 1, "--since-last-baseline before the drop: exit 1 " + p.stderr)
    doc = json.loads(p.stdout)
    check_changes(got_changes(doc), expected(data, step_at - timedelta(hours=1)),
                  "--since-last-baseline")
    t.eq(doc["facts"]["Since"], "%s, when baseline 'good' was saved" % iso(
        step_at - timedelta(hours=1)), "the facts name the newest baseline")
    save_baseline(db, "after-drop", after)
    p = trend(db, "--since-last-baseline", "--format", "json")
    t.eq(p.returncode, 0, "a baseline saved after the drop: exit 0 " + p.stderr)
    check_changes(got_changes(json.loads(p.stdout)), expected(data, after),
                  "--since-last-baseline after the drop")
    p = trend(db, "--since-last-baseline", "--since", "2026-01-01")
    t.eq(p.returncode, 2, "--since with --since-last-baseline: usage error")


def stale_expected(data, now, limit):
    """{series name: (last start, age in hours)} of the classes whose last run is older."""
    out = {}
    for cls, (_, files) in data.items():
        last = files[-1][1]
        if (now - last).total_seconds() > limit:
            out[cls] = (iso(last), (now - last).total_seconds() / 3600)
    return out


def check_stale(db, data, ids):
    now = START + timedelta(days=RUNS)  # the nightly runs' last one is 24 h old
    for args, env, limit in [
            (("--stale", "25h", "--now", iso(now)), None, 25 * 3600),
            (("--stale", "1d"), {"SOURCE_DATE_EPOCH": str(int(now.timestamp()))}, 86400),
            (("--stale", "23h", "--now", iso(now)), None, 23 * 3600),
            (("--stale", "20d", "--now", iso(now)), None, 20 * 86400)]:
        what = " ".join(args) + (" SOURCE_DATE_EPOCH" if env else "")
        want = stale_expected(data, now, limit)
        p = trend(db, *args, "--format", "json", env=env)
        t.eq(p.returncode, 5 if want else 0, what + ": exit status " + p.stderr)
        doc = json.loads(p.stdout)
        validate(doc, what)
        got = {s["series"]: s for s in doc["stale"]}
        names = {s["storage_class"]: s["series"].rsplit(": ", 1)[0] for s in doc["series"]}
        t.eq(sorted(got), sorted(names[c] for c in want), what + ": each stale series once")
        for cls, (last, age) in want.items():
            g = got[names[cls]]
            t.eq(g["last"], last, what + ": %s's newest run" % cls)
            t.eq(g["run_id"], ids[data[cls][1][-1][0]], what + ": %s's newest run's id" % cls)
            t.near(g["age_hours"], age, what + ": %s's age" % cls)
    p = trend(db, "--stale", "25h", "--now", iso(now), "--since",
              iso(START + timedelta(days=PLAN["step"][1])))
    t.eq(p.returncode, 1, "stale and a regression since: the regression's 1")
    t.ok("## Stale series" in p.stdout and "gone, " in p.stdout, "md lists the stale series")
    p = trend(db, "--stale", "25h", "--now", iso(now), "--format", "csv", "--table", "stale")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    t.eq([(r["last"], r["run_id"]) for r in rows],
         [(iso(data["gone"][1][-1][1]), str(ids[data["gone"][1][-1][0]]))], "csv --table stale")
    for args, msg in [(("--stale", "25"), "expected --stale DURATION such as 25h, 7d, 90m or "
                        "1d12h, got '25'"),
                      (("--stale", "0h"), "got '0h'"), (("--stale", "-1h"), "got '-1h'"),
                      (("--now", "2026-01-01"), "--now is the time --stale measures from"),
                      (("--stale", "1h", "--now", "yesterday"), "invalid date 'yesterday' for "
                       "--now")]:
        p = trend(db, *args)
        t.eq(p.returncode, 2, " ".join(args) + ": usage error")
        t.ok(msg in p.stderr, " ".join(args) + ": %r" % p.stderr)


def main():
    rng = random.Random(20261203)
    with bdb.temp_db() as db:
        tmp = os.path.dirname(db)
        data = {}
        for cls, plan in PLAN.items():
            v = values(rng, plan)
            files = derive(tmp, cls, v)
            p = bdb.run(db, "import", "--storage-class", cls, *[f for f, _ in files])
            t.eq(p.returncode, 0, "import " + p.stderr)
            data[cls] = (v, files)
        p = bdb.run(db, "runs", "--format", "json")
        ids = {row["source"]: row["run_id"] for row in json.loads(p.stdout)["runs"]}
        p = trend(db)
        t.eq(p.returncode, 0, "trend without --since: change points listed, exit 0 " + p.stderr)
        check_since(db, data)
        check_annotations(db, data)
        check_since_last_baseline(db, data)
        check_stale(db, data, ids)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
