/* main.c: global options and the command table. */
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    {"baseline", cmd_baseline, "save, list or remove named sets of results to compare against"},
    {"check", cmd_check, "fail when a candidate is significantly worse than a baseline"},
    {"export", cmd_export, "write every result as ndjson or csv (the stable interface)"},
    {"formats", cmd_formats, "list the input formats benchdb imports"},
    {"import", cmd_import, "import benchmark output files"},
    {"labels", cmd_labels, "list the storage classes, hosts, mount options and tags, with counts"},
    {"merge", cmd_merge, "copy the results of other warehouses into this one"},
    {"push", cmd_push, "send the results to the fleet's PostgreSQL warehouse"},
    {"query", cmd_query, "run a read-only SQL query over the documented views"},
    {"relabel", cmd_relabel, "change labels of stored results, keeping their history"},
    {"reparse", cmd_reparse, "re-derive stored results from their raw output"},
    {"report", cmd_report,
     "compare storage classes (or other keys) as md, html, xlsx, csv or json"},
    {"rm", cmd_rm, "remove results (and the runs and files they leave empty), with history"},
    {"run", cmd_run, "run fio, dd or iperf3 and import the result with its context"},
    {"runs", cmd_runs, "list imported runs and their context"},
    {"trend", cmd_trend, "follow each series over time and find where its level changed"},
    {"vacuum", cmd_vacuum, "give the space of removed results back to the file system"},
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

int main(int argc, char **argv)
{
    struct app app = {NULL, DIAG_INIT, NULL};
    signal(SIGPIPE, SIG_IGN);
    app.db_path = getenv("BENCHDB_DB");
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc) {
            app.db_path = argv[++i];
        } else if (!strcmp(argv[i], "--db")) {
            fputs("benchdb: error: option '--db' requires a value\nsee 'benchdb --help'\n", stderr);
            return BDB_EXIT_USAGE;
        } else if (!strncmp(argv[i], "--db=", 5)) {
            app.db_path = argv[i] + 5;
        } else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
            return version();
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            return help(stdout, BDB_EXIT_OK);
        } else {
            fprintf(stderr, "benchdb: error: unrecognized option '%s'\nsee 'benchdb --help'\n",
                    argv[i]);
            return BDB_EXIT_USAGE;
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
    fprintf(stderr, "benchdb: error: unknown command '%s'\nsee 'benchdb help'\n", argv[i]);
    return BDB_EXIT_USAGE;
}
