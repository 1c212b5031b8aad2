/* ranking.h (private to query/): the ranking view of a comparison of many configurations. */
#ifndef BDB_QUERY_RANKING_H
#define BDB_QUERY_RANKING_H

#include "compare.h"

/* With 5 or more compared values, adds the section "Ranking": per workload of the comparison
 * table cmp, its first metric with the sides that have a value sorted best to worst by their
 * factor against the baseline. */
void query_ranking(const struct compare_opts *o, const struct table *cmp, struct report *r);

#endif
