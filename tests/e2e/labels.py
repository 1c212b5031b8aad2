#!/usr/bin/python3
"""labels.py: `benchdb labels` lists each storage class, host, sec flavor, mount option and tag
with how many results and runs have it (counted here with python over the warehouse's tables,
read with sqlite3), for the whole warehouse, one KEY, --where filters and --since/--until; its
keys and values are ones `report --where` accepts, and the bash completion offers them (from
`benchdb labels --format csv` of the --db warehouse) for --compare and --where. Fixtures: tests/fixtures/disk_tmpfs/ (fio JSON) and
tests/fixtures/iperf (iperf3 -J, with its protocol tags)."""
import csv, datetime, glob, io, json, os, re, shutil, sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bdb  # noqa: E402
from checks import Checks  # noqa: E402

t = Checks("labels")
EXAMPLES = os.path.join(os.environ["SRCDIR"], "tests", "fixtures", "disk_tmpfs")
IPERF = os.path.join(os.environ["FIXTURES"], "iperf")


def fill(db):
    """A warehouse whose labels vary: two classes, two hosts, two mounts (one with a flag),
    tags, iperf3 results, and one relabelled result, so that results and runs counts differ."""
    disk = sorted(glob.glob(os.path.join(EXAMPLES, "disk", "*.json")))
    tmpfs = sorted(glob.glob(os.path.join(EXAMPLES, "tmpfs", "*.json")))
    imports = [
        ("--storage-class", "disk", "--host", "a", "--mount", "hard,vers=4.1,sec=krb5p",
         "--tag", "fw=1", *disk[:4]),
        ("--storage-class", "disk", "--host", "b", "--mount", "soft,vers=3", *disk[4:]),
        ("--storage-class", "tmpfs", "--host", "a", "--tag", "fw=2", *tmpfs),
        ("--host", "net", os.path.join(IPERF, "iperf3_tcp.json"),
         os.path.join(IPERF, "iperf3_bidir.json")),
    ]
    for opts in imports:
        p = bdb.run(db, "import", *opts)
        t.eq(p.returncode, 0, "import: " + p.stderr)
    p = bdb.run(db, "relabel", "--where", "source=" + tmpfs[0], "--set", "tag:fw=3")
    t.eq(p.returncode, 0, "relabel: " + p.stderr)


def tables(db):
    results = bdb.sql_rows(db, "SELECT r.id, r.run_id, r.storage_class, r.host, r.sec, r.mount_id,"
                               " run.started_at, r.rw FROM result r JOIN run ON run.id = r.run_id")
    options = defaultdict(list)
    for mount_id, key, value in bdb.sql_rows(db, "SELECT mount_id, key, value FROM mount_option"):
        options[mount_id].append((key, value))
    tags = defaultdict(list)
    for rid, key, value in bdb.sql_rows(db, "SELECT result_id, key, value FROM tag"):
        tags[rid].append((key, value))
    return results, options, tags


def expected(db, keep=lambda r: True, only=None):
    """{(key, value): (results, runs)} over the results (rows of tables()) keep() passes, keys
    as labels names them; only: one key's pairs."""
    results, options, tags = tables(db)
    seen = defaultdict(lambda: (set(), set()))
    for r in results:
        if not keep(r):
            continue
        rid, run, cls, host, sec, mount_id = r[:6]
        pairs = [("storage-class", cls), ("host", host), ("sec", sec)]
        pairs = [p for p in pairs if p[1] is not None]
        pairs += [("mount:" + k, v) for k, v in options.get(mount_id, [])]
        pairs += [("tag:" + k, v) for k, v in tags.get(rid, [])]
        for p in pairs:
            seen[p][0].add(rid)
            seen[p][1].add(run)
    got = {p: (len(ids), len(runs)) for p, (ids, runs) in seen.items()}
    return {p: n for p, n in got.items() if only is None or p[0] == only}


def listed(db, *args):
    """benchdb labels ARGS --format csv as {(key, value): (results, runs)}; an empty CSV
    value is None (a mount flag)."""
    rc, out, err = bdb.call(db, "labels", *args, "--format", "csv")
    t.eq(rc, 0, "labels %s: %s" % (" ".join(args), err))
    rows = list(csv.reader(io.StringIO(out)))
    t.eq(rows[0] if rows else None, ["key", "value", "results", "runs"], "csv header")
    return {(k, v or None): (int(n), int(runs)) for k, v, n, runs in rows[1:]}


def check_order(db):
    """Keys come storage-class, host, sec, mount:*, tag:*; values sorted within a key."""
    rc, out, err = bdb.call(db, "labels", "--format", "json")
    doc = json.loads(out)
    t.eq(doc["schema"], 1, "json schema version")
    keys = [row["key"] for row in doc["labels"]]
    rank = [0 if k == "storage-class" else 1 if k == "host" else 2 if k == "sec"
            else 3 if k.startswith("mount:") else 4 for k in keys]
    t.eq(rank, sorted(rank), "key groups in order")
    t.eq(keys[:2], ["storage-class", "storage-class"], "storage classes first")


def check_where_accepts(db, labels):
    """Each listed tag and storage class, given back as --where, selects the results that
    have it: their hosts' counts are python's over those results."""
    tags = tables(db)[2]
    for (key, value), (n, runs) in sorted(labels.items()):
        if key.startswith("tag:"):
            keep = lambda r, k=key[4:], v=value: (k, v) in tags.get(r[0], [])
        elif key == "storage-class":
            keep = lambda r, v=value: r[2] == v
        else:
            continue
        t.eq(listed(db, "host", "--where", "%s=%s" % (key, value)),
             expected(db, keep=keep, only="host"), "labels host --where %s=%s" % (key, value))


def completed(db, *words):
    """What the source tree's bash completion offers for `benchdb --db DB WORDS`, the last
    word being completed, split at ':' and '=' as bash splits COMP_WORDS; each reply with the
    part of the word before the last ':' put back (bash replaces only what follows it)."""
    script = os.path.join(os.environ["SRCDIR"], "cli", "completions", "benchdb.bash")
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(bdb.BENCHDB)) + ":" + os.environ["PATH"])
    env.pop("BENCHDB_DB", None)
    last = [w for w in re.split(r"([:=])", words[-1]) if w] or [""]
    got = bdb.complete(script, ["benchdb", "--db", db, *words[:-1], *last], env,
                       line=" ".join(["benchdb", "--db", db, *words]))
    head = words[-1][:words[-1].rfind(":") + 1]
    return sorted(head + g for g in got)


def check_completion(db, labels):
    if not os.path.exists("/usr/share/bash-completion/bash_completion") or \
            os.path.basename(bdb.BENCHDB) != "benchdb":
        print("labels: completion not checked: no bash-completion, or $BENCHDB is not named benchdb")
        return
    values = lambda key: sorted(v for k, v in labels if k == key)
    t.eq(completed(db, "report", "--compare", ""), values("storage-class"),
         "report --compare: the storage classes")
    t.eq(completed(db, "check", "--by", "host", "--compare", "disk", ""), values("host"),
         "check --by host --compare: the hosts")
    t.eq(completed(db, "import", "--host", ""), values("host"), "import --host")
    t.eq(completed(db, "report", "--where", "tag:f"),
         sorted("%s=%s" % p for p in labels if p[0] == "tag:fw"), "report --where tag:f")
    t.eq(completed(db, "report", "--where", "mount:h"), ["mount:hard="], "report --where mount:h")
    t.eq(completed(db, "relabel", "--where", "stor"),
         ["storage_class=" + v for v in values("storage-class")], "relabel --where: its own key")
    t.eq(completed(db, "lab"), ["labels"], "the command completes")
    t.eq(completed(os.path.join(os.path.dirname(db), "none.sqlite"), "report", "--compare", ""),
         [], "--db is honoured: no warehouse, no values")


with bdb.temp_db() as db:
    fill(db)
    whole = expected(db)
    t.ok(("mount:hard", None) in whole, "the warehouse has a mount flag to list")
    t.eq(listed(db), whole, "every label with its counts")
    t.eq(listed(db, "host"), expected(db, only="host"), "labels host")
    t.eq(listed(db, "tag:fw"), expected(db, only="tag:fw"), "labels tag:fw")
    t.eq(listed(db, "mount:hard"), expected(db, only="mount:hard"), "labels mount:hard (a flag)")
    t.eq(listed(db, "storage-class", "--where", "host=a"),
         expected(db, keep=lambda r: r[3] == "a", only="storage-class"), "--where host=a")
    rws = defaultdict(lambda: (set(), set()))
    results = tables(db)[0]
    for r in results:
        if r[7] is not None:
            rws[r[7]][0].add(r[0])
            rws[r[7]][1].add(r[1])
    t.eq(listed(db, "rw"), {("rw", k): (len(a), len(b)) for k, (a, b) in rws.items()},
         "labels rw (any --by key)")
    starts = sorted({r[6] for r in results if r[6] is not None})
    mid = starts[len(starts) // 2]
    since = datetime.datetime.fromtimestamp(mid, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    t.eq(listed(db, "--since", since), expected(db, keep=lambda r: r[6] is not None and r[6] >= mid),
         "--since " + since)
    t.eq(listed(db, "--where", "tag:fw=nosuch"), {}, "a filter nothing passes lists nothing")
    check_order(db)
    check_where_accepts(db, whole)
    check_completion(db, whole)
    rc, out, err = bdb.call(db, "labels", "host", "sec")
    t.eq(rc, 2, "two keys: usage error")

sys.exit(t.done())
