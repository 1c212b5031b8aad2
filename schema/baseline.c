/* baseline.c: saved baselines, named sets of results (schema/0004_baseline.sql) that a
 * comparison names as baseline:NAME. */
#include "db_private.h"

#include <string.h>

int db_baseline_name_ok(const char *name)
{
    if (!*name)
        return 0;
    for (const char *p = name; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p))
            return 0;
    return 1;
}

/* 1 when a baseline is saved under name, 0 when not, -1 on failure. */
static int baseline_exists(struct db *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->h, "SELECT 1 FROM baseline WHERE name = ?", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Runs sql with ?1 .. ?4 bound to the texts of v (NULL: SQL NULL); the rows changed, or -1. */
static int exec_texts(struct db *db, const char *sql, const char *const v[4])
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
    for (int i = 0; rc == SQLITE_OK && i < 4; i++)
        sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? sqlite3_changes(db->h) : -1;
}

int db_baseline_save(struct db *db, const struct db_baseline *b, const struct kv *where,
                     size_t n_where, size_t *n, struct diag *d)
{
    static const char save[] =
        "INSERT INTO baseline(name, filter, created_by, created_at) VALUES (?1, ?2, ?3, ?4)";
    static const char members[] =
        "INSERT INTO baseline_result(baseline_id, result_id) SELECT "
        "(SELECT id FROM baseline WHERE name = ?1), id FROM temp.sel_result";
    const char *const v[4] = {b->name, b->filter, b->created_by, b->created_at};
    int exists = baseline_exists(db, b->name);
    if (exists > 0) {
        diag_error(d, "baseline '%s' exists: remove it first ('benchdb baseline rm %s')", b->name,
                   b->name);
        return 1;
    }
    int added =
        exists < 0 || db_select_results(db, where, n_where, d) || exec_texts(db, save, v) < 0
            ? -1
            : exec_texts(db, members, v);
    if (added < 0)
        return diag_error(d, "database '%s': cannot save baseline '%s': %s", db->path, b->name,
                          sqlite3_errmsg(db->h));
    *n = (size_t)added;
    if (!added) {
        struct buf hint = BUF_INIT;
        db_filters_hint(db, where, n_where, &hint);
        diag_error(d, "no results match the filters: baseline '%s' not saved%s%s%s", b->name,
                   hint.len ? " (" : "", hint.len ? hint.data : "", hint.len ? ")" : "");
        buf_release(&hint);
        return 1;
    }
    return 0;
}

int db_baseline_remove(struct db *db, const char *name, struct diag *d)
{
    const char *const v[4] = {name, NULL, NULL, NULL};
    int removed = exec_texts(db, "DELETE FROM baseline WHERE name = ?1", v);
    if (removed < 0)
        return diag_error(d, "database '%s': cannot remove baseline '%s': %s", db->path, name,
                          sqlite3_errmsg(db->h));
    if (!removed) {
        diag_error(d, "no saved baseline '%s' (see 'benchdb baseline list')", name);
        return 1;
    }
    return 0;
}
