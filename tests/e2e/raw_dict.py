#!/usr/bin/python3
"""Compression dictionaries (schema/0006_raw_dict.sql, schema/rawstore.c). The inputs are real
GNU dd outputs made here, one per run of `dd if=/dev/zero of=/dev/null bs=1k count=N` (N = 1,
2, ...: each reports its own counts, time and rate): about 130 bytes each, which a zstd frame
of their own barely shortens.
- 255 files: no dictionary (a format gets one when 256 of its files are stored without one);
- the 256th, imported on its own: dd's dictionary; every file it shortens is stored against it
  (the rest as before): none grows, and together they shrink by more than a quarter; that
  import says so in one note (the files, and the bytes they now take), the others in none;
- every source decodes, by the zstd program with the dictionary python read, to the bytes of
  its file (python's sha256);
- a file imported afterwards is stored against the dictionary at once;
- reparse reads every source back to the same results;
- a merge into a new warehouse brings the dictionary once (a second merge adds nothing) and
  the merged sources decode there; a dictionary whose bytes are damaged makes the merge name it
  (no longer a zstd dictionary) and a source compressed against it, and merge nothing.
Env: BENCHDB."""
import hashlib
import os
import shutil
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

MIN_FILES = 256  # rawstore.c's DICT_MIN_FILES, as docs/schema.md gives it
t = Checks("raw_dict")


def rows(db, sql, *args):
    return bdb.sql_rows(db, sql, *args)


def check_decodes(db, what):
    stored = rows(db, "SELECT id, path, sha256 FROM source_file ORDER BY id")
    bad = [path for sid, path, sha in stored
           if hashlib.sha256(bdb.stored_bytes(db, sid)).hexdigest() != sha or
           sha != hashlib.sha256(open(path, "rb").read()).hexdigest()]
    t.eq(bad, [], "%s: every source decodes to its file's bytes (%d sources)" % (what, len(stored)))


def import_ok(db, *paths):
    code, out, err = bdb.call(db, "import", *paths)
    t.eq(code, 0, "import of %d dd outputs: %s" % (len(paths), err[-300:]))
    return [line for line in err.splitlines()
            if ": note: " in line and "without a storage class" not in line]


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-dict-") as tmp:
        files = bdb.dd_outputs(tmp, MIN_FILES + 1)
        db = os.path.join(tmp, "dd.sqlite")
        t.eq(import_ok(db, *files[:MIN_FILES - 1]), [], "%d files: no note" % (MIN_FILES - 1))
        t.eq(rows(db, "SELECT count(*) FROM raw_dict"), [(0,)],
             "%d files: no dictionary yet" % (MIN_FILES - 1))
        t.eq(rows(db, "SELECT count(*) FROM source_file WHERE raw_dict IS NOT NULL"), [(0,)],
             "and no file stored against one")
        before = dict(rows(db, "SELECT id, length(raw) FROM source_file"))

        notes = import_ok(db, files[MIN_FILES - 1])
        dicts = rows(db, "SELECT id, format, sha256, bytes FROM raw_dict")
        t.eq([(d[1]) for d in dicts], ["dd"], "the %dth file: a dictionary for dd" % MIN_FILES)
        if len(dicts) != 1:
            return t.done()
        did, _, dsha, dbytes = dicts[0]
        t.eq(dsha, hashlib.sha256(dbytes).hexdigest(), "raw_dict.sha256 is its bytes' hash")
        packed = rows(db, "SELECT count(*) FROM source_file WHERE raw_dict = ?", did)[0][0]
        t.ok(packed > MIN_FILES // 2, "most files stored against it (%d)" % packed)
        t.eq(rows(db, "SELECT count(*) FROM source_file WHERE raw_dict IS NOT NULL AND "
                      "(raw_codec IS NOT 'zstd' OR length(raw) >= size_bytes)"), [(0,)],
             "a file stored against the dictionary is a zstd frame shorter than the file")
        after = dict(rows(db, "SELECT id, length(raw) FROM source_file"))
        t.eq([sid for sid in before if after[sid] > before[sid]], [],
             "no file takes more room than before")
        t.ok(sum(after[sid] for sid in before) < sum(before.values()) * 0.75,
             "the first %d files take under three quarters of the room: %d bytes, from %d" %
             (MIN_FILES - 1, sum(after[sid] for sid in before), sum(before.values())))
        check_decodes(db, "after training")
        stored = rows(db, "SELECT sum(length(raw)) FROM source_file")[0][0]
        want = ("benchdb: note: dd: %d stored files compressed against a dictionary trained on %d "
                "of them: %d bytes, from " % (MIN_FILES, MIN_FILES, stored))
        t.ok(len(notes) == 1 and notes[0].startswith(want),
             "the import that trains says so once: %r (want %r...)" % (notes, want))

        t.eq(import_ok(db, files[MIN_FILES]), [], "the next import: no note")
        t.eq(rows(db, "SELECT raw_dict FROM source_file WHERE path = ?", files[MIN_FILES]),
             [(did,)], "a file imported afterwards is stored against the dictionary")
        t.eq(rows(db, "SELECT count(*) FROM raw_dict"), [(1,)], "and no second dictionary")

        code, out, err = bdb.call(db, "reparse")
        t.eq(code, 0, "reparse: " + err[-300:])
        lines = out.splitlines()
        t.ok(len(lines) == MIN_FILES + 1 and all("unchanged" in line for line in lines),
             "reparse reads every source back to the same results: %r" % out[-300:])

        merged = os.path.join(tmp, "merged.sqlite")
        for attempt in ("first", "second"):
            code, out, err = bdb.call(merged, "merge", db)
            t.eq(code, 0, "%s merge: %s" % (attempt, err[-300:]))
            t.eq(rows(merged, "SELECT format, sha256 FROM raw_dict"), [("dd", dsha)],
                 "%s merge: the dictionary, once" % attempt)
        t.eq(rows(merged, "SELECT count(*) FROM source_file WHERE raw_dict = (SELECT id FROM "
                          "raw_dict)"), [(packed + 1,)],
             "the merged sources point at the merged dictionary")
        check_decodes(merged, "merged")

        damaged = os.path.join(tmp, "damaged.sqlite")
        shutil.copy(db, damaged)
        con = sqlite3.connect(damaged)
        con.execute("UPDATE raw_dict SET bytes = zeroblob(length(bytes))")
        con.commit()
        con.close()
        target = os.path.join(tmp, "target.sqlite")
        code, out, err = bdb.call(target, "merge", damaged)
        t.ok(code != 0 and "dictionary %d (format 'dd') of source '%s'" % (did, files[0]) in err
             and "not a zstd dictionary" in err,
             "a merge whose dictionary is damaged names it and a source of it: %r" % err)
        t.eq(rows(target, "SELECT count(*) FROM source_file"), [(0,)], "and merges nothing")
    return t.done()


sys.exit(main())
