/* cmd_merge.c: benchdb merge. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

#include "../core/xalloc.h"
#include "../fleet/fleet.h"

static const char usage[] =
    "usage: benchdb merge OTHER.sqlite...\n"
    "\n"
    "Copy into this warehouse every source of each OTHER warehouse (opened read-only) whose\n"
    "content (sha256) is not stored here, with its runs, results, metrics, tags, histograms,\n"
    "series, mounts and label history. Merging the same warehouse again changes nothing. A\n"
    "source stored in both with different labels is reported as a warning; the labels stored\n"
    "here are kept. Each OTHER is one transaction: when the stored bytes of a source to be\n"
    "copied do not match its sha256, nothing of that OTHER is merged (exit status 1).\n"
    "\n"
    "  -h, --help   show this help\n";

int cmd_merge(int argc, char **argv, struct app *app)
{
    static const struct opt opts[] = {OPT_END()};
    int status = parse_options(app, &argc, argv, usage, opts, 0);
    if (status != BDB_EXIT_OK)
        return status < 0 ? BDB_EXIT_OK : status;
    if (argc == 1)
        return usage_error("merge", "no warehouse to merge");
    /* a server URL given by mistake: its password overwritten in argv at once */
    const char **paths = xcalloc((size_t)argc, sizeof(*paths));
    for (int i = 1; i < argc; i++)
        paths[i] = conn_arg(app, argv[i], 1);
    struct db *db;
    if (open_db(app, DB_CREATE, &db)) {
        free(paths);
        return BDB_EXIT_ENV;
    }
    status = BDB_EXIT_OK;
    for (int i = 1; i < argc; i++) {
        struct merge_counts m;
        if (fleet_is_url(paths[i])) { /* SQLite would quote it as a URI, its password too */
            diag_error(&app->diag,
                       "cannot merge '%s': a PostgreSQL warehouse is read with --db and "
                       "sent to with push, not merged",
                       paths[i]);
            status = BDB_EXIT_ENV;
            continue;
        }
        int rc = db_merge(db, paths[i], &m, &app->diag);
        if (rc == -2)
            status = BDB_EXIT_ENV;
        else if (rc == -1 && status == BDB_EXIT_OK)
            status = BDB_EXIT_INPUT;
        if (rc)
            continue;
        struct buf name = BUF_INIT;
        diag_escape(&name, argv[i]); /* its password, if any, overwritten */
        fprintf(stderr,
                "%s: merged %zu source%s (%zu runs, %zu results); %zu already stored, "
                "%zu with differing labels\n",
                name.data, m.sources, m.sources == 1 ? "" : "s", m.runs, m.results, m.skipped,
                m.conflicts);
        buf_release(&name);
    }
    db_close(db);
    free(paths);
    return status;
}
