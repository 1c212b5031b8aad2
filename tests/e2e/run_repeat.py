"""run_repeat.py: `benchdb run --repeat 3 -- fio ...` runs a short real fio job (time_based,
1 s, random reads of a temporary file) three times, stores each run as its own source, and
prints one summary line per job and direction whose mean and standard deviation are those of
the three stored values (python's statistics module over the ndjson export). Under a
pseudo-terminal it shows "run K/3" as it goes. Skipped (77) without fio."""
import os, re, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("run_repeat")
SCALE = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "ns": 1, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9}
NUMBER = r"([\d.]+)\s?(k|M|G|)"
LATENCY = r"([\d.]+) (ns|\u00b5s|ms|s)"
SUMMARY = re.compile(r"^r: (.*) \(storage class scratch\): %s IOPS \u00b1 %s \(n=(\d+)\), "
                     r"p99 %s \u00b1 %s$" % (NUMBER, NUMBER, LATENCY, LATENCY))


def shown(t_what, number, unit, want):
    """A number as printed (rounded to its last digit, in unit) is want rounded."""
    decimals = len(number.split(".")[1]) if "." in number else 0
    got = float(number) * SCALE[unit]
    return t.ok(abs(got - want) <= 0.5 * 10 ** -decimals * SCALE[unit] * 1.0001,
                "%s: printed %s %s, python's %r" % (t_what, number, unit, want))


def fio_job(d):
    return ["fio", "--name=r", "--filename=" + os.path.join(d, "f"), "--size=4M",
            "--rw=randread", "--bs=4k", "--ioengine=psync", "--time_based", "--runtime=1"]


def check_summary(db, out):
    rows = [r for r in bdb.export(db, t) if r["job"] == "r"]
    t.eq(len({r["source"] for r in rows}), 3, "three sources stored: %r" %
         sorted({r["source"] for r in rows}))
    t.eq(len(rows), 3, "one result per run")
    t.ok(all(re.match(r"^run:fio@.*#[123]$", r["source"]) for r in rows),
         "sources named run:fio@TIME#K: %r" % [r["source"] for r in rows])
    lines = out.splitlines()
    t.eq(len(lines), 1, "one summary line: %r" % out)
    m = SUMMARY.match(lines[0] if lines else "")
    if not t.ok(m, "summary line: %r" % out):
        return
    iops = [r["iops"] for r in rows]
    shown("mean IOPS", m.group(2), m.group(3), statistics.mean(iops))
    shown("sd of IOPS", m.group(4), m.group(5), statistics.stdev(iops))
    t.eq(int(m.group(6)), 3, "n")
    p99 = [r["clat_p99_ns"] for r in rows]
    shown("mean p99", m.group(7), m.group(8), statistics.mean(p99))
    shown("sd of p99", m.group(9), m.group(10), statistics.stdev(p99))


def check_progress(d):
    """Under a terminal: 'run K/2' as each run starts, and the final line."""
    with bdb.temp_db() as db:
        rc, text = bdb.run_on_pty(["--db", db, "run", "--repeat", "2", "--"] + fio_job(d),
                                  stdout=subprocess.DEVNULL)
    t.eq(rc, 0, "run --repeat 2 on a terminal: " + text[-300:])
    for k in (1, 2):
        t.ok("\x1b[Krun %d/2: %d/2 runs" % (k, k - 1) in text, "run %d/2 shown: %r" % (k, text))
    t.ok(re.search(r"\x1b\[K2/2 runs, [\d.]+ runs/s\r\n$", text), "final line: %r" % text[-80:])


BITS = {"bit/s": 1, "kbit/s": 1e3, "Mbit/s": 1e6, "Gbit/s": 1e9}


def check_network_bits():
    """`run -- iperf3` prints a network's rate in bit/s, as the report does (issue 28): the
    mean and sd of the two stored receiver rates (bytes/s in the export) times 8."""
    if not shutil.which("iperf3"):
        return
    server = subprocess.Popen(["iperf3", "-s", "-p", "5397"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        with bdb.temp_db() as db:
            rc, out, err = bdb.call(db, "run", "--repeat", "2", "--", "iperf3", "-c", "127.0.0.1",
                                    "-p", "5397", "-t", "1")
            t.eq(rc, 0, "run -- iperf3: " + err)
            bits = [r["bw_bytes_s"] * 8 for r in bdb.export(db, t)]
            m = re.match(r"^iperf3 TCP, 1 stream \(send\): ([\d.]+) (\w+/s) \u00b1 ([\d.]+) (\w+/s) "
                         r"\(n=2\)$", out.strip())
            if t.ok(m and m.group(2) in BITS and m.group(4) in BITS, "in bit/s: %r" % out):
                for value, unit, want, what in ((m.group(1), m.group(2), statistics.mean(bits), "mean"),
                                                (m.group(3), m.group(4), statistics.stdev(bits), "sd")):
                    SCALE[unit] = BITS[unit]
                    shown("iperf3 %s rate" % what, value, unit, want)
    finally:
        server.terminate()
        server.wait()


def main():
    check_network_bits()
    if not shutil.which("fio"):
        print("run_repeat: fio not installed, skipped")
        return 77
    d = tempfile.mkdtemp(prefix="bdb-repeat-")
    try:
        with bdb.temp_db() as db:
            rc, out, err = bdb.call(db, "run", "--repeat", "3", "--storage-class", "scratch",
                                    "--", *fio_job(d))
            t.eq(rc, 0, "run --repeat 3: " + err)
            t.ok("\r" not in err, "no status line without a terminal")
            check_summary(db, out)
        rc, _, err = bdb.call(None, "run", "--repeat", "0", "--", "fio", "--version")
        t.eq((rc, err.splitlines()[0] if err else ""),
             (2, "benchdb run: error: expected --repeat 1..1000 or auto, got '0'"), "--repeat 0")
        check_progress(d)
    finally:
        shutil.rmtree(d)
    return t.done()


sys.exit(main())
