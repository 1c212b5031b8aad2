/* cli.h: what the command implementations share. Every command has one signature and one
 * row in main.c's commands[]; to add one: write cli/cmd_<name>.c with a usage string and
 * cmd_<name>(), declare it here, add the row, document it in docs/benchdb.1.md. */
#ifndef BDB_CLI_H
#define BDB_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <time.h>

#include "../core/diag.h"
#include "../core/timerange.h"
#include "../import/import.h"
#include "../schema/db.h"

enum bdb_exit {
    BDB_EXIT_OK = 0,
    BDB_EXIT_INPUT = 1, /* some input was rejected (each reason printed) */
    BDB_EXIT_USAGE = 2,
    BDB_EXIT_ENV = 3, /* database, I/O or environment failure */
};

struct app {
    const char *db_path;
    struct diag diag;
    /* a read command's --since/--until (NULL: none): a PostgreSQL warehouse is read for the
     * runs in range only */
    const struct time_range *dates;
};

int cmd_baseline(int argc, char **argv, struct app *app);
int cmd_check(int argc, char **argv, struct app *app);
int cmd_export(int argc, char **argv, struct app *app);
int cmd_formats(int argc, char **argv, struct app *app);
int cmd_import(int argc, char **argv, struct app *app);
int cmd_labels(int argc, char **argv, struct app *app);
int cmd_merge(int argc, char **argv, struct app *app);
int cmd_push(int argc, char **argv, struct app *app);
int cmd_query(int argc, char **argv, struct app *app);
int cmd_relabel(int argc, char **argv, struct app *app);
int cmd_reparse(int argc, char **argv, struct app *app);
int cmd_report(int argc, char **argv, struct app *app);
int cmd_rm(int argc, char **argv, struct app *app);
int cmd_run(int argc, char **argv, struct app *app);
int cmd_runs(int argc, char **argv, struct app *app);
int cmd_vacuum(int argc, char **argv, struct app *app);
int cmd_trend(int argc, char **argv, struct app *app);

/* The exit status an import's outcome calls for (cmd_import.c). */
int import_exit_status(enum import_outcome outcome);
/* The current time (or $SOURCE_DATE_EPOCH) as ISO 8601 UTC. */
void now_iso(char out[32]);
/* $SOURCE_DATE_EPOCH (reproducible-builds.org): 1 with *t and its UTC date *tm set, 0 when unset
 * or empty, -1 when it is not a whole number of seconds from 0 to 9999-12-31T23:59:59Z (main()
 * refuses to run then). */
int source_date_epoch(time_t *t, struct tm *tm);
/* The largest: every output file names its time in ISO 8601, whose years have four digits. */
#define SOURCE_DATE_EPOCH_MAX INT64_C(253402300799) /* 9999-12-31T23:59:59Z */
/* Every command's usage text starts "usage: benchdb NAME ". With BDB_EXIT_OK (for -h) prints it
 * to stdout; with another status (a usage error, its message printed) prints the hint
 * "see 'benchdb NAME --help'" to stderr, as git does. Returns the status. */
int usage_exit(const char *usage, int status);
/* For an option the command does not handle: -h prints the usage to stdout and gives -1 (stop
 * with status 0); any other (its message printed) the hint and BDB_EXIT_USAGE. */
int usage_option(int c, const char *usage);
/* Prints "benchdb CMD: error: WHAT" and the hint to stderr; gives BDB_EXIT_USAGE. */
int usage_error(const char *usage, const char *cmd, const char *what);
/* Every command's getopt_long: the next option as getopt_long gives it, after taking the global
 * --db PATH given after the command (longopts include DB_LONGOPT) and printing what was wrong
 * with the option for '?' (unknown, ambiguous, or given a value it does not take) or ':' (its
 * value missing): "benchdb CMD: error: unrecognized option '--nosuch'", CMD being argv[0].
 * optstring may start with '+' or '-', never ':'. */
int next_option(struct app *app, int argc, char **argv, const char *optstring,
                const struct option *longopts);
/* The options of a command whose only one is -h/--help (and --db): 0 to go on with the operands
 * from optind, or -1 when the command is done (*status: BDB_EXIT_OK after the help,
 * BDB_EXIT_USAGE after the error and the hint). */
int help_only_options(struct app *app, int argc, char **argv, const char *usage, int *status);
/* BDB_EXIT_USAGE after "benchdb CMD: error: unexpected argument 'ARG'" and the usage text. */
int unexpected_argument(const char *cmd, const char *usage, const char *arg);
/* Opens the warehouse for reading or writing; BDB_EXIT_OK or BDB_EXIT_ENV. */
int open_db(struct app *app, enum db_open_mode mode, struct db **db);
/* Writes a whole buffer to stdout or to a file ("-" or NULL: stdout), the file through
 * output_begin/output_end. */
int write_output(struct app *app, const char *path, const char *data, size_t len);

/* An output file is written whole or not at all: output_begin creates a temporary file beside
 * the target, the writer fills output_name(), and output_end renames it over the target when
 * status is BDB_EXIT_OK, else removes it. A target that exists and is not a regular file
 * (/dev/stdout, a FIFO) is written directly. */
struct output {
    const char *path; /* the target, borrowed */
    char *tmp;        /* the temporary file; NULL when writing path directly */
};
/* BDB_EXIT_OK, or BDB_EXIT_ENV after a message. */
int output_begin(struct app *app, struct output *out, const char *path);
/* The name to write to. */
const char *output_name(const struct output *out);
/* Returns status, or BDB_EXIT_ENV after a message when the rename fails. */
int output_end(struct app *app, struct output *out, int status);

/* The labelling options import and run share: --host, --storage-class, --mount, --sec, --tag
 * (getopt_long rows; their codes are 'H', 'S', 'M', 's' and 't'). */
#define LABEL_LONGOPTS                                                                             \
    {"host", required_argument, NULL, 'H'}, {"storage-class", required_argument, NULL, 'S'},       \
        {"mount", required_argument, NULL, 'M'}, {"sec", required_argument, NULL, 's'},            \
    {                                                                                              \
        "tag", required_argument, NULL, 't'                                                        \
    }
/* Stores a label option's value; 1 when c was one of 'H', 'S', 'M', 's', else 0 ('t' is left to
 * the caller, which keeps tags its own way); -1 after "benchdb CMD: error: --OPT is not UTF-8"
 * (utf8_option). */
int label_option(const char *cmd, int c, const char *arg, struct import_labels *labels);
/* 0 when arg, a label to store, is UTF-8 (docs/schema.md), else -1 after "benchdb CMD: error:
 * --OPT is not UTF-8: 'ARG'" (its other bytes as \xNN): a usage error. */
int utf8_option(const char *cmd, const char *opt, const char *arg);

/* KEY=VALUE option arguments (--tag, --where, --set), split in place: keys and values point
 * into argv. */
struct kv_list {
    struct kv *v;
    size_t n, alloc;
};
/* Appends a pair (borrowed). */
void kv_list_add(struct kv_list *list, const char *key, const char *value);
/* Appends arg, "KEY=VALUE" with KEY not empty, split at its first '=', to *list; 0, or -1 after
 * "benchdb CMD: error: expected --OPT KEY=VALUE, got 'ARG'". */
int kv_option(const char *cmd, const char *opt, char *arg, struct kv_list *list);
/* kv_option for --where (set 0) or --set (set 1), whose keys must be ones db_relabel knows. */
int filter_option(const char *cmd, int set, char *arg, struct kv_list *list);
/* kv_option for the --where of a comparison or a trend, whose keys are those of --by and the
 * workload's (query_key_known); -1 after "benchdb CMD: error: unknown key 'K' for --where". */
int where_option(const char *cmd, char *arg, struct kv_list *list);
/* --by KEY: 0, or -1 after "benchdb CMD: error: unknown comparison key 'KEY' ...". */
int by_option(const char *cmd, const char *arg);
/* --OPT N, a whole number from 1 to max: 0, or -1 after "benchdb CMD: error: expected --OPT
 * 1..MAX, got 'ARG'". */
int count_option(const char *cmd, const char *opt, const char *arg, unsigned max, unsigned *out);
/* The CPUs online (1 to 64): the default of the commands' --jobs. */
unsigned cpu_count(void);
/* --table NAME (NULL: not given) with --format format: 0 when format is csv and tables
 * (NULL-terminated) has NAME, else -1 after a message. */
int table_option(const char *cmd, const char *format, const char *table, const char *const *tables);
/* The format that -o PATH's extension names, one of formats (NULL-terminated; the extension in
 * any case: "R.HTML" -> "html"); otherwise for standard output ("-", NULL) and a name without
 * an extension; NULL after "benchdb CMD: error: expected -o FILE to end in .md or .csv (or a
 * --format), got 'PATH'" for another extension. */
const char *output_format(const char *cmd, const char *path, const char *const *formats,
                          const char *otherwise);
void kv_list_release(struct kv_list *list);

/* Who makes a change (label history, baselines): $USER, else the login name, else the
 * effective user's name, else "unknown". */
const char *user_name(void);
/* The filters as the user gave them ("storage_class=disk host=a"), into out. */
void kv_list_text(const struct kv_list *list, struct buf *out);
/* The options that choose what a comparison compares (report, check): --compare, --by, --where
 * and --help (getopt_long rows; codes 'c', 'b', 'w', 'h'). */
#define COMPARE_LONGOPTS                                                                           \
    {"compare", no_argument, NULL, 'c'}, {"by", required_argument, NULL, 'b'},                     \
        {"where", required_argument, NULL, 'w'},                                                   \
    {                                                                                              \
        "help", no_argument, NULL, 'h'                                                             \
    }
/* The global --db PATH, which every command takes after its name too (next_option). */
#define DB_LONGOPT                                                                                 \
    {                                                                                              \
        "db", required_argument, NULL, OPT_DB                                                      \
    }
/* --since and --until (core/timerange.h): getopt_long rows and their codes. */
enum { OPT_SINCE = 0x100, OPT_UNTIL, OPT_DB };
#define TIME_LONGOPTS                                                                              \
    {"since", required_argument, NULL, OPT_SINCE},                                                 \
    {                                                                                              \
        "until", required_argument, NULL, OPT_UNTIL                                                \
    }
/* Sets range's lower (OPT_SINCE) or upper (OPT_UNTIL) end from an ISO 8601 date or timestamp:
 * 1 when c was one of them, 0 when c is another option, -1 after "benchdb CMD: error: invalid
 * date 'ARG' for --since: REASON; give ..." (a usage error). An empty range is no error: it selects
 * nothing, as git log's does. */
int time_option(const char *cmd, int c, const char *arg, struct time_range *range);

#endif
