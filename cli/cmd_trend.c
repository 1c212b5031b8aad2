/* cmd_trend.c: benchdb trend. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "../core/scan.h"
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
    struct str_list metrics;
    struct time_range dates;
    const char *format, *table, *output;
};

/* What --format takes and -o FILE's extension may name. */
static const char *const formats[] = {"md", "html", "csv", "json", NULL};

/* A number in (lo, hi] (lo itself too when lo_ok; --min-magnitude's PCT may end in '%'); 0, or
 * -1 after a message naming the value and the range (in words). */
static int number_option(const struct opt *opt, const char *arg, const char *cmd, double lo,
                         int lo_ok, double hi, const char *range, double *out)
{
    const char *p = arg;
    double v;
    int pct = !strcmp(opt->long_name, "min-magnitude");
    if (scan_number(&p, &v) && (!*p || (*p == '%' && !p[1] && pct)) &&
        (v > lo || (lo_ok && v == lo)) && v <= hi) {
        *out = v;
        return 0;
    }
    cli_error(cmd, "expected --%s %s, got '%s'", opt->long_name, range, arg);
    return -1;
}

/* --p-value P: p = 1 would keep every point the first pass found; 0 none. */
static int opt_p_value(const struct opt *opt, char *arg, const char *cmd)
{
    return number_option(opt, arg, cmd, 0, 0, 0.5, "above 0 and at most 0.5", opt->value);
}

/* --min-magnitude PCT, stored as a fraction. */
static int opt_min_magnitude(const struct opt *opt, char *arg, const char *cmd)
{
    double pct, *fraction = opt->value;
    if (number_option(opt, arg, cmd, 0, 1, 1000, "from 0 to 1000 (percent)", &pct))
        return -1;
    *fraction = pct / 100;
    return 0;
}

static int parse(struct app *app, int argc, char **argv, struct trend_cli *o)
{
    const struct opt opts[] = {
        OPT_CALLBACK(0, "where", &o->where, "KEY=VALUE", "filter (repeatable)", opt_where),
        OPT_STRINGS(0, "metric", &o->metrics, "M", "a stored metric (repeatable)"),
        OPT_SINCE(&o->dates),
        OPT_UNTIL(&o->dates),
        OPT_CALLBACK(0, "p-value", &o->q.cp.max_p, "P", "a change point's t-test p below P",
                     opt_p_value),
        OPT_CALLBACK(0, "min-magnitude", &o->q.cp.min_magnitude, "PCT",
                     "a change point's change above PCT percent", opt_min_magnitude),
        OPT_ENUM(0, "format", &o->format, formats, "output format"),
        OPT_ENUM(0, "table", &o->table, query_trend_tables, "with csv: the table to write"),
        OPT_STRING('o', "output", &o->output, "FILE", "write to FILE"),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    if (status != BDB_EXIT_OK)
        return status;
    if (!o->format && !(o->format = output_format("trend", o->output, formats, "md")))
        return usage_hint("trend");
    return table_option("trend", o->format, o->table) ? usage_hint("trend") : BDB_EXIT_OK;
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
    int status = parse(app, argc, argv, &o);
    if (status == BDB_EXIT_OK) {
        o.q.where = o.where.v;
        o.q.nwhere = o.where.n;
        o.q.metrics = o.metrics.v;
        o.q.nmetrics = o.metrics.n;
        o.q.dates = app->dates = &o.dates;
        status = run_trend(app, &o);
    }
    kv_list_release(&o.where);
    str_list_release(&o.metrics);
    return status < 0 ? BDB_EXIT_OK : status;
}
