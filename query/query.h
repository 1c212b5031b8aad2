/* query.h: the read side. Named queries over the warehouse that return text or report
 * tables; every query has an explicit ORDER BY so output is deterministic. */
#ifndef BDB_QUERY_H
#define BDB_QUERY_H

#include "../core/buf.h"
#include "../core/diag.h"
#include "../report/report.h"
#include "../schema/db.h"

/* EXPORT_PG_DDL: the PostgreSQL CREATE TABLE that the CSV export of the same warehouse loads
 * into (its columns in the CSV's order, typed). */
enum export_format { EXPORT_NDJSON, EXPORT_CSV, EXPORT_PG_DDL };

/* Whether key is one that --by and --where name: storage-class, host, sec, rw, bs, ...,
 * mount:OPTION, tag:NAME. */
int query_key_known(const char *key);

/* Every result with its context and metrics, one record per job and direction, of the runs
 * started within dates (NULL: all). */
int query_export(struct db *db, enum export_format fmt, const struct time_range *dates,
                 struct buf *out, struct diag *d);

/* Where rows go as they are read, so that no result is held whole: write takes the next
 * piece of text and returns 0, or non-zero to stop the rows (ctx knows why). */
struct text_sink {
    int (*write)(void *ctx, const char *data, size_t len);
    void *ctx;
};
/* query_runs, query_history and query_sql build their rows as a report table (report.h's
 * row_table) and write it to out through the table renderers (table_write_rows) as the rows
 * come; they return 0 when every row was written, 1 when out stopped taking them, -1 after a
 * message. */

/* The imported runs with their keys, those started within dates (NULL: all). */
int query_runs(struct db *db, const struct time_range *dates, enum table_format fmt,
               struct text_sink *out, struct diag *d);
/* Every label change (benchdb relabel) to a result of a run started within dates (NULL: all),
 * oldest first. */
int query_history(struct db *db, const struct time_range *dates, enum table_format fmt,
                  struct text_sink *out, struct diag *d);
/* The saved baselines with their result counts and filters, by name: those saved within dates
 * (NULL: all). */
int query_baselines(struct db *db, const struct time_range *dates, enum table_format fmt,
                    struct text_sink *out, struct diag *d);
/* What benchdb labels lists. */
struct labels_opts {
    const char *key; /* a --by key: only its values; NULL: storage classes, hosts, sec flavors,
                      * mount options and tags */
    const struct kv *where; /* --where filters, as report takes them */
    size_t nwhere;
    const struct time_range *dates; /* NULL: all */
    int nul; /* each label as KEY=VALUE (with key: VALUE) and a NUL byte, bytes as stored */
};
/* Each value of the labels of the results that pass o's filters, as rows key (the --by/--where
 * key: storage-class, host, sec, mount:OPTION, tag:NAME), value, results and runs (how many
 * have it), by key then value; a mount flag has a NULL value. */
int query_labels(struct db *db, const struct labels_opts *o, enum table_format fmt,
                 struct text_sink *out, struct diag *d);
/* A user's one read-only statement, calling only allowed functions (SQLite's core, date,
 * JSON and math ones); stopped after timeout_s seconds unless that is 0. params[0..nparams)
 * are its named parameters (:NAME, @NAME or $NAME), each bound as an integer, a number or
 * text, as its value reads; a parameter without a value, or a value without a parameter, is
 * an error. */
int query_sql(struct db *db, const char *sql, const struct kv *params, size_t nparams,
              enum table_format fmt, double timeout_s, struct text_sink *out, struct diag *d);

/* The table "summary" of what the runs stored as sources[0..n) measured (benchdb run): one row
 * per job and direction with its name, the mean of its headline metric over the runs (IOPS for
 * random I/O, else bytes/s: the cell's unit says which) and of its p99 latency (ns), each with
 * its sample standard deviation and count. 0, or -1 after a message. */
int query_run_summary(struct db *db, const char *const *sources, size_t n, struct report *r,
                      struct diag *d);

struct compare_opts;
/* Adds the appendix sections "runs" (each run with its keys) and "results" (each result with
 * its main metrics in base units) that the xlsx and csv reports carry: those of the results
 * the comparison o compared (appendix.c says which), or with all every one in the warehouse. */
int query_appendix(struct db *db, const struct compare_opts *o, int all, struct report *r,
                   struct diag *d);

struct arena;
/* Appends the SELECT of the results a comparison report or check reads, as rows of the join
 * of result r, run, source_file s and mount m: "SELECT found, COLUMNS FROM ...". Those it
 * compares (query_selection_sql: the sides', with the --where filters, in the dates), found a
 * text of one '1' or '0' per compared side (whether the result meets that side's condition),
 * then in a second branch every network test (suspect.c reads each host's fastest, whatever is
 * compared), found ''; a result both compared and a network test comes twice. Its parameters,
 * in order, into *params (*nparams of them; free() the array, the strings live as long as o
 * and a). The fleet's read pushes it down to the server (fleet/pull.c). 0, or -1 after a
 * message. */
int query_read_rows_sql(const struct compare_opts *o, const char *columns, struct arena *a,
                        struct buf *sql, const char ***params, size_t *nparams, struct diag *d);

/* Whether a comparison report or check of o may read the stored metric name of a result (a
 * REAL column of result; the other columns every read takes): the metrics it loads (results.c),
 * those of the appendix, of the capacity targets' percentiles and of the recommendations'
 * rules (every metric with a --rules file). The fleet's read copies only these (fleet/pull.c)
 * and refuses a statement that reads another. */
int query_reads_metric(const struct compare_opts *o, const char *name);

#endif
