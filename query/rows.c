/* rows.c: benchdb runs and benchdb query: a statement's rows as text, csv, json or md. */
#include "query.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fmt.h"
#include "../core/xalloc.h"

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

/* Aligned text and Markdown need every row first, to size the columns. */
static void render_grid(sqlite3_stmt *st, int md, struct buf *out, int *step_rc)
{
    int nc = sqlite3_column_count(st);
    size_t *width = xcalloc((size_t)nc, sizeof(size_t));
    struct buf cells = BUF_INIT, tmp = BUF_INIT;
    size_t nrows = 0;
    for (int c = 0; c < nc; c++)
        width[c] = strlen(sqlite3_column_name(st, c));
    while ((*step_rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < nc; c++) {
            const char *s = cell_text(st, c, &tmp);
            size_t n = strlen(s);
            if (n > width[c])
                width[c] = n;
            buf_add(&cells, s, n + 1);
        }
        nrows++;
    }
    const char *sep = md ? " | " : "  ";
    if (md)
        buf_adds(out, "| ");
    for (int c = 0; c < nc; c++)
        buf_addf(out, "%s%-*s", c ? sep : "", (int)width[c], sqlite3_column_name(st, c));
    buf_adds(out, md ? " |\n" : "\n");
    if (md) {
        buf_adds(out, "|");
        for (int c = 0; c < nc; c++) {
            buf_addc(out, ' ');
            for (size_t i = 0; i < (width[c] < 3 ? 3 : width[c]); i++)
                buf_addc(out, '-');
            buf_adds(out, " |");
        }
        buf_addc(out, '\n');
    }
    const char *p = cells.data;
    for (size_t r = 0; r < nrows; r++) {
        if (md)
            buf_adds(out, "| ");
        for (int c = 0; c < nc; c++) {
            buf_addf(out, "%s%-*s", c ? sep : "", (int)width[c], p);
            p += strlen(p) + 1;
        }
        buf_adds(out, md ? " |\n" : "\n");
    }
    free(width);
    buf_release(&cells);
    buf_release(&tmp);
}

static void render_stream(sqlite3_stmt *st, enum table_format fmt, struct buf *out, int *step_rc)
{
    int nc = sqlite3_column_count(st);
    struct buf tmp = BUF_INIT;
    if (fmt == TABLE_CSV) {
        for (int c = 0; c < nc; c++) {
            buf_adds(out, c ? "," : "");
            fmt_csv_field(out, sqlite3_column_name(st, c));
        }
        buf_adds(out, "\r\n");
    } else {
        buf_adds(out, "[");
    }
    int first = 1;
    while ((*step_rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (fmt == TABLE_JSON)
            buf_adds(out, first ? "\n  {" : ",\n  {");
        for (int c = 0; c < nc; c++) {
            int type = sqlite3_column_type(st, c);
            if (fmt == TABLE_CSV) {
                buf_adds(out, c ? "," : "");
                if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
                    buf_adds(out, cell_text(st, c, &tmp));
                else
                    fmt_csv_field(out, cell_text(st, c, &tmp));
                continue;
            }
            buf_adds(out, c ? ", " : "");
            fmt_json_string(out, sqlite3_column_name(st, c));
            buf_adds(out, ": ");
            if (type == SQLITE_NULL)
                buf_adds(out, "null");
            else if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
                fmt_json_number(out, sqlite3_column_double(st, c));
            else
                fmt_json_string(out, cell_text(st, c, &tmp));
        }
        buf_adds(out, fmt == TABLE_CSV ? "\r\n" : "}");
        first = 0;
    }
    if (fmt == TABLE_JSON)
        buf_adds(out, first ? "]\n" : "\n]\n");
    buf_release(&tmp);
}

static int render(sqlite3 *h, sqlite3_stmt *st, enum table_format fmt, struct buf *out,
                  struct diag *d)
{
    int rc;
    if (fmt == TABLE_TEXT || fmt == TABLE_MD)
        render_grid(st, fmt == TABLE_MD, out, &rc);
    else
        render_stream(st, fmt, out, &rc);
    if (rc != SQLITE_DONE)
        return diag_error(d, "query failed: %s", sqlite3_errmsg(h));
    return 0;
}

/* The rows of a fixed statement; what names the list in the error. */
static int list(struct db *db, const char *sql, const char *what, enum table_format fmt,
                struct buf *out, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL))
        return diag_error(d, "cannot list %s: %s", what, sqlite3_errmsg(h));
    int rc = render(h, st, fmt, out, d);
    sqlite3_finalize(st);
    return rc;
}

int query_runs(struct db *db, enum table_format fmt, struct buf *out, struct diag *d)
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

int query_history(struct db *db, enum table_format fmt, struct buf *out, struct diag *d)
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

/* Refuses everything that could change state: ATTACH/DETACH and PRAGMAs with a value. */
static int deny_writes(void *ctx, int action, const char *a1, const char *a2, const char *db,
                       const char *trigger)
{
    (void)ctx, (void)a1, (void)db, (void)trigger;
    if (action == SQLITE_ATTACH || action == SQLITE_DETACH)
        return SQLITE_DENY;
    if (action == SQLITE_PRAGMA && a2)
        return SQLITE_DENY;
    return SQLITE_OK;
}

int query_sql(struct db *db, const char *sql, enum table_format fmt, struct buf *out,
              struct diag *d)
{
    sqlite3 *h = db_handle(db);
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    sqlite3_set_authorizer(h, deny_writes, NULL);
    int rc = sqlite3_prepare_v2(h, sql, -1, &st, &tail);
    sqlite3_set_authorizer(h, NULL, NULL);
    if (rc == SQLITE_AUTH)
        return diag_error(d, "query: refused: ATTACH, DETACH and PRAGMAs that set a value are not "
                             "allowed (query is read-only)");
    if (rc != SQLITE_OK)
        return diag_error(d, "query: %s", sqlite3_errmsg(h));
    if (!st)
        return diag_error(d, "query: empty statement");
    while (tail && (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == ';'))
        tail++;
    if (tail && *tail) {
        sqlite3_finalize(st);
        return diag_error(d, "query: only one statement is allowed");
    }
    if (!sqlite3_stmt_readonly(st)) {
        sqlite3_finalize(st);
        return diag_error(d, "query: refused: the statement would modify the database "
                             "(query is read-only)");
    }
    rc = render(h, st, fmt, out, d);
    sqlite3_finalize(st);
    return rc;
}
