#!/usr/bin/python3
"""scale_db.py: the million-result warehouses of bench/run.sh, made inside SQLite from a few
real results (the bundled examples imported by each benchdb under test).
  scale_db.py replicate DB N      copies DB's results until it holds at least N: every table
                                  with a result_id column is copied along in the schema the
                                  binary wrote (schema 1: metric, tag, ...; schema 2: the wide
                                  result row, tag, histogram, ...)
  scale_db.py reference DB OUT N  OUT gets table `wide`: DB's results one row per result (the
                                  workload key and one REAL column per metric name, pivoted from
                                  DB's `metric`), copied the same way to N rows
  scale_db.py query               the reference's aggregate: the GROUP BY report --compare needs
Copy k of result id i is id i + k * max(id); its metric values are the original's times
1 + (k % 7) / 100, in every warehouse alike, so all of them hold the same values."""
import math, sqlite3, sys

# What report --compare groups on: the side, then the workload (query/results.c,
# format_workload_key) and the metrics it reads (query/results.c, pivot).
KEY = ["storage_class", "tool", "rw", "bs_bytes", "iodepth", "numjobs", "direct", "sync",
       "fsync", "fdatasync", "direction", "rwmixread"]
COMPARED = ["bw_bytes_s", "iops", "clat_mean_ns", "clat_p99_ns", "clat_p50_ns", "runtime_ms",
            "lat_mean_ns", "sync_lat_mean_ns", "sync_lat_p99_ns", "sync_lat_p50_ns"]
# The tables whose REAL columns are metric values (others, e.g. histogram bins, are copied)
VARIED = ("result", "metric", "wide")


def columns(db, table):
    """[(name, declared type, is the rowid alias)] of table."""
    rows = db.execute("SELECT name, type, pk FROM pragma_table_info(?)", (table,)).fetchall()
    n_pk = sum(1 for r in rows if r[2])
    return [(name, kind.upper(), pk == 1 and n_pk == 1 and kind.upper() == "INTEGER")
            for name, kind, pk in rows]


def copy_expr(table, id_col, name, kind):
    """The value of column name in copy k.i of a row of table."""
    if name == id_col:
        return "%s + k.i * $stride" % name
    if kind == "REAL" and table in VARIED:
        return "%s * (1 + (k.i %% 7) / 100.0)" % name
    return name


def copy_table(db, table, id_col, copies, stride):
    """Appends copies 1..copies-1 of table's rows (as they were before any copy)."""
    cols = [(n, k) for n, k, alias in columns(db, table) if not alias or n == id_col]
    names = ", ".join(n for n, _ in cols)
    exprs = ", ".join(copy_expr(table, id_col, n, k) for n, k in cols)
    db.execute("CREATE TEMP TABLE base AS SELECT %s FROM main.%s" % (names, table))
    # k outer (CROSS JOIN keeps the order): ids grow, so the B-trees are appended to
    db.execute("WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)"
               " INSERT INTO main.%s(%s) SELECT %s FROM k CROSS JOIN base"
               % (table, names, exprs.replace("$stride", str(stride))), (copies - 1,))
    db.execute("DROP TABLE temp.base")


def result_tables(db):
    """The tables (not views) with a result_id column."""
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'"
                                       " AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    return [t for t in tables if any(c[0] == "result_id" for c in columns(db, t))]


def replicate(path, want, table="result"):
    """Copies table's rows (id) and the rows keyed to them until there are at least want."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA cache_size = -262144")
    n, stride = db.execute("SELECT count(*), max(id) FROM %s" % table).fetchone()
    copies = math.ceil(want / n)
    db.execute("BEGIN")
    copy_table(db, table, "id", copies, stride)
    for t in result_tables(db) if table == "result" else []:
        copy_table(db, t, "result_id", copies, stride)
    db.execute("COMMIT")
    db.close()
    return n * copies


def reference(src, out, want):
    """out's table `wide`: src's results pivoted to one row each, then replicated."""
    db = sqlite3.connect(out, isolation_level=None)
    db.execute("ATTACH ? AS src", (src,))
    names = sorted({r[0] for r in db.execute("SELECT DISTINCT name FROM src.metric")} |
                   set(COMPARED))
    key = ", ".join("%s %s" % (k, "INTEGER" if k in ("bs_bytes", "iodepth", "numjobs",
                    "direct", "sync", "fsync", "fdatasync", "rwmixread") else "TEXT") for k in KEY)
    db.execute("CREATE TABLE wide(id INTEGER PRIMARY KEY, %s, error INTEGER, %s)"
               % (key, ", ".join("%s REAL" % n for n in names)))
    pivot = ", ".join("(SELECT value FROM src.metric WHERE result_id = r.id AND name = '%s')"
                      % n for n in names)
    db.execute("INSERT INTO wide SELECT r.id, %s, r.error, %s FROM src.result r"
               " JOIN src.run ON run.id = r.run_id"
               % (", ".join("run.tool" if k == "tool" else "r." + k for k in KEY), pivot))
    db.close()
    return replicate(out, want, "wide")


def query():
    """n, mean, min, max and the sum of squares (for the standard deviation) of each compared
    metric, per side and workload, over the two sides bench/run.sh compares."""
    aggs = ", ".join("count({0}), avg({0}), min({0}), max({0}), sum({0} * {0})".format(m)
                     for m in COMPARED)
    return ("SELECT %s, %s FROM wide WHERE storage_class IN ('disk', 'tmpfs') AND error = 0"
            " GROUP BY %s;" % (", ".join(KEY), aggs, ", ".join(KEY)))


if __name__ == "__main__":
    if sys.argv[1] == "replicate":
        print(replicate(sys.argv[2], int(sys.argv[3])))
    elif sys.argv[1] == "reference":
        print(reference(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    else:
        print(query())
