-- 0004_baseline.sql: saved baselines (benchdb baseline), and a label history that outlives
-- the results it names (benchdb rm records its removals there).

-- A named set of results to compare against (--compare baseline:NAME).
CREATE TABLE baseline (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    filter      TEXT NOT NULL,                 -- the --where filters it was saved with, as given
    created_by  TEXT NOT NULL,
    created_at  TEXT NOT NULL                  -- ISO 8601 UTC
) STRICT;

-- The results of a baseline; a removed result leaves its baselines.
CREATE TABLE baseline_result (
    baseline_id INTEGER NOT NULL REFERENCES baseline(id) ON DELETE CASCADE,
    result_id   INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
    PRIMARY KEY (baseline_id, result_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX baseline_result_result ON baseline_result(result_id);

-- label_history without its foreign key: a removed result's history (and the removal itself,
-- field 'removed') stays. Rebuilt, as SQLite cannot drop a constraint; ids are kept.
CREATE TABLE label_history_new (
    id         INTEGER PRIMARY KEY,
    result_id  INTEGER NOT NULL,               -- a result's id, which may have been removed
    field      TEXT NOT NULL,
    old_value  TEXT,
    new_value  TEXT,
    changed_by TEXT NOT NULL,
    changed_at TEXT NOT NULL
) STRICT;
INSERT INTO label_history_new SELECT id, result_id, field, old_value, new_value, changed_by,
    changed_at FROM label_history;
DROP TABLE label_history;
ALTER TABLE label_history_new RENAME TO label_history;
CREATE INDEX label_history_result ON label_history(result_id);
