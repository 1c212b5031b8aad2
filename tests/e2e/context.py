#!/usr/bin/python3
"""Context that travels: benchdb run (real fio on tmpfs and on a disk directory, the mount
checked against python's own reading of /proc/self/mountinfo), sidecar .meta precedence, one
mount row for every written form of a mount, relabel + history, reparse, merge."""
import json, os, pwd, shutil, sqlite3, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

EXAMPLES = sorted(os.path.join(os.environ["SRCDIR"], "tests", "fixtures", "disk_tmpfs", "disk", f)
                  for f in os.listdir(os.path.join(os.environ["SRCDIR"], "tests", "fixtures", "disk_tmpfs", "disk"))
                  if f.endswith(".json"))
t = Checks("context")
TMP = tempfile.mkdtemp(prefix="bdb-context-")


def sql(db, q, *params):
    with sqlite3.connect(db) as c:
        return c.execute(q, params).fetchall()


def unescape(s):
    return s.replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\")


def mount_of(path):
    """(fstype, source, option set) of the mount holding path, from mountinfo."""
    real, best = os.path.realpath(path), None
    for line in open("/proc/self/mountinfo"):
        left, right = line.split(" - ")
        f, r = left.split(), right.split()
        target = unescape(f[4])
        if real == target or real.startswith(target.rstrip("/") + "/"):
            if best is None or len(target) >= len(best[0]):
                best = (target, r[0], r[1], set(f[5].split(",")) | set(r[2].split(",")))
    return best[1], best[2], best[3]


def check_fio_run(where):
    db = os.path.join(TMP, "run.sqlite")
    d = tempfile.mkdtemp(prefix="bdb-ctx-", dir=where)
    try:
        rc, out, err = bdb.call(db, "run", "--storage-class", "c-" + where, "--tag", "os=mine",
                                "--", "fio", "--name=ctx", "--directory=" + d, "--size=2M",
                                "--rw=write", "--bs=64k", "--ioengine=psync")
        t.eq(rc, 0, "benchdb run fio in " + where + ": " + err)
        row = sql(db, "SELECT m.fstype, m.device, m.options, r.host, r.id, s.path, s.id "
                      "FROM result r JOIN run ON run.id = r.run_id JOIN source_file s ON "
                      "s.id = run.source_id JOIN mount m ON m.id = r.mount_id "
                      "WHERE r.storage_class = ?", "c-" + where)
        if not t.eq(len(row), 1, "one result stored for " + where):
            return
        fstype, device, options, host, rid, path, sid = row[0]
        want_type, want_src, want_opts = mount_of(d)
        t.eq(fstype, want_type, "fstype of " + where)
        t.eq(device, want_src, "mount source of " + where)
        t.eq(set(options.split(",")), want_opts, "mount options of " + where)
        t.eq(host, os.uname().nodename, "host")
        t.ok(path.startswith("run:fio@"), "source path " + path)
        doc = json.loads(bdb.stored_bytes(db, sid))
        t.eq(doc["jobs"][0]["jobname"], "ctx", "stored raw output is fio's JSON")
        tags = dict(sql(db, "SELECT key, value FROM tag WHERE result_id = ?", rid))
        t.eq(tags.get("kernel"), os.uname().release, "tag kernel")
        t.eq(tags.get("os"), "mine", "--tag wins over the recorded os")
        t.ok("--output-format=json" in tags.get("cmdline", ""), "cmdline " + tags.get("cmdline", ""))
        t.ok(tags.get("tool_version", "").startswith("fio-"), "tool_version")
    finally:
        shutil.rmtree(d)


def check_fio_failure():
    db = os.path.join(TMP, "fail.sqlite")
    rc, out, err = bdb.call(db, "run", "--", "fio", "--name=x", "--filename=/proc/version/x",
                            "--size=1M")
    t.eq(rc, 1, "a failing benchmark exits 1")
    t.ok("exited with status" in err and "Not a directory" in err, "failure reported: " + err)
    t.ok(not os.path.exists(db), "nothing imported on failure (no warehouse created)")


def check_sidecar():
    db = os.path.join(TMP, "side.sqlite")
    d = os.path.join(TMP, "side")
    os.mkdir(d)
    a, b, c = (shutil.copy(EXAMPLES[i], d) for i in range(3))
    with open(a + ".meta", "w") as f:
        f.write("# per file\nhost = side-host\nstorage_class=side-class\ntag.x=side\n"
                "tag.y=side\nsec=krb5i\n")
    with open(os.path.join(d, "benchdb.meta"), "w") as f:
        f.write("storage_class=dir-class\n")
    rc, out, err = bdb.call(db, "import", "--tag", "y=flag", "--sec", "krb5p", a, b)
    t.eq(rc, 0, "import with sidecars " + err)
    recs = {r["source"]: r for r in bdb.export(db, t)}
    ra, rb = recs[a], recs[b]
    t.eq((ra["host"], ra["storage_class"], ra["sec"]), ("side-host", "side-class", "krb5p"),
         "FILE.meta applied, --sec wins")
    t.eq(ra["tags"], {"x": "side", "y": "flag"}, "tags: flag over sidecar")
    t.eq(rb["storage_class"], "dir-class", "benchdb.meta of the directory")
    rc, out, err = bdb.call(db, "import", "--storage-class", "flag-class", c)
    t.eq([r["storage_class"] for r in bdb.export(db, t) if r["source"] == c], ["flag-class"],
         "flag wins over benchdb.meta")
    with open(os.path.join(d, "benchdb.meta"), "w") as f:
        f.write("host=h\n\nbogus line\n")
    e = shutil.copy(EXAMPLES[3], d)
    rc, out, err = bdb.call(db, "import", e)
    t.eq(rc, 1, "bad sidecar rejects the file")
    t.eq(err.splitlines()[0], os.path.join(d, "benchdb.meta") +
         ":3: error: expected key=value, got 'bogus line'", "located sidecar error")


def check_sidecars_of_many():
    """Of many files of one folder, every one gets its own FILE.meta or else the folder's
    benchdb.meta, whether the import looks for them by name (the first files) or in the
    folder's listing (the others), serially or in workers, wherever the files are named."""
    d = os.path.join(TMP, "many")
    os.mkdir(d)
    names = [shutil.copy(p, os.path.join(d, "r%d.json" % i)) for i, p in enumerate(EXAMPLES)]
    own = {names[k] for k in (1, len(names) - 2, len(names) - 1)}  # early and late in the order
    for n in own:
        with open(n + ".meta", "w") as f:
            f.write("storage_class=own-%s\n" % os.path.basename(n))
    with open(os.path.join(d, "benchdb.meta"), "w") as f:
        f.write("storage_class=folder\n")
    t.ok(len(names) >= 8, "enough files to be listed (%d)" % len(names))
    for jobs in ("1", "3"):
        db = os.path.join(TMP, "many-%s.sqlite" % jobs)
        rc, out, err = bdb.call(db, "import", "-j", jobs, *names)
        t.eq(rc, 0, "-j %s: import %s" % (jobs, err))
        got = {r["source"]: r["storage_class"] for r in bdb.export(db, t)}
        want = {n: "own-" + os.path.basename(n) if n in own else "folder" for n in names}
        t.eq(got, want, "-j %s: each file's sidecar" % jobs)
    # named from another directory (./r0.json) the folder is the current one
    db = os.path.join(TMP, "many-cwd.sqlite")
    rc, out, err = bdb.call(db, "import", *[os.path.basename(n) for n in names], cwd=d)
    got = {r["source"]: r["storage_class"] for r in bdb.export(db, t)}
    t.eq(sorted(got.values()).count("folder"), len(names) - len(own),
         "relative names: the current folder's benchdb.meta")


MOUNT_FORMS = [
    "srv:/export on /mnt/x type nfs4 (rw,relatime,vers=4.2,rsize=1048576,wsize=1048576,hard,"
    "proto=tcp,sec=krb5p)",
    "srv:/export /mnt/x nfs4 rw,relatime,vers=4.2,rsize=1048576,wsize=1048576,hard,proto=tcp,"
    "sec=krb5p 0 0",
    "36 35 0:31 / /mnt/x rw,relatime shared:1 - nfs4 srv:/export rw,vers=4.2,rsize=1048576,"
    "wsize=1048576,hard,proto=tcp,sec=krb5p",
    "srv:/export /mnt/x nfs4 rw,relatime,nfsvers=4.2,rsize=1048576,wsize=1048576,hard,tcp,"
    "sec=krb5p 0 0",
    "sec=krb5p,hard,proto=tcp,wsize=1048576,rsize=1048576,vers=4.2,relatime,rw",
]
# By hand: the options sorted by key, nfsvers= and tcp written as vers= and proto=.
CANONICAL = "hard,proto=tcp,relatime,rsize=1048576,rw,sec=krb5p,vers=4.2,wsize=1048576"


def check_mount_forms(db):
    for form, path in zip(MOUNT_FORMS, EXAMPLES):
        rc, out, err = bdb.call(db, "import", "--storage-class", "nfs", "--mount", form, path)
        t.eq(rc, 0, "import with mount form: " + err)
    t.eq(sql(db, "SELECT options, fstype, device FROM mount"),
         [(CANONICAL, "nfs4", "srv:/export")], "one mount row for five forms")
    t.eq(sql(db, "SELECT DISTINCT sec, mount_id FROM result"), [("krb5p", 1)],
         "every result on that mount, sec krb5p")


def check_relabel(db):
    before = bdb.export(db, t)
    rc, out, err = bdb.call(db, "relabel", "--where", "storage_class=nfs", "--where",
                            "job=" + before[0]["job"], "--set", "storage_class=nfs-csi",
                            "--set", "tag:fw=2")
    t.eq(rc, 0, "relabel " + err)
    want = [r["result_id"] for r in before if r["job"] == before[0]["job"]]
    got = [r["result_id"] for r in bdb.export(db, t) if r["storage_class"] == "nfs-csi"]
    t.eq(got, want, "relabelled exactly the matching results")
    rc, out, err = bdb.call(db, "runs", "--history", "--format", "json")
    hist = json.loads(out)["history"]
    t.eq(len(hist), 2 * len(want), "two history rows per result")
    me = pwd.getpwuid(os.geteuid()).pw_name
    t.eq(sorted({(h["field"], h["old"], h["new"], h["changed_by"]) for h in hist}),
         sorted({("storage_class", "nfs", "nfs-csi", os.environ.get("USER") or me),
                 ("tag:fw", None, "2", os.environ.get("USER") or me)}), "history content")
    t.eq({h["changed_at"] for h in hist}, {"2026-01-01T00:00:00Z"},
         "changed_at from SOURCE_DATE_EPOCH")
    rc, out, err = bdb.call(db, "relabel", "--set", "colour=x")
    t.eq(rc, 2, "unknown --set key is a usage error")


def without_ids(recs):
    """Reparsing a changed source gives its run and results new ids: compare by source."""
    rows = [{k: v for k, v in r.items() if k not in ("result_id", "run_id")} for r in recs]
    return sorted(rows, key=lambda r: (r["source"], r["job"], r["direction"]))


def check_reparse(db):
    before = bdb.export(db, t)
    hist = sql(db, "SELECT field, old_value, new_value FROM label_history")
    rc, out, err = bdb.call(db, "reparse")
    t.eq(rc, 0, "reparse " + err)
    t.eq(bdb.export(db, t), before, "reparse with nothing changed changes nothing")
    t.ok(all(line.endswith("unchanged (1 results)") for line in out.splitlines()), out)
    # Damage the derived data of one relabelled result; reparse must restore it from raw.
    rid = [r["result_id"] for r in before if r["storage_class"] == "nfs-csi"][0]
    # one metric lost (iops), one changed (bw), two that the file has not (an iperf column,
    # a member of metrics_extra)
    sql(db, "UPDATE result SET iops = NULL, bw_bytes_s = 1, loss_pct = 5, metrics_extra = "
            "json_set(coalesce(metrics_extra, '{}'), '$.bogus', 1) WHERE id = ?", rid)
    rc, out, err = bdb.call(db, "reparse", "--where", "storage_class=nfs-csi")
    t.eq(rc, 0, "reparse after damage " + err)
    t.ok("1 added, 2 removed, 1 changed" in out, "reparse reports the change: " + out)
    t.eq(without_ids(bdb.export(db, t)), without_ids(before), "restored, labels and tags kept")
    t.eq(sql(db, "SELECT field, old_value, new_value FROM label_history"), hist,
         "history kept")


def check_merge():
    a, b = os.path.join(TMP, "a.sqlite"), os.path.join(TMP, "b.sqlite")
    bdb.call(a, "import", "--storage-class", "here", *EXAMPLES[:4])
    bdb.call(b, "import", "--storage-class", "there", *EXAMPLES[3:8])
    bdb.call(b, "relabel", "--where", "source=" + EXAMPLES[5], "--set", "host=h5")
    bdb.call(b, "import", "--mount", MOUNT_FORMS[0], EXAMPLES[8])
    counts = ("SELECT (SELECT count(*) FROM source_file), (SELECT count(*) FROM run), "
              "(SELECT count(*) FROM result), (SELECT count(*) FROM metric), "
              "(SELECT count(*) FROM tag), (SELECT count(*) FROM label_history), "
              "(SELECT count(*) FROM mount), (SELECT count(*) FROM mount_option)")
    ca, cb = sql(a, counts)[0], sql(b, counts)[0]
    rc, out, err = bdb.call(a, "merge", b)
    t.eq(rc, 0, "merge " + err)
    t.ok("stored in both warehouses with different labels (storage_class)" in err,
         "conflict reported: " + err)
    once = sql(a, counts)[0]
    # b has 6 sources, one of them (EXAMPLES[3]) already in a: 5 copied with 1 result each.
    t.eq(once[:3], (ca[0] + 5, ca[1] + 5, ca[2] + 5), "sources, runs, results copied")
    t.eq(once[3], ca[3] + cb[3] - sql(b, "SELECT count(*) FROM metric m JOIN result r ON "
                                         "r.id = m.result_id JOIN run ON run.id = r.run_id "
                                         "JOIN source_file s ON s.id = run.source_id "
                                         "WHERE s.path = ?", EXAMPLES[3])[0][0], "metrics")
    t.eq(once[5], cb[5], "label history copied")
    rc, out, err = bdb.call(a, "merge", b)
    t.eq(sql(a, counts)[0], once, "merging twice == merging once")
    recs = {r["source"]: r for r in bdb.export(a, t)}
    t.eq(recs[EXAMPLES[3]]["storage_class"], "here", "conflicting labels not overwritten")
    t.eq(recs[EXAMPLES[5]]["host"], "h5", "relabelled host copied")
    t.eq(recs[EXAMPLES[8]]["mount_options"], CANONICAL, "mount re-keyed")


try:
    for where in ("/dev/shm", "/var/tmp"):
        check_fio_run(where)
    check_fio_failure()
    check_sidecar()
    check_sidecars_of_many()
    db = os.path.join(TMP, "forms.sqlite")
    check_mount_forms(db)
    check_relabel(db)
    check_reparse(db)
    check_merge()
finally:
    shutil.rmtree(TMP)
sys.exit(t.done())
