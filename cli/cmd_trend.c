/* cmd_trend.c: benchdb trend. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/scan.h"
#include "../core/xalloc.h"
#include "../query/trend.h"

static const char usage[] =
    "usage: benchdb trend [--where KEY=VALUE]... [--metric M]... [--since D] [--until D]\n"
    "                     [--p-value P] [--min-magnitude PCT] [--format md|html|csv|json]\n"
    "                     [--table NAME] [-o FILE]\n"
    "\n"
    "Follow each series (host x storage class x mount options x sec x workload x metric)\n"
    "over the runs' start times and find where its level changed: E-divisive means with a\n"
    "t-test (as Hunter/Otava do). Each change point gives its date, run, the means before\n"
    "and after, the relative change and p.\n"
    "\n"
    "  --where KEY=VALUE     filter (repeatable): storage-class, host, sec, rw, bs, direction,\n"
    "                        job, iodepth, numjobs, direct, tool, mount:OPTION, tag:NAME\n"
    "  --metric M            a stored metric (repeatable; default\n"
    "                        " TREND_DEFAULT_METRICS ")\n"
    "  --since D, --until D  only runs started from / up to D, an ISO 8601 date or timestamp\n"
    "                        (UTC unless it has an offset; a bare --until date includes its day)\n"
    "  --p-value P           a change point's t-test p must be below P (default 0.001)\n"
    "  --min-magnitude PCT   and its change above PCT percent (default 5)\n"
    "  --format F            md (default), html (each series drawn), csv, json (its shape:\n"
    "                        " BENCHDB_DOCDIR "/trend.schema.json)\n"
    "  --table NAME          with csv: change_points (default), series or points\n"
    "  -o FILE               write to FILE (default: standard output); without --format, its\n"
    "                        extension (.md, .html, .csv, .json) names the format\n"
    "\n"
    "Examples:\n"
    "  benchdb trend --where storage-class=nfs-csi --since 2026-01-01\n"
    "  benchdb trend --metric clat_p99_ns --format html -o trend.html\n"
    "  benchdb trend --format json | jq '.series[] | select(.change_points != [])'\n";

struct trend_cli {
    struct trend_opts q;
    struct kv_list where;
    const char **metrics;
    size_t nmetrics, ametrics;
    struct time_range dates;
    const char *format, *table, *output;
};

/* A number in (lo, hi] (lo itself too when lo_ok; PCT may end in '%'); 0, or -1 after a
 * message naming the value and the range (in words). */
static int number_option(const char *opt, const char *arg, double lo, int lo_ok, double hi,
                         const char *range, double *out)
{
    const char *p = arg;
    double v;
    if (scan_number(&p, &v) && (!*p || (*p == '%' && !p[1] && !strcmp(opt, "min-magnitude"))) &&
        (v > lo || (lo_ok && v == lo)) && v <= hi) {
        *out = v;
        return 0;
    }
    fprintf(stderr, "benchdb trend: error: expected --%s %s, got '%s'\n", opt, range, arg);
    return -1;
}

/* The option c with its argument; 0, or -1 after a message. */
static int take_option(struct trend_cli *o, int c, char *arg)
{
    double pct;
    switch (c) {
    case 'w':
        return where_option("trend", arg, &o->where);
    case 'm':
        ALLOC_GROW(o->metrics, o->nmetrics, o->ametrics);
        o->metrics[o->nmetrics++] = arg;
        return 0;
    case 'p':
        /* p = 1 would keep every point the first pass found; 0 none */
        return number_option("p-value", arg, 0, 0, 0.5, "above 0 and at most 0.5", &o->q.cp.max_p);
    case 'M':
        if (number_option("min-magnitude", arg, 0, 1, 1000, "from 0 to 1000 (percent)", &pct))
            return -1;
        o->q.cp.min_magnitude = pct / 100;
        return 0;
    case 'f':
        o->format = arg;
        return 0;
    case 't':
        o->table = arg;
        return 0;
    case 'o':
        o->output = arg;
        return 0;
    default:
        return time_option("trend", c, arg, &o->dates) == 1 ? 0 : -1;
    }
}

static int parse_options(struct app *app, int argc, char **argv, struct trend_cli *o)
{
    static const struct option longopts[] = {
        {"where", required_argument, NULL, 'w'},
        {"metric", required_argument, NULL, 'm'},
        {"p-value", required_argument, NULL, 'p'},
        {"min-magnitude", required_argument, NULL, 'M'},
        {"format", required_argument, NULL, 'f'},
        {"table", required_argument, NULL, 't'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        TIME_LONGOPTS,
        DB_LONGOPT,
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = next_option(app, argc, argv, "o:h", longopts)) != -1) {
        if (c == 'h')
            return usage_exit(usage, BDB_EXIT_OK) - 1;
        if (c == '?' || take_option(o, c, optarg))
            return usage_exit(usage, BDB_EXIT_USAGE);
    }
    if (optind != argc)
        return unexpected_argument("trend", usage, argv[optind]);
    static const char *const formats[] = {"md", "html", "csv", "json", NULL};
    if (!o->format && !(o->format = output_format("trend", o->output, formats, "md")))
        return usage_exit(usage, BDB_EXIT_USAGE);
    for (size_t i = 0; formats[i]; i++)
        if (!strcmp(o->format, formats[i]))
            return table_option("trend", o->format, o->table, query_trend_tables)
                       ? usage_exit(usage, BDB_EXIT_USAGE)
                       : BDB_EXIT_OK;
    fprintf(stderr, "benchdb trend: error: unknown format '%s' (expected md, html, csv or json)\n",
            o->format);
    return usage_exit(usage, BDB_EXIT_USAGE);
}

static int render(const struct trend_cli *o, struct report *r, struct buf *out, struct diag *d)
{
    if (!strcmp(o->format, "html")) {
        report_time_figures(r); /* each series drawn */
        return render_html(r, NULL, out, d);
    }
    if (!strcmp(o->format, "csv"))
        return render_csv(r, o->table ? o->table : "change_points", out, d);
    if (!strcmp(o->format, "json"))
        return render_series_json(r, "series", out, d);
    return render_md(r, out, d);
}

static int run_trend(struct app *app, struct trend_cli *o)
{
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    struct report r;
    struct buf out = BUF_INIT;
    report_init(&r, "Benchmark trends");
    int rc = query_trend(db, &o->q, &r, &app->diag);
    int status = rc ? BDB_EXIT_INPUT : BDB_EXIT_OK;
    if (status == BDB_EXIT_OK)
        status = render(o, &r, &out, &app->diag) ? BDB_EXIT_INPUT
                                                 : write_output(app, o->output, out.data, out.len);
    buf_release(&out);
    report_release(&r);
    db_close(db);
    return status;
}

int cmd_trend(int argc, char **argv, struct app *app)
{
    struct trend_cli o = {.q = {.cp = CHANGEPOINT_DEFAULTS}, .dates = TIME_RANGE_ALL};
    int status = parse_options(app, argc, argv, &o);
    if (status == BDB_EXIT_OK) {
        o.q.where = o.where.v;
        o.q.nwhere = o.where.n;
        o.q.metrics = o.metrics;
        o.q.nmetrics = o.nmetrics;
        o.q.dates = app->dates = &o.dates;
        status = run_trend(app, &o);
    }
    kv_list_release(&o.where);
    free(o.metrics);
    return status < 0 ? BDB_EXIT_OK : status;
}
