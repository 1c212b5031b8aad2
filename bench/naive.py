#!/usr/bin/python3
"""naive.py DB FILE...: the same fields as bench/floor.c, loaded with only json and sqlite3
(one transaction), as the 'python script' baseline of bench/run.sh."""
import json, sqlite3, sys


def rows(paths):
    for path in paths:
        with open(path, "rb") as f:
            doc = json.load(f)
        for job in doc.get("jobs", []):
            r, w = job.get("read", {}), job.get("write", {})
            yield (path, job.get("jobname"), r.get("bw_bytes", 0), r.get("iops", 0),
                   w.get("bw_bytes", 0), w.get("iops", 0), r.get("clat_ns", {}).get("mean", 0))


db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE IF NOT EXISTS r(path TEXT, job TEXT, rbw REAL, riops REAL, wbw REAL,"
           " wiops REAL, rclat REAL)")
with db:
    db.executemany("INSERT INTO r VALUES (?,?,?,?,?,?,?)", rows(sys.argv[2:]))
db.close()
