/* side_expr.h (private to query/): the SQL of the keys (--by, --where) and the condition that
 * selects a compared side's results, shared by the comparison (results.c), its facts
 * (compare.c) and the side check (sides.c). */
#ifndef BDB_SIDE_EXPR_H
#define BDB_SIDE_EXPR_H

#include "../core/buf.h"

/* The SQL expression of a --by/--where key, NULL when unknown; *param gets the bound name. */
const char *query_key_expr(const char *key, const char **param);

/* The prefix that names a saved baseline as a side: --compare baseline:NAME CAND. */
#define SIDE_BASELINE_PREFIX "baseline:"

/* NAME of "baseline:NAME", else NULL. */
const char *side_baseline(const char *value);
/* Appends the condition on result r that selects side value's results: a saved baseline's
 * members, else the results whose key `by` has value. params gets the texts to bind, in order;
 * returns their count (at most 2), or -1 when by is not a key (query_key_expr). */
int side_condition(struct buf *sql, const char *by, const char *value, const char *params[2]);

#endif
