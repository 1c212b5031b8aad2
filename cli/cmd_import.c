/* cmd_import.c: benchdb import: its options, the inputs (files, the files below a directory,
 * a list of files), then each file through the import pipeline (import/import.h), with a
 * progress line, the totals, and what was kept when interrupted. */
#define _DEFAULT_SOURCE /* struct dirent's d_type */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/array.h"
#include "../core/xalloc.h"
#include "../ingest/importer.h"
#include "progress.h"

static const char usage[] =
    "usage: benchdb import [OPTIONS] FILE|DIR...\n"
    "       benchdb import [OPTIONS] --files-from LIST [FILE|DIR...]\n"
    "\n"
    "Import benchmark output (fio JSON/terse/normal/logs, dd, iperf2/iperf3, bonnie++,\n"
    "sysbench fileio, iozone, DLIO/MLPerf Storage summary.json, IOR text/JSON, mdtest, warp,\n"
    "notes);\n"
    "the format is detected from the content. '-' reads standard input. A directory is read\n"
    "whole: the files below it, in sorted order, but for hidden ones and sidecars. fio logs\n"
    "are read as a stream; any other input is held in memory, up to 256 MiB. Ctrl-C (or\n"
    "SIGTERM, SIGHUP) stops after the file being stored; the files stored before it are kept.\n"
    "\n"
    "  --host H              host the benchmark ran on (wins over the content)\n"
    "  --storage-class S     storage class, e.g. nfs-csi or local-nvme-retain\n"
    "  --mount OPTS_OR_LINE  mount options ('rw,vers=4.2,sec=krb5') or a whole mount line\n"
    "  --sec FLAVOR          NFS security flavor: sys, krb5, krb5i, krb5p or none\n"
    "  --tag K=V             free tag (repeatable)\n"
    "  --format NAME         skip detection (see 'benchdb formats')\n"
    "  --files-from LIST     import the files (or directories) LIST names, one a line;\n"
    "                        '-': read the list from standard input\n"
    "  -0, --null            the --files-from list is separated by NULs (find -print0)\n"
    "  -q, --quiet           no line for each file stored or skipped (errors and warnings\n"
    "                        stay); the totals only\n"
    "  -n, --dry-run         show what would be imported; store nothing\n"
    "  -v, --verbose         with -n: list the lines that look like results but were not used\n"
    "  -j, --jobs N          parse N files at a time (default: the number of CPUs), and a log\n"
    "                        read as a stream on N threads; output and results are the same\n"
    "                        for any N\n"
    "  -h, --help            show this help\n"
    "\n"
    "Examples:\n"
    "  benchdb import results/*.json\n"
    "  benchdb import -q results/\n"
    "  find runs -name '*.json' -print0 | benchdb import -0 --files-from -\n"
    "  benchdb import --storage-class nfs-csi --mount 'rw,vers=4.2,rsize=1048576' run1.json\n";

struct import_opts {
    struct import_options options;
    struct kv_list tags;
    const char *files_from; /* --files-from LIST, or NULL */
    int null;               /* -0: LIST is NUL-separated */
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
        OPT_STRING(0, "files-from", &o->files_from, "LIST", "import the files LIST names"),
        OPT_FLAG('0', "null", &o->null, "LIST is NUL-separated"),
        OPT_FLAG('q', "quiet", &io->quiet, "no line per file stored or skipped"),
        OPT_FLAG('n', "dry-run", &io->dry_run, "store nothing"),
        OPT_FLAG('v', "verbose", &io->verbose, "with -n: list the lines not used"),
        OPT_UINT('j', "jobs", &io->jobs, 1024, "parse N files at a time"),
        OPT_END(),
    };
    int status = parse_options(app, argc, argv, usage, opts, 0);
    if (status == BDB_EXIT_OK && *argc == 1 && !o->files_from)
        return usage_error("import", "no input files");
    if (status == BDB_EXIT_OK && o->null && !o->files_from)
        return usage_error("import", "-0/--null is for the --files-from list; give --files-from");
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

/* The inputs, as the writer takes them: owned copies. */
struct inputs {
    char **v;
    size_t n, alloc;
    int many;       /* a directory or a list was given: the totals are said even for one file */
    int stdin_list; /* the list was read from standard input: '-' is not an input too */
};

static void inputs_add(struct inputs *in, const char *path)
{
    ALLOC_GROW(in->v, in->n + 1, in->alloc);
    in->v[in->n++] = xstrdup(path);
}

static void inputs_release(struct inputs *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->v[i]);
    free(in->v);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the regular files below dir (hidden names and sidecars left out; a symbolic link to a
 * file is taken, one to a directory not followed, so that no loop is walked): 0, or -1 after a
 * message about a directory that could not be read (the rest is still taken). */
static int walk(struct inputs *in, const char *dir, struct diag *d)
{
    DIR *dh = opendir(dir);
    if (!dh)
        return diag_error(d, "cannot open directory '%s': %s", dir, strerror(errno));
    int rc = 0;
    size_t dlen = strlen(dir);
    int slash = dlen && dir[dlen - 1] == '/';
    struct buf path = BUF_INIT;
    for (struct dirent *e; (errno = 0, e = readdir(dh));) {
        if (e->d_name[0] == '.')
            continue;
        /* not buf_addf: formatting cost 2,000 instructions a file, all before the workers start */
        buf_reset(&path);
        buf_adds(&path, dir);
        buf_adds(&path, slash ? "" : "/");
        buf_adds(&path, e->d_name);
        /* the entry's type as readdir gives it on most file systems: a system call a file
         * less (on a VM each costs microseconds, and a folder may hold thousands of runs) */
        int is_dir = e->d_type == DT_DIR, is_reg = e->d_type == DT_REG;
        struct stat st;
        if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) {
            if (lstat(path.data, &st))
                continue;
            is_dir = S_ISDIR(st.st_mode);
            is_reg = S_ISREG(st.st_mode) ||
                     (S_ISLNK(st.st_mode) && stat(path.data, &st) == 0 && S_ISREG(st.st_mode));
        }
        if (is_dir)
            rc |= walk(in, path.data, d);
        else if (is_reg && !import_is_sidecar(path.data))
            inputs_add(in, path.data);
    }
    if (errno)
        rc = diag_error(d, "cannot read directory '%s': %s", dir, strerror(errno));
    closedir(dh);
    buf_release(&path);
    return rc;
}

/* Adds one input: a directory's files (sorted), or the name as given. A sidecar named on the
 * command line gets a note (a glob of a run's folder names demo.json.meta with demo.json); one
 * in a list is left out as in a directory. 0, or -1 after a message. */
static int add_input(struct inputs *in, const char *path, int listed, struct diag *d)
{
    struct stat st;
    if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t first = in->n;
        in->many = 1;
        int rc = walk(in, path, d);
        if (in->n > first) /* qsort's array must not be NULL, even for no elements */
            qsort(in->v + first, in->n - first, sizeof(*in->v), by_name);
        if (in->n == first && rc == 0)
            rc = diag_error_path(d, path,
                                 "no files to import below this directory (hidden files "
                                 "and sidecars are left out)");
        return rc;
    }
    if (!strcmp(path, "-") && in->stdin_list)
        return diag_error(d, "'-' names standard input, which holds the --files-from list");
    if (!import_is_sidecar(path)) {
        inputs_add(in, path);
        return 0;
    }
    if (!listed) {
        struct buf note = BUF_INIT;
        diag_escape(&note, path);
        buf_adds(&note, ": note: a sidecar, read beside the file it describes; not imported "
                        "on its own");
        diag_replay(d, DIAG_NOTE, note.data);
        buf_release(&note);
    }
    return 0;
}

/* Adds the inputs the list names, one a line (or NUL-separated), empty entries ignored: 0, -1
 * after a message about one of them, -2 when the list cannot be read (then nothing is
 * imported). */
static int read_list(struct inputs *in, const char *list, int sep, struct diag *d)
{
    int is_stdin = !strcmp(list, "-");
    FILE *f = is_stdin ? stdin : fopen(list, "rb");
    if (!f) {
        diag_error(d, "cannot open the --files-from list '%s': %s", list, strerror(errno));
        return -2;
    }
    in->many = 1;
    in->stdin_list = is_stdin;
    int rc = 0;
    struct buf entry = BUF_INIT;
    for (int c; (c = getc(f)) != EOF || entry.len;) {
        if (c != EOF && c != sep) {
            char ch = (char)c;
            buf_add(&entry, &ch, 1);
            continue;
        }
        if (entry.len && add_input(in, entry.data, 1, d))
            rc = -1;
        buf_reset(&entry);
    }
    if (ferror(f)) {
        diag_error(d, "cannot read the --files-from list '%s': %s", list, strerror(errno));
        rc = -2;
    }
    if (!is_stdin)
        fclose(f);
    buf_release(&entry);
    return rc;
}

/* The signal that asked the import to stop between two files (0: none): Ctrl-C, or the
 * SIGTERM of a service manager or a CI job's timeout, or the SIGHUP of a closed terminal. Each
 * ends the import as its default action would, but with the files stored so far said. */
static atomic_int interrupted;
/* a handler may store to a lock-free atomic (C11 7.14.1.1), read by the import's threads */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int is lock-free");
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_interrupt(int sig)
{
    interrupted = sig;
}

/* Catches the stop signals not ignored (nohup ignores SIGHUP: it stays ignored); the same
 * signal again ends benchdb at once (SA_RESETHAND). */
static void catch_stop_signals(struct sigaction *old)
{
    struct sigaction act = {.sa_handler = on_interrupt, .sa_flags = SA_RESTART | SA_RESETHAND};
    sigemptyset(&act.sa_mask);
    interrupted = 0;
    for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) {
        sigaction(stop_signals[i], NULL, &old[i]);
        if (old[i].sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &act, NULL);
    }
}

static void restore_stop_signals(const struct sigaction *old)
{
    for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
        sigaction(stop_signals[i], &old[i], NULL);
}

static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

/* The lines that end an import: the skipped files not named, the files stored without a
 * storage class, the totals (for more than one file, a directory or a list, or -q), and what
 * was kept when interrupted. */
static void say_totals(struct app *app, const struct import_opts *o, const struct inputs *in,
                       const struct import_totals *t, size_t rejected, size_t done)
{
    struct diag *d = &app->diag;
    if (t->skipped_unsaid && !o->options.quiet)
        diag_note(d,
                  "%zu more file%s already imported (same content as one stored), skipped "
                  "without a note each",
                  t->skipped_unsaid, plural(t->skipped_unsaid));
    if (t->other_labels)
        diag_note(d,
                  "%zu of the skipped files %s stored with other labels than given; import one "
                  "alone to see how to relabel it",
                  t->other_labels, t->other_labels == 1 ? "is" : "are");
    if (t->unlabeled && !o->options.dry_run)
        diag_note(d,
                  "%zu file%s stored without a storage class, which reports compare: give one "
                  "with --storage-class, in a sidecar FILE.meta or benchdb.meta "
                  "(storage_class=...), or later with 'benchdb relabel --where source=FILE "
                  "--set storage_class=...'",
                  t->unlabeled, plural(t->unlabeled));
    if (in->n > 1 || in->many || o->options.quiet || interrupted) {
        struct buf line = BUF_INIT;
        if (o->options.dry_run)
            buf_addf(&line, "dry run: %zu result%s in %zu file%s, nothing stored", t->results,
                     plural(t->results), t->stored, plural(t->stored));
        else
            buf_addf(&line, "imported %zu result%s from %zu file%s", t->results, plural(t->results),
                     t->stored, plural(t->stored));
        if (t->skipped)
            buf_addf(&line, "; %zu file%s already stored, skipped", t->skipped, plural(t->skipped));
        if (rejected)
            buf_addf(&line, "; %zu file%s with errors, not stored", rejected, plural(rejected));
        diag_replay(d, DIAG_NOTE, line.data);
        buf_release(&line);
    }
    if (interrupted)
        diag_error(d,
                   "interrupted: %zu file%s stored, the rest not imported (%zu of %zu files "
                   "not read)",
                   t->stored, plural(t->stored), in->n - done, in->n);
}

/* Imports the inputs in order with session s, which it frees, stopping between two files at a
 * stop signal: the exit status. */
static int import_all(struct app *app, struct import_session *s, struct db *db,
                      const struct import_opts *o, const struct inputs *in, int status)
{
    size_t n = in->n, done = 0, rejected = 0;
    import_session_open(s, db);
    struct progress pg;
    struct sigaction old[ARRAY_SIZE(stop_signals)];
    catch_stop_signals(old);
    progress_start(&pg, n, "files");
    struct diag saved = app->diag;
    if (pg.on) { /* messages erase the status line first */
        app->diag.emit = progress_emit;
        app->diag.ctx = &pg;
    }
    for (size_t i = 0; i < n && status != BDB_EXIT_ENV && !interrupted; i++) {
        enum import_outcome outcome = import_file(s, i);
        int rc = import_exit_status(outcome);
        done++;
        rejected += outcome == IMPORT_REJECTED;
        progress_results(&pg, import_session_committed(s));
        progress_step(&pg, in->v[i]);
        if (rc != BDB_EXIT_OK)
            status = rc;
    }
    if (import_session_end(s, status == BDB_EXIT_ENV) != IMPORT_STORED)
        status = BDB_EXIT_ENV;
    progress_results(&pg, import_session_committed(s));
    struct import_totals t;
    import_session_totals(s, &t);
    import_session_free(s);
    say_totals(app, o, in, &t, rejected, done); /* above the status line, which stays last */
    progress_end(&pg);
    app->diag.emit = saved.emit;
    app->diag.ctx = saved.ctx;
    if (interrupted)
        status = 128 + interrupted;
    restore_stop_signals(old);
    return status;
}

int cmd_import(int argc, char **argv, struct app *app)
{
    struct import_opts o = {.options = {.now = now_iso, .stop = &interrupted}};
    int status = parse(app, &argc, argv, &o);
    if (!o.options.jobs) /* not given (-j takes 1 or more) */
        o.options.jobs = cpu_count();
    if (status != BDB_EXIT_OK) {
        kv_list_release(&o.tags);
        return status < 0 ? BDB_EXIT_OK : status;
    }
    struct inputs in = {0};
    for (int i = 1; i < argc; i++)
        if (add_input(&in, argv[i], 0, &app->diag))
            status = BDB_EXIT_INPUT;
    if (o.files_from) {
        int rc = read_list(&in, o.files_from, o.null ? '\0' : '\n', &app->diag);
        if (rc == 0 && !in.n)
            rc = diag_error(&app->diag, "the --files-from list '%s' names no files to import",
                            o.files_from);
        if (rc)
            status = BDB_EXIT_INPUT;
        while (rc == -2 && in.n) /* a list read in part: nothing of it */
            free(in.v[--in.n]);
    }
    struct db *db = NULL;
    if (in.n || status == BDB_EXIT_OK) {
        /* its workers read and parse while the warehouse is opened */
        struct import_session *s = import_session_start(&o.options, &app->diag, in.v, in.n);
        if (!o.options.dry_run && open_db(app, DB_CREATE, &db)) {
            import_session_free(s);
            status = BDB_EXIT_ENV;
        } else {
            status = import_all(app, s, db, &o, &in, status);
        }
    }
    db_close(db);
    inputs_release(&in);
    kv_list_release(&o.tags);
    return status;
}
