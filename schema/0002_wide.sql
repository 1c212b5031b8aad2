-- 0002_wide.sql: results carry their metrics as columns (issue 12). A report over a million
-- results reads one row per result instead of ~41 `metric` rows, and an import writes one row
-- per result instead of one per metric. The REAL columns of `result` are the standard metrics
-- (their names are the export's metric names, docs/HACKING.md); any other metric is a member
-- of the JSON object `metrics_extra`. benchdb finds the metric columns from the schema
-- (PRAGMA table_info), so a column added here is stored and read with no other change.
-- `metric`, `latency_bin` and `series_point` become views with their old columns, so SQL
-- written against schema 1 keeps working.

DROP VIEW v_metric;
DROP VIEW v_result;

-- throughput and volume
ALTER TABLE result ADD COLUMN bw_bytes_s REAL;
ALTER TABLE result ADD COLUMN iops REAL;
ALTER TABLE result ADD COLUMN io_bytes REAL;
ALTER TABLE result ADD COLUMN total_ios REAL;
ALTER TABLE result ADD COLUMN runtime_ms REAL;
-- per-sample statistics (fio bw/iops samples)
ALTER TABLE result ADD COLUMN bw_min_bytes_s REAL;
ALTER TABLE result ADD COLUMN bw_max_bytes_s REAL;
ALTER TABLE result ADD COLUMN bw_mean_bytes_s REAL;
ALTER TABLE result ADD COLUMN bw_stddev_bytes_s REAL;
ALTER TABLE result ADD COLUMN iops_min REAL;
ALTER TABLE result ADD COLUMN iops_max REAL;
ALTER TABLE result ADD COLUMN iops_mean REAL;
ALTER TABLE result ADD COLUMN iops_stddev REAL;
-- a job summed from threads: the spread of its threads
ALTER TABLE result ADD COLUMN bw_thread_min_bytes_s REAL;
ALTER TABLE result ADD COLUMN bw_thread_max_bytes_s REAL;
ALTER TABLE result ADD COLUMN iops_thread_min REAL;
ALTER TABLE result ADD COLUMN iops_thread_max REAL;
-- latency: submission, completion, total
ALTER TABLE result ADD COLUMN slat_min_ns REAL;
ALTER TABLE result ADD COLUMN slat_max_ns REAL;
ALTER TABLE result ADD COLUMN slat_mean_ns REAL;
ALTER TABLE result ADD COLUMN slat_stddev_ns REAL;
ALTER TABLE result ADD COLUMN clat_min_ns REAL;
ALTER TABLE result ADD COLUMN clat_max_ns REAL;
ALTER TABLE result ADD COLUMN clat_mean_ns REAL;
ALTER TABLE result ADD COLUMN clat_stddev_ns REAL;
ALTER TABLE result ADD COLUMN lat_min_ns REAL;
ALTER TABLE result ADD COLUMN lat_max_ns REAL;
ALTER TABLE result ADD COLUMN lat_mean_ns REAL;
ALTER TABLE result ADD COLUMN lat_stddev_ns REAL;
-- completion latency percentiles (fio's default list)
ALTER TABLE result ADD COLUMN clat_p1_ns REAL;
ALTER TABLE result ADD COLUMN clat_p5_ns REAL;
ALTER TABLE result ADD COLUMN clat_p10_ns REAL;
ALTER TABLE result ADD COLUMN clat_p20_ns REAL;
ALTER TABLE result ADD COLUMN clat_p30_ns REAL;
ALTER TABLE result ADD COLUMN clat_p40_ns REAL;
ALTER TABLE result ADD COLUMN clat_p50_ns REAL;
ALTER TABLE result ADD COLUMN clat_p60_ns REAL;
ALTER TABLE result ADD COLUMN clat_p70_ns REAL;
ALTER TABLE result ADD COLUMN clat_p80_ns REAL;
ALTER TABLE result ADD COLUMN clat_p90_ns REAL;
ALTER TABLE result ADD COLUMN clat_p95_ns REAL;
ALTER TABLE result ADD COLUMN clat_p99_ns REAL;
ALTER TABLE result ADD COLUMN clat_p99_5_ns REAL;
ALTER TABLE result ADD COLUMN clat_p99_9_ns REAL;
ALTER TABLE result ADD COLUMN clat_p99_95_ns REAL;
ALTER TABLE result ADD COLUMN clat_p99_99_ns REAL;
-- total latency percentiles
ALTER TABLE result ADD COLUMN lat_p1_ns REAL;
ALTER TABLE result ADD COLUMN lat_p5_ns REAL;
ALTER TABLE result ADD COLUMN lat_p10_ns REAL;
ALTER TABLE result ADD COLUMN lat_p20_ns REAL;
ALTER TABLE result ADD COLUMN lat_p30_ns REAL;
ALTER TABLE result ADD COLUMN lat_p40_ns REAL;
ALTER TABLE result ADD COLUMN lat_p50_ns REAL;
ALTER TABLE result ADD COLUMN lat_p60_ns REAL;
ALTER TABLE result ADD COLUMN lat_p70_ns REAL;
ALTER TABLE result ADD COLUMN lat_p80_ns REAL;
ALTER TABLE result ADD COLUMN lat_p90_ns REAL;
ALTER TABLE result ADD COLUMN lat_p95_ns REAL;
ALTER TABLE result ADD COLUMN lat_p99_ns REAL;
ALTER TABLE result ADD COLUMN lat_p99_5_ns REAL;
ALTER TABLE result ADD COLUMN lat_p99_9_ns REAL;
ALTER TABLE result ADD COLUMN lat_p99_95_ns REAL;
ALTER TABLE result ADD COLUMN lat_p99_99_ns REAL;
-- fsync/fdatasync latency
ALTER TABLE result ADD COLUMN sync_total_ios REAL;
ALTER TABLE result ADD COLUMN sync_lat_min_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_max_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_mean_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_stddev_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p1_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p5_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p10_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p20_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p30_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p40_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p50_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p60_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p70_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p80_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p90_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p95_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p99_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p99_5_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p99_9_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p99_95_ns REAL;
ALTER TABLE result ADD COLUMN sync_lat_p99_99_ns REAL;
-- CPU
ALTER TABLE result ADD COLUMN cpu_usr_pct REAL;
ALTER TABLE result ADD COLUMN cpu_sys_pct REAL;
ALTER TABLE result ADD COLUMN cpu_pct REAL;
-- network
ALTER TABLE result ADD COLUMN sender_bw_bytes_s REAL;
ALTER TABLE result ADD COLUMN retransmits REAL;
ALTER TABLE result ADD COLUMN rtt_min_ns REAL;
ALTER TABLE result ADD COLUMN rtt_max_ns REAL;
ALTER TABLE result ADD COLUMN rtt_mean_ns REAL;
ALTER TABLE result ADD COLUMN jitter_ns REAL;
ALTER TABLE result ADD COLUMN lost_packets REAL;
ALTER TABLE result ADD COLUMN packets REAL;
ALTER TABLE result ADD COLUMN loss_pct REAL;
-- log-derived
ALTER TABLE result ADD COLUMN samples REAL;
-- any other metric: {"name": value, ...}; NULL when there is none
ALTER TABLE result ADD COLUMN metrics_extra TEXT;

UPDATE result SET (bw_bytes_s, iops, io_bytes, total_ios, runtime_ms, bw_min_bytes_s,
                   bw_max_bytes_s, bw_mean_bytes_s, bw_stddev_bytes_s, iops_min, iops_max,
                   iops_mean, iops_stddev, bw_thread_min_bytes_s, bw_thread_max_bytes_s,
                   iops_thread_min, iops_thread_max, slat_min_ns, slat_max_ns, slat_mean_ns,
                   slat_stddev_ns, clat_min_ns, clat_max_ns, clat_mean_ns, clat_stddev_ns,
                   lat_min_ns, lat_max_ns, lat_mean_ns, lat_stddev_ns, clat_p1_ns, clat_p5_ns,
                   clat_p10_ns, clat_p20_ns, clat_p30_ns, clat_p40_ns, clat_p50_ns, clat_p60_ns,
                   clat_p70_ns, clat_p80_ns, clat_p90_ns, clat_p95_ns, clat_p99_ns,
                   clat_p99_5_ns, clat_p99_9_ns, clat_p99_95_ns, clat_p99_99_ns, lat_p1_ns,
                   lat_p5_ns, lat_p10_ns, lat_p20_ns, lat_p30_ns, lat_p40_ns, lat_p50_ns,
                   lat_p60_ns, lat_p70_ns, lat_p80_ns, lat_p90_ns, lat_p95_ns, lat_p99_ns,
                   lat_p99_5_ns, lat_p99_9_ns, lat_p99_95_ns, lat_p99_99_ns, sync_total_ios,
                   sync_lat_min_ns, sync_lat_max_ns, sync_lat_mean_ns, sync_lat_stddev_ns,
                   sync_lat_p1_ns, sync_lat_p5_ns, sync_lat_p10_ns, sync_lat_p20_ns,
                   sync_lat_p30_ns, sync_lat_p40_ns, sync_lat_p50_ns, sync_lat_p60_ns,
                   sync_lat_p70_ns, sync_lat_p80_ns, sync_lat_p90_ns, sync_lat_p95_ns,
                   sync_lat_p99_ns, sync_lat_p99_5_ns, sync_lat_p99_9_ns, sync_lat_p99_95_ns,
                   sync_lat_p99_99_ns, cpu_usr_pct, cpu_sys_pct, cpu_pct, sender_bw_bytes_s,
                   retransmits, rtt_min_ns, rtt_max_ns, rtt_mean_ns, jitter_ns, lost_packets,
                   packets, loss_pct, samples) =
    (SELECT max(value) FILTER (WHERE name = 'bw_bytes_s'),
            max(value) FILTER (WHERE name = 'iops'),
            max(value) FILTER (WHERE name = 'io_bytes'),
            max(value) FILTER (WHERE name = 'total_ios'),
            max(value) FILTER (WHERE name = 'runtime_ms'),
            max(value) FILTER (WHERE name = 'bw_min_bytes_s'),
            max(value) FILTER (WHERE name = 'bw_max_bytes_s'),
            max(value) FILTER (WHERE name = 'bw_mean_bytes_s'),
            max(value) FILTER (WHERE name = 'bw_stddev_bytes_s'),
            max(value) FILTER (WHERE name = 'iops_min'),
            max(value) FILTER (WHERE name = 'iops_max'),
            max(value) FILTER (WHERE name = 'iops_mean'),
            max(value) FILTER (WHERE name = 'iops_stddev'),
            max(value) FILTER (WHERE name = 'bw_thread_min_bytes_s'),
            max(value) FILTER (WHERE name = 'bw_thread_max_bytes_s'),
            max(value) FILTER (WHERE name = 'iops_thread_min'),
            max(value) FILTER (WHERE name = 'iops_thread_max'),
            max(value) FILTER (WHERE name = 'slat_min_ns'),
            max(value) FILTER (WHERE name = 'slat_max_ns'),
            max(value) FILTER (WHERE name = 'slat_mean_ns'),
            max(value) FILTER (WHERE name = 'slat_stddev_ns'),
            max(value) FILTER (WHERE name = 'clat_min_ns'),
            max(value) FILTER (WHERE name = 'clat_max_ns'),
            max(value) FILTER (WHERE name = 'clat_mean_ns'),
            max(value) FILTER (WHERE name = 'clat_stddev_ns'),
            max(value) FILTER (WHERE name = 'lat_min_ns'),
            max(value) FILTER (WHERE name = 'lat_max_ns'),
            max(value) FILTER (WHERE name = 'lat_mean_ns'),
            max(value) FILTER (WHERE name = 'lat_stddev_ns'),
            max(value) FILTER (WHERE name = 'clat_p1_ns'),
            max(value) FILTER (WHERE name = 'clat_p5_ns'),
            max(value) FILTER (WHERE name = 'clat_p10_ns'),
            max(value) FILTER (WHERE name = 'clat_p20_ns'),
            max(value) FILTER (WHERE name = 'clat_p30_ns'),
            max(value) FILTER (WHERE name = 'clat_p40_ns'),
            max(value) FILTER (WHERE name = 'clat_p50_ns'),
            max(value) FILTER (WHERE name = 'clat_p60_ns'),
            max(value) FILTER (WHERE name = 'clat_p70_ns'),
            max(value) FILTER (WHERE name = 'clat_p80_ns'),
            max(value) FILTER (WHERE name = 'clat_p90_ns'),
            max(value) FILTER (WHERE name = 'clat_p95_ns'),
            max(value) FILTER (WHERE name = 'clat_p99_ns'),
            max(value) FILTER (WHERE name = 'clat_p99_5_ns'),
            max(value) FILTER (WHERE name = 'clat_p99_9_ns'),
            max(value) FILTER (WHERE name = 'clat_p99_95_ns'),
            max(value) FILTER (WHERE name = 'clat_p99_99_ns'),
            max(value) FILTER (WHERE name = 'lat_p1_ns'),
            max(value) FILTER (WHERE name = 'lat_p5_ns'),
            max(value) FILTER (WHERE name = 'lat_p10_ns'),
            max(value) FILTER (WHERE name = 'lat_p20_ns'),
            max(value) FILTER (WHERE name = 'lat_p30_ns'),
            max(value) FILTER (WHERE name = 'lat_p40_ns'),
            max(value) FILTER (WHERE name = 'lat_p50_ns'),
            max(value) FILTER (WHERE name = 'lat_p60_ns'),
            max(value) FILTER (WHERE name = 'lat_p70_ns'),
            max(value) FILTER (WHERE name = 'lat_p80_ns'),
            max(value) FILTER (WHERE name = 'lat_p90_ns'),
            max(value) FILTER (WHERE name = 'lat_p95_ns'),
            max(value) FILTER (WHERE name = 'lat_p99_ns'),
            max(value) FILTER (WHERE name = 'lat_p99_5_ns'),
            max(value) FILTER (WHERE name = 'lat_p99_9_ns'),
            max(value) FILTER (WHERE name = 'lat_p99_95_ns'),
            max(value) FILTER (WHERE name = 'lat_p99_99_ns'),
            max(value) FILTER (WHERE name = 'sync_total_ios'),
            max(value) FILTER (WHERE name = 'sync_lat_min_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_max_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_mean_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_stddev_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p1_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p5_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p10_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p20_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p30_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p40_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p50_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p60_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p70_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p80_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p90_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p95_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p99_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p99_5_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p99_9_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p99_95_ns'),
            max(value) FILTER (WHERE name = 'sync_lat_p99_99_ns'),
            max(value) FILTER (WHERE name = 'cpu_usr_pct'),
            max(value) FILTER (WHERE name = 'cpu_sys_pct'),
            max(value) FILTER (WHERE name = 'cpu_pct'),
            max(value) FILTER (WHERE name = 'sender_bw_bytes_s'),
            max(value) FILTER (WHERE name = 'retransmits'),
            max(value) FILTER (WHERE name = 'rtt_min_ns'),
            max(value) FILTER (WHERE name = 'rtt_max_ns'),
            max(value) FILTER (WHERE name = 'rtt_mean_ns'),
            max(value) FILTER (WHERE name = 'jitter_ns'),
            max(value) FILTER (WHERE name = 'lost_packets'),
            max(value) FILTER (WHERE name = 'packets'),
            max(value) FILTER (WHERE name = 'loss_pct'),
            max(value) FILTER (WHERE name = 'samples')
     FROM metric WHERE result_id = result.id);
UPDATE result SET metrics_extra =
    (SELECT json_group_object(name, value) FROM metric
     WHERE result_id = result.id
       AND name NOT IN (SELECT name FROM pragma_table_info('result') WHERE type = 'REAL'))
WHERE EXISTS (SELECT 1 FROM metric WHERE result_id = result.id
              AND name NOT IN (SELECT name FROM pragma_table_info('result')
                               WHERE type = 'REAL'));

-- Bins and points are JSON arrays of numbers written with 17 significant digits, so every
-- double reads back as it was stored (json_array() would keep 15).

-- One row per result and latency kind: the histogram's bins as a JSON array of
-- [value_ns, count] pairs in ascending latency (fio json+ bins, hist logs).
CREATE TABLE histogram (
    result_id  INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
    metric     TEXT NOT NULL,                  -- clat, lat, slat
    bins       TEXT NOT NULL,                  -- [[value_ns, count], ...]
    PRIMARY KEY (result_id, metric)
) STRICT;

-- One row per result: a time series from fio logs (downsampled), as a JSON array of
-- [t_ms, value] pairs in time order.
CREATE TABLE series (
    result_id  INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
    metric     TEXT NOT NULL,                  -- e.g. bw_bytes_s, clat_ns
    points     TEXT NOT NULL,                  -- [[t_ms, value], ...]
    PRIMARY KEY (result_id, metric)
) STRICT;

INSERT INTO histogram(result_id, metric, bins)
SELECT result_id, metric, '[' || group_concat('[' || printf('%!.17g', value_ns) || ',' || printf('%!.17g', count) || ']',
                        ',') || ']'
FROM (SELECT * FROM latency_bin ORDER BY result_id, metric, rowid)
GROUP BY result_id, metric;

INSERT INTO series(result_id, metric, points)
SELECT result_id, metric, '[' || group_concat('[' || printf('%!.17g', t_ms) || ',' || printf('%!.17g', value) || ']',
                        ',') || ']'
FROM (SELECT * FROM series_point ORDER BY result_id, metric, rowid)
GROUP BY result_id, metric;

DROP TABLE metric;
DROP TABLE latency_bin;
DROP TABLE series_point;

-- The group keys of `report --compare` and `runs`: the side, then the workload.
CREATE INDEX result_side ON result(storage_class, rw, bs_bytes, iodepth);
CREATE INDEX result_host ON result(host);

-- The long forms of schema 1, as views.
CREATE VIEW metric(result_id, name, value) AS
SELECT id, 'bw_bytes_s', bw_bytes_s FROM result WHERE bw_bytes_s IS NOT NULL
UNION ALL SELECT id, 'iops', iops FROM result WHERE iops IS NOT NULL
UNION ALL SELECT id, 'io_bytes', io_bytes FROM result WHERE io_bytes IS NOT NULL
UNION ALL SELECT id, 'total_ios', total_ios FROM result WHERE total_ios IS NOT NULL
UNION ALL SELECT id, 'runtime_ms', runtime_ms FROM result WHERE runtime_ms IS NOT NULL
UNION ALL SELECT id, 'bw_min_bytes_s', bw_min_bytes_s FROM result WHERE bw_min_bytes_s IS NOT NULL
UNION ALL SELECT id, 'bw_max_bytes_s', bw_max_bytes_s FROM result WHERE bw_max_bytes_s IS NOT NULL
UNION ALL SELECT id, 'bw_mean_bytes_s', bw_mean_bytes_s FROM result WHERE bw_mean_bytes_s IS NOT NULL
UNION ALL SELECT id, 'bw_stddev_bytes_s', bw_stddev_bytes_s FROM result WHERE bw_stddev_bytes_s IS NOT NULL
UNION ALL SELECT id, 'iops_min', iops_min FROM result WHERE iops_min IS NOT NULL
UNION ALL SELECT id, 'iops_max', iops_max FROM result WHERE iops_max IS NOT NULL
UNION ALL SELECT id, 'iops_mean', iops_mean FROM result WHERE iops_mean IS NOT NULL
UNION ALL SELECT id, 'iops_stddev', iops_stddev FROM result WHERE iops_stddev IS NOT NULL
UNION ALL SELECT id, 'bw_thread_min_bytes_s', bw_thread_min_bytes_s FROM result WHERE bw_thread_min_bytes_s IS NOT NULL
UNION ALL SELECT id, 'bw_thread_max_bytes_s', bw_thread_max_bytes_s FROM result WHERE bw_thread_max_bytes_s IS NOT NULL
UNION ALL SELECT id, 'iops_thread_min', iops_thread_min FROM result WHERE iops_thread_min IS NOT NULL
UNION ALL SELECT id, 'iops_thread_max', iops_thread_max FROM result WHERE iops_thread_max IS NOT NULL
UNION ALL SELECT id, 'slat_min_ns', slat_min_ns FROM result WHERE slat_min_ns IS NOT NULL
UNION ALL SELECT id, 'slat_max_ns', slat_max_ns FROM result WHERE slat_max_ns IS NOT NULL
UNION ALL SELECT id, 'slat_mean_ns', slat_mean_ns FROM result WHERE slat_mean_ns IS NOT NULL
UNION ALL SELECT id, 'slat_stddev_ns', slat_stddev_ns FROM result WHERE slat_stddev_ns IS NOT NULL
UNION ALL SELECT id, 'clat_min_ns', clat_min_ns FROM result WHERE clat_min_ns IS NOT NULL
UNION ALL SELECT id, 'clat_max_ns', clat_max_ns FROM result WHERE clat_max_ns IS NOT NULL
UNION ALL SELECT id, 'clat_mean_ns', clat_mean_ns FROM result WHERE clat_mean_ns IS NOT NULL
UNION ALL SELECT id, 'clat_stddev_ns', clat_stddev_ns FROM result WHERE clat_stddev_ns IS NOT NULL
UNION ALL SELECT id, 'lat_min_ns', lat_min_ns FROM result WHERE lat_min_ns IS NOT NULL
UNION ALL SELECT id, 'lat_max_ns', lat_max_ns FROM result WHERE lat_max_ns IS NOT NULL
UNION ALL SELECT id, 'lat_mean_ns', lat_mean_ns FROM result WHERE lat_mean_ns IS NOT NULL
UNION ALL SELECT id, 'lat_stddev_ns', lat_stddev_ns FROM result WHERE lat_stddev_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p1_ns', clat_p1_ns FROM result WHERE clat_p1_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p5_ns', clat_p5_ns FROM result WHERE clat_p5_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p10_ns', clat_p10_ns FROM result WHERE clat_p10_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p20_ns', clat_p20_ns FROM result WHERE clat_p20_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p30_ns', clat_p30_ns FROM result WHERE clat_p30_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p40_ns', clat_p40_ns FROM result WHERE clat_p40_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p50_ns', clat_p50_ns FROM result WHERE clat_p50_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p60_ns', clat_p60_ns FROM result WHERE clat_p60_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p70_ns', clat_p70_ns FROM result WHERE clat_p70_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p80_ns', clat_p80_ns FROM result WHERE clat_p80_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p90_ns', clat_p90_ns FROM result WHERE clat_p90_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p95_ns', clat_p95_ns FROM result WHERE clat_p95_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p99_ns', clat_p99_ns FROM result WHERE clat_p99_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p99_5_ns', clat_p99_5_ns FROM result WHERE clat_p99_5_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p99_9_ns', clat_p99_9_ns FROM result WHERE clat_p99_9_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p99_95_ns', clat_p99_95_ns FROM result WHERE clat_p99_95_ns IS NOT NULL
UNION ALL SELECT id, 'clat_p99_99_ns', clat_p99_99_ns FROM result WHERE clat_p99_99_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p1_ns', lat_p1_ns FROM result WHERE lat_p1_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p5_ns', lat_p5_ns FROM result WHERE lat_p5_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p10_ns', lat_p10_ns FROM result WHERE lat_p10_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p20_ns', lat_p20_ns FROM result WHERE lat_p20_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p30_ns', lat_p30_ns FROM result WHERE lat_p30_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p40_ns', lat_p40_ns FROM result WHERE lat_p40_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p50_ns', lat_p50_ns FROM result WHERE lat_p50_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p60_ns', lat_p60_ns FROM result WHERE lat_p60_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p70_ns', lat_p70_ns FROM result WHERE lat_p70_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p80_ns', lat_p80_ns FROM result WHERE lat_p80_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p90_ns', lat_p90_ns FROM result WHERE lat_p90_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p95_ns', lat_p95_ns FROM result WHERE lat_p95_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p99_ns', lat_p99_ns FROM result WHERE lat_p99_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p99_5_ns', lat_p99_5_ns FROM result WHERE lat_p99_5_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p99_9_ns', lat_p99_9_ns FROM result WHERE lat_p99_9_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p99_95_ns', lat_p99_95_ns FROM result WHERE lat_p99_95_ns IS NOT NULL
UNION ALL SELECT id, 'lat_p99_99_ns', lat_p99_99_ns FROM result WHERE lat_p99_99_ns IS NOT NULL
UNION ALL SELECT id, 'sync_total_ios', sync_total_ios FROM result WHERE sync_total_ios IS NOT NULL
UNION ALL SELECT id, 'sync_lat_min_ns', sync_lat_min_ns FROM result WHERE sync_lat_min_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_max_ns', sync_lat_max_ns FROM result WHERE sync_lat_max_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_mean_ns', sync_lat_mean_ns FROM result WHERE sync_lat_mean_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_stddev_ns', sync_lat_stddev_ns FROM result WHERE sync_lat_stddev_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p1_ns', sync_lat_p1_ns FROM result WHERE sync_lat_p1_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p5_ns', sync_lat_p5_ns FROM result WHERE sync_lat_p5_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p10_ns', sync_lat_p10_ns FROM result WHERE sync_lat_p10_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p20_ns', sync_lat_p20_ns FROM result WHERE sync_lat_p20_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p30_ns', sync_lat_p30_ns FROM result WHERE sync_lat_p30_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p40_ns', sync_lat_p40_ns FROM result WHERE sync_lat_p40_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p50_ns', sync_lat_p50_ns FROM result WHERE sync_lat_p50_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p60_ns', sync_lat_p60_ns FROM result WHERE sync_lat_p60_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p70_ns', sync_lat_p70_ns FROM result WHERE sync_lat_p70_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p80_ns', sync_lat_p80_ns FROM result WHERE sync_lat_p80_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p90_ns', sync_lat_p90_ns FROM result WHERE sync_lat_p90_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p95_ns', sync_lat_p95_ns FROM result WHERE sync_lat_p95_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p99_ns', sync_lat_p99_ns FROM result WHERE sync_lat_p99_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p99_5_ns', sync_lat_p99_5_ns FROM result WHERE sync_lat_p99_5_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p99_9_ns', sync_lat_p99_9_ns FROM result WHERE sync_lat_p99_9_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p99_95_ns', sync_lat_p99_95_ns FROM result WHERE sync_lat_p99_95_ns IS NOT NULL
UNION ALL SELECT id, 'sync_lat_p99_99_ns', sync_lat_p99_99_ns FROM result WHERE sync_lat_p99_99_ns IS NOT NULL
UNION ALL SELECT id, 'cpu_usr_pct', cpu_usr_pct FROM result WHERE cpu_usr_pct IS NOT NULL
UNION ALL SELECT id, 'cpu_sys_pct', cpu_sys_pct FROM result WHERE cpu_sys_pct IS NOT NULL
UNION ALL SELECT id, 'cpu_pct', cpu_pct FROM result WHERE cpu_pct IS NOT NULL
UNION ALL SELECT id, 'sender_bw_bytes_s', sender_bw_bytes_s FROM result WHERE sender_bw_bytes_s IS NOT NULL
UNION ALL SELECT id, 'retransmits', retransmits FROM result WHERE retransmits IS NOT NULL
UNION ALL SELECT id, 'rtt_min_ns', rtt_min_ns FROM result WHERE rtt_min_ns IS NOT NULL
UNION ALL SELECT id, 'rtt_max_ns', rtt_max_ns FROM result WHERE rtt_max_ns IS NOT NULL
UNION ALL SELECT id, 'rtt_mean_ns', rtt_mean_ns FROM result WHERE rtt_mean_ns IS NOT NULL
UNION ALL SELECT id, 'jitter_ns', jitter_ns FROM result WHERE jitter_ns IS NOT NULL
UNION ALL SELECT id, 'lost_packets', lost_packets FROM result WHERE lost_packets IS NOT NULL
UNION ALL SELECT id, 'packets', packets FROM result WHERE packets IS NOT NULL
UNION ALL SELECT id, 'loss_pct', loss_pct FROM result WHERE loss_pct IS NOT NULL
UNION ALL SELECT id, 'samples', samples FROM result WHERE samples IS NOT NULL
UNION ALL SELECT r.id, j.key, CAST(j.value AS REAL) FROM result r, json_each(r.metrics_extra) j
          WHERE r.metrics_extra IS NOT NULL;

CREATE VIEW latency_bin(result_id, metric, value_ns, count) AS
SELECT h.result_id, h.metric, CAST(j.value ->> 0 AS REAL), CAST(j.value ->> 1 AS REAL)
FROM histogram h, json_each(h.bins) j;

CREATE VIEW series_point(result_id, metric, t_ms, value) AS
SELECT s.result_id, s.metric, CAST(j.value ->> 0 AS REAL), CAST(j.value ->> 1 AS REAL)
FROM series s, json_each(s.points) j;

-- One row per result with its whole context and its metrics: the view for ad-hoc SQL.
CREATE VIEW v_result AS
SELECT r.id AS result_id, s.path AS source, s.sha256, s.format, run.tool, run.tool_version,
       r.host, r.peer, r.storage_class, r.sec, m.options AS mount_options, m.fstype,
       m.device AS mount_device, r.job, r.direction, r.rw, r.bs_bytes, r.iodepth, r.numjobs,
       r.direct, r.sync, r.fsync, r.fdatasync, r.ioengine, r.size_bytes, r.rwmixread,
       r.runtime_s, r.error, r.error_msg, r.line_first, r.line_last, r.transcribed,
       run.started_at, s.imported_at, run.id AS run_id,
       r.bw_bytes_s, r.iops, r.io_bytes, r.total_ios, r.runtime_ms, r.bw_min_bytes_s,
       r.bw_max_bytes_s, r.bw_mean_bytes_s, r.bw_stddev_bytes_s, r.iops_min, r.iops_max,
       r.iops_mean, r.iops_stddev, r.bw_thread_min_bytes_s, r.bw_thread_max_bytes_s,
       r.iops_thread_min, r.iops_thread_max, r.slat_min_ns, r.slat_max_ns, r.slat_mean_ns,
       r.slat_stddev_ns, r.clat_min_ns, r.clat_max_ns, r.clat_mean_ns, r.clat_stddev_ns,
       r.lat_min_ns, r.lat_max_ns, r.lat_mean_ns, r.lat_stddev_ns, r.clat_p1_ns, r.clat_p5_ns,
       r.clat_p10_ns, r.clat_p20_ns, r.clat_p30_ns, r.clat_p40_ns, r.clat_p50_ns, r.clat_p60_ns,
       r.clat_p70_ns, r.clat_p80_ns, r.clat_p90_ns, r.clat_p95_ns, r.clat_p99_ns, r.clat_p99_5_ns,
       r.clat_p99_9_ns, r.clat_p99_95_ns, r.clat_p99_99_ns, r.lat_p1_ns, r.lat_p5_ns,
       r.lat_p10_ns, r.lat_p20_ns, r.lat_p30_ns, r.lat_p40_ns, r.lat_p50_ns, r.lat_p60_ns,
       r.lat_p70_ns, r.lat_p80_ns, r.lat_p90_ns, r.lat_p95_ns, r.lat_p99_ns, r.lat_p99_5_ns,
       r.lat_p99_9_ns, r.lat_p99_95_ns, r.lat_p99_99_ns, r.sync_total_ios, r.sync_lat_min_ns,
       r.sync_lat_max_ns, r.sync_lat_mean_ns, r.sync_lat_stddev_ns, r.sync_lat_p1_ns,
       r.sync_lat_p5_ns, r.sync_lat_p10_ns, r.sync_lat_p20_ns, r.sync_lat_p30_ns,
       r.sync_lat_p40_ns, r.sync_lat_p50_ns, r.sync_lat_p60_ns, r.sync_lat_p70_ns,
       r.sync_lat_p80_ns, r.sync_lat_p90_ns, r.sync_lat_p95_ns, r.sync_lat_p99_ns,
       r.sync_lat_p99_5_ns, r.sync_lat_p99_9_ns, r.sync_lat_p99_95_ns, r.sync_lat_p99_99_ns,
       r.cpu_usr_pct, r.cpu_sys_pct, r.cpu_pct, r.sender_bw_bytes_s, r.retransmits, r.rtt_min_ns,
       r.rtt_max_ns, r.rtt_mean_ns, r.jitter_ns, r.lost_packets, r.packets, r.loss_pct, r.samples,
       r.metrics_extra
FROM result r
JOIN run ON run.id = r.run_id
JOIN source_file s ON s.id = run.source_id
LEFT JOIN mount m ON m.id = r.mount_id;

-- One row per metric value with its context (long form, for pivots).
CREATE VIEW v_metric AS
SELECT v.*, mt.name AS metric, mt.value
FROM v_result v JOIN metric mt ON mt.result_id = v.result_id;
