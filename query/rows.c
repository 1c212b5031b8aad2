/* rows.c: benchdb runs and benchdb query, and the report's appendix: a statement's rows as a
 * report table, streamed to a sink through the table renderers (report/table_text.c) so that a
 * large result never sits in memory, or read whole into a report section. */
#include "query.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/array.h"
#include "../core/buf.h"
#include "../core/scan.h"
#include "../core/xalloc.h"
#include "../schema/sql.h"
#include "rows.h"

/* The text grid and Markdown size their columns from the header and this many first rows,
 * then stream the rest with those widths (a wider cell later pushes its line along; nothing
 * is cut). sqlite3's shell sized its column mode from the first row until 3.33; since then
 * its column, table, box and markdown modes read the whole result before printing, which is
 * how a runaway query grew to gigabytes here. A window keeps typical results aligned. */
enum { GRID_SIZING_ROWS = 100 };

/* The progress handler runs every this many virtual machine instructions. */
enum { TIMEOUT_CHECK_OPS = 10000 };

/* A value of the current row as a cell: integers exact, text copied into a. */
static void fill_cell(struct arena *a, struct cell *c, sqlite3_stmt *st, int col)
{
    switch (sqlite3_column_type(st, col)) {
    case SQLITE_NULL:
        break;
    case SQLITE_INTEGER:
        cell_set_number(c, sqlite3_column_double(st, col));
        c->exact = 1;
        c->integer = (long long)sqlite3_column_int64(st, col);
        break;
    case SQLITE_FLOAT:
        cell_set_number(c, sqlite3_column_double(st, col));
        break;
    default: {
        const char *text = sql_text(st, col);
        cell_set_text(c, arena_strdup(a, text ? text : ""));
    }
    }
}

static void fill_row(struct arena *a, struct cell *row, sqlite3_stmt *st, size_t ncols)
{
    for (size_t c = 0; c < ncols; c++)
        fill_cell(a, &row[c], st, (int)c);
}

/* The statement's columns as a table's: named as in the SQL, values as stored. */
static struct column *statement_columns(sqlite3_stmt *st, size_t *ncols)
{
    *ncols = (size_t)sqlite3_column_count(st);
    struct column *cols = xcalloc(*ncols ? *ncols : 1, sizeof(*cols));
    for (size_t c = 0; c < *ncols; c++)
        cols[c] = (struct column){sqlite3_column_name(st, (int)c), UNIT_NONE, ROLE_FIELD};
    return cols;
}

/* Steps st for up to max more rows of rt; returns the last sqlite3_step status (SQLITE_ROW
 * when max was reached and more may follow). */
static int read_rows(sqlite3_stmt *st, struct row_table *rt, size_t max)
{
    int rc = SQLITE_ROW;
    while (rt->t.nrows < max && (rc = sqlite3_step(st)) == SQLITE_ROW)
        fill_row(&rt->rows, row_table_add(rt), st, rt->t.ncols);
    return rc;
}

/* Writes every row of st to sink as a table in fmt, a row at a time after the grid's sizing
 * window, giving the text to the sink before each step: 0 when all were written, 1 when the
 * sink stopped taking them, -1 when sqlite3_step failed (the handle's message says why). */
static int render(sqlite3_stmt *st, enum table_format fmt, struct text_sink *sink)
{
    size_t ncols;
    struct column *cols = statement_columns(st, &ncols);
    struct row_table rows;
    row_table_init(&rows, "rows", cols, ncols);
    free(cols);
    struct table_writer w;
    table_writer_init(&w, fmt);
    struct buf out = BUF_INIT;
    int stopped = 0;
    int rc = read_rows(st, &rows, table_format_sized(fmt) ? GRID_SIZING_ROWS : 1);
    for (;;) {
        table_write_rows(&w, &rows.t, &out);
        row_table_clear(&rows);
        if (rc != SQLITE_ROW)
            break;
        stopped = out.len && sink->write(sink->ctx, out.data, out.len);
        buf_reset(&out);
        if (stopped)
            break;
        rc = read_rows(st, &rows, 1);
    }
    if (rc == SQLITE_DONE) {
        table_write_end(&w, &rows.t, &out);
        stopped = out.len && sink->write(sink->ctx, out.data, out.len);
    }
    buf_release(&out);
    table_writer_release(&w);
    row_table_release(&rows);
    return stopped ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int rows_list(struct db *db, const char *sql, const char *const *params, size_t nparams,
              const char *what, enum table_format fmt, struct text_sink *out, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc, sql);
    sql_bind_texts(st, &rc, params, nparams);
    int rendered = rc == SQLITE_OK ? render(st, fmt, out) : -1;
    if (rendered < 0)
        diag_error(d, "cannot list %s: %s", what, sqlite3_errmsg(h));
    sqlite3_finalize(st);
    return rendered;
}

int rows_nul(struct db *db, const char *sql, const char *const *params, size_t nparams,
             const char *what, struct text_sink *out, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    int rc = SQLITE_OK, stopped = 0;
    sqlite3_stmt *st = sql_prepare(h, &rc, sql);
    sql_bind_texts(st, &rc, params, nparams);
    while (!stopped && sql_step(st, &rc)) {
        const char *text = sql_text(st, 0);
        size_t len = (size_t)sqlite3_column_bytes(st, 0);
        stopped = (len && out->write(out->ctx, text, len)) || out->write(out->ctx, "", 1);
    }
    if (rc != SQLITE_OK)
        diag_error(d, "cannot list %s: %s", what, sqlite3_errmsg(h));
    sqlite3_finalize(st);
    return stopped ? 1 : rc == SQLITE_OK ? 0 : -1;
}

void runs_sql(struct buf *sql, int detail, const struct time_range *dates, const char *results)
{
    buf_addf(sql,
             "SELECT run.id AS run_id, s.path AS source, s.format,%s run.tool, run.tool_version,"
             " group_concat(DISTINCT r.host) AS hosts,"
             " group_concat(DISTINCT r.storage_class) AS storage_classes,"
             " group_concat(DISTINCT r.sec) AS sec,"
             " group_concat(DISTINCT m.options) AS mount_options,"
             " group_concat(DISTINCT m.fstype) AS fstype,"
             " group_concat(DISTINCT m.device) AS mount_source,"
             " count(r.id) AS results,"
             " strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', run.started_at, 'unixepoch') AS started_at,"
             " s.imported_at%s"
             " FROM run JOIN source_file s ON s.id = run.source_id"
             " LEFT JOIN result r ON r.run_id = run.id LEFT JOIN mount m ON m.id = r.mount_id"
             " WHERE 1",
             detail ? " s.sha256," : "", detail ? ", run.command_line" : "");
    db_time_range_sql(sql, "run.started_at", dates);
    if (results)
        buf_addf(sql, " AND %s", results);
    buf_adds(sql, " GROUP BY run.id ORDER BY run.id");
}

int query_runs(struct db *db, const struct time_range *dates, enum table_format fmt,
               struct text_sink *out, struct diag *d)
{
    struct buf sql = BUF_INIT;
    runs_sql(&sql, 0, dates, NULL);
    int rc = rows_list(db, sql.data, NULL, 0, "runs", fmt, out, d);
    buf_release(&sql);
    return rc;
}

int rows_section(struct db *db, struct report *r, const char *heading, const char *name,
                 const char *sql, const char *const *params, size_t nparams, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc, sql);
    sql_bind_texts(st, &rc, params, nparams);
    if (rc == SQLITE_OK) { /* no section for a statement that cannot run */
        size_t ncols;
        struct column *cols = statement_columns(st, &ncols);
        struct section *s = report_section(r, heading, NULL);
        s->appendix = 1;
        struct table *t = report_table(r, s, name, cols, ncols);
        free(cols);
        while (sql_step(st, &rc))
            fill_row(&r->arena, table_add_row(r, t), st, ncols);
    }
    int failed = rc != SQLITE_OK ? diag_error(d, "cannot list %s: %s", name, sqlite3_errmsg(h)) : 0;
    sqlite3_finalize(st);
    return failed;
}

int query_history(struct db *db, const struct time_range *dates, enum table_format fmt,
                  struct text_sink *out, struct diag *d)
{
    struct buf sql = BUF_INIT;
    buf_adds(&sql,
             "SELECT h.changed_at AS changed_at, h.changed_by AS changed_by, r.run_id,"
             " h.result_id, s.path AS source, r.job, r.direction, h.field,"
             " h.old_value AS old, h.new_value AS new"
             " FROM label_history h LEFT JOIN result r ON r.id = h.result_id" /* removed: NULLs */
             " LEFT JOIN run ON run.id = r.run_id LEFT JOIN source_file s ON s.id = run.source_id"
             " WHERE 1");
    db_time_range_sql(&sql, "run.started_at", dates);
    buf_adds(&sql, " ORDER BY h.id");
    int rc = rows_list(db, sql.data, NULL, 0, "label history", fmt, out, d);
    buf_release(&sql);
    return rc;
}

int query_baselines(struct db *db, const struct time_range *dates, enum table_format fmt,
                    struct text_sink *out, struct diag *d)
{
    struct buf sql = BUF_INIT;
    buf_adds(&sql, "SELECT b.name, count(br.result_id) AS results, b.filter AS \"where\","
                   " b.created_by, b.created_at FROM baseline b"
                   " LEFT JOIN baseline_result br ON br.baseline_id = b.id WHERE 1");
    db_time_range_sql(&sql, "unixepoch(b.created_at)", dates);
    buf_adds(&sql, " GROUP BY b.id ORDER BY b.name");
    int rc = rows_list(db, sql.data, NULL, 0, "baselines", fmt, out, d);
    buf_release(&sql);
    return rc;
}

/* The functions a user's statement may call: SQLite's core scalar, aggregate, window, date,
 * JSON and math functions. Anything else is refused, notably load_extension, fts3_tokenizer
 * (returns, and registers, raw pointers), fts5 (hands out its API pointer), sqlite_log, and
 * zeroblob and randomblob (allocate whatever size they are given). */
static const char *const allowed_functions[] = {
    /* scalar */
    "abs", "char", "coalesce", "format", "glob", "hex", "ifnull", "iif", "instr", "length", "like",
    "likelihood", "likely", "lower", "ltrim", "max", "min", "nullif", "printf", "quote", "random",
    "replace", "round", "rtrim", "sign", "soundex", "sqlite_version", "substr", "substring", "trim",
    "typeof", "unicode", "unlikely", "upper",
    /* aggregate */
    "avg", "count", "group_concat", "sum", "total",
    /* window */
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
    "first_value", "last_value", "nth_value",
    /* date and time */
    "date", "time", "datetime", "julianday", "strftime", "unixepoch", "current_date",
    "current_time", "current_timestamp",
    /* JSON (json_each and json_tree are tables, not functions) */
    "json", "json_array", "json_array_length", "json_extract", "json_insert", "json_object",
    "json_patch", "json_quote", "json_remove", "json_replace", "json_set", "json_type",
    "json_valid", "json_group_array", "json_group_object", "->", "->>",
    /* math */
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh",
    "degrees", "exp", "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians",
    "sin", "sinh", "sqrt", "tan", "tanh", "trunc"};

static int function_allowed(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(allowed_functions); i++)
        if (!strcmp(name, allowed_functions[i]))
            return 1;
    return 0;
}

/* The authorizer of a user's statement: refuses what could change state (ATTACH, DETACH, a
 * PRAGMA with a value) and every function not allowed, whose name it keeps in ctx (a buf). */
static int authorize(void *ctx, int action, const char *a1, const char *a2, const char *db,
                     const char *trigger)
{
    (void)a1, (void)db, (void)trigger;
    struct buf *refused_function = ctx;
    if (action == SQLITE_FUNCTION && !function_allowed(a2)) {
        if (!refused_function->len)
            buf_adds(refused_function, a2);
        return SQLITE_DENY;
    }
    if (action == SQLITE_ATTACH || action == SQLITE_DETACH)
        return SQLITE_DENY;
    if (action == SQLITE_PRAGMA && a2)
        return SQLITE_DENY;
    return SQLITE_OK;
}

/* 1 when the text after a statement holds another one; whitespace, comments and empty
 * statements (';') are what SQLite compiles to no statement at all. */
static int holds_statement(sqlite3 *h, const char *tail)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc, tail);
    sqlite3_finalize(st);
    return rc != SQLITE_OK || st;
}

/* Compiles sql, which must be one read-only statement calling only allowed functions, into
 * *st; 0, or -1 after a message. */
static int prepare_one(sqlite3 *h, const char *sql, sqlite3_stmt **st, struct diag *d)
{
    /* the authorizer refuses fts3_tokenizer; this also turns off the two-argument form that
     * registers a pointer, for any statement that might still reach it */
    sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)NULL);
    struct buf refused_function = BUF_INIT;
    const char *tail = NULL;
    sqlite3_set_authorizer(h, authorize, &refused_function);
    int rc = SQLITE_OK;
    *st = sql_prepare_first(h, &rc, sql, &tail);
    sqlite3_set_authorizer(h, NULL, NULL);
    /* a refused function fails the compilation as SQLITE_ERROR, not SQLITE_AUTH */
    if (rc != SQLITE_OK && refused_function.len)
        rc = diag_error(d,
                        "query: refused: function '%s' is not allowed (allowed: SQLite's core, "
                        "date, JSON and math functions)",
                        refused_function.data);
    else if (rc == SQLITE_AUTH)
        rc = diag_error(d, "query: refused: ATTACH, DETACH and PRAGMAs that set a value are not "
                           "allowed (query is read-only)");
    else if (rc != SQLITE_OK)
        rc = diag_error(d, "query: %s", sqlite3_errmsg(h));
    else if (!*st)
        rc = diag_error(d, "query: empty statement");
    else if (holds_statement(h, tail))
        rc = diag_error(d, "query: only one statement is allowed");
    else if (!sqlite3_stmt_readonly(*st))
        rc = diag_error(d, "query: refused: the statement would modify the database "
                           "(query is read-only)");
    buf_release(&refused_function);
    if (rc) {
        sqlite3_finalize(*st);
        *st = NULL;
    }
    return rc;
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct deadline {
    double at; /* monotonic_s() */
    int passed;
};

/* sqlite3's progress handler: a non-zero return interrupts the statement. */
static int deadline_passed(void *ctx)
{
    struct deadline *dl = ctx;
    dl->passed = monotonic_s() >= dl->at;
    return dl->passed;
}

/* The index of parameter name in st under any of SQLite's prefixes; 0 when it has none. */
static int param_index(sqlite3_stmt *st, const char *name)
{
    static const char prefixes[] = ":@$";
    struct buf b = BUF_INIT;
    int i = 0;
    for (size_t k = 0; !i && k < sizeof(prefixes) - 1; k++) {
        buf_reset(&b);
        buf_addf(&b, "%c%s", prefixes[k], name);
        i = sqlite3_bind_parameter_index(st, b.data);
    }
    buf_release(&b);
    return i;
}

/* value as sqlite3's shell binds it (.param set): an integer or a number when it reads as one
 * whole, else text. */
static int bind_value(sqlite3_stmt *st, int i, const char *value)
{
    const char *p = value;
    int64_t n;
    double x;
    if (scan_int64(&p, &n) && !*p)
        return sqlite3_bind_int64(st, i, n);
    p = value;
    if (scan_number(&p, &x) && !*p)
        return sqlite3_bind_double(st, i, x);
    return sqlite3_bind_text(st, i, value, -1, SQLITE_TRANSIENT);
}

static int bind_params(sqlite3_stmt *st, const struct kv *params, size_t n, struct diag *d)
{
    int count = sqlite3_bind_parameter_count(st), rc = 0;
    char *bound = xcalloc((size_t)count + 1, 1); /* by parameter index */
    for (size_t k = 0; k < n && !rc; k++) {
        int i = param_index(st, params[k].key);
        if (!i)
            rc = diag_error(d, "query: the statement has no parameter :%s", params[k].key);
        else if (bind_value(st, i, params[k].value) != SQLITE_OK)
            rc = diag_error(d, "query: cannot bind :%s", params[k].key);
        else
            bound[i] = 1;
    }
    for (int i = 1; i <= count && !rc; i++)
        if (!bound[i]) {
            const char *name = sqlite3_bind_parameter_name(st, i);
            rc = diag_error(d, "query: no value for parameter %s (give --param NAME=VALUE)",
                            name ? name : "?");
        }
    free(bound);
    return rc;
}

int query_sql(struct db *db, const char *sql, const struct kv *params, size_t nparams,
              enum table_format fmt, double timeout_s, struct text_sink *out, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    sqlite3_stmt *st;
    if (prepare_one(h, sql, &st, d))
        return -1;
    if (bind_params(st, params, nparams, d)) {
        sqlite3_finalize(st);
        return -1;
    }
    struct deadline dl = {monotonic_s() + timeout_s, 0};
    if (timeout_s > 0)
        sqlite3_progress_handler(h, TIMEOUT_CHECK_OPS, deadline_passed, &dl);
    int rc = render(st, fmt, out);
    sqlite3_progress_handler(h, 0, NULL, NULL);
    if (rc < 0 && dl.passed)
        diag_error(d, "query: stopped by --timeout after %g s", timeout_s);
    else if (rc < 0)
        diag_error(d, "query: %s", sqlite3_errmsg(h));
    sqlite3_finalize(st);
    return rc;
}
