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
    "  --format F            ndjson (default) or csv; without it, -o FILE's extension (.csv,\n"
    "                        .ndjson, .json, .jsonl) names the format; pg-ddl: the PostgreSQL\n"
    "                        CREATE TABLE that this warehouse's CSV export loads into\n"
    "  --since D, --until D  only runs started from / up to D, an ISO 8601 date or timestamp\n"
    "                        (UTC unless it has an offset; a bare --until date includes its day)\n"
    "  -o FILE               write to FILE instead of standard output\n"
    "\n"
    "Examples:\n"
    "  benchdb export | jq 'select(.storage_class == \"nfs-csi\") | .bw_bytes_s'\n"
    "  benchdb export --format csv -o results.csv\n";

/* What --format takes and -o FILE's extension may name: csv, else ndjson (one JSON object a
 * line, which .json and .jsonl files hold too). */
static const char *const formats[] = {"ndjson", "json", "jsonl", "csv", NULL};

/* --format, else -o FILE's extension: 0, or -1 after a message. */
static int export_format(const char *format, const char *output, enum export_format *fmt)
{
    if (!format && !(format = output_format("export", output, formats, "ndjson")))
        return -1;
    if (!strcmp(format, "pg-ddl")) { /* --format only: its output is SQL, not an export */
        *fmt = EXPORT_PG_DDL;
        return 0;
    }
    for (size_t i = 0; formats[i]; i++)
        if (!strcmp(format, formats[i])) {
            *fmt = strcmp(format, "csv") ? EXPORT_NDJSON : EXPORT_CSV;
            return 0;
        }
    fprintf(stderr, "benchdb export: error: unknown format '%s' (expected ndjson, csv or pg-ddl)\n",
            format);
    return -1;
}

int cmd_export(int argc, char **argv, struct app *app)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        TIME_LONGOPTS,
        DB_LONGOPT,
        {NULL, 0, NULL, 0},
    };
    enum export_format fmt = EXPORT_NDJSON;
    const char *output = NULL, *format = NULL;
    struct time_range dates = TIME_RANGE_ALL;
    int c;
    optind = 1;
    while ((c = next_option(app, argc, argv, "o:h", longopts)) != -1) {
        if (c == 'f')
            format = optarg;
        else if (c == 'o')
            output = optarg;
        else if (time_option("export", c, optarg, &dates) != 1)
            return usage_option(c, usage) < 0 ? BDB_EXIT_OK : BDB_EXIT_USAGE;
    }
    if (optind != argc)
        return unexpected_argument("export", usage, argv[optind]);
    if (export_format(format, output, &fmt))
        return usage_exit(usage, BDB_EXIT_USAGE);
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
