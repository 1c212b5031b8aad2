/* insights.h: findings and tier recommendations added to a comparison report. */
#ifndef BDB_INSIGHTS_H
#define BDB_INSIGHTS_H

#include "compare.h"

/* Cache effects, tail latency, failed jobs, short runs, disagreeing repeats, sync writes and
 * storage against the measured network, each with its evidence. */
struct side_results;
int query_insights(struct db *db, const struct compare_opts *o, const struct side_results *res,
                   struct report *r, struct diag *d);

/* Tier recommendations per workload class from a rules text (templates/tiers.rules format);
 * rules_path names it in error messages. */
int query_recommend(const struct compare_opts *o, const struct side_results *res,
                    const char *rules_path, const char *rules, struct report *r, struct diag *d);

#endif
