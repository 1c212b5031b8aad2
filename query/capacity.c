/* capacity.c: capacity at a latency target (capacity.h). A sweep is one workload run at several
 * queue depths (or job counts) on one side, with the same context (groups.h's key, as the
 * scaling curves'). Each depth is a point: the mean IOPS of its repeats with their interval, and
 * its latency, a percentile from the repeats' merged json+ bins (else the worst repeat's own
 * percentile, never an average of percentiles). The capacity is the measured point with the
 * most IOPS whose latency meets the target: no point is interpolated or extrapolated.
 * docs/methods.md, "Capacity at a latency target", states the rules. */
#include "capacity.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/ini.h"
#include "../core/scan.h"
#include "../core/xalloc.h"
#include "cost.h"
#include "groups.h"
#include "insights.h"
#include "stats.h"

/* ---- targets ---- */

int slo_parse(const char *s, struct slo *out, const char **why)
{
    const char *p = skip_ws(s);
    *out = (struct slo){.text = s};
    if (scan_lit(&p, "mean")) {
        out->stat = SLO_MEAN;
    } else if (*p == 'p' && (p++, scan_number(&p, &out->pct)) && out->pct > 0 && out->pct < 100) {
        out->stat = SLO_PERCENTILE;
    } else {
        *why = "expected a latency statistic: pNN (p99, p99.9) or mean";
        return -1;
    }
    p = skip_ws(p);
    if (scan_lit(&p, "<="))
        out->strict = 0;
    else if (scan_lit(&p, "<"))
        out->strict = 1;
    else {
        *why = "expected '<=' or '<' after the statistic";
        return -1;
    }
    p = skip_ws(p);
    double v, scale = 0;
    const char *unit;
    size_t unit_len;
    if (scan_quantity(&p, &v, &unit, &unit_len))
        scale = unit_time_ns(unit, unit_len);
    if (!(scale > 0) || !(v > 0) || *skip_ws(p)) {
        *why = "expected a time above 0 with its unit (ns, us, ms, s): p99<=2ms";
        return -1;
    }
    out->limit_ns = v * scale;
    return 0;
}

/* Whether latency_ns meets the target. */
static int slo_met(const struct slo *t, double latency_ns)
{
    return t->strict ? latency_ns < t->limit_ns : latency_ns <= t->limit_ns;
}

/* ---- points ---- */

/* Why a result is left out of a point, as the recommendations leave it out. */
static const unsigned LEFT_OUT =
    SUSPECT_CACHED | SUSPECT_SHORT | SUSPECT_TRANSCRIBED | SUSPECT_IMPOSSIBLE;

/* One depth of a side's sweep: the repeats kept there. */
struct point {
    int64_t iodepth, numjobs; /* iodepth 1 for synchronous engines */
    double outstanding;       /* iodepth x numjobs: the I/Os it keeps in flight */
    struct sample_stats iops, bw;
    double latency; /* the target's statistic, ns; NAN unknown */
    int merged;     /* from the repeats' merged bins (else the worst repeat's own) */
    size_t kept;
    unsigned dropped; /* suspect bits of the repeats left out */
};

/* The stored percentile columns: fio's default list, the only ones a result without bins has. */
static const double STORED_PCTS[] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                     80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

/* The columns of stored percentile pct, clat's then lat's ("clat_p99_9_ns", "lat_p99_9_ns");
 * 0 when fio never stores that percentile. */
static int stored_names(double pct, char clat[32], char lat[32])
{
    size_t i = 0;
    while (i < ARRAY_SIZE(STORED_PCTS) && STORED_PCTS[i] != pct)
        i++;
    if (i == ARRAY_SIZE(STORED_PCTS))
        return 0;
    char digits[16];
    snprintf(digits, sizeof(digits), "%g", pct);
    char *dot = strchr(digits, '.');
    if (dot)
        *dot = '_';
    snprintf(clat, 32, "clat_p%s_ns", digits);
    snprintf(lat, 32, "lat_p%s_ns", digits);
    return 1;
}

int capacity_reads_metric(const struct compare_opts *o, const char *name)
{
    char clat[32], lat[32];
    for (size_t i = 0; i < o->nslos; i++)
        if (o->slos[i].stat != SLO_MEAN && stored_names(o->slos[i].pct, clat, lat) &&
            (!strcmp(name, clat) || !strcmp(name, lat)))
            return 1;
    return 0;
}

/* The stored percentile pct of each result (clat's, else lat's; NAN unknown), in res order;
 * NULL when fio never stores that percentile. */
static int stored_percentiles(struct db *db, const struct side_results *res, double pct,
                              double **out, struct diag *d)
{
    *out = NULL;
    char clat_name[32], lat_name[32];
    if (!stored_names(pct, clat_name, lat_name) || !res->n)
        return 0;
    double *clat = xcalloc(res->n, sizeof(*clat)), *lat = xcalloc(res->n, sizeof(*lat));
    int rc = query_metric_values(db, res, clat_name, clat, d);
    if (rc == 0)
        rc = query_metric_values(db, res, lat_name, lat, d);
    for (size_t k = 0; k < res->n; k++)
        if (isnan(clat[k]))
            clat[k] = lat[k];
    free(lat);
    if (rc)
        free(clat);
    else
        *out = clat;
    return rc;
}

/* What a point's latency is computed from. */
struct latency_basis {
    sqlite3 *h;
    const struct slo *slo;
    const struct side_results *res;
    const double *stored; /* stored_percentiles' for slo, or NULL */
};

/* The worst of the kept repeats' own stored percentile (each must have one): NAN otherwise. */
static double worst_repeat(const struct latency_basis *b, const struct item *kept, size_t n)
{
    double worst = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = b->stored ? b->stored[kept[i].r - b->res->v] : NAN;
        if (isnan(v))
            return NAN;
        worst = fmax(worst, v);
    }
    return n ? worst : NAN;
}

static int point_latency(const struct latency_basis *b, const struct item *kept, size_t n,
                         struct point *p, struct diag *d)
{
    size_t binned = 0;
    for (size_t i = 0; i < n; i++)
        binned += kept[i].binned != 0;
    if (b->slo->stat == SLO_MEAN) { /* the total latency (what the application waits),
                                     * as the scaling table's; means of equal runs average */
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += kept[i].r->m[RM_LAT_TOTAL];
        p->latency = n ? sum / (double)n : NAN;
        return 0;
    }
    if (binned == n && n) {
        struct bins bins = {0};
        int rc = bins_merge(b->h, kept, 0, n, &bins, d);
        p->latency = bins.n ? bins_percentile(&bins, b->slo->pct) : NAN;
        p->merged = bins.n > 0;
        bins_release(&bins);
        if (rc || bins.n)
            return rc;
    }
    p->latency = worst_repeat(b, kept, n);
    return 0;
}

static void describe_metric(const struct item *kept, size_t n, enum result_metric m,
                            struct sample_stats *out)
{
    double *v = xcalloc(n ? n : 1, sizeof(*v));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(kept[i].r->m[m]))
            v[k++] = kept[i].r->m[m];
    stats_describe(v, k, out);
    free(v);
}

/* The point of the repeats v[from, to) (one depth of one side's sweep). */
static int make_point(const struct latency_basis *b, const struct item *v, size_t from, size_t to,
                      struct point *p, struct diag *d)
{
    const struct side_result *first = v[from].r;
    *p = (struct point){.iodepth = result_engine_is_sync(first) ? 1 : first->iodepth,
                        .numjobs = first->numjobs > 0 ? first->numjobs : 1,
                        .latency = NAN};
    p->outstanding = (double)(p->iodepth > 0 ? p->iodepth : 1) * (double)p->numjobs;
    struct item *kept = xcalloc(to - from, sizeof(*kept));
    for (size_t i = from; i < to; i++)
        if (v[i].r->suspect & LEFT_OUT)
            p->dropped |= v[i].r->suspect & LEFT_OUT;
        else
            kept[p->kept++] = v[i];
    describe_metric(kept, p->kept, RM_IOPS, &p->iops);
    describe_metric(kept, p->kept, RM_BW, &p->bw);
    int rc = p->kept ? point_latency(b, kept, p->kept, p, d) : 0;
    free(kept);
    return rc;
}

static int cmp_point(const void *a, const void *b)
{
    const struct point *x = a, *y = b;
    if (x->outstanding != y->outstanding)
        return x->outstanding < y->outstanding ? -1 : 1;
    return (x->iodepth > y->iodepth) - (x->iodepth < y->iodepth);
}

/* The points of one side's sweep, items [from, to), in order of I/Os outstanding. */
static int side_points(const struct latency_basis *b, const struct items *it, size_t from,
                       size_t to, struct point **out, size_t *n, struct diag *d)
{
    *n = 0;
    *out = xcalloc(to - from, sizeof(**out));
    int rc = 0;
    for (size_t j = from, k; j < to && rc == 0; j = k) {
        k = items_x_end(it, j, to);
        rc = make_point(b, it->v, j, k, &(*out)[(*n)++], d);
    }
    qsort(*out, *n, sizeof(**out), cmp_point);
    return rc;
}

/* ---- the verdict on one side's sweep ---- */

/* "QD8", "QD8 x 4 jobs", "4 jobs" (synchronous engines). */
static void depth_name(struct buf *out, const struct point *p, int sync_engine)
{
    if (!sync_engine)
        buf_addf(out, "QD%" PRId64, p->iodepth);
    if (p->numjobs > 1 || sync_engine)
        buf_addf(out, "%s%" PRId64 " job%s", sync_engine ? "" : " x ", p->numjobs,
                 p->numjobs == 1 ? "" : "s");
}

static int usable_point(const struct point *p)
{
    return p->kept && !isnan(p->iops.mean) && !isnan(p->latency);
}

/* The index of the point with the most IOPS that meets t; -1 when none does. */
static long best_met(const struct slo *t, const struct point *p, size_t n)
{
    long best = -1;
    for (size_t i = 0; i < n; i++)
        if (usable_point(&p[i]) && slo_met(t, p[i].latency) &&
            (best < 0 || p[i].iops.mean > p[best].iops.mean))
            best = (long)i;
    return best;
}

/* The usable point with the lowest latency (none meets the target). */
static long lowest_latency(const struct point *p, size_t n)
{
    long best = -1;
    for (size_t i = 0; i < n; i++)
        if (usable_point(&p[i]) && (best < 0 || p[i].latency < p[best].latency))
            best = (long)i;
    return best;
}

static size_t usable_points(const struct point *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += usable_point(&p[i]) != 0;
    return k;
}

/* The finding on a side's sweep for target t: what the chosen point (or the best one) says. */
static void finding(struct buf *out, const struct slo *t, const struct point *p, size_t n,
                    long chosen, int sync_engine)
{
    if (chosen < 0) {
        long best = lowest_latency(p, n);
        buf_adds(out, "not reached at any tested depth");
        if (best >= 0) {
            buf_adds(out, " (best: ");
            unit_format(out, p[best].latency, UNIT_NS);
            buf_adds(out, " at ");
            depth_name(out, &p[best], sync_engine);
            buf_addc(out, ')');
        }
        return;
    }
    size_t next = (size_t)chosen + 1;
    while (next < n && !usable_point(&p[next]))
        next++;
    if (usable_points(p, n) < 2) {
        buf_adds(out, "met at the one depth tested: no sweep to find the highest");
    } else if (next == n) {
        buf_adds(out, "met at the deepest tested depth: the capacity may be higher");
    } else if (!slo_met(t, p[next].latency)) {
        buf_adds(out, "between ");
        depth_name(out, &p[chosen], sync_engine);
        buf_adds(out, " (met) and ");
        depth_name(out, &p[next], sync_engine);
        buf_adds(out, " (missed: ");
        unit_format(out, p[next].latency, UNIT_NS);
        buf_addc(out, ')');
    } else {
        buf_adds(out, "IOPS peak here; deeper queues met the target with no more IOPS");
    }
}

/* ---- the section ---- */

/* The latency targets: --slo's, then those of a rules file (its slo lines). */
struct targets {
    struct slo *v;
    size_t n, a;
};

struct cap_ctx {
    struct report *r;
    const struct compare_opts *o;
    const struct targets *targets;
    const struct costs *costs; /* --cost FILE's; NULL: no cost columns */
    size_t section;            /* the index of the section Capacity (sections move as they grow) */
    struct table *t;           /* its table; NULL until the first row */
    struct table *cost_t;      /* the cost table's, with a cost file */
    struct table *points;      /* the points behind each row, for the planner's workbook */
};

static const char *const WORDS[] = {"cached", "short runs", "typed without workload",
                                    "breaks Little's law"};
static const unsigned BITS[] = {SUSPECT_CACHED, SUSPECT_SHORT, SUSPECT_TRANSCRIBED,
                                SUSPECT_IMPOSSIBLE};

/* "QD64 (short runs); QD32 (cached)": the depths whose repeats were all left out, and why. */
static void dropped_depths(struct buf *out, const struct point *p, size_t n, int sync_engine)
{
    for (size_t i = 0; i < n; i++) {
        if (!p[i].dropped)
            continue;
        buf_adds(out, out->len ? "; " : "left out: ");
        depth_name(out, &p[i], sync_engine);
        buf_addf(out, p[i].kept ? " (some repeats: " : " (");
        const char *sep = "";
        for (size_t k = 0; k < ARRAY_SIZE(BITS); k++)
            if (p[i].dropped & BITS[k]) {
                buf_addf(out, "%s%s", sep, WORDS[k]);
                sep = ", ";
            }
        buf_addc(out, ')');
    }
}

/* ---- the planner's inputs: what the workbook's live Capacity sheet computes from ---- */

static struct table *appendix_table(struct report *r, const char *heading, const char *name,
                                    const struct column *cols, size_t ncols)
{
    struct section *s = report_section(r, heading, "");
    s->appendix = 1;
    return report_table(r, s, name, cols, ncols);
}

static void number_or_empty(struct cell *c, double v)
{
    if (isfinite(v))
        cell_set_number(c, v);
}

/* The tables "capacity_targets" (each --slo) and "capacity_costs" (each compared value with
 * its cost file's figures, empty where none), and "capacity_points", filled row by row. All
 * in base units, as their names say, as the Runs and Results tables are. */
static void input_tables(struct cap_ctx *c)
{
    static const struct column targets[] = {
        {"target", UNIT_NONE, ROLE_FIELD},     {"statistic", UNIT_NONE, ROLE_FIELD},
        {"percentile", UNIT_NONE, ROLE_FIELD}, {"limit_ns", UNIT_NONE, ROLE_FIELD},
        {"strict", UNIT_NONE, ROLE_FIELD},
    };
    static const struct column costs[] = {
        {"name", UNIT_NONE, ROLE_FIELD},
        {"currency", UNIT_NONE, ROLE_FIELD},
        {"month", UNIT_NONE, ROLE_FIELD},
        {"gib_month", UNIT_NONE, ROLE_FIELD},
        {"capacity_bytes", UNIT_NONE, ROLE_FIELD},
        {"iops_month", UNIT_NONE, ROLE_FIELD},
        {"provisioned_iops", UNIT_NONE, ROLE_FIELD},
        {"mibs_month", UNIT_NONE, ROLE_FIELD},
        {"provisioned_bw_bytes_s", UNIT_NONE, ROLE_FIELD},
        {"demand_iops", UNIT_NONE, ROLE_FIELD},
        {"growth_pct", UNIT_NONE, ROLE_FIELD},
    };
    static const struct column points[] = {
        {"target", UNIT_NONE, ROLE_FIELD},     {"workload", UNIT_NONE, ROLE_FIELD},
        {"side", UNIT_NONE, ROLE_FIELD},       {"iodepth", UNIT_NONE, ROLE_FIELD},
        {"numjobs", UNIT_NONE, ROLE_FIELD},    {"iops", UNIT_NONE, ROLE_FIELD},
        {"bw_bytes_s", UNIT_NONE, ROLE_FIELD}, {"latency_ns", UNIT_NONE, ROLE_FIELD},
    };
    struct report *r = c->r;
    struct table *t =
        appendix_table(r, "Capacity targets", "capacity_targets", targets, ARRAY_SIZE(targets));
    for (size_t i = 0; i < c->targets->n; i++) {
        const struct slo *slo = &c->targets->v[i];
        struct cell *row = table_add_row(r, t);
        cell_set_text(&row[0], slo->text);
        cell_set_text(&row[1], slo->stat == SLO_MEAN ? "mean" : "percentile");
        number_or_empty(&row[2], slo->stat == SLO_MEAN ? NAN : slo->pct);
        cell_set_number(&row[3], slo->limit_ns);
        cell_set_number(&row[4], slo->strict);
    }
    t = appendix_table(r, "Capacity costs", "capacity_costs", costs, ARRAY_SIZE(costs));
    for (size_t i = 0; i < c->o->nvalues; i++) {
        struct cell *row = table_add_row(r, t);
        cell_set_text(&row[0], c->o->values[i]);
        const struct cost_class *cc = c->costs ? costs_find(c->costs, c->o->values[i]) : NULL;
        if (!cc)
            continue;
        cell_set_text(&row[1], arena_strdup(&r->arena, c->costs->currency)); /* costs go first */
        const double v[] = {cc->month,          cc->gib_month,        cc->capacity_bytes,
                            cc->iops_month,     cc->provisioned_iops, cc->mibs_month,
                            cc->provisioned_bw, cc->demand_iops,      cc->growth_pct};
        for (size_t k = 0; k < ARRAY_SIZE(v); k++)
            number_or_empty(&row[2 + k], v[k]);
    }
    c->points = appendix_table(r, "Capacity points", "capacity_points", points, ARRAY_SIZE(points));
}

/* The usable points of a row (target t, workload, side), in depth order. */
static void point_rows(struct cap_ctx *c, const char *workload, const struct slo *t, size_t side,
                       const struct point *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!usable_point(&p[i]))
            continue;
        struct cell *row = table_add_row(c->r, c->points);
        cell_set_text(&row[0], t->text);
        cell_set_text(&row[1], workload);
        cell_set_text(&row[2], c->o->values[side]);
        cell_set_number(&row[3], (double)p[i].iodepth);
        cell_set_number(&row[4], (double)p[i].numjobs);
        cell_set_number(&row[5], p[i].iops.mean);
        number_or_empty(&row[6], p[i].bw.mean);
        cell_set_number(&row[7], p[i].latency);
    }
}

/* The columns of the capacity table. */
enum {
    COL_WORKLOAD,
    COL_TARGET,
    COL_SIDE,
    COL_AT,
    COL_IOPS,
    COL_IOPS_LOW,
    COL_BW,
    COL_LATENCY,
    COL_FINDING,
    COL_BASIS,
    N_CAP_COLS
};
/* The columns of the cost table (cost_cells fills those from COST_MONTH on): the row's key
 * and capacity as the capacity table has them, then what they cost. */
enum { COST_WORKLOAD, COST_TARGET, COST_SIDE, COST_AT, COST_IOPS, COST_MONTH, N_COST_COLS = 11 };
_Static_assert((int)COST_AT == (int)COL_AT && (int)COST_IOPS == (int)COL_IOPS,
               "the cost table repeats the key");

/* The section "Cost and headroom" (with a cost file), its prices named with its currency. */
static void cost_table(struct cap_ctx *c)
{
    struct arena *a = &c->r->arena;
    const char *cur = *c->costs->currency ? c->costs->currency : "Cost";
    const struct column cols[N_COST_COLS] = {
        {"Workload", UNIT_NONE, ROLE_KEY},
        {"Target", UNIT_NONE, ROLE_PLAIN},
        {"Side", UNIT_NONE, ROLE_PLAIN},
        {"At", UNIT_NONE, ROLE_PLAIN},
        {"IOPS", UNIT_IOPS, ROLE_PLAIN},
        {arena_printf(a, "%s per month", cur), UNIT_NONE, ROLE_PLAIN},
        {arena_printf(a, "%s per 1k IOPS", cur), UNIT_NONE, ROLE_PLAIN},
        {arena_printf(a, "%s per GiB/s", cur), UNIT_NONE, ROLE_PLAIN},
        {"IOPS of provisioned", UNIT_PERCENT, ROLE_PLAIN},
        {"Bandwidth of provisioned", UNIT_PERCENT, ROLE_PLAIN},
        {"Months of headroom", UNIT_NONE, ROLE_PLAIN},
    };
    struct section *s = report_section(
        c->r, "Cost and headroom",
        "At each side's capacity above: the price per month from the cost file, per 1k IOPS "
        "and per GiB/s that meet the target, the measured IOPS and bandwidth as a share of those "
        "provisioned, and the months until demand growing as given reaches the measured IOPS. "
        "A value without a price says so, never 0.");
    c->cost_t = report_table(c->r, s, "capacity_cost", cols, N_COST_COLS);
}

static struct table *capacity_table(struct cap_ctx *c)
{
    static const struct column cols[N_CAP_COLS] = {
        {"Workload", UNIT_NONE, ROLE_KEY},       {"Target", UNIT_NONE, ROLE_PLAIN},
        {"Side", UNIT_NONE, ROLE_PLAIN},         {"At", UNIT_NONE, ROLE_PLAIN},
        {"IOPS", UNIT_IOPS, ROLE_PLAIN},         {"IOPS, 95 % low", UNIT_IOPS, ROLE_PLAIN},
        {"Bandwidth", UNIT_BYTES_S, ROLE_PLAIN}, {"Latency", UNIT_NS, ROLE_PLAIN},
        {"Finding", UNIT_NONE, ROLE_PLAIN},      {"Basis", UNIT_NONE, ROLE_PLAIN},
    };
    if (c->t)
        return c->t;
    c->section = c->r->nsections;
    struct section *s = report_section(
        c->r, "Capacity",
        "The most IOPS each side gave at a tested queue depth (or job count) while the latency "
        "met the target. Only measured depths count, none interpolated. A percentile comes from "
        "the latency bins (fio json+) of the depth's repeats merged, else from the worst "
        "repeat's own percentile, never an average of percentiles; it is the completion "
        "latency's (clat), else the total's. IOPS and bandwidth are the repeats' mean with "
        "their spread; the IOPS' 95 % low is the lower end of its interval, what the runs "
        "can promise. Cached, short, typed and impossible runs are left out and named. Jobs "
        "with fsync or fdatasync are not swept here: the latency that matters there is the "
        "fsync's.");
    c->t = report_table(c->r, s, "capacity", cols, N_CAP_COLS);
    if (c->costs)
        cost_table(c);
    input_tables(c);
    return c->t;
}

/* Months until demand, growing by growth_pct a year, reaches capacity: 0 when it already
 * does; NAN without a demand or a growth above 0. */
static double months_of_headroom(double capacity, double demand, double growth_pct)
{
    if (!(demand > 0) || isnan(capacity))
        return NAN;
    if (capacity <= demand)
        return 0;
    return growth_pct > 0 ? 12 * log(capacity / demand) / log1p(growth_pct / 100) : NAN;
}

/* v, shown with its decimals (a price to the cent, months to a tenth; -1: as the unit shows
 * it; the number stays exact); else the text otherwise (NULL: empty). */
static void set_number_or(struct arena *a, struct cell *c, double v, int decimals,
                          const char *otherwise)
{
    if (isfinite(v)) {
        cell_set_number(c, v);
        if (decimals >= 0)
            c->text = arena_printf(a, "%.*f", decimals, v);
    } else if (otherwise) {
        cell_set_text(c, otherwise);
    }
}

/* The cost row of a capacity row (its key in cap), whose chosen point is p (NULL: none met
 * the target). */
static void cost_cells(struct cap_ctx *c, const struct cell *cap, size_t side,
                       const struct point *p)
{
    struct cell *row = table_add_row(c->r, c->cost_t);
    for (size_t k = COST_WORKLOAD; k <= COST_IOPS; k++) /* the same columns in the same order */
        row[k] = cap[k];
    const struct cost_class *cc = costs_find(c->costs, c->o->values[side]);
    if (!cc) {
        for (size_t k = COST_MONTH; k < N_COST_COLS; k++)
            cell_set_text(&row[k], "no cost given");
        return;
    }
    double month = cost_monthly(cc), iops = p ? p->iops.mean : NAN, bw = p ? p->bw.mean : NAN;
    const char *none = p ? NULL : "target not reached";
    struct arena *a = &c->r->arena;
    set_number_or(a, &row[COST_MONTH], month, 2, "no price given");
    set_number_or(a, &row[COST_MONTH + 1], month / (iops / 1000), 2, isnan(month) ? NULL : none);
    set_number_or(a, &row[COST_MONTH + 2], month / (bw / 1073741824.0), 2,
                  isnan(month) ? NULL : none);
    set_number_or(a, &row[COST_MONTH + 3], 100 * iops / cc->provisioned_iops, -1,
                  isnan(cc->provisioned_iops) ? "none provisioned" : none);
    set_number_or(a, &row[COST_MONTH + 4], 100 * bw / cc->provisioned_bw, -1,
                  isnan(cc->provisioned_bw) ? "none provisioned" : none);
    set_number_or(a, &row[COST_MONTH + 5],
                  months_of_headroom(iops, cc->demand_iops, cc->growth_pct), 1,
                  isnan(cc->demand_iops) ? "no demand given" : none);
}

static void stats_cell(struct cell *c, const struct sample_stats *st)
{
    if (!st->n)
        return;
    cell_set_number(c, st->mean);
    c->sd = st->sd;
    c->n = (int)st->n;
    c->min = st->min;
    c->max = st->max;
    c->lo = st->ci_lo;
    c->hi = st->ci_hi;
}

/* What a planner can count on: the lower end of the IOPS' 95 % interval, which one run, or a
 * spread so wide that it reaches 0, cannot give. */
static void low_cell(struct cell *c, const struct sample_stats *st)
{
    if (st->n < 2)
        cell_set_text(c, "n/a (one run)");
    else if (!(st->ci_lo > 0))
        cell_set_text(c, "n/a (spread too wide)");
    else
        cell_set_number(c, st->ci_lo);
}

static const char *basis_text(struct arena *a, const struct slo *t, const struct point *p)
{
    if (t->stat == SLO_MEAN)
        return arena_printf(a, "mean total latency of %zu run%s", p->kept, p->kept == 1 ? "" : "s");
    if (p->merged)
        return arena_printf(a, "merged json+ bins of %zu run%s", p->kept, p->kept == 1 ? "" : "s");
    return arena_printf(a, "worst of %zu run%s' own p%g", p->kept, p->kept == 1 ? "" : "s", t->pct);
}

/* The row of one side's sweep for target t. */
static void capacity_row(struct cap_ctx *c, const char *workload, const struct slo *t, size_t side,
                         const struct point *p, size_t n, int sync_engine)
{
    struct arena *a = &c->r->arena;
    struct cell *row = table_add_row(c->r, capacity_table(c));
    point_rows(c, workload, t, side, p, n);
    cell_set_text(&row[COL_WORKLOAD], workload);
    cell_set_text(&row[COL_TARGET], t->text);
    cell_set_text(&row[COL_SIDE], c->o->values[side]);
    struct buf text = BUF_INIT;
    long chosen = -1;
    if (!n || !usable_points(p, n)) {
        buf_adds(&text, n ? "no usable depth" : "no sweep of this workload on this side");
    } else {
        chosen = best_met(t, p, n);
        if (chosen >= 0) {
            struct buf at = BUF_INIT;
            depth_name(&at, &p[chosen], sync_engine);
            cell_set_text(&row[COL_AT], arena_strdup(a, at.data));
            buf_release(&at);
            stats_cell(&row[COL_IOPS], &p[chosen].iops);
            low_cell(&row[COL_IOPS_LOW], &p[chosen].iops);
            stats_cell(&row[COL_BW], &p[chosen].bw);
            cell_set_number(&row[COL_LATENCY], p[chosen].latency);
            cell_set_text(&row[COL_BASIS], basis_text(a, t, &p[chosen]));
        }
        finding(&text, t, p, n, chosen, sync_engine);
    }
    struct buf left = BUF_INIT;
    dropped_depths(&left, p, n, sync_engine);
    if (left.len)
        buf_addf(&text, "; %s", left.data);
    cell_set_text(&row[COL_FINDING], arena_strdup(a, text.data));
    buf_release(&left);
    buf_release(&text);
    if (c->costs)
        cost_cells(c, row, side, chosen >= 0 ? &p[chosen] : NULL);
}

/* The latency-throughput curve of a sweep for target t: a series per side (IOPS, latency) in
 * depth order, the target as a line across them, each side's chosen point marked. */
static void capacity_curve(struct cap_ctx *c, const char *workload, const struct slo *t,
                           struct point *const *p, const size_t *n, size_t nsides, int sync_engine)
{
    struct arena *a = &c->r->arena;
    struct figure *f = section_figure(c->r, &c->r->sections[c->section], FIGURE_SCALING,
                                      arena_printf(a, "Capacity: %s, %s", workload, t->text));
    f->x = (struct figure_axis){"IOPS", UNIT_IOPS, SCALE_LINEAR};
    f->y = (struct figure_axis){t->stat == SLO_MEAN ? "Mean latency"
                                                    : arena_printf(a, "p%g latency", t->pct),
                                UNIT_NS, SCALE_LINEAR};
    f->note = "Each point is one tested depth; the line is the target, a ring each side's "
              "capacity: its point with the most IOPS under the line.";
    double lo = INFINITY, hi = 0;
    for (size_t s = 0; s < nsides; s++) {
        if (!n[s])
            continue;
        struct figure_series *fs = figure_series(a, f, c->o->values[s]);
        for (size_t i = 0; i < n[s]; i++)
            if (usable_point(&p[s][i])) {
                figure_point(a, fs, p[s][i].iops.mean, p[s][i].latency);
                lo = fmin(lo, p[s][i].iops.mean);
                hi = fmax(hi, p[s][i].iops.mean);
            }
        long chosen = best_met(t, p[s], n[s]);
        if (chosen >= 0) {
            struct buf at = BUF_INIT;
            depth_name(&at, &p[s][chosen], sync_engine);
            figure_mark(a, f, p[s][chosen].iops.mean, p[s][chosen].latency,
                        arena_printf(a, "%s: %s", c->o->values[s], at.data));
            buf_release(&at);
        }
    }
    if (hi > 0) {
        struct figure_series *line = figure_series(a, f, arena_printf(a, "target %s", t->text));
        figure_point(a, line, lo, t->limit_ns);
        figure_point(a, line, hi, t->limit_ns);
    }
    figure_fit_scale(f);
}

/* ---- sweeps ---- */

/* A sweep's settings but its depths: the workload (split by its context after: groups.h), and
 * whether its engine is synchronous: a job count sweep and a queue depth sweep are not one axis
 * (and the rows name their points by the family's first). fsync jobs are left out (the caller
 * checks): their latency target is the fsync's. */
static struct group sweep_family(const struct side_result *r)
{
    return (struct group){"",      r->rw, r->direction, r->bs, result_engine_is_sync(r), r->direct,
                          r->sync, 0};
}

static int sweepable(const struct side_result *r)
{
    return result_usable(r) && (*r->rw || *r->direction) && !result_is_network(r) &&
           r->fsync <= 0 && r->fdatasync <= 0 && r->iodepth > 0;
}

/* "Random Read 4K": the workload without its depth and job count, with the context the
 * comparison breaks its workload out by ("[engine io_uring]"). */
static const char *family_name(struct arena *a, const struct side_result *first)
{
    struct buf b = BUF_INIT;
    sweep_name(&b, first, 1, 1);
    const char *s = arena_strdup(a, b.data);
    buf_release(&b);
    return s;
}

/* The rows and curves of the sweep items [i, end) (one family, every side) for target t. */
static int family_rows(struct cap_ctx *c, const struct latency_basis *b, const struct items *it,
                       size_t i, size_t end, struct diag *d)
{
    size_t nsides = c->o->nvalues;
    struct point **p = xcalloc(nsides, sizeof(*p));
    size_t *n = xcalloc(nsides, sizeof(*n));
    int rc = 0, swept = 0;
    for (size_t j = i; j < end && rc == 0;) {
        size_t side_end = items_run_end(it, j, 1);
        size_t side = it->v[j].side;
        rc = side_points(b, it, j, side_end, &p[side], &n[side], d);
        swept |= n[side] >= 2;
        j = side_end;
    }
    const struct side_result *first = it->v[i].r;
    int sync_engine = result_engine_is_sync(first);
    if (rc == 0 && swept) { /* a family no side swept is not a capacity question */
        const char *workload = family_name(&c->r->arena, first);
        for (size_t s = 0; s < nsides; s++)
            capacity_row(c, workload, b->slo, s, p[s], n[s], sync_engine);
        capacity_curve(c, workload, b->slo, p, n, nsides, sync_engine);
    }
    for (size_t s = 0; s < nsides; s++)
        free(p[s]);
    free(p);
    free(n);
    return rc;
}

static int all_binned(const struct items *it)
{
    for (size_t i = 0; i < it->n; i++)
        if (!it->v[i].binned)
            return 0;
    return 1;
}

static int target_rows(struct db *db, struct cap_ctx *c, const struct slo *t,
                       const struct side_results *res, const struct items *it, struct diag *d)
{
    struct latency_basis b = {db_handle(db), t, res, NULL};
    double *stored = NULL;
    /* a result's own percentiles stand in only for one without bins */
    int rc = t->stat == SLO_PERCENTILE && !all_binned(it)
                 ? stored_percentiles(db, res, t->pct, &stored, d)
                 : 0;
    b.stored = stored;
    for (size_t i = 0; i < it->n && rc == 0;) {
        size_t end = items_run_end(it, i, 0);
        rc = family_rows(c, &b, it, i, end, d);
        i = end;
    }
    free(stored);
    return rc;
}

struct rules_targets {
    struct targets *t;
    struct arena *a; /* the report's: a target's text ends up in its cells */
    const char *path;
    struct diag *d;
};

/* A rules file's "slo = TARGET" line before its first [class]; everything else is the
 * recommendations' (recommend.c). */
static int rules_target(void *ctx, const struct ini_entry *e)
{
    struct rules_targets *rt = ctx;
    if (e->section || !e->key || strcmp(e->key, "slo"))
        return 0;
    const char *why;
    struct slo slo;
    if (slo_parse(arena_strdup(rt->a, e->value), &slo, &why)) {
        struct source src = {rt->path, "", 0};
        return diag_error_line(rt->d, &src, e->line, "slo '%s': %s", e->value, why);
    }
    ALLOC_GROW(rt->t->v, rt->t->n, rt->t->a);
    rt->t->v[rt->t->n++] = slo;
    return 0;
}

static int gather_targets(const struct compare_opts *o, struct report *r, struct targets *t,
                          struct diag *d)
{
    for (size_t i = 0; i < o->nslos; i++) {
        ALLOC_GROW(t->v, t->n, t->a);
        t->v[t->n++] = o->slos[i];
    }
    struct rules_targets rt = {t, &r->arena, o->rules_name, d};
    if (o->rules && ini_parse(o->rules_name, o->rules, strlen(o->rules), rules_target, &rt, d))
        return -1;
    if (o->cost && !t->n) {
        diag_error(d, "--cost prices the capacity at a latency target: give one with --slo or "
                      "a rules file's slo line");
        return -1;
    }
    return 0;
}

/* The sweeps of res, sorted: the items of each family, side and depth together. */
static void load_sweeps(const struct side_results *res, const struct id_set *binned, const char *by,
                        struct arena *contexts, struct items *it)
{
    for (size_t i = 0; i < res->n; i++) {
        const struct side_result *x = &res->v[i];
        if (sweepable(x)) {
            int64_t depth = result_engine_is_sync(x) ? 1 : x->iodepth;
            int64_t jobs = x->numjobs > 0 ? x->numjobs : 1;
            items_add(it, sweep_family(x), x, depth << 24 | jobs, binned);
        }
    }
    items_sort(it);
    items_split_contexts(it, contexts, by);
}

int query_capacity(struct db *db, const struct compare_opts *o, const struct side_results *res,
                   const struct id_set *binned, struct report *r, struct diag *d)
{
    struct targets targets = {0};
    int rc = gather_targets(o, r, &targets, d);
    if (rc || !targets.n) {
        free(targets.v);
        return rc;
    }
    struct items it = {0};
    struct arena contexts = ARENA_INIT;
    load_sweeps(res, binned, o->by, &contexts, &it);
    struct costs costs = {0};
    if (rc == 0 && o->cost)
        rc = costs_parse(o->cost_name, o->cost, &costs, d);
    struct cap_ctx c = {r, o, &targets, o->cost ? &costs : NULL, 0, NULL, NULL, NULL};
    for (size_t k = 0; k < targets.n && rc == 0; k++)
        rc = target_rows(db, &c, &targets.v[k], res, &it, d);
    if (rc == 0 && !c.t) /* targets asked for are answered, even when there is nothing to find */
        report_section(r, "Capacity",
                       "No workload ran at two or more queue depths (or job counts) on a side: "
                       "there is no sweep in which to find the capacity at a latency target. "
                       "Run the workload at several iodepth values (1, 2, 4 ... 64), with json+ "
                       "output for the percentiles.");
    if (o->cost)
        costs_release(&costs);
    items_release(&it);
    arena_release(&contexts);
    free(targets.v);
    return rc;
}
