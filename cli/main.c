/* main.c: global options and the command table. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/scan.h"

static const char usage[] = "usage: benchdb [--db PATH] COMMAND [ARGS]\n"
                            "       benchdb help [COMMAND] | version | --version\n"
                            "\n"
                            "The warehouse is --db PATH, else $BENCHDB_DB, else ./benchdb.sqlite.\n"
                            "\n"
                            "Commands:\n";

static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv, struct app *app);
    const char *summary;
} commands[] = {
    {"export", cmd_export, "write every result as ndjson or csv (the stable interface)"},
    {"formats", cmd_formats, "list the input formats benchdb imports"},
    {"import", cmd_import, "import benchmark output files"},
    {"merge", cmd_merge, "copy the results of other warehouses into this one"},
    {"query", cmd_query, "run a read-only SQL query over the documented views"},
    {"relabel", cmd_relabel, "change labels of stored results, keeping their history"},
    {"reparse", cmd_reparse, "re-derive stored results from their raw output"},
    {"report", cmd_report, "compare storage classes (or other keys) as md, html, xlsx or csv"},
    {"run", cmd_run, "run fio, dd or iperf3 and import the result with its context"},
    {"runs", cmd_runs, "list imported runs and their context"},
    {"trend", cmd_trend, "follow each series over time and find where its level changed"},
};

static int help(FILE *f, int status)
{
    fputs(usage, f);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-8s  %s\n", commands[i].name, commands[i].summary);
    fputs("\nRun 'benchdb COMMAND --help' for a command's options.\n"
          "Exit status: 0 ok, 1 some input rejected, 2 usage error, 3 database or I/O failure.\n",
          f);
    return status;
}

static int version(void)
{
    printf("benchdb %s\n", BENCHDB_VERSION);
    return BDB_EXIT_OK;
}

/* benchdb help [NAME]: the command's --help, or the overview; an unknown NAME is a usage
 * error. */
static int help_command(char *name, struct app *app)
{
    if (!name)
        return help(stdout, BDB_EXIT_OK);
    static char help_opt[] = "--help";
    char *sub[] = {name, help_opt, NULL};
    for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
        if (!strcmp(commands[c].name, name))
            return commands[c].fn(2, sub, app);
    fprintf(stderr, "benchdb: error: unknown command '%s' (see 'benchdb help')\n", name);
    return BDB_EXIT_USAGE;
}

int usage_exit(const char *text, int status)
{
    fputs(text, status == BDB_EXIT_OK ? stdout : stderr);
    return status;
}

int open_db(struct app *app, enum db_open_mode mode, struct db **db)
{
    return db_open(app->db_path, mode, db, &app->diag) ? BDB_EXIT_ENV : BDB_EXIT_OK;
}

/* Every output file names its time in ISO 8601, whose years have four digits. */
static const int64_t SOURCE_DATE_EPOCH_MAX = 253402300799; /* 9999-12-31T23:59:59Z */

int source_date_epoch(time_t *t, struct tm *tm)
{
    const char *value = getenv("SOURCE_DATE_EPOCH"), *p = value;
    int64_t secs;
    if (!value || !*value)
        return 0;
    if (!scan_int64(&p, &secs) || *p || secs > SOURCE_DATE_EPOCH_MAX ||
        (int64_t)(time_t)secs != secs)
        return -1;
    *t = (time_t)secs;
    return gmtime_r(t, tm) ? 1 : -1;
}

void now_iso(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    /* main() refused an invalid SOURCE_DATE_EPOCH, and today's clock always converts */
    if (source_date_epoch(&t, &tm) != 1 && !gmtime_r(&t, &tm)) {
        fprintf(stderr, "benchdb: error: cannot convert the clock's time %lld to a date\n",
                (long long)t);
        exit(BDB_EXIT_ENV);
    }
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int write_stdout(struct app *app, const char *data, size_t len)
{
    int bad = fwrite(data, 1, len, stdout) != len;
    bad = fflush(stdout) != 0 || bad;
    if (bad && errno == EPIPE)
        return BDB_EXIT_OK; /* the reader went away (| head): not an error */
    if (bad) {
        diag_error(&app->diag, "cannot write '<stdout>': %s", strerror(errno));
        return BDB_EXIT_ENV;
    }
    return BDB_EXIT_OK;
}

/* The mode a file created at path gets: that of the file it replaces, else what fopen gives. */
static mode_t new_file_mode(const struct stat *old)
{
    if (old)
        return old->st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

int output_begin(struct app *app, struct output *out, const char *path)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    out->path = path;
    out->tmp = NULL;
    if (exists && !S_ISREG(st.st_mode))
        return BDB_EXIT_OK; /* /dev/stdout, a FIFO: written directly, nothing to replace */
    /* beside the target, so that rename() stays within one file system */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    struct buf tmp = BUF_INIT;
    buf_addf(&tmp, "%.*s.%s.XXXXXX", (int)(base - path), path, base);
    int fd = mkstemp(tmp.data);
    if (fd < 0 || fchmod(fd, new_file_mode(exists ? &st : NULL))) {
        diag_error(&app->diag, "cannot write '%s': %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp.data);
        }
        buf_release(&tmp);
        return BDB_EXIT_ENV;
    }
    close(fd); /* the writers open it by name (libxlsxwriter can do nothing else) */
    out->tmp = buf_detach(&tmp, NULL);
    return BDB_EXIT_OK;
}

const char *output_name(const struct output *out)
{
    return out->tmp ? out->tmp : out->path;
}

int output_end(struct app *app, struct output *out, int status)
{
    if (!out->tmp)
        return status;
    if (status == BDB_EXIT_OK && rename(out->tmp, out->path)) {
        diag_error(&app->diag, "cannot write '%s': %s", out->path, strerror(errno));
        status = BDB_EXIT_ENV;
    }
    if (status != BDB_EXIT_OK)
        unlink(out->tmp);
    free(out->tmp);
    out->tmp = NULL;
    return status;
}

int write_output(struct app *app, const char *path, const char *data, size_t len)
{
    if (!path || !strcmp(path, "-"))
        return write_stdout(app, data, len);
    struct output out;
    int status = output_begin(app, &out, path);
    if (status != BDB_EXIT_OK)
        return status;
    FILE *f = fopen(output_name(&out), "wb");
    int bad = !f || fwrite(data, 1, len, f) != len;
    int err = errno;
    if (f && fclose(f) && !bad) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        diag_error(&app->diag, "cannot write '%s': %s", path, strerror(err));
        status = BDB_EXIT_ENV;
    }
    return output_end(app, &out, status);
}

int main(int argc, char **argv)
{
    struct app app = {NULL, DIAG_INIT};
    signal(SIGPIPE, SIG_IGN);
    app.db_path = getenv("BENCHDB_DB");
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc) {
            app.db_path = argv[++i];
        } else if (!strcmp(argv[i], "--db")) {
            fprintf(stderr, "benchdb: error: --db needs a PATH\n");
            return BDB_EXIT_USAGE;
        } else if (!strncmp(argv[i], "--db=", 5)) {
            app.db_path = argv[i] + 5;
        } else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
            return version();
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            return help(stdout, BDB_EXIT_OK);
        } else {
            fprintf(stderr, "benchdb: error: unknown option '%s'\n", argv[i]);
            return help(stderr, BDB_EXIT_USAGE);
        }
    }
    if (!app.db_path || !*app.db_path)
        app.db_path = "benchdb.sqlite";
    if (i == argc)
        return help(stderr, BDB_EXIT_USAGE);
    if (!strcmp(argv[i], "help"))
        return help_command(i + 1 < argc ? argv[i + 1] : NULL, &app);
    if (!strcmp(argv[i], "version"))
        return version();
    time_t epoch;
    struct tm tm;
    if (source_date_epoch(&epoch, &tm) < 0) {
        diag_error(&app.diag,
                   "expected SOURCE_DATE_EPOCH to be a whole number of seconds from 0 to %lld, "
                   "got '%s'",
                   (long long)SOURCE_DATE_EPOCH_MAX, getenv("SOURCE_DATE_EPOCH"));
        return BDB_EXIT_USAGE;
    }
    for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
        if (!strcmp(commands[c].name, argv[i]))
            return commands[c].fn(argc - i, argv + i, &app);
    fprintf(stderr, "benchdb: error: unknown command '%s'\n", argv[i]);
    return help(stderr, BDB_EXIT_USAGE);
}
