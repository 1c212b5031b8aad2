/* pull.c: reading the fleet's warehouse. The server's rows are copied into a private in-memory
 * SQLite warehouse of the current schema, which the read commands then query as they query a
 * local one: their SQL stays one dialect, and a report from the server is byte for byte the
 * report from a local warehouse holding the same rows (docs/fleet.md). The sources' stored
 * bytes (and the dictionaries they are compressed against) stay on the server: no read
 * command needs them. */
#include "fleet_private.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"

#define WHO "benchdb"

/* The tables read, in foreign-key order, and what stands in for a column not copied. */
static const char *const pull_tables[] = {
    "source_file", "mount",  "mount_option",  "run",      "result",          "tag",
    "histogram",   "series", "label_history", "baseline", "baseline_result",
};
static const struct skipped {
    const char *table, *column, *stand_in;
} skipped[] = {
    {"source_file", "raw", "NULL::bytea"},
    {"source_file", "raw_dict", "NULL::bigint"},
};

/* With a --since/--until range, the rows a read command may need: those of the runs started in
 * it, with what hangs off them (the commands' queries select within the range themselves). The
 * tables not listed are copied whole (mounts; baselines, which push does not send). Each
 * condition is before, the runs' subquery, after. */
static const struct cut {
    const char *table, *before, *after;
} cuts[] = {
    {"source_file", "id IN (SELECT source_id FROM run WHERE id IN ", ")"},
    {"run", "id IN ", ""},
    {"result", "run_id IN ", ""},
    {"tag", "result_id IN (SELECT id FROM result WHERE run_id IN ", ")"},
    {"histogram", "result_id IN (SELECT id FROM result WHERE run_id IN ", ")"},
    {"series", "result_id IN (SELECT id FROM result WHERE run_id IN ", ")"},
    {"label_history", "result_id IN (SELECT id FROM result WHERE run_id IN ", ")"},
};

/* Appends the WHERE clause of table's rows in range (nothing without a bounded range). */
static void add_cut(struct buf *select, const char *table, const struct time_range *dates)
{
    if (!dates || !time_range_bounded(dates))
        return;
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
        if (!strcmp(cuts[i].table, table))
            buf_addf(
                select, " WHERE %s(SELECT id FROM run WHERE started_at BETWEEN %lld AND %lld)%s",
                cuts[i].before, (long long)dates->since, (long long)dates->until, cuts[i].after);
}

/* A column of the local table: its name and declared type. */
struct local_column {
    char *name;
    char type; /* 'I'nteger, 'R'eal, 'T'ext, 'B'lob */
};

static const char *select_expr(const char *table, const char *column)
{
    for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
        if (!strcmp(skipped[i].table, table) && !strcmp(skipped[i].column, column))
            return skipped[i].stand_in;
    return column;
}

/* The columns of a table of the in-memory warehouse, with the server's SELECT and the local
 * INSERT of them. */
static size_t table_columns(sqlite3 *h, const char *table, struct local_column **cols,
                            struct buf *select, struct buf *insert)
{
    sqlite3_stmt *st;
    size_t n = 0;
    *cols = NULL;
    sqlite3_prepare_v2(h, "SELECT name, type FROM pragma_table_info(?) ORDER BY cid", -1, &st,
                       NULL);
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    struct buf names = BUF_INIT, params = BUF_INIT;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        *cols = xrealloc(*cols, (n + 1) * sizeof(**cols));
        (*cols)[n].name = xstrdup(name);
        (*cols)[n].type = ((const char *)sqlite3_column_text(st, 1))[0];
        buf_addf(select, "%s%s", n ? ", " : "SELECT ", select_expr(table, name));
        buf_addf(&names, "%s%s", n ? ", " : "", name);
        buf_addf(&params, "%s?", n ? ", " : "");
        n++;
    }
    sqlite3_finalize(st);
    buf_addf(select, " FROM %s", table);
    buf_addf(insert, "INSERT INTO %s (%s) VALUES (%s)", table, names.data, params.data);
    buf_release(&names);
    buf_release(&params);
    return n;
}

/* Binds the server's text of a value as the column's type. */
static void bind_value(sqlite3_stmt *st, int i, const struct local_column *col, const PGresult *r)
{
    if (PQgetisnull(r, 0, i)) {
        sqlite3_bind_null(st, i + 1);
        return;
    }
    const char *v = PQgetvalue(r, 0, i);
    if (col->type == 'I')
        sqlite3_bind_int64(st, i + 1, strtoll(v, NULL, 10));
    else if (col->type == 'R') /* the server sends the shortest digits that read back exactly */
        sqlite3_bind_double(st, i + 1, strtod(v, NULL));
    else
        sqlite3_bind_text(st, i + 1, v, PQgetlength(r, 0, i), SQLITE_TRANSIENT);
}

/* Streams one table's rows (in range) from the server into the local table (the server's ids
 * kept). */
static int pull_table(PGconn *c, sqlite3 *h, const char *table, const struct time_range *dates,
                      struct diag *d)
{
    struct local_column *cols;
    struct buf select = BUF_INIT, insert = BUF_INIT;
    size_t n = table_columns(h, table, &cols, &select, &insert);
    add_cut(&select, table, dates);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h, insert.data, -1, &st, NULL) == SQLITE_OK &&
                     PQsendQuery(c, select.data) && PQsetSingleRowMode(c)
                 ? 0
                 : -1;
    PGresult *r;
    while ((r = PQgetResult(c))) {
        if (rc == 0 && PQresultStatus(r) == PGRES_SINGLE_TUPLE) {
            for (size_t i = 0; i < n; i++)
                bind_value(st, (int)i, &cols[i], r);
            if (sqlite3_step(st) != SQLITE_DONE)
                rc = diag_error(d, "cannot copy the server's table '%s': %s", table,
                                sqlite3_errmsg(h));
            sqlite3_reset(st);
        } else if (rc == 0 && PQresultStatus(r) != PGRES_TUPLES_OK)
            rc = pg_error(c, WHO, "cannot read the server's warehouse", d);
        PQclear(r);
    }
    if (rc && !d->errors)
        rc = pg_error(c, WHO, "cannot read the server's warehouse", d);
    sqlite3_finalize(st);
    for (size_t i = 0; i < n; i++)
        free(cols[i].name);
    free(cols);
    buf_release(&select);
    buf_release(&insert);
    return rc;
}

/* Every table in one snapshot of the server (one repeatable-read transaction), into one local
 * transaction. */
static int pull_all(PGconn *c, struct db *db, const struct time_range *dates, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    if (pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", WHO,
                "cannot read the server's warehouse", d))
        return -1;
    int rc = sqlite3_exec(h, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < sizeof(pull_tables) / sizeof(pull_tables[0]); i++)
        rc = pull_table(c, h, pull_tables[i], dates, d);
    if (rc == 0 && sqlite3_exec(h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = diag_error(d, "cannot copy the server's warehouse: %s", sqlite3_errmsg(h));
    PQclear(PQexec(c, "COMMIT"));
    return rc;
}

int fleet_open(const char *url, const struct time_range *dates, struct db **out, struct diag *d)
{
    PGconn *c = pg_connect(url, 0, WHO, d);
    if (!c)
        return -1;
    struct db *db = NULL;
    int rc = db_open(":memory:", DB_CREATE, &db, d) || pull_all(c, db, dates, d) ? -1 : 0;
    PQfinish(c);
    if (rc)
        db_close(db);
    else
        *out = db;
    return rc;
}
