/* pull.c: reading the fleet's warehouse. The server's rows are copied into a private in-memory
 * SQLite warehouse of the current schema, which the read commands then query as they query a
 * local one: their SQL stays one dialect, and a report from the server is byte for byte the
 * report from a local warehouse holding the same rows (docs/fleet.md). The tables are those of
 * schema/graph.h, parents first, the server's ids kept. The sources' stored bytes (and the
 * dictionaries they are compressed against) stay on the server: no read command needs them. */
#include "fleet_private.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/xalloc.h"
#include "../schema/graph.h"
#include "../schema/sql.h"

#define WHO "benchdb"

/* What the server sends for a column of t, or a stand-in for one not pulled: the stored bytes,
 * and the foreign keys to the tables that hold them. */
static const char *select_expr(const struct graph_table *t, const char *column)
{
    const struct graph_fk *fk = graph_fk(t, column);
    const struct graph_table *parent = fk ? graph_find(fk->parent) : NULL;
    if (t->bytes && !strcmp(t->bytes, column))
        return "NULL::bytea";
    if (parent && (parent->flags & GRAPH_BYTES))
        return "NULL::bigint";
    return column;
}

/* Whether t's rows are cut by a --since/--until range (graph.h's range): the table of the
 * range, the tables whose rows hang off its rows (down the owners), and the table its rows
 * hang off. The other tables are copied whole (mounts; baselines, which push does not send). */
static int has_cut(const struct graph_table *t)
{
    const struct graph_table *owner = graph_owner(t);
    if (t->range || (owner && has_cut(owner)))
        return 1;
    for (size_t i = 0; i < graph_n_tables; i++)
        if (graph_tables[i].range && graph_owner(&graph_tables[i]) == t)
            return 1;
    return 0;
}

static void add_cut(struct buf *sql, const struct graph_table *t, const struct time_range *dates);

/* Appends the SELECT of the ids of t's rows in range. */
static void add_ids_in_range(struct buf *sql, const struct graph_table *t,
                             const struct time_range *dates)
{
    buf_addf(sql, "SELECT id FROM %s WHERE ", t->name);
    if (t->range)
        buf_addf(sql, "%s BETWEEN %lld AND %lld", t->range, (long long)dates->since,
                 (long long)dates->until);
    else
        add_cut(sql, t, dates);
}

/* Appends the condition on t's rows in range (has_cut's): the rows of the range's table whose
 * time is in it, the rows that hang off those, and the rows those hang off. */
static void add_cut(struct buf *sql, const struct graph_table *t, const struct time_range *dates)
{
    const struct graph_table *owner = graph_owner(t);
    if (t->range || (owner && has_cut(owner))) {
        buf_addf(sql, "%s IN (", t->range ? "id" : t->owner);
        add_ids_in_range(sql, t->range ? t : owner, dates);
        buf_adds(sql, ")");
    } else {
        const struct graph_table *ranged = graph_tables;
        while (!ranged->range || graph_owner(ranged) != t)
            ranged++;
        buf_addf(sql, "id IN (SELECT %s FROM %s WHERE ", ranged->owner, ranged->name);
        add_cut(sql, ranged, dates);
        buf_adds(sql, ")");
    }
}

/* A column of the local table: its name and declared type. */
struct local_column {
    char *name;
    char type; /* 'I'nteger, 'R'eal, 'T'ext, 'B'lob */
};

/* The columns of a table of the in-memory warehouse, with the server's SELECT and the local
 * INSERT of them; how many, 0 when *rc failed. */
static size_t table_columns(struct db *db, int *rc, const struct graph_table *t,
                            struct local_column **cols, struct buf *select, struct buf *insert)
{
    size_t n = 0;
    *cols = NULL;
    sqlite3_stmt *st =
        sql_cached(db, rc, "SELECT name, type FROM pragma_table_info(:table) ORDER BY cid");
    sql_bind_text(st, rc, ":table", t->name);
    struct buf names = BUF_INIT, params = BUF_INIT;
    while (sql_step(st, rc)) {
        const char *name = sql_text(st, 0);
        *cols = xrealloc(*cols, (n + 1) * sizeof(**cols));
        (*cols)[n].name = xstrdup(name);
        (*cols)[n].type = sql_text(st, 1)[0];
        buf_addf(select, "%s%s", n ? ", " : "SELECT ", select_expr(t, name));
        buf_addf(&names, "%s%s", n ? ", " : "", name);
        buf_addf(&params, "%s?", n ? ", " : "");
        n++;
    }
    sql_release(st);
    buf_addf(select, " FROM %s", t->name);
    buf_addf(insert, "INSERT INTO %s (%s) VALUES (%s)", t->name, names.data, params.data);
    buf_release(&names);
    buf_release(&params);
    return n;
}

/* sqlite3_bind_double in the toolkit's manner (sql.h has none): unless *rc failed, its
 * failure kept in *rc. */
static void bind_double_at(sqlite3_stmt *st, int *rc, int i, double v)
{
    if (*rc == SQLITE_OK)
        *rc = sqlite3_bind_double(st, i, v);
}

/* Binds the server's text of each value of row r as its column's type. */
static void bind_row(sqlite3_stmt *st, int *rc, const struct local_column *cols, size_t n,
                     const PGresult *r)
{
    for (size_t k = 0; k < n; k++) {
        int i = (int)k;
        const char *v = PQgetisnull(r, 0, i) ? NULL : PQgetvalue(r, 0, i);
        if (v && cols[k].type == 'I')
            sql_bind_int_at(st, rc, i + 1, strtoll(v, NULL, 10));
        else if (v && cols[k].type == 'R') /* the server sends the shortest digits that read back */
            bind_double_at(st, rc, i + 1, strtod(v, NULL));
        else /* text (the server's has no NUL), or NULL */
            sql_bind_text_at(st, rc, i + 1, v);
    }
}

/* The tables whose text column holds a JSON array of number pairs, as push sends them (the read
 * commands walk it with json_each, which fails on anything else). */
static const struct pairs_column {
    const char *table, *column, *pair;
} pairs_columns[] = {
    {"series", "points", "[t_ms, value]"},
    {"histogram", "bins", "[value_ns, count]"},
};

/* Whether :text is a JSON array of pairs of numbers (json_each only once it is valid JSON). */
static const char pairs_sql[] =
    "SELECT CASE WHEN json_valid(:text) AND json_type(:text) = 'array' THEN NOT EXISTS (SELECT 1 "
    "FROM json_each(:text) j WHERE j.type != 'array' OR json_array_length(j.value) != 2 OR "
    "json_type(j.value, '$[0]') NOT IN ('integer', 'real') OR json_type(j.value, '$[1]') NOT "
    "IN ('integer', 'real')) ELSE 0 END";

static const struct pairs_column *pairs_column(const char *table)
{
    for (size_t i = 0; i < ARRAY_SIZE(pairs_columns); i++)
        if (!strcmp(pairs_columns[i].table, table))
            return &pairs_columns[i];
    return NULL;
}

/* 1 when the row r of a table of pairs (its result_id and metric first) holds pairs in its
 * column, else 0 with a warning: the row is left out. 0 too once *rc failed. */
static int pairs_ok(struct db *db, int *rc, const struct pairs_column *pc, const char *table,
                    const struct local_column *cols, size_t n, const PGresult *r, struct diag *d)
{
    size_t i = 0;
    while (i < n && strcmp(cols[i].name, pc->column))
        i++;
    if (i == n || PQgetisnull(r, 0, (int)i))
        return 1;
    sqlite3_stmt *check = sql_cached(db, rc, pairs_sql);
    sql_bind_text_borrowed(check, rc, ":text", PQgetvalue(r, 0, (int)i),
                           (size_t)PQgetlength(r, 0, (int)i));
    int ok = sql_step(check, rc) && sqlite3_column_int(check, 0);
    sql_release(check);
    if (!ok && *rc == SQLITE_OK)
        diag_warn(d,
                  "the server's %s '%s' of result %s is not a JSON array of %s pairs: left "
                  "out",
                  table, PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 0), pc->pair);
    return ok;
}

/* Streams one table's rows (in range) from the server into the local table (the server's ids
 * kept). h is db's handle. */
static int pull_table(PGconn *c, struct db *db, sqlite3 *h, const struct graph_table *t,
                      const struct time_range *dates, struct diag *d)
{
    struct local_column *cols;
    struct buf select = BUF_INIT, insert = BUF_INIT;
    int rc = SQLITE_OK;
    size_t n = table_columns(db, &rc, t, &cols, &select, &insert);
    if (dates && time_range_bounded(dates) && has_cut(t)) {
        buf_adds(&select, " WHERE ");
        add_cut(&select, t, dates);
    }
    const struct pairs_column *pc = pairs_column(t->name);
    sqlite3_stmt *st = sql_prepare(h, &rc, insert.data);
    int failed = 0;
    if (rc != SQLITE_OK)
        failed =
            diag_error(d, "cannot copy the server's table '%s': %s", t->name, sqlite3_errmsg(h));
    else if (!PQsendQuery(c, select.data) || !PQsetSingleRowMode(c))
        failed = pg_error(c, WHO, "cannot read the server's warehouse", d);
    PGresult *r;
    while ((r = PQgetResult(c))) {
        ExecStatusType status = PQresultStatus(r);
        if (!failed && status == PGRES_SINGLE_TUPLE &&
            (!pc || pairs_ok(db, &rc, pc, t->name, cols, n, r, d))) {
            bind_row(st, &rc, cols, n, r);
            sql_step(st, &rc);
            sql_release(st);
        }
        if (!failed && rc != SQLITE_OK) /* said before any other statement is reset */
            failed = diag_error(d, "cannot copy the server's table '%s': %s", t->name,
                                sqlite3_errmsg(h));
        else if (!failed && status != PGRES_SINGLE_TUPLE && status != PGRES_TUPLES_OK)
            failed = pg_error(c, WHO, "cannot read the server's warehouse", d);
        PQclear(r);
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < n; i++)
        free(cols[i].name);
    free(cols);
    buf_release(&select);
    buf_release(&insert);
    return failed;
}

/* Every table in one snapshot of the server (one repeatable-read transaction), into one local
 * transaction. */
static int pull_all(PGconn *c, struct db *db, const struct time_range *dates, struct diag *d)
{
    /* The raw handle: the INSERTs are built from the schema's columns at run time, which
     * sql_prepare compiles on a handle (sql_cached keeps only statements whose text lives as
     * long as the connection), and a failure is read from it (sqlite3_errmsg). */
    sqlite3 *h = db_handle(db);
    if (pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", WHO,
                "cannot read the server's warehouse", d))
        return -1;
    int rc = SQLITE_OK, failed = 0;
    sql_exec(h, &rc, "BEGIN");
    for (size_t i = 0; rc == SQLITE_OK && !failed && i < graph_n_tables; i++)
        if (!(graph_tables[i].flags & GRAPH_BYTES))
            failed = pull_table(c, db, h, &graph_tables[i], dates, d);
    if (!failed)
        sql_exec(h, &rc, "COMMIT");
    if (!failed && rc != SQLITE_OK)
        failed = diag_error(d, "cannot copy the server's warehouse: %s", sqlite3_errmsg(h));
    PQclear(PQexec(c, "COMMIT"));
    return failed;
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
