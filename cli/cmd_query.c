/* cmd_query.c: benchdb query, read-only SQL over the documented views. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>

#include "table_format.h"

static const char usage[] =
    "usage: benchdb query [--format table|csv|json|md] \"SELECT ...\"\n"
    "\n"
    "Run one read-only SQL statement. The database is opened read-only: statements that would\n"
    "write, ATTACH or set a PRAGMA are refused. Views: v_result (one row per result with its\n"
    "context), v_metric (one row per metric value); tables are documented in docs/schema.md.\n"
    "\n"
    "Examples:\n"
    "  benchdb query \"SELECT storage_class, rw, avg(bw_bytes_s) FROM v_result GROUP BY 1, 2\"\n";

int cmd_query(int argc, char **argv, struct app *app)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    enum table_format fmt = TABLE_TEXT;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'f' && parse_table_format(optarg, &fmt) == 0)
            continue;
        if (c == 'h')
            return usage_exit(usage, BDB_EXIT_OK);
        if (c == 'f')
            fprintf(stderr, "benchdb query: error: unknown format '%s'\n", optarg);
        return usage_exit(usage, BDB_EXIT_USAGE);
    }
    if (optind != argc - 1)
        return usage_exit(usage, BDB_EXIT_USAGE);
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    struct buf out = BUF_INIT;
    int status = query_sql(db, argv[optind], fmt, &out, &app->diag)
                     ? BDB_EXIT_INPUT
                     : write_output(app, NULL, out.data, out.len);
    buf_release(&out);
    db_close(db);
    return status;
}
