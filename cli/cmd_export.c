/* cmd_export.c: benchdb export. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../query/query.h"

static const char usage[] =
    "usage: benchdb export [--format ndjson|csv|pg-ddl] [--since D] [--until D] [-o FILE]\n"
    "\n"
    "Write every result (one record per job and direction) with its context and metrics in\n"
    "base units; unknown values are null. The field list is stable, documented in\n" BENCHDB_DOCDIR
    "/export.md.\n"
    "\n"
    "  --format F            ndjson (default), csv, or pg-ddl: the PostgreSQL CREATE TABLE\n"
    "                        that this warehouse's CSV export loads into with COPY\n"
    "  --since D, --until D  only runs started from / up to D, an ISO 8601 date or timestamp\n"
    "                        (UTC unless it has an offset; a bare --until date includes its day)\n"
    "  -o FILE               write to FILE instead of standard output\n"
    "\n"
    "Examples:\n"
    "  benchdb export | jq 'select(.storage_class == \"nfs-csi\") | .bw_bytes_s'\n"
    "  benchdb export --format csv -o results.csv\n";

/* getopt's code c was not taken: an unknown --format names itself, getopt reported the rest. */
static int unknown_format_or_usage(int c)
{
    if (c == 'f')
        fprintf(stderr,
                "benchdb export: error: unknown format '%s' (expected ndjson, csv or pg-ddl)\n",
                optarg);
    return usage_exit(usage, BDB_EXIT_USAGE);
}

int cmd_export(int argc, char **argv, struct app *app)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        TIME_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    enum export_format fmt = EXPORT_NDJSON;
    const char *output = NULL;
    struct time_range dates = TIME_RANGE_ALL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        if (c == 'f' && (!strcmp(optarg, "ndjson") || !strcmp(optarg, "json")))
            fmt = EXPORT_NDJSON;
        else if (c == 'f' && !strcmp(optarg, "csv"))
            fmt = EXPORT_CSV;
        else if (c == 'f' && !strcmp(optarg, "pg-ddl"))
            fmt = EXPORT_PG_DDL;
        else if (c == 'o')
            output = optarg;
        else if (c == 'h')
            return usage_exit(usage, BDB_EXIT_OK);
        else if (time_option("export", c, optarg, &dates) == 1)
            continue;
        else
            return unknown_format_or_usage(c);
    }
    if (optind != argc)
        return unexpected_argument("export", usage, argv[optind]);
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    struct buf out = BUF_INIT;
    int status = query_export(db, fmt, &dates, &out, &app->diag)
                     ? BDB_EXIT_ENV
                     : write_output(app, output, out.data, out.len);
    buf_release(&out);
    db_close(db);
    return status;
}
