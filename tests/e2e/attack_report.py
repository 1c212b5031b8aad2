#!/usr/bin/python3
"""Reports and outputs under hostile text (issue 13).

The inputs are the real fio 3.33 JSON results of tests/fixtures/disk_tmpfs/ (its gen.sh made them). The
hostile ones are copies written here with python's json module, with only the job name changed
(and, in a few, invalid UTF-8 bytes put into that string); the --host and --storage-class values
are given on the command line. Expected values are computed here from those bytes.

- xlsx: invalid UTF-8, U+FFFE and C0 controls in job names and hosts give a workbook whose every
  part is well-formed XML (unzip -p + xml.dom.minidom) and that openpyxl reads, with each text
  as Unicode's replacement practice makes it (python's errors='replace') minus the controls but
  tab and newline; a 40,000-character job name is cut to Excel's 32,767 characters, the last an
  ellipsis, and one of exactly 32,767 is kept whole.
- outputs: a report or export that fails while writing (a file-size limit, RLIMIT_FSIZE) leaves
  an existing target untouched and no temporary file; a good one replaces it.
- SOURCE_DATE_EPOCH: out of range, negative or not a number is a usage error (exit 2) naming the
  variable; 0 and the largest value (9999-12-31T23:59:59Z) are stated, never the wall clock.
- -o FILE with an extension benchdb does not write is a usage error unless --format is given.
- Markdown: '&', '~' and the other markup characters of input text render literally (checked
  with libcmark-gfm and its table and strikethrough extensions, through ctypes)."""
import ctypes, ctypes.util, datetime, glob, html, html.parser, json, os, random, resource, signal
import subprocess, sys, tempfile, xml.dom.minidom, zipfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

import openpyxl  # noqa: E402

t = Checks("attack_report")
EXAMPLES = os.path.join(os.environ["SRCDIR"], "tests", "fixtures", "disk_tmpfs")
CELL_MAX = 32767  # Excel's limit on the characters of a cell
ELLIPSIS = "\u2026"


def sanitized(raw):
    """What a workbook may hold of raw bytes: ill-formed UTF-8 as U+FFFD (one per maximal
    subpart, as python decodes), U+FFFE/U+FFFF as U+FFFD, C0 controls but tab and LF dropped,
    cut to CELL_MAX characters with an ellipsis last."""
    s = raw.decode("utf-8", errors="replace").replace("\ufffe", "\ufffd").replace("\uffff", "\ufffd")
    s = "".join(c for c in s if c >= " " or c in "\t\n")
    return s if len(s) <= CELL_MAX else s[:CELL_MAX - 1] + ELLIPSIS


def with_job_name(src, dst, name):
    """Writes a copy of the fio JSON src whose job names are name (bytes): json.dumps writes a
    placeholder, replaced by the raw bytes so that they may be invalid UTF-8."""
    with open(src) as f:
        doc = json.load(f)
    for job in doc["jobs"]:
        job["jobname"] = "@@JOBNAME@@"
    data = json.dumps(doc, indent=2).encode()
    # a JSON string may hold any byte but '"', '\\' and controls, which go in escaped
    esc = b"".join(b"\\u%04x" % b if b < 0x20 else b"\\" + bytes([b]) if b in b'"\\'
                   else bytes([b]) for b in name)
    bdb.write(dst, data.replace(b"@@JOBNAME@@", esc))


def long_name(n, seed):
    """n characters of one- to four-byte UTF-8 in random order (so that zip cannot shrink it)."""
    rnd = random.Random(seed)
    return "".join(rnd.choice("aZ9-\u00e9\u0436\u20ac\u4e2d\U0001f600") for _ in range(n))


HOSTILE = [
    b"ctl\x01\x02\x1b]0;title\x07\x1f\ttab\nnewline\rcr",
    b"bad\xff\xfe\xc3(\xe2\x82\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf end\xe2",
    b"nonchar\xef\xbf\xbe\xef\xbf\xbf ok\xc3\xa9",
    long_name(40000, 1).encode(),
    long_name(CELL_MAX, 2).encode(),
    long_name(CELL_MAX + 1, 3).encode(),
]
# controls and a non-ASCII letter: a flag's label must be UTF-8 (issue 29, item 5), so the
# ill-formed bytes come through the job names of the files
HOST = b"host\x01\x7f\xc3\xa9 \x0bend"
BAD_HOST = b"host\xff\xe2\x82 end"


def stored(raw):
    """What the warehouse holds of text that may not be UTF-8: each ill-formed byte as \\xNN
    (issue 29, item 5), as python's backslashreplace writes it."""
    return raw.decode("utf-8", errors="backslashreplace").encode()


def unzip_part(path, name):
    esc = name.replace("[", "\\[").replace("]", "\\]")  # unzip reads [..] as a wildcard
    return subprocess.run(["unzip", "-p", path, esc], capture_output=True, check=True).stdout


def check_well_formed(path, what):
    with zipfile.ZipFile(path) as z:
        names = [n for n in z.namelist() if n.endswith((".xml", ".rels"))]
    t.ok(len(names) > 5, "%s: xml parts %r" % (what, names))
    for name in names:
        try:
            xml.dom.minidom.parseString(unzip_part(path, name))
            t.ok(True, "")
        except Exception as e:  # noqa: BLE001 (any parse failure is the finding)
            t.ok(False, "%s: %s is not well-formed XML: %s" % (what, name, e))


def load(path, what):
    try:
        return openpyxl.load_workbook(path)
    except Exception as e:  # noqa: BLE001
        t.ok(False, "%s: openpyxl cannot read it: %s" % (what, e))
        return None


def column(ws, name):
    header = [c.value for c in ws[1]]
    i = header.index(name)
    return [r[i] for r in ws.iter_rows(min_row=2, values_only=True)]


def hostile_warehouse(tmp):
    """disk: copies of tests/fixtures/disk_tmpfs/disk with the HOSTILE job names (the rest as fio wrote them);
    tmpfs: the originals, with --host HOST."""
    db = os.path.join(tmp, "hostile.sqlite")
    copies = []
    for i, src in enumerate(sorted(glob.glob(os.path.join(EXAMPLES, "disk", "*.json")))):
        dst = os.path.join(tmp, os.path.basename(src))
        if i < len(HOSTILE):
            with_job_name(src, dst, HOSTILE[i])
        else:
            with open(src, "rb") as f:
                bdb.write(dst, f.read())
        copies.append(dst)
    p = subprocess.run([bdb.BENCHDB, "--db", db, "import", "--storage-class", "disk"] + copies,
                       capture_output=True)
    t.eq(p.returncode, 0, "import the hostile copies: %r" % p.stderr[-500:])
    tmpfs = sorted(glob.glob(os.path.join(EXAMPLES, "tmpfs", "*.json")))
    p = subprocess.run([bdb.BENCHDB.encode(), b"--db", db.encode(), b"import", b"--storage-class",
                        b"tmpfs", b"--host", HOST] + [f.encode() for f in tmpfs],
                       capture_output=True)
    t.eq(p.returncode, 0, "import tmpfs with a hostile host: %r" % p.stderr[-500:])
    p = subprocess.run([bdb.BENCHDB.encode(), b"--db", db.encode(), b"import", b"--host",
                        BAD_HOST, tmpfs[0].encode()], capture_output=True)
    t.eq(p.returncode, 2, "a --host that is not UTF-8 is a usage error: %r" % p.stderr[-300:])
    return db


def check_xlsx_text(db, tmp):
    out = os.path.join(tmp, "hostile.xlsx")
    rc, _, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "-o", out)
    t.eq(rc, 0, "xlsx report with hostile text: " + err)
    check_well_formed(out, "hostile.xlsx")
    wb = load(out, "hostile.xlsx")
    if not wb:
        return
    jobs = column(wb["Results"], "job")
    for raw in HOSTILE:
        want = sanitized(stored(raw))
        t.ok(want in jobs, "job %r... (%d chars) in Results as %r..." % (raw[:30], len(want),
                                                                        want[:30]))
    cut = [j for j in jobs if j and j.endswith(ELLIPSIS)]
    t.eq(len(cut), 2, "the two names over 32,767 characters are cut")
    t.ok(all(len(j) == CELL_MAX for j in cut), "cut to exactly 32,767 characters")
    t.ok(long_name(CELL_MAX, 2) in jobs, "a name of exactly 32,767 characters is kept whole")
    hosts = set(column(wb["Results"], "host")) - {None}
    t.ok(sanitized(HOST) in hosts, "host %r in Results as %r: %r" % (HOST, sanitized(HOST), hosts))


def limited(resource_id, limit):
    """preexec_fn: setrlimit(resource_id, limit); SIGXFSZ ignored (an ignored signal stays so
    over exec), so that a write past RLIMIT_FSIZE fails with EFBIG instead of killing."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource_id, (limit, limit))
    return apply


def write_fails(db, args, target, resource_id, limit):
    """Runs benchdb ARGS -o target under the limit with target holding an earlier version:
    (exit status, stderr), after checking that target still holds it and that nothing else
    was left in its folder."""
    before = sorted(os.listdir(os.path.dirname(target)))
    bdb.write(target, "a good earlier version\n")
    p = subprocess.run([bdb.BENCHDB, "--db", db] + args + ["-o", target], capture_output=True,
                       text=True, preexec_fn=limited(resource_id, limit))
    if p.returncode != 0:
        with open(target, "rb") as f:
            t.eq(f.read(), b"a good earlier version\n", "%s untouched by a failed write (%s)"
                 % (os.path.basename(target), p.stderr.strip()))
        t.eq(sorted(os.listdir(os.path.dirname(target))), sorted(set(before) | {
            os.path.basename(target)}), "no temporary file left: " + p.stderr.strip())
    return p.returncode, p.stderr


def check_failed_write_keeps_target(db, tmp):
    outdir = os.path.join(tmp, "out")
    os.mkdir(outdir)
    # Text outputs fail on a file-size limit: above the warehouse's -shm file (32 KiB), below
    # the output (every job name is in them).
    limit = 64 * 1024
    for name, args in (("report.csv", ["report", "--compare", "disk", "tmpfs", "--table",
                                       "results"]), ("export.ndjson", ["export"])):
        target = os.path.join(outdir, name)
        rc, err = write_fails(db, args, target, resource.RLIMIT_FSIZE, limit)
        t.eq(rc, 3, "%s past the size limit: exit status (%s)" % (name, err))
        t.ok("cannot write '%s': File too large" % target in err, name + ": says so: " + err)
        rc, _, err = bdb.call(db, *args, "-o", target)
        t.eq(rc, 0, name + " without the limit: " + err)
        t.ok(os.path.getsize(target) > limit, "%s replaced by the whole output" % name)
    # libxlsxwriter ignores failed writes to its own temporary files (a size limit gives a
    # truncated workbook and success), so the workbook fails on file descriptors instead:
    # raised one at a time from too few to open the warehouse to enough for the whole report.
    target = os.path.join(outdir, "report.xlsx")
    args = ["report", "--compare", "disk", "tmpfs"]
    write_errors = 0
    for nofile in range(4, 64):
        rc, err = write_fails(db, args, target, resource.RLIMIT_NOFILE, nofile)
        if rc == 0:
            break
        t.eq(rc, 3, "report.xlsx with %d file descriptors: exit status (%s)" % (nofile, err))
        write_errors += "cannot write" in err
    t.ok(write_errors > 0, "some file descriptor limit fails the workbook's write")
    t.eq(rc, 0, "report.xlsx with enough file descriptors: " + err)
    wb = load(target, "report.xlsx")
    t.ok(wb is not None and "Results" in wb.sheetnames, "the replaced workbook reads")


def example_warehouse(tmp):
    db = os.path.join(tmp, "examples.sqlite")
    bdb.import_examples(db, checks=t)
    return db


def run_env(db, env_value, *args):
    env = dict(os.environ)
    if env_value is None:
        env.pop("SOURCE_DATE_EPOCH", None)
    else:
        env["SOURCE_DATE_EPOCH"] = env_value
    return bdb.run(db, *args, env=env)


def core_created(path):
    dom = xml.dom.minidom.parseString(unzip_part(path, "docProps/core.xml"))
    return dom.getElementsByTagName("dcterms:created")[0].firstChild.data


def check_source_date_epoch(db, tmp):
    out = os.path.join(tmp, "sde.xlsx")
    for bad in ["99999999999999999", "253402300800", "-1", "abc", "1e9", " 5", "5 ", "+5",
                "0x10"]:
        for args in (["report", "--compare", "disk", "tmpfs", "-o", out],
                     ["import", "--storage-class", "x", os.path.join(EXAMPLES, "disk",
                                                                     "randread-1.json")]):
            p = run_env(db, bad, *args)
            t.eq(p.returncode, 2, "SOURCE_DATE_EPOCH=%r %s: exit status (%s)" % (bad, args[0],
                                                                                p.stderr))
            t.ok("SOURCE_DATE_EPOCH" in p.stderr and repr(bad)[1:-1] in p.stderr,
                 "SOURCE_DATE_EPOCH=%r: the message names it: %r" % (bad, p.stderr))
        t.ok(not os.path.exists(out), "SOURCE_DATE_EPOCH=%r: no workbook written" % bad)
    t.eq(len(bdb.export(db)), 24, "nothing imported under an invalid SOURCE_DATE_EPOCH")
    for epoch in (0, 1, 1767225600, 253402300799):
        when = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=epoch)
        p = run_env(db, str(epoch), "report", "--compare", "disk", "tmpfs", "-o", out)
        t.eq(p.returncode, 0, "SOURCE_DATE_EPOCH=%d xlsx: %s" % (epoch, p.stderr))
        # libxlsxwriter writes the clock for a creation time of 0: epoch 0 is a second late
        created = when + datetime.timedelta(seconds=1 if epoch == 0 else 0)
        t.eq(core_created(out), created.strftime("%Y-%m-%dT%H:%M:%SZ"),
             "SOURCE_DATE_EPOCH=%d: the workbook's creation time" % epoch)
        wb = load(out, "sde.xlsx")
        summary = [r for r in wb["Summary"].iter_rows(values_only=True)] if wb else []
        t.ok(("Generated", when.strftime("%Y-%m-%d %H:%M UTC")) in [r[:2] for r in summary],
             "SOURCE_DATE_EPOCH=%d: Summary states it" % epoch)
        p = run_env(db, str(epoch), "report", "--compare", "disk", "tmpfs")
        t.ok("- **Generated:** %s\n" % when.strftime("%Y-%m-%d %H:%M UTC") in p.stdout,
             "SOURCE_DATE_EPOCH=%d: the Markdown states it" % epoch)
        os.remove(out)
    with tempfile.TemporaryDirectory() as d:
        fresh = os.path.join(d, "t.sqlite")
        p = run_env(fresh, "0", "import", "--storage-class", "disk",
                    os.path.join(EXAMPLES, "disk", "randread-1.json"))
        t.eq(p.returncode, 0, "import with SOURCE_DATE_EPOCH=0: " + p.stderr)
        got = [r["imported_at"] for r in bdb.export(fresh, t)]
        t.eq(got, ["1970-01-01T00:00:00Z"], "imported_at from SOURCE_DATE_EPOCH=0")
    p = run_env(db, None, "report", "--compare", "disk", "tmpfs", "-o", out)
    t.eq(p.returncode, 0, "no SOURCE_DATE_EPOCH: " + p.stderr)
    t.eq(core_created(out), "2000-01-01T00:00:00Z", "no SOURCE_DATE_EPOCH: the fixed date")


def check_output_extension(db, tmp):
    for name in ("r.pdf", "r.txt", "r.md.bak", "dir.md/r.doc"):
        target = os.path.join(tmp, name)
        rc, out, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", "-o", target)
        t.eq(rc, 2, "-o %s: exit status (%s)" % (name, err))
        for ext in (".md", ".html", ".xlsx", ".csv", "--format"):
            t.ok(ext in err, "-o %s: the message names %s: %r" % (name, ext, err))
        t.ok(not os.path.exists(target), "-o %s: nothing written" % name)
    for name, fmt, magic in (("r.pdf", "md", b"# Benchmark comparison"),
                             ("r.out", "html", b"<!DOCTYPE html>"),
                             ("R.HTML", None, b"<!DOCTYPE html>"), ("r", None, b"# Bench")):
        target = os.path.join(tmp, name)
        args = ["--format", fmt] if fmt else []
        rc, _, err = bdb.call(db, "report", "--compare", "disk", "tmpfs", *args, "-o", target)
        t.eq(rc, 0, "-o %s %s: %s" % (name, args, err))
        with open(target, "rb") as f:
            head = f.read(200)
        t.ok(head.lstrip().upper().startswith(magic.upper()), "-o %s %s: %r" % (name, args, head))


class Text(html.parser.HTMLParser):
    """The text of an HTML document, entities decoded (the markup of input text would leave
    its characters out: `*e*` would read "e")."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = []

    def handle_data(self, data):
        self.text.append(data)


def gfm_to_html(md):
    """Markdown to HTML with libcmark-gfm and its table and strikethrough extensions (as GitHub
    renders), or None when the library is not installed."""
    path = ctypes.util.find_library("cmark-gfm")
    ext_path = ctypes.util.find_library("cmark-gfm-extensions")
    if not path or not ext_path:
        return None
    lib, ext = ctypes.CDLL(path), ctypes.CDLL(ext_path)
    vp = ctypes.c_void_p
    for name, res, args in (("cmark_parser_new", vp, [ctypes.c_int]),
                            ("cmark_find_syntax_extension", vp, [ctypes.c_char_p]),
                            ("cmark_parser_attach_syntax_extension", ctypes.c_int, [vp, vp]),
                            ("cmark_parser_feed", None, [vp, ctypes.c_char_p, ctypes.c_size_t]),
                            ("cmark_parser_finish", vp, [vp]),
                            ("cmark_parser_get_syntax_extensions", vp, [vp]),
                            ("cmark_render_html", vp, [vp, ctypes.c_int, vp])):
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    ext.cmark_gfm_core_extensions_ensure_registered()
    parser = lib.cmark_parser_new(0)
    for name in (b"table", b"strikethrough"):
        lib.cmark_parser_attach_syntax_extension(parser, lib.cmark_find_syntax_extension(name))
    data = md.encode()
    lib.cmark_parser_feed(parser, data, len(data))
    doc = lib.cmark_parser_finish(parser)
    out = lib.cmark_render_html(doc, 0, lib.cmark_parser_get_syntax_extensions(parser))
    return ctypes.string_at(out).decode()  # freed with the process


def check_markdown_escapes(tmp):
    db = os.path.join(tmp, "md.sqlite")
    base, cand = "d&amp;~~s~~*e*", "t&lt;b&gt;&#x41;|`c`"
    for cls, side in (("disk", base), ("tmpfs", cand)):
        files = sorted(glob.glob(os.path.join(EXAMPLES, cls, "*.json")))
        rc, _, err = bdb.call(db, "import", "--storage-class", side, *files)
        t.eq(rc, 0, "import as %r: %s" % (side, err))
    rc, md, err = bdb.call(db, "report", "--compare", base, cand)
    t.eq(rc, 0, "md report: " + err)
    rendered = gfm_to_html(md)
    if rendered is None:  # no libcmark-gfm: every '&' and '~' of the input text is escaped
        for line in md.splitlines():
            for i, c in enumerate(line):
                if c in "&~" and (base in line.replace("\\", "") or cand in line.replace("\\", "")):
                    t.ok(i > 0 and line[i - 1] == "\\", "%r escaped in %r" % (c, line))
        return
    p = Text()
    p.feed(rendered)
    text = "".join(p.text)
    t.ok("Benchmark comparison: %s vs %s" % (base, cand) in text, "title renders literally")
    for side in (base, cand):
        t.ok(text.count(side) >= 3, "%r renders literally (%d times)" % (side, text.count(side)))
    t.ok("<th>%s (baseline)</th>" % html.escape(base, quote=False) in rendered,
         "the table header cell is the whole value: %r" % rendered[:2000])

with tempfile.TemporaryDirectory(prefix="bdb-attack-report-") as tmp:
    hostile = hostile_warehouse(tmp)
    check_xlsx_text(hostile, tmp)
    check_failed_write_keeps_target(hostile, tmp)
    examples = example_warehouse(tmp)
    check_source_date_epoch(examples, tmp)
    check_output_extension(examples, tmp)
    check_markdown_escapes(tmp)
sys.exit(t.done())
