#!/usr/bin/python3
"""table.py MEASUREMENTS: bench/run.sh's table from its measurements, one per line, tab-separated:
  time ITEM WHO SECONDS PEAK_RSS_KB EXIT   one run (several runs of ITEM/WHO: the median)
  size ITEM WHO BYTES                      bytes on disk (WHO input: the input's bytes)
  count ITEM N                             how many files, results or MiB ITEM has
  rev WHO REVISION                         the commit a benchdb was built from
WHO: old, new, new-j1 (the new benchdb with -j 1 when it has -j), floor, naive, sqlite3, dd.
ITEM: json, plus (the file imports), report, log, rss100 (importing 100 of the json files)."""
import statistics, sys

# work, item, reference, how the reference is described, ratio kind, target
ROWS = [
    ("import {json} small fio JSON files", "json", "floor",
     "floor.c: cJSON + one prepared 7-column insert", "speed", ">= 0.5x (stretch 0.8x)"),
    ("import {json} small fio JSON files", "json", "naive",
     "naive.py: python3 json + sqlite3, same 7 columns", "speed", ">= 1.0x"),
    ("import {plus} json+ files", "plus", "floor",
     "floor.c", "speed", ">= 0.4x"),
    ("report --compare on {report} results", "report", "sqlite3",
     "sqlite3 CLI: the same GROUP BY over a plain wide table", "slower", "<= 2x"),
    ("import a {log} MiB fio latency log", "log", "dd",
     "dd bs=4M conv=fsync (a durable copy)", "slower", "<= 2x"),
    ("peak RSS importing 100 vs {json} files", "json", None,
     "", "rss", "<= 1.5x"),
    ("warehouse size for the {json} files (db, -wal, objects)", "json", "input",
     "input bytes", "size", "<= 1.5x"),
]
RATIO_MEANS = {
    "speed": "reference time / benchdb time (speed relative to the reference)",
    "slower": "benchdb time / reference time (how many times slower)",
    "rss": "peak RSS of the full import / of 100 files",
    "size": "warehouse bytes / input bytes",
}


def load(lines):
    times, sizes, counts, revs = {}, {}, {}, {}
    for line in lines:
        f = line.rstrip("\n").split("\t")
        if f[0] == "time":
            times.setdefault((f[1], f[2]), []).append((float(f[3]), int(f[4]), int(f[5])))
        elif f[0] == "size":
            sizes[(f[1], f[2])] = int(f[3])
        elif f[0] == "count":
            counts[f[1]] = f[2]
        elif f[0] == "rev":
            revs[f[1]] = f[2]
    return times, sizes, counts, revs


def run_of(times, item, who):
    """(median seconds, median peak RSS in KiB, worst exit status) or None."""
    runs = times.get((item, who))
    if not runs:
        return None
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
            max(r[2] for r in runs))


def secs(run):
    if run is None:
        return "-"
    if run[2]:
        return "failed (exit %d)" % run[2]
    return "%.2f s" % run[0]


def mb(n):
    return "%.1f MB" % (n / 1e6)


def cells(kind, times, sizes, item, ref, who):
    """(the contender's cell, its ratio's cell) for one row."""
    if kind == "rss":
        small, full = run_of(times, "rss100", who), run_of(times, item, who)
        if not small or not full or small[2] or full[2]:
            return "-", ""
        return ("%s -> %s" % (mb(small[1] * 1024), mb(full[1] * 1024)),
                "%.2fx" % (full[1] / small[1]))
    if kind == "size":
        got, base = sizes.get((item, who)), sizes.get((item, ref))
        if got is None or not base:
            return "-", ""
        return mb(got), "%.2fx" % (got / base)
    run, base = run_of(times, item, who), run_of(times, item, ref)
    # the big items' memory is part of their target (flat in the log's size)
    cell = secs(run) + (", %s peak" % mb(run[1] * 1024) if kind == "slower" and run and
                        not run[2] else "")
    if run is None or run[2] or base is None or base[2] or min(run[0], base[0]) <= 0:
        return cell, ""
    return cell, "%.2fx" % (base[0] / run[0] if kind == "speed" else run[0] / base[0])


def reference_cell(kind, times, sizes, item, ref, what):
    if kind == "rss":
        return "-"
    if kind == "size":
        return "%s: %s" % (what, mb(sizes[(item, ref)])) if (item, ref) in sizes else "-"
    return "%s: %s" % (what, secs(run_of(times, item, ref)))


def table(lines):
    times, sizes, counts, revs = load(lines)
    news = ["new-j1", "new"] if any(k[1] == "new-j1" for k in times) else ["new"]
    jobs = {"new-j1": " (new: -j 1)", "new": " (new: default -j)"} if len(news) > 1 else {}
    out = ["| work | reference | old benchdb (%s) | old ratio | new benchdb (%s) | new ratio"
           " | target |" % (revs.get("old", "?"), revs.get("new", "?")),
           "|---|---|---|---|---|---|---|"]
    for work, item, ref, what, kind, target in ROWS:
        old, old_ratio = cells(kind, times, sizes, item, ref, "old")
        # -j is shown for import times; memory and size rows show the default jobs
        for new in news if kind == "speed" else ["new"]:
            cell, ratio = cells(kind, times, sizes, item, ref, new)
            label = work.format(**counts) + (jobs.get(new, "") if kind == "speed" else "")
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                label, reference_cell(kind, times, sizes, item, ref, what), old, old_ratio,
                cell, ratio, target))
    out.append("")
    out.extend("- ratio, %s: %s" % (k, v) for k, v in RATIO_MEANS.items())
    return "\n".join(out)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        print(table(f))
