"""report_invariants.py: a comparison of real size (40 rows) gives every row its verdict, and
every output says the same thing (issue 28); so does the demo's (examples/, issue 31).

The A/B (tests/fixtures/ab, gen.sh there): ext4 data=ordered against data=journal on loop
devices, the twelve stonewalled jobs of ab.fio, three runs each, imported with their sidecars.
The demo (examples/, gen.sh there): a standard volume capped at 3,000 IOPS and 125 MiB/s
against an uncapped premium one, the ten jobs of demo.fio, three runs each, with a bandwidth
log whose steady state is judged here from the raw log (tests/tools/series_ref.py).
For each, the expected table is computed here from the raw fio JSON: the row of each job and direction
(named by hand from ab.fio), the means of the three runs, and the verdicts of one Holm family
over every row (tests/tools/stats_ref.py, from the formulas). Then:

- the rows: one per workload and metric, engines never pooled (libaio and io_uring apart);
- JSON: means, factor, interval, p before and after Holm, verdict, caution and phrase as computed;
- every row's phrase names a direction, or says equivalent / inconclusive (with the runs it
  needs) / single run: no bare factor, whatever the table's size;
- Markdown, HTML, CSV and XLSX show each row's phrase and verdict as JSON does, cell by cell,
  and colour only clean significant factors;
- `check` lists exactly the significant regressions beyond its threshold, each with the factor
  and interval the report gives it."""
import csv, glob, io, json, math, os, re, statistics, subprocess, sys, tempfile
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
import series_ref
import stats_ref
from checks import Checks

t = Checks("report_invariants", rel=1e-6)

# Each job of ab.fio and the workload the report names it by, written from the job's options:
# rw, block size, queue depth (QD1 unsaid), numjobs, buffered/sync, and the engine in brackets
# where the same workload ran on two engines (they are not repeats of one another).
AB_WORKLOADS = {
    "randread-4k-qd1": "Random Read 4K [engine libaio]",
    "randread-4k-qd16": "Random Read 4K QD16 [engine libaio]",
    "randread-4k-qd1-uring": "Random Read 4K [engine io_uring]",
    "randread-4k-qd16-uring": "Random Read 4K QD16 [engine io_uring]",
    "randwrite-4k-qd16": "Random Write 4K QD16 [engine libaio]",
    "randwrite-4k-qd16-uring": "Random Write 4K QD16 [engine io_uring]",
    "read-1m-qd4": "Sequential Read 1M QD4",
    "write-1m-qd4": "Sequential Write 1M QD4",
    "randrw-70-4k-qd8": "Random Mixed 70/30 4K QD8",
    "write-4k-fsync": "Sequential Write 4K sync buffered",
    "randread-4k-buffered": "Random Read 4K buffered",
    "write-64k-2jobs": "Sequential Write 64K x2 jobs",
}
# demo.fio's jobs, named by the same rules (one engine per workload: no brackets)
DEMO_WORKLOADS = {
    "randread-4k-qd1": "Random Read 4K",
    "randread-4k-qd4": "Random Read 4K QD4",
    "randread-4k-qd16": "Random Read 4K QD16",
    "randwrite-4k-qd1": "Random Write 4K",
    "randwrite-4k-qd16": "Random Write 4K QD16",
    "randrw-4k-qd8": "Random Mixed 70/30 4K QD8",
    "read-1m-qd4": "Sequential Read 1M QD4",
    "write-1m-qd4": "Sequential Write 1M QD4",
    "write-4k-fsync": "Sequential Write 4K sync buffered",
    "randread-4k-cached": "Random Read 4K buffered",
}


class Data:
    """One A/B: its fio JSON files (each with its sidecar), the sides, the workload names."""

    def __init__(self, name, files, base, cand, workloads, min_rows):
        self.name, self.files, self.base, self.cand = name, files, base, cand
        self.workloads, self.min_rows = workloads, min_rows


AB = os.path.join(os.environ["FIXTURES"], "ab")
DATA = [Data("ab", sorted(glob.glob(os.path.join(AB, "*.json"))), "ext4-ordered",
             "ext4-journal", AB_WORKLOADS, 40),
        Data("demo", sorted(glob.glob(os.path.join(os.environ["SRCDIR"], "examples", "*",
                                                   "run*", "demo.json"))),
             "standard", "premium", DEMO_WORKLOADS, 30)]
D = DATA[0]  # the A/B being checked
# metric: (higher is better, better word, worse word)
METRICS = {
    "Bandwidth": (True, "faster", "slower"),
    "Mean latency": (False, "lower latency", "higher latency"),
    "p99 latency": (False, "lower p99 latency", "higher p99 latency"),
    "fsync latency": (False, "lower fsync latency", "higher fsync latency"),
    "fsync p99 latency": (False, "lower fsync p99 latency", "higher fsync p99 latency"),
}
VERDICT_WORDS = re.compile(
    r"^(no verdict: .+|\d[\d.]*x (faster|slower|lower|higher) .*\(95% CI [\d.]+-[\d.]+\)"
    r"|no difference \(1\.00x\)|equivalent within \u00b15 % \(|inconclusive \([\d.]+x, n=\d+ vs \d+\): "
    r"(about \d+ runs per side would detect|enough runs to detect|the runs vary too much)|.*\(single run\))")
THRESHOLD = 5  # check's default, in %


def sidecar_class(path):
    """The storage class of FILE.meta, else of the folder's benchdb.meta (docs/schema.md)."""
    meta = path + ".meta"
    if not os.path.exists(meta):
        meta = os.path.join(os.path.dirname(path), "benchdb.meta")
    for line in open(meta):
        if line.startswith("storage_class="):
            return line.strip().split("=", 1)[1]
    raise AssertionError("no storage_class in %s" % meta)


def unsteady(job, d, path):
    """The job's bandwidth log beside its JSON (fio's write_bw_log) is not steady in direction
    d by the SNIA rule; False when it logged none."""
    prefix = job["job options"].get("write_bw_log")
    logs = glob.glob(os.path.join(os.path.dirname(path), "%s_bw.*.log" % prefix)) if prefix else []
    pts = series_ref.log_points(logs[0], ("read", "write").index(d)) if logs else []
    return bool(pts) and not series_ref.snia(pts)[0]


def job_rows(job, path):
    """{(workload, metric): value} of one fio job object, and its caution words per row."""
    name = D.workloads[job["jobname"]]
    dirs = [d for d in ("read", "write") if job[d]["io_bytes"] > 0]
    out, words = {}, {}
    for d in dirs:
        x = job[d]
        row = name + (" (%s)" % d if len(dirs) > 1 else "")
        vals = {"Bandwidth": x["bw_bytes"], "Mean latency": LATENCY(x)}
        # a read done inside io_submit (slat above clat): its completion p99 is not its p99
        # (fio gave no total percentiles here), so the report leaves it out
        vals["p99 latency"] = UNTIMED if submitted(x) else x["clat_ns"]["percentile"]["99.000000"]
        if job["sync"]["total_ios"]:
            vals["fsync latency"] = job["sync"]["lat_ns"]["mean"]
            vals["fsync p99 latency"] = job["sync"]["lat_ns"]["percentile"]["99.000000"]
        suspects = stats_ref.fio_suspects(job, d)
        if below_device(job, x) and "cached" not in suspects:
            suspects.insert(0, "cached")
        if unsteady(job, d, path):
            suspects.append("not steady")
        for metric, v in vals.items():
            out[(row, metric)] = v
            words[(row, metric)] = suspects
    return out, words


UNTIMED = None  # a p99 the report must not use


def submitted(x):
    """Submission latency above completion latency (and above a microsecond)."""
    return x["slat_ns"]["mean"] >= 1000 and x["slat_ns"]["mean"] > x["clat_ns"]["mean"]


def below_device(job, x):
    """Random I/O (not an fsync job's) whose latency is under 10 us on ext4 (not memory): no
    device answers that fast, memory did (docs/methods.md, "Caches and links")."""
    o = job["job options"]
    return (o["rw"].startswith("rand") and o.get("fsync", "0") == "0"
            and LATENCY(x) < 10000)


def LATENCY(x):
    """The latency the report compares and judges an I/O by: the total (fio's lat = slat +
    clat), what the I/O took even when it happened inside io_submit (issue 28)."""
    return x["lat_ns"]["mean"]


def expected():
    """{(workload, metric): {side: [values]}}, and the caution words of each row's results."""
    acc, suspects = {}, {}
    for path in D.files:
        side = sidecar_class(path)
        doc = json.load(open(path))
        for job in doc["jobs"]:
            # the job file's [global] section applies to every job (direct=1, ioengine)
            job = dict(job, **{"job options": {**doc.get("global options", {}),
                                               **job["job options"]}})
            vals, words = job_rows(job, path)
            for key, v in vals.items():
                acc.setdefault(key, {}).setdefault(side, []).append(v)
                suspects.setdefault(key, {}).setdefault(side, []).append(words[key])
    return acc, suspects


def expected_factors(acc, suspects):
    """{key: dict(value, lo, hi, p, p_holm, verdict, text)}, direction-aware, from one family;
    a row whose side has only untimed p99s: the reason the report gives instead."""
    timed = {k: {s: [x for x in v[s] if x is not UNTIMED] for s in v} for k, v in acc.items()}
    out = {}
    for k, v in timed.items():
        for s in (D.base, D.cand):
            if not v[s]:
                out[k] = "no verdict: %s's I/O happens in submission (slat above clat) and fio " \
                         "gave no total-latency p99 (lat_percentiles=1); its completion p99 " \
                         "would flatter it" % s
    fam = stats_ref.family({k: (v[D.base], v[D.cand]) for k, v in timed.items() if k not in out})
    for key, (verdict, p_adj, p, lo, hi) in fam.items():
        higher, better, worse = METRICS[key[1]]
        a, b = timed[key][D.base], timed[key][D.cand]
        f = statistics.mean(b) / statistics.mean(a)
        if not higher:
            f, lo, hi = 1 / f, 1 / hi, 1 / lo
        # a latency's samples, read as "how many times better", are the reciprocal ratio: the
        # runs needed depend on the spread only, the same either way
        text = stats_ref.phrase(f, lo, hi, verdict, better, worse, a, b, stats_ref.resolution(key))
        caution = stats_ref.caution([(D.base, suspects[key][D.base]), (D.cand, suspects[key][D.cand])])
        out[key] = dict(value=f, lo=lo, hi=hi, p=p, p_holm=p_adj, verdict=verdict,
                        text=text + caution, caution=caution[len("; caution: "):] or None)
    return out


def report_json(db):
    p = bdb.run(db, "report", "--compare", D.base, D.cand, "--format", "json")
    t.eq(p.returncode, 0, "report --format json: " + p.stderr[-300:])
    return json.loads(p.stdout)


def table_rows(doc, name):
    return next(s["table"]["rows"] for s in doc["sections"]
                if s.get("table") and s["table"]["name"] == name)


def check_submission(doc):  # the A/B's
    """The results whose submission latency (slat) exceeds their completion latency (clat),
    counted from the raw files: data=journal reads done inside io_submit. The insight names
    as many, and only files of that filesystem."""
    want = 0
    for path in D.files:
        for job in json.load(open(path))["jobs"]:
            for d in ("read", "write"):
                x = job[d]
                want += x["io_bytes"] > 0 and x["slat_ns"]["mean"] > max(x["clat_ns"]["mean"], 999)
    rows = [r for r in table_rows(doc, "insights") if r[0] == "Submission latency"]
    t.ok(want > 0, "the A/B has results submitted slower than completed (%d)" % want)
    if t.eq(len(rows), 1, "a Submission latency insight"):
        t.ok(rows[0][1].startswith("%d result" % want), "it counts %d: %r" % (want, rows[0][1][:60]))
        files = re.findall(r"(\w+)-\d\.json:\d+", rows[0][2])
        t.ok(files and set(files) == {"journal"}, "its evidence is data=journal's: %r" % files)


SYNC_ENGINES = ("sync", "psync", "vsync", "pvsync", "pvsync2")


def check_shallow(doc):
    """The results that kept under a quarter of their queue busy (IOPS x mean total latency
    under iodepth x numjobs / 4, from 4 deep), counted from the raw files. Both directions of a
    mixed job share one queue, so neither is judged alone: the demo's capped volume had 0.3 of
    its randrw job's 8 I/Os in writes and the rest in reads."""
    want = 0
    for path in D.files:
        doc_ = json.load(open(path))
        for job in doc_["jobs"]:
            o = {**doc_.get("global options", {}), **job["job options"]}
            depth = int(o.get("iodepth", "1")) * int(o.get("numjobs", "1"))
            flight = [job[d]["iops"] * job[d]["lat_ns"]["mean"] / 1e9 for d in ("read", "write")
                      if job[d]["io_bytes"] > 0]
            if o.get("rw") in ("rw", "randrw", "readwrite"):
                t.ok(sum(flight) >= depth / 4, "%s %s: a mixed job's directions together hold "
                     "its queue (%.2f of %d)" % (D.name, job["jobname"], sum(flight), depth))
            elif o.get("ioengine", "psync") not in SYNC_ENGINES and depth >= 4:
                want += sum(1 for f in flight if f < depth / 4)
    rows = [r for r in table_rows(doc, "insights") if r[0] == "Effective queue depth"]
    t.eq(int(rows[0][1].split()[0]) if rows else 0, want, "%s: results with a shallow queue"
         % D.name)


def check_sync_pick(doc):
    """The sync-write class (built-in tiers.rules: fsync latency mean <= 2 ms, the best): from
    the raw files, each side's fsync jobs; a side that meets it beside the best is named with it
    when the two cannot be told apart (p >= 0.05 on the log ratio, both repeated)."""
    fsync = {}
    for path in D.files:
        for job in json.load(open(path))["jobs"]:
            if job["sync"]["total_ios"]:
                fsync.setdefault(sidecar_class(path), []).append(job["sync"]["lat_ns"]["mean"])
    meet = [s for s in (D.base, D.cand) if s in fsync and statistics.mean(fsync[s]) <= 2e6]
    if not meet:
        return
    best = min(meet, key=lambda s: statistics.mean(fsync[s]))  # ties: the first named
    other = [s for s in meet if s != best]
    p = stats_ref.ratio_p(fsync[best], fsync[other[0]]) if other else None
    want = best + (", %s (no significant difference)" % other[0] if p is not None and p >= 0.05
                   else "")
    rows = [r for r in table_rows(doc, "recommendations") if r[0].startswith("Sync-write")]
    t.eq(rows[0][1] if rows else None, want, "%s: the sync-write pick (p %s)" % (D.name, p))


def check_json(rows, acc, want):
    keys = [(r[0], r[1]) for r in rows]
    t.eq(len(keys), len(set(keys)), "each workload and metric once")
    t.eq(sorted(keys), sorted(want), "rows: every job and direction of the job file, engines apart")
    t.ok(len(rows) >= D.min_rows, "a table of real size (%d rows)" % len(rows))
    for r in rows:
        key = (r[0], r[1])
        if key not in want:
            continue
        w, f = want[key], r[4]
        if isinstance(w, str):
            t.eq(f, w, "%r: no verdict, and why" % (key,))
            continue
        for col, side in ((2, D.base), (3, D.cand)):
            vals = [v for v in acc[key][side] if v is not UNTIMED]
            t.near(r[col]["value"], statistics.mean(vals), "%r %s mean" % (key, side))
            t.eq(r[col]["n"], len(vals), "%r %s runs" % (key, side))
        for k in ("value", "lo", "hi", "p", "p_holm"):
            t.near(f.get(k), w[k], "%r factor %s" % (key, k))
        t.eq(f.get("verdict"), w["verdict"], "%r verdict (p %.3g, Holm %.3g)" % (key, w["p"], w["p_holm"]))
        t.eq(f.get("text"), w["text"], "%r phrase" % (key,))
        t.eq(f.get("caution"), w["caution"], "%r caution" % (key,))
        t.ok(VERDICT_WORDS.match(f.get("text") or ""), "%r: a verdict in words, not a bare "
             "factor: %r" % (key, f.get("text")))
        if f.get("lo") is not None:  # repeats in one fio bin are no proof of agreement
            t.ok(f["lo"] < f["value"] < f["hi"], "%r: an interval, never a point: %r" %
                 (key, f.get("text")))
    # how many rows test the floor: a p99 whose repeats fell in one bin on both sides
    return sum(1 for k in want if not isinstance(want[k], str) and k[1] == "p99 latency" and
               all(len(set(acc[k][s])) == 1 for s in (D.base, D.cand)))


def ftext(f):
    """A factor cell's words: its phrase, or the reason a row has no factor (a text cell)."""
    return f if isinstance(f, str) else f["text"]


def md_unescape(s):
    return re.sub(r"\\(.)", r"\1", s)


def check_markdown(db, rows):
    p = bdb.run(db, "report", "--compare", D.base, D.cand)
    lines = p.stdout.split("## Comparison", 1)[1].split("\n## ", 1)[0].splitlines()
    body = [l for l in lines if l.startswith("| ")][2:]  # past the header and its rule
    t.eq(len(body), len(rows), "markdown: as many comparison rows as JSON")
    for line, r in zip(body, rows):
        cells = [md_unescape(c) for c in line.strip("| ").split(" | ")]
        t.eq((cells[0], cells[1], cells[4]), (r[0], r[1], ftext(r[4])),
             "markdown row %r says what JSON says" % ((r[0], r[1]),))


class Page(HTMLParser):
    """The factor cells of the HTML comparison table: (class, text) per row."""

    def __init__(self):
        super().__init__()
        self.inside, self.cell, self.rows = False, None, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.inside = a.get("data-table") == "comparison"
        elif self.inside and tag == "td" and "factor" in (a.get("class") or "").split():
            self.cell = [a["class"], ""]

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif tag == "td" and self.cell:
            self.rows.append(tuple(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.cell:
            self.cell[1] += data


def check_html(db, rows, tmp):
    out = os.path.join(tmp, "r.html")
    p = bdb.run(db, "report", "--compare", D.base, D.cand, "-o", out)
    t.eq(p.returncode, 0, "report -o html: " + p.stderr[-300:])
    page = Page()
    page.feed(open(out, encoding="utf-8").read())
    t.eq(len(page.rows), len(rows), "html: a factor cell per row")
    for (cls, text), r in zip(page.rows, rows):
        f = r[4]
        t.eq(text, ftext(f), "html factor of %r" % ((r[0], r[1]),))
        clean = not isinstance(f, str) and f["verdict"] == "significant" and not f.get("caution")
        coloured = "better" in cls.split() or "worse" in cls.split()
        t.eq(coloured, clean, "html colours %r only when significant without caution (%s)" %
             ((r[0], r[1]), cls))


def check_csv(db, rows):
    p = bdb.run(db, "report", "--compare", D.base, D.cand, "--format", "csv", "--table", "comparison")
    got = list(csv.DictReader(io.StringIO(p.stdout)))
    t.eq(len(got), len(rows), "csv: as many rows as JSON")
    fc = "%s vs %s" % (D.cand, D.base)
    for c, r in zip(got, rows):
        f, key = r[4], (r[0], r[1])
        t.eq((c["Workload"], c["Metric"]), key, "csv row order")
        if isinstance(f, str):
            t.eq((c[fc], c[fc + " verdict"]), (f, ""), "csv: no verdict, and why %r" % (key,))
            continue
        t.near(float(c[fc]), f["value"], "csv factor %r" % (key,))
        t.near(float(c[fc + " p"]), f["p"], "csv p %r" % (key,))
        t.near(float(c[fc + " p_holm"]), f["p_holm"], "csv Holm p %r" % (key,))
        t.eq(c[fc + " verdict"], f["verdict"], "csv verdict %r" % (key,))
        t.eq(c[fc + " text"], f["text"], "csv phrase %r" % (key,))


def xlsx_verdict(f):
    """What the sheet's verdict column says: the direction of a significant factor (or the
    verdict's name), what an inconclusive one needs, and any caution."""
    if f["verdict"] in ("inconclusive", "equivalent"):
        return f["text"]
    head = f["text"].split(" (95% CI")[0] if f["verdict"] == "significant" else f["verdict"]
    return head + ("; caution: " + f["caution"] if f.get("caution") else "")


def check_xlsx(db, rows, tmp):
    import openpyxl
    out = os.path.join(tmp, "r.xlsx")
    p = bdb.run(db, "report", "--compare", D.base, D.cand, "-o", out)
    t.eq(p.returncode, 0, "report -o xlsx: " + p.stderr[-300:])
    ws = openpyxl.load_workbook(out)["Comparison"]
    head = [c.value for c in ws[1]]
    fc = head.index("%s vs %s" % (D.cand, D.base))
    got = list(ws.iter_rows(min_row=2, values_only=True))
    t.eq(len(got), len(rows), "xlsx: as many comparison rows as JSON")
    for g, r in zip(got, rows):
        f, key = r[4], (r[0], r[1])
        t.eq((g[0], g[1]), key, "xlsx row order")
        if isinstance(f, str):
            t.eq((g[fc], g[fc + 3]), (f, None), "xlsx: no verdict, and why %r" % (key,))
            continue
        t.near(g[fc], f["value"], "xlsx factor %r" % (key,))
        t.near(g[fc + 1], f["lo"], "xlsx interval low %r" % (key,))
        t.near(g[fc + 2], f["hi"], "xlsx interval high %r" % (key,))
        t.eq(g[fc + 3], xlsx_verdict(f), "xlsx verdict %r" % (key,))


def check_gate(db, rows):
    p = bdb.run(db, "check", "--compare", D.base, D.cand)
    got = sorted(l for l in p.stdout.splitlines() if l.startswith("regression: "))
    floor = 1 / (1 + THRESHOLD / 100)
    factors = [r for r in rows if not isinstance(r[4], str)]
    want = sorted("regression: %s: %s: %s vs %s: %s; limit %g %% worse (--threshold)"
                  % (r[0], r[1], D.cand, D.base, r[4]["text"], THRESHOLD)
                  for r in factors if r[4]["verdict"] == "significant" and r[4]["value"] < floor)
    t.eq(got, want, "check: the significant regressions, each with its factor and interval")
    # the rest pass only when the whole interval is within the limit: else inconclusive (4)
    unsure = [r for r in factors if r[4].get("lo") is None or r[4]["lo"] < floor]
    t.eq(p.returncode, 1 if want else 4 if unsure else 0, "check's exit status")
    t.ok("(null)" not in p.stdout, "check names every regression's phrase")


def check(data):
    global D
    D = data
    t.ok(len(D.files) >= 6, "%s: three runs on each side (%d files)" % (D.name, len(D.files)))
    acc, suspects = expected()
    want = expected_factors(acc, suspects)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "ab.sqlite")
        logs = [l for f in D.files for l in glob.glob(os.path.join(os.path.dirname(f), "*.log"))]
        p = bdb.run(db, "import", *D.files, *logs)
        t.eq(p.returncode, 0, "import %s: %s" % (D.name, p.stderr[-300:]))
        doc = report_json(db)
        rows = table_rows(doc, "comparison")
        same_bin = check_json(rows, acc, want)
        if D.name == "ab":
            check_submission(doc)
        check_shallow(doc)
        check_sync_pick(doc)
        check_markdown(db, rows)
        check_html(db, rows, tmp)
        check_csv(db, rows)
        check_xlsx(db, rows, tmp)
        check_gate(db, rows)
    return same_bin


def main():
    same_bin = sum(check(data) for data in DATA)
    t.ok(same_bin > 0, "a p99 whose repeats all fell in one bin on both sides is checked")
    return t.done()


sys.exit(main())
