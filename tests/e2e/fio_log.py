#!/usr/bin/python3
"""End-to-end test of the fio-log importer (fio --write_{bw,iops,lat}_log, --write_hist_log).

Expected values are computed here from the raw fixture text (and cross-checked with fio's own
JSON of the same runs), then compared with what `$BENCHDB import` + `export --format ndjson`
stores. Without $BENCHDB the records come from `$DUMP_RECORDS FILE` instead.
Env: BENCHDB, DUMP_RECORDS, FIXTURES (the tests/fixtures folder)."""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.environ.get("FIXTURES") or os.path.join(HERE, "..", "fixtures"), "fio_log")
BENCHDB = os.environ.get("BENCHDB")
DUMP = os.environ.get("DUMP_RECORDS")
TOL = 1e-3                # 0.1 % for everything computed exactly
PCT_TOL = 1 / 256 + 1e-9  # documented precision of percentiles from raw latency logs
DIRS = ["read", "write", "trim", "sync"]
NAME_RE = re.compile(r"^(.*)_(clat_hist|clat|slat|lat|bw|iops)(?:\.(\d+))?\.log$")

t = Checks("fio_log", rel=TOL, abs_tol=1e-9, none_equal=True)
TMP = tempfile.mkdtemp(prefix="fio_log_test-")


# ---- running the importer ----

def from_dump(rec):
    """A record of dump_records' output with the export's names and types."""
    r = {"job": rec.pop("job") or None, "direction": rec.pop("direction") or None, "tags": {},
         "bs_bytes": None}
    for k, v in rec.items():
        if k.startswith("tag."):
            r["tags"][k[4:]] = v
        elif k.startswith("series."):
            r["_series"] = int(v.split()[0])
        elif k.endswith("_bins"):
            r["_bins"] = int(v)
        elif k in ("tool", "tool_version", "host", "peer", "rw", "ioengine", "line_first",
                   "line_last"):
            r[k] = v
        else:
            r[k] = float(v)
    return r


def run(path, fmt=None):
    """(exit status, stderr, records of this file)"""
    opts = ["--format", fmt] if fmt else []
    if BENCHDB:
        p, recs = bdb.import_export(path, *opts, errors="replace", timeout=120)
        return p.returncode, p.stderr, [r for r in recs if r.get("source") == path]
    p = subprocess.run([DUMP] + opts + [path], capture_output=True, text=True, errors="replace",
                       timeout=120)
    return p.returncode, p.stderr, [from_dump(r) for r in bdb.parse_records(p.stdout)]


def by_dir(recs):
    return {r.get("direction"): r for r in recs}


# ---- independent reference ----

def fio_percentile(sorted_vals, pct):
    """fio's rule: the first value at which the running count reaches pct% of all."""
    want, cum = pct / 100.0 * len(sorted_vals), 0
    for v in sorted_vals:
        cum += 1
        if cum >= want:
            return v
    return sorted_vals[-1]


def expect_plain(path, kind, ddir_col=2):
    rows = {}
    with open(path, encoding="utf-8-sig", newline="") as f:
        text = f.read()
    for n, line in enumerate(re.split(r"\r?\n", text), 1):
        if not line.strip():
            continue
        c = [int(x) for x in re.split(r",\s*", line.strip())]
        rows.setdefault(c[ddir_col], []).append((n, c[0], c[1], c[ddir_col + 1]))
    exp = {}
    for d, rs in rows.items():
        vals = [r[2] for r in rs]
        scale = 1024 if kind == "bw" else 1
        e = {"samples": len(rs), "runtime_ms": max(r[1] for r in rs),
             "line_first": rs[0][0], "line_last": rs[-1][0],
             "bs_bytes": rs[0][3] if rs[0][3] > 0 and len({r[3] for r in rs}) == 1 else None}
        mean, lo, hi = statistics.fmean(vals) * scale, min(vals) * scale, max(vals) * scale
        sd = statistics.stdev(vals) * scale if len(vals) > 1 else None
        if kind == "bw":
            e.update(bw_bytes_s=mean, bw_mean_bytes_s=mean, bw_min_bytes_s=lo,
                     bw_max_bytes_s=hi, bw_stddev_bytes_s=sd)
        elif kind == "iops":
            e.update(iops=mean, iops_mean=mean, iops_min=lo, iops_max=hi, iops_stddev=sd)
        elif kind == "unknown":
            e.update(value=mean, value_min=lo, value_max=hi, value_stddev=sd)
        else:
            e.update({kind + "_mean_ns": mean, kind + "_min_ns": lo, kind + "_max_ns": hi,
                      kind + "_stddev_ns": sd})
            s = sorted(vals)
            for p, name in ((50, "p50"), (95, "p95"), (99, "p99"), (99.9, "p99_9")):
                e["%s_%s_ns~" % (kind, name)] = fio_percentile(s, p)
        exp[DIRS[d]] = e
    return exp


def plat_idx_to_val(idx):
    """fio stat.c plat_idx_to_val with PLAT_BITS=6 (returns an integer, as fio does)."""
    if idx < 128:
        return idx
    error_bits = (idx >> 6) - 1
    base = 1 << (error_bits + 6)
    return base + int((idx % 64 + 0.5) * (1 << error_bits))


def expect_hist(path):
    rows = {}
    with open(path) as f:
        lines = f.read().splitlines()
    nbins = None
    for n, line in enumerate(lines, 1):
        c = [int(x) for x in line.split(", ")]
        nbins = len(c) - 3
        rows.setdefault(c[1], []).append((n, c[0], c[2], c[3:]))
    fine = 1856 if 1856 % nbins == 0 else 1216  # fio >= 3 / fio 2.x (microseconds)
    unit = 1 if fine == 1856 else 1000
    stride = fine // nbins
    val = [sum(plat_idx_to_val(i * stride + j) for j in range(stride)) / stride * unit
           for i in range(nbins)]
    exp = {}
    for d, rs in rows.items():
        counts = [sum(r[3][i] for r in rs) for i in range(nbins)]
        total = sum(counts)
        e = {"samples": len(rs), "runtime_ms": max(r[1] for r in rs), "total_ios": total,
             "line_first": rs[0][0], "line_last": rs[-1][0], "bs_bytes": rs[0][2],
             "clat_mean_ns": sum(c * v for c, v in zip(counts, val)) / total,
             "_bins": sum(1 for c in counts if c)}
        for p, name in ((50, "p50"), (95, "p95"), (99, "p99"), (99.9, "p99_9")):
            want, cum = p / 100.0 * total, 0
            for c, v in zip(counts, val):
                cum += c
                if c and cum >= want:
                    e["clat_%s_ns" % name] = v
                    break
        exp[DIRS[d]] = e
    return exp


def compare(label, recs, exp, job, tags):
    got = by_dir(recs)
    t.ok(sorted(got) == sorted(exp), "%s: directions %s, expected %s" %
         (label, sorted(got), sorted(exp)))
    for d, e in exp.items():
        r = got.get(d)
        if r is None:
            continue
        t.ok(r.get("job") == job, "%s/%s: job %r, expected %r" % (label, d, r.get("job"), job))
        t.ok(r.get("tool") == "fio", "%s/%s: tool %r" % (label, d, r.get("tool")))
        for k, v in tags.items():
            t.ok(r["tags"].get(k) == v, "%s/%s: tag %s=%r, expected %r" %
                 (label, d, k, r["tags"].get(k), v))
        for k, want in e.items():
            if k.startswith("_") and "_series" not in r and "_bins" not in r:
                continue  # the export has no bins; dump_records shows their count
            if k.endswith("~"):
                name, tol = k[:-1], PCT_TOL
            else:
                name, tol = k, TOL
            have = r.get(name)
            t.ok(t.close(have, want, tol), "%s/%s: %s = %r, expected %r" %
                 (label, d, name, have, want))


# ---- the cases ----

def fixture_cases():
    for name in sorted(os.listdir(FIX)):
        m = NAME_RE.match(name)
        if not m:
            continue
        path = os.path.join(FIX, name)
        job, kind, index = m.groups()
        rc, err, recs = run(path)
        if not t.ok(rc == 0, "%s: exit %d: %s" % (name, rc, err.strip())):
            continue
        tags = {"log_kind": kind, "log_job_index": index}
        if kind == "clat_hist":
            exp = expect_hist(path)
            tags["log_unit"] = "ns"
        else:
            exp = expect_plain(path, kind)
            if kind in ("lat", "clat", "slat"):
                tags["log_unit"] = "ns"
        compare(name, recs, exp, job, tags)
        if "_series" in (recs[0] if recs else {}):
            for r in recs:
                t.ok(0 < r["_series"] <= 500, "%s: %d series points" % (name, r["_series"]))


def fio_json_cross_check():
    """Per-I/O latency logs hold every I/O: their means are fio's own clat/slat/lat means."""
    jobs = json.load(open(os.path.join(FIX, "perio.json")))["jobs"][0]
    for kind in ("clat", "slat", "lat"):
        _, _, recs = run(os.path.join(FIX, "perio_%s.1.log" % kind))
        got = by_dir(recs)
        for d in ("read", "write"):
            ref = jobs[d]
            r = got.get(d, {})
            t.ok(t.close(r.get(kind + "_mean_ns"), ref[kind + "_ns"]["mean"]),
                 "perio_%s vs fio json %s: mean %r, fio %r" %
                 (kind, d, r.get(kind + "_mean_ns"), ref[kind + "_ns"]["mean"]))
            t.ok(r.get("samples") == ref["total_ios"], "perio_%s %s: samples %r, fio ios %r" %
                 (kind, d, r.get("samples"), ref["total_ios"]))
    # histogram logs miss the last, unfinished interval: only a units sanity check (ns, not us)
    ref = json.load(open(os.path.join(FIX, "hist.json")))["jobs"][0]["read"]["clat_ns"]
    _, _, recs = run(os.path.join(FIX, "hist_clat_hist.1.log"))
    r = by_dir(recs).get("read", {})
    t.ok(t.close(r.get("clat_p50_ns"), ref["percentile"]["50.000000"], 0.25),
         "hist read p50 %r far from fio's %r" % (r.get("clat_p50_ns"),
                                                  ref["percentile"]["50.000000"]))


def write(name, data):
    return bdb.write(os.path.join(TMP, name), data)


def raw(name):
    with open(os.path.join(FIX, name), "rb") as f:
        return f.read()


def variant_cases():
    # CRLF and a UTF-8 BOM change nothing
    src = raw("avg_bw.1.log")
    exp = expect_plain(os.path.join(FIX, "avg_bw.1.log"), "bw")
    for label, data in (("crlf", src.replace(b"\n", b"\r\n")), ("bom", b"\xef\xbb\xbf" + src)):
        path = write("%s_bw.1.log" % label, data)
        rc, err, recs = run(path)
        t.ok(rc == 0, "%s: exit %d: %s" % (label, rc, err.strip()))
        compare(label, recs, exp, label, {"log_kind": "bw"})

    # a name that says nothing: metric 'value', tag log_kind=unknown and a warning
    path = write("mystery.txt", src)
    rc, err, recs = run(path)
    t.ok(rc == 0, "mystery.txt: exit %d: %s" % (rc, err.strip()))
    t.ok(path + ":1: warning: the file name does not say which fio log this is" in err,
         "mystery.txt: no warning about the name: %r" % err)
    for r in recs:
        t.ok(r["tags"].get("log_kind") == "unknown", "mystery.txt: tags %r" % r["tags"])
        t.ok(r.get("bw_bytes_s") is None, "mystery.txt: invented bw_bytes_s")
    if recs and "value" in recs[0]:
        compare("mystery", recs, expect_plain(os.path.join(FIX, "avg_bw.1.log"), "unknown"),
                None, {"log_kind": "unknown"})

    # a long log (the per-I/O log repeated 200 times, later copies shifted in time): the
    # summary covers every line, the series stays bounded
    lines = raw("perio_clat.1.log").decode().splitlines()
    out = []
    for k in range(200):
        for line in lines:
            c = line.split(", ")
            c[0] = str(int(c[0]) + k * 700)
            out.append(", ".join(c))
    path = write("long_clat.1.log", ("\n".join(out) + "\n").encode())
    rc, err, recs = run(path)
    t.ok(rc == 0, "long: exit %d: %s" % (rc, err.strip()))
    compare("long", recs, expect_plain(path, "clat"), "long", {"log_kind": "clat"})
    for r in recs:
        if "_series" in r:
            t.ok(100 <= r["_series"] <= 500, "long: %d series points" % r["_series"])


def error_cases():
    def expect_error(label, name, data, want):
        path = write(name, data)
        rc, err, recs = run(path)
        t.ok(rc == 1, "%s: exit %d, expected 1" % (label, rc))
        t.ok((path + want) in err, "%s: stderr %r lacks %r" % (label, err, path + want))
        t.ok(not recs, "%s: records from a refused file" % label)

    # cut in the middle of line 10: the line has 2 of 6 columns
    lines = raw("perio_clat.1.log").split(b"\n")
    part = lines[9][:lines[9].index(b",", lines[9].index(b",") + 1)]
    data = b"\n".join(lines[:9] + [part])
    ncols = lines[0].count(b",") + 1
    expect_error("truncated", "cut_clat.1.log", data,
                 ":10:%d: error: expected %d columns as on line 1, got 2" % (len(part) + 1, ncols))

    # a garbled value on line 5
    bad = lines[4].split(b", ")
    bad[1] = bad[1][:2] + b"a" + bad[1][2:]
    col = len(bad[0]) + 2 + 2 + 1
    data = b"\n".join(lines[:4] + [b", ".join(bad)] + lines[5:])
    expect_error("garbled", "bad_clat.1.log", data,
                 ":5:%d: error: expected ',' or end of line, got '%s'" %
                 (col, bad[1][2:].decode()))

    # a data direction fio never writes
    bad = lines[2].split(b", ")
    col = len(bad[0]) + len(bad[1]) + 5
    bad[2] = b"7"
    data = b"\n".join(lines[:2] + [b", ".join(bad)] + lines[3:])
    expect_error("ddir", "ddir_clat.1.log", data,
                 ":3:%d: error: expected a data direction 0-3, got '7'" % col)

    # a 400-digit number
    bad = lines[1].split(b", ")
    bad[1] = b"9" * 400
    data = b"\n".join(lines[:1] + [b", ".join(bad)] + lines[2:])
    expect_error("huge", "huge_clat.1.log", data,
                 ":2:%d: error: expected an integer below 2^63, got '%s'" %
                 (len(bad[0]) + 3, "9" * 32))

    # the widest values: 18 digits (all a line read in one pass may hold) and 19 below 2^63
    # (read the slower way): both are the direction's maximum, as written
    for digits in (b"123456789012345678", b"9223372036854775807"):
        wide = lines[1].split(b", ")
        wide[1] = digits
        data = b"\n".join(lines[:1] + [b", ".join(wide)] + lines[2:]) + b"\n"
        rc, err, recs = run(write("wide%d_clat.1.log" % len(digits), data))
        t.ok(rc == 0, "%d digits: exit %d: %s" % (len(digits), rc, err.strip()))
        got = by_dir(recs).get(DIRS[int(wide[2])], {}).get("clat_max_ns")
        t.ok(got == float(int(digits)), "%d digits: max %r, expected %s" % (len(digits), got,
                                                                          digits.decode()))

    # a histogram log cut inside its second line
    hl = raw("hist_clat_hist.1.log").split(b"\n")
    cut = hl[1][:len(hl[1]) // 2]
    cut = cut[:cut.rindex(b",")]
    data = hl[0] + b"\n" + cut
    expect_error("hist truncated", "cut_clat_hist.1.log", data,
                 ":2:%d: error: expected 1859 columns as on line 1, got %d" %
                 (len(cut) + 1, cut.count(b",") + 1))

    # a plain log under a histogram log's name
    expect_error("hist name", "plain_clat_hist.1.log", raw("avg_bw.1.log"),
                 ":1:%d: error: expected 3 + 1856 (1216 in fio 2.x) columns in a histogram "
                 "log, got 5" % (len(raw("avg_bw.1.log").split(b"\n")[0]) + 1))

    # an empty log (fio writes one for slat under psync): nothing to import, no crash
    path = write("empty_slat.1.log", b"")
    rc, err, recs = run(path, "fio-log")
    t.ok(rc in (0, 1) and not recs, "empty: exit %d, %d records" % (rc, len(recs)))


def main():
    if not (BENCHDB and os.access(BENCHDB, os.X_OK)) and not (DUMP and os.access(DUMP, os.X_OK)):
        print("fio_log.py: set BENCHDB or DUMP_RECORDS")
        return 2
    try:
        fixture_cases()
        fio_json_cross_check()
        variant_cases()
        error_cases()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
