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
    /* each value's own key where the sides differ in it (run --repeat auto: the baseline a
     * value of by, the candidate its runs' tag run_set); NULL: by for every value */
    const char *const *keys;
    const struct kv *where; /* filters (KEY=VALUE), bound as parameters */
    size_t nwhere;
    const struct time_range *dates; /* only runs started within (--since/--until); NULL: all */
    const struct kv *aliases;       /* short labels (LONG=SHORT) of compared values */
    size_t naliases;
    const char *rules;      /* tier rules (templates/tiers.rules format); NULL: the built-in */
    const char *rules_name; /* what error messages call them: the file's path */
    const struct slo *slos; /* latency targets of the capacity section (capacity.h) */
    size_t nslos;
    const char *cost;      /* a cost file's text (query/cost.h), for the capacity section; NULL */
    const char *cost_name; /* its path, for error messages */
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

/* A compared metric as a gate's limit names it: "bw" or "bw_bytes_s" is the table's
 * "Bandwidth". IOPS rides on its workload's bandwidth row where a bandwidth is known (one
 * measurement: the factor is the same, the side's IOPS is the value cell's alt). */
struct compare_metric {
    const char *label; /* the comparison table's Metric column */
    const char *name;  /* the short name: "bw", "iops", "lat", "p99", "fsync", "fsync_p99" */
    enum unit unit;    /* of its values: UNIT_BYTES_S, UNIT_IOPS, UNIT_NS */
    int higher_is_better;
    const char *rides_on; /* IOPS: "Bandwidth", the row that carries it where a bandwidth is
                           * known; NULL for the others */
};
/* 0 and *out for a short or stored metric name, else -1. */
int compare_metric_find(const char *name, struct compare_metric *out);
/* The i-th name compare_metric_find knows, NULL past the last ("did you mean"). */
const char *compare_metric_name(size_t i);

#endif
