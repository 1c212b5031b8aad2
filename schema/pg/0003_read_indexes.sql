-- schema/pg/0003_read_indexes.sql: the server keeps the indexes its readers use, and no others.
-- The read commands copy whole tables, or the runs of a --since/--until range with the rows that
-- hang off them (fleet/pull.c: run by started_at, result by run_id, which its unique key
-- (run_id, ordinal) serves); Grafana's views join by ids. Nothing filters results by class or
-- by host: those two indexes cost every push about a tenth of the server's work
-- (bench/RESULTS.md), and the date range had none.
DROP INDEX result_class;
DROP INDEX result_host;
CREATE INDEX run_started ON run(started_at);
