"""compare_check.py: a `benchdb report --format csv --compare BASE CAND` checked against the
statistics stats_ref.py computes from values a test read from the raw files itself: per row
the means, sample sd and n of both sides, the direction-aware factor, the p of the log-ratio
t-test, Holm's p over every row of the report, and the verdict. The importer tests
(sysbench.py, ior.py) share it: each reads its tool's raw outputs its own way, and hands over
a function giving a row's raw values per side."""
import csv
import io
import statistics

import bdb
import stats_ref

# metrics where lower is better: the factor reads the other way round
LOWER_IS_BETTER = ("Mean latency", "p99 latency", "fsync latency", "fsync p99 latency")


def check_compare(t, db, base, cand, values, what=""):
    """Runs the report on db and checks every row whose values(row, side) gives the raw values
    of both sides (a list each; None: a row the caller does not know, counted as a failure).
    Returns the report's rows."""
    rc, out, err = bdb.call(db, "report", "--format", "csv", "--compare", base, cand)
    t.eq(rc, 0, "%sreport: %s" % (what, err.strip()))
    rows = list(csv.DictReader(io.StringIO(out)))
    b0, vs = base + " (baseline)", "%s vs %s" % (cand, base)
    ps = []
    for r in rows:
        name = "%s%s %s" % (what, r["Workload"], r["Metric"])
        a, b = values(r, base), values(r, cand)
        if not t.ok(a is not None and b is not None, name + ": a row the raw files give"):
            ps.append(None)
            continue
        t.near(float(r[b0]), statistics.mean(a), name + ": baseline mean", rel=1e-9)
        t.near(float(r[cand]), statistics.mean(b), name + ": candidate mean", rel=1e-9)
        t.eq((r[b0 + " n"], r[cand + " n"]), (str(len(a)), str(len(b))), name + ": runs per side")
        if len(a) > 1:
            t.near(float(r[b0 + " sd"]), statistics.stdev(a), name + ": baseline sd", rel=1e-9)
        f = statistics.mean(b) / statistics.mean(a)
        lower = r["Metric"] in LOWER_IS_BETTER
        t.near(float(r[vs]), 1 / f if lower else f, name + ": factor", rel=1e-9)
        ps.append(stats_ref.ratio_p(a, b))
    known = [p for p in ps if p is not None]
    adjusted = iter(stats_ref.holm(known))
    for r, p in zip(rows, ps):
        if p is None:
            continue
        name = "%s%s %s" % (what, r["Workload"], r["Metric"])
        p_adj = next(adjusted)
        t.near(float(r[vs + " p"]), p, name + ": p", rel=1e-6)
        t.near(float(r[vs + " p_holm"]), p_adj, name + ": Holm's p", rel=1e-6)
        a, b = values(r, base), values(r, cand)
        lo, hi = stats_ref.ratio_interval(a, b)
        t.eq(r[vs + " verdict"], stats_ref.verdict(p_adj, lo, hi), name + ": verdict")
    return rows
