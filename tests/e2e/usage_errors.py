"""usage_errors.py: every command listed by `benchdb help` reports an option it does not know in
one line and a hint (git's model), exit status 2, and takes the global --db after its name;
-o FILE infers export's format from the extension. The golden cases in tests/golden/usage pin
the exact messages of a few commands; this test holds all of them to it, so that a new command
parsing options its own way is caught. Expected counts come from python's json module.
The zsh completion (cli/completions/_benchdb) names the commands, each command's options and
each --format/--table's values as benchdb's option tables do (--completion-helper); bash's
reads them from benchdb itself (tests/e2e/completion.py runs it)."""
import csv, io, json, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb
from checks import Checks

t = Checks("usage_errors")
TWO_JOBS = os.path.join(os.environ["FIXTURES"], "fio_json", "two_jobs_fsync.json")


def commands():
    """The command names of `benchdb help` (its "Commands:" list)."""
    rc, out, _ = bdb.call(None, "help")
    t.eq(rc, 0, "benchdb help")
    listing = out.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in listing.splitlines() if line.strip()]


def check_unknown_option(cmd):
    rc, out, err = bdb.call(None, cmd, "--nosuch")
    t.eq(rc, 2, "%s --nosuch: exit status" % cmd)
    t.eq(out, "", "%s --nosuch: nothing on stdout" % cmd)
    t.eq(err.splitlines(), ["benchdb %s: error: unrecognized option '--nosuch'" % cmd,
                            "see 'benchdb %s --help'" % cmd], "%s --nosuch: stderr" % cmd)


def check_db_after_command(cmd, db):
    """--db PATH after the command is taken (the help then shows as without it)."""
    rc, out, err = bdb.call(None, cmd, "--db", db, "--help")
    t.eq(rc, 0, "%s --db PATH --help: %s" % (cmd, err.strip()))
    t.ok(re.match(r"usage: benchdb %s\b" % cmd, out), "%s --db PATH --help: %r" % (cmd, out[:80]))
    # the help is printed as it is written: a printf escape left in it shows verbatim
    t.ok("%%" not in out and not re.search(r"%[sdz]", out), "%s --help: a printf escape: %r"
         % (cmd, [l for l in out.splitlines() if "%" in l]))


ZSH_SCRIPT = os.path.join(os.environ.get("SRCDIR", "."), "cli", "completions", "_benchdb")


def helper(*args):
    """benchdb's --completion-helper: the words it prints."""
    rc, out, err = bdb.call(None, *args)
    t.eq((rc, err), (0, ""), "%s: status and stderr" % " ".join(args))
    return out.split()


def zsh_arms(text):
    """The zsh script's commands, and each command's option names and --format/--table values
    as its `case $line[1]` arm lists them (an arm using $labels has the label options)."""
    listed = re.search(r"'1:command:\(\((.*?)\)\)'", text, re.S).group(1)
    names = re.findall(r"(\w+)\\:", listed)
    labels = set(re.findall(r"'\*?(--[a-z][a-z-]*)\[", re.search(r"labels=\((.*?)\n  \)",
                                                                    text, re.S).group(1)))
    body = text.split("case $line[1] in", 1)[1].split("\n  esac", 1)[0]
    arms = {}
    for name, arm in re.findall(r"^  (\w+)\)(.*?);;", body, re.S | re.M):
        opts = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", arm))
        values = {o: m.split() for o, m in re.findall(r"'(--format|--table):\w+:\(([^)$]*)\)'", arm)}
        arms[name] = (opts | labels if "$labels" in arm else opts, values)
    return names, arms


def check_zsh_agrees(names):
    with open(ZSH_SCRIPT) as f:
        zsh_names, arms = zsh_arms(f.read())
    t.eq(sorted(zsh_names), sorted(helper("--completion-helper")), "zsh: the commands")
    t.eq(sorted(helper("--completion-helper")), sorted(names + ["help", "version"]),
         "--completion-helper: the commands of `benchdb help`")
    for cmd in names:
        opts, values = arms.get(cmd, (set(), {}))
        want = set(helper(cmd, "--completion-helper")) - {"--help"}
        t.eq(sorted(opts), sorted(want), "zsh: the options of %s" % cmd)
        for opt, listed in values.items():
            t.eq(listed, helper(cmd, "--completion-helper=" + opt), "zsh: %s %s values" % (cmd, opt))


def jobs_with_io(path):
    """The fixture's results: one per job and direction that did I/O."""
    with open(path) as f:
        jobs = json.load(f)["jobs"]
    return sum(1 for j in jobs for d in ("read", "write", "trim") if j[d]["total_ios"] > 0)


def check_db_is_used(db):
    rc, _, err = bdb.call(None, "import", "--db", db, TWO_JOBS)
    t.eq(rc, 0, "import --db PATH: " + err)
    rc, out, err = bdb.call(None, "runs", "--db", db, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    t.eq(rc, 0, "runs --db PATH: " + err)
    t.eq([int(r["results"]) for r in rows], [jobs_with_io(TWO_JOBS)], "runs --db PATH: results")
    # the one after the command wins over the one before it, as a later option does
    other = db + ".other"
    rc, _, err = bdb.call(other, "export", "--db", db, "--format", "csv")
    t.eq(rc, 0, "--db A export --db B: " + err)
    t.ok(not os.path.exists(other), "--db A export --db B: A is not created")


def check_export_extension(db, tmp):
    for name, want in (("r.csv", "csv"), ("r.CSV", "csv"), ("r.ndjson", "ndjson"),
                       ("r.json", "ndjson"), ("r", "ndjson")):
        target = os.path.join(tmp, name)
        rc, _, err = bdb.call(db, "export", "-o", target)
        t.eq(rc, 0, "export -o %s: %s" % (name, err))
        with open(target, newline="") as f:
            text = f.read()
        if want == "csv":
            rows = list(csv.DictReader(io.StringIO(text)))
        else:
            rows = [json.loads(line) for line in text.splitlines()]
        t.eq(len(rows), jobs_with_io(TWO_JOBS), "export -o %s: %s rows" % (name, want))
        os.remove(target)
    rc, _, err = bdb.call(db, "export", "--format", "csv", "-o", os.path.join(tmp, "r.txt"))
    t.eq(rc, 0, "export --format csv -o r.txt: any name goes with --format: " + err)


def main():
    names = commands()
    t.ok(len(names) >= 15, "commands listed: %r" % names)
    with bdb.temp_db() as db:
        for cmd in names:
            check_unknown_option(cmd)
            check_db_after_command(cmd, db)
        check_db_is_used(db)
        check_zsh_agrees(names)
        check_export_extension(db, os.path.dirname(db))
    return t.done()


sys.exit(main())
