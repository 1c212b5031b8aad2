/* sides.h: before a comparison, every compared value must have results under the --by key
 * (and the --where filters); a report of "0 results" for a typo is never written. */
#ifndef BDB_SIDES_H
#define BDB_SIDES_H

#include "../core/diag.h"
#include "../schema/db.h"
#include "compare.h"

/* 0 when each of o->values has a result under o->by that passes o->where_*, else one error per
 * value that has none (with the key's known values, the nearest of them, the filters that
 * removed its results, or the other keys it is a value of) and -1. An unknown --by or --where
 * key is left to query_compare to report (0). */
int query_check_sides(struct db *db, const struct compare_opts *o, struct diag *d);

#endif
