/* sql.h: the statement toolkit, the one way schema/, query/ and fleet/ talk to SQLite
 * (tests/tools/layering.sh refuses a raw sqlite3_prepare anywhere else).
 *
 * Statements run in sequence carry one rc through the calls, as sqlite's shell does: every
 * call does nothing once *rc is not SQLITE_OK, so the first failure is the one kept and
 * sqlite3_errmsg() still describes it when the sequence ends. Parameters are bound by name
 * (":host"): a name the statement does not have is an error (SQLITE_RANGE), so a column
 * renamed in the SQL cannot leave a value silently unbound or bound to the wrong column.
 * A caller that reports a failure reads sqlite3_errmsg() before it finalizes or resets other
 * statements: finalizing one that ran well sets the message back to "not an error". */
#ifndef BDB_SQL_H
#define BDB_SQL_H

#include <math.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct db;

/* A statement prepared once per connection, found again by the address of its SQL text (a
 * literal, or a string that lives as long as the connection), reset and unbound. NULL once
 * *rc failed. Give it back with sql_release; db_close finalizes it. */
sqlite3_stmt *sql_cached(struct db *db, int *rc, const char *sql);
/* Gives a cached statement back: reset and unbound, it stays prepared. */
void sql_release(sqlite3_stmt *st);
/* Finalizes every cached statement of db. */
void sql_cache_free(struct db *db);

/* A statement for one use (sql may be built at run time: it is compiled here and not kept);
 * give it back with sql_finalize or sqlite3_finalize (NULL is harmless there). NULL once *rc
 * failed. */
sqlite3_stmt *sql_prepare(sqlite3 *h, int *rc, const char *sql);
/* The same for the first statement of sql; *tail gets where the text after it begins. NULL
 * (with *rc SQLITE_OK) when sql holds no statement: only blanks, comments or ';'. */
sqlite3_stmt *sql_prepare_first(sqlite3 *h, int *rc, const char *sql, const char **tail);
/* Finalizes st (NULL is harmless); a failure it reports is kept in *rc unless one was. */
void sql_finalize(sqlite3_stmt *st, int *rc);
/* Runs sql (any number of statements, no parameters) unless *rc failed. */
void sql_exec(sqlite3 *h, int *rc, const char *sql);

/* Bind s (NULL binds NULL; copied), v, n bytes at p (borrowed until the statement is reset)
 * to parameter name; unless *rc failed. */
void sql_bind_text(sqlite3_stmt *st, int *rc, const char *name, const char *s);
void sql_bind_int(sqlite3_stmt *st, int *rc, const char *name, int64_t v);
void sql_bind_blob(sqlite3_stmt *st, int *rc, const char *name, const void *p, size_t n);
/* n bytes of text at s, borrowed until the statement is reset (no copy: for big values). */
void sql_bind_text_borrowed(sqlite3_stmt *st, int *rc, const char *name, const char *s, size_t n);
/* The same by the parameter's index i (?NNN), for a statement run so often that looking its
 * names up shows: SQLite finds a name by comparing it with each parameter's in turn. */
void sql_bind_text_at(sqlite3_stmt *st, int *rc, int i, const char *s);
void sql_bind_int_at(sqlite3_stmt *st, int *rc, int i, int64_t v);
/* v, or NULL when it is the workload's "unknown" (WL_UNKNOWN). */
void sql_bind_known_int_at(sqlite3_stmt *st, int *rc, int i, int64_t v);
/* Binds the n strings of v to parameters ?1 to ?n (copied), for SQL built at run time with a
 * list of values (query/'s struct binds). */
void sql_bind_texts(sqlite3_stmt *st, int *rc, const char *const *v, size_t n);
/* 1 when st has parameter name, else 0: for a family of statements that share a set of names
 * of which each uses some. */
int sql_uses(sqlite3_stmt *st, const char *name);

/* Steps st: 1 with a row to read, 0 when it is done (or *rc failed). A failure is kept in
 * *rc (sqlite3_errmsg describes it). */
int sql_step(sqlite3_stmt *st, int *rc);
/* Steps a statement whose rows are not read, then resets and unbinds it. */
void sql_step_done(sqlite3_stmt *st, int *rc);
/* Steps st once and finalizes it: its first row's first column as an integer, 0 when it
 * returns no row (or *rc failed). */
int64_t sql_int_result(sqlite3_stmt *st, int *rc);
/* sql_int_result of sql, which has no parameters. */
int64_t sql_int(sqlite3 *h, int *rc, const char *sql);

/* Column i of st's current row as text (NULL for NULL), valid until the next step or reset. */
static inline const char *sql_text(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}
/* Column i as a number, NAN for NULL: a value not stored is unknown, never 0. Inline: report
 * reads dozens per result, a million results in a big warehouse. */
static inline double sql_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

#endif
