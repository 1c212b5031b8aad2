/* sql.c: the statement toolkit (sql.h): one rc carried through the calls, the
 * per-connection statement cache, parameters bound by name. */
#include "sql.h"

#include <stdlib.h>

#include "../core/record.h"
#include "../core/xalloc.h"
#include "db_private.h"

/* Keeps the first failure (of a bind, a finalize) in *rc. */
static void keep_first(int *rc, int call_rc)
{
    if (*rc == SQLITE_OK)
        *rc = call_rc;
}

sqlite3_stmt *sql_cached(struct db *db, int *rc, const char *sql)
{
    if (*rc != SQLITE_OK)
        return NULL;
    for (size_t i = 0; i < db->ncache; i++) {
        if (db->cache[i].sql == sql) {
            sql_release(db->cache[i].st);
            return db->cache[i].st;
        }
    }
    sqlite3_stmt *st = NULL;
    *rc = sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
    if (*rc == SQLITE_OK) {
        ALLOC_GROW(db->cache, db->ncache, db->acache);
        db->cache[db->ncache++] = (struct stmt_cache){sql, st};
    }
    return st;
}

void sql_release(sqlite3_stmt *st)
{
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
}

void sql_cache_free(struct db *db)
{
    for (size_t i = 0; i < db->ncache; i++)
        sqlite3_finalize(db->cache[i].st);
    free(db->cache);
    db->cache = NULL;
    db->ncache = db->acache = 0;
}

sqlite3_stmt *sql_prepare_first(sqlite3 *h, int *rc, const char *sql, const char **tail)
{
    sqlite3_stmt *st = NULL;
    if (*rc == SQLITE_OK)
        *rc = sqlite3_prepare_v2(h, sql, -1, &st, tail);
    return st;
}

sqlite3_stmt *sql_prepare(sqlite3 *h, int *rc, const char *sql)
{
    return sql_prepare_first(h, rc, sql, NULL);
}

void sql_finalize(sqlite3_stmt *st, int *rc)
{
    keep_first(rc, sqlite3_finalize(st));
}

void sql_exec(sqlite3 *h, int *rc, const char *sql)
{
    if (*rc == SQLITE_OK)
        *rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
}

/* The index of parameter name (":host") in st; 0 with *rc = SQLITE_RANGE when st has no such
 * parameter. */
static int sql_param(sqlite3_stmt *st, int *rc, const char *name)
{
    if (*rc != SQLITE_OK)
        return 0;
    int i = sqlite3_bind_parameter_index(st, name);
    if (!i)
        *rc = SQLITE_RANGE;
    return i;
}

/* i is 0 when sql_param failed (*rc says why) */
void sql_bind_text_at(sqlite3_stmt *st, int *rc, int i, const char *s)
{
    if (*rc == SQLITE_OK && i && s)
        keep_first(rc, sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT));
    else if (*rc == SQLITE_OK && i)
        keep_first(rc, sqlite3_bind_null(st, i));
}

void sql_bind_texts(sqlite3_stmt *st, int *rc, const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sql_bind_text_at(st, rc, (int)i + 1, v[i]);
}

void sql_bind_text(sqlite3_stmt *st, int *rc, const char *name, const char *s)
{
    sql_bind_text_at(st, rc, sql_param(st, rc, name), s);
}

void sql_bind_int_at(sqlite3_stmt *st, int *rc, int i, int64_t v)
{
    if (*rc == SQLITE_OK && i)
        keep_first(rc, sqlite3_bind_int64(st, i, v));
}

void sql_bind_int(sqlite3_stmt *st, int *rc, const char *name, int64_t v)
{
    sql_bind_int_at(st, rc, sql_param(st, rc, name), v);
}

void sql_bind_blob(sqlite3_stmt *st, int *rc, const char *name, const void *p, size_t n)
{
    int i = sql_param(st, rc, name);
    if (i)
        keep_first(rc, sqlite3_bind_blob64(st, i, p, n, SQLITE_STATIC));
}

void sql_bind_text_borrowed(sqlite3_stmt *st, int *rc, const char *name, const char *s, size_t n)
{
    int i = sql_param(st, rc, name);
    if (i)
        keep_first(rc, sqlite3_bind_text64(st, i, s, n, SQLITE_STATIC, SQLITE_UTF8));
}

void sql_bind_known_int_at(sqlite3_stmt *st, int *rc, int i, int64_t v)
{
    if (*rc == SQLITE_OK && i && v == WL_UNKNOWN)
        keep_first(rc, sqlite3_bind_null(st, i));
    else
        sql_bind_int_at(st, rc, i, v);
}

int sql_uses(sqlite3_stmt *st, const char *name)
{
    return st && sqlite3_bind_parameter_index(st, name) > 0;
}

int sql_step(sqlite3_stmt *st, int *rc)
{
    if (*rc != SQLITE_OK)
        return 0;
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW)
        return 1;
    if (s != SQLITE_DONE)
        *rc = s;
    return 0;
}

void sql_step_done(sqlite3_stmt *st, int *rc)
{
    sql_step(st, rc);
    sql_release(st);
}

int64_t sql_int_result(sqlite3_stmt *st, int *rc)
{
    int64_t v = sql_step(st, rc) ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return v;
}

int64_t sql_int(sqlite3 *h, int *rc, const char *sql)
{
    return sql_int_result(sql_prepare(h, rc, sql), rc);
}
