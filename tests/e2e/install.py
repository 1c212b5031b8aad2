#!/usr/bin/python3
"""install.py: what `cmake --install` and `cpack -G DEB` ship, checked as a user would meet
it: the binary runs from the installed tree, `man` renders the page (every section, a date,
each command's options as its --help lists them), bash completes commands and the warehouse's
storage classes, every path the --help texts and the man page cite is installed under the
prefix, and the .deb, built as README's "Install" says (a build directory of its own under
this one, CMAKE_INSTALL_PREFIX=/usr, BUILD_TESTING=OFF; incremental after the first run),
holds the same files, a compressed man page, a stripped binary, the copyright file and
changelog, Depends on the packages that provide the libraries the binary links (found
independently: objdump's NEEDED sonames, dpkg -S), and no lintian error (E:)."""
import os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

c = Checks("install")
BUILD = os.path.dirname(os.path.abspath(bdb.BENCHDB))


def sh(*cmd, **kw):
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=600, **kw)


def cache(name):
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        m = re.search(r"^%s:\w+=(.*)$" % re.escape(name), f.read(), re.M)
    return m.group(1) if m else None


def installed_files(root):
    out = set()
    for d, _, files in os.walk(root):
        out.update(os.path.relpath(os.path.join(d, f), root) for f in files)
    return out


SRC = os.environ.get("SRCDIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
COMMANDS = ("import", "run", "runs", "labels", "export", "report", "baseline", "check", "trend",
            "query", "relabel", "rm", "reparse", "push", "merge", "vacuum", "formats")
MAN_SECTIONS = ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "DIAGNOSTICS",
                "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO")


def expected_files(prefix):
    p = prefix.lstrip("/")
    doc = p + "/share/doc/benchdb/"
    return {p + "/bin/benchdb", p + "/share/man/man1/benchdb.1.gz",
            p + "/share/bash-completion/completions/benchdb",
            p + "/share/zsh/vendor-completions/_benchdb",
            doc + "copyright", doc + "changelog.gz", doc + "README.md",
            p + "/share/benchdb/templates/tiers.rules"} | {
            doc + n for n in ("export.md", "schema.md", "ci.md", "charts.md", "fleet.md",
                              "report.schema.json", "runs.schema.json", "labels.schema.json",
                              "trend.schema.json")}


def cited_paths(text, prefix):
    """The absolute paths under prefix that a help text or the man page names."""
    return {m.group(0).rstrip(".,;:)'") for m in re.finditer(r"%s/[\w./+-]+" % re.escape(prefix), text)}


def check_tree(root, prefix):
    files = installed_files(root)
    for want in sorted(expected_files(prefix)):
        c.ok(want in files, "installed: %s" % want)
    exe = os.path.join(root, prefix.lstrip("/"), "bin", "benchdb")
    p = sh(exe, "--version")
    c.ok(p.returncode == 0 and p.stdout.startswith("benchdb "), "installed benchdb --version: %r" % p.stdout)
    # every path a --help text names is one the install put there, under the prefix
    for cmd in ("export", "query", "report", "runs", "labels", "trend", "push"):
        text = sh(exe, cmd, "--help").stdout
        named = cited_paths(text, prefix)
        c.ok(bool(named), "%s --help names its documentation under %s" % (cmd, prefix))
        for path in sorted(named):
            c.ok(os.path.exists(root + path), "%s --help names %s, which is installed" % (cmd, path))
    for cmd in COMMANDS:
        text = sh(exe, cmd, "--help").stdout
        c.ok(not re.search(r"(?<![\w/])(docs|templates)/", text),
             "%s --help names no path of the source tree" % cmd)
    return exe


def help_options(exe, cmd):
    """The options `benchdb CMD --help` lists: the lines "  -x, --long ARG   text"."""
    text = sh(exe, cmd, "--help").stdout
    opts = set()
    for m in re.finditer(r"^  (-\S.*?)(?:\s{2,}|$)", text, re.M):
        opts.update(re.findall(r"(?<![\w-])--?[A-Za-z0-9][\w-]*", m.group(1)))
    return opts


def man_subsections(text, section):
    """{subsection title: its text} of a section of the rendered page (.SS titles are indented
    three spaces, their text seven)."""
    m = re.search(r"^%s$(.*?)(?=^\S)" % re.escape(section), text, re.M | re.S)
    out, title = {}, None
    for line in (m.group(1) if m else "").splitlines():
        if re.match(r"^   \S", line):
            title = line.strip()
            out[title] = ""
        elif title:
            out[title] += line + "\n"
    return out


def check_man(root, prefix, exe):
    page = os.path.join(root, prefix.lstrip("/"), "share", "man", "man1", "benchdb.1.gz")
    with open(page, "rb") as f:
        c.eq(f.read(2), b"\x1f\x8b", "the man page is gzip-compressed")
    roff = sh("sh", "-c", 'gzip -dc "$1"', "sh", page).stdout
    th = re.search(r'^\.TH \S+ 1 "([^"]*)"', roff, re.M)
    c.ok(th and re.match(r"^\d{4}-\d\d-\d\d$", th.group(1)), "the man page is dated: %r"
         % (th.group(0) if th else roff[:80]))
    env = dict(os.environ, MANWIDTH="200", MANPAGER="cat", PAGER="cat", LC_ALL="C.UTF-8")
    p = sh("man", "-l", page, env=env)
    c.eq(p.returncode, 0, "man -l exit status " + p.stderr)
    text = re.sub(r".\x08", "", p.stdout).replace("\u2010", "-").replace("\u2212", "-")
    for heading in MAN_SECTIONS:
        c.ok(re.search(r"^%s$" % heading, text, re.M), "man page has section %s" % heading)
    c.ok("benchdb - a results warehouse" in text, "man page NAME line")
    c.ok(re.search(r"^BENCHDB\(1\)", text, re.M), "man page header BENCHDB(1)")
    # each command's options, as its --help lists them, in the man page's OPTIONS for it
    subs = man_subsections(text, "OPTIONS")
    for cmd in COMMANDS:
        title = next((t for t in subs if cmd in re.split(r"[ ,]+", t)), None)
        if not c.ok(title, "man page OPTIONS has a subsection for %s (got %s)" % (cmd, sorted(subs))):
            continue
        body = subs[title]
        for opt in sorted(help_options(exe, cmd) - {"-h", "--help"}):
            c.ok(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), body),
                 "man page OPTIONS/%s has %s (from benchdb %s --help)" % (title, opt, cmd))
    # every path the page cites under the prefix is installed (read from the roff: man
    # hyphenates long words); none of the source tree is named
    named = cited_paths(roff.replace("\\-", "-").replace("\\&", ""), prefix)
    c.ok(len(named) >= 10, "the man page names its files under %s: %s" % (prefix, sorted(named)))
    for path in sorted(named):
        c.ok(os.path.exists(root + path), "the man page names %s, which is installed" % path)
    c.ok(not re.search(r"(?<![\w/])(docs|templates)/", text),
         "the man page names no docs/ or templates/ of the source tree")


def complete(root, prefix, words, env):
    """COMPREPLY of the installed bash completion for the command line `words`."""
    script = os.path.join(root, prefix.lstrip("/"), "share", "bash-completion", "completions", "benchdb")
    return bdb.complete(script, words, env)


def check_completion(root, prefix, tmp):
    if not os.path.exists("/usr/share/bash-completion/bash_completion"):
        print("install: bash-completion is not installed (scripts/setup.sh --test installs it)")
        c.ok(False, "bash-completion present")
        return
    bindir = os.path.join(root, prefix.lstrip("/"), "bin")
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"])
    env.pop("BENCHDB_DB", None)
    got = complete(root, prefix, ["benchdb", "re"], env)
    c.eq(got, ["relabel", "reparse", "report"], "commands completing 're'")
    got = complete(root, prefix, ["benchdb", "export", "--format", ""], env)
    c.eq(got, ["csv", "ndjson"], "export --format values")
    db = os.path.join(tmp, "w.sqlite")
    classes = {"disk", "tmpfs"}
    bdb.import_examples(db, checks=c)
    got = complete(root, prefix, ["benchdb", "--db", db, "report", "--compare", ""], env)
    c.eq(set(got), classes, "report --compare completes the warehouse's storage classes")
    got = complete(root, prefix, ["benchdb", "--db", db, "import", "--storage-class", "t"], env)
    c.eq(got, ["tmpfs"], "--storage-class completes from the warehouse")
    zsh = shutil.which("zsh")
    if c.ok(zsh, "zsh is installed (scripts/setup.sh --test)"):
        script = os.path.join(root, prefix.lstrip("/"), "share", "zsh", "vendor-completions", "_benchdb")
        p = sh(zsh, "-n", script)
        c.eq(p.returncode, 0, "zsh -n _benchdb: " + p.stderr)


def needed_packages(exe):
    """The Debian packages that provide the shared libraries exe links: objdump's NEEDED
    sonames, the files ldd resolves them to, and dpkg -S of those files."""
    needed = set(re.findall(r"NEEDED\s+(\S+)", sh("objdump", "-p", exe).stdout))
    resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", sh("ldd", exe).stdout, re.M))
    pkgs = set()
    for soname in sorted(needed):
        path = resolved.get(soname)
        c.ok(path, "ldd resolves %s" % soname)
        p = sh("dpkg", "-S", path) if path else None
        if p and p.returncode != 0:  # merged /usr: dpkg knows a file under one of its names
            p = sh("dpkg", "-S", path[4:] if path.startswith("/usr/") else "/usr" + path)
        c.ok(p and p.returncode == 0, "dpkg -S %s" % path)
        if p:
            pkgs.update(line.split(":")[0] for line in p.stdout.splitlines())
    return pkgs


def package_build():
    """README's package build: a build directory of its own (kept under this one, so a rerun
    rebuilds only what changed), prefix /usr, no tests."""
    pkg = os.path.join(BUILD, "package-test")
    p = sh("cmake", "-S", SRC, "-B", pkg, "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_INSTALL_PREFIX=/usr",
           "-DBUILD_TESTING=OFF")
    if not c.eq(p.returncode, 0, "configure the package build: " + p.stderr[-2000:]):
        return None
    p = subprocess.run(["cmake", "--build", pkg, "-j%d" % (os.cpu_count() or 1)], capture_output=True,
                       text=True, timeout=1800)
    if not c.eq(p.returncode, 0, "the package build: " + (p.stdout + p.stderr)[-2000:]):
        return None
    c.ok(not os.path.exists(os.path.join(pkg, "tests")), "the package build builds no tests")
    return pkg


def check_deb(tmp):
    prefix = "/usr"
    pkg = package_build()
    if not pkg:
        return
    exe = os.path.join(pkg, "benchdb")
    p = sh("cpack", "-G", "DEB", "-B", os.path.join(tmp, "deb"), cwd=pkg)
    c.eq(p.returncode, 0, "cpack exit status: " + p.stderr[-2000:])
    debs = [f for f in os.listdir(os.path.join(tmp, "deb")) if f.endswith(".deb")] if p.returncode == 0 else []
    if not c.eq(len(debs), 1, "one .deb written"):
        return
    deb = os.path.join(tmp, "deb", debs[0])
    listing = sh("dpkg-deb", "-c", deb).stdout
    files = {line.split()[-1].lstrip("./") for line in listing.splitlines() if not line.startswith("d")}
    for want in sorted(expected_files(prefix)):
        c.ok(want in files, "in the .deb: %s" % want)
    depends = sh("dpkg-deb", "-f", deb, "Depends").stdout
    dep_pkgs = {d.strip().split()[0].split(":")[0] for d in depends.split(",") if d.strip()}
    want = needed_packages(exe)
    c.ok(want, "the binary links shared libraries from packages")
    for pkg in sorted(want):
        c.ok(pkg in dep_pkgs, "Depends names %s (got %s)" % (pkg, depends.strip()))
    # libpq5: not linked but loaded by the fleet's commands (fleet/libpq.c)
    for lib in ("libsqlite3", "libzstd", "libcjson", "libxlsxwriter", "libcmark-gfm", "libpq5"):
        c.ok(any(d.startswith(lib) for d in dep_pkgs), "Depends has %s*" % lib)
    # the binary as shipped: stripped (no .symtab, no .debug_*)
    x = os.path.join(tmp, "x")
    p = sh("dpkg-deb", "-x", deb, x)
    sections = sh("objdump", "-h", os.path.join(x, "usr", "bin", "benchdb")).stdout
    c.ok(p.returncode == 0 and ".text" in sections and ".debug_info" not in sections
         and "symtab" not in sh("readelf", "-S", os.path.join(x, "usr", "bin", "benchdb")).stdout,
         "the .deb's binary is stripped")
    copyright_ = open(os.path.join(x, "usr/share/doc/benchdb/copyright")).read()
    c.ok(copyright_.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"),
         "copyright is in the machine-readable format")
    lintian = shutil.which("lintian")
    if c.ok(lintian, "lintian is installed (scripts/setup.sh --test)"):
        p = sh(lintian, "--no-cfg", deb)
        errors = [line for line in p.stdout.splitlines() if line.startswith("E:")]
        for line in p.stdout.splitlines():
            print("install: lintian: " + line)
        c.eq(errors, [], "lintian reports no error (E:)")


def main():
    prefix = cache("CMAKE_INSTALL_PREFIX")
    if not prefix or not shutil.which("cpack") or not shutil.which("man"):
        print("install: skipped: no CMake cache beside %s, or no cpack/man" % bdb.BENCHDB)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "root")
        p = sh("cmake", "--install", BUILD, env=dict(os.environ, DESTDIR=root))
        c.eq(p.returncode, 0, "cmake --install exit status: " + p.stderr)
        exe = check_tree(root, prefix)
        check_man(root, prefix, exe)
        check_completion(root, prefix, tmp)
        check_deb(tmp)
    return c.done()


sys.exit(main())
