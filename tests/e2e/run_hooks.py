"""run_hooks.py: `benchdb run --repeat N --drop-caches --prepare CMD --cleanup CMD` runs, for
each run, the cache drop and CMD before it and CMD after it (also after a failed run), in that
order, as a log the commands write shows; a failing --prepare stops before the run (nothing of
it imported, exit 1), a failing --cleanup is said (exit 1) after the run was imported. Real fio
runs of 1 s on a temporary file. Skipped (77) without fio."""
import os, shutil, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("run_hooks")


def fio_job(f):
    return ["fio", "--name=r", "--filename=" + f, "--size=4M", "--rw=read", "--bs=4k",
            "--ioengine=psync", "--time_based", "--runtime=1"]


def sources(db):
    return bdb.sql_rows(db, "SELECT count(*) FROM source_file")[0][0]


def main():
    if not shutil.which("fio"):
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        db, log, f = (os.path.join(tmp, n) for n in ("w.sqlite", "log", "f"))
        drop = ["--drop-caches"] if os.geteuid() == 0 else []
        rc, out, err = bdb.call(db, "run", "--repeat", "3", *drop, "--prepare",
                                "echo prepare >> %s; test ! -e %s" % (log, f), "--cleanup",
                                "echo cleanup >> %s; rm -f %s" % (log, f), "--", *fio_job(f))
        t.eq(rc, 0, "three runs with their hooks: " + err)
        t.eq(open(log).read().split(), ["prepare", "cleanup"] * 3,
             "prepare before and cleanup after each run (the prepare finds no test file left)")
        t.ok(not os.path.exists(f), "the last cleanup removed the test file")
        t.eq(sources(db), 3, "three runs stored")

        os.remove(log)
        rc, out, err = bdb.call(db, "run", "--prepare", "echo no >&2; exit 3", "--cleanup",
                                "echo cleanup >> " + log, "--", *fio_job(f))
        t.eq(rc, 1, "a failing --prepare: exit 1")
        t.ok("no\n" in err and "--prepare 'echo no >&2; exit 3' exited with status 3 (run 1)"
             in err, "its output and status said: %r" % err)
        t.eq((sources(db), os.path.exists(log), os.path.exists(f)), (3, False, False),
             "the run did not start: nothing stored, no cleanup")

        rc, out, err = bdb.call(db, "run", "--cleanup", "exit 4", "--", *fio_job(f))
        t.eq(rc, 1, "a failing --cleanup: exit 1")
        t.ok("--cleanup 'exit 4' exited with status 4 (run 1)" in err, err)
        t.eq(sources(db), 4, "the run before it was stored")

        if drop:
            before = int(open("/proc/meminfo").read().split("Cached:")[1].split()[0])
            with open(os.path.join(tmp, "big"), "wb") as g:
                g.write(os.urandom(64 << 20))
            rc, out, err = bdb.call(db, "run", "--drop-caches", "--", *fio_job(f))
            after = int(open("/proc/meminfo").read().split("Cached:")[1].split()[0])
            t.eq(rc, 0, "--drop-caches as root: " + err)
            t.ok(after < before + (64 << 10), "the 64 MiB just written left the page cache "
                 "(Cached %d kB before the write, %d kB after the run)" % (before, after))
    return t.done()


sys.exit(main())
