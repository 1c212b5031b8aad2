/* cmd_labels.c: benchdb labels. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>

#include "table_format.h"

static const char usage[] =
    "usage: benchdb labels [KEY] [--where KEY=VALUE]... [--since D] [--until D]\n"
    "                      [--format table|csv|json|md | -z]\n"
    "\n"
    "List the labels of the stored results, each value with how many results and runs have it:\n"
    "storage classes, hosts, security flavors (sec), mount options (mount:OPTION; a flag such\n"
    "as 'hard' has no value) and tags (tag:NAME). Each row's key and value are what --by,\n"
    "--compare and --where take in 'benchdb report' and 'benchdb check'. With KEY (any --by\n"
    "key: storage-class, host, sec, mount:OPTION, tag:NAME, rw, bs, ...), only that key's values.\n"
    "--format json writes {\"schema\": 1, \"labels\": [...]} (docs/labels.schema.json).\n"
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
    enum table_format fmt;
};

/* The option c with its argument; 0, or BDB_EXIT_USAGE after a message, or -1 after -h. */
static int take_option(struct labels_cli *o, int c, char *arg)
{
    if (c == 'f' && parse_table_format(arg, &o->fmt) == 0)
        return 0;
    if (c == 'z') {
        o->q.nul = 1;
        return 0;
    }
    if (c == 'w')
        return where_option("labels", arg, &o->where) ? BDB_EXIT_USAGE : 0;
    if (time_option("labels", c, arg, &o->dates) == 1)
        return 0;
    if (c == 'f')
        fprintf(stderr, "benchdb labels: error: unknown format '%s'\n", arg);
    return c == 'h' ? -1 : BDB_EXIT_USAGE;
}

static int parse_options(struct app *app, int argc, char **argv, struct labels_cli *o)
{
    static const struct option longopts[] = {
        {"where", required_argument, NULL, 'w'},
        {"format", required_argument, NULL, 'f'},
        {"null", no_argument, NULL, 'z'},
        {"help", no_argument, NULL, 'h'},
        TIME_LONGOPTS,
        DB_LONGOPT,
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = next_option(app, argc, argv, "hz", longopts)) != -1) {
        int status = take_option(o, c, optarg);
        if (status)
            return status < 0 ? usage_exit(usage, BDB_EXIT_OK) - 1 : usage_exit(usage, status);
    }
    if (optind < argc)
        o->q.key = argv[optind++];
    if (optind != argc)
        return unexpected_argument("labels", usage, argv[optind]);
    if (o->q.key && !query_key_known(o->q.key)) {
        fprintf(stderr,
                "benchdb labels: error: unknown key '%s' (expected storage-class, host, sec, "
                "mount:OPTION, tag:NAME or another --by key)\n",
                o->q.key);
        return usage_exit(usage, BDB_EXIT_USAGE);
    }
    return BDB_EXIT_OK;
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
    struct labels_cli o = {.dates = TIME_RANGE_ALL, .fmt = TABLE_TEXT};
    int status = parse_options(app, argc, argv, &o);
    struct db *db = NULL;
    if (status == BDB_EXIT_OK && open_db(app, DB_READ_ONLY, &db))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK) {
        o.q.where = o.where.v;
        o.q.nwhere = o.where.n;
        o.q.dates = &o.dates;
        struct labels_run run = {db, &o.q};
        status = write_list_rows(app, o.fmt, "labels", labels_rows, &run);
    }
    if (db)
        db_close(db);
    kv_list_release(&o.where);
    return status < 0 ? BDB_EXIT_OK : status;
}
