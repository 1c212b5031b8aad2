/* cmd_push.c: benchdb push. */
#include "cli.h"

#include <stdio.h>

#include "../fleet/fleet.h"
#include "progress.h"

static const char usage[] =
    "usage: benchdb push [-j N] URL\n"
    "\n"
    "Send this warehouse's results to the fleet's PostgreSQL warehouse at URL (a libpq URL,\n"
    "postgresql://[user@]host[:port]/dbname[?param=value...]), creating or upgrading its\n"
    "schema first: every source file the server does not hold (by sha256) with its runs,\n"
    "results, tags, histograms, series and mounts, whole files in one transaction per batch,\n"
    "then the label changes (benchdb relabel) the server has not seen. Pushing again, or the\n"
    "same file from another host, stores nothing twice; pushes to one server take turns. The\n"
    "password comes from PGPASSWORD or ~/.pgpass (one in the URL is used with a warning, and\n"
    "hidden from ps as soon as it is read), TLS from the URL's parameters\n"
    "(sslmode=verify-full&sslrootcert=FILE); see " BENCHDB_DOCDIR "/fleet.md.\n"
    "\n"
    "  -j, --jobs N   send N batches at a time, each over connections of its own (default:\n"
    "                 the number of CPUs, at most 4)\n"
    "  -h, --help     show this help\n"
    "\n"
    "Examples:\n"
    "  benchdb push postgresql://bench_push@db.lab/bench\n"
    "  benchdb --db postgresql://bench_read@db.lab/bench report --compare disk nfs\n";

/* More connections than this buy nothing: the server's writes to the same tables and the
 * local reads of one warehouse are what they share (bench/RESULTS.md). */
enum { PUSH_JOBS_DEFAULT_MAX = 4 };

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
    unsigned jobs = cpu_count() < PUSH_JOBS_DEFAULT_MAX ? cpu_count() : PUSH_JOBS_DEFAULT_MAX;
    const struct opt opts[] = {
        OPT_UINT('j', "jobs", &jobs, 64, "send N batches at a time"),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, 0);
    if (status == BDB_EXIT_OK)
        status = one_operand("push", argc, argv, "no server URL given");
    if (status != BDB_EXIT_OK)
        return status < 0 ? BDB_EXIT_OK : status;
    const char *url = conn_arg(app, argv[1], 1);
    if (!fleet_is_url(url))
        return usage_error("push", "expected a postgresql:// URL, got '%s'", url);
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    struct progress shown = {0};
    struct fleet_progress progress = {on_start, on_batch, &shown};
    struct fleet_push_counts c;
    int rc = fleet_push(db, url, jobs, &progress, &c, &app->diag);
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
