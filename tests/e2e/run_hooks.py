"""run_hooks.py: `benchdb run --repeat N --drop-caches --prepare CMD --cleanup CMD` runs, for
each run, the cache drop and CMD before it and CMD after it (also after a failed run), in that
order, as a log the commands write shows; a failing --prepare stops before the run (nothing of
it imported, exit 1), a failing --cleanup is said (exit 1) after the run was imported. Real fio
runs of 1 s on a temporary file. Skipped (77) without fio."""
import ctypes, os, shutil, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("run_hooks")


def fio_job(f):
    return ["fio", "--name=r", "--filename=" + f, "--size=4M", "--rw=read", "--bs=4k",
            "--ioengine=psync", "--time_based", "--runtime=1"]


def sources(db):
    return bdb.sql_rows(db, "SELECT count(*) FROM source_file")[0][0]


def resident_bytes(path):
    """The bytes of path that are in the page cache: mincore(2) over a read-only mapping."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    size, page = os.path.getsize(path), os.sysconf("SC_PAGE_SIZE")
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = libc.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap " + path)
        vec = ctypes.create_string_buffer((size + page - 1) // page)
        rc = libc.mincore(addr, size, vec)
        libc.munmap(addr, size)
        if rc:
            raise OSError(ctypes.get_errno(), "mincore " + path)
    finally:
        os.close(fd)
    return sum(b & 1 for b in vec.raw) * page


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
            big = os.path.join(tmp, "big")
            with open(big, "wb") as g:
                g.write(os.urandom(64 << 20))
            before = resident_bytes(big)
            rc, out, err = bdb.call(db, "run", "--drop-caches", "--", *fio_job(f))
            after = resident_bytes(big)
            t.eq(rc, 0, "--drop-caches as root: " + err)
            # the file's own pages, not the machine's Cached, which other programs change
            t.ok(before == 64 << 20 and after < 1 << 20, "the 64 MiB just written left the "
                 "page cache (%d bytes of it cached before the run, %d after)" % (before, after))
    return t.done()


sys.exit(main())
