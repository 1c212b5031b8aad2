/* trend.h: benchdb trend: each series of one host, storage class, mount set, sec flavor,
 * workload and metric over its runs' start times, and the change points in it. */
#ifndef BDB_TREND_H
#define BDB_TREND_H

#include "../core/diag.h"
#include "../core/record.h"
#include "../core/timerange.h"
#include "../report/report.h"
#include "../schema/db.h"
#include "changepoint.h"

struct trend_opts {
    const struct kv *where; /* filters (KEY=VALUE, report's keys), bound as parameters */
    size_t nwhere;
    const struct time_range *dates; /* only runs started within; NULL: all */
    const char *const *metrics;     /* stored metric names; none: TREND_DEFAULT_METRICS */
    size_t nmetrics;
    struct changepoint_opts cp;
};
#define TREND_DEFAULT_METRICS "bw_bytes_s, lat_mean_ns and clat_p99_ns"

/* The tables of a trend report, for --table with csv (NULL-terminated). */
extern const char *const query_trend_tables[];
/* Fills r with the tables "change_points", "series" and "points" (sections of those names):
 * one row per change point, per series and per run of a series. 0, 1 when no result has a
 * start time and a value of the metrics (after a message), -1 after a message. */
int query_trend(struct db *db, const struct trend_opts *o, struct report *r, struct diag *d);

#endif
