/* main.c: global options and the command table. */
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"

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
    {"vacuum", cmd_vacuum, "recompress stored files and give free space back to the file system"},
};

static int help(FILE *f, int status)
{
    fputs(usage, f);
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
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

static const struct command *find_command(const char *name)
{
    for (size_t c = 0; c < ARRAY_SIZE(commands); c++)
        if (!strcmp(commands[c].name, name))
            return &commands[c];
    return NULL;
}

/* The names a mistyped command is matched against, into names (ARRAY_SIZE(commands) + 3):
 * the table's, help and version, and NULL. */
static void command_names(const char **names)
{
    for (size_t c = 0; c < ARRAY_SIZE(commands); c++)
        names[c] = commands[c].name;
    names[ARRAY_SIZE(commands)] = "help";
    names[ARRAY_SIZE(commands) + 1] = "version";
    names[ARRAY_SIZE(commands) + 2] = NULL;
}

static int unknown_command(const char *name)
{
    const char *names[ARRAY_SIZE(commands) + 3];
    command_names(names);
    cli_error_near(NULL, name, "", names, "unknown command '%s'", name);
    fputs("see 'benchdb help'\n", stderr);
    return BDB_EXIT_USAGE;
}

/* benchdb help [NAME]: the command's --help, or the overview; an unknown NAME is a usage
 * error. */
static int help_command(char *name, struct app *app)
{
    if (!name)
        return help(stdout, BDB_EXIT_OK);
    static char help_opt[] = "--help";
    char *sub[] = {name, help_opt, NULL};
    const struct command *c = find_command(name);
    return c ? c->fn(2, sub, app) : unknown_command(name);
}

/* The hidden --completion-helper (as git's --git-completion-helper): the commands, for shell
 * completion; each command's options are its own --completion-helper. */
static int print_commands(void)
{
    const char *names[ARRAY_SIZE(commands) + 3];
    command_names(names);
    for (size_t c = 0; names[c]; c++)
        printf("%s%s", c ? " " : "", names[c]);
    putchar('\n');
    return BDB_EXIT_OK;
}

int main(int argc, char **argv)
{
    struct app app = {NULL, DIAG_INIT, NULL, NULL};
    int want_help = 0, want_version = 0, want_commands = 0;
    const struct opt opts[] = {
        OPT_STRING(0, "db", &app.db_path, "PATH", "the warehouse"),
        OPT_FLAG('V', "version", &want_version, "print the version"),
        OPT_FLAG('h', "help", &want_help, "show help"),
        OPT_FLAG(0, "completion-helper", &want_commands, NULL),
        OPT_END(),
    };
    signal(SIGPIPE, SIG_IGN);
    /* not overwritten: the environment is the user's own (as PGPASSWORD is) */
    app.db_path = conn_arg(&app, getenv("BENCHDB_DB"), 0);
    int status = parse_options(&app, &argc, argv, usage, opts, PARSE_STOP_AT_OPERAND | PARSE_TOP);
    if (status != BDB_EXIT_OK)
        return status;
    if (want_version || want_help || want_commands)
        return want_version ? version() : want_help ? help(stdout, BDB_EXIT_OK) : print_commands();
    if (!app.db_path || !*app.db_path)
        app.db_path = "benchdb.sqlite";
    if (argc == 1)
        return help(stderr, BDB_EXIT_USAGE);
    if (!strcmp(argv[1], "help"))
        return help_command(argc > 2 ? argv[2] : NULL, &app);
    if (!strcmp(argv[1], "version"))
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
    const struct command *c = find_command(argv[1]);
    return c ? c->fn(argc - 1, argv + 1, &app) : unknown_command(argv[1]);
}
