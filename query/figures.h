/* figures.h (private to query/): the charts of a comparison that are not its bars. */
#ifndef BDB_QUERY_FIGURES_H
#define BDB_QUERY_FIGURES_H

#include "groups.h"
#include "results.h"

/* Adds the sections "Latency percentiles" (a curve per side of each compared workload whose
 * results have latency bins) and "Scaling" (a table and curves per queue-depth or job-count
 * sweep of 3 or more points), each only when it has something to show; binned: the results
 * with latency bins (groups_load_binned). 0, or -1 after a message. */
int query_figures(struct db *db, const struct compare_opts *o, const struct side_results *res,
                  const struct id_set *binned, struct report *r, struct diag *d);

#endif
