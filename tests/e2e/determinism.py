#!/usr/bin/python3
"""Reports are deterministic: the same warehouse gives byte-identical Markdown, HTML and CSV
and identical XLSX parts on every run, and two warehouses built from the same inputs give the
same reports (no wall clock, no ids or file order leaking in). Without SOURCE_DATE_EPOCH a
report states no time at all. The verdicts are corrected over the whole report (Holm), so an
N-way comparison gives every pair the same factor, interval, verdict and wording whatever the
order of its candidates."""
import csv, io, os, subprocess, sys, tempfile, zipfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("determinism")
COMPARE = ("report", "--compare", "disk", "tmpfs")


def render(db, fmt, out_dir, env=None):
    path = os.path.join(out_dir, "r." + fmt)
    p = subprocess.run([bdb.BENCHDB, "--db", db, *COMPARE, "-o", path], capture_output=True,
                       text=True, env=env)
    t.eq(p.returncode, 0, "render %s: %s" % (fmt, p.stderr))
    if fmt != "xlsx":
        return open(path, "rb").read()
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in sorted(z.namelist())}


with tempfile.TemporaryDirectory() as tmp:
    a, b = os.path.join(tmp, "a.sqlite"), os.path.join(tmp, "b.sqlite")
    bdb.import_examples(a, checks=t)
    # the second warehouse gets the same files in the opposite order, class by class
    for cls in ("tmpfs", "disk"):
        files = sorted(os.listdir(os.path.join(bdb.EXAMPLES, cls)), reverse=True)
        p = bdb.run(b, "import", "--storage-class", cls,
                    *[os.path.join(bdb.EXAMPLES, cls, f) for f in files])
        t.eq(p.returncode, 0, "import in reverse order")
    for fmt in ("md", "html", "csv", "xlsx"):
        os.makedirs(os.path.join(tmp, "1"), exist_ok=True)
        os.makedirs(os.path.join(tmp, "2"), exist_ok=True)
        os.makedirs(os.path.join(tmp, "3"), exist_ok=True)
        first = render(a, fmt, os.path.join(tmp, "1"))
        again = render(a, fmt, os.path.join(tmp, "2"))
        other = render(b, fmt, os.path.join(tmp, "3"))
        t.ok(first == again, "%s: the same warehouse renders byte-identically" % fmt)
        if fmt != "xlsx":  # its Runs and Results sheets list ids, which follow import order
            t.ok(first == other, "%s: the same inputs in another order render identically" % fmt)
    # a third side: copies of two tmpfs runs (other bytes, so stored again)
    for f in ("randread-1.json", "randread-2.json", "seqread-1.json", "seqread-3.json"):
        copy = os.path.join(tmp, "ram-" + f)
        with open(copy, "w") as out:
            out.write(open(os.path.join(bdb.EXAMPLES, "tmpfs", f)).read() + "\n")
        p = bdb.run(a, "import", "--storage-class", "ram", copy)
        t.eq(p.returncode, 0, "import ram copy " + p.stderr)

    def pairs(*sides):
        p = bdb.run(a, "report", "--compare", *sides, "--format", "csv")
        t.eq(p.returncode, 0, "report --compare %s: %s" % (" ".join(sides), p.stderr))
        got = {}
        for row in csv.DictReader(io.StringIO(p.stdout)):
            for cand in sides[1:]:
                f = "%s vs disk" % cand
                got[(row["Workload"], row["Metric"], cand)] = tuple(
                    row[f + s] for s in ("", " ci_lo", " ci_hi", " verdict", " text"))
        return got

    one, other = pairs("disk", "tmpfs", "ram"), pairs("disk", "ram", "tmpfs")
    t.ok(len(one) == 28 and any(v[3] == "significant" for v in one.values()),
         "3-way comparison: 14 rows, two candidates each")
    t.eq(one, other, "3-way: each pair's factor and verdict do not depend on the candidates' order")
    env = dict(os.environ)
    env.pop("SOURCE_DATE_EPOCH", None)
    md = render(a, "md", tmp, env).decode()
    t.ok("Generated" not in md, "no time stated without SOURCE_DATE_EPOCH")
    env["SOURCE_DATE_EPOCH"] = "1767225600"  # 2026-01-01 00:00:00 UTC
    md = render(a, "md", tmp, env).decode()
    t.ok("2026-01-01 00:00 UTC" in md, "SOURCE_DATE_EPOCH gives the stated time")

sys.exit(t.done())
