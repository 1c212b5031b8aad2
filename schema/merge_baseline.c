/* merge_baseline.c: the saved baselines of a merged warehouse (schema/0004_baseline.sql).
 * Members are results, which merge.c re-keys or leaves where the same source is stored in
 * both: each is found here by its source's sha256, job, direction and rank among that
 * source's results of the same job and direction, the key merge.c's label check uses. A
 * baseline saved under the same name in both is kept as saved here (a warning when its
 * results differ), which keeps merging idempotent. */
#include "db_private.h"

#define OTHER "merge_other" /* merge.c attaches the other warehouse as this */

/* Results of schema with a rank among their source's results of one job and direction, for
 * the sources of the other's baselines. */
#define KEYED(schema)                                                                              \
    "SELECT r.id, s.sha256, r.job, r.direction, row_number() OVER (PARTITION BY s.id, r.job, "     \
    "r.direction ORDER BY r.id) AS k FROM " schema ".result r JOIN " schema ".run ON run.id = "    \
    "r.run_id JOIN " schema ".source_file s ON s.id = run.source_id WHERE s.sha256 IN "            \
    "(SELECT sha256 FROM temp.merge_member_source)"

static const char *const merge_sql =
    "CREATE TEMP TABLE merge_member_source(sha256 TEXT PRIMARY KEY);"
    "CREATE TEMP TABLE merge_member(name TEXT, result_id INTEGER);"
    "CREATE TEMP TABLE merge_new_baseline(name TEXT PRIMARY KEY);"
    "INSERT OR IGNORE INTO temp.merge_member_source SELECT s.sha256 FROM " OTHER
    ".baseline_result br JOIN " OTHER ".result r ON r.id = br.result_id JOIN " OTHER
    ".run ON run.id = r.run_id JOIN " OTHER ".source_file s ON s.id = run.source_id;"
    "WITH o AS (" KEYED(OTHER) "), m AS (" KEYED(
        "main") ") "
                "INSERT INTO temp.merge_member SELECT ob.name, m.id FROM " OTHER
                ".baseline_result br "
                "JOIN " OTHER
                ".baseline ob ON ob.id = br.baseline_id JOIN o ON o.id = br.result_id "
                "JOIN m ON m.sha256 = o.sha256 AND m.job IS o.job AND m.direction IS o.direction "
                "AND m.k = o.k;"
                "INSERT INTO temp.merge_new_baseline SELECT name FROM " OTHER ".baseline "
                "WHERE name NOT IN (SELECT name FROM main.baseline);"
                "INSERT INTO main.baseline(name, filter, created_by, created_at) SELECT name, filter, "
                "created_by, created_at FROM " OTHER ".baseline WHERE name IN (SELECT name FROM "
                "temp.merge_new_baseline) ORDER BY id;"
                "INSERT OR IGNORE INTO main.baseline_result(baseline_id, result_id) SELECT b.id, "
                "mm.result_id FROM temp.merge_member mm JOIN main.baseline b ON b.name = mm.name "
                "WHERE mm.name IN (SELECT name FROM temp.merge_new_baseline);";

static const char *const cleanup_sql = "DROP TABLE IF EXISTS temp.merge_member_source;"
                                       "DROP TABLE IF EXISTS temp.merge_member;"
                                       "DROP TABLE IF EXISTS temp.merge_new_baseline;";

/* The names saved in both whose results differ. */
static const char *const conflicts_sql =
    "WITH here AS (SELECT b.name, br.result_id FROM main.baseline b JOIN main.baseline_result "
    "br ON br.baseline_id = b.id WHERE b.name IN (SELECT name FROM " OTHER ".baseline) AND "
    "b.name NOT IN (SELECT name FROM temp.merge_new_baseline)), "
    "there AS (SELECT name, result_id FROM temp.merge_member WHERE name NOT IN (SELECT name "
    "FROM temp.merge_new_baseline)) "
    "SELECT name FROM (SELECT * FROM here EXCEPT SELECT * FROM there) UNION "
    "SELECT name FROM (SELECT * FROM there EXCEPT SELECT * FROM here) ORDER BY 1";

static int warn_conflicts(sqlite3 *h, const char *other_path, struct diag *d)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h, conflicts_sql, -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        diag_warn(d,
                  "%s: baseline '%s' is saved in both warehouses with different results; kept "
                  "the one saved here",
                  other_path, sqlite3_column_text(st, 0));
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int merge_baselines(sqlite3 *h, const char *other_path, struct diag *d)
{
    int rc = sqlite3_exec(h, merge_sql, NULL, NULL, NULL) == SQLITE_OK
                 ? warn_conflicts(h, other_path, d)
                 : -1;
    sqlite3_exec(h, cleanup_sql, NULL, NULL, NULL);
    return rc;
}
