#!/usr/bin/python3
"""Charts of issue 14 on real fio json+ runs (tests/fixtures/charts/gen.sh): a random-read
queue-depth sweep 1..64 with two repeats on two sides (disk, shm) and a numjobs=2 job whose
threads benchdb merges. Computed here from the raw JSON, independently of benchdb:
- the percentile curves: each side's bins of every repeat and thread summed, percentiles by
  fio's rule, the weak flag (fewer than 10 samples expected beyond a percentile);
- the scaling curves: mean IOPS and completion latency per iodepth, p99 of the merged bins, the
  knee (docs/charts.md), Little's law (IOPS x mean total latency <= 1.25 x iodepth);
- the log axis exactly when a chart's values span more than 100x;
- in chromium (when installed): every chart kind drawn inside the page, no text outside its
  drawing, a non-empty screenshot of each."""
import glob, json, math, os, re, shutil, statistics, struct, subprocess, sys, tempfile, zlib
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ["FIXTURES"], "charts")
SIDES = ("disk", "shm")
PCTS = [50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99]
t = Checks("charts")


class Page(HTMLParser):
    """The figures (attributes, caption, points, marks) and tables of a report page."""

    def __init__(self):
        super().__init__()
        self.figures, self.tables, self.text, self.rows = [], {}, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self.figures.append({"attrs": a, "caption": "", "points": [], "marks": [],
                                 "bars": []})
        elif tag == "figcaption":
            self.text = "caption"
        elif tag == "circle" and "data-series" in a:
            self.figures[-1]["points"].append(a)
        elif tag == "rect" and a.get("class") == "bar":
            self.figures[-1]["bars"].append(a)
        elif tag == "g" and a.get("class") == "mark":
            self.figures[-1]["marks"].append(dict(a, label=""))
            self.text = "mark"
        elif tag == "table":
            self.rows = self.tables.setdefault(a.get("data-table"), [])
        elif tag == "tr" and self.rows is not None:
            self.rows.append([])
        elif tag in ("td", "th") and self.rows is not None:
            self.rows[-1].append(a)
            self.text = "cell"
            a["text"] = ""

    def handle_endtag(self, tag):
        if tag in ("figcaption", "g", "td", "th"):
            self.text = None
        elif tag == "table":
            self.rows = None

    def handle_data(self, data):
        if self.text == "caption":
            self.figures[-1]["caption"] += data
        elif self.text == "mark":
            self.figures[-1]["marks"][-1]["label"] += data
        elif self.text == "cell":
            self.rows[-1][-1]["text"] += data


def jobs(path):
    return json.load(open(path))["jobs"]


def fio_percentile(bins, pct):
    """fio's calc_clat_percentiles: the first bin whose cumulative count reaches pct %."""
    total, run = sum(c for _, c in bins), 0
    for ns, c in bins:
        run += c
        if run >= pct / 100 * total:
            return ns
    return bins[-1][0]


def merged(files):
    """The read clat bins of every job (thread) of every file, summed per latency."""
    acc = {}
    for f in files:
        for j in jobs(f):
            for ns, c in j["read"]["clat_ns"]["bins"].items():
                acc[int(ns)] = acc.get(int(ns), 0) + c
    return sorted(acc.items())


def workloads():
    """{workload name: {side: files}} of the fixtures, named as benchdb names workloads."""
    out = {}
    for side in SIDES:
        for f in glob.glob(os.path.join(FIX, "sweep", side, "*.json")):
            qd = int(re.search(r"qd(\d+)_", f).group(1))
            name = "Random Read 4K" + (" QD%d" % qd if qd > 1 else "")
            out.setdefault(name, {}).setdefault(side, []).append(f)
        for f in glob.glob(os.path.join(FIX, "threads", side, "*.json")):
            out.setdefault("Random Read 4K QD4 x2 jobs", {}).setdefault(side, []).append(f)
    return out


def check_percentiles(page):
    figs = {f["caption"]: f for f in page.figures if f["attrs"].get("data-kind") == "percentiles"}
    wl = workloads()
    t.eq(sorted(figs), sorted("Latency percentiles: " + w for w in wl),
         "a percentile chart per compared workload")
    for name, sides in wl.items():
        fig = figs.get("Latency percentiles: " + name)
        if not fig:
            continue
        t.eq(fig["attrs"].get("data-scale"), "log", name + ": latency on a log axis")
        for side, files in sides.items():
            bins = merged(files)
            total = sum(c for _, c in bins)
            pts = {float(p["data-x"]): p for p in fig["points"] if p["data-series"] == side}
            t.eq(sorted(pts), PCTS, "%s %s: the percentiles drawn" % (name, side))
            for pct in PCTS:
                p = pts.get(pct)
                if p is None:
                    continue
                t.eq(float(p["data-y"]), fio_percentile(bins, pct),
                     "%s %s p%g from the merged bins" % (name, side, pct))
                weak = total * (1 - pct / 100) < 10
                t.eq("weak" in p["class"], weak, "%s %s p%g weak (%d samples)" %
                     (name, side, pct, total))


def check_markdown(md):
    """The percentile curves as Markdown tables: a row per percentile, weak values marked."""
    for name, sides in workloads().items():
        block = md.split("**Latency percentiles: %s**" % name)
        t.eq(len(block), 2, name + ": one percentile table in Markdown")
        if len(block) != 2:
            continue
        rows = [r for r in block[1].split("\n\n")[1].splitlines() if r.startswith("| p")]
        t.eq([r.split(" |")[0][2:] for r in rows], ["p%g" % p for p in PCTS], name + ": rows")
        for row, pct in zip(rows, PCTS):
            cells = [c.strip() for c in row.strip("|").split("|")][1:]
            for cell, side in zip(cells, ("disk", "shm")):
                total = sum(c for _, c in merged(sides[side]))
                t.eq(cell.endswith("(few samples)"), total * (1 - pct / 100) < 10,
                     "%s %s p%g marked weak in Markdown" % (name, side, pct))


def sweep_points(side):
    """[(iodepth, IOPS, mean total latency, p99 of merged bins, in flight)] in sweep order."""
    by_qd = {}
    for f in glob.glob(os.path.join(FIX, "sweep", side, "*.json")):
        by_qd.setdefault(int(re.search(r"qd(\d+)_", f).group(1)), []).append(f)
    out = []
    for qd in sorted(by_qd):
        rd = [jobs(f)[0]["read"] for f in by_qd[qd]]
        iops = statistics.mean(r["iops"] for r in rd)
        lat = statistics.mean(r["lat_ns"]["mean"] for r in rd)  # the comparison's latency: total
        # Little's law holds run by run: the most one repeat had in flight, not the product of
        # the means (which exceeds every run's when the repeats vary)
        flight = max(r["iops"] * r["lat_ns"]["mean"] / 1e9 for r in rd)
        out.append((qd, iops, lat, fio_percentile(merged(by_qd[qd]), 99), flight))
    return out


def knee(points):
    """docs/charts.md: the point before the first step where latency outgrows IOPS."""
    for i in range(1, len(points)):
        if points[i][2] / points[i - 1][2] > points[i][1] / points[i - 1][1]:
            return i - 1
    return None


def check_scaling(page):
    figs = [f for f in page.figures if f["attrs"].get("data-kind") == "scaling"]
    t.eq([f["caption"] for f in figs], ["Scaling: Random Read 4K, iodepth 1 to 64"],
         "one scaling chart: the iodepth sweep (numjobs 1, 2 has two points: no sweep)")
    rows = page.tables.get("scaling", [])
    t.eq([c["text"] for c in rows[0]] if rows else [],
         ["Workload", "Side", "iodepth", "numjobs", "IOPS", "Mean latency", "p99 latency",
          "In flight", "Outstanding", "Little's law", "Knee"], "scaling table header")
    if not figs:
        return
    fig, ys = figs[0], []
    for side in SIDES:
        pts = sweep_points(side)
        k = knee(pts)
        mine = [r for r in rows[1:] if r[1]["text"] == side]
        t.eq([int(float(r[2]["data-value"])) for r in mine], [p[0] for p in pts],
             side + ": a row per iodepth")
        for r, (qd, iops, lat, p99, flight) in zip(mine, pts):
            t.near(float(r[4]["data-value"]), iops, "%s qd%d IOPS" % (side, qd))
            t.near(float(r[5]["data-value"]), lat, "%s qd%d mean latency" % (side, qd))
            t.eq(float(r[6]["data-value"]), p99, "%s qd%d p99 of the merged bins" % (side, qd))
            t.near(float(r[7]["data-value"]), round(flight, 2), "%s qd%d in flight" % (side, qd),
                   rel=1e-2)
            t.eq(r[9]["text"], "holds" if flight <= 1.25 * qd else "broken",
                 "%s qd%d Little's law" % (side, qd))
            t.eq(r[10]["text"] == "knee", k is not None and pts[k][0] == qd,
                 "%s qd%d knee" % (side, qd))
        marks = [m for m in fig["marks"] if m["label"].startswith("knee: %s " % side)]
        want = [] if k is None else ["knee: %s iodepth=%d" % (side, pts[k][0])]
        t.eq([m["label"] for m in marks], want, side + ": the knee marked")
        if k is not None and marks:
            t.near(float(marks[0]["data-x"]), pts[k][1], side + ": the knee at its IOPS")
        ys += [p[2] for p in pts] + [p[3] for p in pts]
    log = max(ys) / min(ys) > 100
    t.eq(fig["attrs"].get("data-scale"), "log" if log else None, "scaling: log axis iff > 100x")


def check_bars(page):
    for fig in (f for f in page.figures if f["attrs"].get("data-kind") == "bars"):
        vals = [float(b["data-value"]) for b in fig["bars"]]
        log = max(vals) / min(v for v in vals if v > 0) > 100
        t.eq(fig["attrs"].get("data-scale"), "log" if log else None,
             fig["caption"] + ": log axis exactly when the bars span > 100x")


# A script run only in the test's copy of the page (the report has none): is every chart inside
# the page's width and every text inside its drawing?
PROBE = """<script>
const out = [];
const width = document.documentElement.clientWidth;
for (const fig of document.querySelectorAll('figure.chart')) {
  const svg = fig.querySelector('svg'), box = svg.getBoundingClientRect();
  let inside = box.right <= width + 0.5 && box.width > 0 && box.height > 0;
  for (const text of svg.querySelectorAll('text')) {
    const b = text.getBoundingClientRect();
    if (b.width && (b.left < box.left - 1 || b.right > box.right + 1 || b.top < box.top - 1 ||
        b.bottom > box.bottom + 1))
      inside = false;
  }
  out.push(fig.dataset.kind + ':' + (inside ? 'inside' : 'overflow'));
}
document.body.setAttribute('data-probe', out.join(' '));
</script>"""


def png_varied(path):
    """A PNG whose first image row differs from some other: something was drawn."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    idat, pos = b"", 8
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    return len(set(raw[i:i + 64] for i in range(0, len(raw), 4096))) > 2


def chromium(page_path, tmp, kinds):
    exe = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(exe):
        print("note: chromium is not installed: skipping the browser checks")
        return
    base = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    html = open(page_path).read()
    probe = os.path.join(tmp, "probe.html")
    open(probe, "w").write(html.replace("</body>", PROBE + "</body>"))
    p = subprocess.run(base + ["--user-data-dir=" + tempfile.mkdtemp(dir=tmp),
                               "--window-size=1000,800", "--dump-dom", "file://" + probe],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r'data-probe="([^"]*)"', p.stdout)
    got = m.group(1).split() if m else []
    t.eq(sorted(set(g.split(":")[0] for g in got)), sorted(kinds), "chromium: every chart kind")
    t.eq([g for g in got if not g.endswith(":inside")], [], "chromium: no chart overflows")
    head = html[:html.index("<body")]
    for kind in kinds:  # a page of each kind's first chart, screenshotted
        fig = re.search(r'<figure class="chart" data-kind="%s".*?</figure>' % kind, html, re.S)
        one = os.path.join(tmp, kind + ".html")
        open(one, "w").write(head + "<body><main>" + fig.group(0) + "</main></body></html>")
        shot = os.path.join(tmp, kind + ".png")
        subprocess.run(base + ["--user-data-dir=" + tempfile.mkdtemp(dir=tmp),
                               "--screenshot=" + shot, "--window-size=1000,620", "file://" + one],
                       capture_output=True, timeout=120)
        t.ok(os.path.exists(shot) and png_varied(shot), "chromium: %s screenshot drawn" % kind)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        for side in SIDES:
            files = sorted(glob.glob(os.path.join(FIX, "*", side, "*.json")))
            rc, _, err = bdb.call(db, "import", "--storage-class", side, *files)
            t.eq(rc, 0, "import %s: %s" % (side, err))
        out = os.path.join(tmp, "r.html")
        rc, _, err = bdb.call(db, "report", "--compare", "disk", "shm", "-o", out)
        t.eq(rc, 0, "report -o r.html " + err)
        page = Page()
        page.feed(open(out).read())
        check_percentiles(page)
        check_scaling(page)
        check_bars(page)
        rc, md, err = bdb.call(db, "report", "--compare", "disk", "shm")
        t.eq(rc, 0, "report as Markdown " + err)
        check_markdown(md)
        chromium(out, tmp, ["bars", "percentiles", "scaling"])
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
