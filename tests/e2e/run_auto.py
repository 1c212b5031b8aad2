"""run_auto.py: `benchdb run --repeat auto --max N --against BASE` runs a real fio job until
its runs are judged against the baseline as `benchdb check` judges a candidate, then stops.

Each scenario's stopping point is computed here, independently: after each run k >= 2 the
gate's outcome of every compared metric (stats_ref: the log-scale interval, Holm over the
report's tests, the limit's floor) over the baseline's stored values and the first k runs made;
the runs stop at the first k with a regression, no inconclusive metric, or a baseline of a
single run (no number of candidate runs gives it an interval), else at --max. The exit status
is check's: 1 a regression, 0 passed, 4 inconclusive.

- a candidate rate-limited to half the baseline's bandwidth (fio rate=) is a regression after
  two runs;
- the same job passes before --max with limits this machine can resolve (the bandwidth,
  held by rate=, within 10 %; the latencies within a factor of 1000);
- a baseline of one run stops after two runs, inconclusive;
- usage mistakes and an unknown baseline run nothing.
Skipped (77) without fio."""
import os, shutil, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
import stats_ref
from checks import Checks

t = Checks("run_auto")
# the compared metrics of a read job: (label, export column, higher is better)
METRICS = [("Bandwidth", "bw_bytes_s", True), ("Mean latency", "lat_mean_ns", False),
           ("p99 latency", "clat_p99_ns", False)]
SHORT = {"Bandwidth": "bw", "Mean latency": "lat", "p99 latency": "p99"}


def fio_job(d, rate):
    return ["fio", "--name=r", "--filename=" + os.path.join(d, "f"), "--size=4M",
            "--rw=randread", "--bs=4k", "--ioengine=psync", "--time_based", "--runtime=1",
            "--rate=" + rate]


def values(rows):
    """{label: [value per result, in the order of the runs]}."""
    rows = sorted(rows, key=lambda r: r["result_id"])
    return {label: [r[col] for r in rows] for label, col, _ in METRICS}


def expected_stop(base, cand, floors, most):
    """(runs made, exit status) the rule gives for the baseline's values and the candidate's
    in run order; floors: each metric's factor floor."""
    for k in range(2, most + 1):
        tests = {label: (base[label], cand[label][:k]) for label, _, _ in METRICS}
        fam = stats_ref.family(tests)
        out = [stats_ref.gate_outcome(fam[label], higher, floors[label], *tests[label])
               for label, _, higher in METRICS]
        if "fail" in out:
            return k, 1
        if "inconclusive" not in out:
            return k, 0
        if len(base["Bandwidth"]) < 2:
            return k, 4
    return most, 4


def scenario(tmp, name, base_runs, base_rate, cand_rate, most, limits, want_status):
    """Stores base_runs runs of the job as storage class NAME-base, then runs --repeat auto
    against it with limits ({label: percent worse allowed}); checks the runs made and the exit
    status against expected_stop."""
    db = os.path.join(tmp, name + ".sqlite")
    job_dir = tempfile.mkdtemp(dir=tmp)
    p = bdb.run(db, "run", "--repeat", str(base_runs), "--storage-class", name + "-base", "--",
                *fio_job(job_dir, base_rate))
    t.eq(p.returncode, 0, "%s: the baseline's runs: %s" % (name, p.stderr[-300:]))
    args = [a for label, pct in limits.items()
            for a in ("--limit", "%s:%s%g%%" % (SHORT[label], "-" if label == "Bandwidth" else "+",
                                                   pct))]
    p = bdb.run(db, "run", "--repeat", "auto", "--max", str(most), "--against", name + "-base",
                *args, "--storage-class", name, "--", *fio_job(job_dir, cand_rate))
    rows = bdb.export(db, t)
    base = values([r for r in rows if r["storage_class"] == name + "-base"])
    made = [r for r in rows if r["storage_class"] == name]
    cand = values(made)
    sets = {r["tags"].get("run_set") for r in made}
    t.eq(len(sets), 1, "%s: every run made has one tag run_set: %r" % (name, sets))
    t.ok(all(r["tags"].get("run_set") is None for r in rows if r not in made),
         "%s: the baseline's runs have no run_set" % name)
    # 'bw:-P%' is a floor of 1 - P/100; 'lat:+P%' one of 1/(1 + P/100) (docs/methods.md)
    floors = {label: 1 - pct / 100 if label == "Bandwidth" else 1 / (1 + pct / 100)
              for label, pct in limits.items()}
    k, status = expected_stop(base, cand, floors, most)
    t.eq(len(made), k, "%s: runs made, as the rule stops (%s)" % (name, p.stdout.strip()[-300:]))
    t.eq(p.returncode, status, "%s: exit status: %s" % (name, p.stderr[-300:]))
    t.eq(status, want_status, "%s: the scenario ends as planned" % name)
    t.ok(k < most, "%s: decided before --max (%d runs of %d)" % (name, k, most))
    lines = p.stdout.splitlines()
    t.ok(any(l.startswith("run: limits: ") for l in lines), "%s: the limits printed" % name)
    word = {0: "passed", 1: "regression", 4: "inconclusive"}[status]
    t.ok(any(l.startswith("run: ") and word in l for l in lines[-2:]),
         "%s: the counts line names the outcome: %r" % (name, lines[-2:]))
    if status == 1:
        t.ok(any(l.startswith("regression: ") and ": Bandwidth: " in l for l in lines),
             "%s: the bandwidth regression named: %r" % (name, lines))
    return db, job_dir


def usage(tmp, db, job_dir):
    """Mistakes are refused before anything runs."""
    before = len(bdb.export(db, t))
    job = fio_job(job_dir, "4m")
    for args, words in [
            (["--max", "3"], "--max goes with --repeat auto"),
            (["--against", "x"], "--against goes with --repeat auto"),
            (["--repeat", "auto"], "--repeat auto needs --against"),
            (["--repeat", "auto", "--against", "x", "--tag", "run_set=mine"],
             "--tag run_set is --repeat auto's own"),
            (["--repeat", "auto", "--against", "x", "--max", "1"], "expected --max 2..1000"),
            (["--repeat", "0"], "expected --repeat 1..1000 or auto, got '0'")]:
        p = bdb.run(db, "run", *args, "--", *job)
        t.eq(p.returncode, 2, "%s: usage status" % " ".join(args))
        t.ok(words in p.stderr, "%s: says %r: %r" % (" ".join(args), words, p.stderr))
    p = bdb.run(db, "run", "--repeat", "auto", "--against", "no-such-class", "--", *job)
    t.eq(p.returncode, 1, "an unknown baseline: status 1")
    t.ok("no-such-class" in p.stderr, "the unknown baseline named: %r" % p.stderr)
    t.eq(len(bdb.export(db, t)), before, "nothing ran for a mistake")


def main():
    if not shutil.which("fio"):
        print("run_auto: skipped, no fio")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        # fio's rate= holds the bandwidth steady: half of it is a regression at once. The rates
        # are low so that a loaded machine (a CI runner beside other jobs) still holds them.
        five = {label: 5 for label in SHORT}
        scenario(tmp, "slower", 3, "2m", "1m", 6, five, 1)
        # an A/A: the bandwidth held by rate= within 10 %, the latencies, which a loaded
        # machine can stretch a hundredfold at p99, within a factor of 1000
        scenario(tmp, "same", 3, "2m", "2m", 8,
                 {"Bandwidth": 10, "Mean latency": 99900, "p99 latency": 99900}, 0)
        db, job_dir = scenario(tmp, "single", 1, "2m", "2m", 5, five, 4)
        usage(tmp, db, job_dir)
    return t.done()


sys.exit(main())
