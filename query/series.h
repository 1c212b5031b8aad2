/* series.h (private to query/): what a result's time series says about the run: whether it
 * reached steady state (the SNIA PTS rule, or fio's own ss= check) and whether throughput fell
 * off a cliff. docs/series.md defines the rounds, the window and the cliff. */
#ifndef BDB_QUERY_SERIES_H
#define BDB_QUERY_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "../core/diag.h"
#include "../schema/db.h"

/* The series is cut into SERIES_ROUNDS rounds of equal duration; the SNIA window is the last
 * SNIA_WINDOW of them. */
enum { SERIES_ROUNDS = 10, SNIA_WINDOW = 5 };
/* SNIA PTS: max - min of the window <= 20 % of its mean; the least-squares slope across the
 * window (slope x (5 - 1)) <= 10 % of its mean. */
extern const double SNIA_RANGE_MAX, SNIA_SLOPE_MAX;
/* A cliff: the value below CLIFF_DROP of the mean before it, for more than CLIFF_SPAN of the
 * run. */
extern const double CLIFF_DROP, CLIFF_SPAN;

enum steady { STEADY_UNKNOWN, STEADY_YES, STEADY_NO };

struct snia_window {
    double range, excursion; /* (max - min) / mean and |slope| x (5 - 1) / mean */
};

/* The SNIA verdict on the series (t ascending, in ms since the start): STEADY_UNKNOWN when a
 * round of the window holds no point or the window's mean is not > 0. */
enum steady series_snia(const double *t, const double *v, size_t n, struct snia_window *w);

struct cliff {
    double start_ms, span_ms; /* when the drop began, how long it lasted */
    double before, level;     /* the mean before it, the mean during it */
};

/* 1 and *c for the first drop below CLIFF_DROP x the mean of every earlier point that lasts
 * more than CLIFF_SPAN x the run (the last point's time); else 0. */
int series_cliff(const double *t, const double *v, size_t n, struct cliff *c);

/* What the series and fio's steadystate block say about one result. */
struct series_verdict {
    enum steady steady;
    int by_fio;            /* fio's ss= check decided (preferred to the SNIA rule) */
    const char *criterion; /* fio's ss= criterion when by_fio, else NULL */
    const char *metric;    /* the series judged: bw_bytes_s, else iops; NULL: none */
    struct snia_window w;  /* when judged by the SNIA rule */
    int has_cliff;
    struct cliff cliff;
};

struct side_results;
struct arena;
/* out[i] for each res->v[i] (zeroed first): from its bw_bytes_s (else iops) series and its
 * tags ss, ss_attained; strings from a. 0, or -1 after a message. */
int query_series_verdicts(struct db *db, const struct side_results *res, struct arena *a,
                          struct series_verdict *out, struct diag *d);

/* ---- loading and drawing ---- */

/* A result's series: times in ms from the start, values in the metric's base unit. */
struct series_points {
    double *t, *v;
    size_t n, a;
};
void series_points_release(struct series_points *p);
/* The statement series_load_points runs: the points of (result id, metric) in time order. */
extern const char SERIES_POINTS_SQL[];
struct sqlite3_stmt;
/* The points of result id's series of metric into p (replacing what it held), through st (a
 * prepared SERIES_POINTS_SQL, reset after): 0, or -1 on a database error. */
int series_load_points(struct sqlite3_stmt *st, int64_t id, const char *metric,
                       struct series_points *p);

struct report;
struct compare_opts;
/* A time-series chart draws this many lines per side at most, and a series of more points than
 * TS_BUCKETS as the means of TS_BUCKETS equal spans of the chart's time. */
enum { TS_BUCKETS = 100, TS_MAX_LINES = 3 };
/* Adds the section "Time series" when compared results have series: per workload, its
 * throughput (bw_bytes_s, else iops) and its latency (clat_ns, else lat_ns) over time, a line per
 * result (a side of more than TS_MAX_LINES results: their median with a min/max band), series
 * of more than TS_BUCKETS points averaged into TS_BUCKETS equal spans of time (with the min/max
 * band), the steady-state window and cliffs of verdicts[i] (for res->v[i]) marked. 0, or -1
 * after a message. */
int query_series_figures(struct db *db, const struct compare_opts *o,
                         const struct side_results *res, const struct series_verdict *verdicts,
                         struct report *r, struct diag *d);

#endif
