"""check.py: benchdb check as a CI gate, on real fio runs (tests/fixtures/check/gen.sh): fast
storage (tmpfs) as the baseline against slow storage (disk) is a regression (exit 1, each
regression listed), the reverse passes (exit 0), an A/A pair on one disk of three runs a side
is no regression, and passes or is inconclusive (exit 4) as python finds it. Which factors
regress, pass or stay inconclusive is computed here from the raw files (stats_ref: Welch on the
log ratio, Holm over the report's tests, the gate's rule), never taken from benchdb.
tests/e2e/check_gate.py tests the limits and the run counts."""
import glob, json, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
import stats_ref
from checks import Checks

t = Checks("check")
FIX = os.path.join(os.environ["FIXTURES"], "check")


# The compared metrics of a fio write job: (the report's label, value of the job, higher is
# better, the report's worse word).
METRICS = [
    ("Bandwidth", lambda j: j["write"]["bw_bytes"], True, "slower"),
    ("Mean latency", lambda j: j["write"]["lat_ns"]["mean"], False, "higher latency"),
    ("p99 latency", lambda j: j["write"]["clat_ns"]["percentile"]["99.000000"], False,
     "higher p99 latency"),
    ("fsync latency", lambda j: j["sync"]["lat_ns"]["mean"], False, "higher fsync latency"),
    ("fsync p99 latency", lambda j: j["sync"]["lat_ns"]["percentile"]["99.000000"], False,
     "higher fsync p99 latency"),
]


def files(name):
    return sorted(glob.glob(os.path.join(FIX, name + "-*.json")))


def jobs(name):
    out = []
    for path in files(name):
        with open(path) as f:
            out.append(json.load(f)["jobs"][0])
    return out


def outcomes(base, cand, threshold=5.0):
    """{metric label: (outcome, factor, lo, hi)}: the gate's outcome of each factor (stats_ref.
    gate_outcome: Holm over the five tests, the floor 1 / (1 + threshold / 100))."""
    tests = {m[0]: ([m[1](j) for j in jobs(base)], [m[1](j) for j in jobs(cand)])
             for m in METRICS}
    fam = stats_ref.family(tests)
    out = {}
    for label, _, higher, _ in METRICS:
        _, _, _, lo, hi = fam[label]
        a, b = tests[label]
        r = (sum(b) / len(b)) / (sum(a) / len(a))
        f, flo, fhi = (r, lo, hi) if higher else (1 / r, 1 / hi, 1 / lo)
        floor = 1 / (1 + threshold / 100)
        out[label] = (stats_ref.gate_outcome(fam[label], higher, floor, a, b), f, flo, fhi)
    return out


def expected(base, cand, threshold=5.0):
    """{metric label: (factor, lo, hi)} of the factors that fail the gate."""
    return {k: v[1:] for k, v in outcomes(base, cand, threshold).items() if v[0] == "fail"}


def status(base, cand, threshold=5.0):
    """The exit status python expects: 1 a failure, 4 an inconclusive factor, else 0."""
    got = [v[0] for v in outcomes(base, cand, threshold).values()]
    return 1 if "fail" in got else 4 if "inconclusive" in got else 0


def regressions(out):
    """{metric: the rest of the line} of check's 'regression: WORKLOAD: METRIC: VS: PHRASE'."""
    found = {}
    for line in out.splitlines():
        m = re.match(r"regression: ([^:]+): ([^:]+): ([^:]+): (.*)$", line)
        if m:
            found[m.group(2)] = (m.group(1), m.group(3), m.group(4))
    return found


def check(db, *args):
    return bdb.call(db, "check", "--compare", *args)


def test_regression(db):
    want = expected("fast", "slow")
    t.ok(len(want) >= 3, "the planted regression is one in python's eyes: %r" % want)
    rc, out, err = check(db, "fast", "slow")
    t.eq(rc, 1, "fast vs slow exit status (%s)" % err.strip())
    got = regressions(out)
    t.eq(sorted(got), sorted(want), "regressed metrics")
    for label, (f, lo, hi) in want.items():
        worse = [m[3] for m in METRICS if m[0] == label][0]
        phrase = stats_ref.phrase(f, lo, hi, "significant", "", worse)
        workload, versus, text = got.get(label, ("", "", ""))
        t.eq(versus, "slow vs fast", label + ": the factor's column")
        t.ok(text.startswith(phrase), "%s: %r does not start with %r" % (label, text, phrase))
        t.eq(workload.strip(), "Random Write 4K sync buffered", label + ": workload")
    t.ok(re.search(r"^check: %d regressions, 0 inconclusive, %d passed \(of 5 checked\)$"
                   % (len(want), 5 - len(want)), out, re.M), "summary line: " + out)
    t.ok(out.startswith("check: limits: every other metric at most 5 % worse than the "
                        "baseline (--threshold)\n"), "the limits in force come first: " + out)


def test_threshold(db):
    """A threshold between two regressions' sizes keeps only the larger ones."""
    sizes = sorted((1 / f - 1) * 100 for f, _, _ in expected("fast", "slow").values())
    mid = (sizes[0] + sizes[1]) / 2
    want = expected("fast", "slow", mid)
    t.eq(len(want), len(sizes) - 1, "python: one regression fewer at %g %%" % mid)
    rc, out, err = check(db, "fast", "slow", "--threshold", "%g" % mid)
    t.eq(rc, 1, "threshold %g exit status" % mid)
    t.eq(sorted(regressions(out)), sorted(want), "regressions at threshold %g" % mid)
    big = sizes[-1] * 2
    rc, out, _ = check(db, "fast", "slow", "--threshold", "%g" % big)
    t.eq((rc, regressions(out)), (status("fast", "slow", big), {}),
         "a threshold above every regression fails nothing")


def test_passes(db):
    """No regression: the improvement passes; the A/A pairs pass or stay inconclusive (exit 4)
    factor by factor as python finds it."""
    for base, cand in (("slow", "fast"), ("aa-a", "aa-b"), ("aa-b", "aa-a")):
        t.eq(expected(base, cand), {}, "python: %s vs %s has no regression" % (cand, base))
        want = outcomes(base, cand)
        rc, out, err = check(db, base, cand)
        t.eq(rc, status(base, cand), "%s vs %s exit status (%s)" % (cand, base, err.strip()))
        t.eq(regressions(out), {}, "%s vs %s: no regression listed" % (cand, base))
        unsure = sorted(k for k, v in want.items() if v[0] == "inconclusive")
        got = sorted(re.findall(r"^inconclusive: [^:]+: ([^:]+):", out, re.M))
        t.eq(got, unsure, "%s vs %s: the inconclusive metrics" % (cand, base))
        t.ok("(of 5 checked)" in out, "%s vs %s summary: %s" % (cand, base, out))
    t.eq(status("slow", "fast"), 0, "python: the improvement passes")


def test_single_run():
    """One run a side cannot show anything, however large the difference: each factor is
    inconclusive (exit 4) and says that a single run shows no spread."""
    with bdb.temp_db() as db:
        bdb.run(db, "import", "--storage-class", "fast", files("fast")[0])
        bdb.run(db, "import", "--storage-class", "slow", files("slow")[0])
        rc, out, err = check(db, "fast", "slow")
        t.eq(rc, 4, "single runs exit status (%s)" % err.strip())
        lines = [l for l in out.splitlines() if l.startswith("inconclusive: ")]
        t.eq(len(lines), 5, "every factor inconclusive: " + out)
        t.ok(all(l.endswith("a single run a side shows no spread: repeat the runs")
                 for l in lines), "single run says why: " + out)
        t.ok("check: 0 regressions, 5 inconclusive, 0 passed (of 5 checked)" in out, out)
        rc, _, _ = check(db, "fast", "slow", "--inconclusive", "pass")
        t.eq(rc, 0, "--inconclusive pass")
        rc, _, _ = check(db, "fast", "slow", "--inconclusive=fail")
        t.eq(rc, 1, "--inconclusive=fail")


def test_nothing_compared(db):
    """Sides whose workloads never match vouch for nothing: the gate fails."""
    other = sorted(glob.glob(os.path.join(os.environ["FIXTURES"], "compare", "aa-a-*.json")))
    bdb.run(db, "import", "--storage-class", "randread", *other)
    rc, out, _ = check(db, "fast", "randread")
    t.eq(rc, 1, "nothing compared exit status")
    t.ok("nothing compared" in out, "nothing compared says so: " + out)


def test_dates(db):
    """--since after every run: no side has results, which is an error naming the dates."""
    rc, out, err = check(db, "fast", "slow", "--since", "2099-01-01")
    t.eq(rc, 1, "dated out exit status")
    t.ok("no results with storage-class 'fast'" in err and "--since/--until" in err,
         "dated out says why: " + err)
    rc, out, _ = check(db, "fast", "slow", "--until", "2099-01-01")
    t.eq((rc, len(regressions(out))), (1, len(expected("fast", "slow"))), "--until keeps them all")


with bdb.temp_db() as db:
    for name in ("fast", "slow", "aa-a", "aa-b"):
        p = bdb.run(db, "import", "--storage-class", name, *files(name))
        t.eq(p.returncode, 0, "import %s: %s" % (name, p.stderr))
    test_regression(db)
    test_threshold(db)
    test_passes(db)
    test_nothing_compared(db)
    test_dates(db)
test_single_run()
sys.exit(t.done())
