/* cmd_import.c: benchdb import: its options, then each file through the import pipeline
 * (import/import.h), with a progress line. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/xalloc.h"
#include "../ingest/importer.h"
#include "progress.h"

static const char usage[] =
    "usage: benchdb import [OPTIONS] FILE...\n"
    "\n"
    "Import benchmark output (fio JSON/terse/normal/logs, dd, iperf2/iperf3, bonnie++, notes);\n"
    "the format is detected from the content. '-' reads standard input. fio logs are read as\n"
    "a stream; any other input is held in memory, up to 256 MiB.\n"
    "\n"
    "  --host H              host the benchmark ran on (wins over the content)\n"
    "  --storage-class S     storage class, e.g. nfs-csi or local-nvme-retain\n"
    "  --mount OPTS_OR_LINE  mount options ('rw,vers=4.2,sec=krb5') or a whole mount line\n"
    "  --sec FLAVOR          NFS security flavor: sys, krb5, krb5i, krb5p or none\n"
    "  --tag K=V             free tag (repeatable)\n"
    "  --format NAME         skip detection (see 'benchdb formats')\n"
    "  -n, --dry-run         show what would be imported; store nothing\n"
    "  -v, --verbose         with -n: list the lines that look like results but were not used\n"
    "  -j, --jobs N          parse N files at a time (default: the number of CPUs); output and\n"
    "                        results are the same for any N\n"
    "  -h, --help            show this help\n"
    "\n"
    "Examples:\n"
    "  benchdb import results/*.json\n"
    "  benchdb import --storage-class nfs-csi --mount 'rw,vers=4.2,rsize=1048576' run1.json\n";

struct import_opts {
    struct import_options options;
    struct kv_list tags;
};

/* --format NAME: an importer's name (the registry's, so the list is not written twice). */
static int opt_importer(const struct opt *opt, char *arg, const char *cmd)
{
    if (importer_find(arg)) {
        *(const char **)opt->value = arg;
        return 0;
    }
    size_t n = 0;
    while (importers[n])
        n++;
    const char **names = xcalloc(n + 1, sizeof(*names));
    for (size_t i = 0; i < n; i++)
        names[i] = importers[i]->name;
    cli_error_near(cmd, arg, "", names, "unknown format '%s' (see 'benchdb formats')", arg);
    free(names);
    return -1;
}

/* The options; the files are left in argv[1..*argc). */
static int parse(struct app *app, int *argc, char **argv, struct import_opts *o)
{
    struct import_options *io = &o->options;
    const struct opt opts[] = {
        OPT_LABELS(&io->labels, &o->tags),
        OPT_CALLBACK(0, "format", &io->format, "NAME", "skip detection", opt_importer),
        OPT_FLAG('n', "dry-run", &io->dry_run, "store nothing"),
        OPT_FLAG('v', "verbose", &io->verbose, "with -n: list the lines not used"),
        OPT_UINT('j', "jobs", &io->jobs, 1024, "parse N files at a time"),
        OPT_END(),
    };
    int status = parse_options(app, argc, argv, usage, opts, 0);
    if (status == BDB_EXIT_OK && *argc == 1)
        return usage_error("import", "no input files");
    io->labels.tags = o->tags.v;
    io->labels.n_tags = o->tags.n;
    return status;
}

int import_exit_status(enum import_outcome outcome)
{
    switch (outcome) {
    case IMPORT_STORED:
    case IMPORT_SKIPPED:
        return BDB_EXIT_OK;
    case IMPORT_REJECTED:
        return BDB_EXIT_INPUT;
    default:
        return BDB_EXIT_ENV;
    }
}

/* Leaves the sidecars out of argv[first..argc), each with a note (a glob of a run's folder names
 * demo.json.meta with demo.json): the new argc. */
static int drop_sidecars(struct app *app, int argc, char **argv, int first)
{
    int kept = first;
    for (int i = first; i < argc; i++) {
        if (!import_is_sidecar(argv[i])) {
            argv[kept++] = argv[i];
            continue;
        }
        struct buf note = BUF_INIT;
        diag_escape(&note, argv[i]);
        buf_adds(&note, ": note: a sidecar, read beside the file it describes; not imported "
                        "on its own");
        diag_replay(&app->diag, DIAG_NOTE, note.data);
        buf_release(&note);
    }
    return kept;
}

/* Imports argv[first..argc) in order: the exit status. */
static int import_all(struct app *app, struct db *db, const struct import_opts *o, int argc,
                      char **argv, int first)
{
    size_t n = (size_t)(argc - first);
    struct import_session *s = import_session_start(db, &o->options, &app->diag, argv + first, n);
    struct progress pg;
    int status = BDB_EXIT_OK;
    progress_start(&pg, n, "files");
    struct diag saved = app->diag;
    if (pg.on) { /* messages erase the status line first */
        app->diag.emit = progress_emit;
        app->diag.ctx = &pg;
    }
    for (size_t i = 0; i < n && status != BDB_EXIT_ENV; i++) {
        int rc = import_exit_status(import_file(s, i));
        progress_results(&pg, import_session_committed(s));
        progress_step(&pg, argv[first + (int)i]);
        if (rc != BDB_EXIT_OK)
            status = rc;
    }
    if (import_session_end(s, status == BDB_EXIT_ENV) != IMPORT_STORED)
        status = BDB_EXIT_ENV;
    progress_results(&pg, import_session_committed(s));
    progress_end(&pg);
    import_session_free(s);
    app->diag.emit = saved.emit;
    app->diag.ctx = saved.ctx;
    return status;
}

int cmd_import(int argc, char **argv, struct app *app)
{
    struct import_opts o = {.options = {.jobs = cpu_count(), .now = now_iso}};
    int status = parse(app, &argc, argv, &o);
    if (status != BDB_EXIT_OK) {
        kv_list_release(&o.tags);
        return status < 0 ? BDB_EXIT_OK : status;
    }
    struct db *db = NULL;
    if (!o.options.dry_run && open_db(app, DB_CREATE, &db))
        status = BDB_EXIT_ENV;
    else
        status = import_all(app, db, &o, drop_sidecars(app, argc, argv, 1), argv, 1);
    db_close(db);
    kv_list_release(&o.tags);
    return status;
}
