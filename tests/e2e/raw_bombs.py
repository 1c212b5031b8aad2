#!/usr/bin/python3
"""Decompression bombs in stored bytes and dictionaries (issue 29, item 3). benchdb stores a
file whole up to 4 MiB (DB_CHUNK_BYTES, docs/schema.md), else in 4 MiB chunks, so no piece it
writes decodes to more; a dictionary it trains is at most 32 KiB. Made here from a small
warehouse of real fixtures (the zstd program compresses the bombs, python hashes):
- a merge of a warehouse holding (1) a 2 GiB run of zeros as one zstd frame (about 66 KB; its
  size_bytes says so; the frame from a pipe declares no size), (2) a frame that declares 2 GiB
  with size_bytes 4 MiB, (3) a size_bytes of 1 TB: refused (exit 1) with each source named and
  why, nothing merged; max RSS under 128 MiB, and under an address-space limit of 512 MiB
  (not under ASan, whose shadow memory needs more) where an older benchdb asked for 2 GiB;
- reparse of a warehouse holding the same bombs: each named with why and left as it is, every
  other source reparsed, exit 1, memory as bounded;
- a merge of a warehouse whose source points at a "dictionary" of 200 MB (zeros, its sha256
  honest: the size is the fault), or at 16 KiB of random bytes (not a zstd dictionary): refused,
  the dictionary and the source named, no dictionary stored;
- a warehouse already holding a 200 MB "dictionary" for dd (as an older merge left it): an
  import of a dd file does not load it (max RSS under 128 MiB, an older benchdb took 400 MB),
  and stores the file without it.
Env: BENCHDB, FIXTURES."""
import glob
import hashlib
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.environ.get("FIXTURES") or os.path.join(HERE, "..", "fixtures")
GIB2 = 2 << 30
PIECE_MAX = 4 << 20  # DB_CHUNK_BYTES
RSS_MAX = 128 << 20
AS_LIMIT = 512 << 20
t = Checks("raw_bombs")


def asan():
    with open(bdb.BENCHDB, "rb") as f:
        return b"__asan_init" in f.read()


ASAN = asan()


def measured(db, *args):
    """benchdb --db DB ARGS under an address-space limit (but under ASan): (exit status,
    stdout, stderr, max RSS in bytes)."""
    def limit():
        if not ASAN:
            resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
    env = dict(os.environ, ASAN_OPTIONS=(os.environ.get("ASAN_OPTIONS", "") +
                                         ":quarantine_size_mb=0").lstrip(":"))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([bdb.BENCHDB, "--db", db] + list(args), stdout=out, stderr=err,
                             stdin=subprocess.DEVNULL, preexec_fn=limit, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (p.returncode, out.read().decode(errors="replace"),
                err.read().decode(errors="replace"), usage.ru_maxrss * 1024)


def zstd(cmd):
    """The zstd frame the shell pipeline cmd writes (to stdout)."""
    return subprocess.run(["sh", "-c", cmd], capture_output=True, check=True).stdout


def bombs(tmp):
    """(frame of 2 GiB of zeros with no declared size, frame that declares 2 GiB)."""
    piped = zstd("head -c %d /dev/zero | zstd -q -1 -c" % GIB2)
    sparse = os.path.join(tmp, "zeros")
    with open(sparse, "wb") as f:
        f.truncate(GIB2)
    sized = zstd("zstd -q -1 -c '%s'" % sparse)
    os.unlink(sparse)
    return piped, sized


def fixtures():
    files = sorted(glob.glob(os.path.join(FIX, "dd", "*.txt")))[:6]
    files += sorted(glob.glob(os.path.join(FIX, "fio_json", "*.json")))[:4]
    return files


def armed(src, dst, piped, sized, victims):
    """A copy of warehouse src whose sources victims (paths) hold the bombs."""
    shutil.copy(src, dst)
    con = sqlite3.connect(dst)
    fake = [hashlib.sha256(b"bomb %d" % i).hexdigest() for i in range(3)]
    sets = [(piped, GIB2), (sized, PIECE_MAX), (piped, 1 << 40)]
    for (raw, size), path, sha in zip(sets, victims, fake):
        con.execute("UPDATE source_file SET raw = ?, raw_codec = 'zstd', raw_dict = NULL, "
                    "size_bytes = ?, sha256 = ? WHERE path = ?", (raw, size, sha, path))
    con.commit()
    con.close()
    return dst


def check_bounded(what, rss):
    t.ok(rss < RSS_MAX, "%s: max RSS %.1f MiB, under %d" % (what, rss / 2**20, RSS_MAX >> 20))


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-bombs-") as tmp:
        piped, sized = bombs(tmp)
        t.ok(len(piped) < 200 << 10 and len(sized) < 200 << 10,
             "the bombs are small frames: %d and %d bytes" % (len(piped), len(sized)))
        files = fixtures()
        base = os.path.join(tmp, "base.sqlite")
        code, out, err = bdb.call(base, "import", *files)  # some dd fixtures are errors: 1
        t.ok(code in (0, 1), "import of %d fixtures: %s" % (len(files), err[-300:]))
        paths = [p for (p,) in bdb.sql_rows(base, "SELECT path FROM source_file ORDER BY id")]
        t.ok(len(paths) >= 8, "most fixtures stored (%d)" % len(paths))
        victims = [paths[1], paths[4], paths[7]]
        why = ["piece 1 claims %d bytes once decoded, more than the %d benchdb stores in one"
               % (GIB2, PIECE_MAX),
               "piece 1 is a zstd frame of %d bytes, not the %d stored with it"
               % (GIB2, PIECE_MAX),
               "piece 1 claims %d bytes once decoded, more than the %d benchdb stores in one"
               % (1 << 40, PIECE_MAX)]

        other = armed(base, os.path.join(tmp, "other.sqlite"), piped, sized, victims)
        into = os.path.join(tmp, "into.sqlite")
        code, out, err, rss = measured(into, "merge", other)
        t.eq(code, 1, "merge of bombs refused: " + err[-400:])
        ids = {p: i + 1 for i, p in enumerate(paths)}
        for path, reason in zip(victims, why):
            want = ("%s: error: source '%s' (id %d): its stored bytes do not decode: %s\n"
                    % (other, path, ids[path], reason))
            t.ok(want in err, "merge names %s: %r in %r" % (os.path.basename(path), want, err))
        t.eq(bdb.sql_rows(into, "SELECT count(*) FROM source_file"), [(0,)], "nothing merged")
        check_bounded("merge", rss)

        local = armed(base, os.path.join(tmp, "local.sqlite"), piped, sized, victims)
        code, out, err, rss = measured(local, "reparse")
        t.eq(code, 1, "reparse with bombs: exit 1: " + err[-400:])
        t.eq(err, "".join("%s: error: its stored bytes do not decode: %s; left as it is\n"
                          % (p, r) for p, r in zip(victims, why)),
             "reparse names each bomb and why")
        t.eq(sorted(line.split(": unchanged")[0] for line in out.splitlines()),
             sorted(p for p in paths if p not in victims), "every other source reparsed")
        check_bounded("reparse", rss)

        # dictionaries that are not
        for name, blob in (("huge", None), ("random", os.urandom(16 << 10))):
            db = os.path.join(tmp, name + ".sqlite")
            shutil.copy(base, db)
            con = sqlite3.connect(db)
            if blob is None:
                size = 200 << 20
                sha = hashlib.sha256(bytes(size)).hexdigest()
                con.execute("INSERT INTO raw_dict(id, sha256, format, bytes) VALUES "
                            "(9, ?, 'dd', zeroblob(?))", (sha, size))
                reason = "it is %d bytes, more than the %d a dictionary may hold" % (size, 1 << 20)
            else:
                con.execute("INSERT INTO raw_dict(id, sha256, format, bytes) VALUES "
                            "(9, ?, 'dd', ?)", (hashlib.sha256(blob).hexdigest(), blob))
                reason = "it is not a zstd dictionary"
            con.execute("UPDATE source_file SET raw_dict = 9 WHERE path = ?", (paths[0],))
            con.commit()
            con.close()
            into = os.path.join(tmp, name + "-into.sqlite")
            code, out, err, rss = measured(into, "merge", db)
            want = "%s: error: dictionary 9 (format 'dd') of source '%s': %s\n" % (db, paths[0],
                                                                                 reason)
            t.eq(code, 1, "%s dictionary: merge refused: %s" % (name, err[-300:]))
            t.ok(err.startswith(want), "%s dictionary named: %r (want %r)" % (name, err, want))
            t.eq(bdb.sql_rows(into, "SELECT count(*) FROM source_file UNION ALL "
                                    "SELECT count(*) FROM raw_dict"), [(0,), (0,)],
                 "%s dictionary: nothing merged" % name)
            check_bounded("merge of a %s dictionary" % name, rss)

        # a warehouse that holds a 200 MB "dictionary" already: imports do not load it
        huge = os.path.join(tmp, "huge.sqlite")
        con = sqlite3.connect(huge)
        con.execute("UPDATE source_file SET raw_dict = NULL")  # left alone: the dictionary only
        con.commit()
        con.close()
        extra = os.path.join(tmp, "dd-extra.txt")
        with open(extra, "wb") as f:
            subprocess.run(["dd", "if=/dev/zero", "of=/dev/null", "bs=1k", "count=3"], stderr=f,
                           check=True, env=dict(os.environ, LC_ALL="C"))
        code, out, err, rss = measured(huge, "import", extra)
        t.eq(code, 0, "import beside a 200 MB dictionary: " + err[-300:])
        t.eq(bdb.sql_rows(huge, "SELECT raw_dict FROM source_file WHERE path = ?", extra),
             [(None,)], "the file is stored without it")
        check_bounded("import beside a 200 MB dictionary", rss)
    return t.done()


sys.exit(main())
