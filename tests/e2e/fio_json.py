#!/usr/bin/python3
"""fio JSON end to end: import -> export -> report, checked against an independent reading of
the raw fio JSON (python's json module) and the verdicts of tests/tools/stats_ref.py (the
log-ratio t-test with Holm's correction, scipy). Fixtures were written by real fio 3.33 runs
(tests/fixtures/fio_json/gen.sh, tests/fixtures/disk_tmpfs/gen.sh)."""
import csv, io, json, os, re, statistics, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

import stats_ref  # noqa: E402

FIX = os.path.join(os.environ["FIXTURES"], "fio_json")
t = Checks("fio_json")


def last_doc(path):
    """The last fio document in the file (the final one with --status-interval)."""
    text = open(path).read()
    dec, docs, i = json.JSONDecoder(), [], 0
    for m in re.finditer(r"(?m)^\{", text):
        if m.start() < i:
            continue
        obj, i = dec.raw_decode(text, m.start())
        docs.append(obj)
    return docs[-1]


def expected_results(path):
    doc = last_doc(path)
    for job in doc["jobs"]:
        for d in ("read", "write", "trim", "mixed"):
            x = job.get(d)
            if not x or not (x.get("io_bytes") or x.get("total_ios")):
                continue
            yield job, d, x


def check_file(db, path, recs):
    mine = [r for r in recs if r["source"] == path]
    want = list(expected_results(path))
    t.eq(len(mine), len(want), "result count of " + os.path.basename(path))
    for job, d, x in want:
        r = [r for r in mine if r["job"] == job["jobname"] and r["direction"] == d]
        if not t.ok(len(r) == 1, "one result for %s/%s" % (job["jobname"], d)):
            continue
        r = r[0]
        t.near(r["bw_bytes_s"], x["bw_bytes"], "bw_bytes_s")
        t.near(r["iops"], x["iops"], "iops")
        t.near(r["io_bytes"], x["io_bytes"], "io_bytes")
        t.near(r["runtime_ms"], x["runtime"], "runtime_ms")
        t.near(r["clat_mean_ns"], x["clat_ns"]["mean"], "clat_mean_ns")
        t.near(r["lat_mean_ns"], x["lat_ns"]["mean"], "lat_mean_ns")
        pct = x["clat_ns"].get("percentile", {})
        for key, name in (("50.000000", "clat_p50_ns"), ("99.000000", "clat_p99_ns"),
                          ("95.000000", "clat_p95_ns")):
            if key in pct:
                t.near(r[name], pct[key], name)
        t.near(r["clat_max_ns"], x["clat_ns"]["max"], "clat_max_ns")
        opts = job["job options"]
        t.eq(r["rw"], opts.get("rw"), "rw")
        t.eq(r["tool_version"], last_doc(path)["fio version"], "tool_version")


def test_examples_and_report():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        files = bdb.import_examples(db, checks=t)
        recs = bdb.export(db, t)
        t.eq(len(recs), 24, "24 results from the examples")
        for f in files["disk"] + files["tmpfs"]:
            check_file(db, f, recs)
        t.ok(all(r["storage_class"] in ("disk", "tmpfs") for r in recs), "storage classes kept")
        # every comparison row of the report, recomputed from the raw files: a row per workload
        # and metric both sides have; IOPS beside the bandwidth (one test, no IOPS row); fsync
        # rows from job["sync"]["lat_ns"] of the fsync=1 jobs; the verdicts from the t-test on
        # the log ratio with Holm's correction over every test of the report
        rc, out, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--format", "csv")
        t.eq(rc, 0, "report csv " + err)
        rows = list(csv.DictReader(io.StringIO(out)))
        head = next(csv.reader(io.StringIO(out)))
        # (label, higher is better, better, worse, the value of one job (None: not measured))
        metrics = [
            ("Bandwidth", True, "faster", "slower", lambda job, x: x["bw_bytes"]),
            ("Mean latency", False, "lower latency", "higher latency",
             lambda job, x: x["lat_ns"]["mean"]),  # total: slat + clat
            ("p99 latency", False, "lower p99 latency", "higher p99 latency",
             lambda job, x: x["clat_ns"]["percentile"]["99.000000"]),
            ("fsync latency", False, "lower fsync latency", "higher fsync latency",
             lambda job, x: job["sync"]["lat_ns"]["mean"] if fsyncs(job) else None),
            ("fsync p99 latency", False, "lower fsync p99 latency", "higher fsync p99 latency",
             lambda job, x: job["sync"]["lat_ns"]["percentile"]["99.000000"]
             if fsyncs(job) else None),
        ]

        def fsyncs(job):
            o = job["job options"]
            return (o.get("fsync", "0") != "0" or o.get("fdatasync", "0") != "0") and \
                job.get("sync", {}).get("total_ios", 0) > 0

        by_name, iops, suspects = {}, {}, {}
        for cls in ("disk", "tmpfs"):
            for f in files[cls]:
                job = last_doc(f)["jobs"][0]
                name = os.path.basename(f).rsplit("-", 1)[0]
                d = "read" if job["job options"]["rw"] in ("read", "randread") else "write"
                x = job[d]
                iops.setdefault(name, {}).setdefault(cls, []).append(x["iops"])
                suspects.setdefault(name, {}).setdefault(cls, []).append(
                    stats_ref.fio_suspects(job, d))
                for label, _, _, _, value in metrics:
                    v = value(job, x)
                    if v is not None:
                        by_name.setdefault((name, label), {}).setdefault(cls, []).append(v)
        want = {k: (s["disk"], s["tmpfs"]) for k, s in by_name.items()
                if "disk" in s and "tmpfs" in s}
        verdicts = stats_ref.family(want)  # one family: every test of the report
        labels = {"seqwrite": "Sequential Write 1M buffered", "seqread": "Sequential Read 1M buffered",
                  "randread": "Random Read 4K buffered", "syncwrite": "Sequential Write 4K sync buffered"}
        names = {v: k for k, v in labels.items()}
        t.eq(sorted((names.get(r["Workload"]), r["Metric"]) for r in rows), sorted(want),
             "one row per workload and metric both sides ran (no IOPS row beside bandwidth)")
        for side in ("disk (baseline)", "tmpfs"):
            i = head.index(side + " ci_hi") if side + " ci_hi" in head else -2
            t.eq(head[i + 1], side + " iops", "iops sub-column after %s's ci_hi" % side)
        checked = 0
        for (name, metric), (a, b) in sorted(want.items()):
            row = [r for r in rows if r["Workload"] == labels[name] and r["Metric"] == metric]
            if not t.ok(len(row) == 1, "report row %s %s" % (name, metric)):
                continue
            row = row[0]
            _, higher, better, worse, _ = [m for m in metrics if m[0] == metric][0]
            what = "%s %s" % (name, metric)
            for col, vals in (("disk (baseline)", a), ("tmpfs", b)):
                t.near(float(row[col]), statistics.mean(vals), "%s mean %s" % (col, what))
                t.eq(row[col + " n"], str(len(vals)), "%s n %s" % (col, what))
                t.near(float(row[col + " sd"]), statistics.stdev(vals), "%s sd %s" % (col, what))
                t.near(float(row[col + " min"]), min(vals), "%s min %s" % (col, what))
                t.near(float(row[col + " max"]), max(vals), "%s max %s" % (col, what))
                side = "disk" if col.startswith("disk") else "tmpfs"
                if metric == "Bandwidth":
                    t.near(float(row[col + " iops"]), statistics.mean(iops[name][side]),
                           "%s iops beside the bandwidth %s" % (col, what))
                else:
                    t.eq(row[col + " iops"], "", "%s no iops beside %s" % (col, what))
            mean_a, mean_b = statistics.mean(a), statistics.mean(b)
            factor = mean_b / mean_a if higher else mean_a / mean_b
            t.near(float(row["tmpfs vs disk"]), factor, "factor " + what)
            verdict, p_adj, p, lo, hi = verdicts[(name, metric)]
            if not higher:
                lo, hi = 1 / hi, 1 / lo
            t.near(float(row["tmpfs vs disk ci_lo"]), lo, "interval low " + what)
            t.near(float(row["tmpfs vs disk ci_hi"]), hi, "interval high " + what)
            t.eq(row["tmpfs vs disk verdict"], verdict,
                 "verdict %s (p=%.3g, Holm %.3g)" % (what, p, p_adj))
            caution = stats_ref.caution([("disk", suspects[name]["disk"]),
                                         ("tmpfs", suspects[name]["tmpfs"])])
            t.eq(row["tmpfs vs disk text"],
                 stats_ref.phrase(factor, lo, hi, verdict, better, worse, a, b,
                                  stats_ref.resolution(metric)) + caution,
                 "wording " + what)
            checked += 1
        t.eq(checked, 14, "all 14 factors checked (4 workloads x 3 metrics + 2 fsync)")
        t.ok(any(v[0] == "significant" for v in verdicts.values()) and
             any(v[0] in ("equivalent", "inconclusive") for v in verdicts.values()),
             "both verdicts occur among the examples")
        # Markdown: the same factors with their direction-aware wording, IOPS beside bandwidth
        rc, md, err = bdb.call(db, "report", "--compare", "disk", "tmpfs")
        t.eq(rc, 0, "report md")
        t.ok("| Workload | Metric | disk (baseline) | tmpfs | tmpfs vs disk |" in md, "md table header")
        t.ok(re.search(r"\d+(\.\d+)?x faster \(95% CI ", md) is not None, "a 'faster' factor")
        t.ok(re.search(r"\d+(\.\d+)?x lower latency", md) is not None, "a 'lower latency' factor")
        t.ok(re.search(r"\d+(\.\d+)?x lower fsync latency", md) is not None,
             "a 'lower fsync latency' factor")
        t.ok("| IOPS |" not in md, "md: no IOPS row where bandwidth is known")
        kiops = statistics.mean(iops["randread"]["tmpfs"]) / 1e3  # 100k..999k: "264k"
        t.ok(re.search(r"\| Random Read 4K buffered \| Bandwidth \|[^|]*\|[^|]*; %.0fk IOPS \|"
                       % kiops, md) is not None, "md: mean IOPS beside the tmpfs bandwidth")


def test_special_fixtures():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        names = ["jsonplus_randrw.json", "unified_mixed.json", "status_interval.json",
                 "normal_and_json.txt", "two_jobs_fsync.json"]
        paths = [os.path.join(FIX, n) for n in names]
        rc, out, err = bdb.call(db, "import", *paths)
        t.eq(rc, 0, "import special fixtures: " + err)
        recs = bdb.export(db, t)
        for p in paths:
            check_file(db, p, recs)
        mixed = [r for r in recs if r["source"].endswith("unified_mixed.json")]
        t.eq([r["direction"] for r in mixed], ["mixed"], "unified_rw_reporting gives 'mixed'")
        sync = [r for r in recs if r["job"] == "syncw"][0]
        raw = last_doc(os.path.join(FIX, "two_jobs_fsync.json"))["jobs"][0]["sync"]
        t.near(sync["sync_lat_mean_ns"], raw["lat_ns"]["mean"], "fsync latency mean")
        t.eq(sync["fsync"], 1, "fsync=1 workload")
        rr = [r for r in recs if r["job"] == "rr"][0]
        t.eq((rr["bs_bytes"], rr["iodepth"], rr["ioengine"]), (16384, 4, "libaio"),
             "job options win over global options")
        # json+ bins are kept: their count equals fio's total_ios
        doc = last_doc(os.path.join(FIX, "jsonplus_randrw.json"))
        rc, out, err = bdb.call(db, "query", "--format", "csv",
                                "SELECT r.direction, sum(b.count) FROM latency_bin b JOIN result r "
                                "ON r.id = b.result_id GROUP BY r.direction ORDER BY r.direction")
        got = dict(line.split(",") for line in out.splitlines()[1:])
        for d in ("read", "write"):
            total = sum(doc["jobs"][0][d]["clat_ns"]["bins"].values())
            t.near(float(got[d]), total, "json+ bins of " + d)
        # --lat_percentiles=1 prints lat bins beside the clat ones: one histogram is kept, the
        # total latency's, each I/O counted once (the bins as fio wrote them, value and count)
        lp = os.path.join(FIX, "jsonplus_lat_percentiles.json")
        rc, _, err = bdb.call(db, "import", "--storage-class", "latpct", lp)
        t.eq(rc, 0, "import the lat_percentiles run: " + err)
        rc, out, err = bdb.call(db, "query", "--format", "csv",
                                "SELECT b.metric, b.value_ns, b.count FROM latency_bin b JOIN "
                                "result r ON r.id = b.result_id WHERE r.storage_class = 'latpct' "
                                "ORDER BY b.value_ns")
        got = [(m, float(v), float(c)) for m, v, c in (l.split(",") for l in out.splitlines()[1:])]
        lat = last_doc(lp)["jobs"][0]["read"]["lat_ns"]
        want = sorted(("lat", float(v), float(c)) for v, c in lat["bins"].items())
        t.eq(got, want, "one histogram, lat's bins as fio printed them")
        t.eq(sum(c for _, _, c in got), lat["N"], "each I/O counted once: %d" % lat["N"])
        # a job fio reports with an error is imported flagged, never as a plain zero result
        rc, out, err = bdb.call(db, "import", os.path.join(FIX, "job_error.json"))
        t.eq(rc, 0, "import a file whose job failed")
        bad = [r for r in bdb.export(db, t) if r["source"].endswith("job_error.json")]
        t.ok(len(bad) == 1 and bad[0]["error"] == 28, "error 28 kept on the result")
        # the same content again is skipped, not duplicated
        n = len(bdb.export(db, t))
        rc, out, err = bdb.call(db, "import", paths[0])
        t.eq(rc, 0, "re-import exit status")
        t.ok("already imported" in err, "re-import says already imported")
        t.eq(len(bdb.export(db, t)), n, "no duplicates after re-import")


def test_block_sizes():
    """A result's block size is its direction's: bs=4k,64k gives reads 4k and writes 64k (fio's
    HOWTO), which the file's own io_bytes / total_ios confirms per direction; sizes that vary
    (bsrange, a mixed direction of 8k reads and 16k writes) are unknown, never the first one."""
    want = {("bs_per_direction.json", "read"): 4096, ("bs_per_direction.json", "write"): 65536,
            ("bs_mixed_differ.json", "mixed"): None, ("bs_range.json", "read"): None}
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        names = sorted({n for n, _ in want})
        rc, out, err = bdb.call(db, "import", *[os.path.join(FIX, n) for n in names])
        t.eq(rc, 0, "import the block-size fixtures: " + err)
        got = {(os.path.basename(r["source"]), r["direction"]): r["bs_bytes"]
               for r in bdb.export(db, t)}
        t.eq(got, want, "block size per direction")
        job = last_doc(os.path.join(FIX, "bs_per_direction.json"))["jobs"][0]
        for d in ("read", "write"):
            t.eq(job[d]["io_bytes"] / job[d]["total_ios"], want[("bs_per_direction.json", d)],
                 "bs_per_direction.json: %s bytes per I/O in the file" % d)
        ranged = last_doc(os.path.join(FIX, "bs_range.json"))["jobs"][0]["read"]
        t.ok(ranged["io_bytes"] % ranged["total_ios"] != 0 or
             ranged["io_bytes"] // ranged["total_ios"] != 4096,
             "bs_range.json: its I/Os are not all 4k (%r)" % ranged["io_bytes"])


def test_bad_input():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        good = os.path.join(FIX, "unified_mixed.json")
        text = open(good).read()
        cut = os.path.join(tmp, "cut.json")
        open(cut, "w").write(text[: len(text) // 2])
        empty = os.path.join(tmp, "empty.json")
        open(empty, "w").close()
        nojson = os.path.join(tmp, "nojson.json")
        open(nojson, "w").write("hello\nworld\n")
        rc, out, err = bdb.call(db, "import", cut, good, empty, nojson)
        t.eq(rc, 1, "exit 1 when some input is rejected")
        lines = text[: len(text) // 2].split("\n")
        want = "%s:%d:%d: error: truncated JSON: unexpected end of file" % (
            cut, len(lines), len(lines[-1]) + 1)
        t.ok(want in err, "located truncation error: want %r in %r" % (want, err))
        t.ok("%s:1: error: empty file" % empty in err, "empty file error")
        t.ok("%s:1: error: unrecognized format" % nojson in err, "unknown format error")
        recs = bdb.export(db, t)
        t.eq(sorted({os.path.basename(r["source"]) for r in recs}), ["unified_mixed.json"],
             "only the good file is stored")
        rc, out, err = bdb.call(db, "query", "SELECT count(*) AS n FROM source_file", "--format",
                                "csv")
        t.eq(out.splitlines()[1], "1", "nothing of the bad files is stored")
        test_cut_series(tmp)
        test_each_file_located(tmp)


def job_object_lines(text):
    """The lines of the '{' and '}' of each object of the last document's "jobs" array, by a
    scan of the text that knows JSON strings (the importer's own scans are not used)."""
    start = [m.start() for m in re.finditer(r"(?m)^\{", text)]
    doc_start = max(i for i in start if json.JSONDecoder().raw_decode(text, i))
    line_at = lambda i: text.count("\n", 0, i) + 1
    depth, i, in_jobs, spans, key = 0, doc_start, False, [], None
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            key = text[i + 1:j]
            i = j
        elif c in "{[":
            if depth == 1 and c == "[" and key == "jobs":
                in_jobs = True
            elif in_jobs and depth == 2 and c == "{":
                spans.append([line_at(i), None])
            depth += 1
        elif c in "}]":
            depth -= 1
            if in_jobs and depth == 2 and c == "}":
                spans[-1][1] = line_at(i)
            elif in_jobs and depth == 1:
                in_jobs = False
            if depth == 0:
                break
        i += 1
    return [tuple(s) for s in spans]


def test_job_lines():
    """Each result cites its job object's lines, whichever parser read the document: the fast
    one (no escapes) or cJSON (escaped_desc.json's description has quotes)."""
    for name in ("two_jobs_fsync.json", "escaped_desc.json", "status_interval.json"):
        path = os.path.join(FIX, name)
        text = open(path).read()
        spans = job_object_lines(text)
        jobs = [j["jobname"] for j in last_doc(path)["jobs"]]
        p, recs = bdb.import_export(path)
        t.eq(p.returncode, 0, name + ": imported")
        t.ok(recs and len(spans) == len(jobs), name + ": its jobs found by the test's scan")
        for r in recs:
            want = spans[jobs.index(r["job"])]
            t.eq((r["line_first"], r["line_last"]), want,
                 "%s: %s/%s cites its job object" % (name, r["job"], r["direction"]))


def test_cut_series(tmp):
    """--status-interval output cut right after a report's '}' (before its line end): the
    interim report would be stored as the result."""
    text = open(os.path.join(FIX, "status_interval.json")).read()
    ends = []
    for m in re.finditer(r"(?m)^\{", text):
        if not ends or m.start() >= ends[-1]:
            ends.append(json.JSONDecoder().raw_decode(text, m.start())[1])
    t.ok(len(ends) > 2 and text[ends[1]] == "\n", "status_interval.json: reports end their line")
    cut = bdb.write(os.path.join(tmp, "si_cut.json"), text[:ends[1]])
    lines = text[:ends[1]].split("\n")
    bdb.rejects(t, cut, "%s:%d:%d: error: truncated --status-interval output: expected a line end "
                "after the last of 2 reports, got end of file" % (cut, len(lines), len(lines[-1]) + 1),
                whole_line=True)


def test_each_file_located(tmp):
    """Each of several files without JSON imported at once has its own located error (after
    the first error, one without fio's failure text was 'import failed', with no line)."""
    failed = os.path.join(os.environ["FIXTURES"], "fio_text", "engine_failed.txt")
    first = next((k, l) for k, l in enumerate(open(failed).read().split("\n"), 1)
                 if l.startswith("fio: "))
    paths = [bdb.write(os.path.join(tmp, n), "%s\nworld\n" % n) for n in ("a.txt", "b.txt")]
    rc, out, err = bdb.call(os.path.join(tmp, "located.sqlite"), "import", "--format", "fio-json",
                            failed, *paths)
    t.eq(rc, 1, "fio-json files without JSON: exit status")
    for want in ["%s:%d: error: fio run failed: %s" % (failed, first[0], first[1][5:])] + [
            "%s:1: error: expected fio JSON output (a line starting with '{')" % p for p in paths]:
        t.ok(want in err.splitlines(), "located error %r in %r" % (want, err))


test_examples_and_report()
test_special_fixtures()
test_block_sizes()
test_job_lines()
test_bad_input()
sys.exit(t.done())
