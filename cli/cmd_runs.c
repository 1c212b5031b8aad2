/* cmd_runs.c: benchdb runs. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>

#include "table_format.h"

static const char usage[] =
    "usage: benchdb runs [--history] [--since D] [--until D] [--format table|csv|json|md]\n"
    "\n"
    "List the imported runs (one per imported file) with their hosts, storage classes,\n"
    "security flavors, mount options, result counts and dates. With --history, list every\n"
    "label change made by 'benchdb relabel' and every result removed by 'benchdb rm'\n"
    "instead (who, when, old and new value), of the results of those runs. --format json\n"
    "writes {\"schema\": 1, \"runs\": [...]} (or \"history\"), one object per row\n"
    "(docs/runs.schema.json).\n"
    "\n"
    "  --since D, --until D  only runs started from / up to D, an ISO 8601 date or timestamp\n"
    "                        (UTC unless it has an offset; a bare --until date includes its day)\n";

int cmd_runs(int argc, char **argv, struct app *app)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"history", no_argument, NULL, 'H'},
        {"help", no_argument, NULL, 'h'},
        TIME_LONGOPTS,
        DB_LONGOPT,
        {NULL, 0, NULL, 0},
    };
    enum table_format fmt = TABLE_TEXT;
    struct time_range dates = TIME_RANGE_ALL;
    int c, history = 0;
    optind = 1;
    while ((c = next_option(app, argc, argv, "h", longopts)) != -1) {
        if (c == 'f' && parse_table_format(optarg, &fmt) == 0)
            continue;
        if (c == 'H') {
            history = 1;
            continue;
        }
        if (c == 'h')
            return usage_exit(usage, BDB_EXIT_OK);
        if (time_option("runs", c, optarg, &dates) == 1)
            continue;
        if (c == 'f')
            fprintf(stderr, "benchdb runs: error: unknown format '%s'\n", optarg);
        return usage_exit(usage, BDB_EXIT_USAGE);
    }
    if (optind != argc)
        return unexpected_argument("runs", usage, argv[optind]);
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    int status = history ? write_list(app, db, &dates, fmt, "history", query_history)
                         : write_list(app, db, &dates, fmt, "runs", query_runs);
    db_close(db);
    return status;
}
