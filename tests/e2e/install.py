#!/usr/bin/python3
"""install.py: what `cmake --install` and `cpack -G DEB` ship, checked as a user would meet
it: the binary runs from the installed tree, `man` renders the page, bash completes commands
and the warehouse's storage classes, the --help texts name documentation that is installed,
and the .deb holds the same files with Depends on the packages that provide the libraries
the binary links (found independently: objdump's NEEDED sonames, dpkg -S)."""
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


def expected_files(prefix):
    p = prefix.lstrip("/")
    return {p + "/bin/benchdb", p + "/share/man/man1/benchdb.1",
            p + "/share/bash-completion/completions/benchdb",
            p + "/share/zsh/vendor-completions/_benchdb",
            p + "/share/doc/benchdb/export.md", p + "/share/doc/benchdb/schema.md",
            p + "/share/benchdb/templates/tiers.rules"}


def check_tree(root, prefix):
    files = installed_files(root)
    for want in sorted(expected_files(prefix)):
        c.ok(want in files, "installed: %s" % want)
    exe = os.path.join(root, prefix.lstrip("/"), "bin", "benchdb")
    p = sh(exe, "--version")
    c.ok(p.returncode == 0 and p.stdout.startswith("benchdb "), "installed benchdb --version: %r" % p.stdout)
    # every documentation path a --help text names is one the package installs
    for cmd in ("export", "query"):
        text = sh(exe, cmd, "--help").stdout.replace("\n", "")
        named = re.findall(r"(/\S+?\.md)", text)
        c.ok(bool(named), "%s --help names its documentation" % cmd)
        for path in named:
            c.ok(os.path.isfile(root + path), "%s --help names %s, which is installed" % (cmd, path))
    return exe


def check_man(root, prefix):
    page = os.path.join(root, prefix.lstrip("/"), "share", "man", "man1", "benchdb.1")
    p = sh("man", "-l", page, env=dict(os.environ, MANWIDTH="80", MANPAGER="cat", PAGER="cat"))
    c.eq(p.returncode, 0, "man -l exit status " + p.stderr)
    text = re.sub(r".\x08", "", p.stdout)
    for heading in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS"):
        c.ok(re.search(r"^%s$" % heading, text, re.M), "man page has section %s" % heading)
    c.ok("benchdb - a results warehouse" in text, "man page NAME line")
    c.ok(re.search(r"^BENCHDB\(1\)", text, re.M), "man page header BENCHDB(1)")


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


def check_deb(prefix, tmp, exe):
    p = sh("cpack", "-G", "DEB", "-B", os.path.join(tmp, "deb"), cwd=BUILD)
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
    for lib in ("libsqlite3", "libzstd", "libcjson", "libxlsxwriter", "libcmark-gfm"):
        c.ok(any(d.startswith(lib) for d in dep_pkgs), "Depends has %s*" % lib)


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
        check_man(root, prefix)
        check_completion(root, prefix, tmp)
        check_deb(prefix, tmp, exe)
    return c.done()


sys.exit(main())
