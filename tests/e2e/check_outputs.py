"""check_outputs.py: the files benchdb check writes for CI systems (issue 33, item 3) and its
waivers (item 4), on real fio runs (tests/fixtures/check/gen.sh, gen_gate.sh).

Each file is read by what reads it in CI: the JUnit XML is validated against the Jenkins/GitLab
JUnit schema (written out below, after Jenkins' junit-10.xsd) with lxml and parsed with
junitparser; the OpenMetrics text with prometheus_client's OpenMetrics parser; the Bencher
Metric Format and github-action-benchmark JSON against JSON schemas of their documented shapes
(bencher.dev/bmf.json; the action's README for customBiggerIsBetter/customSmallerIsBetter).
Every outcome and value is computed here from the raw fio JSON (stats_ref: Welch on the log
ratio, Holm over the report's tests, the gate's rule; means and t intervals), never taken
from benchdb. Waivers expire against fixed dates (--now, SOURCE_DATE_EPOCH)."""
import calendar, glob, json, math, os, re, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
import stats_ref
from checks import Checks

import jsonschema
import junitparser
from lxml import etree
from prometheus_client.openmetrics.parser import text_string_to_metric_families

t = Checks("check_outputs", rel=1e-9)
FIX = os.path.join(os.environ["FIXTURES"], "check")
# the workload of gen.sh's job as benchdb names workloads: rw=randwrite bs=4k fsync=1 direct=0
WORKLOAD = "Random Write 4K sync buffered"
# a side whose name needs escaping in every format: XML, OpenMetrics labels, Markdown
WEIRD = 'b|*_<&>"\\x'

# The JUnit schema Jenkins and GitLab read (after jenkinsci's junit-10.xsd): testsuites of
# testsuite of testcase, each with at most one skipped, failures, errors and system-out.
JUNIT_XSD = b"""<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <xs:element name="failure">
    <xs:complexType mixed="true">
      <xs:attribute name="type" type="xs:string"/>
      <xs:attribute name="message" type="xs:string"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="error">
    <xs:complexType mixed="true">
      <xs:attribute name="type" type="xs:string"/>
      <xs:attribute name="message" type="xs:string"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="skipped">
    <xs:complexType mixed="true">
      <xs:attribute name="message" type="xs:string"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="property">
    <xs:complexType>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="value" type="xs:string" use="required"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="properties">
    <xs:complexType>
      <xs:sequence>
        <xs:element ref="property" maxOccurs="unbounded"/>
      </xs:sequence>
    </xs:complexType>
  </xs:element>
  <xs:element name="system-err" type="xs:string"/>
  <xs:element name="system-out" type="xs:string"/>
  <xs:element name="testcase">
    <xs:complexType>
      <xs:sequence>
        <xs:element ref="skipped" minOccurs="0" maxOccurs="1"/>
        <xs:element ref="error" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element ref="failure" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element ref="system-out" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element ref="system-err" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="assertions" type="xs:string"/>
      <xs:attribute name="time" type="xs:string"/>
      <xs:attribute name="classname" type="xs:string"/>
      <xs:attribute name="status" type="xs:string"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="testsuite">
    <xs:complexType>
      <xs:sequence>
        <xs:element ref="properties" minOccurs="0" maxOccurs="1"/>
        <xs:element ref="testcase" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element ref="system-out" minOccurs="0" maxOccurs="1"/>
        <xs:element ref="system-err" minOccurs="0" maxOccurs="1"/>
      </xs:sequence>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="tests" type="xs:string" use="required"/>
      <xs:attribute name="failures" type="xs:string"/>
      <xs:attribute name="errors" type="xs:string"/>
      <xs:attribute name="time" type="xs:string"/>
      <xs:attribute name="disabled" type="xs:string"/>
      <xs:attribute name="skipped" type="xs:string"/>
      <xs:attribute name="timestamp" type="xs:string"/>
      <xs:attribute name="hostname" type="xs:string"/>
      <xs:attribute name="id" type="xs:string"/>
      <xs:attribute name="package" type="xs:string"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="testsuites">
    <xs:complexType>
      <xs:sequence>
        <xs:element ref="testsuite" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence>
      <xs:attribute name="name" type="xs:string"/>
      <xs:attribute name="time" type="xs:string"/>
      <xs:attribute name="tests" type="xs:string"/>
      <xs:attribute name="failures" type="xs:string"/>
      <xs:attribute name="disabled" type="xs:string"/>
      <xs:attribute name="errors" type="xs:string"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""

# Bencher Metric Format, as https://bencher.dev/bmf.json gives it.
BMF_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema",
    "type": "object",
    "patternProperties": {".+": {
        "type": "object",
        "patternProperties": {".+": {
            "type": "object",
            "properties": {"value": {"type": "number"}, "lower_value": {"type": "number"},
                           "upper_value": {"type": "number"}},
            "required": ["value"]}}}},
}

# github-action-benchmark's customBiggerIsBetter / customSmallerIsBetter input: an array of
# {name, unit, value} with optional range and extra (the action's README, "Examples").
GITHUB_BENCHMARK_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "unit": {"type": "string"},
                       "value": {"type": "number"}, "range": {"type": "string"},
                       "extra": {"type": "string"}},
        "required": ["name", "unit", "value"],
        "additionalProperties": False},
}

# The compared metrics of gen.sh's write job: (the table's label, the short name, value of
# the job in base units, higher is better, OpenMetrics family).
METRICS = [
    ("Bandwidth", "bw", lambda j: j["write"]["bw_bytes"], True, "benchdb_bw_bytes_per_second"),
    ("Mean latency", "lat", lambda j: j["write"]["lat_ns"]["mean"] / 1e9, False,
     "benchdb_latency_seconds"),
    ("p99 latency", "p99", lambda j: j["write"]["clat_ns"]["percentile"]["99.000000"] / 1e9,
     False, "benchdb_latency_seconds"),
    ("fsync latency", "fsync", lambda j: j["sync"]["lat_ns"]["mean"] / 1e9, False,
     "benchdb_latency_seconds"),
    ("fsync p99 latency", "fsync_p99",
     lambda j: j["sync"]["lat_ns"]["percentile"]["99.000000"] / 1e9, False,
     "benchdb_latency_seconds"),
]
IOPS = lambda j: j["write"]["iops"]
# IOPS is one measurement with the bandwidth (bytes over the block size): its interval is the
# bandwidth's scaled by the mean IOPS over the mean bandwidth, which fio's own iops (I/Os over
# the runtime, not bytes) matches to about 1e-5
IOPS_REL = 1e-4


def jobs(pattern):
    out = []
    for path in sorted(glob.glob(os.path.join(FIX, pattern + "-*.json"))):
        with open(path) as f:
            out.append(json.load(f)["jobs"][0])
    return out


def outcomes(sides, threshold=5.0):
    """{(label, candidate): (outcome, factor, adjusted p)} of a comparison of sides ([(name,
    jobs)], the baseline first): Holm over every test of the report, the gate's rule."""
    base = sides[0][1]
    tests = {(m[0], name): ([m[2](j) for j in base], [m[2](j) for j in js])
             for name, js in sides[1:] for m in METRICS}
    fam = stats_ref.family(tests)
    floor = 1 / (1 + threshold / 100)
    out = {}
    for (label, name), (a, b) in tests.items():
        higher = next(m[3] for m in METRICS if m[0] == label)
        r = statistics.mean(b) / statistics.mean(a)
        out[(label, name)] = (stats_ref.gate_outcome(fam[(label, name)], higher, floor, a, b),
                              r if higher else 1 / r, fam[(label, name)][1])
    return out


def load(db, side, pattern):
    paths = sorted(glob.glob(os.path.join(FIX, pattern + "-*.json")))
    p = bdb.run(db, "import", "--storage-class", side, *paths)
    t.eq(p.returncode, 0, "import %s: %s" % (side, p.stderr))


def read(path):
    with open(path) as f:
        return f.read()


def check_junit(path, want, sides):
    """The file validates against the JUnit schema; junitparser reads one testcase per
    workload x metric x candidate with python's outcome, a failure's evidence with its p."""
    doc = etree.parse(path)
    schema = etree.XMLSchema(etree.fromstring(JUNIT_XSD))
    t.ok(schema.validate(doc), "JUnit XSD: %s" % schema.error_log)
    xml = junitparser.JUnitXml.fromfile(path)
    cases = [c for suite in xml for c in suite]
    t.eq(len(cases), len(want), "one testcase per workload x metric x candidate")
    fails = sum(1 for v in want.values() if v[0] == "fail")
    skips = sum(1 for v in want.values() if v[0] == "inconclusive")
    suite = next(iter(xml))
    t.eq((suite.tests, suite.failures, suite.skipped, suite.errors),
         (len(want), fails, skips, 0), "the testsuite's counts")
    base = sides[0][0]
    for c in cases:
        t.eq(c.classname, WORKLOAD, "classname is the workload")
        m = re.match(r"(.*): (.*) vs (.*)$", c.name)
        if not t.ok(m and m.group(3) == base, "name METRIC: CAND vs BASE: %r" % c.name):
            continue
        outcome, factor, p = want[(m.group(1), m.group(2))]
        kinds = [type(r).__name__ for r in c.result]
        t.eq(kinds, {"fail": ["Failure"], "inconclusive": ["Skipped"], "pass": []}[outcome],
             "%s: python finds %s" % (c.name, outcome))
        if outcome == "fail":
            r = c.result[0]
            t.eq(r.type, "regression", "failure type")
            ev = re.match(r"([\d.e+-]+)x \(95% CI [\d.e+-]+-[\d.e+-]+\), n=(\d+) vs (\d+), "
                          r"p=([\d.e+-]+) \(Holm-corrected\)$", r.text or "")
            if t.ok(ev, "%s: the evidence: %r" % (c.name, r.text)):
                t.near(float(ev.group(1)), factor, c.name + ": factor", rel=5e-3)
                t.near(float(ev.group(4)), p, c.name + ": Holm-corrected p", rel=5e-2)
                t.eq((ev.group(2), ev.group(3)), ("3", "3"), "runs per side")
            t.ok(r.message.startswith("%s: %s: " % (WORKLOAD, m.group(1))), r.message)
        if outcome == "inconclusive":
            t.ok(re.search(r"runs per side|single run|no feasible", c.result[0].message),
                 "skipped says what would decide it: %r" % c.result[0].message)


def check_openmetrics(path, sides):
    """prometheus_client parses it; each side's mean in base units and each factor equal
    python's from the raw runs; the last line is # EOF."""
    text = read(path)
    t.ok(text.endswith("# EOF\n"), "ends with # EOF")
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    got = {}
    for f in fams.values():
        t.eq(f.type, "gauge", f.name + " is a gauge")
        for s in f.samples:
            got[(s.name, s.labels["workload"], s.labels["metric"], s.labels["side"],
                 s.labels.get("baseline"))] = s.value
    t.eq(fams["benchdb_latency_seconds"].unit, "seconds", "latency in seconds")
    want = {}
    base_name, base = sides[0]
    for name, js in sides:
        for label, short, f, higher, family in METRICS:
            want[(family, WORKLOAD, short, name, None)] = statistics.mean(f(j) for j in js)
            if name != base_name:
                r = statistics.mean(f(j) for j in js) / statistics.mean(f(j) for j in base)
                want[("benchdb_factor", WORKLOAD, short, name, base_name)] = \
                    r if higher else 1 / r
        want[("benchdb_iops", WORKLOAD, "iops", name, None)] = statistics.mean(IOPS(j) for j in js)
    t.eq(sorted(got), sorted(want), "the samples: every side, metric and factor")
    for k in want:
        if k in got:
            t.near(got[k], want[k], "OpenMetrics %r" % (k,), rel=1e-6)


def ci(xs):
    return stats_ref.mean_ci(xs) if len(xs) > 1 else (None, None)


def check_bencher(path, sides):
    """BMF: the candidates' means and 95 % intervals, in base units."""
    doc = json.loads(read(path))
    jsonschema.validate(doc, BMF_SCHEMA)
    want = {}
    for name, js in sides[1:]:
        bench = WORKLOAD + (" (%s)" % name if len(sides) > 2 else "")
        values = [(short, [f(j) for j in js], "seconds" if not higher else None)
                  for _, short, f, higher, _ in METRICS]
        values.append(("iops", [IOPS(j) for j in js], None))
        for short, xs, unit in values:
            slug = short.replace("_", "-") + {"bw": "-bytes-per-second"}.get(short, "") + \
                ("-seconds" if unit else "")
            want.setdefault(bench, {})[slug] = (statistics.mean(xs),) + ci(xs)
    t.eq({b: sorted(m) for b, m in doc.items()}, {b: sorted(m) for b, m in want.items()},
         "Bencher: a benchmark per candidate's workload, a measure per metric")
    for b, ms in want.items():
        for slug, (v, lo, hi) in ms.items():
            got = doc.get(b, {}).get(slug, {})
            t.near(got.get("value"), v, "BMF %s %s value" % (b, slug), rel=1e-6)
            rel = IOPS_REL if slug == "iops" else 1e-6
            t.near(got.get("lower_value"), lo, "BMF %s %s lower" % (b, slug), rel=rel)
            t.near(got.get("upper_value"), hi, "BMF %s %s upper" % (b, slug), rel=rel)


def check_github(path, sides, bigger):
    """customBiggerIsBetter: bandwidth and IOPS; customSmallerIsBetter: latencies; the range
    is the 95 % interval's half width."""
    doc = json.loads(read(path))
    jsonschema.validate(doc, GITHUB_BENCHMARK_SCHEMA)
    want = {}
    for name, js in sides[1:]:
        suffix = " (%s)" % name if len(sides) > 2 else ""
        rows = [(short, [f(j) for j in js], "bytes/s" if higher else "s")
                for _, short, f, higher, _ in METRICS if higher == bigger]
        if bigger:
            rows.append(("iops", [IOPS(j) for j in js], "IOPS"))
        for short, xs, unit in rows:
            lo, hi = ci(xs)
            want["%s: %s%s" % (WORKLOAD, short, suffix)] = (unit, statistics.mean(xs),
                                                             (hi - lo) / 2)
    got = {e["name"]: e for e in doc}
    t.eq(sorted(got), sorted(want), "github-action-benchmark names (bigger=%s)" % bigger)
    for n, (unit, v, half) in want.items():
        e = got.get(n, {})
        t.eq(e.get("unit"), unit, n + " unit")
        t.near(e.get("value"), v, n + " value", rel=1e-6)
        m = re.match(r"\u00b1 (.*)$", e.get("range", ""))
        t.ok(m and t.close(float(m.group(1)), half, rel=IOPS_REL if unit == "IOPS" else 1e-6),
             "%s range %r, want \u00b1 %g" % (n, e.get("range"), half))


def md_cells(line):
    """The cells of a Markdown table row: split on the pipes no backslash escapes."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]


def md_unescape(s):
    return re.sub(r"\\(.)", r"\1", s)


def check_summary(path, want, sides, rc):
    text = read(path)
    lines = text.splitlines()
    word = {1: "regression", 4: "inconclusive", 0: "passed"}[rc]
    t.ok(lines[0].startswith("**benchdb check: %s (exit status %d)**: " % (word, rc)),
         "the verdict first: %r" % lines[0])
    t.ok(lines[2].startswith("Limits: "), "the limits: %r" % lines[2])
    rows = [md_cells(l) for l in lines if l.startswith("| ") and not l.startswith("| Workload")]
    t.eq(len(rows), len(want), "a table row per testcase")
    for cells in rows:
        if not t.eq(len(cells), 6, "six cells (names escaped): %r" % cells):
            continue
        wl, metric, versus = md_unescape(cells[0]), md_unescape(cells[1]), md_unescape(cells[2])
        t.eq(wl, WORKLOAD, "workload cell")
        cand = versus[:-len(" vs " + sides[0][0])]
        outcome = want.get((metric, cand), ("?",))[0]
        t.ok(cells[5].startswith({"fail": "regression", "pass": "passed",
                                  "inconclusive": "inconclusive"}.get(outcome, "?")),
             "%s %s: %r, python: %s" % (metric, versus, cells[5], outcome))


def test_outputs():
    """A three-way comparison whose rows pass, fail or stay inconclusive as python finds, one
    side with a name every format must escape."""
    sides = [("slow", jobs("slow")), ("fast", jobs("fast")), (WEIRD, jobs("aa-b"))]
    want = outcomes(sides)
    with bdb.temp_db() as db, tempfile.TemporaryDirectory() as d:
        load(db, "slow", "slow")
        load(db, "fast", "fast")
        load(db, WEIRD, "aa-b")
        f = {k: os.path.join(d, k) for k in ("junit", "om", "md", "bmf", "big", "small")}
        rc, out, err = bdb.call(db, "check", "--compare", "slow", "fast", WEIRD, "--junit",
                                f["junit"], "--openmetrics", f["om"], "--summary-md", f["md"],
                                "--bencher", f["bmf"], "--github-benchmark-bigger", f["big"],
                                "--github-benchmark-smaller", f["small"])
        got = [v[0] for v in want.values()]
        t.eq(rc, 1 if "fail" in got else 4 if "inconclusive" in got else 0,
             "exit status as python finds: " + out + err)
        check_junit(f["junit"], want, sides)
        check_openmetrics(f["om"], sides)
        check_summary(f["md"], want, sides, rc)
        check_bencher(f["bmf"], sides)
        check_github(f["big"], sides, True)
        check_github(f["small"], sides, False)
        # one candidate: the benchmarks are named by the workload alone
        rc, out, err = bdb.call(db, "check", "--compare", "slow", "fast", "--bencher", f["bmf"])
        check_bencher(f["bmf"], sides[:2])
        # a file that cannot be written: exit 3, stdout still says the verdict
        rc, out, err = bdb.call(db, "check", "--compare", "slow", "fast", "--junit",
                                os.path.join(d, "no", "such", "dir.xml"))
        t.eq(rc, 3, "an unwritable file: " + err)
        t.ok(out.startswith("check: limits: "), "the verdict still printed")


# ---- waivers ----

GATE_WORKLOAD = "Random Read 4K buffered"  # gen_gate.sh: rw=randread bs=4k, buffered


def gate_bw(name):
    return [j["read"]["bw_bytes"] for j in jobs(name)]


def waiver(ref, limit, expires, workload=GATE_WORKLOAD, url=None):
    s = "[%s]\nworkload = %s\nlimit = %s\nexpires = %s\n" % (ref, workload, limit, expires)
    return s + ("url = %s\n" % url if url else "")


def epoch(date):
    return str(calendar.timegm(tuple(int(x) for x in date.split("-")) + (0, 0, 0)))


def test_waivers():
    """The planted 20 % regression (gen_gate.sh: 5000 against 4000 IOPS): a waiver allowing
    30 % passes it until its date, listed on stdout, in the JUnit file and the summary; from
    the next day it fails again and says the waiver expired; a waiver narrower than the
    regression, or for another workload, leaves it failing."""
    a, b = gate_bw("gate-base"), gate_bw("gate-slow")
    factor = statistics.mean(b) / statistics.mean(a)
    t.eq(stats_ref.gate_outcome(stats_ref.family({"bw": (a, b)})["bw"], True, 1 / 1.05, a, b),
         "fail", "python: a regression at 5 %")
    t.ok(0.7 <= factor < 0.9, "python: within 30 %%, beyond 10 %% (%.3f)" % factor)
    with bdb.temp_db() as db, tempfile.TemporaryDirectory() as d:
        load(db, "base", "gate-base")
        load(db, "slow", "gate-slow")
        path, junit, md = (os.path.join(d, n) for n in ("waivers", "j.xml", "s.md"))
        with open(path, "w") as f:
            f.write("# reviewed exceptions\n" + waiver("PERF-1", "bw:-30%", "2027-01-31",
                                                       url="https://tracker.example/PERF-1")
                    + "\n" + waiver("PERF-2", "p99:+50%", "2027-01-31", workload="other"))
        args = ["check", "--compare", "base", "slow", "--waivers", path, "--junit", junit,
                "--summary-md", md]
        # valid on its last day
        rc, out, err = bdb.call(db, *args, "--now", "2027-01-31")
        t.eq(rc, 0, "waived: " + out + err)
        t.ok(re.search(r"^waived: PERF-1 until 2027-01-31: %s: Bandwidth: slow vs base: .*; "
                       r"waiver PERF-1 allows bw:-30%% \(https://tracker.example/PERF-1\)$"
                       % GATE_WORKLOAD, out, re.M), "the waived line: " + out)
        t.ok("check: 0 regressions, 0 inconclusive, 1 passed, 1 of them waived (of 1 checked)"
             in out, "the counts: " + out)
        case = next(c for s in junitparser.JUnitXml.fromfile(junit) for c in s)
        t.eq(case.result, [], "a waived testcase passes")
        t.ok((case.system_out or "").startswith("waived: PERF-1 until 2027-01-31"),
             "its system-out: %r" % case.system_out)
        t.ok("waived: PERF-1 until 2027-01-31" in read(md), "the summary lists it")
        # expired from the next day on, by --now and by SOURCE_DATE_EPOCH alike
        for extra, env in ((["--now", "2027-02-01"], None),
                           ([], dict(os.environ, SOURCE_DATE_EPOCH=epoch("2027-02-01")))):
            rc, out, err = bdb.call(db, *args, *extra, env=env)
            t.eq(rc, 1, "expired (%s): %s" % (extra or "SOURCE_DATE_EPOCH", out + err))
            t.ok(re.search(r"^regression: %s: Bandwidth: .*; waiver PERF-1 expired on "
                           r"2027-01-31 \(https://tracker.example/PERF-1\)$" % GATE_WORKLOAD,
                           out, re.M), "says it expired: " + out)
        case = next(c for s in junitparser.JUnitXml.fromfile(junit) for c in s)
        t.eq([type(r).__name__ for r in case.result], ["Failure"], "expired: a failure again")
        t.ok("waiver PERF-1 expired on 2027-01-31" in (case.system_out or ""), case.system_out)
        t.ok(epoch("2027-01-31") == str(calendar.timegm((2027, 1, 31, 0, 0, 0))), "epoch")
        rc, out, _ = bdb.call(db, *args, env=dict(os.environ,
                                                   SOURCE_DATE_EPOCH=epoch("2027-01-31")))
        t.eq(rc, 0, "SOURCE_DATE_EPOCH on the last day: " + out)
        # narrower than the regression: it fails, beyond the waiver
        with open(path, "w") as f:
            f.write(waiver("PERF-3", "bw:-10%", "2027-01-31"))
        rc, out, _ = bdb.call(db, *args, "--now", "2027-01-01")
        t.eq(rc, 1, "beyond a 10 % waiver: " + out)
        t.ok("; beyond waiver PERF-3 (bw:-10%)" in out, out)
        # an absolute waiver speaks for an absolute limit's row only
        with open(path, "w") as f:
            f.write(waiver("PERF-4", "iops>=3k", "2027-01-31"))
        iops = statistics.mean(j["read"]["iops"] for j in jobs("gate-slow"))
        t.ok(3000 <= iops < 4500, "python: slow's IOPS between 3k and 4500 (%.0f)" % iops)
        rc, out, _ = bdb.call(db, "check", "--compare", "base", "slow", "--threshold", "30",
                              "--limit", "iops>=4500", "--waivers", path, "--now", "2027-01-01")
        t.eq(rc, 0, "iops>=4500 waived down to 3k: " + out)
        t.ok(re.search(r"^waived: PERF-4 until 2027-01-31: %s: IOPS: slow: .* beyond "
                       r"iops>=4500; waiver PERF-4 allows iops>=3k$" % GATE_WORKLOAD, out, re.M),
             out)
        test_waiver_errors(db, d)


def test_waiver_errors(db, d):
    """Each mistake of a waivers file: FILE:LINE: error: ..., exit 2, nothing compared."""
    cases = [
        ("workload = x\n", 1, "expected a [REFERENCE] section before 'workload = x'"),
        ("[A]\nworkload = x\nlimit = bw:-5%\n", 1, "[A] has no expires = YYYY-MM-DD"),
        ("[A]\nlimit = bw:-5%\nexpires = 2027-01-01\n", 1, "[A] has no workload = NAME"),
        ("[A]\nworkload = x\nlimit = bw:-5%\nexpires = 2027-02-30\n", 4,
         "expected expires = YYYY-MM-DD in [A], got '2027-02-30'"),
        ("[A]\nworkload = x\nlimit = bw:+5%\nexpires = 2027-01-01\n", 3,
         "limit 'bw:+5%' in [A]: a limit on bw is how much lower it may get: expected "
         "'bw:-5%'"),
        ("[A]\nowner = me\n", 2, "unknown key 'owner' in [A] (expected workload, limit, "
         "expires or url)"),
        ("[A]\nworkload = x\nworkload = y\n", 3, "workload given twice in [A]"),
        (waiver("A", "bw:-5%", "2027-01-01") + "[A]\n", 5, "[A] given twice (first on line 1)"),
    ]
    path = os.path.join(d, "bad.waivers")
    for text, line, msg in cases:
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = bdb.call(db, "check", "--compare", "base", "slow", "--waivers", path)
        t.eq(rc, 2, "a bad waivers file is a usage error: " + err)
        t.eq(out, "", "nothing compared")
        t.eq(err.splitlines()[:1], ["%s:%d: error: %s" % (path, line, msg)], "the error")


test_outputs()
test_waivers()
sys.exit(t.done())
