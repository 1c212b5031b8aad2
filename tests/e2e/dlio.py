"""DLIO / MLPerf Storage summary.json importer end to end (issue 34). Each real fixture
(tests/fixtures/dlio, from mlcommons/storage_results_v1.0: README.md there) is read here with
Python's json, its units converted here (DLIO's MB is 2^20 bytes, the dates UTC), and compared
with `benchdb export`; damaged copies are refused at their line and column; two systems' five
unet3d runs each are compared by `benchdb report` as MLPerf compares them, by the mean of the
five runs, with the means, sd, factor, p, Holm's p and verdict stats_ref.py computes from the
raw files."""
import csv, datetime, glob, io, json, os, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
import stats_ref  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "dlio")
t = Checks("dlio", rel=1e-9, abs_tol=1e-9, none_equal=True)
MIB = 1 << 20


def utc(text):
    return datetime.datetime.fromisoformat(text).replace(tzinfo=datetime.timezone.utc).timestamp()


def expected(path):
    """The record a summary.json must give, read from the file alone."""
    d = json.load(open(path, encoding="utf-8"))
    m = d["metric"]
    e = {
        "tool": "dlio", "format": "dlio", "job": "train", "direction": "read",
        "host": d["hostname"], "numjobs": d["num_accelerators"],
        "bw_bytes_s": m["train_io_mean_MB_per_second"] * MIB,
        "train_samples_s": m["train_throughput_mean_samples_per_second"],
        "train_au_pct": m["train_au_mean_percentage"],
        "train_au_stddev_pct": m["train_au_stdev_percentage"],
        "train_samples_stddev_s": m["train_throughput_stdev_samples_per_second"],
        "bw_stddev_bytes_s": m["train_io_stdev_MB_per_second"] * MIB,
        "epochs": len(m["train_au_percentage"]),
        # the sample size (DLIO's record_length) the two throughputs imply
        "bs_bytes": round(m["train_io_mean_MB_per_second"] * MIB /
                          m["train_throughput_mean_samples_per_second"]),
        "hosts": d.get("num_hosts"), "files_train": d.get("num_files_train"),
        "samples_per_file": d.get("num_samples_per_file"),
        "runtime_ms": (utc(d["end"]) - utc(d["start"])) * 1000,
        "started_at": datetime.datetime.fromtimestamp(int(utc(d["start"])), datetime.timezone.utc)
        .strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tags": {"au_expectation": m.get("train_au_meet_expectation")},
    }
    t.eq(d.get("epochs", e["epochs"]), e["epochs"], os.path.basename(path) + ": epochs agree")
    return e


def compare(recs, e, what):
    if not t.eq(len(recs), 1, what + ": one result"):
        return
    r = recs[0]
    for k, v in e.items():
        if k == "tags":
            for tk, tv in v.items():
                t.eq(r["tags"].get(tk), tv, "%s: tag %s" % (what, tk))
        elif isinstance(v, float):
            t.near(r.get(k), v, "%s: %s" % (what, k))
        else:
            t.eq(r.get(k), v, "%s: %s" % (what, k))


# ---- every raw fixture against an independent reading ----
inputs = sorted(glob.glob(os.path.join(FIX, "*.json")) + glob.glob(os.path.join(FIX, "compare", "*.json")))
t.ok(len(inputs) >= 13, "fixtures found: %d" % len(inputs))
samples = set()
for path in inputs:
    e = expected(path)
    samples.add(e["bs_bytes"])
    p, recs = bdb.import_export(path)
    t.eq(p.returncode, 0, os.path.basename(path) + ": import " + p.stderr.strip())
    compare(recs, e, os.path.basename(path))
# resnet50, cosmoflow, unet3d and DLIO's test data: MLPerf's record_length of each
t.eq(samples, {114660, 2828486, 146600628, 234560851}, "four sample sizes (datasets)")

# ---- damaged copies: refused at their line and column ----
with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(FIX, "juicefs-cosmoflow-1acc.json")
    raw = open(src, encoding="utf-8").read()
    lines = raw.split("\n")

    def at(needle, nth=0):
        """line and column (1-based) of the value after "needle": in raw."""
        off = raw.index('"%s":' % needle) + len(needle) + 3
        while raw[off] in " \t\r\n":
            off += 1
        line = raw.count("\n", 0, off) + 1
        return line, off - (raw.rfind("\n", 0, off) + 1) + 1

    def bad(name, content, want, *opts):
        path = bdb.write(os.path.join(tmp, name), content)
        bdb.rejects(t, path, want.format(path=path), *(opts or ("--format", "dlio")))

    key = "train_io_mean_MB_per_second"
    old = '"%s": %r' % (key, json.load(open(src))["metric"][key])
    t.ok(old in raw, "the value's text is found: " + old)
    bad("string.json", raw.replace(old, '"%s": "fast"' % key),
        "{path}:%d:%d: error: expected a number for '%s', got a string" % (at(key) + (key,)))
    bad("missing.json", raw.replace('"train_au_mean_percentage"', '"train_au_average"'),
        "{path}:%d:%d: error: expected DLIO's 'train_au_mean_percentage' in summary.json, got "
        "none" % at("metric"))
    bad("epoch.json", raw.replace('"train_au_percentage": [\n', '"train_au_percentage": [\n"x",\n'),
        "{path}:%d:%d: error: expected a number for epoch 1 of 'train_au_percentage', got a "
        "string" % at("train_au_percentage"))
    bad("date.json", raw.replace(json.load(open(src))["start"], "2024-13-18T10:33:13"),
        "{path}:%d:%d: error: expected a date such as '2024-08-09T09:11:53.709631' for 'start', "
        "got '2024-13-18T10:33:13'" % at("start"))
    cut = raw.index('"host_cpuinfo"')
    bad("cut.json", raw[:cut], "{path}:%d:%d: error: truncated JSON: unexpected end of file" %
        (raw.count("\n", 0, cut) + 1, cut - raw.rfind("\n", 0, cut)))
    # a cut file is refused even when detection is left to benchdb
    bad("cut-detected.json", raw[:cut], "{path}:%d:" % (raw.count("\n", 0, cut) + 1), "-v")
    bad("trailing.json", raw + "\n{}\n", "{path}:%d:1: error: expected the end of summary.json, got "
        "'{{}}" % (len(lines) + 1))
    comma = raw.index(",", raw.index('"num_hosts"'))
    bad("invalid.json", raw[:comma] + ";" + raw[comma + 1:], "{path}:%d:%d: error: invalid JSON near "
        "';" % (raw.count("\n", 0, comma) + 1, comma - raw.rfind("\n", 0, comma)))
    bad("empty.json", "\n", "{path}:1: error: empty file: expected DLIO's summary.json")

# ---- MLPerf's result: the mean of five runs, two systems compared ----
sides = {"hpe-c500": "hpe-c500-unet3d-h100-2acc-run*.json",
         "micron-9400": "micron-9400-unet3d-h100-2acc-run*.json"}
files = {s: sorted(glob.glob(os.path.join(FIX, "compare", g))) for s, g in sides.items()}
t.eq([len(f) for f in files.values()], [5, 5], "five runs per system")
with bdb.temp_db() as db:
    for side, fs in files.items():
        p = bdb.run(db, "import", "--storage-class", side, *fs)
        t.eq(p.returncode, 0, "import %s: %s" % (side, p.stderr.strip()))
    rc, out, err = bdb.call(db, "report", "--format", "csv", "--compare", "hpe-c500", "micron-9400")
    t.eq(rc, 0, "report: " + err.strip())
    rows = list(csv.DictReader(io.StringIO(out)))
    t.eq([r["Metric"] for r in rows], ["Bandwidth"], "one row: the training read bandwidth")
    a = [expected(f)["bw_bytes_s"] for f in files["hpe-c500"]]
    b = [expected(f)["bw_bytes_s"] for f in files["micron-9400"]]
    verdict, p_holm, p_raw, lo, hi = stats_ref.family({"bw": (a, b)})["bw"]
    for r in rows:
        t.near(float(r["hpe-c500 (baseline)"]), statistics.mean(a), "mean of hpe's 5 runs")
        t.near(float(r["micron-9400"]), statistics.mean(b), "mean of micron's 5 runs")
        t.near(float(r["hpe-c500 (baseline) sd"]), statistics.stdev(a), "hpe's sd")
        t.eq((r["hpe-c500 (baseline) n"], r["micron-9400 n"]), ("5", "5"), "5 runs each")
        t.near(float(r["micron-9400 vs hpe-c500"]), statistics.mean(b) / statistics.mean(a),
               "factor")
        t.near(float(r["micron-9400 vs hpe-c500 p"]), p_raw, "p", rel=1e-6)
        t.near(float(r["micron-9400 vs hpe-c500 p_holm"]), p_holm, "Holm's p", rel=1e-6)
        t.eq(r["micron-9400 vs hpe-c500 verdict"], verdict, "verdict")
    # MLPerf's own report (mlperf_storage_report.json beside the runs) gives the same means in
    # its MB/s: 5560.36... per run here is train_io_mean_MB_per_second of run 1
    t.near(a[0] / MIB, 5560.359016205235, "run 1 of hpe in DLIO's MB/s")

sys.exit(t.done())
