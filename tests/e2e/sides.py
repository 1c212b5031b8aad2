#!/usr/bin/python3
"""No silent empty report: each compared value without results under the --by key is an error
(exit status 1, nothing written) naming the key's known values, the nearest of them, the
--where filters that removed its results, or the other key it is a value of."""
import os, re, sqlite3, sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("sides")
SEED = os.path.join(os.environ.get("SRCDIR", "."), "..", "shared", "seeds")


def count(db, q, *params):
    with sqlite3.connect(db) as c:
        return c.execute(q, params).fetchone()[0]


def errors(err):
    """The error lines of stderr."""
    return [line for line in err.splitlines() if ": error: " in line]


def refused(db, what, *args):
    """report ARGS -o FILE: exit status 1, nothing written; returns stderr."""
    out = os.path.join(os.path.dirname(db), "out.md")
    rc, _, err = bdb.call(db, "report", *args, "-o", out)
    t.eq(rc, 1, what + ": exit status (" + err.strip() + ")")
    t.ok(not os.path.exists(out), what + ": nothing written with -o")
    return err


def works(db, what, *args):
    out = os.path.join(os.path.dirname(db), "ok.md")
    rc, _, err = bdb.call(db, "report", *args, "-o", out)
    t.eq(rc, 0, what + ": exit status (" + err.strip() + ")")
    t.ok(os.path.exists(out) and os.path.getsize(out) > 0, what + ": report written")
    if os.path.exists(out):
        os.unlink(out)


def check_typo():
    with bdb.temp_db() as db:
        disk = bdb.import_examples(db, checks=t)["disk"]
        err = refused(db, "--compare disk tmpf", "--compare", "disk", "tmpf")
        t.eq(errors(err), ["benchdb: error: no results with storage-class 'tmpf'; did you mean "
                           "'tmpfs'?"], "one error, for tmpf only, nearest tmpfs")
        t.ok("storage-class values: 'disk', 'tmpfs'" in err, "known values listed: " + err)
        works(db, "--compare disk tmpfs", "--compare", "disk", "tmpfs")

        # case differs: the nearest is the value as stored
        err = refused(db, "--compare DISK tmpfs", "--compare", "DISK", "tmpfs")
        t.ok("did you mean 'disk'?" in err, "case-insensitive nearest: " + err)
        # far from every value: no guess, the values still listed
        err = refused(db, "--compare disk nvme", "--compare", "disk", "nvme")
        t.ok("did you mean" not in err, "no guess for nvme: " + err)
        t.ok("'disk', 'tmpfs'" in err, "known values listed for nvme: " + err)
        # several missing values: one message each
        err = refused(db, "--compare dsik tmpf", "--compare", "dsik", "tmpf")
        t.eq(len(errors(err)), 2, "two missing values, two errors: " + err)
        t.ok("'dsik'; did you mean 'disk'?" in err, "transposition found: " + err)
        # xlsx, written by the renderer itself, is not written either
        xlsx = os.path.join(os.path.dirname(db), "r.xlsx")
        rc, _, err = bdb.call(db, "report", "--compare", "disk", "tmpf", "-o", xlsx)
        t.eq(rc, 1, "xlsx: exit status")
        t.ok(not os.path.exists(xlsx), "xlsx: nothing written")

        # the filters remove every result of a value that has some
        n_disk = count(db, "SELECT count(*) FROM result WHERE storage_class = 'disk'")
        n_tmpfs = count(db, "SELECT count(*) FROM result WHERE storage_class = 'tmpfs'")
        t.eq(count(db, "SELECT count(*) FROM result WHERE rw = 'randwrite'"), 0,
             "the examples have no randwrite")
        err = refused(db, "--where rw=randwrite", "--compare", "disk", "tmpfs",
                      "--where", "rw=randwrite")
        t.eq(errors(err), [
            "benchdb: error: no results with storage-class 'disk' where rw=randwrite (the "
            "filters remove all %d of its results)" % n_disk,
            "benchdb: error: no results with storage-class 'tmpfs' where rw=randwrite (the "
            "filters remove all %d of its results)" % n_tmpfs], "filtered out, with counts")
        works(db, "--where rw=randread", "--compare", "disk", "tmpfs", "--where", "rw=randread")

        # more than ten values: the first ten, sorted, and a count of the rest
        for i, f in enumerate(disk):
            rc, _, err = bdb.call(db, "relabel", "--where", "source=" + f,
                                  "--set", "storage_class=c%02d" % (i + 1))
            t.eq(rc, 0, "relabel " + f + ": " + err)
        values = sorted(["c%02d" % (i + 1) for i in range(len(disk))] + ["tmpfs"])
        err = refused(db, "13 values", "--compare", "tmpfs", "c1")
        want = "storage-class values: %s and %d more" % (
            ", ".join("'%s'" % v for v in values[:10]), len(values) - 10)
        t.ok(want in err, "%r in %r" % (want, err))


def check_other_key():
    with bdb.temp_db() as db:
        for cls, col in (("disk", "CephFS"), ("tmpfs", "NFS")):
            files = sorted(os.path.join(bdb.EXAMPLES, cls, f)
                           for f in os.listdir(os.path.join(bdb.EXAMPLES, cls))
                           if f.endswith(".json"))
            rc, _, err = bdb.call(db, "import", "--tag", "column=" + col, "--host", "h-" + cls,
                                  *files)
            t.eq(rc, 0, "import --tag column=" + col + ": " + err)
        err = refused(db, "--compare CephFS NFS", "--compare", "CephFS", "NFS")
        t.eq(errors(err), [
            "benchdb: error: no results with storage-class '%s'; '%s' is a value of "
            "tag:column: try --by tag:column" % (v, v) for v in ("CephFS", "NFS")],
            "tag:column named for both")
        t.ok("no result has a storage-class" in err, "no storage-class at all: " + err)
        works(db, "--by tag:column", "--by", "tag:column", "--compare", "CephFS", "NFS")
        # a host given as a storage class; a value in other case under another key
        err = refused(db, "--compare h-disk", "--compare", "h-disk", "CephFS", "--by", "tag:column")
        t.ok("'h-disk' is a value of host: try --by host" in err, "host named: " + err)
        t.ok("tag:column values: 'CephFS', 'NFS'" in err, "tag values listed: " + err)
        err = refused(db, "--by host --compare cephfs", "--by", "host", "--compare", "cephfs",
                      "h-disk")
        t.ok("'CephFS' is a value of tag:column: try --by tag:column" in err,
             "the stored spelling under another key: " + err)
        # an unknown key is still reported as such
        rc, _, err = bdb.call(db, "report", "--by", "colour", "--compare", "a", "b")
        t.eq(rc, 2, "unknown --by: a usage error")
        t.ok("unknown comparison key 'colour'" in err, "unknown --by named: " + err)
        # a class that is the value but for its case comes first, beyond the edits a typo
        # may take (CephFS -> cephfs: 3), the other key's exact spelling after it
        rc, _, err = bdb.call(db, "relabel", "--where", "tag:column=CephFS", "--set",
                              "storage_class=cephfs")
        t.eq(rc, 0, "relabel to cephfs: " + err)
        err = refused(db, "--compare CephFS", "--compare", "CephFS", "tmpfs")
        t.ok("no results with storage-class 'CephFS'; did you mean 'cephfs'? ('CephFS' is a "
             "value of tag:column: try --by tag:column)" in err, "the class in its case: " + err)


def check_seed():
    """The typed notes of seed 003 (CephFS and NFS as table columns), when the seeds exist."""
    seeds = sorted(f for f in os.listdir(SEED) if f.startswith("003_")) \
        if os.path.isdir(SEED) else []
    if not seeds:
        print("sides: seed 003 not found, skipped")
        return
    with bdb.temp_db() as db:
        rc, _, err = bdb.call(db, "import", os.path.join(SEED, seeds[0]))
        t.eq(rc, 0, "import seed 003: " + err)
        # the note's columns are its classes, stored in lower case: its own spelling is
        # pointed to them first, and to the column tag that keeps it
        err = refused(db, "seed: --compare CephFS NFS", "--compare", "CephFS", "NFS")
        t.eq(errors(err), [
            "benchdb: error: no results with storage-class '%s'; did you mean '%s'? ('%s' is a "
            "value of tag:column: try --by tag:column)" % (v, v.lower(), v)
            for v in ("CephFS", "NFS")], "seed: the class in lower case suggested")
        works(db, "seed: --compare cephfs nfs", "--compare", "cephfs", "nfs")
        works(db, "seed: --by tag:column", "--by", "tag:column", "--compare", "CephFS", "NFS")


check_typo()
check_other_key()
check_seed()
sys.exit(t.done())
