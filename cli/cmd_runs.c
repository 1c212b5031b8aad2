/* cmd_runs.c: benchdb runs. */
#include "cli.h"

#include <stdio.h>

#include "table_format.h"

static const char usage[] =
    "usage: benchdb runs [--history] [--since D] [--until D] [--format table|csv|json|md|ndjson]\n"
    "\n"
    "List the imported runs (one per imported file) with their hosts, storage classes,\n"
    "security flavors, mount options, result counts and dates. With --history, list every\n"
    "label change made by 'benchdb relabel' and every result removed by 'benchdb rm'\n"
    "instead (who, when, old and new value), of the results of those runs. --format json\n"
    "writes {\"schema\": 2, \"runs\": [...]} (or \"history\"), one object per row\n"
    "(" BENCHDB_DOCDIR "/runs.schema.json).\n"
    "\n"
    "  --since D, --until D  only runs started from / up to D, an ISO 8601 date or timestamp\n"
    "                        (UTC unless it has an offset; a bare --until date includes its day)\n";

int cmd_runs(int argc, char **argv, struct app *app)
{
    const char *format = "table";
    struct time_range dates = TIME_RANGE_ALL;
    int history = 0;
    const struct opt opts[] = {
        OPT_FLAG(0, "history", &history, "label changes and removals instead"),
        OPT_SINCE(&dates),
        OPT_UNTIL(&dates),
        OPT_ENUM(0, "format", &format, table_formats, "output format"),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    if (status != BDB_EXIT_OK)
        return status < 0 ? BDB_EXIT_OK : status;
    enum table_format fmt = table_format_of(format);
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    status = history ? write_list(app, db, &dates, fmt, "history", query_history)
                     : write_list(app, db, &dates, fmt, "runs", query_runs);
    db_close(db);
    return status;
}
