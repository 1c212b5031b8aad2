-- schema/pg/0002_views.sql: views for Grafana and other SQL clients (docs/fleet.md). Times are
-- timestamptz, values in base units, tags a jsonb object.

-- One row per result with its context and main metrics. A fio thread's or client's own entry
-- stored beside its job's result has tag "part": filter with (tags -> 'part') IS NULL.
CREATE VIEW v_result AS
SELECT r.id AS result_id, s.path AS source, s.sha256, s.format, run.tool, run.tool_version,
       r.host, r.peer, r.storage_class, r.sec, m.options AS mount_options, m.fstype,
       m.device AS mount_device, r.job, r.direction, r.rw, r.bs_bytes, r.iodepth, r.numjobs,
       r.direct, r.sync, r.ioengine, r.size_bytes, r.rwmixread, r.error, r.error_msg,
       to_timestamp(run.started_at) AS started_at, s.imported_at::timestamptz AS imported_at,
       (SELECT jsonb_object_agg(t.key, t.value) FROM tag t WHERE t.result_id = r.id) AS tags,
       r.bw_bytes_s, r.iops, r.io_bytes, r.total_ios, r.runtime_ms, r.lat_mean_ns,
       r.clat_mean_ns, r.clat_p50_ns, r.clat_p95_ns, r.clat_p99_ns, r.clat_p99_9_ns,
       r.clat_max_ns, r.sync_lat_mean_ns, r.sync_lat_p99_ns, r.cpu_usr_pct, r.cpu_sys_pct,
       r.retransmits, r.rtt_mean_ns, r.jitter_ns, r.loss_pct, r.metrics_extra::jsonb AS metrics_extra,
       run.id AS run_id
FROM result r
JOIN run ON run.id = r.run_id
JOIN source_file s ON s.id = run.source_id
LEFT JOIN mount m ON m.id = r.mount_id;

-- One row per point of a series (fio logs, docs/series.md): its time is the run's start plus
-- the point's offset (NULL when the run's start is unknown).
CREATE VIEW v_series_point AS
SELECT se.result_id, se.metric,
       to_timestamp(run.started_at + (p.point ->> 0)::double precision / 1000) AS "time",
       (p.point ->> 0)::double precision AS t_ms, (p.point ->> 1)::double precision AS value
FROM series se
JOIN result r ON r.id = se.result_id
JOIN run ON run.id = r.run_id
CROSS JOIN LATERAL jsonb_array_elements(se.points::jsonb) AS p(point);
