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
    /* the runs read, all of them history for detection; NULL: all. Its since is ignored: a
     * change point needs the runs before it, so --since is the shown window below */
    const struct time_range *dates;
    const char *const *metrics; /* stored metric names; none: TREND_DEFAULT_METRICS */
    size_t nmetrics;
    struct changepoint_opts cp;
    /* the window shown: change points, series and points from this start time on (INT64_MIN:
     * all); since_last_baseline sets it to the newest saved baseline's creation */
    int64_t since;
    int since_last_baseline;
    /* stale_after > 0: a series whose newest run started more than that many seconds before
     * now is listed in the table "stale" */
    int64_t stale_after, now;
};
#define TREND_OPTS_INIT ((struct trend_opts){.cp = CHANGEPOINT_DEFAULTS, .since = INT64_MIN})

/* What the exit status reads: regressions (change points for the worse) in the window shown,
 * series gone stale. */
struct trend_outcome {
    size_t regressions, improvements, stale;
};
#define TREND_DEFAULT_METRICS "bw_bytes_s, lat_mean_ns and clat_p99_ns"

/* The tables of a trend report, for --table with csv (NULL-terminated). */
extern const char *const query_trend_tables[];
/* Fills r with the tables "change_points", "series" and "points" (sections of those names):
 * one row per change point, per series and per run of a series, from o->since on; and with
 * o->stale_after, "stale": one row per stale series (without its metric). 0, 1 when no
 * result has a start time and a value of the metrics or (since_last_baseline) no baseline is
 * saved (after a message), -1 after a message. */
int query_trend(struct db *db, const struct trend_opts *o, struct report *r,
                struct trend_outcome *out, struct diag *d);

#endif
