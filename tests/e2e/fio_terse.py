"""fio terse importer end to end: every expected value is read here from the raw fixture text
(split on ';' with the field maps of HOWTO.rst "Terse output", docs/formats.md 2), independently of
benchdb, then compared with `benchdb export --format ndjson`. Also checks bad inputs: a failed
fio run, a truncated and a garbled terse line (exit status 1 and the exact diagnostic)."""
import os, re, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

FIX = os.path.join(os.environ.get("FIXTURES", "tests/fixtures"), "fio_terse")
t = Checks("fio_terse", rel=1e-3, abs_tol=1e-12, none_equal=True)

# version: (header fields, block width, usual directions)
LAYOUT = {"2": (4, 41, ["read", "write", "trim"]), "3": (5, 41, ["read", "write"]),
          "4": (5, 41, ["read", "write", "trim"]), "5": (5, 47, ["read", "write", "trim"])}
# unified_rw_reporting, from the commands in COMMANDS.md
UNIFIED = {"terse5_unified_mixed.out": "mixed", "terse4_unified_both.out": "both"}
# workload from the `ja: (g=0): rw=randread, bs=(R) 4096B-4096B, ...` header line
HEADER = re.compile(r"^(.*): \(g=(\d+)\): rw=(\w+), bs=\(R\) (\d+)B-(\d+)B, .*ioengine=(\w+), "
                    r"iodepth=(\d+)$")


def stat4(out, name, suffix, vals, mult):
    """fio prints min;max;mean;dev as four zeros when there were no samples: absent."""
    keys = ["%s_%s%s" % (name, k, suffix) for k in ("min", "max", "mean", "stddev")]
    nums = [float(v) for v in vals]
    for k, v in zip(keys, nums):
        out[k] = None if not any(nums) else v * mult


def expected(path):
    """One dict per (job line, direction that did I/O), from the text alone."""
    recs, headers = [], {}
    lines = open(path, encoding="utf-8", newline="").read().split("\n")
    for line in lines:
        m = HEADER.match(line.rstrip("\r"))
        if m:
            headers[(m.group(1), m.group(2))] = m
    name = os.path.basename(path)
    for no, line in enumerate(lines, 1):
        line = line.rstrip("\r").split("\r")[-1]  # fio's status line redrawn before it
        f = line.split(";")
        if f[0] not in LAYOUT or len(f) < 40:
            if line.startswith(";") and recs and recs[-1]["line_first"] == no - 1 \
                    and recs[-1]["_ver"] == "2":
                for r in recs:
                    if r["line_first"] == no - 1:
                        r["tags"]["description"] = line[1:]
                        r["line_last"] = no
            continue
        ver = f[0]
        hdr, width, dirs = LAYOUT[ver]
        uni = UNIFIED.get(name)
        if uni == "mixed":
            dirs = ["mixed"]
        elif uni == "both":
            dirs = dirs + ["mixed"]
        tail = hdr + len(dirs) * width
        job, group, err = f[hdr - 3], f[hdr - 2], int(f[hdr - 1])
        hm = headers.get((job, group))
        for k, d in enumerate(dirs):
            b = f[hdr + k * width: hdr + (k + 1) * width]
            if float(b[0]) == 0 and float(b[2]) == 0:
                continue
            r = {"_ver": ver, "job": job, "direction": d, "line_first": no, "line_last": no,
                 "tool": "fio", "tool_version": None if ver == "2" else f[1], "error": err,
                 "tags": {"groupid": group},
                 "io_bytes": float(b[0]) * 1024, "bw_bytes_s": float(b[1]) * 1024,
                 "iops": float(b[2]), "runtime_ms": float(b[3]),
                 "cpu_usr_pct": float(f[tail].rstrip("%")),
                 "cpu_sys_pct": float(f[tail + 1].rstrip("%")),
                 "rw": hm.group(3) if hm else None,
                 "bs_bytes": int(hm.group(4)) if hm and d == "read" else None,
                 "iodepth": int(hm.group(7)) if hm else None}
            stat4(r, "slat", "_ns", b[4:8], 1000)
            stat4(r, "clat", "_ns", b[8:12], 1000)
            for p in b[12:32]:
                if p != "0%=0":
                    pct, val = p.split("%=")
                    key = "clat_p" + ("%g" % float(pct)).replace(".", "_") + "_ns"
                    r[key] = float(val) * 1000
            stat4(r, "lat", "_ns", b[32:36], 1000)
            stat4(r, "bw", "_bytes_s", [b[36], b[37], b[39], b[40]], 1024)
            if ver == "5":
                stat4(r, "iops", "", b[42:46], 1)
            rest = f[tail + 34:]
            if ver != "2" and len(rest) >= 9 and rest[8].endswith("%"):
                rest = rest[9:]  # one disk-util entry (vda)
            if name == "terse3_continue_on_error.out":
                r["tags"]["total_err"], r["tags"]["first_error"] = rest[0], rest[1]
                rest = rest[2:]
            if rest:
                r["tags"]["description"] = ";".join(rest)
            recs.append(r)
    return recs


def compare(path, exp, got):
    name = os.path.basename(path)
    t.ok(len(got) == len(exp), "%s: %d records, expected %d" % (name, len(got), len(exp)))
    for e in exp:
        cand = [g for g in got if g.get("job") == e["job"] and g.get("direction") == e["direction"]
                and g.get("line_first") == e["line_first"]]
        t.ok(len(cand) == 1, "%s: no single record for %s/%s line %d" % (
            name, e["job"], e["direction"], e["line_first"]))
        if len(cand) != 1:
            continue
        g = cand[0]
        for k, v in e.items():
            if k.startswith("_"):
                continue
            what = "%s %s/%s %s: got %r, expected %r" % (name, e["job"], e["direction"], k,
                                                         g.get(k), v)
            if k == "tags":
                t.ok(all((g.get("tags") or {}).get(tag) == tv for tag, tv in v.items()), what)
            elif isinstance(v, float) or (v is None and k not in
                                          ("rw", "bs_bytes", "iodepth", "tool_version")):
                t.ok(t.close(g.get(k), v), what)
            else:
                t.ok(g.get(k) == v, what)
        if e["rw"] is not None:
            t.ok(g.get("ioengine", "psync") == "psync",
                 "%s: ioengine %r" % (name, g.get("ioengine")))
        # percentiles the file does not have are not invented
        extra = [k for k in g if k.startswith("clat_p") and g[k] is not None and k not in e]
        t.ok(not extra, "%s %s/%s: invented %s" % (name, e["job"], e["direction"], extra))


def test_fixtures(tmp):
    files = sorted(f for f in os.listdir(FIX) if f.endswith(".out") and "failed" not in f)
    t.ok(len(files) >= 12, "expected at least 12 fixtures, found %d" % len(files))
    for f in files:
        path = os.path.join(FIX, f)
        db = os.path.join(tmp, f + ".sqlite")
        p = bdb.run(db, "import", path)
        t.ok(p.returncode == 0, "%s: import exit %d: %s" % (f, p.returncode, p.stderr.strip()))
        got = [r for r in bdb.export(db, t) if os.path.basename(str(r.get("source"))) == f]
        t.ok(all(r.get("format") == "fio-terse" for r in got), "%s: format" % f)
        exp = expected(path)
        t.ok(len(exp) > 0, "%s: the test found no result in the fixture" % f)
        compare(path, exp, got)


def test_spot_values(tmp):
    """A few conversions pinned by hand, so that a shared misreading cannot hide."""
    path = os.path.join(FIX, "terse5_randrw.out")
    db = os.path.join(tmp, "spot.sqlite")
    bdb.run(db, "import", path)
    rd = [r for r in bdb.export(db, t) if r.get("direction") == "read"]
    t.ok(len(rd) == 1, "terse5_randrw: one read record")
    if rd:
        r = rd[0]
        # 5;fio-3.33;t5;0;0;27692;27664;6916;1001;...: KiB, KiB/s, IOPS, ms
        t.near(r.get("io_bytes"), 27692 * 1024.0, "io_bytes")
        t.near(r.get("bw_bytes_s"), 27664 * 1024.0, "bw_bytes_s")
        t.near(r.get("runtime_ms"), 1001, "runtime_ms")
        t.ok(r.get("slat_mean_ns") is None, "psync has no slat: %r" % r.get("slat_mean_ns"))
        t.ok(r.get("iops_mean") is not None, "v5 iops_mean present")


def test_crlf_bom(tmp):
    src = open(os.path.join(FIX, "terse4_randrw.out"), encoding="utf-8").read()
    path = bdb.write(os.path.join(tmp, "crlf_bom.out"), "\ufeff" + src.replace("\n", "\r\n"))
    db = os.path.join(tmp, "crlf.sqlite")
    p = bdb.run(db, "import", path)
    t.ok(p.returncode == 0, "crlf+bom import: %s" % p.stderr.strip())
    got = bdb.export(db, t)
    exp = expected(os.path.join(FIX, "terse4_randrw.out"))
    compare(path, exp, got)


def expect_error(tmp, name, text, message):
    path = bdb.write(os.path.join(tmp, name), text)
    db = os.path.join(tmp, name + ".sqlite")
    bdb.rejects(t, path, "%s:%s" % (path, message), db=db)
    got = [r for r in bdb.export(db, t) if os.path.basename(str(r.get("source"))) == name]
    t.ok(not got, "%s: a file with an error imported %d records" % (name, len(got)))


def test_bad_input(tmp):
    src = open(os.path.join(FIX, "terse3_randrw.out"), encoding="utf-8").read()
    line = src.split("\n")[0]
    f = line.split(";")
    # truncated after field 58: the write block's first percentile (field 59) is missing
    cut = ";".join(f[:58])
    expect_error(tmp, "truncated.out", cut,
                 "1:%d: error: truncated terse v3 line: expected a percentile 'P%%=N' "
                 "(write_clat_pct01, field 59), got end of line" % (len(cut) + 1))
    # a non-number in read_bw (field 7), on line 2 after a fio: line
    g = list(f)
    g[6] = "22x77"
    col = len(";".join(g[:6])) + 2
    expect_error(tmp, "garbled.out", "fio: some warning\n" + ";".join(g) + "\n",
                 "2:%d: error: expected a number (read_bw, field 7), got '22x77'" % col)
    # a failed fio run: only fio's own error lines
    failed_src = open(os.path.join(FIX, "terse3_failed_run.out"), encoding="utf-8").read()
    first = failed_src.split("\n")[0]
    t.ok(first.startswith("fio: "), "terse3_failed_run.out starts with 'fio: '")
    expect_error(tmp, "failed_run.out", failed_src, "1: error: fio run failed: " + first[5:])
    # fio ran but the job did no I/O and reports an error: the terse line gives the number, the
    # `fio: pid=..., err=28/..., error=MSG` line the message
    no_io = open(os.path.join(FIX, "terse3_failed_no_io.out"), encoding="utf-8").read()
    lines = no_io.split("\n")
    no = next(i for i, l in enumerate(lines, 1) if l.startswith("3;fio-"))
    f = lines[no - 1].split(";")
    t.ok(f[4] != "0" and all(float(x) == 0 for x in f[5:9]), "no_io fixture: error, no I/O")
    msg = re.search(r"err=%s/.*, error=(.*)$" % f[4], no_io, re.M).group(1)
    expect_error(tmp, "failed_no_io.out", no_io, "%d: error: fio run failed: job '%s' did no I/O, "
                 "error %s: %s" % (no, f[2], f[4], msg))


def test_cut_copies(tmp):
    """A copy cut inside its last line is refused: fio ends every line, and what the cut left
    of a disk-util entry or a description would be read as a description."""
    jobs = os.path.join(os.path.dirname(FIX), "jobs")
    threads = open(os.path.join(jobs, "mt_threads.terse"), encoding="utf-8").read()
    cut = threads[:threads.rindex(";vda;") + len(";vda")]
    lines = cut.split("\n")
    expect_error(tmp, "cut_disk.terse", cut, "%d:%d: error: truncated terse line: expected a line "
                 "end, got end of file" % (len(lines), len(lines[-1]) + 1))
    desc = open(os.path.join(FIX, "terse5_description.out"), encoding="utf-8").read()
    last = desc.rstrip("\n").split("\n")[-1]
    t.ok(last.endswith(";v5 description"), "terse5_description.out ends with its description")
    cut = desc[:desc.rindex("v5 description") + len("v5 desc")]
    lines = cut.split("\n")
    expect_error(tmp, "cut_desc.out", cut, "%d:%d: error: truncated terse line: expected a line "
                 "end, got end of file" % (len(lines), len(lines[-1]) + 1))
    # cut inside the job header line that comes before the result lines, imported as terse
    hdr = open(os.path.join(FIX, "terse3_2jobs_header.out"), encoding="utf-8").read()
    t.ok(HEADER.match(hdr.split("\n")[0]) is not None, "terse3_2jobs_header.out: header first")
    path = bdb.write(os.path.join(tmp, "cut_header.out"), hdr[:len(hdr.split("\n")[0]) // 2])
    bdb.rejects(t, path, "%s:1: error: no fio terse result line found" % path, "--format",
                "fio-terse", whole_line=True)


def test_nan_distribution(tmp):
    """A job that failed its setup next to one that ran: fio prints the failed job's latency
    distribution as `-nan%` (0/0). The file imports with the job that ran and a located warning
    for the other; the values themselves are compared in test_fixtures."""
    name = "terse3_nan_second_job.out"
    path = os.path.join(FIX, name)
    lines = open(path, encoding="utf-8").read().split("\n")
    no = next(i for i, l in enumerate(lines, 1) if ";-nan%;" in l)
    f = lines[no - 1].split(";")
    t.ok(f[4] != "0", "%s: the -nan%% line is a failed job's" % name)
    msg = re.search(r"err=%s/.*, error=(.*)$" % f[4], "\n".join(lines), re.M).group(1)
    p = bdb.run(os.path.join(tmp, "nan.sqlite"), "import", path)
    t.eq(p.returncode, 0, "%s: exit status (%s)" % (name, p.stderr.strip()))
    t.ok("%s:%d: warning: job '%s' did no I/O, error %s: %s" % (path, no, f[2], f[4], msg)
         in p.stderr, "%s: located warning for the failed job: %r" % (name, p.stderr))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_fixtures(tmp)
        test_spot_values(tmp)
        test_crlf_bom(tmp)
        test_bad_input(tmp)
        test_nan_distribution(tmp)
        test_cut_copies(tmp)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
