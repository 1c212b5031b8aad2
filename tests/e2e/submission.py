"""submission.py: a filesystem that ignores O_DIRECT is judged on the time its I/O took
(issue 28, item 3).

tests/fixtures/journal_cold (gen.sh there): random 4k O_DIRECT reads with libaio at QD1 from
ext4 data=ordered and data=journal on loop devices, the page cache dropped before each run, 3
runs each. data=journal reads inside io_submit: slat about a millisecond, clat a few
microseconds. Expected, from the files:

- Mean latency is the total (lat = slat + clat): journal higher, with the factor, interval and
  verdict of stats_ref from lat_ns (not "54x lower latency" from clat);
- its p99 row has no factor but the reason (fio gave only completion percentiles, and they
  would flatter the journal);
- the reads came from the disk (about a millisecond each): not called cached, no caution;
- the insight "Submission latency" names the three data=journal results."""
import glob, json, os, re, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
import stats_ref
from checks import Checks

t = Checks("submission", rel=1e-6)
FIX = os.path.join(os.environ["FIXTURES"], "journal_cold")
BASE, CAND = "ext4-ordered", "ext4-journal"


def reads():
    out = {}
    for path in sorted(glob.glob(os.path.join(FIX, "*.json"))):
        side = "ext4-" + os.path.basename(path).split("-")[0]
        out.setdefault(side, []).append(json.load(open(path))["jobs"][0]["read"])
    return out


def table(doc, name):
    return next(s["table"]["rows"] for s in doc["sections"]
                if s.get("table") and s["table"]["name"] == name)


def main():
    r = reads()
    t.ok(all(x["slat_ns"]["mean"] > x["clat_ns"]["mean"] for x in r[CAND]),
         "the data=journal reads are submitted, not completed (slat above clat)")
    lat = {s: [x["lat_ns"]["mean"] for x in r[s]] for s in r}
    bw = {s: [x["bw_bytes"] for x in r[s]] for s in r}
    fam = stats_ref.family({"bw": (bw[BASE], bw[CAND]), "lat": (lat[BASE], lat[CAND])})
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        p = bdb.run(db, "import", *sorted(glob.glob(os.path.join(FIX, "*.json"))))
        t.eq(p.returncode, 0, "import: " + p.stderr[-200:])
        p = bdb.run(db, "report", "--compare", BASE, CAND, "--format", "json")
        doc = json.loads(p.stdout)
        rows = {row[1]: row for row in table(doc, "comparison")}
        t.eq(sorted(rows), ["Bandwidth", "Mean latency", "p99 latency"], "the rows")
        m = rows.get("Mean latency")
        if t.ok(m, "a mean latency row"):
            verdict, p_adj, pv, lo, hi = fam["lat"]
            f = statistics.mean(lat[BASE]) / statistics.mean(lat[CAND])
            t.near(m[2]["value"], statistics.mean(lat[BASE]), "ordered: total latency")
            t.near(m[3]["value"], statistics.mean(lat[CAND]), "journal: total latency")
            t.near(m[4]["value"], f, "the factor of total latencies")
            t.ok(f < 1, "journal's I/O takes longer (%.3g)" % f)
            t.eq(m[4]["text"], stats_ref.phrase(f, 1 / hi, 1 / lo, verdict, "lower latency",
                                                "higher latency", lat[BASE], lat[CAND]),
                 "mean latency's verdict, with no caution")
        p99 = rows.get("p99 latency")
        t.ok(p99 and isinstance(p99[4], str) and p99[4].startswith(
            "no verdict: %s's I/O happens in submission" % CAND),
             "p99: no verdict, and why: %r" % (p99[4] if p99 else None))
        t.ok(all(isinstance(row[4], str) or "caution" not in row[4] for row in rows.values()),
             "disk reads are not called cached")
        ins = {row[0]: row for row in table(doc, "insights")}
        t.ok("Faster than the device" not in ins and "Probably cached" not in ins,
             "no cache insight: %r" % sorted(ins))
        sub = ins.get("Submission latency")
        if t.ok(sub, "a Submission latency insight"):
            t.ok(sub[1].startswith("3 results"), "three results: %r" % sub[1][:40])
            t.eq(sorted(set(re.findall(r"(\w+)-\d\.json", sub[2]))), ["journal"],
                 "it names the data=journal files")
    return t.done()


sys.exit(main())
