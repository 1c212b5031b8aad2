/* push_labels.c: the label changes a push sends (benchdb relabel after an earlier push). A
 * change is known by its result's content key, not by ids (the server's are its own), and is
 * applied on the server: the result's field gets the current local value. */
#include "push.h"

#include <stdlib.h>

#include "../schema/sql.h"

/* Every local label change of a stored result, with the content key of its result (source
 * hash, job, direction, and its occurrence among the source's results of that job and
 * direction, in the order of their runs and ids: the order the server's ordinals keep) and the
 * result's current value of the field. Not the run and result ordinals: benchdb rm of some of
 * a run's results renumbers the rest locally, but not on the server; an occurrence moves only
 * when a result of the same job and direction before it in its source is removed. */
static const char local_labels_sql[] =
    "SELECT s.sha256, r.job, r.direction, (SELECT count(*) FROM run r2 JOIN result x ON x.run_id "
    "= r2.id WHERE r2.source_id = run.source_id AND x.job IS r.job AND x.direction IS "
    "r.direction AND (r2.id < run.id OR (r2.id = run.id AND x.id <= r.id))), l.id, l.field, l.old_value, l.new_value, l.changed_by, "
    "l.changed_at, CASE l.field WHEN 'host' THEN r.host WHEN 'storage_class' THEN "
    "r.storage_class WHEN 'sec' THEN r.sec ELSE (SELECT value FROM tag WHERE result_id = r.id "
    "AND key = substr(l.field, 5)) END FROM label_history l JOIN result r ON r.id = l.result_id "
    "JOIN run ON run.id = r.run_id JOIN source_file s ON s.id = run.source_id ORDER BY l.id";

/* The changes' staging table, made in the transaction that uses it (a table emptied at each
 * commit would cost a truncation at every batch's). */
#define STAGE_LABEL_SQL                                                                            \
    "CREATE TEMP TABLE stage_label (sha256 text, job text, direction text, occurrence bigint, "    \
    "seq bigint, field text, old_value text, new_value text, changed_by text, changed_at text, "   \
    "current_value text) ON COMMIT DROP"
#define STAGE_LABEL_COLS                                                                           \
    "sha256, job, direction, occurrence, seq, field, old_value, new_value, changed_by, "           \
    "changed_at, current_value"

/* On the server: the staged changes it had not stored are stored, and each (result, field)
 * they touch gets the local current value. */
static const char apply_labels_sql[] =
    "CREATE TEMP TABLE label_new (result_id bigint, field text, current_value text) ON COMMIT "
    "DROP;"
    "WITH keyed AS (SELECT r.id, s.sha256, r.job, r.direction, row_number() OVER (PARTITION BY "
    "s.id, r.job, r.direction ORDER BY run.ordinal, r.ordinal) AS occurrence FROM source_file s "
    "JOIN run ON run.source_id = s.id JOIN result r ON r.run_id = run.id WHERE s.sha256 IN "
    "(SELECT sha256 FROM stage_label)), "
    "target AS (SELECT k.id AS result_id, l.* FROM stage_label l JOIN keyed k ON k.sha256 = "
    "l.sha256 AND k.job IS NOT DISTINCT FROM l.job AND k.direction IS NOT DISTINCT FROM "
    "l.direction AND k.occurrence = l.occurrence), "
    "ins AS (INSERT INTO label_history (result_id, field, old_value, new_value, changed_by, "
    "changed_at) SELECT result_id, field, old_value, new_value, changed_by, changed_at FROM "
    "target ORDER BY seq ON CONFLICT DO NOTHING RETURNING result_id, field) "
    "INSERT INTO label_new SELECT DISTINCT i.result_id, i.field, t.current_value FROM ins i "
    "JOIN target t USING (result_id, field)";

/* Changing stored labels needs UPDATE on result and DELETE on tag (docs/fleet.md): run only
 * when there are changes. */
static const char set_labels_sql[] =
    "UPDATE result r SET host = n.current_value FROM label_new n WHERE n.result_id = r.id AND "
    "n.field = 'host';"
    "UPDATE result r SET storage_class = n.current_value FROM label_new n WHERE n.result_id = "
    "r.id AND n.field = 'storage_class';"
    "UPDATE result r SET sec = n.current_value FROM label_new n WHERE n.result_id = r.id AND "
    "n.field = 'sec';"
    "DELETE FROM tag t USING label_new n WHERE n.result_id = t.result_id AND n.field = 'tag:' "
    "|| t.key;"
    "INSERT INTO tag SELECT result_id, substr(field, 5), current_value FROM label_new WHERE "
    "field LIKE 'tag:%' AND current_value IS NOT NULL";

/* In one transaction: the changes staged, those the server lacks stored and applied. */
int push_labels(struct push *p)
{
    size_t rows = 0;
    enum pg_type *types = NULL;
    int rc = SQLITE_OK;
    int failed =
        pg_exec(p->c, "BEGIN; " STAGE_LABEL_SQL, WHO, "cannot push the label changes", p->d) ||
        !(types = column_types(p, "stage_label", STAGE_LABEL_COLS));
    sqlite3_stmt *st = failed ? NULL : sql_cached(p->db, &rc, local_labels_sql);
    if (!failed && rc != SQLITE_OK)
        failed = local_error(p, "cannot read the warehouse");
    failed = failed || copy_table(p, st, "stage_label", STAGE_LABEL_COLS, types, -1, &rows) ||
             (rows && pg_exec(p->c, apply_labels_sql, WHO, "cannot push the label changes", p->d));
    sql_release(st);
    free(types);
    if (!failed && !rows) {
        PQclear(PQexec(p->c, "ROLLBACK"));
        return 0;
    }
    PGresult *r = failed ? NULL : PQexec(p->c, "SELECT count(*) FROM label_new");
    p->plan->counts->labels = r && PQresultStatus(r) == PGRES_TUPLES_OK
                                  ? (size_t)strtoull(PQgetvalue(r, 0, 0), NULL, 10)
                                  : 0;
    PQclear(r);
    if (!failed && p->plan->counts->labels)
        failed = pg_exec(p->c, set_labels_sql, WHO, "cannot apply the label changes", p->d);
    if (!failed)
        failed = pg_exec(p->c, "COMMIT", WHO, "cannot push the label changes", p->d);
    if (failed)
        PQclear(PQexec(p->c, "ROLLBACK"));
    return failed ? -1 : 0;
}
