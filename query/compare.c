/* compare.c: benchdb report --compare. Results are matched on their workload (rw, block size,
 * iodepth, numjobs, direct, sync settings, direction), repeated runs of one workload on one side
 * are aggregated, and each candidate is compared with the baseline with a direction-aware
 * factor, its 95 % interval and a significance verdict (Welch's t-test). */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "insights.h"
#include "results.h"
#include "stats.h"

/* The metrics compared, and which way is better. */
static const struct metric_def {
    const char *name;  /* the metric (mean latency falls back to lat_mean_ns) */
    const char *label; /* in the table */
    enum unit unit;
    int higher_is_better;
    const char *better, *worse; /* phrases: "30.0x faster" / "1.4x slower" */
} metric_defs[] = {
    {"bw_bytes_s", "Bandwidth", UNIT_BYTES_S, 1, "faster", "slower"},
    {"iops", "IOPS", UNIT_IOPS, 1, "more IOPS", "fewer IOPS"},
    {"clat_mean_ns", "Mean latency", UNIT_NS, 0, "lower latency", "higher latency"},
    {"clat_p99_ns", "p99 latency", UNIT_NS, 0, "lower p99 latency", "higher p99 latency"},
};
enum { N_METRICS = sizeof(metric_defs) / sizeof(metric_defs[0]) };

/* Significance level of the verdicts. */
static const double ALPHA = 0.05;

struct side {
    double *v[N_METRICS];
    size_t n[N_METRICS], a[N_METRICS];
    size_t runs;
};

struct workload_group {
    char *key;  /* identity: the workload columns joined */
    char *name; /* human name */
    struct side *sides;
};

struct groups {
    struct workload_group *v;
    size_t n, a;
    size_t nsides;
};

/* ---- grouping ---- */

static struct workload_group *find_group(struct groups *g, const struct side_result *r)
{
    struct buf key = BUF_INIT;
    result_workload_key(&key, r);
    for (size_t i = 0; i < g->n; i++) {
        if (!strcmp(g->v[i].key, key.data)) {
            buf_release(&key);
            return &g->v[i];
        }
    }
    ALLOC_GROW(g->v, g->n, g->a);
    struct workload_group *w = &g->v[g->n++];
    w->key = buf_detach(&key, NULL);
    struct buf name = BUF_INIT;
    result_workload_name(&name, r);
    w->name = buf_detach(&name, NULL);
    w->sides = xcalloc(g->nsides, sizeof(*w->sides));
    return w;
}

static void add_value(struct side *s, int m, double v)
{
    ALLOC_GROW(s->v[m], s->n[m], s->a[m]);
    s->v[m][s->n[m]++] = v;
}

/* Failed jobs and the threads or clients of a job result (parts) are not compared. */
static void add_result(struct groups *g, const struct side_result *r)
{
    if (!result_usable(r))
        return;
    struct side *s = &find_group(g, r)->sides[r->side];
    s->runs++;
    static const enum result_metric map[N_METRICS] = {RM_BW, RM_IOPS, RM_LAT_MEAN, RM_P99};
    for (int m = 0; m < N_METRICS; m++)
        if (!isnan(r->m[map[m]]))
            add_value(s, m, r->m[map[m]]);
}

static void groups_release(struct groups *g)
{
    for (size_t i = 0; i < g->n; i++) {
        for (size_t s = 0; s < g->nsides; s++)
            for (int m = 0; m < N_METRICS; m++)
                free(g->v[i].sides[s].v[m]);
        free(g->v[i].sides);
        free(g->v[i].key);
        free(g->v[i].name);
    }
    free(g->v);
}

static int cmp_groups(const void *a, const void *b)
{
    const struct workload_group *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->key, y->key);
}

/* ---- the factor ---- */

void compare_factor(const struct sample_stats *base, const struct sample_stats *cand,
                    int higher_is_better, struct cell *out)
{
    out->kind = CELL_NUMBER;
    double ratio = cand->mean / base->mean;
    double lo = NAN, hi = NAN, r;
    if (stats_ratio_ci(base, cand, &r, &lo, &hi) == 0)
        ratio = r;
    /* the factor reads as "how many times better": >1 better, <1 worse */
    out->value = higher_is_better ? ratio : 1 / ratio;
    out->lo = higher_is_better ? lo : 1 / hi;
    out->hi = higher_is_better ? hi : 1 / lo;
    if (base->n < 2 || cand->n < 2) {
        out->verdict = VERDICT_SINGLE_RUN;
        return;
    }
    /* Welch's test on the values and the interval of the ratio must agree: a difference that
     * one of them cannot tell from none is not called significant */
    struct welch w;
    int welch_says = stats_welch(base, cand, &w) == 0 ? w.p < ALPHA : base->mean != cand->mean;
    int interval_says = !(lo <= 1 && hi >= 1);
    out->verdict = welch_says && interval_says ? VERDICT_SIGNIFICANT : VERDICT_NOT_SIGNIFICANT;
}

static const char *factor_phrase(struct arena *a, const struct cell *c, const struct metric_def *m)
{
    if (!isfinite(c->value) || c->value <= 0)
        return "n/a";
    if (c->verdict == VERDICT_NOT_SIGNIFICANT)
        return arena_printf(a, "no significant difference (%.2fx)", c->value);
    int better = c->value >= 1;
    double f = better ? c->value : 1 / c->value;
    const char *what = better ? m->better : m->worse;
    if (c->verdict == VERDICT_SINGLE_RUN)
        return arena_printf(a, "%.1fx %s (single run)", f, what);
    if (isfinite(c->lo) && isfinite(c->hi)) {
        double lo = better ? c->lo : 1 / c->hi, hi = better ? c->hi : 1 / c->lo;
        return arena_printf(a, "%.1fx %s (95%% CI %.2f-%.2f)", f, what, lo, hi);
    }
    return arena_printf(a, "%.1fx %s", f, what);
}

/* ---- the report ---- */

static void value_cell(struct cell *c, const struct side *s, int m)
{
    if (!s->n[m])
        return;
    struct sample_stats st;
    stats_describe(s->v[m], s->n[m], &st);
    cell_set_number(c, st.mean);
    c->sd = st.sd;
    c->n = (int)st.n;
    c->min = st.min;
    c->max = st.max;
    c->lo = st.ci_lo;
    c->hi = st.ci_hi;
}

static void add_comparison_rows(struct report *r, struct table *t, const struct workload_group *w,
                                size_t nsides)
{
    for (int m = 0; m < N_METRICS; m++) {
        const struct side *base = &w->sides[0];
        int any = 0;
        for (size_t s = 0; s < nsides; s++)
            any |= w->sides[s].n[m] > 0;
        if (!any)
            continue;
        struct cell *row = table_add_row(r, t);
        cell_set_text(&row[0], arena_strdup(&r->arena, w->name));
        cell_set_text(&row[1], metric_defs[m].label);
        row[2].unit = metric_defs[m].unit;
        value_cell(&row[2], base, m);
        for (size_t s = 1; s < nsides; s++) {
            struct cell *v = &row[1 + 2 * s], *f = &row[2 + 2 * s];
            v->unit = metric_defs[m].unit;
            value_cell(v, &w->sides[s], m);
            f->unit = UNIT_RATIO;
            if (!base->n[m] || !w->sides[s].n[m])
                continue;
            struct sample_stats a, b;
            stats_describe(base->v[m], base->n[m], &a);
            stats_describe(w->sides[s].v[m], w->sides[s].n[m], &b);
            if (!(a.mean > 0 && b.mean > 0))
                continue;
            compare_factor(&a, &b, metric_defs[m].higher_is_better, f);
            f->text = factor_phrase(&r->arena, f, &metric_defs[m]);
        }
    }
}

static int complete(const struct workload_group *w, size_t nsides)
{
    for (size_t s = 0; s < nsides; s++)
        if (!w->sides[s].runs)
            return 0;
    return 1;
}

static void comparison_table(struct report *r, const struct compare_opts *o, const struct groups *g)
{
    size_t ncols = 1 + 2 * o->nvalues;
    struct column *cols = xcalloc(ncols, sizeof(*cols));
    cols[0] = (struct column){"Workload", UNIT_NONE};
    cols[1] = (struct column){"Metric", UNIT_NONE};
    cols[2] = (struct column){arena_printf(&r->arena, "%s (baseline)", o->values[0]), UNIT_NONE};
    for (size_t s = 1; s < o->nvalues; s++) {
        cols[1 + 2 * s] = (struct column){o->values[s], UNIT_NONE};
        cols[2 + 2 * s] = (struct column){
            arena_printf(&r->arena, "%s vs %s", o->values[s], o->values[0]), UNIT_RATIO};
    }
    struct buf prose = BUF_INIT;
    buf_adds(&prose, "Each row is one workload both sides ran, matched on rw, block size, "
                     "iodepth, numjobs, direct and sync settings. Values are means of the "
                     "repeated runs (± standard deviation, n runs); the factor reads as "
                     "candidate against baseline.");
    struct section *s = report_section(r, "Comparison", prose.data);
    buf_release(&prose);
    struct table *t = report_table(r, s, "comparison", cols, ncols);
    free(cols);
    size_t rows = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (!complete(&g->v[i], o->nvalues))
            continue;
        add_comparison_rows(r, t, &g->v[i], o->nvalues);
        rows++;
    }
    if (!rows)
        s->prose = "No workload was run on every compared side: nothing to compare.";
}

static void unmatched_section(struct report *r, const struct compare_opts *o,
                              const struct groups *g)
{
    struct section *s = NULL;
    struct table *t = NULL;
    static const struct column cols[] = {
        {"Workload", UNIT_NONE}, {"Ran on", UNIT_NONE}, {"Runs", UNIT_NONE}};
    for (size_t i = 0; i < g->n; i++) {
        const struct workload_group *w = &g->v[i];
        if (complete(w, o->nvalues))
            continue;
        if (!s) {
            s = report_section(r, "Workloads not run on every side",
                               "These workloads have results on some of the compared sides "
                               "only, so they are not compared.");
            t = report_table(r, s, "unmatched", cols, 3);
        }
        for (size_t side = 0; side < o->nvalues; side++) {
            if (!w->sides[side].runs)
                continue;
            struct cell *row = table_add_row(r, t);
            cell_set_text(&row[0], arena_strdup(&r->arena, w->name));
            cell_set_text(&row[1], o->values[side]);
            cell_set_number(&row[2], (double)w->sides[side].runs);
        }
    }
}

/* What was compared: for each side its hosts, mounts, flavors, tool versions and dates. */
static int context_facts(struct db *db, struct report *r, const struct compare_opts *o,
                         struct diag *d)
{
    const char *param;
    const char *kx = query_key_expr(o->by, &param);
    struct buf sql = BUF_INIT;
    buf_addf(
        &sql,
        "SELECT group_concat(DISTINCT r.host), "
        "group_concat(DISTINCT m.options), group_concat(DISTINCT r.sec), "
        "group_concat(DISTINCT run.tool_version), "
        "strftime('%%Y-%%m-%%d', min(run.started_at), 'unixepoch'), "
        "strftime('%%Y-%%m-%%d', max(run.started_at), 'unixepoch'), count(*) "
        "FROM result r JOIN run ON run.id = r.run_id JOIN source_file s ON s.id = run.source_id "
        "LEFT JOIN mount m ON m.id = r.mount_id WHERE %s = ?",
        kx);
    sqlite3_stmt *st;
    sqlite3 *h = db_handle(db);
    int rc = 0;
    if (sqlite3_prepare_v2(h, sql.data, -1, &st, NULL) != SQLITE_OK)
        rc = diag_error(d, "cannot compare: %s", sqlite3_errmsg(h));
    buf_release(&sql);
    report_fact(r, "Compared by", o->by);
    for (size_t i = 0; rc == 0 && i < o->nvalues; i++) {
        int p = 1;
        if (param)
            sqlite3_bind_text(st, p++, param, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, p, o->values[i], -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
            struct buf v = BUF_INIT;
            const char *labels[] = {"hosts", "mount", "sec", "tool"};
            buf_addf(&v, "%d results", sqlite3_column_int(st, 6));
            for (int c = 0; c < 4; c++)
                if (sqlite3_column_type(st, c) != SQLITE_NULL)
                    buf_addf(&v, "; %s: %s", labels[c], sqlite3_column_text(st, c));
            if (sqlite3_column_type(st, 4) != SQLITE_NULL)
                buf_addf(&v, "; dates: %s to %s", sqlite3_column_text(st, 4),
                         sqlite3_column_text(st, 5));
            report_fact(r,
                        arena_printf(&r->arena, "%s%s", o->values[i], i == 0 ? " (baseline)" : ""),
                        v.data);
            buf_release(&v);
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static const char method_note[] =
    "Repeated runs of a workload on one side are averaged; the spread is the sample standard "
    "deviation. A factor above 1 means the candidate is better in that metric's own direction "
    "(higher bandwidth and IOPS, lower latency). Its 95 % interval comes from the delta method "
    "on the log ratio of the means, and a difference is called significant only when Welch's "
    "t-test on the runs gives p < 0.05 and that interval excludes 1 (both must agree). With a "
    "single run on either side no verdict is possible and the factor is marked *single run*. Failed jobs (fio error != 0) and client/server "
    "aggregates are left out. Insights use fixed thresholds: p99 above 10x the median is tail "
    "latency, runs under 5 s are short, repeats whose bandwidth varies by more than 25 % "
    "(coefficient of variation) disagree, buffered random I/O is probably cached, and storage "
    "faster than the network measured for its host was served by a cache.";

/* Recommendations from --rules FILE, else from the built-in templates/tiers.rules. */
static int recommend(const struct compare_opts *o, const struct side_results *res, struct report *r,
                     struct diag *d)
{
    if (!o->rules_path) {
        size_t len;
        const char *text = report_builtin_file("tiers.rules", &len);
        return query_recommend(o, res, "built-in tiers.rules", text, r, d);
    }
    FILE *f = fopen(o->rules_path, "rb");
    if (!f)
        return diag_error(d, "cannot open rules '%s': %s", o->rules_path, strerror(errno));
    struct buf text = BUF_INIT;
    int rc = buf_read_file(&text, f);
    fclose(f);
    if (rc)
        rc = diag_error(d, "cannot read rules '%s'", o->rules_path);
    else
        rc = query_recommend(o, res, o->rules_path, text.data, r, d);
    buf_release(&text);
    return rc;
}

int query_compare(struct db *db, const struct compare_opts *o, struct report *r, struct diag *d)
{
    struct side_results res;
    struct groups g = {NULL, 0, 0, o->nvalues};
    int rc = query_side_results(db, o, &res, d);
    for (size_t i = 0; rc == 0 && i < res.n; i++)
        add_result(&g, &res.v[i]);
    if (rc == 0) {
        qsort(g.v, g.n, sizeof(*g.v), cmp_groups);
        rc = context_facts(db, r, o, d);
    }
    if (rc == 0) {
        comparison_table(r, o, &g);
        unmatched_section(r, o, &g);
        rc = query_insights(db, o, &res, r, d);
    }
    if (rc == 0)
        rc = recommend(o, &res, r, d);
    if (rc == 0)
        report_section(r, "Method", method_note);
    groups_release(&g);
    side_results_release(&res);
    return rc;
}
