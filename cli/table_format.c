#include "table_format.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/array.h"

const char *const table_formats[] = {"table", "csv", "json", "md", "ndjson", NULL};

enum table_format table_format_of(const char *name)
{
    static const enum table_format fmts[] = {TABLE_TEXT, TABLE_CSV, TABLE_JSON, TABLE_MD,
                                             TABLE_NDJSON};
    size_t i = 0;
    while (i + 1 < ARRAY_SIZE(fmts) && strcmp(name, table_formats[i]))
        i++;
    return fmts[i];
}

/* After a failed write to stdout: always -1, to stop the rows. */
static int stdout_failed(struct stdout_rows *o)
{
    if (errno != EPIPE && o->status == BDB_EXIT_OK) {
        diag_error(&o->app->diag, "cannot write '<stdout>': %s", strerror(errno));
        o->status = BDB_EXIT_ENV;
    }
    return -1;
}

static int write_stdout(void *ctx, const char *data, size_t len)
{
    return fwrite(data, 1, len, stdout) == len ? 0 : stdout_failed(ctx);
}

struct text_sink stdout_rows_sink(struct stdout_rows *o)
{
    struct text_sink sink = {write_stdout, o};
    return sink;
}

int stdout_rows_finish(struct stdout_rows *o)
{
    if (fflush(stdout))
        stdout_failed(o);
    return o->status;
}

int write_list_rows(struct app *app, enum table_format fmt, int schema, const char *name,
                    list_rows_fn *rows_fn, void *ctx)
{
    struct stdout_rows rows = {app, BDB_EXIT_OK};
    struct text_sink sink = stdout_rows_sink(&rows);
    int json = fmt == TABLE_JSON;
    if (json && printf("{\"schema\": %d, \"%s\": ", schema, name) < 0)
        stdout_failed(&rows);
    int rc = rows.status == BDB_EXIT_OK ? rows_fn(ctx, fmt, &sink, &app->diag) : 1;
    if (rc < 0)
        return BDB_EXIT_ENV;
    if (json && rc == 0 && fputs("}\n", stdout) == EOF)
        stdout_failed(&rows);
    return stdout_rows_finish(&rows);
}

/* A list_query_fn with its warehouse and dates, as a list_rows_fn. */
struct dated_list {
    struct db *db;
    const struct time_range *dates;
    list_query_fn *query;
};

static int dated_rows(void *ctx, enum table_format fmt, struct text_sink *out, struct diag *d)
{
    const struct dated_list *l = ctx;
    return l->query(l->db, l->dates, fmt, out, d);
}

int write_list(struct app *app, struct db *db, const struct time_range *dates,
               enum table_format fmt, const char *name, list_query_fn *query)
{
    struct dated_list l = {db, dates, query};
    return write_list_rows(app, fmt, RUNS_JSON_SCHEMA, name, dated_rows, &l);
}
