#!/usr/bin/python3
"""cited_paths.py SRCDIR: every path of the repository that code comments, help texts and docs
cite exists, and nothing cites a file outside the repository (../shared/...), so a reader who
follows a reference finds it. Help texts cite documents as installed (BENCHDB_DOCDIR "/x.md",
or docs/x.md): those must also be among the files `cmake --install` puts in the doc directory.

A citation is a path that starts with one of the repository's top-level folders
("query/compare.c", "docs/methods.md", "templates/tiers.rules") or a bare document name in capitals
("FORMATS.md"). A path with a wildcard or a placeholder (test_*.c, <format>/) is a pattern, not a
file: its folder must exist."""
import os
import re
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else "."
TOP = ("bench", "cli", "cmake", "core", "docs", "examples", "fleet", "import", "ingest", "query",
       "report", "schema", "scripts", "templates", "tests")
SCANNED = (".c", ".h", ".md", ".py", ".sh", ".rules", ".sql", ".txt", ".cmake")
# Fixtures and fuzz corpora hold tools' outputs: a path in them is data, not a citation.
SKIPPED = ("tests/fixtures", "tests/corpus", "tests/golden")

PATH = re.compile(r"(?<![\w./$-])((?:%s)/[\w.+-]+(?:/[\w.+-]+)*)(/?)([*<{]?)" % "|".join(TOP))
BARE_DOC = re.compile(r"(?<![\w./-])([A-Z][A-Z_]{3,}\.md)\b")
# The environment's seeds, corpus and tools are inputs a test may read when present; a document
# there cited as the authority for a rule is not in the repository.
OUTSIDE = re.compile(r"\.\./shared/docs/[\w./-]*")
DOCDIR = re.compile(r'BENCHDB_DOCDIR\s*"/([\w.-]*\w)')


def files():
    for root, dirs, names in os.walk(SRC):
        rel = os.path.relpath(root, SRC)
        # build*/ and out/ hold what builds and the demo write (.gitignore), not sources
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build")) and d != "out"
                         and os.path.join(rel, d).lstrip("./") not in SKIPPED)
        for name in sorted(names):
            if name.endswith(SCANNED) or name == "CMakeLists.txt":
                yield os.path.normpath(os.path.join(rel, name))


def installed_docs():
    """The docs/ files CMakeLists.txt installs into the doc directory."""
    text = open(os.path.join(SRC, "CMakeLists.txt"), encoding="utf-8").read()
    m = re.search(r"install\(DIRECTORY docs/ DESTINATION \$\{CMAKE_INSTALL_DOCDIR\}(.*?)\)\n",
                  text, re.S)
    if not m:
        return None
    patterns = re.findall(r'PATTERN "([^"]+)"( EXCLUDE)?', m.group(1))
    included = [p for p, ex in patterns if not ex]
    excluded = [p for p, ex in patterns if ex]
    import fnmatch
    return {n for n in os.listdir(os.path.join(SRC, "docs"))
            if any(fnmatch.fnmatch(n, p) for p in included)
            and not any(fnmatch.fnmatch(n, p) for p in excluded)}


def exists(path):
    """path exists, or names a module ("core/arena": core/arena.c and .h) or the start of a file
    name ("schema/pg/0003": its migration); a capitalised last part is a placeholder (docs/NAME)."""
    full = os.path.join(SRC, path)
    if os.path.exists(full) or os.path.basename(path).isupper():
        return True
    folder, stem = os.path.split(full)
    return os.path.isdir(folder) and any(n.startswith(stem + ("" if stem[-1].isdigit() else "."))
                                         for n in os.listdir(folder))


def file_named(name):
    """A per-folder document (COMMANDS.md of each fixture folder) cited by its name alone."""
    for root, dirs, names in os.walk(SRC):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        if name in names:
            return True
    return False


def in_string(line, at):
    """Whether column at of a C line is inside a string literal (a help text), not a comment."""
    return line[:at].count('"') % 2 == 1


def check_file(rel, installed, problems):
    text = open(os.path.join(SRC, rel), encoding="utf-8", errors="replace").read()
    for lineno, line in enumerate(text.splitlines(), 1):
        where = "%s:%d" % (rel, lineno)
        for m in PATH.finditer(line):
            path, slash, wild = m.group(1).rstrip("."), m.group(2), m.group(3)
            if wild:  # a pattern: its folder must exist
                path = path if slash else os.path.dirname(path)
            if not exists(path):
                problems.append("%s: cites '%s', which does not exist" % (where, path))
        for m in BARE_DOC.finditer(line):
            name = m.group(1)
            if not (exists(name) or exists(os.path.join("docs", name)) or file_named(name)):
                problems.append("%s: cites '%s', which is in neither the top folder nor docs/"
                                % (where, name))
        for m in OUTSIDE.finditer(line):
            problems.append("%s: cites '%s', outside the repository" % (where, m.group(0)))
        if rel.startswith("cli/") and installed is not None:
            cited = [m.group(1) for m in DOCDIR.finditer(line)]
            cited += [os.path.basename(m.group(1).rstrip(".")) for m in PATH.finditer(line)
                      if m.group(1).startswith("docs/") and in_string(line, m.start())]
            for name in cited:
                if name not in installed:
                    problems.append("%s: help cites doc '%s', which is not installed"
                                    % (where, name))


def main():
    installed = installed_docs()
    problems = []
    if installed is None:
        problems.append("CMakeLists.txt: no install(DIRECTORY docs/ ...) rule to check help "
                        "texts against")
    scanned = 0
    for rel in files():
        if rel == "tests/tools/cited_paths.py":  # its examples are examples
            continue
        check_file(rel, installed, problems)
        scanned += 1
    for p in problems:
        print("cited_paths: " + p)
    print("cited_paths: %d files scanned, %d citations missing" % (scanned, len(problems)))
    return 1 if problems or scanned < 50 else 0


if __name__ == "__main__":
    sys.exit(main())
