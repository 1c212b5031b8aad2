/* cli.h: what the command implementations share. Every command has one signature and one
 * row in main.c's commands[]; to add one: write cli/cmd_<name>.c with a usage string and
 * cmd_<name>(), declare it here, add the row, document it in docs/benchdb.1.md. */
#ifndef BDB_CLI_H
#define BDB_CLI_H

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
};

int cmd_baseline(int argc, char **argv, struct app *app);
int cmd_check(int argc, char **argv, struct app *app);
int cmd_export(int argc, char **argv, struct app *app);
int cmd_formats(int argc, char **argv, struct app *app);
int cmd_import(int argc, char **argv, struct app *app);
int cmd_labels(int argc, char **argv, struct app *app);
int cmd_merge(int argc, char **argv, struct app *app);
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
/* Prints "usage: ..." text to stdout (for -h) or stderr (on a usage error); returns the status. */
int usage_exit(const char *usage, int status);
/* For an option the command does not handle: -h prints the usage to stdout and gives -1 (stop
 * with status 0); any other prints it to stderr and gives BDB_EXIT_USAGE. */
int usage_option(int c, const char *usage);
/* Prints "benchdb CMD: error: WHAT" and the usage to stderr; gives BDB_EXIT_USAGE. */
int usage_error(const char *usage, const char *cmd, const char *what);
/* The options of a command whose only one is -h/--help: 0 to go on with the operands from
 * optind, or -1 when the command is done (*status: BDB_EXIT_OK after the help, BDB_EXIT_USAGE
 * after getopt's message and the usage). */
int help_only_options(int argc, char **argv, const char *usage, int *status);
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
 * the caller, which keeps tags its own way). */
int label_option(int c, const char *arg, struct import_labels *labels);

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
/* --since and --until (core/timerange.h): getopt_long rows and their codes. */
enum { OPT_SINCE = 0x100, OPT_UNTIL };
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
