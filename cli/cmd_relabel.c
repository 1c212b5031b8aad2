/* cmd_relabel.c: benchdb relabel. */
#include "cli.h"

#include <stdio.h>

static const char usage[] =
    "usage: benchdb relabel [--where KEY=VALUE]... [--empty] --set KEY=VALUE...\n"
    "\n"
    "Change labels of the stored results that match every --where filter (no filter: all\n"
    "results). Each change is recorded with who made it and when ('benchdb runs --history').\n"
    "\n"
    "  --where KEY=VALUE  keys: storage_class, host, sec, job, rw, source (the imported path),\n"
    "                     run (run id), tag:NAME; an empty VALUE (with --empty) matches an\n"
    "                     unset label\n"
    "  --empty            let an empty --where VALUE select the results without that label\n"
    "  --set KEY=VALUE    keys: storage_class, host, sec, tag:NAME; an empty VALUE removes it\n"
    "  -n, --dry-run      show how many results would change; store nothing\n"
    "  -h, --help         show this help\n"
    "\n"
    "Examples:\n"
    "  benchdb relabel --where storage_class=nfs --set storage_class=nfs-csi\n"
    "  benchdb relabel --where source=run7.json --set tag:firmware=2.1 --set sec=krb5p\n";

struct relabel_opts {
    struct kv_list where, set;
    int dry_run, empty;
};

static int parse(struct app *app, int argc, char **argv, struct relabel_opts *o)
{
    const struct opt opts[] = {
        OPT_CALLBACK(0, "where", &o->where, "KEY=VALUE", "change the results that match",
                     opt_filter),
        OPT_CALLBACK(0, "set", &o->set, "KEY=VALUE", "the label to set", opt_set),
        OPT_FLAG('n', "dry-run", &o->dry_run, "store nothing"),
        OPT_FLAG(0, "empty", &o->empty, "an empty --where VALUE selects the unset label"),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    if (status == BDB_EXIT_OK && !o->set.n)
        return usage_error("relabel", "nothing to --set");
    return status == BDB_EXIT_OK ? filters_empty_ok("relabel", &o->where, o->empty) : status;
}

int cmd_relabel(int argc, char **argv, struct app *app)
{
    struct relabel_opts o = {0};
    int status = parse(app, argc, argv, &o);
    struct db *db = NULL;
    if (status == BDB_EXIT_OK && open_db(app, DB_READ_WRITE, &db))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK) {
        char when[32];
        size_t matched = 0, changed = 0;
        now_iso(when);
        status = db_begin(db, &app->diag) ||
                         db_relabel(db, o.where.v, o.where.n, o.set.v, o.set.n, user_name(), when,
                                    &matched, &changed, &app->diag) ||
                         (!o.dry_run && db_commit(db, &app->diag))
                     ? BDB_EXIT_ENV
                     : BDB_EXIT_OK;
        if (status != BDB_EXIT_OK || o.dry_run)
            db_rollback(db);
        if (status == BDB_EXIT_OK && !matched) /* a filter that selects nothing: a mistake */
            status = filters_matched_nothing(db, "relabel", "relabelled", &o.where);
        else if (status == BDB_EXIT_OK) {
            fprintf(stderr, "%s %zu result%s", o.dry_run ? "would relabel" : "relabelled", changed,
                    changed == 1 ? "" : "s");
            if (matched > changed)
                fprintf(stderr, " (%zu already had those labels)", matched - changed);
            fprintf(stderr, "%s\n", o.dry_run ? " (dry run)" : "");
        }
    }
    db_close(db);
    kv_list_release(&o.where);
    kv_list_release(&o.set);
    return status < 0 ? BDB_EXIT_OK : status;
}
