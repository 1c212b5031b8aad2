/* cmd_rm.c: benchdb rm. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>

static const char usage[] =
    "usage: benchdb rm --where KEY=VALUE... [--empty] [--since D] [--until D] [--dry-run]\n"
    "\n"
    "Remove the stored results that match every --where filter, and the runs and imported\n"
    "files (with their stored bytes) left without results. Each removal is recorded with who\n"
    "made it, when and what the result was ('benchdb runs --history'); removed results leave\n"
    "their saved baselines. What is removed is listed, one line per run. The space is reused\n"
    "by later imports; 'benchdb vacuum' gives it back to the file system.\n"
    "\n"
    "  --where KEY=VALUE  keys: storage_class, host, sec, job, rw, source (the imported path),\n"
    "                     run (run id), tag:NAME; an empty VALUE (with --empty) matches an\n"
    "                     unset label\n"
    "  --empty            let an empty --where VALUE select the results without that label\n"
    "  --since D, --until D  only results of runs started from / up to D (ISO 8601 date or\n"
    "                     timestamp, UTC unless it has an offset; a bare --until date\n"
    "                     includes its day)\n"
    "  -n, --dry-run      list what would be removed; remove nothing\n"
    "  -h, --help         show this help\n"
    "\n"
    "Examples:\n"
    "  benchdb rm --where storage_class=scratch --dry-run\n"
    "  benchdb rm --where tag:build=811 --where host=ci-3\n";

struct rm_opts {
    struct kv_list where;
    struct time_range dates;
    int dry_run, empty;
};

static int parse(struct app *app, int argc, char **argv, struct rm_opts *o)
{
    const struct opt opts[] = {
        OPT_CALLBACK(0, "where", &o->where, "KEY=VALUE", "remove the results that match",
                     opt_filter),
        OPT_SINCE(&o->dates),
        OPT_UNTIL(&o->dates),
        OPT_FLAG('n', "dry-run", &o->dry_run, "remove nothing"),
        OPT_FLAG(0, "empty", &o->empty, "an empty --where VALUE selects the unset label"),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    /* removing everything is never what a missing filter meant */
    if (status == BDB_EXIT_OK && !o->where.n)
        return usage_error("rm", "no --where filter: nothing to select");
    return status == BDB_EXIT_OK ? filters_empty_ok("rm", &o->where, o->empty) : status;
}

static void print_run(void *ctx, const struct db_removed_run *run)
{
    const struct rm_opts *o = ctx;
    printf("%s %zu of %zu result%s of '%s' (run %" PRId64 "%s)\n",
           o->dry_run ? "would remove" : "removed", run->removed, run->results,
           run->results == 1 ? "" : "s", run->source, run->run,
           run->source_goes ? ", with the run and the file"
           : run->run_goes  ? ", with the run"
                            : "");
}

static void print_total(const struct rm_opts *o, const struct db_remove_counts *c)
{
    printf("rm: %s %zu result%s, %zu run%s and %zu file%s%s\n",
           o->dry_run ? "would remove" : "removed", c->results, c->results == 1 ? "" : "s", c->runs,
           c->runs == 1 ? "" : "s", c->sources, c->sources == 1 ? "" : "s",
           o->dry_run ? " (dry run: nothing removed)" : "");
}

static int remove_results(struct db *db, struct rm_opts *o, struct diag *d)
{
    char when[32];
    struct db_remove_counts counts;
    struct db_remove_sink sink = {print_run, o};
    now_iso(when);
    int bad =
        db_begin(db, d) ||
        db_remove(db, o->where.v, o->where.n, &o->dates, user_name(), when, &sink, &counts, d) ||
        (!o->dry_run && db_commit(db, d));
    if (bad || o->dry_run)
        db_rollback(db);
    if (bad)
        return BDB_EXIT_ENV;
    if (!counts.results) /* a filter that selects nothing is a mistake to be told of */
        return filters_matched_nothing(db, "rm", "removed", &o->where);
    print_total(o, &counts);
    return BDB_EXIT_OK;
}

int cmd_rm(int argc, char **argv, struct app *app)
{
    struct rm_opts o = {.dates = TIME_RANGE_ALL};
    int status = parse(app, argc, argv, &o);
    struct db *db = NULL;
    if (status == BDB_EXIT_OK && open_db(app, DB_READ_WRITE, &db))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK)
        status = remove_results(db, &o, &app->diag);
    db_close(db);
    kv_list_release(&o.where);
    return status < 0 ? BDB_EXIT_OK : status;
}
