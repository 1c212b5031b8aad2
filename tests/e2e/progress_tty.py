"""progress_tty.py: `benchdb import` on a terminal (a pseudo-terminal from python's pty module)
draws one status line, rewritten in place ("\\r\\033[K"), whose last version stays: files
done/total, results stored, bytes read and the rates. Its numbers are checked against the files
given: their count, their size (os.stat) and their results, counted with python's json module
(one result per fio job and direction that did I/O). Without a terminal there is no status
line at all."""
import glob, json, os, re, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("progress_tty")
FILES = sorted(glob.glob(os.path.join(bdb.EXAMPLES, "*", "*.json")))
LINE = re.compile(r"^(\d+)/(\d+) files, (\d+) results?, ([\d.]+) (B|KiB|MiB|GiB), "
                  r"([\d.]+) files/s, ([\d.]+) (B|KiB|MiB|GiB)/s$")
SCALE = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}


def results_in(path):
    with open(path) as f:
        jobs = json.load(f)["jobs"]
    return sum(1 for j in jobs for d in ("read", "write", "trim") if j[d]["total_ios"] > 0)


def last_status(text):
    """The last status line: what follows the last erase before the final newline."""
    lines = [seg for seg in re.split(r"\r\n|\n", text) if "\x1b[K" in seg]
    if not lines:
        return None, 0
    draws = len(re.findall(r"\x1b\[K\d+/\d+ files", text))
    return lines[-1].rsplit("\x1b[K", 1)[1], draws


def check_tty():
    want_results = sum(results_in(f) for f in FILES)
    want_bytes = sum(os.stat(f).st_size for f in FILES)
    with bdb.temp_db() as db:
        start = time.monotonic()
        rc, text = bdb.run_on_pty(["--db", db, "import", "-j", "1"] + FILES)
        secs = time.monotonic() - start
        t.eq(rc, 0, "import on a terminal: " + text[-300:])
        line, draws = last_status(text)
        t.ok(line is not None, "a status line was drawn: %r" % text[-300:])
        m = LINE.match(line or "")
        if not t.ok(m, "the last status line reads as expected: %r" % line):
            return
        t.eq(int(m.group(1)), len(FILES), "files done")
        t.eq(int(m.group(2)), len(FILES), "files given")
        t.eq(int(m.group(3)), want_results, "results stored")
        stored = bdb.sql_rows(db, "SELECT count(*) FROM result")[0][0]
        t.eq(stored, want_results, "results in the warehouse (python's sqlite3)")
        t.near(float(m.group(4)) * SCALE[m.group(5)], want_bytes, "bytes read", rel=0.01)
        # the rates: what was done over the time taken, which is at most the process's time
        t.ok(float(m.group(6)) >= len(FILES) / secs * 0.99, "files/s at least files over "
             "the wall time: %s vs %d / %.3f" % (m.group(6), len(FILES), secs))
        t.ok(float(m.group(7)) * SCALE[m.group(8)] >= want_bytes / secs * 0.98,
             "bytes/s at least bytes over the wall time")
        t.ok(text.endswith(line + "\r\n"), "the last line stays, ended by a newline")
        t.ok(draws <= secs * 10 + 3, "at most ten redraws a second: %d in %.2f s" % (draws, secs))


def check_no_tty():
    with bdb.temp_db() as db:
        rc, _, err = bdb.call(db, "import", *FILES)
        t.eq(rc, 0, "import to a pipe: " + err)
        t.ok("\r" not in err and "\x1b" not in err, "no status line on a pipe: %r" % err[-200:])
        t.eq(err.count(": imported "), len(FILES), "each file said imported")


check_tty()
check_no_tty()
sys.exit(t.done())
