/* cmd_baseline.c: benchdb baseline save|list|rm. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "table_format.h"

static const char usage[] =
    "usage: benchdb baseline save NAME [--where KEY=VALUE]... | list [--format F] | rm NAME\n"
    "\n"
    "Save which results form a baseline, under a name, in the warehouse. A comparison then\n"
    "names it as a side: 'benchdb check --compare baseline:NAME CANDIDATE' (report too). The\n"
    "results are saved, not the filters: results imported later do not join it, and results\n"
    "removed by 'benchdb rm' leave it. 'benchdb merge' brings baselines along.\n"
    "\n"
    "  save NAME          NAME: letters, digits, '.', '_', '-'; a saved NAME is not replaced\n"
    "  --where KEY=VALUE  keys: storage_class, host, sec, job, rw, source (the imported path),\n"
    "                     run (run id), tag:NAME; none: every result\n"
    "  list               the saved baselines with their result counts\n"
    "  --format F         with list: table (default), csv, json, md, ndjson\n"
    "  rm NAME            forget a baseline (its results stay)\n"
    "\n"
    "Examples:\n"
    "  benchdb baseline save nightly-ref --where storage_class=nfs-csi --where tag:build=812\n"
    "  benchdb check --compare baseline:nightly-ref nfs-csi --by storage-class\n";

struct baseline_opts {
    const char *verb, *name;
    struct kv_list where;
    const char *format;
};

/* The verbs, a word each: "save NAME", "list", "rm NAME". */
static const char *const verbs[] = {"save", "list", "rm", NULL};

/* The verb and NAME from the operands argv[1..argc). */
static int parse_words(int argc, char **argv, struct baseline_opts *o)
{
    o->verb = argc > 1 ? argv[1] : "";
    int named = !strcmp(o->verb, "save") || !strcmp(o->verb, "rm");
    if (!named && strcmp(o->verb, "list")) {
        cli_error_near("baseline", o->verb, "", verbs, "expected save, list or rm, got '%s'",
                       o->verb);
        return usage_hint("baseline");
    }
    o->name = named && argc > 2 ? argv[2] : NULL;
    if (named && (!o->name || !db_baseline_name_ok(o->name)))
        return usage_error("baseline",
                           "expected a NAME of letters, digits, '.', '_' or '-', got '%s'",
                           o->name ? o->name : "");
    if (argc > 2 + named)
        return usage_error("baseline", "unexpected argument '%s'", argv[2 + named]);
    if (o->where.n && strcmp(o->verb, "save"))
        return usage_error("baseline", "--where is for 'baseline save'");
    return BDB_EXIT_OK;
}

static int parse(struct app *app, int argc, char **argv, struct baseline_opts *o)
{
    const struct opt opts[] = {
        OPT_CALLBACK(0, "where", &o->where, "KEY=VALUE", "save the results that match", opt_filter),
        OPT_ENUM(0, "format", &o->format, table_formats, "output format of list"),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, 0);
    return status == BDB_EXIT_OK ? parse_words(argc, argv, o) : status;
}

/* save or rm in one transaction: BDB_EXIT_OK, BDB_EXIT_INPUT (a name taken or unknown, no
 * result to save) or BDB_EXIT_ENV. */
static int change(struct db *db, const struct baseline_opts *o, struct diag *d)
{
    struct buf filter = BUF_INIT;
    char when[32];
    size_t n = 0;
    now_iso(when);
    kv_list_text(&o->where, &filter);
    struct db_baseline b = {o->name, filter.data, user_name(), when};
    int rc = db_begin(db, d);
    if (rc == 0)
        rc = !strcmp(o->verb, "save") ? db_baseline_save(db, &b, o->where.v, o->where.n, &n, d)
                                      : db_baseline_remove(db, o->name, d);
    if (rc == 0 && db_commit(db, d))
        rc = -1;
    if (rc)
        db_rollback(db);
    else if (!strcmp(o->verb, "save"))
        printf("saved baseline '%s': %zu result%s\n", o->name, n, n == 1 ? "" : "s");
    else
        printf("removed baseline '%s'\n", o->name);
    buf_release(&filter);
    return rc == 0 ? BDB_EXIT_OK : rc > 0 ? BDB_EXIT_INPUT : BDB_EXIT_ENV;
}

int cmd_baseline(int argc, char **argv, struct app *app)
{
    struct baseline_opts o = {NULL, NULL, {0}, "table"};
    int status = parse(app, argc, argv, &o);
    struct db *db = NULL;
    int reading = status == BDB_EXIT_OK && !strcmp(o.verb, "list");
    if (status == BDB_EXIT_OK && open_db(app, reading ? DB_READ_ONLY : DB_READ_WRITE, &db))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK)
        status = reading ? write_list(app, db, NULL, table_format_of(o.format), "baselines",
                                      query_baselines)
                         : change(db, &o, &app->diag);
    db_close(db);
    kv_list_release(&o.where);
    return status < 0 ? BDB_EXIT_OK : status;
}
