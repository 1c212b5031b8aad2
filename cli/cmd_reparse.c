/* cmd_reparse.c: benchdb reparse. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

#include "../core/arena.h"
#include "../ingest/importer.h"

static const char usage[] =
    "usage: benchdb reparse [--where KEY=VALUE]...\n"
    "\n"
    "Re-derive the stored results from the raw output kept in the warehouse with the current\n"
    "importers (the format each file was imported as). Labels set at import or by relabel\n"
    "(host, storage_class, sec, mount, tags) and their history are kept, results matched by\n"
    "job and direction in order. Each source is one transaction; a source whose results come\n"
    "out the same is left untouched. Prints what changed per source. A source whose stored\n"
    "bytes do not decode (damaged, or merged by an older benchdb) is named with the reason and\n"
    "left as it is, the others reparsed, and the exit status is 1.\n"
    "\n"
    "  --where KEY=VALUE  only sources with a matching result (keys as in 'benchdb relabel')\n"
    "  -h, --help         show this help\n";

static void report(const struct db_stored *s, const struct reparse_counts *c)
{
    if (!c->changed) {
        printf("%s: unchanged (%zu results)\n", s->path, c->results_before);
        return;
    }
    printf("%s: results %zu -> %zu (%zu added, %zu removed, %zu changed), metrics %zu added, "
           "%zu removed, %zu changed, %zu tags added%s\n",
           s->path, c->results_before, c->results_after, c->results_added, c->results_removed,
           c->results_changed, c->metrics_added, c->metrics_removed, c->metrics_changed,
           c->tags_added, c->runs_changed ? ", run details changed" : "");
}

/* Re-derives one source: IMPORT_STORED (changed or not), IMPORT_REJECTED by the importer (or
 * its stored bytes do not decode), or IMPORT_FAILED_DB. */
static enum import_outcome reparse_one(struct app *app, struct db *db, int64_t id)
{
    struct db_stored s;
    int loaded = db_stored_load(db, id, &s, &app->diag);
    if (loaded) /* bytes that do not decode are said, and the other sources reparsed */
        return loaded > 0 ? IMPORT_REJECTED : IMPORT_FAILED_DB;
    const struct importer *imp = importer_find(s.format);
    struct db_import *di = NULL;
    struct arena a = ARENA_INIT;
    int rc = -2;
    if (!imp) {
        rc = diag_error(&app->diag, "%s: format '%s' is no longer known; left as it is", s.path,
                        s.format);
    } else if ((di = db_reparse_begin(db, &s, &app->diag))) {
        struct record_sink sink = db_import_sink(di);
        rc = imp->parse(&s.src, &a, &sink, &app->diag);
        struct reparse_counts c;
        if (rc == 0)
            rc = db_reparse_finish(db, &s, &c, &app->diag) ? -2 : 0;
        else
            db_rollback(db);
        if (rc == 0)
            report(&s, &c);
    }
    db_import_free(di);
    arena_release(&a);
    db_stored_release(&s);
    return rc == 0 ? IMPORT_STORED : rc == -1 ? IMPORT_REJECTED : IMPORT_FAILED_DB;
}

int cmd_reparse(int argc, char **argv, struct app *app)
{
    struct kv_list where = {0};
    const struct opt opts[] = {
        OPT_CALLBACK(0, "where", &where, "KEY=VALUE", "only sources with a matching result",
                     opt_filter),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    struct db *db = NULL;
    int64_t *ids = NULL;
    size_t n = 0;
    if (status == BDB_EXIT_OK && (open_db(app, DB_READ_WRITE, &db) ||
                                  db_sources_matching(db, where.v, where.n, &ids, &n, &app->diag)))
        status = BDB_EXIT_ENV;
    for (size_t i = 0; status != BDB_EXIT_ENV && i < n; i++) {
        int rc = import_exit_status(reparse_one(app, db, ids[i]));
        if (rc != BDB_EXIT_OK)
            status = rc;
    }
    free(ids);
    kv_list_release(&where);
    db_close(db);
    return status < 0 ? BDB_EXIT_OK : status;
}
