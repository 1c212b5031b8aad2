/* cmd_relabel.c: benchdb relabel. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"

static const char usage[] =
    "usage: benchdb relabel [--where KEY=VALUE]... --set KEY=VALUE...\n"
    "\n"
    "Change labels of the stored results that match every --where filter (no filter: all\n"
    "results). Each change is recorded with who made it and when ('benchdb runs --history').\n"
    "\n"
    "  --where KEY=VALUE  keys: storage_class, host, sec, job, rw, source (the imported path),\n"
    "                     run (run id), tag:NAME; an empty VALUE matches an unset label\n"
    "  --set KEY=VALUE    keys: storage_class, host, sec, tag:NAME; an empty VALUE removes it\n"
    "  -n, --dry-run      show how many results would change; store nothing\n"
    "  -h, --help         show this help\n"
    "\n"
    "Examples:\n"
    "  benchdb relabel --where storage_class=nfs --set storage_class=nfs-csi\n"
    "  benchdb relabel --where source=run7.json --set tag:firmware=2.1 --set sec=krb5p\n";

struct relabel_opts {
    struct kv_list where, set;
    int dry_run;
};

static int parse_options(struct app *app, int argc, char **argv, struct relabel_opts *o)
{
    static const struct option longopts[] = {
        {"where", required_argument, NULL, 'w'},
        {"set", required_argument, NULL, 's'},
        {"dry-run", no_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        DB_LONGOPT,
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = next_option(app, argc, argv, "nh", longopts)) != -1) {
        if (c == 'w' && !filter_option("relabel", 0, optarg, &o->where))
            continue;
        if (c == 's' && !filter_option("relabel", 1, optarg, &o->set))
            continue;
        if (c == 'n') {
            o->dry_run = 1;
            continue;
        }
        return usage_option(c, usage);
    }
    if (optind != argc)
        return unexpected_argument("relabel", usage, argv[optind]);
    if (!o->set.n) {
        fprintf(stderr, "benchdb relabel: error: nothing to --set\n");
        return usage_exit(usage, BDB_EXIT_USAGE);
    }
    return BDB_EXIT_OK;
}

/* A value the schema would refuse is the user's input, rejected before the database is
 * touched (not a database failure); an empty value removes the label. */
static int check_values(const struct relabel_opts *o, struct diag *d)
{
    for (size_t i = 0; i < o->set.n; i++)
        if (!strcmp(o->set.v[i].key, "sec") && *o->set.v[i].value &&
            !db_sec_valid(o->set.v[i].value))
            return diag_error(
                d, "unknown NFS security flavor '%s' for --set sec (expected " DB_SEC_FLAVORS ")",
                o->set.v[i].value);
    return 0;
}

int cmd_relabel(int argc, char **argv, struct app *app)
{
    struct relabel_opts o = {0};
    int status = parse_options(app, argc, argv, &o);
    struct db *db = NULL;
    if (status == BDB_EXIT_OK && check_values(&o, &app->diag))
        status = BDB_EXIT_INPUT;
    if (status == BDB_EXIT_OK && open_db(app, DB_READ_WRITE, &db))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK) {
        char when[32];
        size_t changed = 0;
        now_iso(when);
        status = db_begin(db, &app->diag) ||
                         db_relabel(db, o.where.v, o.where.n, o.set.v, o.set.n, user_name(), when,
                                    &changed, &app->diag) ||
                         (!o.dry_run && db_commit(db, &app->diag))
                     ? BDB_EXIT_ENV
                     : BDB_EXIT_OK;
        if (status != BDB_EXIT_OK || o.dry_run)
            db_rollback(db);
        if (status == BDB_EXIT_OK)
            fprintf(stderr, "%s %zu result%s%s\n", o.dry_run ? "would relabel" : "relabelled",
                    changed, changed == 1 ? "" : "s", o.dry_run ? " (dry run)" : "");
    }
    db_close(db);
    kv_list_release(&o.where);
    kv_list_release(&o.set);
    return status < 0 ? BDB_EXIT_OK : status;
}
