"""check_gate.py: benchdb check's three outcomes and its limits (issue 33), on real fio runs
(tests/fixtures/check/gen_gate.sh): an A/A pair of buffered random reads on tmpfs, 12 runs a
side, whose bandwidth varies with the shared machine's load (about 28 % run to run); a planted
20 % regression (fio limited to 5000 IOPS against 4000), 3 runs a side. Every expectation is
computed here from the raw files: the gate's rule (stats_ref.gate_outcome), the runs per side
from statsmodels' TTestIndPower on the pooled sd of ln of the runs (stats_ref.runs_to_detect),
the means against the absolute limits."""
import glob, json, math, os, re, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
import stats_ref
from checks import Checks

t = Checks("check_gate")
FIX = os.path.join(os.environ["FIXTURES"], "check")


def files(name):
    return sorted(glob.glob(os.path.join(FIX, name + "-*.json")))


def bw(paths):
    """fio's bw_bytes of each run's read (one job, one direction)."""
    out = []
    for p in paths:
        with open(p) as f:
            out.append(json.load(f)["jobs"][0]["read"]["bw_bytes"])
    return out


def check(db, *args):
    return bdb.call(db, "check", *args)


def inconclusive_runs(out):
    """The run count of the one inconclusive line, or None."""
    m = re.search(r"^inconclusive: .*; about (\d+) runs per side would detect", out, re.M)
    return int(m.group(1)) if m else None


def outcome(a, b, floor):
    """The gate's outcome of one bandwidth factor (the only test of the comparison)."""
    fam = stats_ref.family({"bw": (a, b)})
    return stats_ref.gate_outcome(fam["bw"], True, floor, a, b)


def load(db, side, paths):
    p = bdb.run(db, "import", "--storage-class", side, *paths)
    t.eq(p.returncode, 0, "import %s: %s" % (side, p.stderr))


def test_aa(n, limit, floor):
    """A/A with n runs a side: inconclusive with statsmodels' run count, or a pass, as python
    finds it for the limit (floor: its factor)."""
    pa, pb = files("gate-a")[:n], files("gate-b")[:n]
    a, b = bw(pa), bw(pb)
    want = outcome(a, b, floor)
    with bdb.temp_db() as db:
        load(db, "a", pa)
        load(db, "b", pb)
        args = ["--compare", "a", "b"] + (["--limit", limit] if limit else [])
        rc, out, err = check(db, *args)
    what = "A/A n=%d %s" % (n, limit or "--threshold 5")
    t.eq(rc, {"pass": 0, "inconclusive": 4, "fail": 1}[want], what + " exit status: " + out + err)
    if want == "inconclusive":
        runs = stats_ref.runs_to_detect(a, b, floor)
        t.eq(inconclusive_runs(out), runs, what + ": runs per side (statsmodels: %d)" % runs)
        t.ok("n=%d vs %d" % (n, n) in out, what + ": the run counts: " + out)
        caution = stats_ref.caution([(side, [stats_ref.fio_suspects(json.load(open(f))["jobs"][0],
                                                                     "read") for f in paths])
                                     for side, paths in (("a", pa), ("b", pb))])
        t.ok(caution and re.search(r"^inconclusive: .*would detect a change of that size%s$"
                                   % re.escape(caution), out, re.M),
             what + ": the line ends with the report's caution %r: %s" % (caution, out))
    return want


def test_aa_outcomes():
    """n=2 a side is inconclusive even with a limit wide enough for the machine's spread; n=12
    passes with that limit. The default 5 % needs far more runs than 12 on this machine: still
    inconclusive, with the count statsmodels gives."""
    floor = 0.65  # bw:-35%: the spread of these runs is about 28 %
    t.eq(test_aa(2, "bw:-35%", floor), "inconclusive", "python: A/A n=2 is inconclusive")
    t.eq(test_aa(12, "bw:-35%", floor), "pass", "python: A/A n=12 passes within 35 %")
    t.eq(test_aa(2, None, 1 / 1.05), "inconclusive", "python: n=2 at 5 %")
    t.eq(test_aa(12, None, 1 / 1.05), "inconclusive", "python: n=12 at 5 % on this machine")


def test_regression():
    """The planted 20 % regression (3 runs a side) fails at 5 % and passes a 30 % limit."""
    a, b = bw(files("gate-base")), bw(files("gate-slow"))
    t.eq(outcome(a, b, 1 / 1.05), "fail", "python: 5000 against 4000 IOPS is a regression")
    t.eq(outcome(a, b, 0.70), "pass", "python: within 30 %")
    with bdb.temp_db() as db:
        load(db, "base", files("gate-base"))
        load(db, "slow", files("gate-slow"))
        rc, out, _ = check(db, "--compare", "base", "slow")
        t.eq(rc, 1, "regression exit status: " + out)
        r = statistics.mean(b) / statistics.mean(a)
        t.ok(re.search(r"^regression: Random Read 4K buffered: Bandwidth: slow vs base: "
                       r"%sx slower .*; limit 5 %% worse \(--threshold\)$"
                       % re.escape(stats_ref.sig3(1 / r)), out, re.M), "regression line: " + out)
        rc, out, _ = check(db, "--compare", "base", "slow", "--limit", "bw:-30%")
        t.eq(rc, 0, "within bw:-30%: " + out)
        t.ok(out.startswith("check: limits: bw:-30%; every other metric at most 5 % worse"),
             "the limits in force: " + out)
        # iops names the bandwidth row (one measurement); the strictest limit holds
        rc, out, _ = check(db, "--compare", "base", "slow", "--limit", "bw:-30%", "--limit",
                           "iops:-10%")
        t.eq(rc, 1, "iops:-10% holds the bandwidth row: " + out)
        t.ok("; limit iops:-10%" in out, "the limit named: " + out)
        test_absolute(db, b)
        test_limits_file(db)


def test_absolute(db, slow):
    """Absolute limits on a candidate's mean, with no baseline (one value) and with one."""
    mean = statistics.mean(slow)
    iops = statistics.mean(json.load(open(p))["jobs"][0]["read"]["iops"]
                           for p in files("gate-slow"))
    cases = [("bw>=20MB/s", mean >= 20e6), ("bw>=15MiB/s", mean >= 15 * 1048576),
             ("iops>=3k", iops >= 3000), ("iops>=4500", iops >= 4500),
             ("bw_bytes_s>=16000kB/s", mean >= 16e6)]
    for limit, ok in cases:
        rc, out, err = check(db, "--compare", "slow", "--limit", limit)
        t.eq(rc, 0 if ok else 1, "%s on one value (%s)" % (limit, out + err))
        t.ok(out.startswith("check: limits: %s (one value: absolute limits only)" % limit), out)
        if not ok:
            t.ok(re.search(r"^regression: Random Read 4K buffered: (Bandwidth|IOPS): slow: .* "
                           r"\(mean of 3 runs\) beyond %s$" % re.escape(limit), out, re.M), out)
    # with a baseline, the baseline is no candidate: base (5000 IOPS) never fails iops>=4500
    rc, out, _ = check(db, "--compare", "base", "slow", "--limit", "iops>=4500", "--threshold",
                       "30")
    t.eq(rc, 1, "the candidate fails iops>=4500: " + out)
    t.eq(len(re.findall(r"^regression: ", out, re.M)), 1, "only the candidate: " + out)
    rc, out, _ = check(db, "--compare", "slow", "--limit", "p99<=5ms")
    t.eq(rc, 1, "no p99 in runs without latency: nothing checked")
    t.ok("no result has a metric the limits name: nothing compared" in out, out)


def test_limits_file(db):
    """--limits FILE: comments and blank lines; each mistake at FILE:LINE:COL."""
    with tempfile.TemporaryDirectory() as d:
        good = os.path.join(d, "limits")
        with open(good, "w") as f:
            f.write("# nightly gate\n\n  bw:-30%   # the machine is noisy\niops>=3k\n")
        rc, out, err = check(db, "--compare", "base", "slow", "--limits", good)
        t.eq(rc, 0, "limits file: " + out + err)
        t.ok(out.startswith("check: limits: bw:-30%, iops>=3k; every other"), out)
        bad = os.path.join(d, "bad")
        lines = ["bw:-5%", "# fine", "p99<5ms", "bw:+5%", "  lat<=3 ms", "iops>=3x"]
        with open(bad, "w") as f:
            f.write("\n".join(lines) + "\n")
        rc, out, err = check(db, "--compare", "base", "slow", "--limits", bad)
        t.eq(rc, 2, "a bad limits file is a usage error")
        t.eq(out, "", "nothing compared")
        # the column of each mistake: where the text stops being a limit
        want = [(3, lines[2].index("<") + 1), (4, lines[3].index("+") + 1),
                (5, lines[4].index("3 ms") + 2), (6, lines[5].index("x") + 1)]
        got = [(int(m.group(1)), int(m.group(2)))
               for m in re.finditer(r"^%s:(\d+):(\d+): error: " % re.escape(bad), err, re.M)]
        t.eq(got, want, "errors at FILE:LINE:COL: " + err)


test_aa_outcomes()
test_regression()
sys.exit(t.done())
