/* appendix.c: the raw data behind a report, for the spreadsheet and CSV: every run with its
 * keys and every result with its main metrics. Values stay in base units (bytes/s, ns), which
 * the column names say, so these tables are never rescaled. */
#include "query.h"

#include <sqlite3.h>
#include <stdlib.h>

#include "../core/xalloc.h"
#include "../report/report.h"

static const char runs_sql[] =
    "SELECT run.id AS run_id, s.path AS source, s.format, s.sha256, run.tool, run.tool_version,"
    " group_concat(DISTINCT r.host) AS hosts,"
    " group_concat(DISTINCT r.storage_class) AS storage_classes,"
    " group_concat(DISTINCT r.sec) AS sec,"
    " group_concat(DISTINCT m.options) AS mount_options,"
    " count(r.id) AS results,"
    " CASE WHEN run.started_at IS NULL THEN NULL"
    "  ELSE strftime('%Y-%m-%dT%H:%M:%SZ', run.started_at, 'unixepoch') END AS started,"
    " s.imported_at AS imported, run.command_line"
    " FROM run JOIN source_file s ON s.id = run.source_id"
    " LEFT JOIN result r ON r.run_id = run.id LEFT JOIN mount m ON m.id = r.mount_id"
    " GROUP BY run.id ORDER BY run.id";

/* The metrics of the results table: columns of result (base units in the name). */
static const char *const result_metrics[] = {
    "bw_bytes_s",  "iops",          "lat_mean_ns", "clat_mean_ns", "clat_p50_ns",
    "clat_p99_ns", "clat_p99_9_ns", "lat_max_ns",  "io_bytes",     "runtime_ms",
};

static void results_sql(struct buf *sql)
{
    buf_adds(sql, "SELECT r.id AS result_id, r.run_id, r.host, r.storage_class, r.sec,"
                  " m.options AS mount_options, r.job, r.direction, r.rw, r.bs_bytes,"
                  " r.iodepth, r.numjobs, r.direct, r.sync, r.fsync, r.ioengine, r.error,"
                  " r.error_msg");
    for (size_t i = 0; i < sizeof(result_metrics) / sizeof(result_metrics[0]); i++)
        buf_addf(sql, ", r.%s", result_metrics[i]);
    buf_adds(sql, " FROM result r LEFT JOIN mount m ON m.id = r.mount_id ORDER BY r.id");
}

static void add_row(struct report *r, struct table *t, sqlite3_stmt *st)
{
    struct cell *row = table_add_row(r, t);
    for (size_t c = 0; c < t->ncols; c++) {
        switch (sqlite3_column_type(st, (int)c)) {
        case SQLITE_INTEGER:
        case SQLITE_FLOAT:
            row[c].kind = CELL_NUMBER;
            row[c].value = sqlite3_column_double(st, (int)c);
            break;
        case SQLITE_NULL:
            break;
        default:
            row[c].kind = CELL_TEXT;
            row[c].text = arena_strdup(&r->arena, (const char *)sqlite3_column_text(st, (int)c));
        }
    }
}

/* One appendix section whose table is a statement's rows, columns named as in the SQL. */
static int appendix_table(struct db *db, struct report *r, const char *heading, const char *name,
                          const char *sql, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
        return diag_error(d, "cannot list %s: %s", name, sqlite3_errmsg(h));
    size_t ncols = (size_t)sqlite3_column_count(st);
    struct column *cols = xcalloc(ncols, sizeof(*cols));
    for (size_t c = 0; c < ncols; c++)
        cols[c] = (struct column){sqlite3_column_name(st, (int)c), UNIT_NONE, ROLE_FIELD};
    struct section *s = report_section(r, heading, NULL);
    s->appendix = 1;
    struct table *t = report_table(r, s, name, cols, ncols);
    free(cols);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        add_row(r, t, st);
    int rc = step == SQLITE_DONE ? 0 : diag_error(d, "cannot list %s: %s", name, sqlite3_errmsg(h));
    sqlite3_finalize(st);
    return rc;
}

int query_appendix(struct db *db, struct report *r, struct diag *d)
{
    struct buf sql = BUF_INIT;
    results_sql(&sql);
    int rc = appendix_table(db, r, "Runs", "runs", runs_sql, d);
    if (rc == 0)
        rc = appendix_table(db, r, "Results", "results", sql.data, d);
    buf_release(&sql);
    return rc;
}
