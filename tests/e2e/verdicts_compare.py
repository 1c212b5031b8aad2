"""verdicts_compare.py: what the comparison counts as a repeat and what it may call significant,
on real fio runs (tests/fixtures/compare/gen.sh) and real dd and iperf3 outputs. Expected values
come from the raw files (python, scipy), never from benchdb's output."""
import csv, glob, io, json, os, statistics, sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
import stats_ref
from checks import Checks

t = Checks("verdicts_compare")
FIX = os.path.join(os.environ["FIXTURES"], "compare")


def aa(side):
    return sorted(glob.glob(os.path.join(FIX, "aa-%s-*.json" % side)))


def job(path):
    with open(path) as f:
        return json.load(f)["jobs"][0]


def comparison(db, *args):
    rc, out, err = bdb.call(db, "report", "--format", "csv", *args)
    t.eq(rc, 0, "report %s: %s" % (" ".join(args), err.strip()))
    return list(csv.DictReader(io.StringIO(out)))


def table(db, name, *args):
    rc, out, err = bdb.call(db, "report", "--format", "csv", "--table", name, *args)
    t.eq(rc, 0, "report --table %s: %s" % (name, err.strip()))
    return list(csv.DictReader(io.StringIO(out)))


def test_aa():
    """Six runs of one configuration split in two sides: nothing may be called significant,
    and each verdict is the one Holm's correction over the report's three tests gives."""
    with bdb.temp_db() as db:
        bdb.run(db, "import", "--storage-class", "a", *aa("a"))
        bdb.run(db, "import", "--storage-class", "b", *aa("b"))
        rows = comparison(db, "--compare", "a", "b")
        t.eq([r["Metric"] for r in rows], ["Bandwidth", "Mean latency", "p99 latency"],
             "A/A rows: bandwidth (with IOPS), mean and p99 latency")
        raw = {s: [job(p)["read"] for p in aa(s)] for s in "ab"}
        pick = {"Bandwidth": lambda x: x["bw_bytes"], "Mean latency": lambda x: x["lat_ns"]["mean"],
                "p99 latency": lambda x: x["clat_ns"]["percentile"]["99.000000"]}
        ps = [stats_ref.ratio_p([pick[r["Metric"]](x) for x in raw["a"]],
                                [pick[r["Metric"]](x) for x in raw["b"]],
                                stats_ref.resolution(r["Metric"])) for r in rows]
        for r, p in zip(rows, stats_ref.holm(ps)):
            a = [pick[r["Metric"]](x) for x in raw["a"]]
            t.near(float(r["a (baseline)"]), statistics.mean(a), "A/A baseline mean " + r["Metric"])
            want = ("significant",) if p < 0.05 else ("equivalent", "inconclusive")
            t.ok(r["b vs a verdict"] in want, "A/A verdict %s (Holm p %.3f): %r" %
                 (r["Metric"], p, r["b vs a verdict"]))
            t.ok(r["b vs a verdict"] != "significant", "A/A claims nothing: " + r["Metric"])
        bw = rows[0]
        t.near(float(bw["a (baseline) iops"]), statistics.mean(x["iops"] for x in raw["a"]),
               "IOPS beside the bandwidth")
        t.ok("IOPS" not in [r["Metric"] for r in rows], "no IOPS row of its own")


def test_context_break_out():
    """Runs of one side on two hosts are not repeats: rows broken out by host."""
    a = aa("a")
    with bdb.temp_db() as db:
        bdb.run(db, "import", "--storage-class", "a", "--host", "h1", *a[:2])
        bdb.run(db, "import", "--storage-class", "a", "--host", "h2", a[2])
        bdb.run(db, "import", "--storage-class", "b", "--host", "h1", *aa("b"))
        rows = comparison(db, "--compare", "a", "b")
        names = sorted({r["Workload"] for r in rows})
        t.eq(names, ["Random Read 4K [host h1]"], "compared: the host both sides ran on")
        bw = [r for r in rows if r["Metric"] == "Bandwidth"][0]
        t.eq(bw["a (baseline) n"], "2", "host h1 of side a: 2 runs, not 3")
        want = statistics.mean(job(p)["read"]["bw_bytes"] for p in a[:2])
        t.near(float(bw["a (baseline)"]), want, "mean of h1's runs only")
        unmatched = table(db, "unmatched", "--compare", "a", "b")
        t.eq([(u["Workload"], u["Ran on"], u["Runs"]) for u in unmatched],
             [("Random Read 4K [host h2]", "a", "1")], "h2 alone is not compared")
        rc, md, _ = bdb.call(db, "report", "--compare", "a", "b")
        t.ok("differ in their host are not repeats" in md, "the report says what was split and why")


def test_n_way():
    """Three sides: a workload the third side lacks keeps the pair that has data."""
    sw = sorted(glob.glob(os.path.join(FIX, "seqwrite-*.json")))
    with bdb.temp_db() as db:
        bdb.run(db, "import", "--storage-class", "a", *aa("a"), sw[0])
        bdb.run(db, "import", "--storage-class", "b", *aa("b"))
        bdb.run(db, "import", "--storage-class", "c", sw[1])
        rows = comparison(db, "--compare", "a", "b", "c")
        got = {(r["Workload"], r["Metric"]): r for r in rows}
        rr = got.get(("Random Read 4K", "Bandwidth"))
        swr = got.get(("Sequential Write 1M", "Bandwidth"))
        if t.ok(rr is not None and swr is not None, "both workloads kept: %s" % sorted(got)):
            # the pair without data says so (issue 28: no row without a verdict or a reason)
            t.ok(rr["b vs a verdict"] != "" and rr["c vs a"] == "no verdict: c did not run this "
                 "workload", "random read: b vs a only: %r" % rr["c vs a"])
            t.ok(swr["c vs a verdict"] != "" and swr["b vs a"] == "no verdict: b did not run "
                 "this workload", "sequential write: c vs a only: %r" % swr["b vs a"])
            want = job(sw[1])["write"]["bw_bytes"] / job(sw[0])["write"]["bw_bytes"]
            t.near(float(swr["c vs a"]), want, "c vs a factor from the raw files")
            t.eq(swr["c vs a verdict"], "single run", "one run each: single run")


def test_unknown_dd():
    """dd summaries without their command line could be anything: they match nothing."""
    dd = os.path.join(os.environ["FIXTURES"], "dd")
    with bdb.temp_db() as db:
        bdb.run(db, "import", "--storage-class", "a", os.path.join(dd, "gnu-default.txt"))
        bdb.run(db, "import", "--storage-class", "b", os.path.join(dd, "gnu-progress.txt"))
        rows = comparison(db, "--compare", "a", "b")
        t.eq(rows, [], "no comparison row from unknown dd workloads")
        unmatched = table(db, "unmatched", "--compare", "a", "b")
        t.eq(len(unmatched), 2, "both listed as not compared")
        t.ok(all(u["Workload"].startswith("unknown dd workload (") for u in unmatched),
             "named as unknown dd workloads with their file")


def test_network_in_bits():
    """iperf3 tests are named by tool, protocol and streams and compared in bit/s."""
    fx = os.environ["FIXTURES"]
    with bdb.temp_db() as db:
        files = {"one": os.path.join(fx, "iperf", "iperf3_tcp.json"),
                 "two": os.path.join(fx, "insights", "iperf3-100M.json")}
        for side, path in files.items():
            bdb.run(db, "import", "--storage-class", side, path)
        rows = comparison(db, "--compare", "one", "two")
        with open(files["one"]) as f:
            doc = json.load(f)
        streams = doc["start"]["test_start"]["num_streams"]
        want_name = "iperf3 TCP, %d stream%s (send)" % (streams, "" if streams == 1 else "s")
        sent = [r for r in rows if r["Workload"] == want_name and r["Metric"] == "Bandwidth"]
        if t.ok(len(sent) == 1, "row %r in %s" % (want_name, [r["Workload"] for r in rows])):
            t.near(float(sent[0]["one (baseline)"]), doc["end"]["sum_sent"]["bits_per_second"],
                   "sent rate in bit/s from end.sum_sent")
            t.eq(sent[0]["unit"], "bits/s", "unit column")


def test_factor_wording():
    """Three significant digits and never '1.0x slower'."""
    with bdb.temp_db() as db:
        bdb.import_examples(db, checks=t)
        rows = comparison(db, "--compare", "disk", "tmpfs")
        for r in rows:
            text = r["tmpfs vs disk text"]
            t.ok("1.0x" not in text.replace("1.00x", ""), "no '1.0x': " + text)


def verdict_line(rows, cand, base):
    """The header's line for cand, counted here from the comparison's rows (the verdicts
    themselves are checked against scipy above)."""
    kinds = {"better": 0, "worse": 0, "equivalent": 0, "inconclusive": 0, "single run": 0}
    caution = 0
    for r in rows:
        v = r["%s vs %s verdict" % (cand, base)]
        if v == "significant":
            kinds["better" if float(r["%s vs %s" % (cand, base)]) > 1 else "worse"] += 1
        elif v in kinds:
            kinds[v] += 1
        caution += v != "" and "caution:" in r["%s vs %s text" % (cand, base)]
    line = "%(better)d better, %(worse)d worse, %(equivalent)d equivalent, " \
           "%(inconclusive)d inconclusive" % kinds
    if kinds["single run"]:
        line += ", %d single-run" % kinds["single run"]
    if not sum(kinds.values()):
        return "no workload in common"
    if len(rows) > sum(kinds.values()):  # rows whose factor says why there is no verdict
        line += ", %d without a verdict" % (len(rows) - sum(kinds.values()))
    line += " (of %d rows" % len(rows)
    return line + ("; %d with a caution)" % caution if caution else ")")


def test_verdict_line():
    """The header's one line per candidate agrees with the rows' verdicts: the real disk/tmpfs
    runs (significant both ways) and three sides with single runs."""
    with bdb.temp_db() as db:
        bdb.import_examples(db, checks=t)
        bdb.run(db, "import", "--storage-class", "one", aa("a")[0])
        for sides in (("disk", "tmpfs"), ("tmpfs", "disk", "one")):
            rows = comparison(db, "--compare", *sides)
            rc, out, err = bdb.call(db, "report", "--format", "json", "--compare", *sides)
            facts = {f["key"]: f["value"] for f in json.loads(out)["facts"]} if rc == 0 else {}
            for cand in sides[1:]:
                key = "%s vs %s" % (cand, sides[0])
                t.eq(facts.get(key), verdict_line(rows, cand, sides[0]), "header line " + key)


def test_threads_equal_group_reporting():
    """numjobs=4 without group_reporting (one entry per thread) against the same runs with it:
    the threads are summed into one job result per run, so the sides agree (tests/fixtures/jobs)."""
    jobs = os.path.join(os.environ["FIXTURES"], "jobs")
    threads = sorted(glob.glob(os.path.join(jobs, "mt_threads_*.json")))
    group = sorted(glob.glob(os.path.join(jobs, "mt_group_*.json")))
    with bdb.temp_db() as db:
        bdb.run(db, "import", "--storage-class", "group", *group)
        bdb.run(db, "import", "--storage-class", "threads", *threads)
        rows = comparison(db, "--compare", "group", "threads")
        bw = [r for r in rows if r["Metric"] == "Bandwidth"]
        if not t.ok(len(bw) == 1, "one bandwidth row, not one per thread"):
            return
        bw = bw[0]
        per_run = []
        for p in threads:
            with open(p) as f:
                per_run.append(sum(j["read"]["bw_bytes"] for j in json.load(f)["jobs"]))
        t.eq(bw["threads n"], "3", "three runs, not twelve threads")
        t.near(float(bw["threads"]), statistics.mean(per_run), "mean of the runs' thread sums")
        t.near(float(bw["group (baseline)"]),
               statistics.mean(job(p)["read"]["bw_bytes"] for p in group), "group_reporting mean")
        t.ok(bw["threads vs group verdict"] in ("equivalent", "inconclusive"),
             "the same bandwidth: %r" % bw["threads vs group verdict"])


test_aa()
test_threads_equal_group_reporting()
test_context_break_out()
test_n_way()
test_unknown_dd()
test_network_in_bits()
test_factor_wording()
test_verdict_line()
sys.exit(t.done())
