/* cmd_check.c: benchdb check, the comparison as a CI gate. */
#include "cli.h"

#include <stdio.h>

#include "../core/scan.h"
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
    struct str_list values;
    struct kv_list where;
    struct time_range dates;
    double threshold_pct;
};

static int opt_threshold(const struct opt *opt, char *arg, const char *cmd)
{
    const char *p = arg;
    double *pct = opt->value;
    if (scan_number(&p, pct) && !*p && *pct >= 0)
        return 0;
    cli_error(cmd, "expected --threshold to be a percentage of 0 or more, got '%s'", arg);
    return -1;
}

static int parse(struct app *app, int argc, char **argv, struct check_opts *o)
{
    const struct opt opts[] = {
        OPT_COMPARE(&o->values, &o->cmp.by, &o->where),
        OPT_SINCE(&o->dates),
        OPT_UNTIL(&o->dates),
        OPT_CALLBACK(0, "threshold", &o->threshold_pct, "PCT",
                     "how much worse a significant difference must be to fail", opt_threshold),
        OPT_END(),
    };
    o->cmp.by = "storage-class";
    o->threshold_pct = 5;
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    if (status != BDB_EXIT_OK)
        return status;
    if (o->values.n < 2)
        return usage_error("check", "--compare needs a baseline and at least one candidate");
    o->cmp.values = o->values.v;
    o->cmp.nvalues = o->values.n;
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
    int status = parse(app, argc, argv, &o);
    struct db *db = NULL;
    app->dates = &o.dates;
    if (status == BDB_EXIT_OK && open_db(app, DB_READ_ONLY, &db))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK)
        status = check(db, &o, &app->diag);
    db_close(db);
    str_list_release(&o.values);
    kv_list_release(&o.where);
    return status < 0 ? BDB_EXIT_OK : status;
}
