/* cmd_labels.c: benchdb labels. */
#include "cli.h"

#include <stdio.h>

#include "table_format.h"

static const char usage[] =
    "usage: benchdb labels [KEY] [--where KEY=VALUE]... [--since D] [--until D]\n"
    "                      [--format table|csv|json|md|ndjson | -z]\n"
    "\n"
    "List the labels of the stored results, each value with how many results and runs have it:\n"
    "storage classes, hosts, security flavors (sec), mount options (mount:OPTION; a flag such\n"
    "as 'hard' has no value) and tags (tag:NAME). Each row's key and value are what --by,\n"
    "--compare and --where take in 'benchdb report' and 'benchdb check'. With KEY (any --by\n"
    "key: storage-class, host, sec, mount:OPTION, tag:NAME, rw, bs, ...), only that key's values.\n"
    "--format json writes {\"schema\": 1, \"labels\": [...]}\n"
    "(" BENCHDB_DOCDIR "/labels.schema.json).\n"
    "\n"
    "  --where KEY=VALUE     count only the results that match (repeatable), as in 'benchdb report'\n"
    "  -z, --null            for scripts and shell completion: each label as KEY=VALUE (with KEY:\n"
    "                      VALUE alone) followed by a NUL byte, its bytes exactly as stored\n"
    "  --since D, --until D  only runs started from / up to D, an ISO 8601 date or timestamp\n"
    "                        (UTC unless it has an offset; a bare --until date includes its day)\n"
    "\n"
    "Examples:\n"
    "  benchdb labels\n"
    "  benchdb labels storage-class --where host=node7 --format csv\n";

struct labels_cli {
    struct labels_opts q;
    struct kv_list where;
    struct time_range dates;
    const char *format;
};

static int parse(struct app *app, int argc, char **argv, struct labels_cli *o)
{
    const struct opt opts[] = {
        OPT_CALLBACK(0, "where", &o->where, "KEY=VALUE", "count only the results that match",
                     opt_where),
        OPT_SINCE(&o->dates),
        OPT_UNTIL(&o->dates),
        OPT_ENUM(0, "format", &o->format, table_formats, "output format"),
        OPT_FLAG('z', "null", &o->q.nul, "each label as KEY=VALUE and a NUL byte"),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, 0);
    if (status != BDB_EXIT_OK)
        return status;
    if (argc > 2)
        return usage_error("labels", "unexpected argument '%s'", argv[2]);
    o->q.key = argc > 1 ? argv[1] : NULL;
    if (!o->q.key || query_key_known(o->q.key))
        return BDB_EXIT_OK;
    cli_error_near("labels", o->q.key, "", by_keys,
                   "unknown key '%s' (expected storage-class, host, sec, mount:OPTION, tag:NAME "
                   "or another --by key)",
                   o->q.key);
    return usage_hint("labels");
}

struct labels_run {
    struct db *db;
    const struct labels_opts *q;
};

static int labels_rows(void *ctx, enum table_format fmt, struct text_sink *out, struct diag *d)
{
    const struct labels_run *r = ctx;
    return query_labels(r->db, r->q, fmt, out, d);
}

int cmd_labels(int argc, char **argv, struct app *app)
{
    struct labels_cli o = {.dates = TIME_RANGE_ALL, .format = "table"};
    int status = parse(app, argc, argv, &o);
    struct db *db = NULL;
    if (status == BDB_EXIT_OK && open_db(app, DB_READ_ONLY, &db))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK) {
        o.q.where = o.where.v;
        o.q.nwhere = o.where.n;
        o.q.dates = &o.dates;
        struct labels_run run = {db, &o.q};
        status = write_list_rows(app, table_format_of(o.format), LABELS_JSON_SCHEMA, "labels",
                                 labels_rows, &run);
    }
    if (db)
        db_close(db);
    kv_list_release(&o.where);
    return status < 0 ? BDB_EXIT_OK : status;
}
