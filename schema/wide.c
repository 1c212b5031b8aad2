/* wide.c: the metric columns of result. A standard metric is a REAL column named as the
 * metric (schema/0002_wide.sql); the schema is the one list of them, read once per
 * connection, and a metric's column is found by its name in a string map. */
#include "db_private.h"

#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/xalloc.h"
#include "sql.h"

int wide_index(const struct wide_columns *w, const char *name)
{
    const struct strmap_entry *e = strmap_find(&w->index, name);
    return e ? (int)e->index : -1;
}

static void wide_add(struct wide_columns *w, const char *name)
{
    ALLOC_GROW(w->names, w->n, w->alloc);
    w->names[w->n] = xstrdup(name);
    strmap_put(&w->index, w->names[w->n], w->n);
    w->n++;
}

int wide_load(struct db *db, struct diag *d)
{
    struct wide_columns *w = &db->wide;
    if (w->loaded)
        return 0;
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(db->h, &rc,
                                   "SELECT name FROM pragma_table_info('result') "
                                   "WHERE type = 'REAL' ORDER BY cid");
    if (rc != SQLITE_OK)
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    w->loaded = 1;
    while (sql_step(st, &rc))
        wide_add(w, (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    return 0;
}

void wide_release(struct wide_columns *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->names[i]);
    free(w->names);
    strmap_release(&w->index);
    free(w->insert_sql);
    memset(w, 0, sizeof(*w));
}

int db_metric_columns(struct db *db, const char *const **names, size_t *n, struct diag *d)
{
    if (wide_load(db, d))
        return -1;
    *names = (const char *const *)db->wide.names;
    *n = db->wide.n;
    return 0;
}

/* Names safe to put in SQL and a JSON path as they are; every metric benchdb stores is one. */
static int plain_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

int db_metric_expr(struct db *db, struct buf *sql, const char *alias, const char *name,
                   struct diag *d)
{
    if (wide_load(db, d))
        return -1;
    if (!plain_name(name))
        return diag_error(d, "'%s' is not a metric name (lower-case letters, digits and '_')",
                          name);
    if (wide_index(&db->wide, name) >= 0)
        buf_addf(sql, "%s.%s", alias, name);
    else
        buf_addf(sql, "(%s.metrics_extra ->> '$.%s')", alias, name);
    return 0;
}
