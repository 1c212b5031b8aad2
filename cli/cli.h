/* cli.h: what the command implementations share. Every command has one signature and one
 * row in main.c's commands[]; to add one: write cli/cmd_<name>.c with a usage string, a
 * table of its options (parse_options.h) and cmd_<name>(), declare it here, add the row, document
 * it in docs/benchdb.1.md. */
#ifndef BDB_CLI_H
#define BDB_CLI_H

#include <stdint.h>
#include <time.h>

#include "../core/diag.h"
#include "../core/timerange.h"
#include "../import/import.h"
#include "../schema/db.h"
#include "parse_options.h"

enum bdb_exit {
    BDB_EXIT_OK = 0,
    BDB_EXIT_INPUT = 1, /* some input was rejected (each reason printed) */
    BDB_EXIT_USAGE = 2,
    BDB_EXIT_ENV = 3, /* database, I/O or environment failure */
    /* benchdb check: no regression, but too few runs or too much spread to rule one out (as
     * Pinpoint's "need more runs"); distinct from a pass and from a failure */
    BDB_EXIT_INCONCLUSIVE = 4,
    /* benchdb trend --stale: a series' newest run is older than allowed (a nightly that never
     * arrived); distinct from a regression, which is 1 as check's */
    BDB_EXIT_STALE = 5,
};

struct compare_opts;
struct app {
    const char *db_path;
    struct diag diag;
    /* a read command's --since/--until (NULL: none): a PostgreSQL warehouse is read for the
     * runs in range only */
    const struct time_range *dates;
    /* a report's or check's comparison (NULL: none): a PostgreSQL warehouse is read for the
     * results it reads only (fleet_open) */
    const struct compare_opts *compared;
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
/* The current time (or $SOURCE_DATE_EPOCH) in Unix seconds. */
int64_t now_seconds(void);
/* $SOURCE_DATE_EPOCH (reproducible-builds.org): 1 with *t and its UTC date *tm set, 0 when unset
 * or empty, -1 when it is not a whole number of seconds from 0 to 9999-12-31T23:59:59Z (main()
 * refuses to run then). */
int source_date_epoch(time_t *t, struct tm *tm);
/* The largest: every output file names its time in ISO 8601, whose years have four digits. */
#define SOURCE_DATE_EPOCH_MAX INT64_C(253402300799) /* 9999-12-31T23:59:59Z */
/* Opens the warehouse for reading or writing; BDB_EXIT_OK or BDB_EXIT_ENV. */
int open_db(struct app *app, enum db_open_mode mode, struct db **db);
/* Reads the file an option names (what it holds: "rules", "limits") into text, NUL-terminated
 * even when empty: BDB_EXIT_OK, or BDB_EXIT_ENV after a message (a file that cannot be read is
 * an I/O failure, found before any work). */
int read_option_file(const char *what, const char *path, struct buf *text, struct diag *d);
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

/* The shared options' rows (parse_options.h's OPT_CALLBACK): --where KEY=VALUE of a
 * comparison, a trend or labels (the keys of --by and the workload's, query_key_known), --where
 * of the commands that select stored results (relabel, rm, reparse, baseline: db_relabel's
 * keys), --set of relabel, --by KEY. */
int opt_where(const struct opt *opt, char *arg, const char *cmd);
int opt_filter(const struct opt *opt, char *arg, const char *cmd);
/* A command that changes stored results refuses an empty --where VALUE (an unset shell
 * variable) unless --empty says it means the results without that label: BDB_EXIT_OK, or
 * BDB_EXIT_USAGE after the message. */
int filters_empty_ok(const char *cmd, const struct kv_list *where, int empty);
/* The error of a command whose filters selected no result ("nothing removed"), with the
 * nearest stored value of each filter that has one; BDB_EXIT_INPUT. */
int filters_matched_nothing(struct db *db, const char *cmd, const char *what,
                            const struct kv_list *where);
int opt_set(const struct opt *opt, char *arg, const char *cmd);

/* ---- gates (gate_cli.c): check, and run --repeat auto ---- */
struct gate;
struct gate_config;
struct gate_limits;
/* --limit SPEC into the gate_limits opt->value points at; --threshold PCT into a double. */
int opt_limit(const struct opt *opt, char *arg, const char *cmd);
int opt_threshold(const struct opt *opt, char *arg, const char *cmd);
/* --limits FILE: its text into text (the limits point into it) and its limits into limits;
 * BDB_EXIT_OK, or the status after the messages in d. */
int read_limits_file(const char *path, struct gate_limits *limits, struct buf *text,
                     struct diag *d);
/* The exit status a gate's verdict makes (0 passed, 1 regression or nothing compared, 4
 * inconclusive unless inconclusive is "pass" or "fail") and *word, its name. */
int gate_status(const struct gate *g, const char *inconclusive, const char **word);
/* The verdict on standard output, each line after "CMD: ": the limits in force, every row
 * that did not pass (and each waived one), then the counts. */
void gate_print(const char *cmd, const struct gate *g, const struct gate_config *c);
int opt_by(const struct opt *opt, char *arg, const char *cmd);
/* The --by keys a message names (NULL-terminated): the label keys; query_key_known takes the
 * workload's too (rw, bs, ...). */
extern const char *const by_keys[];
/* The options that choose what a comparison compares (report, check): --compare, --by, --where. */
#define OPT_COMPARE(values, by, where)                                                             \
    OPT_OPERANDS("compare", (values), "values to compare, the baseline first"),                    \
        OPT_CALLBACK(0, "by", (by), "KEY", "the key whose values are compared", opt_by),           \
        OPT_CALLBACK(0, "where", (where), "KEY=VALUE", "filter (repeatable)", opt_where)

/* The CPUs online (1 to 64): the default of the commands' --jobs. */
unsigned cpu_count(void);
/* --table NAME (NULL: not given) with --format format: 0 when format is csv, else -1 after a
 * message. */
int table_option(const char *cmd, const char *format, const char *table);
/* The format that -o PATH's extension names, one of formats (NULL-terminated; the extension in
 * any case: "R.HTML" -> "html"); otherwise for standard output ("-", NULL) and a name without
 * an extension; NULL after "benchdb CMD: error: expected -o FILE to end in .md or .csv (or a
 * --format), got 'PATH'" for another extension. */
const char *output_format(const char *cmd, const char *path, const char *const *formats,
                          const char *otherwise);

/* Who makes a change (label history, baselines): $USER, else the login name, else the
 * effective user's name, else "unknown". */
const char *user_name(void);
/* The filters as the user gave them ("storage_class=disk host=a"), into out. */
void kv_list_text(const struct kv_list *list, struct buf *out);

#endif
