#!/usr/bin/python3
"""make-dicts.py BENCHDB | --check: the compression dictionaries benchdb ships (schema/dicts/).

A new warehouse compresses each stored file against its format's dictionary from the first
file on (schema/rawstore.c), so the first import does not pay for training one. Each is
trained by zstd's own trainer on the repository's real fixtures of its format:

  make-dicts.py BENCHDB   imports every fixture under tests/fixtures into a throwaway warehouse
                          with BENCHDB (which detects each file's format as any import does),
                          and trains, for each format with at least MIN_FILES files stored whole
                          and MIN_SAMPLE_BYTES of them, a dictionary of a sixteenth of those
                          bytes, at most DICT_BYTES (what schema/rawstore_train.c trains a
                          warehouse's with); writes a FORMAT.zdict each in schema/dicts/ and
                          schema/dicts/SOURCES (the zstd version, then each format's files).
  make-dicts.py --check   trains each dictionary again from SOURCES' files and fails unless
                          every byte is the one in the tree (the CTest dicts_reproducible).

Training is deterministic for one zstd version (single-threaded); --check exits 77 (skipped)
when the zstd program is another version than the one SOURCES names. Rebuild benchdb after a
change: CMake compiles schema/dicts/*.zdict into the binary."""
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DICTS = os.path.join(ROOT, "schema", "dicts")
SOURCES = os.path.join(DICTS, "SOURCES")
FIXTURES = "tests/fixtures"
MIN_FILES = 8
MIN_SAMPLE_BYTES = 16 << 10
DICT_BYTES = 32 << 10
SAMPLE_BYTES = 128 << 10  # zstd's trainer reads at most this much of each file
NOT_OUTPUTS = (".sh", ".md", ".meta", ".sqlite", ".py")


def zstd_version():
    out = subprocess.run(["zstd", "--version"], capture_output=True, text=True, check=True).stdout
    return re.search(r"v(\d+\.\d+\.\d+)", out).group(1)


def fixtures():
    found = []
    for top, dirs, names in os.walk(os.path.join(ROOT, FIXTURES)):
        dirs.sort()
        found += [os.path.relpath(os.path.join(top, n), ROOT) for n in sorted(names)
                  if not n.endswith(NOT_OUTPUTS)]
    return found


def formats_of(benchdb, paths):
    """{format: [path...]} of the files BENCHDB stores whole (not in chunks), by content."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "fixtures.sqlite")
        # some fixtures are refused on purpose (their tests check the error): exit 1 is expected
        p = subprocess.run([benchdb, "--db", db, "import", *paths], cwd=ROOT,
                           capture_output=True, text=True)
        if p.returncode not in (0, 1):
            sys.exit("make-dicts.py: %s import failed (%d): %s" % (benchdb, p.returncode,
                                                                  p.stderr[-2000:]))
        con = sqlite3.connect(db)
        rows = con.execute("SELECT format, path FROM source_file WHERE raw IS NOT NULL "
                           "ORDER BY format, path").fetchall()
        con.close()
    by = {}
    for fmt, path in rows:
        by.setdefault(fmt, []).append(path)
    return by


def dict_size(paths):
    """The dictionary's size for these samples, or 0 when they are too few to train one."""
    sample = sum(min(os.path.getsize(os.path.join(ROOT, p)), SAMPLE_BYTES) for p in paths)
    if len(paths) < MIN_FILES or sample < MIN_SAMPLE_BYTES:
        return 0
    return min(DICT_BYTES, sample // 16)


def train(paths, size, out):
    subprocess.run(["zstd", "--train", "-q", "-T1", "--maxdict=%d" % size, "-o", out, *paths],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def write(benchdb):
    by = formats_of(benchdb, fixtures())
    os.makedirs(DICTS, exist_ok=True)
    for old in os.listdir(DICTS):
        os.remove(os.path.join(DICTS, old))
    lines = ["# made by scripts/make-dicts.py with zstd %s: format, dictionary bytes asked, "
             "then the files it was trained on" % zstd_version()]
    for fmt, paths in sorted(by.items()):
        size = dict_size(paths)
        if not size:
            print("make-dicts.py: %s: %d files, too few to train on" % (fmt, len(paths)))
            continue
        train(paths, size, os.path.join(DICTS, fmt + ".zdict"))
        lines.append("format %s %d" % (fmt, size))
        lines += ["  " + p for p in paths]
        print("make-dicts.py: %s: %d files, a dictionary of %d bytes" %
              (fmt, len(paths), os.path.getsize(os.path.join(DICTS, fmt + ".zdict"))))
    with open(SOURCES, "w") as f:
        f.write("\n".join(lines) + "\n")


def read_sources():
    with open(SOURCES) as f:
        lines = f.read().splitlines()
    version = re.search(r"zstd (\S+):", lines[0]).group(1)
    entries = []
    for line in lines[1:]:
        if line.startswith("format "):
            _, fmt, size = line.split()
            entries.append((fmt, int(size), []))
        else:
            entries[-1][2].append(line.strip())
    return version, entries


def check():
    version, entries = read_sources()
    if zstd_version() != version:
        print("make-dicts.py: zstd %s here, the dictionaries were trained with %s: not compared"
              % (zstd_version(), version))
        return 77
    shipped = sorted(n[:-len(".zdict")] for n in os.listdir(DICTS) if n.endswith(".zdict"))
    bad = [] if shipped == sorted(e[0] for e in entries) else ["the .zdict files are not "
                                                                 "SOURCES' formats"]
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, size, paths in entries:
            out = os.path.join(tmp, fmt + ".zdict")
            train(paths, size, out)
            with open(out, "rb") as a, open(os.path.join(DICTS, fmt + ".zdict"), "rb") as b:
                if a.read() != b.read():
                    bad.append("%s.zdict differs from the one its files train" % fmt)
    for why in bad:
        print("make-dicts.py: " + why)
    print("make-dicts.py: %d dictionaries, %s" % (len(entries), "not reproduced" if bad else
                                                  "each the bytes its files train"))
    return 1 if bad else 0


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    if sys.argv[1] == "--check":
        sys.exit(check())
    write(os.path.abspath(sys.argv[1]))


if __name__ == "__main__":
    main()
