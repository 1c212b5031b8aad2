/* cmd_push.c: benchdb push. */
#include "cli.h"

#include <stdio.h>
#include <unistd.h> /* optind */

#include "../fleet/fleet.h"
#include "progress.h"

static const char usage[] =
    "usage: benchdb push URL\n"
    "\n"
    "Send this warehouse's results to the fleet's PostgreSQL warehouse at URL (a libpq URL,\n"
    "postgresql://[user@]host[:port]/dbname[?param=value...]), creating or upgrading its\n"
    "schema first: every source file the server does not hold (by sha256) with its runs,\n"
    "results, tags, histograms, series and mounts, whole files in one transaction per batch,\n"
    "then the label changes (benchdb relabel) the server has not seen. Pushing again, or the\n"
    "same file from another host, stores nothing twice. The password comes from PGPASSWORD or\n"
    "~/.pgpass, TLS from the URL's parameters (sslmode=verify-full&sslrootcert=FILE); see\n" BENCHDB_DOCDIR
    "/fleet.md.\n"
    "\n"
    "  -h, --help   show this help\n"
    "\n"
    "Examples:\n"
    "  benchdb push postgresql://bench_push@db.lab/bench\n"
    "  benchdb --db postgresql://bench_read@db.lab/bench report --compare disk nfs\n";

static void on_start(void *ctx, size_t sources)
{
    progress_start(ctx, sources, "files");
}

static void on_batch(void *ctx, size_t sources, size_t results)
{
    struct progress *p = ctx;
    progress_results(p, results - p->results);
    while (p->done < sources)
        progress_step(p, NULL);
}

int cmd_push(int argc, char **argv, struct app *app)
{
    int status;
    if (help_only_options(app, argc, argv, usage, &status))
        return status;
    if (optind == argc)
        return usage_error(usage, "push", "no server URL given");
    if (optind + 1 != argc)
        return unexpected_argument("push", usage, argv[optind + 1]);
    if (!fleet_is_url(argv[optind]))
        return usage_error(usage, "push", "expected a postgresql:// URL");
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    struct progress shown = {0};
    struct fleet_progress progress = {on_start, on_batch, &shown};
    struct fleet_push_counts c;
    int rc = fleet_push(db, argv[optind], 2, &progress, &c, &app->diag);
    progress_end(&shown);
    db_close(db);
    if (rc)
        return BDB_EXIT_INPUT;
    fprintf(stderr,
            "pushed %zu source%s (%zu runs, %zu results); %zu already on the server; %zu label "
            "change%s\n",
            c.sources, c.sources == 1 ? "" : "s", c.runs, c.results, c.present, c.labels,
            c.labels == 1 ? "" : "s");
    return BDB_EXIT_OK;
}
