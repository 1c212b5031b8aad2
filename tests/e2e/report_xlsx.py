#!/usr/bin/python3
"""report --format xlsx, read back with openpyxl: sheets, Runs and Results equal to the
database (benchdb query --format csv), comparison values against the raw example fio JSON,
number formats, conditional formats, frozen headers, autofilters, hostile job names stored
as strings (never formulas), identical sheet XML on a second render, -o required, and (when
LibreOffice is installed) conversion to csv and pdf."""
import csv, glob, io, json, os, shutil, statistics, subprocess, sys, tempfile, zipfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

import openpyxl  # noqa: E402

EXAMPLES = os.path.join(os.environ["SRCDIR"], "examples")
HOSTILE = os.path.join(os.environ["FIXTURES"], "report", "hostile_jobs.json")
t = Checks("report_xlsx")


RUNS_SQL = """SELECT run.id AS run_id, s.path AS source, s.format, s.sha256, run.tool,
 run.tool_version, (SELECT group_concat(DISTINCT host) FROM result WHERE run_id = run.id) AS hosts,
 (SELECT group_concat(DISTINCT storage_class) FROM result WHERE run_id = run.id)
 AS storage_classes, (SELECT group_concat(DISTINCT sec) FROM result WHERE run_id = run.id) AS sec,
 (SELECT group_concat(DISTINCT mount_options) FROM v_result WHERE run_id = run.id)
 AS mount_options, (SELECT count(*) FROM result WHERE run_id = run.id) AS results,
 strftime('%Y-%m-%dT%H:%M:%SZ', run.started_at, 'unixepoch') AS started,
 s.imported_at AS imported, run.command_line
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


def example_means():
    """{(side, rw, bs): (mean bw MiB/s, mean clat us)} from the raw example files."""
    acc = {}
    for side in ("disk", "tmpfs"):
        for f in glob.glob(os.path.join(EXAMPLES, side, "*.json")):
            job = json.load(open(f))["jobs"][0]
            o = job["job options"]
            x = job["read" if "read" in o["rw"] else "write"]
            key = (side, o["rw"], o["bs"].upper(), "fsync" in o)
            acc.setdefault(key, []).append((x["bw_bytes"] / 1048576, x["clat_ns"]["mean"] / 1e3))
    return {k: tuple(statistics.mean(v[i] for v in vs) for i in (0, 1)) for k, vs in acc.items()}


def check_comparison(wb):
    ws = wb["Comparison"]
    head = [c.value for c in ws[1]]
    t.eq(head[:3] + head[5:6] + head[8:9] + head[11:12],
         ["Workload", "Metric", "disk (baseline)", "tmpfs", "tmpfs vs disk",
          "tmpfs vs disk verdict"], "comparison header")
    t.eq(ws.freeze_panes, "C2", "comparison: header and names frozen")
    t.ok(ws.auto_filter.ref and ws.auto_filter.ref.startswith("A1:L"), "comparison autofilter")
    means = example_means()
    names = {"Random Read 4K buffered": ("randread", "4K", False),
             "Sequential Read 1M buffered": ("read", "1M", False),
             "Sequential Write 1M buffered": ("write", "1M", False),
             "Sequential Write 4K sync buffered": ("write", "4K", True)}
    seen = 0
    for row in ws.iter_rows(min_row=2):
        w, metric = row[0].value, row[1].value
        if w not in names or metric not in ("Bandwidth", "Mean latency"):
            continue
        i = 0 if metric == "Bandwidth" else 1
        for col, side in ((2, "disk"), (5, "tmpfs")):
            t.near(row[col].value, means[(side,) + names[w]][i], "%s %s %s" % (w, metric, side))
            t.eq(row[col].number_format,
                 '#,##0.0 "MiB/s"' if i == 0 else '#,##0.00 "µs"', "number format shows unit")
        t.eq(row[4].value, 3, "n")
        t.eq(row[8].number_format, '0.00"x"', "factor format")
        t.ok(row[11].value in ("significant", "not significant"), "verdict " + str(row[11].value))
        seen += 1
    t.eq(seen, 8, "bandwidth and latency rows checked")
    rules = [(str(cf.sqref), r.formula[0]) for cf in ws.conditional_formatting for r in cf.rules]
    t.eq(sorted(rules), sorted([("I2:I17", 'AND($L2="significant",I2>1)'),
                                ("I2:I17", 'AND($L2="significant",I2<1)')]),
         "factor colours only significant changes")


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
        t.eq(len(wb["Charts"]._charts), 4, "one native chart per metric")
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
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
