"""verdict_equivalent.py: a difference that is significant but whose whole 95 % interval lies
within +-5 % is written as an equivalence, with the factor as measured and no second interval
in the other orientation (a report once printed "equivalent within +-5 % (0.98x) (95% CI
1.01-1.02)"). The warehouse: the bundled example's real random-read runs, copied in SQL into
many tight repeats per side, the candidate's p99 2 % higher (documented below)."""
import os, sqlite3, statistics, sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks
import stats_ref

t = Checks("verdict_equivalent")
COPIES = 20


def build(db):
    files = bdb.import_examples(db, checks=t)
    t.ok(files["disk"], "examples found")
    con = sqlite3.connect(db)
    cols = [r[1] for r in con.execute("PRAGMA table_info(result)") if r[1] != "id"]
    src = ", ".join(cols)
    # one real run, repeated with 0.1 % steps, so that the interval is tight; the other runs
    # of that workload set aside
    first = con.execute("SELECT min(id) FROM result WHERE storage_class = 'disk' "
                        "AND rw = 'randread'").fetchone()[0]
    con.execute("UPDATE result SET storage_class = 'other' WHERE storage_class = 'disk' "
                "AND rw = 'randread' AND id <> ?", (first,))
    for k in range(1, COPIES):
        f = 1 + (k % 3) / 1000
        sel = ", ".join("clat_p99_ns * %r" % f if c == "clat_p99_ns" else c for c in cols)
        con.execute("INSERT INTO result(%s) SELECT %s FROM result WHERE id = ?" % (src, sel),
                    (first,))
    sel = ", ".join("'copy'" if c == "storage_class" else
                    "clat_p99_ns * 1.02" if c == "clat_p99_ns" else c for c in cols)
    con.execute("INSERT INTO result(%s) SELECT %s FROM result WHERE storage_class = 'disk' "
                "AND rw = 'randread'" % (src, sel))
    con.commit()
    vals = {s: [r[0] for r in con.execute(
        "SELECT clat_p99_ns FROM result WHERE storage_class = ? AND rw = 'randread' "
        "AND direction = 'read'", (s,))] for s in ("disk", "copy")}
    con.close()
    return vals


def main():
    with bdb.temp_db() as db:
        vals = build(db)
        a, b = vals["disk"], vals["copy"]
        t.eq(len(b), len(a), "both sides have the repeats")
        lo, hi = stats_ref.ratio_interval(a, b)
        p = stats_ref.ratio_p(a, b)
        t.ok(p < 1e-6 and stats_ref.equivalent(lo, hi),
             "the data: significant (p %g) and equivalent (%g-%g)" % (p, lo, hi))
        code, out, err = bdb.call(db, "report", "--compare", "disk", "copy")
        t.eq(code, 0, "report: " + err)
        row = [l for l in out.splitlines() if l.startswith("| Random Read 4K") and "| p99" in l]
        t.eq(len(row), 1, "one p99 row for the random reads")
        cell = row[0].split("|")[5].strip() if row else ""
        factor = statistics.mean(b) / statistics.mean(a)  # latency: higher is worse, as shown
        want = "equivalent within \u00b15 %% (%sx)" % stats_ref.sig3(1 / factor)
        t.ok(cell.startswith(want), "cell %r starts %r" % (cell, want))
        t.ok("CI" not in cell, "no interval beside an equivalence: %r" % cell)
    return t.done()


sys.exit(main())
