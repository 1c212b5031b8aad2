#!/usr/bin/python3
"""A merge never makes a source point at a dictionary it was not compressed against (issue 29,
item 2). Two warehouses A and B of real GNU dd outputs (bdb.dd_outputs: every run reports its
own time and rate, so no file is in both), each of 256 files, so each trains its own dd
dictionary (different bytes: python compares them).
- B's raw_dict.sha256 made to claim A's dictionary: merging B into a copy of A is refused (exit
  1), the error names B, the dictionary, a source compressed against it and that its bytes
  hash to another sha256; nothing is merged (the copy's sources and dictionaries are A's). An
  older benchdb merged it with exit 0, and every merged source pointed at A's dictionary.
- A copy of A whose own dictionary row claims B's sha256 (A's bytes): merging an honest B into
  it is refused too, each source of B compressed against the dictionary named as not decoding
  (the dictionary each would point at here is the copy's): the check is on the sources as
  copied, not only on the other's dictionaries.
- The state the older merge left: a copy of B whose dictionary bytes are A's (sha256 kept).
  reparse names every source compressed against it (python: raw_dict IS NOT NULL) with why it
  does not decode, leaves it as it is, reparses every other one ("unchanged"), and exits 1; an
  older benchdb stopped at the first with exit 3.
- The honest merge of B into A brings B's dictionary beside A's and every merged source
  decodes (python, with the zstd program) to its file's bytes.
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
t = Checks("merge_dict_forged")


def rows(db, sql, *args):
    return bdb.sql_rows(db, sql, *args)


def warehouse(tmp, name):
    folder = os.path.join(tmp, name)
    os.mkdir(folder)
    files = bdb.dd_outputs(folder, MIN_FILES)
    db = os.path.join(tmp, name + ".sqlite")
    code, out, err = bdb.call(db, "import", *files)
    t.eq(code, 0, "import of %s: %s" % (name, err[-300:]))
    return db


def tampered(src, dst, *statements):
    shutil.copy(src, dst)
    con = sqlite3.connect(dst)
    for sql, args in statements:
        con.execute(sql, args)
    con.commit()
    con.close()
    return dst


def state(db):
    return (rows(db, "SELECT id, sha256, raw_dict FROM source_file ORDER BY id"),
            rows(db, "SELECT id, sha256, bytes FROM raw_dict ORDER BY id"))


def main():
    with tempfile.TemporaryDirectory(prefix="bdb-forged-") as tmp:
        a, b = warehouse(tmp, "a"), warehouse(tmp, "b")
        (a_dict,) = rows(a, "SELECT id, sha256, bytes FROM raw_dict")
        (b_dict,) = rows(b, "SELECT id, sha256, bytes FROM raw_dict")
        t.ok(a_dict[2] != b_dict[2], "A and B trained dictionaries of different bytes")
        t.eq(hashlib.sha256(b_dict[2]).hexdigest(), b_dict[1], "B's sha256 is its bytes' hash")
        b_packed = [p for (p,) in rows(b, "SELECT path FROM source_file WHERE raw_dict IS NOT "
                                          "NULL ORDER BY id")]
        b_plain = [p for (p,) in rows(b, "SELECT path FROM source_file WHERE raw_dict IS NULL "
                                         "ORDER BY id")]
        t.ok(len(b_packed) > MIN_FILES // 2, "most of B is compressed against its dictionary")

        # B claims A's dictionary
        forged = tampered(b, os.path.join(tmp, "forged.sqlite"),
                          ("UPDATE raw_dict SET sha256 = ?", (a_dict[1],)))
        into = os.path.join(tmp, "into.sqlite")
        shutil.copy(a, into)
        before = state(into)
        code, out, err = bdb.call(into, "merge", forged)
        want = ("%s: error: dictionary %d (format 'dd') of source '%s' and %d others: its bytes "
                "hash to sha256 %s..., not to the %s... stored with it\n"
                % (forged, b_dict[0], b_packed[0], len(b_packed) - 1,
                   hashlib.sha256(b_dict[2]).hexdigest()[:12], a_dict[1][:12]))
        t.eq(code, 1, "a dictionary claiming another's sha256: merge refused: " + err[-400:])
        t.ok(err.startswith(want), "the dictionary, a source and both hashes named: %r" % err)
        t.ok("nothing merged" in err, "says nothing was merged: %r" % err)
        t.ok(state(into) == before, "the warehouse merged into is as it was")

        # the warehouse merged into claims B's dictionary with A's bytes
        into = tampered(a, os.path.join(tmp, "claims.sqlite"),
                        ("UPDATE raw_dict SET sha256 = ?", (b_dict[1],)))
        before = state(into)
        code, out, err = bdb.call(into, "merge", b)
        named = [p for p in b_packed if "'%s' (id " % p in err]
        t.eq(code, 1, "merging into a dictionary of the same sha256 and other bytes: refused")
        t.eq(named, b_packed, "each source of B compressed against it is named")
        t.ok(all("its stored bytes do not decode: " in line for line in err.splitlines()[:-1]),
             "as not decoding, with why: %r" % err[:400])
        t.ok(state(into) == before, "nothing merged")

        # what the older merge left: B's sources against A's dictionary bytes
        broken = tampered(b, os.path.join(tmp, "broken.sqlite"),
                          ("UPDATE raw_dict SET bytes = ?", (a_dict[2],)))
        code, out, err = bdb.call(broken, "reparse")
        t.eq(code, 1, "reparse of undecodable sources: exit 1: " + err[-300:])
        errors = [line for line in err.splitlines() if ": error: " in line]
        t.eq([line.split(": error: ")[0] for line in errors], b_packed,
             "each undecodable source named, in order")
        t.ok(all(line.split(": error: ")[1].startswith("its stored bytes do not decode: ") and
                 line.endswith("; left as it is") for line in errors),
             "with why, left as it is: %r" % errors[:2])
        t.eq(sorted(line.split(": unchanged")[0] for line in out.splitlines()), sorted(b_plain),
             "every other source reparsed, unchanged")

        # honest
        into = os.path.join(tmp, "honest.sqlite")
        shutil.copy(a, into)
        code, out, err = bdb.call(into, "merge", b)
        t.eq(code, 0, "the honest merge: " + err[-300:])
        t.eq(rows(into, "SELECT sha256 FROM raw_dict ORDER BY id"), [(a_dict[1],), (b_dict[1],)],
             "B's dictionary beside A's")
        stored = rows(into, "SELECT id, path, sha256 FROM source_file ORDER BY id")
        bad = [p for sid, p, sha in stored
               if hashlib.sha256(bdb.stored_bytes(into, sid)).hexdigest() != sha
               or sha != bdb.file_sha256(p)]
        t.eq((len(stored), bad), (2 * MIN_FILES, []), "every source decodes to its file's bytes")
    return t.done()


sys.exit(main())
