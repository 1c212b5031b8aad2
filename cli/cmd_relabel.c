/* cmd_relabel.c: benchdb relabel. */
#include "cli.h"

#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int parse_kv_option(const char *cmd, char *arg, int set, struct db_kv **v, size_t *n, size_t *alloc)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        fprintf(stderr, "benchdb %s: error: expected KEY=VALUE, got '%s'\n", cmd, arg);
        return -1;
    }
    *eq = '\0';
    if (!db_filter_key_ok(arg, set)) {
        fprintf(stderr, "benchdb %s: error: unknown key '%s' for --%s\n", cmd, arg,
                set ? "set" : "where");
        return -1;
    }
    ALLOC_GROW(*v, *n, *alloc);
    (*v)[(*n)++] = (struct db_kv){arg, eq + 1};
    return 0;
}

static const char *user_name(void)
{
    const char *u = getenv("USER");
    if (!u || !*u)
        u = getlogin();
    if (!u || !*u) {
        const struct passwd *pw = getpwuid(geteuid());
        u = pw ? pw->pw_name : NULL;
    }
    return u && *u ? u : "unknown";
}

struct relabel_opts {
    struct db_kv *where, *set;
    size_t n_where, a_where, n_set, a_set;
    int dry_run;
};

static int parse_options(int argc, char **argv, struct relabel_opts *o)
{
    static const struct option longopts[] = {
        {"where", required_argument, NULL, 'w'},
        {"set", required_argument, NULL, 's'},
        {"dry-run", no_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "nh", longopts, NULL)) != -1) {
        if (c == 'w' && !parse_kv_option("relabel", optarg, 0, &o->where, &o->n_where, &o->a_where))
            continue;
        if (c == 's' && !parse_kv_option("relabel", optarg, 1, &o->set, &o->n_set, &o->a_set))
            continue;
        if (c == 'n') {
            o->dry_run = 1;
            continue;
        }
        return c == 'h' ? usage_exit(usage, BDB_EXIT_OK) - 1 : usage_exit(usage, BDB_EXIT_USAGE);
    }
    if (optind != argc || !o->n_set) {
        fprintf(stderr, "benchdb relabel: error: %s\n",
                optind != argc ? "unexpected argument" : "nothing to --set");
        return usage_exit(usage, BDB_EXIT_USAGE);
    }
    return BDB_EXIT_OK;
}

/* A value the schema would refuse is the user's input, rejected before the database is
 * touched (not a database failure); an empty value removes the label. */
static int check_values(const struct relabel_opts *o, struct diag *d)
{
    for (size_t i = 0; i < o->n_set; i++)
        if (!strcmp(o->set[i].key, "sec") && *o->set[i].value && !db_sec_valid(o->set[i].value))
            return diag_error(
                d, "unknown NFS security flavor '%s' for --set sec (expected " DB_SEC_FLAVORS ")",
                o->set[i].value);
    return 0;
}

int cmd_relabel(int argc, char **argv, struct app *app)
{
    struct relabel_opts o = {0};
    int status = parse_options(argc, argv, &o);
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
                         db_relabel(db, o.where, o.n_where, o.set, o.n_set, user_name(), when,
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
    free(o.where);
    free(o.set);
    return status < 0 ? BDB_EXIT_OK : status;
}
