/* groups.h (private to query/): the results of a comparison in groups, a workload's or a
 * sweep's, sorted by key, side and swept value; and the latency bins (fio json+) of a group's
 * results merged into one histogram, whose percentiles are never an average of percentiles.
 * Used by the charts (figures.c) and by capacity at a latency target (capacity.c). */
#ifndef BDB_QUERY_GROUPS_H
#define BDB_QUERY_GROUPS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/arena.h"
#include "results.h"

/* What puts results in one group: a workload's name (percentile curves), or for a sweep its
 * settings but the swept one, compared field by field (scaling curves: formatting a key for
 * each of a million results cost more than the curves). */
struct group {
    const char *workload, *rw, *direction;
    int64_t bs, other, direct, sync, fsync;
};

struct item {
    struct group key;
    size_t side;
    int64_t x; /* the swept value (iodepth or numjobs); 0 when none */
    const struct side_result *r;
    int binned; /* r has latency bins (histogram rows) */
};

/* The ids of the results that have latency bins, ascending: most results have none, and
 * asking the database for the bins of a million results that have none costs seconds. */
struct id_set {
    int64_t *v;
    size_t n, a;
};

struct items {
    struct item *v;
    size_t n, a;
};

struct bins {
    double *ns, *count;
    size_t n, a;
    double total;
};

/* The ids of the results that have latency bins: 0, or -1 after a message. */
int groups_load_binned(sqlite3 *h, struct id_set *s, struct diag *d);
int id_set_has(const struct id_set *s, int64_t id);

void items_add(struct items *it, struct group key, const struct side_result *r, int64_t x,
               const struct id_set *binned);
/* By key, then side, then swept value, then result id. */
void items_sort(struct items *it);
void items_release(struct items *it);
/* Splits each family (a run of one key, sorted) by the context keys (identity.h) whose value
 * differs between the results of one side of it, as the comparison breaks a workload out
 * (compare.c); the keys that differ only between the sides (each compared storage class's own
 * mount, say) are what is compared and leave the family whole. When one side's context varies,
 * every side's results are split by it, as the comparison does. The new keys are kept in a;
 * the items stay sorted within each family, the families in place. */
void items_split_contexts(struct items *it, struct arena *a, const char *by);
/* The end of the run of items from i that share the key (and the side, when by_side). */
size_t items_run_end(const struct items *it, size_t i, int by_side);
/* The end of the run of items from i, before end, with i's swept value: one point of a sweep. */
size_t items_x_end(const struct items *it, size_t i, size_t end);

/* The name of a sweep's workload, appended: first's, without what is swept (iodepth, numjobs:
 * as if 1), then the context the comparison breaks the workload out by ("[engine io_uring]"). */
void sweep_name(struct buf *out, const struct side_result *first, int swept_depth, int swept_jobs);

/* The bins of every result of v[from, to) summed per latency, of kind "clat" (else "lat"): 0,
 * or -1 after a message; out->n is 0 when none of them has bins. */
int bins_merge(sqlite3 *h, const struct item *v, size_t from, size_t to, struct bins *out,
               struct diag *d);
/* fio's rule (calc_clat_percentiles): the first bin whose cumulative count reaches pct % of
 * all; NAN without bins. */
double bins_percentile(const struct bins *b, double pct);
void bins_release(struct bins *b);

#endif
