#!/usr/bin/python3
"""bench_tools.py: the pieces of bench/run.sh that make its numbers. gen.py's inputs (unique
files, a log whose times keep increasing), scale_db.py's million-result warehouses (copies
hold the examples' values times 1 + (k % 7) / 100, in benchdb's schema and in the reference's
wide table alike) and table.py's medians and ratios. Expected values come from the raw fio
JSON files and from the measurements written here, not from benchdb."""
import glob, json, math, os, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

SRCDIR = os.environ.get("SRCDIR", ".")
BENCH = os.path.join(SRCDIR, "bench")
sys.path.insert(0, BENCH)
import scale_db, table  # noqa: E402

c = Checks("bench_tools", rel=1e-9)


def tool(*args):
    return subprocess.run(["/usr/bin/python3"] + list(args), capture_output=True, text=True,
                          check=True).stdout


def check_gen(tmp):
    fx = os.path.join(SRCDIR, "tests", "fixtures")
    base = os.path.join(fx, "fio_json", "two_jobs_fsync.json")
    tool(os.path.join(BENCH, "gen.py"), "files", os.path.join(tmp, "f"), "5", base)
    names = set()
    for path in sorted(glob.glob(os.path.join(tmp, "f", "*.json"))):
        names.add(tuple(j["jobname"] for j in json.load(open(path))["jobs"]))
    c.eq(len(names), 5, "gen.py files: 5 files with job names of their own")
    log = os.path.join(tmp, "big.log")
    tool(os.path.join(BENCH, "gen.py"), "log", log, "1", os.path.join(fx, "fio_log",
                                                                      "perio_clat.1.log"))
    times = [int(line.split(",", 1)[0]) for line in open(log)]
    c.ok(os.path.getsize(log) >= 1 << 20, "gen.py log: at least 1 MiB")
    c.ok(all(a <= b for a, b in zip(times, times[1:])), "gen.py log: times never go back")


def example_bandwidths():
    """{storage class: [bw_bytes of each example's job]} from the raw fio JSON files."""
    out = {}
    for cls in ("disk", "tmpfs"):
        for path in sorted(glob.glob(os.path.join(SRCDIR, "tests", "fixtures", "disk_tmpfs", cls, "*.json"))):
            job = json.load(open(path))["jobs"][0]
            out.setdefault(cls, []).append(max(job["read"]["bw_bytes"],
                                               job["write"]["bw_bytes"]))
    return out


def check_scale_db(tmp):
    db, ref = os.path.join(tmp, "w.sqlite"), os.path.join(tmp, "ref.sqlite")
    bdb.import_examples(db, checks=c)
    bws = example_bandwidths()
    n_base = sum(len(v) for v in bws.values())
    want = 230  # 10 copies: k % 7 wraps
    copies = math.ceil(want / n_base)
    # copy k (0 = the original) holds the values times 1 + (k % 7) / 100
    factor_sum = sum(1 + (k % 7) / 100 for k in range(copies))
    expect_sum = sum(sum(v) for v in bws.values()) * factor_sum
    c.eq(scale_db.reference(db, ref, want), n_base * copies, "reference: rows made")
    c.eq(scale_db.replicate(db, want), n_base * copies, "replicate: results made")
    w = sqlite3.connect(db)
    c.eq(w.execute("SELECT count(*), count(DISTINCT id) FROM result").fetchone(),
         (n_base * copies, n_base * copies), "replicate: results, ids unique")
    c.near(w.execute("SELECT sum(value) FROM metric WHERE name = 'bw_bytes_s'").fetchone()[0],
           expect_sum, "replicate: the sum of bw_bytes_s over the copies")
    c.eq(w.execute("SELECT count(*) FROM result GROUP BY storage_class ORDER BY 1").fetchall(),
         [(len(bws["disk"]) * copies,), (len(bws["tmpfs"]) * copies,)],
         "replicate: results per storage class")
    r = sqlite3.connect(ref)
    c.near(r.execute("SELECT sum(bw_bytes_s) FROM wide").fetchone()[0], expect_sum,
           "reference: the sum of bw_bytes_s")
    groups = r.execute(scale_db.query()).fetchall()
    # the examples: 4 workloads (randread, seqread, seqwrite, syncwrite) on each class
    c.eq(len(groups), 8, "reference query: a group per storage class and workload")
    c.eq(sum(g[len(scale_db.KEY)] for g in groups), n_base * copies,
         "reference query: bw_bytes_s counted once per result")
    c.near(sum(g[len(scale_db.KEY)] * g[len(scale_db.KEY) + 1] for g in groups), expect_sum,
           "reference query: n * mean of bw_bytes_s adds up")
    p = bdb.run(db, "report", "--compare", "disk", "tmpfs")
    c.eq(p.returncode, 0, "report on the replicated warehouse: " + p.stderr)
    c.ok("(n=%d)" % (3 * copies) in p.stdout, "report: each workload's side has 3 x copies runs")


def cell_row(text, label, reference=""):
    """The cells of the table's row whose first cell is label (and reference cell starts so)."""
    for line in text.splitlines():
        cells = [x.strip() for x in line.strip("|").split("|")]
        if cells[0] == label and cells[1].startswith(reference):
            return cells
    return None


def check_table():
    lines = ["rev\told\taaaa", "rev\tnew\tbbbb", "count\tjson\t10", "count\tplus\t2",
             "count\tlog\t8", "count\treport\t48", "size\tjson\tinput\t1000000",
             "size\tjson\told\t2500000", "size\tjson\tnew\t1200000"]
    runs = {("json", "old"): [(3.0, 4000), (1.0, 5000), (2.0, 6000)],
            ("json", "new-j1"): [(1.0, 3000), (1.5, 3000), (1.2, 3000)],
            ("json", "new"): [(0.8, 3300), (0.7, 3100), (0.9, 3200)],
            ("json", "floor"): [(0.5, 1), (0.4, 1), (0.6, 1)],
            ("json", "naive"): [(1.0, 1), (1.0, 1), (1.0, 1)],
            ("rss100", "old"): [(0.1, 2500)], ("rss100", "new"): [(0.1, 2000)],
            ("report", "old"): [(9.0, 350000)], ("report", "new"): [(4.0, 950000)],
            ("report", "sqlite3"): [(2.0, 1)],
            ("log", "new"): [(3.0, 24000)], ("log", "dd"): [(2.0, 1)]}
    for (item, who), rs in runs.items():
        lines += ["time\t%s\t%s\t%s\t%d\t0" % (item, who, s, kb) for s, kb in rs]
    lines += ["time\tlog\told\t7.5\t100\t3", "time\tplus\tfloor\t0.1\t1\t0"]
    text = table.table(line + "\n" for line in lines)
    # medians: old 2.0 s, new -j 1 1.2 s, new 0.8 s, floor 0.5 s, naive 1.0 s
    row = cell_row(text, "import 10 small fio JSON files (new: -j 1)")
    c.ok(row is not None, "table: a row for the new benchdb with -j 1\n" + text)
    if row:
        c.eq(row[2:6], ["2.00 s", "%.2fx" % (0.5 / 2.0), "1.20 s", "%.2fx" % (0.5 / 1.2)],
             "table: json import against floor.c, -j 1")
    row = cell_row(text, "import 10 small fio JSON files (new: default -j)", "naive.py")
    c.eq(row and row[5], "%.2fx" % (1.0 / 0.8), "table: json import against naive.py")
    row = cell_row(text, "report --compare on 48 results")
    c.eq(row and row[2:6], ["9.00 s, 358.4 MB peak", "%.2fx" % (9 / 2), "4.00 s, 972.8 MB peak",
                            "%.2fx" % (4 / 2)], "table: report against sqlite3 (times slower)")
    row = cell_row(text, "import a 8 MiB fio latency log")
    c.eq(row and row[2:6], ["failed (exit 3)", "", "3.00 s, 24.6 MB peak", "%.2fx" % (3 / 2)],
         "table: a failed run says so and has no ratio")
    row = cell_row(text, "import 2 json+ files (new: -j 1)")
    c.eq(row and row[2:6], ["-", "", "-", ""], "table: runs not made are '-'")
    row = cell_row(text, "peak RSS importing 100 vs 10 files")
    c.eq(row and row[2:6], ["2.6 MB -> 5.1 MB", "%.2fx" % (5000 / 2500),
                            "2.0 MB -> 3.3 MB", "%.2fx" % (3200 / 2000)],
         "table: peak RSS, medians in KiB")
    row = cell_row(text, "warehouse size for the 10 files (db, -wal, objects)")
    c.eq(row and row[1:6], ["input bytes: 1.0 MB", "2.5 MB", "2.50x", "1.2 MB", "1.20x"],
         "table: warehouse size against the input")


with tempfile.TemporaryDirectory(prefix="bdb-bench-") as tmp:
    check_gen(tmp)
    check_scale_db(tmp)
check_table()
sys.exit(c.done())
