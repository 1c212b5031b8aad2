"""json_schema.py: every JSON output of benchdb's own validates against its JSON Schema in docs/
(report --format json: docs/report.schema.json; runs, runs --history, baseline list:
docs/runs.schema.json; labels: docs/labels.schema.json), checked with python3-jsonschema; and the report's numbers are the means
of the raw fio files in base units with their unit names (computed here from the files).
Fixtures: tests/fixtures/check (real fio runs), tests/fixtures/disk_tmpfs/ (fio JSON), tests/fixtures/iperf."""
import glob, json, os, statistics, sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed (scripts/setup.sh --test)")
    sys.exit(77)

t = Checks("json_schema", rel=1e-9)
DOCS = os.path.join(os.environ["SRCDIR"], "docs")
FIX = os.environ["FIXTURES"]


def schema(name):
    with open(os.path.join(DOCS, name)) as f:
        s = json.load(f)
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


REPORT, LISTS = schema("report.schema.json"), schema("runs.schema.json")
LABELS = schema("labels.schema.json")


def valid(validator, doc, what):
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    t.ok(not errors, "%s: %s" % (what, "; ".join("%s at %s" % (e.message[:200], list(e.path))
                                                  for e in errors[:3])))


def output(db, *args):
    rc, out, err = bdb.call(db, *args)
    t.eq(rc, 0, " ".join(args) + ": " + err.strip())
    try:
        return json.loads(out)
    except ValueError as e:
        t.ok(False, "%s: not JSON (%s): %r" % (" ".join(args), e, out[:200]))
        return {}


def files(name):
    return sorted(glob.glob(os.path.join(FIX, "check", name + "-*.json")))


def fio_bw(name):
    return [json.load(open(p))["jobs"][0]["write"]["bw_bytes"] for p in files(name)]


def check_values(doc):
    """The comparison's Bandwidth row: each side's mean, sd and n of the raw bw_bytes, in
    bytes/s; the factor in x with a verdict."""
    table = [s["table"] for s in doc["sections"] if s["table"] and s["table"]["name"] == "comparison"]
    t.eq(len(table), 1, "one comparison table")
    if not table:
        return
    table = table[0]
    roles = [c["role"] for c in table["columns"]]
    t.eq(roles, ["key", "metric", "side", "side", "factor"], "column roles")
    bw = [r for r in table["rows"] if r[1] == "Bandwidth"][0]
    for cell, name in ((bw[2], "fast"), (bw[3], "slow")):
        raw = fio_bw(name)
        t.eq(cell["unit"], "bytes/s", name + " unit")
        t.near(cell["value"], statistics.mean(raw), name + " mean bandwidth")
        t.near(cell["sd"], statistics.stdev(raw), name + " sd")
        t.eq((cell["n"], cell["min"], cell["max"]), (len(raw), min(raw), max(raw)), name + " n/min/max")
    t.eq(bw[4]["unit"], "x", "factor unit")
    t.near(bw[4]["value"], statistics.mean(fio_bw("slow")) / statistics.mean(fio_bw("fast")),
           "factor", rel=1e-6)
    t.eq(bw[4]["verdict"], "significant", "factor verdict")


with bdb.temp_db() as db:
    for name in ("fast", "slow"):
        bdb.run(db, "import", "--storage-class", name, *files(name))
    bdb.run(db, "import", "--storage-class", "one", files("aa-a")[0])
    bdb.import_examples(db, checks=t)
    iperf = sorted(glob.glob(os.path.join(FIX, "iperf", "iperf3*.json")))
    bdb.run(db, "import", "--storage-class", "net", *iperf)
    doc = output(db, "report", "--format", "json", "--compare", "fast", "slow")
    valid(REPORT, doc, "report fast slow")
    t.eq(doc.get("schema"), 1, "versioned")
    check_values(doc)
    for args in (("disk", "tmpfs"), ("fast", "slow", "one"), ("disk", "tmpfs", "net")):
        valid(REPORT, output(db, "report", "--format", "json", "--compare", *args),
              "report " + " ".join(args))
    rc, _, _ = bdb.call(db, "report", "-o", os.path.join(os.path.dirname(db), "r.json"),
                        "--compare", "fast", "slow")
    with open(os.path.join(os.path.dirname(db), "r.json")) as f:
        t.eq(json.load(f), doc, "-o FILE.json writes the same JSON")
    bdb.run(db, "baseline", "save", "ref", "--where", "storage_class=fast")
    bdb.run(db, "relabel", "--where", "storage_class=one", "--set", "tag:x=1")
    bdb.run(db, "rm", "--where", "storage_class=one")
    for args, key in ((("runs",), "runs"), (("runs", "--history"), "history"),
                      (("baseline", "list"), "baselines")):
        d = output(db, *args, "--format", "json")
        valid(LISTS, d, " ".join(args))
        t.ok(d.get(key), "%s lists something under %r" % (" ".join(args), key))
    for args in ((), ("bs",), ("mount:nosuch",)):
        d = output(db, "labels", *args, "--format", "json")
        valid(LABELS, d, "labels " + " ".join(args))
        t.eq(bool(d.get("labels")), not args or args[0] == "bs", "labels %s lists" % " ".join(args))
    hist = output(db, "runs", "--history", "--format", "json")["history"]
    t.eq(sorted(h["field"] for h in hist), ["removed", "tag:x"], "history of a removed result")
    t.ok(not LISTS.is_valid({"schema": 1, "runs": []}), "another shape version fails")
    t.ok(not REPORT.is_valid(dict(doc, schema=2)), "another report version fails")
    t.ok(not LABELS.is_valid({"schema": 1, "labels": [{"key": "host", "value": "a"}]}),
         "a label without its counts fails")
sys.exit(t.done())
