-- 0001_init.sql: the benchdb warehouse. Base units only: bytes, bytes/s, IOPS, ns, ms.
-- Applied by schema/migrate.c in one transaction; PRAGMA user_version records the last one.

-- One row per imported file: provenance, and the raw bytes so that results can be re-derived
-- by a later importer (benchdb reparse): in raw up to 4 MiB, else in source_chunk.
CREATE TABLE source_file (
    id               INTEGER PRIMARY KEY,
    path             TEXT NOT NULL,            -- as given on the command line
    sha256           TEXT NOT NULL UNIQUE,     -- content hash: the same content imports once
    format           TEXT NOT NULL,            -- importer name (fio-json, dd, ...)
    importer_version TEXT NOT NULL,
    imported_at      TEXT NOT NULL,            -- ISO 8601 UTC
    size_bytes       INTEGER NOT NULL,
    raw              BLOB                      -- NULL: the bytes are in source_chunk
) STRICT;

-- The bytes of files over 4 MiB, in 4 MiB pieces (the last one shorter): a BLOB holds at most
-- 1e9 bytes, and a file can be stored while it is read.
CREATE TABLE source_chunk (
    source_id  INTEGER NOT NULL REFERENCES source_file(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,               -- 0, 1, ...: the order in the file
    data       BLOB NOT NULL,
    PRIMARY KEY (source_id, seq)
) STRICT;

-- A mount as a canonical, order-independent option set; the same options share one row.
CREATE TABLE mount (
    id        INTEGER PRIMARY KEY,
    options   TEXT NOT NULL UNIQUE,            -- canonical: sorted key[=value] joined by ','
    fstype    TEXT,
    device    TEXT                             -- e.g. server:/export
) STRICT;

CREATE TABLE mount_option (
    mount_id  INTEGER NOT NULL REFERENCES mount(id) ON DELETE CASCADE,
    key       TEXT NOT NULL,
    value     TEXT,                            -- NULL for flags such as 'hard'
    PRIMARY KEY (mount_id, key)
) STRICT;

-- One run per imported file, with the labels given at import time.
CREATE TABLE run (
    id            INTEGER PRIMARY KEY,
    source_id     INTEGER NOT NULL REFERENCES source_file(id) ON DELETE CASCADE,
    tool          TEXT,
    tool_version  TEXT,
    started_at    INTEGER,                     -- Unix seconds from the content, NULL unknown
    command_line  TEXT
) STRICT;
CREATE INDEX run_source ON run(source_id);

-- One result per job and direction (storage) or per test and direction (network).
CREATE TABLE result (
    id            INTEGER PRIMARY KEY,
    run_id        INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
    host          TEXT,
    peer          TEXT,
    storage_class TEXT,
    sec           TEXT CHECK (sec IN ('sys', 'krb5', 'krb5i', 'krb5p', 'none')),
    mount_id      INTEGER REFERENCES mount(id),
    job           TEXT,
    direction     TEXT,                        -- read write trim mixed | send receive
    rw            TEXT,
    bs_bytes      INTEGER,
    iodepth       INTEGER,
    numjobs       INTEGER,
    direct        INTEGER,
    sync          INTEGER,
    fsync         INTEGER,
    fdatasync     INTEGER,
    ioengine      TEXT,
    size_bytes    INTEGER,
    rwmixread     INTEGER,
    runtime_s     INTEGER,
    error         INTEGER NOT NULL DEFAULT 0,
    error_msg     TEXT,
    line_first    INTEGER,
    line_last     INTEGER,
    transcribed   INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX result_run ON result(run_id);
CREATE INDEX result_class ON result(storage_class);

CREATE TABLE metric (
    result_id  INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,                  -- e.g. bw_bytes_s, clat_p99_ns
    value      REAL NOT NULL,
    PRIMARY KEY (result_id, name)
) STRICT, WITHOUT ROWID;

CREATE TABLE tag (
    result_id  INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    PRIMARY KEY (result_id, key)
) STRICT, WITHOUT ROWID;

-- Latency histogram (fio json+ bins, hist logs): count of I/Os per latency value.
CREATE TABLE latency_bin (
    result_id  INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
    metric     TEXT NOT NULL,                  -- clat, lat, slat
    value_ns   REAL NOT NULL,
    count      REAL NOT NULL
) STRICT;
CREATE INDEX latency_bin_result ON latency_bin(result_id);

-- Time series from fio logs (downsampled).
CREATE TABLE series_point (
    result_id  INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
    metric     TEXT NOT NULL,
    t_ms       REAL NOT NULL,
    value      REAL NOT NULL
) STRICT;
CREATE INDEX series_point_result ON series_point(result_id);

-- Every change of a label (relabel), with who, when and the old value.
CREATE TABLE label_history (
    id         INTEGER PRIMARY KEY,
    result_id  INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
    field      TEXT NOT NULL,
    old_value  TEXT,
    new_value  TEXT,
    changed_by TEXT NOT NULL,
    changed_at TEXT NOT NULL
) STRICT;

-- One row per result with its whole context: the view for ad-hoc SQL.
CREATE VIEW v_result AS
SELECT r.id AS result_id, s.path AS source, s.sha256, s.format, run.tool, run.tool_version,
       r.host, r.peer, r.storage_class, r.sec, m.options AS mount_options, m.fstype,
       m.device AS mount_device, r.job, r.direction, r.rw, r.bs_bytes, r.iodepth, r.numjobs,
       r.direct, r.sync, r.fsync, r.fdatasync, r.ioengine, r.size_bytes, r.rwmixread,
       r.runtime_s, r.error, r.error_msg, r.line_first, r.line_last, r.transcribed,
       run.started_at, s.imported_at, run.id AS run_id,
       (SELECT value FROM metric WHERE result_id = r.id AND name = 'bw_bytes_s') AS bw_bytes_s,
       (SELECT value FROM metric WHERE result_id = r.id AND name = 'iops') AS iops,
       (SELECT value FROM metric WHERE result_id = r.id AND name = 'clat_mean_ns') AS clat_mean_ns,
       (SELECT value FROM metric WHERE result_id = r.id AND name = 'clat_p99_ns') AS clat_p99_ns
FROM result r
JOIN run ON run.id = r.run_id
JOIN source_file s ON s.id = run.source_id
LEFT JOIN mount m ON m.id = r.mount_id;

-- One row per metric value with its context (long form, for pivots).
CREATE VIEW v_metric AS
SELECT v.*, mt.name AS metric, mt.value
FROM v_result v JOIN metric mt ON mt.result_id = v.result_id;
