#!/usr/bin/python3
"""`benchdb query` and `benchdb runs` under attack (issue 13): functions outside the allow-list
(fts3_tokenizer hands out and registers raw pointers) are refused; rows stream, so `| head -2`
on an endless query ends with its rows and --timeout stops a runaway one; a trailing comment or
CRLF is one statement, a second statement is not; 64-bit integers stay exact in JSON; Markdown
escapes '|' and HTML; control characters from a file name are escaped in the text grid and in
Markdown and kept exact in CSV and JSON. Expected texts are computed here from the inputs."""
import csv, io, json, os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("attack_query")
EXAMPLE = os.path.join(bdb.EXAMPLES, "disk", "seqread-1.json")  # a real fio 3.33 JSON output
ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c"


def query(db, sql, *opts):
    """benchdb query: (exit status, stdout, stderr); bytes that are not UTF-8 (a leaked
    pointer) replaced."""
    return bdb.call(db, "query", *opts, sql, timeout=120, errors="replace")


def refused_functions(db):
    for sql, name in [("SELECT fts3_tokenizer('simple')", "fts3_tokenizer"),
                      ("SELECT fts3_tokenizer('simple', x'4141414141414141')", "fts3_tokenizer"),
                      ("SELECT load_extension('/nonexistent')", "load_extension"),
                      ("SELECT length(zeroblob(1000000000))", "zeroblob"),
                      ("SELECT source FROM v_result WHERE fts3_tokenizer('x') IS NULL",
                       "fts3_tokenizer")]:
        rc, out, err = query(db, sql)
        t.eq(rc, 1, sql + ": exit status")
        t.eq(out, "", sql + ": no output")
        t.ok("error: query: refused: function '%s' is not allowed" % name in err,
             "%s: stderr %r names the function" % (sql, err))


def allowed_functions(db):
    """Ordinary functions work; each expected value is computed here."""
    cases = [
        ("count(*)", "2"),
        ("avg(x)", "2.5"),
        ("round(2.567, 2)", "2.57"),
        ("json_extract('{\"a\": [5, 7]}', '$.a[1]')", "7"),
        ("'{\"a\": 3}' ->> '$.a'", "3"),
        ("strftime('%Y-%m-%d', 86400 * 365, 'unixepoch')", "1971-01-01"),
        ("printf('%05.1f', 3.14159)", "%05.1f" % 3.14159),
        ("coalesce(NULL, 'z')", "z"),
        ("group_concat(x, '+')", "1+4"),
        ("upper(substr('benchdb', 1, 5))", "BENCH"),
        ("sum(x) OVER ()", "5"),
    ]
    sql = "SELECT %s FROM (SELECT 1 AS x UNION ALL SELECT 4) LIMIT 1"
    for expr, want in cases:
        rc, out, err = query(db, sql % expr, "--format", "csv")
        t.eq((rc, out.splitlines()[1:]), (0, [want]), expr + ": " + err)
    rc, out, err = query(db, "SELECT value FROM json_each('[3, 9]') ORDER BY value",
                         "--format", "csv")
    t.eq((rc, out.splitlines()[1:]), (0, ["3", "9"]), "json_each: " + err)
    rc, out, err = query(db, "PRAGMA integrity_check", "--format", "csv")
    t.eq((rc, out.splitlines()[1:]), (0, ["ok"]), "PRAGMA integrity_check: " + err)


def head_two(db, fmt):
    """The endless query piped into `head -2`: head gets its two lines and benchdb ends quietly
    (the pipe's reader went away) instead of filling memory. (exit status, head's lines,
    stderr); a side that does not end within the generous limit is killed and gives None."""
    bench = subprocess.Popen([bdb.BENCHDB, "--db", db, "query", "--format", fmt, ENDLESS],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = subprocess.Popen(["head", "-2"], stdin=bench.stdout, stdout=subprocess.PIPE, text=True)
    bench.stdout.close()  # head holds the pipe's read end alone
    try:
        lines = head.communicate(timeout=120)[0].splitlines()
        rc = bench.wait(timeout=120)
    except subprocess.TimeoutExpired:
        lines = rc = None
    for p in (head, bench):
        if p.poll() is None:
            p.kill()
            p.wait()
    if lines is None:
        head.stdout.close()
    err = bench.stderr.read().decode()
    bench.stderr.close()
    return rc, lines, err


def streaming(db):
    rc, lines, err = head_two(db, "csv")
    t.eq((rc, lines, err), (0, ["x", "1"], ""), "csv | head -2")
    rc, lines, err = head_two(db, "table")
    t.eq((rc, lines and [x.rstrip() for x in lines], err), (0, ["x", "1"], ""), "table | head -2")
    rc, lines, err = head_two(db, "json")
    t.eq((rc, lines, err), (0, ["[", '  {"x": 1},'], ""), "json | head -2")
    with open(os.devnull, "w") as null:
        p = subprocess.run([bdb.BENCHDB, "--db", db, "query", "--timeout", "1", ENDLESS],
                           stdout=null, stderr=subprocess.PIPE, text=True, timeout=120)
    t.eq(p.returncode, 1, "--timeout 1 on an endless query: exit status")
    t.ok("error: query: stopped by --timeout after 1 s" in p.stderr,
         "--timeout: stderr %r" % p.stderr)
    for bad in ["0", "-1", "x", "1s"]:
        rc, out, err = query(db, "SELECT 1", "--timeout", bad)
        t.eq(rc, 2, "--timeout %s: exit status" % bad)
    rc, out, err = query(db, "SELECT 1 AS one", "--timeout", "0.5", "--format", "csv")
    t.eq((rc, out.splitlines()), (0, ["one", "1"]), "--timeout 0.5 on a quick query: " + err)


def statements(db):
    for sql in ["SELECT 1 AS one; -- c", "SELECT 1 AS one\r\n", "SELECT 1 AS one;\r\n",
                "SELECT 1 AS one; /* c */ ;\n-- d\n", "SELECT 1 AS one -- c"]:
        rc, out, err = query(db, sql, "--format", "csv")
        t.eq((rc, out.splitlines(), err), (0, ["one", "1"], ""), repr(sql))
    for sql in ["SELECT 1; SELECT 2", "SELECT 1; -- c\nSELECT 2", "SELECT 1; DELETE FROM run",
                "SELECT 1; bogus"]:
        rc, out, err = query(db, sql)
        t.eq((rc, out), (1, ""), repr(sql) + ": exit status and output")
        t.ok("error: query: only one statement is allowed" in err, "%r: stderr %r" % (sql, err))
    big = 2 ** 53 + 1  # the first integer a double cannot hold
    for n in [big, -big, 2 ** 63 - 1, -2 ** 63]:
        rc, out, err = query(db, "SELECT %d AS n" % n, "--format", "json")
        t.eq((rc, json.loads(out) if rc == 0 else None), (0, [{"n": n}]), "json %d: %s" % (n, err))


MD_CELL = re.compile(r"(?<!\\)\|")


def md_cells(line):
    """A Markdown table row's cells, unescaped (backslash before punctuation removed)."""
    parts = MD_CELL.split(line)
    return [re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", p.strip()) for p in parts[1:-1]]


def markdown(db):
    text = "a|b <script>alert(1)</script> *x* `y`"
    rc, out, err = query(db, "SELECT '%s' AS \"t|h\", 2 AS n" % text, "--format", "md")
    lines = out.splitlines()
    t.eq(rc, 0, "md query: " + err)
    t.eq(len(lines), 3, "md query: header, rule, one row: %r" % out)
    t.eq(md_cells(lines[0]), ["t|h", "n"], "md header cells")
    t.eq(md_cells(lines[2]) if len(lines) == 3 else None, [text, "2"], "md row cells")
    t.ok("<script>" not in out, "md: raw HTML in %r" % out)


def escaped(s):
    """What a text grid shows for s: C0 controls and DEL as \\n, \\t, \\r or \\xHH."""
    named = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
    return "".join(named.get(c) or ("\\x%02x" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7f
                                    else c) for c in s)


def hostile_names(tmp):
    """A real fio output under a name with a terminal title sequence, a newline, '|' and HTML;
    its runs in every format."""
    path = os.path.join(tmp, "x\x1b]0;pwned\x07|<b>\nrow\x7f.json")
    shutil.copyfile(EXAMPLE, path)
    db = os.path.join(tmp, "h.sqlite")
    rc, out, err = bdb.call(db, "import", "--storage-class", "disk", path)
    t.eq(rc, 0, "import of a hostile file name: " + err)
    shown = escaped(path)
    for cmd in (["runs"], ["query", "SELECT source, job FROM v_result"]):
        rc, out, err = bdb.call(db, *cmd)
        t.eq(rc, 0, "%s: %s" % (cmd[0], err))
        t.eq(len(out.splitlines()), 2, "%s: one header line and one row: %r" % (cmd[0], out))
        t.ok(not re.search("[\x00-\x08\x0b-\x1f\x7f]", out), "%s: raw controls in %r" % (cmd[0], out))
        t.ok(shown in out, "%s: %r lacks %r" % (cmd[0], out, shown))
        rc, out, err = bdb.call(db, *cmd[:1], "--format", "md", *cmd[1:])
        lines = out.splitlines()
        t.eq((rc, len(lines)), (0, 3), "%s md: %r" % (cmd[0], out))
        t.ok(not re.search("[\x00-\x08\x0b-\x1f\x7f]", out), "%s md: raw controls" % cmd[0])
        t.ok("<b>" not in out, "%s md: raw HTML in %r" % (cmd[0], out))
        header = md_cells(lines[0])
        col = header.index("source") if "source" in header else None
        t.eq(md_cells(lines[2])[col] if col is not None else None, shown, "%s md: source" % cmd[0])
        rc, out, err = bdb.call(db, *cmd[:1], "--format", "csv", *cmd[1:])
        rows = list(csv.DictReader(io.StringIO(out, newline="")))
        t.eq((rc, [r["source"] for r in rows]), (0, [path]), "%s csv: exact source" % cmd[0])
        rc, out, err = bdb.call(db, *cmd[:1], "--format", "json", *cmd[1:])
        doc = json.loads(out)  # runs: {"schema": 1, "runs": [...]}; query: the rows themselves
        rows = doc["runs"] if isinstance(doc, dict) else doc
        t.eq((rc, [r["source"] for r in rows]), (0, [path]), "%s json: exact" % cmd[0])
        t.ok("\\u001b" in out and "\x1b" not in out, "%s json: ESC as \\u001b" % cmd[0])


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-attack-query-") as tmp:
        db = os.path.join(tmp, "q.sqlite")
        rc, out, err = bdb.call(db, "import", "--storage-class", "disk", EXAMPLE)
        t.eq(rc, 0, "import: " + err)
        refused_functions(db)
        allowed_functions(db)
        streaming(db)
        statements(db)
        markdown(db)
        hostile_names(tmp)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
