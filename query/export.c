/* export.c: benchdb export, the stable interface for scripts (fields in docs/export.md). */
#include "query.h"

#include <csv.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/fmt.h"
#include "../report/report.h"
#include "../schema/sql.h"

/* The fixed fields, in output order: columns of v_result; metrics follow. Fields are only ever
 * appended, so that scripts reading columns by position keep working. */
static const char *const fields[] = {
    "result_id",  "source",      "sha256",        "format",       "tool",          "tool_version",
    "host",       "peer",        "storage_class", "sec",          "mount_options", "job",
    "direction",  "rw",          "bs_bytes",      "iodepth",      "numjobs",       "direct",
    "sync",       "fsync",       "fdatasync",     "ioengine",     "size_bytes",    "rwmixread",
    "runtime_s",  "error",       "error_msg",     "line_first",   "line_last",     "transcribed",
    "started_at", "imported_at", "fstype",        "mount_source", "run_id",
};
enum { N_FIELDS = ARRAY_SIZE(fields) };
/* Their PostgreSQL types (--format pg-ddl), in the same order. */
static const char *const pg_types[] = {
    "bigint", "text",   "text",        "text",        "text",   "text",   "text",
    "text",   "text",   "text",        "text",        "text",   "text",   "text",
    "bigint", "bigint", "bigint",      "bigint",      "bigint", "bigint", "bigint",
    "text",   "bigint", "bigint",      "bigint",      "bigint", "text",   "bigint",
    "bigint", "bigint", "timestamptz", "timestamptz", "text",   "text",   "bigint",
};
_Static_assert(ARRAY_SIZE(pg_types) == N_FIELDS, "a type per field");

/* Metrics every export has as columns even when no result has them (the documented core). */
static const char *const core_metrics[] = {
    "bw_bytes_s",   "iops",        "io_bytes",    "runtime_ms",  "lat_mean_ns",
    "clat_mean_ns", "clat_p50_ns", "clat_p95_ns", "clat_p99_ns", "clat_max_ns",
};

struct names {
    char **v;
    size_t n;
};

static int has(const struct names *m, const char *s)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->v[i], s))
            return 1;
    return 0;
}

static void names_free(struct names *m)
{
    for (size_t i = 0; i < m->n; i++)
        sqlite3_free(m->v[i]);
    sqlite3_free(m->v);
}

static void names_add(struct names *m, const char *name)
{
    m->v = sqlite3_realloc64(m->v, sizeof(char *) * (m->n + 1));
    m->v[m->n++] = sqlite3_mprintf("%s", name);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The metrics some result has: metric columns holding a value (one pass over result), then
 * the members of metrics_extra. */
static int stored_names(struct db *db, struct names *out, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    const char *const *cols;
    size_t ncols;
    if (db_metric_columns(db, &cols, &ncols, d))
        return -1;
    struct buf sql = BUF_INIT;
    buf_adds(&sql, "SELECT 0");
    for (size_t i = 0; i < ncols; i++)
        buf_addf(&sql, ", count(%s)", cols[i]);
    buf_adds(&sql, " FROM result");
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc, sql.data);
    buf_release(&sql);
    if (sql_step(st, &rc))
        for (size_t i = 0; i < ncols; i++)
            if (sqlite3_column_int64(st, (int)i + 1))
                names_add(out, cols[i]);
    sql_finalize(st, &rc);
    st = sql_prepare(h, &rc,
                     "SELECT DISTINCT j.key FROM result r, json_each(r.metrics_extra) j "
                     "WHERE r.metrics_extra IS NOT NULL");
    while (sql_step(st, &rc))
        names_add(out, sql_text(st, 0));
    sql_finalize(st, &rc);
    return rc == SQLITE_OK ? 0 : diag_error(d, "cannot export: %s", sqlite3_errmsg(h));
}

/* The core metrics, then every other metric name in the warehouse, sorted. */
static int metric_names(struct db *db, struct names *m, struct diag *d)
{
    struct names stored = {0};
    if (stored_names(db, &stored, d)) {
        names_free(&stored);
        return -1;
    }
    if (stored.n)
        qsort(stored.v, stored.n, sizeof(*stored.v), cmp_name);
    for (size_t i = 0; i < ARRAY_SIZE(core_metrics); i++)
        names_add(m, core_metrics[i]);
    for (size_t i = 0; i < stored.n; i++)
        if (!has(m, stored.v[i]))
            names_add(m, stored.v[i]);
    names_free(&stored);
    return 0;
}

struct row {
    struct names tag_keys, tag_vals;
    double *metric; /* NAN: absent */
    int *present;
};

/* The row's metrics: the columns after the fixed fields, one per name (NULL: absent). */
static void load_details(sqlite3_stmt *st, sqlite3_stmt *tst, int64_t id, const struct names *names,
                         struct row *row, int *rc)
{
    for (size_t i = 0; i < names->n; i++) {
        int col = N_FIELDS + (int)i;
        row->present[i] = sqlite3_column_type(st, col) != SQLITE_NULL;
        row->metric[i] = row->present[i] ? sqlite3_column_double(st, col) : NAN;
    }
    sql_bind_int_at(tst, rc, 1, id);
    row->tag_keys.n = row->tag_vals.n = 0;
    while (sql_step(tst, rc)) {
        size_t n = row->tag_keys.n;
        row->tag_keys.v = sqlite3_realloc64(row->tag_keys.v, sizeof(char *) * (n + 1));
        row->tag_vals.v = sqlite3_realloc64(row->tag_vals.v, sizeof(char *) * (n + 1));
        row->tag_keys.v[n] = sqlite3_mprintf("%s", sqlite3_column_text(tst, 0));
        row->tag_vals.v[n] = sqlite3_mprintf("%s", sqlite3_column_text(tst, 1));
        row->tag_keys.n = row->tag_vals.n = n + 1;
    }
    sql_release(tst);
}

static void release_tags(struct row *row)
{
    names_free(&row->tag_keys);
    names_free(&row->tag_vals);
    row->tag_keys = row->tag_vals = (struct names){0};
}

static void put_json_field(struct buf *out, sqlite3_stmt *st, int col)
{
    switch (sqlite3_column_type(st, col)) {
    case SQLITE_NULL:
        buf_adds(out, "null");
        break;
    case SQLITE_INTEGER:
        buf_addf(out, "%lld", (long long)sqlite3_column_int64(st, col));
        break;
    case SQLITE_FLOAT:
        fmt_json_number(out, sqlite3_column_double(st, col));
        break;
    default:
        fmt_json_string(out, sql_text(st, col));
        break;
    }
}

static void ndjson_row(struct buf *out, sqlite3_stmt *st, const struct names *names,
                       const struct row *row)
{
    buf_addc(out, '{');
    for (int i = 0; i < N_FIELDS; i++) {
        buf_addf(out, "%s\"%s\":", i ? "," : "", fields[i]);
        put_json_field(out, st, i);
    }
    buf_adds(out, ",\"tags\":{");
    for (size_t i = 0; i < row->tag_keys.n; i++) {
        if (i)
            buf_addc(out, ',');
        fmt_json_string(out, row->tag_keys.v[i]);
        buf_addc(out, ':');
        fmt_json_string(out, row->tag_vals.v[i]);
    }
    buf_addc(out, '}');
    for (size_t i = 0; i < names->n; i++) {
        buf_addf(out, ",\"%s\":", names->v[i]);
        if (row->present[i])
            fmt_json_number(out, row->metric[i]);
        else
            buf_adds(out, "null");
    }
    buf_adds(out, "}\n");
}

static void csv_header(struct buf *out, const struct names *names)
{
    for (int i = 0; i < N_FIELDS; i++)
        buf_addf(out, "%s%s", i ? "," : "", fields[i]);
    buf_adds(out, ",tags");
    for (size_t i = 0; i < names->n; i++)
        buf_addf(out, ",%s", names->v[i]);
    buf_adds(out, "\r\n");
}

/* The CSV export's columns as a table: tags stay text (key=value pairs joined by ';'). */
static void pg_ddl(struct buf *out, const struct names *names)
{
    buf_adds(out, "CREATE TABLE benchdb_result (\n");
    for (int i = 0; i < N_FIELDS; i++)
        buf_addf(out, "    %s %s,\n", fields[i], pg_types[i]);
    buf_adds(out, "    tags text");
    for (size_t i = 0; i < names->n; i++)
        buf_addf(out, ",\n    %s double precision", names->v[i]);
    buf_adds(out, "\n);\n");
}

/* One field with its bytes exact: RFC 4180 quoting (libcsv's) when it holds a comma, a quote or
 * a line break, and no spreadsheet guard (report_csv_field's ' before = + - @): the export is
 * data for programs (docs/export.md), and "-1" or "=x" must load back as it was stored. */
static void csv_exact(struct buf *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        buf_adds(out, s);
        return;
    }
    size_t len = strlen(s), need = csv_write(NULL, 0, s, len);
    buf_grow(out, need);
    csv_write(out->data + out->len, need, s, len);
    out->len += need;
    out->data[out->len] = '\0';
}

static void csv_row(struct buf *out, sqlite3_stmt *st, const struct names *names,
                    const struct row *row)
{
    for (int i = 0; i < N_FIELDS; i++) {
        if (i)
            buf_addc(out, ',');
        if (sqlite3_column_type(st, i) == SQLITE_FLOAT)
            fmt_plain_number(out, sqlite3_column_double(st, i));
        else if (sqlite3_column_type(st, i) != SQLITE_NULL)
            csv_exact(out, sql_text(st, i));
    }
    struct buf tags = BUF_INIT;
    for (size_t i = 0; i < row->tag_keys.n; i++)
        buf_addf(&tags, "%s%s=%s", i ? ";" : "", row->tag_keys.v[i], row->tag_vals.v[i]);
    buf_addc(out, ',');
    csv_exact(out, tags.data);
    buf_release(&tags);
    for (size_t i = 0; i < names->n; i++) {
        buf_addc(out, ',');
        if (row->present[i])
            fmt_plain_number(out, row->metric[i]);
    }
    buf_adds(out, "\r\n");
}

/* The fixed fields of every result, then its value of each metric in names. */
static int select_sql(struct db *db, const struct names *names, const struct time_range *dates,
                      struct buf *sql, struct diag *d)
{
    buf_adds(sql, "SELECT ");
    for (int i = 0; i < N_FIELDS; i++)
        buf_addf(sql, "%sv.%s", i ? ", " : "", fields[i]);
    for (size_t i = 0; i < names->n; i++) {
        buf_adds(sql, ", ");
        if (db_metric_expr(db, sql, "v", names->v[i], d))
            return -1;
    }
    buf_adds(sql, " FROM v_result v WHERE 1");
    db_time_range_sql(sql, "unixepoch(v.started_at)", dates);
    buf_adds(sql, " ORDER BY v.result_id");
    return 0;
}

/* The rows of sql (select_sql's) into out in fmt; 0, or -1 after a message. */
static int export_rows(sqlite3 *h, enum export_format fmt, const char *sql,
                       const struct names *names, struct buf *out, struct diag *d)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc, sql);
    sqlite3_stmt *tst =
        sql_prepare(h, &rc, "SELECT key, value FROM tag WHERE result_id = ? ORDER BY key");
    struct row row = {{0}, {0}, NULL, NULL};
    row.metric = sqlite3_malloc64(sizeof(double) * (names->n + 1));
    row.present = sqlite3_malloc64(sizeof(int) * (names->n + 1));
    if (rc == SQLITE_OK && fmt == EXPORT_CSV)
        csv_header(out, names);
    while (sql_step(st, &rc)) {
        load_details(st, tst, sqlite3_column_int64(st, 0), names, &row, &rc);
        if (fmt == EXPORT_CSV)
            csv_row(out, st, names, &row);
        else
            ndjson_row(out, st, names, &row);
        release_tags(&row);
    }
    sqlite3_free(row.metric);
    sqlite3_free(row.present);
    /* said before the statements are finalized, which would set the message to "not an error" */
    int failed = rc != SQLITE_OK ? diag_error(d, "cannot export: %s", sqlite3_errmsg(h)) : 0;
    sqlite3_finalize(st);
    sqlite3_finalize(tst);
    return failed;
}

int query_export(struct db *db, enum export_format fmt, const struct time_range *dates,
                 struct buf *out, struct diag *d)
{
    struct names names = {0};
    struct buf sql = BUF_INIT;
    int rc = metric_names(db, &names, d);
    if (rc == 0 && fmt == EXPORT_PG_DDL)
        pg_ddl(out, &names);
    else if (rc == 0)
        rc = select_sql(db, &names, dates, &sql, d)
                 ? -1
                 : export_rows(db_handle(db), fmt, sql.data, &names, out, d);
    names_free(&names);
    buf_release(&sql);
    return rc;
}
