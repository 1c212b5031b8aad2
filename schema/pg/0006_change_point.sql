-- schema/pg/0006_change_point.sql: the change points of the fleet's series that
-- `benchdb trend --publish` found (docs/fleet.md, "Change points in Grafana"), one row each, and
-- v_annotation, the columns a Grafana PostgreSQL data source's annotation query takes: time,
-- timeend (the same instant: the first run after the change), text, and tags as one
-- comma-separated string. A publish replaces the rows of every series it looked at, in one
-- transaction, so a change point that a later run undid goes with it.

CREATE TABLE change_point (
    series text NOT NULL,           -- as trend names it: workload, metric and labels
    time timestamptz NOT NULL,      -- the first run after the change
    text text NOT NULL,             -- the change and its p, in words
    tags text[] NOT NULL,           -- benchdb, direction, metric:M, storage_class:C, host:H
    published_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (series, time)
);
CREATE INDEX change_point_time ON change_point (time);

CREATE VIEW v_annotation AS
SELECT time, time AS timeend, text, array_to_string(tags, ',') AS tags, series
FROM change_point;
