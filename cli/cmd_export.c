/* cmd_export.c: benchdb export. */
#include "cli.h"

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

/* What -o FILE's extension may name: csv, else ndjson (one JSON object a line, which .json
 * and .jsonl files hold too). */
static const char *const extensions[] = {"ndjson", "json", "jsonl", "csv", NULL};
/* What --format takes: the export's two formats, offered by completion, and pg-ddl, whose
 * output is SQL, not an export, and the other names of ndjson. */
static const char *const formats[] = {"ndjson", "csv", NULL};
static const char *const other_formats[] = {"pg-ddl", "json", "jsonl", NULL};

/* --format, else -o FILE's extension: 0, or -1 after a message. */
static int export_format(const char *format, const char *output, enum export_format *fmt)
{
    if (!format && !(format = output_format("export", output, extensions, "ndjson")))
        return -1;
    *fmt = !strcmp(format, "pg-ddl") ? EXPORT_PG_DDL
           : !strcmp(format, "csv")  ? EXPORT_CSV
                                     : EXPORT_NDJSON;
    return 0;
}

int cmd_export(int argc, char **argv, struct app *app)
{
    enum export_format fmt = EXPORT_NDJSON;
    const char *output = NULL, *format = NULL;
    struct time_range dates = TIME_RANGE_ALL;
    const struct opt opts[] = {
        OPT_ENUM_UNOFFERED("format", &format, formats, other_formats, "output format"),
        OPT_SINCE(&dates),
        OPT_UNTIL(&dates),
        OPT_STRING('o', "output", &output, "FILE", "write to FILE"),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    if (status != BDB_EXIT_OK)
        return status < 0 ? BDB_EXIT_OK : status;
    if (export_format(format, output, &fmt))
        return usage_hint("export");
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    struct buf out = BUF_INIT;
    status = query_export(db, fmt, &dates, &out, &app->diag)
                 ? BDB_EXIT_ENV
                 : write_output(app, output, out.data, out.len);
    buf_release(&out);
    db_close(db);
    return status;
}
