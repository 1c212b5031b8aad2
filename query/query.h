/* query.h: the read side. Named queries over the warehouse that return text or report
 * tables; every query has an explicit ORDER BY so output is deterministic. */
#ifndef BDB_QUERY_H
#define BDB_QUERY_H

#include "../core/buf.h"
#include "../core/diag.h"
#include "../schema/db.h"

enum export_format { EXPORT_NDJSON, EXPORT_CSV };

/* Every result with its context and metrics, one record per job and direction. */
int query_export(struct db *db, enum export_format fmt, struct buf *out, struct diag *d);

enum table_format { TABLE_TEXT, TABLE_CSV, TABLE_JSON, TABLE_MD };
/* The imported runs with their keys. */
int query_runs(struct db *db, enum table_format fmt, struct buf *out, struct diag *d);
/* Every label change (benchdb relabel), oldest first. */
int query_history(struct db *db, enum table_format fmt, struct buf *out, struct diag *d);
/* A user's SELECT, on a connection that cannot write. */
int query_sql(struct db *db, const char *sql, enum table_format fmt, struct buf *out,
              struct diag *d);

struct report;
/* Adds the appendix sections "runs" (each run with its keys) and "results" (every result with
 * its main metrics in base units) that the xlsx and csv reports carry. */
int query_appendix(struct db *db, struct report *r, struct diag *d);

#endif
