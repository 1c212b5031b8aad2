#!/usr/bin/python3
"""The compression dictionaries benchdb ships (schema/dicts/, issue 35 item 1): a new warehouse
compresses against them from its first file, so its first import trains none.

- A new warehouse, the real fio JSON fixtures imported: no training note; one raw_dict row,
  fio-json's, whose bytes are schema/dicts/fio-json.zdict (read here) and whose sha256 is
  theirs (python's hashlib); every fio JSON stored whole points at it; a dd output (a format
  shipped none) is stored without one; every source decodes, by the zstd program, to its
  file's bytes.
- A file refused in the same batch as the first fio JSON stored (before it, so that its
  savepoint is rolled back after the dictionary's row might have gone in): the dictionary is
  stored once and every source's raw_dict names a row that exists (PRAGMA foreign_key_check).
- Retraining: 10,240 files stored against the shipped dictionary (rawstore_train.c's
  RETRAIN_FILES, ten times the 1,024 samples a training reads) and the import that stores them
  says it trained one on them; the shipped row stays (those files are stored against it), the
  files of the next import are stored against the new one. With 10,239 (one import fewer) no
  training happens.
- vacuum: every fio JSON is then stored against the newest dictionary, the shipped one is no
  longer stored (no file needs it), every source decodes, and the results export the same.
- vacuum of a warehouse whose 300 fio JSON files are stored against the shipped dictionary
  trains one on them (its note), repacks them against it and drops the shipped one.
Env: BENCHDB, FIXTURES, SRCDIR."""
import glob
import hashlib
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

BENCHDB = os.environ.get("BENCHDB", "benchdb")
FIXTURES = os.environ["FIXTURES"]
SHIPPED = os.path.join(os.environ["SRCDIR"], "schema", "dicts", "fio-json.zdict")
RETRAIN_FILES = 10 * 1024  # rawstore_train.c, as docs/schema.md gives it
MIN_FILES = 256  # rawstore_train.c's DICT_MIN_FILES
t = Checks("shipped_dict")


def rows(db, sql):
    return bdb.sql_rows(db, sql)


def import_(db, *args):
    return subprocess.run([BENCHDB, "--db", db, "import", *args], capture_output=True, text=True)


def undecodable(db, where="1"):
    """The paths of sources (of where) whose stored bytes do not decode to their sha256."""
    return [path for sid, path, sha in rows(db, "SELECT id, path, sha256 FROM source_file "
                                                "WHERE %s ORDER BY id" % where)
            if hashlib.sha256(bdb.stored_bytes(db, sid)).hexdigest() != sha]


def copies(d, n, start=0):
    """n fio JSON files, each a real fio run (unified_mixed.json) with a job name of its own."""
    raw = open(os.path.join(FIXTURES, "fio_json", "unified_mixed.json"), "rb").read()
    os.makedirs(d, exist_ok=True)
    paths = []
    for i in range(start, start + n):
        paths.append(os.path.join(d, "c%05d.json" % i))
        with open(paths[-1], "wb") as f:
            f.write(raw.replace(b'"jobname" : "', b'"jobname" : "c%d-' % i, 1))
    return paths


def first_import(tmp, shipped):
    db = os.path.join(tmp, "first.sqlite")
    fio = sorted(glob.glob(os.path.join(FIXTURES, "fio_json", "*.json")))
    dd = sorted(glob.glob(os.path.join(FIXTURES, "dd", "*.txt")))[:1]
    p = import_(db, *fio, *dd)
    t.ok(p.returncode in (0, 1), "the fixtures imported: " + p.stderr[-300:])
    t.ok("dictionary trained" not in p.stderr, "no dictionary trained: " + p.stderr[-300:])
    dicts = rows(db, "SELECT id, format, sha256, bytes FROM raw_dict")
    t.eq([(f, s, b) for _, f, s, b in dicts],
         [("fio-json", hashlib.sha256(shipped).hexdigest(), shipped)],
         "one dictionary: the shipped fio-json.zdict, with its hash")
    stored = rows(db, "SELECT format, raw_dict, count(*) FROM source_file WHERE raw IS NOT NULL "
                      "GROUP BY 1, 2 ORDER BY 1")
    fio_count = rows(db, "SELECT count(*) FROM source_file WHERE format = 'fio-json'")[0][0]
    t.ok(fio_count >= 10, "the fio JSON fixtures stored (%d)" % fio_count)
    want = [("dd", None, 1), ("fio-json", dicts[0][0] if dicts else None, fio_count)]
    t.eq(stored, want, "every fio JSON against it, the dd output against none")
    t.eq(undecodable(db), [], "every source decodes to its file's bytes")


def refused_first(tmp):
    db = os.path.join(tmp, "refused.sqlite")
    good = copies(os.path.join(tmp, "refused"), 3)
    bad = os.path.join(tmp, "refused", "bad.json")
    with open(good[0], "rb") as f, open(bad, "wb") as out:
        out.write(f.read()[:-200])  # a real run cut short: refused
    p = import_(db, good[0], bad, *good[1:])
    t.eq(p.returncode, 1, "the cut file refused: " + p.stderr[-300:])
    t.eq(rows(db, "SELECT count(*) FROM raw_dict"), [(1,)], "the dictionary stored once")
    t.eq(rows(db, "SELECT count(*) FROM source_file WHERE raw_dict IN (SELECT id FROM raw_dict)"),
         [(3,)], "the three stored files against it")
    t.eq(rows(db, "PRAGMA foreign_key_check"), [], "no source names a dictionary not stored")


def retraining(tmp):
    db = os.path.join(tmp, "retrain.sqlite")
    d = os.path.join(tmp, "many")
    p = import_(db, *copies(d, RETRAIN_FILES - 1))
    t.eq(p.returncode, 0, "%d files imported: %s" % (RETRAIN_FILES - 1, p.stderr[-300:]))
    t.ok("trained" not in p.stderr, "one file short: nothing trained: " + p.stderr[-300:])
    t.eq(rows(db, "SELECT count(*) FROM raw_dict"), [(1,)], "one file short: the shipped one only")
    p = import_(db, *copies(d, 1, RETRAIN_FILES - 1))
    want = ("note: fio-json: the files that follow are compressed against a dictionary trained "
            "on 1024 of the %d stored against the one benchdb ships" % RETRAIN_FILES)
    t.ok(want in p.stderr, "the import of the %dth file trains: want %r, got %r"
         % (RETRAIN_FILES, want, p.stderr[-400:]))
    dicts = rows(db, "SELECT id FROM raw_dict ORDER BY id")
    t.eq(len(dicts), 2, "two dictionaries: the shipped one and the warehouse's")
    if len(dicts) != 2:
        return
    shipped_id, new_id = dicts[0][0], dicts[1][0]
    t.eq(rows(db, "SELECT raw_dict, count(*) FROM source_file GROUP BY 1"),
         [(shipped_id, RETRAIN_FILES)], "the files before stay against the shipped one")
    p = import_(db, *copies(d, 5, RETRAIN_FILES))
    t.eq(p.returncode, 0, "five more imported: " + p.stderr[-300:])
    t.eq(rows(db, "SELECT count(*) FROM source_file WHERE raw_dict = %d" % new_id), [(5,)],
         "the files after against the new one")
    t.eq(undecodable(db, "id %% 500 = 0 OR raw_dict = %d" % new_id), [],
         "a sample of the files and the new ones decode")
    export_before = subprocess.run([BENCHDB, "--db", db, "export", "--format", "csv"],
                                   capture_output=True).stdout
    p = subprocess.run([BENCHDB, "--db", db, "vacuum"], capture_output=True, text=True)
    t.eq(p.returncode, 0, "vacuum: " + p.stderr[-300:])
    t.ok(("note: fio-json: %d stored files repacked against its newest dictionary"
          % RETRAIN_FILES) in p.stderr, "vacuum says what it repacked: " + p.stderr[-300:])
    t.eq(rows(db, "SELECT id FROM raw_dict"), [(new_id,)], "vacuum dropped the shipped one")
    t.eq(rows(db, "SELECT raw_dict, count(*) FROM source_file GROUP BY 1"),
         [(new_id, RETRAIN_FILES + 5)], "every file against the warehouse's dictionary")
    t.eq(undecodable(db, "id % 250 = 0"), [], "a sample of the repacked files decodes")
    export_after = subprocess.run([BENCHDB, "--db", db, "export", "--format", "csv"],
                                  capture_output=True).stdout
    t.ok(export_before == export_after and len(export_after) > 1000,
         "the results export the same after vacuum")


def vacuum_trains(tmp, shipped):
    db = os.path.join(tmp, "vacuum.sqlite")
    p = import_(db, *copies(os.path.join(tmp, "few"), MIN_FILES + 44))
    t.eq(p.returncode, 0, "300 files imported: " + p.stderr[-300:])
    before = rows(db, "SELECT sum(length(raw)) FROM source_file")[0][0]
    p = subprocess.run([BENCHDB, "--db", db, "vacuum"], capture_output=True, text=True)
    t.eq(p.returncode, 0, "vacuum: " + p.stderr[-300:])
    t.ok("note: fio-json: a dictionary trained on 300 of its stored files" in p.stderr,
         "vacuum trains one: " + p.stderr[-300:])
    dicts = rows(db, "SELECT id, bytes FROM raw_dict")
    t.ok(len(dicts) == 1 and dicts[0][1] != shipped, "one dictionary, not the shipped one")
    after = rows(db, "SELECT sum(length(raw)) FROM source_file")[0][0]
    t.ok(after < before, "the files take less room: %d bytes, from %d" % (after, before))
    t.eq(undecodable(db), [], "every source decodes")


def main():
    shipped = open(SHIPPED, "rb").read()
    with tempfile.TemporaryDirectory(prefix="bdb-shipped-") as tmp:
        first_import(tmp, shipped)
        refused_first(tmp)
        retraining(tmp)
        vacuum_trains(tmp, shipped)
    return t.done()


sys.exit(main())
