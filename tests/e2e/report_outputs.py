"""report_outputs.py: one `benchdb report` run writes several files, one per -o, each in the
format its extension names, and each byte for byte what a run with that -o alone writes
(issue 31, item 5); mistakes in the list are usage errors that write nothing. Input: the
demo's real fio runs (examples/)."""
import filecmp, glob, os, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("report_outputs")
EXAMPLES = os.path.join(os.environ["SRCDIR"], "examples")
SIDES = ("--compare", "standard", "premium")


def main():
    runs = sorted(glob.glob(os.path.join(EXAMPLES, "*", "run*", "*.json")))
    logs = sorted(glob.glob(os.path.join(EXAMPLES, "*", "run*", "*.log")))
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        rc, _, err = bdb.call(db, "import", *runs, *logs)
        t.eq(rc, 0, "import the demo: " + err)
        names = ["all.md", "all.html", "all.xlsx", "all.json", "all.csv"]
        rc, out, err = bdb.call(db, "report", *SIDES, *sum((["-o", os.path.join(tmp, n)]
                                                            for n in names), []))
        t.eq((rc, out, err), (0, "", ""), "one run, five files")
        for n in names:
            one = os.path.join(tmp, "one" + os.path.splitext(n)[1])
            rc, _, err = bdb.call(db, "report", *SIDES, "-o", one)
            t.eq(rc, 0, "report -o %s alone: %s" % (one, err))
            t.ok(filecmp.cmp(os.path.join(tmp, n), one, shallow=False),
                 "%s is what a run writing it alone writes" % n)
        for bad in (["-o", "x.md", "-o", "x.md"], ["-o", "x.md", "-o", "noext"],
                    ["-o", "x.md", "-o", "-"], ["--format", "md", "-o", "x.md", "-o", "y.html"],
                    ["--table", "runs", "-o", "x.md", "-o", "y.html"]):
            before = sorted(os.listdir(tmp))
            rc, out, err = bdb.call(db, "report", *SIDES, *[os.path.join(tmp, a) if a.startswith(
                ("x.", "y.", "noext")) else a for a in bad])
            t.eq(rc, 2, "%s: a usage error (%s)" % (" ".join(bad), err.strip().splitlines()[0]
                                                    if err.strip() else ""))
            t.eq(sorted(os.listdir(tmp)), before, "%s: nothing written" % " ".join(bad))
    return t.done()


sys.exit(main())
