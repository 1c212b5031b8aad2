/* remove.c: benchdb rm. Removes results, and the runs and sources they leave without results,
 * recording each removal in label_history (field 'removed', old_value says what the result
 * was), which since schema 4 outlives the result it names. */
#include "db_private.h"

#include <string.h>

#include "../core/array.h"

/* What each selected result was, as history keeps it. */
static const char history_sql[] =
    "INSERT INTO label_history(result_id, field, old_value, new_value, changed_by, changed_at) "
    "SELECT r.id, 'removed', 'source=' || s.path || ' job=' || coalesce(r.job, '') || "
    "' direction=' || coalesce(r.direction, '') || ' storage_class=' || "
    "coalesce(r.storage_class, '') || ' host=' || coalesce(r.host, ''), NULL, ?1, ?2 "
    "FROM temp.sel_result i JOIN result r ON r.id = i.id JOIN run ON run.id = r.run_id "
    "JOIN source_file s ON s.id = run.source_id ORDER BY r.id";

/* Per run with selected results: its source, how many go, how many it has, and whether its
 * source keeps other runs. */
static const char runs_sql[] =
    "SELECT s.path, run.id, count(*), (SELECT count(*) FROM result x WHERE x.run_id = run.id), "
    "(SELECT count(*) FROM run o WHERE o.source_id = s.id AND o.id <> run.id) "
    "FROM temp.sel_result i JOIN result r ON r.id = i.id JOIN run ON run.id = r.run_id "
    "JOIN source_file s ON s.id = run.source_id GROUP BY run.id ORDER BY run.id";

/* The results, then the runs and sources they leave empty (chunks, tags, histograms, series
 * and baseline membership go by cascade). */
static const char *const delete_sql[] = {
    "CREATE TEMP TABLE IF NOT EXISTS rm_run(id INTEGER PRIMARY KEY, source_id INTEGER);"
    "DELETE FROM temp.rm_run;"
    "INSERT INTO temp.rm_run SELECT DISTINCT r.run_id, run.source_id FROM temp.sel_result i "
    "JOIN result r ON r.id = i.id JOIN run ON run.id = r.run_id",
    "DELETE FROM result WHERE id IN (SELECT id FROM temp.sel_result)",
    "DELETE FROM run WHERE id IN (SELECT id FROM temp.rm_run) AND NOT EXISTS "
    "(SELECT 1 FROM result r WHERE r.run_id = run.id)",
    "DELETE FROM source_file WHERE id IN (SELECT source_id FROM temp.rm_run) AND NOT EXISTS "
    "(SELECT 1 FROM run WHERE run.source_id = source_file.id)",
};

static int list_runs(struct db *db, const struct db_remove_sink *out, struct db_remove_counts *c)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->h, runs_sql, -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_removed_run run = {(const char *)sqlite3_column_text(st, 0),
                                     sqlite3_column_int64(st, 1),
                                     (size_t)sqlite3_column_int64(st, 2),
                                     (size_t)sqlite3_column_int64(st, 3),
                                     0,
                                     0};
        run.run_goes = run.removed == run.results;
        run.source_goes = run.run_goes && sqlite3_column_int64(st, 4) == 0;
        c->results += run.removed;
        c->runs += (size_t)run.run_goes;
        c->sources += (size_t)run.source_goes;
        out->run(out->ctx, &run);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int record_history(struct db *db, const char *by, const char *at)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->h, history_sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, by, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, at, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

/* Keeps in temp.sel_result only the results of runs started within dates. */
static int keep_dated(struct db *db, const struct time_range *dates)
{
    if (!dates || !time_range_bounded(dates))
        return 0;
    struct buf sql = BUF_INIT;
    buf_adds(&sql, "DELETE FROM temp.sel_result WHERE id NOT IN (SELECT r.id FROM result r "
                   "JOIN run ON run.id = r.run_id WHERE 1");
    db_time_range_sql(&sql, "run.started_at", dates);
    buf_addc(&sql, ')');
    int rc = sqlite3_exec(db->h, sql.data, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    buf_release(&sql);
    return rc;
}

int db_remove(struct db *db, const struct kv *where, size_t n_where, const struct time_range *dates,
              const char *by, const char *at, const struct db_remove_sink *out,
              struct db_remove_counts *c, struct diag *d)
{
    memset(c, 0, sizeof(*c));
    if (db_select_results(db, where, n_where, d))
        return -1;
    int bad = keep_dated(db, dates) || list_runs(db, out, c) || record_history(db, by, at);
    for (size_t i = 0; !bad && i < ARRAY_SIZE(delete_sql); i++)
        bad = sqlite3_exec(db->h, delete_sql[i], NULL, NULL, NULL) != SQLITE_OK;
    if (bad)
        return diag_error(d, "database '%s': cannot remove results: %s", db->path,
                          sqlite3_errmsg(db->h));
    return 0;
}

int db_vacuum(struct db *db, struct diag *d)
{
    if (db_raw_vacuum(db, d))
        return -1;
    if (sqlite3_exec(db->h, "VACUUM", NULL, NULL, NULL) != SQLITE_OK)
        return diag_error(d, "database '%s': cannot vacuum: %s", db->path, sqlite3_errmsg(db->h));
    return 0;
}
