/* table_format.h: what benchdb runs and benchdb query share: the --format names and writing
 * rows to stdout as they come. */
#ifndef BDB_CLI_TABLE_FORMAT_H
#define BDB_CLI_TABLE_FORMAT_H

#include "../query/query.h"
#include "cli.h"

/* What --format takes: "table", "csv", "json", "md" (NULL-terminated). */
extern const char *const table_formats[];
/* The format named by one of table_formats. */
enum table_format table_format_of(const char *name);

/* Rows being written to stdout; status is the exit status they leave. */
struct stdout_rows {
    struct app *app;
    int status;
};
/* A sink that writes to stdout. A reader that went away (EPIPE: `| head`) stops the rows
 * quietly, as xsv does; any other failure is reported and sets status to BDB_EXIT_ENV. */
struct text_sink stdout_rows_sink(struct stdout_rows *o);
/* Flushes stdout; returns the exit status of the rows written. */
int stdout_rows_finish(struct stdout_rows *o);

/* The versions of the shapes of benchdb's own JSON lists: runs, runs --history and baseline
 * list (docs/runs.schema.json; 2: run_id, started_at and imported_at, were run, started and
 * imported) and labels (docs/labels.schema.json). */
enum { RUNS_JSON_SCHEMA = 2, LABELS_JSON_SCHEMA = 1 };
/* A query that writes its rows to a sink (query_runs, query_history, query_baselines). */
typedef int list_query_fn(struct db *db, const struct time_range *dates, enum table_format fmt,
                          struct text_sink *out, struct diag *d);
/* Writes a listing of benchdb's own to stdout: in JSON a versioned object
 * {"schema": RUNS_JSON_SCHEMA, "NAME": [rows]} (docs/runs.schema.json), so that fields can be added
 * without breaking readers; the other formats as the rows are. dates (NULL: all) is passed on.
 * Returns the exit status. */
int write_list(struct app *app, struct db *db, const struct time_range *dates,
               enum table_format fmt, const char *name, list_query_fn *query);

/* What writes a listing's rows to out in fmt (query.h's text_sink contract), with its ctx. */
typedef int list_rows_fn(void *ctx, enum table_format fmt, struct text_sink *out, struct diag *d);
/* write_list for any listing of shape schema: rows_fn(ctx, ...) writes the rows. */
int write_list_rows(struct app *app, enum table_format fmt, int schema, const char *name,
                    list_rows_fn *rows_fn, void *ctx);

#endif
