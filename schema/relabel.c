/* relabel.c: selecting stored results by KEY=VALUE filters, and changing their labels with
 * every change recorded in label_history. */
#include "db_private.h"

#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/buf.h"
#include "../core/distance.h"
#include "../core/scan.h"
#include "../core/xalloc.h"
#include "sql.h"

#define TAG_PREFIX "tag:"

/* Filterable keys and their condition on result r joined with source_file s, completed by
 * the value's parameter (an empty value matches NULL). The settable ones name their result
 * column. */
static const struct filter {
    const char *key, *cond, *column;
} filters[] = {
    {"host", "r.host IS", "host"},
    {"job", "r.job IS", NULL},
    {"run", "r.run_id =", NULL},
    {"rw", "r.rw IS", NULL},
    {"sec", "r.sec IS", "sec"},
    {"source", "s.path =", NULL},
    {"storage_class", "r.storage_class IS", "storage_class"},
};

/* 'storage-class' (as --by and import's --storage-class spell it) names storage_class too. */
static int same_key(const char *name, const char *key)
{
    for (; *name && (*name == *key || (*name == '_' && *key == '-')); name++, key++)
        ;
    return !*name && !*key;
}

static const struct filter *find_filter(const char *key)
{
    for (size_t i = 0; i < ARRAY_SIZE(filters); i++)
        if (same_key(filters[i].key, key))
            return &filters[i];
    return NULL;
}

static const char *tag_name(const char *key)
{
    return str_starts(key, TAG_PREFIX) && key[strlen(TAG_PREFIX)] ? key + strlen(TAG_PREFIX) : NULL;
}

/* A label filter's column in result r ("r.host IS": host); NULL for the others (run, source). */
static char *label_column(const struct filter *f)
{
    if (!str_starts(f->cond, "r.") || !str_ends(f->cond, " IS"))
        return NULL;
    return xstrndup(f->cond + 2, strlen(f->cond) - 2 - strlen(" IS"));
}

/* The stored value of a filter key's label nearest to value: malloc'ed, or NULL when none is
 * near or the key is not a label. */
static char *filter_nearest(struct db *db, const char *key, const char *value)
{
    const struct filter *f = find_filter(key);
    char *column = f ? label_column(f) : NULL;
    if (!column && !tag_name(key))
        return NULL;
    struct buf sql = BUF_INIT;
    if (column)
        buf_addf(&sql, "SELECT DISTINCT %s FROM result WHERE %s IS NOT NULL", column, column);
    else
        buf_adds(&sql, "SELECT DISTINCT value FROM tag WHERE key = :tag AND value IS NOT NULL");
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(db->h, &rc, sql.data);
    if (!column)
        sql_bind_text(st, &rc, ":tag", tag_name(key));
    char **names = NULL;
    size_t n = 0, alloc = 0;
    while (sql_step(st, &rc)) {
        ALLOC_GROW(names, n + 1, alloc);
        names[n++] = xstrdup((const char *)sqlite3_column_text(st, 0));
    }
    sql_finalize(st, &rc);
    const char *near =
        rc == SQLITE_OK ? str_nearest(value, (const char *const *)names, n, 2) : NULL;
    char *out = near ? xstrdup(near) : NULL;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(column);
    buf_release(&sql);
    return out;
}

void db_filters_hint(struct db *db, const struct kv *where, size_t n, struct buf *out)
{
    for (size_t i = 0; i < n; i++) {
        char *near = *where[i].value ? filter_nearest(db, where[i].key, where[i].value) : NULL;
        if (near)
            buf_addf(out, "%s--where %s=%s: did you mean '%s'?", out->len ? "; " : "", where[i].key,
                     where[i].value, near);
        free(near);
    }
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

/* The parameter names of the i-th filter: its value, and its tag name. */
static void filter_params(char value[32], char tag[32], size_t i)
{
    snprintf(value, 32, ":value%zu", i);
    snprintf(tag, 32, ":tag%zu", i);
}

int db_select_results(struct db *db, const struct kv *where, size_t n, struct diag *d)
{
    struct buf sql = BUF_INIT;
    char value[32], tag[32];
    buf_adds(&sql, "INSERT INTO temp.sel_result(id) SELECT r.id FROM result r "
                   "JOIN run ON run.id = r.run_id JOIN source_file s ON s.id = run.source_id "
                   "WHERE 1");
    for (size_t i = 0; i < n; i++) {
        const struct filter *f = find_filter(where[i].key);
        filter_params(value, tag, i);
        if (f)
            buf_addf(&sql, " AND %s %s", f->cond, value);
        else
            buf_addf(&sql,
                     " AND EXISTS (SELECT 1 FROM tag t WHERE t.result_id = r.id AND t.key = %s "
                     "AND t.value IS %s)",
                     tag, value);
    }
    int rc = SQLITE_OK;
    sql_exec(db->h, &rc,
             "CREATE TEMP TABLE IF NOT EXISTS sel_result(id INTEGER PRIMARY KEY);"
             "DELETE FROM temp.sel_result");
    sqlite3_stmt *st = sql_prepare(db->h, &rc, sql.data);
    for (size_t i = 0; i < n; i++) {
        filter_params(value, tag, i);
        if (!find_filter(where[i].key))
            sql_bind_text(st, &rc, tag, tag_name(where[i].key));
        sql_bind_text(st, &rc, value, value_or_null(where[i].value));
    }
    sql_step(st, &rc);
    sqlite3_finalize(st);
    buf_release(&sql);
    if (rc != SQLITE_OK)
        return diag_error(d, "database '%s': cannot select results: %s", db->path,
                          sqlite3_errmsg(db->h));
    return 0;
}

/* One change of a label: its new value, the tag's name (NULL: a column), who and when. */
struct change {
    const char *value, *tag, *by, *at;
};

/* Runs sql with the change's :value, :tag, :by and :at (those of them it uses). */
static int exec_change(struct db *db, const char *sql, const struct change *c)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(db->h, &rc, sql);
    const struct kv params[] = {
        {":value", value_or_null(c->value)}, {":tag", c->tag}, {":by", c->by}, {":at", c->at}};
    for (size_t i = 0; i < ARRAY_SIZE(params); i++)
        if (sql_uses(st, params[i].key))
            sql_bind_text(st, &rc, params[i].key, params[i].value);
    sql_step(st, &rc);
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

/* History first (old value still there), then the change itself. */
static int set_column(struct db *db, const char *column, const struct change *c)
{
    struct buf hist = BUF_INIT, upd = BUF_INIT;
    buf_addf(&hist,
             "INSERT INTO label_history(result_id, field, old_value, new_value, changed_by, "
             "changed_at) SELECT r.id, '%s', r.%s, :value, :by, :at FROM result r "
             "WHERE r.id IN (SELECT id FROM temp.sel_result) AND r.%s IS NOT :value",
             column, column, column);
    buf_addf(&upd,
             "UPDATE result SET %s = :value WHERE id IN (SELECT id FROM temp.sel_result) "
             "AND %s IS NOT :value",
             column, column);
    int rc = exec_change(db, hist.data, c) || exec_change(db, upd.data, c);
    buf_release(&hist);
    buf_release(&upd);
    return rc;
}

static int set_tag(struct db *db, const struct change *c)
{
    static const char hist[] =
        "INSERT INTO label_history(result_id, field, old_value, new_value, changed_by, "
        "changed_at) SELECT i.id, 'tag:' || :tag, t.value, :value, :by, :at FROM "
        "temp.sel_result i LEFT JOIN tag t ON t.result_id = i.id AND t.key = :tag "
        "WHERE t.value IS NOT :value";
    static const char del[] = "DELETE FROM tag WHERE key = :tag AND :value IS NULL "
                              "AND result_id IN (SELECT id FROM temp.sel_result)";
    static const char put[] = "INSERT OR REPLACE INTO tag(result_id, key, value) SELECT id, "
                              ":tag, :value FROM temp.sel_result WHERE :value IS NOT NULL";
    return exec_change(db, hist, c) || exec_change(db, del, c) || exec_change(db, put, c);
}

int db_relabel(struct db *db, const struct kv *where, size_t n_where, const struct kv *set,
               size_t n_set, const char *changed_by, const char *changed_at, size_t *matched,
               size_t *changed, struct diag *d)
{
    if (db_select_results(db, where, n_where, d))
        return -1;
    int rc = SQLITE_OK;
    *matched = (size_t)sql_int(db->h, &rc, "SELECT count(*) FROM temp.sel_result");
    int64_t before = sql_int(db->h, &rc, "SELECT coalesce(max(id), 0) FROM label_history");
    for (size_t i = 0; rc == SQLITE_OK && i < n_set; i++) {
        const struct filter *f = find_filter(set[i].key);
        struct change c = {set[i].value, tag_name(set[i].key), changed_by, changed_at};
        if (f ? set_column(db, f->column, &c) : set_tag(db, &c))
            return diag_error(d, "database '%s': cannot set '%s': %s", db->path, set[i].key,
                              sqlite3_errmsg(db->h));
    }
    sqlite3_stmt *st = sql_prepare(db->h, &rc,
                                   "SELECT count(DISTINCT result_id) FROM label_history "
                                   "WHERE id > :before");
    sql_bind_int(st, &rc, ":before", before);
    *changed = (size_t)sql_int_result(st, &rc);
    if (rc != SQLITE_OK)
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    return 0;
}

int db_sources_matching(struct db *db, const struct kv *where, size_t n_where, int64_t **ids,
                        size_t *n, struct diag *d)
{
    if (db_select_results(db, where, n_where, d))
        return -1;
    size_t alloc = 0;
    int rc = SQLITE_OK;
    *ids = NULL;
    *n = 0;
    sqlite3_stmt *st = sql_prepare(db->h, &rc,
                                   "SELECT DISTINCT run.source_id FROM temp.sel_result i "
                                   "JOIN result r ON r.id = i.id JOIN run ON run.id = r.run_id "
                                   "ORDER BY run.source_id");
    while (sql_step(st, &rc)) {
        ALLOC_GROW(*ids, *n, alloc);
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    return 0;
}
