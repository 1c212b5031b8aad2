/* results.h (private to query/): the results of the compared sides, loaded once with their
 * workload and main metrics, for the comparison, the insights and the recommendations. */
#ifndef BDB_QUERY_RESULTS_H
#define BDB_QUERY_RESULTS_H

#include <stdint.h>

#include "../core/arena.h"
#include "../core/buf.h"
#include "compare.h"

enum result_metric { RM_BW, RM_IOPS, RM_LAT_MEAN, RM_P99, RM_P50, RM_RUNTIME, RM_COUNT };

struct side_result {
    size_t side; /* index into compare_opts.values */
    int64_t id;
    const char *source, *host, *job, *rw, *direction, *tool, *error_msg;
    int line;
    int64_t bs, iodepth, numjobs, direct, sync, fsync, fdatasync, rwmixread; /* -1 unknown */
    int error, aggregate;
    double m[RM_COUNT]; /* NAN when absent; latencies are clat's, else total latency's */
};

/* Every result of the compared sides that passes the filters, ordered by source file and line.
 * Loaded once per report and shared by the comparison, the insights and the recommendations;
 * repeated strings (paths, job names) are stored once. */
struct side_results {
    struct side_result *v;
    size_t n, a;
    struct arena strings;
    struct intern *intern;
};

int query_side_results(struct db *db, const struct compare_opts *o, struct side_results *out,
                       struct diag *d);
void side_results_release(struct side_results *res);

/* A sync-write test: fsync/fdatasync after writes, or O_SYNC. */
int result_is_sync(const struct side_result *r);
/* "Random Read 4K QD32", "Sequential Write 1M sync" ... */
void result_workload_name(struct buf *out, const struct side_result *r);
/* The identity results are matched on (rw, bs, iodepth, numjobs, direct, sync, direction). */
void result_workload_key(struct buf *out, const struct side_result *r);
/* The SQL expression of a --by/--where key, NULL when unknown; *param gets the bound name. */
const char *query_key_expr(const char *key, const char **param);

#endif
