"""query_cli.py: `benchdb query` reads its statement from standard input with -, writes
newline-delimited JSON with --format ndjson (one object per row, as jq -c and sqlite-utils
--nl do), and binds --param NAME=VALUE to :NAME, @NAME or $NAME, an integer or a number when
the value reads as one. Expected rows come from Python's sqlite3 over the same warehouse, with
the same values bound by Python; the runs and labels listings' ndjson are their JSON list's
items. Input: the demo's real fio runs (examples/)."""
import glob, json, os, sqlite3, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("query_cli")
EXAMPLES = os.path.join(os.environ["SRCDIR"], "examples")
SQL = ("SELECT storage_class, job, direction, iodepth, bw_bytes_s FROM v_result "
       "WHERE storage_class = :class AND iodepth >= :depth ORDER BY job, direction")


def python_rows(db, sql, params):
    with sqlite3.connect("file:%s?mode=ro" % db, uri=True) as c:
        cur = c.execute(sql, params)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def ndjson(text):
    lines = text.splitlines()
    t.ok(all(l.startswith("{") and l.endswith("}") for l in lines), "one object per line")
    return [json.loads(l) for l in lines]


def main():
    runs = sorted(glob.glob(os.path.join(EXAMPLES, "*", "run*", "*.json")))
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        rc, _, err = bdb.call(db, "import", *runs)
        t.eq(rc, 0, "import the demo: " + err)
        want = python_rows(db, SQL, {"class": "premium", "depth": 16})
        t.ok(len(want) >= 2, "the statement selects rows (%d)" % len(want))
        rc, out, err = bdb.call(db, "query", "--format", "ndjson", "--param", "class=premium",
                                "--param", "depth=16", SQL)
        t.eq(rc, 0, "query with parameters: " + err)
        t.eq(ndjson(out), want, "ndjson rows with :class as text and :depth as an integer")
        rc, out2, err = bdb.call(db, "query", "--format", "ndjson", "--param", "class=premium",
                                 "--param", "depth=16", "-", input=SQL)
        t.eq((rc, out2), (0, out), "the statement from standard input (-): the same rows")
        at = SQL.replace(":class", "@class").replace(":depth", "$depth")
        rc, out3, err = bdb.call(db, "query", "--format", "ndjson", "--param", "class=premium",
                                 "--param", "depth=16", at)
        t.eq((rc, out3), (0, out), "@NAME and $NAME bind the same")
        rc, out, err = bdb.call(db, "query", "--format", "ndjson", "--param", "class=premium", SQL)
        t.eq((rc, out), (1, ""), "a parameter without a value: exit 1, no rows")
        t.ok("no value for parameter :depth" in err, err)
        rc, out, err = bdb.call(db, "query", "--param", "colour=red", "--param", "class=x",
                                "--param", "depth=1", SQL)
        t.eq(rc, 1, "a value for no parameter: exit 1")
        t.ok("has no parameter :colour" in err, err)
        for cmd, key in ((["runs"], "runs"), (["labels"], "labels")):
            rc, js, err = bdb.call(db, *cmd, "--format", "json")
            rc2, nd, err2 = bdb.call(db, *cmd, "--format", "ndjson")
            t.eq((rc, rc2), (0, 0), "%s: %s %s" % (cmd[0], err, err2))
            t.eq(ndjson(nd), json.loads(js)[key], "%s --format ndjson: the JSON list's items"
                 % cmd[0])
    return t.done()


sys.exit(main())
