/* summary.c: what the runs of one `benchdb run` measured, one row per job and direction (the
 * workload of the comparison's rows): the mean, sample standard deviation and count over the
 * runs of the headline metric (IOPS for random I/O, else bandwidth) and of the p99 latency. */
#include "query.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "compare.h"
#include "results.h"
#include "stats.h"

/* One job and direction: the metrics of each run's result, in run order. */
struct group {
    const struct side_result *first;
    double *headline, *p99;
    size_t n, nheadline, np99;
};

static int same_workload(const struct side_result *a, const struct side_result *b)
{
    return a->workload == b->workload && !strcmp(a->job ? a->job : "", b->job ? b->job : "") &&
           !strcmp(a->direction ? a->direction : "", b->direction ? b->direction : "");
}

/* Random I/O is counted in operations, sequential I/O in bytes per second, and network tests
 * in bits per second, as links are rated and as the report shows them. */
static enum unit headline_unit(const struct side_result *r)
{
    return result_is_network(r)             ? UNIT_BITS_S
           : r->rw && strstr(r->rw, "rand") ? UNIT_IOPS
                                            : UNIT_BYTES_S;
}

/* r's headline value, in headline_unit's base unit. */
static double headline(const struct side_result *r)
{
    switch (headline_unit(r)) {
    case UNIT_BITS_S:
        return r->m[RM_BW] * 8;
    case UNIT_IOPS:
        return r->m[RM_IOPS];
    default:
        return r->m[RM_BW];
    }
}

static void add_value(double **v, size_t *n, size_t cap, double x)
{
    if (!isfinite(x))
        return;
    if (!*v)
        *v = xcalloc(cap, sizeof(**v));
    (*v)[(*n)++] = x;
}

/* A cell of the mean of v[0..n) with its spread and count; empty when n is 0. */
static void stats_cell(struct cell *c, const double *v, size_t n, enum unit u)
{
    if (!n)
        return;
    struct sample_stats st;
    stats_describe(v, n, &st);
    cell_set_number(c, st.mean);
    c->sd = st.sd;
    c->n = (int)n;
    c->unit = u;
}

static void add_row(struct report *r, struct table *t, const struct group *g, struct buf *name)
{
    struct cell *row = table_add_row(r, t);
    buf_reset(name);
    if (g->first->job)
        buf_addf(name, "%s: ", g->first->job);
    result_workload_name(name, g->first);
    cell_set_text(&row[0], arena_strdup(&r->arena, name->data));
    stats_cell(&row[1], g->headline, g->nheadline, headline_unit(g->first));
    stats_cell(&row[2], g->p99, g->np99, UNIT_NS);
}

/* Groups the usable results of res by workload, each group holding one value per run. */
static size_t group_results(const struct side_results *res, struct group *g)
{
    size_t n = 0;
    for (size_t i = 0; i < res->n; i++) {
        const struct side_result *x = &res->v[i];
        if (!result_usable(x))
            continue;
        size_t k = 0;
        while (k < n && !same_workload(g[k].first, x))
            k++;
        if (k == n)
            g[n++] = (struct group){.first = x};
        add_value(&g[k].headline, &g[k].nheadline, res->n, headline(x));
        add_value(&g[k].p99, &g[k].np99, res->n, x->m[RM_P99]);
    }
    return n;
}

int query_run_summary(struct db *db, const char *const *sources, size_t n, struct report *r,
                      struct diag *d)
{
    static const struct column cols[] = {
        {"result", UNIT_NONE, ROLE_KEY},
        {"value", UNIT_NONE, ROLE_PLAIN},
        {"p99_ns", UNIT_NS, ROLE_PLAIN},
    };
    struct compare_opts o = {.by = "source", .values = sources, .nvalues = n};
    struct side_results res;
    if (query_side_results(db, &o, &res, d)) {
        side_results_release(&res);
        return -1;
    }
    struct table *t = report_table(r, report_section(r, "Summary", NULL), "summary", cols, 3);
    struct group *g = xcalloc(res.n ? res.n : 1, sizeof(*g));
    size_t ng = group_results(&res, g);
    struct buf name = BUF_INIT;
    for (size_t k = 0; k < ng; k++) {
        add_row(r, t, &g[k], &name);
        free(g[k].headline);
        free(g[k].p99);
    }
    buf_release(&name);
    free(g);
    side_results_release(&res);
    return 0;
}
