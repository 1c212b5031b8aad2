/* figures.c: the chart data of a comparison beyond its bars: latency percentile curves from the
 * merged json+ bins of each compared workload, and scaling curves of queue-depth (or job-count)
 * sweeps with their knee and Little's law at every point. docs/charts.md states the rules. */
#include "figures.h"

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/xalloc.h"
#include "../schema/sql.h"
#include "groups.h"
#include "insights.h"

/* The percentiles of a curve: p50 to p99.99, denser in the tail. */
static const double CURVE_PCTS[] = {50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
enum { N_PCTS = ARRAY_SIZE(CURVE_PCTS) };
/* A percentile with fewer samples than this beyond it is one or two outliers, not a tail. */
static const double MIN_TAIL_SAMPLES = 10;
/* A sweep is a curve from this many distinct queue depths (or job counts) on. */
enum { MIN_SWEEP_POINTS = 3 };

static int usable(const struct side_result *r)
{
    return result_usable(r) && (*r->rw || *r->direction) && !result_is_network(r);
}

/* ---- percentile curves ---- */

static const char *side_name(const struct compare_opts *o, size_t side)
{
    return o->values[side];
}

/* Whether the run [i, end) has the baseline and at least one candidate. */
static int compared(const struct items *it, size_t i, size_t end)
{
    return it->v[i].side == 0 && it->v[end - 1].side > 0;
}

static struct figure *percentile_figure(struct report *r, struct section *s,
                                        const struct side_result *first)
{
    struct buf title = BUF_INIT;
    buf_adds(&title, "Latency percentiles: ");
    result_group_name(&title, first);
    struct figure *f = section_figure(r, s, FIGURE_PERCENTILES, title.data);
    buf_release(&title);
    f->x = (struct figure_axis){"Percentile", UNIT_NONE, SCALE_NINES};
    f->y = (struct figure_axis){"Completion latency", UNIT_NS, SCALE_LOG};
    f->note = "Each side's repeats (and threads) merged into one histogram; a hollow point "
              "rests on fewer than 10 samples beyond it.";
    return f;
}

/* One curve per side of the compared workload in [i, end) whose results have bins. */
static int percentile_curves(sqlite3 *h, const struct compare_opts *o, const struct items *it,
                             size_t i, size_t end, struct report *r, struct section **s,
                             struct diag *d)
{
    struct figure *f = NULL;
    struct bins b = {0};
    int rc = 0;
    for (size_t j = i; j < end && rc == 0;) {
        size_t side_end = items_run_end(it, j, 1);
        rc = bins_merge(h, it->v, j, side_end, &b, d);
        if (rc == 0 && b.n) {
            if (!*s)
                *s = report_section(r, "Latency percentiles",
                                    "Percentiles computed from the latency histograms (fio "
                                    "json+ bins) of each side's results merged, never averaged "
                                    "across runs.");
            if (!f)
                f = percentile_figure(r, *s, it->v[i].r);
            struct figure_series *fs = figure_series(&r->arena, f, side_name(o, it->v[j].side));
            for (size_t p = 0; p < N_PCTS; p++)
                figure_point(&r->arena, fs, CURVE_PCTS[p], bins_percentile(&b, CURVE_PCTS[p]))
                    ->weak = b.total * (1 - CURVE_PCTS[p] / 100) < MIN_TAIL_SAMPLES;
        }
        j = side_end;
    }
    bins_release(&b);
    return rc;
}

static int percentiles(struct db *db, const struct compare_opts *o, const struct side_results *res,
                       const struct id_set *binned, struct report *r, struct diag *d)
{
    struct items it = {0};
    for (size_t i = 0; i < res->n; i++)
        if (usable(&res->v[i]) && id_set_has(binned, res->v[i].id))
            items_add(
                &it,
                (struct group){.workload = result_group(&res->v[i]), .rw = "", .direction = ""},
                &res->v[i], 0, binned);
    items_sort(&it);
    struct section *s = NULL;
    int rc = 0;
    for (size_t i = 0; i < it.n && rc == 0;) {
        size_t end = items_run_end(&it, i, 0);
        if (compared(&it, i, end))
            rc = percentile_curves(db_handle(db), o, &it, i, end, r, &s, d);
        i = end;
    }
    items_release(&it);
    return rc;
}

/* ---- scaling curves ---- */

enum sweep { SWEEP_IODEPTH, SWEEP_NUMJOBS };
static const char *const sweep_names[] = {"iodepth", "numjobs"};

/* The workload without the swept setting: results that differ only in it are one sweep. Their
 * context must agree too within a side (identity.h: host, OS, mount, tool version, engine,
 * size; items_split_contexts): points from other experiments never join a curve. */
static struct group sweep_key(const struct side_result *r, enum sweep sw)
{
    return (struct group){"",
                          r->rw,
                          r->direction,
                          r->bs,
                          sw == SWEEP_IODEPTH ? r->numjobs : r->iodepth,
                          r->direct,
                          r->sync,
                          r->fsync + 2 * r->fdatasync};
}

static int64_t swept(const struct side_result *r, enum sweep sw)
{
    return sw == SWEEP_IODEPTH ? r->iodepth : r->numjobs;
}

/* One point of a sweep: the repeats at one depth. */
struct sweep_point {
    int64_t x;
    double iops, lat, p99; /* means of the repeats (lat: total latency, as the comparison's);
                              p99 from their merged bins */
    double in_flight;      /* Little's law: IOPS x mean total latency, the largest of a
                              repeat's (a run's own identity; the product of the means is not
                              one: with repeats that vary it exceeds every run's) */
    double outstanding;    /* iodepth x numjobs (one per job for synchronous engines) */
};

static double mean_of(const struct item *v, size_t from, size_t to, enum result_metric m)
{
    double sum = 0;
    size_t n = 0;
    for (size_t i = from; i < to; i++)
        if (!isnan(v[i].r->m[m])) {
            sum += v[i].r->m[m];
            n++;
        }
    return n ? sum / (double)n : NAN;
}

/* The most I/Os one run of the repeats had in flight (suspect.c's little_in_flight). */
static double max_in_flight(const struct item *v, size_t from, size_t to)
{
    double most = NAN, n, bound;
    for (size_t i = from; i < to; i++)
        if (little_in_flight(v[i].r, &n, &bound) && !(n <= most))
            most = n;
    return most;
}

static int sweep_point(sqlite3 *h, const struct item *v, size_t from, size_t to,
                       struct sweep_point *p, struct diag *d)
{
    const struct side_result *r = v[from].r;
    struct bins b = {0};
    int rc = bins_merge(h, v, from, to, &b, d);
    p->x = v[from].x;
    p->iops = mean_of(v, from, to, RM_IOPS);
    p->lat = mean_of(v, from, to, RM_LAT_TOTAL);
    /* never an average of percentiles: the merged bins, else the one result's own */
    p->p99 = b.n ? bins_percentile(&b, 99) : to - from == 1 ? r->m[RM_P99] : NAN;
    p->in_flight = max_in_flight(v, from, to);
    p->outstanding = (double)(result_engine_is_sync(r) ? 1
                              : r->iodepth > 0         ? r->iodepth
                                                       : 1) *
                     (double)(r->numjobs > 0 ? r->numjobs : 1);
    bins_release(&b);
    return rc;
}

/* The knee: the last point before the first step where mean latency grows by a larger factor
 * than IOPS; -1 when latency never outgrows throughput. */
static long knee(const struct sweep_point *p, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (p[i].lat / p[i - 1].lat > p[i].iops / p[i - 1].iops)
            return (long)i - 1;
    return -1;
}

struct sweep_ctx {
    struct report *r;
    struct section *s;
    struct table *t;
    const struct compare_opts *o;
    enum sweep sw;
};

static struct section *scaling_section(struct sweep_ctx *c)
{
    static const struct column cols[] = {
        {"Workload", UNIT_NONE, ROLE_PLAIN},    {"Side", UNIT_NONE, ROLE_PLAIN},
        {"iodepth", UNIT_NONE, ROLE_PLAIN},     {"numjobs", UNIT_NONE, ROLE_PLAIN},
        {"IOPS", UNIT_IOPS, ROLE_PLAIN},        {"Mean latency", UNIT_NS, ROLE_PLAIN},
        {"p99 latency", UNIT_NS, ROLE_PLAIN},   {"In flight", UNIT_NONE, ROLE_PLAIN},
        {"Outstanding", UNIT_NONE, ROLE_PLAIN}, {"Little's law", UNIT_NONE, ROLE_PLAIN},
        {"Knee", UNIT_NONE, ROLE_PLAIN},
    };
    if (!c->s) {
        c->s = report_section(
            c->r, "Scaling",
            "Workloads run at 3 or more queue depths (or job counts): IOPS against mean and p99 "
            "latency across the sweep. The knee is the last point before mean latency grows by "
            "a larger factor than IOPS. In flight is IOPS x mean total latency of one run "
            "(Little's law; the largest of the repeats), which cannot exceed the I/Os "
            "outstanding (iodepth x numjobs) by more than the tolerance.");
        c->t = report_table(c->r, c->s, "scaling", cols, ARRAY_SIZE(cols));
    }
    return c->s;
}

static void scaling_row(struct sweep_ctx *c, const char *workload, size_t side,
                        const struct side_result *first, const struct sweep_point *p, int is_knee)
{
    struct cell *row = table_add_row(c->r, c->t);
    cell_set_text(&row[0], workload);
    cell_set_text(&row[1], side_name(c->o, side));
    cell_set_number(&row[2], (double)(c->sw == SWEEP_IODEPTH ? p->x : first->iodepth));
    cell_set_number(&row[3], (double)(c->sw == SWEEP_NUMJOBS ? p->x : first->numjobs));
    cell_set_number(&row[4], p->iops);
    cell_set_number(&row[5], p->lat);
    if (isfinite(p->p99))
        cell_set_number(&row[6], p->p99);
    cell_set_number(&row[8], p->outstanding);
    if (isfinite(p->in_flight)) { /* else no run has both IOPS and a total latency */
        cell_set_number(&row[7], round(p->in_flight * 100) / 100);
        cell_set_text(&row[9],
                      p->in_flight <= LITTLE_TOLERANCE * p->outstanding ? "holds" : "broken");
    }
    if (is_knee)
        cell_set_text(&row[10], "knee");
}

static struct figure *scaling_figure(struct sweep_ctx *c, const char *workload)
{
    struct figure *f = section_figure(c->r, scaling_section(c), FIGURE_SCALING,
                                      arena_printf(&c->r->arena, "Scaling: %s", workload));
    f->x = (struct figure_axis){"IOPS", UNIT_IOPS, SCALE_LINEAR};
    f->y = (struct figure_axis){"Latency", UNIT_NS, SCALE_LINEAR};
    f->note = "Each point is one queue depth (or job count), in sweep order; a ring marks each "
              "side's knee, and a point that breaks Little's law is labelled so.";
    return f;
}

/* The curves of one side's sweep: mean and p99 latency against IOPS, the knee, Little's law. */
static void side_curves(struct sweep_ctx *c, struct figure *f, const char *workload, size_t side,
                        const struct side_result *first, const struct sweep_point *p, size_t n)
{
    struct arena *a = &c->r->arena;
    long k = knee(p, n);
    struct figure_series *mean =
        figure_series(a, f, arena_printf(a, "%s mean", side_name(c->o, side)));
    struct figure_series *p99 =
        figure_series(a, f, arena_printf(a, "%s p99", side_name(c->o, side)));
    for (size_t i = 0; i < n; i++) {
        figure_point(a, mean, p[i].iops, p[i].lat);
        if (isfinite(p[i].p99))
            figure_point(a, p99, p[i].iops, p[i].p99);
        if (p[i].in_flight > LITTLE_TOLERANCE * p[i].outstanding)
            figure_mark(a, f, p[i].iops, p[i].lat, "breaks Little's law");
        scaling_row(c, workload, side, first, &p[i], (long)i == k);
    }
    if (k >= 0)
        figure_mark(a, f, p[k].iops, p[k].lat,
                    arena_printf(a, "knee: %s %s=%" PRId64, side_name(c->o, side),
                                 sweep_names[c->sw], p[k].x));
}

/* The sweep's name: its workload without the swept setting, the context the comparison breaks
 * its workload out by ("[engine io_uring]"), then the range swept. */
static const char *sweep_title(struct arena *a, const struct side_result *first, enum sweep sw,
                               int64_t lo, int64_t hi)
{
    struct buf b = BUF_INIT;
    sweep_name(&b, first, sw == SWEEP_IODEPTH, sw == SWEEP_NUMJOBS);
    buf_addf(&b, ", %s %" PRId64 " to %" PRId64, sweep_names[sw], lo, hi);
    const char *s = arena_strdup(a, b.data);
    buf_release(&b);
    return s;
}

/* The points of the side run [i, end): one per distinct swept value. */
static int side_points(sqlite3 *h, const struct items *it, size_t i, size_t end,
                       struct sweep_point **p, size_t *n, struct diag *d)
{
    *n = 0;
    *p = xcalloc(end - i, sizeof(**p));
    int rc = 0;
    for (size_t j = i, k; j < end && rc == 0; j = k) {
        k = items_x_end(it, j, end);
        rc = sweep_point(h, it->v, j, k, &(*p)[(*n)++], d);
    }
    return rc;
}

/* A figure for the sweep [i, end) when one of its sides has enough points. */
static int sweep_curves(sqlite3 *h, struct sweep_ctx *c, const struct items *it, size_t i,
                        size_t end, struct diag *d)
{
    struct figure *f = NULL;
    const char *title = NULL;
    int rc = 0;
    for (size_t j = i; j < end && rc == 0;) {
        size_t side_end = items_run_end(it, j, 1), n;
        struct sweep_point *p;
        rc = side_points(h, it, j, side_end, &p, &n, d);
        if (rc == 0 && n >= MIN_SWEEP_POINTS) {
            if (!f) {
                title = sweep_title(&c->r->arena, it->v[j].r, c->sw, p[0].x, p[n - 1].x);
                f = scaling_figure(c, title);
            }
            side_curves(c, f, title, it->v[j].side, it->v[j].r, p, n);
        }
        free(p);
        j = side_end;
    }
    if (f)
        figure_fit_scale(f);
    return rc;
}

/* Whether r can be a point of sweep sw: a synchronous engine's iodepth is no setting. */
static int sweepable(const struct side_result *r, enum sweep sw)
{
    return usable(r) && swept(r, sw) > 0 && !(sw == SWEEP_IODEPTH && result_engine_is_sync(r));
}

/* Whether the results take MIN_SWEEP_POINTS swept values at all: else no sweep has that many
 * points, and a million results at one queue depth need not be sorted into sweeps. */
static int enough_swept_values(const struct side_results *res, enum sweep sw)
{
    int64_t seen[MIN_SWEEP_POINTS];
    size_t n = 0;
    for (size_t i = 0; i < res->n && n < MIN_SWEEP_POINTS; i++) {
        if (!sweepable(&res->v[i], sw))
            continue;
        size_t j = 0;
        while (j < n && seen[j] != swept(&res->v[i], sw))
            j++;
        if (j == n)
            seen[n++] = swept(&res->v[i], sw);
    }
    return n == MIN_SWEEP_POINTS;
}

static int scaling(struct db *db, const struct compare_opts *o, const struct side_results *res,
                   const struct id_set *binned, struct report *r, struct diag *d)
{
    struct sweep_ctx c = {r, NULL, NULL, o, SWEEP_IODEPTH};
    struct arena contexts = ARENA_INIT;
    int rc = 0;
    for (int sw = SWEEP_IODEPTH; sw <= SWEEP_NUMJOBS && rc == 0; sw++) {
        struct items it = {0};
        c.sw = (enum sweep)sw;
        if (!enough_swept_values(res, c.sw))
            continue;
        for (size_t i = 0; i < res->n; i++)
            if (sweepable(&res->v[i], c.sw))
                items_add(&it, sweep_key(&res->v[i], c.sw), &res->v[i], swept(&res->v[i], c.sw),
                          binned);
        items_sort(&it);
        items_split_contexts(&it, &contexts, o->by);
        for (size_t i = 0; i < it.n && rc == 0;) {
            size_t end = items_run_end(&it, i, 0);
            rc = sweep_curves(db_handle(db), &c, &it, i, end, d);
            i = end;
        }
        items_release(&it);
    }
    arena_release(&contexts);
    return rc;
}

int query_figures(struct db *db, const struct compare_opts *o, const struct side_results *res,
                  const struct id_set *binned, struct report *r, struct diag *d)
{
    int rc = percentiles(db, o, res, binned, r, d);
    if (rc == 0)
        rc = scaling(db, o, res, binned, r, d);
    return rc;
}
