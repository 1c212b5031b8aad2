"""run_bounds.py: `benchdb run` reads only what fio's argument grammar makes a job file, holds a
bounded part of what the benchmark writes, and passes a signal it receives on to the benchmark.

- `run -- fio ... --filename BIG` (the value as its own argument, BIG a 1 GiB sparse file) runs
  in a few MB (benchdb's peak RSS from wait4, under 200 MB; it read BIG whole as a job file:
  1 GB) and records BIG's mount (tag mountpoint, /dev/shm); a positional job file after a flag
  (--time_based) and an option with its value (--runtime 1) is read for its filename=.
- `run -- dd if=/dev/zero bs=1M count=512` (no of=: 512 MiB to its standard output, which
  benchdb does not import) stops dd with exit status 1 and an error naming the 16 MiB it holds,
  in under 200 MB (it held all of it).
- SIGTERM to benchdb while fio runs (--runtime 30 --time_based): fio and its job process end
  (their /proc entries are gone), benchdb exits 128 + 15 well before the 30 s, nothing stored;
  SIGINT and SIGHUP sent to benchdb (not its group) while dd waits on a FIFO end dd, exit
  128 + N. Before, fio ran on after benchdb was gone.
Skipped (77) without fio or dd."""
import os, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("run_bounds")
RSS_MAX_KB = 200 * 1024
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def default_signals():
    """In benchdb: the signals as a shell's foreground command has them (ctest or a
    non-interactive shell may start us with SIGINT ignored, which benchdb respects)."""
    for s in SIGNALS:
        signal.signal(s, signal.SIG_DFL)


def start(db, args, out, err):
    return subprocess.Popen([bdb.BENCHDB, "--db", db, "run", "--"] + args, stdout=out,
                            stderr=err, stdin=subprocess.DEVNULL, preexec_fn=default_signals)


def wait_rusage(p, timeout):
    """(exit status as subprocess gives it, peak RSS in KiB) of p, killed after timeout."""
    deadline = time.time() + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            p.returncode = os.waitstatus_to_exitcode(status)
            return p.returncode, ru.ru_maxrss
        if time.time() > deadline:
            p.kill()
        time.sleep(0.05)


def run_measured(db, args, timeout=120):
    """benchdb run -- ARGS: (exit status, stdout, stderr, peak RSS in KiB)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = start(db, args, out, err)
        rc, rss = wait_rusage(p, timeout)
        out.seek(0)
        err.seek(0)
        return rc, out.read().decode(), err.read().decode(errors="replace"), rss


def descendants(pid):
    """The pids of pid's children, their children, ... (from /proc/PID/task/*/children)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        for task in os.listdir("/proc/%d/task" % p) if os.path.isdir("/proc/%d" % p) else []:
            try:
                with open("/proc/%d/task/%s/children" % (p, task)) as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def alive(pid):
    """pid runs (a zombie is not running)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_filename_value(d):
    big = os.path.join("/dev/shm", "bdb-run-bounds-%d" % os.getpid())
    with open(big, "wb") as f:
        f.truncate(1 << 30)
    try:
        with bdb.temp_db() as db:
            rc, out, err, rss = run_measured(
                db, ["fio", "--name=r", "--filename", big, "--size=4M", "--rw=randread",
                     "--bs=4k", "--ioengine=psync", "--runtime=1", "--time_based"])
            t.eq(rc, 0, "fio --filename BIG: " + err[-500:])
            t.ok(rss < RSS_MAX_KB, "fio --filename BIG (1 GiB): peak RSS %d KiB" % rss)
            rows = bdb.export(db, t)
            t.eq([r["tags"].get("mountpoint") for r in rows], ["/dev/shm"],
                 "BIG's mount recorded")
    finally:
        os.unlink(big)
    # a job file after a flag and an option with its value separate: read for its filename=
    job = os.path.join(d, "j.fio")
    target = os.path.join("/dev/shm", "bdb-run-bounds-job-%d" % os.getpid())
    with open(job, "w") as f:
        f.write("[r]\nfilename=%s\nsize=1M\nrw=read\nbs=64k\nioengine=psync\n" % target)
    try:
        with bdb.temp_db() as db:
            rc, out, err, rss = run_measured(db, ["fio", "--runtime", "1", "--time_based", job])
            t.eq(rc, 0, "fio --runtime 1 --time_based JOB: " + err[-500:])
            t.eq([r["tags"].get("mountpoint") for r in bdb.export(db, t)], ["/dev/shm"],
                 "the job file's filename= mount recorded")
    finally:
        if os.path.exists(target):
            os.unlink(target)


def test_dd_stdout():
    with bdb.temp_db() as db:
        rc, out, err, rss = run_measured(db, ["dd", "if=/dev/zero", "bs=1M", "count=512"])
        t.eq(rc, 1, "dd without of=: exit status (%s)" % err.strip()[-300:])
        t.ok("more than 16 MiB" in err and "standard output" in err,
             "dd without of=: the error names the limit: %r" % err.strip()[-300:])
        t.ok(rss < RSS_MAX_KB, "dd without of= writing 512 MiB: peak RSS %d KiB" % rss)
        t.eq(bdb.sql_rows(db, "SELECT count(*) FROM result") if os.path.exists(db) else [(0,)],
             [(0,)], "nothing stored")


def wait_for(cond, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    t.ok(False, "timed out waiting for " + what)
    return None


def test_sigterm_fio(d):
    with bdb.temp_db() as db, tempfile.TemporaryFile() as err:
        began = time.time()
        p = start(db, ["fio", "--name=r", "--filename=" + os.path.join(d, "f"), "--size=4M",
                       "--rw=randread", "--bs=4k", "--ioengine=psync", "--runtime=30",
                       "--time_based"], subprocess.DEVNULL, err)
        # fio, then its job process (fio forks one per job)
        kids = wait_for(lambda: len(descendants(p.pid)) >= 2 and descendants(p.pid), 20,
                        "fio and its job process")
        time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(timeout=25)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        took = time.time() - began
        t.eq(rc, 128 + signal.SIGTERM, "SIGTERM: exit status")
        t.ok(took < 20, "SIGTERM: benchdb ended after %.1f s of fio's 30" % took)
        for k in kids or []:
            wait_for(lambda: not alive(k), 10, "pid %d to end" % k)
            t.ok(not alive(k), "SIGTERM: the benchmark's process %d ended" % k)
        err.seek(0)
        text = err.read().decode(errors="replace")
        t.ok("stopped by signal %d" % signal.SIGTERM in text, "SIGTERM: said: %r" % text)
        if os.path.exists(db):
            t.eq(bdb.sql_rows(db, "SELECT count(*) FROM result"), [(0,)], "nothing stored")


def test_signal_dd(d, sig):
    fifo = os.path.join(d, "fifo-%d" % sig)
    os.mkfifo(fifo)
    with bdb.temp_db() as db:
        p = start(db, ["dd", "if=" + fifo, "of=/dev/null"], subprocess.DEVNULL,
                  subprocess.DEVNULL)
        kids = wait_for(lambda: descendants(p.pid), 20, "dd")
        time.sleep(0.3)
        p.send_signal(sig)  # to benchdb only, not its process group
        try:
            rc = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        t.eq(rc, 128 + sig, "%s: exit status" % signal.Signals(sig).name)
        for k in kids or []:
            wait_for(lambda: not alive(k), 10, "dd %d to end" % k)
            t.ok(not alive(k), "%s: dd ended" % signal.Signals(sig).name)


def main():
    if not shutil.which("fio") or not shutil.which("dd"):
        print("run_bounds: fio or dd not installed, skipped")
        return 77
    d = tempfile.mkdtemp(prefix="bdb-run-bounds-")
    try:
        test_filename_value(d)
        test_dd_stdout()
        test_sigterm_fio(d)
        test_signal_dd(d, signal.SIGINT)
        test_signal_dd(d, signal.SIGHUP)
    finally:
        shutil.rmtree(d)
    return t.done()


sys.exit(main())
