/* compare.h: comparisons of storage classes (or any key) into the report model. */
#ifndef BDB_COMPARE_H
#define BDB_COMPARE_H

#include <stddef.h>

#include "../report/report.h"
#include "../schema/db.h"
#include "stats.h"

struct compare_opts {
    const char *by;            /* storage-class (default), host, sec, mount:KEY, tag:NAME */
    const char *const *values; /* the compared values; the first is the baseline */
    size_t nvalues;
    const struct kv *where; /* filters (KEY=VALUE), bound as parameters */
    size_t nwhere;
    const struct time_range *dates; /* only runs started within (--since/--until); NULL: all */
    const struct kv *aliases;       /* short labels (LONG=SHORT) of compared values */
    size_t naliases;
    const char *rules;      /* tier rules (templates/tiers.rules format); NULL: the built-in */
    const char *rules_name; /* what error messages call them: the file's path */
};

int query_compare(struct db *db, const struct compare_opts *o, struct report *r, struct diag *d);

/* Every table a comparison report can hold, for --table with csv (NULL-terminated): some only
 * when there is something to put in them (unmatched, scaling, network, steady_state, ranking),
 * runs and results only when asked for (the appendix). */
extern const char *const query_compare_tables[];

/* Whether factor f tells a difference from none after Holm's correction: its corrected p
 * below 0.05 and its interval excluding 1. An equivalent verdict (the whole interval within
 * +-5 %) may be significant too: a gate with a smaller threshold still fails it. */
int compare_significant(const struct cell *f);

#endif
