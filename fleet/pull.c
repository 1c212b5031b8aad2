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
#include "../query/side_expr.h"
#include "../schema/graph.h"
#include "../schema/sql.h"

#define WHO "benchdb"

/* What a read copies: every row of every table, or the rows of root whose ids cut selects (its
 * ? parameters params[0..nparams), add_pg_literals), the rows that hang off them (down the
 * owners), the rows they hang off (up to the root of the graph) and the rows of other tables
 * that point at any of those (a saved baseline's members); the tables outside (mounts,
 * baselines) whole. */
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

/* Appends sql with SQLite's parameters (?) replaced by params[0..nparams) as quoted literals
 * (COPY takes no parameters; a literal is of unknown type until its context types it, as a
 * parameter sent without a type is), those in quoted literals and names left. 0, or -1 after
 * a message when libpq cannot quote one or sql has more parameters. */
static int add_pg_literals(PGconn *c, struct buf *out, const char *sql, const char *const *params,
                           size_t nparams, struct diag *d)
{
    size_t n = 0;
    char quote = 0;
    for (const char *p = sql; *p; p++) {
        if (quote && *p == quote)
            quote = 0;
        else if (!quote && (*p == '\'' || *p == '"'))
            quote = *p;
        if (quote || *p != '?') {
            buf_addc(out, *p);
            continue;
        }
        if (n == nparams)
            return diag_error_path(d, WHO,
                                   "cannot read the server's warehouse: the selection "
                                   "has more parameters than values");
        char *literal = PQescapeLiteral(c, params[n], strlen(params[n]));
        if (!literal)
            return pg_error(c, WHO, "cannot read the server's warehouse", d);
        buf_adds(out, literal);
        PQfreemem(literal);
        n++;
    }
    return 0;
}

/* The tables whose text column holds a JSON array of number pairs, as push sends them (the read
 * commands walk it with json_each, which fails on anything else). */
static const struct pairs_column {
    const char *table, *column, *pair;
} pairs_columns[] = {
    {"series", "points", "[t_ms, value]"},
    {"histogram", "bins", "[value_ns, count]"},
};

static const struct pairs_column *pairs_column(const char *table)
{
    for (size_t i = 0; i < ARRAY_SIZE(pairs_columns); i++)
        if (!strcmp(pairs_columns[i].table, table))
            return &pairs_columns[i];
    return NULL;
}

/* A column of the local table: its name and declared type. */
struct local_column {
    char *name;
    char type; /* 'I'nteger, 'R'eal, 'T'ext, 'B'lob */
};

/* A local table filled from the columns first.. of each row the server sends. */
struct target {
    const struct graph_table *t;
    struct local_column *cols;
    size_t n, first;
    char **omitted; /* the columns left out (left_out) */
    size_t nomitted, aomitted;
    sqlite3_stmt *insert;
    const struct pairs_column *pc;
    /* joined: the rows of several tables come in one, a run's and a source's once for each of
     * their results: the row of the same id as the row before is skipped, any other stored
     * unless its id is there already */
    int joined, has_last;
    int64_t last;
    size_t copied;
};

/* What the server sends for a column of t (alias.column), as the binary form store() reads
 * for the local type, or a stand-in for one not pulled: the stored bytes, and the foreign keys
 * to the tables that hold them. */
static void add_select_expr(struct buf *select, const struct graph_table *t, const char *alias,
                            const struct local_column *col)
{
    const struct graph_fk *fk = graph_fk(t, col->name);
    const struct graph_table *parent = fk ? graph_find(fk->parent) : NULL;
    if (t->bytes && !strcmp(t->bytes, col->name))
        buf_adds(select, "NULL::bytea");
    else if (parent && (parent->flags & GRAPH_BYTES))
        buf_adds(select, "NULL::bigint");
    else
        buf_addf(select, "%s.%s::%s", alias, col->name,
                 col->type == 'I'   ? "bigint"
                 : col->type == 'R' ? "float8"
                 : col->type == 'B' ? "bytea"
                                    : "text");
}

/* Whether a comparison o leaves column name (of type type) of t out of its copy: a metric of
 * a result it does not read (query_reads_metric), by far most of a result row's bytes. */
static int left_out(const struct compare_opts *o, const struct graph_table *t, const char *name,
                    char type)
{
    return o && type == 'R' && !strcmp(t->name, "result") && !query_reads_metric(o, name);
}

/* The columns of t in the in-memory warehouse into tg (they come at column first of the
 * server's rows), but those a comparison o leaves out (NULL there; o NULL: none), their SELECT
 * expressions (alias names t there) appended to the list select (", " between them), and the
 * local INSERT prepared on h. */
static void target_open(struct db *db, sqlite3 *h, int *rc, struct target *tg,
                        const struct graph_table *t, const char *alias, size_t first,
                        const struct compare_opts *o, struct buf *select)
{
    *tg = (struct target){.t = t, .first = first, .pc = pairs_column(t->name), .joined = o != NULL};
    sqlite3_stmt *st =
        sql_cached(db, rc, "SELECT name, type FROM pragma_table_info(:table) ORDER BY cid");
    sql_bind_text(st, rc, ":table", t->name);
    struct buf names = BUF_INIT, params = BUF_INIT, insert = BUF_INIT;
    while (sql_step(st, rc)) {
        if (left_out(o, t, sql_text(st, 0), sql_text(st, 1)[0])) {
            ALLOC_GROW(tg->omitted, tg->nomitted, tg->aomitted);
            tg->omitted[tg->nomitted++] = xstrdup(sql_text(st, 0));
            continue;
        }
        tg->cols = xrealloc(tg->cols, (tg->n + 1) * sizeof(*tg->cols));
        struct local_column *col = &tg->cols[tg->n];
        col->name = xstrdup(sql_text(st, 0));
        col->type = sql_text(st, 1)[0];
        buf_adds(select, select->len ? ", " : "");
        add_select_expr(select, t, alias, col);
        buf_addf(&names, "%s%s", tg->n ? ", " : "", col->name);
        buf_addf(&params, "%s?", tg->n ? ", " : "");
        tg->n++;
    }
    sql_release(st);
    buf_addf(&insert, "INSERT INTO %s (%s) VALUES (%s)%s", t->name, names.data, params.data,
             tg->joined ? " ON CONFLICT (id) DO NOTHING" : "");
    tg->insert = sql_prepare(h, rc, insert.data);
    buf_release(&names);
    buf_release(&params);
    buf_release(&insert);
}

static void names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void target_close(struct target *tg)
{
    sqlite3_finalize(tg->insert);
    for (size_t i = 0; i < tg->n; i++)
        free(tg->cols[i].name);
    free(tg->cols);
    names_free(tg->omitted, tg->nomitted);
}

/* The result columns a comparison's copy left out: a statement that reads one is refused
 * ("access to result.iops_max is prohibited"), so that a read command that comes to read a
 * metric query_reads_metric does not name fails on every server, in the tests first, rather
 * than reading NULLs where the local warehouse has values. */
struct guard {
    char **columns;
    size_t n;
};

static int guard_has(const struct guard *g, const char *column)
{
    for (size_t i = 0; column && i < g->n; i++)
        if (!strcmp(g->columns[i], column))
            return 1;
    return 0;
}

static int guard_read(void *ctx, int action, const char *table, const char *column,
                      const char *schema, const char *trigger)
{
    (void)schema, (void)trigger;
    return action == SQLITE_READ && table && !strcmp(table, "result") && guard_has(ctx, column)
               ? SQLITE_DENY
               : SQLITE_OK;
}

/* benchdb_left_out(COLUMN): whether the copy left result's COLUMN out. It is there to own the
 * guard: SQLite frees a function's data when the connection closes, and so the guard lives as
 * long as the copy it guards. */
static void left_out_sql(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc; /* registered with one */
    sqlite3_result_int(
        ctx, guard_has(sqlite3_user_data(ctx), (const char *)sqlite3_value_text(argv[0])));
}

static void guard_free(void *ctx)
{
    struct guard *g = ctx;
    names_free(g->columns, g->n);
    free(g);
}

/* Guards h against reading the columns of *left (taken: *left is emptied). */
static void guard_copy(sqlite3 *h, int *rc, struct guard *left)
{
    if (*rc != SQLITE_OK || !left->n)
        return;
    struct guard *g = xmalloc(sizeof(*g));
    *g = *left;
    *left = (struct guard){NULL, 0};
    /* on failure SQLite has called guard_free already */
    *rc = sqlite3_create_function_v2(h, "benchdb_left_out", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                     g, left_out_sql, NULL, NULL, guard_free);
    if (*rc == SQLITE_OK)
        *rc = sqlite3_set_authorizer(h, guard_read, g);
}

/* Binds field f (the binary form of its column's type, add_select_expr's cast) to parameter i
 * of st, borrowed until st is reset; unless *rc failed, its failure kept in *rc. */
static void bind_field(sqlite3_stmt *st, int *rc, int i, char type, const struct pg_field *f)
{
    if (*rc != SQLITE_OK)
        return;
    if (!f->data)
        *rc = sqlite3_bind_null(st, i);
    else if ((type == 'I' && f->len != 8) || (type == 'R' && f->len != 8))
        *rc = SQLITE_MISMATCH; /* not the cast's binary form: a server of another schema */
    else if (type == 'I')
        *rc = sqlite3_bind_int64(st, i, pg_field_int(f));
    else if (type == 'R')
        *rc = sqlite3_bind_double(st, i, pg_field_float8(f));
    else if (type == 'B')
        *rc = sqlite3_bind_blob(st, i, f->data, f->len, SQLITE_STATIC);
    else /* text (the server's has no NUL) */
        *rc = sqlite3_bind_text(st, i, f->data, f->len, SQLITE_STATIC);
}

/* Whether :text is a JSON array of pairs of numbers (json_each only once it is valid JSON). */
static const char pairs_sql[] =
    "SELECT CASE WHEN json_valid(:text) AND json_type(:text) = 'array' THEN NOT EXISTS (SELECT 1 "
    "FROM json_each(:text) j WHERE j.type != 'array' OR json_array_length(j.value) != 2 OR "
    "json_type(j.value, '$[0]') NOT IN ('integer', 'real') OR json_type(j.value, '$[1]') NOT "
    "IN ('integer', 'real')) ELSE 0 END";

/* 1 when the row f of a table of pairs (its result_id and metric first) holds pairs in its
 * column, else 0 with a warning: the row is left out. 0 too once *rc failed. */
static int pairs_ok(struct db *db, int *rc, const struct target *tg, const struct pg_field *f,
                    struct diag *d)
{
    size_t i = 0;
    while (i < tg->n && strcmp(tg->cols[i].name, tg->pc->column))
        i++;
    if (i == tg->n || !f[i].data)
        return 1;
    sqlite3_stmt *check = sql_cached(db, rc, pairs_sql);
    sql_bind_text_borrowed(check, rc, ":text", f[i].data, (size_t)f[i].len);
    int ok = sql_step(check, rc) && sqlite3_column_int(check, 0);
    sql_release(check);
    if (!ok && *rc == SQLITE_OK)
        diag_warn(d,
                  "the server's %s '%.*s' of result %lld is not a JSON array of %s pairs: left "
                  "out",
                  tg->t->name, f[1].data ? f[1].len : 0, f[1].data ? f[1].data : "",
                  (long long)pg_field_int(&f[0]), tg->pc->pair);
    return ok;
}

/* What a pull fills: the in-memory warehouse, the tables a row of the server's goes to, and
 * for a comparison's rows (pull_compared) the sides found and the results copied. */
struct pull {
    struct db *db;
    sqlite3 *h;
    int rc;
    struct diag *d;
    struct target *targets;
    size_t ntargets;
    char *found; /* a side's '1' once a result of it came */
    size_t nsides;
    int64_t *results;
    size_t nresults, aresults;
    struct guard left; /* the result columns the comparison's copy left out */
};

/* Stores the row f of the server's into tg; 0, or -1 after a message. */
static int store(struct pull *p, struct target *tg, const struct pg_field *row)
{
    const struct pg_field *f = row + tg->first;
    if (tg->joined) {
        int64_t id = pg_field_int(&f[0]);
        if (tg->has_last && id == tg->last)
            return 0;
        tg->has_last = 1, tg->last = id;
    }
    if (!tg->pc || pairs_ok(p->db, &p->rc, tg, f, p->d)) {
        for (size_t k = 0; k < tg->n; k++)
            bind_field(tg->insert, &p->rc, (int)k + 1, tg->cols[k].type, &f[k]);
        sql_step(tg->insert, &p->rc);
        sqlite3_reset(tg->insert);
        if (p->rc == SQLITE_OK && sqlite3_changes(p->h)) {
            tg->copied++;
            if (tg->joined && !strcmp(tg->t->name, "result")) {
                ALLOC_GROW(p->results, p->nresults, p->aresults);
                p->results[p->nresults++] = pg_field_int(&f[0]);
            }
        }
    }
    if (p->rc != SQLITE_OK) /* bind_field's mismatch is no failure of SQLite's */
        return diag_error(p->d, "cannot copy the server's table '%s': %s", tg->t->name,
                          p->rc == SQLITE_MISMATCH
                              ? "a column not in the binary form of its type here (a server "
                                "of another schema?)"
                              : sqlite3_errmsg(p->h));
    return 0;
}

static int store_row(void *ctx, const struct pg_field *row)
{
    struct pull *p = ctx;
    for (size_t i = 0; i < p->ntargets; i++)
        if (store(p, &p->targets[i], row))
            return -1;
    return 0;
}

/* A comparison's row: the sides it meets first (query_read_rows_sql's found), then the
 * tables'. */
static int store_compared(void *ctx, const struct pg_field *row)
{
    struct pull *p = ctx;
    for (int i = 0; row[0].data && i < row[0].len && (size_t)i < p->nsides; i++)
        if (row[0].data[i] == '1')
            p->found[i] = '1';
    return store_row(ctx, row);
}

static void note_copied(const struct pull *p, const struct target *tg)
{
    if (getenv("BENCHDB_DEBUG_PULL")) /* what a test counts (fleet_pushdown.py) */
        diag_note(p->d, "copied %zu rows of the server's table '%s'", tg->copied, tg->t->name);
}

/* Copies one table's rows (in range) from the server into the local table (the server's ids
 * kept). */
static int pull_table(PGconn *c, struct pull *p, const struct graph_table *t, const struct cut *cut)
{
    struct target tg;
    struct buf columns = BUF_INIT, select = BUF_INIT, where = BUF_INIT;
    target_open(p->db, p->h, &p->rc, &tg, t, t->name, 0, NULL, &columns);
    buf_addf(&select, "SELECT %s FROM %s", columns.data, t->name);
    int failed = 0;
    if (has_cut(t, cut)) {
        add_cut(&where, t, cut);
        buf_adds(&select, " WHERE ");
        failed = add_pg_literals(c, &select, where.data, cut->params, cut->nparams, p->d);
    }
    if (!failed && p->rc != SQLITE_OK)
        failed = diag_error(p->d, "cannot copy the server's table '%s': %s", t->name,
                            sqlite3_errmsg(p->h));
    p->targets = &tg;
    p->ntargets = 1;
    if (!failed)
        failed = pg_copy_out(c, select.data, tg.n, store_row, p, WHO,
                             "cannot read the server's warehouse", p->d);
    if (!failed)
        note_copied(p, &tg);
    target_close(&tg);
    buf_release(&columns);
    buf_release(&select);
    buf_release(&where);
    return failed;
}

/* Drops the local copy's indexes (not those of its keys and UNIQUE columns, which SQLite
 * keeps for them) and puts their CREATE statements in *made, to be run once the rows are in
 * (pull_all): an index built over rows already there is sorted once, not updated row by row
 * (a quarter of a 100k-result copy's time was SQLite's index inserts). */
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

/* The tables a comparison's rows fill at once, and their names in its SELECT. */
static const char *const joined[][2] = {{"source_file", "s"}, {"run", "run"}, {"result", "r"}};

static int is_joined(const struct graph_table *t)
{
    for (size_t i = 0; i < ARRAY_SIZE(joined); i++)
        if (!strcmp(joined[i][0], t->name))
            return 1;
    return 0;
}

/* Whether the server finds the results of o through its index on their storage class
 * (schema/pg/0007): every side a class, none a saved baseline (an OR with a subquery, which
 * no index serves). */
static int selected_by_class(const struct compare_opts *o)
{
    const char *param;
    const char *column = query_key_expr(o->by, &param);
    if (o->keys || !column || strcmp(column, "r.storage_class"))
        return 0;
    for (size_t i = 0; i < o->nvalues; i++)
        if (side_baseline(o->values[i]))
            return 0;
    return 1;
}

/* Has the server read a selection its index serves in one process: at a million results with
 * a tenth compared, as fast as with its two parallel workers (0.94-1.04 s against 0.94-1.12 s,
 * EXPLAIN ANALYZE) and with a third less CPU a report (bench/RESULTS.md); and join each result
 * to its run and source by their primary keys rather than hash the results (the planner's
 * choice): 0.77 -> 0.52 s, its first row after 6 ms instead of 210 (the hash built first, in 8
 * batches spilled to disk), and the rows in the order of the result table, which is that of
 * the ids, so that the copy's B-trees are filled at their end. A selection that scans all
 * results keeps the planner's plan. 0, or -1 after a message. */
static int read_serially(PGconn *c, const struct compare_opts *o, struct diag *d)
{
    return selected_by_class(o) ? pg_exec(c,
                                          "SET LOCAL max_parallel_workers_per_gather = 0; "
                                          "SET LOCAL enable_hashjoin = off; "
                                          "SET LOCAL enable_mergejoin = off",
                                          WHO, "cannot read the server's warehouse", d)
                                : 0;
}

/* Copies the results the comparison o reads (query_read_rows_sql, run on the server: one scan
 * of the fleet, no round trip of ids) with their runs and sources, when every side of o has
 * results there; their ids into p->results. 1 then; else 0 with nothing copied: a side without
 * results (the comparison fails then, and says so with the values and counts of the whole
 * warehouse, which the copy must then hold), or a selection the server refuses (a --where value
 * that the column's type cannot read, which SQLite compares and finds unequal). */
static int pull_compared(PGconn *c, struct pull *p, const struct compare_opts *o, struct arena *a)
{
    if (!o->nvalues ||
        pg_exec(c, "SAVEPOINT sides", WHO, "cannot read the server's warehouse", p->d))
        return 0;
    sql_exec(p->h, &p->rc, "SAVEPOINT compared");
    struct diag quiet = DIAG_INIT; /* query_compare names an unknown key */
    quiet.emit = ignore_line;
    struct diag *d = p->d;
    p->d = &quiet;
    struct target tg[ARRAY_SIZE(joined)];
    struct buf columns = BUF_INIT, sql = BUF_INIT, select = BUF_INIT;
    size_t ncolumns = 0;
    for (size_t i = 0; i < ARRAY_SIZE(joined); i++) {
        target_open(p->db, p->h, &p->rc, &tg[i], graph_find(joined[i][0]), joined[i][1],
                    1 + ncolumns, o, &columns);
        ncolumns += tg[i].n;
    }
    const char **params = NULL;
    size_t nparams = 0;
    p->found = xcalloc(o->nvalues, 1);
    p->nsides = o->nvalues;
    p->targets = tg;
    p->ntargets = ARRAY_SIZE(tg);
    int failed = p->rc != SQLITE_OK ||
                 query_read_rows_sql(o, columns.data, a, &sql, &params, &nparams, &quiet) ||
                 add_pg_literals(c, &select, sql.data, params, nparams, &quiet) ||
                 read_serially(c, o, &quiet) ||
                 pg_copy_out(c, select.data, 1 + ncolumns, store_compared, p, WHO,
                             "cannot read the server's warehouse", &quiet);
    int found = !failed && memchr(p->found, 0, o->nvalues) == NULL;
    p->d = d;
    PQclear(PQexec(c, failed ? "ROLLBACK TO SAVEPOINT sides" : "RELEASE SAVEPOINT sides"));
    if (!found) {
        p->rc = SQLITE_OK; /* a local failure shows again in the copy of everything */
        sql_exec(p->h, &p->rc, "ROLLBACK TO compared");
        p->nresults = 0;
    }
    for (size_t i = 0; i < ARRAY_SIZE(joined); i++) {
        if (found && tg[i].nomitted) {
            p->left = (struct guard){tg[i].omitted, tg[i].nomitted};
            tg[i].omitted = NULL, tg[i].nomitted = 0;
        }
        if (found)
            note_copied(p, &tg[i]);
        target_close(&tg[i]);
    }
    free(params);
    free(p->found);
    buf_release(&columns);
    buf_release(&sql);
    buf_release(&select);
    return found;
}

/* The ids (in any order) as the runs of consecutive ones, two array literals of their firsts
 * and lasts into lo and hi: "{1,7}" and "{5,7}" for 1-5 and 7. */
static void add_id_runs(struct buf *lo, struct buf *hi, const int64_t *ids, size_t n)
{
    buf_adds(lo, "{");
    buf_adds(hi, "{");
    for (size_t i = 0; i < n; i++) {
        size_t last = i;
        while (last + 1 < n && ids[last] < INT64_MAX && ids[last + 1] == ids[last] + 1)
            last++;
        buf_adds(lo, i ? "," : "");
        buf_add_int(lo, ids[i]);
        buf_adds(hi, i ? "," : "");
        buf_add_int(hi, ids[last]);
        i = last;
    }
    buf_adds(lo, "}");
    buf_adds(hi, "}");
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
    struct pull p = {.db = db, .h = db_handle(db), .rc = SQLITE_OK, .d = d};
    /* no JIT (PostgreSQL 11 and later): a comparison's one scan of a fleet of a million
     * results costs enough for the planner to compile its expressions, 0.9 s of its 2.6 s
     * (EXPLAIN ANALYZE, bench/RESULTS.md), and runs once */
    if (pg_exec(c,
                PQserverVersion(c) >= 110000
                    ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL jit = off"
                    : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                WHO, "cannot read the server's warehouse", d))
        return -1;
    struct cut cut = {NULL, NULL, NULL, 0};
    struct arena a = ARENA_INIT;
    struct buf ids = BUF_INIT, lasts = BUF_INIT, indexes = BUF_INIT;
    const char *runs[2] = {NULL, NULL};
    int failed = 0, compared = 0;
    /* The copy's foreign keys and CHECKs are not checked again (PRAGMAs that must come before
     * BEGIN): its rows come from one snapshot of a server whose tables hold the same keys and
     * CHECKs (schema/pg; the keys checked there or by a push's own construction, push.c), each
     * of a comparison's results with its run and source in the same row; checking them here
     * was 0.42 of the reader's 7.87 billion instructions at 100,000 results (callgrind). */
    sql_exec(p.h, &p.rc, "PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON; BEGIN");
    indexes_dropped(p.h, &p.rc, &indexes);
    if (p.rc == SQLITE_OK && o && pull_compared(c, &p, o, &a)) {
        /* the tables below the results by their ids: each table's rows are found by
         * result_id, the first column of their primary keys. The ids go as their runs: a
         * class's results are mostly imported together, and the server parsed the list of
         * 100,000 ids anew for each of five tables (0.29 s against 0.11 s by psql for one
         * run of them) */
        compared = 1;
        add_id_runs(&ids, &lasts, p.results, p.nresults);
        runs[0] = ids.data, runs[1] = lasts.data;
        cut.root = graph_find("result");
        cut.ids = "SELECT generate_series(lo, hi) FROM unnest(?::bigint[], ?::bigint[]) AS "
                  "ids(lo, hi)";
        cut.params = runs;
        cut.nparams = 2;
    } else if (dates && time_range_bounded(dates)) {
        buf_addf(&ids, "SELECT id FROM run WHERE started_at BETWEEN %lld AND %lld",
                 (long long)dates->since, (long long)dates->until);
        cut.root = graph_find("run");
        cut.ids = ids.data;
    }
    for (size_t i = 0; p.rc == SQLITE_OK && !failed && i < graph_n_tables; i++) {
        const struct graph_table *t = &graph_tables[i];
        if (!(t->flags & GRAPH_BYTES) && !(compared && is_joined(t)))
            failed = pull_table(c, &p, t, &cut);
    }
    /* A comparison's copy goes without them: it holds only what the comparison reads, which
     * its statements read whole, and building them cost 1.6 of the reader's 9.9 billion
     * instructions at 100,000 results, for a report no faster (callgrind); a statement
     * that would want one has SQLite build it (automatic indexes). */
    if (!failed && indexes.len && !compared)
        sql_exec(p.h, &p.rc, indexes.data);
    if (!failed)
        sql_exec(p.h, &p.rc,
                 "COMMIT; PRAGMA foreign_keys = ON; PRAGMA ignore_check_constraints = OFF");
    buf_release(&indexes);
    const char *into = getenv("BENCHDB_DEBUG_PULL_INTO"); /* the copy, for a test to read */
    if (!failed && into) {
        char *vacuum = sqlite3_mprintf("VACUUM INTO %Q", into);
        sql_exec(p.h, &p.rc, vacuum);
        sqlite3_free(vacuum);
    }
    if (!failed)
        guard_copy(p.h, &p.rc, &p.left);
    if (!failed && p.rc != SQLITE_OK)
        failed = diag_error(d, "cannot copy the server's warehouse: %s", sqlite3_errmsg(p.h));
    PQclear(PQexec(c, "COMMIT"));
    names_free(p.left.columns, p.left.n);
    free(p.results);
    buf_release(&ids);
    buf_release(&lasts);
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
