/* series_chart.c: the compared results' time series as charts (docs/series.md, "Charts"): per
 * workload, its throughput and its latency over time; a line per result, or a side's median
 * with its min/max band; a series longer than the chart's buckets averaged per bucket with its
 * min/max band; the steady-state windows and cliffs series.c finds marked. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "../schema/sql.h"
#include "results.h"
#include "series.h"

/* The metrics a chart shows, throughput first, then latency. */
enum ts_metric { TS_BW, TS_IOPS, TS_CLAT, TS_LAT, TS_NMETRICS };
static const struct {
    const char *name, *title;
    enum unit unit;
} ts_metrics[TS_NMETRICS] = {
    [TS_BW] = {"bw_bytes_s", "Bandwidth", UNIT_BYTES_S},
    [TS_IOPS] = {"iops", "IOPS", UNIT_IOPS},
    [TS_CLAT] = {"clat_ns", "Completion latency", UNIT_NS},
    [TS_LAT] = {"lat_ns", "Latency", UNIT_NS},
};

/* A compared result with series: its index in res and its metrics (bit 1 << ts_metric). */
struct ts_item {
    const struct side_result *r;
    size_t i;
    unsigned has;
};

struct ts_items {
    struct ts_item *v;
    size_t n, a;
};

static int cmp_items(const void *a, const void *b)
{
    const struct ts_item *x = a, *y = b;
    int c = strcmp(x->r->workload, y->r->workload);
    if (c)
        return c;
    if (x->r->side != y->r->side)
        return x->r->side < y->r->side ? -1 : 1;
    return x->r->id < y->r->id ? -1 : x->r->id > y->r->id;
}

/* The usable results of res that have series, sorted by workload, side and id. */
static int load_items(sqlite3 *h, const struct side_results *res, struct ts_items *it)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st =
        sql_prepare(h, &rc, "SELECT result_id, metric FROM series ORDER BY result_id");
    unsigned *has = xcalloc(res->n ? res->n : 1, sizeof(*has));
    while (sql_step(st, &rc)) {
        long i = side_results_find(res, sqlite3_column_int64(st, 0));
        const char *metric = sql_text(st, 1);
        for (int m = 0; i >= 0 && metric && m < TS_NMETRICS; m++)
            if (!strcmp(metric, ts_metrics[m].name))
                has[i] |= 1u << m;
    }
    for (size_t i = 0; i < res->n; i++) {
        if (!has[i] || !result_usable(&res->v[i]))
            continue;
        ALLOC_GROW(it->v, it->n, it->a);
        it->v[it->n++] = (struct ts_item){&res->v[i], i, has[i]};
    }
    free(has);
    if (it->n)
        qsort(it->v, it->n, sizeof(*it->v), cmp_items);
    sql_finalize(st, &rc);
    return rc == SQLITE_OK ? 0 : -1;
}

/* ---- downsampling: fixed buckets, each its points' mean, min and max ---- */

struct bucket {
    double sum, n, lo, hi;
};

/* The points of p into TS_BUCKETS buckets of width ms from time 0 (the last takes the rest). */
static void buckets_fill(const struct series_points *p, double width, struct bucket *b)
{
    memset(b, 0, TS_BUCKETS * sizeof(*b));
    for (size_t i = 0; i < p->n; i++) {
        double k = floor(p->t[i] / width);
        struct bucket *x = &b[k < 0 ? 0 : k >= TS_BUCKETS ? TS_BUCKETS - 1 : (size_t)k];
        x->lo = x->n ? fmin(x->lo, p->v[i]) : p->v[i];
        x->hi = x->n ? fmax(x->hi, p->v[i]) : p->v[i];
        x->sum += p->v[i];
        x->n++;
    }
}

static void band_point(struct arena *a, struct figure_series *fs, size_t k, double width, double y,
                       double lo, double hi)
{
    struct figure_point *pt = figure_point(a, fs, ((double)k + 0.5) * width / 1000, y);
    pt->lo = lo;
    pt->hi = hi;
}

/* One result's line: its points as they are, or the means of its buckets with their band. */
static struct figure_series *result_line(struct arena *a, struct figure *f, const char *name,
                                         const struct series_points *p, double width)
{
    struct figure_series *fs = figure_series(a, f, name);
    if (p->n <= TS_BUCKETS) {
        for (size_t i = 0; i < p->n; i++)
            figure_point(a, fs, p->t[i] / 1000, p->v[i]);
        return fs;
    }
    struct bucket b[TS_BUCKETS];
    buckets_fill(p, width, b);
    fs->band = 1;
    for (size_t k = 0; k < TS_BUCKETS; k++)
        if (b[k].n)
            band_point(a, fs, k, width, b[k].sum / b[k].n, b[k].lo, b[k].hi);
    return fs;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A side of many results: per bucket, the median of their bucket means, the band the min and
 * max of all their points in it. */
static void median_line(struct arena *a, struct figure *f, const char *name,
                        const struct series_points *p, size_t n, double width)
{
    struct figure_series *fs = figure_series(a, f, name);
    struct bucket *b = xmalloc(n * TS_BUCKETS * sizeof(*b));
    double *means = xmalloc(n * sizeof(*means));
    for (size_t j = 0; j < n; j++)
        buckets_fill(&p[j], width, b + j * TS_BUCKETS);
    fs->band = 1;
    for (size_t k = 0; k < TS_BUCKETS; k++) {
        size_t m = 0;
        double lo = INFINITY, hi = -INFINITY;
        for (size_t j = 0; j < n; j++) {
            const struct bucket *x = &b[j * TS_BUCKETS + k];
            if (!x->n)
                continue;
            means[m++] = x->sum / x->n;
            lo = fmin(lo, x->lo);
            hi = fmax(hi, x->hi);
        }
        if (m)
            band_point(a, fs, k, width, median(means, m), lo, hi);
    }
    free(means);
    free(b);
}

/* ---- one workload's chart of one metric ---- */

struct ts_chart {
    struct report *r;
    const struct compare_opts *o;
    const struct series_verdict *verdicts;
    struct section **s;
    enum ts_metric m;
    struct figure *f;
    int downsampled, medians;
};

/* What the series said, as a line of text, and its steady-state window and cliff marked. */
static void verdict_marks(struct ts_chart *c, struct figure_series *fs, const struct ts_item *it,
                          const struct series_points *p)
{
    const struct series_verdict *sv = &c->verdicts[it->i];
    struct arena *a = &c->r->arena;
    if (!sv->metric || strcmp(sv->metric, ts_metrics[c->m].name))
        return;
    static const char *const steady[] = {[STEADY_UNKNOWN] = "no steady-state verdict",
                                         [STEADY_YES] = "steady state reached",
                                         [STEADY_NO] = "steady state not reached"};
    const char *basis =
        sv->by_fio ? arena_printf(a, " (fio ss=%s)", sv->criterion ? sv->criterion : "")
        : sv->steady != STEADY_UNKNOWN
            ? arena_printf(a, " (SNIA: range %.1f %%, slope x %d %.1f %% of the mean)",
                           sv->w.range * 100, SNIA_WINDOW - 1, sv->w.excursion * 100)
            : "";
    const char *cliff = sv->has_cliff
                            ? arena_printf(a, "; cliff at %.2f s for %.2f s",
                                           sv->cliff.start_ms / 1000, sv->cliff.span_ms / 1000)
                            : "; no cliff";
    fs->note = arena_printf(a, "%s%s%s", steady[sv->steady], basis, cliff);
    if (!sv->by_fio && sv->steady != STEADY_UNKNOWN)
        figure_mark(a, c->f, p->t[p->n - 1] / 2000, NAN,
                    arena_printf(a, "%s: steady-state window (%s)", fs->name,
                                 sv->steady == STEADY_YES ? "reached" : "not reached"));
    if (sv->has_cliff)
        figure_mark(a, c->f, sv->cliff.start_ms / 1000, NAN,
                    arena_printf(a, "%s: cliff at %.2f s", fs->name, sv->cliff.start_ms / 1000));
}

/* The lines of one side's results [from, to) (their points p[from..to)). */
static void side_lines(struct ts_chart *c, const struct ts_item *v, const struct series_points *p,
                       size_t from, size_t to, double width)
{
    struct arena *a = &c->r->arena;
    const char *side = c->o->values[v[from].r->side];
    size_t n = to - from;
    if (n > TS_MAX_LINES) {
        median_line(a, c->f, arena_printf(a, "%s: median of %zu", side, n), p + from, n, width);
        c->medians = 1;
        return;
    }
    for (size_t j = from; j < to; j++) {
        const char *name = n == 1 ? side : arena_printf(a, "%s (%zu)", side, j - from + 1);
        struct figure_series *fs = result_line(a, c->f, name, &p[j], width);
        c->downsampled |= fs->band;
        verdict_marks(c, fs, &v[j], &p[j]);
    }
}

/* "Bandwidth over time: Random Read 4K QD4 (one line per result; ...)". */
static const char *chart_title(const struct ts_chart *c, const struct side_result *first)
{
    struct buf b = BUF_INIT;
    buf_addf(&b, "%s over time: ", ts_metrics[c->m].title);
    result_workload_name(&b, first);
    if (c->medians)
        buf_addf(&b, " (a side of more than %d results: their median", TS_MAX_LINES);
    else
        buf_adds(&b, " (a line per result");
    if (c->downsampled || c->medians)
        buf_addf(&b, "; the mean of each 1/%d of the time with its min/max band", TS_BUCKETS);
    buf_adds(&b, ")");
    const char *title = arena_strdup(&c->r->arena, b.data);
    buf_release(&b);
    return title;
}

static struct figure *new_chart(struct ts_chart *c)
{
    if (!*c->s)
        *c->s = report_section(
            c->r, "Time series",
            "Each compared result's series over time (the fio logs attached to its job), in "
            "seconds from the job's start. Dashed lines mark where a result's steady-state window "
            "begins (the last 5 of 10 equal rounds of its run, judged by the SNIA rule) and where "
            "its throughput fell off a cliff.");
    struct figure *f = section_figure(c->r, *c->s, FIGURE_TIMESERIES, "");
    f->x = (struct figure_axis){"Time (s)", UNIT_NONE, SCALE_LINEAR};
    f->y = (struct figure_axis){ts_metrics[c->m].title, ts_metrics[c->m].unit, SCALE_LINEAR};
    return f;
}

/* The chart of metric c->m for the workload's items [0, n): 0, or -1 on a database error. */
static int metric_chart(struct ts_chart *c, sqlite3_stmt *pts, const struct ts_item *v, size_t n)
{
    struct series_points *p = xcalloc(n, sizeof(*p));
    struct ts_item *with = xcalloc(n, sizeof(*with));
    size_t k = 0;
    double span = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!(v[i].has & (1u << c->m)))
            continue;
        rc = series_load_points(pts, v[i].r->id, ts_metrics[c->m].name, &p[k]);
        if (rc == 0 && p[k].n) {
            span = fmax(span, p[k].t[p[k].n - 1]);
            with[k++] = v[i];
        }
    }
    if (rc == 0 && k) {
        double width = (span > 0 ? span : 1) / TS_BUCKETS;
        c->f = new_chart(c);
        c->downsampled = c->medians = 0;
        for (size_t j = 0, end; j < k; j = end) {
            for (end = j + 1; end < k && with[end].r->side == with[j].r->side; end++)
                ;
            side_lines(c, with, p, j, end, width);
        }
        c->f->title = chart_title(c, with[0].r);
    }
    for (size_t i = 0; i < n; i++)
        series_points_release(&p[i]);
    free(p);
    free(with);
    return rc;
}

/* The first of metrics a and b that one of the items has, or TS_NMETRICS. */
static enum ts_metric first_present(const struct ts_item *v, size_t n, enum ts_metric a,
                                    enum ts_metric b)
{
    unsigned all = 0;
    for (size_t i = 0; i < n; i++)
        all |= v[i].has;
    return all & (1u << a) ? a : all & (1u << b) ? b : TS_NMETRICS;
}

int query_series_figures(struct db *db, const struct compare_opts *o,
                         const struct side_results *res, const struct series_verdict *verdicts,
                         struct report *r, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    struct ts_items it = {0};
    struct section *s = NULL;
    struct ts_chart c = {r, o, verdicts, &s, TS_BW, NULL, 0, 0};
    sqlite3_stmt *pts = NULL;
    int rc = load_items(h, res, &it);
    if (rc == 0 && it.n) {
        int prepared = SQLITE_OK;
        pts = sql_prepare(h, &prepared, SERIES_POINTS_SQL);
        rc = prepared == SQLITE_OK ? 0 : -1;
    }
    for (size_t i = 0, end; rc == 0 && i < it.n; i = end) {
        for (end = i + 1; end < it.n && it.v[end].r->workload == it.v[i].r->workload; end++)
            ;
        const enum ts_metric shown[] = {first_present(it.v + i, end - i, TS_BW, TS_IOPS),
                                        first_present(it.v + i, end - i, TS_CLAT, TS_LAT)};
        for (size_t k = 0; k < 2 && rc == 0; k++) {
            c.m = shown[k];
            if (c.m != TS_NMETRICS)
                rc = metric_chart(&c, pts, it.v + i, end - i);
        }
    }
    sqlite3_finalize(pts);
    free(it.v);
    if (rc)
        return diag_error(d, "cannot read the results' time series: %s", sqlite3_errmsg(h));
    return 0;
}
