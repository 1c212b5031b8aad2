"""check.py: benchdb check as a CI gate, on real fio runs (tests/fixtures/check/gen.sh): fast
storage (tmpfs) as the baseline against slow storage (disk) is a regression (exit 1, each
regression listed), the reverse and an A/A pair on one disk are not (exit 0). Which factors
regress is computed here from the raw files (stats_ref: Welch on the log ratio, Holm over the
report's tests), never taken from benchdb."""
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


def expected(base, cand, threshold=5.0):
    """{metric label: (factor, lo, hi)} of the factors that fail the gate: significant after
    Holm over the five tests, and the baseline better by more than threshold %."""
    tests = {m[0]: ([m[1](j) for j in jobs(base)], [m[1](j) for j in jobs(cand)])
             for m in METRICS}
    fam = stats_ref.family(tests)
    out = {}
    for label, _, higher, _ in METRICS:
        verdict, _, _, lo, hi = fam[label]
        a, b = tests[label]
        r = (sum(b) / len(b)) / (sum(a) / len(a))
        f, flo, fhi = (r, lo, hi) if higher else (1 / r, 1 / hi, 1 / lo)
        if verdict == "significant" and f < 1 / (1 + threshold / 100):
            out[label] = (f, flo, fhi)
    return out


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
    t.ok(re.search(r"^check: %d regressions worse than the baseline by more than 5 %% in 5 "
                   r"tested comparisons$" % len(want), out, re.M), "summary line: " + out)


def test_threshold(db):
    """A threshold between two regressions' sizes keeps only the larger ones."""
    sizes = sorted((1 / f - 1) * 100 for f, _, _ in expected("fast", "slow").values())
    mid = (sizes[0] + sizes[1]) / 2
    want = expected("fast", "slow", mid)
    t.eq(len(want), len(sizes) - 1, "python: one regression fewer at %g %%" % mid)
    rc, out, err = check(db, "fast", "slow", "--threshold", "%g" % mid)
    t.eq(rc, 1, "threshold %g exit status" % mid)
    t.eq(sorted(regressions(out)), sorted(want), "regressions at threshold %g" % mid)
    rc, out, _ = check(db, "fast", "slow", "--threshold", "%g" % (sizes[-1] * 2))
    t.eq((rc, regressions(out)), (0, {}), "a threshold above every regression passes")


def test_passes(db):
    for base, cand in (("slow", "fast"), ("aa-a", "aa-b"), ("aa-b", "aa-a")):
        t.eq(expected(base, cand), {}, "python: %s vs %s has no regression" % (cand, base))
        rc, out, err = check(db, base, cand)
        t.eq(rc, 0, "%s vs %s exit status (%s)" % (cand, base, err.strip()))
        t.eq(regressions(out), {}, "%s vs %s: no regression listed" % (cand, base))
        t.ok("in 5 tested comparisons" in out, "%s vs %s summary: %s" % (cand, base, out))


def test_single_run():
    """One run a side cannot be significant, however large the difference: it passes and
    says so."""
    with bdb.temp_db() as db:
        bdb.run(db, "import", "--storage-class", "fast", files("fast")[0])
        bdb.run(db, "import", "--storage-class", "slow", files("slow")[0])
        rc, out, err = check(db, "fast", "slow")
        t.eq(rc, 0, "single runs exit status (%s)" % err.strip())
        t.ok("check: 5 comparisons with a single run on a side cannot be significant" in out,
             "single run note: " + out)


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
