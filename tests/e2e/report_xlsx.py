#!/usr/bin/python3
"""report --format xlsx, read back with openpyxl: sheets, Runs and Results equal to the
database (benchdb query --format csv), comparison values against the raw example fio JSON
(bandwidth with its IOPS column, latencies, fsync latencies, and the verdicts of
tests/tools/stats_ref.py: the log-ratio t-test with Holm's correction over the report), one
native chart per compared metric, number formats, conditional formats, frozen headers, autofilters, hostile job names stored
as strings (never formulas), identical sheet XML on a second render, -o required, and (when
LibreOffice is installed) conversion to csv and pdf. Issue 14: each bar series carries custom
error bars (errValType cust) whose plus/minus ranges hold the 95 % t-intervals of the means,
computed here with scipy from the raw files, in hidden helper columns; LibreOffice reads them
as cell-range error bars."""
import csv, glob, io, json, math, os, re, shutil, statistics, subprocess, sys, tempfile, zipfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

import openpyxl  # noqa: E402
from scipy import stats as sps  # noqa: E402

import stats_ref  # noqa: E402

EXAMPLES = os.path.join(os.environ["SRCDIR"], "tests", "fixtures", "disk_tmpfs")
HOSTILE = os.path.join(os.environ["FIXTURES"], "report", "hostile_jobs.json")
t = Checks("report_xlsx")


RUNS_SQL = """SELECT run.id AS run_id, s.path AS source, s.format, s.sha256, run.tool,
 run.tool_version, (SELECT group_concat(DISTINCT host) FROM result WHERE run_id = run.id) AS hosts,
 (SELECT group_concat(DISTINCT storage_class) FROM result WHERE run_id = run.id)
 AS storage_classes, (SELECT group_concat(DISTINCT sec) FROM result WHERE run_id = run.id) AS sec,
 (SELECT group_concat(DISTINCT mount_options) FROM v_result WHERE run_id = run.id)
 AS mount_options, (SELECT group_concat(DISTINCT fstype) FROM v_result WHERE run_id = run.id)
 AS fstype, (SELECT group_concat(DISTINCT mount_source) FROM v_result WHERE run_id = run.id)
 AS mount_source, (SELECT count(*) FROM result WHERE run_id = run.id) AS results,
 strftime('%Y-%m-%dT%H:%M:%SZ', run.started_at, 'unixepoch') AS started_at,
 s.imported_at, run.command_line
 FROM run JOIN source_file s ON s.id = run.source_id ORDER BY run.id"""
METRICS = ["bw_bytes_s", "iops", "lat_mean_ns", "clat_mean_ns", "clat_p50_ns", "clat_p99_ns",
           "clat_p99_9_ns", "lat_max_ns", "io_bytes", "runtime_ms"]
RESULTS_SQL = ("SELECT v.result_id, v.run_id, host, storage_class, sec, mount_options, job,"
               " direction, rw, bs_bytes, iodepth, numjobs, direct, sync, fsync, ioengine, error,"
               " error_msg, " + ", ".join("(SELECT value FROM metric m WHERE m.result_id ="
                                          " v.result_id AND m.name = '%s') AS %s" % (m, m)
                                          for m in METRICS) +
               " FROM v_result v ORDER BY v.result_id")


def query(db, sql):
    rc, out, err = bdb.call(db, "query", "--format", "csv", sql)
    t.eq(rc, 0, "query " + err)
    rows = list(csv.reader(io.StringIO(out)))
    return rows[0], rows[1:]


def same(cell, text):
    """A sheet value against benchdb's CSV text of the same database value."""
    if text == "":
        return cell is None
    if isinstance(cell, (int, float)):
        return abs(cell - float(text)) <= 1e-9 * max(1.0, abs(cell))
    return cell == text.lstrip("'") if text[:2] in ("'=", "'+", "'-", "'@") else cell == text


def check_sheet_equals_db(wb, name, db, sql):
    ws = wb[name]
    cols, rows = query(db, sql)
    got = [[c.value for c in r] for r in ws.iter_rows()]
    t.eq(got[0], cols, name + " header")
    t.eq(len(got) - 1, len(rows), name + " row count")
    for i, (g, w) in enumerate(zip(got[1:], rows)):
        for c, (gv, wv) in enumerate(zip(g, w)):
            t.ok(same(gv, wv), "%s row %d %s: got %r, want %r" % (name, i + 1, cols[c], gv, wv))
    t.eq(ws.freeze_panes, "A2", name + " header frozen")
    t.eq(ws.auto_filter.ref, "A1:%s%d" % (openpyxl.utils.get_column_letter(len(cols)),
                                         len(rows) + 1), name + " autofilter")


# the compared metrics, in the table's order: (higher is better, sheet unit, its number format)
METRIC_UNITS = {"Bandwidth": (True, 1048576, '#,##0.0 "MiB/s"'),
                "Mean latency": (False, 1e3, '#,##0.00 "µs"'),
                "p99 latency": (False, 1e3, '#,##0.00 "µs"'),
                "fsync latency": (False, 1e3, '#,##0.00 "µs"'),
                "fsync p99 latency": (False, 1e3, '#,##0.00 "µs"')}
WORDS = {"Bandwidth": ("faster", "slower"), "Mean latency": ("lower latency", "higher latency"),
         "p99 latency": ("lower p99 latency", "higher p99 latency"),
         "fsync latency": ("lower fsync latency", "higher fsync latency"),
         "fsync p99 latency": ("lower fsync p99 latency", "higher fsync p99 latency")}
RW = {"randread": "Random Read", "read": "Sequential Read", "write": "Sequential Write"}


def example_values():
    """({(workload, metric): {side: [base-unit values]}}, {workload: {side: [IOPS]}}) from the
    raw example files; the fsync rows from job["sync"] of the fsync=1 jobs."""
    acc, iops = {}, {}
    for side in ("disk", "tmpfs"):
        for f in sorted(glob.glob(os.path.join(EXAMPLES, side, "*.json"))):
            job = json.load(open(f))["jobs"][0]
            o = job["job options"]
            d = "read" if "read" in o["rw"] else "write"
            x = job[d]
            name = "%s %s%s buffered" % (RW[o["rw"]], o["bs"].upper(),
                                         " sync" if "fsync" in o else "")
            vals = {"Bandwidth": x["bw_bytes"], "Mean latency": x["lat_ns"]["mean"],
                    "p99 latency": x["clat_ns"]["percentile"]["99.000000"]}
            if o.get("fsync", "0") != "0" and job["sync"]["total_ios"]:
                vals["fsync latency"] = job["sync"]["lat_ns"]["mean"]
                vals["fsync p99 latency"] = job["sync"]["lat_ns"]["percentile"]["99.000000"]
            for metric, v in vals.items():
                acc.setdefault((name, metric), {}).setdefault(side, []).append(v)
            iops.setdefault(name, {}).setdefault(side, []).append(x["iops"])
            SUSPECTS.setdefault(name, {}).setdefault(side, []).append(
                stats_ref.fio_suspects(job, d))
    return acc, iops


SUSPECTS = {}  # {workload: {side: [caution words of each run]}}, filled by example_values()


def check_comparison(wb):
    ws = wb["Comparison"]
    head = [c.value for c in ws[1]]
    # a value column spreads over value, sd, n and (where IOPS is shown beside it) IOPS
    t.eq(head, ["Workload", "Metric",
                "disk (baseline)", "disk (baseline) sd", "disk (baseline) n",
                "disk (baseline) IOPS", "tmpfs", "tmpfs sd", "tmpfs n", "tmpfs IOPS",
                "tmpfs vs disk", "tmpfs vs disk 95% CI low", "tmpfs vs disk 95% CI high",
                "tmpfs vs disk verdict"], "comparison header")
    t.eq(ws.freeze_panes, "C2", "comparison: header and names frozen")
    exp, iops = example_values()
    t.eq(ws.auto_filter.ref, "A1:N%d" % (len(exp) + 1), "comparison autofilter")
    got = [(r[0].value, r[1].value) for r in ws.iter_rows(min_row=2)]
    t.eq(sorted(got), sorted(exp), "one row per workload and metric (no IOPS row, fsync rows)")
    verdicts = stats_ref.family({k: (v["disk"], v["tmpfs"]) for k, v in exp.items()})
    seen = 0
    for row in ws.iter_rows(min_row=2):
        key = (row[0].value, row[1].value)
        if not t.ok(key in exp, "expected workload/metric %r" % (key,)):
            continue
        higher, div, fmt = METRIC_UNITS[key[1]]
        for col, side in ((2, "disk"), (6, "tmpfs")):
            vals = exp[key][side]
            t.near(row[col].value, statistics.mean(vals) / div, "%r %s" % (key, side))
            t.eq(row[col].number_format, fmt, "%r %s: number format shows unit" % (key, side))
            t.near(row[col + 1].value, statistics.stdev(vals) / div, "%r %s sd" % (key, side))
            t.eq(row[col + 1].number_format, fmt, "%r %s: sd in the unit" % (key, side))
            t.eq(row[col + 2].value, 3, "%r %s n" % (key, side))
            if key[1] == "Bandwidth":
                t.near(row[col + 3].value, statistics.mean(iops[key[0]][side]),
                       "%r %s: IOPS beside it" % (key, side))
                t.eq(row[col + 3].number_format, '#,##0 "IOPS"', "IOPS format")
            else:
                t.eq(row[col + 3].value, None, "%r %s: no IOPS beside it" % (key, side))
        verdict, p_adj, p, lo, hi = verdicts[key]
        factor = statistics.mean(exp[key]["tmpfs"]) / statistics.mean(exp[key]["disk"])
        if not higher:
            factor, lo, hi = 1 / factor, 1 / hi, 1 / lo
        t.near(row[10].value, factor, "%r factor" % (key,))
        t.eq(row[10].number_format, '0.00"x"', "factor format")
        t.near(row[11].value, lo, "%r interval low" % (key,))
        t.near(row[12].value, hi, "%r interval high" % (key,))
        # issue 14: a significant verdict says its direction ("2.60x faster"), in the words of
        # the metric; an inconclusive or equivalent one says what md and html say (issue 28:
        # the runs it needs); every one keeps the caution md and html give it
        caution = stats_ref.caution([(s, SUSPECTS[key[0]][s]) for s in ("disk", "tmpfs")])
        shown = verdict
        if verdict == "significant":
            up = factor >= 1
            f = factor if up else 1 / factor
            shown = "no difference (1.00x)" if f < 1.005 else "%sx %s" % (
                stats_ref.sig3(f), WORDS[key[1]][0 if up else 1])
        elif verdict in ("inconclusive", "equivalent"):
            shown = stats_ref.phrase(factor, lo, hi, verdict, *WORDS[key[1]],
                                     exp[key]["disk"], exp[key]["tmpfs"],
                                     stats_ref.resolution(key))
        t.eq(row[13].value, shown + caution, "%r verdict (p=%.3g, Holm %.3g)" % (key, p, p_adj))
        seen += 1
    t.eq(seen, 14, "every comparison row checked")
    last = len(exp) + 1
    rules = [(str(cf.sqref), r.formula[0]) for cf in ws.conditional_formatting for r in cf.rules]
    clean = 'AND(ISNUMBER(SEARCH("x ",$N2)),ISERROR(SEARCH("caution",$N2)),K2%s1)'
    t.eq(sorted(rules), sorted([("K2:K%d" % last, clean % ">"), ("K2:K%d" % last, clean % "<")]),
         "factor colours only significant changes (a verdict that names its direction) with "
         "no caution")


def check_charts(wb):
    """One native chart per compared metric (the fsync ones too), each over its data block:
    a title row "metric (unit)", the sides, a row per workload of that metric."""
    ws = wb["Charts"]
    t.eq(len(ws._charts), len(METRIC_UNITS), "one native chart per metric")
    exp, _ = example_values()
    titles = [r[0].value for r in ws.iter_rows() if isinstance(r[0].value, str) and
              r[0].value.endswith(")") and r[1].value is None]
    # issue 14: a chart whose values span more than 100x is drawn on a log axis, and says so
    want = []
    for metric in ["Bandwidth", "Mean latency", "p99 latency", "fsync latency",
                   "fsync p99 latency"]:
        means = [statistics.mean(v) for k, e in exp.items() if k[1] == metric for v in e.values()]
        unit = "MiB/s" if metric == "Bandwidth" else "µs"
        want.append("%s (%s%s)" % (metric, unit,
                                   ", log scale" if max(means) / min(means) > 100 else ""))
    t.eq(titles, want, "chart data blocks")
    rows = [[c.value for c in r] for r in ws.iter_rows()]
    for i, r in enumerate(rows):
        if r[0] not in titles:
            continue
        metric = r[0].split(" (")[0]
        t.eq(rows[i + 1][:3], ["Workload", "disk (baseline)", "tmpfs"], metric + " data header")
        mine = sorted(k[0] for k in exp if k[1] == metric)
        block = rows[i + 2:i + 2 + len(mine)]
        t.eq(sorted(b[0] for b in block), mine, metric + " chart workloads")
        div = METRIC_UNITS[metric][1]
        for b in block:
            for j, side in ((1, "disk"), (2, "tmpfs")):
                t.near(b[j], statistics.mean(exp[(b[0], metric)][side]) / div,
                       "%s chart %s %s" % (metric, b[0], side))


def check_print_and_axes(z):
    """issue 14: every sheet prints landscape, fitted to the page width, its first row repeated;
    no chart reverses its value axis, and a bar chart reverses its categories (the first
    workload on top) with the value axis crossing at their end (below the bars)."""
    sheets = sorted(n for n in z.namelist() if re.match(r"xl/worksheets/sheet\d+\.xml$", n))
    t.eq(len(sheets), 5, "five sheets")
    for n in sheets:
        x = z.read(n).decode()
        t.ok('<pageSetUpPr fitToPage="1"/>' in x, n + ": fitToPage")
        t.ok(re.search(r'<pageSetup [^>]*fitToHeight="0"[^>]*orientation="landscape"', x),
             n + ": one page wide, landscape")
    titles = re.findall(r'<definedName name="_xlnm.Print_Titles" localSheetId="(\d)">[^!]*!\$1:\$1<',
                        z.read("xl/workbook.xml").decode())
    t.eq(sorted(titles), ["0", "1", "2", "3", "4"], "print titles (row 1) on every sheet")
    charts = sorted(n for n in z.namelist() if n.startswith("xl/charts/chart"))
    t.eq(len(charts), len(METRIC_UNITS), "a chart part per metric")
    for n in charts:
        x = z.read(n).decode()
        val = re.search(r"<c:valAx>.*?</c:valAx>", x, re.S).group(0)
        cat = re.search(r"<c:catAx>.*?</c:catAx>", x, re.S).group(0)
        t.ok('<c:orientation val="minMax"/>' in val and 'val="maxMin"' not in val,
             n + ": value axis not reversed")
        t.ok('<c:axPos val="b"/>' in val and '<c:crosses val="max"/>' in val,
             n + ": value axis below the bars")
        t.ok('<c:orientation val="maxMin"/>' in cat, n + ": categories top to bottom")


REF = re.compile(r"^'?(.+?)'?!\$([A-Z]+)\$(\d+)(?::\$([A-Z]+)\$(\d+))?$")


def ref_cells(ws, ref):
    """The cells of a one-column range formula ('Charts'!$N$3:$N$6, or one cell) of sheet ws."""
    m = REF.match(ref)
    if not t.ok(m and m.group(2) == (m.group(4) or m.group(2)), "a one-column range: %r" % ref):
        return []
    return [ws["%s%d" % (m.group(2), r)]
            for r in range(int(m.group(3)), int(m.group(5) or m.group(3)) + 1)]


def half_width(values):
    """The 95 % t-interval's half-width of the mean of values."""
    n = len(values)
    return sps.t.ppf(0.975, n - 1) * statistics.stdev(values) / n ** 0.5


def check_error_bars(z, wb):
    """Every bar series (each side has 3 runs per workload) has custom error bars: plus and
    minus ranges beside its values whose cells hold the interval's half-widths in the chart's
    unit, in hidden columns; the chart caches the same numbers."""
    ws = wb["Charts"]
    exp, _ = example_values()
    charts = sorted((n for n in z.namelist() if re.match(r"xl/charts/chart\d+\.xml$", n)),
                    key=lambda n: int(re.search(r"(\d+)", n).group(1)))
    seen = 0
    for n in charts:
        x = z.read(n).decode()
        for ser in re.findall(r"<c:ser>.*?</c:ser>", x, re.S):
            side = ws[re.search(r"<c:tx><c:strRef><c:f>[^!]*!\$(\w+)\$(\d+)</c:f>", ser)
                      .expand(r"\1\2")]
            # the data block's title row ("Bandwidth (MiB/s)") is above the header row
            metric = ws.cell(side.row - 1, 1).value.split(" (")[0]
            bars = re.search(r"<c:errBars>(.*?)</c:errBars>", ser, re.S)
            if not t.ok(bars, "%s %s %s: error bars" % (n, metric, side.value)):
                continue
            b = bars.group(1)
            t.ok('<c:errBarType val="both"/><c:errValType val="cust"/><c:plus>' in b,
                 "%s: custom error bars in schema order" % n)
            workloads = ref_cells(ws, re.search(r"<c:cat>.*?<c:f>(.*?)</c:f>", ser, re.S)
                                  .group(1))
            div = METRIC_UNITS[metric][1]
            # an interval reaching below zero stops at zero, on a log axis at the power of ten
            # below the chart's smallest bar
            means = [statistics.mean(v) for (w, m), sides in exp.items() if m == metric
                     for v in sides.values()]
            floor = (10 ** math.floor(math.log10(min(m for m in means if m > 0)))
                     if "<c:logBase" in x else 0)
            for end in ("plus", "minus"):
                ref = re.search(r"<c:%s><c:numRef><c:f>(.*?)</c:f>" % end, b).group(1)
                cells = ref_cells(ws, ref.replace("&apos;", "'"))
                t.eq(len(cells), len(workloads), "%s %s: a length per bar" % (n, end))
                cache = [float(v) for v in re.findall(
                    r"<c:v>([^<]*)</c:v>",
                    re.search(r"<c:%s>.*?</c:%s>" % (end, end), b, re.S).group(0))]
                for i, (w, c) in enumerate(zip(workloads, cells)):
                    values = exp[(w.value, metric)][side.value.split(" ")[0]]
                    want = half_width(values)
                    if end == "minus":
                        want = min(want, statistics.mean(values) - floor)
                    want /= div
                    t.near(c.value, want, "%s %s %s %s" % (metric, w.value, side.value, end))
                    t.near(cache[i] if i < len(cache) else None, want, "%s cache" % end)
                    t.ok(any(d.hidden and d.min <= c.column <= d.max
                             for d in ws.column_dimensions.values()),
                         "helper column %s hidden" % c.column_letter)
                    seen += 1
    t.eq(seen, 2 * 2 * len(exp), "a plus and a minus per bar")


def check_libreoffice_error_bars(office, env, tmp, out):
    """LibreOffice reads the bars' error bars as cell ranges (its .ods says so)."""
    p = subprocess.run([office, "--headless", "--convert-to", "ods", "--outdir", tmp, out],
                       capture_output=True, text=True, timeout=300, env=env)
    t.eq(p.returncode, 0, "libreoffice --convert-to ods: " + p.stderr)
    with zipfile.ZipFile(os.path.join(tmp, "r.ods")) as z:
        objects = [n for n in z.namelist() if re.match(r"Object \d+/content\.xml$", n)]
        t.eq(len(objects), len(METRIC_UNITS), "a chart object per metric")
        for n in objects:
            x = z.read(n).decode()
            t.ok('chart:error-category="cell-range"' in x, n + ": error bars from cell ranges")
            for end in ("upper", "lower"):
                ranges = set(re.findall(r'chart:error-%s-range="(Charts\.[^"]*)"' % end, x))
                t.eq(len(ranges), 2, n + ": both sides' %s ends from the Charts sheet" % end)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        bdb.import_examples(db, checks=t)
        rc, _, err = bdb.call(db, "import", "--storage-class", "disk", "--host", "=HYPERLINK(1)",
                              HOSTILE)
        t.eq(rc, 0, "import hostile " + err)

        rc, _, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--format", "xlsx")
        t.eq(rc, 2, "xlsx without -o is a usage error")
        t.ok("-o FILE" in err, "message names -o: " + err)

        out = os.path.join(tmp, "r.xlsx")
        rc, _, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "-o", out)
        t.eq(rc, 0, "report -o r.xlsx " + err)
        wb = openpyxl.load_workbook(out)
        t.eq(wb.sheetnames, ["Summary", "Comparison", "Charts", "Runs", "Results"], "sheets")
        t.eq(wb["Summary"]["A1"].value, "Benchmark comparison: disk vs tmpfs", "title")
        t.eq(str(wb.properties.created), "2026-01-01 00:00:00", "created from SOURCE_DATE_EPOCH")
        check_comparison(wb)
        check_charts(wb)
        check_sheet_equals_db(wb, "Runs", db, RUNS_SQL)
        check_sheet_equals_db(wb, "Results", db, RESULTS_SQL)
        jobs = {c.value: c.data_type for c in wb["Results"]["G"]}
        for name in ("=1+2", "@SUM(A1)", "<b>x</b><script>alert(1)</script>"):
            t.eq(jobs.get(name), "s", "job %r stored as a string" % name)
        hosts = {c.data_type for c in wb["Results"]["C"] if c.value == "=HYPERLINK(1)"}
        t.eq(hosts, {"s"}, "host '=HYPERLINK(1)' stored as a string")
        with zipfile.ZipFile(out) as z:
            t.ok(not any("<f>" in z.read(n).decode() for n in z.namelist()
                         if n.startswith("xl/worksheets/")), "no cell formulas anywhere")
            check_print_and_axes(z)
            check_error_bars(z, wb)
            first = {n: z.read(n) for n in z.namelist()}

        out2 = os.path.join(tmp, "r2.xlsx")
        rc, _, _ = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--format", "xlsx", "-o",
                            out2)
        with zipfile.ZipFile(out2) as z:
            for n in z.namelist():
                t.ok(z.read(n) == first.get(n), "identical part " + n)
        t.ok(open(out, "rb").read() == open(out2, "rb").read(), "byte-identical file")

        rc, _, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "-o",
                              os.path.join(tmp, "no", "such", "dir.xlsx"))
        t.eq(rc, 3, "unwritable path: exit 3")
        t.ok(err.startswith("benchdb: error: cannot write") and "[ERROR]" not in err,
             "our message, not libxlsxwriter's: " + err)

        office = shutil.which("libreoffice") or shutil.which("soffice")
        if not office:
            print("note: LibreOffice is not installed: skipping the conversion checks")
            return t.done()
        env = dict(os.environ, HOME=tmp)
        for fmt in ("csv", "pdf"):
            p = subprocess.run([office, "--headless", "--convert-to", fmt, "--outdir", tmp, out],
                               capture_output=True, text=True, timeout=300, env=env)
            conv = os.path.join(tmp, "r." + fmt)
            t.ok(p.returncode == 0 and os.path.getsize(conv) > 0,
                 "libreoffice --convert-to %s: %s" % (fmt, p.stderr))
        check_libreoffice_error_bars(office, env, tmp, out)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
