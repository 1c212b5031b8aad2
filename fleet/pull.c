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

#include "../core/arena.h"
#include "../core/array.h"
#include "../core/xalloc.h"
#include "../query/compare.h"
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

/* What a read copies: every row of every table, or the rows of root whose ids cut selects
 * ($n parameters params[0..nparams)), the rows that hang off them (down the owners), the rows
 * they hang off (up to the root of the graph) and the rows of other tables that point at any of
 * those (a saved baseline's members); the tables outside (mounts, baselines) whole. */
struct cut {
    const struct graph_table *root; /* NULL: everything */
    const char *ids;                /* SELECT id ... of root's rows */
    const char *const *params;
    size_t nparams;
};

/* Whether t's rows hang off root's (t is root or below it). */
static int below(const struct graph_table *t, const struct graph_table *root)
{
    return t == root || (graph_owner(t) && below(graph_owner(t), root));
}

/* The table on root's chain of owners whose owner is t, NULL when t is not above root. */
static const struct graph_table *child_toward(const struct graph_table *t,
                                              const struct graph_table *root)
{
    for (const struct graph_table *x = root; graph_owner(x); x = graph_owner(x))
        if (graph_owner(x) == t)
            return x;
    return NULL;
}

/* The foreign key of t to a table below root, NULL when none. */
static const struct graph_fk *fk_below(const struct graph_table *t, const struct graph_table *root)
{
    for (size_t i = 0; i < GRAPH_MAX_FK && t->fk[i].column; i++)
        if (below(graph_find(t->fk[i].parent), root))
            return &t->fk[i];
    return NULL;
}

static int has_cut(const struct graph_table *t, const struct cut *cut)
{
    return cut->root &&
           (below(t, cut->root) || child_toward(t, cut->root) || fk_below(t, cut->root));
}

static void add_cut(struct buf *sql, const struct graph_table *t, const struct cut *cut);

/* Appends the SELECT of the ids of t's rows copied. */
static void add_ids(struct buf *sql, const struct graph_table *t, const struct cut *cut)
{
    if (t == cut->root) {
        buf_adds(sql, cut->ids);
        return;
    }
    buf_addf(sql, "SELECT id FROM %s WHERE ", t->name);
    add_cut(sql, t, cut);
}

/* Appends the condition on t's rows copied (has_cut's). */
static void add_cut(struct buf *sql, const struct graph_table *t, const struct cut *cut)
{
    const struct graph_table *child = child_toward(t, cut->root);
    const struct graph_fk *fk = fk_below(t, cut->root);
    if (t == cut->root || below(t, cut->root)) {
        buf_addf(sql, "%s IN (", t == cut->root ? "id" : t->owner);
        add_ids(sql, t == cut->root ? t : graph_owner(t), cut);
    } else if (child) {
        buf_addf(sql, "id IN (SELECT %s FROM %s WHERE ", child->owner, child->name);
        add_cut(sql, child, cut);
    } else {
        buf_addf(sql, "%s IN (", fk->column);
        add_ids(sql, graph_find(fk->parent), cut);
    }
    buf_adds(sql, ")");
}

/* Appends sql with SQLite's parameters (?) numbered as PostgreSQL's ($1, $2, ...), those in
 * quoted literals and names left; how many. */
static size_t add_pg_params(struct buf *out, const char *sql)
{
    size_t n = 0;
    char quote = 0;
    for (const char *p = sql; *p; p++) {
        if (quote && *p == quote)
            quote = 0;
        else if (!quote && (*p == '\'' || *p == '"'))
            quote = *p;
        if (!quote && *p == '?')
            buf_addf(out, "$%zu", ++n);
        else
            buf_addf(out, "%c", *p);
    }
    return n;
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
                      const struct cut *cut, struct diag *d)
{
    struct local_column *cols;
    struct buf select = BUF_INIT, insert = BUF_INIT, where = BUF_INIT;
    int rc = SQLITE_OK;
    size_t n = table_columns(db, &rc, t, &cols, &select, &insert), nparams = 0, copied = 0;
    if (has_cut(t, cut)) {
        add_cut(&where, t, cut);
        buf_adds(&select, " WHERE ");
        nparams = add_pg_params(&select, where.data);
    }
    const struct pairs_column *pc = pairs_column(t->name);
    sqlite3_stmt *st = sql_prepare(h, &rc, insert.data);
    int failed = 0;
    if (rc != SQLITE_OK)
        failed =
            diag_error(d, "cannot copy the server's table '%s': %s", t->name, sqlite3_errmsg(h));
    else if (!PQsendQueryParams(c, select.data, (int)nparams, NULL, nparams ? cut->params : NULL,
                                NULL, NULL, 0) ||
             !PQsetSingleRowMode(c))
        failed = pg_error(c, WHO, "cannot read the server's warehouse", d);
    PGresult *r;
    while ((r = PQgetResult(c))) {
        ExecStatusType status = PQresultStatus(r);
        if (!failed && status == PGRES_SINGLE_TUPLE &&
            (!pc || pairs_ok(db, &rc, pc, t->name, cols, n, r, d))) {
            bind_row(st, &rc, cols, n, r);
            sql_step(st, &rc);
            sql_release(st);
            copied++;
        }
        if (!failed && rc != SQLITE_OK) /* said before any other statement is reset */
            failed = diag_error(d, "cannot copy the server's table '%s': %s", t->name,
                                sqlite3_errmsg(h));
        else if (!failed && status != PGRES_SINGLE_TUPLE && status != PGRES_TUPLES_OK)
            failed = pg_error(c, WHO, "cannot read the server's warehouse", d);
        PQclear(r);
    }
    sqlite3_finalize(st);
    if (!failed && getenv("BENCHDB_DEBUG_PULL")) /* what a test counts (fleet_pushdown.py) */
        diag_note(d, "copied %zu rows of the server's table '%s'", copied, t->name);
    for (size_t i = 0; i < n; i++)
        free(cols[i].name);
    free(cols);
    buf_release(&select);
    buf_release(&insert);
    buf_release(&where);
    return failed;
}

/* Drops the local copy's indexes (not those of its keys and UNIQUE columns, which SQLite
 * keeps for them) and puts their CREATE statements in *made, to be run once the rows are in:
 * an index built over rows already there is sorted once, not updated row by row (a quarter of
 * a 100k-result copy's time was SQLite's index inserts). */
static void indexes_dropped(sqlite3 *h, int *rc, struct buf *made)
{
    struct buf drop = BUF_INIT;
    sqlite3_stmt *st = sql_prepare(h, rc,
                                   "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND "
                                   "sql IS NOT NULL ORDER BY rowid");
    while (sql_step(st, rc)) {
        buf_addf(&drop, "DROP INDEX \"%s\";", sql_text(st, 0));
        buf_addf(made, "%s;", sql_text(st, 1));
    }
    sql_finalize(st, rc);
    if (drop.len)
        sql_exec(h, rc, drop.data);
    buf_release(&drop);
}

static void ignore_line(void *ctx, enum diag_level level, const char *line)
{
    (void)ctx, (void)level, (void)line;
}

/* Whether every compared side of o has a result the selection finds on the server: 1, else 0
 * (the comparison fails then, and says so with the values and counts of the whole warehouse,
 * which the copy must then hold), 0 too when the server refuses the selection (a --where value
 * that the column's type cannot read, which SQLite compares and finds unequal). */
static int sides_found(PGconn *c, const struct compare_opts *o, struct arena *a, struct diag *d)
{
    if (!o->nvalues || pg_exec(c, "SAVEPOINT sides", WHO, "cannot read the server's warehouse", d))
        return 0;
    struct diag quiet = DIAG_INIT; /* query_compare names an unknown key */
    quiet.emit = ignore_line;
    int found = 1, failed = 0;
    for (size_t i = 0; found && !failed && i < o->nvalues; i++) {
        struct compare_opts side = *o;
        side.values = &o->values[i];
        side.nvalues = 1;
        side.keys = o->keys ? &o->keys[i] : NULL;
        struct buf ids = BUF_INIT, sql = BUF_INIT;
        const char **params = NULL;
        size_t nparams = 0;
        failed = query_read_ids_sql(&side, 0, a, &ids, &params, &nparams, &quiet);
        buf_adds(&sql, "SELECT EXISTS (");
        add_pg_params(&sql, ids.data);
        buf_adds(&sql, ")");
        PGresult *r =
            failed ? NULL : PQexecParams(c, sql.data, (int)nparams, NULL, params, NULL, NULL, 0);
        if (r && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
            found = !strcmp(PQgetvalue(r, 0, 0), "t");
        else
            failed = 1;
        PQclear(r);
        free(params);
        buf_release(&ids);
        buf_release(&sql);
    }
    PQclear(PQexec(c, failed ? "ROLLBACK TO SAVEPOINT sides" : "RELEASE SAVEPOINT sides"));
    return found && !failed;
}

/* The ids the SELECT ids (with its ? parameters) finds on the server, as an array literal
 * ("{1,2,3}") into out; 0, or -1 after a message. */
static int select_ids(PGconn *c, const char *ids, const char *const *params, size_t nparams,
                      struct buf *out, struct diag *d)
{
    struct buf sql = BUF_INIT;
    buf_adds(&sql, "SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM (");
    add_pg_params(&sql, ids);
    buf_adds(&sql, ") AS selected (id)");
    PGresult *r = PQexecParams(c, sql.data, (int)nparams, NULL, params, NULL, NULL, 0);
    int failed = 0;
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
        failed = pg_result_error(c, r, WHO, "cannot read the server's warehouse", d);
    else
        buf_adds(out, PQgetvalue(r, 0, 0));
    PQclear(r);
    buf_release(&sql);
    return failed;
}

/* Every table in one snapshot of the server (one repeatable-read transaction), into one local
 * transaction: with o, what its comparison reads when its every side has results; else the
 * runs in the dates when they are bounded; else everything. */
static int pull_all(PGconn *c, struct db *db, const struct time_range *dates,
                    const struct compare_opts *o, struct diag *d)
{
    /* The raw handle: the INSERTs are built from the schema's columns at run time, which
     * sql_prepare compiles on a handle (sql_cached keeps only statements whose text lives as
     * long as the connection), and a failure is read from it (sqlite3_errmsg). */
    sqlite3 *h = db_handle(db);
    if (pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", WHO,
                "cannot read the server's warehouse", d))
        return -1;
    struct cut cut = {NULL, NULL, NULL, 0};
    struct arena a = ARENA_INIT;
    struct buf ids = BUF_INIT, selected = BUF_INIT;
    const char **params = NULL, *array = NULL;
    size_t nparams = 0;
    int rc = SQLITE_OK, failed = 0;
    if (o && sides_found(c, o, &a, d)) {
        failed = query_read_ids_sql(o, 1, &a, &ids, &params, &nparams, d) ||
                 select_ids(c, ids.data, params, nparams, &selected, d);
        /* the ids found once, not the selection once a table: the server's result table has no
         * index on the keys (schema/pg/0003_read_indexes.sql), each table's rows are found
         * by result_id, the first column of their primary keys */
        array = selected.data;
        cut.root = graph_find("result");
        cut.ids = "SELECT unnest(?::bigint[])";
        cut.params = &array;
        cut.nparams = 1;
    } else if (dates && time_range_bounded(dates)) {
        buf_reset(&ids);
        buf_addf(&ids, "SELECT id FROM run WHERE started_at BETWEEN %lld AND %lld",
                 (long long)dates->since, (long long)dates->until);
        cut.root = graph_find("run");
        cut.ids = ids.data;
        cut.nparams = 0;
    }
    struct buf indexes = BUF_INIT;
    sql_exec(h, &rc, "BEGIN");
    indexes_dropped(h, &rc, &indexes);
    for (size_t i = 0; rc == SQLITE_OK && !failed && i < graph_n_tables; i++)
        if (!(graph_tables[i].flags & GRAPH_BYTES))
            failed = pull_table(c, db, h, &graph_tables[i], &cut, d);
    if (!failed && indexes.len)
        sql_exec(h, &rc, indexes.data);
    if (!failed)
        sql_exec(h, &rc, "COMMIT");
    buf_release(&indexes);
    if (!failed && rc != SQLITE_OK)
        failed = diag_error(d, "cannot copy the server's warehouse: %s", sqlite3_errmsg(h));
    PQclear(PQexec(c, "COMMIT"));
    free(params);
    buf_release(&ids);
    buf_release(&selected);
    arena_release(&a);
    return failed;
}

int fleet_open(const char *url, const struct time_range *dates, const struct compare_opts *o,
               struct db **out, struct diag *d)
{
    PGconn *c = pg_connect(url, 0, WHO, d);
    if (!c)
        return -1;
    struct db *db = NULL;
    int rc = db_open(":memory:", DB_CREATE, &db, d) || pull_all(c, db, dates, o, d) ? -1 : 0;
    PQfinish(c);
    if (rc)
        db_close(db);
    else
        *out = db;
    return rc;
}
