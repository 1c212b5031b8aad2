#!/usr/bin/python3
"""The ranking view (issue 14, item 5): five configurations with long labels, each a different
pair of the examples' repeats (copies, so each side stores its own), ranked per workload by
the factor of its first metric (bandwidth) against the baseline, best first; labels shortened
to the part that differs ('nfs-zfs-lz4-1M' -> 'lz4') unless --alias names one. Expected
order and factors computed here from the raw fio JSON. Each workload's ranking is also a bar
chart: bars best to worst, the factor beside each, the 95 % t interval of each mean of repeats
as its error bar, a log axis exactly when the values span more than 100x."""
import glob, json, math, os, shutil, statistics, sys, tempfile
from html.parser import HTMLParser

from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
import bdb  # noqa: E402
import charts  # noqa: E402  (its chromium checks)
from checks import Checks  # noqa: E402

EX = os.path.join(os.environ["SRCDIR"], "tests", "fixtures", "disk_tmpfs")
t = Checks("ranking")
# side -> (examples folder, which repeats)
SIDES = {"nfs-zfs-lz4-1M": ("disk", (1, 2)), "nfs-zfs-off-1M": ("disk", (2, 3)),
         "nfs-zfs-gzip-1M": ("tmpfs", (1, 2)), "nfs-zfs-zstd-1M": ("tmpfs", (2, 3)),
         "nfs-zfs-lzjb-1M": ("disk", (1, 3))}
SHORT = {"nfs-zfs-lz4-1M": "lz4", "nfs-zfs-off-1M": "off", "nfs-zfs-gzip-1M": "gzip",
         "nfs-zfs-zstd-1M": "zstd", "nfs-zfs-lzjb-1M": "LZJB"}  # LZJB: by --alias
WORKLOADS = ("randread", "seqread", "seqwrite", "syncwrite")


class Table(HTMLParser):
    def __init__(self, name):
        super().__init__()
        self.name, self.rows, self.on, self.cell = name, [], False, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.on = a.get("data-table") == self.name
        elif self.on and tag == "tr":
            self.rows.append([])
        elif self.on and tag == "td":
            self.cell = dict(a, text="")
            self.rows[-1].append(self.cell)

    def handle_endtag(self, tag):
        if tag == "td":
            self.cell = None
        elif tag == "table":
            self.on = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data


class Bars(HTMLParser):
    """The bar figures: caption, data-scale, and each bar's attributes with its label (the
    first text after the bar)."""

    def __init__(self):
        super().__init__()
        self.figures, self.text, self.after_bar = [], None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self.figures.append({"attrs": a, "caption": "", "bars": []})
        elif tag == "figcaption":
            self.text = "caption"
        elif tag == "rect" and a.get("class") == "bar":
            self.figures[-1]["bars"].append(dict(a, label=""))
            self.after_bar = True
        elif tag == "text" and self.after_bar:
            self.text, self.after_bar = "label", False

    def handle_endtag(self, tag):
        if tag in ("figcaption", "text"):
            self.text = None

    def handle_data(self, data):
        if self.text == "caption":
            self.figures[-1]["caption"] += data
        elif self.text == "label":
            self.figures[-1]["bars"][-1]["label"] += data


def repeats(side, workload):
    folder, reps = SIDES[side]
    out = []
    for r in reps:
        job = json.load(open(os.path.join(EX, folder, "%s-%d.json" % (workload, r))))["jobs"][0]
        d = "read" if "read" in job["job options"]["rw"] else "write"
        out.append(job[d]["bw_bytes"])
    return out


def bandwidth(side, workload):
    return statistics.mean(repeats(side, workload))


def interval(side, workload):
    """The 95 % t interval of the mean of the side's repeats."""
    v = repeats(side, workload)
    half = stats.t.ppf(0.975, len(v) - 1) * statistics.stdev(v) / math.sqrt(len(v))
    return statistics.mean(v) - half, statistics.mean(v) + half


def check_charts(html, names):
    figs = {f["caption"]: f for f in in_figures(html)}
    for name, w in ((n, bdb_workload(n)) for n in NAMES):
        fig = figs.get("Ranking: " + name)
        t.ok(fig is not None, w + ": a ranking chart")
        if fig is None:
            continue
        base = bandwidth(names[0], w)
        want = sorted(names, key=lambda s: (-bandwidth(s, w) / base, names.index(s)))
        bars = fig["bars"]
        t.eq(len(bars), 5, w + ": a bar per configuration")
        for b, s in zip(bars, want):
            t.near(float(b["data-value"]), bandwidth(s, w), w + " " + s + ": bar in rank order")
            lo, hi = interval(s, w)
            t.near(float(b["data-lo"]), lo, w + " " + s + ": error bar low", rel=1e-6)
            t.near(float(b["data-hi"]), hi, w + " " + s + ": error bar high", rel=1e-6)
            label = "1.00x (baseline)" if s == names[0] else "%.2fx" % (bandwidth(s, w) / base)
            t.eq(b["label"], label, w + " " + s + ": the factor beside the bar")
        vals = [bandwidth(s, w) for s in names]
        t.eq(fig["attrs"].get("data-scale"), "log" if max(vals) / min(vals) > 100 else None,
             w + ": log axis exactly when the values span > 100x")


def in_figures(html):
    p = Bars()
    p.feed(html)
    return p.figures


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        for i, (side, (folder, reps)) in enumerate(SIDES.items()):
            files = []
            for w in WORKLOADS:
                for r in reps:
                    copy = os.path.join(tmp, "%s-%s-%d.json" % (side, w, r))
                    shutil.copy(os.path.join(EX, folder, "%s-%d.json" % (w, r)), copy)
                    with open(copy, "a") as f:
                        f.write("\n" * (i + 1))  # other bytes: stored once per side
                    files.append(copy)
            rc, _, err = bdb.call(db, "import", "--storage-class", side, *files)
            t.eq(rc, 0, "import " + side + err)
        names = list(SIDES)
        rc, html, err = bdb.call(db, "report", "--compare", *names, "--alias",
                                 "nfs-zfs-lzjb-1M=LZJB", "--format", "html")
        t.eq(rc, 0, "report of five configurations " + err)
        table = Table("ranking")
        table.feed(html)
        rows = table.rows[1:]
        t.eq(len(rows), 5 * len(WORKLOADS), "five ranked configurations per workload")
        for w in WORKLOADS:
            base = bandwidth(names[0], w)
            want = sorted(names, key=lambda s: (-bandwidth(s, w) / base, names.index(s)))
            mine = [r for r in rows if bdb_workload(r[0]["text"]) == w]
            t.eq([r[3]["text"] for r in mine], [SHORT[s] for s in want], w + ": order, labels")
            t.eq([r[2]["text"] for r in mine], [str(i + 1) for i in range(5)], w + ": ranks")
            for r, s in zip(mine, want):
                t.eq(r[1]["text"], "Bandwidth", w + ": ranked by bandwidth")
                t.near(float(r[4]["data-value"]), bandwidth(s, w), w + " " + s + " value")
                t.near(float(r[5]["data-value"]), bandwidth(s, w) / base, w + " " + s + " factor")
        check_charts(html, names)
        page = os.path.join(tmp, "ranking.html")
        open(page, "w").write(html)
        charts.t = t  # its browser checks count here
        charts.chromium(page, tmp, sorted(set(f["attrs"]["data-kind"] for f in in_figures(html))))
        rc, four, err = bdb.call(db, "report", "--compare", *names[:4], "--format", "html")
        t.eq(rc, 0, "report of four configurations " + err)
        t.ok('data-table="ranking"' not in four, "four configurations: no ranking view")
    return t.done()


STEMS = {"Random Read 4K buffered": "randread", "Sequential Read 1M buffered": "seqread",
         "Sequential Write 1M buffered": "seqwrite",
         "Sequential Write 4K sync buffered": "syncwrite"}
NAMES = list(STEMS)


def bdb_workload(name):
    """The example file stem of a workload name as the report writes it."""
    return STEMS.get(name)


if __name__ == "__main__":
    sys.exit(main())
