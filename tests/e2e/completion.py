"""completion.py: shell completion offers the labels of the warehouse as data, never as code.

Labels come from the files imported (a bonnie++ CSV name, fio's hostname, iperf3's host),
sidecars, flags and merged warehouses, so a label may hold `$(...)`, backticks, quotes, spaces,
commas and a spreadsheet formula's '='. The warehouse here gets such labels through --host,
--storage-class and --tag on real fio outputs (tests/fixtures/fio_json, made by gen.sh there).

- bash, driven as bash-completion drives it (COMP_WORDS, _benchdb): every label of each kind is
  offered, and each reply, read back by the shell as a command line is (eval), is the label's
  bytes exactly; nothing in a label runs (marker files stay absent).
- bash and zsh, interactive on a pseudo-terminal, each with its completion system loaded as a
  user's shell loads it: a TAB completes a unique prefix, the line then runs, and the argument
  benchdb would get is the label, byte for byte; nothing runs on TAB."""
import os, shlex, shutil, subprocess, sys, tempfile, time, pty, select

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

c = Checks("completion")
SRC = os.environ.get("SRCDIR", ".")
BASH_SCRIPT = os.path.join(SRC, "cli", "completions", "benchdb.bash")
ZSH_DIR = os.path.join(SRC, "cli", "completions")
FIXTURES = os.path.join(os.environ["FIXTURES"], "fio_json")

# Each import: a real fio output with labels an attacker (or an unlucky user) could choose.
# A marker file name inside each payload tells which one ran, if any does.
SC_DOLLAR = "$(touch${IFS}pwned-sc)"
SC_BACKTICK = "`touch pwned-bt`"
SC_FORMULA = '=HYPERLINK("x")'
HOST_QUOTES = "it's \"q\" a,b"
HOST_DOLLAR = "h2 $(touch pwned-h2)"
TAG_NOTE = "$(touch pwned-tag), x"
IMPORTS = [
    ("two_jobs_fsync.json", ["--storage-class", SC_DOLLAR, "--host", HOST_QUOTES]),
    ("unified_mixed.json", ["--storage-class", SC_BACKTICK, "--host", HOST_DOLLAR]),
    ("jsonplus_randrw.json", ["--storage-class", SC_FORMULA, "--host", "plain",
                              "--tag", "note=" + TAG_NOTE]),
]
MARKERS = ["pwned-sc", "pwned-bt", "pwned-h2", "pwned-tag"]


def no_marker(where, what):
    ran = [m for m in MARKERS if os.path.exists(os.path.join(where, m))]
    c.eq(ran, [], what + ": label text that ran")


def shell_env(tmp):
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(bdb.BENCHDB)) + ":" + env.get("PATH", "")
    env["HOME"] = tmp
    env.pop("BENCHDB_DB", None)
    return env


def replies_read_back(db, words, env, cwd):
    """bash-completion's _benchdb on COMP_WORDS=words (the last one being completed), then each
    reply read back by bash as it reads a command line: the arguments it becomes."""
    line = " ".join(words)
    prog = ("source /usr/share/bash-completion/bash_completion; source %s; "
            "COMP_WORDS=(%s); COMP_CWORD=%d; COMP_LINE=%s; COMP_POINT=${#COMP_LINE}; _benchdb; "
            "for r in \"${COMPREPLY[@]}\"; do eval \"printf '%%s\\\\0' $r\"; printf '\\n'; done") % (
                shlex.quote(BASH_SCRIPT), " ".join(shlex.quote(w) for w in words), len(words) - 1,
                shlex.quote(line))
    p = subprocess.run(["bash", "-c", prog], capture_output=True, cwd=cwd, env=env, timeout=300)
    c.eq(p.stderr.decode(errors="replace"), "", "bash stderr completing %r" % words)
    return sorted(r.decode().rstrip("\0") for r in p.stdout.split(b"\0\n") if r)


def check_bash_lists(db, env, cwd):
    w = ["benchdb", "--db", db]
    cases = [
        (w + ["import", "--storage-class", ""], [SC_DOLLAR, SC_BACKTICK, SC_FORMULA]),
        (w + ["import", "--host", ""], [HOST_QUOTES, HOST_DOLLAR, "plain"]),
        (w + ["report", "--compare", ""], [SC_DOLLAR, SC_BACKTICK, SC_FORMULA]),
        (w + ["check", "--by", "host", "--compare", "x", ""], [HOST_QUOTES, HOST_DOLLAR, "plain"]),
        (w + ["report", "--where", "tag:"], ["note=" + TAG_NOTE]),
        (w + ["report", "--where", "host=h"], [HOST_DOLLAR]),
        (w + ["relabel", "--where", "storage_class="], [SC_DOLLAR, SC_BACKTICK, SC_FORMULA]),
    ]
    for words, want in cases:
        got = replies_read_back(db, words, env, cwd)
        c.eq(got, sorted(want), "bash offers %r" % words[3:])
        no_marker(cwd, "bash completing %r" % words[3:])
    # the commands, options and --format values are benchdb's own tables (--completion-helper)
    for cmd in ("report", "labels", "rm", "push"):
        rc, out, _ = bdb.call(None, cmd, "--completion-helper")
        got = replies_read_back(db, w + [cmd, "--"], env, cwd)
        c.eq(got, sorted(out.split()), "bash offers the options of %s" % cmd)
    got = replies_read_back(db, w + ["export", "--format", ""], env, cwd)
    c.eq(got, ["csv", "ndjson"], "bash offers export --format")
    got = replies_read_back(db, w + ["rep"], env, cwd)
    c.eq(got, ["reparse", "report"], "bash offers the commands")
    got = replies_read_back(db, w + ["report", "--where", ""], env, cwd)
    want = ["storage-class=" + v for v in (SC_DOLLAR, SC_BACKTICK, SC_FORMULA)]
    want += ["host=" + v for v in (HOST_QUOTES, HOST_DOLLAR, "plain")] + ["tag:note=" + TAG_NOTE]
    c.ok(set(want) <= set(got), "bash offers every --where pair exactly: %r" % sorted(set(want) - set(got)))


class Terminal:
    """An interactive shell on a pseudo-terminal: keys go in as a user types them."""

    def __init__(self, argv, env, cwd):
        self.master, slave = pty.openpty()
        self.p = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
                                  start_new_session=True)
        os.close(slave)
        self.screen = b""

    def drain(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            r, _, _ = select.select([self.master], [], [], 0.05)
            if r:
                try:
                    self.screen += os.read(self.master, 65536)
                except OSError:
                    return

    def type(self, text, settle=0.3):
        os.write(self.master, text.encode())
        self.drain(settle)

    def wait_for(self, path, seconds=60):
        """Until the file path exists (the typed line ran), reading the screen meanwhile."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and not os.path.exists(path):
            self.drain(0.1)
        return os.path.exists(path)

    def close(self):
        try:
            os.write(self.master, b"\x04exit\n")
            self.p.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()
            self.p.wait()
        os.close(self.master)


def run_completed_line(term, typed, out, label):
    """Types `typed`, then TAB, waits for the completion, goes to the start of the line and puts
    `args ` before it (a function that writes its arguments to out) and runs it: the argument
    the completed word became, or None."""
    term.type(typed)
    term.type("\t", settle=2)
    term.type("\x01args \r")
    if not term.wait_for(out):
        c.ok(False, "%s: the completed line ran (screen: %r)" % (label, term.screen[-400:]))
        return None
    time.sleep(0.2)
    with open(out, "rb") as f:
        argv = f.read().split(b"\0")[:-1]
    os.unlink(out)
    return argv[-1].decode() if argv else None


def check_interactive(shell, db, env, cwd):
    out = os.path.join(cwd, "args.out")
    if shell == "bash":
        argv = ["bash", "--norc", "--noprofile", "-i"]
        setup = ("set -o emacs; PS1='$ '; source /usr/share/bash-completion/bash_completion; "
                 "source %s\n" % shlex.quote(BASH_SCRIPT))
    else:
        argv = ["zsh", "-f", "-i"]
        setup = ("bindkey -e; PS1='%% '; fpath=(%s $fpath); autoload -Uz compinit; "
                 "compinit -u -D\n" % shlex.quote(ZSH_DIR))
    term = Terminal(argv, env, cwd)
    try:
        term.type(setup, settle=2)
        term.type("args() { printf '%%s\\0' \"$@\" > %s; }\n" % shlex.quote(out), settle=0.5)
        head = "benchdb --db %s " % shlex.quote(db)
        cases = [
            (head + "import --host it", HOST_QUOTES),
            (head + "import --host h", HOST_DOLLAR),
            (head + "import --storage-class \\$", SC_DOLLAR),
            (head + "report --compare \\`", SC_BACKTICK),
            (head + "report --compare " + ("=" if shell == "bash" else "\\="), SC_FORMULA),
            (head + "report --where tag:note=", "tag:note=" + TAG_NOTE),
        ]
        for typed, want in cases:
            got = run_completed_line(term, typed, out, "%s %r" % (shell, typed))
            c.eq(got, want, "%s: TAB after %r completes to the label" % (shell, typed[len(head):]))
            no_marker(cwd, "%s: TAB after %r" % (shell, typed[len(head):]))
    finally:
        term.close()


def main():
    if not os.path.exists("/usr/share/bash-completion/bash_completion") or not shutil.which("zsh"):
        print("completion: bash-completion or zsh is not installed (scripts/setup.sh --test)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "w.sqlite")
        for name, labels in IMPORTS:
            p = bdb.run(db, "import", *labels, os.path.join(FIXTURES, name))
            c.eq(p.returncode, 0, "import %s: %s" % (name, p.stderr.strip()))
        stored = {(r["storage_class"], r["host"]) for r in bdb.export(db, c)}
        c.eq(stored, {(SC_DOLLAR, HOST_QUOTES), (SC_BACKTICK, HOST_DOLLAR), (SC_FORMULA, "plain")},
             "labels stored as given")
        env = shell_env(tmp)
        check_bash_lists(db, env, tmp)
        check_interactive("bash", db, env, tmp)
        check_interactive("zsh", db, env, tmp)
        no_marker(tmp, "after every completion")
    return c.done()


sys.exit(main())
