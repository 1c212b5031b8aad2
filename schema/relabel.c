/* relabel.c: selecting stored results by KEY=VALUE filters, and changing their labels with
 * every change recorded in label_history. */
#include "db_private.h"

#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/xalloc.h"

#define TAG_PREFIX "tag:"

/* Filterable keys and their condition on result r joined with source_file s; ? is the value
 * (an empty value matches NULL). The settable ones name their result column. */
static const struct filter {
    const char *key, *cond, *column;
} filters[] = {
    {"host", "r.host IS ?", "host"},
    {"job", "r.job IS ?", NULL},
    {"run", "r.run_id = ?", NULL},
    {"rw", "r.rw IS ?", NULL},
    {"sec", "r.sec IS ?", "sec"},
    {"source", "s.path = ?", NULL},
    {"storage_class", "r.storage_class IS ?", "storage_class"},
};

static const struct filter *find_filter(const char *key)
{
    for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++)
        if (!strcmp(filters[i].key, key))
            return &filters[i];
    return NULL;
}

static const char *tag_name(const char *key)
{
    return !strncmp(key, TAG_PREFIX, strlen(TAG_PREFIX)) && key[strlen(TAG_PREFIX)]
               ? key + strlen(TAG_PREFIX)
               : NULL;
}

int db_filter_key_ok(const char *key, int set)
{
    const struct filter *f = find_filter(key);
    return tag_name(key) || (f && (!set || f->column));
}

static const char *value_or_null(const char *v)
{
    return v && *v ? v : NULL;
}

/* Fills temp.sel_result with the ids of the results matching every filter. */
static int select_results(struct db *db, const struct kv *where, size_t n, struct diag *d)
{
    struct buf sql = BUF_INIT;
    buf_adds(&sql, "INSERT INTO temp.sel_result(id) SELECT r.id FROM result r "
                   "JOIN run ON run.id = r.run_id JOIN source_file s ON s.id = run.source_id "
                   "WHERE 1");
    for (size_t i = 0; i < n; i++) {
        const struct filter *f = find_filter(where[i].key);
        buf_adds(&sql, " AND ");
        buf_adds(&sql, f ? f->cond
                         : "EXISTS (SELECT 1 FROM tag t WHERE t.result_id = r.id AND t.key = ? "
                           "AND t.value IS ?)");
    }
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_exec(db->h,
                          "CREATE TEMP TABLE IF NOT EXISTS sel_result(id INTEGER PRIMARY KEY);"
                          "DELETE FROM temp.sel_result",
                          NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db->h, sql.data, -1, &st, NULL);
    int p = 1;
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
        if (!find_filter(where[i].key))
            sqlite3_bind_text(st, p++, tag_name(where[i].key), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, p++, value_or_null(where[i].value), -1, SQLITE_TRANSIENT);
    }
    if (rc == SQLITE_OK && sqlite3_step(st) != SQLITE_DONE)
        rc = SQLITE_ERROR;
    sqlite3_finalize(st);
    buf_release(&sql);
    if (rc != SQLITE_OK)
        return diag_error(d, "database '%s': cannot select results: %s", db->path,
                          sqlite3_errmsg(db->h));
    return 0;
}

/* Runs sql with ?1 the new value, ?2 the tag name, ?3 changed_by, ?4 changed_at (a
 * statement need not use them all: binding an unused index is harmless). */
static int exec_change(struct db *db, const char *sql, const char *value, const char *name,
                       const char *by, const char *at)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, value_or_null(value), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, by, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 4, at, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

/* History first (old value still there), then the change itself. */
static int set_column(struct db *db, const char *column, const char *value, const char *by,
                      const char *at)
{
    struct buf hist = BUF_INIT, upd = BUF_INIT;
    buf_addf(&hist,
             "INSERT INTO label_history(result_id, field, old_value, new_value, changed_by, "
             "changed_at) SELECT r.id, '%s', r.%s, ?1, ?3, ?4 FROM result r "
             "WHERE r.id IN (SELECT id FROM temp.sel_result) AND r.%s IS NOT ?1",
             column, column, column);
    buf_addf(&upd,
             "UPDATE result SET %s = ?1 WHERE id IN (SELECT id FROM temp.sel_result) "
             "AND %s IS NOT ?1",
             column, column);
    int rc = exec_change(db, hist.data, value, NULL, by, at) ||
             exec_change(db, upd.data, value, NULL, by, at);
    buf_release(&hist);
    buf_release(&upd);
    return rc;
}

static int set_tag(struct db *db, const char *name, const char *value, const char *by,
                   const char *at)
{
    static const char hist[] =
        "INSERT INTO label_history(result_id, field, old_value, new_value, changed_by, "
        "changed_at) SELECT i.id, 'tag:' || ?2, t.value, ?1, ?3, ?4 FROM temp.sel_result i "
        "LEFT JOIN tag t ON t.result_id = i.id AND t.key = ?2 WHERE t.value IS NOT ?1";
    static const char del[] = "DELETE FROM tag WHERE key = ?2 AND ?1 IS NULL "
                              "AND result_id IN (SELECT id FROM temp.sel_result)";
    static const char put[] = "INSERT OR REPLACE INTO tag(result_id, key, value) SELECT id, ?2, "
                              "?1 FROM temp.sel_result WHERE ?1 IS NOT NULL";
    return exec_change(db, hist, value, name, by, at) ||
           exec_change(db, del, value, name, by, at) || exec_change(db, put, value, name, by, at);
}

static int64_t last_history_id(struct db *db)
{
    sqlite3_stmt *st = NULL;
    int64_t id = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT coalesce(max(id), 0) FROM label_history", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return id;
}

static size_t results_changed_since(struct db *db, int64_t history_id)
{
    sqlite3_stmt *st = NULL;
    size_t n = 0;
    if (sqlite3_prepare_v2(db->h,
                           "SELECT count(DISTINCT result_id) FROM label_history WHERE id > ?", -1,
                           &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, history_id);
        if (sqlite3_step(st) == SQLITE_ROW)
            n = (size_t)sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

int db_relabel(struct db *db, const struct kv *where, size_t n_where, const struct kv *set,
               size_t n_set, const char *changed_by, const char *changed_at, size_t *changed,
               struct diag *d)
{
    if (select_results(db, where, n_where, d))
        return -1;
    int64_t before = last_history_id(db);
    for (size_t i = 0; i < n_set; i++) {
        const struct filter *f = find_filter(set[i].key);
        int bad = f ? set_column(db, f->column, set[i].value, changed_by, changed_at)
                    : set_tag(db, tag_name(set[i].key), set[i].value, changed_by, changed_at);
        if (bad)
            return diag_error(d, "database '%s': cannot set '%s': %s", db->path, set[i].key,
                              sqlite3_errmsg(db->h));
    }
    *changed = results_changed_since(db, before);
    return 0;
}

int db_sources_matching(struct db *db, const struct kv *where, size_t n_where, int64_t **ids,
                        size_t *n, struct diag *d)
{
    if (select_results(db, where, n_where, d))
        return -1;
    sqlite3_stmt *st = NULL;
    size_t alloc = 0;
    *ids = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(db->h,
                           "SELECT DISTINCT run.source_id FROM temp.sel_result i "
                           "JOIN result r ON r.id = i.id JOIN run ON run.id = r.run_id "
                           "ORDER BY run.source_id",
                           -1, &st, NULL) != SQLITE_OK)
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    while (sqlite3_step(st) == SQLITE_ROW) {
        ALLOC_GROW(*ids, *n, alloc);
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return 0;
}
