#!/usr/bin/python3
"""Time-series charts (issue 14) on real fio 3.33 runs with logs (tests/fixtures/series and
tests/fixtures/timeseries, commands in their COMMANDS.md). Computed here from the raw logs,
independently of benchdb:
- every line's points, read back from the SVG path through the axis ends the plot states
  (data-x0/x1/xmin/xmax, data-y0/y1/ymin/ymax), equal the log's values (a line per result), the
  means of 100 equal buckets of the chart's time (a log of more than 100 points) or, for a side
  of more than 3 results, the median of their bucket means, within a pixel;
- a min/max band exactly when a line is downsampled;
- the steady-state window (SNIA rule) and the cliff marked where the rules put them, and the
  Markdown line per series saying so;
- the XLSX: a chart sheet per chart holding a native line (scatter) chart of the sheet
  "Series data", whose cells are the same values in seconds and MiB/s (openpyxl);
- in chromium (when installed): drawn inside the page, a non-empty screenshot."""
import math, os, re, statistics, sys, tempfile, zipfile
from html.parser import HTMLParser

import openpyxl

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
import bdb  # noqa: E402
import charts  # noqa: E402  (its chromium checks)
from checks import Checks  # noqa: E402
from series import cliff, snia  # noqa: E402  (the rules of docs/series.md in python)

FIX = os.environ["FIXTURES"]
BUCKETS = 100
t = Checks("timeseries")
SCALE = {"bw": 1024.0, "clat": 1.0}


def log_points(folder, name):
    """[(t_ms, value in base units)] of a windowed read log as the warehouse stores it: fio's
    lines averaged (time and value) per bucket of 2^k ms, k the least that makes fewer than
    500 buckets (ingest/fio_log.c); a log of 50 ms windows over 12 s has two lines in a few of
    its 32 ms buckets."""
    kind = name.split("_")[-1].split(".")[0]
    raw = []
    for line in open(os.path.join(FIX, folder, name)):
        cols = [c.strip() for c in line.split(",")]
        if cols[2] == "0":
            raw.append((int(cols[0]), float(cols[1]) * SCALE[kind]))
    shift = 0
    while max(tm for tm, _ in raw) >> shift >= 500:
        shift += 1
    merged = {}
    for tm, v in raw:
        merged.setdefault(tm >> shift, []).append((tm, v))
    return [(statistics.mean(p[0] for p in merged[k]), statistics.mean(p[1] for p in merged[k]))
            for k in sorted(merged)]


class Page(HTMLParser):
    """The time-series figures: caption, plot scales, lines, bands and marks by series."""

    def __init__(self):
        super().__init__()
        self.figures, self.text = [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure" and a.get("data-kind") == "timeseries":
            self.figures.append({"caption": "", "plot": None, "lines": {}, "bands": {},
                                 "marks": []})
        elif not self.figures or self.figures[-1].get("done"):
            return
        elif tag == "figcaption":
            self.text = "caption"
        elif tag == "g" and a.get("class") == "plot":
            self.figures[-1]["plot"] = {k[5:]: float(v) for k, v in a.items() if k != "class"}
        elif tag == "path" and a.get("class") in ("line", "band"):
            self.figures[-1][a["class"] + "s"][a["data-series"]] = a["d"]
        elif tag == "g" and a.get("class") == "mark":
            self.figures[-1]["marks"].append({"x": float(a["data-x"]), "label": ""})
            self.text = "mark"

    def handle_endtag(self, tag):
        if tag == "figure" and self.figures:
            self.figures[-1]["done"] = True
        if tag in ("figcaption", "g"):
            self.text = None

    def handle_data(self, data):
        if self.text == "caption":
            self.figures[-1]["caption"] += data
        elif self.text == "mark":
            self.figures[-1]["marks"][-1]["label"] += data


def path_values(d, plot):
    """The path's points mapped back to (seconds, base units) through the plot's axis ends."""
    pts = [tuple(map(float, p.split())) for p in re.findall(r"[ML]([-\d.]+ [-\d.]+)", d)]

    def back(p, axis):
        lo, hi, p0, p1 = plot[axis + "min"], plot[axis + "max"], plot[axis + "0"], plot[axis + "1"]
        return lo + (p - p0) / (p1 - p0) * (hi - lo)
    return [(back(x, "x"), back(y, "y")) for x, y in pts], pts


def px_per_unit(plot, axis):
    return abs(plot[axis + "1"] - plot[axis + "0"]) / (plot[axis + "max"] - plot[axis + "min"])


def buckets(pts, width):
    """{bucket: [values]} of the fixed buckets of the chart's time (the last takes the rest)."""
    out = {}
    for tm, v in pts:
        out.setdefault(min(max(math.floor(tm / width), 0), BUCKETS - 1), []).append(v)
    return out


def expected_line(pts, width):
    """A result's line: as logged, or its bucket means (seconds, base units) when longer."""
    if len(pts) <= BUCKETS:
        return [(tm / 1000, v) for tm, v in pts], False
    b = buckets(pts, width)
    return [((k + 0.5) * width / 1000, statistics.mean(b[k])) for k in sorted(b)], True


def expected_median(logs, width):
    per = [buckets(p, width) for p in logs]
    ks = sorted(set(k for b in per for k in b))
    return [((k + 0.5) * width / 1000, statistics.median(statistics.mean(b[k]) for b in per
                                                          if k in b)) for k in ks]


def check_line(fig, name, want, banded):
    what = "%s / %s" % (fig["caption"], name)
    d = fig["lines"].get(name)
    t.ok(d is not None, what + ": a line drawn")
    if d is None:
        return
    got, _ = path_values(d, fig["plot"])
    t.eq(len(got), len(want), what + ": points")
    sx, sy = px_per_unit(fig["plot"], "x"), px_per_unit(fig["plot"], "y")
    worst = max([max(abs(g[0] - w[0]) * sx, abs(g[1] - w[1]) * sy)
                 for g, w in zip(got, want)] or [0])
    t.ok(worst <= 1, "%s: every point within a pixel of python's (worst %.2f px)" % (what, worst))
    t.eq(name in fig["bands"], banded, what + ": a min/max band exactly when downsampled")


def figure(page, prefix):
    figs = [f for f in page.figures if f["caption"].startswith(prefix)]
    t.eq(len(figs), 1, "one chart '%s'" % prefix)
    return figs[0] if figs else None


def report(db, tmp, *sides):
    out = os.path.join(tmp, "-".join(sides) + ".html")
    rc, _, err = bdb.call(db, "report", "--compare", *sides, "-o", out)
    t.eq(rc, 0, "report html " + err)
    page = Page()
    page.feed(open(out).read())
    rc, md, err = bdb.call(db, "report", "--compare", *sides)
    t.eq(rc, 0, "report md " + err)
    return page, md, out


def check_marks(fig, md, name, pts):
    """The SNIA window's start and the cliff, marked and said in Markdown."""
    steady, _, _ = snia(pts)
    word = "reached" if steady else "not reached"
    want = [(pts[-1][0] / 2000, "%s: steady-state window (%s)" % (name, word))]
    start = cliff(pts)
    if start is not None:
        want.append((start / 1000, "%s: cliff at %.2f s" % (name, start / 1000)))
    got = [(m["x"], m["label"]) for m in fig["marks"] if m["label"].startswith(name + ":")]
    t.eq([g[1] for g in got], [w[1] for w in want], name + ": marks")
    for g, w in zip(got, want):
        t.near(g[0], w[0], name + ": marked at its time")
    line = re.search(r"^- %s: (.*)$" % re.escape(name), md, re.M)
    t.ok(line is not None, name + ": a Markdown line")
    if line:
        t.ok(line.group(1).startswith("steady state " + word), name + ": md says " + word)
        t.eq("cliff at %.2f s" % (start / 1000) in line.group(1) if start else
             line.group(1).endswith("no cliff"), True, name + ": md says the cliff")


def cliff_pair(db, tmp):
    """cached (tmpfs) against cliff (disk): two short logs drawn as they are, marks."""
    for side, job in (("tmpfs", "cached"), ("disk", "cliff")):
        rc, _, err = bdb.call(db, "import", "--storage-class", side,
                              os.path.join(FIX, "series", job + ".json"),
                              os.path.join(FIX, "series", job + "_bw.1.log"))
        t.eq(rc, 0, "import %s: %s" % (job, err))
    page, md, out = report(db, tmp, "tmpfs", "disk")
    fig = figure(page, "Bandwidth over time: ")
    if not fig:
        return out
    t.ok(fig["caption"].endswith("(a line per result)"), "caption says a line per result")
    logs = {s: log_points("series", j + "_bw.1.log") for s, j in (("tmpfs", "cached"),
                                                                     ("disk", "cliff"))}
    width = max(p[-1][0] for p in logs.values()) / BUCKETS
    for side, pts in logs.items():
        check_line(fig, side, expected_line(pts, width)[0], False)
        check_marks(fig, md, side, pts)
    t.ok(any(cliff(p) is not None for p in logs.values()), "the fixtures have a cliff to mark")
    return out


def median_pair(db, tmp):
    """four 3 s repeats (a median with its band) against one 12 s run of 240 points
    (downsampled, with its band); bandwidth and completion latency."""
    reps = ["rep%d" % i for i in range(1, 5)]
    for side, jobs in (("reps", reps), ("long", ["long"])):
        files = [os.path.join(FIX, "timeseries", j + s) for j in jobs
                 for s in (".json", "_bw.1.log", "_clat.1.log")]
        rc, _, err = bdb.call(db, "import", "--storage-class", side, *files)
        t.eq(rc, 0, "import %s: %s" % (side, err))
    page, md, out = report(db, tmp, "reps", "long")
    for title, kind in (("Bandwidth", "bw"), ("Completion latency", "clat")):
        fig = figure(page, title + " over time: ")
        if not fig:
            continue
        t.ok("their median" in fig["caption"] and "min/max band" in fig["caption"],
             title + ": caption says median and band: " + fig["caption"])
        rep = [log_points("timeseries", j + "_%s.1.log" % kind) for j in reps]
        long = log_points("timeseries", "long_%s.1.log" % kind)
        t.ok(len(long) > BUCKETS, "the long log has more points than the chart's buckets")
        width = max(p[-1][0] for p in rep + [long]) / BUCKETS
        check_line(fig, "reps: median of 4", expected_median(rep, width), True)
        check_line(fig, "long", expected_line(long, width)[0], True)
        if kind == "bw":
            check_marks(fig, md, "long", long)
            check_xlsx(db, tmp, fig["caption"], {"reps: median of 4": expected_median(rep, width),
                                                 "long": expected_line(long, width)[0]}, md)
    return out


def check_xlsx(db, tmp, title, want, md):
    """The chart's data block on "Series data" (title, header, a time and a value column per
    series, min and max beside a banded one) equals python's points; a chart sheet draws it;
    under the block, what a series showed (steady state, a cliff), as the Markdown says it
    (check_marks holds the Markdown to the rules)."""
    path = os.path.join(tmp, "r.xlsx")
    rc, _, err = bdb.call(db, "report", "--compare", "reps", "long", "-o", path)
    t.eq(rc, 0, "report xlsx " + err)
    wb = openpyxl.load_workbook(path)
    t.ok("Series data" in wb.sheetnames, "xlsx: a Series data sheet")
    t.eq(len([n for n in wb.sheetnames if n.startswith("Time series ")]), 2,
         "xlsx: a chart sheet per time-series chart (bandwidth, latency)")
    if "Series data" not in wb.sheetnames:
        return
    rows = list(wb["Series data"].iter_rows(values_only=True))
    start = [i for i, r in enumerate(rows) if r[0] == title]
    t.eq(len(start), 1, "xlsx: the chart's block titled as the chart")
    if not start:
        return
    header = rows[start[0] + 1]
    for name, pts in want.items():
        col = header.index(name + ": time (s)") if name + ": time (s)" in header else None
        t.ok(col is not None, "xlsx: %s has a time column" % name)
        if col is None:
            continue
        t.eq(header[col + 1], name + ": Bandwidth", "xlsx: %s value column" % name)
        t.eq(header[col + 2:col + 4], (name + ": min", name + ": max"), name + ": band columns")
        got = [(r[col], r[col + 1]) for r in rows[start[0] + 2:] if r[col] is not None]
        got = got[:len(pts)]
        t.eq(len(got), len(pts), "xlsx: %s points" % name)
        t.ok(all(isinstance(v, float) or isinstance(v, int) for g in got for v in g),
             "xlsx: %s numbers are numbers" % name)
        t.ok(all(t.close(g[0], w[0], 1e-9) and t.close(g[1], w[1] / 1048576, 1e-9)
                 for g, w in zip(got, pts)), "xlsx: %s values in s and MiB/s" % name)
    block_end = start[0] + 2 + max(len(p) for p in want.values())
    said = [r[0] for r in rows[block_end:block_end + len(want) + 1] if isinstance(r[0], str)]
    line = re.search(r"^- (long: .*)$", md, re.M)
    t.ok(line is not None and line.group(1) in said,
         "xlsx: the long series' steady state and cliff under its block: %r" % said)
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        sheets = [n for n in names if n.startswith("xl/chartsheets/sheet")]
        t.eq(len(sheets), 2, "xlsx: two chart sheets")
        charts_xml = [z.read(n).decode() for n in names if n.startswith("xl/charts/chart")]
        mine = [c for c in charts_xml if "Series data" in c]
        t.eq(len(mine), 2, "xlsx: two charts drawn from Series data")
        t.ok(all("<c:scatterChart>" in c for c in mine), "xlsx: native scatter (line) charts")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = cliff_pair(os.path.join(tmp, "a.sqlite"), tmp)
        median_pair(os.path.join(tmp, "b.sqlite"), tmp)
        charts.t = t  # its browser checks count here
        charts.chromium(out, tmp, ["bars", "timeseries"])
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
