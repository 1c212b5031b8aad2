/* fleet.h: a fleet's warehouse on PostgreSQL (docs/fleet.md). Each host pushes its SQLite
 * warehouse to one server (fleet_push); the read commands read the server through a private
 * in-memory SQLite warehouse filled from it (fleet_pull), so that their SQL stays one dialect;
 * `benchdb query` runs on the server itself (fleet_query). The only module that sees libpq. */
#ifndef BDB_FLEET_H
#define BDB_FLEET_H

#include <stddef.h>

#include "../core/diag.h"
#include "../query/query.h"
#include "../schema/db.h"

/* 1 when name is a PostgreSQL connection URL (postgresql:// or postgres://), else 0. */
int fleet_is_url(const char *name);

/* The passwords of conn, a connection string as the user wrote it, well-formed or not (a
 * postgresql:// URL, one of a mistyped scheme, a libpq keyword string): a URL's user:PASSWORD@,
 * and the values of password= and sslpassword= in a URL's query or a keyword string.
 * fleet_has_password: 1 when conn holds one. fleet_scrub: overwrites their bytes with '*' in
 * place (in argv: ps and /proc/PID/cmdline no longer show them). fleet_redact: a copy of text
 * (a message about conn, libpq's included) with each of them, as written or percent-decoded,
 * and each piece of conn libpq quotes that holds part of one, shown as "***"; free() it. */
int fleet_has_password(const char *conn);
void fleet_scrub(char *conn);
char *fleet_redact(const char *conn, const char *text);

struct fleet_push_counts {
    size_t sources, runs, results; /* sent now */
    size_t present;                /* sources the server had already */
    size_t labels;                 /* label changes the server had not seen */
};
/* start: how many sources are to be sent; batch: after each batch committed on the server,
 * the sources and results sent so far. */
struct fleet_progress {
    void (*start)(void *ctx, size_t sources);
    void (*batch)(void *ctx, size_t sources, size_t results);
    void *ctx;
};
/* Creates or migrates the warehouse schema on the server at url, then sends every source of
 * db the server lacks (by sha256) with its rows, whole files in one transaction per batch,
 * up to jobs batches at a time (each over connections of its own), then the label changes the
 * server lacks, applied there. 0, or -1 after a message ("benchdb push: error: ..."). */
int fleet_push(struct db *db, const char *url, unsigned jobs, const struct fleet_progress *progress,
               struct fleet_push_counts *counts, struct diag *d);

struct compare_opts;
/* Opens the warehouse at url as a private in-memory SQLite warehouse of the current schema
 * holding the server's rows (the sources' stored bytes left out), for the read commands.
 * With o (a comparison: report, check), only the results it reads (query_read_rows_sql, run on
 * the server) with their runs, sources and rows, when each of its sides has results there;
 * else with dates bounded, only the runs started in range, with their rows (the commands'
 * queries select within the range themselves). 0, or -1 after a message. */
int fleet_open(const char *url, const struct time_range *dates, const struct compare_opts *o,
               struct db **out, struct diag *d);

/* Stores the change points of a trend on the server at url (its table change_point and view
 * v_annotation, creating or upgrading the schema as push does): every series of an has its rows
 * replaced by its annotations, in one transaction. 0, or -1 after a message. */
int fleet_publish(const char *url, const struct annotations *an, struct diag *d);

/* Runs the user's one statement on the server at url in a read-only transaction stopped after
 * timeout_s seconds, writing its rows to out as query_sql does; 0, 1 when out stopped taking
 * them, -1 after a message. */
int fleet_query(const char *url, const char *sql, enum table_format fmt, double timeout_s,
                struct text_sink *out, struct diag *d);

#endif
