/* rows.h: statements read as report tables, shared by rows.c and appendix.c. Private to
 * query/. */
#ifndef BDB_ROWS_H
#define BDB_ROWS_H

#include "query.h"

/* The runs with their keys, as benchdb runs lists them; detail (the report's appendix) names
 * the id run_id and adds each source's sha256 and the run's command line. Only runs started
 * within dates (NULL: all), and with results (a condition on result r; NULL: all): only those
 * results are counted and their keys listed. */
void runs_sql(struct buf *sql, int detail, const struct time_range *dates, const char *results);
/* Writes the rows of sql, its ? parameters bound to params in order, to out as a table in fmt
 * (query.h's text_sink contract: 0, 1 when out stopped, -1 after "cannot list WHAT: ..."). */
int rows_list(struct db *db, const char *sql, const char *const *params, size_t nparams,
              const char *what, enum table_format fmt, struct text_sink *out, struct diag *d);
/* Writes the first column of each row of sql (? parameters bound to params in order) to out,
 * its bytes as stored and a NUL byte after each (NULL: no bytes), for scripts and shell
 * completion: no quoting to undo. Same contract as rows_list. */
int rows_nul(struct db *db, const char *sql, const char *const *params, size_t nparams,
             const char *what, struct text_sink *out, struct diag *d);
/* Adds an appendix section whose table is sql's rows (its nparams parameters bound in order),
 * columns named as in the SQL, values as stored. */
int rows_section(struct db *db, struct report *r, const char *heading, const char *name,
                 const char *sql, const char *const *params, size_t nparams, struct diag *d);

#endif
