/* rows.c: benchdb runs and benchdb query: a statement's rows as text, csv, json or md, handed
 * to a sink row by row so that a large result never sits in memory. */
#include "query.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/fmt.h"
#include "../core/xalloc.h"
#include "../report/report.h"

/* The text grid and Markdown size their columns from the header and this many first rows,
 * then stream the rest with those widths (a wider cell later pushes its line along; nothing
 * is cut). sqlite3's shell sized its column mode from the first row until 3.33; since then
 * its column, table, box and markdown modes read the whole result before printing, which is
 * how a runaway query grew to gigabytes here. A window keeps typical results aligned. */
enum { GRID_SIZING_ROWS = 100 };

/* The progress handler runs every this many virtual machine instructions. */
enum { TIMEOUT_CHECK_OPS = 10000 };

/* One statement's rows on their way to the sink. */
struct rows {
    sqlite3_stmt *st;
    enum table_format fmt;
    struct text_sink *sink;
    int nc;
    int stopped;     /* the sink took no more */
    struct buf out;  /* text not yet given to the sink */
    struct buf tmp;  /* a number's text */
    struct buf safe; /* a cell with its control characters escaped */
};

/* Gives the pending text to the sink; 0, or -1 once the sink stopped taking it. */
static int flush(struct rows *r)
{
    if (r->out.len && r->sink->write(r->sink->ctx, r->out.data, r->out.len))
        r->stopped = 1;
    buf_reset(&r->out);
    return r->stopped ? -1 : 0;
}

/* A cell's text (NULL as empty, a float in its shortest exact form); borrowed until the next
 * call. */
static const char *cell_text(sqlite3_stmt *st, int col, struct buf *tmp)
{
    buf_reset(tmp);
    switch (sqlite3_column_type(st, col)) {
    case SQLITE_NULL:
        return "";
    case SQLITE_FLOAT:
        fmt_plain_number(tmp, sqlite3_column_double(st, col));
        return tmp->data;
    default:
        return (const char *)sqlite3_column_text(st, col);
    }
}

/* Appends text from the warehouse as a terminal or Markdown shows it: control characters
 * escaped (a file name must neither set the terminal's title nor split a row), and in
 * Markdown also the characters that would make a cell, markup or HTML. */
static void add_shown(struct rows *r, struct buf *to, const char *s)
{
    buf_reset(&r->safe);
    diag_escape(&r->safe, s);
    if (r->fmt == TABLE_MD)
        report_md_escape(to, r->safe.data);
    else
        buf_add(to, r->safe.data, r->safe.len);
}

/* Appends the current row's cells as shown, each NUL-terminated; widens width[] to fit them
 * unless width is NULL (the widths are already decided). */
static void read_grid_row(struct rows *r, struct buf *cells, size_t *width)
{
    for (int c = 0; c < r->nc; c++) {
        size_t start = cells->len;
        add_shown(r, cells, cell_text(r->st, c, &r->tmp));
        if (width && cells->len - start > width[c])
            width[c] = cells->len - start;
        buf_addc(cells, '\0');
    }
}

/* Writes one line of nc NUL-terminated cells starting at p; returns the end of them. */
static const char *put_grid_row(struct rows *r, const char *p, const size_t *width)
{
    int md = r->fmt == TABLE_MD;
    if (md)
        buf_adds(&r->out, "| ");
    for (int c = 0; c < r->nc; c++) {
        buf_addf(&r->out, "%s%-*s", c ? (md ? " | " : "  ") : "", (int)width[c], p);
        p += strlen(p) + 1;
    }
    buf_adds(&r->out, md ? " |\n" : "\n");
    return p;
}

static void put_md_rule(struct rows *r, const size_t *width)
{
    buf_adds(&r->out, "|");
    for (int c = 0; c < r->nc; c++) {
        buf_addc(&r->out, ' ');
        for (size_t i = 0; i < (width[c] < 3 ? 3 : width[c]); i++)
            buf_addc(&r->out, '-');
        buf_adds(&r->out, " |");
    }
    buf_addc(&r->out, '\n');
}

/* Aligned text or a Markdown table; returns the last sqlite3_step status. */
static int put_grid(struct rows *r)
{
    size_t *width = xcalloc((size_t)r->nc, sizeof(size_t));
    struct buf names = BUF_INIT, cells = BUF_INIT;
    for (int c = 0; c < r->nc; c++) {
        size_t start = names.len;
        add_shown(r, &names, sqlite3_column_name(r->st, c));
        width[c] = names.len - start;
        buf_addc(&names, '\0');
    }
    int rc = SQLITE_DONE;
    size_t nrows = 0;
    while (nrows < GRID_SIZING_ROWS && (rc = sqlite3_step(r->st)) == SQLITE_ROW) {
        read_grid_row(r, &cells, width);
        nrows++;
    }
    put_grid_row(r, names.data, width);
    if (r->fmt == TABLE_MD)
        put_md_rule(r, width);
    const char *p = cells.data;
    for (size_t i = 0; i < nrows; i++)
        p = put_grid_row(r, p, width);
    /* rc is SQLITE_ROW here only when the window is full and more rows may follow */
    while (rc == SQLITE_ROW && !flush(r) && (rc = sqlite3_step(r->st)) == SQLITE_ROW) {
        buf_reset(&cells);
        read_grid_row(r, &cells, NULL);
        put_grid_row(r, cells.data, width);
    }
    free(width);
    buf_release(&names);
    buf_release(&cells);
    return rc;
}

static void put_csv_row(struct rows *r)
{
    for (int c = 0; c < r->nc; c++) {
        int type = sqlite3_column_type(r->st, c);
        buf_adds(&r->out, c ? "," : "");
        if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
            buf_adds(&r->out, cell_text(r->st, c, &r->tmp));
        else
            report_csv_field(&r->out, cell_text(r->st, c, &r->tmp));
    }
    buf_adds(&r->out, "\r\n");
}

static void put_json_row(struct rows *r)
{
    buf_addc(&r->out, '{');
    for (int c = 0; c < r->nc; c++) {
        buf_adds(&r->out, c ? ", " : "");
        fmt_json_string(&r->out, sqlite3_column_name(r->st, c));
        buf_adds(&r->out, ": ");
        switch (sqlite3_column_type(r->st, c)) {
        case SQLITE_NULL:
            buf_adds(&r->out, "null");
            break;
        case SQLITE_INTEGER: /* exactly: a double holds only 53 bits */
            buf_addf(&r->out, "%lld", (long long)sqlite3_column_int64(r->st, c));
            break;
        case SQLITE_FLOAT:
            fmt_json_number(&r->out, sqlite3_column_double(r->st, c));
            break;
        default:
            fmt_json_string(&r->out, cell_text(r->st, c, &r->tmp));
        }
    }
    buf_addc(&r->out, '}');
}

/* CSV (RFC 4180, header first) or a JSON array of objects; returns the last sqlite3_step
 * status. */
static int put_stream(struct rows *r)
{
    int csv = r->fmt == TABLE_CSV;
    if (csv) {
        for (int c = 0; c < r->nc; c++) {
            buf_adds(&r->out, c ? "," : "");
            report_csv_field(&r->out, sqlite3_column_name(r->st, c));
        }
        buf_adds(&r->out, "\r\n");
    } else {
        buf_addc(&r->out, '[');
    }
    int rc = SQLITE_DONE;
    size_t nrows = 0;
    while (!flush(r) && (rc = sqlite3_step(r->st)) == SQLITE_ROW) {
        if (csv) {
            put_csv_row(r);
        } else {
            buf_adds(&r->out, nrows ? ",\n  " : "\n  ");
            put_json_row(r);
        }
        nrows++;
    }
    if (!csv)
        buf_adds(&r->out, nrows ? "\n]\n" : "]\n");
    return rc;
}

/* Writes every row of st to sink: 0 when all were written, 1 when the sink stopped taking
 * them, -1 when sqlite3_step failed (the handle's message says why). */
static int render(sqlite3_stmt *st, enum table_format fmt, struct text_sink *sink)
{
    struct rows r = {st, fmt, sink, sqlite3_column_count(st), 0, BUF_INIT, BUF_INIT, BUF_INIT};
    int rc = fmt == TABLE_TEXT || fmt == TABLE_MD ? put_grid(&r) : put_stream(&r);
    if (rc == SQLITE_DONE)
        flush(&r);
    buf_release(&r.out);
    buf_release(&r.tmp);
    buf_release(&r.safe);
    return r.stopped ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The rows of a fixed statement; what names the list in the error. */
static int list(struct db *db, const char *sql, const char *what, enum table_format fmt,
                struct text_sink *out, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL))
        return diag_error(d, "cannot list %s: %s", what, sqlite3_errmsg(h));
    int rc = render(st, fmt, out);
    if (rc < 0)
        diag_error(d, "cannot list %s: %s", what, sqlite3_errmsg(h));
    sqlite3_finalize(st);
    return rc;
}

int query_runs(struct db *db, enum table_format fmt, struct text_sink *out, struct diag *d)
{
    const char *sql =
        "SELECT run.id AS run, s.path AS source, s.format, run.tool, run.tool_version,"
        " group_concat(DISTINCT r.host) AS hosts,"
        " group_concat(DISTINCT r.storage_class) AS storage_classes,"
        " group_concat(DISTINCT r.sec) AS sec,"
        " group_concat(DISTINCT m.options) AS mount_options,"
        " count(r.id) AS results,"
        " CASE WHEN run.started_at IS NULL THEN NULL"
        "  ELSE strftime('%Y-%m-%dT%H:%M:%SZ', run.started_at, 'unixepoch') END AS started,"
        " s.imported_at AS imported"
        " FROM run JOIN source_file s ON s.id = run.source_id"
        " LEFT JOIN result r ON r.run_id = run.id LEFT JOIN mount m ON m.id = r.mount_id"
        " GROUP BY run.id ORDER BY run.id";
    return list(db, sql, "runs", fmt, out, d);
}

int query_history(struct db *db, enum table_format fmt, struct text_sink *out, struct diag *d)
{
    const char *sql =
        "SELECT h.changed_at AS changed_at, h.changed_by AS changed_by, r.run_id AS run,"
        " h.result_id AS result, s.path AS source, r.job, r.direction, h.field,"
        " h.old_value AS old, h.new_value AS new"
        " FROM label_history h JOIN result r ON r.id = h.result_id"
        " JOIN run ON run.id = r.run_id JOIN source_file s ON s.id = run.source_id"
        " ORDER BY h.id";
    return list(db, sql, "label history", fmt, out, d);
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
    for (size_t i = 0; i < sizeof(allowed_functions) / sizeof(allowed_functions[0]); i++)
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
 * statements (';') are what sqlite3_prepare compiles to no statement at all. */
static int holds_statement(sqlite3 *h, const char *tail)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h, tail, -1, &st, NULL);
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
    int rc = sqlite3_prepare_v2(h, sql, -1, st, &tail);
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

int query_sql(struct db *db, const char *sql, enum table_format fmt, double timeout_s,
              struct text_sink *out, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    sqlite3_stmt *st;
    if (prepare_one(h, sql, &st, d))
        return -1;
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
