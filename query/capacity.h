/* capacity.h: capacity at a latency target. For each side's queue-depth (or job-count) sweep of
 * a workload, the highest measured IOPS whose latency meets a target such as "p99<=2ms", at the
 * depth that gave it (docs/methods.md, "Capacity at a latency target"). */
#ifndef BDB_QUERY_CAPACITY_H
#define BDB_QUERY_CAPACITY_H

#include <stddef.h>

#include "../core/diag.h"

/* What a target bounds: a latency percentile, or the mean latency. */
enum slo_stat { SLO_PERCENTILE, SLO_MEAN };

/* A latency target, as --slo gives it: "p99<=2ms", "p99.9<500us", "mean<=1ms". */
struct slo {
    enum slo_stat stat;
    double pct;       /* SLO_PERCENTILE: 99, 99.9 (0 < pct < 100) */
    double limit_ns;  /* the bound, in nanoseconds */
    int strict;       /* "<": the latency must stay below the bound; "<=": at most it */
    const char *text; /* as given */
};

/* Parses s into *out (out->text = s): 0, or -1 with *why saying what was expected. */
int slo_parse(const char *s, struct slo *out, const char **why);

struct db;
struct compare_opts;
struct side_results;
struct id_set;
struct report;
/* Whether the capacity section of o reads the stored metric name (a percentile column of a
 * target's, query_reads_metric). */
int capacity_reads_metric(const struct compare_opts *o, const char *name);
/* Adds the section "Capacity" for the targets o->slos: a row per target, side and sweep, and a
 * latency-throughput curve per sweep and target; binned: the results with latency bins
 * (groups.h). 0, or -1 after a message. */
int query_capacity(struct db *db, const struct compare_opts *o, const struct side_results *res,
                   const struct id_set *binned, struct report *r, struct diag *d);

#endif
