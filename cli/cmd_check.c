/* cmd_check.c: benchdb check, the comparison as a CI gate. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/scan.h"
#include "../core/xalloc.h"
#include "../query/compare.h"
#include "../query/gate.h"
#include "../query/sides.h"

static const char usage[] =
    "usage: benchdb check --compare BASELINE CANDIDATE... [--by KEY] [--where KEY=VALUE]... "
    "[--threshold PCT] [--since D] [--until D]\n"
    "\n"
    "Compare candidates with a baseline as 'benchdb report' does, and fail (exit status 1) when\n"
    "any compared metric of a candidate is significantly worse than the baseline by more than\n"
    "the threshold. Each regression is listed on standard output, one line each. Improvements,\n"
    "differences that are not significant and comparisons with a single run on a side (which\n"
    "cannot be significant) pass.\n"
    "\n"
    "  --compare A B [C...]  values to compare; the first is the baseline; baseline:NAME is a\n"
    "                        saved baseline ('benchdb baseline save')\n"
    "  --by KEY              storage-class (default), host, sec, mount:OPTION, tag:NAME\n"
    "  --where KEY=VALUE     filter (repeatable), as in 'benchdb report'\n"
    "  --since D, --until D  only runs started from / up to D (ISO 8601, as in 'benchdb report')\n"
    "  --threshold PCT       how much worse than the baseline a significant difference must be\n"
    "                        to fail (default 5): the baseline is more than PCT % better in\n"
    "                        the metric's own direction\n"
    "\n"
    "Exit status: 0 no regression, 1 a regression (or nothing could be compared), 2 usage,\n"
    "3 database failure.\n"
    "\n"
    "Examples:\n"
    "  benchdb check --compare baseline:nightly nightly-2026-12-01 --by tag:build\n"
    "  benchdb check --compare local-nvme nfs-csi --where rw=randread --threshold 10\n";

struct check_opts {
    struct compare_opts cmp;
    const char **values;
    size_t nv, av;
    struct kv_list where;
    struct time_range dates;
    double threshold_pct;
};

static int threshold_option(const char *arg, double *pct)
{
    const char *p = arg;
    if (scan_number(&p, pct) && !*p && *pct >= 0)
        return 0;
    fprintf(stderr,
            "benchdb check: error: expected --threshold to be a percentage of 0 or more, got "
            "'%s'\n",
            arg);
    return -1;
}

static int parse_options(struct app *app, int argc, char **argv, struct check_opts *o)
{
    static const struct option longopts[] = {
        COMPARE_LONGOPTS,   TIME_LONGOPTS, DB_LONGOPT, {"threshold", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    int c, compare = 0;
    optind = 1;
    o->cmp.by = "storage-class";
    o->threshold_pct = 5;
    while ((c = next_option(app, argc, argv, "-h", longopts)) != -1) {
        if (c == 1 && compare) { /* a non-option after --compare: a compared value */
            ALLOC_GROW(o->values, o->nv, o->av);
            o->values[o->nv++] = optarg;
        } else if (c == 1) {
            return unexpected_argument("check", usage, optarg);
        } else if (c == 'c') {
            compare = 1;
        } else if (c == 'b'   ? by_option("check", optarg)
                   : c == 'w' ? where_option("check", optarg, &o->where)
                   : c == 't' ? threshold_option(optarg, &o->threshold_pct)
                              : time_option("check", c, optarg, &o->dates) != 1) {
            return usage_option(c, usage);
        } else if (c == 'b') {
            o->cmp.by = optarg;
        }
    }
    if (o->nv < 2) {
        fprintf(stderr, "benchdb check: error: --compare needs a baseline and at least one "
                        "candidate\n");
        return usage_exit(usage, BDB_EXIT_USAGE);
    }
    o->cmp.values = o->values;
    o->cmp.nvalues = o->nv;
    o->cmp.where = o->where.v;
    o->cmp.nwhere = o->where.n;
    o->cmp.dates = &o->dates;
    return BDB_EXIT_OK;
}

/* The verdict on stdout: each regression, then what was tested. */
static int print_verdict(const struct gate *g, const struct check_opts *o)
{
    for (size_t i = 0; i < g->n; i++)
        printf("regression: %s: %s: %s: %s\n", g->v[i].workload, g->v[i].metric, g->v[i].versus,
               g->v[i].factor->text);
    if (g->single_run)
        printf("check: %zu comparison%s with a single run on a side cannot be significant "
               "(repeat the runs for a verdict)\n",
               g->single_run, g->single_run == 1 ? "" : "s");
    if (!g->tested && !g->single_run) {
        printf("check: no workload was run on both the baseline and a candidate: nothing "
               "compared, nothing vouched for\n");
        return BDB_EXIT_INPUT;
    }
    printf("check: %zu regression%s worse than the baseline by more than %g %% in %zu tested "
           "comparison%s\n",
           g->n, g->n == 1 ? "" : "s", o->threshold_pct, g->tested, g->tested == 1 ? "" : "s");
    return g->n ? BDB_EXIT_INPUT : BDB_EXIT_OK;
}

static int check(struct db *db, const struct check_opts *o, struct diag *d)
{
    struct report r;
    report_init(&r, "check");
    int status = BDB_EXIT_INPUT;
    if (!query_check_sides(db, &o->cmp, d) && !query_compare(db, &o->cmp, &r, d)) {
        struct gate g;
        gate_evaluate(&r, o->threshold_pct, &g);
        status = print_verdict(&g, o);
        gate_release(&g);
        fflush(stdout);
    }
    report_release(&r);
    return status;
}

int cmd_check(int argc, char **argv, struct app *app)
{
    struct check_opts o = {.dates = TIME_RANGE_ALL};
    int status = parse_options(app, argc, argv, &o);
    struct db *db = NULL;
    app->dates = &o.dates;
    if (status == BDB_EXIT_OK && open_db(app, DB_READ_ONLY, &db))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK)
        status = check(db, &o, &app->diag);
    db_close(db);
    free(o.values);
    kv_list_release(&o.where);
    return status < 0 ? BDB_EXIT_OK : status;
}
