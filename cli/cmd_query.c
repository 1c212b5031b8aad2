/* cmd_query.c: benchdb query, read-only SQL over the documented views. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/scan.h"
#include "../fleet/fleet.h"
#include "table_format.h"

enum { SERVER_TIMEOUT_S = 30 };

static const char usage[] =
    "usage: benchdb query [--format F] [--timeout SECONDS] [--param NAME=VALUE]... STATEMENT|-\n"
    "\n"
    "Run one read-only SQL statement (- reads it from standard input) and print its rows as\n"
    "they come. The database is opened read-only: statements that would write, ATTACH or set\n"
    "a PRAGMA are refused, and so is every function but SQLite's core, date, JSON and math\n"
    "ones. Views: v_result (one row per result with its context), v_metric (one row per\n"
    "metric value), v_series_point (one row per logged point); tables are documented in\n" BENCHDB_DOCDIR
    "/schema.md.\n"
    "The table and md formats size their columns from the first 100 rows.\n"
    "With --db postgresql://..., the statement runs on the fleet's PostgreSQL server in a\n"
    "read-only transaction (PostgreSQL's SQL; the same views, with the same columns),\n"
    "stopped after --timeout (default 30 s).\n"
    "\n"
    "Options:\n"
    "  --format FORMAT    table (default), csv, json, md or ndjson (a JSON object per line)\n"
    "  --timeout SECONDS  stop a query still running after SECONDS (exit status 1)\n"
    "  --param NAME=VALUE the value of the statement's parameter :NAME (or @NAME, $NAME), an\n"
    "                     integer or a number when it reads as one, else text (repeatable;\n"
    "                     local warehouse only)\n"
    "\n"
    "Examples:\n"
    "  benchdb query \"SELECT storage_class, rw, avg(bw_bytes_s) FROM v_result GROUP BY 1, 2\"\n"
    "  benchdb query --timeout 10 --format csv \"SELECT * FROM v_metric\" | head\n"
    "  benchdb query --param c=nfs-csi \"SELECT * FROM v_result WHERE storage_class = :c\"\n"
    "  benchdb query - < report.sql\n";

/* --timeout SECONDS: a positive number. */
static int opt_seconds(const struct opt *opt, char *arg, const char *cmd)
{
    const char *s = arg;
    double *secs = opt->value;
    if (scan_number(&s, secs) && !*s && *secs > 0)
        return 0;
    cli_error(cmd, "expected a positive number of seconds for --timeout, got '%s'", arg);
    return -1;
}

/* The fleet's server runs the statement itself; its default timeout keeps a forgotten join
 * from holding a shared server's resources. */
static int query_server(struct app *app, const char *sql, enum table_format fmt, double timeout_s)
{
    struct stdout_rows rows = {app, BDB_EXIT_OK};
    struct text_sink sink = stdout_rows_sink(&rows);
    return fleet_query(app->db_path, sql, fmt, timeout_s > 0 ? timeout_s : SERVER_TIMEOUT_S, &sink,
                       &app->diag) < 0
               ? BDB_EXIT_INPUT
               : stdout_rows_finish(&rows);
}

/* The statement: the operand, or standard input's text for "-" (as sqlite3 reads it). */
static int read_sql(struct app *app, const char *operand, struct buf *sql)
{
    if (strcmp(operand, "-")) {
        buf_adds(sql, operand);
        return BDB_EXIT_OK;
    }
    if (!buf_read_file(sql, stdin))
        return BDB_EXIT_OK;
    diag_error(&app->diag, "cannot read the statement from standard input: %s", strerror(errno));
    return BDB_EXIT_ENV;
}

static int run_local(struct app *app, const char *sql, const struct kv_list *params,
                     enum table_format fmt, double timeout_s)
{
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    struct stdout_rows rows = {app, BDB_EXIT_OK};
    struct text_sink sink = stdout_rows_sink(&rows);
    int status = query_sql(db, sql, params->v, params->n, fmt, timeout_s, &sink, &app->diag) < 0
                     ? BDB_EXIT_INPUT
                     : stdout_rows_finish(&rows);
    db_close(db);
    return status;
}

int cmd_query(int argc, char **argv, struct app *app)
{
    const char *format = "table";
    double timeout_s = 0;
    struct kv_list params = {0};
    const struct opt opts[] = {
        OPT_ENUM(0, "format", &format, table_formats, "output format"),
        OPT_CALLBACK(0, "timeout", &timeout_s, "SECONDS", "stop a query still running after it",
                     opt_seconds),
        OPT_KV("param", &params, 0, "the value of the statement's parameter :NAME"),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, 0);
    if (status == BDB_EXIT_OK)
        status = one_operand("query", argc, argv, "no SQL given");
    if (status == BDB_EXIT_OK && params.n && fleet_is_url(app->db_path))
        status = usage_error("query", "--param is for a local warehouse (the server's "
                                      "PostgreSQL takes the values in the statement)");
    struct buf sql = BUF_INIT;
    if (status == BDB_EXIT_OK)
        status = read_sql(app, argv[1], &sql);
    enum table_format fmt = table_format_of(format);
    if (status == BDB_EXIT_OK)
        status = fleet_is_url(app->db_path) ? query_server(app, sql.data, fmt, timeout_s)
                                            : run_local(app, sql.data, &params, fmt, timeout_s);
    buf_release(&sql);
    kv_list_release(&params);
    return status < 0 ? BDB_EXIT_OK : status;
}
