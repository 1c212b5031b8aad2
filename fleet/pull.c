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

/* The tables whose text column holds a JSON array of number pairs, as push sends them (the read
 * commands walk it with json_each, which fails on anything else). */
static const struct pairs_column {
    const char *table, *column, *pair;
} pairs_columns[] = {
    {"series", "points", "[t_ms, value]"},
    {"histogram", "bins", "[value_ns, count]"},
};

/* Whether text is a JSON array of pairs of numbers (json_each only once it is valid JSON). */
#define PAIRS_SQL                                                                                  \
    "SELECT CASE WHEN json_valid(?1) AND json_type(?1) = 'array' THEN NOT EXISTS (SELECT 1 FROM "  \
    "json_each(?1) j WHERE j.type != 'array' OR json_array_length(j.value) != 2 OR "               \
    "json_type(j.value, '$[0]') NOT IN ('integer', 'real') OR json_type(j.value, '$[1]') NOT "     \
    "IN ('integer', 'real')) ELSE 0 END"

static const struct pairs_column *pairs_column(const char *table)
{
    for (size_t i = 0; i < sizeof(pairs_columns) / sizeof(pairs_columns[0]); i++)
        if (!strcmp(pairs_columns[i].table, table))
            return &pairs_columns[i];
    return NULL;
}

/* 1 when the row r of a table of pairs (its result_id and metric first) holds pairs in column
 * i, else 0 with a warning: the row is left out. -1 when SQLite fails. */
static int pairs_ok(sqlite3_stmt *check, const struct pairs_column *pc, const char *table,
                    const struct local_column *cols, size_t n, const PGresult *r, struct diag *d)
{
    size_t i = 0;
    while (i < n && strcmp(cols[i].name, pc->column))
        i++;
    if (i == n || PQgetisnull(r, 0, (int)i))
        return 1;
    sqlite3_bind_text(check, 1, PQgetvalue(r, 0, (int)i), PQgetlength(r, 0, (int)i), SQLITE_STATIC);
    int step = sqlite3_step(check);
    int ok = step == SQLITE_ROW ? sqlite3_column_int(check, 0) : -1;
    sqlite3_reset(check);
    sqlite3_clear_bindings(check);
    if (ok == 0)
        diag_warn(d,
                  "the server's %s '%s' of result %s is not a JSON array of %s pairs: left "
                  "out",
                  table, PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 0), pc->pair);
    return ok;
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
    sqlite3_stmt *st = NULL, *check = NULL;
    const struct pairs_column *pc = pairs_column(table);
    int rc = sqlite3_prepare_v2(h, insert.data, -1, &st, NULL) == SQLITE_OK &&
                     (!pc || sqlite3_prepare_v2(h, PAIRS_SQL, -1, &check, NULL) == SQLITE_OK) &&
                     PQsendQuery(c, select.data) && PQsetSingleRowMode(c)
                 ? 0
                 : -1;
    if (rc && !d->errors && sqlite3_errcode(h) != SQLITE_OK)
        rc = diag_error(d, "cannot copy the server's table '%s': %s", table, sqlite3_errmsg(h));
    PGresult *r;
    while ((r = PQgetResult(c))) {
        int ok = rc == 0 && PQresultStatus(r) == PGRES_SINGLE_TUPLE && pc
                     ? pairs_ok(check, pc, table, cols, n, r, d)
                     : 1;
        if (ok < 0)
            rc = diag_error(d, "cannot copy the server's table '%s': %s", table, sqlite3_errmsg(h));
        if (rc == 0 && PQresultStatus(r) == PGRES_SINGLE_TUPLE) {
            if (!ok) { /* left out, said */
                PQclear(r);
                continue;
            }
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
    sqlite3_finalize(check);
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
