/* cmd_runs.c: benchdb runs. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>

#include "table_format.h"

static const char usage[] =
    "usage: benchdb runs [--history] [--format table|csv|json|md]\n"
    "\n"
    "List the imported runs (one per imported file) with their hosts, storage classes,\n"
    "security flavors, mount options, result counts and dates. With --history, list every\n"
    "label change made by 'benchdb relabel' instead (who, when, old and new value).\n";

int cmd_runs(int argc, char **argv, struct app *app)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"history", no_argument, NULL, 'H'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    enum table_format fmt = TABLE_TEXT;
    int c, history = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'f' && parse_table_format(optarg, &fmt) == 0)
            continue;
        if (c == 'H') {
            history = 1;
            continue;
        }
        if (c == 'h')
            return usage_exit(usage, BDB_EXIT_OK);
        if (c == 'f')
            fprintf(stderr, "benchdb runs: error: unknown format '%s'\n", optarg);
        return usage_exit(usage, BDB_EXIT_USAGE);
    }
    if (optind != argc)
        return unexpected_argument("runs", usage, argv[optind]);
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    struct stdout_rows rows = {app, BDB_EXIT_OK};
    struct text_sink sink = stdout_rows_sink(&rows);
    int status = (history ? query_history : query_runs)(db, fmt, &sink, &app->diag) < 0
                     ? BDB_EXIT_ENV
                     : stdout_rows_finish(&rows);
    db_close(db);
    return status;
}
