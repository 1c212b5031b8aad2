#!/usr/bin/python3
"""Text that is not UTF-8 (issue 29, item 5). One rule for every text column: the warehouse
holds UTF-8 only. An import stores a job name, a file name or a sidecar value that is not UTF-8
with each byte of an ill-formed sequence as \\xNN, and says so in a warning naming the file
(and the line: the job's, the sidecar's); a label given by a flag (--host, --storage-class,
--mount, --sec, --tag, relabel --set) that is not UTF-8 is a usage error (exit 2, nothing
stored). Input: a real fio run whose job name is Latin-1 (tests/fixtures/utf8/gen.sh), saved
under a Latin-1 file name beside a Latin-1 sidecar. Every text value of every table is then
read back with python's sqlite3 as bytes and decoded strictly; the escaped values are computed
by python (bytes.decode(errors="backslashreplace") escapes each byte that is not part of a
well-formed sequence, as benchdb must). Before the fix the bytes were stored as they came (and
push failed on them at every later push). Env: BENCHDB, FIXTURES."""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from checks import Checks  # noqa: E402

BENCHDB = os.environ.get("BENCHDB", "benchdb")
FIXTURE = os.path.join(os.environ["FIXTURES"], "utf8", "latin1_job.json")
t = Checks("utf8_text")


def run(db, *args):
    """benchdb --db DB ARGS (str or bytes): (status, stdout, stderr) as bytes."""
    p = subprocess.run([BENCHDB, "--db", db] + list(args), capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def escaped(b):
    return b.decode("utf-8", errors="backslashreplace")


def all_text(db):
    """(table, column, bytes) of every non-NULL TEXT value of every table."""
    con = sqlite3.connect(db)
    con.text_factory = bytes
    out = []
    tables = [r[0].decode() for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    for table in tables:
        cols = [r[1].decode() for r in con.execute("SELECT * FROM pragma_table_info(?)", (table,))
                if r[2].upper() == b"TEXT"]
        for col in cols:
            for (v,) in con.execute('SELECT CAST("%s" AS BLOB) FROM "%s" WHERE "%s" IS NOT NULL'
                                    % (col, table, col)):
                out.append((table, col, v))
    con.close()
    return out


def job_line(data):
    """The line of the '{' that opens the first job of fio's JSON: where its result starts."""
    at = data.index(b"{", data.index(b'"jobs"'))
    return data[:at].count(b"\n") + 1


def main():
    data = open(FIXTURE, "rb").read()
    start = data.index(b'"jobname" : "') + len(b'"jobname" : "')
    job = data[start:data.index(b'"', start)]
    t.ok(b"\xe9" in job, "the fixture's job name holds a Latin-1 byte")
    with tempfile.TemporaryDirectory(prefix="bdb-utf8-") as tmp:
        tmpb = tmp.encode()
        name = os.path.join(tmpb, b"r\xe9sultat.json")
        shutil.copyfile(FIXTURE, name)
        host = b"h\xf6st-\xe2\x82"  # a Latin-1 letter, then a 3-byte sequence cut short
        with open(name + b".meta", "wb") as f:
            f.write(b"# written in ISO-8859-1\nhost=" + host + b"\ntag.site=K\xf6ln\n")
        db = os.path.join(tmp, "w.sqlite")

        code, out, err = run(db, "import", name)
        t.eq(code, 0, "import exit status: %r" % err)
        shown = escaped(name)  # how the messages after the first name the file
        want = [
            b"%s: warning: file name is not UTF-8: stored as '%s' (each byte that is not as "
            b"\\xNN)" % (name, shown.encode()),
            b"%s.meta:2: warning: value of 'host' is not UTF-8: stored as '%s' (each byte that "
            b"is not as \\xNN)" % (name, escaped(host).encode()),
            b"%s.meta:3: warning: value of 'tag.site' is not UTF-8: stored as 'K\\xf6ln' (each "
            b"byte that is not as \\xNN)" % name,
            b"%s:%d: warning: job is not UTF-8: stored as '%s' (each byte that is not as \\xNN)"
            % (shown.encode(), job_line(data), escaped(job).encode()),
        ]
        got = [line for line in err.split(b"\n") if b"warning" in line]
        t.eq(sorted(got), sorted(want), "one warning per text, naming the file and line")

        texts = all_text(db)
        bad = [(tb, c, v) for tb, c, v in texts if not valid(v)]
        t.eq(bad, [], "every text stored is UTF-8")
        con = sqlite3.connect(db)
        con.text_factory = bytes  # read as stored, whatever it is
        t.eq(con.execute("SELECT path FROM source_file").fetchall(), [(shown.encode(),)],
             "the file name, escaped")
        t.eq(con.execute("SELECT DISTINCT job, host FROM result").fetchall(),
             [(escaped(job).encode(), escaped(host).encode())],
             "the job name and the sidecar's host, escaped")
        t.eq(con.execute("SELECT DISTINCT value FROM tag WHERE key = 'site'").fetchall(),
             [(b"K\\xf6ln",)], "the sidecar's tag, escaped")
        con.close()

        # flags: a usage error, nothing stored
        db2 = os.path.join(tmp, "flags.sqlite")
        ok = os.path.join(tmp, "ok.json")
        shutil.copyfile(FIXTURE, ok)
        for opt, value in (("--host", b"caf\xe9"), ("--storage-class", b"nfs-\xff"),
                           ("--mount", b"rw,\xc0\xaf"), ("--sec", b"sys\xed\xa0\x80"),
                           ("--tag", b"site=K\xf6ln")):
            code, out, err = run(db2, "import", opt, value, ok)
            t.eq(code, 2, "import %s %r: usage error" % (opt, value))
            t.ok(err.startswith(b"benchdb import: error: %s is not UTF-8: '%s'"
                                % (opt.encode(), escaped(value).encode())),
                 "import %s names the flag and shows its bytes: %r" % (opt, err))
        t.ok(not os.path.exists(db2) or
             sqlite3.connect(db2).execute("SELECT count(*) FROM result").fetchone() == (0,),
             "nothing stored by a refused import")
        code, out, err = run(db, "relabel", "--where", "job=" + escaped(job), "--set",
                             b"host=caf\xe9")
        t.eq(code, 2, "relabel --set host=<Latin-1>: usage error")
        code, out, err = run(db, "import", "--host", "caf\u00e9", ok)
        t.eq(code, 0, "import --host with UTF-8 text: %r" % err)
    return t.done()


def valid(b):
    try:
        b.decode("utf-8")
        return b"\x00" not in b
    except UnicodeDecodeError:
        return False


sys.exit(main())
