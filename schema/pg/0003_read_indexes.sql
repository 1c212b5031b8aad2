-- schema/pg/0003_read_indexes.sql: the server keeps the indexes its readers use, and no others.
-- The read commands copy whole tables, or the runs of a --since/--until range with the rows that
-- hang off them (fleet/pull.c: result by run_id, which its unique key (run_id, ordinal) serves;
-- the runs themselves, a small table, are scanned); Grafana's views join by ids. Nothing filters
-- results by class or by host: those two indexes cost every push about a tenth of the server's
-- work (bench/RESULTS.md).
DROP INDEX result_class;
DROP INDEX result_host;
