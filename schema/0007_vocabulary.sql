-- 0007_vocabulary.sql: the views speak the vocabulary of export, runs and the fleet server's
-- views (docs/schema.md, "Vocabulary"): the same column names, in the same order, with the same
-- kind of value in SQLite and PostgreSQL (schema/pg/0005_vocabulary.sql).
--   v_result.mount_device is now mount_source (what export and runs always called it);
--   v_result.started_at is ISO 8601 UTC text, as imported_at is (it was Unix seconds:
--     unixepoch(started_at) gives them back);
--   v_result gains tags (a JSON object, '{}' when none), as the server's has;
--   v_series_point is new: series_point with each point's time, as on the server.
-- The order is the server's view's, then the columns it lacked: PostgreSQL can only append
-- columns to a view in place, and a view recreated there would lose its readers' grants.

DROP VIEW v_metric;
DROP VIEW v_result;

-- One row per result with its whole context and its metrics: the view for ad-hoc SQL.
CREATE VIEW v_result AS
SELECT r.id AS result_id, s.path AS source, s.sha256, s.format, run.tool, run.tool_version,
       r.host, r.peer, r.storage_class, r.sec, m.options AS mount_options, m.fstype, m.device
       AS mount_source, r.job, r.direction, r.rw, r.bs_bytes, r.iodepth, r.numjobs, r.direct,
       r.sync, r.ioengine, r.size_bytes, r.rwmixread, r.error, r.error_msg,
       strftime('%Y-%m-%dT%H:%M:%SZ', run.started_at, 'unixepoch') AS started_at, s.imported_at,
       (SELECT json_group_object(key, value) FROM (SELECT key, value FROM tag WHERE
       tag.result_id = r.id ORDER BY key)) AS tags, r.bw_bytes_s, r.iops, r.io_bytes,
       r.total_ios, r.runtime_ms, r.lat_mean_ns, r.clat_mean_ns, r.clat_p50_ns, r.clat_p95_ns,
       r.clat_p99_ns, r.clat_p99_9_ns, r.clat_max_ns, r.sync_lat_mean_ns, r.sync_lat_p99_ns,
       r.cpu_usr_pct, r.cpu_sys_pct, r.retransmits, r.rtt_mean_ns, r.jitter_ns, r.loss_pct,
       r.metrics_extra, run.id AS run_id, r.fsync, r.fdatasync, r.runtime_s, r.line_first,
       r.line_last, r.transcribed, r.bw_min_bytes_s, r.bw_max_bytes_s, r.bw_mean_bytes_s,
       r.bw_stddev_bytes_s, r.iops_min, r.iops_max, r.iops_mean, r.iops_stddev,
       r.bw_thread_min_bytes_s, r.bw_thread_max_bytes_s, r.iops_thread_min, r.iops_thread_max,
       r.slat_min_ns, r.slat_max_ns, r.slat_mean_ns, r.slat_stddev_ns, r.clat_min_ns,
       r.clat_stddev_ns, r.lat_min_ns, r.lat_max_ns, r.lat_stddev_ns, r.clat_p1_ns,
       r.clat_p5_ns, r.clat_p10_ns, r.clat_p20_ns, r.clat_p30_ns, r.clat_p40_ns, r.clat_p60_ns,
       r.clat_p70_ns, r.clat_p80_ns, r.clat_p90_ns, r.clat_p99_5_ns, r.clat_p99_95_ns,
       r.clat_p99_99_ns, r.lat_p1_ns, r.lat_p5_ns, r.lat_p10_ns, r.lat_p20_ns, r.lat_p30_ns,
       r.lat_p40_ns, r.lat_p50_ns, r.lat_p60_ns, r.lat_p70_ns, r.lat_p80_ns, r.lat_p90_ns,
       r.lat_p95_ns, r.lat_p99_ns, r.lat_p99_5_ns, r.lat_p99_9_ns, r.lat_p99_95_ns,
       r.lat_p99_99_ns, r.sync_total_ios, r.sync_lat_min_ns, r.sync_lat_max_ns,
       r.sync_lat_stddev_ns, r.sync_lat_p1_ns, r.sync_lat_p5_ns, r.sync_lat_p10_ns,
       r.sync_lat_p20_ns, r.sync_lat_p30_ns, r.sync_lat_p40_ns, r.sync_lat_p50_ns,
       r.sync_lat_p60_ns, r.sync_lat_p70_ns, r.sync_lat_p80_ns, r.sync_lat_p90_ns,
       r.sync_lat_p95_ns, r.sync_lat_p99_5_ns, r.sync_lat_p99_9_ns, r.sync_lat_p99_95_ns,
       r.sync_lat_p99_99_ns, r.cpu_pct, r.sender_bw_bytes_s, r.rtt_min_ns, r.rtt_max_ns,
       r.lost_packets, r.packets, r.samples
FROM result r
JOIN run ON run.id = r.run_id
JOIN source_file s ON s.id = run.source_id
LEFT JOIN mount m ON m.id = r.mount_id;

-- One row per metric value with its context (long form, for pivots).
CREATE VIEW v_metric AS
SELECT v.*, mt.name AS metric, mt.value
FROM v_result v JOIN metric mt ON mt.result_id = v.result_id;

-- One row per point of a series (fio logs, docs/series.md): its time is the run's start plus
-- the point's offset, ISO 8601 UTC to the millisecond (NULL when the run's start is unknown).
CREATE VIEW v_series_point AS
SELECT se.result_id, se.metric,
       strftime('%Y-%m-%dT%H:%M:%fZ', run.started_at + (p.value ->> 0) / 1000.0, 'unixepoch')
           AS "time",
       CAST(p.value ->> 0 AS REAL) AS t_ms, CAST(p.value ->> 1 AS REAL) AS value
FROM series se
JOIN result r ON r.id = se.result_id
JOIN run ON run.id = r.run_id,
json_each(se.points) p;
