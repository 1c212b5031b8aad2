#!/usr/bin/python3
"""report --format html: escaping of hostile host, job and storage-class names, the comparison
table and the SVG bars against means and standard deviations computed here from the raw fio
JSON of tests/fixtures/disk_tmpfs/ (IOPS beside the bandwidth, fsync rows, and the verdicts of
tests/tools/stats_ref.py: the log-ratio t-test with Holm's correction over the report, for the
significance classes and the wording), byte-identical output, --template overrides, and (when
chromium is installed) the page as a browser renders it."""
import glob, json, math, os, re, shutil, statistics, subprocess, sys, tempfile
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

import stats_ref  # noqa: E402

SRC = os.environ["SRCDIR"]
EXAMPLES = os.path.join(SRC, "tests", "fixtures", "disk_tmpfs")
HOSTILE = os.path.join(os.environ["FIXTURES"], "report", "hostile_jobs.json")
SCRIPT_HOST = "<script>alert(1)</script>"
IMG_CLASS = "<img src=x onerror=alert(1)>"
t = Checks("report_html")

# workload names as the report documents them: rw, block size, sync, buffered (direct=0)
RW = {"randread": "Random Read", "read": "Sequential Read", "write": "Sequential Write"}
# the compared metrics: (key in job_values, higher is better, better, worse); IOPS is no row
# of its own where the bandwidth is known: it is shown beside it
METRICS = {"Bandwidth": ("bw_bytes", True, "faster", "slower"),
           "Mean latency": ("lat_mean", False, "lower latency", "higher latency"),
           "p99 latency": ("clat_p99", False, "lower p99 latency", "higher p99 latency"),
           "fsync latency": ("sync_mean", False, "lower fsync latency", "higher fsync latency"),
           "fsync p99 latency": ("sync_p99", False, "lower fsync p99 latency",
                                 "higher fsync p99 latency")}


def job_values(path):
    job = json.load(open(path))["jobs"][0]
    o = job["job options"]
    d = "read" if "read" in o["rw"] else "write"
    x = job[d]
    name = "%s %s%s buffered" % (RW[o["rw"]], o["bs"].upper(), " sync" if "fsync" in o else "")
    vals = {"bw_bytes": x["bw_bytes"], "iops": x["iops"], "lat_mean": x["lat_ns"]["mean"],
            "clat_p99": x["clat_ns"]["percentile"]["99.000000"]}
    if o.get("fsync", "0") != "0" and job["sync"]["total_ios"]:  # fsync=1: the fsync() calls
        vals["sync_mean"] = job["sync"]["lat_ns"]["mean"]
        vals["sync_p99"] = job["sync"]["lat_ns"]["percentile"]["99.000000"]
    vals["suspects"] = stats_ref.fio_suspects(job, d)
    return name, vals


SUSPECTS = {}  # {workload: {side: [caution words of each run]}}, filled by expected()


def expected():
    """({(workload, metric label): {side: [values]}}, {workload: {side: [IOPS]}}) from the raw
    example files: a metric only where the job measured it."""
    out, iops = {}, {}
    for side in ("disk", "tmpfs"):
        for f in sorted(glob.glob(os.path.join(EXAMPLES, side, "*.json"))):
            name, vals = job_values(f)
            iops.setdefault(name, {}).setdefault(side, []).append(vals["iops"])
            SUSPECTS.setdefault(name, {}).setdefault(side, []).append(vals["suspects"])
            for label, (key, *_) in METRICS.items():
                if key in vals:
                    out.setdefault((name, label), {}).setdefault(side, []).append(vals[key])
    return out, iops


def human(v, unit):
    """A value as the report writes it: three significant digits of its human unit (binary
    prefixes for bytes/s, decimal for latencies), IOPS as 412, 6.6k, 264k."""
    if unit == "IOPS":
        i = max(i for i in range(3) if i == 0 or v >= 1e3 ** i)
        x = v / 1e3 ** i
        return "%.*f%s" % (0 if v < 1e3 or x >= 100 else 1, x, ["", "k", "M"][i])
    if unit == "bytes/s":
        names, base = ["B/s", "KiB/s", "MiB/s", "GiB/s"], 1024
    else:
        names, base = ["ns", "µs", "ms", "s"], 1000
    i = max(i for i in range(4) if i == 0 or v >= base ** i)
    x = v / base ** i
    return "%.*f %s" % (0 if x >= 100 else 1 if x >= 10 else 2, x, names[i])


class Page(HTMLParser):
    """Tables (cells with their attributes and text) and SVG figures of a page."""

    def __init__(self):
        super().__init__()
        self.tables, self.charts, self.cell, self.value = {}, [], None, None
        self.figure = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.rows = self.tables.setdefault(a.get("data-table"), [])
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = [a, ""]
            self.rows[-1].append(self.cell)
        elif tag == "figure":
            self.figure = a
        elif tag == "svg":
            self.charts.append({"label": a.get("aria-label"), "bars": [], "values": [],
                                "figure": self.figure})
        elif tag == "rect" and a.get("class") == "bar":
            self.charts[-1]["bars"].append(a)
        elif tag == "text" and self.charts and a.get("font-size") == "10" and \
                "text-anchor" not in a:  # the value printed after a bar
            self.value = [a, ""]
            self.charts[-1]["values"].append(self.value)

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.cell = None
        elif tag == "text":
            self.value = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data
        elif self.value is not None:
            self.value[1] += data


def check_comparison(page, exp, iops):
    rows = page.tables.get("comparison", [])
    t.eq([c[1] for c in rows[0]], ["Workload", "Metric", "disk (baseline)", "tmpfs",
                                   "tmpfs vs disk"], "comparison header")
    t.eq(sorted((r[0][1], r[1][1]) for r in rows[1:]), sorted(exp),
         "comparison rows: no IOPS row beside bandwidth, fsync rows for the fsync job")
    # one family: every test of the report, Holm-corrected together
    verdicts = stats_ref.family({k: (v["disk"], v["tmpfs"]) for k, v in exp.items()})
    for row in rows[1:]:
        key = (row[0][1], row[1][1])
        if not t.ok(key in exp, "expected workload/metric %r" % (key,)):
            continue
        base, cand = exp[key]["disk"], exp[key]["tmpfs"]
        t.near(float(row[2][0]["data-value"]), statistics.mean(base), "%r disk" % (key,))
        t.near(float(row[3][0]["data-value"]), statistics.mean(cand), "%r tmpfs" % (key,))
        _, higher, better_word, worse_word = METRICS[key[1]]
        unit = "bytes/s" if key[1] == "Bandwidth" else "ns"
        for cell, side, vals in ((row[2], "disk", base), (row[3], "tmpfs", cand)):
            t.ok(cell[1].startswith(human(statistics.mean(vals), unit) + " ± " +
                                    human(statistics.stdev(vals), unit)) and "n=3" in cell[1],
                 "%r %s shows mean ± sd and n: %r" % (key, side, cell[1]))
            alt = " %s IOPS" % human(statistics.mean(iops[key[0]][side]), "IOPS")
            if key[1] == "Bandwidth":
                t.ok(cell[1].endswith(alt), "%r %s: IOPS beside it %r: %r" % (key, side, alt,
                                                                              cell[1]))
            else:
                t.ok("IOPS" not in cell[1], "%r %s: no IOPS beside it: %r" % (key, side, cell[1]))
        verdict, p_adj, p, lo, hi = verdicts[key]
        factor = statistics.mean(cand) / statistics.mean(base)
        if not higher:
            factor, lo, hi = 1 / factor, 1 / hi, 1 / lo
        t.near(float(row[4][0]["data-value"]), factor, "%r factor" % (key,))
        t.near(float(row[4][0]["data-lo"]), lo, "%r factor interval low" % (key,))
        t.near(float(row[4][0]["data-hi"]), hi, "%r factor interval high" % (key,))
        caution = stats_ref.caution([(s, SUSPECTS[key[0]][s]) for s in ("disk", "tmpfs")])
        # colour only for a clean significant verdict: a caution casts doubt on the number
        want = {"significant": "sig caution" if caution else
                "sig better" if factor > 1 else "sig worse",
                "equivalent": "equivalent"}.get(verdict, "ns")
        t.eq(row[4][0]["class"], "factor " + want,
             "%r factor class (p=%.3g, Holm %.3g)" % (key, p, p_adj))
        t.eq(row[4][1],
             stats_ref.phrase(factor, lo, hi, verdict, better_word, worse_word, base, cand,
                              stats_ref.resolution(key)) +
             caution,
             "%r factor wording" % (key,))


def human_unit(metric, top):
    """The unit the axis should use for its largest bar end (binary prefixes, as fio)."""
    if metric == "Bandwidth":
        names = ["B/s", "KiB/s", "MiB/s", "GiB/s"]
        return names[max(i for i in range(4) if i == 0 or top >= 1024 ** i)]
    return ["ns", "µs", "ms", "s"][max(i for i in range(4) if i == 0 or top >= 1e3 ** i)]


def check_charts(page, exp):
    # one chart per compared metric, in the table's order: the fsync ones too, although their
    # tmpfs bars (737 ns against 2.46 ms) are thinner than a pixel: every bar is drawn (a reader
    # must not be left to guess whether a side is missing) and its value is printed beside it,
    # inside the drawing, so the small side still reads
    t.eq([c["label"].split(" (")[0] for c in page.charts], list(METRICS), "one chart per metric")
    for chart in page.charts:
        metric = chart["label"].split(" (")[0]
        mine = {k: v for k, v in exp.items() if k[1] == metric}
        t.eq(len(chart["bars"]), 2 * len(mine), metric + " bars")
        top = max(statistics.mean(v) + statistics.stdev(v) for e in mine.values()
                  for v in e.values())
        means = [statistics.mean(v) for e in mine.values() for v in e.values()]
        # issue 14: a log axis exactly when the values span more than 100x
        log = max(means) / min(means) > 100
        t.eq(chart["figure"].get("data-kind"), "bars", metric + ": data-kind")
        t.eq(chart["figure"].get("data-scale"), "log" if log else None, metric + ": data-scale")
        t.eq(chart["label"], "%s (log scale)" % metric if log else
             "%s (%s)" % (metric, human_unit(metric, top)), "axis label")
        decade = math.floor(math.log10(min(means)))  # a log axis starts at a whole decade
        length = (lambda v: math.log10(v) - decade) if log else (lambda v: v)
        scale = None
        for bar in chart["bars"]:
            side = "disk" if bar["data-side"] == "disk (baseline)" else bar["data-side"]
            value = float(bar["data-value"])
            match = [v[side] for v in mine.values() if abs(statistics.mean(v[side]) - value)
                     <= 1e-6 * value]
            if not t.eq(len(match), 1, "%s bar %s=%g is one workload's mean" % (metric, side,
                                                                                 value)):
                continue
            t.near(float(bar["data-sd"]), statistics.stdev(match[0]), metric + " bar sd")
            t.eq(bar["data-n"], "3", metric + " bar n")
            t.ok(float(bar["width"]) > 0, "%s bar %s=%g drawn" % (metric, side, value))
            width = float(bar["width"])
            scale = scale or width / length(value)
            if width > 5:  # bar lengths are proportional to the values (or their logs)
                t.near(width / length(value) / scale, 1.0, metric + " bar length")
            lo, hi = stats_ref.mean_ci(match[0])
            t.near(float(bar["data-lo"]), lo, metric + " bar 95 % interval low")
            t.near(float(bar["data-hi"]), hi, metric + " bar 95 % interval high")
        unit = "bytes/s" if metric == "Bandwidth" else "ns"
        t.eq([v[1] for v in chart["values"]],
             [human(float(b["data-value"]), unit) for b in chart["bars"]],
             metric + ": every bar's value printed beside it")
        t.ok(all(0 < float(v[0]["x"]) < 760 - 8 * len(v[1]) for v in chart["values"]),
             metric + ": the printed values are inside the drawing")


def check_network_chart(tmp):
    """A report with storage and network bandwidth (iperf, in bit/s): the two units never share
    an axis: the network rows get a Bandwidth chart of their own, in Gbit/s, with iperf's own
    bits_per_second, and the storage chart keeps only the fio rows."""
    db = os.path.join(tmp, "net.sqlite")
    raw = os.path.join(os.environ["FIXTURES"], "iperf", "iperf3_tcp.json")
    end = json.load(open(raw))["end"]
    bits = sorted([end["sum_sent"]["bits_per_second"], end["sum_received"]["bits_per_second"]])
    for side in ("disk", "tmpfs"):
        files = sorted(glob.glob(os.path.join(EXAMPLES, side, "seq*.json")))
        copy = os.path.join(tmp, "iperf-%s.json" % side)  # other bytes: stored once per side
        with open(copy, "w") as f:
            f.write(open(raw).read() + "\n" * (side == "tmpfs"))
        rc, _, err = bdb.call(db, "import", "--storage-class", side, *files, copy)
        t.eq(rc, 0, "import fio and iperf on %s: %s" % (side, err))
    rc, html, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--format", "html")
    t.eq(rc, 0, "report with network bandwidth " + err)
    page = Page()
    page.feed(html)
    bw = {c["label"]: c for c in page.charts if c["label"].startswith("Bandwidth (")}
    t.eq(sorted(bw), sorted(["Bandwidth (GiB/s)", "Bandwidth (Gbit/s)"]),
         "storage and network bandwidth in charts of their own")
    net = bw.get("Bandwidth (Gbit/s)", {"bars": []})["bars"]
    t.eq(len(net), 2, "network chart: the iperf3 stream on both sides")
    for bar in net:
        want = [b for b in bits if abs(float(bar["data-value"]) - b) <= 1e-6 * b]
        t.eq(len(want), 1, "network bar %s is iperf's bits_per_second" % bar["data-value"])
    storage = bw.get("Bandwidth (GiB/s)", {"bars": []})["bars"]
    t.eq(len(storage), 4, "storage chart: the two fio workloads on both sides")
    t.ok(all(float(b["data-value"]) < 4e9 for b in storage), "no network rate among storage bars")


def check_escaping(html, what):
    t.ok("<script" not in html, what + ": no <script element")
    t.ok("<img" not in html and "<b>" not in html, what + ": no injected elements")
    t.ok("onerror=alert" not in html.replace("&lt;img src=x onerror=alert(1)&gt;", ""),
         what + ": onerror only inside escaped text")


def chromium(path, tmp):
    exe = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(exe):
        print("note: chromium is not installed: skipping the browser checks")
        return
    base = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    prof = tempfile.mkdtemp(dir=tmp)
    p = subprocess.run(base + ["--user-data-dir=" + prof, "--dump-dom", "file://" + path],
                       capture_output=True, text=True, timeout=120)
    t.eq(p.returncode, 0, "chromium --dump-dom")
    dom = Page()
    dom.feed(p.stdout)
    t.eq(len(dom.tables.get("comparison", [])), 15, "DOM: comparison table rows")
    t.eq(len(dom.charts), 5, "DOM: svg charts")
    t.eq([len(c["bars"]) for c in dom.charts], [8, 8, 8, 2, 2], "DOM: bars per chart")
    t.ok("<script" not in p.stdout, "DOM: no script element")
    shot = os.path.join(tmp, "out.png")
    prof = tempfile.mkdtemp(dir=tmp)
    p = subprocess.run(base + ["--user-data-dir=" + prof, "--screenshot=" + shot,
                               "--window-size=1280,2000", "file://" + path],
                       capture_output=True, text=True, timeout=120)
    t.eq(p.returncode, 0, "chromium --screenshot")
    t.ok(os.path.exists(shot) and open(shot, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
         "screenshot is a PNG")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        bdb.import_examples(db, checks=t)
        # a randwrite 8K workload: not in tests/fixtures/disk_tmpfs/, so it is listed as run on one side only
        rc, _, err = bdb.call(db, "import", "--storage-class", "disk", "--host", SCRIPT_HOST,
                              HOSTILE)
        t.eq(rc, 0, "import hostile " + err)
        copy = os.path.join(tmp, "copy.json")  # other bytes, so it is stored once more
        with open(copy, "w") as f:
            f.write(open(os.path.join(EXAMPLES, "tmpfs", "randread-1.json")).read() + "\n")
        rc, _, err = bdb.call(db, "import", "--storage-class", IMG_CLASS, copy)
        t.eq(rc, 0, "import copy " + err)

        out = os.path.join(tmp, "r.html")
        rc, _, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "-o", out)
        t.eq(rc, 0, "report -o r.html " + err)
        html = open(out, encoding="utf-8").read()
        t.ok(html.startswith("<!DOCTYPE html>"), "HTML5 doctype")
        t.ok("&lt;script&gt;alert(1)&lt;/script&gt;" in html, "hostile host shown as text")
        check_escaping(html, "disk vs tmpfs")
        t.ok("<style>" in html and "overflow-wrap: anywhere" in html, "inline style")
        t.ok(not re.search(r"<(link|img|iframe)\b|src=\"http|href=\"http", html),
             "nothing fetched")
        page = Page()
        page.feed(html)
        exp, iops = expected()
        check_comparison(page, exp, iops)
        check_charts(page, exp)
        check_network_chart(tmp)
        unmatched = page.tables.get("unmatched", [])
        t.ok(any(r[0][1].startswith("Random Write 8K") for r in unmatched[1:]),
             "hostile fixture's workload listed as unmatched")

        rc, out2, _ = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--format", "html")
        t.eq(out2, html, "byte-identical on a second run (stdout)")

        rc, h2, err = bdb.call(db, "report", "--compare", "disk", IMG_CLASS, "--format", "html")
        t.eq(rc, 0, "report with hostile storage class " + err)
        check_escaping(h2, "disk vs <img>")
        t.ok('data-side="&lt;img src=x onerror=alert(1)&gt;"' in h2, "hostile side escaped in svg")

        tdir = os.path.join(tmp, "tpl")
        os.mkdir(tdir)
        with open(os.path.join(tdir, "style.css"), "w") as f:
            f.write("body { color: rebeccapurple }\n")
        rc, h3, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--format", "html",
                               "--template", tdir)
        t.eq(rc, 0, "--template with style.css only " + err)
        t.ok("rebeccapurple" in h3 and "overflow-wrap" not in h3, "style.css from --template")
        t.ok("<main>" in h3, "report.html falls back to the built-in one")
        with open(os.path.join(tdir, "report.html"), "w") as f:
            f.write("<html>\n{{title}}\n{{nope}}\n</html>\n")
        rc, _, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--format", "html",
                              "--template", tdir)
        t.eq(rc, 1, "unknown placeholder exit status")
        t.ok("report.html:3:1: error: unknown placeholder '{{nope}}'" in err, "message: " + err)

        rc, _, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "--format", "pdf")
        t.eq(rc, 2, "unknown format is a usage error")
        chromium(out, tmp)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
