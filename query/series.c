/* series.c: steady state and cliffs from the compared results' time series (fio logs attached
 * to their jobs, import/attach.c). docs/methods.md, "Steady state and curves". */
#include "series.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/arena.h"
#include "../core/xalloc.h"
#include "../schema/sql.h"
#include "results.h"

const double SNIA_RANGE_MAX = 0.20;
const double SNIA_SLOPE_MAX = 0.10;
const double CLIFF_DROP = 0.50;
const double CLIFF_SPAN = 0.10;

/* ---- the rules (pure) ---- */

/* The mean of each of the last SNIA_WINDOW rounds into y; 0 when one of them holds no point. */
static int window_means(const double *t, const double *v, size_t n, double *y)
{
    double sum[SERIES_ROUNDS] = {0}, count[SERIES_ROUNDS] = {0};
    double end = t[n - 1];
    for (size_t i = 0; i < n; i++) {
        int k = (int)(t[i] * SERIES_ROUNDS / end);
        k = k < 0 ? 0 : k >= SERIES_ROUNDS ? SERIES_ROUNDS - 1 : k;
        sum[k] += v[i];
        count[k]++;
    }
    for (int k = 0; k < SNIA_WINDOW; k++) {
        int round = SERIES_ROUNDS - SNIA_WINDOW + k;
        if (!count[round])
            return 0;
        y[k] = sum[round] / count[round];
    }
    return 1;
}

enum steady series_snia(const double *t, const double *v, size_t n, struct snia_window *w)
{
    double y[SNIA_WINDOW];
    if (n == 0 || !(t[n - 1] > 0) || !window_means(t, v, n, y))
        return STEADY_UNKNOWN;
    double mean = 0, lo = y[0], hi = y[0], sxy = 0, sxx = 0;
    for (int k = 0; k < SNIA_WINDOW; k++) {
        mean += y[k] / SNIA_WINDOW;
        lo = fmin(lo, y[k]);
        hi = fmax(hi, y[k]);
    }
    if (!(mean > 0))
        return STEADY_UNKNOWN;
    /* least squares over rounds x = 1..5: slope = sum (x - 3)(y - mean) / sum (x - 3)^2 */
    for (int k = 0; k < SNIA_WINDOW; k++) {
        double dx = k - (SNIA_WINDOW - 1) / 2.0;
        sxy += dx * (y[k] - mean);
        sxx += dx * dx;
    }
    w->range = (hi - lo) / mean;
    w->excursion = fabs(sxy / sxx) * (SNIA_WINDOW - 1) / mean;
    return w->range <= SNIA_RANGE_MAX && w->excursion <= SNIA_SLOPE_MAX ? STEADY_YES : STEADY_NO;
}

/* From point i on, while below limit: the stretch's end time and the mean of its points. */
static double stretch_end(const double *t, const double *v, size_t n, size_t i, double limit,
                          double *level)
{
    double sum = 0;
    size_t j = i;
    for (; j < n && v[j] < limit; j++)
        sum += v[j];
    *level = sum / (double)(j - i);
    return j < n ? t[j] : t[n - 1];
}

int series_cliff(const double *t, const double *v, size_t n, struct cliff *c)
{
    if (n < 3 || !(t[n - 1] > 0))
        return 0;
    double sum = v[0];
    for (size_t i = 1; i < n; sum += v[i], i++) {
        double before = sum / (double)i, level;
        if (!(v[i] < CLIFF_DROP * before))
            continue;
        double span = stretch_end(t, v, n, i, CLIFF_DROP * before, &level) - t[i];
        if (span > CLIFF_SPAN * t[n - 1]) {
            *c = (struct cliff){t[i], span, before, level};
            return 1;
        }
    }
    return 0;
}

/* ---- loading ---- */

const char SERIES_POINTS_SQL[] =
    "SELECT j.value ->> 0, j.value ->> 1 FROM series s, "
    "json_each(s.points) j WHERE s.result_id = :result AND s.metric = :metric "
    "ORDER BY CAST(j.key AS INTEGER)";

void series_points_release(struct series_points *p)
{
    free(p->t);
    free(p->v);
    memset(p, 0, sizeof(*p));
}

static int read_fio_verdicts(sqlite3 *h, const struct side_results *res, struct arena *a,
                             struct series_verdict *out)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(
        h, &rc, "SELECT result_id, key, value FROM tag WHERE key IN ('ss', 'ss_attained')");
    while (sql_step(st, &rc)) {
        long i = side_results_find(res, sqlite3_column_int64(st, 0));
        const char *key = sql_text(st, 1);
        const char *value = sql_text(st, 2);
        if (i < 0 || !key || !value)
            continue;
        if (!strcmp(key, "ss")) {
            out[i].criterion = arena_strdup(a, value);
        } else {
            out[i].by_fio = 1;
            out[i].steady = !strcmp(value, "yes") ? STEADY_YES : STEADY_NO;
        }
    }
    sql_finalize(st, &rc);
    return rc == SQLITE_OK ? 0 : -1;
}

int series_load_points(sqlite3_stmt *st, int64_t id, const char *metric, struct series_points *p)
{
    int rc = SQLITE_OK;
    sql_bind_int(st, &rc, ":result", id);
    sql_bind_text(st, &rc, ":metric", metric);
    p->n = 0;
    while (sql_step(st, &rc)) {
        if (p->n == p->a) {
            p->a = p->a ? 2 * p->a : 64;
            p->t = xrealloc(p->t, p->a * sizeof(*p->t));
            p->v = xrealloc(p->v, p->a * sizeof(*p->v));
        }
        p->t[p->n] = sqlite3_column_double(st, 0);
        p->v[p->n++] = sqlite3_column_double(st, 1);
    }
    sql_release(st); /* the message of a failure stays: it is st's own */
    return rc == SQLITE_OK ? 0 : -1;
}

/* The SNIA verdict (unless fio's decided) and the cliff of one result's series. */
static void judge(struct series_verdict *sv, const char *metric, const struct series_points *p)
{
    sv->metric = metric;
    if (!sv->by_fio)
        sv->steady = series_snia(p->t, p->v, p->n, &sv->w);
    sv->has_cliff = series_cliff(p->t, p->v, p->n, &sv->cliff);
}

/* The error is said where it happens: SQLite's message is gone once a later call succeeds
 * (finalizing the statements said "not an error"). */
static int read_series(sqlite3 *h, const struct side_results *res, struct series_verdict *out,
                       struct diag *d)
{
    struct series_points p = {NULL, NULL, 0, 0};
    int rc = SQLITE_OK, failed = 0;
    /* bw_bytes_s sorts before iops: a result with both is judged on its bandwidth */
    sqlite3_stmt *list = sql_prepare(h, &rc,
                                     "SELECT result_id, metric FROM series WHERE metric IN "
                                     "('bw_bytes_s', 'iops') ORDER BY result_id, metric");
    sqlite3_stmt *pts = sql_prepare(h, &rc, SERIES_POINTS_SQL);
    while (!failed && sql_step(list, &rc)) {
        long i = side_results_find(res, sqlite3_column_int64(list, 0));
        const char *metric = sql_text(list, 1);
        if (i < 0 || out[i].metric)
            continue;
        metric = !strcmp(metric, "iops") ? "iops" : "bw_bytes_s";
        if (series_load_points(pts, sqlite3_column_int64(list, 0), metric, &p))
            failed = diag_error(d, "cannot read the %s series of result %lld: %s", metric,
                                (long long)sqlite3_column_int64(list, 0), sqlite3_errmsg(h));
        else
            judge(&out[i], metric, &p);
    }
    if (!failed && rc != SQLITE_OK)
        failed = diag_error(d, "cannot read the results' time series: %s", sqlite3_errmsg(h));
    series_points_release(&p);
    sqlite3_finalize(pts);
    sqlite3_finalize(list);
    return failed;
}

int query_series_verdicts(struct db *db, const struct side_results *res, struct arena *a,
                          struct series_verdict *out, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    memset(out, 0, res->n * sizeof(*out));
    if (read_fio_verdicts(h, res, a, out))
        return diag_error(d, "cannot read the results' time series: %s", sqlite3_errmsg(h));
    return read_series(h, res, out, d);
}
