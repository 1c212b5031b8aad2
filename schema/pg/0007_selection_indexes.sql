-- schema/pg/0007_selection_indexes.sql: the indexes a comparison's read selects by. A report or
-- check run against the server selects the compared results there (fleet/pull.c,
-- query_read_rows_sql): by storage class (the default --by), and the network tests of any
-- iperf runs. Without these each read scanned all of result (521 MB at a million results, 1.7 s
-- of the server's 1.9 s when two classes hold a tenth of it) and all of run; with them it reads
-- the pages of the compared rows only. Their price to a push is in docs/fleet.md.
CREATE INDEX result_storage_class ON result (storage_class);
CREATE INDEX run_tool ON run (tool);
