-- schema/pg/0005_vocabulary.sql: the server's views speak the vocabulary of the SQLite
-- warehouse's (schema/0007_vocabulary.sql) and of export: the same columns in the same order.
-- v_result's mount_device is renamed mount_source, tags is '{}' when a result has none (as
-- in SQLite and export), and the columns it lacked are appended (fsync, fdatasync, the
-- provenance lines and every metric column). Renaming and appending keep the views' grants (a
-- view dropped and created anew would lose them); v_metric is new, so readers granted SELECT
-- on the tables before it need the grant again (docs/fleet.md).

ALTER VIEW v_result RENAME COLUMN mount_device TO mount_source;

CREATE OR REPLACE VIEW v_result AS
SELECT r.id AS result_id, s.path AS source, s.sha256, s.format, run.tool, run.tool_version,
       r.host, r.peer, r.storage_class, r.sec, m.options AS mount_options, m.fstype, m.device
       AS mount_source, r.job, r.direction, r.rw, r.bs_bytes, r.iodepth, r.numjobs, r.direct,
       r.sync, r.ioengine, r.size_bytes, r.rwmixread, r.error, r.error_msg,
       to_timestamp(run.started_at) AS started_at, s.imported_at::timestamptz AS imported_at,
       coalesce((SELECT jsonb_object_agg(t.key, t.value) FROM tag t WHERE t.result_id = r.id),
       '{}') AS tags, r.bw_bytes_s, r.iops, r.io_bytes, r.total_ios, r.runtime_ms,
       r.lat_mean_ns, r.clat_mean_ns, r.clat_p50_ns, r.clat_p95_ns, r.clat_p99_ns,
       r.clat_p99_9_ns, r.clat_max_ns, r.sync_lat_mean_ns, r.sync_lat_p99_ns, r.cpu_usr_pct,
       r.cpu_sys_pct, r.retransmits, r.rtt_mean_ns, r.jitter_ns, r.loss_pct,
       r.metrics_extra::jsonb AS metrics_extra, run.id AS run_id, r.fsync, r.fdatasync,
       r.runtime_s, r.line_first, r.line_last, r.transcribed, r.bw_min_bytes_s,
       r.bw_max_bytes_s, r.bw_mean_bytes_s, r.bw_stddev_bytes_s, r.iops_min, r.iops_max,
       r.iops_mean, r.iops_stddev, r.bw_thread_min_bytes_s, r.bw_thread_max_bytes_s,
       r.iops_thread_min, r.iops_thread_max, r.slat_min_ns, r.slat_max_ns, r.slat_mean_ns,
       r.slat_stddev_ns, r.clat_min_ns, r.clat_stddev_ns, r.lat_min_ns, r.lat_max_ns,
       r.lat_stddev_ns, r.clat_p1_ns, r.clat_p5_ns, r.clat_p10_ns, r.clat_p20_ns, r.clat_p30_ns,
       r.clat_p40_ns, r.clat_p60_ns, r.clat_p70_ns, r.clat_p80_ns, r.clat_p90_ns,
       r.clat_p99_5_ns, r.clat_p99_95_ns, r.clat_p99_99_ns, r.lat_p1_ns, r.lat_p5_ns,
       r.lat_p10_ns, r.lat_p20_ns, r.lat_p30_ns, r.lat_p40_ns, r.lat_p50_ns, r.lat_p60_ns,
       r.lat_p70_ns, r.lat_p80_ns, r.lat_p90_ns, r.lat_p95_ns, r.lat_p99_ns, r.lat_p99_5_ns,
       r.lat_p99_9_ns, r.lat_p99_95_ns, r.lat_p99_99_ns, r.sync_total_ios, r.sync_lat_min_ns,
       r.sync_lat_max_ns, r.sync_lat_stddev_ns, r.sync_lat_p1_ns, r.sync_lat_p5_ns,
       r.sync_lat_p10_ns, r.sync_lat_p20_ns, r.sync_lat_p30_ns, r.sync_lat_p40_ns,
       r.sync_lat_p50_ns, r.sync_lat_p60_ns, r.sync_lat_p70_ns, r.sync_lat_p80_ns,
       r.sync_lat_p90_ns, r.sync_lat_p95_ns, r.sync_lat_p99_5_ns, r.sync_lat_p99_9_ns,
       r.sync_lat_p99_95_ns, r.sync_lat_p99_99_ns, r.cpu_pct, r.sender_bw_bytes_s, r.rtt_min_ns,
       r.rtt_max_ns, r.lost_packets, r.packets, r.samples
FROM result r
JOIN run ON run.id = r.run_id
JOIN source_file s ON s.id = run.source_id
LEFT JOIN mount m ON m.id = r.mount_id;

-- One row per metric value with its context (long form, for pivots): each metric column that
-- holds a value, and each member of metrics_extra.
CREATE VIEW v_metric AS
SELECT v.*, mt.key AS metric, (mt.value #>> '{}')::double precision AS value
FROM v_result v
CROSS JOIN LATERAL jsonb_each(jsonb_strip_nulls(to_jsonb(v) - ARRAY[
           'result_id', 'source', 'sha256', 'format', 'tool', 'tool_version', 'host', 'peer',
           'storage_class', 'sec', 'mount_options', 'fstype', 'mount_source', 'job',
           'direction', 'rw', 'bs_bytes', 'iodepth', 'numjobs', 'direct', 'sync',
           'ioengine', 'size_bytes', 'rwmixread', 'error', 'error_msg', 'started_at',
           'imported_at', 'tags', 'metrics_extra', 'run_id', 'fsync', 'fdatasync',
           'runtime_s', 'line_first', 'line_last', 'transcribed'])
           || coalesce(v.metrics_extra, '{}')) AS mt;
