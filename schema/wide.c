/* wide.c: the metric columns of result. A standard metric is a REAL column named as the
 * metric (schema/0002_wide.sql); the schema is the one list of them, read once per
 * connection, and a metric's column is found by hashing its name. */
#include "db_private.h"

#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/hash.h"
#include "../core/xalloc.h"
#include "sql.h"

/* A power of two well above the column count, so probes stay short. */
enum { WIDE_SLOTS = 512 };

int wide_index(const struct wide_columns *w, const char *name)
{
    for (uint64_t i = str_hash(name);; i++) {
        int k = w->slot[i & (WIDE_SLOTS - 1)];
        if (k < 0 || !strcmp(w->names[k], name))
            return k;
    }
}

static void wide_add(struct wide_columns *w, const char *name)
{
    ALLOC_GROW(w->names, w->n, w->alloc);
    w->names[w->n] = xstrdup(name);
    uint64_t i = str_hash(name);
    while (w->slot[i & (WIDE_SLOTS - 1)] >= 0)
        i++;
    w->slot[i & (WIDE_SLOTS - 1)] = (int)w->n++;
}

int wide_load(struct db *db, struct diag *d)
{
    struct wide_columns *w = &db->wide;
    if (w->slot)
        return 0;
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(db->h, &rc,
                                   "SELECT name FROM pragma_table_info('result') "
                                   "WHERE type = 'REAL' ORDER BY cid");
    if (rc != SQLITE_OK)
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    w->slot = xmalloc(WIDE_SLOTS * sizeof(*w->slot));
    memset(w->slot, 0xff, WIDE_SLOTS * sizeof(*w->slot)); /* every slot -1 */
    int row = 0;
    while ((row = sql_step(st, &rc)) && w->n < WIDE_SLOTS / 2)
        wide_add(w, (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    if (row)
        return diag_error(d, "database '%s': more than %d metric columns in table result", db->path,
                          WIDE_SLOTS / 2);
    return 0;
}

void wide_release(struct wide_columns *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->names[i]);
    free(w->names);
    free(w->slot);
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
