"""bdb.py: running benchdb from the end-to-end tests ($BENCHDB, a warehouse per test or per
call) and reading back what it stored (the ndjson export) or would store (`import -n`)."""
import contextlib, glob, json, os, pty, re, subprocess, tempfile

BENCHDB = os.environ.get("BENCHDB", "benchdb")
EXAMPLES = os.path.join(os.environ.get("SRCDIR", "."), "tests", "fixtures", "disk_tmpfs")
RECORD = re.compile(r"^record (.*)/(\w*)(?: lines (\d+)-(\d+))?$")


def run(db, *args, **kw):
    """benchdb [--db DB] ARGS...: the CompletedProcess, output as text (kw: subprocess.run's)."""
    kw.setdefault("timeout", 300)
    cmd = [BENCHDB] + (["--db", db] if db else []) + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def run_on_pty(args, stdout=None):
    """Runs benchdb ARGS with stderr on a pseudo-terminal (and stdout too unless given, e.g.
    subprocess.DEVNULL): (exit status, the text written there)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([BENCHDB] + list(args), stdout=slave if stdout is None else stdout,
                         stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the terminal's other end closed
            break
        if not chunk:
            break
        data += chunk
    rc = p.wait(timeout=300)
    os.close(master)
    return rc, data.decode()


def call(db, *args, **kw):
    """run() as (exit status, stdout, stderr)."""
    p = run(db, *args, **kw)
    return p.returncode, p.stdout, p.stderr


def export(db, checks=None):
    """Every stored result, as the list of the ndjson export's objects; with checks, the
    export's exit status counts as a check."""
    p = run(db, "export", "--format", "ndjson")
    if checks:
        checks.eq(p.returncode, 0, "export exit status " + p.stderr.strip())
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def import_examples(db, *opts, checks=None):
    """Imports tests/fixtures/disk_tmpfs/disk/*.json and tests/fixtures/disk_tmpfs/tmpfs/*.json, each with its folder's name as
    --storage-class (and opts); with checks, each import's exit status counts as a check.
    Returns {storage class: the files}."""
    files = {}
    for cls in ("disk", "tmpfs"):
        files[cls] = sorted(glob.glob(os.path.join(EXAMPLES, cls, "*.json")))
        p = run(db, "import", "--storage-class", cls, *opts, *files[cls])
        if checks:
            checks.eq(p.returncode, 0, "import %s: %s" % (cls, p.stderr))
    return files


@contextlib.contextmanager
def temp_db(name="t.sqlite"):
    """The path of a warehouse in a fresh directory, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="bdb-e2e-") as tmp:
        yield os.path.join(tmp, name)


def import_export(path, *opts, **kw):
    """Imports one file (with import options opts) into a fresh warehouse: (the import's
    CompletedProcess, the exported results; none when the import failed)."""
    with temp_db() as db:
        p = run(db, "import", *opts, path, **kw)
        return p, export(db) if p.returncode == 0 else []


def write(path, data):
    """Writes bytes or text (as is, no newline translation) and returns path."""
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def rejects(checks, path, want, *opts, whole_line=False, db=None):
    """Imports path (into db, by default a fresh warehouse) and checks exit status 1 and the
    message want in stderr (with whole_line, as a whole line of it); returns the process."""
    with temp_db() as fresh:
        p = run(db or fresh, "import", *opts, path)
    name = os.path.basename(path)
    checks.eq(p.returncode, 1, name + ": exit status")
    found = want in (p.stderr.splitlines() if whole_line else p.stderr)
    checks.ok(found, "%s: stderr %r lacks %r" % (name, p.stderr.strip(), want))
    return p


def parse_records(text):
    """Records as record_dump prints them (`benchdb import -n`, dump_records): one dict per
    record with job, direction ('' when none), line_first, line_last (None when unknown) and
    every printed key (tag.NAME, metrics, ...) with its value as printed (a string)."""
    recs = []
    for line in text.splitlines():
        m = RECORD.match(line)
        if m:
            first, last = (int(x) if x else None for x in m.group(3, 4))
            recs.append({"job": m.group(1), "direction": m.group(2), "line_first": first,
                         "line_last": last})
        elif line.startswith("  ") and recs:
            k, _, v = line.strip().partition("=")
            recs[-1][k] = v
    return recs


def dry_run(path, *opts):
    """`benchdb import -n OPTS path`: (CompletedProcess, the records it would store)."""
    p = run(None, "import", "-n", *opts, path)
    return p, parse_records(p.stdout)


def decode(data, codec, dictionary=None):
    """Stored bytes as the file had them: codec NULL is as is, 'zstd' one zstd frame, against
    dictionary (bytes) when given (decoded by the zstd program, independently of benchdb)."""
    import tempfile
    if codec is None:
        assert dictionary is None, "a dictionary for bytes stored as they are"
        return bytes(data)
    assert codec == "zstd", "unknown codec %r" % codec
    with tempfile.NamedTemporaryFile(prefix="bdb-dict-") as f:
        args = ["zstd", "-d", "-c", "-q"]
        if dictionary is not None:
            f.write(dictionary)
            f.flush()
            args += ["-D", f.name]
        return subprocess.run(args, input=bytes(data), capture_output=True, check=True).stdout


def stored_bytes(db, source_id):
    """The bytes of source id as the warehouse stores them (schema/0003_raw.sql,
    0006_raw_dict.sql), decoded: its raw (against its dictionary when it has one), or its
    chunks in seq order; read with python's sqlite3."""
    import sqlite3
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        cols = {r[1] for r in con.execute("PRAGMA table_info(source_file)")}
        codec = "raw_codec" if "raw_codec" in cols else "NULL"
        dict_sql = ("(SELECT bytes FROM raw_dict WHERE id = raw_dict)" if "raw_dict" in cols
                    else "NULL")
        raw = con.execute("SELECT raw, %s, %s FROM source_file WHERE id = ?" % (codec, dict_sql),
                          (source_id,)).fetchone()
        if raw[0] is not None:
            return decode(*raw)
        codec = "codec" if "raw_codec" in cols else "NULL"
        rows = con.execute("SELECT data, %s FROM source_chunk WHERE source_id = ? ORDER BY seq"
                           % codec, (source_id,))
        return b"".join(decode(data, c) for data, c in rows)
    finally:
        con.close()


def dd_outputs(directory, n):
    """n real GNU dd outputs, made here: one file per run of `dd if=/dev/zero of=/dev/null
    bs=1k count=N`, N = 1 .. n (each reports its own counts, time and rate); their paths."""
    paths = []
    for i in range(1, n + 1):
        path = os.path.join(directory, "dd-%03d.txt" % i)
        with open(path, "wb") as f:
            subprocess.run(["dd", "if=/dev/zero", "of=/dev/null", "bs=1k", "count=%d" % i],
                           stderr=f, check=True, env=dict(os.environ, LC_ALL="C"))
        paths.append(path)
    return paths


def sql_rows(db, sql, *args):
    """The rows of sql over the warehouse, read with python's sqlite3 (independent of
    benchdb)."""
    import sqlite3
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def file_sha256(path):
    """The sha256 (hex) of the file's bytes."""
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def complete(script, words, env, line=None):
    """COMPREPLY of the bash completion script for the command line `words` (the last one
    being completed; line: the text they were split from, else them joined with spaces), with
    bash-completion's own framework loaded as in an interactive shell; sorted."""
    import shlex
    line = " ".join(words) if line is None else line
    prog = ("source /usr/share/bash-completion/bash_completion; source %s; "
            "COMP_WORDS=(%s); COMP_CWORD=%d; COMP_LINE=%s; COMP_POINT=${#COMP_LINE}; _benchdb; "
            "printf '%%s\\n' \"${COMPREPLY[@]}\"") % (
                shlex.quote(script), " ".join(shlex.quote(w) for w in words), len(words) - 1,
                shlex.quote(line))
    p = subprocess.run(["bash", "-c", prog], capture_output=True, text=True, timeout=300, env=env)
    return sorted(x for x in p.stdout.split("\n") if x)
